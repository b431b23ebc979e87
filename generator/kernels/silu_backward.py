"""NumPy reference kernel for ``aclnnSiluBackward`` (golden: ``torch.ops.aten.silu_backward``).

Conventions
-----------
``silu_backward(grad_output, self)`` with ``g`` an element of ``grad_output`` and ``x`` the matching element
of ``self`` (the forward input), after broadcasting::

    s = 1 / (1 + exp(-x))
    gradInput = g * s * (1 + x * (1 - s))

dtypes, shapes (from the op_api code, aclnn_silu_backward.cpp and silu_grad.cpp):

* ``grad_output`` and ``self`` are each FLOAT, FLOAT16 or BFLOAT16 (BFLOAT16 only on A2/A3/950).
* Same dtype: the result has that dtype.  Different dtypes (accepted only on 950, the "mixed precision"
  branch, which requires ``gradInput`` to be FLOAT): the ``SiluGrad`` kernel consumes both as they are and
  writes FLOAT.  This kernel therefore returns the common dtype, or float32 when the dtypes differ.
  Arithmetic is float32 in every case (half types are widened exactly), rounded once at the end.
* Shapes: 910/310P/A2/A3 require identical shapes; 950 broadcasts them (the validator decides); this
  kernel broadcasts with the NumPy rule, which covers both.  Ranks 0-8 (doc: 1-8; code caps at 8).
* Empty inputs give an empty result of the broadcast shape.

Readings chosen where sources are silent
----------------------------------------
* Order of operations and special values follow PyTorch's float32 formula: ``x = -inf`` gives
  ``s = 0`` and ``0 * (1 + -inf * 1)`` = NaN; ``x = +inf`` gives ``g * 1 * (1 + inf * 0)`` = NaN.
"""

from __future__ import annotations

import functools

import numpy as np

from generator.kernels import _accel
from generator.kernels._accel import exp32_normal
from generator.kernels._common import Cost
from generator.kernels._pointwise import BLOCK, F32, blocked_map, broadcast_shape, check_inputs, driver, fused, numel

__all__ = ["cost", "silu_backward"]


def _chain(blocks, out, tmps) -> None:
    g, x = blocks
    (s,) = tmps
    one = np.float32(1.0)
    np.negative(x, out=s)
    np.exp(s, out=s)
    np.add(s, one, out=s)
    np.divide(one, s, out=s)  # s = sigmoid(x)
    np.subtract(one, s, out=out)
    np.multiply(out, x, out=out)
    np.add(out, one, out=out)
    np.multiply(g, s, out=s)
    np.multiply(s, out, out=out)  # (g * s) * (1 + x * (1 - s)), PyTorch's association


@_accel.jit(inline=True)
def _fused_chain(g, x, params):
    """:func:`_chain` for one element (same float32 operations in the same order; ``exp32_normal`` for ``np.exp``)."""
    one = np.float32(1.0)
    s = one / (exp32_normal(-x) + one)  # exp(-x) below 2.7e-38 is exp32's 0 or tiny: s is 1 either way
    return (g * s) * ((one - s) * x + one)


_FUSED = driver(_fused_chain, 2, contract=True)


@functools.lru_cache(maxsize=256)
def _result_dtype(grad_dtype, self_dtype, grad_ndim: int, self_ndim: int) -> np.dtype:
    """The result dtype of a call's dtypes and ranks (cached); raises for the ones the op rejects."""
    check_inputs((("grad_output", grad_dtype, grad_ndim), ("self", self_dtype, self_ndim)))
    return grad_dtype if grad_dtype == self_dtype else F32


def silu_backward(grad_output, self) -> np.ndarray:
    """Gradient of SiLU (swish with beta 1); see the module docstring."""
    grad_output = np.asarray(grad_output)
    self = np.asarray(self)
    dtype = _result_dtype(grad_output.dtype, self.dtype, grad_output.ndim, self.ndim)
    out = fused(_FUSED, (grad_output, self), dtype)
    if out is not None:
        return out
    with np.errstate(all="ignore"):
        return blocked_map(_chain, [grad_output, self], dtype, compute=F32, scratch=1)


def cost(grad_output, self) -> Cost:
    """Output plus cache-sized float32 blocks; 9 operations per output element."""
    n = numel(broadcast_shape(np.shape(grad_output), np.shape(self)))
    return Cost(bytes=n * 4 + 5 * 4 * BLOCK, ops=9 * n, param="gradOutput")
