"""Second reading of specs/layer_norm_backward.yaml against aclnn_layer_norm_backward.cpp (reviewer's cases).

Functions of the code cited per case: CheckNotNull, the outputMask length and output null checks of
aclnnLayerNormBackwardGetWorkspaceSize, the M / N products, CheckParams (CheckDtype, CheckShape with its
partial CheckShapeEqual loop), the all-false and empty returns, and the two compute branches (LayerNormGradV3 on
DAV_2201 / regbase, the split kernels elsewhere) whose kernel-launch results are never turned into a status.
Every output is passed explicitly.
"""

from __future__ import annotations

import pytest

import aclnn
from tests.specs.verdicts import verdict

T = aclnn.TensorDesc
ALL = ("950", "910_93", "910b", "310b", "310p", "910")


def call(shape=(2, 3, 4), norm=(4,), dtype="FLOAT", stats="FLOAT", grads=None, mask=(True, True, True), **over):
    lead = shape[: len(shape) - len(norm)]
    stat_shape = tuple(lead) + (1,) * len(norm)
    grads = grads or dtype
    values = dict(
        gradOut=T(shape, dtype),
        input=T(shape, dtype),
        normalizedShape=list(norm),
        mean=T(stat_shape, stats),
        rstd=T(stat_shape, stats),
        weightOptional=T(tuple(norm), dtype),
        biasOptional=T(tuple(norm), dtype),
        outputMask=list(mask),
        gradInputOut=T(shape, dtype),
        gradWeightOut=T(tuple(norm), grads),
        gradBiasOut=T(tuple(norm), grads),
    )
    values.update(over)
    return values


def status(product="910b", **kwargs):
    return verdict("LayerNormBackward", product, **kwargs)


# ---- CheckNotNull, outputMask length, requested outputs ----


@pytest.mark.parametrize("product", ALL)
def test_null_pointers_in_code_order(product):
    names = ("gradOut", "input", "normalizedShape", "mean", "rstd", "outputMask")
    for i, name in enumerate(names):
        # a later null never hides an earlier one, and nothing else is looked at first
        later = {n: None for n in names[i:]}
        assert status(product, **call(dtype="DOUBLE", **later)) == ("null-pointers", 161001), name
    # the optional inputs may be null on every product
    assert status(product, **call(weightOptional=None, biasOptional=None)) is None


@pytest.mark.parametrize("product", ALL)
def test_output_mask_length_is_161002_before_the_outputs(product):
    none = dict(gradInputOut=None, gradWeightOut=None, gradBiasOut=None)
    for mask in ([], [True], [False, False], [True, True, True, False], [False] * 8):
        assert status(product, **call(outputMask=mask, **none)) == ("output-mask-length", 161002), mask
    assert status(product, **call(gradInputOut=None, gradWeightOut=None)) == ("null-grad-input", 161001)
    assert status(product, **call(mask=(False, True, True), gradInputOut=None, gradWeightOut=None)) == (
        "null-grad-weight",
        161001,
    )
    assert status(product, **call(mask=(False, False, True), **none)) == ("null-grad-bias", 161001)
    assert status(product, **call(mask=(False, False, False), **none)) is None
    # null outputs before any dtype or shape error
    assert status(product, **call(dtype="INT32", norm=(9,), gradWeightOut=None)) == ("null-grad-weight", 161001)


# ---- CheckDtype: one list for every product ----


@pytest.mark.parametrize("product", ALL)
def test_dtype_list_is_the_same_everywhere(product):
    for dtype in ("FLOAT", "FLOAT16", "BFLOAT16"):
        assert status(product, **call(dtype=dtype, stats=dtype)) is None, dtype
    for dtype in ("DOUBLE", "INT32", "INT8", "BOOL", "COMPLEX64", "UINT8"):
        assert status(product, **call(dtype=dtype)) == ("dtype-supported", 161002), dtype
    # each of the four: gradOut, input, mean, rstd
    assert status(product, **call(mean=T((2, 3, 1), "DOUBLE"))) == ("dtype-supported", 161002)
    assert status(product, **call(rstd=T((2, 3, 1), "INT64"))) == ("dtype-supported", 161002)
    # the lists come before the equality of gradOut and input
    assert status(product, **call(input=T((2, 3, 4), "FLOAT16"), rstd=T((2, 3, 1), "DOUBLE"))) == (
        "dtype-supported",
        161002,
    )
    assert status(product, **call(input=T((2, 3, 4), "FLOAT16"))) == ("dtype-same", 161002)
    # mean / rstd are free within the list (no equality with input or with each other)
    assert status(product, **call(dtype="FLOAT16", mean=T((2, 3, 1), "BFLOAT16"), rstd=T((2, 3, 1), "FLOAT"))) is None


def test_weight_dtype_is_float_or_input_dtype():
    assert status(**call(dtype="FLOAT16", weightOptional=T((4,), "FLOAT"))) is None
    assert status(**call(dtype="BFLOAT16", weightOptional=T((4,), "FLOAT"))) is None
    assert status(**call(dtype="FLOAT16", weightOptional=T((4,), "BFLOAT16"))) == ("weight-dtype", 161002)
    assert status(**call(dtype="FLOAT", weightOptional=T((4,), "FLOAT16"))) == ("weight-dtype", 161002)
    # the list first
    assert status(**call(weightOptional=T((4,), "DOUBLE"))) == ("weight-dtype-supported", 161002)
    # weight before bias; bias only needs the list (any of the three, whatever weight and input are)
    assert status(**call(weightOptional=T((4,), "FLOAT16"), biasOptional=T((4,), "DOUBLE"))) == (
        "weight-dtype",
        161002,
    )
    assert status(**call(dtype="FLOAT16", biasOptional=T((4,), "BFLOAT16"))) is None
    assert status(**call(biasOptional=T((4,), "INT8"))) == ("bias-dtype-supported", 161002)


def test_output_dtypes_checked_when_given_whatever_the_mask():
    for name in ("gradInputOut", "gradWeightOut", "gradBiasOut"):
        shape = (2, 3, 4) if name == "gradInputOut" else (4,)
        assert status(**call(mask=(False, False, False), **{name: T(shape, "DOUBLE")})) == (
            "output-dtype-supported",
            161002,
        ), name
        assert status(**call(mask=(False, False, False), **{name: None})) is None
    # outputs may differ from the inputs (the results are cast)
    assert status(**call(dtype="BFLOAT16", grads="FLOAT16", gradInputOut=T((2, 3, 4), "FLOAT"))) is None
    # the output lists come after weight and bias
    assert status(**call(biasOptional=T((4,), "INT8"), gradBiasOut=T((4,), "INT8"))) == ("bias-dtype-supported", 161002)


# ---- CheckShape ----


def test_max_ranks_in_code_order():
    nine = (1,) * 8 + (4,)
    assert status(**call(gradOut=T(nine, "FLOAT"))) == ("max-rank", 161002)
    assert status(**call(rstd=T((1,) * 9, "FLOAT"))) == ("max-rank", 161002)
    # 8-D everywhere passes
    eight = (1,) * 7 + (4,)
    assert status(**call(eight, norm=(4,))) is None
    # normalizedShape longer than 8, before the outputs' ranks
    assert status(**call(normalizedShape=[1] * 9, gradInputOut=T(nine, "FLOAT"))) == ("normalized-shape-max", 161002)
    for name in ("gradInputOut", "gradWeightOut", "gradBiasOut"):
        assert status(**call(**{name: T(nine, "FLOAT")})) == (name_check(name), 161002), name
    # unrequested outputs: no rank check (and no shape check)
    assert status(**call(mask=(False, True, True), gradInputOut=T(nine, "FLOAT"))) is None
    assert (
        status(**call(mask=(True, False, False), gradWeightOut=T(nine, "FLOAT"), gradBiasOut=T((7,), "FLOAT"))) is None
    )


def name_check(name):
    return {"gradInputOut": "grad-input-max-rank", "gradWeightOut": "grad-weight-max-rank",
            "gradBiasOut": "grad-bias-max-rank"}[name]  # fmt: skip


def test_normalized_shape_length_and_input_rank():
    assert status(**call(norm=(), weightOptional=None, biasOptional=None)) == ("normalized-shape-min", 161002)
    # input rank below len(normalizedShape)
    assert status(**call(norm=(2, 2, 3, 4), weightOptional=None, biasOptional=None)) == ("input-rank-min", 161002)
    # equal rank: every dimension compared, M = 1
    assert status(**call((2, 3, 4), norm=(2, 3, 4), mean=T((1,), "FLOAT"), rstd=T((1,), "FLOAT"))) is None
    bad = call((2, 3, 4), norm=(2, 3, 5), mean=T((1,), "FLOAT"), rstd=T((1,), "FLOAT"), weightOptional=None,
               biasOptional=None)  # fmt: skip
    assert status(**bad) == ("input-normalized-shape", 161002)
    # 0-d mean / rstd when M is 1
    assert status(**call((2, 3, 4), norm=(2, 3, 4), mean=T((), "FLOAT"), rstd=T((), "FLOAT"))) is None


def test_partial_comparison_of_normalized_shape():
    """CheckShapeEqual only compares indices rank - len .. len - 1 of normalizedShape."""
    free = dict(weightOptional=None, biasOptional=None)
    # rank 3, len 1: nothing compared
    assert status(**call(norm=(4,), normalizedShape=[9], **free)) is None
    assert status(**call(norm=(4,), normalizedShape=[-1], **free)) is None
    # rank 3, len 2: index 1 (the last) compared, index 0 not
    assert status(**call(norm=(3, 4), normalizedShape=[7, 4], **free)) is None
    assert status(**call(norm=(3, 4), normalizedShape=[3, 5], **free)) == ("input-normalized-shape", 161002)
    # rank 4, len 3: indices 1 and 2 compared
    shape = (2, 3, 4, 5)
    assert status(**call(shape, norm=(3, 4, 5), normalizedShape=[8, 4, 5], **free)) is None
    assert status(**call(shape, norm=(3, 4, 5), normalizedShape=[3, 9, 5], **free)) == (
        "input-normalized-shape",
        161002,
    )
    # M and N still come from input: mean must hold prod(input[:rank-len]) elements
    assert (
        status(**call(norm=(4,), normalizedShape=[9], mean=T((3, 2), "FLOAT"), rstd=T((3, 2), "FLOAT"), **free)) is None
    )
    # weight / bias are compared with normalizedShape itself (all of it), not with input
    assert status(**call(norm=(4,), normalizedShape=[9], weightOptional=T((9,), "FLOAT"), biasOptional=None)) is None
    assert status(**call(norm=(4,), normalizedShape=[9], biasOptional=T((4,), "FLOAT"), weightOptional=None)) == (
        "bias-shape",
        161002,
    )


def test_weight_and_bias_shapes():
    assert status(**call(weightOptional=T((1, 4), "FLOAT"))) == ("weight-shape", 161002)
    assert status(**call(weightOptional=T((), "FLOAT"))) == ("weight-shape", 161002)
    assert status(**call(weightOptional=T((5,), "FLOAT"))) == ("weight-shape", 161002)
    assert status(**call(weightOptional=T((1,) * 9, "FLOAT"))) == ("weight-max-rank", 161002)
    assert status(**call(norm=(3, 4), weightOptional=T((4, 3), "FLOAT"))) == ("weight-shape", 161002)
    # weight before bias, bias before gradOut's shape
    assert status(**call(weightOptional=T((5,), "FLOAT"), biasOptional=T((5,), "FLOAT"))) == ("weight-shape", 161002)
    assert status(**call(biasOptional=T((1,) * 9, "FLOAT"), gradOut=T((2, 3, 5), "FLOAT"))) == (
        "bias-max-rank",
        161002,
    )
    assert status(**call(biasOptional=T((4, 1), "FLOAT"), gradOut=T((2, 3, 5), "FLOAT"))) == ("bias-shape", 161002)


def test_gradout_mean_rstd_and_output_shapes():
    assert status(**call(gradOut=T((2, 3, 5), "FLOAT"))) == ("shape-same", 161002)
    assert status(**call(gradOut=T((6, 4), "FLOAT"))) == ("shape-same", 161002)
    # mean and rstd: equal shapes first, then mean's element count M
    assert status(**call(rstd=T((6,), "FLOAT"))) == ("mean-rstd-shape", 161002)
    assert status(**call(mean=T((6,), "FLOAT"), rstd=T((6,), "FLOAT"))) is None
    assert status(**call(mean=T((3, 2), "FLOAT"), rstd=T((3, 2), "FLOAT"))) is None
    assert status(**call(mean=T((2, 3, 2), "FLOAT"), rstd=T((2, 3, 2), "FLOAT"))) == ("mean-numel", 161002)
    assert status(**call(mean=T((2,), "FLOAT"), rstd=T((2,), "FLOAT"))) == ("mean-numel", 161002)
    # gradInputOut: the exact shape; gradWeightOut / gradBiasOut: N elements, any shape
    assert status(**call(gradInputOut=T((6, 4), "FLOAT"))) == ("grad-input-shape", 161002)
    assert status(**call(gradWeightOut=T((2, 2), "FLOAT"), gradBiasOut=T((1, 4, 1), "FLOAT"))) is None
    assert status(**call(gradWeightOut=T((5,), "FLOAT"))) == ("grad-weight-numel", 161002)
    assert status(**call(gradBiasOut=T((), "FLOAT"))) == ("grad-bias-numel", 161002)
    assert status(**call(norm=(3, 4), gradWeightOut=T((12,), "FLOAT"), gradBiasOut=T((12,), "FLOAT"))) is None
    # N from input, not from a (partly unchecked) normalizedShape
    free = dict(weightOptional=None, biasOptional=None)
    assert status(**call(norm=(4,), normalizedShape=[9], gradWeightOut=T((9,), "FLOAT"), **free)) == (
        "grad-weight-numel",
        161002,
    )
    # 0-d outputs with N == 1
    one = call((3, 1), norm=(1,), gradWeightOut=T((), "FLOAT"), gradBiasOut=T((), "FLOAT"))
    assert status(**one) is None


# ---- after CheckParams: the all-false and empty returns, then no product / kernel failure surfaces ----


@pytest.mark.parametrize("product", ALL)
def test_empty_input_runs_every_check_first(product):
    empty = call((0, 3, 4), mean=T((0, 1), "FLOAT"), rstd=T((0, 1), "FLOAT"))
    assert status(product, **empty) is None
    # M = 0: mean must be empty too
    assert status(product, **call((0, 3, 4), mean=T((3,), "FLOAT"), rstd=T((3,), "FLOAT"))) == ("mean-numel", 161002)
    # N = 0: the outputs hold 0 elements
    assert status(product, **call((2, 3, 0), norm=(0,))) is None
    assert status(product, **call((2, 3, 0), norm=(0,), gradWeightOut=T((1,), "FLOAT"))) == (
        "grad-weight-numel",
        161002,
    )
    # dtype errors still fire on empty tensors
    assert status(product, **call((0, 3, 4), dtype="DOUBLE")) == ("dtype-supported", 161002)


@pytest.mark.parametrize("product", ("310b", "310p", "910"))
def test_no_product_or_bf16_failure_in_the_first_phase(product):
    """310b has no product check, and BFLOAT16 passes the product-independent list on 310p / 910: the split
    branch ignores the results of adding LayerNormXBackpropV3 / LayerNormBetaGammaBackpropV2, and the status of
    GenOutWithMask is discarded, so the first phase returns success (the doc's restrictions are not enforced)."""
    assert status(product, **call()) is None
    assert status(product, **call(dtype="BFLOAT16", stats="BFLOAT16")) is None
    assert status(product, **call(dtype="FLOAT16", mean=T((2, 3, 1), "BFLOAT16"))) is None
    # parameter errors are unchanged
    assert status(product, **call(dtype="BFLOAT16", gradOut=T((2, 3, 5), "BFLOAT16"))) == ("shape-same", 161002)
