"""Content tests for specs/gelu_backward.yaml (aclnnGeluBackward), written from the op_api code."""

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
spec = project.op("aclnnGeluBackward").spec

# CheckParams of aclnn_gelu_backward.cpp: nulls; gradOutput and self promote, to FLOAT/FLOAT16/BF16 (one
# list for every product; gradInput is never looked at); both ranks <= 8; the shapes broadcast to gradInput's.
CODE_ORDER = [
    "null-pointers",
    "dtype-promotable",
    "dtype-supported",
    "result-castable",
    "max-rank",
    "broadcastable",
    "out-shape",
    "product-supported",
]
PRODUCTS = ("950", "910_93", "910b", "310b", "310p", "910")


def args(go="FLOAT", x="FLOAT", go_shape=(4, 2), x_shape=(4, 2), **over):
    values = dict(gradOutput=aclnn.TensorDesc(go_shape, go), self=aclnn.TensorDesc(x_shape, x))
    values.update(over)
    return values


def failure(product="910b", **kwargs):
    return verdict("GeluBackward", product, **kwargs)


def test_check_order_follows_code():
    assert [c.id for c in spec.checks] == CODE_ORDER
    enforced = {c.id: c.enforced for c in spec.checks}
    assert not enforced["result-castable"] and not enforced["product-supported"]


@pytest.mark.parametrize("name", ["gradOutput", "self", "gradInput"])
def test_every_pointer_is_checked(name):
    out = aclnn.TensorDesc((4, 2), "FLOAT")
    assert failure(**args(**{"gradInput": out, name: None})) == ("null-pointers", 161001)


@pytest.mark.parametrize("product", PRODUCTS)
def test_one_dtype_list_on_every_product(product):
    # BFLOAT16 passes the first phase on 910/310P too (the doc says FLOAT, FLOAT16 there), and 310b is not rejected
    for dtype in ("FLOAT", "FLOAT16", "BFLOAT16"):
        assert failure(product, **args(dtype, dtype)) is None, dtype
    assert failure(product, **args("DOUBLE", "DOUBLE")) == ("dtype-supported", 161002)


def test_only_the_promoted_dtype_is_checked():
    assert failure(**args("INT32", "FLOAT")) is None  # the doc's own sample
    assert failure(**args("BOOL", "FLOAT16")) is None
    assert failure(**args("FLOAT16", "BFLOAT16")) is None  # promotes to FLOAT
    assert failure(**args("INT32", "INT32")) == ("dtype-supported", 161002)
    assert failure(**args("INT8", "UINT8")) == ("dtype-supported", 161002)  # INT16
    assert failure(**args("FLOAT", "COMPLEX64")) == ("dtype-supported", 161002)
    assert failure(**args("UINT32", "FLOAT")) == ("dtype-promotable", 161002)


def test_grad_input_dtype_is_never_checked():
    for dtype in ("INT32", "FLOAT16", "BOOL", "COMPLEX64", "DOUBLE"):
        assert failure(**args(gradInput=aclnn.TensorDesc((4, 2), dtype))) is None, dtype


def test_dtypes_before_ranks_before_shapes():
    nine = (1,) * 9
    assert failure(**args("DOUBLE", go_shape=(3, 3))) == ("dtype-supported", 161002)
    assert failure(**args(x_shape=nine, gradInput=aclnn.TensorDesc((3,), "FLOAT"))) == ("max-rank", 161002)
    assert failure(**args(go_shape=(3, 2), gradInput=aclnn.TensorDesc((3,), "FLOAT"))) == ("broadcastable", 161002)


def test_broadcasting():
    assert failure(**args(go_shape=(2,), x_shape=(3, 1))) is None  # gradInput inferred as (3, 2)
    assert failure(**args(go_shape=(2,), x_shape=(3, 1), gradInput=aclnn.TensorDesc((3, 2), "FLOAT"))) is None
    assert failure(**args(go_shape=(2,), x_shape=(3, 1), gradInput=aclnn.TensorDesc((2,), "FLOAT"))) == (
        "out-shape",
        161002,
    )
    assert failure(**args(go_shape=(), x_shape=(5,), gradInput=aclnn.TensorDesc((5,), "FLOAT"))) is None
    assert failure(**args(go_shape=(2, 3), x_shape=(3, 2))) == ("broadcastable", 161002)


def test_empty_tensors_pass_after_every_check():
    assert failure(**args(go_shape=(0, 2), x_shape=(0, 2))) is None
    assert failure(**args(go_shape=(0, 2), x_shape=(1, 2))) is None
    assert failure(**args(go_shape=(0, 2), x_shape=(3, 2))) == ("broadcastable", 161002)
    assert failure(**args("DOUBLE", go_shape=(0, 2), x_shape=(0, 2))) == ("dtype-supported", 161002)


def _torch(a):
    if a.dtype == ml_dtypes.bfloat16:
        return torch.from_numpy(a.astype(np.float32)).to(torch.bfloat16)
    return torch.from_numpy(a)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, ml_dtypes.bfloat16])
def test_run_is_the_tanh_derivative_with_broadcasting(dtype):
    rng = np.random.default_rng(7)
    x = rng.uniform(-4, 4, (3, 1, 5)).astype(dtype)
    g = rng.uniform(-2, 2, (4, 1)).astype(dtype)
    got = aclnn.run("GeluBackward", product="910b", gradOutput=g, self=x)["gradInput"]
    assert got.shape == (3, 4, 5) and got.dtype == np.dtype(dtype)
    gx, gg = _torch(x).float(), _torch(g).float()
    gg, gx = torch.broadcast_tensors(gg, gx)
    want = torch.ops.aten.gelu_backward(gg, gx, approximate="tanh").to(_torch(x).dtype).float().numpy()
    tol = {np.float32: 1e-6, np.float16: 1e-3, ml_dtypes.bfloat16: 1e-2}[dtype]
    np.testing.assert_allclose(got.astype(np.float32), want, rtol=tol, atol=tol)


def test_run_promotes_int_grad_output():
    x = np.linspace(-3, 3, 8, dtype=np.float32).reshape(4, 2)
    g = np.full((4, 2), 2, np.int32)
    got = aclnn.run("GeluBackward", product="910", gradOutput=g, self=x)["gradInput"]
    assert got.dtype == np.float32
    want = torch.ops.aten.gelu_backward(torch.from_numpy(g).float(), torch.from_numpy(x), approximate="tanh")
    np.testing.assert_allclose(got, want.numpy(), rtol=1e-6, atol=1e-6)
