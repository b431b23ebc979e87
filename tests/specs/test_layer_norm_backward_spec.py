"""Content tests for specs/layer_norm_backward.yaml (aclnnLayerNormBackward), through the generated validator.

Written from aclnn_layer_norm_backward.cpp (null checks, outputMask length as 161002, the requested outputs,
product-independent dtype lists, CheckShape with its partial normalizedShape comparison, the all-false and
empty returns), not from the spec's own cases.
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
spec = project.op("aclnnLayerNormBackward").spec

CODE_ORDER = [
    "null-pointers",
    "output-mask-length",
    "null-grad-input",
    "null-grad-weight",
    "null-grad-bias",
    "dtype-supported",
    "dtype-same",
    "weight-dtype-supported",
    "weight-dtype",
    "bias-dtype-supported",
    "output-dtype-supported",
    "mean-rstd-dtype-doc",
    "weight-bias-dtype-doc",
    "max-rank",
    "normalized-shape-max",
    "grad-input-max-rank",
    "grad-weight-max-rank",
    "grad-bias-max-rank",
    "normalized-shape-min",
    "input-rank-min",
    "input-normalized-shape",
    "input-normalized-shape-doc",
    "weight-max-rank",
    "weight-shape",
    "bias-max-rank",
    "bias-shape",
    "shape-same",
    "mean-rstd-shape",
    "mean-numel",
    "grad-input-shape",
    "grad-weight-numel",
    "grad-bias-numel",
    "min-rank-doc",
    "bf16-kernel",
    "product-supported",
]
T = aclnn.TensorDesc


def args(shape=(2, 3, 4), norm=(4,), dtype="FLOAT", stats="FLOAT", mask=(True, True, True), **over):
    lead = shape[: len(shape) - len(norm)]
    stat_shape = tuple(lead) + (1,) * len(norm)
    values = dict(
        gradOut=T(shape, dtype),
        input=T(shape, dtype),
        normalizedShape=list(norm),
        mean=T(stat_shape, stats),
        rstd=T(stat_shape, stats),
        weightOptional=T(tuple(norm), dtype),
        biasOptional=T(tuple(norm), dtype),
        outputMask=list(mask),
    )
    values.update(over)
    return values


def failure(product="910b", **kwargs):
    return verdict("LayerNormBackward", product, **kwargs)


def test_check_order_follows_code():
    assert [c.id for c in spec.checks] == CODE_ORDER


def test_null_pointers_and_output_mask():
    for name in ("gradOut", "input", "normalizedShape", "mean", "rstd", "outputMask"):
        assert failure(**args(dtype="DOUBLE", **{name: None})) == ("null-pointers", 161001), name
    # optional inputs may be null
    assert failure(**args(weightOptional=None, biasOptional=None)) is None
    # the length is checked before the outputs, and returns 161002 (unlike BatchNorm)
    for mask in ([], [True, True], [True] * 4):
        assert failure(**args(outputMask=mask, gradInputOut=None)) == ("output-mask-length", 161002), mask
    assert failure(**args(gradInputOut=None)) == ("null-grad-input", 161001)
    assert failure(**args(gradWeightOut=None)) == ("null-grad-weight", 161001)
    assert failure(**args(gradBiasOut=None)) == ("null-grad-bias", 161001)
    assert failure(**args(mask=(False, False, False), gradInputOut=None, gradWeightOut=None, gradBiasOut=None)) is None
    # null outputs come before dtypes
    assert failure(**args(dtype="DOUBLE", gradBiasOut=None)) == ("null-grad-bias", 161001)


def test_dtype_lists_do_not_depend_on_the_product():
    for product in ("950", "910_93", "910b", "310p", "910"):
        assert failure(product, **args(dtype="FLOAT16", stats="FLOAT16")) is None
        for name in ("gradOut", "input", "mean", "rstd"):
            bad = args(**{name: T((2, 3, 4) if name in ("gradOut", "input") else (2, 3, 1), "DOUBLE")})
            assert failure(product, **bad) == ("dtype-supported", 161002), (product, name)
    # mean and rstd need not match input or each other
    assert failure(**args(dtype="BFLOAT16", mean=T((2, 3, 1), "FLOAT16"), rstd=T((2, 3, 1), "FLOAT"))) is None
    assert failure(**args(gradOut=T((2, 3, 4), "FLOAT16"))) == ("dtype-same", 161002)


def test_weight_and_bias_dtypes():
    half = dict(dtype="FLOAT16")
    assert failure(**args(weightOptional=T((4,), "FLOAT"), **half)) is None
    assert failure(**args(weightOptional=T((4,), "BFLOAT16"), **half)) == ("weight-dtype", 161002)
    assert failure(**args(weightOptional=T((4,), "INT8"), **half)) == ("weight-dtype-supported", 161002)
    # bias: only the list (any float dtype, not compared with weight)
    assert failure(**args(biasOptional=T((4,), "BFLOAT16"), **half)) is None
    assert failure(**args(biasOptional=T((4,), "DOUBLE"), **half)) == ("bias-dtype-supported", 161002)


def test_output_dtypes_are_checked_whenever_given():
    assert failure(**args(gradInputOut=T((2, 3, 4), "BFLOAT16"))) is None  # cast target
    assert failure(**args(gradWeightOut=T((4,), "DOUBLE"))) == ("output-dtype-supported", 161002)
    mask_off = args(mask=(True, False, True), gradWeightOut=T((4,), "INT32"))
    assert failure(**mask_off) == ("output-dtype-supported", 161002)


def test_ranks_and_normalized_shape_length():
    assert failure(**args((1,) * 8 + (4,), norm=(4,))) == ("max-rank", 161002)
    assert failure(**args((1,) * 7 + (4,), norm=(4,))) is None
    assert failure(**args(mean=T((2, 3, 1) + (1,) * 6, "FLOAT"))) == ("max-rank", 161002)
    assert failure(**args((1,) * 8, norm=(1,) * 8)) is None
    nine = args((2, 3, 4), norm=(4,), normalizedShape=[1] * 9)
    assert failure(**nine) == ("normalized-shape-max", 161002)
    assert failure(**args(gradInputOut=T((2, 3, 4) + (1,) * 6, "FLOAT"))) == ("grad-input-max-rank", 161002)
    assert failure(**args(mask=(False, True, True), gradInputOut=T((1,) * 9, "FLOAT"))) is None
    assert failure(**args(normalizedShape=[])) == ("normalized-shape-min", 161002)
    assert failure(**args((3, 4), norm=(4,), normalizedShape=[2, 3, 4])) == ("input-rank-min", 161002)


def test_normalized_shape_comparison_is_partial_as_in_the_code():
    # rank == len: every value compared
    assert failure(**args((2, 3, 4), norm=(2, 3, 4))) is None
    bad = args((2, 3, 4), norm=(2, 3, 4), normalizedShape=[2, 3, 5], weightOptional=None, biasOptional=None)
    assert failure(**bad) == ("input-normalized-shape", 161002)
    # rank 3, len 2: only normalizedShape[1] is compared with input.shape[2]
    loose = args((2, 3, 4), norm=(3, 4), normalizedShape=[7, 4], weightOptional=None, biasOptional=None)
    assert failure(**loose) is None
    strict = args((2, 3, 4), norm=(3, 4), normalizedShape=[3, 5], weightOptional=None, biasOptional=None)
    assert failure(**strict) == ("input-normalized-shape", 161002)
    # rank >= 2 * len: nothing is compared (M, N still come from input)
    assert failure(**args((2, 3, 4), norm=(4,), normalizedShape=[9], weightOptional=None, biasOptional=None)) is None
    # weight and bias must equal normalizedShape exactly
    assert failure(**args(weightOptional=T((1, 4), "FLOAT"))) == ("weight-shape", 161002)
    assert failure(**args(weightOptional=T((5,), "FLOAT"))) == ("weight-shape", 161002)
    assert failure(**args(weightOptional=T((1,) * 9, "FLOAT"))) == ("weight-max-rank", 161002)
    assert failure(**args(biasOptional=T((3,), "FLOAT"))) == ("bias-shape", 161002)
    assert failure(**loose | {"weightOptional": T((7, 4), "FLOAT")}) is None


def test_shapes_of_statistics_and_outputs():
    assert failure(**args(gradOut=T((2, 3, 5), "FLOAT"))) == ("shape-same", 161002)
    assert failure(**args(rstd=T((6,), "FLOAT"))) == ("mean-rstd-shape", 161002)
    # mean/rstd: any shape holding M elements
    assert failure(**args(mean=T((6,), "FLOAT"), rstd=T((6,), "FLOAT"))) is None
    assert failure(**args(mean=T((3, 2), "FLOAT"), rstd=T((3, 2), "FLOAT"))) is None
    assert failure(**args(mean=T((), "FLOAT"), rstd=T((), "FLOAT"))) == ("mean-numel", 161002)
    assert failure(**args((1, 4), mean=T((), "FLOAT"), rstd=T((), "FLOAT"))) is None  # M == 1, 0-D
    assert failure(**args(gradInputOut=T((6, 4), "FLOAT"))) == ("grad-input-shape", 161002)
    # gradWeightOut / gradBiasOut: N elements, any shape
    assert failure(**args(gradWeightOut=T((2, 2), "FLOAT"), gradBiasOut=T((1, 4, 1), "FLOAT"))) is None
    assert failure(**args(gradWeightOut=T((3,), "FLOAT"))) == ("grad-weight-numel", 161002)
    assert failure(**args(gradBiasOut=T((8,), "FLOAT"))) == ("grad-bias-numel", 161002)
    assert failure(**args(mask=(True, True, False), gradBiasOut=T((8,), "FLOAT"))) is None


def test_empty_input_passes_after_every_check():
    assert failure(**args((0, 3, 4), mean=T((1,), "FLOAT"), rstd=T((1,), "FLOAT"))) == ("mean-numel", 161002)
    assert failure(**args((0, 3, 4), mean=T((0, 1), "FLOAT"), rstd=T((0, 1), "FLOAT"))) is None
    assert failure(**args((0, 3, 4), mean=T((0, 3, 1), "FLOAT"), rstd=T((0, 3, 1), "FLOAT"))) is None
    assert failure(**args((2, 3, 0), norm=(0,))) is None


def test_bf16_on_products_without_bf16_kernels():
    """The doc's BFLOAT16 restriction is not enforced: the split branch never turns a kernel failure into a status."""
    for product in ("310p", "910"):
        assert failure(product, **args(dtype="BFLOAT16")) is None
        assert failure(product, **args(mean=T((2, 3, 1), "BFLOAT16"), rstd=T((2, 3, 1), "BFLOAT16"))) is None
        assert failure(product, **args(dtype="BFLOAT16", gradInputOut=T((2, 3), "BFLOAT16"))) == (
            "grad-input-shape",
            161002,
        )
    for product in ("950", "910_93", "910b"):
        assert failure(product, **args(dtype="BFLOAT16")) is None


def test_310b_has_no_product_check():
    assert "310b" not in spec.products
    assert failure("310b", **args(dtype="DOUBLE")) == ("dtype-supported", 161002)
    assert failure("310b", **args()) is None


# ----------------------------------------------------------------------------------------------
# The binding runs the kernel on what the validator accepts; results agree with PyTorch.


def _data(shape=(3, 4, 5), norm=(5,), seed=0):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(shape) * 1.2 + 0.3).astype(np.float32)
    g = rng.standard_normal(shape).astype(np.float32)
    axes = tuple(range(len(shape) - len(norm), len(shape)))
    mean = x.mean(axis=axes, keepdims=True).astype(np.float32)
    rstd = (1 / np.sqrt(x.var(axis=axes, keepdims=True) + 1e-5)).astype(np.float32)
    w = (rng.standard_normal(norm) + 1).astype(np.float32)
    b = rng.standard_normal(norm).astype(np.float32)
    return g, x, mean, rstd, w, b


@pytest.mark.parametrize("norm", [(5,), (4, 5)])
@pytest.mark.parametrize("mask", [[True, True, True], [True, False, False], [False, True, True]])
def test_binding_matches_torch(norm, mask):
    g, x, mean, rstd, w, b = _data(norm=norm)
    got = aclnn.layer_norm_backward(g, x, list(norm), mean, rstd, w, b, mask, product="910")
    t = torch.from_numpy
    want = torch.ops.aten.native_layer_norm_backward(t(g), t(x), list(norm), t(mean), t(rstd), t(w), t(b), mask)
    for name, value, expected, requested in zip(("gradInputOut", "gradWeightOut", "gradBiasOut"), got, want, mask):
        if not requested:
            assert value is None, name
            continue
        np.testing.assert_allclose(value, expected.numpy(), rtol=1e-4, atol=1e-5, err_msg=name)


def test_null_weight_and_half_inputs():
    g, x, mean, rstd, _, _ = _data(seed=3)
    gh, xh = g.astype(BFLOAT16), x.astype(BFLOAT16)
    got = aclnn.layer_norm_backward(gh, xh, [5], mean, rstd, None, None, [True, True, True], product="950")
    t = torch.from_numpy
    want = torch.ops.aten.native_layer_norm_backward(
        t(gh.astype(np.float32)),
        t(xh.astype(np.float32)),
        [5],
        t(mean),
        t(rstd),
        t(np.ones(5, np.float32)),
        t(np.zeros(5, np.float32)),
        [True, True, True],
    )
    assert got[0].dtype == BFLOAT16
    np.testing.assert_allclose(got[0].astype(np.float32), want[0].numpy(), rtol=2e-2, atol=2e-2)
    np.testing.assert_allclose(got[1].astype(np.float32), want[1].numpy(), rtol=2e-2, atol=5e-2)


def test_empty_rows_fill_weight_grads_with_zeros():
    x = np.zeros((0, 4), np.float32)
    mean = np.zeros((0, 1), np.float32)
    dx, dw, db = aclnn.layer_norm_backward(x, x, [4], mean, mean, None, None, [True, True, True])
    assert dx.shape == (0, 4)
    np.testing.assert_array_equal(dw, np.zeros(4))
    np.testing.assert_array_equal(db, np.zeros(4))


def test_all_false_mask_computes_nothing_even_with_a_loose_normalized_shape():
    g, x, mean, rstd, _, _ = _data()
    got = aclnn.layer_norm_backward(g, x, [9], mean, rstd, None, None, [False, False, False], None, None, None)
    assert all(v is None for v in got)


def test_inferred_weight_grads_take_the_weight_dtype():
    g, x, mean, rstd, w, b = _data(seed=4)
    half = g.astype(np.float16), x.astype(np.float16)
    got = aclnn.layer_norm_backward(*half, [5], mean, rstd, w, b, [True, True, True])
    assert got[0].dtype == np.float16 and got[1].dtype == np.float32 and got[2].dtype == np.float32
    got = aclnn.layer_norm_backward(*half, [5], mean, rstd, None, None, [True, True, True])
    assert got[1].dtype == np.float16
