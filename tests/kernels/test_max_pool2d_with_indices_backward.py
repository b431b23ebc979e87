"""max_pool2d_with_indices_backward vs torch.ops.aten.max_pool2d_with_indices_backward (float32 golden)."""

from __future__ import annotations

import numpy as np
import pytest

from generator.kernels._common import Cost
from generator.kernels.max_pool2d_with_indices_backward import cost, max_pool2d_with_indices_backward
from tests.kernels.conftest import DTYPE_IDS, DTYPES, TOLERANCES, to_torch

torch = pytest.importorskip("torch")
F = torch.nn.functional

# (self shape, kernel, stride, padding, dilation, ceil_mode)
CASES = [
    ((2, 3, 8, 8), [2], [2], [0], [1], False),
    ((1, 4, 9, 11), [3], [2], [1], [1], True),  # overlapping windows, ceil
    ((3, 7, 6), [3, 2], [1, 2], [1, 1], [1], False),  # 3-D, stride-1 rows
    ((2, 2, 10, 9), [3], [], [1], [2], False),  # dilation 2 (950), empty stride
    ((1, 3, 12, 10), [2, 3], [3, 2], [1, 1], [2, 1], True),  # dilation per axis, ceil
    ((2, 5, 5, 7), [4, 2], [3, 1], [2, 1], [1, 1], True),  # maximal padding
]
CASE_IDS = [f"case{i}" for i in range(len(CASES))]


def _pair(v, default=None):
    v = list(v)
    if not v:
        return default
    return v * 2 if len(v) == 1 else v


def _forward(x, kernel, stride, padding, dilation, ceil_mode):
    k = _pair(kernel)
    s, p, d = _pair(stride, k), _pair(padding), _pair(dilation)
    xt = to_torch(x).float()
    out, idx = F.max_pool2d(xt, k, s, p, d, ceil_mode=ceil_mode, return_indices=True)
    return out.shape, idx, (k, s, p, d)


def _golden(g, x, idx, attrs, ceil_mode):
    k, s, p, d = attrs
    return torch.ops.aten.max_pool2d_with_indices_backward(
        to_torch(g).float(), to_torch(x).float(), k, s, p, d, ceil_mode, idx
    ).numpy()


def _close(got, want, dtype):
    rtol, atol = TOLERANCES[np.dtype(dtype)]
    np.testing.assert_allclose(got.astype(np.float32), want.astype(dtype).astype(np.float32), rtol=rtol, atol=atol)


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64], ids=["int32", "int64"])
@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_matches_torch(rng, case, index_dtype, dtype):
    shape, kernel, stride, padding, dilation, ceil_mode = case
    x = rng.standard_normal(shape).astype(np.float32).astype(dtype)
    out_shape, idx_t, attrs = _forward(x, kernel, stride, padding, dilation, ceil_mode)
    g = rng.uniform(-2, 2, tuple(out_shape)).astype(np.float32).astype(dtype)
    idx = idx_t.numpy().astype(index_dtype)
    got = max_pool2d_with_indices_backward(g, x, idx, kernel, stride, padding, dilation, ceil_mode)
    assert got.dtype == dtype and got.shape == shape
    _close(got, _golden(g, x, idx_t, attrs, ceil_mode), dtype)


def test_ties_and_overlaps_accumulate(rng):
    """Constant input: every window picks its first in-bounds cell; overlapping windows add up."""
    x = np.zeros((1, 1, 5, 5), np.float32)
    g = np.ones((1, 1, 4, 4), np.float32)
    _, idx_t, attrs = _forward(x, [2], [1], [0], [1], False)
    got = max_pool2d_with_indices_backward(g, x, idx_t.numpy(), [2], [1], [0], [1], False)
    np.testing.assert_array_equal(got, _golden(g, x, idx_t, attrs, False))
    assert got[0, 0, :4, :4].sum() == 16


@pytest.mark.parametrize("case", CASES[:2], ids=CASE_IDS[:2])
def test_channels_last(rng, case):
    shape, kernel, stride, padding, dilation, ceil_mode = case
    x = rng.standard_normal(shape).astype(np.float32)
    out_shape, idx_t, attrs = _forward(x, kernel, stride, padding, dilation, ceil_mode)
    g = rng.standard_normal(tuple(out_shape)).astype(np.float32)
    want = _golden(g, x, idx_t, attrs, ceil_mode)
    to_last = (0, 2, 3, 1)
    got = max_pool2d_with_indices_backward(
        g.transpose(to_last).copy(),
        x.transpose(to_last).copy(),
        idx_t.numpy().transpose(to_last).copy(),
        kernel, stride, padding, dilation, ceil_mode,
        data_format="NHWC",
    )  # fmt: skip
    np.testing.assert_allclose(got, want.transpose(to_last), rtol=1e-6, atol=1e-6)


def test_non_contiguous_inputs(rng):
    shape, kernel, stride, padding, dilation, ceil_mode = CASES[1]
    x = rng.standard_normal(shape).astype(np.float32)
    out_shape, idx_t, attrs = _forward(x, kernel, stride, padding, dilation, ceil_mode)
    g = rng.standard_normal(tuple(out_shape)).astype(np.float32)
    idx = idx_t.numpy().astype(np.int32)
    got = max_pool2d_with_indices_backward(
        np.asfortranarray(g), np.asfortranarray(x), np.asfortranarray(idx), kernel, stride, padding, dilation, ceil_mode
    )
    np.testing.assert_allclose(got, _golden(g, x, idx_t, attrs, ceil_mode), rtol=1e-6, atol=1e-6)


def test_in_range_index_outside_its_window_is_scattered_where_it_points():
    x = np.zeros((1, 1, 4, 4), np.float32)
    g = np.array([[[[1.0, 2.0], [3.0, 4.0]]]], np.float32)
    idx = np.array([[[[15, 0], [0, 5]]]], np.int32)
    got = max_pool2d_with_indices_backward(g, x, idx, [2], [2], [0], [1], False)
    want = np.zeros(16, np.float32)
    want[15], want[0], want[5] = 1.0, 5.0, 4.0
    np.testing.assert_array_equal(got.reshape(-1), want)


def test_empty_batch():
    x = np.zeros((0, 3, 6, 6), np.float32)
    g = np.zeros((0, 3, 3, 3), np.float32)
    got = max_pool2d_with_indices_backward(g, x, g.astype(np.int32), [2], [2], [0], [1], False)
    assert got.shape == x.shape and got.dtype == x.dtype


def test_rejections():
    x = np.zeros((1, 2, 4, 4), np.float32)
    g = np.zeros((1, 2, 2, 2), np.float32)
    idx = np.zeros(g.shape, np.int32)
    run = max_pool2d_with_indices_backward
    with pytest.raises(ValueError):  # out-of-range index
        run(g, x, idx + 16, [2], [2], [0], [1], False)
    with pytest.raises(ValueError):  # negative index
        run(g, x, idx - 1, [2], [2], [0], [1], False)
    with pytest.raises(ValueError):  # INT8 indices
        run(g, x, idx.astype(np.int8), [2], [2], [0], [1], False)
    with pytest.raises(TypeError):  # float indices
        run(g, x, idx.astype(np.float32), [2], [2], [0], [1], False)
    with pytest.raises(ValueError):  # padding > kernel // 2
        run(g, x, idx, [2], [2], [2], [1], False)
    with pytest.raises(ValueError):  # grad_output is not the pooled shape
        run(np.zeros((1, 2, 3, 3), np.float32), x, np.zeros((1, 2, 3, 3), np.int32), [2], [2], [0], [1], False)
    with pytest.raises(ValueError):  # indices shape differs from grad_output
        run(g, x, idx[..., :1], [2], [2], [0], [1], False)
    with pytest.raises(ValueError):  # zero channels
        run(g[:, :0], x[:, :0], idx[:, :0], [2], [2], [0], [1], False)
    with pytest.raises(ValueError):  # kernel of three values
        run(g, x, idx, [2, 2, 2], [2], [0], [1], False)
    with pytest.raises(ValueError):  # zero dilation
        run(g, x, idx, [2], [2], [0], [0], False)
    with pytest.raises(ValueError):  # 5-D self
        run(g[None], x[None], idx[None], [2], [2], [0], [1], False)
    with pytest.raises(TypeError):  # dtype mismatch
        run(g.astype(np.float16), x, idx, [2], [2], [0], [1], False)


def test_cost_is_monotone_and_names_self():
    def c(h):
        x = np.empty((2, 4, h, h), np.float32)
        g = np.empty((2, 4, h // 2, h // 2), np.float32)
        return cost(g, x, g, [2], [2], [0], [1], False)

    small, big = c(8), c(64)
    assert isinstance(small, Cost) and small.param == "self"
    assert big.bytes > small.bytes and big.ops > small.ops and isinstance(big.ops, int)
