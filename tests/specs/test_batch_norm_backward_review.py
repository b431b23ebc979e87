"""Second reading of specs/batch_norm_backward.yaml against aclnn_batch_norm_backward.cpp (reviewer's cases).

Each call states the status code aclnnBatchNormBackwardGetWorkspaceSize returns and the code function that
decides it: CheckInputNotNull, the empty-tensor return, CheckParams (CheckMaskNotNull, CheckDtypeValid,
CheckGradDtypeValid, CheckOtherDtypeValid, RegbaseCheckDtypeSame, CheckFormat, CheckShape, GetDimC,
CheckOtherShape, CheckSaveMeanSaveInvstdShape, CheckGradWeightGradBiasShape), the 950 early return.
Every output is passed explicitly (CANN callers always pass the output tensors).
"""

from __future__ import annotations

import numpy as np
import pytest

import aclnn
from tests.specs.verdicts import verdict

T = aclnn.TensorDesc
ALL = ("950", "910_93", "910b", "310b", "310p", "910")
NON_950 = ("910_93", "910b", "310p", "910")


def call(shape=(2, 3, 4), dtype="FLOAT", fmt="NCL", c=None, stats="FLOAT", grads="FLOAT", mask=(True, True, True),
         **over):  # fmt: skip
    c = shape[1] if c is None else c
    values = dict(
        gradOut=T(shape, dtype, fmt),
        input=T(shape, dtype, fmt),
        weight=T((c,), stats),
        runningMean=T((c,), stats),
        runningVar=T((c,), stats),
        saveMean=T((c,), stats),
        saveInvstd=T((c,), stats),
        training=True,
        eps=1e-5,
        outputMask=list(mask),
        gradInput=T(shape, dtype, fmt),
        gradWeight=T((c,), grads),
        gradBias=T((c,), grads),
    )
    values.update(over)
    return values


def status(product="910b", **kwargs):
    return verdict("BatchNormBackward", product, **kwargs)


# ---- CheckInputNotNull, then the empty return (before outputMask and everything else) ----


@pytest.mark.parametrize("product", ALL)
def test_null_inputs_then_empty_return(product):
    assert status(product, **call(gradOut=None)) == ("null-inputs", 161001)
    assert status(product, **call(input=None)) == ("null-inputs", 161001)
    # the null check of input comes before gradOut's emptiness
    assert status(product, **call(input=None, gradOut=T((0, 3), "FLOAT", "NC"))) == ("null-inputs", 161001)
    # an empty gradOut or input returns success whatever else is wrong (310b included: no product check)
    junk = dict(outputMask=None, gradInput=None, gradWeight=None, gradBias=None, weight=T((7, 7), "INT8"))
    assert status(product, **call((2, 0, 3), dtype="DOUBLE", fmt="NC1HWC0", **junk)) is None
    assert status(product, **call(input=T((1,) * 9 + (0,), "BOOL", "FRACTAL_NZ"), **junk)) is None
    assert status(product, **call(gradOut=T((0,), "INT32", "ND"), outputMask=[])) is None
    # a 0-d tensor holds one element: not empty, so the checks run (and the rank check rejects it)
    zero_d = call((), fmt="ND", c=3, gradInput=T((2, 3), "FLOAT", "ND"))
    assert status(product, **zero_d) == ("rank", 161002)


# ---- CheckMaskNotNull (every failure is 161001, the length too) ----


@pytest.mark.parametrize("product", ALL)
def test_output_mask_null_and_empty(product):
    assert status(product, **call(outputMask=None)) == ("null-output-mask", 161001)
    assert status(product, **call(outputMask=[])) == ("output-mask-length", 161001)
    # outputMask is looked at before the dtypes
    assert status(product, **call(dtype="DOUBLE", outputMask=None)) == ("null-output-mask", 161001)


def test_output_mask_length_on_950_is_exactly_three():
    for mask in ([True], [True, True], [True, True, True, True], [False] * 5):
        assert status("950", **call(outputMask=mask)) == ("output-mask-length", 161001), mask


@pytest.mark.parametrize("product", ("910_93", "910b", "310p", "910"))
def test_output_mask_longer_than_three_passes_outside_950(product):
    """Outside the regbase arch only an empty mask is refused; entries past the third are never read."""
    assert status(product, **call(outputMask=[True, True, True, True])) is None
    assert status(product, **call(outputMask=[True, False, True, True, False], gradWeight=None)) is None
    # the first three entries still decide which outputs must exist
    assert status(product, **call(outputMask=[True, True, False, True], gradBias=None)) is None
    assert status(product, **call(outputMask=[False, True, True, False], gradWeight=None)) == (
        "null-grad-weight",
        161001,
    )
    # and the 310b kernel failure still follows
    assert status("310b", **call(outputMask=[True, True, True, True])) == ("product-supported", 561103)


@pytest.mark.parametrize("product", NON_950)
def test_output_mask_of_one_or_two_entries_is_refused_outside_950(product):
    """The code reads entries 1 and 2 past the end (undefined); the spec's reading is 161001."""
    for mask in ([True], [False, False]):
        assert status(product, **call(outputMask=mask)) == ("output-mask-length", 161001), mask


@pytest.mark.parametrize("product", ALL)
def test_requested_outputs_must_exist_in_mask_order(product):
    assert status(product, **call(gradInput=None, gradWeight=None, gradBias=None)) == ("null-grad-input", 161001)
    assert status(product, **call(gradWeight=None, gradBias=None)) == ("null-grad-weight", 161001)
    assert status(product, **call(mask=(True, False, True), gradWeight=None, gradBias=None)) == (
        "null-grad-bias",
        161001,
    )
    none = dict(gradInput=None, gradWeight=None, gradBias=None)
    expected = ("product-supported", 561103) if product == "310b" else None
    assert status(product, **call(mask=(False, False, False), **none)) == expected
    # a missing requested output comes before any dtype, format or shape error
    bad = dict(dtype="DOUBLE", fmt="NC1HWC0", weight=T((9,), "INT8"))
    assert status(product, **call(gradBias=None, **bad)) == ("null-grad-bias", 161001)


# ---- CheckDtypeValid / CheckGradDtypeValid / CheckOtherDtypeValid ----


@pytest.mark.parametrize("product", ALL)
def test_input_dtype_lists_per_arch(product):
    with_bf16 = product in ("950", "910_93", "910b")
    ok = ("product-supported", 561103) if product == "310b" else None
    for dtype in ("FLOAT", "FLOAT16"):
        assert status(product, **call(dtype=dtype, stats=dtype, grads=dtype)) == ok, dtype
    bf16 = status(product, **call(dtype="BFLOAT16", stats="BFLOAT16", grads="BFLOAT16"))
    assert bf16 == (ok if with_bf16 else ("dtype-supported", 161002))
    for dtype in ("DOUBLE", "INT32", "INT8", "UINT8", "BOOL", "COMPLEX64", "INT64"):
        assert status(product, **call(dtype=dtype)) == ("dtype-supported", 161002), dtype
    # one of the two inputs out of the list: the list check, not the equality check
    assert status(product, **call(input=T((2, 3, 4), "DOUBLE", "NCL"))) == ("dtype-supported", 161002)
    assert status(product, **call(gradOut=T((2, 3, 4), "INT32", "NCL"))) == ("dtype-supported", 161002)
    # both in the list but different
    assert status(product, **call(input=T((2, 3, 4), "FLOAT16", "NCL"))) == ("dtype-same", 161002)


def test_output_dtype_lists_follow_the_mask():
    assert status("910", **call(gradInput=T((2, 3, 4), "BFLOAT16", "NCL"))) == ("grad-input-dtype-supported", 161002)
    assert status("910", **call(mask=(False, True, True), gradInput=T((2, 3, 4), "BFLOAT16", "NCL"))) is None
    assert status("910b", **call(gradWeight=T((3,), "DOUBLE"))) == ("grad-weight-dtype-supported", 161002)
    assert status("910b", **call(mask=(True, False, True), gradWeight=T((3,), "DOUBLE"))) is None
    assert status("310p", **call(gradBias=T((3,), "BFLOAT16"))) == ("grad-bias-dtype-supported", 161002)
    assert status("910b", **call(gradBias=T((3,), "BFLOAT16"))) is None
    # output lists come before the optional inputs' lists
    assert status("910b", **call(gradWeight=T((3,), "INT32"), weight=T((3,), "INT32"))) == (
        "grad-weight-dtype-supported",
        161002,
    )


@pytest.mark.parametrize("name", ["weight", "runningMean", "runningVar", "saveMean", "saveInvstd"])
def test_optional_inputs_lists_checked_whatever_the_mask(name):
    none = dict(gradInput=None, gradWeight=None, gradBias=None)
    for product in ("950", "910b", "910"):
        assert status(product, **call(mask=(False, False, False), **none, **{name: T((3,), "DOUBLE")})) == (
            "optional-dtype-supported",
            161002,
        ), product
    assert status("910", **call(**{name: T((3,), "BFLOAT16")})) == ("optional-dtype-supported", 161002)
    # the list check ignores the shape: a wrong-shaped tensor of a bad dtype fails on its dtype
    assert status("910b", **call(**{name: T((5, 5), "INT64")})) == ("optional-dtype-supported", 161002)


def test_mixed_precision_passes_outside_950():
    mixed = call(dtype="BFLOAT16", stats="FLOAT16", grads="FLOAT", gradBias=T((3,), "BFLOAT16"))
    for product in ("910_93", "910b"):
        assert status(product, **mixed) is None, product
    for product in ("310p", "910"):
        assert status(product, **call(dtype="FLOAT16", stats="FLOAT", grads="FLOAT16")) is None, product


# ---- RegbaseCheckDtypeSame (950 only) ----


def test_950_statistics_dtype_relations():
    h = dict(dtype="FLOAT16", grads="FLOAT16", stats="FLOAT16")
    assert status("950", **call(**h)) is None
    # FLOAT gradOut: every statistic must be FLOAT
    for name in ("weight", "runningMean", "runningVar", "saveMean", "saveInvstd"):
        got = status("950", **call(**{name: T((3,), "FLOAT16")}))
        assert got is not None and got[1] == 161002, name
    # BFLOAT16 gradOut: BFLOAT16 or FLOAT, never FLOAT16
    b = dict(dtype="BFLOAT16", grads="FLOAT")
    assert status("950", **call(stats="FLOAT", **b)) is None
    assert status("950", **call(stats="BFLOAT16", grads="BFLOAT16", dtype="BFLOAT16")) is None
    assert status("950", **call(stats="BFLOAT16", weight=T((3,), "FLOAT16"), **b)) == ("weight-dtype-950", 161002)
    # the order of RegbaseCheckDtypeSame: weight, runningMean, runningVar, their equality, saveMean, saveInvstd, ...
    assert status("950", **call(stats="FLOAT16", **b)) == ("weight-dtype-950", 161002)
    assert status("950", **call(stats="FLOAT16", weight=None, **b)) == ("running-mean-dtype-950", 161002)
    two = dict(runningMean=T((3,), "FLOAT"), runningVar=T((3,), "BFLOAT16"))
    assert status("950", **call(stats="BFLOAT16", **two, saveMean=T((3,), "FLOAT16"), **b)) == (
        "running-dtype-same-950",
        161002,
    )
    save = dict(saveMean=T((3,), "BFLOAT16"), saveInvstd=T((3,), "FLOAT"))
    assert status("950", **call(stats="BFLOAT16", **save, gradInput=T((2, 3, 4), "FLOAT", "NCL"), **b)) == (
        "save-dtype-same-950",
        161002,
    )
    # a null partner skips the equality
    assert status("950", **call(stats="FLOAT", runningVar=None, saveInvstd=None, runningMean=T((3,), "BFLOAT16"),
                                saveMean=T((3,), "BFLOAT16"), **b)) is None  # fmt: skip


def test_950_output_dtype_relations():
    h = dict(dtype="FLOAT16", stats="FLOAT16")
    assert status("950", **call(gradInput=T((2, 3, 4), "FLOAT", "NCL"), **h, grads="FLOAT")) == (
        "grad-input-dtype-same-950",
        161002,
    )
    assert status("950", **call(mask=(False, True, True), gradInput=T((2, 3, 4), "FLOAT", "NCL"), **h)) is None
    # gradWeight / gradBias: weight's dtype or FLOAT; both the same
    assert status("950", **call(grads="FLOAT", **h)) is None
    assert status("950", **call(grads="BFLOAT16", **h)) == ("grad-weight-dtype-950", 161002)
    assert status("950", **call(grads="FLOAT16", gradBias=T((3,), "BFLOAT16"), **h)) == (
        "grad-bias-dtype-950",
        161002,
    )
    assert status("950", **call(grads="FLOAT16", gradBias=T((3,), "FLOAT"), **h)) == (
        "grad-weight-bias-same-950",
        161002,
    )
    # weight null: gradWeight / gradBias free (in the list), but still equal to each other
    assert status("950", **call(grads="BFLOAT16", weight=None, **h)) is None
    assert status("950", **call(grads="BFLOAT16", weight=None, gradBias=T((3,), "FLOAT"), **h)) == (
        "grad-weight-bias-same-950",
        161002,
    )
    # an unrequested output is not compared with weight, but the pair equality ignores the mask
    free = dict(mask=(True, False, False), grads="BFLOAT16", **h)
    assert status("950", **call(**free)) is None
    assert status("950", **call(**{**free, "gradBias": T((3,), "FLOAT")})) == ("grad-weight-bias-same-950", 161002)
    assert status("950", **call(**{**free, "gradBias": None})) is None
    # the same calls pass outside 950
    for product in NON_950:
        assert status(product, **call(grads="FLOAT16", gradBias=T((3,), "BFLOAT16" if product in ("910b", "910_93")
                                                                   else "FLOAT"), **h)) is None  # fmt: skip


# ---- CheckFormat ----


@pytest.mark.parametrize("product", ALL)
def test_formats_equal_and_not_private(product):
    ok = ("product-supported", 561103) if product == "310b" else None
    assert status(product, **call(input=T((2, 3, 4), "FLOAT", "ND"))) == ("format-same", 161002)
    assert status(product, **call(gradInput=T((2, 3, 4), "FLOAT", "ND"))) == ("grad-input-format", 161002)
    assert status(product, **call(mask=(False, True, True), gradInput=T((2, 3, 4), "FLOAT", "ND"))) == ok
    for fmt in ("NC1HWC0", "FRACTAL_Z", "FRACTAL_NZ"):
        assert status(product, **call((2, 3, 4, 4), fmt=fmt)) == ("format-not-private", 161002), fmt
    # any public format passes (no rank/format pairing outside 5-D on 950)
    for fmt in ("ND", "HWCN", "NCL", "NC"):
        assert status(product, **call((2, 3, 4, 4), fmt=fmt)) == ok, fmt
    # a private gradOut against a public input: the equality check first
    assert status(product, **call((2, 3, 4, 4), fmt="NCHW", gradOut=T((2, 3, 4, 4), "FLOAT", "NC1HWC0"))) == (
        "format-same",
        161002,
    )
    # dtype errors come before format errors
    assert status(product, **call(dtype="DOUBLE", input=T((2, 3, 4), "DOUBLE", "ND"))) == ("dtype-supported", 161002)


def test_950_five_d_formats():
    for fmt in ("NCDHW", "NDHWC"):
        c = 2 if fmt == "NDHWC" else 3
        assert status("950", **call((1, 3, 2, 2, 2), fmt=fmt, c=c)) is None, fmt
    for fmt in ("ND", "NCHW", "NCL"):
        assert status("950", **call((1, 3, 2, 2, 2), fmt=fmt)) == ("input-5d-format-950", 161002), fmt
        for product in NON_950:
            assert status(product, **call((1, 3, 2, 2, 2), fmt=fmt)) is None, (product, fmt)
    # the 5-D format rule runs before the private-format rule
    assert status("950", **call((1, 3, 2, 2, 2), fmt="NDC1HWC0")) == ("input-5d-format-950", 161002)
    assert status("910b", **call((1, 3, 2, 2, 2), fmt="NDC1HWC0")) == ("format-not-private", 161002)
    # gradInput: its own 5-D rule when requested, before any shape check
    gi = T((2, 3, 4, 1, 1), "FLOAT", "NCL")
    assert status("950", **call(gradInput=gi)) == ("grad-input-5d-format-950", 161002)
    assert status("950", **call(mask=(False, True, True), gradInput=gi)) is None
    assert status("910b", **call(gradInput=gi)) == ("grad-input-shape", 161002)
    # 6-8-D tensors take any public format, on 950 too
    assert status("950", **call((2, 3, 1, 1, 1, 2), fmt="ND")) is None


# ---- CheckShape ----


@pytest.mark.parametrize("product", ALL)
def test_ranks_and_shapes(product):
    ok = ("product-supported", 561103) if product == "310b" else None
    assert status(product, **call((6,), fmt="ND", c=1)) == ("rank", 161002)
    assert status(product, **call((1, 3) + (1,) * 7, fmt="ND")) == ("rank", 161002)
    assert status(product, **call((2, 3), fmt="NC")) == ok
    assert status(product, **call((1, 3) + (1,) * 6, fmt="ND")) == ok
    # gradOut alone out of range (input fine)
    assert status(product, **call(gradOut=T((6,), "FLOAT", "NCL"))) == ("rank", 161002)
    # same rank range, other shape
    assert status(product, **call(gradOut=T((2, 3, 5), "FLOAT", "NCL"))) == ("shape-same", 161002)
    assert status(product, **call(gradOut=T((2, 3, 4, 1), "FLOAT", "NCL"))) == ("shape-same", 161002)
    # gradInput when requested
    assert status(product, **call(gradInput=T((24,), "FLOAT", "NCL"))) == ("grad-input-rank", 161002)
    assert status(product, **call(gradInput=T((1,) * 9, "FLOAT", "NCL"))) == ("grad-input-rank", 161002)
    assert status(product, **call(gradInput=T((2, 3, 5), "FLOAT", "NCL"))) == ("grad-input-shape", 161002)
    assert status(product, **call(mask=(False, True, True), gradInput=T((24,), "FLOAT", "NCL"))) == ok
    # format errors come before rank errors
    assert status(product, **call((6,), fmt="ND", c=1, input=T((6,), "FLOAT", "NC"))) == ("format-same", 161002)


# ---- GetDimC / CheckOtherShape / 950 shape checks ----


@pytest.mark.parametrize("name", ["weight", "runningMean", "runningVar"])
def test_statistics_lengths_every_product(name):
    for product in ALL:
        suffix = "-950" if product == "950" else ""
        check = {"weight": "weight-channels", "runningMean": "running-mean-channels",
                 "runningVar": "running-var-channels"}[name] + suffix  # fmt: skip
        for bad in ((2,), (4,), (1, 3), (), (3, 1)):
            assert status(product, **call(**{name: T(bad, "FLOAT")})) == (check, 161002), (product, name, bad)
        ok = ("product-supported", 561103) if product == "310b" else None
        assert status(product, **call(**{name: None})) == ok


def test_channel_axis_by_arch_and_format():
    # 950: NHWC / NDHWC read C from the last dimension, whatever the rank
    assert status("950", **call((2, 4, 5, 3), fmt="NHWC", c=3)) is None
    assert status("950", **call((2, 4, 5, 3), fmt="NHWC", c=4)) == ("weight-channels-950", 161002)
    assert status("950", **call((2, 4, 3), fmt="NHWC", c=3)) is None
    assert status("950", **call((2, 4, 2, 2, 6), fmt="NDHWC", c=6)) is None
    assert status("950", **call((2, 4, 3, 1, 1, 1), fmt="NHWC", c=1)) is None
    # elsewhere C is always dimension 1
    for product in NON_950:
        assert status(product, **call((2, 4, 5, 3), fmt="NHWC", c=4)) is None, product
        assert status(product, **call((2, 4, 5, 3), fmt="NHWC", c=3)) == ("weight-channels", 161002), product
    # shape mismatch comes before the channel checks; weight before runningMean
    assert status("910b", **call(gradOut=T((2, 3, 5), "FLOAT", "NCL"), weight=T((9,), "FLOAT"))) == (
        "shape-same",
        161002,
    )
    assert status("910b", **call(weight=T((4,), "FLOAT"), runningMean=T((4,), "FLOAT"))) == ("weight-channels", 161002)


def test_950_saved_statistics_and_output_lengths():
    for name, check in (("saveMean", "save-mean-channels-950"), ("saveInvstd", "save-invstd-channels-950")):
        assert status("950", **call(**{name: T((0,), "FLOAT")})) == (check, 161002)
        assert status("950", **call(training=False, **{name: T((0,), "FLOAT")})) is None
        assert status("950", **call(training=False, **{name: T((2,), "FLOAT")})) == (check, 161002)
        assert status("950", **call(training=False, **{name: T((1, 0), "FLOAT")})) == (check, 161002)
        assert status("950", **call(training=False, **{name: T((0, 3), "FLOAT")})) == (check, 161002)
        for product in NON_950:
            assert status(product, **call(**{name: T((2, 2), "FLOAT")})) is None, product
    # saveMean before saveInvstd, and both before gradWeight / gradBias
    assert status("950", **call(saveMean=T((2,), "FLOAT"), saveInvstd=T((2,), "FLOAT"))) == (
        "save-mean-channels-950",
        161002,
    )
    assert status("950", **call(saveInvstd=T((2,), "FLOAT"), gradWeight=T((2,), "FLOAT"))) == (
        "save-invstd-channels-950",
        161002,
    )
    assert status("950", **call(gradWeight=T((2,), "FLOAT"), gradBias=T((2,), "FLOAT"))) == (
        "grad-weight-channels-950",
        161002,
    )
    assert status("950", **call(gradBias=T((3, 1), "FLOAT"))) == ("grad-bias-channels-950", 161002)
    # unrequested outputs are not measured
    assert (
        status("950", **call(mask=(True, False, False), gradWeight=T((7,), "FLOAT"), gradBias=T((1,), "FLOAT"))) is None
    )
    # the all-false early return comes after CheckParams
    none = dict(mask=(False, False, False), gradInput=None, gradWeight=None, gradBias=None)
    assert status("950", **call(**none)) is None
    assert status("950", **call(saveMean=T((5,), "FLOAT"), **none)) == ("save-mean-channels-950", 161002)


def test_outputs_measured_after_the_computation_outside_950():
    for product in NON_950:
        assert status(product, **call(gradWeight=T((4,), "FLOAT"))) == ("grad-weight-size", 561103), product
        assert status(product, **call(gradBias=T((2,), "FLOAT"))) == ("grad-bias-size", 561103), product
        # same element count, another shape: the copy works
        assert status(product, **call(gradWeight=T((3, 1), "FLOAT"), gradBias=T((1, 1, 3), "FLOAT"))) is None
        # unrequested: never touched
        assert status(product, **call(mask=(True, False, False), gradWeight=T((4,), "FLOAT"))) is None
        # every parameter check comes first
        assert status(product, **call(gradWeight=T((4,), "FLOAT"), weight=T((4,), "FLOAT"))) == (
            "weight-channels",
            161002,
        )


def test_310b_passes_every_parameter_check_then_misses_the_kernel():
    assert status("310b", **call()) == ("product-supported", 561103)
    assert status("310b", **call(dtype="FLOAT16", stats="FLOAT16")) == ("product-supported", 561103)
    assert status("310b", **call(weight=T((4,), "FLOAT"))) == ("weight-channels", 161002)
    assert status("310b", **call((0, 3, 4))) is None


@pytest.mark.parametrize("product", ("950", "910b"))
def test_omitted_outputs_do_not_hide_the_rank_error(product):
    """With the outputs left to inference, a 0-d or 1-D input still fails the rank check, not a null check."""
    for shape in ((), (3,)):
        values = call(shape, fmt="NHWC", c=1)
        for name in ("gradInput", "gradWeight", "gradBias"):
            del values[name]
        assert status(product, **values) == ("rank", 161002), shape


def test_longer_output_mask_runs_on_the_first_three_entries_outside_950():
    """Outside 950 CANN reads the first three entries of a longer outputMask; the binding and the
    reference kernel do the same (950 refuses the call with 161001)."""
    rng = np.random.default_rng(7)
    g, x = rng.random((2, 3, 4, 4), np.float32), rng.random((2, 3, 4, 4), np.float32)
    w, m, v = np.ones(3, np.float32), np.full(3, 0.5, np.float32), np.full(3, 2.0, np.float32)
    args = dict(gradOut=g, input=x, weight=w, runningMean=m, runningVar=v, saveMean=m, saveInvstd=v)
    args.update(training=True, eps=1e-5)
    three = aclnn.run("BatchNormBackward", product="910b", outputMask=[True, False, True], **args)
    four = aclnn.run("BatchNormBackward", product="910b", outputMask=[True, False, True, False], **args)
    assert three.keys() == four.keys()
    for name in three:
        if three[name] is None:
            assert four[name] is None, name
        else:
            np.testing.assert_array_equal(three[name], four[name], err_msg=name)
    with pytest.raises(aclnn.AclnnError) as info:
        aclnn.run("BatchNormBackward", product="950", outputMask=[True, True, True, False], **args)
    assert info.value.code == 161001
