"""gelu_backward vs torch.ops.aten.gelu_backward(approximate="tanh") (PyTorch CPU)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from generator.kernels import _pointwise
from generator.kernels import gelu_backward as module
from generator.kernels._common import BFLOAT16
from generator.kernels.gelu_backward import cost, gelu_backward
from tests.kernels._oracle import F16, F32, HALF_AND_SINGLE, HALF_AND_SINGLE_IDS, SPECIALS, close, n, randn, strided, t

torch = pytest.importorskip("torch")

SHAPE_PAIRS = [
    ((), ()),
    ((7,), (7,)),
    ((3, 5), (3, 5)),
    ((2, 3, 5), (5,)),  # self broadcast
    ((1, 4), (3, 1)),  # both broadcast
    ((), (2, 3)),  # 0-d gradient
    ((2, 1, 4, 1, 3), (1, 5, 1, 2, 3)),
    ((1,) * 8, (2,) * 8),  # rank 8
]


def _golden(grad, x, dtype):
    g, xx = torch.broadcast_tensors(t(grad), t(x))
    return n(torch.ops.aten.gelu_backward(g, xx, approximate="tanh"), dtype)


@pytest.mark.parametrize("dtype", HALF_AND_SINGLE, ids=HALF_AND_SINGLE_IDS)
@pytest.mark.parametrize("shapes", SHAPE_PAIRS, ids=[f"{a}x{b}" for a, b in SHAPE_PAIRS])
def test_matches_torch(rng, dtype, shapes):
    grad = randn(rng, shapes[0], dtype, 2.0)
    x = randn(rng, shapes[1], dtype, 3.0)
    got = gelu_backward(grad, x)
    close(got, _golden(grad, x, dtype))


@pytest.mark.parametrize(
    "grad_dtype, self_dtype, promoted",
    [
        (F16, F32, F32),
        (BFLOAT16, F16, F32),
        (F32, BFLOAT16, F32),
        (np.dtype(np.int32), F32, F32),  # the doc's own sample: INT32 gradOutput, FLOAT self
        (np.dtype(np.int8), F16, F16),
        (np.dtype(np.bool_), BFLOAT16, BFLOAT16),
    ],
)
def test_promotion(rng, grad_dtype, self_dtype, promoted):
    grad = rng.integers(-3, 4, size=(4, 6)).astype(np.float32).astype(grad_dtype)
    x = randn(rng, (4, 6), self_dtype, 3.0)
    got = gelu_backward(grad, x)
    assert got.dtype == promoted
    # CANN casts both inputs to the promoted dtype first
    close(got, _golden(grad.astype(promoted), x.astype(promoted), promoted))


def test_doc_sample():
    # aclnnGeluBackward.md sample: self = 0..7 (FLOAT), gradOutput = 1 (INT32), shape (4, 2)
    x = np.arange(8, dtype=np.float32).reshape(4, 2)
    grad = np.ones((4, 2), np.int32)
    got = gelu_backward(grad, x)
    want = torch.ops.aten.gelu_backward(torch.ones(4, 2), torch.from_numpy(x), approximate="tanh").numpy()
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)
    assert got[0, 0] == np.float32(0.5)


def test_formula_is_the_tanh_derivative_not_erf():
    x = np.linspace(-6, 6, 1201)
    u = math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)
    tanh_d = 0.5 * (1 + np.tanh(u)) + 0.5 * x * (1 - np.tanh(u) ** 2) * math.sqrt(2 / math.pi) * (
        1 + 3 * 0.044715 * x**2
    )
    erf_d = 0.5 * (1 + np.vectorize(math.erf)(x / math.sqrt(2))) + x / math.sqrt(2 * math.pi) * np.exp(-(x**2) / 2)
    got = gelu_backward(np.ones_like(x, dtype=np.float32), x.astype(np.float32)).astype(np.float64)
    assert np.max(np.abs(got - tanh_d)) < 2e-6
    assert np.max(np.abs(got - erf_d)) > 5e-4  # the doc's erf formula is measurably different


def test_special_values_follow_torch():
    x = SPECIALS
    grad = np.linspace(-2, 2, x.size).astype(np.float32)
    got = gelu_backward(grad, x)
    want = torch.ops.aten.gelu_backward(torch.from_numpy(grad), torch.from_numpy(x), approximate="tanh").numpy()
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-30, equal_nan=True)
    assert np.isnan(got[2]) and np.isnan(got[3]) and np.isnan(got[4])  # +-inf: inf * 0; NaN propagates


def test_accuracy_against_float64(rng):
    x = rng.uniform(-10, 10, 200_000).astype(np.float32)
    grad = rng.standard_normal(x.size).astype(np.float32)
    got = gelu_backward(grad, x)
    ref = torch.ops.aten.gelu_backward(
        torch.from_numpy(grad).double(), torch.from_numpy(x).double(), approximate="tanh"
    ).numpy()
    torch_f32 = torch.ops.aten.gelu_backward(torch.from_numpy(grad), torch.from_numpy(x), approximate="tanh").numpy()
    ours, theirs = np.abs(got - ref).max(), np.abs(torch_f32 - ref).max()
    assert ours < 1e-5 and ours <= 2 * theirs + 1e-6


@pytest.mark.parametrize("dtype", HALF_AND_SINGLE, ids=HALF_AND_SINGLE_IDS)
def test_block_boundaries_and_non_contiguous(rng, dtype):
    size = 37 * (2 * _pointwise.BLOCK // 37 + 3)  # crosses two block boundaries, rows of 37
    grad = randn(rng, (size,), dtype)
    x = randn(rng, (size,), dtype, 3.0)
    close(gelu_backward(grad, x), _golden(grad, x, dtype))
    g2, x2 = strided(grad.reshape(-1, 37)), strided(x.reshape(-1, 37))
    close(gelu_backward(g2, x2), _golden(g2, x2, dtype))
    # broadcast path with more than one block
    xb = randn(rng, (3, 1, 2 * _pointwise.BLOCK + 5), dtype)
    gb = randn(rng, (4, 1), dtype)
    close(gelu_backward(gb, xb), _golden(gb, xb, dtype))


@pytest.mark.parametrize("shapes", [((0,), (0,)), ((2, 0, 3), (3,)), ((0, 1), (1, 5))])
def test_empty(shapes):
    got = gelu_backward(np.zeros(shapes[0], F16), np.zeros(shapes[1], F16))
    assert got.shape == np.broadcast_shapes(*shapes) and got.dtype == F16


def test_rejections():
    f32 = np.zeros((2, 2), np.float32)
    with pytest.raises(TypeError):  # promoted DOUBLE is not supported
        gelu_backward(f32, f32.astype(np.float64))
    with pytest.raises(TypeError):  # promoted INT32
        gelu_backward(f32.astype(np.int32), f32.astype(np.int32))
    with pytest.raises(TypeError):  # UINT16 cannot be promoted with FLOAT
        gelu_backward(f32.astype(np.uint16), f32)
    with pytest.raises(ValueError):
        gelu_backward(f32, np.zeros((3, 2), np.float32))
    with pytest.raises(ValueError):
        gelu_backward(np.zeros((1,) * 9, np.float32), f32)


def test_cost():
    small = cost(np.zeros((4, 4), F32), np.zeros((4,), F32))
    big = cost(np.zeros((400, 400), F32), np.zeros((400,), F32))
    assert small.param == big.param == "gradOutput"
    assert big.bytes > small.bytes and big.ops > small.ops
    assert big.ops >= 400 * 400
    wide = cost(np.zeros((1, 3000), F16), np.zeros((3000, 1), F16))  # broadcast result 3000 x 3000
    assert wide.bytes >= 3000 * 3000 * 2
    assert isinstance(big.bytes, int) and isinstance(big.ops, int)
    assert module.cost is cost
