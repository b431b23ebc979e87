"""NumPy reference kernels for ``aclnnMaxPool3dWithArgmaxBackward`` and its forward helper.

Conventions (facts 5.3)
-----------------------
* ``self`` is 5-D ``(N, C, D, H, W)`` or 4-D ``(C, D, H, W)`` (treated as ``N = 1``, like the op).
* ``kernel_size`` / ``padding`` / ``dilation`` have 1 or 3 values, ``stride`` 0, 1 or 3 values (empty =
  ``kernel_size``).  Values must be > 0 (padding >= 0) and ``padding <= kernel_size // 2`` per axis (the op's
  check; it also guarantees every window holds at least one real element).
* ``indices`` (INT32, or INT64 as on 950) has the shape of ``grad_output`` and holds, for every output
  element, the flat position ``d*H*W + h*W + w`` of the window maximum inside the UNPADDED ``D x H x W``
  volume of its ``(n, c)`` (PyTorch ``return_indices`` convention).
* ``grad_input = zeros_like(self)`` then ``grad_input[n, c].flat[indices[n, c]] += grad_output[n, c]``:
  overlapping windows accumulate.  The sums are formed in float64 by ``np.bincount`` and rounded once to the
  dtype of ``self`` (float32, float16 or bfloat16), like the ATK golden that runs PyTorch in float32.
* The pooled shape ``(Do, Ho, Wo)`` follows the shared rule (``pool_out_size``: floor/ceil formula with the
  "last window must start inside the input or the left padding" correction); ``grad_output`` and
  ``indices`` must have exactly ``(N, C, Do, Ho, Wo)`` (the device tiling checks this too).

Readings chosen where the facts are unsure
------------------------------------------
* Out-of-range indices (``< 0`` or ``>= D*H*W``) are undefined on the device; this kernel raises
  ``ValueError`` instead of silently dropping or wrapping them.  Indices that are in range but outside
  their window are scattered where they point (the device does not check either, and neither does torch).
* Dilation: the doc says only 1 is supported on A2/A3, the op_api code only requires > 0; both the
  forward helper and the shape rule accept any dilation > 0 (the scatter itself never needs it).
* Empty tensors: the op returns success without computing; this kernel returns correctly shaped zeros.
  When a spatial size of ``self`` is 0 the pooled-shape check is skipped (there is no valid window).
* Forward helper ``max_pool3d_with_argmax``: mirrors PyTorch's CPU kernel -- candidates are visited in
  window order (d, h, w), a candidate replaces the current maximum iff it is greater or NaN (so the FIRST
  maximum wins ties and the LAST NaN wins), padding cells are never candidates, and the initial index is
  the first in-bounds cell of the window.  Indices are returned as int32 (the A2/A3 device type).

Implementation: the scatter is a blocked ``np.bincount`` with weights over groups of whole ``(n, c)``
planes (each block's float64 accumulator stays cache-sized), written straight into the float32 result;
with the compiled helpers (``_accel``) one loop adds in float32 in index order, as PyTorch's CPU kernel.
The forward loops over the kD*kH*kW kernel offsets with strided views of a -inf padded copy.
"""

from __future__ import annotations

import functools
import itertools

import numpy as np

from generator.kernels import _accel
from generator.kernels._common import (
    OPS_PER_GATHER,
    OPS_PER_STEP,
    Cost,
    check_float,
    from_compute,
    normalize_triple,
    numel,
    pool_out_size,
    to_compute,
)

__all__ = [
    "check_pool_params",
    "cost",
    "max_pool3d_with_argmax",
    "max_pool3d_with_argmax_backward",
    "pool_params",
    "pooled_shape",
    "scatter_add_planes",
    "window_argmax",
]

_BINS_PER_BLOCK = 1 << 17  # float64 accumulator of 1 MiB per bincount call


def pool_params(kernel_size, stride, padding, dilation):
    """Normalise (1 or 3 values; empty stride = kernel) and validate pooling attributes -> four triples."""
    kernel = normalize_triple(kernel_size, "kernel_size")
    stride_ = normalize_triple(stride, "stride", default=kernel)
    pad = normalize_triple(padding, "padding")
    dil = normalize_triple(dilation, "dilation")
    return check_pool_params(kernel, stride_, pad, dil)


def check_pool_params(kernel, stride_, pad, dil):
    """Validate normalised attribute tuples (any rank); returns them unchanged."""
    if any(k <= 0 for k in kernel):
        raise ValueError(f"kernel_size values must be > 0, got {kernel}")
    if any(s <= 0 for s in stride_):
        raise ValueError(f"stride values must be > 0, got {stride_}")
    if any(d <= 0 for d in dil):
        raise ValueError(f"dilation values must be > 0, got {dil}")
    if any(p < 0 or p > k // 2 for p, k in zip(pad, kernel, strict=True)):
        raise ValueError(f"padding must satisfy 0 <= padding <= kernel_size // 2, got {pad} for {kernel}")
    return kernel, stride_, pad, dil


def pooled_shape(spatial, kernel, stride, pad, dil, ceil_mode) -> tuple[int, ...]:
    """Pooled output sizes per axis; raises ValueError when an axis would be empty."""
    out = tuple(
        pool_out_size(int(n), k, s, p, d, bool(ceil_mode))
        for n, k, s, p, d in zip(spatial, kernel, stride, pad, dil, strict=True)
    )
    if any(o <= 0 for o in out):
        raise ValueError(f"pooled output size {out} is not positive for input {tuple(spatial)}")
    return out


@_accel.jit
def _scatter_planes_compiled(values, index, plane_size, out):
    """Compiled :func:`scatter_add_planes`: one pass, float32 sums in index order straight into ``out`` (which
    comes in as zeros) -- PyTorch's CPU kernel does exactly this, so the results equal its bit for bit; the
    NumPy path's float64 sums differ from it by at most the float32 rounding of each sum. Returns False
    (leaving ``out`` partial) when an index is out of range."""
    planes, length = values.shape
    for p in range(planes):
        row = out[p]
        for j in range(length):
            i = index[p, j]
            if i < 0 or i >= plane_size:
                return False
            row[i] += values[p, j]
    return True


def scatter_add_planes(values: np.ndarray, index: np.ndarray, plane_size: int) -> np.ndarray:
    """Per-plane scatter-add: ``out[p, index[p, j]] += values[p, j]``.

    ``values`` is ``(P, L)`` (any float dtype, summed in float64), ``index`` ``(P, L)`` integers that must lie
    in ``[0, plane_size)``.  Returns a float32 ``(P, plane_size)`` array.
    """
    planes, length = values.shape
    if planes == 0 or plane_size == 0 or length == 0:
        return np.zeros((planes, plane_size), dtype=np.float32)
    if _accel.enabled() and values.dtype == np.float32 and index.dtype in (np.int32, np.int64):
        out = np.zeros((planes, plane_size), dtype=np.float32)
        if _scatter_planes_compiled(_accel.ready(values), _accel.ready(index), plane_size, out):
            return out
    lo, hi = int(index.min()), int(index.max())
    if lo < 0 or hi >= plane_size:
        raise ValueError(f"indices must lie in [0, {plane_size}), got range [{lo}, {hi}]")
    out = np.empty((planes, plane_size), dtype=np.float32)
    per_block = max(1, _BINS_PER_BLOCK // plane_size)
    per_block = min(per_block, planes)
    base = (np.arange(per_block, dtype=np.int64) * plane_size)[:, None]
    flat = np.empty((per_block, length), dtype=np.int64)
    for p0 in range(0, planes, per_block):
        p1 = min(planes, p0 + per_block)
        n = p1 - p0
        fb = flat[:n]
        np.add(index[p0:p1], base[:n], out=fb)
        sums = np.bincount(fb.reshape(-1), weights=values[p0:p1].reshape(-1), minlength=n * plane_size)
        out[p0:p1] = sums.reshape(n, plane_size)
    return out


def _first_inbounds(out_len: int, stride: int, pad: int, dil: int) -> np.ndarray:
    """First in-bounds input coordinate of every window along one axis (PyTorch: ``while (i < 0) i += d``)."""
    start = np.arange(out_len, dtype=np.int64) * stride - pad
    skip = np.where(start < 0, (-start + dil - 1) // dil, 0)
    return start + skip * dil


def window_argmax(x: np.ndarray, kernel, stride, pad, dil, out_shape):
    """First-maximum pooling of ``x`` ``(P, D, H, W)`` float32 -> ``(values, flat_indices int64)``.

    Replicates PyTorch's CPU rule: a candidate replaces the running max iff ``v > max or isnan(v)``;
    window order is (d, h, w) row-major; padding cells never compete.
    """
    planes, depth, height, width = x.shape
    od, oh, ow = out_shape
    # Pad with -inf; the right side also covers ceil-mode windows that run past the padded input.
    lo = pad
    hi = [
        max(0, (o - 1) * s + (k - 1) * d + 1 - p - n)
        for o, s, k, d, p, n in zip(out_shape, stride, kernel, dil, pad, (depth, height, width), strict=True)
    ]
    padded = np.full(
        (planes, depth + lo[0] + hi[0], height + lo[1] + hi[1], width + lo[2] + hi[2]), -np.inf, np.float32
    )
    padded[:, lo[0] : lo[0] + depth, lo[1] : lo[1] + height, lo[2] : lo[2] + width] = x
    fd = _first_inbounds(od, stride[0], pad[0], dil[0])
    fh = _first_inbounds(oh, stride[1], pad[1], dil[1])
    fw = _first_inbounds(ow, stride[2], pad[2], dil[2])
    best_idx = np.empty((planes, od, oh, ow), dtype=np.int64)
    best_idx[...] = (fd[:, None, None] * height + fh[None, :, None]) * width + fw[None, None, :]
    best = np.full((planes, od, oh, ow), -np.inf, dtype=np.float32)
    base_d = np.arange(od, dtype=np.int64) * stride[0] - pad[0]
    base_h = np.arange(oh, dtype=np.int64) * stride[1] - pad[1]
    base_w = np.arange(ow, dtype=np.int64) * stride[2] - pad[2]
    better = np.empty(best.shape, dtype=bool)
    nan = np.empty(best.shape, dtype=bool)
    for a, b, c in itertools.product(range(kernel[0]), range(kernel[1]), range(kernel[2])):
        sd, sh, sw = a * dil[0], b * dil[1], c * dil[2]
        view = padded[
            :,
            sd : sd + (od - 1) * stride[0] + 1 : stride[0],
            sh : sh + (oh - 1) * stride[1] + 1 : stride[1],
            sw : sw + (ow - 1) * stride[2] + 1 : stride[2],
        ]
        np.greater(view, best, out=better)
        np.isnan(view, out=nan)
        np.logical_or(better, nan, out=better)
        if not better.any():
            continue
        pos = ((base_d + sd)[:, None, None] * height + (base_h + sh)[None, :, None]) * width + (base_w + sw)
        np.copyto(best, view, where=better)
        np.copyto(best_idx, pos, where=better)
    return best, best_idx


def _split_batch(self_shape):
    if len(self_shape) == 5:
        return tuple(self_shape[:2]), tuple(self_shape[2:])
    if len(self_shape) == 4:
        return (1, self_shape[0]), tuple(self_shape[1:])
    raise ValueError(f"self must be 4-D (C,D,H,W) or 5-D (N,C,D,H,W), got shape {tuple(self_shape)}")


def max_pool3d_with_argmax(self, kernel_size, stride, padding, dilation, ceil_mode):
    """Forward max pooling ``-> (out, indices int32)`` matching ``F.max_pool3d(..., return_indices=True)``."""
    self = np.asarray(self)
    check_float("self", self)
    kernel, stride_, pad, dil = pool_params(kernel_size, stride, padding, dilation)
    (n, c), spatial = _split_batch(self.shape)
    out_sp = pooled_shape(spatial, kernel, stride_, pad, dil, ceil_mode)
    lead = self.shape[:-3]
    if self.size == 0:
        return np.zeros(lead + out_sp, dtype=self.dtype), np.zeros(lead + out_sp, dtype=np.int32)
    x = to_compute(self).reshape((n * c,) + spatial)
    values, idx = window_argmax(x, kernel, stride_, pad, dil, out_sp)
    return from_compute(values.reshape(lead + out_sp), self.dtype), idx.astype(np.int32).reshape(lead + out_sp)


def scatter_cost(self_size: int, grad_size: int, plane: int) -> tuple[int, int]:
    """(bytes, ops) of :func:`scatter_add_planes` plus the float32 copies and the cast around it."""
    nbytes = 6 * self_size + 16 * grad_size + 8 * max(plane, _BINS_PER_BLOCK)
    planes = self_size // max(plane, 1)
    steps = -(-planes // max(1, _BINS_PER_BLOCK // max(plane, 1)))
    ops = OPS_PER_GATHER * grad_size + 4 * self_size + 4 * grad_size + OPS_PER_STEP * steps
    return nbytes, ops


def cost(grad_output, self, indices, kernel_size, stride, padding, dilation, ceil_mode) -> Cost:
    """A scatter of ``gradOutput`` into a float32 array like ``self``."""
    shape = tuple(getattr(self, "shape", ()))
    self_size, grad_size = numel(shape), int(getattr(grad_output, "size", 0))
    nbytes, ops = scatter_cost(self_size, grad_size, numel(shape[-3:]))
    return Cost(nbytes, ops, "self" if 6 * self_size >= 16 * grad_size else "gradOutput")


def _key(values) -> tuple:
    """A hashable copy of an attribute list (for the geometry cache)."""
    return tuple(values) if values is not None else ()


@functools.lru_cache(maxsize=256)
def _setup(kernel_size, stride, padding, dilation, ceil_mode, self_shape):
    """``((N, C), spatial, expected grad_output shape or None)`` of a call (cached: small calls are dominated by
    this parsing; refusals raise and are not cached)."""
    kernel, stride_, pad, dil = pool_params(kernel_size, stride, padding, dilation)
    (n, c), spatial = _split_batch(self_shape)
    expected = None
    if all(s > 0 for s in spatial):
        expected = tuple(self_shape[:-3]) + pooled_shape(spatial, kernel, stride_, pad, dil, ceil_mode)
    return (n, c), spatial, expected


def max_pool3d_with_argmax_backward(
    grad_output, self, indices, kernel_size, stride, padding, dilation, ceil_mode
) -> np.ndarray:
    """Scatter-add ``grad_output`` to the positions in ``indices``; returns an array like ``self``."""
    grad_output = np.asarray(grad_output)
    self = np.asarray(self)
    indices = np.asarray(indices)
    check_float("self", self)
    check_float("grad_output", grad_output)
    if grad_output.dtype != self.dtype:
        raise TypeError(f"grad_output dtype {grad_output.dtype} differs from self dtype {self.dtype}")
    if indices.dtype not in (np.dtype(np.int32), np.dtype(np.int64)):
        raise TypeError(f"indices dtype must be int32 or int64, got {indices.dtype}")
    (n, c), spatial, expected = _setup(
        _key(kernel_size), _key(stride), _key(padding), _key(dilation), bool(ceil_mode), self.shape
    )
    if grad_output.ndim != self.ndim:
        raise ValueError(f"grad_output rank {grad_output.ndim} differs from self rank {self.ndim}")
    if expected is not None:
        if grad_output.shape != expected:
            raise ValueError(f"grad_output shape {grad_output.shape} != pooled shape {expected}")
    elif grad_output.shape[:-3] != self.shape[:-3]:
        raise ValueError(f"grad_output shape {grad_output.shape} does not match self {self.shape}")
    if indices.shape != grad_output.shape:
        raise ValueError(f"indices shape {indices.shape} != grad_output shape {grad_output.shape}")
    if self.size == 0 or grad_output.size == 0:
        return np.zeros(self.shape, dtype=self.dtype)
    plane = spatial[0] * spatial[1] * spatial[2]
    g = to_compute(grad_output).reshape(n * c, -1)
    idx = indices.reshape(n * c, -1)
    grad_input = scatter_add_planes(g, idx, plane)
    return from_compute(grad_input.reshape(self.shape), self.dtype)
