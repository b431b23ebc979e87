"""NumPy reference kernel for ``aclnnEmbeddingDenseBackward`` (golden: ``torch.ops.aten.embedding_dense_backward``).

Conventions
-----------
``embedding_dense_backward(grad, indices, num_weights, padding_idx, scale_grad_by_freq, *, product=None)``.
``grad`` is ``(..., D)`` (rank 1-8) and ``indices`` holds one row index per row of ``grad`` (any shape with
``prod(grad.shape[:-1])`` elements).  The result is ``(num_weights, D)``::

    out[k] = sum of grad rows i with indices[i] == k                (k != padding_idx)
    out[k] = out[k] / count(k)          when scale_grad_by_freq, count(k) = occurrences of k in indices
    out[padding_idx] = 0                when 0 <= padding_idx < num_weights

dtypes (from the op_api code, aclnn_embedding_dense_backward.cpp and embedding_dense_grad.cpp):

* ``grad`` is FLOAT, FLOAT16 or BFLOAT16 (BFLOAT16 on A2/A3/950 only).  ``indices`` may be INT64, INT32,
  INT16, INT8, UINT8, BOOL, FLOAT, FLOAT16 or DOUBLE: the op casts non-integer indices to an integer type
  before use, which truncates toward zero (``1.9`` -> 1, ``-0.5`` -> 0).
* Sums are accumulated in float32 (half types widen exactly) and rounded once.
* Result dtype, per product (pass ``product``; the spec marks the kernel ``product_aware``):
  910 (and any product not named below, including ``product=None``): ``grad`` is cast to FLOAT first, the
  result is FLOAT; A2/A3 (``910b``, ``910_93``): FLOAT too, except when the op skips that cast (not
  ``scale_grad_by_freq``, at least 512 rows, and ``(grad elements + out elements) * 2 >= 100 MiB``), then
  ``grad``'s dtype; 950: ``grad``'s dtype.  The binding casts the result to ``out``'s dtype.
* Empty ``grad`` or ``indices`` (or ``D == 0``): an all-zero ``(num_weights, D)`` result, like the op's
  ZerosLike path.

Readings chosen where sources are silent
----------------------------------------
* ``padding_idx`` is a ``uint64_t`` in the C signature; the doc says a negative value disables padding.
  Any value outside ``[0, num_weights)`` (``-1``, ``2**64 - 1``, ``num_weights``) disables it here.
* An index outside ``[0, num_weights)`` (after truncation; NaN included) is undefined on the device
  (PyTorch's CPU kernel would write out of bounds or raise); this kernel raises IndexError.
* ``scale_grad_by_freq`` divides each accumulated row by its count once (PyTorch scales every grad row
  before adding); the two differ by rounding only.
* The device sums rows in index-sorted order; this kernel sums each row group in input order within
  blocks, so float32 results can differ in the last bits when an index repeats many times.

Implementation: the sums are formed in float32: in the result itself when it is FLOAT, otherwise only
for the rows the indices name (``np.unique``: sorted row numbers and each grad row's slot among them),
rounded once into the zero-filled result, so the only large allocation is the result, in its dtype
(compiled: one row-sized float32 buffer per run of equal indices after a stable sort of the indices).
Grad rows are processed in blocks of about
256 Ki elements: a stable argsort of the block's slots, a gather of its rows into a float32 buffer,
``np.add.reduceat`` over runs of equal slots and one fancy-indexed ``+=`` of the run sums.  With the
compiled helpers (``_accel``) the rows are instead added one by one in row order, straight from ``grad``
(half types converted in registers): the same float32 sums up to their order.
"""

from __future__ import annotations

import numpy as np

from generator.kernels import _accel
from generator.kernels._accel import as_f32, put
from generator.kernels._common import FLOAT_DTYPES, Cost
from generator.kernels._pointwise import F32, acl_name, numel, to_dtype, widen

__all__ = ["cost", "embedding_dense_backward"]

_INDEX_DTYPES = ("INT64", "INT32", "INT16", "INT8", "UINT8", "BOOL", "FLOAT", "FLOAT16", "DOUBLE")
_ROWS_ELEMENTS = 1 << 18  # elements of grad per block
_A2_A3 = ("910b", "910_93")
_NO_CAST_BYTES = 100 * 1024 * 1024
_NO_CAST_ROWS = 512


def _result_dtype(grad_dtype, rows: int, dim: int, num_weights: int, scale: bool, product) -> np.dtype:
    product = None if product is None else str(product)
    if grad_dtype == F32 or product == "950":
        return np.dtype(grad_dtype)
    if product in _A2_A3:
        small = (rows * dim + num_weights * dim) * 2 < _NO_CAST_BYTES
        if not (small or rows < _NO_CAST_ROWS or scale):
            return np.dtype(grad_dtype)
    return F32


def _as_rows(indices: np.ndarray, num_weights: int) -> np.ndarray:
    """Flat int64 row numbers, truncated toward zero; IndexError for anything outside [0, num_weights)."""
    flat = indices.reshape(-1)
    if flat.dtype.kind == "f":
        with np.errstate(invalid="ignore"):
            truncated = np.trunc(flat.astype(np.float64))
            bad = ~((truncated >= 0) & (truncated < num_weights))  # NaN fails both comparisons
        if bad.any():
            raise IndexError(f"index {flat[bad][0]} is out of range [0, {num_weights})")
        return truncated.astype(np.int64)
    rows = flat.astype(np.int64)
    bad = (rows < 0) | (rows >= num_weights)
    if bad.any():
        raise IndexError(f"index {int(rows[bad][0])} is out of range [0, {num_weights})")
    return rows


def embedding_dense_backward(grad, indices, num_weights, padding_idx, scale_grad_by_freq, *, product=None):
    """Gradient of an embedding lookup with respect to its weight table; see the module docstring."""
    grad, indices = np.asarray(grad), np.asarray(indices)
    if np.dtype(grad.dtype) not in FLOAT_DTYPES:
        raise TypeError(f"grad: dtype {grad.dtype} is not one of float32, float16, bfloat16")
    if acl_name(indices.dtype) not in _INDEX_DTYPES:
        raise TypeError(f"indices: dtype {indices.dtype} is not one of {', '.join(_INDEX_DTYPES)}")
    if not 1 <= grad.ndim <= 8 or indices.ndim > 8:
        raise ValueError(f"grad must have rank 1-8 and indices rank 0-8, got {grad.shape} and {indices.shape}")
    num_weights, padding_idx, scale = int(num_weights), int(padding_idx), bool(scale_grad_by_freq)
    if num_weights < 0:
        raise ValueError(f"num_weights must be >= 0, got {num_weights}")
    dim = grad.shape[-1]
    rows = numel(grad.shape[:-1])
    if dim != 0 and rows != indices.size:
        raise ValueError(f"grad {grad.shape} has {rows} rows but indices {indices.shape} has {indices.size} elements")
    dtype = _result_dtype(grad.dtype, rows, dim, num_weights, scale, product)
    out = np.zeros((num_weights, dim), dtype)
    if grad.size == 0 or indices.size == 0:
        return out
    rows_of = _as_rows(indices, num_weights)  # each grad row's row of the result
    if dtype != F32 and _accel.enabled():
        # compiled, half-type result: each named row summed in float32 in a row-sized buffer and
        # rounded once into the result; the only extra memory is the index sort
        order = np.argsort(rows_of, kind="stable")
        skip = padding_idx if 0 <= padding_idx < num_weights else -1
        grad2 = _accel.storage(_accel.ready(grad.reshape(rows, dim)))
        _sum_runs(grad2, order, rows_of[order], _accel.storage(out), skip, scale)
        return out
    if dtype == F32:
        sums = out
    else:  # float32 sums of the named rows only (sorted ``used``), rounded once into the zero result
        used, rows_of = np.unique(rows_of, return_inverse=True)
        rows_of = rows_of.reshape(-1)
        sums = np.zeros((used.size, dim), F32)
    grad2 = grad.reshape(rows, dim)
    step = max(1, _ROWS_ELEMENTS // dim)
    with np.errstate(all="ignore"):
        if _accel.enabled():  # compiled: rows added in order straight from grad (no sort, no float32 copy)
            _scatter_rows(_accel.storage(_accel.ready(grad2)), rows_of, sums)
        else:
            for start in range(0, rows, step):
                block_idx = rows_of[start : start + step]
                order = np.argsort(block_idx, kind="stable")
                sorted_idx = block_idx[order]
                values = widen(grad2[start : start + step][order])
                heads = np.flatnonzero(np.concatenate(([True], sorted_idx[1:] != sorted_idx[:-1])))
                sums[sorted_idx[heads]] += np.add.reduceat(values, heads, axis=0)
        if scale:
            counts = np.bincount(rows_of, minlength=sums.shape[0]).astype(F32)
            np.divide(sums, counts[:, None], out=sums, where=counts[:, None] > 0)
    if 0 <= padding_idx < num_weights:
        if sums is out:
            out[padding_idx] = 0
        else:
            sums[used == padding_idx] = 0
    if sums is not out:
        out[used] = to_dtype(sums, dtype)
    return out


@_accel.jit
def _scatter_rows(grad, idx, out):
    """``out[idx[r]] += grad[r]`` in row order, in float32 (``grad`` as an ``_accel.storage`` array)."""
    for r in range(idx.size):
        dst = out[idx[r]]
        src = grad[r]
        for j in range(src.size):
            dst[j] += as_f32(src[j])


@_accel.jit
def _sum_runs(grad, order, keys, out, skip, scale):
    """For each run of equal ``keys`` (the result rows of grad rows ``order``, sorted stably): the float32
    sum of those grad rows in row order (divided by the run's length when ``scale``), rounded once into
    ``out[key]``; the row ``skip`` stays zero. The same sums, in the same order, as ``_scatter_rows``."""
    n, dim = order.size, out.shape[1]
    acc = np.empty(dim, np.float32)
    i = 0
    while i < n:
        key = keys[i]
        acc[:] = 0
        j = i
        while j < n and keys[j] == key:
            src = grad[order[j]]
            for c in range(dim):
                acc[c] += as_f32(src[c])
            j += 1
        if key != skip:
            dst = out[key]
            if scale:
                count = np.float32(j - i)
                for c in range(dim):
                    put(dst, c, acc[c] / count)
            else:
                for c in range(dim):
                    put(dst, c, acc[c])
        i = j


def cost(grad, indices, num_weights, padding_idx, scale_grad_by_freq, *, product=None) -> Cost:
    """The result (at most float32), float32 sums of the named rows, the index arrays and one block;
    about 3 operations per grad element."""
    gshape = np.shape(grad)
    dim = int(gshape[-1]) if gshape else 1
    out = int(num_weights) * dim if int(num_weights) > 0 else 0
    nidx = numel(np.shape(indices))
    block = min(numel(gshape), _ROWS_ELEMENTS)
    return Cost(
        bytes=out * 4 + min(out, nidx * dim) * 4 * 2 + nidx * 40 + block * 8,
        ops=3 * numel(gshape) + out + nidx * 20,
        param="numWeights" if out >= numel(gshape) else "grad",
    )
