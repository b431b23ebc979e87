"""NumPy reference kernel for ``aclnnSoftmaxBackward`` (golden: ``torch.ops.aten._softmax_backward_data``).

Conventions
-----------
``softmax_backward(grad_output, output, dim)`` with ``g = grad_output``, ``y = output`` (the forward
softmax's result) and the sum taken along ``dim``::

    out = y * (g - sum(g * y, dim, keepdims=True))

(the doc writes the same thing expanded: ``g*y - sum(g*y)*y``).

dtypes, shapes (from the op_api code, aclnn_softmax_backward.cpp and softmax_grad.cpp):

* ``grad_output`` and ``output`` have the same dtype, FLOAT, FLOAT16 or BFLOAT16 (BFLOAT16 on A2/A3/950
  only), and the same shape, rank 0-8.  ``SoftmaxGrad`` runs in that dtype and the result has it (the
  binding casts it to ``out``'s dtype, which the op does not restrict).  FLOAT16 / BFLOAT16 are computed
  in float32 (products and sums), rounded once at the end.
* ``dim`` is in ``[-rank, rank)`` (a 0-d tensor counts as rank 1, so ``dim`` is -1 or 0 and the "row" is
  the single element); negative values count from the end.  Out-of-range values raise IndexError.
* Empty tensors: the op returns before any check but the null checks on 910/310P/A2/A3 (so even an
  out-of-range ``dim``, another dtype or another shape of ``output`` passes there) and after all checks on
  950; this kernel returns an empty result of ``grad_output``'s shape and dtype for any ``dim`` and any
  ``output`` when ``grad_output`` is empty.  An empty ``output`` with a non-empty ``grad_output`` leaves
  ``out`` unwritten in CANN (undefined result): ValueError.

Readings chosen where sources are silent
----------------------------------------
* Accumulation: the dot products are float32 sums (NumPy's pairwise summation), like PyTorch's float
  accumulation; the device's reduction order is not visible in op_api.
* NaN / inf propagate through the float32 formula (a NaN anywhere in a row makes the row NaN).

Implementation: the tensor is viewed as ``(outer, D, inner)`` around ``dim`` and processed in slabs of whole
rows (about 32 Ki elements each, or one row when a row is longer) converted to float32 once, so extra
memory stays a few hundred KiB unless single rows are longer than that.  The compiled path (``_accel``) reads
each row twice (sum, then result) without any copy; its sums are float64, or float32 in vector lanes for
half-type rows of at most 4096 elements (see ``_dot32``).  Over a non-last axis it sums chunks of 4096 columns
into a float64 buffer, four rows per sweep of the buffer (the same additions in the same order as one row at a
time, a quarter of the buffer's loads and stores), and rounds the sums to float32 once per chunk: dim 0 of a
(16, 256, 1024) tensor went from 1.0x to 0.8x PyTorch's time (bfloat16: 0.55x), bit for bit the same.
"""

from __future__ import annotations

import math

import numpy as np

from generator.kernels import _accel
from generator.kernels._accel import as_f32, put
from generator.kernels._common import FLOAT_DTYPES, Cost
from generator.kernels._pointwise import BLOCK, F32, numel, store, widen

__all__ = ["cost", "softmax_backward"]


def _normalize_dim(dim: int, rank: int) -> int:
    size = max(rank, 1)
    if not -size <= dim < size:
        raise IndexError(f"dim {dim} is out of range for a tensor of rank {rank}")
    return dim % size


def _checked(grad_output, output):
    """The op's checks in CANN's order (slow path: only called when the common-case test fails); returns the
    empty result for an empty ``grad_output``, raises for anything CANN rejects, else None."""
    if grad_output.size == 0:
        # Nothing to compute. Off 950 CANN returns before checking dtypes, dim or shapes when a tensor is
        # empty, so an empty grad_output is accepted whatever output is; the result is empty either way.
        return np.zeros(grad_output.shape, grad_output.dtype)
    if output.size == 0:
        raise ValueError("output is empty but grad_output is not: CANN returns without writing out (undefined result)")
    for name, array in (("grad_output", grad_output), ("output", output)):
        if np.dtype(array.dtype) not in FLOAT_DTYPES:
            raise TypeError(f"{name}: dtype {array.dtype} is not one of float32, float16, bfloat16")
        if array.ndim > 8:
            raise ValueError(f"{name}: rank {array.ndim} exceeds 8")
    if grad_output.dtype != output.dtype:
        raise TypeError(f"grad_output dtype {grad_output.dtype} differs from output dtype {output.dtype}")
    if grad_output.shape != output.shape:
        raise ValueError(f"shape mismatch: grad_output {grad_output.shape} vs output {output.shape}")
    return None


# The storage a compiled loop reads for each accepted dtype (``_accel.storage``; None: the array itself).
_BITS = {F32: None, **_accel.HALF_STORAGE}
_NO_SCRATCH = np.zeros(0, np.float64)  # the compiled loop's column sums when ``inner == 1`` (never written)
_NO_SUMS = np.zeros(0, np.float32)


def softmax_backward(grad_output, output, dim) -> np.ndarray:
    """Gradient of softmax along ``dim``; see the module docstring."""
    grad_output = np.asarray(grad_output)
    output = np.asarray(output)
    dtype, shape = grad_output.dtype, grad_output.shape
    bits = _BITS.get(dtype, False)
    # One test for the common case (same accepted dtype and shape, non-empty, rank <= 8); anything else goes
    # through every check in CANN's order, which returns only for an empty grad_output (dtypes hash as they
    # compare, so a dtype missing from _BITS is rejected there). At small sizes these fixed costs are most of
    # the call.
    if not (
        bits is not False
        and output.dtype == dtype
        and output.shape == shape
        and grad_output.size
        and grad_output.ndim <= 8
    ):
        empty = _checked(grad_output, output)
        if empty is not None:
            return empty
    axis = _normalize_dim(int(dim), grad_output.ndim)
    if grad_output.ndim == 0:
        shape3 = (1, 1, 1)
    else:
        inner = math.prod(shape[axis + 1 :])
        shape3 = (grad_output.size // (shape[axis] * inner), shape[axis], inner)
    if _accel.enabled():  # a strided or read-only view is copied: the result does not depend on the layout
        grad_output, output = _accel.ready(grad_output), _accel.ready(output)
        result = np.empty(shape, dtype)
        flat = [grad_output.ravel(), output.ravel(), result.ravel()]  # views: the arrays are C-contiguous
        if bits is not None:
            flat = [a.view(bits) for a in flat]
        narrow = bits is not None and shape3[1] <= _NARROW_ROW  # see _dot32
        columns = min(shape3[2], 4096) if shape3[2] > 1 else 0
        acc = np.empty(columns, np.float64) if columns else _NO_SCRATCH
        sums = np.empty(columns, np.float32) if columns else _NO_SUMS
        # ``ready`` arrays, so the dispatcher is called directly (the wrapper's read-only test is not needed)
        _softmax_compiled.dispatcher()(*flat, *shape3, acc, sums, narrow)
        return result
    g3 = grad_output.reshape(shape3)
    y3 = output.reshape(shape3)
    result = np.empty(shape3, dtype)
    outer, d, inner = shape3
    # slabs of `rows` outer indices x `cols` inner indices, each about BLOCK elements
    cols = inner if d * inner <= BLOCK else max(1, BLOCK // d)
    rows = max(1, BLOCK // (d * cols))
    half = dtype != F32
    if inner == 1:  # rows are contiguous: reduce along the last axis (NumPy's fast reduction)
        g3, y3, result3 = g3[:, :, 0], y3[:, :, 0], result[:, :, 0]
        axis = 1
    else:
        result3, axis = result, 1
    with np.errstate(all="ignore"):
        for i in range(0, outer, rows):
            for j in range(0, inner, cols):
                index = (slice(i, i + rows), slice(None)) + ((slice(j, j + cols),) if inner != 1 else ())
                g, y, res = g3[index], y3[index], result3[index]
                if half:  # widen the slab once; float32 slabs are used in place
                    g, y = widen(g), widen(y)
                out = np.multiply(g, y) if half else np.multiply(g, y, out=res)
                s = out.sum(axis=axis, keepdims=True, dtype=F32)
                np.subtract(g, s, out=out)
                np.multiply(out, y, out=out)
                if half:
                    store(out, res)
    return result.reshape(shape)


@_accel.jit(fastmath={"reassoc"})
def _dot(g, y):
    """``sum(g * y)`` of float32 products in float64 (any order: ``reassoc`` lets it vectorise)."""
    s = 0.0
    for k in range(g.size):
        s += np.float64(as_f32(g[k]) * as_f32(y[k]))
    return s


_NARROW_ROW = 4096  # longest contiguous row of a half-type tensor whose dot product is summed in float32


@_accel.jit(fastmath={"reassoc"})
def _dot32(g, y):
    """``sum(g * y)`` in float32 (any order: ``reassoc`` lets LLVM keep 64 partial sums in vector lanes), for
    float16/bfloat16 rows of at most ``_NARROW_ROW`` elements: each lane then adds at most 64 terms (error
    about 4e-6 of ``sum|g*y|``, far below the result's half-type rounding, as NumPy's and PyTorch's float32
    sums), and the row is 1.3-1.4x faster than with float64 sums (float64 lanes are half as many)."""
    s = np.float32(0.0)
    for k in range(g.size):
        s += as_f32(g[k]) * as_f32(y[k])
    return s


@_accel.jit
def _softmax_compiled(g, y, out, outer, d, inner, acc, sums, narrow):
    """The same formula compiled: per outer index, ``s = sum_d(g*y)`` (float32 products summed in float64,
    rounded to float32; summed in float32 when ``narrow``, see :func:`_dot32`), then ``(g - s) * y`` rounded
    once; ``acc`` holds the float64 sums of a chunk of columns, ``sums`` (float32, as long) their roundings."""
    for o in range(outer):
        base = o * d * inner
        if inner == 1:
            gs, ys, os = g[base : base + d], y[base : base + d], out[base : base + d]
            s = _dot32(gs, ys) if narrow else np.float32(_dot(gs, ys))
            for k in range(d):
                put(os, k, (as_f32(gs[k]) - s) * as_f32(ys[k]))
            continue
        for j0 in range(0, inner, acc.size):  # columns in chunks of acc.size (bounded scratch, in cache)
            m = min(acc.size, inner - j0)
            acc[:m] = 0.0
            k = 0
            while k + 4 <= d:  # four rows per sweep of acc: the same additions in the same order, a quarter
                lo = base + k * inner + j0  # of the loads and stores of acc (1.2x faster at 16 x 262144)
                g0, y0 = g[lo : lo + m], y[lo : lo + m]
                g1, y1 = g[lo + inner : lo + inner + m], y[lo + inner : lo + inner + m]
                g2, y2 = g[lo + 2 * inner : lo + 2 * inner + m], y[lo + 2 * inner : lo + 2 * inner + m]
                g3, y3 = g[lo + 3 * inner : lo + 3 * inner + m], y[lo + 3 * inner : lo + 3 * inner + m]
                for j in range(m):
                    a = acc[j] + np.float64(as_f32(g0[j]) * as_f32(y0[j]))
                    a += np.float64(as_f32(g1[j]) * as_f32(y1[j]))
                    a += np.float64(as_f32(g2[j]) * as_f32(y2[j]))
                    acc[j] = a + np.float64(as_f32(g3[j]) * as_f32(y3[j]))
                k += 4
            for r in range(k, d):
                lo = base + r * inner + j0
                gs, ys = g[lo : lo + m], y[lo : lo + m]
                for j in range(m):
                    acc[j] += np.float64(as_f32(gs[j]) * as_f32(ys[j]))
            for j in range(m):  # the sums rounded once, not once per row
                sums[j] = np.float32(acc[j])
            for k in range(d):
                lo = base + k * inner + j0
                gs, ys, os = g[lo : lo + m], y[lo : lo + m], out[lo : lo + m]
                for j in range(m):
                    put(os, j, (as_f32(gs[j]) - sums[j]) * as_f32(ys[j]))


def cost(grad_output, output, dim) -> Cost:
    """Output plus a few float32 slabs; 5 operations per element."""
    n = numel(np.shape(grad_output))
    item = getattr(getattr(grad_output, "dtype", None), "itemsize", 4)
    return Cost(bytes=n * item + 4 * 4 * BLOCK, ops=5 * n, param="gradOutput")
