"""max_pool3d_with_argmax(_backward) vs torch max_pool3d(return_indices=True) and its backward."""

from __future__ import annotations

import numpy as np
import pytest

from generator.kernels._common import pool_out_size
from generator.kernels.max_pool3d_with_argmax_backward import (
    max_pool3d_with_argmax,
    max_pool3d_with_argmax_backward,
)
from tests.kernels.conftest import DTYPE_IDS, DTYPES, TOLERANCES, from_torch, to_torch

torch = pytest.importorskip("torch")
F = torch.nn.functional

# (self shape, kernel, stride, padding, dilation, ceil_mode)
CASES = [
    ((2, 3, 4, 5, 6), [2], [2], [0], [1], False),  # non-overlapping, 5-D
    ((1, 2, 5, 7, 6), [3], [2], [1], [1], False),  # overlapping, padding
    ((2, 2, 5, 7, 9), [3, 2, 3], [2, 1, 2], [1, 1, 0], [1], True),  # per-axis attrs, ceil mode
    ((3, 6, 5, 7), [2, 3, 2], [], [0, 1, 1], [1], True),  # 4-D, empty stride (= kernel)
    ((2, 7, 7, 5), [3], [1], [1], [1], False),  # 4-D, stride 1: heavy overlap
    ((1, 3, 6, 7, 8), [3, 2, 2], [2, 2, 1], [1, 0, 1], [2, 1, 2], True),  # dilation
    ((2, 1, 5, 4, 3), [3, 2, 1], [3, 2, 1], [1, 1, 0], [1], True),  # ceil rule trims the last D window
]
CASE_IDS = [f"case{i}" for i in range(len(CASES))]


def _trip(values):
    values = list(values)
    return values * 3 if len(values) == 1 else values


def _torch_attrs(kernel, stride, padding, dilation):
    kernel = _trip(kernel)
    return kernel, _trip(stride) if stride else kernel, _trip(padding), _trip(dilation)


def _input(rng, shape, dtype, *, ties=False):
    if ties:  # few distinct values: exercises the first-maximum rule
        x = rng.integers(-2, 3, size=shape).astype(np.float32)
    else:
        x = rng.standard_normal(shape).astype(np.float32)
    return x.astype(dtype)


def _torch_forward(x, kernel, stride, padding, dilation, ceil_mode):
    k, s, p, d = _torch_attrs(kernel, stride, padding, dilation)
    out, idx = F.max_pool3d(to_torch(x), k, s, p, d, ceil_mode=ceil_mode, return_indices=True)
    return from_torch(out), idx


def _golden_backward(grad, x, idx, kernel, stride, padding, dilation, ceil_mode):
    """ATK golden: torch backward in float32, cast back to the input dtype."""
    k, s, p, d = _torch_attrs(kernel, stride, padding, dilation)
    res = torch.ops.aten.max_pool3d_with_indices_backward(
        torch.from_numpy(grad.astype(np.float32)),
        torch.from_numpy(x.astype(np.float32)),
        k,
        s,
        p,
        d,
        ceil_mode,
        idx,
    )
    return res.numpy().astype(x.dtype)


def _close(got, want):
    rtol, atol = TOLERANCES[np.dtype(want.dtype)]
    np.testing.assert_allclose(got.astype(np.float32), want.astype(np.float32), rtol=rtol, atol=atol)


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_backward_matches_torch(rng, dtype, case):
    shape, kernel, stride, padding, dilation, ceil_mode = case
    for ties in (False, True):
        x = _input(rng, shape, dtype, ties=ties)
        out_t, idx_t = _torch_forward(x, kernel, stride, padding, dilation, ceil_mode)
        grad = rng.uniform(-2, 2, size=out_t.shape).astype(np.float32).astype(dtype)
        indices = idx_t.numpy().astype(np.int32)
        got = max_pool3d_with_argmax_backward(grad, x, indices, kernel, stride, padding, dilation, ceil_mode)
        assert got.dtype == dtype and got.shape == x.shape
        _close(got, _golden_backward(grad, x, idx_t, kernel, stride, padding, dilation, ceil_mode))
        # the sum of gradients is preserved by the scatter (every index is in range)
        total = grad.astype(np.float64)
        slack = 8e-3 * np.abs(total).sum() + 1e-6  # each stored sum is rounded once to the dtype
        assert abs(got.astype(np.float64).sum() - total.sum()) <= slack


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_forward_matches_torch(rng, dtype, case):
    shape, kernel, stride, padding, dilation, ceil_mode = case
    for ties in (False, True):
        x = _input(rng, shape, dtype, ties=ties)
        out_t, idx_t = _torch_forward(x, kernel, stride, padding, dilation, ceil_mode)
        out, idx = max_pool3d_with_argmax(x, kernel, stride, padding, dilation, ceil_mode)
        assert out.dtype == dtype and idx.dtype == np.int32
        np.testing.assert_array_equal(idx, idx_t.numpy())
        np.testing.assert_array_equal(out.astype(np.float32), out_t.astype(np.float32))


def test_forward_nan_and_inf_like_torch(rng):
    x = rng.standard_normal((2, 2, 5, 6, 7)).astype(np.float32)
    flat = x.reshape(-1)
    flat[rng.choice(flat.size, 25, replace=False)] = np.nan
    flat[rng.choice(flat.size, 25, replace=False)] = -np.inf
    x[0, 0] = -np.inf  # a whole plane of -inf: index = first in-bounds cell of each window
    for args in [([3], [2], [1], [1], True), ([3], [1, 2, 1], [1], [2], False)]:  # incl. dilation 2
        out_t, idx_t = _torch_forward(x, *args)
        out, idx = max_pool3d_with_argmax(x, *args)
        np.testing.assert_array_equal(idx, idx_t.numpy())
        np.testing.assert_array_equal(out, out_t)


def test_int64_indices_and_scatter_accumulates():
    # one channel, every output points at the same cell -> all gradients add up there
    x = np.zeros((1, 1, 3, 3, 3), np.float32)
    grad = np.arange(1, 9, dtype=np.float32).reshape(1, 1, 2, 2, 2)
    for dtype in (np.int32, np.int64):
        idx = np.full(grad.shape, 13, dtype=dtype)
        got = max_pool3d_with_argmax_backward(grad, x, idx, [2], [1], [0], [1], False)
        want = np.zeros(27, np.float32)
        want[13] = 36.0
        np.testing.assert_array_equal(got.reshape(-1), want)


def test_doc_sample():
    # aclnnMaxPool3dWithArgmaxBackward.md: 2x2x2 input, kernel 2, stride 2, max at (d=1, h=1, w=0) -> index 6
    x = np.array([0.0850, -0.5147, -0.0212, -0.5654, -0.3222, 0.5847, 1.7510, 0.9954], np.float32)
    x = x.reshape(1, 1, 2, 2, 2)
    out, idx = max_pool3d_with_argmax(x, [2, 2, 2], [2, 2, 2], [0, 0, 0], [1, 1, 1], False)
    assert idx.reshape(-1).tolist() == [6] and out.reshape(-1)[0] == np.float32(1.7510)
    grad = np.array([0.4757], np.float32).reshape(1, 1, 1, 1, 1)
    got = max_pool3d_with_argmax_backward(grad, x, idx, [2, 2, 2], [2, 2, 2], [0, 0, 0], [1, 1, 1], False)
    want = np.zeros(8, np.float32)
    want[6] = 0.4757
    np.testing.assert_array_equal(got.reshape(-1), want)


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_empty_inputs(dtype):
    for shape in [(0, 2, 4, 4, 4), (0, 4, 4, 4)]:
        x = np.zeros(shape, dtype)
        out_shape = shape[:-3] + (2, 2, 2)
        grad = np.zeros(out_shape, dtype)
        got = max_pool3d_with_argmax_backward(grad, x, np.zeros(out_shape, np.int32), [2], [2], [0], [1], False)
        assert got.shape == shape and got.dtype == dtype
        out, idx = max_pool3d_with_argmax(x, [2], [2], [0], [1], False)
        assert out.shape == out_shape and idx.shape == out_shape


def test_output_shape_rule():
    # ceil mode: (5 + 2*1 - 3 + 2) // 3 + 1 = 3, but the last window would start at 6 >= 5 + 1 -> 2
    assert pool_out_size(5, 3, 3, 1, 1, True) == 2
    x = np.zeros((1, 1, 5, 5, 5), np.float32)
    out, _ = max_pool3d_with_argmax(x, [3], [3], [1], [1], True)
    assert out.shape == (1, 1, 2, 2, 2)
    assert F.max_pool3d(torch.from_numpy(x), 3, 3, 1, ceil_mode=True).shape == out.shape


def test_rejections():
    x = np.zeros((1, 2, 4, 4, 4), np.float32)
    grad = np.zeros((1, 2, 2, 2, 2), np.float32)
    idx = np.zeros(grad.shape, np.int32)
    bwd = max_pool3d_with_argmax_backward
    with pytest.raises(ValueError):  # index out of the D*H*W volume
        bwd(grad, x, np.full(grad.shape, 64, np.int32), [2], [2], [0], [1], False)
    with pytest.raises(ValueError):
        bwd(grad, x, np.full(grad.shape, -1, np.int32), [2], [2], [0], [1], False)
    with pytest.raises(ValueError):  # grad_output shape is not the pooled shape
        bwd(
            np.zeros((1, 2, 3, 3, 3), np.float32),
            x,
            np.zeros((1, 2, 3, 3, 3), np.int32),
            [2],
            [2],
            [0],
            [1],
            False,
        )
    with pytest.raises(ValueError):  # indices shape != grad_output shape
        bwd(grad, x, idx[..., :1], [2], [2], [0], [1], False)
    with pytest.raises(ValueError):  # padding > kernel // 2
        bwd(grad, x, idx, [2], [2], [2], [1], False)
    with pytest.raises(ValueError):  # kernel_size of length 2
        bwd(grad, x, idx, [2, 2], [2], [0], [1], False)
    with pytest.raises(ValueError):  # 3-D self
        bwd(grad[0], x[0, 0], idx[0], [2], [2], [0], [1], False)
    with pytest.raises(TypeError):
        bwd(grad, x, idx.astype(np.int16), [2], [2], [0], [1], False)
    with pytest.raises(TypeError):
        bwd(grad.astype(np.float16), x, idx, [2], [2], [0], [1], False)
