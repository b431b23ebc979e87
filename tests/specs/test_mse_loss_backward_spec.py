"""Content tests for specs/mse_loss_backward.yaml (aclnnMseLossBackward), written from the op_api code."""

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
spec = project.op("aclnnMseLossBackward").spec

# CheckParams of aclnn_mse_loss_backward.cpp: nulls; equal dtypes, then self and out in the arch list;
# reduction 0..2; ranks <= 8; gradOutput x self, then target, broadcast; out shape. The missing kernel on
# 310b/910 (unverified) is the last thing that can fail.
CODE_ORDER = [
    "null-pointers",
    "dtype-same",
    "dtype-supported",
    "reduction-range",
    "max-rank",
    "broadcastable",
    "out-shape",
    "product-supported",
]


def args(dtype="FLOAT", go_shape=(1,), x_shape=(2, 2), y_shape=(2,), reduction=1, **over):
    values = dict(
        gradOutput=aclnn.TensorDesc(go_shape, dtype),
        self=aclnn.TensorDesc(x_shape, dtype),
        target=aclnn.TensorDesc(y_shape, dtype),
        reduction=reduction,
    )
    values.update(over)
    return values


def failure(product="910b", **kwargs):
    return verdict("MseLossBackward", product, **kwargs)


def test_check_order_follows_code():
    assert [c.id for c in spec.checks] == CODE_ORDER


@pytest.mark.parametrize("name", ["gradOutput", "self", "target", "out"])
def test_every_pointer_is_checked(name):
    out = aclnn.TensorDesc((2, 2), "FLOAT")
    assert failure(**args(**{"out": out, name: None})) == ("null-pointers", 161001)


def test_equal_dtypes_before_the_list():
    assert failure(**args("DOUBLE", target=aclnn.TensorDesc((2,), "FLOAT"))) == ("dtype-same", 161002)
    assert failure(**args("DOUBLE")) == ("dtype-supported", 161002)
    assert failure(**args(out=aclnn.TensorDesc((2, 2), "FLOAT16"))) is None  # out need not match self
    assert failure(**args(out=aclnn.TensorDesc((2, 2), "DOUBLE"))) == ("dtype-supported", 161002)


def test_bf16_only_on_dav_2201_and_950():
    for product in ("950", "910_93", "910b"):
        assert failure(product, **args("BFLOAT16")) is None
    for product in ("310p", "310b", "910"):
        assert failure(product, **args("BFLOAT16")) == ("dtype-supported", 161002)


def test_reduction_range():
    for reduction in (0, 1, 2):
        assert failure(**args(reduction=reduction)) is None
    for reduction in (-1, 3, 2**40):
        assert failure(**args(reduction=reduction)) == ("reduction-range", 161002)


def test_broadcasting_of_the_three_shapes():
    assert failure(**args(go_shape=(3, 1, 1), x_shape=(2, 1), y_shape=(5,))) is None  # out (3, 2, 5)
    assert failure(**args(go_shape=(), x_shape=(), y_shape=())) is None
    assert failure(**args(y_shape=(3,), out=aclnn.TensorDesc((2, 2), "FLOAT"))) == ("broadcastable", 161002)
    assert failure(**args(go_shape=(3,), out=aclnn.TensorDesc((2, 2), "FLOAT"))) == ("broadcastable", 161002)
    assert failure(**args(out=aclnn.TensorDesc((1, 2, 2), "FLOAT"))) == ("out-shape", 161002)
    nine = (1,) * 7 + (2, 2)
    assert failure(**args(go_shape=nine, out=aclnn.TensorDesc((2, 2), "FLOAT"))) == ("max-rank", 161002)


def test_unsupported_products_fail_when_the_kernel_is_added():
    for product in ("310b", "910"):
        assert failure(product, **args()) == ("product-supported", 561103)
        assert failure(product, **args(reduction=5)) == ("reduction-range", 161002)
        assert failure(product, **args(x_shape=(0, 2), out=aclnn.TensorDesc((0, 2), "FLOAT"))) is None


def test_empty_tensors_pass_after_every_check():
    assert failure(**args(y_shape=(0, 1, 2))) is None  # out inferred as (0, 2, 2)
    assert failure(**args(y_shape=(0, 1, 2), out=aclnn.TensorDesc((2, 2), "FLOAT"))) == ("out-shape", 161002)
    assert failure(**args(y_shape=(0, 2), out=aclnn.TensorDesc((0, 2), "FLOAT"))) == ("broadcastable", 161002)
    assert failure(**args("DOUBLE", x_shape=(0, 2), out=aclnn.TensorDesc((0, 2), "DOUBLE"))) == (
        "dtype-supported",
        161002,
    )


def _t(a):
    if a.dtype == ml_dtypes.bfloat16:
        return torch.from_numpy(a.astype(np.float32)).to(torch.bfloat16)
    return torch.from_numpy(a)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, ml_dtypes.bfloat16])
@pytest.mark.parametrize("reduction", [0, 1, 2])
def test_run_matches_torch(dtype, reduction):
    rng = np.random.default_rng(19)
    x = rng.normal(size=(3, 4)).astype(dtype)
    y = rng.normal(size=(4,)).astype(dtype)
    g = (rng.normal(size=(3, 4)) if reduction == 0 else rng.normal(size=(1,))).astype(dtype)
    got = aclnn.run("MseLossBackward", product="910b", gradOutput=g, self=x, target=y, reduction=reduction)["out"]
    assert got.shape == (3, 4) and got.dtype == np.dtype(dtype)
    tg, tx, ty = torch.broadcast_tensors(_t(g).float(), _t(x).float(), _t(y).float())
    want = torch.ops.aten.mse_loss_backward(tg, tx, ty, reduction).to(_t(x).dtype).float().numpy()
    tol = {np.float32: 1e-6, np.float16: 1e-3, ml_dtypes.bfloat16: 1e-2}[dtype]
    np.testing.assert_allclose(got.astype(np.float32), want, rtol=tol, atol=tol)
