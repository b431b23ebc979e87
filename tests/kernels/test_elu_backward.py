"""elu_backward vs torch.ops.aten.elu_backward (PyTorch CPU)."""

from __future__ import annotations

import numpy as np
import pytest

from generator.kernels import elu_backward as module
from generator.kernels.elu_backward import elu_backward
from tests.kernels.conftest import DTYPE_IDS, DTYPES, TOLERANCES, from_torch, to_torch

torch = pytest.importorskip("torch")

SHAPES = [(), (1,), (7,), (3, 5), (2, 3, 5), (2, 1, 4, 3), (3, 1, 2, 1, 5)]
COEFFS = [(1.0, 1.0, 1.0), (1.6732632, 1.0507010, 1.0), (0.5, 2.0, 0.25), (2.5, -0.75, 1.5), (1.0, 1.0, -0.5)]


def _golden(grad, x, alpha, scale, input_scale, is_result):
    """ATK golden: PyTorch in float32, result cast back to the input dtype."""
    res = torch.ops.aten.elu_backward(
        torch.from_numpy(grad.astype(np.float32)),
        alpha,
        scale,
        input_scale,
        is_result,
        torch.from_numpy(x.astype(np.float32)),
    )
    return res.numpy().astype(grad.dtype)


def _inputs(rng, shape, dtype, is_result, alpha):
    grad = rng.uniform(-3, 3, size=shape).astype(np.float32)
    x = rng.uniform(-4, 4, size=shape).astype(np.float32)
    if is_result:  # a forward OUTPUT of ELU lies in (-alpha*scale, inf); any value is fine for the formula
        x = np.where(x > 0, x, -alpha * (1 - np.exp(x)))
    flat = x.reshape(-1)
    if flat.size:
        flat[:: max(1, flat.size // 3)] = 0.0  # exercise the x == 0 -> negative-branch rule
    return grad.astype(dtype), x.astype(np.float32).astype(dtype)


def _close(got, want):
    rtol, atol = TOLERANCES[np.dtype(want.dtype)]
    np.testing.assert_allclose(got.astype(np.float32), want.astype(np.float32), rtol=rtol, atol=atol)


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("is_result", [False, True])
@pytest.mark.parametrize("coeffs", COEFFS)
def test_matches_torch(rng, dtype, is_result, coeffs):
    alpha, scale, input_scale = coeffs
    for shape in SHAPES:
        grad, x = _inputs(rng, shape, dtype, is_result, alpha)
        got = elu_backward(grad, alpha, scale, input_scale, is_result, x)
        assert got.dtype == dtype and got.shape == grad.shape
        _close(got, _golden(grad, x, alpha, scale, input_scale, is_result))
        # and against PyTorch running natively in the low-precision dtype
        native = from_torch(
            torch.ops.aten.elu_backward(to_torch(grad), alpha, scale, input_scale, is_result, to_torch(x))
        )
        _close(got, native)


@pytest.mark.parametrize("is_result", [False, True])
def test_formula_by_hand(is_result):
    alpha, scale, input_scale = 1.5, 1.25, 0.5
    x = np.array([-2.0, -0.0, 0.0, 0.5, 3.0], dtype=np.float32)
    g = np.array([1.0, 2.0, -3.0, 4.0, -5.0], dtype=np.float32)
    if is_result:
        neg = g * input_scale * (x + alpha * scale)
    else:
        neg = g * input_scale * alpha * scale * np.exp(x * input_scale)
    want = np.where(x > 0, g * scale, neg)
    got = elu_backward(g, alpha, scale, input_scale, is_result, x)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=0)
    # zero (both signs) takes the negative branch
    assert got[1] == pytest.approx(neg[1]) and got[2] == pytest.approx(neg[2])
    assert got[1] != pytest.approx(g[1] * scale)


def test_doc_sample():
    # aclnnEluBackward.md sample: alpha = scale = inputScale = 1, isResult = true
    g = np.array([-2, -1, 0, 1], dtype=np.float32).reshape(2, 2)
    x = g.copy()
    got = elu_backward(g, 1.0, 1.0, 1.0, True, x)
    np.testing.assert_array_equal(got, np.array([[2, 0], [0, 1]], dtype=np.float32))


@pytest.mark.parametrize("is_result", [False, True])
def test_special_values_follow_torch(is_result):
    x = np.array([np.nan, 0.0, -0.0, 1e-30, -1e-30, np.inf, -np.inf, 100.0, -100.0, 88.0], dtype=np.float32)
    g = np.array([1.5, -2.0, 3.0, 0.5, 2.0, 1.0, 1.0, 2.0, 3.0, np.inf], dtype=np.float32)
    for coeffs in [(1.0, 1.0, 1.0), (0.5, 2.0, -3.0)]:
        got = elu_backward(g, *coeffs, is_result, x)
        want = _golden(g, x, *coeffs, is_result)
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=0, equal_nan=True)
    # NaN in x -> positive branch (PyTorch tests x <= 0)
    assert elu_backward(g[:1], 1.0, 2.0, 1.0, is_result, x[:1])[0] == np.float32(3.0)


def test_block_boundaries(rng):
    n = 2 * module._BLOCK + 17
    g = rng.standard_normal(n).astype(np.float32)
    x = rng.standard_normal(n).astype(np.float32)
    for is_result in (False, True):
        got = elu_backward(g.reshape(-1, 1), 1.3, 0.9, 1.1, is_result, x.reshape(-1, 1))
        _close(got, _golden(g.reshape(-1, 1), x.reshape(-1, 1), 1.3, 0.9, 1.1, is_result))


def test_non_contiguous_and_scalar_types(rng):
    g = rng.standard_normal((6, 8)).astype(np.float32)[:, ::2]
    x = rng.standard_normal((8, 12)).astype(np.float32).T[::2, ::2]
    got = elu_backward(g, 1, True, np.float64(0.5), False, x)  # int / bool / numpy scalars are cast to float
    _close(got, _golden(np.ascontiguousarray(g), np.ascontiguousarray(x), 1.0, 1.0, 0.5, False))


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_empty(dtype):
    for shape in [(0,), (2, 0, 3)]:
        got = elu_backward(np.zeros(shape, dtype), 1.0, 1.0, 1.0, False, np.zeros(shape, dtype))
        assert got.shape == shape and got.dtype == dtype


def test_rejections():
    f32 = np.zeros((2, 2), np.float32)
    with pytest.raises(ValueError):
        elu_backward(f32, -0.5, 1.0, 1.0, True, f32)
    elu_backward(f32, -0.5, 1.0, 1.0, False, f32)  # negative alpha is fine for isResult = false
    with pytest.raises(TypeError):
        elu_backward(f32, 1.0, 1.0, 1.0, False, f32.astype(np.float16))
    with pytest.raises(TypeError):
        elu_backward(f32.astype(np.float64), 1.0, 1.0, 1.0, False, f32.astype(np.float64))
    with pytest.raises(ValueError):
        elu_backward(f32, 1.0, 1.0, 1.0, False, np.zeros((2, 3), np.float32))
    with pytest.raises(ValueError):
        big = np.zeros((1,) * 9, np.float32)
        elu_backward(big, 1.0, 1.0, 1.0, False, big)
