"""NumPy reference kernel for ``aclnnGeluBackward`` (golden: ``torch.ops.aten.gelu_backward(..., approximate="tanh")``).

Conventions
-----------
``gelu_backward(grad_output, self)`` with ``g`` an element of ``grad_output`` and ``x`` the matching element
of ``self`` (after broadcasting the two shapes against each other)::

    u  = sqrt(2/pi) * (x + 0.044715 * x**3)
    dx = 0.5 * (1 + tanh(u)) + 0.5 * x * (1 - tanh(u)**2) * sqrt(2/pi) * (1 + 3 * 0.044715 * x**2)
    gradInput = g * dx

i.e. the derivative of the tanh approximation of GELU, ``0.5*x*(1 + tanh(sqrt(2/pi)*(x + 0.044715*x**3)))``.

dtypes, shapes (from the op_api code, aclnn_gelu_backward.cpp):

* ``grad_output`` and ``self`` are promoted with CANN's ``PromoteType`` (an INT32 ``grad_output`` with a
  FLOAT ``self``, as in the doc's own sample, computes in FLOAT); the promoted dtype must be FLOAT,
  FLOAT16 or BFLOAT16 (anything else raises TypeError).  Both inputs are cast to it, the kernel runs in it
  and the result has that dtype (the binding then casts it to ``gradInput``'s dtype).  FLOAT16 and BFLOAT16
  are computed in float32 and rounded once.
* The two shapes broadcast (NumPy rule); the result has the broadcast shape.  Ranks up to 8.
* Empty inputs give an empty result of the broadcast shape (the op returns before computing).

Readings chosen where sources disagree
--------------------------------------
* Formula.  ``aclnnGeluBackward`` has no ``approximate`` parameter (``aclnnGeluBackwardV2`` adds one).  The
  doc prints the derivative of the exact, erf-based GELU and then the tanh approximation of the forward.
  The op_api launches the ``GeluGrad`` kernel on every product (910, 310P, A2/A3 through the broadcast path,
  950 through the regbase path, which broadcasts inside the kernel).  That device kernel is not part of
  the op_api sources; CANN's ``GeluGrad`` implementation evaluates the derivative of the tanh
  approximation, the formula above (the reason ``aclnnGeluBackwardV2`` exists, with ``approximate``
  "none" for the erf form).  This kernel follows the device kernel, not the doc's erf formula; the two
  differ by at most about 1e-3 * |g| (largest near |x| = 2).  Should a device run show the erf
  derivative, only ``_chain`` changes.
* ``GeluGrad``'s third input (the forward output) is unused: the op_api passes ``gradOutput`` there.
* Special values follow the IEEE float32 evaluation of the formula (PyTorch's order of operations):
  ``x = +-inf`` gives NaN (``inf * 0``), NaN propagates.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from generator.kernels import _accel
from generator.kernels._accel import tanh32
from generator.kernels._common import Cost
from generator.kernels._pointwise import (
    BLOCK,
    F32,
    acl_name,
    blocked_map,
    broadcast_shape,
    driver,
    fused,
    itemsize,
    numel,
    promote,
)

__all__ = ["cost", "gelu_backward"]

_SUPPORTED = ("FLOAT", "FLOAT16", "BFLOAT16")
_BETA = math.sqrt(2.0) * (2.0 / math.sqrt(math.pi)) * 0.5  # sqrt(2/pi)
_KAPPA = 0.044715


@functools.lru_cache(maxsize=256)
def _result_dtype(grad_dtype, self_dtype) -> np.dtype:
    """The promoted dtype of a call (cached); raises for the ones the op rejects."""
    dtype = promote(grad_dtype, self_dtype)
    if acl_name(dtype) not in _SUPPORTED:
        raise TypeError(f"promoted dtype {dtype} of grad_output and self is not FLOAT, FLOAT16 or BFLOAT16")
    return dtype


def _chain(blocks, out, tmps) -> None:
    # PyTorch's float32 formulation.  np.tanh may return 1 - 2**-24 instead of 1.0 where tanh(u) rounds to
    # 1, which leaks ~1e-7 * 0.5*x*beta*(1 + 3*kappa*x^2) into the result: about 1e-6 relative at x ~ 5.3,
    # the same size as the golden's own float32 error there (measured against a float64 evaluation).
    g, x = blocks
    a, t = tmps
    f32 = np.float32
    np.multiply(x, x, out=a)  # a = x^2
    np.multiply(a, f32(_BETA * _KAPPA), out=t)
    np.add(t, f32(_BETA), out=t)
    np.multiply(t, x, out=t)  # t = u = beta * (x + kappa * x^3)
    np.tanh(t, out=t)
    # right = 0.5 * x * (1 - tanh^2) * beta * (1 + 3 * kappa * x^2), built in a
    np.multiply(a, f32(0.5 * _BETA * 3.0 * _KAPPA), out=a)
    np.add(a, f32(0.5 * _BETA), out=a)
    np.multiply(a, x, out=a)
    np.multiply(t, t, out=out)
    np.subtract(f32(1.0), out, out=out)
    np.multiply(a, out, out=a)
    # left = 0.5 * (1 + tanh)
    np.multiply(t, f32(0.5), out=out)
    np.add(out, f32(0.5), out=out)
    np.add(out, a, out=out)
    np.multiply(out, g, out=out)


_C1 = np.float32(_BETA * _KAPPA)
_C2 = np.float32(_BETA)
_C3 = np.float32(0.5 * _BETA * 3.0 * _KAPPA)
_C4 = np.float32(0.5 * _BETA)


@_accel.jit(inline=True)
def _fused_chain(g, x, params):
    """:func:`_chain` for one element (same float32 operations in the same order; ``tanh32`` for ``np.tanh``)."""
    a = x * x
    t = tanh32((a * _C1 + _C2) * x)
    right = ((a * _C3 + _C4) * x) * (np.float32(1.0) - t * t)
    return ((t * np.float32(0.5) + np.float32(0.5)) + right) * g


_FUSED = driver(_fused_chain, 2, contract=True)


def gelu_backward(grad_output, self) -> np.ndarray:
    """Gradient of the tanh-approximated GELU; see the module docstring."""
    grad_output = np.asarray(grad_output)
    self = np.asarray(self)
    if grad_output.ndim > 8 or self.ndim > 8:
        raise ValueError("grad_output and self must have at most 8 dimensions")
    dtype = _result_dtype(grad_output.dtype, self.dtype)
    out = fused(_FUSED, (grad_output, self), dtype)
    if out is not None:
        return out
    with np.errstate(all="ignore"):
        return blocked_map(_chain, [grad_output, self], dtype, compute=F32, scratch=2)


def cost(grad_output, self) -> Cost:
    """Output plus a few cache-sized float32 blocks; about 20 float32 operations per output element."""
    shape = broadcast_shape(np.shape(grad_output), np.shape(self))
    n = numel(shape)
    item = max(itemsize(grad_output), itemsize(self))
    return Cost(bytes=n * item + 6 * 4 * BLOCK, ops=20 * n, param="gradOutput")
