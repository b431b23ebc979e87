"""Content tests for specs/sigmoid_backward.yaml (aclnnSigmoidBackward), written from the op_api code."""

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
spec = project.op("aclnnSigmoidBackward").spec

# aclnn_sigmoid_backward.cpp: CheckParams (nulls; the three dtypes in one list; BF16 gradOutput only on
# ASCEND910B..ASCEND910E; ranks <= 8), then promotion (+ list) and cast to gradInput, then the broadcast.
CODE_ORDER = [
    "null-pointers",
    "dtype-supported",
    "bf16-product",
    "max-rank",
    "dtype-promotable",
    "result-castable",
    "broadcastable",
    "out-shape",
    "product-supported",
]
PRODUCTS = ("950", "910_93", "910b", "310b", "310p", "910")


def args(go="FLOAT", y="FLOAT", go_shape=(2, 3), y_shape=(3,), **over):
    values = dict(gradOutput=aclnn.TensorDesc(go_shape, go), output=aclnn.TensorDesc(y_shape, y))
    values.update(over)
    return values


def failure(product="910b", **kwargs):
    return verdict("SigmoidBackward", product, **kwargs)


def test_check_order_follows_code():
    assert [c.id for c in spec.checks] == CODE_ORDER


@pytest.mark.parametrize("name", ["gradOutput", "output", "gradInput"])
def test_every_pointer_is_checked(name):
    out = aclnn.TensorDesc((2, 3), "FLOAT")
    assert failure(**args(**{"gradInput": out, name: None})) == ("null-pointers", 161001)


@pytest.mark.parametrize("product", PRODUCTS)
def test_one_list_everywhere_bf16_grad_output_only_on_910b_to_950(product):
    for dtype in ("FLOAT", "FLOAT16", "DOUBLE", "COMPLEX64", "COMPLEX128"):
        assert failure(product, **args(dtype, dtype)) is None, dtype
    bf16 = failure(product, **args("BFLOAT16", "BFLOAT16"))
    assert bf16 == (None if product in ("950", "910_93", "910b") else ("bf16-product", 161002))
    assert failure(product, **args("FLOAT", "BFLOAT16")) is None  # output BF16 is not limited
    assert failure(product, **args("INT32", "FLOAT")) == ("dtype-supported", 161002)


def test_promotion_and_cast_to_grad_input():
    assert failure(**args("FLOAT16", "BFLOAT16")) is None  # -> FLOAT
    assert failure(**args("FLOAT", "COMPLEX64")) is None  # -> COMPLEX64
    c64 = dict(gradInput=aclnn.TensorDesc((2, 3), "FLOAT"))
    assert failure(**args("FLOAT", "COMPLEX64", **c64)) == ("result-castable", 161002)
    assert failure(**args("DOUBLE", "FLOAT", gradInput=aclnn.TensorDesc((2, 3), "BFLOAT16"))) is None
    assert failure(**args(gradInput=aclnn.TensorDesc((2, 3), "INT32"))) == ("dtype-supported", 161002)


def test_dtypes_are_checked_before_shapes():
    bad_shape = dict(gradInput=aclnn.TensorDesc((7,), "FLOAT"))
    assert failure(**args("FLOAT", "COMPLEX64", y_shape=(4,), **bad_shape)) == ("result-castable", 161002)
    nine = (1,) * 8 + (3,)
    assert failure(**args(y_shape=nine, gradInput=aclnn.TensorDesc((2, 3), "INT32"))) == ("dtype-supported", 161002)
    assert failure(**args(y_shape=nine, **bad_shape)) == ("max-rank", 161002)


def test_broadcasting():
    assert failure(**args(go_shape=(4, 1), y_shape=(1, 5))) is None
    assert failure(**args(y_shape=(2,), gradInput=aclnn.TensorDesc((2, 3), "FLOAT"))) == ("broadcastable", 161002)
    assert failure(**args(gradInput=aclnn.TensorDesc((1, 2, 3), "FLOAT"))) == ("out-shape", 161002)
    assert failure(**args(go_shape=(), y_shape=(), gradInput=aclnn.TensorDesc((), "FLOAT"))) is None


def test_empty_tensors_pass_after_every_check():
    assert failure(**args(go_shape=(0, 3))) is None
    assert failure(**args(go_shape=(0, 3), gradInput=aclnn.TensorDesc((3,), "FLOAT"))) == ("out-shape", 161002)


def test_310b_is_not_rejected_by_the_first_phase():
    assert "310b" not in spec.products
    assert failure("310b", **args()) is None
    assert failure("310b", **args("BFLOAT16", "FLOAT")) == ("bf16-product", 161002)


def _t(a):
    if a.dtype == ml_dtypes.bfloat16:
        return torch.from_numpy(a.astype(np.float32)).to(torch.bfloat16)
    return torch.from_numpy(a)


@pytest.mark.parametrize(
    "go,y,want_dtype",
    [
        (np.float32, np.float32, np.float32),
        (np.float16, np.float16, np.float16),
        (ml_dtypes.bfloat16, np.float16, np.float32),
        (np.float64, np.float32, np.float64),
        (np.complex64, np.float32, np.complex64),
    ],
)
def test_run_matches_torch(go, y, want_dtype):
    rng = np.random.default_rng(5)
    g = (rng.uniform(-2, 2, (3, 1, 4)) + (1j * rng.uniform(-1, 1, (3, 1, 4)) if go == np.complex64 else 0)).astype(go)
    out = (1 / (1 + np.exp(-rng.uniform(-3, 3, (2, 4))))).astype(y)
    got = aclnn.run("SigmoidBackward", product="910b", gradOutput=g, output=out)["gradInput"]
    assert got.shape == (3, 2, 4) and got.dtype == np.dtype(want_dtype)
    tg, ty = _t(g), _t(out)
    common = torch.promote_types(tg.dtype, ty.dtype)
    tg, ty = torch.broadcast_tensors(tg.to(common), ty.to(common))
    want = torch.ops.aten.sigmoid_backward(tg, ty)
    if want.dtype in (torch.float16, torch.bfloat16):
        want = want.float()
    tol = 1e-2 if want_dtype == np.float16 else 1e-6
    np.testing.assert_allclose(got.astype(np.complex128), want.numpy().astype(np.complex128), rtol=tol, atol=tol)
