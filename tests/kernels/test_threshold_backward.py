"""threshold_backward vs torch.ops.aten.threshold_backward (PyTorch CPU)."""

from __future__ import annotations

import numpy as np
import pytest

from generator.kernels import _pointwise
from generator.kernels._common import BFLOAT16
from generator.kernels.threshold_backward import cost, effective_threshold, threshold_backward
from tests.kernels._oracle import F16, F32, HALF_AND_SINGLE, HALF_AND_SINGLE_IDS, n, randn, same_bits, strided, t

torch = pytest.importorskip("torch")

SHAPE_PAIRS = [((), ()), ((7,), (7,)), ((3, 4), (3, 4)), ((2, 3, 4), (4,)), ((3, 1), (1, 4)), ((1,) * 8, (2,) * 8)]
INT_DTYPES = [np.dtype(np.int8), np.dtype(np.uint8), np.dtype(np.int32), np.dtype(np.int64)]


def _golden(grad, x, threshold):
    g, xx = torch.broadcast_tensors(t(grad), t(x))
    return n(torch.ops.aten.threshold_backward(g, xx, threshold), grad.dtype)


@pytest.mark.parametrize("dtype", HALF_AND_SINGLE, ids=HALF_AND_SINGLE_IDS)
@pytest.mark.parametrize("threshold", [0.0, 0.5, -1.25, 0.3, 3.0])
def test_float_matches_torch_exactly(rng, dtype, threshold):
    for shapes in SHAPE_PAIRS:
        grad, x = randn(rng, shapes[0], dtype, 3.0), randn(rng, shapes[1], dtype)
        if x.size > 1:
            x.reshape(-1)[0] = threshold  # x == threshold (after rounding to dtype) is compared in float32
        same_bits(threshold_backward(grad, x, threshold), _golden(grad, x, threshold))


@pytest.mark.parametrize("dtype", INT_DTYPES, ids=[d.name for d in INT_DTYPES])
@pytest.mark.parametrize("threshold", [0, 3, -2, 50, 7.0])
def test_integers_match_torch_for_integral_thresholds(rng, dtype, threshold):
    if dtype.kind == "u" and threshold < 0:
        pytest.skip("PyTorch wraps a negative threshold for unsigned tensors (see the reading test)")
    for shapes in SHAPE_PAIRS:
        grad, x = randn(rng, shapes[0], dtype), randn(rng, shapes[1], dtype)
        same_bits(threshold_backward(grad, x, threshold), _golden(grad, x, threshold))


def test_integer_reading_for_fractional_and_out_of_range_thresholds():
    x = np.array([-3, -2, -1, 0, 2, 3], np.int32)
    g = np.full(6, 7, np.int32)
    # exact comparison with the float threshold: -2 > -2.5 keeps the gradient (PyTorch truncates to -2)
    np.testing.assert_array_equal(threshold_backward(g, x, -2.5), [0, 7, 7, 7, 7, 7])
    np.testing.assert_array_equal(threshold_backward(g, x, 2.5), [0, 0, 0, 0, 0, 7])
    u = np.array([0, 1, 255], np.uint8)
    np.testing.assert_array_equal(threshold_backward(np.ones(3, np.uint8), u, -1.0), [1, 1, 1])
    np.testing.assert_array_equal(threshold_backward(np.ones(3, np.uint8), u, 300.0), [0, 0, 0])
    np.testing.assert_array_equal(threshold_backward(np.ones(3, np.uint8), u, np.inf), [0, 0, 0])
    np.testing.assert_array_equal(threshold_backward(np.ones(3, np.uint8), u, -np.inf), [1, 1, 1])
    np.testing.assert_array_equal(threshold_backward(np.ones(3, np.uint8), u, np.nan), [1, 1, 1])
    big = np.array([2**62, -(2**62)], np.int64)
    np.testing.assert_array_equal(threshold_backward(np.ones(2, np.int64), big, 0), [1, 0])


def test_near_zero_threshold_runs_relu_grad():
    assert effective_threshold(1e-8) == 0.0 and effective_threshold(-1e-7) == 0.0
    assert effective_threshold(1e-6) == float(np.float32(1e-6))
    assert effective_threshold(0.1) == float(np.float32(0.1))
    x = np.array([5e-9, 0.0, -5e-9], np.float32)
    # |1e-8| <= FLT_EPSILON: the op runs ReluGrad (x > 0), PyTorch would compare with 1e-8
    np.testing.assert_array_equal(threshold_backward(np.ones(3, np.float32), x, 1e-8), [1, 0, 0])


def test_float_threshold_is_float32_and_specials():
    x = np.array([0.3, np.nan, np.inf, -np.inf, -0.0, 0.0], np.float16)  # float16(0.3) > 0.3
    g = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], np.float16)
    got = threshold_backward(g, x, 0.3)
    np.testing.assert_array_equal(got, [1.0, 2.0, 3.0, 0.0, 0.0, 0.0])  # NaN passes the gradient
    same_bits(got, _golden(g, x, 0.3))
    g = np.array([np.inf, np.nan, -np.inf], np.float32)
    same_bits(threshold_backward(g, np.zeros(3, np.float32), 0.0), np.zeros(3, np.float32))  # +0.0, no NaN


@pytest.mark.parametrize(
    "dtype", [F32, F16, BFLOAT16, np.dtype(np.int8)], ids=["float32", "float16", "bfloat16", "int8"]
)
def test_blocks_and_non_contiguous(rng, dtype):
    rows = 2 * _pointwise.BLOCK // 37 + 3
    grad, x = randn(rng, (rows, 37), dtype), randn(rng, (rows, 37), dtype)
    same_bits(threshold_backward(grad, x, 1), _golden(grad, x, 1))
    g2, x2 = strided(grad), strided(x)
    same_bits(threshold_backward(g2, x2, 1), _golden(g2, x2, 1))
    same_bits(threshold_backward(grad[:1], x, 1), _golden(grad[:1], x, 1))


def test_empty():
    got = threshold_backward(np.zeros((0, 3), np.int32), np.zeros((2, 1, 3), np.int32), 0)
    assert got.shape == (2, 0, 3) and got.dtype == np.int32


def test_rejections():
    f32 = np.zeros((2, 2), F32)
    with pytest.raises(TypeError):
        threshold_backward(f32, f32.astype(F16), 0)  # dtypes must match
    with pytest.raises(TypeError):
        threshold_backward(f32.astype(np.float64), f32.astype(np.float64), 0)
    with pytest.raises(TypeError):
        threshold_backward(f32.astype(np.int16), f32.astype(np.int16), 0)
    with pytest.raises(ValueError):
        threshold_backward(f32, np.zeros((3,), F32), 0)
    with pytest.raises(ValueError):
        threshold_backward(np.zeros((1,) * 9, F32), np.zeros((1,) * 9, F32), 0)


def test_cost():
    small = cost(np.zeros(4, np.int8), np.zeros(4, np.int8), 0)
    big = cost(np.zeros((40, 4), np.int64), np.zeros(4, np.int64), 0)
    assert small.param == big.param == "gradOutput"
    assert big.bytes > small.bytes and big.ops > small.ops and big.bytes >= 160 * 8
