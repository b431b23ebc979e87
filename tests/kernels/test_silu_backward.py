"""silu_backward vs torch.ops.aten.silu_backward (PyTorch CPU)."""

from __future__ import annotations

import numpy as np
import pytest

from generator.kernels import _pointwise
from generator.kernels._common import BFLOAT16
from generator.kernels.silu_backward import cost, silu_backward
from tests.kernels._oracle import F16, F32, HALF_AND_SINGLE, HALF_AND_SINGLE_IDS, SPECIALS, close, n, randn, strided, t

torch = pytest.importorskip("torch")

SHAPE_PAIRS = [((), ()), ((7,), (7,)), ((3, 5), (3, 5)), ((2, 3, 5), (2, 3, 5)), ((4, 1), (1, 6)), ((1,) * 8, (2,) * 8)]


def _golden(grad, x, dtype):
    g, xx = torch.broadcast_tensors(t(grad), t(x))
    return n(torch.ops.aten.silu_backward(g, xx), dtype)


@pytest.mark.parametrize("dtype", HALF_AND_SINGLE, ids=HALF_AND_SINGLE_IDS)
@pytest.mark.parametrize("shapes", SHAPE_PAIRS, ids=[f"{a}x{b}" for a, b in SHAPE_PAIRS])
def test_matches_torch(rng, dtype, shapes):
    grad = randn(rng, shapes[0], dtype, 2.0)
    x = randn(rng, shapes[1], dtype, 4.0)
    close(silu_backward(grad, x), _golden(grad, x, dtype))


@pytest.mark.parametrize(
    "dtypes", [(F16, F32), (F32, BFLOAT16), (BFLOAT16, F16)], ids=["f16-f32", "f32-bf16", "bf16-f16"]
)
def test_mixed_precision_writes_float32(rng, dtypes):
    # 950 only (the validator rejects mixed dtypes elsewhere): SiluGrad takes both as they are, writes FLOAT
    grad = randn(rng, (4, 1, 5), dtypes[0], 2.0)
    x = randn(rng, (3, 5), dtypes[1], 4.0)
    got = silu_backward(grad, x)
    assert got.dtype == F32 and got.shape == (4, 3, 5)
    close(got, _golden(grad, x, F32))


def test_formula_by_hand():
    x = np.array([-3.0, -0.5, 0.0, 0.5, 3.0], np.float64)
    g = np.array([1.0, -2.0, 3.0, 0.5, -1.0], np.float64)
    s = 1 / (1 + np.exp(-x))
    want = g * s * (1 + x * (1 - s))
    got = silu_backward(g.astype(np.float32), x.astype(np.float32))
    np.testing.assert_allclose(got, want, rtol=2e-7)


def test_special_values_follow_torch():
    x = SPECIALS
    grad = np.linspace(-2, 2, x.size).astype(np.float32)
    got = silu_backward(grad, x)
    want = torch.ops.aten.silu_backward(torch.from_numpy(grad), torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-37, equal_nan=True)
    assert np.isnan(got[2]) and np.isnan(got[3]) and np.isnan(got[4])


@pytest.mark.parametrize("dtype", HALF_AND_SINGLE, ids=HALF_AND_SINGLE_IDS)
def test_blocks_and_non_contiguous(rng, dtype):
    rows = 2 * _pointwise.BLOCK // 37 + 3
    grad = randn(rng, (rows, 37), dtype)
    x = randn(rng, (rows, 37), dtype, 4.0)
    close(silu_backward(grad, x), _golden(grad, x, dtype))
    g2, x2 = strided(grad), strided(x)
    close(silu_backward(g2, x2), _golden(g2, x2, dtype))


def test_empty():
    got = silu_backward(np.zeros((0, 3), BFLOAT16), np.zeros((0, 3), BFLOAT16))
    assert got.shape == (0, 3) and got.dtype == BFLOAT16
    assert silu_backward(np.zeros((2, 0), F16), np.zeros((0,), F32)).dtype == F32


def test_rejections():
    f32 = np.zeros((2, 2), np.float32)
    with pytest.raises(TypeError):
        silu_backward(f32.astype(np.float64), f32)
    with pytest.raises(TypeError):
        silu_backward(f32, f32.astype(np.int32))
    with pytest.raises(ValueError):
        silu_backward(f32, np.zeros((3,), np.float32))
    with pytest.raises(ValueError):
        silu_backward(np.zeros((1,) * 9, np.float32), f32)


def test_cost():
    small, big = cost(np.zeros(3, F32), np.zeros(3, F32)), cost(np.zeros((300, 3), F32), np.zeros(3, F32))
    assert small.param == big.param == "gradOutput"
    assert big.bytes > small.bytes and big.ops > small.ops and big.ops >= 900
