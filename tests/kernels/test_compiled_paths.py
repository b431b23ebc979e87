"""The compiled helpers (``generator/kernels/_accel.py``, Numba) against the NumPy reference paths.

Every kernel runs the same inputs under ``_accel.forced("numpy")`` and ``forced("compiled")``: bit for bit
where both paths sum in the same order (the bit-mask decode, the isResult ELU branch, the float16
conversions), within float32 rounding where the order, the accumulation type or ``exp`` differs.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from generator.kernels import _accel
from generator.kernels.convolution_backward import convolution_backward
from generator.kernels.elu_backward import elu_backward
from generator.kernels.max_pool2d_with_mask_backward import max_pool2d_with_mask, max_pool2d_with_mask_backward
from generator.kernels.max_pool3d_with_argmax_backward import (
    max_pool3d_with_argmax,
    max_pool3d_with_argmax_backward,
    scatter_add_planes,
)
from generator.kernels.multi_scale_deformable_attention_grad import multi_scale_deformable_attention_grad

pytest.importorskip("numba")
BF16 = np.dtype(ml_dtypes.bfloat16)


def both(function, *args, **kwargs):
    with _accel.forced("numpy"):
        reference = function(*args, **kwargs)
    with _accel.forced("compiled"):
        compiled = function(*args, **kwargs)
    return reference, compiled


def same_bits(a, b) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    return bool(np.array_equal(a.view(f"u{a.itemsize}"), b.view(f"u{b.itemsize}")))


def close(a, b, rtol=2e-6, atol=1e-6):
    a32, b32 = np.asarray(a, np.float32), np.asarray(b, np.float32)
    assert a.dtype == b.dtype and a.shape == b.shape
    finite = np.isfinite(a32)
    scale = max(1.0, float(np.max(np.abs(a32[finite]), initial=0.0)))
    np.testing.assert_array_equal(np.isfinite(b32), finite)
    np.testing.assert_array_equal(b32[~finite], a32[~finite])  # inf, -inf and NaN where the reference has them
    np.testing.assert_allclose(b32[finite], a32[finite], rtol=rtol, atol=atol * scale)


@pytest.fixture
def rng():
    return np.random.default_rng(20241)


def test_mode_selection(monkeypatch):
    with _accel.forced("numpy"):
        assert not _accel.enabled()
    with _accel.forced("compiled"):
        assert _accel.enabled()
    monkeypatch.setitem(_accel._state, "env", "numpy")  # what ACLNN_KERNELS=numpy sets at first use
    assert not _accel.enabled()
    monkeypatch.setitem(_accel._state, "env", "auto")
    assert _accel.enabled()


def test_half_conversions_are_exact():
    every = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(np.float16)
    widened = _accel.half_to_float32(every)
    nan = np.isnan(every)
    assert np.array_equal(np.isnan(widened), nan)  # hardware conversion quiets signalling NaNs
    assert same_bits(widened[~nan], every.astype(np.float32)[~nan])
    soft = np.array([_accel.soft_half_value(b) for b in every.view(np.uint16)], np.float32)
    assert np.array_equal(np.isnan(soft), nan)  # (payloads do not survive boxing to a Python float)
    assert same_bits(soft[~nan], every.astype(np.float32)[~nan])
    rng = np.random.default_rng(0)
    bits = rng.integers(0, 1 << 32, 1 << 20, dtype=np.uint64).astype(np.uint32)
    wide = every.astype(np.float32)[np.isfinite(every)]
    values = np.concatenate([bits.view(np.float32), wide, np.nextafter(wide, np.float32(np.inf)),
                             (wide[:-1] / 2 + wide[1:] / 2), np.float32([65519.99, 65520, -65520, 1e-8, 5.96e-8])])  # fmt: skip
    with np.errstate(all="ignore"):
        want = values.astype(np.float16)
    got = _accel.float32_to_half(values)
    nan = np.isnan(want)
    assert np.array_equal(np.isnan(got), nan)
    assert same_bits(got[~nan], want[~nan])
    soft = np.empty(values.size, np.uint16)
    for i in range(0, values.size, 997):  # the portable rounding, sampled (one compiled call per element)
        _accel.soft_put_half(soft, i, values[i])
    sample = np.zeros(values.size, bool)
    sample[::997] = True
    assert same_bits(soft[sample & ~nan].view(np.float16), want[sample & ~nan])
    assert np.all(np.isnan(soft[sample & nan].view(np.float16)))


def test_exp_within_one_ulp():
    x = np.concatenate([np.linspace(-103, 88.7, 200001, dtype=np.float32), np.float32([0, -0.0, 1e-9, -1e-9])])
    out = np.empty_like(x)
    _accel.exp_array(x, out)
    exact = np.exp(x.astype(np.float64))
    normal = exact > 1.2e-38
    ulps = np.abs(out[normal] - exact[normal]) / np.spacing(exact[normal].astype(np.float32))
    assert ulps.max() <= 1.5
    specials = np.float32([np.nan, np.inf, -np.inf, 89.0, -110.0])
    got = np.empty_like(specials)
    _accel.exp_array(specials, got)
    assert np.isnan(got[0]) and got[1] == np.inf and got[2] == 0 and got[3] == np.inf and got[4] == 0


@pytest.mark.parametrize("dtype", [np.float32, np.float16, BF16], ids=["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("size", [1, 100, 5000, 70001])
def test_elu(rng, dtype, size):
    g = (rng.standard_normal(size) * 3).astype(dtype)
    x = (rng.standard_normal(size) * 3).astype(dtype)
    x[::13], x[::17], x[::19], g[::23] = np.nan, 0.0, -np.inf, np.inf
    for is_result, coeffs in ((True, (1.0, 1.05, 0.9)), (False, (1.67, 1.05, 0.9)), (False, (1.0, 1.0, -0.5))):
        reference, compiled = both(elu_backward, g, *coeffs, is_result, x)
        if is_result:
            assert same_bits(reference, compiled)
        else:  # exp differs by at most an ulp or so
            close(reference, compiled, rtol=4e-7 if dtype == np.float32 else 8e-3)


def test_scatter_planes(rng):
    values = rng.standard_normal((37, 500)).astype(np.float32)
    index = rng.integers(0, 97, (37, 500)).astype(np.int32)
    reference, compiled = both(scatter_add_planes, values, index, 97)
    close(reference, compiled, rtol=1e-6)  # float64 sums (NumPy) vs float32 sums in order (compiled)
    serial = np.zeros((37, 97), np.float32)  # what PyTorch's CPU kernel computes
    for p in range(37):
        for j in range(500):
            serial[p, index[p, j]] += values[p, j]
    assert same_bits(compiled, serial)
    index[3, 7] = 97
    for mode in ("numpy", "compiled"):
        with _accel.forced(mode), pytest.raises(ValueError, match="must lie in"):
            scatter_add_planes(values, index, 97)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, BF16], ids=["float32", "float16", "bfloat16"])
def test_max_pool3d(rng, dtype):
    x = rng.standard_normal((2, 3, 5, 9, 8)).astype(dtype)
    attrs = ([3, 2, 3], [1, 2, 2], [1, 1, 1], [1], True)
    out, idx = max_pool3d_with_argmax(x, *attrs)
    g = rng.standard_normal(out.shape).astype(dtype)
    close(*both(max_pool3d_with_argmax_backward, g, x, idx, *attrs), rtol=1e-6 if dtype == np.float32 else 8e-3)


@pytest.mark.parametrize("product", ["910", "910b"])
@pytest.mark.parametrize(
    "shape, attrs",
    [((2, 20, 31, 33), ([3, 3], [2, 2], [1, 1], [1, 1], True)), ((3, 17, 9, 9), ([2, 3], [1, 2], [1, 1], [1], False)),
     ((40, 12, 12), ([1, 1], [], [0, 0], [1, 1], False))],
)  # fmt: skip
def test_max_pool2d_mask_paths(rng, product, shape, attrs):
    x = rng.standard_normal(shape).astype(np.float32)
    out, mask = max_pool2d_with_mask(x, *attrs, product=product)
    g = rng.standard_normal(out.shape).astype(np.float32)
    g.reshape(-1)[::11] = np.inf
    reference, compiled = both(max_pool2d_with_mask_backward, g, x, mask, *attrs, product=product)
    if product == "910":
        assert same_bits(reference, compiled)
    else:
        close(reference, compiled, rtol=1e-6)


def test_bit_mask_with_arbitrary_bits(rng):
    """A hostile 910 mask (random bytes: several bits per output) decodes the same on both paths."""
    x = rng.standard_normal((2, 20, 11, 13)).astype(np.float32)
    attrs = ([3, 3], [2, 2], [1, 1], [1, 1], True)
    out, mask = max_pool2d_with_mask(x, *attrs, product="910")
    noise = rng.integers(-128, 128, mask.shape).astype(np.int8)
    g = rng.standard_normal(out.shape).astype(np.float32)
    assert same_bits(*both(max_pool2d_with_mask_backward, g, x, noise, *attrs, product="910"))


CONV = [  # (input shape, weight shape, stride, padding, dilation, transposed, groups)
    ((2, 6, 9, 7), (6, 1, 3, 3), [1, 1], [1, 1], [1, 1], False, 6),  # depthwise (compiled stencil)
    ((2, 6, 9, 7), (12, 1, 3, 2), [2, 1], [1, 0], [1, 2], False, 6),  # channel multiplier 2, strides
    ((1, 4, 13), (8, 1, 3), [2], [2], [2], False, 4),  # 1-D depthwise
    ((2, 4, 7, 6), (6, 4, 3, 3), [1, 1], [1, 1], [1, 1], False, 1),  # small: stacked GEMM
    ((1, 4, 5, 6), (4, 3, 3, 3), [2, 2], [1, 1], [1, 1], True, 1),  # small transposed
    ((1, 2, 4, 5, 6), (4, 2, 3, 3, 3), [1, 1, 1], [1, 1, 1], [1, 1, 1], False, 1),  # 3-D
]


@pytest.mark.parametrize("case", CONV, ids=range(len(CONV)))
@pytest.mark.parametrize("dtype", [np.float32, np.float16], ids=["float32", "float16"])
def test_convolution(rng, case, dtype):
    shape, wshape, stride, padding, dilation, transposed, groups = case
    nsp = len(shape) - 2
    k = wshape[2:]
    if transposed:
        out = [
            (i - 1) * s - 2 * p + d * (kk - 1) + 1 for i, s, p, d, kk in zip(shape[2:], stride, padding, dilation, k)
        ]
        c_out = wshape[1] * groups
    else:
        out = [
            (i + 2 * p - d * (kk - 1) - 1) // s + 1 for i, s, p, d, kk in zip(shape[2:], stride, padding, dilation, k)
        ]
        c_out = wshape[0]
    x = rng.standard_normal(shape).astype(dtype)
    w = rng.standard_normal(wshape).astype(dtype)
    gy = rng.standard_normal((shape[0], c_out, *out)).astype(dtype)
    args = ([c_out], stride, padding, dilation, transposed, [0] * nsp, groups, [True, True, True])
    reference, compiled = both(convolution_backward, gy, x, w, *args)
    for a, b in zip(reference, compiled):
        close(a, b, rtol=1e-5 if dtype == np.float32 else 2e-3, atol=1e-5 if dtype == np.float32 else 2e-3)
    partial = both(convolution_backward, gy, x, w, *args[:-1], [False, True, False])
    assert partial[0][0] is None and partial[1][0] is None
    close(partial[0][1], partial[1][1], rtol=1e-5 if dtype == np.float32 else 2e-3, atol=1e-5)


@pytest.mark.parametrize("dtype", [np.float32, BF16], ids=["float32", "bfloat16"])
def test_msda(rng, dtype):
    shapes = np.array([[6, 7], [3, 4], [1, 2]], np.int64)
    starts = np.array([0, 42, 54], np.int64)
    bs, nq, nh, c, points = 2, 9, 2, 8, 3
    value = rng.standard_normal((bs, 56, nh, c)).astype(dtype)
    location = rng.uniform(-0.2, 1.2, (bs, nq, nh, 3, points, 2)).astype(dtype)
    location[0, 0, 0, 0, 0] = [0.0, 0.0]  # exactly on the -0.5 pixel centre edge
    attn = rng.uniform(0, 1, (bs, nq, nh, 3, points)).astype(dtype)
    grad = rng.standard_normal((bs, nq, nh * c)).astype(dtype)
    reference, compiled = both(multi_scale_deformable_attention_grad, value, shapes, starts, location, attn, grad)
    for a, b in zip(reference, compiled):
        close(a, b, rtol=1e-5 if dtype == np.float32 else 8e-3, atol=1e-5 if dtype == np.float32 else 8e-3)


# Pointwise kernels: the compiled fused maps (``_pointwise.fused``) against the NumPy chains, for every
# broadcast mode the loops handle (full, periodic, row, scalar), a pattern they refuse (both inputs
# broadcast: the NumPy path runs), non-contiguous inputs and all three float dtypes.
from generator.kernels.gelu_backward import gelu_backward  # noqa: E402
from generator.kernels.hardtanh_backward import hardtanh_backward  # noqa: E402
from generator.kernels.leaky_relu_backward import leaky_relu_backward  # noqa: E402
from generator.kernels.mse_loss_backward import mse_loss_backward  # noqa: E402
from generator.kernels.sigmoid_backward import sigmoid_backward  # noqa: E402
from generator.kernels.silu_backward import silu_backward  # noqa: E402
from generator.kernels.threshold_backward import threshold_backward  # noqa: E402

POINTWISE = {  # name: (call(g, x, y), exact: same float32 operations in the same order on both paths)
    "gelu": (lambda g, x, y: gelu_backward(g, x), False),
    "silu": (lambda g, x, y: silu_backward(g, x), False),
    "sigmoid": (lambda g, x, y: sigmoid_backward(g, x), True),
    "leaky_relu": (lambda g, x, y: leaky_relu_backward(g, x, 0.01, False), True),
    "leaky_relu_result": (lambda g, x, y: leaky_relu_backward(g, x, 0.2, True), True),
    "threshold": (lambda g, x, y: threshold_backward(g, x, 0.25), True),
    "hardtanh": (lambda g, x, y: hardtanh_backward(g, x, -0.5, 0.75), True),
    "mse_none": (lambda g, x, y: mse_loss_backward(g, x, y, 0), True),
    "mse_mean": (lambda g, x, y: mse_loss_backward(g.reshape(-1)[:1].reshape(()), x, y, 1), True),
    "elu_input": (lambda g, x, y: elu_backward(g, 1.3, 1.05, 0.9, False, x), False),
    "elu_result": (lambda g, x, y: elu_backward(g, 1.3, 1.05, 0.9, True, x), True),
}
SHAPES = {  # (grad_output, self, target)
    "full": ((4, 5, 6), (4, 5, 6), (4, 5, 6)),
    "periodic": ((4, 5, 6), (5, 6), (1, 6)),
    "row": ((4, 5, 6), (4, 5, 1), (4, 1, 1)),
    "scalar": ((), (4, 5, 6), (4, 5, 6)),
    "outer": ((4, 1), (1, 5), (4, 5)),
    "refused": ((4, 1, 6), (1, 5, 1), (4, 5, 6)),
    "non_contiguous": None,
}


@pytest.mark.parametrize("layout", list(SHAPES))
@pytest.mark.parametrize("dtype", [np.float32, np.float16, BF16], ids=["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("name", list(POINTWISE))
def test_pointwise_fused_equals_numpy(rng, name, dtype, layout):
    call, exact = POINTWISE[name]
    shapes = SHAPES[layout] or ((6, 5, 4), (6, 5, 4), (6, 5, 4))
    g, x, y = ((rng.standard_normal(s) * 3).astype(dtype) for s in shapes)
    x.reshape(-1)[::7] = np.nan
    x.reshape(-1)[1::11] = np.inf
    x.reshape(-1)[2::13] = -np.inf
    x.reshape(-1)[3::5] = 0.0
    if SHAPES[layout] is None:
        g, x, y = g.T, x.T, y.T
    try:
        with _accel.forced("numpy"):
            reference = call(g, x, y)
    except ValueError:  # shapes the op does not broadcast (hardtanh): both paths refuse
        with _accel.forced("compiled"), pytest.raises(ValueError):
            call(g, x, y)
        return
    with _accel.forced("compiled"):
        compiled = call(g, x, y)
    if exact:
        assert same_bits(reference, compiled) or (
            reference.dtype == compiled.dtype
            and np.array_equal(np.isnan(reference.astype(np.float32)), np.isnan(compiled.astype(np.float32)))
            and same_bits(np.where(np.isnan(reference), 0, reference), np.where(np.isnan(compiled), 0, compiled))
        )  # NaN payloads may differ (hardware half conversions quiet them)
    else:
        close(reference, compiled, rtol=4e-6 if dtype == np.float32 else 8e-3, atol=1e-6)


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int32, np.int64])
def test_threshold_integers_fused(rng, dtype):
    info = np.iinfo(dtype)
    g = rng.integers(info.min, info.max, (3, 70), dtype=dtype, endpoint=True)
    x = rng.integers(info.min, info.max, (3, 70), dtype=dtype, endpoint=True)
    for t in (0, 2.5, -3.7, float(info.max) + 10, float(info.min) - 10, 1e30, -1e30):
        assert same_bits(*both(threshold_backward, g, x, t))
        assert same_bits(*both(threshold_backward, g, x[0], t))


def test_fused_layouts():
    from generator.kernels import _pointwise as pw

    assert pw.layout(((4, 5, 6), (5, 6))) == ((4, 5, 6), 4, 30, pw.FULL | pw.PERIODIC << 2)
    assert pw.layout(((4, 5, 6), (4, 5, 1))) == ((4, 5, 6), 20, 6, pw.FULL | pw.ROW << 2)
    assert pw.layout(((), (2, 3))) == ((2, 3), 1, 6, pw.SCALAR | pw.FULL << 2)
    assert pw.layout(((4, 1), (1, 5))) == ((4, 5), 4, 5, pw.ROW | pw.PERIODIC << 2)  # an outer product
    assert pw.layout(((4, 1, 6), (1, 5, 1))) is None  # a broadcast inside: NumPy path
    assert pw.layout(((0, 3), (3,))) is None  # empty
    assert pw.layout(((4, 5, 6), (5, 6), (4, 5, 1))) is None  # two different splits
    with pytest.raises(ValueError):
        pw.layout(((2, 3), (4, 3)))


@pytest.mark.parametrize("dtype", [np.float32, np.float16, BF16], ids=["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("training", [True, False], ids=["training", "eval"])
@pytest.mark.parametrize("shape", [(4, 3, 5, 7), (6, 5), (2, 3, 4, 1, 2, 3)], ids=["nchw", "nc", "6d"])
def test_batch_norm(rng, dtype, training, shape):
    from generator.kernels.batch_norm_backward import batch_norm_backward

    c = shape[1]
    x = (rng.standard_normal(shape) * 2 + 1).astype(dtype)
    g = rng.standard_normal(shape).astype(dtype)
    g.reshape(-1)[::29] = np.inf if dtype == np.float32 else g.reshape(-1)[::29]
    stats = [rng.random(c).astype(np.float32) + 0.5 for _ in range(5)]
    for mask in ([1, 1, 1], [1, 0, 0], [0, 1, 1]):
        reference, compiled = both(batch_norm_backward, g, x, *stats, training, 1e-5, mask)
        for a, b in zip(reference, compiled):
            if a is None:
                assert b is None
                continue
            close(a, b, rtol=1e-5 if dtype == np.float32 else 8e-3, atol=1e-5 if dtype == np.float32 else 8e-3)
    # channels-last inputs take the NumPy path on both settings
    nhwc = both(batch_norm_backward, g, x.transpose(0, *range(2, len(shape)), 1).copy().transpose(
        0, len(shape) - 1, *range(1, len(shape) - 1)), *stats, training, 1e-5, [1, 1, 1])  # fmt: skip
    for a, b in zip(*nhwc):
        close(a, b, rtol=1e-5 if dtype == np.float32 else 8e-3, atol=1e-5 if dtype == np.float32 else 8e-3)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, BF16], ids=["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("shape, norm", [((3, 70, 33), [33]), ((130, 4, 5), [4, 5]), ((2, 1), [1])], ids=str)
def test_layer_norm(rng, dtype, shape, norm):
    from generator.kernels.layer_norm_backward import layer_norm_backward

    x = (rng.standard_normal(shape) * 2 + 1).astype(dtype)
    g = rng.standard_normal(shape).astype(dtype)
    rows = x.size // int(np.prod(norm))
    mean = rng.standard_normal(rows).astype(np.float32)
    rstd = (rng.random(rows) + 0.5).astype(dtype)
    w = rng.standard_normal(norm).astype(dtype)
    tol = dict(rtol=1e-5, atol=1e-5) if dtype == np.float32 else dict(rtol=8e-3, atol=8e-3)  # noqa: C408
    for weight in (w, None):
        for mask in ([1, 1, 1], [1, 0, 0], [0, 1, 0], [0, 0, 1]):
            reference, compiled = both(layer_norm_backward, g, x, norm, mean, rstd, weight, None, mask)
            for a, b in zip(reference, compiled):
                if a is None:
                    assert b is None
                else:
                    close(a, b, **tol)
    view = both(layer_norm_backward, g[::-1], x[::-1], norm, mean, rstd, w, None, [1, 1, 1])  # NumPy path
    for a, b in zip(*view):
        close(a, b, **tol)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, BF16], ids=["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("product", [None, "910b", "950"])
def test_embedding_dense(rng, dtype, product):
    from generator.kernels.embedding_dense_backward import embedding_dense_backward

    grad = rng.standard_normal((3, 300, 17)).astype(dtype)
    grad[0, 5, 3] = np.inf
    indices = rng.integers(0, 40, (3, 300)).astype(np.int32)
    tol = dict(rtol=1e-5, atol=1e-5) if dtype == np.float32 else dict(rtol=8e-3, atol=8e-3)  # noqa: C408
    for padding_idx, scale in ((-1, False), (7, True), (0, False)):
        reference, compiled = both(embedding_dense_backward, grad, indices, 45, padding_idx, scale, product=product)
        close(reference, compiled, **tol)  # same float32 sums, in row order instead of per block
    big = rng.standard_normal((70000, 2)).astype(np.float32)  # a result above the conversion block size
    reference, compiled = both(embedding_dense_backward, big.astype(dtype), np.arange(70000) % 50000, 50000, -1, False,
                               product="950")  # fmt: skip
    assert same_bits(reference, compiled)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, BF16], ids=["float32", "float16", "bfloat16"])
@pytest.mark.parametrize(
    "shape, dim", [((5, 300), -1), ((3, 40, 7), 1), ((6, 2, 9), 0), ((), 0), ((4, 1), 1), ((2, 3, 5000), 1)], ids=str
)
def test_softmax(rng, dtype, shape, dim):
    from generator.kernels.softmax_backward import softmax_backward

    g = rng.standard_normal(shape).astype(dtype)
    y = rng.random(shape).astype(dtype)
    if g.size > 10:
        g.reshape(-1)[7] = np.inf
    reference, compiled = both(softmax_backward, g, y, dim)
    close(reference, compiled, rtol=1e-5 if dtype == np.float32 else 1e-2, atol=1e-5 if dtype == np.float32 else 1e-2)
    if g.ndim == 3:  # a non-contiguous view gives the bits of its contiguous copy, on either path
        strided = both(softmax_backward, g[:, ::-1], y[:, ::-1], dim)
        copied = both(softmax_backward, g[:, ::-1].copy(), y[:, ::-1].copy(), dim)
        assert same_bits(strided[0], copied[0]) and same_bits(strided[1], copied[1])


def test_results_do_not_depend_on_the_memory_layout():
    """A read-only or strided view of the same values (the CANN backend's device memory, a slice) gives the
    bits of a contiguous copy: the compiled path copies such inputs instead of falling back to the NumPy path,
    whose sums round differently."""
    from generator.kernels.layer_norm_backward import layer_norm_backward

    rng = np.random.default_rng(3)
    g, x = rng.standard_normal((2, 3, 8), np.float32), rng.standard_normal((2, 3, 8), np.float32)
    mean, rstd = x.mean(-1, keepdims=True), 1 / np.sqrt(x.var(-1, keepdims=True) + 1e-5)
    w, b = np.ones(8, np.float32), np.zeros(8, np.float32)

    def read_only(a):
        view = np.frombuffer(a.tobytes(), a.dtype).reshape(a.shape)
        assert not view.flags.writeable
        return view

    def run(gg, xx):
        return layer_norm_backward(gg, xx, [8], mean, rstd, w, b, [True, True, True])

    expected = run(g, x)
    for result in (run(read_only(g), read_only(x)), run(g[:, ::-1][:, ::-1], np.asfortranarray(x))):
        for a, c in zip(expected, result):
            assert same_bits(a, c)


def test_read_only_arguments_do_not_compile_a_new_specialisation():
    """A read-only array reaches a compiled helper as a writeable copy: Numba would otherwise compile a
    separate read-only specialisation in the middle of the call (most of a second)."""
    if not _accel.enabled():
        pytest.skip("compiled paths are off (ACLNN_KERNELS=numpy or no Numba)")
    from generator.kernels.layer_norm_backward import _rows_compiled

    rng = np.random.default_rng(0)
    m, n = 2, 4
    g, x = rng.standard_normal(m * n).astype(np.float32), rng.standard_normal(m * n).astype(np.float32)
    mu, rs, w = np.zeros(m, np.float32), np.ones(m, np.float32), np.ones(n, np.float32)

    def run(weight):
        dx, dw, db = np.empty(m * n, np.float32), np.zeros(n), np.zeros(n)
        _rows_compiled(g, x, mu, rs, weight, m, n, True, True, True, dx, dw, db)
        return dx

    expected = run(w)
    signatures = len(_rows_compiled.dispatcher().signatures)
    frozen = w.copy()
    frozen.flags.writeable = False
    assert same_bits(run(frozen), expected)
    assert len(_rows_compiled.dispatcher().signatures) == signatures
