"""NLLLossBackward: the compiled scatter (the default) against the NumPy reference path, bit for bit.

Both paths compute ``-(weight[t] * g)`` (``g / total_weight`` first for 'mean') in float32 in the same order
and round once to the result dtype, so they must agree exactly, also for inf/NaN (NaN payloads aside), for
every dtype and product, every target dtype, 1-D ``self`` and ignored or out-of-range targets.
"""

from __future__ import annotations

import numpy as np
import pytest

from generator.kernels import _accel
from generator.kernels._common import BFLOAT16
from generator.kernels.nll_loss_backward import nll_loss_backward

pytest.importorskip("numba")

F16, F32 = np.dtype(np.float16), np.dtype(np.float32)
DTYPES = [F32, F16, BFLOAT16]
TARGETS = [np.dtype(np.int64), np.dtype(np.int32), np.dtype(np.uint8)]


def _both(*args, **kwargs):
    with _accel.forced("numpy"):
        reference = nll_loss_backward(*args, **kwargs)
    with _accel.forced("compiled"):
        compiled = nll_loss_backward(*args, **kwargs)
    return reference, compiled


def _same(a, b):
    assert a.dtype == b.dtype and a.shape == b.shape
    a32, b32 = a.astype(np.float32), b.astype(np.float32)
    np.testing.assert_array_equal(np.isnan(a32), np.isnan(b32))
    keep = ~np.isnan(a32)
    np.testing.assert_array_equal(a32[keep], b32[keep])
    np.testing.assert_array_equal(np.signbit(a32[keep]), np.signbit(b32[keep]))  # -0.0 where -(w * 0)


def _inputs(rng, rows, classes, dtype, reduction, target_dtype=np.int64, ignore_index=-100):
    self = rng.standard_normal((rows, classes)).astype(dtype)
    target = rng.integers(0, classes, rows)
    if target_dtype != np.uint8 or 0 <= ignore_index < 256:
        target[::3] = ignore_index
    target = target.astype(target_dtype)
    weight = rng.uniform(0.25, 2.0, classes).astype(dtype)
    grad = rng.standard_normal((rows,) if reduction == 0 else ()).astype(dtype)
    total = np.asarray(rng.uniform(1.0, 50.0), dtype)
    return grad, self, target, weight, total


@pytest.mark.parametrize("product", ["910b", "950"])
@pytest.mark.parametrize("reduction", [0, 1, 2], ids=["none", "mean", "sum"])
@pytest.mark.parametrize("dtype", DTYPES, ids=[d.name for d in DTYPES])
def test_paths_agree(rng, dtype, reduction, product):
    grad, self, target, weight, total = _inputs(rng, 37, 11, dtype, reduction)
    reference, compiled = _both(grad, self, target, weight, reduction, -100, total, product=product)
    expected = F32 if (dtype == F16 and product != "950") else dtype
    assert reference.dtype == expected
    _same(reference, compiled)


@pytest.mark.parametrize("target_dtype", TARGETS, ids=[d.name for d in TARGETS])
@pytest.mark.parametrize("ignore_index", [-100, 0, 4, 300])
def test_target_dtypes_and_ignore_index(rng, target_dtype, ignore_index):
    grad, self, target, weight, total = _inputs(rng, 20, 9, F32, 1, target_dtype, ignore_index)
    _same(*_both(grad, self, target, weight, 1, ignore_index, total))


def test_one_dimensional_self_and_all_ignored(rng):
    self = rng.standard_normal(7).astype(np.float32)
    weight = rng.uniform(0.5, 1.5, 7).astype(np.float32)
    for reduction in (0, 1, 2):
        # target[0] counts, the rest of a 1-D target is never read (out-of-range values there raise nothing)
        for target in (
            np.asarray(3),
            np.asarray(-100),
            np.asarray([5, 0, 1, 2, 3, 4, 6]),
            np.asarray([2, 99, -7, 0, 0, 0, 0]),
        ):
            args = (np.asarray(1.5, np.float32), self, target, weight, reduction, -100, np.asarray(4.0, np.float32))
            _same(*_both(*args))
    grad, self2, target, weight2, total = _inputs(rng, 6, 5, F32, 0)
    target[:] = -100
    reference, compiled = _both(grad, self2, target, weight2, 0, -100, total)
    assert not reference.any() and not compiled.any()


def test_non_finite_values(rng):
    grad, self, target, weight, total = _inputs(rng, 12, 6, F32, 0)
    grad[[1, 2, 4]] = [np.inf, np.nan, -0.0]
    weight[0] = np.inf
    _same(*_both(grad, self, target, weight, 0, -100, total))
    for tw in (0.0, -0.0, np.inf, np.nan):  # 'mean' divides by total_weight as given
        _same(*_both(np.asarray(2.0, np.float32), self, target, weight, 1, -100, np.asarray(tw, np.float32)))


@pytest.mark.parametrize("bad", [-1, 6, 1000])
def test_out_of_range_target_raises_on_both_paths(rng, bad):
    grad, self, target, weight, total = _inputs(rng, 8, 6, F32, 1)
    target[5] = bad
    for mode in ("numpy", "compiled"):
        with _accel.forced(mode), pytest.raises(IndexError, match=f"target {bad} is out of bounds for 6"):
            nll_loss_backward(grad, self, target, weight, 1, -100, total)


def test_read_only_and_strided_inputs(rng):
    grad, self, target, weight, total = _inputs(rng, 10, 8, F16, 0)
    wide = np.zeros(20, np.int64)
    wide[::2] = target
    strided = wide[::2]  # a strided target view
    for array in (grad, weight, total):
        array.setflags(write=False)
    _same(*_both(grad, self, strided, weight, 0, -100, total, product="910b"))
