"""Dtype plumbing shared by the reference kernels.

Every kernel accepts float32, float16 and bfloat16 (``ml_dtypes.bfloat16``) arrays, computes in
float32 (or float64 where a kernel says so) and returns results in the dtype of its primary input.
"""

from __future__ import annotations

from dataclasses import dataclass

import ml_dtypes
import numpy as np

from generator.runtime.rules import pool_out as pool_out_size  # noqa: F401  (one rule, shared with validators)

BFLOAT16 = np.dtype(ml_dtypes.bfloat16)
FLOAT_DTYPES = (np.dtype(np.float32), np.dtype(np.float16), BFLOAT16)


def check_float(name: str, array: np.ndarray) -> None:
    """Raise TypeError unless ``array`` holds one of the three supported float dtypes."""
    if np.dtype(array.dtype) not in FLOAT_DTYPES:
        raise TypeError(f"{name}: dtype {array.dtype} is not one of float32, float16, bfloat16")


FLOAT32 = np.dtype(np.float32)


FLOAT16 = np.dtype(np.float16)


def to_compute(array: np.ndarray, dtype: np.dtype = FLOAT32) -> np.ndarray:
    """Return ``array`` as a C-contiguous, aligned array of the compute dtype (no copy when already so)."""
    if array.dtype == FLOAT16 and dtype == FLOAT32 and array.size > 4096:
        from generator.kernels import _accel

        if _accel.enabled():
            return _accel.half_to_float32(array)  # exact, 4x faster than NumPy's cast here
    flags = array.flags
    if flags.c_contiguous and flags.aligned and flags.writeable and array.dtype == dtype:
        return array
    return np.require(array, dtype, ("C", "A", "W"))  # contiguous, aligned, writeable: see _accel.ready


def from_compute(array: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """Cast a compute-dtype result back to ``dtype`` (round to nearest even, like CANN's Cast)."""
    array = np.asarray(array)
    if dtype == FLOAT16 and array.dtype == FLOAT32 and array.size > 4096:
        from generator.kernels import _accel

        if _accel.enabled():
            return _accel.float32_to_half(array)  # same rounding as astype, 10x faster here
    return array.astype(dtype, copy=False)


def normalize_pair(values, name: str, *, default=None) -> tuple[int, int]:
    """Expand a 1- or 2-element int sequence to (h, w); an empty one takes ``default``."""
    values = [int(v) for v in values]
    if not values and default is not None:
        return default
    if len(values) == 1:
        return values[0], values[0]
    if len(values) == 2:
        return values[0], values[1]
    raise ValueError(f"{name}: expected 1 or 2 values, got {len(values)}")


def normalize_triple(values, name: str, *, default=None) -> tuple[int, int, int]:
    """Expand a 1- or 3-element int sequence to (d, h, w); an empty one takes ``default``."""
    values = [int(v) for v in values]
    if not values and default is not None:
        return default
    if len(values) == 1:
        return values[0], values[0], values[0]
    if len(values) == 3:
        return values[0], values[1], values[2]
    raise ValueError(f"{name}: expected 1 or 3 values, got {len(values)}")


# ---------------------------------------------------------------------------------------------
# Cost contract: what a call would take, estimated from its arguments before anything is allocated.


@dataclass(frozen=True)
class Cost:
    """The resources one kernel call implies, computed from shapes and values only (no allocation).

    ``bytes``: peak memory the call allocates (outputs plus temporaries), in bytes;
    ``ops``: elementary operations, as an order of magnitude of the work (multiply-adds, gathers, ...);
    ``param``: the spec parameter (its doc name, e.g. ``gradOutput``) whose size or value drives the cost,
    named in the error when the binding refuses the call.

    A kernel module may define ``cost(**kwargs) -> Cost`` taking the same keyword arguments as its
    kernel function; the runtime calls it before the kernel and refuses calls above its limits with an
    AclnnError naming ``param``. ``cost`` must be cheap, pure arithmetic on Python ints (never NumPy
    integers, which overflow) and must not raise on any arguments the validator accepts.

    Unit of ``ops``: about one nanosecond of single-threaded work on this class of machine; the
    runtime's default limit is 10**9 (about one second, ``ACLNN_MAX_OPS``) and 512 MiB
    (``ACLNN_MAX_BYTES``). A plain count of elementary operations is the right order of magnitude;
    kernels that want a closer estimate weigh their steps with the constants below.
    """

    bytes: int
    ops: int
    param: str


#: One element of one NumPy element-wise pass (add, multiply, compare, copy, cast: 0.3 to 1 ns).
OPS_PER_ELEMENT = 1
#: One element read or written at a data-dependent position (np.take, bincount, scatter: 2 to 8 ns).
OPS_PER_GATHER = 8
#: Multiply-adds per op inside one large BLAS GEMM (float32 GEMMs run at 30 to 60 multiply-adds per ns).
MACS_PER_OP = 16
#: One Python-level loop iteration that issues a few NumPy calls (a few microseconds).
OPS_PER_STEP = 5000


def numel(shape) -> int:
    """Number of elements of a shape, as a Python int (no overflow)."""
    result = 1
    for d in shape:
        result *= int(d)
    return result


def int_values(values, count: int, *, empty=None) -> tuple[int, ...] | None:
    """``values`` (None, an int or a sequence) expanded to ``count`` ints (one value is repeated), or
    ``empty`` when there are none; None when it has another length. For ``cost`` functions: never raises."""
    try:
        if values is None:
            vals = []
        elif isinstance(values, (int, np.integer)):
            vals = [int(values)]
        else:
            vals = [int(v) for v in values]
    except (TypeError, ValueError, OverflowError):
        return None
    if not vals:
        return empty
    if len(vals) == 1:
        return tuple(vals) * count
    return tuple(vals) if len(vals) == count else None
