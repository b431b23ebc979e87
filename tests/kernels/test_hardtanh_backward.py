"""hardtanh_backward vs torch.ops.aten.hardtanh_backward (PyTorch CPU)."""

from __future__ import annotations

import numpy as np
import pytest

from generator.kernels import _pointwise
from generator.kernels._common import BFLOAT16
from generator.kernels.hardtanh_backward import cost, hardtanh_backward
from tests.kernels._oracle import F16, F32, HALF_AND_SINGLE, HALF_AND_SINGLE_IDS, n, randn, same_bits, strided, t

torch = pytest.importorskip("torch")

SHAPES = [(), (1,), (9,), (3, 4), (2, 3, 4), (2, 1, 3, 1, 2, 1, 2, 2)]
BOUNDS = [(-1.0, 1.0), (-0.5, 2.0), (0.0, 6.0), (1.0, -1.0), (-np.inf, np.inf), (0.25, 0.25)]


def _golden(grad, x, lo, hi):
    return n(torch.ops.aten.hardtanh_backward(t(grad), t(x), lo, hi), grad.dtype)


@pytest.mark.parametrize("dtype", HALF_AND_SINGLE, ids=HALF_AND_SINGLE_IDS)
@pytest.mark.parametrize("bounds", BOUNDS, ids=[f"{a}..{b}" for a, b in BOUNDS])
def test_matches_torch_exactly(rng, dtype, bounds):
    for shape in SHAPES:
        grad = randn(rng, shape, dtype, 3.0)
        x = randn(rng, shape, dtype, 2.0)
        flat = x.reshape(-1)
        if flat.size > 2:  # land exactly on the bounds
            flat[0] = bounds[0] if np.isfinite(bounds[0]) else 0
            flat[1] = bounds[1] if np.isfinite(bounds[1]) else 0
        same_bits(hardtanh_backward(grad, x, *bounds), _golden(grad, x, *bounds))


def test_open_interval_and_specials():
    x = np.array([-1.0, -0.999, 0.0, 0.999, 1.0, np.nan, np.inf, -np.inf, -2.0, 2.0], np.float32)
    g = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, np.inf, np.nan, -np.inf], np.float32)
    got = hardtanh_backward(g, x, -1, 1)
    same_bits(got, np.array([0, 2, 3, 4, 0, 6, 0, 0, 0, 0], np.float32))  # bounds zeroed, NaN passes
    assert not np.signbit(got[0]) and not np.signbit(got[-1])  # zeroed lanes are +0.0
    same_bits(got, _golden(g, x, -1.0, 1.0))


def test_bounds_are_float32_and_scalars_of_any_type():
    x = np.array([0.1, 0.2], np.float32)  # float32(0.1) > 0.1 (double): the float32 bound equals x[0]
    g = np.ones(2, np.float32)
    np.testing.assert_array_equal(hardtanh_backward(g, x, 0.1, 1.0), [0.0, 1.0])
    np.testing.assert_array_equal(hardtanh_backward(g, x, np.float16(0), True), [1.0, 1.0])  # max = 1.0


def test_min_greater_than_max_zeroes_everything_but_nan():
    x = np.array([-3.0, 0.0, 3.0, np.nan], np.float32)
    np.testing.assert_array_equal(hardtanh_backward(np.ones(4, np.float32), x, 1, -1), [0, 0, 0, 1])


@pytest.mark.parametrize("dtype", HALF_AND_SINGLE, ids=HALF_AND_SINGLE_IDS)
def test_blocks_and_non_contiguous(rng, dtype):
    rows = 2 * _pointwise.BLOCK // 37 + 3
    grad, x = randn(rng, (rows, 37), dtype), randn(rng, (rows, 37), dtype)
    same_bits(hardtanh_backward(grad, x, -0.5, 0.5), _golden(grad, x, -0.5, 0.5))
    g2, x2 = strided(grad), strided(x)
    same_bits(hardtanh_backward(g2, x2, -0.5, 0.5), _golden(g2, x2, -0.5, 0.5))


def test_empty():
    got = hardtanh_backward(np.zeros((0, 4), BFLOAT16), np.zeros((0, 4), BFLOAT16), -1, 1)
    assert got.shape == (0, 4) and got.dtype == BFLOAT16


def test_rejections():
    f32 = np.zeros((2, 2), F32)
    with pytest.raises(TypeError):
        hardtanh_backward(f32, f32.astype(F16), -1, 1)  # dtypes must match
    with pytest.raises(TypeError):
        hardtanh_backward(f32.astype(np.float64), f32.astype(np.float64), -1, 1)
    with pytest.raises(ValueError):
        hardtanh_backward(f32, np.zeros((2,), F32), -1, 1)  # no broadcasting
    with pytest.raises(ValueError):
        hardtanh_backward(np.zeros((1,) * 9, F32), np.zeros((1,) * 9, F32), -1, 1)


def test_cost():
    small, big = (
        cost(np.zeros(4, F16), np.zeros(4, F16), -1, 1),
        cost(np.zeros((40, 40), F16), np.zeros((40, 40), F16), -1, 1),
    )
    assert small.param == big.param == "gradOutput"
    assert big.bytes > small.bytes and big.ops > small.ops and big.bytes >= 1600 * 2
