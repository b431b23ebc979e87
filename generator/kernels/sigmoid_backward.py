"""NumPy reference kernel for ``aclnnSigmoidBackward`` (golden: ``torch.ops.aten.sigmoid_backward``).

Conventions
-----------
``sigmoid_backward(grad_output, output)`` with ``g`` an element of ``grad_output`` and ``y`` the matching
element of ``output`` (the forward sigmoid's result), after broadcasting the two shapes::

    gradInput = g * (1 - y) * y                 (real dtypes)
    gradInput = g * conj((1 - y) * y)           (complex dtypes)

dtypes, shapes (from the op_api code, aclnn_sigmoid_backward.cpp and sigmoid_grad.cpp):

* ``grad_output`` and ``output`` are each FLOAT, FLOAT16, BFLOAT16, DOUBLE, COMPLEX64 or COMPLEX128; they
  are promoted with CANN's ``PromoteType`` (e.g. FLOAT16 x FLOAT -> FLOAT, BFLOAT16 x FLOAT16 -> FLOAT,
  FLOAT x COMPLEX64 -> COMPLEX64), both are cast to the promoted dtype and the result has it (the binding
  then casts it to ``gradInput``'s dtype).  FLOAT16 / BFLOAT16 are computed in float32 and rounded once,
  DOUBLE in float64, the complex types in their own precision (the AI CPU kernel, called with
  ``complex_conj = true``, conjugates the derivative as PyTorch does).
* The two shapes broadcast (NumPy rule); the result has the broadcast shape.  Ranks 0-8 (the doc says
  1-8; the code only caps the rank at 8).
* Empty inputs give an empty result of the broadcast shape (the op returns before computing).

Readings chosen where sources are silent
----------------------------------------
* The order of the real multiplications is PyTorch's (``(g * (1 - y)) * y``), which keeps float32 results
  bit-identical to the golden; the device order is not visible in op_api.
* Products: BFLOAT16 is rejected by the validator on 910/310P; the arithmetic is the same everywhere.
"""

from __future__ import annotations

import functools

import numpy as np

from generator.kernels import _accel
from generator.kernels._accel import fma
from generator.kernels._common import Cost
from generator.kernels._pointwise import (
    BLOCK,
    blocked_map,
    broadcast_shape,
    check_inputs,
    compute_dtype,
    driver,
    fused,
    itemsize,
    numel,
)
from generator.kernels._pointwise import promote as promote_dtypes

__all__ = ["cost", "sigmoid_backward"]

_SUPPORTED = ("FLOAT", "FLOAT16", "BFLOAT16", "DOUBLE", "COMPLEX64", "COMPLEX128")


def _real(blocks, out, tmps) -> None:
    g, y = blocks
    one = out.dtype.type(1)
    np.subtract(one, y, out=out)
    np.multiply(g, out, out=out)
    np.multiply(out, y, out=out)


def _complex(blocks, out, tmps) -> None:
    g, y = blocks
    one = out.dtype.type(1)
    np.subtract(one, y, out=out)
    np.multiply(out, y, out=out)
    np.conjugate(out, out=out)
    np.multiply(g, out, out=out)


@_accel.jit(inline=True)
def _fused_chain(g, y, params):
    """:func:`_real` for one element (float32, or float64 in the exact loop; same order: ``(g * (1 - y)) * y``)."""
    return (g * (np.float32(1.0) - y)) * y


@_accel.jit(inline=True)
def _complex_chain(g, y, params):
    """:func:`_complex` for one element, on the parts (``params``: 1 and 0 in the parts' type).  Each part of a
    complex product is one fused multiply-add, as in NumPy's SIMD complex multiply: ``(a + bi)(c + di) =
    fma(a, c, -(b * d)) + fma(a, d, b * c) i`` (checked against NumPy in the tests)."""
    one, zero = params
    yr, yi = y.real, y.imag
    ur, ui = one - yr, zero - yi  # 1 - y
    dr, di = fma(ur, yr, -(ui * yi)), -fma(ur, yi, ui * yr)  # conj((1 - y) * y)
    gr, gi = g.real, g.imag
    return complex(fma(gr, dr, -(gi * di)), fma(gr, di, gi * dr))


_FUSED = driver(_fused_chain, 2)
_EXACT = driver(_fused_chain, 2, exact=True)
_COMPLEX = driver(_complex_chain, 2, exact=True)


@functools.lru_cache(maxsize=256)
def _decide(grad_dtype, output_dtype, grad_ndim: int, output_ndim: int) -> tuple:
    """``(result dtype, compiled loop, its params)`` of a call's dtypes and ranks (cached); raises for bad ones."""
    check_inputs((("grad_output", grad_dtype, grad_ndim), ("output", output_dtype, output_ndim)), _SUPPORTED)
    dtype = promote_dtypes(grad_dtype, output_dtype)
    if dtype.kind == "c":
        part = np.finfo(dtype).dtype.type
        return dtype, _COMPLEX, (part(1), part(0))
    return dtype, (_EXACT if dtype == np.float64 else _FUSED), ()


def sigmoid_backward(grad_output, output) -> np.ndarray:
    """Gradient of the sigmoid from its output; see the module docstring."""
    grad_output = np.asarray(grad_output)
    output = np.asarray(output)
    dtype, loop, params = _decide(grad_output.dtype, output.dtype, grad_output.ndim, output.ndim)
    out = fused(loop, (grad_output, output), dtype, params)
    if out is not None:
        return out
    fn = _complex if dtype.kind == "c" else _real
    with np.errstate(all="ignore"):
        return blocked_map(fn, [grad_output, output], dtype, compute=compute_dtype(dtype))


def cost(grad_output, output) -> Cost:
    """Output plus cache-sized blocks; 3 operations per output element."""
    n = numel(broadcast_shape(np.shape(grad_output), np.shape(output)))
    item = max(itemsize(grad_output), itemsize(output))
    return Cost(bytes=n * item + 3 * 16 * BLOCK, ops=3 * n, param="gradOutput")
