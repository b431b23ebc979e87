"""NumPy reference kernel for ``aclnnHardtanhBackward`` (golden: ``torch.ops.aten.hardtanh_backward``).

Conventions
-----------
``hardtanh_backward(grad_output, self, min, max)`` with ``g`` an element of ``grad_output`` and ``x`` the
matching element of ``self`` (the forward input)::

    out = 0   if x <= min or x >= max
    out = g   otherwise (min < x < max, and x = NaN)

dtypes, shapes (from the op_api code, aclnn_hardtanh_backward.cpp):

* ``grad_output`` and ``self`` have the same dtype, FLOAT, FLOAT16 or BFLOAT16 (BFLOAT16 on A2/A3/950
  only), and the same shape (no broadcasting), rank 0-8.  The result has that dtype and shape.
* ``min`` and ``max`` are aclScalars read with ``ToFloat()``: they are rounded to float32 and the
  comparison is done in float32 (half-type ``x`` widens exactly).  The gradient is selected, never
  multiplied, so the result is bit-exact in every dtype (``g = inf`` stays inf, zeroed lanes are +0.0).
* Empty tensors give an empty result.

Readings chosen where sources disagree
--------------------------------------
* Boundaries: the doc's formula keeps the gradient on the closed interval ``[min, max]`` (it zeroes only
  ``x > max`` and ``x < min``); PyTorch and the ``HardtanhGrad`` kernel (which clamps ``x`` into
  ``[min, max]`` and zeroes lanes where the clamped value touches a bound) zero ``x == min`` and
  ``x == max`` too.  This kernel follows the kernel and PyTorch: open interval.
* ``min > max``: every finite or infinite ``x`` is zeroed (``x <= min`` or ``x >= max`` always holds);
  the op does not reject it and neither does this kernel.
* NaN in ``self`` passes the gradient (both comparisons are false), as in PyTorch.
* ``out``'s dtype is checked only against the support list by the op (it need not equal ``self``'s);
  this kernel returns ``self``'s dtype and the binding casts.
"""

from __future__ import annotations

import functools

import numpy as np

from generator.kernels import _accel
from generator.kernels._common import Cost
from generator.kernels._pointwise import BLOCK, F32, blocked_map, check_inputs, driver, fused, numel, zero_where

__all__ = ["cost", "hardtanh_backward"]


@_accel.jit(inline=True)
def _drop(x, params):
    """True where the gradient is zeroed (``x`` in float32, the bounds as float32)."""
    lo, hi = params
    return (x <= lo) | (x >= hi)


_FUSED = driver(_drop, 2, select=True)


@functools.lru_cache(maxsize=256)
def _check(grad_dtype, self_dtype, grad_ndim: int, self_ndim: int) -> None:
    """Raise for dtypes or ranks the op rejects (cached: accepted combinations return at once)."""
    check_inputs((("grad_output", grad_dtype, grad_ndim), ("self", self_dtype, self_ndim)), same_dtype=True)


@functools.lru_cache(maxsize=256)
def _bounds(low: float, high: float) -> tuple:
    """The bounds as float32 (the kernel's attributes)."""
    return np.float32(low), np.float32(high)


def hardtanh_backward(grad_output, self, min, max) -> np.ndarray:  # noqa: A002  (doc names)
    """Gradient of hardtanh; see the module docstring."""
    grad_output = np.asarray(grad_output)
    self = np.asarray(self)
    _check(grad_output.dtype, self.dtype, grad_output.ndim, self.ndim)
    if grad_output.shape != self.shape:
        raise ValueError(f"shape mismatch: grad_output {grad_output.shape} vs self {self.shape}")
    bounds = _bounds(float(min), float(max))
    dtype = grad_output.dtype
    out = fused(_FUSED, (grad_output, self), dtype, bounds, select=True)
    if out is not None:
        return out
    lo, hi = bounds

    def chain(blocks, out, tmps) -> None:
        g, x = blocks
        drop = np.less_equal(x, lo)
        drop |= np.greater_equal(x, hi)
        zero_where(out, g, drop)

    return blocked_map(chain, [grad_output, self], dtype, compute=dtype, load=[dtype, F32])


def cost(grad_output, self, min, max) -> Cost:  # noqa: A002
    """Output plus cache-sized blocks; 4 operations per element."""
    n = numel(np.shape(grad_output))
    item = getattr(getattr(grad_output, "dtype", None), "itemsize", 4)
    return Cost(bytes=n * item + 4 * 4 * BLOCK, ops=4 * n, param="gradOutput")
