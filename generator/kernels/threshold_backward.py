"""NumPy reference kernel for ``aclnnThresholdBackward`` (golden: ``torch.ops.aten.threshold_backward``).

Conventions
-----------
``threshold_backward(grad_output, self, threshold)`` with ``g`` an element of ``grad_output`` and ``x`` the
matching element of ``self`` (after broadcasting)::

    out = g   if not (x <= threshold)     (x > threshold, and x = NaN)
    out = 0   otherwise

dtypes, shapes (from the op_api code, aclnn_threshold_backward.cpp and threshold_grad.cpp):

* ``grad_output`` and ``self`` have the same dtype, one of FLOAT, FLOAT16, BFLOAT16 (A2/A3/950), INT32,
  INT8, UINT8, and INT64 (950 with a zero threshold only); the result has that dtype.  The gradient is
  selected, never converted or multiplied, so results are bit-exact (zeroed lanes are +0.0 / 0).
* ``threshold`` is an aclScalar read with ``ToFloat()`` (rounded to float32).  When ``|threshold| <=
  FLT_EPSILON`` (1.19e-7) the op runs ``ReluGrad`` instead of ``ThresholdGradV2D``, i.e. it compares with
  exactly 0: a threshold of 1e-8 behaves as 0 (this kernel does the same; PyTorch would compare with 1e-8).
* Floating ``x`` is compared with the float32 threshold in float32 (half types widen exactly; PyTorch does
  the same).  Integer ``x`` is compared exactly with the float32 threshold: ``x <= t`` is ``x <= floor(t)``
  (a NaN threshold keeps every lane, +-inf thresholds zero every / no lane).
* The shapes broadcast (NumPy rule); the result has the broadcast shape.  Ranks 0-8.
* Empty inputs give an empty result of the broadcast shape.

Readings chosen where sources disagree
--------------------------------------
* NaN in ``self`` passes the gradient (PyTorch's ``x <= t ? 0 : g``; the doc's ``x > t ? g : 0`` would
  zero it).  The device kernels' NaN handling is not visible in op_api; this kernel follows the golden.
* Integer tensors with a non-integral threshold: PyTorch truncates the threshold to the tensor's dtype
  (``-2.5`` becomes ``-2``, and ``-1`` wraps to 255 for UINT8); CANN passes the float threshold to the
  kernel, so this kernel compares exactly (``-2 > -2.5`` keeps the gradient).  The two agree for every
  integral threshold inside the dtype's range.
"""

from __future__ import annotations

import functools
import math
from typing import NamedTuple

import numpy as np

from generator.kernels import _accel
from generator.kernels._common import Cost
from generator.kernels._pointwise import (
    BLOCK,
    F32,
    blocked_map,
    broadcast_shape,
    check_inputs,
    driver,
    fused,
    itemsize,
    numel,
    zero_where,
)

__all__ = ["cost", "threshold_backward"]

_SUPPORTED = ("FLOAT", "FLOAT16", "BFLOAT16", "INT32", "INT8", "UINT8", "INT64")
_FLT_EPSILON = float(np.finfo(np.float32).eps)


def effective_threshold(threshold) -> float:
    """The threshold the device compares with: float32-rounded, and exactly 0 within FLT_EPSILON of 0."""
    value = float(np.float32(float(threshold)))
    return 0.0 if abs(value) <= _FLT_EPSILON else value


def _integer_drop_all(t: float, info: np.iinfo) -> bool | None:
    """For integer x: True when every x <= t, False when none is, None when it depends on x."""
    if math.isnan(t) or t < info.min:
        return False
    if t >= info.max:
        return True
    return None


@_accel.jit(inline=True)
def _drop(x, params):
    """True where the gradient is zeroed: ``x <= bound`` (float32 ``x`` and bound, or integers)."""
    return x <= params[0]


_FUSED = driver(_drop, 2, select=True)


@functools.lru_cache(maxsize=256)
def _check(grad_dtype, self_dtype, grad_ndim: int, self_ndim: int) -> None:
    """Raise for dtypes or ranks the op rejects (cached: accepted combinations return at once)."""
    check_inputs((("grad_output", grad_dtype, grad_ndim), ("self", self_dtype, self_ndim)), _SUPPORTED, same_dtype=True)


class _Bound(NamedTuple):
    """How one (dtype, threshold) is applied: ``x <= bound`` drops the gradient."""

    params: tuple | None  # the compiled select loop's parameters (None: the loop cannot express it)
    bound: object  # the NumPy comparison bound (float32, or the integer dtype's floor of the threshold)
    fixed: bool | None  # integers: True / False when every / no lane is dropped, None when it depends on x


@functools.lru_cache(maxsize=256)
def _bound(dtype: np.dtype, threshold: float) -> _Bound:
    t = effective_threshold(threshold)
    if dtype.kind not in "iu":
        bound = np.float32(t)
        return _Bound((bound,), bound, None)
    info = np.iinfo(dtype)
    fixed = _integer_drop_all(t, info)
    bound = dtype.type(math.floor(t)) if fixed is None else None
    # the compiled path compares with an int64 bound: below every value (keep all) or above (drop all)
    int_bound = int(bound) if fixed is None else (int(info.max) if fixed else int(info.min) - 1)
    # the bound in the tensor's own type when it fits: an int64 bound would widen every comparison to
    # 64-bit vector lanes (int32: 1.3x slower); "keep everything" (min - 1) does not fit and stays int64
    typed = dtype.type(int_bound) if info.min <= int_bound <= info.max else int_bound
    return _Bound((typed,) if int_bound >= -(2**63) else None, bound, fixed)


def threshold_backward(grad_output, self, threshold) -> np.ndarray:
    """Gradient of threshold / ReLU; see the module docstring."""
    grad_output = np.asarray(grad_output)
    self = np.asarray(self)
    _check(grad_output.dtype, self.dtype, grad_output.ndim, self.ndim)
    dtype = grad_output.dtype
    rule = _bound(dtype, float(threshold))
    if rule.params is not None:
        out = fused(_FUSED, (grad_output, self), dtype, rule.params, select=True)
        if out is not None:
            return out
    zero, bound, fixed = dtype.type(0), rule.bound, rule.fixed
    loads = [dtype, dtype] if dtype.kind in "iu" else [dtype, F32]

    def chain(blocks, out, tmps) -> None:
        g, x = blocks
        drop = fixed if fixed is not None else np.less_equal(x, bound)
        if drop is True:
            out.fill(zero)
        elif drop is False:
            np.copyto(out, g)
        else:
            zero_where(out, g, drop)

    return blocked_map(chain, [grad_output, self], dtype, compute=dtype, load=loads)


def cost(grad_output, self, threshold) -> Cost:
    """Output plus cache-sized blocks; 3 operations per output element."""
    n = numel(broadcast_shape(np.shape(grad_output), np.shape(self)))
    item = max(itemsize(grad_output), itemsize(self))
    return Cost(bytes=n * item + 3 * 4 * BLOCK, ops=3 * n, param="gradOutput")
