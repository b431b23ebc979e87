"""avg_pool2d_backward vs torch.ops.aten.avg_pool2d_backward (float32 golden), per product path."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from generator.kernels._common import Cost
from generator.kernels.avg_pool2d_backward import avg_pool2d_backward, cost, select_path
from tests.kernels.conftest import DTYPE_IDS, DTYPES, TOLERANCES, to_torch

torch = pytest.importorskip("torch")

F16 = np.dtype(np.float16)
F32 = np.dtype(np.float32)

# (self shape, kernel, stride, padding)
GEOMETRIES = [
    ((2, 3, 8, 8), [2], [2], [0]),
    ((1, 4, 9, 11), [3], [2], [1]),  # overlapping windows with padding
    ((3, 7, 6), [3, 2], [1, 2], [1, 1]),  # 3-D (C, H, W)
    ((2, 2, 10, 9), [3], [], [1]),  # empty stride = kernel
    ((1, 3, 7, 7), [4, 2], [3, 1], [2, 1]),  # maximal padding
    ((2, 2, 5, 12), [2], [2], [1]),  # long strip (W // H >= 2): not the A2 cube path
]
GEO_IDS = [f"geo{i}" for i in range(len(GEOMETRIES))]
# (ceil_mode, count_include_pad, divisor_override)
MODES = list(itertools.product([False, True], [False, True], [0, 3]))
MODE_IDS = [f"ceil{int(c)}-cip{int(p)}-div{d}" for c, p, d in MODES]


def _pair(v, default=None):
    v = list(v)
    if not v:
        return default
    return v * 2 if len(v) == 1 else v


def _pooled(x, kernel, stride, padding, ceil_mode):
    k = _pair(kernel)
    out = torch.nn.functional.avg_pool2d(torch.zeros(x.shape), k, _pair(stride, k), _pair(padding), ceil_mode)
    return tuple(out.shape)


def _golden(g, x, kernel, stride, padding, ceil_mode, cip, divisor):
    k = _pair(kernel)
    return torch.ops.aten.avg_pool2d_backward(
        to_torch(g).float(), to_torch(x).float(), k, _pair(stride, k), _pair(padding), ceil_mode, cip, divisor or None
    ).numpy()


def _data(rng, geo, ceil_mode, dtype):
    shape, kernel, stride, padding = geo
    x = rng.standard_normal(shape).astype(np.float32).astype(dtype)
    g = rng.uniform(-2, 2, _pooled(x, kernel, stride, padding, ceil_mode)).astype(np.float32).astype(dtype)
    return g, x


def _close(got, want, dtype, rtol=None):
    r, a = TOLERANCES[np.dtype(dtype)]
    np.testing.assert_allclose(got.astype(np.float32), want.astype(dtype).astype(np.float32), rtol=rtol or r, atol=a)


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("mode", MODES, ids=MODE_IDS)
@pytest.mark.parametrize("geo", GEOMETRIES, ids=GEO_IDS)
@pytest.mark.parametrize("product", ["950", "910b"])
def test_pytorch_semantics_on_950_and_a2(rng, product, geo, mode, dtype):
    """950 and A2/A3 (cube or AvgPool3DGrad, whichever the op picks) follow PyTorch."""
    ceil_mode, cip, divisor = mode
    g, x = _data(rng, geo, ceil_mode, dtype)
    _, kernel, stride, padding = geo
    got = avg_pool2d_backward(g, x, kernel, stride, padding, ceil_mode, cip, divisor, 0, product=product)
    assert got.dtype == dtype and got.shape == x.shape
    # the cube path rounds the weight 1/divisor to float16 for float16 data: allow one more float16 ulp
    _close(got, _golden(g, x, kernel, stride, padding, ceil_mode, cip, divisor), dtype, rtol=2e-3)


@pytest.mark.parametrize("dtype", [F32, F16], ids=["float32", "float16"])
@pytest.mark.parametrize("mode", MODES, ids=MODE_IDS)
@pytest.mark.parametrize("geo", GEOMETRIES, ids=GEO_IDS)
def test_910_cube_divides_ceil_windows_by_the_full_kernel(rng, geo, mode, dtype):
    """910/310P: with count_include_pad (or a divisor) every window uses kH*kW, even clipped ceil windows."""
    ceil_mode, cip, divisor = mode
    g, x = _data(rng, geo, ceil_mode, dtype)
    _, kernel, stride, padding = geo
    k = _pair(kernel)
    got = avg_pool2d_backward(g, x, kernel, stride, padding, ceil_mode, cip, divisor, 1, product="910")
    uniform = divisor or (k[0] * k[1] if cip else 0)
    want = _golden(g, x, kernel, stride, padding, ceil_mode, cip, uniform)
    # cube_math_type 1 casts the gradient (and the weight) to float16
    _close(got, want, F16, rtol=3e-3)
    assert np.array_equal(got.astype(F16).astype(got.dtype), got)  # result passed through float16


def test_910_ceil_deviation_is_real(rng):
    """The 910 reading differs from PyTorch exactly on a clipped ceil-mode window."""
    x = np.zeros((1, 1, 5, 5), np.float32)
    g = np.ones((1, 1, 3, 3), np.float32)  # kernel 2, stride 2, ceil: last window covers only row/col 4
    a2 = avg_pool2d_backward(g, x, [2], [2], [0], True, True, 0, 0, product="910b")
    v1 = avg_pool2d_backward(g, x, [2], [2], [0], True, True, 0, 1, product="910")  # FLOAT needs a cast
    assert a2[0, 0, 4, 4] == 1.0 and v1[0, 0, 4, 4] == 0.25  # PyTorch clips the window to 1 cell
    np.testing.assert_array_equal(a2, _golden(g, x, [2], [2], [0], True, True, 0))


@pytest.mark.parametrize("product", ["950", "910b", "910"])
@pytest.mark.parametrize("dtype", DTYPES[:2], ids=DTYPE_IDS[:2])
def test_global_pooling_path(rng, product, dtype):
    shape = (2, 3, 10, 12)
    x = rng.standard_normal(shape).astype(dtype)
    g = rng.standard_normal((2, 3, 1, 1)).astype(np.float32).astype(dtype)
    got = avg_pool2d_backward(g, x, [10, 12], [], [0], False, True, 0, 0, product=product)
    _close(got, _golden(g, x, [10, 12], [], [0], False, True, 0), dtype)
    assert select_path(product, shape, (2, 3, 1, 1), (10, 12), False, True, 0) == "global"


def test_global_path_with_padding_spreads_over_the_whole_plane(rng):
    """kernel == (H, W) with padding 1 and stride 3 still gives a 1x1 output: the op divides by kH*kW everywhere."""
    x = np.zeros((1, 2, 10, 10), np.float32)
    g = np.array([4.0, -8.0], np.float32).reshape(1, 2, 1, 1)
    got = avg_pool2d_backward(g, x, [10], [11], [1], False, False, 0, 0, product="910b")
    np.testing.assert_array_equal(got, np.broadcast_to(g / 100, x.shape))
    torch_result = _golden(g, x, [10], [11], [1], False, False, 0)
    assert not np.allclose(got, torch_result)  # PyTorch: 9x9 real cells, zero in the last row/col


@pytest.mark.parametrize("cube_math_type", [1, 2])
@pytest.mark.parametrize("product", ["910b", "950"])
def test_float16_cast_on_global_path(rng, product, cube_math_type):
    x = np.zeros((1, 2, 11, 11), np.float32)
    g = rng.standard_normal((1, 2, 1, 1)).astype(np.float32)
    got = avg_pool2d_backward(g, x, [11], [], [0], False, True, 0, cube_math_type, product=product)
    want = (g.astype(F16).astype(np.float32) / np.float32(121)).astype(F16).astype(np.float32)
    np.testing.assert_array_equal(got, np.broadcast_to(want, x.shape))


def test_cube_fp16_cast_on_a2(rng):
    geo = GEOMETRIES[1]
    g, x = _data(rng, geo, False, F32)
    _, kernel, stride, padding = geo
    assert select_path("910b", x.shape, g.shape, (3, 3), False, True, 0) == "cube"
    keep = avg_pool2d_backward(g, x, kernel, stride, padding, False, True, 0, 0, product="910b")
    down = avg_pool2d_backward(g, x, kernel, stride, padding, False, True, 0, 2, product="910b")
    want = _golden(g, x, kernel, stride, padding, False, True, 0)
    np.testing.assert_allclose(keep, want, rtol=1e-6, atol=1e-6)
    _close(down, want, F16, rtol=3e-3)
    assert not np.array_equal(keep, down)
    # the direct path (count_include_pad false) ignores cube_math_type
    a = avg_pool2d_backward(g, x, kernel, stride, padding, False, False, 0, 0, product="910b")
    b = avg_pool2d_backward(g, x, kernel, stride, padding, False, False, 0, 2, product="910b")
    np.testing.assert_array_equal(a, b)


def test_select_path():
    s = (2, 8, 16, 16)
    assert select_path("950", s, (2, 8, 8, 8), (2, 2), False, True, 0) == "direct"
    assert select_path("910b", s, (2, 8, 8, 8), (2, 2), False, True, 0) == "cube"
    assert select_path("910_93", s, (2, 8, 8, 8), (2, 2), True, True, 0) == "direct"  # ceil
    assert select_path("910b", s, (2, 8, 8, 8), (2, 2), False, False, 0) == "direct"  # no count_include_pad
    assert select_path("910b", s, (2, 8, 8, 8), (2, 2), False, True, 300) == "direct"  # divisor > 255
    assert select_path("910b", s, (2, 8, 8, 8), (21, 13), False, True, 0) == "direct"  # 273 taps, kH > 20
    assert select_path("910b", (2, 8, 4, 9), (2, 8, 2, 4), (2, 2), False, True, 0) == "direct"  # long strip
    assert select_path("910", s, (2, 8, 8, 8), (2, 2), True, False, 0) == "cube"
    assert select_path("310p", s, (2, 8, 8, 8), (2, 2), True, False, -255) == "cube"
    with pytest.raises(ValueError):
        select_path("910", s, (2, 8, 8, 8), (2, 2), False, True, 256)
    with pytest.raises(ValueError):
        select_path("310b", s, (2, 8, 8, 8), (2, 2), False, True, 0)


def test_negative_divisor_override(rng):
    g, x = _data(rng, GEOMETRIES[0], False, F32)
    got = avg_pool2d_backward(g, x, [2], [2], [0], False, True, -4, 0, product="950")
    np.testing.assert_allclose(got, _golden(g, x, [2], [2], [0], False, True, -4), rtol=1e-6)


def test_large_divisor_on_a2_uses_the_direct_path(rng):
    g, x = _data(rng, GEOMETRIES[1], False, F32)
    got = avg_pool2d_backward(g, x, [3], [2], [1], False, True, 1000, 0, product="910b")
    np.testing.assert_allclose(got, _golden(g, x, [3], [2], [1], False, True, 1000), rtol=1e-6, atol=1e-9)
    with pytest.raises(ValueError):  # rejected by the op on 910
        avg_pool2d_backward(g, x, [3], [2], [1], False, True, 1000, 1, product="910")


def test_null_stride_means_kernel(rng):
    g, x = _data(rng, GEOMETRIES[0], False, F32)
    a = avg_pool2d_backward(g, x, [2], None, [0], False, True, 0, 0)
    b = avg_pool2d_backward(g, x, [2], [2, 2], [0], False, True, 0, 0)
    np.testing.assert_array_equal(a, b)


def test_non_contiguous_inputs(rng):
    geo = GEOMETRIES[1]
    g, x = _data(rng, geo, True, F32)
    _, kernel, stride, padding = geo
    got = avg_pool2d_backward(np.asfortranarray(g), x[:, :, ::-1], kernel, stride, padding, True, False, 0, 0)
    np.testing.assert_allclose(got, _golden(g, x, kernel, stride, padding, True, False, 0), rtol=1e-6, atol=1e-6)


def test_empty_tensors():
    x = np.zeros((0, 3, 4, 4), np.float32)
    got = avg_pool2d_backward(np.zeros((0, 3, 2, 2), np.float32), x, [2], [2], [0], False, True, 0, 0)
    assert got.shape == x.shape
    with pytest.raises(ValueError):  # empty grad_output for a non-empty self
        avg_pool2d_backward(
            np.zeros((1, 0, 2, 2), np.float32), np.zeros((1, 3, 4, 4), np.float32), [2], [2], [0], False, True, 0, 0
        )


def test_rejections(rng):
    g, x = _data(rng, GEOMETRIES[0], False, F32)
    run = avg_pool2d_backward
    with pytest.raises(ValueError):  # padding > kernel / 2
        run(g, x, [2], [2], [2], False, True, 0, 0)
    with pytest.raises(ValueError):  # empty padding
        run(g, x, [2], [2], [], False, True, 0, 0)
    with pytest.raises(ValueError):  # zero kernel
        run(g, x, [0], [2], [0], False, True, 0, 0)
    with pytest.raises(ValueError):  # zero stride
        run(g, x, [2], [0], [0], False, True, 0, 0)
    with pytest.raises(ValueError):  # cube_math_type out of range
        run(g, x, [2], [2], [0], False, True, 0, 4)
    with pytest.raises(ValueError):  # USE_HF32 on 910
        run(g, x, [2], [2], [0], False, True, 0, 3, product="910")
    with pytest.raises(ValueError):  # grad_output is not the pooled size
        run(g[..., :1], x, [2], [2], [0], False, True, 0, 0)
    with pytest.raises(ValueError):  # N/C mismatch
        run(g[:, :1], x, [2], [2], [0], False, True, 0, 0)
    with pytest.raises(ValueError):  # unsupported product
        run(g, x, [2], [2], [0], False, True, 0, 0, product="310b")


def test_mixed_dtypes_follow_grad_output(rng):
    """The op checks self and grad_output against the list separately: the result has grad_output's dtype."""
    g, x = _data(rng, GEOMETRIES[1], False, F32)
    got = avg_pool2d_backward(g.astype(F16), x, [3], [2], [1], False, True, 0, 0, product="910b")
    assert got.dtype == F16
    _close(got, _golden(g.astype(F16), x, [3], [2], [1], False, True, 0), F16, rtol=2e-3)
    with pytest.raises(ValueError):  # the 910 cube has no FLOAT32 without a cast to float16
        avg_pool2d_backward(g, x.astype(F16), [3], [2], [1], False, True, 0, 0, product="910")
    got = avg_pool2d_backward(g.astype(F16), x, [3], [2], [1], False, True, 0, 3, product="910")  # HF32 ignored
    assert got.dtype == F16


def test_divisor_255_without_count_include_pad_uses_the_mean_matrix_on_910(rng):
    """|divisor_override| == 255 is in range but not below 255: the 910 cube divides by the real cells."""
    g, x = _data(rng, GEOMETRIES[1], False, F32)
    for divisor in (255, -255):
        got = avg_pool2d_backward(g, x, [3], [2], [1], False, False, divisor, 1, product="910")
        _close(got, _golden(g, x, [3], [2], [1], False, False, 0), F16, rtol=3e-3)
    got = avg_pool2d_backward(g, x, [3], [2], [1], False, True, 255, 1, product="910")
    _close(got, _golden(g, x, [3], [2], [1], False, True, 255), F16, rtol=3e-3)


def test_cost_is_monotone_and_names_self():
    def c(n):
        x = np.empty((n, 8, 16, 16), np.float32)
        g = np.empty((n, 8, 8, 8), np.float32)
        return cost(g, x, [3], [2], [1], False, True, 0, 0)

    small, big = c(1), c(16)
    assert isinstance(small, Cost) and small.param == "self"
    assert big.bytes > small.bytes and big.ops > small.ops and isinstance(big.bytes, int)


@pytest.mark.parametrize("product", ["910b", "910", "950"])
@pytest.mark.parametrize("cube_math_type", [0, 1])
@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_compiled_spread_equals_the_numpy_path_bit_for_bit(rng, product, cube_math_type, dtype):
    """The compiled spread (one pass, straight into the result) adds in the NumPy path's order and rounds
    where it rounds: every geometry, mode (mean matrix, divisor override, count_include_pad) and product
    gives the same bits, non-contiguous inputs included."""
    from generator.kernels import _accel
    from generator.kernels._common import pool_out_size

    pytest.importorskip("numba")
    for (shape, kernel, stride, padding), (ceil, cip, div) in itertools.product(
        GEOMETRIES, [*MODES, (False, False, -7), (False, False, 255), (True, True, 300)]
    ):
        x = rng.standard_normal(shape).astype(dtype)
        kh, kw = _pair(kernel)
        sh, sw = _pair(stride, [kh, kw])
        ph, pw = _pair(padding)
        ho = pool_out_size(shape[-2], kh, sh, ph, 1, ceil)
        wo = pool_out_size(shape[-1], kw, sw, pw, 1, ceil)
        g = (rng.standard_normal((*shape[:-2], wo, ho)) * 3).astype(dtype).swapaxes(-1, -2)  # non-contiguous
        args = (g, x, kernel, stride, padding, ceil, cip, div, cube_math_type)
        try:
            with _accel.forced("numpy"):
                expected = avg_pool2d_backward(*args, product=product)
        except ValueError:
            continue  # a combination the op rejects (the 910 cube's float32, a divisor above 255)
        with _accel.forced("compiled"):
            got = avg_pool2d_backward(*args, product=product)
        assert got.dtype == expected.dtype and got.shape == expected.shape
        np.testing.assert_array_equal(got.view(np.uint8), expected.view(np.uint8))
