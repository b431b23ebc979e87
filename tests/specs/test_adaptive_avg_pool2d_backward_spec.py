"""Behaviour of specs/adaptive_avg_pool2d_backward.yaml, written from aclnn_adaptive_avg_pool2d_backward.cpp.

CheckParams: nulls (gradOutput, self, out), ranks (gradOutput == self; out 3-D/4-D and == self), the leading
N/C dimensions (out, then gradOutput, against self), dtypes (list by SocVersion: 910B..910E incl. 950 take
BFLOAT16), gradOutput == self, formats (equal, gradOutput not private); then the empty-tensor return. The
561103 checks model failures while the computation is built (unverified on a device).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import aclnn
from generator.loader import load_project
from tests.specs.verdicts import verdict

project = load_project(Path(__file__).resolve().parents[2] / "specs")
spec = project.op("aclnnAdaptiveAvgPool2dBackward").spec

OP = "AdaptiveAvgPool2dBackward"
ALL = ["950", "910_93", "910b", "310b", "310p", "910"]
BF16_PRODUCTS = ["950", "910_93", "910b"]
CODE_ORDER = [
    "null-pointers",
    "rank-same",
    "rank",
    "out-rank-same",
    "out-nc",
    "grad-output-nc",
    "dtype-supported",
    "dtype-same",
    "format-same",
    "format-not-private",
    "format-supported",
    "out-shape",
    "out-numel",
    "out-dtype",
    "out-dtype-cast",
    "product-supported",
]


def t(shape, dtype="FLOAT", fmt=None):
    fmt = fmt or {3: "NCL", 4: "NCHW"}.get(len(shape), "ND")
    return aclnn.TensorDesc(shape, dtype, fmt)


def args(grad=(2, 3, 2, 2), x=(2, 3, 5, 4), dtype="FLOAT", **over):
    values = dict(gradOutput=t(grad, dtype), self=t(x, dtype))
    values.update(over)
    return values


def failure(product="910b", **kwargs):
    return verdict(OP, product, **kwargs)


def test_check_order_follows_code():
    assert [c.id for c in spec.checks] == CODE_ORDER
    assert spec.products == ["950", "910_93", "910b", "310p", "910"]


def test_null_pointers_include_out():
    for name in ("gradOutput", "self", "out"):
        assert failure(**args(**{name: None})) == ("null-pointers", 161001), name


@pytest.mark.parametrize("product", ALL)
def test_dtype_list_follows_soc_version(product):
    """910B, 910_93 and 950 lie in [ASCEND910B, ASCEND910E] and take BFLOAT16; the others do not."""
    for dtype in ("FLOAT", "FLOAT16"):
        assert failure(product, **args(dtype=dtype)) in (None, ("product-supported", 561103))
    bf16 = failure(product, **args(dtype="BFLOAT16"))
    if product in BF16_PRODUCTS:
        assert bf16 is None
    else:
        assert bf16 == ("dtype-supported", 161002)
    for dtype in ("DOUBLE", "INT32", "INT8", "BOOL"):
        assert failure(product, **args(dtype=dtype)) == ("dtype-supported", 161002)


def test_grad_output_checked_against_the_list_before_equality():
    # gradOutput BFLOAT16 on 910 fails the list even though self is FLOAT
    assert failure("910", **args(gradOutput=t((2, 3, 2, 2), "BFLOAT16"))) == ("dtype-supported", 161002)
    # a listed but different dtype fails the equality check
    assert failure(**args(gradOutput=t((2, 3, 2, 2), "FLOAT16"))) == ("dtype-same", 161002)


def test_ranks_come_before_dtypes():
    """A wrong rank is reported even with an unsupported dtype: the rank checks run first."""
    assert failure(**args(grad=(3, 2, 2), dtype="INT32")) == ("rank-same", 161002)
    assert failure(**args(grad=(1, 2, 3, 2, 2), x=(1, 2, 3, 5, 4))) == ("rank", 161002)
    assert failure(**args(grad=(2, 2), x=(5, 4))) == ("rank", 161002)
    assert failure(**args(out=t((3, 5, 4)))) == ("out-rank-same", 161002)
    # 3-D (C, H, W) works
    assert failure(**args(grad=(3, 2, 2), x=(3, 5, 4))) is None


def test_leading_dims_must_match_but_not_h_w():
    assert failure(**args(grad=(2, 4, 2, 2))) == ("grad-output-nc", 161002)
    assert failure(**args(grad=(1, 3, 2, 2))) == ("grad-output-nc", 161002)
    assert failure(**args(grad=(4, 2, 2), x=(3, 5, 4))) == ("grad-output-nc", 161002)
    assert failure(**args(out=t((2, 4, 5, 4)))) == ("out-nc", 161002)
    # out is compared before gradOutput (same code)
    assert failure(**args(grad=(2, 4, 2, 2), out=t((2, 4, 5, 4)))) == ("out-nc", 161002)
    # the pooled size is free: smaller, equal, larger than the input
    for hw in ((1, 1), (5, 4), (9, 11), (1, 7)):
        assert failure(**args(grad=(2, 3) + hw)) is None, hw


def test_formats_equal_and_public():
    assert failure(**args(gradOutput=t((2, 3, 2, 2), fmt="ND"))) == ("format-same", 161002)
    for fmt in ("ND", "NCHW", "NHWC", "HWCN"):
        assert failure(**args(gradOutput=t((2, 3, 2, 2), fmt=fmt), self=t((2, 3, 5, 4), fmt=fmt))) is None, fmt
    private = args(gradOutput=t((2, 3, 2, 2), fmt="NC1HWC0"), self=t((2, 3, 5, 4), fmt="NC1HWC0"))
    assert failure(**private) == ("format-not-private", 161002)
    # out's format is never compared
    assert failure(**args(out=t((2, 3, 5, 4), fmt="NHWC"))) is None


def test_empty_inputs_return_success_after_the_checks():
    assert failure(**args(grad=(0, 3, 2, 2), x=(0, 3, 5, 4))) is None
    assert failure(**args(grad=(2, 3, 0, 2))) is None  # empty gradOutput alone is enough
    assert failure(**args(x=(2, 3, 0, 4))) is None
    # ... and skips the checks that can only fail while the computation is built
    assert failure(**args(grad=(2, 3, 0, 2), out=t((2, 3, 4, 5)))) is None
    assert failure("310b", **args(x=(2, 3, 0, 4))) is None
    # parameter checks still run on empty tensors
    assert failure(**args(grad=(0, 3, 2, 2), x=(2, 3, 5, 4))) == ("grad-output-nc", 161002)


def test_out_shape_and_dtype_fail_deep():
    assert failure("910", **args(out=t((2, 3, 4, 5)))) == ("out-shape", 561103)
    # A2/A3 reshape the result to out's shape first: only another element count fails there
    assert failure(**args(out=t((2, 3, 4, 5)))) is None
    assert failure(**args(out=t((2, 3, 4, 4)))) == ("out-numel", 561103)
    assert failure(**args(out=t((2, 3, 5, 4), "FLOAT16"))) == ("out-dtype", 561103)
    # the global path casts to out's dtype with the l0 Cast (AI CPU fallback: integers and BOOL too)
    for dtype in ("FLOAT16", "BFLOAT16", "DOUBLE", "COMPLEX64", "INT32", "BOOL"):
        assert failure(**args(grad=(2, 3, 1, 1), out=t((2, 3, 5, 4), dtype))) is None, dtype
    for dtype in ("STRING", "HIFLOAT8"):
        assert failure(**args(grad=(2, 3, 1, 1), out=t((2, 3, 5, 4), dtype))) == ("out-dtype-cast", 561103), dtype


def test_310b_runs_every_check_then_fails_deep():
    assert "310b" not in spec.products
    assert failure("310b", **args(dtype="BFLOAT16")) == ("dtype-supported", 161002)
    assert failure("310b", **args(grad=(2, 4, 2, 2))) == ("grad-output-nc", 161002)
    assert failure("310b", **args()) == ("product-supported", 561103)


def _torch_backward(g, x):
    torch = pytest.importorskip("torch")
    return torch.ops.aten._adaptive_avg_pool2d_backward(torch.from_numpy(g), torch.from_numpy(x)).numpy()


@pytest.mark.parametrize("product", ["910b", "910", "950"])
@pytest.mark.parametrize("shape, out", [((2, 3, 7, 5), (3, 2)), ((4, 6, 6), (4, 9)), ((1, 2, 10, 10), (1, 1))])
def test_run_matches_torch(product, shape, out):
    rng = np.random.default_rng(7)
    x = rng.standard_normal(shape).astype(np.float32)
    g = rng.standard_normal(shape[:-2] + out).astype(np.float32)
    got = aclnn.run(OP, product=product, gradOutput=g, self=x)["out"]
    np.testing.assert_allclose(got, _torch_backward(g, x), rtol=1e-5, atol=1e-6)


def test_example_matches_torch():
    ex = spec.example
    g = np.array(ex.inputs["gradOutput"].data, np.float32).reshape(ex.inputs["gradOutput"].shape)
    x = np.array(ex.inputs["self"].data, np.float32).reshape(ex.inputs["self"].shape)
    np.testing.assert_allclose(ex.expected["out"].data, _torch_backward(g, x).reshape(-1), rtol=1e-6)


def test_half_types_run():
    x = np.zeros((2, 4, 6), np.float16)
    g = np.ones((2, 2, 3), np.float16)
    got = aclnn.adaptive_avg_pool2d_backward(g, x, product="910")
    assert got.dtype == np.float16 and np.allclose(got, 0.25)
    with pytest.raises(aclnn.AclnnError) as err:
        aclnn.run(OP, product="910", gradOutput=g.astype(np.float32), self=x)
    assert err.value.check == "dtype-same"
