"""Content tests for specs/nllloss_backward.yaml (aclnnNLLLossBackward), through the generated validator.

Written from aclnn_nll_loss_backward.cpp (CheckParams: nulls, dtypes, reduction, shapes; the empty-self
return) and nll_loss_grad.cpp (the per-product kernels), not from the spec's own cases.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import aclnn
from generator.kernels._common import BFLOAT16
from generator.loader import load_project
from tests.specs.verdicts import verdict

torch = pytest.importorskip("torch")

project = load_project(Path(__file__).resolve().parents[2] / "specs")
spec = project.op("aclnnNLLLossBackward").spec

CODE_ORDER = [
    "null-pointers",
    "dtype-same",
    "out-castable",
    "dtype-supported",
    "reduction-range",
    "self-rank",
    "target-rank",
    "target-size",
    "weight-shape",
    "total-weight-numel",
    "grad-output-per-sample",
    "grad-output-single",
    "out-shape",
    "product-supported",
]
T = aclnn.TensorDesc


def args(dtype="FLOAT", n=4, c=3, reduction=1, grad=None, tshape=None, **over):
    self_shape = (n, c) if n is not None else (c,)
    if grad is None:
        grad = (n,) if reduction == 0 and n is not None else ()
    if tshape is None:
        tshape = (n,) if n is not None else ()
    values = dict(
        gradOutput=T(grad, dtype),
        self=T(self_shape, dtype),
        target=T(tshape, "INT64"),
        weight=T((c,), dtype),
        reduction=reduction,
        ignoreIndex=-100,
        totalWeight=T((1,), dtype),
    )
    values.update(over)
    return values


def failure(product="910b", **kwargs):
    return verdict("NLLLossBackward", product, **kwargs)


def test_check_order_follows_code():
    assert [c.id for c in spec.checks] == CODE_ORDER


def test_every_pointer_is_checked_before_anything_else():
    for name in ("gradOutput", "self", "target", "weight", "totalWeight", "out"):
        bad = args(reduction=7, **{name: None})
        assert failure(**bad) == ("null-pointers", 161001), name


@pytest.mark.parametrize("product", ["950", "910_93", "910b", "310p", "910"])
def test_supported_products_pass(product):
    for reduction in (0, 1, 2):
        assert failure(product, **args("FLOAT16", reduction=reduction)) is None
        assert failure(product, **args("FLOAT", reduction=reduction)) is None


def test_bf16_only_on_dav_2201_and_950():
    for product in ("950", "910_93", "910b"):
        assert failure(product, **args("BFLOAT16")) is None
    for product in ("310p", "910", "310b"):
        assert failure(product, **args("BFLOAT16")) == ("dtype-supported", 161002)


def test_dtype_equality_comes_before_the_support_list():
    # a BFLOAT16 self on 910 with a FLOAT weight fails the equality first
    assert failure("910", **args("BFLOAT16", weight=T((3,), "FLOAT"))) == ("dtype-same", 161002)
    for name, shape in (("weight", (3,)), ("gradOutput", ()), ("totalWeight", (1,))):
        assert failure(**args(**{name: T(shape, "FLOAT16")})) == ("dtype-same", 161002), name
    # DOUBLE everywhere: equal dtypes, then the list rejects it
    assert failure(**args("DOUBLE")) == ("dtype-supported", 161002)


def test_out_dtype_is_only_a_cast_target():
    for dtype in ("FLOAT", "FLOAT16", "BFLOAT16", "DOUBLE", "COMPLEX64"):
        assert failure(**args(out=T((4, 3), dtype))) is None, dtype
    for dtype in ("INT32", "INT64", "BOOL", "UINT8"):
        assert failure(**args(out=T((4, 3), dtype))) == ("out-castable", 161002), dtype
    # the cast rule runs before the self list: a BFLOAT16 self on 910 with an INT32 out
    assert failure("910", **args("BFLOAT16", out=T((4, 3), "INT32"))) == ("out-castable", 161002)


def test_target_dtypes():
    for dtype in ("INT64", "INT32", "UINT8"):
        assert failure(**args(target=T((4,), dtype))) is None, dtype
    for dtype in ("INT8", "INT16", "UINT32", "FLOAT", "BOOL"):
        assert failure(**args(target=T((4,), dtype))) == ("dtype-supported", 161002), dtype


def test_reduction_range_is_checked_before_shapes():
    for reduction in (-1, 3, 2**40):
        assert failure(**args(reduction=reduction, self=T((2, 2, 2), "FLOAT"))) == ("reduction-range", 161002)
    for reduction in (0, 1, 2):
        assert failure(**args(reduction=reduction)) is None


def test_self_is_1d_or_2d():
    assert failure(**args(self=T((), "FLOAT"))) == ("self-rank", 161002)
    assert failure(**args(self=T((4, 3, 1), "FLOAT"))) == ("self-rank", 161002)
    assert failure(**args(n=None)) is None  # (C) with a 0-D target


def test_target_shape_rules():
    assert failure(**args(tshape=(4, 1))) == ("target-rank", 161002)
    # 2-D self needs a 1-D target of length N; a 0-D target reads an invalid dim 0
    assert failure(**args(tshape=())) == ("target-size", 161002)
    assert failure(**args(tshape=(5,))) == ("target-size", 161002)
    # 1-D self: a 0-D target, or a 1-D target whose length equals C (the code compares dim 0 of both)
    assert failure(**args(n=None, tshape=())) is None
    assert failure(**args(n=None, tshape=(3,))) is None
    assert failure(**args(n=None, tshape=(1,))) == ("target-size", 161002)
    assert failure(**args(n=None, c=1, tshape=(1,))) is None


def test_weight_and_total_weight_shapes():
    assert failure(**args(weight=T((4,), "FLOAT"))) == ("weight-shape", 161002)
    assert failure(**args(weight=T((1, 3), "FLOAT"))) == ("weight-shape", 161002)
    assert failure(**args(weight=T((), "FLOAT"))) == ("weight-shape", 161002)
    for shape in ((), (1,), (1, 1), (1, 1, 1, 1)):
        assert failure(**args(totalWeight=T(shape, "FLOAT"))) is None, shape
    for shape in ((0,), (2,), (1, 2)):
        assert failure(**args(totalWeight=T(shape, "FLOAT"))) == ("total-weight-numel", 161002), shape


def test_grad_output_shape_depends_on_reduction_and_self():
    # reduction none with (N, C): exactly (N)
    assert failure(**args(reduction=0, grad=(4,))) is None
    for shape in ((), (1,), (4, 1), (5,)):
        assert failure(**args(reduction=0, grad=shape)) == ("grad-output-per-sample", 161002), shape
    # N == 1 still needs rank 1
    assert failure(**args(n=1, reduction=0, grad=(1,))) is None
    assert failure(**args(n=1, reduction=0, grad=())) == ("grad-output-per-sample", 161002)
    # reduction none with (C), and mean / sum: one element of rank 0 or 1
    for reduction, n in ((0, None), (1, 4), (2, 4), (1, None)):
        for shape in ((), (1,)):
            assert failure(**args(n=n, reduction=reduction, grad=shape)) is None, (reduction, n, shape)
        for shape in ((1, 1), (4,), (0,)):
            bad = failure(**args(n=n, reduction=reduction, grad=shape))
            assert bad == ("grad-output-single", 161002), (reduction, n, shape)


def test_out_shape_equals_self():
    assert failure(**args(out=T((3, 4), "FLOAT"))) == ("out-shape", 161002)
    assert failure(**args(out=T((12,), "FLOAT"))) == ("out-shape", 161002)


def test_empty_self_runs_every_check_then_succeeds():
    empty = args(n=0, reduction=0)
    assert failure(**empty) is None
    assert failure(**args(n=0, reduction=0, weight=T((2,), "FLOAT"))) == ("weight-shape", 161002)
    assert failure(**args(n=0, reduction=1, grad=(0,))) == ("grad-output-single", 161002)
    assert failure(**args(n=3, c=0)) is None  # no classes: weight (0,)
    result = aclnn.nllloss_backward(
        np.ones((0,), np.float32),
        np.ones((0, 3), np.float32),
        np.ones((0,), np.int64),
        np.ones((3,), np.float32),
        0,
        -100,
        np.ones((1,), np.float32),
    )
    assert result.shape == (0, 3)


def test_310b_is_not_rejected_early():
    assert "310b" not in spec.products
    assert failure("310b", **args("BFLOAT16")) == ("dtype-supported", 161002)
    assert failure("310b", **args(reduction=3)) == ("reduction-range", 161002)
    assert failure("310b", **args(out=T((3, 4), "FLOAT"))) == ("out-shape", 161002)
    assert failure("310b", **args("FLOAT16")) is None  # no product check; the AI Core launch result is ignored
    assert failure("310b", **args(n=0, reduction=0)) is None


# ----------------------------------------------------------------------------------------------
# The binding runs the kernel on what the validator accepts; results agree with PyTorch.


def _case(rng, n, c, reduction, ignore_index=-100):
    self = rng.standard_normal((n, c) if n is not None else (c,)).astype(np.float32)
    rows = 1 if n is None else n
    target = rng.integers(0, c, size=rows).astype(np.int64)
    if rows > 2:
        target[1] = ignore_index
    if n is None:
        target = target.reshape(())
    weight = rng.uniform(0.5, 2.0, c).astype(np.float32)
    kept = target.reshape(-1)[target.reshape(-1) != ignore_index]
    total = np.asarray([weight[kept].sum()], np.float32)
    grad = rng.standard_normal((n,) if reduction == 0 and n is not None else ()).astype(np.float32)
    return grad, self, target, weight, total


@pytest.mark.parametrize("reduction", [0, 1, 2])
@pytest.mark.parametrize("n", [None, 1, 6])
def test_binding_matches_torch(reduction, n):
    rng = np.random.default_rng(reduction * 10 + (n or 0))
    grad, self, target, weight, total = _case(rng, n, 5, reduction)
    got = aclnn.nllloss_backward(grad, self, target, weight, reduction, -100, total, product="910")
    want = torch.ops.aten.nll_loss_backward(
        torch.from_numpy(grad),
        torch.from_numpy(self),
        torch.from_numpy(target),
        torch.from_numpy(weight),
        reduction,
        -100,
        torch.from_numpy(total.reshape(())),
    ).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)


def test_float16_is_computed_in_float_except_on_950():
    # -w * g / total = -(1.1 * 0.3) / 1.0: not a float16 value; 950 keeps FLOAT16 and rounds it there
    self = np.zeros((1, 2), np.float16)
    grad, weight, total = np.float16([0.3]), np.float16([1.1, 1.0]), np.float16([1.0])
    target = np.array([0], np.int64)
    exact = -(np.float32(np.float16(1.1)) * np.float32(np.float16(0.3)))
    outs = {}
    for product in ("910b", "950"):
        out = np.empty((1, 2), np.float32)
        aclnn.nllloss_backward(grad, self, target, weight, 1, -100, total, out, product=product)
        outs[product] = out[0, 0]
    assert outs["910b"] == exact
    assert outs["950"] == np.float32(np.float16(exact)) != exact


def test_bfloat16_and_double_out():
    rng = np.random.default_rng(3)
    grad, self, target, weight, total = _case(rng, 4, 3, 2)
    half = [a.astype(BFLOAT16) for a in (grad, self, weight, total)]
    got = aclnn.nllloss_backward(half[0], half[1], target, half[2], 2, -100, half[3])
    assert got.dtype == BFLOAT16
    out = np.empty((4, 3), np.float64)
    aclnn.nllloss_backward(grad, self, target, weight, 2, -100, total, out)
    want = np.zeros((4, 3))
    rows = np.flatnonzero(target != -100)
    want[rows, target[rows]] = -weight[target[rows]].astype(np.float64) * np.float32(grad)
    np.testing.assert_allclose(out, want, rtol=1e-6)


def test_out_of_range_target_is_refused_by_the_kernel():
    grad, self, target, weight, total = _case(np.random.default_rng(0), 3, 4, 2)
    target[0] = 4
    aclnn.validate("NLLLossBackward", gradOutput=grad, self=self, target=target, weight=weight, reduction=2,
                   ignoreIndex=-100, totalWeight=total)  # fmt: skip
    with pytest.raises(aclnn.AclnnError) as info:
        aclnn.nllloss_backward(grad, self, target, weight, 2, -100, total)
    assert info.value.code == 561000
