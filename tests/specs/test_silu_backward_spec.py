"""Content tests for specs/silu_backward.yaml (aclnnSiluBackward), written from the op_api code."""

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
spec = project.op("aclnnSiluBackward").spec

# CheckParams of aclnn_silu_backward.cpp: nulls; the three dtypes in one list; equal dtypes (950: mixed
# precision with a FLOAT gradInput); BF16 only on DAV_2201/950; ranks <= 8; equal shapes (950: broadcast).
CODE_ORDER = [
    "null-pointers",
    "dtype-supported",
    "dtype-same",
    "bf16-product",
    "max-rank",
    "shape-same",
    "broadcastable",
    "out-shape",
    "product-supported",
]


def args(go="FLOAT", x="FLOAT", go_shape=(2, 3), x_shape=(2, 3), **over):
    values = dict(gradOutput=aclnn.TensorDesc(go_shape, go), self=aclnn.TensorDesc(x_shape, x))
    values.update(over)
    return values


def out(shape=(2, 3), dtype="FLOAT"):
    return aclnn.TensorDesc(shape, dtype)


def failure(product="910b", **kwargs):
    return verdict("SiluBackward", product, **kwargs)


def test_check_order_follows_code():
    assert [c.id for c in spec.checks] == CODE_ORDER


@pytest.mark.parametrize("name", ["gradOutput", "self", "gradInput"])
def test_every_pointer_is_checked(name):
    assert failure(**args(**{"gradInput": out(), name: None})) == ("null-pointers", 161001)


def test_mixed_precision_only_on_950():
    mixed = args("FLOAT16", "BFLOAT16", gradInput=out())
    assert failure("950", **mixed) is None
    assert failure("950", **args("FLOAT16", "BFLOAT16", gradInput=out(dtype="FLOAT16"))) == ("dtype-same", 161002)
    for product in ("910_93", "910b", "910"):
        assert failure(product, **mixed) == ("dtype-same", 161002)
    # same input dtypes: gradInput must match them, on 950 too
    assert failure("950", **args("FLOAT16", "FLOAT16", gradInput=out())) == ("dtype-same", 161002)


def test_bf16_after_the_equal_dtype_rule():
    bf16 = args("BFLOAT16", "BFLOAT16", gradInput=out(dtype="BFLOAT16"))
    for product in ("950", "910_93", "910b"):
        assert failure(product, **bf16) is None
    for product in ("910", "310p", "310b"):
        assert failure(product, **bf16) == ("bf16-product", 161002)
    # a BF16 gradInput with FLOAT inputs fails the equal-dtype rule first
    assert failure("910", **args(gradInput=out(dtype="BFLOAT16"))) == ("dtype-same", 161002)
    assert failure("910", **args(gradInput=out(dtype="DOUBLE"))) == ("dtype-supported", 161002)


def test_shapes_equal_except_on_950():
    bcast = args(go_shape=(4, 1, 3), x_shape=(2, 1), gradInput=out((4, 2, 3)))
    assert failure("950", **bcast) is None
    for product in ("910_93", "910b", "910"):
        assert failure(product, **bcast) == ("shape-same", 161002)
    assert failure("910b", **args(gradInput=out((3, 2)))) == ("shape-same", 161002)
    assert failure("950", **args(x_shape=(3, 3), gradInput=out((3, 3)))) == ("broadcastable", 161002)
    assert failure("950", **args(x_shape=(3,), gradInput=out((1, 2, 3)))) == ("out-shape", 161002)
    nine = (1,) * 7 + (2, 3)
    assert failure("950", **args(go_shape=nine, gradInput=out(nine))) == ("max-rank", 161002)


def test_unsupported_products_fail_when_the_kernel_is_added():
    assert failure("310p", **args()) == ("product-supported", 561103)
    assert failure("310b", **args("FLOAT16", "FLOAT16")) == ("product-supported", 561103)
    assert failure("310p", **args(x_shape=(3, 2))) == ("shape-same", 161002)
    assert failure("310p", **args(go_shape=(0, 3), x_shape=(0, 3))) is None


def test_empty_tensors_pass_after_every_check():
    assert failure(**args(go_shape=(0, 3), x_shape=(0, 3))) is None
    assert failure(**args(go_shape=(0, 3), x_shape=(0, 3), gradInput=out((2, 3)))) == ("shape-same", 161002)


def _t(a):
    if a.dtype == ml_dtypes.bfloat16:
        return torch.from_numpy(a.astype(np.float32)).to(torch.bfloat16)
    return torch.from_numpy(a)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, ml_dtypes.bfloat16])
def test_run_matches_torch(dtype):
    rng = np.random.default_rng(11)
    x = rng.uniform(-6, 6, (3, 5)).astype(dtype)
    g = rng.uniform(-2, 2, (3, 5)).astype(dtype)
    got = aclnn.run("SiluBackward", product="910b", gradOutput=g, self=x)["gradInput"]
    assert got.dtype == np.dtype(dtype)
    want = torch.ops.aten.silu_backward(_t(g).float(), _t(x).float()).to(_t(x).dtype).float().numpy()
    tol = {np.float32: 1e-6, np.float16: 1e-3, ml_dtypes.bfloat16: 1e-2}[dtype]
    np.testing.assert_allclose(got.astype(np.float32), want, rtol=tol, atol=tol)


def test_run_950_mixed_precision_broadcast_gives_float():
    rng = np.random.default_rng(12)
    x = rng.uniform(-4, 4, (2, 1, 4)).astype(ml_dtypes.bfloat16)
    g = rng.uniform(-2, 2, (3, 4)).astype(np.float16)
    got = aclnn.run("SiluBackward", product="950", gradOutput=g, self=x)["gradInput"]
    assert got.shape == (2, 3, 4) and got.dtype == np.float32
    tg, tx = torch.broadcast_tensors(_t(g).float(), _t(x).float())
    want = torch.ops.aten.silu_backward(tg, tx).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
