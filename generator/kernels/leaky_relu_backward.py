"""NumPy reference kernel for ``aclnnLeakyReluBackward`` (golden: ``torch.ops.aten.leaky_relu_backward``).

Conventions
-----------
``leaky_relu_backward(grad_output, self, negative_slope, self_is_result)`` with ``g`` an element of
``grad_output`` and ``x`` the matching element of ``self`` (after broadcasting)::

    out = g                    if x > 0
    out = g * negative_slope   otherwise (x <= 0, including -0.0 and NaN)

``self_is_result`` says whether ``self`` holds the forward input or the forward output; with a
non-negative slope the sign of ``x`` is the same either way, so the formula does not change.  A negative
slope with ``self_is_result`` true is rejected (161002 in the op, ValueError here), as in PyTorch.

dtypes, shapes (from the op_api code, aclnn_leaky_relu_backward.cpp and leaky_relu_grad.cpp):

* ``grad_output`` and ``self`` are each FLOAT, FLOAT16, DOUBLE or BFLOAT16 (BFLOAT16 on A2/A3/950 only)
  and are promoted with CANN's ``PromoteType``; both are cast to the promoted dtype, ``LeakyReluGrad`` runs
  in it (AI Core for FLOAT/FLOAT16/BFLOAT16, AI CPU for DOUBLE) and the result has it (the binding then
  casts to ``out``'s dtype).  FLOAT16 / BFLOAT16 are computed in float32 and rounded once, DOUBLE in
  float64.
* ``negative_slope`` is an aclScalar (any of FLOAT, FLOAT16, DOUBLE, INT8/16/32/64, UINT8, BOOL,
  BFLOAT16); the op checks its sign with ``ToDouble()`` but hands the kernel ``ToFloat()``: the slope is
  rounded to float32 before use, also for DOUBLE tensors.
* The shapes broadcast (NumPy rule); the result has the broadcast shape.  Ranks 0-8.
* Empty inputs give an empty result of the broadcast shape.

Readings chosen where sources are silent
----------------------------------------
* NaN in ``self`` takes the slope branch (``NaN > 0`` is false), as in PyTorch.
* PyTorch keeps a DOUBLE slope in double precision; CANN's attribute is float32.  This kernel follows
  CANN (a slope such as 0.1 differs from PyTorch's DOUBLE result in the 8th digit).
"""

from __future__ import annotations

import functools

import numpy as np

from generator.kernels import _accel
from generator.kernels._common import Cost
from generator.kernels._pointwise import (
    BLOCK,
    blend,
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

__all__ = ["cost", "leaky_relu_backward"]

_SUPPORTED = ("FLOAT", "FLOAT16", "DOUBLE", "BFLOAT16")


@_accel.jit(inline=True)
def _fused_chain(g, x, params):
    """The chain for one element in float32: ``g * slope`` where ``x <= 0`` or NaN, ``g`` elsewhere."""
    return g if x > np.float32(0.0) else g * params[0]


_FUSED = driver(_fused_chain, 2)
_EXACT = driver(_fused_chain, 2, exact=True)  # float64: ``g * slope`` in float64 (the float32 slope widened)


@functools.lru_cache(maxsize=256)
def _decide(grad_dtype, self_dtype, grad_ndim: int, self_ndim: int) -> tuple:
    """``(result dtype, compiled loop)`` of a call's dtypes and ranks (cached); raises for bad ones."""
    check_inputs((("grad_output", grad_dtype, grad_ndim), ("self", self_dtype, self_ndim)), _SUPPORTED)
    dtype = promote_dtypes(grad_dtype, self_dtype)
    return dtype, (_EXACT if dtype == np.float64 else _FUSED)


@functools.lru_cache(maxsize=256)
def _slope(negative_slope: float, self_is_result: bool) -> np.float32:
    """The slope rounded to float32 (the kernel's attribute); raises for a negative slope on a result."""
    if self_is_result and negative_slope < 0:
        raise ValueError("negative_slope must be >= 0 when self_is_result is true")
    return np.float32(negative_slope)


def leaky_relu_backward(grad_output, self, negative_slope, self_is_result) -> np.ndarray:
    """Gradient of leaky ReLU; see the module docstring."""
    grad_output = np.asarray(grad_output)
    self = np.asarray(self)
    dtype, loop = _decide(grad_output.dtype, self.dtype, grad_output.ndim, self.ndim)
    slope32 = _slope(float(negative_slope), bool(self_is_result))
    out = fused(loop, (grad_output, self), dtype, (slope32,))
    if out is not None:
        return out
    compute = compute_dtype(dtype)
    slope = compute.type(slope32)  # float32 -> float64 is exact

    def chain(blocks, out, tmps) -> None:
        g, x = blocks
        np.multiply(g, slope, out=out)
        blend(out, g, out, np.greater(x, 0))

    with np.errstate(all="ignore"):
        return blocked_map(chain, [grad_output, self], dtype, compute=compute)


def cost(grad_output, self, negative_slope, self_is_result) -> Cost:
    """Output plus cache-sized blocks; 3 operations per output element."""
    n = numel(broadcast_shape(np.shape(grad_output), np.shape(self)))
    item = max(itemsize(grad_output), itemsize(self))
    return Cost(bytes=n * item + 4 * 8 * BLOCK, ops=3 * n, param="gradOutput")
