"""nll_loss_backward vs torch.ops.aten.nll_loss_backward (PyTorch CPU)."""

from __future__ import annotations

import numpy as np
import pytest

from generator.kernels._common import BFLOAT16
from generator.kernels.nll_loss_backward import cost, nll_loss_backward
from tests.kernels._oracle import F16, F32, HALF_AND_SINGLE, HALF_AND_SINGLE_IDS, close, n, randn, t

torch = pytest.importorskip("torch")

TARGET_DTYPES = [np.dtype(np.int64), np.dtype(np.int32), np.dtype(np.uint8)]


def _inputs(rng, batch, classes, dtype, reduction, ignore_index, target_dtype=np.int64):
    self = randn(rng, (batch, classes) if batch is not None else (classes,), dtype)
    rows = 1 if batch is None else batch
    target = rng.integers(0, classes, size=rows)
    if rows > 2 and 0 <= ignore_index < 256 or ignore_index < 0 and target_dtype != np.uint8:
        target[::3] = ignore_index
    target = target.astype(target_dtype)
    if batch is None:
        target = target.reshape(())
    weight = rng.uniform(0.25, 2.0, classes).astype(np.float32).astype(dtype)
    kept = target.reshape(-1)[target.reshape(-1).astype(np.int64) != ignore_index].astype(np.int64)
    total = np.asarray(weight.astype(np.float32)[kept].sum(), np.float32).astype(dtype)
    if reduction == 0 and batch is not None:
        grad = randn(rng, (batch,), dtype)
    else:
        grad = randn(rng, (), dtype)
    return grad, self, target, weight, total


def _golden(grad, self, target, weight, reduction, ignore_index, total, dtype):
    res = torch.ops.aten.nll_loss_backward(
        t(grad), t(self), t(target.astype(np.int64)), t(weight), reduction, ignore_index, t(total)
    )
    return n(res, dtype)


@pytest.mark.parametrize("dtype", HALF_AND_SINGLE, ids=HALF_AND_SINGLE_IDS)
@pytest.mark.parametrize("reduction", [0, 1, 2], ids=["none", "mean", "sum"])
@pytest.mark.parametrize("ignore_index", [-100, 1, 7])
@pytest.mark.parametrize("batch", [None, 1, 9], ids=["1d", "n1", "n9"])
def test_matches_torch(rng, dtype, reduction, ignore_index, batch):
    grad, self, target, weight, total = _inputs(rng, batch, 5, dtype, reduction, ignore_index)
    got = nll_loss_backward(grad, self, target, weight, reduction, ignore_index, total, product="950")
    close(got, _golden(grad, self, target, weight, reduction, ignore_index, total, dtype))


@pytest.mark.parametrize("target_dtype", TARGET_DTYPES, ids=[d.name for d in TARGET_DTYPES])
def test_target_dtypes(rng, target_dtype):
    grad, self, target, weight, total = _inputs(rng, 12, 6, F32, 1, 2, target_dtype)
    assert target.dtype == target_dtype
    got = nll_loss_backward(grad, self, target, weight, 1, 2, total)
    close(got, _golden(grad, self, target, weight, 1, 2, total, F32))


@pytest.mark.parametrize(
    "dtype, product, result",
    [
        (F16, "910b", F32),
        (F16, "910", F32),
        (F16, None, F32),
        (F16, "950", F16),
        (BFLOAT16, "910b", BFLOAT16),
        (F32, "910", F32),
    ],
)
def test_result_dtype_per_product(rng, dtype, product, result):
    grad, self, target, weight, total = _inputs(rng, 4, 3, dtype, 1, -100)
    got = nll_loss_backward(grad, self, target, weight, 1, -100, total, product=product)
    assert got.dtype == result
    close(got, _golden(grad, self, target, weight, 1, -100, total, result))


def test_formula_by_hand():
    self = np.zeros((3, 4), np.float32)
    target = np.array([1, 3, 0])
    weight = np.array([1.0, 2.0, 3.0, 4.0], np.float32)
    grad = np.array([0.5, -1.0, 2.0], np.float32)
    want = np.zeros((3, 4), np.float32)
    want[0, 1], want[1, 3], want[2, 0] = -2.0 * 0.5, -4.0 * -1.0, -1.0 * 2.0
    np.testing.assert_array_equal(nll_loss_backward(grad, self, target, weight, 0, -100, np.float32(7)), want)
    np.testing.assert_array_equal(
        nll_loss_backward(np.float32(2), self, target, weight, 1, 3, np.float32(4)),
        [[0, -1.0, 0, 0], [0, 0, 0, 0], [-0.5, 0, 0, 0]],
    )  # target 3 ignored, the others / 4
    np.testing.assert_array_equal(
        nll_loss_backward(np.array([2.0], np.float32), self, target, weight, 2, -100, np.float32(0)),
        [[0, -4.0, 0, 0], [0, 0, 0, -8.0], [-2.0, 0, 0, 0]],
    )


def test_one_dimensional_self_reads_the_first_target():
    self, weight = np.zeros(3, np.float32), np.ones(3, np.float32)
    # CANN accepts a 1-D target only when its length equals C (it compares self.shape[0] with it)
    for target in (np.array(2), np.array([2, 0, 1])):
        np.testing.assert_array_equal(
            nll_loss_backward(np.float32(1.5), self, target, weight, 0, -100, np.float32(1)), [0, 0, -1.5]
        )
    one = nll_loss_backward(
        np.float32(1), np.zeros(1, np.float32), np.array([0]), np.ones(1, np.float32), 1, -100, np.float32(2)
    )
    want = torch.ops.aten.nll_loss_backward(
        torch.tensor(1.0), torch.zeros(1), torch.tensor([0]), torch.ones(1), 1, -100, torch.tensor(2.0)
    )
    np.testing.assert_array_equal(one, want.numpy())


def test_zero_total_weight_and_all_ignored():
    self, weight = np.zeros((2, 3), np.float32), np.ones(3, np.float32)
    got = nll_loss_backward(np.float32(1), self, np.array([0, 1]), weight, 1, -100, np.float32(0))
    want = torch.ops.aten.nll_loss_backward(
        torch.tensor(1.0), torch.zeros(2, 3), torch.tensor([0, 1]), torch.ones(3), 1, -100, torch.tensor(0.0)
    )
    np.testing.assert_array_equal(got, want.numpy())  # -inf where a target is not ignored
    got = nll_loss_backward(np.float32(1), self, np.array([-100, -100]), weight, 1, -100, np.float32(0))
    np.testing.assert_array_equal(got, np.zeros((2, 3)))


def test_empty_batch():
    got = nll_loss_backward(
        np.float32(1),
        np.zeros((0, 4), np.float32),
        np.zeros(0, np.int64),
        np.ones(4, np.float32),
        1,
        -100,
        np.float32(0),
    )
    assert got.shape == (0, 4) and got.dtype == F32
    got = nll_loss_backward(
        np.zeros(0, F16),
        np.zeros((0, 4), F16),
        np.zeros(0, np.int32),
        np.ones(4, F16),
        0,
        -100,
        np.zeros(1, F16),
        product="950",
    )
    assert got.shape == (0, 4) and got.dtype == F16


def test_large_batch(rng):
    grad, self, target, weight, total = _inputs(rng, 5000, 37, F32, 0, 3)
    close(
        nll_loss_backward(grad, self, target, weight, 0, 3, total),
        _golden(grad, self, target, weight, 0, 3, total, F32),
    )


def test_rejections():
    self, w, tw = np.zeros((2, 3), F32), np.ones(3, F32), np.ones(1, F32)
    target = np.array([0, 1])
    with pytest.raises(IndexError):
        nll_loss_backward(np.float32(1), self, np.array([0, 3]), w, 1, -100, tw)
    with pytest.raises(IndexError):
        nll_loss_backward(np.float32(1), self, np.array([0, -1]), w, 1, -100, tw)
    nll_loss_backward(np.float32(1), self, np.array([0, -1]), w, 1, -1, tw)  # ignored: fine
    with pytest.raises(ValueError):
        nll_loss_backward(np.float32(1), self, target, w, 3, -100, tw)
    with pytest.raises(ValueError):  # 'none' with a batch needs one gradient per sample
        nll_loss_backward(np.float32(1), self, target, w, 0, -100, tw)
    with pytest.raises(ValueError):
        nll_loss_backward(np.ones(2, F32), self, target, w, 1, -100, tw)
    with pytest.raises(ValueError):
        nll_loss_backward(np.float32(1), np.zeros((2, 3, 1), F32), target, w, 1, -100, tw)
    with pytest.raises(ValueError):
        nll_loss_backward(np.float32(1), self, np.array([0, 1, 2]), w, 1, -100, tw)
    with pytest.raises(ValueError):
        nll_loss_backward(np.float32(1), np.zeros(3, F32), np.array([1]), w, 1, -100, tw)
    with pytest.raises(ValueError):
        nll_loss_backward(np.float32(1), self, target, np.ones(4, F32), 1, -100, tw)
    with pytest.raises(ValueError):
        nll_loss_backward(np.float32(1), self, target, w, 1, -100, np.ones(2, F32))
    with pytest.raises(TypeError):
        nll_loss_backward(np.float32(1), self, target.astype(np.int16), w, 1, -100, tw)
    with pytest.raises(TypeError):
        nll_loss_backward(np.float16(1), self, target, w, 1, -100, tw)


def test_cost():
    small = cost(np.float32(1), np.zeros((4, 3), F32), np.zeros(4, np.int64), np.ones(3, F32), 1, -100, np.ones(1, F32))
    big = cost(
        np.float32(1),
        np.zeros((400, 3), F32),
        np.zeros(400, np.int64),
        np.ones(3, F32),
        1,
        -100,
        np.ones(1, F32),
        product="950",
    )
    assert small.param == big.param == "self"
    assert big.bytes > small.bytes and big.ops > small.ops and big.bytes >= 1200 * 4
