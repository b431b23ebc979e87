"""softmax_backward vs torch.ops.aten._softmax_backward_data (PyTorch CPU)."""

from __future__ import annotations

import numpy as np
import pytest

from generator.kernels import _pointwise
from generator.kernels._common import BFLOAT16
from generator.kernels.softmax_backward import cost, softmax_backward
from tests.kernels._oracle import F16, F32, HALF_AND_SINGLE, HALF_AND_SINGLE_IDS, close, n, randn, strided, t

torch = pytest.importorskip("torch")

CASES = [
    ((), 0),
    ((), -1),
    ((5,), 0),
    ((3, 7), 1),
    ((3, 7), 0),
    ((3, 7), -1),
    ((3, 7), -2),
    ((2, 3, 4), 1),
    ((2, 1, 4), -2),  # a softmax over a size-1 axis: output 1, gradient 0
    ((2, 3, 1, 2, 1, 2, 1, 3), 4),  # rank 8
]


def _softmax_output(rng, shape, dim, dtype):
    logits = t(np.asarray(rng.standard_normal(shape) * 2, np.float32))
    return torch.softmax(logits, dim).numpy().astype(dtype)


def _golden(grad, y, dim, dtype):
    return n(torch.ops.aten._softmax_backward_data(t(grad), t(y), dim, torch.float32), dtype)


@pytest.mark.parametrize("dtype", HALF_AND_SINGLE, ids=HALF_AND_SINGLE_IDS)
@pytest.mark.parametrize("case", CASES, ids=[f"{s}-dim{d}" for s, d in CASES])
def test_matches_torch(rng, dtype, case):
    shape, dim = case
    y = _softmax_output(rng, shape, dim, dtype)
    grad = randn(rng, shape, dtype)
    got = softmax_backward(grad, y, dim)
    close(got, _golden(grad, y, dim, dtype))


def test_formula_by_hand():
    y = np.array([[0.1, 0.2, 0.7], [0.3, 0.3, 0.4]], np.float64)
    g = np.array([[1.0, -1.0, 2.0], [0.5, 0.0, -0.5]], np.float64)
    want = y * (g - (g * y).sum(axis=1, keepdims=True))
    np.testing.assert_allclose(softmax_backward(g.astype(F32), y.astype(F32), 1), want, rtol=1e-6, atol=1e-7)
    want0 = y * (g - (g * y).sum(axis=0, keepdims=True))
    np.testing.assert_allclose(softmax_backward(g.astype(F32), y.astype(F32), -2), want0, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize(
    "shape, dim",
    [
        ((3, 2 * _pointwise.BLOCK + 5), 1),
        ((2 * _pointwise.BLOCK + 5, 3), 0),
        ((70, 600, 3), 1),
        ((5, 3, 9000), 0),
        ((20000, 3), 1),
    ],
)
def test_slabs(rng, shape, dim):
    y = _softmax_output(rng, shape, dim, F32)
    grad = randn(rng, shape, F32)
    close(softmax_backward(grad, y, dim), _golden(grad, y, dim, F32))


@pytest.mark.parametrize("dtype", HALF_AND_SINGLE, ids=HALF_AND_SINGLE_IDS)
def test_non_contiguous(rng, dtype):
    y = _softmax_output(rng, (6, 9), 0, dtype)
    grad = randn(rng, (6, 9), dtype)
    g2, y2 = strided(grad), strided(y)
    close(softmax_backward(g2, y2, 0), _golden(g2, y2, 0, dtype))
    close(softmax_backward(grad.T, y.T, 1), _golden(grad.T, y.T, 1, dtype))


@pytest.mark.parametrize("dtype", HALF_AND_SINGLE, ids=HALF_AND_SINGLE_IDS)
def test_read_only_inputs(rng, dtype):
    y = _softmax_output(rng, (3, 5), 1, dtype)
    grad = randn(rng, (3, 5), dtype)
    want = softmax_backward(grad, y, 1)
    for a in (grad, y):
        a.flags.writeable = False
    got = softmax_backward(grad, y, 1)
    assert got.dtype == dtype and got.flags.writeable
    np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))


def test_special_values():
    y = np.array([[0.5, 0.5, 0.0], [np.nan, 0.5, 0.5]], np.float32)
    g = np.array([[1.0, 2.0, np.inf], [1.0, 1.0, 1.0]], np.float32)
    got = softmax_backward(g, y, 1)
    want = torch.ops.aten._softmax_backward_data(torch.from_numpy(g), torch.from_numpy(y), 1, torch.float32).numpy()
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    assert np.isnan(got[1]).all()  # a NaN anywhere in a row spreads over the row


@pytest.mark.parametrize("dim", [0, 5, -7])
def test_empty_accepts_any_dim(dim):
    got = softmax_backward(np.zeros((2, 0, 3), BFLOAT16), np.zeros((2, 0, 3), BFLOAT16), dim)
    assert got.shape == (2, 0, 3) and got.dtype == BFLOAT16


def test_empty_grad_output_accepts_any_output():
    # 910/310P/A2/A3 return success before checking dtypes or shapes when a tensor is empty
    got = softmax_backward(np.zeros((0, 3), np.float64), np.zeros((2, 2), np.int32), 7)
    assert got.shape == (0, 3) and got.dtype == np.float64
    with pytest.raises(ValueError):  # out would be left unwritten: undefined
        softmax_backward(np.zeros((2, 3), F32), np.zeros((0, 3), F32), 1)


def test_rejections():
    f32 = np.zeros((2, 3), F32)
    for dim in (2, -3):
        with pytest.raises(IndexError):
            softmax_backward(f32, f32, dim)
    for dim in (1, -2):
        with pytest.raises(IndexError):
            softmax_backward(np.zeros((), F32), np.zeros((), F32), dim)
    with pytest.raises(TypeError):
        softmax_backward(f32, f32.astype(F16), 0)
    with pytest.raises(TypeError):
        softmax_backward(f32.astype(np.float64), f32.astype(np.float64), 0)
    swapped = f32.astype(">f4")  # equal values, but not the float32 CANN knows (nor NumPy's native one)
    with pytest.raises(TypeError, match="grad_output: dtype"):
        softmax_backward(swapped, swapped, 0)
    with pytest.raises(TypeError, match="output: dtype"):
        softmax_backward(f32, swapped, 0)
    with pytest.raises(ValueError):
        softmax_backward(f32, np.zeros((3, 2), F32), 0)
    with pytest.raises(ValueError):
        softmax_backward(np.zeros((1,) * 9, F32), np.zeros((1,) * 9, F32), 0)


def test_cost():
    small, big = (
        cost(np.zeros((2, 2), F32), np.zeros((2, 2), F32), 1),
        cost(np.zeros((200, 2), F32), np.zeros((200, 2), F32), 1),
    )
    assert small.param == big.param == "gradOutput"
    assert big.bytes > small.bytes and big.ops > small.ops and big.ops >= 400


@pytest.mark.parametrize("dtype", HALF_AND_SINGLE, ids=HALF_AND_SINGLE_IDS)
@pytest.mark.parametrize(("shape", "dim"), [((6, 4096), -1), ((3, 5000), -1), ((2, 300, 9), 1)])
def test_compiled_and_numpy_paths_agree(rng, dtype, shape, dim):
    """Compiled rows (float32 lane sums for half rows up to 4096, float64 sums beyond and for float32, strided
    columns) against the NumPy path and torch."""
    pytest.importorskip("numba")
    from generator.kernels import _accel

    y = _softmax_output(rng, shape, dim, dtype)
    grad = randn(rng, shape, dtype, 4.0)
    with _accel.forced("numpy"):
        reference = softmax_backward(grad, y, dim)
    with _accel.forced("compiled"):
        compiled = softmax_backward(grad, y, dim)
    assert compiled.dtype == reference.dtype == dtype
    close(compiled, reference)
    close(compiled, _golden(grad, y, dim, dtype))


@pytest.mark.parametrize("dtype", HALF_AND_SINGLE, ids=HALF_AND_SINGLE_IDS)
@pytest.mark.parametrize("shape", [(2, 7, 5000), (1, 4, 10), (3, 3, 17), (1, 13, 4097), (2, 8, 3)], ids=str)
def test_compiled_strided_sums_exact(rng, dtype, shape):
    """The compiled loop over a non-last axis (four rows per sweep of the column sums, then the rest; chunks of
    4096 columns) gives exactly: float32 products summed in float64 row after row, rounded to float32 once,
    then ``(g - s) * y`` in float32 rounded once to the dtype (NumPy's reduction over a non-last axis adds
    row after row too)."""
    pytest.importorskip("numba")
    from generator.kernels import _accel

    y = _softmax_output(rng, shape, 1, dtype)
    grad = randn(rng, shape, dtype, 4.0)
    with _accel.forced("compiled"):
        compiled = softmax_backward(grad, y, 1)
    g32, y32 = grad.astype(F32), y.astype(F32)
    sums = np.add.reduce((g32 * y32).astype(np.float64), axis=1, keepdims=True).astype(F32)
    expected = ((g32 - sums) * y32).astype(dtype)
    assert compiled.dtype == dtype
    np.testing.assert_array_equal(compiled.view(np.uint8), expected.view(np.uint8))
