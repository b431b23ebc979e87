"""Second reading of specs/max_pool2d_with_mask_backward.yaml against aclnn_max_pool2d_with_indices_backward.cpp.

Written from the op_api code, not from the spec. aclnnMaxPool2dWithMaskBackwardGetWorkspaceSize:

0. The regbase architecture (950) returns 161002 before looking at any argument.
1. kernelSize, self, gradOutput null -> 161001; kernelSize's length not 1 or 2 -> 161001 (sic).
2. A2/A3 (DAV_2201) with a kernel other than 1x1 take the MaxPool3DGradWithArgmax path, everything else the
   MaxPoolGradWithArgmaxV1 (5HD mask) path; both run the same CheckParams with isMask on:
   - all 8 pointers (161001);
   - self in the mask list (DAV_2201: FLOAT16, FLOAT, BFLOAT16; DAV_1001: FLOAT16, FLOAT; other archs:
     empty), self == gradOutput, self == gradInput, indices INT8 only (161002);
   - formats equal (self, gradOutput, gradInput), none private (indices too), ranks 3..4;
   - stride/padding/dilation lengths, kernel > 0, stride > 0, 0 <= pad <= k/2, dilation == 1;
   - gradInput shape == self, C/H/W non-zero, pooled size > 0, gradOutput == pooled shape (NHWC-aware);
     the mask-shape test of indices is computed and its result discarded.
3. Empty self (N = 0): success. The l0 dtype tests after it (MaxPool3DGradWithArgmax on DAV_2201,
   MaxPoolGradWithArgmaxV1 on the 5HD path, after the FLOAT->FLOAT16 (910) / BFLOAT16->FLOAT casts) accept
   every dtype that reaches them.
"""

from __future__ import annotations

import pytest

import aclnn
from tests.specs.verdicts import status

OP = "MaxPool2dWithMaskBackward"
ALL = ["950", "910_93", "910b", "310b", "310p", "910"]
OK = ["910_93", "910b", "910"]
A2A3 = ["910_93", "910b"]


def t(shape, dtype="FLOAT", fmt=None):
    return aclnn.TensorDesc(shape, dtype, fmt or {3: "NCL", 4: "NCHW"}.get(len(shape), "ND"))


def mask_shape(x, kernel, out):
    """[N,] C, kH*kW, (ceil(Hout*Wout/16)+1)*32 -- the documented size contract (not checked)."""
    k = kernel * 2 if len(kernel) == 1 else kernel
    return x[:-2] + (k[0] * k[1], (-(-out[0] * out[1] // 16) + 1) * 32)


def args(x=(2, 3, 8, 6), grad=(2, 3, 4, 3), dtype="FLOAT", fmt=None, **over):
    values = dict(
        gradOutput=t(grad, dtype, fmt),
        self=t(x, dtype, fmt),
        indices=t(mask_shape(x, [2], grad[-2:]), "INT8", fmt),
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


# ---------------------------------------------------------------- 0./1. the entry function


def test_950_is_rejected_before_anything():
    assert code("950", **args()) == 161002
    everything_null = {name: None for name in args()}
    assert code("950", **everything_null) == 161002
    assert code("950", **args(kernelSize=[2, 2, 2])) == 161002


@pytest.mark.parametrize("product", ["910_93", "910b", "910", "310p", "310b"])
def test_entry_checks(product):
    for name in ("kernelSize", "self", "gradOutput"):
        assert code(product, **args(**{name: None})) == 161001, name
    # the entry's kernelSize length check returns the null-pointer code
    for kernel in ([], [2, 2, 2], [1, 1, 1, 1]):
        assert code(product, **args(kernelSize=kernel)) == 161001, kernel
        # ... before the dtype checks of CheckParams (310p / 310b have an empty self list)
        assert code(product, **args(kernelSize=kernel, dtype="DOUBLE")) == 161001, kernel
    assert code(product, **args(kernelSize=[2, 2, 2], indices=None)) == 161001


@pytest.mark.parametrize("product", ["910_93", "910b", "910", "310p", "310b"])
@pytest.mark.parametrize("name", ["indices", "stride", "padding", "dilation", "gradInput"])
def test_remaining_null_pointers(product, name):
    bad = args(dtype="DOUBLE", dilation=[5])
    bad[name] = None
    assert code(product, **bad) == 161001


# ---------------------------------------------------------------- 2. dtypes


@pytest.mark.parametrize("product", ["310p", "310b"])
def test_other_architectures_have_an_empty_list(product):
    for dtype in ("FLOAT", "FLOAT16"):
        assert code(product, **args(dtype=dtype)) == 161002
    assert code(product, **args(x=(0, 3, 8, 6), grad=(0, 3, 4, 3))) == 161002


@pytest.mark.parametrize("product", OK)
def test_self_dtype_lists(product):
    for dtype in ("FLOAT", "FLOAT16"):
        assert code(product, **args(dtype=dtype)) == 0, dtype
    assert code(product, **args(dtype="BFLOAT16")) == (0 if product in A2A3 else 161002)
    for dtype in ("DOUBLE", "INT8", "INT32", "BOOL"):
        assert code(product, **args(dtype=dtype)) == 161002, dtype


@pytest.mark.parametrize("product", OK)
@pytest.mark.parametrize("kernel", [[1], [2]])
def test_both_a2_paths_share_the_parameter_checks(product, kernel):
    """Kernel 1x1 sends A2/A3 to the 5HD path, others to the 3-D path: the same checks either way."""
    grad = (2, 3, 8, 6) if kernel == [1] else (2, 3, 4, 3)
    base = dict(grad=grad, kernelSize=kernel, stride=kernel)
    base["indices"] = t(mask_shape((2, 3, 8, 6), kernel, grad[-2:]), "INT8")
    assert code(product, **args(**base)) == 0
    assert code(product, **args(**base, dtype="BFLOAT16")) == (0 if product in A2A3 else 161002)
    assert code(product, **args(**base, gradInput=t((2, 3, 8, 6), "FLOAT16"))) == 161002
    # padding 1: above half of a 1x1 kernel; for 2x2 it changes the pooled shape (5x4, not 4x3)
    assert code(product, **args(**base, padding=[1])) == 161002
    assert code(product, **args(**base, dilation=[2])) == 161002


@pytest.mark.parametrize("product", OK)
def test_dtype_equalities_and_indices(product):
    assert code(product, **args(gradOutput=t((2, 3, 4, 3), "FLOAT16"))) == 161002
    assert code(product, **args(gradInput=t((2, 3, 8, 6), "FLOAT16"))) == 161002
    for index in ("UINT8", "INT32", "INT64", "INT16", "BOOL"):
        call = args()
        call["indices"] = t(call["indices"].shape, index)
        assert code(product, **call) == 161002, index


# ---------------------------------------------------------------- 2. formats, ranks, attributes


@pytest.mark.parametrize("product", OK)
def test_formats_and_ranks(product):
    for fmt in ("ND", "NCHW", "NHWC", "HWCN"):
        call = args(fmt=fmt)
        if fmt == "NHWC":  # channels last: [N, H, W, C]
            call = args(x=(2, 8, 6, 3), grad=(2, 4, 3, 3), fmt=fmt)
        assert code(product, **call) == 0, fmt
    assert code(product, **args(gradOutput=t((2, 3, 4, 3), fmt="ND"))) == 161002
    assert code(product, **args(gradInput=t((2, 3, 8, 6), fmt="ND"))) == 161002
    # the indices format is free, except private formats
    call = args()
    assert code(product, **{**call, "indices": t(call["indices"].shape, "INT8", "ND")}) == 0
    assert code(product, **{**call, "indices": t(call["indices"].shape, "INT8", "NC1HWC0")}) == 161002
    assert code(product, **args(fmt="NC1HWC0")) == 161002
    # ranks 3..4 for each of the four tensors; the indices shape itself is never checked
    assert code(product, **{**call, "indices": t((1, 2, 3, 4, 5), "INT8")}) == 161002
    assert code(product, **{**call, "indices": t((4, 5), "INT8")}) == 161002
    for shape in ((1, 1, 1), (2, 3, 4, 3), (7, 7, 7, 7)):
        assert code(product, **{**call, "indices": t(shape, "INT8")}) == 0, shape
    assert code(product, **args(x=(3, 8, 6), grad=(3, 4, 3))) == 0


@pytest.mark.parametrize("product", OK)
def test_attribute_rules(product):
    for over in (
        dict(stride=[2, 2, 2]),
        dict(padding=[]),
        dict(padding=[0, 0, 0]),
        dict(dilation=[]),
        dict(dilation=[1, 1, 1]),
        dict(kernelSize=[0]),
        dict(kernelSize=[2, -3]),
        dict(stride=[0]),
        dict(stride=[2, -1]),
        dict(padding=[-1]),
        dict(padding=[2]),
        dict(kernelSize=[3, 2], padding=[1, 2]),
        dict(dilation=[2]),
        dict(dilation=[1, 0]),
    ):
        assert code(product, **args(**over)) == 161002, over
    assert code(product, **args(stride=[], dilation=[1, 1], padding=[0, 0], kernelSize=[2, 2])) == 0


# ---------------------------------------------------------------- 2. shapes and 3. the empty return


@pytest.mark.parametrize("product", OK)
def test_shapes(product):
    assert code(product, **args(gradInput=t((2, 3, 8, 7)))) == 161002
    assert code(product, **args(grad=(2, 3, 4, 4))) == 161002
    assert code(product, **args(grad=(2, 3, 4, 3), ceilMode=True)) == 0  # 8x6 divides evenly
    assert code(product, **args(x=(2, 3, 7, 6), grad=(2, 3, 4, 3), ceilMode=True)) == 0
    assert code(product, **args(x=(2, 3, 7, 6), grad=(2, 3, 3, 3), ceilMode=True)) == 161002
    for x in ((2, 0, 8, 6), (2, 3, 0, 6), (2, 3, 8, 0), (0, 8, 6), (3, 8, 0)):
        assert code(product, **args(x=x, grad=x[:-2] + (x[-2] // 2, x[-1] // 2))) == 161002, x
    # kernel larger than the input: no output window
    assert code(product, **args(x=(2, 3, 1, 6), grad=(2, 3, 0, 3))) == 161002


@pytest.mark.parametrize("product", OK)
def test_empty_self_after_every_parameter_check(product):
    empty = dict(x=(0, 3, 8, 6), grad=(0, 3, 4, 3))
    assert code(product, **args(**empty)) == 0
    assert code(product, **args(**empty, indices=t((9, 9, 9), "INT8"))) == 0
    assert code(product, **args(**empty, gradOutput=t((0, 3, 4, 4)))) == 161002
    assert code(product, **args(**empty, dilation=[2])) == 161002
    call = args(**empty)
    assert code(product, **{**call, "indices": t(call["indices"].shape, "INT32")}) == 161002
