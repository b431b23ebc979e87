"""Content tests for specs/leaky_relu_backward.yaml (aclnnLeakyReluBackward), written from the op_api code."""

from __future__ import annotations

from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
import torch

import aclnn
from generator.loader import load_project
from tests.specs.verdicts import verdict

project = load_project(Path(__file__).resolve().parents[2] / "specs")
spec = project.op("aclnnLeakyReluBackward").spec

# CheckParams of aclnn_leaky_relu_backward.cpp: nulls; gradOutput, self, negativeSlope in the arch lists;
# ranks <= 8; broadcast; out shape; selfIsResult with a negative slope; promotion and cast to out.
# The missing 310b AI Core kernel (unverified) is the last thing that can fail.
CODE_ORDER = [
    "null-pointers",
    "dtype-supported",
    "slope-dtype-supported",
    "max-rank",
    "broadcastable",
    "out-shape",
    "slope-non-negative",
    "dtype-promotable",
    "result-castable",
    "product-supported",
]
BF16_PRODUCTS = ("950", "910_93", "910b")


def args(go="FLOAT", x="FLOAT", go_shape=(2, 3), x_shape=(3,), slope=0.1, is_result=False, **over):
    values = dict(
        gradOutput=aclnn.TensorDesc(go_shape, go),
        self=aclnn.TensorDesc(x_shape, x),
        negativeSlope=slope,
        selfIsResult=is_result,
    )
    values.update(over)
    return values


def failure(product="910b", **kwargs):
    return verdict("LeakyReluBackward", product, **kwargs)


def test_check_order_follows_code():
    assert [c.id for c in spec.checks] == CODE_ORDER


@pytest.mark.parametrize("name", ["gradOutput", "self", "negativeSlope", "out"])
def test_every_pointer_is_checked(name):
    out = aclnn.TensorDesc((2, 3), "FLOAT")
    assert failure(**args(**{"out": out, name: None})) == ("null-pointers", 161001)


def test_arch_dtype_lists():
    for product in BF16_PRODUCTS:
        assert failure(product, **args("BFLOAT16", "BFLOAT16")) is None
        assert failure(product, **args(slope=aclnn.Scalar(0.5, "BFLOAT16"))) is None
    for product in ("310p", "910"):
        assert failure(product, **args("BFLOAT16", "FLOAT")) == ("dtype-supported", 161002)
        assert failure(product, **args(slope=aclnn.Scalar(0.5, "BFLOAT16"))) == ("slope-dtype-supported", 161002)
    for product in BF16_PRODUCTS + ("310p", "910"):
        assert failure(product, **args("DOUBLE", "FLOAT16")) is None  # DOUBLE everywhere, mixed dtypes promote
        assert failure(product, **args("INT32", "FLOAT")) == ("dtype-supported", 161002)
    for dtype in ("INT8", "UINT8", "INT16", "INT32", "INT64", "BOOL", "DOUBLE", "FLOAT16"):
        assert failure("910", **args(slope=aclnn.Scalar(1, dtype))) is None, dtype
    assert failure(**args(slope=aclnn.Scalar(1, "UINT32"))) == ("slope-dtype-supported", 161002)


def test_shapes_broadcast_to_out():
    assert failure(**args(go_shape=(2, 1), x_shape=(1, 3))) is None
    assert failure(**args(out=aclnn.TensorDesc((2, 3), "FLOAT"))) is None
    assert failure(**args(out=aclnn.TensorDesc((3,), "FLOAT"))) == ("out-shape", 161002)
    assert failure(**args(x_shape=(2,))) == ("broadcastable", 161002)
    nine = (1,) * 8 + (3,)
    assert failure(**args(x_shape=nine, out=aclnn.TensorDesc((3,), "FLOAT"))) == ("max-rank", 161002)


def test_negative_slope_only_with_self_is_result():
    assert failure(**args(slope=-0.2)) is None
    assert failure(**args(slope=-0.2, is_result=True)) == ("slope-non-negative", 161002)
    assert failure(**args(slope=aclnn.Scalar(-1e-300, "DOUBLE"), is_result=True)) == ("slope-non-negative", 161002)
    assert failure(**args(slope=aclnn.Scalar(-1, "INT32"), is_result=True)) == ("slope-non-negative", 161002)
    assert failure(**args(slope=float("nan"), is_result=True)) is None
    # the value check comes after the shape checks
    assert failure(**args(slope=-0.2, is_result=True, x_shape=(2,))) == ("broadcastable", 161002)


def test_out_dtype_must_be_castable_from_the_promoted_dtype():
    for dtype in ("FLOAT16", "DOUBLE", "BFLOAT16", "COMPLEX64"):
        assert failure(**args(out=aclnn.TensorDesc((2, 3), dtype))) is None, dtype
    for dtype in ("INT32", "INT8", "BOOL"):  # the doc says these work through a cast; the code rejects them
        assert failure(**args(out=aclnn.TensorDesc((2, 3), dtype))) == ("result-castable", 161002), dtype


def test_310b_fails_only_where_the_ai_core_kernel_is_added():
    assert "310b" not in spec.products
    assert failure("310b", **args("BFLOAT16", "FLOAT")) == ("dtype-supported", 161002)
    assert failure("310b", **args()) == ("product-supported", 561103)
    assert failure("310b", **args("DOUBLE", "DOUBLE")) is None  # AI CPU
    assert failure("310b", **args(go_shape=(0,), x_shape=(0,))) is None


def test_empty_self_returns_after_the_checks():
    assert failure(**args(go_shape=(0, 3), x_shape=(0, 3))) is None
    assert failure(**args(go_shape=(0, 3), x_shape=(3,))) is None
    assert failure(**args(go_shape=(0, 3), x_shape=(0, 3), slope=-1.0, is_result=True)) == (
        "slope-non-negative",
        161002,
    )


@pytest.mark.parametrize("dtype", [np.float32, np.float16, ml_dtypes.bfloat16, np.float64])
def test_run_matches_torch(dtype):
    rng = np.random.default_rng(3)
    x = rng.uniform(-2, 2, (4, 1, 6)).astype(dtype)
    x[0, 0, :2] = 0
    g = rng.uniform(-3, 3, (5, 1)).astype(dtype)
    got = aclnn.run("LeakyReluBackward", product="910b", gradOutput=g, self=x, negativeSlope=0.25, selfIsResult=False)
    out = got["out"]
    assert out.shape == (4, 5, 6) and out.dtype == np.dtype(dtype)
    tg, tx = torch.from_numpy(g.astype(np.float64)), torch.from_numpy(x.astype(np.float64))
    want = torch.ops.aten.leaky_relu_backward(*torch.broadcast_tensors(tg, tx), 0.25, False).numpy()
    np.testing.assert_allclose(out.astype(np.float64), want.astype(dtype).astype(np.float64), rtol=1e-2, atol=1e-6)
