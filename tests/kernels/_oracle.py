"""Helpers shared by the kernel-vs-PyTorch tests of the activation and loss backward kernels.

Goldens are computed "the CANN way": PyTorch runs in float32 (float64 / complex as they are) on the
inputs widened exactly, and the result is rounded once to the dtype the kernel returns.
"""

from __future__ import annotations

import numpy as np
import pytest

from generator.kernels._common import BFLOAT16
from tests.kernels.conftest import TOLERANCES

torch = pytest.importorskip("torch")

F32, F16, F64 = np.dtype(np.float32), np.dtype(np.float16), np.dtype(np.float64)
C64, C128 = np.dtype(np.complex64), np.dtype(np.complex128)
HALF_AND_SINGLE = [F32, F16, BFLOAT16]
HALF_AND_SINGLE_IDS = ["float32", "float16", "bfloat16"]

_TOLERANCES = dict(TOLERANCES)
_TOLERANCES.update({F64: (1e-12, 1e-12), C64: (1e-5, 1e-5), C128: (1e-12, 1e-12)})


def wide(dtype) -> np.dtype:
    """The dtype PyTorch computes the golden in: float64 / complex as they are, everything else float32."""
    dtype = np.dtype(dtype)
    return dtype if dtype in (F64, C64, C128) else F32


def t(array) -> torch.Tensor:
    """NumPy array (any dtype, incl. bfloat16 and 0-d) -> a torch tensor, widened like :func:`wide`."""
    array = np.asarray(array)
    if array.dtype.kind in "fc" or array.dtype == BFLOAT16:
        array = array.astype(wide(array.dtype))
    return torch.from_numpy(np.array(array, order="C", copy=True))  # (ascontiguousarray turns 0-d into 1-d)


def n(tensor: torch.Tensor, dtype) -> np.ndarray:
    """torch result -> NumPy, rounded once to ``dtype``."""
    return tensor.detach().contiguous().numpy().astype(dtype)


def tolerance(dtype) -> tuple[float, float]:
    return _TOLERANCES[np.dtype(dtype)]


def close(got, want, *, scale: float = 1.0) -> None:
    """assert_allclose with the per-dtype tolerance of ``want``'s dtype (NaN == NaN)."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    rtol, atol = tolerance(want.dtype)
    kind = np.complex128 if want.dtype.kind == "c" else np.float64
    np.testing.assert_allclose(
        got.astype(kind), want.astype(kind), rtol=rtol * scale, atol=atol * scale, equal_nan=True
    )


def same_bits(got, want) -> None:
    """Exact equality including the sign of zero and NaN positions."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape
    width = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[got.dtype.itemsize]
    if got.dtype.kind == "f" or got.dtype == BFLOAT16:
        nan = np.isnan(want.astype(np.float32 if got.dtype.itemsize < 8 else np.float64))
        assert np.array_equal(nan, np.isnan(got.astype(np.float64)))
        np.testing.assert_array_equal(got.view(width)[~nan], want.view(width)[~nan])
    else:
        np.testing.assert_array_equal(got, want)


def randn(rng, shape, dtype, scale: float = 1.0) -> np.ndarray:
    """Standard normal values (times ``scale``) already representable in ``dtype``."""
    dtype = np.dtype(dtype)
    if dtype.kind == "c":
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype) * scale
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(max(info.min, -100), min(info.max, 100), size=shape, endpoint=True).astype(dtype)
    return (rng.standard_normal(shape) * scale).astype(np.float32).astype(dtype)


def strided(array: np.ndarray) -> np.ndarray:
    """The same values as a non-contiguous view (every other element of a twice-as-long last axis)."""
    if array.ndim == 0:
        return array
    big = np.zeros(array.shape[:-1] + (2 * array.shape[-1],), array.dtype)
    big[..., ::2] = array
    view = big[..., ::2]
    assert not view.flags.c_contiguous or view.size <= 1
    return view


SPECIALS = np.array(
    [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-30, -1e-30, 1e-40, 65504.0, -65504.0, 3.0e38, 1.0, -1.0],
    dtype=np.float32,
)

# Broadcast layouts of a two-operand pointwise kernel, (first operand shape, second operand shape): every
# loop mode of the compiled kernels (full, periodic, row, a scalar on either side, outer product) and one
# they leave to the NumPy path (both operands broadcast).
BROADCAST_LAYOUTS = {
    "full": ((4, 5, 6), (4, 5, 6)),
    "periodic": ((4, 5, 6), (5, 6)),
    "row": ((4, 5, 6), (4, 5, 1)),
    "scalar_first": ((), (4, 5, 6)),
    "scalar_second": ((4, 5, 6), ()),
    "outer": ((4, 1), (1, 5)),
    "both_broadcast": ((4, 1, 6), (1, 5, 1)),
}
