"""Content tests for specs/hardtanh_backward.yaml (aclnnHardtanhBackward), written from the op_api code."""

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
spec = project.op("aclnnHardtanhBackward").spec

# CheckParams of aclnn_hardtanh_backward.cpp: nulls; gradOutput, self, out in the arch list; gradOutput
# dtype == self dtype; both ranks <= 8; gradOutput shape == self shape. out's shape is never checked.
CODE_ORDER = ["null-pointers", "dtype-supported", "dtype-same", "max-rank", "shape-same", "out-shape", "out-dtype"]
BF16_PRODUCTS = ("950", "910_93", "910b")
NO_BF16_PRODUCTS = ("310b", "310p", "910")


def args(dtype="FLOAT", shape=(4, 2), **over):
    values = dict(
        gradOutput=aclnn.TensorDesc(shape, dtype),
        self=aclnn.TensorDesc(shape, dtype),
        min=-1.0,
        max=1.0,
        out=aclnn.TensorDesc(shape, dtype),
    )
    values.update(over)
    return values


def failure(product="910b", **kwargs):
    return verdict("HardtanhBackward", product, **kwargs)


def test_check_order_follows_code():
    assert [c.id for c in spec.checks] == CODE_ORDER
    assert not {c.id: c for c in spec.checks}["out-shape"].enforced


@pytest.mark.parametrize("name", ["gradOutput", "self", "min", "max", "out"])
def test_every_pointer_is_checked(name):
    assert failure(**args(**{name: None})) == ("null-pointers", 161001)


@pytest.mark.parametrize("product", BF16_PRODUCTS + NO_BF16_PRODUCTS)
def test_every_documented_product_accepts_float16(product):
    assert failure(product, **args("FLOAT16")) is None


def test_bfloat16_only_on_dav_2201_and_950():
    for product in BF16_PRODUCTS:
        assert failure(product, **args("BFLOAT16")) is None
    for product in NO_BF16_PRODUCTS:  # 310b too, although its doc lists BFLOAT16
        assert failure(product, **args("BFLOAT16")) == ("dtype-supported", 161002)


def test_out_dtype_is_only_checked_against_the_list():
    # review: the parameter checks only use the list; a different out dtype then has no kernel (out-dtype, 561103)
    assert failure(**args(out=aclnn.TensorDesc((4, 2), "FLOAT16"))) == ("out-dtype", 561103)
    assert failure(**args(out=aclnn.TensorDesc((4, 2), "BFLOAT16"))) == ("out-dtype", 561103)
    assert failure("910", **args(out=aclnn.TensorDesc((4, 2), "BFLOAT16"))) == ("dtype-supported", 161002)
    assert failure(**args(out=aclnn.TensorDesc((4, 2), "DOUBLE"))) == ("dtype-supported", 161002)


def test_list_check_comes_before_equal_dtypes():
    # a DOUBLE self is reported as unsupported, not as a mismatch
    assert failure(**args(self=aclnn.TensorDesc((4, 2), "DOUBLE"))) == ("dtype-supported", 161002)
    assert failure(**args(self=aclnn.TensorDesc((4, 2), "BFLOAT16"))) == ("dtype-same", 161002)


def test_ranks_are_checked_before_shapes():
    nine = (1,) * 9
    assert failure(**args(gradOutput=aclnn.TensorDesc(nine, "FLOAT"))) == ("max-rank", 161002)
    assert failure(**args(self=aclnn.TensorDesc(nine, "FLOAT"))) == ("max-rank", 161002)
    assert failure(**args(self=aclnn.TensorDesc((8,), "FLOAT"))) == ("shape-same", 161002)


def test_no_broadcasting_and_no_out_shape_check():
    assert failure(**args(self=aclnn.TensorDesc((1, 2), "FLOAT"))) == ("shape-same", 161002)
    assert failure(**args(out=aclnn.TensorDesc((3, 3), "FLOAT"))) is None


def test_scalar_dtypes_are_not_checked():
    for scalar in (aclnn.Scalar(1, "INT32"), aclnn.Scalar(1.0, "DOUBLE"), aclnn.Scalar(True, "BOOL")):
        assert failure(**args(max=scalar)) is None


def test_empty_tensors_pass_after_every_check():
    assert failure(**args(shape=(0, 2))) is None
    assert failure(**args(shape=(0,))) is None
    assert failure(**args(shape=(0, 2), self=aclnn.TensorDesc((2, 0), "FLOAT"))) == ("shape-same", 161002)
    assert failure(**args("DOUBLE", shape=(0, 2))) == ("dtype-supported", 161002)


def test_formats_are_not_checked():
    nchw = aclnn.TensorDesc((1, 2, 2, 2), "FLOAT", format="NCHW")
    nhwc = aclnn.TensorDesc((1, 2, 2, 2), "FLOAT", format="NHWC")
    assert failure(**args(gradOutput=nchw, self=nhwc, out=nchw)) is None


@pytest.mark.parametrize("dtype", ["FLOAT", "FLOAT16", "BFLOAT16"])
def test_run_matches_torch_including_the_bounds(dtype):
    cast = {"FLOAT": np.float32, "FLOAT16": np.float16, "BFLOAT16": ml_dtypes.bfloat16}[dtype]
    tdtype = {"FLOAT": torch.float32, "FLOAT16": torch.float16, "BFLOAT16": torch.bfloat16}[dtype]
    x = np.array([-2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, np.nan], np.float32).reshape(2, 4).astype(cast)
    g = np.arange(1, 9, dtype=np.float32).reshape(2, 4).astype(cast)
    tg = torch.from_numpy(g.astype(np.float32)).to(tdtype)
    tx = torch.from_numpy(x.astype(np.float32)).to(tdtype)
    want = torch.ops.aten.hardtanh_backward(tg, tx, -1.0, 1.0).float().numpy()
    got = aclnn.run("HardtanhBackward", product="910b", gradOutput=g, self=x, min=-1.0, max=1.0)["out"]
    assert got.dtype == g.dtype
    np.testing.assert_array_equal(got.astype(np.float32), want)
    assert want[0, 1] == 0 and want[1, 1] == 0  # x == min and x == max are zeroed
    assert want[1, 3] == 8  # NaN keeps the gradient
