"""NumPy reference kernels for ``aclnnMaxPool2dWithMaskBackward``, its forward and the INT8 mask codecs.

Conventions (facts 5.1)
-----------------------
* ``self`` is 4-D ``(N, C, H, W)`` or 3-D ``(C, H, W)`` (treated as ``N = 1``); ``grad_output`` is the pooled
  ``(N, C, Ho, Wo)`` (``(C, Ho, Wo)``).  ``kernel_size``/``padding``/``dilation`` have 1 or 2 values,
  ``stride`` 0, 1 or 2 (empty = ``kernel_size``); ``0 <= padding <= kernel_size // 2`` and ``dilation == 1``
  (the op's checks; violations raise ``ValueError``).  Pooled sizes follow ``pool_out_size`` (incl. the
  ceil rule).
* Semantics: ``grad_input[n, c, h, w] = sum of grad_output[n, c, ho, wo]`` over the outputs whose window
  maximum (first maximum in row-major window order, padding never wins) is ``(h, w)``.  Sums are formed in
  float32/float64 and rounded once to the dtype of ``self`` (the ATK golden runs PyTorch in float32).
* The INT8 ``indices`` mask has the declared shape ``[N, C, kH*kW, (ceil(Ho*Wo/16)+1)*32]`` (3-D: no
  ``N``), but its BYTE LAYOUT depends on the product (``mask_layout``):

  - ``"a2_int32"`` (products ``"910b"``/``"910_93"``, kernel != 1x1): the first ``N*C*Ho*Wo*4`` bytes are
    little-endian int32 argmax values ordered ``(n, c, ho, wo)``, each the flat ``h*W + w`` inside the
    UNPADDED plane; the rest is zero (ATK encoder: int32, zero-pad to the mask size, view as int8).
  - ``"v1_bitmask"`` (product ``"910"`` with any kernel, A2/A3 with a 1x1 kernel): uint16 little-endian words
    ``M[n][c1][k][q]`` packed from byte 0, ``c1 < ceil(C/16)``, ``k = i*kW + j``,
    ``q < Q = (ceil(Ho*Wo/16)+1)*16``; bit ``b`` of ``M[n][c1][k][ho*Wo+wo]`` is set iff channel ``16*c1+b``
    takes its maximum at window cell ``(ho*sH - pH + i, wo*sW - pW + j)``.

* The kernels read ``indices`` as a raw C-order byte buffer (the device reinterprets the storage from its
  base address); its declared shape is not checked (the op computes the comparison and ignores it), only
  that it holds at least the bytes the layout needs.

Readings chosen where the facts are unsure (all [inferred] in the facts, not verified on hardware)
------------------------------------------------------------------------------------------------
* Bit numbering of Layout B: bit ``b`` = C0 lane ``b``, LSB first, words little-endian (the facts' reading of
  TIK ``vcmpv_eq``).
* Several bits set for one ``(n, c, ho, wo)`` (impossible in a device-written mask): the backward adds the
  gradient to EVERY flagged cell (the mask is consumed as one bit plane per window cell, so each plane is
  applied independently -- an assumption, not verified on device); ``decode_mask`` reports the first
  flagged cell.  Flagged cells that fall in
  the padding are dropped (backward) / reported as -1 (decode).  No bit set -> gradient dropped, -1.
* Forward mask details reproduced from the facts: words for ``q`` in ``[Ho*Wo, Q)`` (tail and the "+1"
  block) are 0; channel lanes ``b >= C - 16*c1`` of the last ``c1`` block belong to the zero channels that
  the NCHW -> NC1HWC0 transfer pads in, so their bit is set at the first in-bounds window cell (all values
  0 -> first maximum); with a 1x1 kernel EVERY word of the used region is 0xFFFF (including tail, "+1"
  block and pad lanes).  Bytes beyond the used ``N*ceil(C/16)*kH*kW*Q*2`` are 0.
* On product ``"910"`` FLOAT (float32) inputs are compared as float16-rounded values (documented precision
  loss); the forward ``out`` is then the float16-rounded maximum returned as float32.  The backward still
  accumulates in float32 (the golden does), i.e. the device's float16 rounding of ``grad_output`` on 910 is
  not emulated.  BFLOAT16 on 910 is rejected by the op's dtype check, not by this kernel.
* Empty tensors: a zero batch ``N`` returns correctly shaped zeros (the op's empty shortcut); a zero ``C``,
  ``H`` or ``W`` raises ``ValueError`` because the op rejects it (161002) before the empty shortcut.
* NaN inputs are excluded by the doc; the forward follows PyTorch (a NaN replaces the running maximum).
* Layout A argmax values outside ``[0, H*W)`` (e.g. the seed sample decoded as int32: -1) raise
  ``ValueError``; the device behaviour is undefined.

Implementation: Layout A scatters with a blocked ``np.bincount`` (shared with the 3-D kernel); Layout B
loops over the ``kH*kW`` window cells, expands the 16 bit lanes with shifts and adds ``grad_output`` into a
strided view of a padded float32 buffer (one cell per output per pass, so no collisions within a pass).
With the compiled helpers (``_accel``) both layouts run as single loops on flat arrays: the scatter adds in
float32 in index order (as PyTorch's CPU kernel, bit for bit), one plane at a time, each zeroed just before
(``_a2_backward_compiled``); the bit mask makes the NumPy path's float32 sums in the same order (bit-identical),
one plane at a time, into an accumulator split by phase (input row mod sH, column mod sW) where every window
cell's targets are the pooled grid shifted by a constant: one run of 16-lane masked vectors per cell instead
of a stride-sW scatter over rows of a few elements, then the phases interleaved back (see
``_v1_backward_compiled``; its per-geometry set-up is a plan cached with the call's geometry). At the ResNet
stem pooling (3x3, stride 2, padding 1), against PyTorch's index scatter on one thread: (2, 16, 28, 28) 9.4 us
against 7.6 (the previous phase loop: 22 us), (16, 64, 112, 112) 7.1 ms against 25 (was 9.4).
"""

from __future__ import annotations

import functools

import numpy as np

from generator.kernels import _accel
from generator.kernels._accel import (
    tap_range,
    vec_add_where_bit,
    vec_load,
    vec_put_where_bit,
    vec_store_pairs,
)
from generator.kernels._common import (
    FLOAT_DTYPES,
    OPS_PER_STEP,
    Cost,
    check_float,
    from_compute,
    int_values,
    normalize_pair,
    numel,
    pool_out_size,
    to_compute,
)
from generator.kernels.max_pool3d_with_argmax_backward import (
    check_pool_params,
    pooled_shape,
    scatter_add_planes,
    scatter_cost,
    window_argmax,
)

__all__ = [
    "cost",
    "decode_mask",
    "encode_mask",
    "mask_layout",
    "mask_shape",
    "max_pool2d_with_mask",
    "max_pool2d_with_mask_backward",
]

LAYOUT_A2 = "a2_int32"
LAYOUT_V1 = "v1_bitmask"
_C0 = 16
_A2_PRODUCTS = {"910b", "910_93", "a2", "a3", "ascend910b", "ascend910_93"}
_V1_PRODUCTS = {"910", "ascend910"}
_LANES = np.arange(_C0, dtype=np.uint16)
_U16_LE = np.dtype("<u2")  # the bit-mask words (parsed once, not per call)
_I32_LE = np.dtype("<i4")  # the A2 argmax values
_FLOAT32 = np.dtype(np.float32)
_FLOATS = frozenset(FLOAT_DTYPES)  # (dtypes hash as they compare)


def mask_layout(product, kernel_size) -> str:
    """``"a2_int32"`` for A2/A3 with a kernel other than 1x1, ``"v1_bitmask"`` for 910 or a 1x1 kernel."""
    key = str(product).strip().lower()
    kh, kw = normalize_pair(kernel_size, "kernel_size")
    if key in _V1_PRODUCTS:
        return LAYOUT_V1
    if key in _A2_PRODUCTS:
        return LAYOUT_V1 if (kh, kw) == (1, 1) else LAYOUT_A2
    raise ValueError(f"aclnnMaxPool2dWithMaskBackward is not supported on product {product!r}")


def _params(kernel_size, stride, padding, dilation=(1,)):
    kernel = normalize_pair(kernel_size, "kernel_size")
    stride_ = normalize_pair(stride, "stride", default=kernel)
    pad = normalize_pair(padding, "padding")
    dil = normalize_pair(dilation, "dilation")
    check_pool_params(kernel, stride_, pad, dil)
    if dil != (1, 1):
        raise ValueError(f"dilation must be 1, got {dil}")
    return kernel, stride_, pad


def _geometry(self_shape, kernel, stride, pad, ceil_mode):
    """-> (N, C, H, W, Ho, Wo, lead) where ``lead`` is the batch/channel prefix of the caller's rank."""
    self_shape = tuple(int(v) for v in self_shape)
    if len(self_shape) == 4:
        n, c, h, w = self_shape
    elif len(self_shape) == 3:
        (c, h, w), n = self_shape, 1
    else:
        raise ValueError(f"self must be 3-D (C,H,W) or 4-D (N,C,H,W), got shape {self_shape}")
    if c <= 0 or h <= 0 or w <= 0:
        raise ValueError(f"C, H and W of self must be non-zero, got {self_shape}")
    ho, wo = pooled_shape((h, w), kernel, stride, pad, (1, 1), ceil_mode)
    return n, c, h, w, ho, wo, self_shape[:-2]


def _words_per_row(ho: int, wo: int) -> int:
    return (-(-ho * wo // _C0) + 1) * _C0


def mask_shape(self_shape, kernel_size, stride, padding, dilation, ceil_mode) -> tuple:
    """Declared INT8 mask shape ``[N, C, kH*kW, (ceil(Ho*Wo/16)+1)*32]`` (3-D self: without ``N``)."""
    kernel = normalize_pair(kernel_size, "kernel_size")
    stride_ = normalize_pair(stride, "stride", default=kernel)
    pad = normalize_pair(padding, "padding")
    dil = normalize_pair(dilation, "dilation")
    check_pool_params(kernel, stride_, pad, dil)
    self_shape = tuple(int(v) for v in self_shape)
    if len(self_shape) not in (3, 4):
        raise ValueError(f"self must be 3-D or 4-D, got shape {self_shape}")
    ho, wo = pooled_shape(self_shape[-2:], kernel, stride_, pad, dil, ceil_mode)
    return self_shape[:-2] + (kernel[0] * kernel[1], _words_per_row(ho, wo) * 2)


def _window_cell(k, kernel, stride, pad, ho, wo, h, w):
    """Flat target ``h*W + w`` of window cell ``k`` for every output (``(Ho, Wo)`` int64) and its validity."""
    i, j = divmod(k, kernel[1])
    rows = np.arange(ho, dtype=np.int64) * stride[0] - pad[0] + i
    cols = np.arange(wo, dtype=np.int64) * stride[1] - pad[1] + j
    valid = ((rows >= 0) & (rows < h))[:, None] & ((cols >= 0) & (cols < w))[None, :]
    return rows[:, None] * w + cols[None, :], valid


def _first_inbounds_cell(kernel, stride, pad, ho, wo, h, w) -> np.ndarray:
    """Window cell index ``k`` of the first in-bounds element of every window, ``(Ho, Wo)`` int64."""
    first = np.full((ho, wo), -1, dtype=np.int64)
    for k in range(kernel[0] * kernel[1] - 1, -1, -1):
        _, valid = _window_cell(k, kernel, stride, pad, ho, wo, h, w)
        first[valid] = k
    return first


_MASK_DTYPES = frozenset((np.dtype(np.int8), np.dtype(np.uint8)))  # (dtypes hash as they compare)


def _raw_bytes(mask: np.ndarray, needed: int) -> np.ndarray:
    """The first ``needed`` bytes of ``mask`` in C order, 1-D int8/uint8 (a view of a C-contiguous mask)."""
    mask = np.asarray(mask)
    if mask.dtype not in _MASK_DTYPES:
        raise TypeError(f"indices must be an INT8 mask, got dtype {mask.dtype}")
    if mask.size < needed:
        raise ValueError(f"indices holds {mask.size} bytes, the mask layout needs {needed}")
    if not mask.flags.c_contiguous:
        if mask.size > needed:
            # Gather only the leading bytes the layout reads (C order), not a (maybe huge, zero-stride) mask.
            return mask[np.unravel_index(np.arange(needed), mask.shape)]
        mask = np.ascontiguousarray(mask)
    return mask.reshape(-1)[:needed]  # reshape: a view of a C-contiguous array


def encode_mask(argmax, self_shape, kernel_size, stride, padding, ceil_mode, *, layout) -> np.ndarray:
    """Build the INT8 mask (declared ``mask_shape``) from flat ``h*W + w`` argmax values.

    ``argmax`` has the pooled shape ``(N, C, Ho, Wo)`` (``(C, Ho, Wo)`` for a 3-D ``self``).  For
    ``"v1_bitmask"`` every value must be a cell of its window (or -1 for "no bit").
    """
    kernel, stride_, pad = _params(kernel_size, stride, padding)
    n, c, h, w, ho, wo, lead = _geometry(self_shape, kernel, stride_, pad, ceil_mode)
    argmax = np.asarray(argmax)
    if argmax.shape != lead + (ho, wo):
        raise ValueError(f"argmax shape {argmax.shape} != pooled shape {lead + (ho, wo)}")
    shape = mask_shape(self_shape, kernel, stride_, pad, (1, 1), ceil_mode)
    total = int(np.prod(shape))
    if layout == LAYOUT_A2:
        words = np.zeros(total // 4, dtype="<i4")
        words[: argmax.size] = argmax.reshape(-1)
        return words.view(np.int8).reshape(shape)
    if layout != LAYOUT_V1:
        raise ValueError(f"unknown mask layout {layout!r}")
    kk = kernel[0] * kernel[1]
    c1 = -(-c // _C0)
    q = _words_per_row(ho, wo)
    used = n * c1 * kk * q
    buf = np.zeros(total // 2, dtype="<u2")
    words = buf[:used].reshape(n, c1, kk, q)
    if kk == 1:
        words[...] = 0xFFFF
        return buf.view(np.int8).reshape(shape)
    am = argmax.reshape(n, c, ho, wo).astype(np.int64, copy=False)
    # Window cell of every argmax; -1 = no bit.  Values outside their window are rejected.
    cell = np.full((n, c1 * _C0, ho, wo), -1, dtype=np.int64)
    cell[:, c:] = _first_inbounds_cell(kernel, stride_, pad, ho, wo, h, w)  # zero-padded channel lanes
    hit = np.zeros((n, c, ho, wo), dtype=bool)
    for k in range(kk):
        target, valid = _window_cell(k, kernel, stride_, pad, ho, wo, h, w)
        sel = (am == target) & valid
        cell[:, :c][sel] = k
        hit |= sel
    if not np.all(hit | (am == -1)):
        raise ValueError("argmax values must be -1 or an in-bounds cell of their window for v1_bitmask")
    weights = (np.uint16(1) << _LANES)[:, None, None]
    cell = cell.reshape(n, c1, _C0, ho, wo)
    for k in range(kk):
        bits = (cell == k).astype(np.uint16) * weights  # (n, c1, 16, ho, wo)
        words[:, :, k, : ho * wo] = np.bitwise_or.reduce(bits, axis=2).reshape(n, c1, ho * wo)
    return buf.view(np.int8).reshape(shape)


def _a2_argmax(mask, count: int) -> np.ndarray:
    """The little-endian int32 argmax prefix of an A2/A3 mask (a view when the buffer is contiguous)."""
    return _raw_bytes(mask, count * 4).view(_I32_LE)


def _v1_words(mask, n, c, kk, ho, wo) -> np.ndarray:
    """The ``N * ceil(C/16) * kH*kW * Q`` little-endian uint16 words of a bit mask, flat (C order ``[n][c1][k][q]``)."""
    size = n * -(-c // _C0) * kk * _words_per_row(ho, wo) * 2
    return _raw_bytes(mask, size).view(_U16_LE)


def _v1_bits(words, k, c, ho, wo) -> np.ndarray:
    """Bit plane of window cell ``k``: bool ``(N, C, Ho, Wo)``."""
    n, c1 = words.shape[:2]
    w = words[:, :, k, : ho * wo]
    bits = (w[:, :, None, :] >> _LANES[None, None, :, None]) & np.uint16(1)
    return bits.reshape(n, c1 * _C0, ho, wo)[:, :c].astype(bool)


def decode_mask(mask, self_shape, kernel_size, stride, padding, ceil_mode, *, layout) -> np.ndarray:
    """Argmax as flat ``h*W + w`` int64, pooled shape ``(N,C,Ho,Wo)`` (``(C,Ho,Wo)`` for a 3-D self).

    ``"a2_int32"`` returns the stored values unchecked; ``"v1_bitmask"`` returns the first flagged in-bounds
    window cell, or -1 when no bit is set (or only padding cells are flagged).
    """
    kernel, stride_, pad = _params(kernel_size, stride, padding)
    n, c, h, w, ho, wo, lead = _geometry(self_shape, kernel, stride_, pad, ceil_mode)
    if layout == LAYOUT_A2:
        return _a2_argmax(mask, n * c * ho * wo).astype(np.int64).reshape(lead + (ho, wo))
    if layout != LAYOUT_V1:
        raise ValueError(f"unknown mask layout {layout!r}")
    kk = kernel[0] * kernel[1]
    words = _v1_words(mask, n, c, kk, ho, wo).reshape(n, -(-c // _C0), kk, -1)
    out = np.full((n, c, ho, wo), -1, dtype=np.int64)
    for k in range(kk - 1, -1, -1):  # reverse so that the first flagged cell wins
        target, valid = _window_cell(k, kernel, stride_, pad, ho, wo, h, w)
        sel = _v1_bits(words, k, c, ho, wo) & valid
        np.copyto(out, target, where=sel)
    return out.reshape(lead + (ho, wo))


def max_pool2d_with_mask(self, kernel_size, stride, padding, dilation, ceil_mode, *, product="910b"):
    """Forward ``aclnnMaxPool2dWithMask`` -> ``(out, mask int8)`` with the product's mask layout."""
    self = np.asarray(self)
    check_float("self", self)
    layout = mask_layout(product, kernel_size)
    kernel, stride_, pad = _params(kernel_size, stride, padding, dilation)
    n, c, h, w, ho, wo, lead = _geometry(self.shape, kernel, stride_, pad, ceil_mode)
    x = to_compute(self)
    if str(product).strip().lower() in _V1_PRODUCTS and self.dtype == np.float32:
        x = x.astype(np.float16).astype(np.float32)  # 910 compares FLOAT inputs as FLOAT16
    if n == 0:
        out = np.zeros(lead + (ho, wo), dtype=self.dtype)
        argmax = np.zeros(lead + (ho, wo), dtype=np.int64)
    else:
        values, argmax = window_argmax(
            x.reshape(n * c, 1, h, w), (1,) + kernel, (1,) + stride_, (0,) + pad, (1, 1, 1), (1, ho, wo)
        )
        out = from_compute(values.reshape(lead + (ho, wo)), self.dtype)
        argmax = argmax.reshape(lead + (ho, wo))
    return out, encode_mask(argmax, self.shape, kernel, stride_, pad, ceil_mode, layout=layout)


def cost(grad_output, self, indices, kernel_size, stride, padding, dilation, ceil_mode, *, product="910b") -> Cost:
    """A2 layout: one scatter like the 3-D kernel. Bit-mask layout: one pass over the 16-lane words and
    the pooled gradient per window cell, into a padded float32 accumulator."""
    shape = tuple(getattr(self, "shape", ()))
    self_size, grad_size = numel(shape), int(getattr(grad_output, "size", 0))
    small = Cost(0, 0, "self")
    kernel = int_values(kernel_size, 2)
    if kernel is None or len(shape) not in (3, 4) or min(kernel) <= 0:
        return small  # the kernel refuses these arguments before allocating anything
    try:
        layout = mask_layout(product, kernel)
    except ValueError:
        return small
    if layout == LAYOUT_A2:
        nbytes, ops = scatter_cost(self_size, grad_size, numel(shape[-2:]))
        return Cost(nbytes, ops, "self" if 6 * self_size >= 16 * grad_size else "gradOutput")
    strides = int_values(stride, 2, empty=kernel)
    pad = int_values(padding, 2)
    if strides is None or pad is None or min(strides) <= 0 or min(pad) < 0:
        return small
    h, w = shape[-2:]
    nc = self_size // max(h * w, 1)
    ho = pool_out_size(h, kernel[0], strides[0], pad[0], 1, bool(ceil_mode))
    wo = pool_out_size(w, kernel[1], strides[1], pad[1], 1, bool(ceil_mode))
    if ho <= 0 or wo <= 0:
        return small
    hp = max(h + pad[0], (ho - 1) * strides[0] + kernel[0]) + pad[0]
    wp = max(w + pad[1], (wo - 1) * strides[1] + kernel[1]) + pad[1]
    cells = kernel[0] * kernel[1]
    lanes = (nc + 15) // 16 * 16 * ho * wo  # pooled positions of every 16-channel lane group
    nbytes = 4 * nc * hp * wp + 4 * grad_size + 8 * lanes + 6 * self_size
    # the compiled loop's scratch (one channel group's pitched words, one plane's phases and gradient)
    pitch, rows, margin = _phase_geometry(h, w, ho, wo, *strides, *pad, *kernel)
    nbytes += 2 * cells * (ho * pitch + 16) + 4 * ho * pitch + 4 * (strides[0] * strides[1] * rows * pitch + 2 * margin)
    nbytes += 8 * (_PLAN_CELLS + _CELL * cells)  # the plan
    ops = cells * (12 * lanes + 4 * nc * ho * wo + OPS_PER_STEP) + 4 * nc * hp * wp
    return Cost(nbytes, ops, "kernelSize" if cells * ho * wo > 64 * h * w else "self")


def _phase_geometry(h, w, ho, wo, sh, sw, ph, pw, kh, kw):
    """Sizes of the phase-split accumulator of :func:`_v1_backward_compiled`: ``(pitch, rows, margin)``, a phase
    plane holding the cells ``(r*sH + a, c*sW + b)`` of one phase ``(a, b)`` as rows of ``pitch`` (>= the
    pooled width, so the pooled grid keeps one flat index), and the margin before and after the planes that
    the lanes of partial windows and of a cell's last vector may touch (a row plus the widest column shift,
    plus a vector)."""
    pitch = max(wo, -(-w // sw))
    rows = -(-h // sh)
    shift = max(-((0 - pw) // sw), (kw - 1 - pw) // sw, 0)
    return pitch, rows, pitch + shift + 16


# The plan of a bit-mask call (int64, cached per geometry): the sizes, then ``_CELL`` values per window cell ``k``
# from ``_PLAN_CELLS + _CELL*k``: the pooled rows ``[oh_lo, oh_hi)`` and columns ``[ow_lo, ow_hi)`` whose target
# is inside the input; ``offset``, the accumulator index of the target of pooled position 0 (its phase plane
# and shift); ``first``, 1 for the first cell (in ``k`` order) of its phase plane, which writes instead of adding
# (no zeroing between channels), with its pooled positions ``[put_lo, put_hi)`` (flat, pitched) that target its
# phase plane and the two ranges of the plane it does not write, ``[zero0_lo, zero0_hi)`` and
# ``[zero1_lo, zero1_hi)`` (accumulator indices), zeroed first.
_PLAN_SIZES = ("n", "c", "h", "w", "ho", "wo", "words", "kh", "kw", "sh", "sw", "pitch", "rows", "margin", "kstride")
_PLAN_CELLS = len(_PLAN_SIZES)
_CELL = 12


def _v1_plan(n, c, h, w, ho, wo, kernel, stride, pad) -> np.ndarray:
    """The read-only plan of :func:`_v1_backward_compiled` (Python ints: computed once per geometry)."""
    (kh, kw), (sh, sw), (ph, pw) = kernel, stride, pad
    pitch, rows, margin = _phase_geometry(h, w, ho, wo, sh, sw, ph, pw, kh, kw)
    kstride = ho * pitch + 16  # one cell's pitched words, then a vector of zeros (full vectors read past them)
    plan = [n, c, h, w, ho, wo, _words_per_row(ho, wo), kh, kw, sh, sw, pitch, rows, margin, kstride]
    seen = set()
    for k in range(kh * kw):
        i, j = divmod(k, kw)
        oh_lo, oh_hi = tap_range.py_func(ho, sh, ph, i, h)
        ow_lo, ow_hi = tap_range.py_func(wo, sw, pw, j, w)
        # target (oh*sH - pH + i, ow*sW - pW + j) = ((oh + di)*sH + a, (ow + dj)*sW + b): phase (a, b), shift
        (di, a), (dj, b) = divmod(i - ph, sh), divmod(j - pw, sw)
        phase = a * sw + b
        offset = margin + phase * rows * pitch + di * pitch + dj
        plan += [oh_lo, oh_hi, ow_lo, ow_hi, offset]
        if phase in seen:
            plan += [0] * 7
            continue
        seen.add(phase)
        # The cell's targets outside its phase plane are all in the padding (bit cleared, +0.0): not written.
        plane_lo, plane_hi = margin + phase * rows * pitch, margin + (phase + 1) * rows * pitch
        lo, hi = max(offset + oh_lo * pitch, plane_lo), min(offset + oh_hi * pitch, plane_hi)
        if hi <= lo:  # (no target inside: the plane is zeroed)
            lo = hi = plane_hi
        plan += [1, lo - offset, hi - offset, plane_lo, lo, hi, plane_hi]
    array = np.array(plan, np.int64)
    array.flags.writeable = False
    return array


@_accel.jit
def _v1_backward_compiled(words, g, out, plan):
    """Compiled bit-mask backward (flat ``words`` uint16, ``g`` float32 ``(N*C*Ho*Wo,)``, ``out`` float32
    ``(N*C*H*W,)``, every element written), one channel plane at a time (everything stays in cache): the NumPy
    path's float32 sums in the same order (window cell ``k`` outermost; ``+0.0`` where a bit is clear), bit for
    bit.

    Window cell ``(i, j)`` sends output ``(oh, ow)`` to input cell ``(oh*sH - pH + i, ow*sW - pW + j)``: a
    strided scatter in the input's layout (stride-2 rows of a few elements do not vectorise). The plane is
    therefore accumulated split by phase (``(row mod sH, column mod sW)``, one sub-plane each, rows of
    ``pitch``): there the cell's targets are the pooled grid shifted by a constant, so each cell is one run of
    16-lane vectors over the flat pooled grid (``acc[t + offset] += g[t]`` where the channel's bit is set, see
    :func:`_accel.vec_add_where_bit`), except the first cell of each phase plane, which writes ``0.0 + g[t]``
    (:func:`_accel.vec_put_where_bit`) after zeroing what of the plane it does not reach: the planes need no
    zeroing between channels. The 16-channel words of a channel group are copied once per cell with the pitch,
    zero at the rows and columns whose target falls in the padding (so those lanes add +0.0, as the NumPy path
    drops them; an accumulator never holds -0.0, so adding +0.0 changes nothing) and followed by a vector of
    zeros, so a cell's last vector needs no mask (its lanes past the cell's rows add +0.0, to whatever they
    reach). The phases are then interleaved back into ``out`` (stride 2: two phase rows make one input row,
    :func:`_accel.vec_store_pairs`). Margins and phase planes without cells are only ever added +0.0: they stay
    zero."""
    n, c, h, w, ho, wo, q = plan[0], plan[1], plan[2], plan[3], plan[4], plan[5], plan[6]
    kh, kw, sh, sw = plan[7], plan[8], plan[9], plan[10]
    pitch, rows, margin, kstride = plan[11], plan[12], plan[13], plan[14]
    kk = kh * kw
    c1 = (c + 15) // 16
    u = np.uint64
    plane = rows * pitch
    size = n * c * h * w
    acc = np.zeros(sh * sw * plane + 2 * margin, np.float32)
    bits = np.zeros(kk * kstride, np.uint16)
    gpitched = np.zeros(ho * pitch if pitch != wo else 0, np.float32)
    for b in range(n):
        for cb in range(c1):
            for k in range(kk):
                cell = _PLAN_CELLS + _CELL * k
                oh_lo, oh_hi, ow_lo, ow_hi = plan[cell], plan[cell + 1], plan[cell + 2], plan[cell + 3]
                src = ((b * c1 + cb) * kk + k) * q
                dst = k * kstride
                if pitch == wo:  # one contiguous copy, then the few padding columns cleared
                    for e in range(oh_lo * wo, oh_hi * wo):
                        bits[u(dst + e)] = words[u(src + e)]
                    for oh in range(oh_lo, oh_hi):
                        for ow in range(ow_lo):
                            bits[dst + oh * wo + ow] = 0
                        for ow in range(ow_hi, wo):
                            bits[dst + oh * wo + ow] = 0
                else:  # columns wo..pitch stay 0 (never written)
                    for oh in range(oh_lo, oh_hi):
                        s0, d0 = u(src + oh * wo), u(dst + oh * pitch)
                        for ow in range(wo):
                            keep = ow >= ow_lo and ow < ow_hi
                            bits[d0 + u(ow)] = words[s0 + u(ow)] if keep else np.uint16(0)
            for ch in range(cb * 16, min(c, cb * 16 + 16)):
                lane = ch - cb * 16
                gv, g0 = g, (b * c + ch) * ho * wo
                if pitch != wo:
                    for oh in range(ho):
                        s0, d0 = u(g0 + oh * wo), u(oh * pitch)
                        for ow in range(wo):
                            gpitched[d0 + u(ow)] = g[s0 + u(ow)]
                    gv, g0 = gpitched, 0
                for k in range(kk):
                    cell = _PLAN_CELLS + _CELL * k
                    offset, w0 = plan[cell + 4], k * kstride
                    if plan[cell + 5]:  # the phase plane's first cell: the rest of the plane zeroed, its part written
                        for e in range(plan[cell + 8], plan[cell + 9]):
                            acc[e] = 0.0
                        for e in range(plan[cell + 10], plan[cell + 11]):
                            acc[e] = 0.0
                        put_hi = plan[cell + 7]
                        for t in range(plan[cell + 6], put_hi, 16):
                            vec_put_where_bit(acc, offset + t, gv, g0 + t, bits, w0 + t, lane, put_hi - t)
                    else:  # whole vectors (past the cell's rows its words are 0: +0.0 added, nothing read)
                        for t in range(plan[cell] * pitch, plan[cell + 1] * pitch, 16):
                            vec_add_where_bit(acc, offset + t, gv, g0 + t, bits, w0 + t, lane, 16)
                o0 = (b * c + ch) * h * w
                if sw == 2:  # phase rows (a, 0) and (a, 1), r make input row r*sH + a
                    # ``out`` is written in address order: plain 32-value stores, whose values past the row land
                    # where later rows (planes) are written; only the last plane's stores are masked (the end of
                    # ``out``). Three copies of the row loop, so that none tests anything per row (rows of at most
                    # 32: one store each, no inner loop; that alone took 13% off (2, 16, 28, 28))
                    r, a = 0, 0
                    plain = o0 + h * w + 32 <= size
                    if plain and w <= 32:
                        for hh in range(h):
                            e = margin + a * 2 * plane + r * pitch
                            vec_store_pairs(out, o0 + hh * w, vec_load(acc, e), vec_load(acc, e + plane), 32)
                            a += 1
                            if a == sh:
                                r, a = r + 1, 0
                    elif plain:
                        for hh in range(h):
                            e0, row = margin + a * 2 * plane + r * pitch, o0 + hh * w
                            for cc in range(0, w, 32):
                                e = e0 + (cc >> 1)
                                vec_store_pairs(out, row + cc, vec_load(acc, e), vec_load(acc, e + plane), 32)
                            a += 1
                            if a == sh:
                                r, a = r + 1, 0
                    else:
                        for hh in range(h):
                            e0, row = margin + a * 2 * plane + r * pitch, o0 + hh * w
                            for cc in range(0, w, 32):
                                e, count = e0 + (cc >> 1), min(32, w - cc)
                                vec_store_pairs(out, row + cc, vec_load(acc, e), vec_load(acc, e + plane), count)
                            a += 1
                            if a == sh:
                                r, a = r + 1, 0
                else:  # any other stride: element by element (stride 1: a copy)
                    for a in range(sh):
                        for r in range((h - a + sh - 1) // sh):
                            row = u(o0 + (r * sh + a) * w)
                            for bb in range(sw):
                                p0 = u(margin + (a * sw + bb) * plane + r * pitch)
                                for cc in range((w - bb + sw - 1) // sw):
                                    out[row + u(cc) * u(sw) + u(bb)] = acc[p0 + u(cc)]


@_accel.jit
def _a2_backward_compiled(argmax, g, out, pooled, plane, zeroed):
    """Compiled A2/A3 backward (flat int32 ``argmax`` and float32 ``g`` of ``N*C*Ho*Wo``, float32 ``out`` of
    ``N*C*H*W``): each plane of ``out`` zeroed (unless ``zeroed``: ``out`` comes in as zeros), then
    ``out[index] += g`` in pooled order -- PyTorch's CPU scatter, float32 sums in the same order (so its results
    bit for bit), as ``scatter_add_planes``'s compiled loop but in one pass. Returns False (``out`` partial) at
    the first argmax value outside ``[0, H*W)``."""
    for p in range(out.size // plane):
        row, index, values = out[p * plane : (p + 1) * plane], argmax[p * pooled :], g[p * pooled :]
        if not zeroed:
            row[:] = 0.0
        for j in range(pooled):
            i = index[j]
            if i < 0 or i >= plane:
                return False
            row[i] += values[j]
    return True


# Outputs from this size on are allocated as zeros: glibc then maps fresh pages (its mmap threshold grows with the
# blocks freed, up to 32 MiB on 64-bit), which the kernel zeroes at first touch, so zeroing them again in the
# loop costs a pass (7-8% at 49-98 MiB); below, freed blocks are reused and np.zeros is a memset before the
# scatter (zeroing each plane just before its scatter: 27% faster at 3 MiB, 15% at 96 KiB).
_ZEROED_BYTES = 32 << 20


def _key(values) -> tuple:
    """A hashable copy of an attribute list (for the geometry cache)."""
    return tuple(values) if values is not None else ()


@functools.lru_cache(maxsize=256)
def _setup(product, kernel_size, stride, padding, dilation, ceil_mode, self_shape):
    """Layout, normalised attributes, geometry, pooled shape, the compiled bit-mask loop's plan and the bytes
    of the mask the layout reads, of a call (cached: small calls are dominated by this parsing; refusals raise
    and are not cached)."""
    layout = mask_layout(product, kernel_size)
    kernel, stride_, pad = _params(kernel_size, stride, padding, dilation)
    geometry = n, c, h, w, ho, wo, lead = _geometry(self_shape, kernel, stride_, pad, ceil_mode)
    if layout == LAYOUT_V1:
        plan = _v1_plan(n, c, h, w, ho, wo, kernel, stride_, pad)
        mask_bytes = n * -(-c // _C0) * kernel[0] * kernel[1] * _words_per_row(ho, wo) * 2
    else:
        plan, mask_bytes = None, n * c * ho * wo * 4
    return layout, kernel, stride_, pad, geometry, lead + (ho, wo), plan, mask_bytes


def max_pool2d_with_mask_backward(
    grad_output, self, indices, kernel_size, stride, padding, dilation, ceil_mode, *, product="910b"
) -> np.ndarray:
    """Route ``grad_output`` through the product-specific INT8 mask; returns an array like ``self``."""
    grad_output = np.asarray(grad_output)
    self = np.asarray(self)
    if self.dtype not in _FLOATS or grad_output.dtype != self.dtype:  # (one set lookup in the common case)
        check_float("self", self)
        check_float("grad_output", grad_output)
        raise TypeError(f"grad_output dtype {grad_output.dtype} differs from self dtype {self.dtype}")
    layout, kernel, stride_, pad, (n, c, h, w, ho, wo, lead), pooled, plan, mask_bytes = _setup(
        str(product), _key(kernel_size), _key(stride), _key(padding), _key(dilation), bool(ceil_mode), self.shape
    )
    if grad_output.shape != pooled:
        raise ValueError(f"grad_output shape {grad_output.shape} != pooled shape {pooled}")
    if n == 0:
        return np.zeros(self.shape, dtype=self.dtype)
    g = to_compute(grad_output)
    if layout == LAYOUT_A2:
        argmax = _raw_bytes(indices, mask_bytes).view(_I32_LE)  # int32 view of the buffer, no copy
        if _accel.enabled():
            zeroed = 4 * self.size >= _ZEROED_BYTES
            grad_input = (np.zeros if zeroed else np.empty)(self.shape, dtype=np.float32)
            loop = _a2_backward_compiled.dispatcher()
            if loop(_accel.ready(argmax), g.ravel(), grad_input.ravel(), ho * wo, h * w, zeroed):
                return grad_input if self.dtype == _FLOAT32 else from_compute(grad_input, self.dtype)
        # (also where an argmax value is out of range: the NumPy path names the range)
        grad_input = scatter_add_planes(g.reshape(n * c, -1), argmax.reshape(n * c, -1), h * w)
        return from_compute(grad_input.reshape(self.shape), self.dtype)
    kk = kernel[0] * kernel[1]
    words = _raw_bytes(indices, mask_bytes).view(_U16_LE)  # flat ``[n][c1][k][q]``
    if _accel.enabled():
        grad_input = np.empty(self.shape, dtype=np.float32)  # every cell is written
        # ``words`` made ready and ``g`` from ``to_compute`` (contiguous, aligned, writeable; ravel: views),
        # ``plan`` read-only as always: the dispatcher is called directly, without the wrapper's read-only test
        _v1_backward_compiled.dispatcher()(_accel.ready(words), g.ravel(), grad_input.ravel(), plan)
        return grad_input if self.dtype == _FLOAT32 else from_compute(grad_input, self.dtype)
    words = words.reshape(n, -(-c // _C0), kk, -1)
    g = g.reshape(n, c, ho, wo)
    # Padded accumulator large enough for every window (incl. ceil-mode windows past the right edge).
    hp = max(h + pad[0], (ho - 1) * stride_[0] + kernel[0]) + pad[0]
    wp = max(w + pad[1], (wo - 1) * stride_[1] + kernel[1]) + pad[1]
    acc = np.zeros((n, c, hp, wp), dtype=np.float32)
    contrib = np.empty((n, c, ho, wo), dtype=np.float32)
    for k in range(kk):
        i, j = divmod(k, kernel[1])
        contrib.fill(0)
        np.copyto(contrib, g, where=_v1_bits(words, k, c, ho, wo))  # not g*bit: inf/NaN must not leak
        with np.errstate(all="ignore"):  # IEEE sums (inf - inf is NaN), as the compiled path, without warnings
            acc[
                :,
                :,
                i : i + (ho - 1) * stride_[0] + 1 : stride_[0],
                j : j + (wo - 1) * stride_[1] + 1 : stride_[1],
            ] += contrib
    grad_input = acc[:, :, pad[0] : pad[0] + h, pad[1] : pad[1] + w]  # cells in the padding are dropped
    return from_compute(np.ascontiguousarray(grad_input).reshape(self.shape), self.dtype)
