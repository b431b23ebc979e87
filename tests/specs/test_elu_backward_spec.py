"""Content tests for specs/elu_backward.yaml (aclnnEluBackward), checked through the generated validator."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import aclnn
from generator.loader import load_project
from tests.specs.verdicts import verdict

project = load_project(Path(__file__).resolve().parents[2] / "specs")
spec = project.op("aclnnEluBackward").spec

# CheckParams of aclnn_elu_backward.cpp: nulls, dtype equality before the list, scalar casts, result cast,
# shapes, rank, alpha; the missing 310b kernel (unverified) is the last thing that can fail.
CODE_ORDER = [
    "null-pointers",
    "dtype-same",
    "dtype-supported",
    "scalar-castable",
    "result-castable",
    "shape-same",
    "max-rank",
    "alpha-non-negative",
    "product-supported",
]


def args(dtype="FLOAT", shape=(2, 2), alpha=1.0, is_result=True, **over):
    values = dict(
        gradOutput=aclnn.TensorDesc(shape, dtype),
        alpha=alpha,
        scale=1.0,
        inputScale=1.0,
        isResult=is_result,
        selfOrResult=aclnn.TensorDesc(shape, dtype),
    )
    values.update(over)
    return values


def failure(product="910b", **kwargs):
    return verdict("EluBackward", product, **kwargs)


def test_check_order_follows_code():
    assert [c.id for c in spec.checks] == CODE_ORDER


def test_alpha_is_compared_after_rounding_to_float32():
    # CANN tests alpha.ToFloat() < 0: values that round to -0.0 in float32 pass, like NaN
    for value in (-7.0e-46, -(2.0**-150), -0.0, 0.0, float("nan")):
        assert failure(**args(alpha=aclnn.Scalar(value, "DOUBLE"))) is None, value
    for value in (-1.0e-45, -(2.0**-149), -0.001, -2.0):
        assert failure(**args(alpha=aclnn.Scalar(value, "DOUBLE"))) == ("alpha-non-negative", 161002), value
    assert np.float32(-(2.0**-150)) == 0 and np.float32(-1.0e-45) < 0  # the threshold is float32's rounding
    # only when isResult is true
    assert failure(**args(alpha=-2.0, is_result=False)) is None


def test_310b_is_not_rejected_early():
    """No product check in the op_api: 310b runs every check with the FLOAT, FLOAT16 list."""
    assert "310b" not in spec.products
    assert failure("310b", **args("BFLOAT16")) == ("dtype-supported", 161002)
    assert failure("310b", **args(alpha=-1.0)) == ("alpha-non-negative", 161002)
    assert failure("310b", **args(gradInput=aclnn.TensorDesc((2, 2), "INT32"))) == ("result-castable", 161002)
    # a valid non-empty call fails last, where the kernel would be added (unverified code)
    assert failure("310b", **args("FLOAT16")) == ("product-supported", 561103)
    # an empty gradOutput returns before any kernel is added
    assert failure("310b", **args(shape=(0, 2))) is None


@pytest.mark.parametrize("product", ["950", "910_93", "910b", "310p", "910"])
def test_supported_products_pass(product):
    assert failure(product, **args("FLOAT16")) is None


def test_bf16_only_on_dav_2201_and_950():
    for product in ("950", "910_93", "910b"):
        assert failure(product, **args("BFLOAT16")) is None
    for product in ("310p", "910", "310b"):
        assert failure(product, **args("BFLOAT16")) == ("dtype-supported", 161002)
