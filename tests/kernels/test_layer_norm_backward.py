"""layer_norm_backward vs torch.ops.aten.native_layer_norm_backward (golden computed in float32)."""

from __future__ import annotations

import numpy as np
import pytest

from generator.kernels._common import BFLOAT16, Cost
from generator.kernels.layer_norm_backward import cost, layer_norm_backward
from tests.kernels.conftest import DTYPE_IDS, DTYPES, TOLERANCES

torch = pytest.importorskip("torch")

F32 = np.dtype(np.float32)

# (input shape, normalized_shape)
SHAPES = [
    ((4, 8), [8]),
    ((3, 5, 7), [7]),
    ((2, 3, 4, 6), [4, 6]),
    ((2, 3, 5), [2, 3, 5]),  # everything normalised: M = 1
    ((6,), [6]),  # 1-D input
    ((1, 2, 1, 2, 1, 2, 1, 3), [2, 1, 3]),  # 8-D
    ((300, 40), [40]),  # several blocks of rows
]
SHAPE_IDS = [f"{s}-{n}" for s, n in SHAPES]
MASKS = [[True, True, True], [True, False, False], [False, True, False], [False, False, True], [False, True, True]]


def _inputs(rng, shape, norm, dtype, stats_dtype=F32, weight_dtype=None, with_weight=True):
    x = rng.standard_normal(shape).astype(np.float32) * 2 + 0.5
    x = x.astype(dtype)
    g = rng.standard_normal(shape).astype(np.float32).astype(dtype)
    nd = len(norm)
    _, mean_t, rstd_t = torch.ops.aten.native_layer_norm(torch.from_numpy(x.astype(np.float32)), norm, None, None, 1e-5)
    mean = mean_t.numpy().astype(stats_dtype)
    rstd = rstd_t.numpy().astype(stats_dtype)
    weight = None
    if with_weight:
        weight = (rng.standard_normal(tuple(norm)).astype(np.float32) + 1).astype(weight_dtype or dtype)
    assert mean.shape == shape[: len(shape) - nd] + (1,) * nd
    return g, x, mean, rstd, weight


def _golden(g, x, norm, mean, rstd, weight, mask):
    """torch in float32 on the (possibly half-rounded) values."""

    def t(a):
        return None if a is None else torch.from_numpy(np.asarray(a, dtype=np.float32))

    mean32 = np.asarray(mean, np.float32).reshape(x.shape[: x.ndim - len(norm)] + (1,) * len(norm))
    rstd32 = np.asarray(rstd, np.float32).reshape(mean32.shape)
    # torch needs a bias tensor whenever a weight is given and gradBias is requested; it does not enter the result
    bias = None if weight is None else np.zeros(np.shape(weight), np.float32)
    out = torch.ops.aten.native_layer_norm_backward(t(g), t(x), norm, t(mean32), t(rstd32), t(weight), t(bias), mask)
    return [None if o is None or not m else o.numpy() for o, m in zip(out, mask, strict=True)]


def _close(got, want, dtype, scale=1.0):
    rtol, atol = TOLERANCES[np.dtype(dtype)]
    want = np.asarray(want, np.float32).astype(dtype).astype(np.float32)
    np.testing.assert_allclose(np.asarray(got, np.float32), want, rtol=rtol, atol=atol * scale)


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("shape, norm", SHAPES, ids=SHAPE_IDS)
def test_matches_torch(rng, dtype, shape, norm):
    g, x, mean, rstd, w = _inputs(rng, shape, norm, dtype)
    mask = [True, True, True]
    dx, dw, db = layer_norm_backward(g, x, norm, mean, rstd, w, None, mask)
    want = _golden(g, x, norm, mean, rstd, w, mask)
    assert dx.dtype == dtype and dx.shape == shape
    assert dw.dtype == F32 and dw.shape == tuple(norm) and db.shape == tuple(norm)
    _close(dx, want[0], dtype)
    # gradWeight/gradBias are float32 sums over M rows: compare at float32 precision scaled by the row count
    m = int(np.prod(shape)) // int(np.prod(norm))
    np.testing.assert_allclose(dw, want[1], rtol=1e-4, atol=1e-5 * m)
    np.testing.assert_allclose(db, want[2], rtol=1e-4, atol=1e-5 * m)


@pytest.mark.parametrize("mask", MASKS, ids=[str(m) for m in MASKS])
def test_output_mask(rng, mask):
    shape, norm = (5, 3, 8), [3, 8]
    g, x, mean, rstd, w = _inputs(rng, shape, norm, F32)
    got = layer_norm_backward(g, x, norm, mean, rstd, w, w, mask)
    want = _golden(g, x, norm, mean, rstd, w, mask)
    for o, wv, m in zip(got, want, mask, strict=True):
        if not m:
            assert o is None
        else:
            np.testing.assert_allclose(o, wv, rtol=1e-5, atol=1e-5)


def test_all_masks_false_returns_nothing(rng):
    g, x, mean, rstd, w = _inputs(rng, (2, 4), [4], F32)
    assert layer_norm_backward(g, x, [4], mean, rstd, w, None, [False, False, False]) == (None, None, None)


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_null_weight_is_ones(rng, dtype):
    shape, norm = (6, 10), [10]
    g, x, mean, rstd, _ = _inputs(rng, shape, norm, dtype)
    got = layer_norm_backward(g, x, norm, mean, rstd, None, None, [True, True, True])
    ones = np.ones(norm, dtype)
    _close(got[0], _golden(g, x, norm, mean, rstd, None, [True, False, False])[0], dtype)
    want = _golden(g, x, norm, mean, rstd, ones, [True, True, True])  # torch needs a weight for gradWeight
    np.testing.assert_allclose(got[1], want[1], rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(got[2], want[2], rtol=1e-4, atol=1e-4)
    np.testing.assert_array_equal(got[0], layer_norm_backward(g, x, norm, mean, rstd, ones, None, [1, 0, 0])[0])


@pytest.mark.parametrize("dtype", [np.dtype(np.float16), BFLOAT16], ids=["float16", "bfloat16"])
def test_mixed_precision_float32_weight_and_stats(rng, dtype):
    """Half input with float32 weight (allowed by the op) and half-precision mean/rstd (cast to float32)."""
    shape, norm = (16, 32), [32]
    g, x, mean, rstd, w = _inputs(rng, shape, norm, dtype, stats_dtype=dtype, weight_dtype=F32)
    assert w.dtype == F32 and mean.dtype == dtype
    got = layer_norm_backward(g, x, norm, mean, rstd, w, None, [True, True, True])
    want = _golden(g, x, norm, mean, rstd, w, [True, True, True])
    _close(got[0], want[0], dtype)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-4, atol=1e-4)


def test_mean_rstd_any_shape_with_m_elements(rng):
    """The op compares only element counts: flat (M,) statistics give the same result."""
    shape, norm = (3, 4, 5), [5]
    g, x, mean, rstd, w = _inputs(rng, shape, norm, F32)
    a = layer_norm_backward(g, x, norm, mean, rstd, w, None, [True, True, True])
    b = layer_norm_backward(g, x, norm, mean.reshape(-1), rstd.reshape(-1), w, None, [True, True, True])
    for u, v in zip(a, b, strict=True):
        np.testing.assert_array_equal(u, v)


def test_non_contiguous_inputs(rng):
    shape, norm = (6, 8), [8]
    g, x, mean, rstd, w = _inputs(rng, shape, norm, F32)
    gt = np.asfortranarray(g)
    xt = np.ascontiguousarray(x.T).T  # same values, transposed strides
    got = layer_norm_backward(gt, xt, norm, mean, rstd, w[::-1].copy()[::-1], None, [True, True, True])
    want = _golden(g, x, norm, mean, rstd, w, [True, True, True])
    for o, wv in zip(got, want, strict=True):
        np.testing.assert_allclose(o, wv, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_strided_read_only_statistics_and_weight(rng, dtype):
    """Statistics and weight as strided, read-only or other-dtype views give the contiguous result bit for bit."""
    shape, norm = (5, 6), [6]
    g, x, mean, rstd, w = _inputs(rng, shape, norm, dtype)
    want = layer_norm_backward(g, x, norm, mean, rstd, w, None, [True, True, True])
    mean2 = np.repeat(mean.reshape(-1), 2)[::2]  # every other element: strided
    rstd2 = rstd.reshape(-1).astype(np.float64)  # converted to float32 exactly
    w2 = np.repeat(w, 2)[::2]
    for a in (g, x, mean2, w2):
        a.flags.writeable = False
    got = layer_norm_backward(g, x, norm, mean2, rstd2, w2, None, [True, True, True])
    for u, v in zip(got, want, strict=True):
        assert u.dtype == v.dtype and u.shape == v.shape
        np.testing.assert_array_equal(u.view(np.uint8), v.view(np.uint8))


def test_empty_rows_give_zero_weight_and_bias_grads():
    x = np.zeros((0, 4), np.float32)
    dx, dw, db = layer_norm_backward(
        x, x, [4], np.zeros((0, 1), np.float32), np.zeros((0, 1), np.float32), None, None, [1, 1, 1]
    )
    assert dx.shape == (0, 4)
    np.testing.assert_array_equal(dw, np.zeros(4))
    np.testing.assert_array_equal(db, np.zeros(4))
    t = torch.ops.aten.native_layer_norm_backward(
        torch.from_numpy(x),
        torch.from_numpy(x),
        [4],
        torch.zeros(0, 1),
        torch.zeros(0, 1),
        torch.ones(4),
        torch.zeros(4),
        [True, True, True],
    )
    np.testing.assert_array_equal(dw, t[1].numpy())


def test_empty_normalized_axis():
    x = np.zeros((3, 0), np.float32)
    dx, dw, db = layer_norm_backward(x, x, [0], np.zeros(3, np.float32), np.ones(3, np.float32), None, None, [1, 1, 1])
    assert dx.shape == (3, 0) and dw.shape == (0,) and db.shape == (0,)


def test_non_finite_values_propagate(rng):
    g, x, mean, rstd, w = _inputs(rng, (2, 4), [4], F32)
    g[0, 1] = np.inf
    dx, dw, db = layer_norm_backward(g, x, [4], mean, rstd, w, None, [True, True, True])
    assert not np.isfinite(dx[0]).all() and np.isfinite(dx[1]).all()
    assert np.isinf(db[1])


def test_rejections(rng):
    g, x, mean, rstd, w = _inputs(rng, (3, 4), [4], F32)
    run = layer_norm_backward
    with pytest.raises(ValueError):  # normalized_shape longer than the input rank
        run(g, x, [1, 3, 4], mean, rstd, w, None, [1, 1, 1])
    with pytest.raises(ValueError):  # empty normalized_shape
        run(g, x, [], mean, rstd, w, None, [1, 1, 1])
    with pytest.raises(ValueError):  # normalized_shape does not describe the trailing dims
        run(g, x, [5], mean, rstd, w, None, [1, 1, 1])
    with pytest.raises(ValueError):  # weight of the wrong length
        run(g, x, [4], mean, rstd, w[:3], None, [1, 1, 1])
    with pytest.raises(ValueError):  # mean with the wrong element count
        run(g, x, [4], mean[:2], rstd, w, None, [1, 1, 1])
    with pytest.raises(ValueError):  # mask of length 2
        run(g, x, [4], mean, rstd, w, None, [1, 1])
    with pytest.raises(ValueError):  # grad_out shape differs
        run(g[:2], x, [4], mean, rstd, w, None, [1, 1, 1])
    with pytest.raises(TypeError):  # grad_out dtype differs from input
        run(g.astype(np.float16), x, [4], mean, rstd, w, None, [1, 1, 1])
    with pytest.raises(TypeError):  # integer input
        run(g.astype(np.int32), x.astype(np.int32), [4], mean, rstd, w, None, [1, 1, 1])
    with pytest.raises(TypeError, match="rstd: dtype"):  # byte-swapped float32: not a dtype the op knows
        run(g, x, [4], mean, rstd.astype(">f4"), w, None, [1, 1, 1])


def test_cost_is_monotone_and_names_input():
    def c(shape):
        a = np.empty(shape, np.float32)
        return cost(a, a, [shape[-1]], None, None, None, None, [1, 1, 1])

    small, big = c((8, 64)), c((64, 64))
    assert isinstance(small, Cost) and small.param == "input"
    assert big.bytes > small.bytes and big.ops > small.ops
    assert isinstance(big.bytes, int) and isinstance(big.ops, int)


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("mask", MASKS, ids=[str(m) for m in MASKS])
def test_compiled_and_numpy_paths_agree(rng, dtype, mask):
    """The compiled two-pass row loop against the NumPy reference path (and both against torch above)."""
    pytest.importorskip("numba")
    from generator.kernels import _accel

    shape, norm = (200, 3, 50), [3, 50]  # 200 rows: several float32 flushes of the column sums
    g, x, mean, rstd, w = _inputs(rng, shape, norm, dtype)
    with _accel.forced("numpy"):
        reference = layer_norm_backward(g, x, norm, mean, rstd, w, None, mask)
    with _accel.forced("compiled"):
        compiled = layer_norm_backward(g, x, norm, mean, rstd, w, None, mask)
    for want, got, on in zip(reference, compiled, mask, strict=True):
        assert (got is None) == (not on)
        if on:
            assert got.dtype == want.dtype and got.shape == want.shape
            # one rounding of the same float32 formula (dx); float32 partial sums in another order (dw, db)
            rtol, atol = TOLERANCES[np.dtype(got.dtype)]
            np.testing.assert_allclose(np.asarray(got, np.float32), np.asarray(want, np.float32), rtol=rtol, atol=atol)


@pytest.mark.parametrize("n", [1 << 16, 1 << 20])
def test_long_rows_stay_accurate(rng, n):
    """The row sums are float32 vector-lane sums (as PyTorch's): over rows of up to 2^20 elements gradInput stays
    within a few float32 ulps of a float64 reference (the rounding of the result dominates)."""
    m = 2
    g, x, mean, rstd, weight = _inputs(rng, (m, n), [n], F32)
    got = layer_norm_backward(g, x, [n], mean, rstd, weight, None, [True, True, True])

    def t(a):
        return torch.from_numpy(np.asarray(a, np.float64))

    want = torch.ops.aten.native_layer_norm_backward(
        t(g), t(x), [n], t(mean), t(rstd), t(weight), t(np.zeros(n)), [True, True, True]
    )
    scale = float(np.abs(want[0].numpy()).max())
    np.testing.assert_allclose(got[0], want[0].numpy(), rtol=0, atol=8 * np.finfo(np.float32).eps * scale)
    np.testing.assert_allclose(got[1], want[1].numpy(), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(got[2], want[2].numpy(), rtol=1e-6, atol=1e-6)
