"""NumPy reference kernel for ``aclnnMseLossBackward`` (golden: ``torch.ops.aten.mse_loss_backward``).

Conventions
-----------
``mse_loss_backward(grad_output, self, target, reduction)`` with ``g``, ``x``, ``y`` the matching elements
of ``grad_output``, ``self`` and ``target`` after broadcasting all three::

    out = 2 / N * (x - y) * g     reduction 1 ('mean'), N = number of elements of ``self``
    out = 2 * (x - y) * g         reduction 0 ('none') and 2 ('sum')

dtypes, shapes (from the op_api code, aclnn_mse_loss_backward.cpp and mse_loss_grad.cpp):

* The three inputs have the same dtype, FLOAT, FLOAT16 or BFLOAT16 (BFLOAT16 on A2/A3/950 only); the
  result has it (the binding casts to ``out``'s dtype).  FLOAT16 / BFLOAT16 are computed in float32 and
  rounded once.
* ``reduction`` is 0, 1 or 2 (anything else raises ValueError, the op's 161002).
* The shapes broadcast (NumPy rule: ``grad_output`` with ``self``, then with ``target``); the result has
  the broadcast shape.  Ranks 0-8 (doc: 1-8; the code only caps the rank).  With 'mean' the gradient is
  normally a single element broadcast over ``self``.
* Empty inputs give an empty result of the broadcast shape (the op returns before computing).

Readings chosen where sources are silent
----------------------------------------
* 'mean' divides by the element count of ``self`` (doc: ``x.numel()``; PyTorch: ``input.numel()``), not by
  that of the broadcast result; they differ only when ``self`` itself is broadcast.
* The scale is formed once as float32 ``2 / N`` and the product is ``scale * (x - y) * g`` (PyTorch's order);
  the device's order is not visible in op_api.
* 910B/910_93/310P run ``MseLossGradV2`` when the three shapes and formats are equal, ``MseLossGrad``
  otherwise; both compute the formula above.
"""

from __future__ import annotations

import functools

import numpy as np

from generator.kernels import _accel
from generator.kernels._common import Cost
from generator.kernels._pointwise import BLOCK, F32, blocked_map, broadcast_shape, check_inputs, driver, fused, numel

__all__ = ["cost", "mse_loss_backward"]

_REDUCTIONS = {0: "none", 1: "mean", 2: "sum"}


@_accel.jit(inline=True)
def _fused_chain(g, x, y, params):
    """The chain for one element (float32, same order: ``((x - y) * scale) * g``)."""
    return ((x - y) * params[0]) * g


_FUSED = driver(_fused_chain, 3)


@functools.lru_cache(maxsize=256)
def _check(dtypes: tuple, ndims: tuple) -> None:
    """Raise for dtypes or ranks the op rejects (cached: accepted calls return at once)."""
    check_inputs(tuple(zip(("grad_output", "self", "target"), dtypes, ndims)), same_dtype=True)


def mse_loss_backward(grad_output, self, target, reduction) -> np.ndarray:
    """Gradient of the mean squared error with respect to ``self``; see the module docstring."""
    grad_output, self, target = np.asarray(grad_output), np.asarray(self), np.asarray(target)
    _check((grad_output.dtype, self.dtype, target.dtype), (grad_output.ndim, self.ndim, target.ndim))
    reduction = int(reduction)
    if reduction not in _REDUCTIONS:
        raise ValueError(f"reduction must be 0 (none), 1 (mean) or 2 (sum), got {reduction}")
    scale = np.float32(2.0 / self.size) if reduction == 1 and self.size else np.float32(2.0)
    out = fused(_FUSED, (grad_output, self, target), self.dtype, (scale,))
    if out is not None:
        return out

    def chain(blocks, out, tmps) -> None:
        g, x, y = blocks
        np.subtract(x, y, out=out)
        np.multiply(out, scale, out=out)
        np.multiply(out, g, out=out)

    with np.errstate(all="ignore"):
        return blocked_map(chain, [grad_output, self, target], self.dtype, compute=F32)


def cost(grad_output, self, target, reduction) -> Cost:
    """Output plus cache-sized float32 blocks; 3 operations per output element."""
    n = numel(broadcast_shape(np.shape(grad_output), np.shape(self), np.shape(target)))
    return Cost(bytes=n * 4 + 4 * 4 * BLOCK, ops=3 * n, param="self")
