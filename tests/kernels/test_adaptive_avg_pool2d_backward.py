"""adaptive_avg_pool2d_backward vs torch.ops.aten._adaptive_avg_pool2d_backward (float32 golden)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from generator.kernels._common import BFLOAT16, Cost
from generator.kernels.adaptive_avg_pool2d_backward import adaptive_avg_pool2d_backward, adaptive_weights, cost
from tests.kernels.conftest import DTYPE_IDS, DTYPES, TOLERANCES, to_torch

torch = pytest.importorskip("torch")

# (self shape, (Ho, Wo))
CASES = [
    ((2, 3, 8, 8), (4, 4)),  # divides
    ((2, 3, 7, 9), (3, 4)),  # does not divide: overlapping windows
    ((4, 10, 6), (4, 5)),  # 3-D (C, H, W)
    ((1, 2, 5, 5), (7, 8)),  # output larger than input
    ((2, 5, 7, 7), (1, 1)),  # global pooling path
    ((3, 6, 11), (1, 1)),  # global, 3-D
    ((1, 1, 1, 1), (1, 1)),
    ((2, 3, 13, 6), (5, 1)),  # one axis reduced to 1 only
    ((1, 4, 9, 9), (9, 9)),  # identity
]
CASE_IDS = [f"{s}->{o}" for s, o in CASES]


def _golden(g, x):
    return torch.ops.aten._adaptive_avg_pool2d_backward(to_torch(g).float(), to_torch(x).float()).numpy()


def _close(got, want, dtype):
    rtol, atol = TOLERANCES[np.dtype(dtype)]
    np.testing.assert_allclose(got.astype(np.float32), want.astype(dtype).astype(np.float32), rtol=rtol, atol=atol)


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("shape, out", CASES, ids=CASE_IDS)
def test_matches_torch(rng, shape, out, dtype):
    x = rng.standard_normal(shape).astype(np.float32).astype(dtype)
    g = rng.standard_normal(shape[:-2] + out).astype(np.float32).astype(dtype)
    got = adaptive_avg_pool2d_backward(g, x)
    assert got.dtype == dtype and got.shape == shape
    _close(got, _golden(g, x), dtype)


def test_forward_adjoint(rng):
    """<adaptive_avg_pool2d(x), g> == <x, backward(g)>: the kernel is the exact transpose of the forward."""
    x = rng.standard_normal((2, 3, 11, 7)).astype(np.float32)
    g = rng.standard_normal((2, 3, 4, 3)).astype(np.float32)
    fwd = torch.nn.functional.adaptive_avg_pool2d(torch.from_numpy(x), (4, 3)).numpy()
    lhs = float((fwd.astype(np.float64) * g).sum())
    rhs = float((x.astype(np.float64) * adaptive_avg_pool2d_backward(g, x)).sum())
    assert abs(lhs - rhs) < 1e-4 * max(1.0, abs(lhs))


def test_window_weights():
    w = adaptive_weights(5, 3)  # windows [0,2), [1,4), [3,5)
    np.testing.assert_allclose(w, [[0.5, 0.5, 0, 0, 0], [0, 1 / 3, 1 / 3, 1 / 3, 0], [0, 0, 0, 0.5, 0.5]], rtol=1e-7)
    np.testing.assert_allclose(adaptive_weights(4, 4), np.eye(4))


@pytest.mark.parametrize("dtype", [np.dtype(np.float16), BFLOAT16], ids=["float16", "bfloat16"])
def test_global_path_uses_the_factor_rounded_to_the_dtype(rng, dtype):
    """1/(H*W) is converted to the tensor dtype before the multiply, as the op's Fill+Mul path does."""
    x = np.zeros((2, 3, 7, 7), dtype)
    g = rng.standard_normal((2, 3, 1, 1)).astype(np.float32).astype(dtype)
    factor = np.float32(np.float32(1 / 49).astype(dtype))
    want = (g.astype(np.float32) * factor).astype(dtype)
    got = adaptive_avg_pool2d_backward(g, x)
    np.testing.assert_array_equal(got, np.broadcast_to(want, x.shape))


def test_non_contiguous_inputs(rng):
    x = rng.standard_normal((3, 2, 9, 7)).astype(np.float32)
    g = rng.standard_normal((3, 2, 4, 3)).astype(np.float32)
    got = adaptive_avg_pool2d_backward(np.asfortranarray(g), x[:, :, :, ::-1])
    np.testing.assert_allclose(got, _golden(g, x), rtol=1e-6, atol=1e-6)


def test_empty_tensors():
    x = np.zeros((0, 3, 4, 4), np.float32)
    got = adaptive_avg_pool2d_backward(np.zeros((0, 3, 2, 2), np.float32), x)
    assert got.shape == x.shape
    with pytest.raises(ValueError):  # empty grad_output, non-empty self: out left unwritten by the op
        adaptive_avg_pool2d_backward(np.zeros((1, 3, 0, 2), np.float32), np.zeros((1, 3, 4, 4), np.float32))


def test_non_finite_values_stay_in_their_window():
    x = np.zeros((1, 1, 4, 4), np.float32)  # windows of a 2x2 output do not overlap
    g = np.zeros((1, 1, 2, 2), np.float32)
    g[0, 0, 0, 0] = np.nan
    g[0, 0, 1, 1] = np.inf
    got = adaptive_avg_pool2d_backward(g, x)
    want = _golden(g, x)
    assert np.isnan(got[0, 0, :2, :2]).all() and np.isinf(got[0, 0, 2:, 2:]).all()
    np.testing.assert_array_equal(got, want)  # nothing leaks into the other windows (no 0 * inf)


def test_rejections():
    x = np.zeros((1, 2, 4, 4), np.float32)
    run = adaptive_avg_pool2d_backward
    with pytest.raises(ValueError):  # rank mismatch
        run(np.zeros((2, 2, 2), np.float32), x)
    with pytest.raises(ValueError):  # 5-D
        run(np.zeros((1, 1, 2, 2, 2), np.float32), x[None])
    with pytest.raises(ValueError):  # N/C mismatch
        run(np.zeros((1, 3, 2, 2), np.float32), x)
    with pytest.raises(TypeError):
        run(np.zeros((1, 2, 2, 2), np.float16), x)
    with pytest.raises(TypeError):
        run(np.zeros((1, 2, 2, 2), np.int32), x.astype(np.int32))


def test_cost_is_monotone_and_names_grad_output():
    def c(n):
        return cost(np.empty((n, 8, 3, 3), np.float32), np.empty((n, 8, 9, 9), np.float32))

    small, big = c(1), c(16)
    assert isinstance(small, Cost) and small.param == "gradOutput"
    assert big.bytes > small.bytes and big.ops > small.ops and isinstance(big.bytes, int)


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_compiled_spread_equals_the_numpy_path_bit_for_bit(rng, dtype):
    """The compiled loop (one pass per plane, straight into the result) assigns, adds and rounds as the NumPy
    path: overlapping and disjoint windows, 1xN and Nx1 pools, non-contiguous gradients, a negative zero."""
    from generator.kernels import _accel

    pytest.importorskip("numba")
    for (h, w), (ho, wo) in itertools.product([(7, 7), (13, 9), (5, 17), (1, 6)], [(2, 3), (5, 5), (13, 9), (4, 1)]):
        x = rng.standard_normal((2, 3, h, w)).astype(dtype)
        g = (rng.standard_normal((2, 3, wo, ho)) * 5).astype(dtype).swapaxes(-1, -2)
        g[0, 0, 0, 0] = -0.0
        with _accel.forced("numpy"):
            expected = adaptive_avg_pool2d_backward(g, x)
        with _accel.forced("compiled"):
            got = adaptive_avg_pool2d_backward(g, x)
        assert got.dtype == expected.dtype and got.shape == expected.shape
        np.testing.assert_array_equal(got.view(np.uint8), expected.view(np.uint8))
