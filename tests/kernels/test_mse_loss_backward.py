"""mse_loss_backward vs torch.ops.aten.mse_loss_backward (PyTorch CPU)."""

from __future__ import annotations

import numpy as np
import pytest

from generator.kernels import _pointwise
from generator.kernels._common import BFLOAT16
from generator.kernels.mse_loss_backward import cost, mse_loss_backward
from tests.kernels._oracle import F16, F32, HALF_AND_SINGLE, HALF_AND_SINGLE_IDS, close, n, randn, strided, t

torch = pytest.importorskip("torch")

# (grad_output, self, target) shapes
SHAPES = [
    ((), (), ()),
    ((), (3, 4), (3, 4)),  # the usual 'mean' / 'sum' call: one gradient element
    ((3, 4), (3, 4), (3, 4)),  # the usual 'none' call
    ((1,), (2, 3, 4), (4,)),  # target broadcast
    ((2, 1, 4), (1, 3, 4), (3, 1)),  # everything broadcast
    ((3, 1), (1, 5), (3, 5)),  # self broadcast: 'mean' divides by self.numel() = 5
    ((1,) * 8, (2,) * 8, (2,) * 8),
]


def _golden(grad, x, y, reduction, dtype):
    g, xx, yy = torch.broadcast_tensors(t(grad), t(x), t(y))
    # PyTorch divides by input.numel(); broadcasting self first would change it, so pass the scale via grad
    if reduction == 1:
        scale = xx.numel() / max(x.size, 1)
        return n(torch.ops.aten.mse_loss_backward(g * scale, xx, yy, 1), dtype)
    return n(torch.ops.aten.mse_loss_backward(g, xx, yy, reduction), dtype)


@pytest.mark.parametrize("dtype", HALF_AND_SINGLE, ids=HALF_AND_SINGLE_IDS)
@pytest.mark.parametrize("reduction", [0, 1, 2], ids=["none", "mean", "sum"])
@pytest.mark.parametrize("shapes", SHAPES, ids=[f"case{i}" for i in range(len(SHAPES))])
def test_matches_torch(rng, dtype, reduction, shapes):
    grad = randn(rng, shapes[0], dtype)
    x, y = randn(rng, shapes[1], dtype), randn(rng, shapes[2], dtype)
    got = mse_loss_backward(grad, x, y, reduction)
    close(got, _golden(grad, x, y, reduction, dtype))


def test_mean_divides_by_self_numel():
    x = np.array([[1.0, 2.0, 3.0, 4.0]], np.float32)  # 4 elements, broadcast to (2, 4) by the target
    y = np.zeros((2, 4), np.float32)
    got = mse_loss_backward(np.float32(1.0), x, y, 1)
    np.testing.assert_allclose(got, np.broadcast_to(2 * x / 4, (2, 4)), rtol=1e-7)
    # and PyTorch agrees when nothing but self is broadcast away
    want = torch.ops.aten.mse_loss_backward(torch.tensor(1.0), torch.from_numpy(x), torch.from_numpy(y), 1)
    np.testing.assert_allclose(got, want.numpy(), rtol=1e-7)


def test_formula_by_hand():
    g, x, y = np.float32(0.5), np.array([1.0, -2.0, 3.0], np.float32), np.array([0.5, 0.5, 0.5], np.float32)
    np.testing.assert_allclose(mse_loss_backward(g, x, y, 0), 2 * (x - y) * g)
    np.testing.assert_allclose(mse_loss_backward(g, x, y, 2), 2 * (x - y) * g)
    np.testing.assert_allclose(mse_loss_backward(g, x, y, 1), 2 * (x - y) * g / 3, rtol=1e-7)


def test_float16_subnormal_results_are_rounded_exactly(rng):
    # 'mean' over many elements gives float16 subnormals; the fast float16 store must round like NumPy
    x = randn(rng, (300, 300), F16)
    y = randn(rng, (300, 300), F16)
    got = mse_loss_backward(np.float16(1.0), x, y, 1)
    want = (np.float32(2.0 / x.size) * (x.astype(F32) - y.astype(F32))).astype(F16)
    np.testing.assert_array_equal(got.view(np.uint16), want.view(np.uint16))
    assert (np.abs(got.astype(F32)) < 6.1e-5).mean() > 0.9


@pytest.mark.parametrize("dtype", HALF_AND_SINGLE, ids=HALF_AND_SINGLE_IDS)
def test_blocks_and_non_contiguous(rng, dtype):
    rows = 2 * _pointwise.BLOCK // 37 + 3
    grad, x, y = randn(rng, (rows, 37), dtype), randn(rng, (rows, 37), dtype), randn(rng, (rows, 37), dtype)
    close(mse_loss_backward(grad, x, y, 0), _golden(grad, x, y, 0, dtype))
    close(mse_loss_backward(grad[0, 0], strided(x), strided(y), 1), _golden(grad[0, 0], x, y, 1, dtype))


def test_empty():
    got = mse_loss_backward(np.zeros((), F16), np.zeros((0, 3), F16), np.zeros((3,), F16), 1)
    assert got.shape == (0, 3) and got.dtype == F16


def test_rejections():
    f32 = np.zeros((2, 2), F32)
    with pytest.raises(ValueError):
        mse_loss_backward(f32, f32, f32, 3)
    with pytest.raises(ValueError):
        mse_loss_backward(f32, f32, f32, -1)
    with pytest.raises(TypeError):
        mse_loss_backward(f32, f32, f32.astype(F16), 0)
    with pytest.raises(TypeError):
        mse_loss_backward(f32.astype(np.float64), f32.astype(np.float64), f32.astype(np.float64), 0)
    with pytest.raises(ValueError):
        mse_loss_backward(f32, f32, np.zeros((3,), F32), 0)
    with pytest.raises(ValueError):
        mse_loss_backward(f32, np.zeros((1,) * 9, F32), f32, 0)


def test_cost():
    small = cost(np.zeros((), F32), np.zeros((4,), F32), np.zeros((4,), F32), 1)
    big = cost(np.zeros((), BFLOAT16), np.zeros((400,), BFLOAT16), np.zeros((3, 400), BFLOAT16), 1)
    assert small.param == big.param == "self"
    assert big.bytes > small.bytes and big.ops > small.ops and big.ops >= 1200
