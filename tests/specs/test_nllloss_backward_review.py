"""Second reading of specs/nllloss_backward.yaml against aclnn_nll_loss_backward.cpp (reviewer's cases).

Functions of the code cited per case: CheckNotNull, CheckDtypeValid (weight / gradOutput / totalWeight against
self's dtype, CanCast to out, self's list per arch, target's list), CheckReduction, CheckShape, the empty-self
return, and l0 NLLLossGrad (its AI Core branches ignore the launch result; only the AI CPU branch, never taken
for a dtype that passed the checks, can return null).
"""

from __future__ import annotations

import numpy as np
import pytest

import aclnn
from tests.specs.verdicts import verdict

T = aclnn.TensorDesc
ALL = ("950", "910_93", "910b", "310b", "310p", "910")


def call(dtype="FLOAT", n=4, c=3, reduction=1, tdt="INT64", **over):
    self_shape = (n, c) if n is not None else (c,)
    values = dict(
        gradOutput=T((n,) if reduction == 0 and n is not None else (), dtype),
        self=T(self_shape, dtype),
        target=T((n,) if n is not None else (), tdt),
        weight=T((c,), dtype),
        reduction=reduction,
        ignoreIndex=-100,
        totalWeight=T((), dtype),
        out=T(self_shape, dtype),
    )
    values.update(over)
    return values


def status(product="910b", **kwargs):
    return verdict("NLLLossBackward", product, **kwargs)


@pytest.mark.parametrize("product", ALL)
def test_null_pointers_come_first(product):
    for name in ("gradOutput", "self", "target", "weight", "totalWeight", "out"):
        assert status(product, **call("DOUBLE", reduction=7, **{name: None})) == ("null-pointers", 161001), name


@pytest.mark.parametrize("product", ALL)
def test_dtype_relations_before_the_lists(product):
    # each of weight, gradOutput, totalWeight must carry self's dtype exactly
    for name, shape in (("weight", (3,)), ("gradOutput", ()), ("totalWeight", ())):
        assert status(product, **call(**{name: T(shape, "FLOAT16")})) == ("dtype-same", 161002), name
        assert status(product, **call("FLOAT16", **{name: T(shape, "FLOAT")})) == ("dtype-same", 161002), name
    # out: anything self's dtype converts to (CanCast), before self's list
    assert status(product, **call(out=T((4, 3), "DOUBLE"))) is None
    assert status(product, **call(out=T((4, 3), "COMPLEX128"))) is None
    assert status(product, **call(out=T((4, 3), "FLOAT16"))) is None
    for bad in ("INT32", "BOOL", "INT8", "UINT64"):
        assert status(product, **call(out=T((4, 3), bad))) == ("out-castable", 161002), bad
    assert status(product, **call("DOUBLE", out=T((4, 3), "INT32"))) == ("out-castable", 161002)
    # the relation errors come before a bad target dtype and a bad reduction
    assert status(product, **call(totalWeight=T((), "DOUBLE"), tdt="FLOAT", reduction=5)) == ("dtype-same", 161002)


@pytest.mark.parametrize("product", ALL)
def test_self_and_target_lists(product):
    with_bf16 = product in ("950", "910_93", "910b")
    for dtype in ("FLOAT", "FLOAT16"):
        assert status(product, **call(dtype)) is None, dtype
    assert status(product, **call("BFLOAT16")) == (None if with_bf16 else ("dtype-supported", 161002))
    for dtype in ("DOUBLE", "INT32", "COMPLEX64"):
        got = status(product, **call(dtype, out=T((4, 3), "COMPLEX128")))
        assert got == ("dtype-supported", 161002), dtype
    for target in ("INT64", "INT32", "UINT8"):
        assert status(product, **call(tdt=target)) is None, target
    for target in ("INT8", "INT16", "UINT32", "FLOAT", "BOOL", "UINT64"):
        assert status(product, **call(tdt=target)) == ("dtype-supported", 161002), target
    # self's list before target's; a bad target comes before the reduction and the shapes
    assert status(product, **call(tdt="FLOAT", reduction=-1, n=None)) == ("dtype-supported", 161002)


@pytest.mark.parametrize("product", ("910b", "950"))
def test_reduction_range_before_shapes(product):
    for reduction in (0, 1, 2):
        assert status(product, **call(reduction=reduction)) is None, reduction
    for reduction in (-1, 3, 2**40, -(2**63)):
        assert status(product, **call(reduction=reduction)) == ("reduction-range", 161002), reduction
    # before every shape error
    assert status(product, **call(reduction=3, self=T((4, 3, 1), "FLOAT"))) == ("reduction-range", 161002)


def test_self_and_target_ranks():
    for shape in ((), (2, 2, 3), (1, 1, 1, 3)):
        assert status(**call(self=T(shape, "FLOAT"), out=T(shape, "FLOAT"))) == ("self-rank", 161002), shape
    assert status(**call(target=T((4, 1), "INT64"))) == ("target-rank", 161002)
    # self's rank before target's
    assert status(**call(self=T((2, 2, 3), "FLOAT"), target=T((4, 1), "INT64"))) == ("self-rank", 161002)


def test_self_target_size_rule():
    # (N, C) with (N)
    assert status(**call(n=4)) is None
    assert status(**call(n=4, target=T((3,), "INT64"))) == ("target-size", 161002)
    # (N, C) with a 0-d target: GetDim(0) of a 0-d shape reads its zero-initialised slot, so only N = 0 passes
    assert status(**call(n=1, target=T((), "INT64"))) == ("target-size", 161002)
    assert status(**call(n=3, target=T((), "INT64"))) == ("target-size", 161002)
    for reduction in (0, 1, 2):
        assert status(**call(n=0, reduction=reduction, target=T((), "INT64"))) is None, reduction
    # ... and the later checks still apply to that call
    assert status(**call(n=0, reduction=0, target=T((), "INT64"), gradOutput=T((), "FLOAT"))) == (
        "grad-output-per-sample",
        161002,
    )
    # (C) with ()
    assert status(**call(n=None, c=5)) is None
    # (C) with a 1-D target: dim 0 of both is compared (C == len(target)), as in PyTorch
    assert status(**call(n=None, c=5, target=T((5,), "INT64"))) is None
    assert status(**call(n=None, c=5, target=T((1,), "INT64"))) == ("target-size", 161002)
    # target before weight
    assert status(**call(target=T((3,), "INT64"), weight=T((9,), "FLOAT"))) == ("target-size", 161002)


def test_weight_and_total_weight_shapes():
    for bad in ((4,), (1, 3), (), (3, 1)):
        assert status(**call(weight=T(bad, "FLOAT"))) == ("weight-shape", 161002), bad
    # C is the last dimension of self, for (C) too
    assert status(**call(n=None, c=6, weight=T((6,), "FLOAT"))) is None
    for ok in ((), (1,), (1, 1), (1, 1, 1, 1, 1, 1, 1, 1, 1)):
        assert status(**call(totalWeight=T(ok, "FLOAT"))) is None, ok
    for bad in ((2,), (0,), (1, 2)):
        assert status(**call(totalWeight=T(bad, "FLOAT"))) == ("total-weight-numel", 161002), bad
    # weight before totalWeight
    assert status(**call(weight=T((4,), "FLOAT"), totalWeight=T((2,), "FLOAT"))) == ("weight-shape", 161002)


def test_grad_output_shape_by_reduction_and_rank():
    # reduction none with (N, C): exactly (N)
    assert status(**call(reduction=0)) is None
    for bad in ((), (1,), (4, 1), (5,)):
        assert status(**call(reduction=0, gradOutput=T(bad, "FLOAT"))) == ("grad-output-per-sample", 161002), bad
    # N = 1: (1,) is (N); () is not
    assert status(**call(n=1, reduction=0, gradOutput=T((1,), "FLOAT"))) is None
    assert status(**call(n=1, reduction=0, gradOutput=T((), "FLOAT"))) == ("grad-output-per-sample", 161002)
    # reduction none with (C), and mean / sum always: one element of rank 0 or 1
    for reduction in (0, 1, 2):
        for ok in ((), (1,)):
            assert status(**call(n=None, reduction=reduction, gradOutput=T(ok, "FLOAT"))) is None, (reduction, ok)
    for reduction in (1, 2):
        for bad in ((4,), (1, 1), (0,)):
            assert status(**call(reduction=reduction, gradOutput=T(bad, "FLOAT"))) == (
                "grad-output-single",
                161002,
            ), (reduction, bad)
    # gradOutput before out
    assert status(**call(gradOutput=T((2,), "FLOAT"), out=T((3, 4), "FLOAT"))) == ("grad-output-single", 161002)


def test_out_shape():
    assert status(**call(out=T((3, 4), "FLOAT"))) == ("out-shape", 161002)
    assert status(**call(out=T((12,), "FLOAT"))) == ("out-shape", 161002)
    assert status(**call(n=None, c=3, out=T((1, 3), "FLOAT"))) == ("out-shape", 161002)


@pytest.mark.parametrize("product", ALL)
def test_empty_self_passes_after_every_check(product):
    # N = 0
    assert status(product, **call(n=0, reduction=0)) is None
    assert status(product, **call(n=0, reduction=1)) is None
    # C = 0 (weight (0,))
    assert status(product, **call(n=2, c=0)) is None
    assert status(product, **call(n=None, c=0)) is None
    # the checks still run on empty tensors
    assert status(product, **call(n=0, reduction=0, gradOutput=T((), "FLOAT"))) == ("grad-output-per-sample", 161002)
    assert status(product, **call(n=0, tdt="INT16")) == ("dtype-supported", 161002)
    assert status(product, **call(n=0, c=3, weight=T((0,), "FLOAT"))) == ("weight-shape", 161002)


@pytest.mark.parametrize("product", ALL)
def test_no_kernel_failure_surfaces_after_the_checks(product):
    """No product check anywhere; FLOAT16 is computed as FLOAT outside 950, so l0 NLLLossGrad takes an AI Core
    branch whose launch result is ignored: every call that passes the checks returns success (310b included)."""
    for dtype in ("FLOAT", "FLOAT16"):
        for reduction in (0, 1, 2):
            assert status(product, **call(dtype, reduction=reduction)) is None, (dtype, reduction)
        assert status(product, **call(dtype, n=None)) is None
    # ignoreIndex takes any value
    for ignore in (-(2**63), -1, 0, 2, 2**63 - 1):
        assert status(product, **call(ignoreIndex=ignore)) is None, ignore


def test_empty_batch_with_a_0d_target_runs():
    """The validator accepts (0, C) self with a 0-d target (dimension 0 of a 0-d shape reads as 0); the
    reference kernel then returns the empty gradient instead of failing."""
    result = aclnn.run(
        "NLLLossBackward",
        product="910b",
        gradOutput=np.zeros((0,), np.float32),
        self=np.zeros((0, 3), np.float32),
        target=np.array(0, np.int64),
        weight=np.ones(3, np.float32),
        reduction=0,
        ignoreIndex=-100,
        totalWeight=np.array(1.0, np.float32),
    )
    assert result["out"].shape == (0, 3) and result["out"].dtype == np.float32
    # with N = 1 the 0-d target does not match: refused by the validator, never reaching the kernel
    with pytest.raises(aclnn.AclnnError) as info:
        aclnn.run(
            "NLLLossBackward",
            product="910b",
            gradOutput=np.zeros((1,), np.float32),
            self=np.zeros((1, 3), np.float32),
            target=np.array(0, np.int64),
            weight=np.ones(3, np.float32),
            reduction=0,
            ignoreIndex=-100,
            totalWeight=np.array(1.0, np.float32),
        )
    assert info.value.code == 161002
