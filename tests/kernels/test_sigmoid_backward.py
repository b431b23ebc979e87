"""sigmoid_backward vs torch.ops.aten.sigmoid_backward (PyTorch CPU)."""

from __future__ import annotations

import numpy as np
import pytest

from generator.kernels import _pointwise
from generator.kernels._common import BFLOAT16
from generator.kernels.sigmoid_backward import cost, sigmoid_backward
from tests.kernels._oracle import (
    C64,
    C128,
    F16,
    F32,
    F64,
    HALF_AND_SINGLE,
    HALF_AND_SINGLE_IDS,
    SPECIALS,
    close,
    n,
    randn,
    same_bits,
    strided,
    t,
)

torch = pytest.importorskip("torch")

SHAPE_PAIRS = [((), ()), ((6,), (6,)), ((3, 4), (3, 4)), ((2, 3, 4), (4,)), ((3, 1), (1, 5)), ((1,) * 8, (2,) * 8)]
ALL_DTYPES = [*HALF_AND_SINGLE, F64, C64, C128]
ALL_IDS = [*HALF_AND_SINGLE_IDS, "float64", "complex64", "complex128"]


def _sigmoid_output(rng, shape, dtype):
    """A plausible forward output: sigmoid of normal values (any value is fine for the formula)."""
    if np.dtype(dtype).kind == "c":
        z = randn(rng, shape, C128)
        return (1 / (1 + np.exp(-z))).astype(dtype)
    return (1 / (1 + np.exp(-3 * rng.standard_normal(shape)))).astype(np.float32).astype(dtype)


def _golden(grad, y, dtype):
    g, yy = torch.broadcast_tensors(t(grad), t(y))
    return n(torch.ops.aten.sigmoid_backward(g, yy), dtype)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=ALL_IDS)
@pytest.mark.parametrize("shapes", SHAPE_PAIRS, ids=[f"{a}x{b}" for a, b in SHAPE_PAIRS])
def test_matches_torch(rng, dtype, shapes):
    grad = randn(rng, shapes[0], dtype, 2.0)
    y = _sigmoid_output(rng, shapes[1], dtype)
    got = sigmoid_backward(grad, y)
    close(got, _golden(grad, y, dtype))


def test_float32_is_bit_identical_to_torch(rng):
    grad = randn(rng, (1000,), F32)
    y = _sigmoid_output(rng, (1000,), F32)
    same_bits(sigmoid_backward(grad, y), _golden(grad, y, F32))


@pytest.mark.parametrize(
    "grad_dtype, out_dtype, promoted",
    [
        (F16, F32, F32),
        (BFLOAT16, F16, F32),
        (F32, F64, F64),
        (F32, C64, C64),
        (F64, C64, C128),
        (BFLOAT16, BFLOAT16, BFLOAT16),
    ],
)
def test_promotion(rng, grad_dtype, out_dtype, promoted):
    grad = randn(rng, (3, 5), grad_dtype)
    y = _sigmoid_output(rng, (3, 5), out_dtype)
    got = sigmoid_backward(grad, y)
    assert got.dtype == promoted
    close(got, _golden(grad.astype(promoted), y.astype(promoted), promoted))


def test_complex_conjugates_the_derivative():
    grad = np.array([1 + 0j, 2 - 1j], np.complex64)
    y = np.array([0.5 + 0.5j, 0.25 - 1j], np.complex64)
    want = grad * np.conj((1 - y) * y)
    np.testing.assert_allclose(sigmoid_backward(grad, y), want, rtol=1e-6)


def test_special_values_follow_torch():
    y = SPECIALS
    grad = np.linspace(-2, 2, y.size).astype(np.float32)
    same_bits(sigmoid_backward(grad, y), _golden(grad, y, F32))


@pytest.mark.parametrize("dtype", [F32, F16, BFLOAT16, C64], ids=["float32", "float16", "bfloat16", "complex64"])
def test_blocks_broadcast_and_non_contiguous(rng, dtype):
    rows = 2 * _pointwise.BLOCK // 37 + 3
    grad = randn(rng, (rows, 37), dtype)
    y = _sigmoid_output(rng, (rows, 37), dtype)
    close(sigmoid_backward(grad, y), _golden(grad, y, dtype))
    g2, y2 = strided(grad), strided(y)
    close(sigmoid_backward(g2, y2), _golden(g2, y2, dtype))
    close(sigmoid_backward(grad[:1], y), _golden(grad[:1], y, dtype))
    close(sigmoid_backward(grad, y[:, :1]), _golden(grad, y[:, :1], dtype))


def test_empty():
    for shapes in [((0,), (0,)), ((2, 0), (0,)), ((0, 3), (1, 3))]:
        got = sigmoid_backward(np.zeros(shapes[0], C64), np.zeros(shapes[1], F32))
        assert got.shape == np.broadcast_shapes(*shapes) and got.dtype == C64


def test_rejections():
    f32 = np.zeros((2, 2), np.float32)
    with pytest.raises(TypeError):
        sigmoid_backward(f32.astype(np.int32), f32)
    with pytest.raises(TypeError):
        sigmoid_backward(f32, f32.astype(np.bool_))
    with pytest.raises(ValueError):
        sigmoid_backward(f32, np.zeros((3,), np.float32))
    with pytest.raises(ValueError):
        sigmoid_backward(np.zeros((1,) * 9, np.float32), np.zeros((1,) * 9, np.float32))


def test_cost():
    small = cost(np.zeros((8,), F32), np.zeros((8,), F32))
    big = cost(np.zeros((800, 8), F32), np.zeros((8,), F32))
    assert small.param == big.param == "gradOutput"
    assert big.bytes > small.bytes and big.ops > small.ops and big.ops >= 6400
    assert cost(np.zeros((1000,), C128), np.zeros((1000,), F32)).bytes >= 16 * 1000
