"""leaky_relu_backward vs torch.ops.aten.leaky_relu_backward (PyTorch CPU)."""

from __future__ import annotations

import numpy as np
import pytest

from generator.kernels import _pointwise
from generator.kernels._common import BFLOAT16
from generator.kernels.leaky_relu_backward import cost, leaky_relu_backward
from tests.kernels._oracle import (
    F16,
    F32,
    F64,
    HALF_AND_SINGLE,
    HALF_AND_SINGLE_IDS,
    close,
    n,
    randn,
    same_bits,
    strided,
    t,
)

torch = pytest.importorskip("torch")

SHAPE_PAIRS = [((), ()), ((7,), (7,)), ((3, 4), (3, 4)), ((2, 3, 4), (4,)), ((3, 1), (1, 4)), ((1,) * 8, (2,) * 8)]
SLOPES = [0.01, 0.25, 0.0, 1.0, 2.5, -0.5]


def _golden(grad, x, slope, is_result, dtype):
    g, xx = torch.broadcast_tensors(t(grad), t(x))
    slope = float(np.float32(slope))  # CANN hands the kernel a float32 slope
    return n(torch.ops.aten.leaky_relu_backward(g, xx, slope, is_result), dtype)


@pytest.mark.parametrize("dtype", [*HALF_AND_SINGLE, F64], ids=[*HALF_AND_SINGLE_IDS, "float64"])
@pytest.mark.parametrize("slope", SLOPES)
def test_matches_torch(rng, dtype, slope):
    for shapes in SHAPE_PAIRS:
        grad = randn(rng, shapes[0], dtype, 2.0)
        x = randn(rng, shapes[1], dtype)
        if x.size > 1:
            x.reshape(-1)[0] = 0  # x == 0 takes the slope branch
        is_result = slope >= 0
        close(leaky_relu_backward(grad, x, slope, is_result), _golden(grad, x, slope, is_result, dtype))


def test_float32_bit_identical(rng):
    grad, x = randn(rng, (2000,), F32), randn(rng, (2000,), F32)
    same_bits(leaky_relu_backward(grad, x, 0.2, False), _golden(grad, x, 0.2, False, F32))


@pytest.mark.parametrize(
    "dtypes, promoted",
    [((F16, F32), F32), ((BFLOAT16, F16), F32), ((F32, F64), F64), ((BFLOAT16, BFLOAT16), BFLOAT16), ((F16, F64), F64)],
)
def test_promotion(rng, dtypes, promoted):
    grad, x = randn(rng, (3, 5), dtypes[0]), randn(rng, (3, 5), dtypes[1])
    got = leaky_relu_backward(grad, x, 0.3, False)
    assert got.dtype == promoted
    close(got, _golden(grad.astype(promoted), x.astype(promoted), 0.3, False, promoted))


def test_branches_and_specials():
    x = np.array([-1.0, -0.0, 0.0, 1e-30, np.nan, np.inf, -np.inf], np.float32)
    g = np.array([2.0, 2.0, 2.0, 2.0, 2.0, np.inf, np.inf], np.float32)
    got = leaky_relu_backward(g, x, 0.5, False)
    np.testing.assert_array_equal(got, [1.0, 1.0, 1.0, 2.0, 1.0, np.inf, np.inf])  # x <= 0 or NaN: slope


def test_slope_is_rounded_to_float32_even_for_double():
    x = np.array([-1.0], np.float64)
    got = leaky_relu_backward(np.ones(1, np.float64), x, 0.1, False)
    assert got[0] == np.float64(np.float32(0.1)) != 0.1


def test_slope_scalar_types():
    x, g = np.array([-2.0, 3.0], np.float32), np.ones(2, np.float32)
    np.testing.assert_array_equal(leaky_relu_backward(g, x, 2, False), [2.0, 1.0])  # int
    np.testing.assert_array_equal(leaky_relu_backward(g, x, True, True), [1.0, 1.0])  # bool
    np.testing.assert_array_equal(leaky_relu_backward(g, x, np.float16(0.5), True), [0.5, 1.0])


@pytest.mark.parametrize("dtype", HALF_AND_SINGLE, ids=HALF_AND_SINGLE_IDS)
def test_blocks_and_non_contiguous(rng, dtype):
    rows = 2 * _pointwise.BLOCK // 37 + 3
    grad, x = randn(rng, (rows, 37), dtype), randn(rng, (rows, 37), dtype)
    close(leaky_relu_backward(grad, x, 0.1, False), _golden(grad, x, 0.1, False, dtype))
    g2, x2 = strided(grad), strided(x)
    close(leaky_relu_backward(g2, x2, 0.1, False), _golden(g2, x2, 0.1, False, dtype))
    close(leaky_relu_backward(grad[:1], x, 0.1, False), _golden(grad[:1], x, 0.1, False, dtype))


def test_empty():
    got = leaky_relu_backward(np.zeros((0, 2), F16), np.zeros((3, 0, 1), F32), 0.1, False)
    assert got.shape == (3, 0, 2) and got.dtype == F32


def test_rejections():
    f32 = np.zeros((2, 2), F32)
    with pytest.raises(ValueError):
        leaky_relu_backward(f32, f32, -0.1, True)  # in-place forward with a negative slope
    leaky_relu_backward(f32, f32, -0.1, False)
    with pytest.raises(TypeError):
        leaky_relu_backward(f32.astype(np.int32), f32, 0.1, False)
    with pytest.raises(ValueError):
        leaky_relu_backward(f32, np.zeros((3,), F32), 0.1, False)
    with pytest.raises(ValueError):
        leaky_relu_backward(np.zeros((1,) * 9, F32), f32, 0.1, False)


def test_cost():
    small, big = (
        cost(np.zeros(5, F32), np.zeros(5, F32), 0.1, False),
        cost(np.zeros((50, 5), F64), np.zeros(5, F32), 0.1, False),
    )
    assert small.param == big.param == "gradOutput"
    assert big.bytes > small.bytes and big.ops > small.ops and big.bytes >= 250 * 8
