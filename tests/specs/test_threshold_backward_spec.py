"""Content tests for specs/threshold_backward.yaml (aclnnThresholdBackward), written from the op_api code."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

import aclnn
from generator.loader import load_project
from tests.specs.verdicts import verdict

project = load_project(Path(__file__).resolve().parents[2] / "specs")
spec = project.op("aclnnThresholdBackward").spec

# aclnnThresholdBackwardGetWorkspaceSize: threshold and out nulls, then CheckParams (gradOutput/self nulls,
# arch list (INT64 on 950 with a zero threshold), equal dtypes incl. out, ranks <= 8), broadcast, out shape.
CODE_ORDER = [
    "null-pointers",
    "dtype-supported",
    "dtype-same",
    "max-rank",
    "broadcastable",
    "out-shape",
    "product-supported",
]
FLT_EPSILON = float(np.finfo(np.float32).eps)


def args(dtype="FLOAT", go_shape=(2, 2), x_shape=(2, 2), threshold=1.0, **over):
    values = dict(
        gradOutput=aclnn.TensorDesc(go_shape, dtype), self=aclnn.TensorDesc(x_shape, dtype), threshold=threshold
    )
    values.update(over)
    return values


def failure(product="910b", **kwargs):
    return verdict("ThresholdBackward", product, **kwargs)


def test_check_order_follows_code():
    assert [c.id for c in spec.checks] == CODE_ORDER


@pytest.mark.parametrize("name", ["gradOutput", "self", "threshold", "out"])
def test_every_pointer_is_checked(name):
    out = aclnn.TensorDesc((2, 2), "FLOAT")
    assert failure(**args(**{"out": out, name: None})) == ("null-pointers", 161001)


def test_arch_dtype_lists():
    for product in ("950", "910_93", "910b", "310b", "310p", "910"):
        for dtype in ("FLOAT", "FLOAT16", "INT32", "INT8", "UINT8"):
            assert failure(product, **args(dtype)) is None, (product, dtype)
        bf16 = failure(product, **args("BFLOAT16"))
        assert bf16 == (None if product in ("950", "910_93", "910b") else ("dtype-supported", 161002))
        assert failure(product, **args("DOUBLE")) == ("dtype-supported", 161002)


def test_int64_only_on_950_with_a_zero_threshold():
    assert failure("950", **args("INT64", threshold=0.0)) is None
    assert failure("950", **args("INT64", threshold=aclnn.Scalar(0, "INT64"))) is None
    assert failure("950", **args("INT64", threshold=FLT_EPSILON)) is None  # |t| <= FLT_EPSILON counts as 0
    assert failure("950", **args("INT64", threshold=-FLT_EPSILON)) is None
    assert failure("950", **args("INT64", threshold=2 * FLT_EPSILON)) == ("dtype-supported", 161002)
    assert failure("950", **args("INT64", threshold=1.0)) == ("dtype-supported", 161002)
    assert failure("910b", **args("INT64", threshold=0.0)) == ("dtype-supported", 161002)


def test_out_dtype_must_equal_self():
    assert failure(**args(out=aclnn.TensorDesc((2, 2), "FLOAT16"))) == ("dtype-same", 161002)
    assert failure(**args(gradOutput=aclnn.TensorDesc((2, 2), "INT32"))) == ("dtype-same", 161002)
    # the list comes first
    assert failure(**args(gradOutput=aclnn.TensorDesc((2, 2), "DOUBLE"))) == ("dtype-supported", 161002)


def test_scalar_dtype_is_not_checked():
    for scalar in (aclnn.Scalar(1, "INT64"), aclnn.Scalar(1.0, "DOUBLE"), aclnn.Scalar(True, "BOOL")):
        assert failure(**args(threshold=scalar)) is None


def test_shapes_broadcast_to_out():
    assert failure(**args(go_shape=(3, 1), x_shape=(1, 4))) is None
    assert failure(**args(x_shape=(3,), out=aclnn.TensorDesc((2, 2), "FLOAT"))) == ("broadcastable", 161002)
    assert failure(**args(out=aclnn.TensorDesc((4,), "FLOAT"))) == ("out-shape", 161002)
    nine = (1,) * 7 + (2, 2)
    assert failure(**args(go_shape=nine, out=aclnn.TensorDesc((2, 2), "FLOAT"))) == ("max-rank", 161002)


def test_empty_tensors_pass_after_every_check():
    assert failure(**args(go_shape=(0, 2), x_shape=(0, 2))) is None
    assert failure(**args(go_shape=(0, 2), x_shape=(2,))) is None
    assert failure(**args("DOUBLE", go_shape=(0, 2), x_shape=(0, 2))) == ("dtype-supported", 161002)


def test_310b_is_not_rejected_by_the_first_phase():
    assert "310b" not in spec.products
    assert failure("310b", **args()) is None


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32, np.int8, np.uint8])
def test_run_matches_torch(dtype):
    rng = np.random.default_rng(13)
    x = rng.integers(-3, 4, (3, 1, 4)).astype(dtype) if np.dtype(dtype).kind in "iu" else None
    if x is None:
        x = rng.uniform(-3, 3, (3, 1, 4)).astype(dtype)
        x[0, 0, 0] = 1.0
    g = rng.integers(0, 9, (2, 4)).astype(dtype)
    got = aclnn.run("ThresholdBackward", product="910b", gradOutput=g, self=x, threshold=1.0)["out"]
    assert got.shape == (3, 2, 4) and got.dtype == np.dtype(dtype)
    tg, tx = torch.broadcast_tensors(torch.from_numpy(g), torch.from_numpy(x))
    want = torch.ops.aten.threshold_backward(tg, tx, 1).numpy()
    np.testing.assert_array_equal(got, want)
