"""batch_norm_backward vs torch.ops.aten.native_batch_norm_backward (golden computed in float32)."""

from __future__ import annotations

import numpy as np
import pytest

from generator.kernels._common import BFLOAT16, Cost
from generator.kernels.batch_norm_backward import batch_norm_backward, cost
from tests.kernels.conftest import DTYPE_IDS, DTYPES, TOLERANCES

torch = pytest.importorskip("torch")

F32 = np.dtype(np.float32)
F16 = np.dtype(np.float16)
SHAPES = [(8, 3), (4, 5, 7), (2, 3, 5, 6), (2, 4, 3, 2, 5), (2, 3, 2, 1, 2, 3), (1, 2, 1, 2, 1, 2, 1, 3), (3, 70, 9, 9)]
SHAPE_IDS = [str(s) for s in SHAPES]
MASKS = [[True, True, True], [True, False, False], [False, True, False], [False, False, True], [False, True, True]]


def _stats(x, c_axis=1):
    axes = tuple(i for i in range(x.ndim) if i != c_axis)
    x32 = x.astype(np.float32)
    mean = x32.mean(axis=axes)
    var = x32.var(axis=axes)
    return mean.astype(np.float32), (1.0 / np.sqrt(var + 1e-5)).astype(np.float32)


def _inputs(rng, shape, dtype, param_dtype=None):
    c = shape[1]
    x = (rng.standard_normal(shape).astype(np.float32) * 1.5 + 0.7).astype(dtype)
    g = rng.standard_normal(shape).astype(np.float32).astype(dtype)
    pd = param_dtype or dtype
    w = (rng.standard_normal(c).astype(np.float32) + 1).astype(pd)
    rm = rng.standard_normal(c).astype(np.float32).astype(pd)
    rv = rng.uniform(0.5, 2.0, c).astype(np.float32).astype(pd)
    sm, si = _stats(x)
    return g, x, w, rm, rv, sm.astype(pd), si.astype(pd)


def _t(a):
    return None if a is None else torch.from_numpy(np.asarray(a, dtype=np.float32))


def _golden(g, x, w, rm, rv, sm, si, training, eps, mask):
    """torch in float32 on the given values; None args are replaced by the op's defaults (torch needs them)."""
    c = x.shape[1]
    rm = np.zeros(c) if rm is None else rm
    rv = np.ones(c) if rv is None else rv
    sm = np.zeros(c) if sm is None else sm
    si = np.ones(c) if si is None else si
    out = torch.ops.aten.native_batch_norm_backward(
        _t(g), _t(x), _t(w), _t(rm), _t(rv), _t(sm), _t(si), training, eps, mask
    )
    return [o.numpy() if m else None for o, m in zip(out, mask, strict=True)]


def _close(got, want, dtype, count=1):
    rtol, atol = TOLERANCES[np.dtype(dtype)]
    want = np.asarray(want, np.float32).astype(dtype).astype(np.float32)
    np.testing.assert_allclose(np.asarray(got, np.float32), want, rtol=rtol, atol=atol * max(1.0, np.sqrt(count)))


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("training", [True, False], ids=["train", "eval"])
@pytest.mark.parametrize("shape", SHAPES, ids=SHAPE_IDS)
def test_matches_torch(rng, shape, training, dtype):
    g, x, w, rm, rv, sm, si = _inputs(rng, shape, dtype)
    mask = [True, True, True]
    dx, dw, db = batch_norm_backward(g, x, w, rm, rv, sm, si, training, 1e-5, mask)
    want = _golden(g, x, w, rm, rv, sm, si, training, 1e-5, mask)
    assert dx.dtype == dtype and dx.shape == shape
    assert dw.dtype == F32 and db.dtype == F32 and dw.shape == (shape[1],)
    _close(dx, want[0], dtype)
    m = x.size // shape[1]
    np.testing.assert_allclose(dw, want[1], rtol=1e-4, atol=1e-5 * m)
    np.testing.assert_allclose(db, want[2], rtol=1e-4, atol=1e-5 * m)


@pytest.mark.parametrize("training", [True, False], ids=["train", "eval"])
@pytest.mark.parametrize("mask", MASKS, ids=[str(m) for m in MASKS])
def test_output_mask(rng, mask, training):
    g, x, w, rm, rv, sm, si = _inputs(rng, (3, 4, 5), F32)
    got = batch_norm_backward(g, x, w, rm, rv, sm, si, training, 1e-3, mask)
    want = _golden(g, x, w, rm, rv, sm, si, training, 1e-3, mask)
    for o, wv, m in zip(got, want, mask, strict=True):
        assert (o is None) == (not m)
        if m:
            np.testing.assert_allclose(o, wv, rtol=1e-5, atol=1e-5)
    assert batch_norm_backward(g, x, w, rm, rv, sm, si, training, 1e-3, [0, 0, 0]) == (None, None, None)


@pytest.mark.parametrize("training", [True, False], ids=["train", "eval"])
def test_null_tensors_take_the_op_defaults(rng, training):
    """Null weight -> 1, running/save mean -> 0, running var / save invstd -> 1 (the op's FillScalar)."""
    g, x, *_ = _inputs(rng, (4, 3, 6), F32)
    got = batch_norm_backward(g, x, None, None, None, None, None, training, 1e-5, [1, 1, 1])
    c = 3
    want = _golden(g, x, np.ones(c), None, None, None, None, training, 1e-5, [True, True, True])
    for o, wv in zip(got, want, strict=True):
        np.testing.assert_allclose(o, wv, rtol=1e-5, atol=1e-5)


def test_eval_uses_running_statistics_and_eps(rng):
    g, x, w, rm, rv, sm, si = _inputs(rng, (2, 3, 4), F32)
    a = batch_norm_backward(g, x, w, rm, rv, sm, si, False, 0.5, [1, 1, 1])
    b = batch_norm_backward(g, x, w, rm, rv, None, None, False, 0.5, [1, 1, 1])  # save stats ignored
    for u, v in zip(a, b, strict=True):
        np.testing.assert_array_equal(u, v)
    np.testing.assert_allclose(a[0], g * (w / np.sqrt(rv + 0.5))[None, :, None], rtol=1e-6)
    # save statistics of length 0 are accepted in eval (950 allows them)
    empty = np.zeros(0, np.float32)
    c = batch_norm_backward(g, x, w, rm, rv, empty, empty, False, 0.5, [1, 1, 1])
    np.testing.assert_array_equal(c[0], a[0])


def test_training_ignores_eps_and_running_statistics(rng):
    g, x, w, rm, rv, sm, si = _inputs(rng, (2, 3, 4), F32)
    a = batch_norm_backward(g, x, w, rm, rv, sm, si, True, 1e-5, [1, 1, 1])
    b = batch_norm_backward(g, x, w, None, None, sm, si, True, 0.9, [1, 1, 1])
    for u, v in zip(a, b, strict=True):
        np.testing.assert_array_equal(u, v)


@pytest.mark.parametrize("dtype", [F16, BFLOAT16], ids=["float16", "bfloat16"])
def test_mixed_precision_float32_parameters(rng, dtype):
    g, x, w, rm, rv, sm, si = _inputs(rng, (4, 6, 5), dtype, param_dtype=F32)
    for training in (True, False):
        got = batch_norm_backward(g, x, w, rm, rv, sm, si, training, 1e-5, [1, 1, 1])
        want = _golden(g, x, w, rm, rv, sm, si, training, 1e-5, [True, True, True])
        _close(got[0], want[0], dtype)
        np.testing.assert_allclose(got[1], want[1], rtol=1e-4, atol=1e-3)


def test_950_training_rounds_weight_grads_to_the_weight_dtype(rng):
    g, x, w, rm, rv, sm, si = _inputs(rng, (4, 6, 5), BFLOAT16)
    a2 = batch_norm_backward(g, x, w, rm, rv, sm, si, True, 1e-5, [1, 1, 1], product="910b")
    pr = batch_norm_backward(g, x, w, rm, rv, sm, si, True, 1e-5, [1, 1, 1], product="950")
    assert a2[1].dtype == F32 and pr[1].dtype == BFLOAT16 and pr[2].dtype == BFLOAT16
    np.testing.assert_array_equal(pr[1], a2[1].astype(BFLOAT16))
    np.testing.assert_array_equal(pr[0], a2[0])
    # float32 gradOut, eval mode or a null weight: float32 on 950 too
    ev = batch_norm_backward(g, x, w, rm, rv, sm, si, False, 1e-5, [1, 1, 1], product="950")
    assert ev[1].dtype == F32
    nw = batch_norm_backward(g, x, None, rm, rv, sm, si, True, 1e-5, [1, 1, 1], product="950")
    assert nw[1].dtype == F32


@pytest.mark.parametrize("training", [True, False], ids=["train", "eval"])
@pytest.mark.parametrize("fmt, shape", [("NHWC", (2, 3, 4, 5)), ("NDHWC", (2, 2, 3, 2, 4))])
def test_channels_last_formats(rng, fmt, shape, training):
    g, x, w, rm, rv, sm, si = _inputs(rng, shape, F32)
    # channels-last tensors: the same logical data with the channel axis moved last
    g_l, x_l = np.moveaxis(g, 1, -1).copy(), np.moveaxis(x, 1, -1).copy()
    c = shape[1]
    w, rm, rv = w[:c], rm[:c], rv[:c]
    got = batch_norm_backward(g_l, x_l, w, rm, rv, sm, si, training, 1e-5, [1, 1, 1], data_format=fmt)
    want = _golden(g, x, w, rm, rv, sm, si, training, 1e-5, [True, True, True])
    np.testing.assert_allclose(got[0], np.moveaxis(want[0], 1, -1), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(got[2], want[2], rtol=1e-4, atol=1e-4)


def test_non_contiguous_inputs(rng):
    g, x, w, rm, rv, sm, si = _inputs(rng, (3, 4, 6), F32)
    gs = np.asfortranarray(g)
    xs = np.ascontiguousarray(x.transpose(2, 1, 0)).transpose(2, 1, 0)
    got = batch_norm_backward(gs, xs, w, rm, rv, sm, si, True, 1e-5, [1, 1, 1])
    want = _golden(g, x, w, rm, rv, sm, si, True, 1e-5, [True, True, True])
    for o, wv in zip(got, want, strict=True):
        np.testing.assert_allclose(o, wv, rtol=1e-5, atol=1e-5)


def test_large_mean_does_not_cancel(rng):
    """Centring before multiplying keeps gradWeight accurate when |mean| >> std."""
    x = (1000.0 + rng.standard_normal((64, 2, 32))).astype(np.float32)
    g = rng.standard_normal(x.shape).astype(np.float32)
    sm, si = _stats(x)
    got = batch_norm_backward(g, x, None, None, None, sm, si, True, 1e-5, [1, 1, 1])
    x64, g64 = x.astype(np.float64), g.astype(np.float64)
    want_dw = ((x64 - sm[None, :, None]) * g64).sum(axis=(0, 2)) * si
    np.testing.assert_allclose(got[1], want_dw, rtol=1e-4)


def test_empty_input():
    x = np.zeros((0, 3, 4), np.float32)
    dx, dw, db = batch_norm_backward(x, x, None, None, None, None, None, True, 1e-5, [1, 0, 0])
    assert dx.shape == x.shape and dw is None and db is None
    with pytest.raises(ValueError):  # the op leaves gradWeight unwritten
        batch_norm_backward(x, x, None, None, None, None, None, True, 1e-5, [1, 1, 0])
    z = np.zeros((2, 0, 4), np.float32)
    dx, dw, db = batch_norm_backward(z, z, None, None, None, None, None, True, 1e-5, [1, 1, 1])
    assert dx.shape == z.shape and dw.shape == (0,) and db.shape == (0,)


def test_non_finite_values_propagate(rng):
    g, x, w, rm, rv, sm, si = _inputs(rng, (2, 3, 4), F32)
    rv[1] = -2.0  # negative running variance -> NaN in eval
    dx, _, _ = batch_norm_backward(g, x, w, rm, rv, sm, si, False, 1e-5, [1, 1, 1])
    assert np.isnan(dx[:, 1]).all() and np.isfinite(dx[:, [0, 2]]).all()


def test_rejections(rng):
    g, x, w, rm, rv, sm, si = _inputs(rng, (2, 3, 4), F32)
    run = batch_norm_backward
    with pytest.raises(ValueError):  # weight with the wrong length
        run(g, x, w[:2], rm, rv, sm, si, True, 1e-5, [1, 1, 1])
    with pytest.raises(ValueError):  # save statistics of length 0 in training
        run(g, x, w, rm, rv, sm[:0], si[:0], True, 1e-5, [1, 1, 1])
    with pytest.raises(ValueError):  # output mask of length 1
        run(g, x, w, rm, rv, sm, si, True, 1e-5, [1])
    with pytest.raises(ValueError):  # 1-D input
        run(g[0, 0], x[0, 0], w, rm, rv, sm, si, True, 1e-5, [1, 1, 1])
    with pytest.raises(ValueError):  # shape mismatch
        run(g[:1], x, w, rm, rv, sm, si, True, 1e-5, [1, 1, 1])
    with pytest.raises(ValueError):
        run(g, x, w, rm, rv, sm, si, True, 1e-5, [1, 1, 1], data_format="HWCN")
    with pytest.raises(TypeError):
        run(g.astype(F16), x, w, rm, rv, sm, si, True, 1e-5, [1, 1, 1])
    with pytest.raises(TypeError):
        run(g, x, w.astype(np.int32), rm, rv, sm, si, True, 1e-5, [1, 1, 1])


def test_cost_is_monotone_and_names_input():
    def c(shape):
        a = np.empty(shape, np.float32)
        return cost(a, a, None, None, None, None, None, True, 1e-5, [1, 1, 1])

    small, big = c((2, 8, 4, 4)), c((8, 8, 16, 16))
    assert isinstance(small, Cost) and small.param == "input"
    assert big.bytes > small.bytes and big.ops > small.ops
    assert isinstance(big.bytes, int) and isinstance(big.ops, int)
