"""Content tests for specs/batch_norm_backward.yaml (aclnnBatchNormBackward), through the generated validator.

Written from aclnn_batch_norm_backward.cpp (null checks of gradOut/input, the empty-tensor return before
everything else, CheckParams: outputMask and the requested outputs, dtype lists, the 950 dtype relations,
formats, shapes, channel counts per product), not from the spec's own cases.
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
spec = project.op("aclnnBatchNormBackward").spec

CODE_ORDER = [
    "null-inputs",
    "null-output-mask",
    "output-mask-length",
    "null-grad-input",
    "null-grad-weight",
    "null-grad-bias",
    "dtype-supported",
    "dtype-same",
    "grad-input-dtype-supported",
    "grad-weight-dtype-supported",
    "grad-bias-dtype-supported",
    "optional-dtype-supported",
    "weight-dtype-950",
    "running-mean-dtype-950",
    "running-var-dtype-950",
    "running-dtype-same-950",
    "save-mean-dtype-950",
    "save-invstd-dtype-950",
    "save-dtype-same-950",
    "grad-input-dtype-same-950",
    "grad-weight-dtype-950",
    "grad-bias-dtype-950",
    "grad-weight-bias-same-950",
    "stat-dtypes-doc",
    "format-same",
    "grad-input-format",
    "input-5d-format-950",
    "grad-input-5d-format-950",
    "format-not-private",
    "channels-last-doc",
    "rank",
    "shape-same",
    "grad-input-rank",
    "grad-input-shape",
    "weight-channels",
    "running-mean-channels",
    "running-var-channels",
    "weight-channels-950",
    "running-mean-channels-950",
    "running-var-channels-950",
    "save-mean-channels-950",
    "save-invstd-channels-950",
    "grad-weight-channels-950",
    "grad-bias-channels-950",
    "save-channels-doc",
    "product-supported",
    "grad-weight-size",
    "grad-bias-size",
]
T = aclnn.TensorDesc
NON_950 = ["910_93", "910b", "310p", "910"]


def args(shape=(2, 3, 4), dtype="FLOAT", fmt="NCL", c=None, stats="FLOAT", mask=(True, True, True), **over):
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
    )
    values.update(over)
    return values


def failure(product="910b", **kwargs):
    return verdict("BatchNormBackward", product, **kwargs)


def test_check_order_follows_code():
    assert [c.id for c in spec.checks] == CODE_ORDER


def test_empty_input_returns_before_any_other_check():
    for product in ("950", "910b", "910", "310b"):
        assert failure(product, **args(gradOut=None)) == ("null-inputs", 161001)
        # empty input or gradOut: nothing else is looked at
        assert failure(product, **args((0, 3, 4), outputMask=None)) is None
        assert failure(product, **args((2, 0), outputMask=[True], gradInput=None)) is None
        bad = args((2, 3, 4), input=T((0, 5), "INT32", "ND"), outputMask=[], weight=T((9, 9), "DOUBLE"))
        assert failure(product, **bad) is None
        assert failure(product, **args((4, 3), gradOut=T((4, 0), "FLOAT16", "ND"))) is None


def test_output_mask_is_checked_with_the_null_pointers():
    for product in ("950", "910b", "910"):
        assert failure(product, **args(outputMask=None)) == ("null-output-mask", 161001)
        for mask in ([], [True], [True, True]):
            assert failure(product, **args(outputMask=mask)) == ("output-mask-length", 161001), mask
    # a longer mask: only 950 requires exactly 3 entries (the others never read past the third)
    assert failure("950", **args(outputMask=[True] * 4)) == ("output-mask-length", 161001)
    assert failure("910b", **args(outputMask=[True] * 4)) is None
    # the requested outputs must exist; unrequested ones may be null
    assert failure(**args(gradInput=None)) == ("null-grad-input", 161001)
    assert failure(**args(gradWeight=None)) == ("null-grad-weight", 161001)
    assert failure(**args(gradBias=None)) == ("null-grad-bias", 161001)
    none = dict(gradInput=None, gradWeight=None, gradBias=None)
    assert failure(**args(mask=(False, False, False), **none)) is None
    assert failure("950", **args(mask=(False, False, False), **none)) is None
    # null checks come before dtypes
    assert failure(**args(dtype="DOUBLE", gradBias=None)) == ("null-grad-bias", 161001)


def test_dtype_lists_per_arch():
    for product in ("950", "910_93", "910b"):
        assert failure(product, **args(dtype="BFLOAT16", stats="BFLOAT16")) is None
    for product in ("310p", "910", "310b"):
        assert failure(product, **args(dtype="BFLOAT16", stats="BFLOAT16")) == ("dtype-supported", 161002)
    assert failure(**args(dtype="DOUBLE")) == ("dtype-supported", 161002)
    # the lists of both inputs come before their equality
    assert failure(**args(input=T((2, 3, 4), "FLOAT16", "NCL"))) == ("dtype-same", 161002)
    assert failure("910", **args(input=T((2, 3, 4), "BFLOAT16", "NCL"))) == ("dtype-supported", 161002)


def test_output_dtypes_only_when_requested():
    bad = T((2, 3, 4), "DOUBLE", "NCL")
    assert failure(**args(gradInput=bad)) == ("grad-input-dtype-supported", 161002)
    assert failure(**args(mask=(False, True, True), gradInput=bad)) is None
    assert failure(**args(gradWeight=T((3,), "INT64"))) == ("grad-weight-dtype-supported", 161002)
    assert failure(**args(mask=(True, False, True), gradWeight=T((3,), "INT64"))) is None
    assert failure("910", **args(gradBias=T((3,), "BFLOAT16"))) == ("grad-bias-dtype-supported", 161002)
    # optional inputs: each one given is checked against the list
    for name in ("weight", "runningMean", "runningVar", "saveMean", "saveInvstd"):
        assert failure(**args(**{name: T((3,), "INT32")})) == ("optional-dtype-supported", 161002), name
        assert failure(**args(**{name: None})) is None, name


def test_mixed_dtypes_pass_outside_950():
    mixed = args(dtype="FLOAT16", stats="FLOAT", gradWeight=T((3,), "FLOAT16"), gradBias=T((3,), "FLOAT"))
    for product in NON_950:
        assert failure(product, **mixed) is None, product
    assert failure("910b", **args(dtype="BFLOAT16", stats="FLOAT16", gradInput=T((2, 3, 4), "FLOAT", "NCL"))) is None


def test_950_dtype_relations():
    half = dict(dtype="FLOAT16")
    assert failure("950", **args(stats="FLOAT16", **half)) is None
    assert failure("950", **args(stats="FLOAT", **half)) is None
    assert failure("950", **args(stats="FLOAT16")) == ("weight-dtype-950", 161002)  # FLOAT gradOut: FLOAT only
    assert failure("950", **args(stats="BFLOAT16", **half)) == ("weight-dtype-950", 161002)
    assert failure("950", **args(weight=None, stats="BFLOAT16", **half)) == ("running-mean-dtype-950", 161002)
    assert failure("950", **args(runningVar=T((3,), "FLOAT16"))) == ("running-var-dtype-950", 161002)
    assert failure("950", **args(runningMean=T((3,), "FLOAT16"), **half)) == ("running-dtype-same-950", 161002)
    assert failure("950", **args(runningMean=T((3,), "FLOAT16"), runningVar=None, **half)) is None
    assert failure("950", **args(saveMean=T((3,), "BFLOAT16"), dtype="BFLOAT16")) == ("save-dtype-same-950", 161002)
    assert failure("950", **args(saveInvstd=T((3,), "FLOAT16"))) == ("save-invstd-dtype-950", 161002)
    # outputs
    gi16 = T((2, 3, 4), "FLOAT16", "NCL")
    assert failure("950", **args(gradInput=gi16)) == ("grad-input-dtype-same-950", 161002)
    assert failure("950", **args(mask=(False, True, True), gradInput=gi16)) is None
    w16 = dict(weight=T((3,), "FLOAT16"), dtype="FLOAT16")
    assert failure("950", **args(gradWeight=T((3,), "FLOAT16"), gradBias=T((3,), "FLOAT16"), **w16)) is None
    assert failure("950", **args(gradWeight=T((3,), "BFLOAT16"), **w16)) == ("grad-weight-dtype-950", 161002)
    assert failure("950", **args(gradBias=T((3,), "FLOAT16"))) == ("grad-bias-dtype-950", 161002)
    assert failure("950", **args(weight=None, gradWeight=T((3,), "BFLOAT16"), gradBias=T((3,), "BFLOAT16"))) is None
    # gradWeight and gradBias are compared whenever both are given, whatever the mask says
    pair = dict(gradWeight=T((3,), "FLOAT16"), gradBias=T((3,), "FLOAT"), weight=None)
    assert failure("950", **args(**pair)) == ("grad-weight-bias-same-950", 161002)
    assert failure("950", **args(mask=(True, False, False), **pair)) == ("grad-weight-bias-same-950", 161002)
    assert failure("910b", **args(**pair)) is None


def test_formats():
    assert failure(**args(input=T((2, 3, 4), "FLOAT", "ND"))) == ("format-same", 161002)
    assert failure(**args(gradInput=T((2, 3, 4), "FLOAT", "ND"))) == ("grad-input-format", 161002)
    assert failure(**args(mask=(False, True, True), gradInput=T((2, 3, 4), "FLOAT", "ND"))) is None
    # 5-D: NCDHW or NDHWC on 950 only
    nd5 = args((2, 3, 2, 2, 2), fmt="ND")
    assert failure("950", **nd5) == ("input-5d-format-950", 161002)
    for product in NON_950:
        assert failure(product, **nd5) is None
    assert failure("950", **args((2, 3, 2, 2, 2), fmt="NCDHW")) is None
    gi5 = T((2, 3, 4, 1, 1), "FLOAT", "NCL")
    assert failure("950", **args(gradInput=gi5)) == ("grad-input-5d-format-950", 161002)
    assert failure("910b", **args(gradInput=gi5)) == ("grad-input-shape", 161002)
    # private formats
    for fmt in ("NC1HWC0", "FRACTAL_NZ"):
        assert failure(**args((2, 3, 4, 4), fmt=fmt)) == ("format-not-private", 161002), fmt
    for fmt in ("ND", "NCHW", "HWCN"):
        assert failure(**args((2, 3, 4, 4), fmt=fmt)) is None, fmt


def test_channel_axis_per_product():
    # NHWC: 950 reads C from the last dimension, the others from dimension 1 (the doc's "unsupported" is not checked)
    nhwc = (2, 4, 4, 3)
    assert failure("950", **args(nhwc, fmt="NHWC", c=3)) is None
    assert failure("950", **args(nhwc, fmt="NHWC", c=4)) == ("weight-channels-950", 161002)
    assert failure("910b", **args(nhwc, fmt="NHWC", c=4)) is None  # inferred gradWeight/gradBias: (4,)
    assert failure("910b", **args(nhwc, fmt="NHWC", c=3)) == ("weight-channels", 161002)
    ndhwc = (1, 2, 2, 2, 5)
    assert failure("950", **args(ndhwc, fmt="NDHWC", c=5)) is None
    # 6-8-D: C is dimension 1
    assert failure("950", **args((2, 3, 1, 1, 1, 2), fmt="ND")) is None


def test_shapes():
    for shape in ((6,), (1,) * 9):
        bad = args(shape, fmt="ND", c=1, gradWeight=T((1,), "FLOAT"), gradBias=T((1,), "FLOAT"))
        assert failure(**bad) == ("rank", 161002), shape
    assert failure(**args(gradOut=T((2, 3, 5), "FLOAT", "NCL"))) == ("shape-same", 161002)
    assert failure(**args(gradInput=T((24,), "FLOAT", "NCL"))) == ("grad-input-rank", 161002)
    assert failure(**args(gradInput=T((2, 3, 5), "FLOAT", "NCL"))) == ("grad-input-shape", 161002)
    assert failure(**args(mask=(False, True, True), gradInput=T((24,), "FLOAT", "NCL"))) is None


def test_statistics_and_output_lengths_are_checked_on_950_only():
    for name in ("weight", "runningMean", "runningVar"):
        for product, check in (("910b", name_check(name, "")), ("950", name_check(name, "-950"))):
            assert failure(product, **args(**{name: T((4,), "FLOAT")})) == (check, 161002), (product, name)
            assert failure(product, **args(**{name: T((1, 3), "FLOAT")})) == (check, 161002), (product, name)
    for name, check in (("saveMean", "save-mean-channels-950"), ("saveInvstd", "save-invstd-channels-950")):
        assert failure("950", **args(**{name: T((4,), "FLOAT")})) == (check, 161002)
        assert failure("950", **args(**{name: T((0,), "FLOAT")})) == (check, 161002)
        assert failure("950", **args(training=False, **{name: T((0,), "FLOAT")})) is None
        for product in NON_950:
            assert failure(product, **args(**{name: T((4,), "FLOAT")})) is None
    for name, check in (("gradWeight", "grad-weight-channels-950"), ("gradBias", "grad-bias-channels-950")):
        assert failure("950", **args(**{name: T((2,), "FLOAT")})) == (check, 161002)
        assert failure("950", **args(**{name: T((1, 3), "FLOAT")})) == (check, 161002)


def test_output_lengths_outside_950_fail_when_the_results_are_copied():
    """No parameter check reads them; copying the C results into a wrong-sized output fails (561103)."""
    for name, check in (("gradWeight", "grad-weight-size"), ("gradBias", "grad-bias-size")):
        for product in NON_950:
            assert failure(product, **args(**{name: T((2,), "FLOAT")})) == (check, 561103), product
            assert failure(product, **args(**{name: T((1, 3), "FLOAT")})) is None, product
        # every parameter error comes first
        assert failure("910b", **args(dtype="DOUBLE", **{name: T((2,), "FLOAT")})) == ("dtype-supported", 161002)
    assert failure("910b", **args(mask=(True, False, False), gradWeight=T((2,), "FLOAT"))) is None


def name_check(name, suffix):
    return {"weight": "weight-channels", "runningMean": "running-mean-channels", "runningVar": "running-var-channels"}[
        name
    ] + suffix


def test_310p_supported_and_310b_misses_the_kernel():
    assert "310p" in spec.products and "310b" not in spec.products
    assert failure("310p", **args(dtype="FLOAT16")) is None
    assert failure("310b", **args(dtype="BFLOAT16")) == ("dtype-supported", 161002)
    assert failure("310b", **args(outputMask=[True])) == ("output-mask-length", 161001)
    assert failure("310b", **args()) == ("product-supported", 561103)
    assert failure("310b", **args((0, 3, 4))) is None


# ----------------------------------------------------------------------------------------------
# The binding runs the kernel on what the validator accepts; results agree with PyTorch.


def _data(shape=(3, 4, 5), seed=0):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(shape) * 1.3 + 0.4).astype(np.float32)
    g = rng.standard_normal(shape).astype(np.float32)
    c = shape[1]
    axes = tuple(i for i in range(len(shape)) if i != 1)
    mean = x.mean(axis=axes).astype(np.float32)
    invstd = (1 / np.sqrt(x.var(axis=axes) + 1e-5)).astype(np.float32)
    w = (rng.standard_normal(c) + 1).astype(np.float32)
    rm = rng.standard_normal(c).astype(np.float32)
    rv = rng.uniform(0.5, 2, c).astype(np.float32)
    return g, x, w, rm, rv, mean, invstd


@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("mask", [[True, True, True], [True, False, False], [False, True, True]])
def test_binding_matches_torch(training, mask):
    g, x, w, rm, rv, sm, si = _data()
    got = aclnn.batch_norm_backward(g, x, w, rm, rv, sm, si, training, 1e-5, mask, product="910")
    t = torch.from_numpy
    want = torch.ops.aten.native_batch_norm_backward(t(g), t(x), t(w), t(rm), t(rv), t(sm), t(si), training, 1e-5, mask)
    for name, value, expected, requested in zip(("gradInput", "gradWeight", "gradBias"), got, want, mask):
        if not requested:
            assert value is None, name
            continue
        np.testing.assert_allclose(value, expected.numpy(), rtol=1e-4, atol=1e-5, err_msg=name)


def test_null_optional_inputs_take_the_op_defaults():
    g, x, *_ = _data((2, 3, 4, 4), seed=1)
    got = aclnn.batch_norm_backward(g, x, None, None, None, None, None, False, 0.25, [True, True, True])
    # inference with runningMean 0, runningVar 1, weight 1
    np.testing.assert_allclose(got[0], g / np.sqrt(1.25), rtol=1e-6)
    np.testing.assert_allclose(got[2], g.sum(axis=(0, 2, 3)), rtol=1e-5, atol=1e-5)


def test_950_half_training_rounds_weight_grads_to_the_weight_dtype():
    g, x, w, rm, rv, sm, si = (a.astype(BFLOAT16) for a in _data(seed=2))
    out = {}
    for product in ("910b", "950"):
        dw = np.empty(4, np.float32)
        aclnn.batch_norm_backward(g, x, w, rm, rv, sm, si, True, 1e-5, [False, True, False], None, dw, None,
                                  product=product)  # fmt: skip
        out[product] = dw
    np.testing.assert_array_equal(out["950"], out["910b"].astype(BFLOAT16).astype(np.float32))


def test_empty_input_runs_and_writes_only_empty_outputs():
    x = np.zeros((0, 3, 4), np.float32)
    dx, dw, db = aclnn.batch_norm_backward(x, x, None, None, None, None, None, True, 1e-5, [True, False, False])
    assert dx.shape == (0, 3, 4) and dw is None and db is None


def test_channels_last_tensors_reach_the_kernel_with_their_format():
    """950 reads NHWC channels-last; the other products read the same array as NCHW (dimension 1)."""
    g, x, *_ = _data((2, 4, 5, 3), seed=5)
    t = torch.from_numpy
    nhwc = dict(
        gradOut=aclnn.TensorDesc(g.shape, "FLOAT", "NHWC", data=g),
        input=aclnn.TensorDesc(x.shape, "FLOAT", "NHWC", data=x),
    )
    args_ = dict(weight=None, runningMean=None, runningVar=None, saveMean=None, saveInvstd=None, training=False, eps=0.5,
                 outputMask=[True, True, True])  # fmt: skip
    got = aclnn.run("BatchNormBackward", product="950", **nhwc, **args_)
    g_c, x_c = np.moveaxis(g, -1, 1).copy(), np.moveaxis(x, -1, 1).copy()
    c = g_c.shape[1]
    want = torch.ops.aten.native_batch_norm_backward(
        t(g_c), t(x_c), None, t(np.zeros(c, np.float32)), t(np.ones(c, np.float32)), None, None, False, 0.5, [True] * 3
    )
    np.testing.assert_allclose(got["gradInput"], np.moveaxis(want[0].numpy(), 1, -1), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got["gradBias"], want[2].numpy(), rtol=1e-5, atol=1e-5)
    assert got["gradWeight"].shape == (3,)
    other = aclnn.run("BatchNormBackward", product="910b", **nhwc, **args_)
    assert other["gradWeight"].shape == (4,)
    np.testing.assert_allclose(other["gradBias"], g.sum(axis=(0, 2, 3)), rtol=1e-5, atol=1e-5)
