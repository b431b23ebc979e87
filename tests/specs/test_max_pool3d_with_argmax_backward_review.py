"""Second reading of specs/max_pool3d_with_argmax_backward.yaml against aclnn_max_pool3d_with_argmax_backward.cpp.

Written from the op_api code, not from the spec. aclnnMaxPool3dWithArgmaxBackwardGetWorkspaceSize runs
CheckParams, returns success when gradOutput, self or indices is empty, then builds the graph (the l0
MaxPool3DGradWithArgmax dtype test accepts every dtype that reaches it; the final output-shape test compares
a self-shaped result with gradInput, already equal).

CheckParams:
1. CheckNotNullPtr: gradOutput, self, indices, kernelSize, stride, padding, dilation, gradInput (161001).
2. CheckDtypeValid: self in the NpuArch list (DAV_3510, DAV_2201: BFLOAT16, FLOAT16, FLOAT; others empty),
   indices (950: INT32, INT64; else INT32), self == gradOutput, self == gradInput (161002).
3. CheckFormat: self's storage format == gradOutput's == gradInput's; none of the four private; gradOutput,
   gradInput, indices, self each 4-D or 5-D.
4. CheckParamsValid: kernelSize length 1|3, values > 0; stride length 0|1|3, values > 0 (empty = kernel);
   padding length 1|3, >= 0, <= k/2 per axis; dilation length 1|3, values > 0 (1 is not required).
5. CheckSelfShapeSupport: except on 950, D*H*W of self <= 2^31-1.
6. CheckInputShape: indices shape == gradOutput shape, then self shape == gradInput shape. gradOutput is
   never compared with self or with the pooled size; ceilMode is not looked at.
"""

from __future__ import annotations

import pytest

import aclnn
from tests.specs.verdicts import status

OP = "MaxPool3dWithArgmaxBackward"
ALL = ["950", "910_93", "910b", "310b", "310p", "910"]
OK = ["950", "910_93", "910b"]
A2A3 = ["910_93", "910b"]
NONE = ["310b", "310p", "910"]


def t(shape, dtype="FLOAT", fmt=None):
    return aclnn.TensorDesc(shape, dtype, fmt or "ND")


def args(x=(2, 3, 4, 6, 8), grad=(2, 3, 2, 3, 4), dtype="FLOAT", index="INT32", fmt=None, **over):
    values = dict(
        gradOutput=t(grad, dtype, fmt),
        self=t(x, dtype, fmt),
        indices=t(grad, index, fmt),
        kernelSize=[2],
        stride=[2],
        padding=[0],
        dilation=[1],
        ceilMode=False,
        gradInput=t(x, dtype, fmt),
    )
    values.update(over)
    return values


def code(product="910b", **kwargs):
    return status(OP, product, **kwargs)


@pytest.mark.parametrize("product", ALL)
@pytest.mark.parametrize(
    "name", ["gradOutput", "self", "indices", "kernelSize", "stride", "padding", "dilation", "gradInput"]
)
def test_null_pointers_first(product, name):
    bad = args(dtype="DOUBLE", kernelSize=[2, 2])
    bad[name] = None
    assert code(product, **bad) == 161001


@pytest.mark.parametrize("product", NONE)
def test_empty_self_list_rejects_every_call(product):
    for dtype in ("FLOAT", "FLOAT16", "BFLOAT16"):
        assert code(product, **args(dtype=dtype)) == 161002, dtype
    assert code(product, **args(x=(0, 3, 4, 6, 8), grad=(0, 3, 2, 3, 4))) == 161002


@pytest.mark.parametrize("product", OK)
def test_dtypes(product):
    for dtype in ("FLOAT", "FLOAT16", "BFLOAT16"):
        assert code(product, **args(dtype=dtype)) == 0, dtype
    for dtype in ("DOUBLE", "INT32", "INT8", "BOOL", "HIFLOAT8"):
        assert code(product, **args(dtype=dtype)) == 161002, dtype
    assert code(product, **args(gradOutput=t((2, 3, 2, 3, 4), "FLOAT16"))) == 161002
    assert code(product, **args(gradInput=t((2, 3, 4, 6, 8), "BFLOAT16"))) == 161002
    accepted = ("INT32", "INT64") if product == "950" else ("INT32",)
    for index in ("INT32", "INT64", "INT8", "INT16", "UINT32", "FLOAT"):
        assert code(product, **args(index=index)) == (0 if index in accepted else 161002), index


@pytest.mark.parametrize("product", OK)
def test_formats_and_ranks(product):
    for fmt in ("ND", "NCDHW", "NDHWC", "NCHW"):
        assert code(product, **args(fmt=fmt)) == 0, fmt
    assert code(product, **args(gradOutput=t((2, 3, 2, 3, 4), fmt="NCDHW"))) == 161002
    assert code(product, **args(gradInput=t((2, 3, 4, 6, 8), fmt="NDHWC"))) == 161002
    assert code(product, **args(indices=t((2, 3, 2, 3, 4), "INT32", "NCDHW"))) == 0  # indices' format is free
    for fmt in ("NDC1HWC0", "FRACTAL_Z_3D", "NC1HWC0"):
        assert code(product, **args(indices=t((2, 3, 2, 3, 4), "INT32", fmt))) == 161002, fmt
        assert code(product, **args(fmt=fmt)) == 161002, fmt
    # ranks 4..5
    assert code(product, **args(x=(3, 4, 6, 8), grad=(3, 2, 3, 4))) == 0
    for grad in ((2, 3, 4), (1, 2, 3, 2, 3, 4)):
        assert code(product, **args(grad=grad)) == 161002, grad
    assert code(product, **args(x=(4, 6, 8), gradInput=t((4, 6, 8)))) == 161002
    assert code(product, **args(x=(1, 2, 3, 4, 6, 8), gradInput=t((1, 2, 3, 4, 6, 8)))) == 161002


@pytest.mark.parametrize("product", OK)
def test_attributes(product):
    for over in (
        dict(kernelSize=[]),
        dict(kernelSize=[2, 2]),
        dict(kernelSize=[2, 2, 2, 2]),
        dict(kernelSize=[0]),
        dict(kernelSize=[2, 2, -1]),
        dict(stride=[2, 2]),
        dict(stride=[0]),
        dict(stride=[2, 0, 2]),
        dict(padding=[]),
        dict(padding=[0, 0]),
        dict(padding=[-1]),
        dict(padding=[0, 0, -1]),
        dict(padding=[2]),  # > 2 // 2
        dict(kernelSize=[4, 4, 3], padding=[2, 2, 2]),
        dict(dilation=[]),
        dict(dilation=[1, 1]),
        dict(dilation=[0]),
        dict(dilation=[1, -1, 1]),
    ):
        assert code(product, **args(**over)) == 161002, over
    # accepted: empty stride, length-3 arrays, dilation above 1 (only > 0 is checked)
    for over in (
        dict(stride=[]),
        dict(kernelSize=[2, 2, 2], stride=[2, 2, 2], padding=[1, 1, 0], dilation=[1, 1, 1]),
        dict(dilation=[3]),
        dict(dilation=[1, 2, 5]),
        dict(kernelSize=[5], padding=[2]),
    ):
        assert code(product, **args(**over)) == 0, over


@pytest.mark.parametrize("product", OK)
def test_shapes_are_compared_pairwise_only(product):
    assert code(product, **args(indices=t((2, 3, 2, 3, 5), "INT32"))) == 161002
    assert code(product, **args(indices=t((2, 3, 2, 3, 4, 1), "INT32"))) == 161002  # rank first, same code
    assert code(product, **args(gradInput=t((2, 3, 4, 6, 9)))) == 161002
    # gradOutput is never compared with the pooled size of self, nor with self's N and C
    for grad in ((2, 3, 1, 1, 1), (2, 3, 9, 9, 9), (5, 7, 2, 3, 4)):
        assert code(product, **args(grad=grad)) == 0, grad
    assert code(product, **args(grad=(2, 3, 2, 3, 4), ceilMode=True)) == 0


@pytest.mark.parametrize("product", ALL)
def test_spatial_size_limit(product):
    # D*H*W of self above 2^31-1 fails except on 950 (and before that, the empty list on 910/310P/310B)
    big = (1, 1, 1024, 1024, 2048)
    expected = 161002 if product != "950" else 0
    assert code(product, **args(x=big, grad=(1, 1, 512, 512, 1024))) == expected
    ok = (1, 1, 1, 1, 2**31 - 1)
    assert code(product, **args(x=ok, grad=(1, 1, 1, 1, 2**30 - 1))) == (161002 if product in NONE else 0)
    # N and C do not count
    wide = (1024, 1024, 2, 2, 2)
    assert code(product, **args(x=wide, grad=(1024, 1024, 1, 1, 1))) == (161002 if product in NONE else 0)


@pytest.mark.parametrize("product", A2A3)
def test_spatial_size_limit_applies_to_an_empty_self_too(product):
    # N = 0 but D*H*W too large: the limit is a parameter check, before the empty return
    assert code(product, **args(x=(0, 1, 1024, 1024, 2048), grad=(0, 1, 1, 1, 1))) == 161002


@pytest.mark.parametrize("product", OK)
def test_empty_tensors_after_the_parameter_checks(product):
    assert code(product, **args(x=(0, 3, 4, 6, 8), grad=(0, 3, 2, 3, 4))) == 0
    assert code(product, **args(grad=(2, 3, 0, 3, 4))) == 0  # gradOutput (and indices) empty only
    assert code(product, **args(x=(2, 3, 4, 0, 8))) == 0  # self (and gradInput) empty only
    # a 5-D empty gradOutput with a 4-D self: nothing relates their ranks
    assert code(product, **args(x=(3, 4, 6, 8), grad=(0, 3, 2, 3, 4))) == 0
    # but every parameter check still applies
    assert code(product, **args(grad=(2, 3, 0, 3, 4), indices=t((2, 3, 1, 3, 4), "INT32"))) == 161002
    assert code(product, **args(x=(2, 3, 4, 0, 8), gradInput=t((2, 3, 4, 1, 8)))) == 161002
    assert code(product, **args(grad=(2, 3, 0, 3, 4), padding=[-1])) == 161002
