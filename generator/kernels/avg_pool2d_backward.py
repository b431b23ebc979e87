"""NumPy reference kernel for ``aclnnAvgPool2dBackward`` (golden: ``torch.ops.aten.avg_pool2d_backward``).

Formula
-------
``self`` is ``(N, C, H, W)`` or ``(C, H, W)``; ``grad_output`` has the pooled shape ``(N, C, Ho, Wo)``
(``Ho``/``Wo`` by the shared pooled-size rule with ``ceil_mode``).  Output ``(ho, wo)`` averaged the window
rows ``[ho*sH - pH, ho*sH - pH + kH)`` x columns ``[wo*sW - pW, wo*sW - pW + kW)``; its gradient is spread
evenly over the cells of that window that lie inside the input::

    gradInput[h, w] = sum over windows holding (h, w) of gradOutput[ho, wo] / divisor(ho, wo)

``divisor`` is ``divisor_override`` when non-zero; else, with ``count_include_pad``, the window size clipped
to the padded input (``min(start + k, size + pad) - start`` per axis, PyTorch's rule, which only differs from
``kH*kW`` for ceil-mode windows); else the number of real input cells in the window.

Product paths (op_api ``aclnn_avgpool2d_backward.cpp``; ``product_aware``: the kernel takes ``product=``)
----------------------------------------------------------------------------------------------------------
* Global pooling (every product; ``divisor_override == 0``, kernel == ``(H, W)``, ``H, W >= 10``, a 1x1
  ``grad_output``): the op divides ``grad_output`` by ``kH*kW`` and broadcasts it over the whole ``H x W``
  plane -- even when a non-zero padding made the window miss some cells or contain padding (PyTorch
  differs there; CANN's result is reproduced).
* ``"950"``: otherwise AvgPoolV2Grad, which implements the formula above (PyTorch semantics).
* ``"910b"``/``"910_93"``: the cube (transposed-convolution) path when ``|divisor_override| <= 255``,
  ``kH, kW <= 255`` with ``kH*kW <= 255`` or both ``<= 20``, ``count_include_pad``, not ``ceil_mode``, the input
  not a long strip (``W // H < 2`` and ``H // W < 2``) and ``C < 65536``; otherwise AvgPool3DGrad.  Both
  compute the formula above (the cube conditions exclude the cases where they would differ).
* ``"910"``/``"310p"``: always the cube path; ``|divisor_override| > 255`` is rejected (``ValueError``; the op
  returns 161002).  With ``divisor_override`` or ``count_include_pad`` every window is divided by
  ``divisor_override`` or by the full ``kH*kW`` -- also the ceil-mode windows that PyTorch clips (a
  documented CANN deviation, reproduced); without both, by the number of real cells (as PyTorch).
  Their cube has no FLOAT32: FLOAT ``grad_output`` without ``cube_math_type`` 1 or 2 (which cast it to
  float16) fails inside the op (161002): ``ValueError``.  ``divisor_override == +-255`` is in range but not
  "small" (the op's no-mean-matrix test is ``|divisor_override| < 255``): without ``count_include_pad`` such
  windows are divided by their number of real cells, as with ``divisor_override == 0``.

Precision (cube and global paths)
---------------------------------
The cube multiplies by a weight tensor held in the compute dtype: for float16 data (or ``cube_math_type``
1/ALLOW_FP32_DOWN_PRECISION or 2/USE_FP16, which cast the gradient to float16 first -- the code does so for
every product, whatever the doc says about HF32) the gradient, the weight ``1/divisor`` and the result are
rounded to float16, the sums formed in float32.  The per-window ``1/count`` factor (no ``count_include_pad``)
is applied before that cast, in float16 for float16 data and float32 otherwise.  HF32 (``cube_math_type`` 3
on A2/A3/950) is not emulated: float32 arithmetic is used.  The direct paths compute ``gradOutput /
divisor`` in float32 (PyTorch's rounding), accumulate in float32 and round once to the dtype of ``self``.

Other readings
--------------
* ``stride`` may be empty or ``None`` (= ``kernel_size``; the op accepts a null stride).  ``padding`` needs 1 or
  2 values with ``0 <= 2*padding <= kernel_size``.
* The op does not check ``grad_output``'s spatial size against the pooled size; this kernel requires it
  (``ValueError``), since any other size makes the result depend on a device path's internals.
* Empty tensors: the op returns without writing ``gradInput``.  An empty ``self`` gives an empty result; an
  empty ``grad_output`` with a non-empty ``self`` would leave it unwritten: ``ValueError``.

Implementation: separable strided accumulation -- ``kW`` strided slice additions spread the scaled gradient
along ``W`` into ``(P, Ho, W)``, then ``kH`` along ``H`` into ``(P, H, W)``; each tap is clipped to the outputs
whose cell lies inside the input, so padding cells are never materialised.  The global path is one
broadcast division.  With the compiled helpers (``_accel``) one loop per plane does the same: it prepares
the plane's gradient (division, mean factor, float16 roundings, weight) once, makes the same float32
additions in the same order in a ``(Ho, W)`` buffer and a row buffer, and writes each result straight into
the output in its dtype -- bit for bit the NumPy path's result, with no full-size temporary (the output is
the only large allocation, as in PyTorch).
"""

from __future__ import annotations

import numpy as np

from generator.kernels import _accel
from generator.kernels._accel import tap_range
from generator.kernels._common import Cost, check_float, from_compute, normalize_pair, pool_out_size, to_compute

__all__ = ["avg_pool2d_backward", "cost", "select_path"]

_F16 = np.dtype(np.float16)
_F32 = np.dtype(np.float32)
_A2 = {"910b", "910_93", "a2", "a3", "ascend910b", "ascend910_93"}
_V1 = {"910", "310p", "ascend910", "ascend310p"}
_REGBASE = {"950", "ascend950"}
_DIVISOR_LIMIT = 255
_CUBE_MATH_TYPES = (0, 1, 2, 3)


def _attrs(kernel_size, stride, padding):
    kernel = normalize_pair(kernel_size, "kernel_size")
    stride_ = kernel if stride is None else normalize_pair(stride, "stride", default=kernel)
    pad = normalize_pair(padding, "padding")
    if any(k <= 0 for k in kernel):
        raise ValueError(f"kernel_size values must be > 0, got {kernel}")
    if any(s <= 0 for s in stride_):
        raise ValueError(f"stride values must be > 0, got {stride_}")
    if any(p < 0 or 2 * p > k for p, k in zip(pad, kernel, strict=True)):
        raise ValueError(f"padding must satisfy 0 <= padding <= kernel_size / 2, got {pad} for {kernel}")
    return kernel, stride_, pad


def _is_global(h, w, ho, wo, kernel, divisor_override) -> bool:
    return divisor_override == 0 and kernel == (h, w) and h >= 10 and w >= 10 and ho == 1 and wo == 1


def select_path(product, self_shape, grad_shape, kernel, ceil_mode, count_include_pad, divisor_override) -> str:
    """``"global"``, ``"cube"`` or ``"direct"``: the computation the op chooses on ``product``."""
    key = str(product).strip().lower()
    c, h, w = self_shape[-3:]
    ho, wo = grad_shape[-2:]
    if key not in _A2 | _V1 | _REGBASE:
        raise ValueError(f"aclnnAvgPool2dBackward is not supported on product {product!r}")
    if _is_global(h, w, ho, wo, tuple(kernel), divisor_override):
        return "global"
    if key in _REGBASE:
        return "direct"
    divisor_ok = -_DIVISOR_LIMIT <= divisor_override <= _DIVISOR_LIMIT
    if key in _V1:
        if not divisor_ok:
            raise ValueError(f"divisor_override must lie in [-255, 255] on product {product!r}")
        return "cube"
    kh, kw = kernel
    kernel_ok = kh <= 255 and kw <= 255 and (kh * kw <= 255 or (kh <= 20 and kw <= 20))
    long_strip = h != 0 and w != 0 and (w // h >= 2 or h // w >= 2)
    if divisor_ok and kernel_ok and count_include_pad and not ceil_mode and not long_strip and c < 65536:
        return "cube"
    return "direct"


def _axis_divisor(size, out, k, s, p, include_pad: bool) -> np.ndarray:
    """Per-output window length along one axis (PyTorch's clipping), as int64."""
    start = np.arange(out, dtype=np.int64) * s - p
    end = np.minimum(start + k, size + p)
    if include_pad:
        return end - start
    return np.minimum(end, size) - np.maximum(start, 0)


def _tap_range(out: int, stride: int, pad: int, tap: int, size: int) -> tuple[int, int]:
    """Outputs ``[lo, hi)`` whose cell ``o*stride - pad + tap`` lies inside ``[0, size)``."""
    lo = max(0, -(-(pad - tap) // stride))
    hi = min(out, (size - 1 + pad - tap) // stride + 1)
    return lo, max(lo, hi)


def _spread(scaled: np.ndarray, shape, kernel, stride, pad, ho, wo) -> np.ndarray:
    """Sum ``scaled`` (P, Ho, Wo) over the in-input cells of every window -> float32 (P, H, W)."""
    planes = scaled.shape[0]
    h, w = shape
    (kh, kw), (sh, sw), (ph, pw) = kernel, stride, pad
    cols = np.zeros((planes, ho, w), dtype=np.float32)
    for j in range(kw):
        lo, hi = _tap_range(wo, sw, pw, j, w)
        if lo < hi:
            first = lo * sw - pw + j
            cols[:, :, first : first + (hi - lo - 1) * sw + 1 : sw] += scaled[:, :, lo:hi]
    out = np.zeros((planes, h, w), dtype=np.float32)
    for i in range(kh):
        lo, hi = _tap_range(ho, sh, ph, i, h)
        if lo < hi:
            first = lo * sh - ph + i
            out[:, first : first + (hi - lo - 1) * sh + 1 : sh, :] += cols[:, lo:hi, :]
    return out


@_accel.jit(inline=True)
def _to_half(value, scratch):
    """``value`` (float32) rounded to float16 and back (nearest even)."""
    _accel.put(scratch, 0, value)
    return _accel.as_f32(scratch[0])


@_accel.jit
def _spread_compiled(src, factors, divide, mean_half, to_half, weight, kernel, stride, pad, half, out):
    """:func:`_spread` in one pass per plane, writing the result straight into ``out`` (P, H, W) (storage of
    the result dtype). The source is prepared once per plane as the NumPy code prepares it: divided by
    ``factors[ho, wo]`` (``divide``, the direct path), or for the cube multiplied by ``factors`` and rounded to
    float16 when ``mean_half`` (a per-window mean; ``factors`` is all ones otherwise), rounded to float16 when
    ``to_half``, multiplied by ``weight``. Then the same float32 additions in the same order (along W in tap
    order into a (Ho, W) buffer, then along H in tap order); the sum is rounded through float16 when
    ``half``, then once to ``out``'s dtype."""
    planes, ho, wo = src.shape
    h, w = out.shape[1], out.shape[2]
    kh, kw = kernel
    sh, sw = stride
    ph, pw = pad
    scaled = np.empty((ho, wo), np.float32)
    cols = np.empty((ho, w), np.float32)
    acc = np.empty(w, np.float32)
    scratch = np.empty(1, np.uint16)
    for p in range(planes):
        for oh in range(ho):
            if divide:
                for o in range(wo):
                    scaled[oh, o] = np.float32(_accel.as_f32(src[p, oh, o]) / factors[oh, o])
            else:
                for o in range(wo):
                    value = np.float32(_accel.as_f32(src[p, oh, o]) * factors[oh, o])
                    if mean_half:
                        value = _to_half(value, scratch)
                    if to_half:
                        value = _to_half(value, scratch)
                    scaled[oh, o] = np.float32(value * weight)
        cols[:, :] = np.float32(0.0)
        for j in range(kw):
            lo, hi = tap_range(wo, sw, pw, j, w)
            for oh in range(ho):
                for o in range(lo, hi):
                    x = o * sw - pw + j
                    cols[oh, x] = np.float32(cols[oh, x] + scaled[oh, o])
        for y in range(h):
            acc[:] = np.float32(0.0)
            for i in range(kh):
                t = y + ph - i
                if t >= 0 and t % sh == 0 and t // sh < ho:
                    r = t // sh
                    for x in range(w):
                        acc[x] = np.float32(acc[x] + cols[r, x])
            for x in range(w):
                value = acc[x]
                if half:
                    value = _to_half(value, scratch)
                _accel.put(out, (p, y, x), value)


def _spread_into(source, factors, divide, mean_half, to_half, weight, geometry, half, dtype) -> np.ndarray:
    """The compiled spread of ``source`` (P, Ho, Wo), any float storage: the result as ``dtype`` (P, H, W)."""
    shape, kernel, stride, pad = geometry
    out = np.empty((source.shape[0], *shape), dtype=dtype)
    _spread_compiled(
        _accel.storage(_accel.ready(source)),
        _accel.ready(factors, np.float32),
        bool(divide),
        bool(mean_half),
        bool(to_half),
        np.float32(weight),
        tuple(int(k) for k in kernel),
        tuple(int(s) for s in stride),
        tuple(int(q) for q in pad),
        bool(half),
        _accel.storage(out),
    )
    return out


def avg_pool2d_backward(
    grad_output,
    self,
    kernel_size,
    stride,
    padding,
    ceil_mode,
    count_include_pad,
    divisor_override,
    cube_math_type,
    *,
    product="910b",
):
    """Spread ``grad_output`` over the pooling windows; returns an array like ``self`` (see module doc)."""
    grad_output = np.asarray(grad_output)
    self = np.asarray(self)
    check_float("self", self)
    check_float("grad_output", grad_output)
    # The op checks self's and grad_output's dtypes against the list separately, not for equality: the
    # computation (and gradInput, whose dtype equals grad_output's) follows grad_output.
    dtype = grad_output.dtype
    kernel, stride_, pad = _attrs(kernel_size, stride, padding)
    divisor_override = int(divisor_override)
    cube_math_type = int(cube_math_type)
    ceil_mode, count_include_pad = bool(ceil_mode), bool(count_include_pad)
    if cube_math_type not in _CUBE_MATH_TYPES:
        raise ValueError(f"cube_math_type must be one of {_CUBE_MATH_TYPES}, got {cube_math_type}")
    if self.ndim not in (3, 4) or grad_output.ndim != self.ndim:
        raise ValueError(f"self and grad_output must both be 3-D or 4-D, got {self.shape} and {grad_output.shape}")
    if grad_output.shape[:-2] != self.shape[:-2]:
        raise ValueError(f"leading (N, C) dims differ: grad_output {grad_output.shape} vs self {self.shape}")
    if self.size == 0:
        return np.zeros(self.shape, dtype=dtype)
    if grad_output.size == 0:
        raise ValueError("empty grad_output with a non-empty self: the op leaves gradInput unwritten (undefined)")
    h, w = self.shape[-2:]
    ho = pool_out_size(h, kernel[0], stride_[0], pad[0], 1, ceil_mode)
    wo = pool_out_size(w, kernel[1], stride_[1], pad[1], 1, ceil_mode)
    if grad_output.shape[-2:] != (ho, wo):
        raise ValueError(f"grad_output spatial size {grad_output.shape[-2:]} != pooled size {(ho, wo)}")
    path = select_path(product, self.shape, grad_output.shape, kernel, ceil_mode, count_include_pad, divisor_override)
    if path == "cube" and dtype == _F32 and cube_math_type not in (1, 2) and str(product).strip().lower() in _V1:
        raise ValueError(f"the cube of product {product!r} has no FLOAT32: use cube_math_type 1 or 2")
    planes = self.size // (h * w)
    source = grad_output.reshape(planes, ho, wo)
    to_half = cube_math_type in (1, 2)
    half = to_half or dtype == _F16  # the cube / division run in float16

    with np.errstate(over="ignore", invalid="ignore"):
        if path == "global":
            g = to_compute(source)
            gc = g.astype(_F16).astype(_F32) if to_half else g
            res = gc / np.float32(kernel[0] * kernel[1])
            if half:
                res = res.astype(_F16).astype(_F32)
            out = np.empty((planes, h, w), dtype=_F32)
            out[...] = res  # (P, 1, 1) broadcast over the plane
            return from_compute(out.reshape(self.shape), dtype)

        if path == "direct":
            if divisor_override != 0:
                divisor = np.full((ho, wo), divisor_override, dtype=_F32)
            else:
                dh = _axis_divisor(h, ho, kernel[0], stride_[0], pad[0], count_include_pad)
                dw = _axis_divisor(w, wo, kernel[1], stride_[1], pad[1], count_include_pad)
                divisor = (dh[:, None] * dw[None, :]).astype(_F32)
            if _accel.enabled():  # straight from grad_output's storage into the result: no float32 copies
                geometry = ((h, w), kernel, stride_, pad)
                out = _spread_into(source, divisor, True, False, False, 1.0, geometry, False, dtype)
                return out.reshape(self.shape)
            out = _spread(to_compute(source) / divisor, (h, w), kernel, stride_, pad, ho, wo)
            return from_compute(out.reshape(self.shape), dtype)

        # cube path: optional per-window 1/count factor, cast, uniform weight, float32 sums
        small_divisor = divisor_override != 0 and -_DIVISOR_LIMIT < divisor_override < _DIVISOR_LIMIT
        mean = None
        mul_dtype = _F16 if dtype == _F16 else _F32
        if not (small_divisor or count_include_pad):  # the op's mean-matrix branch
            dh = _axis_divisor(h, ho, kernel[0], stride_[0], pad[0], False)
            dw = _axis_divisor(w, wo, kernel[1], stride_[1], pad[1], False)
            mean = (np.float32(1) / (dh[:, None] * dw[None, :]).astype(_F32)).astype(mul_dtype).astype(_F32)
            weight = 1.0
        elif divisor_override != 0:
            weight = 1.0 / divisor_override
        else:
            weight = 1.0 / (kernel[0] * kernel[1])
        weight = np.float32(np.float32(weight).astype(_F16) if half else weight)
        if _accel.enabled():  # the source prepared, the result rounded, on the fly; written as dtype
            factors = mean if mean is not None else np.ones((ho, wo), dtype=_F32)
            mean_half = mean is not None and mul_dtype == _F16
            geometry = ((h, w), kernel, stride_, pad)
            out = _spread_into(source, factors, False, mean_half, to_half, weight, geometry, half, dtype)
            return out.reshape(self.shape)
        gc = to_compute(source)
        if mean is not None:
            gc = (gc * mean).astype(mul_dtype).astype(_F32)
        if to_half:
            gc = gc.astype(_F16).astype(_F32)
        out = _spread(gc * weight, (h, w), kernel, stride_, pad, ho, wo)
        if half:
            out = out.astype(_F16)
        return from_compute(out.reshape(self.shape), dtype)


def cost(
    grad_output,
    self,
    kernel_size,
    stride,
    padding,
    ceil_mode,
    count_include_pad,
    divisor_override,
    cube_math_type,
    *,
    product="910b",
) -> Cost:
    """Float32 buffers (one per axis pass) and kH + kW strided passes over the pooled gradient (the NumPy
    path's needs; the compiled path allocates only the result)."""
    shape = [int(v) for v in self.shape]
    gshape = [int(v) for v in grad_output.shape]
    size = 1
    for v in shape:
        size *= v
    pooled = 1
    for v in gshape:
        pooled *= v
    ks = [int(v) for v in kernel_size] or [1]
    kh, kw = ks[0], ks[-1]
    h, w = (shape[-2], shape[-1]) if len(shape) >= 2 else (1, 1)
    planes = size // (h * w) if h * w else 0
    ho = gshape[-2] if len(gshape) >= 2 else 1
    # buffers (P, Ho, W) and (P, H, W) plus the scaled gradient
    padded = planes * (ho + h) * w
    return Cost(
        bytes=4 * (size + padded + 2 * pooled), ops=kw * pooled + kh * planes * ho * w + padded + size, param="self"
    )
