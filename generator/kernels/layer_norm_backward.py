"""NumPy reference kernel for ``aclnnLayerNormBackward`` (golden: ``torch.ops.aten.native_layer_norm_backward``).

Formula
-------
``input`` has shape ``[A1..Ai, R1..Rj]``; the last ``j = len(normalized_shape)`` axes are normalised.  With
``M = A1*..*Ai`` rows of ``N = R1*..*Rj`` elements, ``mean``/``rstd`` holding one value per row, ``w`` the
weight (ones when ``weight_optional`` is null) and ``xhat = (input - mean) * rstd``::

    gradInput  = rstd * (g*w - mean_R(g*w) - xhat * mean_R(g*w*xhat))
    gradWeight = sum_M(g * xhat)
    gradBias   = sum_M(g)

``output_mask`` (three bools) selects the outputs; an unrequested output is returned as ``None``.
``bias_optional`` never enters the computation (CANN only checks its dtype and shape).

Conventions (CANN op_api ``aclnn_layer_norm_backward.cpp``)
-------------------------------------------------------------
* dtypes: ``grad_out`` and ``input`` share one of float32/float16/bfloat16; ``mean``/``rstd`` may have any of
  the three (A2/A3 and 950 cast them to float32 before the fused kernel, so do we); ``weight_optional`` has
  the dtype of ``input`` or float32.  Everything is computed in float32 (float64 when ``input`` is float64)
  and rounded once: ``gradInput`` to the dtype of ``input``; ``gradWeight``/``gradBias`` are returned as
  float32 (the fused kernel produces float32 and the op casts to the output tensors' dtypes).  On 950 the
  fused kernel may write them directly in the weight dtype; computing in float32 and rounding once
  gives the same values.
* Shapes: ``M`` and ``N`` come from ``input``'s shape, as in the op (``beginAxis = rank - len(normalized_shape)``).
  ``mean`` and ``rstd`` may have any shape with ``M`` elements (the op compares only element counts).
  The op's comparison of ``normalized_shape`` with the trailing dims of ``input`` does not look at every
  entry, so it can let a mismatching ``normalized_shape`` through; this kernel raises ``ValueError``
  when the product of ``normalized_shape`` or the size of the weight differs from ``N``, because the device
  would then read a weight of the wrong length (result undefined).
* Empty tensors: ``M == 0`` -> gradInput is empty, gradWeight/gradBias are zeros (the op fills them with
  0); ``N == 0`` -> every output is empty.  All three masks false -> ``(None, None, None)``.  Both return
  before the ``normalized_shape`` / weight / bias sizes are compared with ``N`` (the op reads none of them
  then).
* Non-finite values propagate as IEEE arithmetic does (no special casing).

Implementation: rows are processed in cache-sized blocks (a loop over blocks, never over elements).  Per
block, ``xc = x - mean`` and ``q = g * xc`` are formed once; every reduction is then a matrix-vector
product on the cached block (row sums ``g @ w`` and ``q @ w``, column sums ``rstd @ q`` and ``1 @ g``), and
``gradInput`` is assembled as ``rstd*w*g + k1*xc + k0`` with per-row coefficients ``k1 = -rstd^2*b/N``,
``k0 = -rstd*a/N`` (algebraically the formula above; centring first keeps it free of cancellation).
Column sums are accumulated across blocks in float64.
"""

from __future__ import annotations

import numpy as np

from generator.kernels import _accel
from generator.kernels._accel import as_f32, put
from generator.kernels._common import FLOAT_DTYPES, Cost

__all__ = ["cost", "layer_norm_backward"]

_BLOCK = 1 << 17  # elements per block (512 KiB per float32 temporary)
_FLOAT64 = np.dtype(np.float64)
_FLOAT32 = np.dtype(np.float32)
_ACCEPTED = frozenset((*FLOAT_DTYPES, _FLOAT64))  # (dtypes hash as they compare)


def _check_dtype(name: str, array: np.ndarray) -> None:
    if array.dtype not in _ACCEPTED:
        raise TypeError(f"{name}: dtype {array.dtype} is not one of float32, float16, bfloat16")


def _mask(output_mask) -> tuple[bool, bool, bool]:
    values = [bool(v) for v in output_mask]
    if len(values) != 3:
        raise ValueError(f"output_mask must have 3 entries, got {len(values)}")
    return values[0], values[1], values[2]


def _geometry(input_shape, normalized_shape) -> tuple[int, int, int]:
    """-> (begin_axis, M, N) from the input shape and the length of ``normalized_shape``."""
    norm = [int(v) for v in normalized_shape]
    if not norm:
        raise ValueError("normalized_shape must not be empty")
    if len(norm) > len(input_shape):
        raise ValueError(f"normalized_shape {norm} is longer than input rank {len(input_shape)}")
    begin = len(input_shape) - len(norm)
    m = 1
    for v in input_shape[:begin]:
        m *= int(v)
    n = 1
    for v in input_shape[begin:]:
        n *= int(v)
    return begin, m, n


def _check_normalized_shape(input_shape, normalized_shape, begin: int, n: int) -> None:
    """The device reads a weight of ``normalized_shape``: it must hold the ``N`` elements of a row."""
    norm = [int(v) for v in normalized_shape]
    norm_size = 1
    for v in norm:
        norm_size *= v
    if norm_size != n:
        raise ValueError(
            f"normalized_shape {norm} does not describe the trailing dims {tuple(input_shape[begin:])} of input"
        )


def layer_norm_backward(grad_out, input, normalized_shape, mean, rstd, weight_optional, bias_optional, output_mask):  # noqa: A002  (``input`` is the doc's parameter name)
    """Gradients of LayerNorm -> ``(gradInput | None, gradWeight | None, gradBias | None)``."""
    grad_out = np.asarray(grad_out)
    input = np.asarray(input)  # noqa: A001
    mean = np.asarray(mean)
    rstd = np.asarray(rstd)
    for name, arr in (("grad_out", grad_out), ("input", input), ("mean", mean), ("rstd", rstd)):
        _check_dtype(name, arr)
    if grad_out.dtype != input.dtype:
        raise TypeError(f"grad_out dtype {grad_out.dtype} differs from input dtype {input.dtype}")
    if grad_out.shape != input.shape:
        raise ValueError(f"shape mismatch: grad_out {grad_out.shape} vs input {input.shape}")
    want_dx, want_dw, want_db = _mask(output_mask)
    if not (want_dx or want_dw or want_db):
        return None, None, None  # the op returns after its checks without computing anything
    begin, m, n = _geometry(input.shape, normalized_shape)
    if mean.size != m or rstd.size != m:
        raise ValueError(f"mean and rstd must hold {m} elements (one per row), got {mean.size} and {rstd.size}")
    if weight_optional is not None:
        weight_optional = np.asarray(weight_optional)
        _check_dtype("weight_optional", weight_optional)

    compute = _FLOAT64 if input.dtype == _FLOAT64 else np.dtype(np.float32)
    param_shape = input.shape[begin:]
    if m == 0 or n == 0:  # the op fills gradWeight/gradBias with 0 before reading weight or bias
        dx = np.zeros(input.shape, input.dtype) if want_dx else None
        dw = np.zeros(param_shape, compute) if want_dw else None
        db = np.zeros(param_shape, compute) if want_db else None
        return dx, dw, db
    _check_normalized_shape(input.shape, normalized_shape, begin, n)
    if weight_optional is not None and weight_optional.size != n:
        raise ValueError(f"weight_optional must hold {n} elements, got shape {weight_optional.shape}")
    if bias_optional is not None and np.asarray(bias_optional).size != n:
        raise ValueError(f"bias_optional must hold {n} elements, got shape {np.asarray(bias_optional).shape}")

    fast = _compiled(grad_out, input, mean, rstd, weight_optional, m, n, want_dx, want_dw, want_db)
    if fast is not None:
        dx, dw, db = fast
        return dx, (None if dw is None else dw.reshape(param_shape)), (None if db is None else db.reshape(param_shape))
    g = np.ascontiguousarray(grad_out, dtype=compute).reshape(m, n)
    x = np.ascontiguousarray(input, dtype=compute).reshape(m, n)
    mu = np.ascontiguousarray(mean, dtype=compute).reshape(m, 1)
    rs = np.ascontiguousarray(rstd, dtype=compute).reshape(m, 1)
    w = None if weight_optional is None else np.ascontiguousarray(weight_optional, dtype=compute).reshape(n)

    if w is None:
        w = np.ones(n, dtype=compute)
    dx = np.empty((m, n), dtype=input.dtype) if want_dx else None
    dw_acc = np.zeros(n, dtype=np.float64)
    db_acc = np.zeros(n, dtype=np.float64)
    rows = max(1, min(m, _BLOCK // n))
    xc = np.empty((rows, n), dtype=compute)
    q = np.empty((rows, n), dtype=compute)
    ones = np.ones(rows, dtype=compute)
    with np.errstate(all="ignore"):
        for r0 in range(0, m, rows):
            r1 = min(m, r0 + rows)
            k = r1 - r0
            gb, xcb, qb, rsb = g[r0:r1], xc[:k], q[:k], rs[r0:r1, 0]
            np.subtract(x[r0:r1], mu[r0:r1], out=xcb)  # x - mean
            np.multiply(gb, xcb, out=qb)  # g * (x - mean)
            if want_dw:
                dw_acc += rsb @ qb  # sum over rows of g * xhat
            if want_db:
                db_acc += ones[:k] @ gb
            if not want_dx:
                continue
            # dx = rstd*w*g - rstd*a/N - rstd^2*(b/N)*(x - mean), a = sum_R(g*w), b = sum_R(g*w*xhat)
            a = gb @ w
            b = rsb * (qb @ w)
            k1 = (-(rsb * rsb) * b / n).astype(compute)
            k0 = (-rsb * a / n).astype(compute)
            t = qb  # reuse: g*(x-mean) is no longer needed
            np.multiply(gb, w, out=t)
            np.multiply(t, rsb[:, None], out=t)
            np.multiply(xcb, k1[:, None], out=xcb)
            np.add(t, xcb, out=t)
            np.add(t, k0[:, None], out=dx[r0:r1], casting="unsafe")  # rounds to the input dtype once
    out_dx = dx.reshape(input.shape) if want_dx else None
    out_dw = dw_acc.astype(compute).reshape(param_shape) if want_dw else None
    out_db = db_acc.astype(compute).reshape(param_shape) if want_db else None
    return out_dx, out_dw, out_db


def _compiled(grad_out, input, mean, rstd, weight, m, n, want_dx, want_dw, want_db):  # noqa: A002
    """The same computation compiled (``_accel``), one row at a time (the row stays in cache between its two
    passes): no float32 copies of half inputs, no temporaries; row sums in float32 lanes, column sums in
    float32 over at most ``_FLUSH`` rows, then float64.  None when the call does not qualify (Numba off,
    float64).

    At small sizes the Python side is a fair part of the call, so it is kept to views: ``ready`` arrays
    (C-contiguous, aligned, writeable) flattened with ``ravel`` and the dispatcher called directly (no
    NumPy error state either: the compiled loop does not consult it)."""
    dtype = input.dtype
    if dtype == _FLOAT64 or not _accel.enabled():
        return None
    # A strided, unaligned or read-only view (the CANN backend's device memory) is copied, so the result
    # does not depend on how the same values are laid out.
    ready, f32 = _accel.ready, _FLOAT32
    g, x = ready(grad_out).ravel(), ready(input).ravel()
    mu, rs = ready(mean, f32).ravel(), ready(rstd, f32).ravel()
    w = np.ones(n, f32) if weight is None else ready(weight, f32).ravel()
    dx = np.empty(input.shape if want_dx else 0, dtype)
    flat_dx = dx.ravel()
    bits = _accel.HALF_STORAGE.get(dtype)
    if bits is not None:
        g, x, flat_dx = g.view(bits), x.view(bits), flat_dx.view(bits)
    dw = np.zeros(n, _FLOAT64)
    db = np.zeros(n, _FLOAT64)
    _rows_compiled.dispatcher()(g, x, mu, rs, w, m, n, want_dx, want_dw, want_db, flat_dx, dw, db)
    return (
        dx if want_dx else None,
        dw.astype(f32) if want_dw else None,
        db.astype(f32) if want_db else None,
    )


@_accel.jit(fastmath={"reassoc", "contract"})
def _row_pass(g, x, w, mu, rs, dw32, db32):
    """One row, one pass over its elements: the column sums ``dw32 += rstd*(g*(x - mean))`` and ``db32 += g``
    and the row sums ``(sum(g*w), sum(g*(x - mean)*w))``, all in float32 as PyTorch's kernel (sums in any
    order: ``reassoc`` lets the loop vectorise into float32 lanes, each lane summing a strided share of the
    row). The row sums are returned as float64 for the coefficients. Float64 row sums (half as many lanes)
    made the loop compute-bound: 1.4x slower for the half types, with the same error against a float64
    reference (the result's rounding dominates it, also at 2^20 columns)."""
    a = np.float32(0.0)
    b = np.float32(0.0)
    for j in range(w.size):
        gv = as_f32(g[j])
        q = gv * (as_f32(x[j]) - mu)
        dw32[j] += rs * q
        db32[j] += gv
        a += gv * w[j]
        b += q * w[j]
    return np.float64(a), np.float64(b)


_FLUSH = 64  # rows summed in float32 before the column sums are added to their float64 totals (as NumPy's blocks)


@_accel.jit(fastmath={"contract"})  # multiply-adds: about 5% faster, each within the float32 rounding
def _rows_compiled(g, x, mu, rs, w, m, n, want_dx, want_dw, want_db, dx, dw, db):
    """Two passes per row (the row stays in cache between them), as PyTorch's kernel: :func:`_row_pass` (column
    sums in float32 over at most ``_FLUSH`` rows, then float64; the row sums), then ``gradInput = ((g*w)*rstd +
    (x - mean)*k1) + k0`` with the NumPy path's per-row coefficients, rounded once. The loops run over row
    slices without branches, so LLVM vectorises them. (Column sums nobody asked for are formed anyway: cheaper
    than a third pass.)"""
    inv_n = 1.0 / n
    dw32 = np.zeros(n, np.float32)
    db32 = np.zeros(n, np.float32)
    for i in range(m):
        gs, xs = g[i * n : (i + 1) * n], x[i * n : (i + 1) * n]
        mi, ri = mu[i], rs[i]
        a, b = _row_pass(gs, xs, w, mi, ri, dw32, db32)
        if (i + 1) % _FLUSH == 0 or i == m - 1:
            for j in range(n):
                dw[j] += np.float64(dw32[j])
                db[j] += np.float64(db32[j])
                dw32[j] = np.float32(0.0)
                db32[j] = np.float32(0.0)
        if not want_dx:
            continue
        r64 = np.float64(ri)
        k1 = np.float32(-(r64 * r64) * (r64 * b) * inv_n)
        k0 = np.float32(-r64 * a * inv_n)
        ds = dx[i * n : (i + 1) * n]
        for j in range(n):
            put(ds, j, ((as_f32(gs[j]) * w[j]) * ri + (as_f32(xs[j]) - mi) * k1) + k0)


def cost(grad_out, input, normalized_shape, mean, rstd, weight_optional, bias_optional, output_mask) -> Cost:  # noqa: A002
    """Float32 copies of grad_out and input, the output and three block temporaries; ~12 ops per element."""
    size = 1
    for v in input.shape:
        size *= int(v)
    block = 3 * 4 * _BLOCK
    return Cost(bytes=3 * 4 * size + block, ops=12 * size, param="input")
