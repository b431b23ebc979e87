"""Behaviour of specs/avg_pool2d_backward.yaml, written from aclnn_avgpool2d_backward.cpp.

CheckParams: nulls (stride may be null), dtype lists (gradOutput, self, gradInput each; A2/A3 and 950 take
BFLOAT16), gradOutput == gradInput dtype, formats NCHW/NCL (NCHW for gradOutput and gradInput when 4-D),
ranks, attribute lengths and values, padding <= kernel/2, cubeMathType 0-3, self shape == gradInput shape;
then the empty return. After it, per product path: the global-average branch, the 910/310P divisor range
and FLOAT32 cube, negative paddings, and the 310B kernels (unverified).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import aclnn
from generator.loader import load_project
from tests.specs.verdicts import verdict

project = load_project(Path(__file__).resolve().parents[2] / "specs")
spec = project.op("aclnnAvgPool2dBackward").spec

OP = "AvgPool2dBackward"
F16 = np.dtype(np.float16)
CODE_ORDER = [
    "null-pointers",
    "dtype-supported",
    "dtype-same",
    "self-grad-input-same",
    "format-supported",
    "format-4d-nchw",
    "rank",
    "kernel-size-length",
    "kernel-size-positive",
    "stride-length",
    "stride-positive",
    "padding-length",
    "padding-range",
    "cube-math-type",
    "self-shape",
    "divisor-range",
    "padding-non-negative-950",
    "padding-non-negative",
    "cube-fp32",
    "product-supported",
    "product-supported-global",
]


def t(shape, dtype="FLOAT", fmt=None):
    return aclnn.TensorDesc(shape, dtype, fmt or ("NCL" if len(shape) == 3 else "NCHW"))


def args(grad=(2, 3, 4, 4), x=(2, 3, 8, 8), dtype="FLOAT", **over):
    values = dict(
        gradOutput=t(grad, dtype),
        self=t(x, dtype),
        kernelSize=[2],
        stride=[2],
        padding=[0],
        ceilMode=False,
        countIncludePad=True,
        divisorOverride=0,
        cubeMathType=1,
    )
    values.update(over)
    return values


GLOBAL = dict(grad=(2, 3, 1, 1), x=(2, 3, 12, 10), kernelSize=[12, 10], stride=[12, 10])


def failure(product="910b", **kwargs):
    return verdict(OP, product, **kwargs)


def test_check_order_follows_code():
    assert [c.id for c in spec.checks] == CODE_ORDER
    assert spec.param("stride").nullable


def test_null_pointers_but_not_stride():
    for name in ("gradOutput", "self", "kernelSize", "padding", "gradInput"):
        assert failure(**args(**{name: None})) == ("null-pointers", 161001), name
    for product in ("910b", "950", "910"):
        assert failure(product, **args(stride=None)) is None


@pytest.mark.parametrize("product", ["950", "910_93", "910b", "310p", "910", "310b"])
def test_dtype_lists(product):
    bf16 = product in ("950", "910_93", "910b")
    for name in ("gradOutput", "self", "gradInput"):
        shape = {"gradOutput": (2, 3, 4, 4)}.get(name, (2, 3, 8, 8))
        over = {name: t(shape, "BFLOAT16")}
        if name != "self":  # gradInput follows gradOutput's dtype
            other = "gradInput" if name == "gradOutput" else "gradOutput"
            over[other] = t({"gradOutput": (2, 3, 4, 4)}.get(other, (2, 3, 8, 8)), "BFLOAT16")
        got = failure(product, **args(**over))
        if bf16:
            assert got is None, name
        else:
            assert got == ("dtype-supported", 161002), name
        assert failure(product, **args(**{name: t(shape, "DOUBLE")})) == ("dtype-supported", 161002)


def test_self_dtype_is_free_but_grad_input_follows_grad_output():
    assert failure(**args(self=t((2, 3, 8, 8), "FLOAT16"))) is None
    assert failure(**args(self=t((2, 3, 8, 8), "BFLOAT16"))) is None
    assert failure(**args(gradInput=t((2, 3, 8, 8), "FLOAT16"))) == ("dtype-same", 161002)


def test_formats():
    assert failure(**args(self=t((2, 3, 8, 8), fmt="ND"))) == ("format-supported", 161002)
    assert failure(**args(gradOutput=t((2, 3, 4, 4), fmt="NHWC"))) == ("format-supported", 161002)
    # 4-D: gradOutput and gradInput must be NCHW, self may be NCL
    assert failure(**args(gradInput=t((2, 3, 8, 8), fmt="NCL"))) == ("format-4d-nchw", 161002)
    assert failure(**args(gradOutput=t((2, 3, 4, 4), fmt="NCL"))) == ("format-4d-nchw", 161002)
    assert failure(**args(self=t((2, 3, 8, 8), fmt="NCL"))) is None
    # 3-D: NCHW and NCL both pass
    assert failure(**args(grad=(3, 4, 4), x=(3, 8, 8))) is None
    three = args(gradOutput=t((3, 4, 4), fmt="NCHW"), self=t((3, 8, 8), fmt="NCHW"), gradInput=t((3, 8, 8), fmt="NCHW"))
    assert failure(**three) is None


def test_ranks_and_shapes():
    assert failure(**args(grad=(3, 4, 4))) == ("rank", 161002)
    assert failure(**args(gradOutput=t((1, 2, 3, 4, 4)))) == ("rank", 161002)
    # self's rank only meets gradInput through the shape comparison, the last parameter check
    assert failure(**args(self=t((3, 8, 8)), gradInput=t((2, 3, 8, 8)))) == ("self-shape", 161002)
    assert failure(**args(gradInput=t((2, 3, 8, 9)))) == ("self-shape", 161002)
    # gradOutput's H and W are never compared with the pooled size, nor its N and C with self's
    assert failure(**args(grad=(2, 3, 5, 7))) is None
    assert failure(**args(grad=(1, 7, 4, 4))) is None


def test_attribute_lengths_and_values():
    assert failure(**args(kernelSize=[])) == ("kernel-size-length", 161002)
    assert failure(**args(kernelSize=[2, 2, 2])) == ("kernel-size-length", 161002)
    assert failure(**args(kernelSize=[2, -1])) == ("kernel-size-positive", 161002)
    assert failure(**args(stride=[2, 2, 2])) == ("stride-length", 161002)
    assert failure(**args(stride=[])) is None
    assert failure(**args(stride=[2, 0])) == ("stride-positive", 161002)
    assert failure(**args(padding=[])) == ("padding-length", 161002)
    assert failure(**args(padding=[0, 0, 0])) == ("padding-length", 161002)
    assert failure(**args(kernelSize=[4, 3], padding=[2])) == ("padding-range", 161002)  # 2*2 > 3
    assert failure(**args(kernelSize=[3], padding=[0, 2])) == ("padding-range", 161002)
    assert failure(**args(kernelSize=[4, 3], padding=[2, 1])) is None
    assert failure(**args(cubeMathType=-1)) == ("cube-math-type", 161002)
    assert failure(**args(cubeMathType=3)) is None


def test_negative_padding_fails_only_on_the_computation_branches():
    assert failure("910b", **args(padding=[-1])) == ("padding-non-negative", 161002)
    assert failure("910", **args(padding=[0, -1])) == ("padding-non-negative", 161002)
    assert failure("950", **args(padding=[0, -1], kernelSize=[2, 2])) == ("padding-non-negative-950", 161002)
    # 950 walks kernelSize's length: a length-1 kernel tests padding[0] only
    assert failure("950", **args(padding=[0, -1])) is None
    assert failure("950", **args(padding=[-1, 0])) == ("padding-non-negative-950", 161002)
    # the global-average branch and empty tensors never test it
    for product in ("950", "910b", "910"):
        assert failure(product, **args(padding=[-1], **GLOBAL)) is None, product
        assert failure(product, **args(padding=[-1], grad=(0, 3, 4, 4), x=(0, 3, 8, 8))) is None, product


def test_divisor_range_on_910_and_310p_only():
    for product in ("910", "310p"):
        assert failure(product, **args(divisorOverride=256)) == ("divisor-range", 161002)
        assert failure(product, **args(divisorOverride=-256)) == ("divisor-range", 161002)
        assert failure(product, **args(divisorOverride=255)) is None
        assert failure(product, **args(divisorOverride=300, grad=(2, 3, 0, 4))) is None  # empty
    for product in ("950", "910b", "910_93"):
        assert failure(product, **args(divisorOverride=100000)) is None


def test_910_cube_has_no_float32():
    for product in ("910", "310p"):
        for cube in (0, 3):
            assert failure(product, **args(cubeMathType=cube)) == ("cube-fp32", 161002)
            assert failure(product, **args(dtype="FLOAT16", cubeMathType=cube)) is None
        for cube in (1, 2):
            assert failure(product, **args(cubeMathType=cube)) is None
        # the global branch divides in FLOAT32 without the cube
        assert failure(product, **args(cubeMathType=0, **GLOBAL)) is None
    assert failure("910b", **args(cubeMathType=0)) is None


def test_310b_fails_where_its_kernels_would_be_added():
    assert "310b" not in spec.products
    assert failure("310b", **args(dtype="BFLOAT16")) == ("dtype-supported", 161002)
    assert failure("310b", **args(divisorOverride=256)) == ("divisor-range", 161002)
    assert failure("310b", **args()) == ("product-supported", 161002)
    assert failure("310b", **args(**GLOBAL)) == ("product-supported-global", 561103)
    assert failure("310b", **args(grad=(0, 3, 4, 4), x=(0, 3, 8, 8))) is None


# ---------------------------------------------------------------------------------------------
# Running the reference kernel through the binding, against PyTorch


def _torch(g, x, kernel, stride, padding, ceil, cip, divisor):
    torch = pytest.importorskip("torch")
    k = kernel * 2 if len(kernel) == 1 else kernel
    s = (stride * 2 if len(stride) == 1 else stride) if stride else k
    p = padding * 2 if len(padding) == 1 else padding
    return torch.ops.aten.avg_pool2d_backward(
        torch.from_numpy(g.astype(np.float32)), torch.from_numpy(x.astype(np.float32)), k, s, p, ceil, cip, divisor
    ).numpy()


def _pooled(x, kernel, stride, padding, ceil):
    torch = pytest.importorskip("torch")
    k = kernel * 2 if len(kernel) == 1 else kernel
    s = (stride * 2 if len(stride) == 1 else stride) if stride else k
    p = padding * 2 if len(padding) == 1 else padding
    return tuple(torch.nn.functional.avg_pool2d(torch.from_numpy(x), k, s, p, ceil).shape)


def _run(product, g, x, kernel, stride, padding, ceil, cip, divisor, cube):
    return aclnn.run(
        OP,
        product=product,
        gradOutput=g,
        self=x,
        kernelSize=kernel,
        stride=stride,
        padding=padding,
        ceilMode=ceil,
        countIncludePad=cip,
        divisorOverride=divisor,
        cubeMathType=cube,
    )["gradInput"]


GEOMETRIES = [
    ((2, 3, 9, 11), [3], [2], [1]),
    ((4, 7, 6), [3, 2], [1, 2], [1, 1]),
    ((1, 2, 8, 8), [2], None, [0]),  # null stride
]


@pytest.mark.parametrize("product", ["950", "910b"])
@pytest.mark.parametrize("geo", GEOMETRIES)
@pytest.mark.parametrize("ceil, cip, divisor", [(False, True, 0), (True, False, 0), (True, True, 5), (False, False, 0)])
def test_run_matches_torch(product, geo, ceil, cip, divisor):
    shape, kernel, stride, padding = geo
    rng = np.random.default_rng(5)
    x = rng.standard_normal(shape).astype(np.float32)
    g = rng.standard_normal(_pooled(x, kernel, stride, padding, ceil)).astype(np.float32)
    got = _run(product, g, x, kernel, stride, padding, ceil, cip, divisor, 0)
    want = _torch(g, x, kernel, stride, padding, ceil, cip, divisor or None)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_910_cube_runs_in_float16_and_uses_the_full_kernel():
    x = np.zeros((1, 2, 5, 5), np.float32)
    g = np.random.default_rng(0).standard_normal((1, 2, 3, 3)).astype(np.float32)
    got = _run("910", g, x, [2], [2], [0], True, True, 0, 1)
    want = _torch(g, x, [2], [2], [0], True, True, 4)  # every window divided by kH*kW
    np.testing.assert_allclose(got, want, rtol=2e-3, atol=1e-3)
    assert np.array_equal(got.astype(F16).astype(np.float32), got)
    with pytest.raises(aclnn.AclnnError) as err:
        _run("910", g, x, [2], [2], [0], True, True, 0, 0)
    assert (err.value.check, err.value.code) == ("cube-fp32", 161002)


def test_910_divisor_255_without_count_include_pad_averages_real_cells():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((1, 2, 7, 7)).astype(np.float32)
    g = rng.standard_normal((1, 2, 4, 4)).astype(np.float32)
    got = _run("910", g, x, [3], [2], [1], False, False, 255, 1)
    np.testing.assert_allclose(got, _torch(g, x, [3], [2], [1], False, False, None), rtol=3e-3, atol=2e-3)


def test_global_branch_divides_by_the_kernel():
    rng = np.random.default_rng(4)
    x = rng.standard_normal((2, 3, 12, 10)).astype(np.float32)
    g = rng.standard_normal((2, 3, 1, 1)).astype(np.float32)
    for product in ("950", "910b", "910"):
        got = _run(product, g, x, [12, 10], [12, 10], [0], False, True, 0, 0)
        np.testing.assert_allclose(got, np.broadcast_to(g / 120, x.shape), rtol=1e-6)


def test_mixed_dtypes_follow_grad_output():
    x = np.zeros((1, 1, 4, 4), np.float32)
    g = np.ones((1, 1, 2, 2), np.float16)
    got = aclnn.avg_pool2d_backward(g, x, [2], [2], [0], False, True, 0, 0, product="910b")
    assert got.dtype == F16 and np.all(got == 0.25)


def test_example_matches_torch():
    ex = spec.example
    g = np.full(ex.inputs["gradOutput"].shape, ex.inputs["gradOutput"].fill, np.float32)
    x = np.full(ex.inputs["self"].shape, ex.inputs["self"].fill, np.float32)
    want = _torch(g, x, [4, 4], [1, 1], [0, 0], False, True, None)
    np.testing.assert_allclose(want, ex.expected["gradInput"].fill)
