"""Content tests for specs/softmax_backward.yaml (aclnnSoftmaxBackward), written from the op_api code."""

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
spec = project.op("aclnnSoftmaxBackward").spec

# CheckParams of aclnn_softmax_backward.cpp: nulls; (not 950: an empty tensor returns here); BF16 gradOutput
# only on ASCEND910B..ASCEND910E; list; equal dtypes; dim range; rank <= 8; equal shapes incl. out.
CODE_ORDER = [
    "null-pointers",
    "bf16-product",
    "dtype-supported",
    "dtype-same",
    "dim-range",
    "max-rank",
    "shape-same",
    "product-supported",
]


def args(dtype="FLOAT", shape=(2, 3), y_shape=None, dim=-1, **over):
    values = dict(gradOutput=aclnn.TensorDesc(shape, dtype), output=aclnn.TensorDesc(y_shape or shape, dtype), dim=dim)
    values.update(over)
    return values


def failure(product="910b", **kwargs):
    return verdict("SoftmaxBackward", product, **kwargs)


def test_check_order_follows_code():
    assert [c.id for c in spec.checks] == CODE_ORDER


@pytest.mark.parametrize("name", ["gradOutput", "output", "out"])
def test_every_pointer_is_checked(name):
    out = aclnn.TensorDesc((2, 3), "FLOAT")
    assert failure(**args(**{"out": out, name: None})) == ("null-pointers", 161001)


def test_bf16_grad_output_before_the_list():
    for product in ("950", "910_93", "910b"):
        assert failure(product, **args("BFLOAT16")) is None
    for product in ("310b", "310p", "910"):
        assert failure(product, **args("BFLOAT16")) == ("bf16-product", 161002)
        # a BF16 output passes the list and fails the equal-dtype rule
        assert failure(product, **args(output=aclnn.TensorDesc((2, 3), "BFLOAT16"))) == ("dtype-same", 161002)
    assert failure(**args("DOUBLE")) == ("dtype-supported", 161002)


def test_out_dtype_is_not_checked():
    for dtype in ("DOUBLE", "INT32", "BOOL", "COMPLEX64"):
        assert failure(**args(out=aclnn.TensorDesc((2, 3), dtype))) is None, dtype


def test_dim_range_then_rank_then_shapes():
    for dim in (-2, -1, 0, 1):
        assert failure(**args(dim=dim)) is None
    for dim in (-3, 2, 100):
        assert failure(**args(dim=dim)) == ("dim-range", 161002)
    assert failure(**args(shape=(), dim=0)) is None and failure(**args(shape=(), dim=-1)) is None
    assert failure(**args(shape=(), dim=1)) == ("dim-range", 161002)
    nine = (1,) * 9
    assert failure(**args(shape=nine, dim=9)) == ("dim-range", 161002)
    assert failure(**args(shape=nine)) == ("max-rank", 161002)
    assert failure(**args(y_shape=(3, 2))) == ("shape-same", 161002)
    assert failure(**args(out=aclnn.TensorDesc((1, 3), "FLOAT"))) == ("shape-same", 161002)  # no broadcasting


@pytest.mark.parametrize("product", ["910_93", "910b", "310p", "910", "310b"])
def test_empty_tensors_skip_every_check_but_nulls_off_950(product):
    bad = args("DOUBLE", shape=(0, 3), y_shape=(5,), dim=7, out=aclnn.TensorDesc((9,), "FLOAT"))
    assert failure(product, **bad) is None
    assert failure(product, **args(y_shape=(0,), dim=7)) is None  # only output empty


def test_empty_tensors_run_every_check_on_950():
    assert failure("950", **args(shape=(0, 3))) is None
    assert failure("950", **args(shape=(0, 3), dim=2)) == ("dim-range", 161002)
    assert failure("950", **args("DOUBLE", shape=(0, 3))) == ("dtype-supported", 161002)
    assert failure("950", **args(shape=(0, 3), y_shape=(5,))) == ("shape-same", 161002)


def test_310b_is_not_rejected_by_the_first_phase():
    assert "310b" not in spec.products
    assert failure("310b", **args()) is None


def _t(a):
    if a.dtype == ml_dtypes.bfloat16:
        return torch.from_numpy(a.astype(np.float32)).to(torch.bfloat16)
    return torch.from_numpy(a)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, ml_dtypes.bfloat16])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_run_matches_torch(dtype, dim):
    rng = np.random.default_rng(17)
    y = torch.softmax(torch.from_numpy(rng.normal(size=(3, 4, 5)).astype(np.float32)), dim).numpy().astype(dtype)
    g = rng.normal(size=(3, 4, 5)).astype(dtype)
    got = aclnn.run("SoftmaxBackward", product="910b", gradOutput=g, output=y, dim=dim)["out"]
    assert got.dtype == np.dtype(dtype)
    tg, ty = _t(g).float(), _t(y).float()
    want = torch.ops.aten._softmax_backward_data(tg, ty, dim, torch.float32).to(_t(g).dtype).float().numpy()
    tol = {np.float32: 1e-5, np.float16: 2e-3, ml_dtypes.bfloat16: 2e-2}[dtype]
    np.testing.assert_allclose(got.astype(np.float32), want, rtol=tol, atol=tol)


def test_run_an_accepted_empty_call():
    got = aclnn.run(
        "SoftmaxBackward",
        product="910b",
        gradOutput=np.zeros((0, 3), np.float32),
        output=np.zeros((0, 3), np.float32),
        dim=5,
    )["out"]
    assert got.shape == (0, 3)
