"""NumPy reference kernel for ``aclnnAdaptiveAvgPool2dBackward`` (golden: ``aten._adaptive_avg_pool2d_backward``).

Formula
-------
``self`` is ``(N, C, H, W)`` or ``(C, H, W)`` and ``grad_output`` ``(N, C, Ho, Wo)`` (same leading dims, any
``Ho, Wo >= 1``, larger or smaller than ``H, W``).  Output row ``i`` averages input rows
``[floor(i*H/Ho), ceil((i+1)*H/Ho))`` (likewise for columns), so::

    gradInput[n, c, h, w] = sum over (i, j) whose window holds (h, w) of gradOutput[n, c, i, j] / (kh_i * kw_j)

with ``kh_i``/``kw_j`` the window lengths.  Windows of neighbouring outputs overlap when the sizes do not
divide, and contributions add up.

Conventions (op_api ``aclnn_adaptive_avg_pool2d_backward.cpp``)
-----------------------------------------------------------------
* dtypes: ``grad_output`` and ``self`` share float32/float16/bfloat16 (910/310P: no bfloat16 -- a
  first-phase check); the result has that dtype.  Formats ND/NCHW/NCL only: the last two axes are always
  ``H, W``.
* ``Ho == Wo == 1`` (global average pooling) is a separate op path: the op fills a tensor with
  ``1/(H*W)`` converted to the tensor's dtype and multiplies it with ``grad_output`` in that dtype.  This
  kernel reproduces it: the factor is rounded to the dtype first, the product formed in float32 and
  rounded once (the device multiplies half types exactly and rounds once).
* Other sizes: ``grad_output / (kh_i*kw_j)`` is formed in float32 (PyTorch's rounding), spread and summed in
  float32 and rounded once to the dtype (A2/A3 run AdaptiveAvgPool3dGrad; 910/310P build assist matrices
  and batch-matmul them in the tensor's dtype -- that half-precision accumulation is not emulated, and
  neither is the way such a matrix product lets a NaN/inf of one output leak into other windows through
  ``0 * inf``: here a non-finite gradient reaches exactly the cells of its own window, as in PyTorch).
* Empty tensors: the op returns without writing ``out`` when ``self`` or ``grad_output`` is empty.  An empty
  ``self`` gives an empty (well-defined) result; an empty ``grad_output`` with a non-empty ``self`` would
  leave ``out`` unwritten (undefined contents): ``ValueError``.

Implementation: separable slice writes -- a loop over the ``Wo`` output columns spreads each scaled column
over its input-column window (all planes and rows at once; cells not yet covered by an earlier window are
assigned, overlaps added), then a loop over the ``Ho`` output rows does the same along ``H``; the global
path is one broadcast multiply.  With the compiled helpers (``_accel``) one loop per plane does the same
additions in the same order in a ``(Ho, W)`` buffer and a row buffer and writes each result straight into
the output in its dtype (bit for bit the NumPy path's result; the output is the only large allocation).
"""

from __future__ import annotations

import numpy as np

from generator.kernels import _accel
from generator.kernels._common import Cost, check_float, from_compute, to_compute

__all__ = ["adaptive_avg_pool2d_backward", "adaptive_weights", "cost", "window_bounds"]


def window_bounds(in_size: int, out_size: int) -> tuple[np.ndarray, np.ndarray]:
    """Start and end (exclusive) of every adaptive window: ``floor(i*in/out)``, ``ceil((i+1)*in/out)``."""
    i = np.arange(out_size, dtype=np.int64)
    start = (i * in_size) // out_size
    end = -((-(i + 1) * in_size) // out_size)
    return start, end


def adaptive_weights(in_size: int, out_size: int) -> np.ndarray:
    """``(out_size, in_size)`` float32 matrix: row ``i`` holds ``1/len`` on the cells of window ``i``."""
    start, end = window_bounds(in_size, out_size)
    cells = np.arange(in_size, dtype=np.int64)
    inside = (cells[None, :] >= start[:, None]) & (cells[None, :] < end[:, None])
    return (inside / (end - start)[:, None]).astype(np.float32)


def _spread(dst: np.ndarray, src: np.ndarray, starts, ends, *, axis: int) -> None:
    """``dst[..., s_i:e_i, ...] = sum over i of src[..., i, ...]`` along ``axis`` (windows are monotone and gap-free).

    Cells at or beyond the previous window's end have not been written yet and are assigned; the overlap
    with earlier windows is added to.  Every cell of ``dst`` is covered, so ``dst`` may start uninitialised.
    """
    prev_end = 0
    for i, (start, end) in enumerate(zip(starts.tolist(), ends.tolist(), strict=True)):
        piece = np.take(src, [i], axis=axis)  # keeps the axis for broadcasting
        fresh = max(start, prev_end)
        if start < prev_end:
            overlap = [slice(None)] * dst.ndim
            overlap[axis] = slice(start, prev_end)
            dst[tuple(overlap)] += piece
        if fresh < end:
            new = [slice(None)] * dst.ndim
            new[axis] = slice(fresh, end)
            dst[tuple(new)] = piece
        prev_end = max(prev_end, end)


@_accel.jit
def _spread_compiled(src, area, sh, eh, sw, ew, out):
    """:func:`_spread` along W then H for every plane, as the NumPy path computes it (the gradient divided by
    the window area in float32; each cell assigned by its first window and added to by the later ones, in
    window order, in float32), each result rounded once into ``out`` (storage of the result dtype)."""
    planes, ho, wo = src.shape
    h, w = out.shape[1], out.shape[2]
    cols = np.empty((ho, w), np.float32)
    row = np.empty(w, np.float32)
    for p in range(planes):
        for oh in range(ho):
            end = 0
            for o in range(wo):
                value = np.float32(_accel.as_f32(src[p, oh, o]) / area[oh, o])
                for x in range(sw[o], ew[o]):
                    cols[oh, x] = np.float32(cols[oh, x] + value) if x < end else value
                end = max(end, ew[o])
        first = 0  # the first output row whose window can still reach y (windows are monotone)
        for y in range(h):
            while eh[first] <= y:
                first += 1
            fresh = True
            i = first
            while i < ho and sh[i] <= y:
                if fresh:
                    for x in range(w):
                        row[x] = cols[i, x]
                    fresh = False
                else:
                    for x in range(w):
                        row[x] = np.float32(row[x] + cols[i, x])
                i += 1
            for x in range(w):
                _accel.put(out, (p, y, x), row[x])


def _check(grad_output: np.ndarray, self: np.ndarray) -> None:
    check_float("self", self)
    check_float("grad_output", grad_output)
    if grad_output.dtype != self.dtype:
        raise TypeError(f"grad_output dtype {grad_output.dtype} differs from self dtype {self.dtype}")
    if self.ndim not in (3, 4) or grad_output.ndim != self.ndim:
        raise ValueError(f"self and grad_output must both be 3-D or 4-D, got {self.shape} and {grad_output.shape}")
    if grad_output.shape[:-2] != self.shape[:-2]:
        raise ValueError(f"leading (N, C) dims differ: grad_output {grad_output.shape} vs self {self.shape}")


def adaptive_avg_pool2d_backward(grad_output, self) -> np.ndarray:
    """Spread every ``grad_output`` element evenly over its adaptive window; returns an array like ``self``."""
    grad_output = np.asarray(grad_output)
    self = np.asarray(self)
    _check(grad_output, self)
    if self.size == 0:
        return np.zeros(self.shape, dtype=self.dtype)
    if grad_output.size == 0:
        raise ValueError("empty grad_output with a non-empty self: the op leaves out unwritten (undefined)")
    h, w = self.shape[-2:]
    ho, wo = grad_output.shape[-2:]
    planes = self.size // (h * w)
    if ho == 1 and wo == 1:
        g = to_compute(grad_output)
        factor = np.float32(np.array(1.0 / (h * w), dtype=np.float32).astype(self.dtype))
        out = np.empty(self.shape, dtype=np.float32)
        np.multiply(g, factor, out=out)  # broadcasts the (..., 1, 1) gradient over (H, W)
        return from_compute(out, self.dtype)
    g = grad_output
    sh, eh = window_bounds(h, ho)
    sw, ew = window_bounds(w, wo)
    # g / (kh*kw) per output, as one float32 division by the integer window size (PyTorch's rounding)
    area = ((eh - sh)[:, None] * (ew - sw)[None, :]).astype(np.float32)
    if _accel.enabled():  # one pass per plane, straight into the result: no full-size temporaries
        out = np.empty((planes, h, w), dtype=self.dtype)
        source = _accel.storage(_accel.ready(grad_output.reshape(planes, ho, wo)))
        _spread_compiled(source, area, sh, eh, sw, ew, _accel.storage(out))
        return out.reshape(self.shape)
    scaled = to_compute(g).reshape(planes, ho, wo) / area
    t = np.empty((planes, ho, w), dtype=np.float32)  # columns spread, rows still pooled
    _spread(t, scaled, sw, ew, axis=2)
    out = np.empty((planes, h, w), dtype=np.float32)
    _spread(out, t, sh, eh, axis=1)
    return from_compute(out.reshape(self.shape), self.dtype)


def cost(grad_output, self) -> Cost:
    """Float32 result, row-pooled temporary and scaled gradient; ~(Ho*W*kw + H*W*kh) adds per plane."""
    shape = [int(v) for v in self.shape]
    gshape = [int(v) for v in grad_output.shape]
    size = 1
    for v in shape:
        size *= v
    h, w = (shape[-2], shape[-1]) if len(shape) >= 2 else (1, 1)
    ho, wo = (gshape[-2], gshape[-1]) if len(gshape) >= 2 else (1, 1)
    planes = size // (h * w) if h * w else 0
    ops = planes * (ho * (w + wo) + (h + ho) * w) + 1000 * (ho + wo)  # adds + per-slice overhead
    temps = 4 * planes * ho * w * 2 + 4 * size * 3
    return Cost(bytes=temps, ops=max(ops, size), param="gradOutput")
