"""Second reading of specs/max_pool2d_with_indices_backward.yaml against aclnn_max_pool2d_with_indices_backward.cpp.

Written from the op_api code, not from the spec. aclnnMaxPool2dWithIndicesBackwardGetWorkspaceSize: on 950
(regbase) the V3 path, elsewhere the MaxPool3DGradWithArgmax path; both run CheckParams with the mask flags
off, then return success for an empty self, then build the graph (no first-phase failure modelled there:
MaxPool3DGradWithArgmax's own dtype test accepts FLOAT on DAV_2201).

CheckParams:
1. CheckNotNullPtr: gradOutput, self, indices, kernelSize, stride, padding, dilation, gradInput (161001).
2. CheckDtypeValid: self in the NpuArch list (DAV_3510: FLOAT16, FLOAT, BFLOAT16; DAV_2201: FLOAT; DAV_1001
   and every other arch: empty), self == gradOutput, self == gradInput, indices (950: INT32, INT64; else
   INT32, INT8) (161002).
3. CheckFormat: self's storage format == gradOutput's == gradInput's; none of the four private; each of self,
   gradInput, gradOutput, indices 3-D or 4-D.
4. CheckShape: lengths kernelSize 1..2, stride 0..2, padding 1..2, dilation 1..2; kH, kW > 0; dH, dW > 0;
   0 <= pad <= k/2 per axis; dilation > 0 (950) or == 1 (elsewhere); then CheckGradInputAndIndicesShape:
   gradInput shape == self; C, H, W non-zero (NHWC storage format: C last, H, W before it); pad within the
   dilated kernel; pooled H and W > 0 (floor division rounding to -inf); gradOutput == [N,] C, Hout, Wout
   (NHWC: [N,] Hout, Wout, C). The indices shape test's result is discarded.
"""

from __future__ import annotations

import pytest

import aclnn
from tests.specs.verdicts import status

OP = "MaxPool2dWithIndicesBackward"
ALL = ["950", "910_93", "910b", "310b", "310p", "910"]
OK = ["950", "910_93", "910b"]
A2A3 = ["910_93", "910b"]
NONE = ["310b", "310p", "910"]


def t(shape, dtype="FLOAT", fmt=None):
    return aclnn.TensorDesc(shape, dtype, fmt or {3: "NCL", 4: "NCHW"}.get(len(shape), "ND"))


def args(x=(2, 3, 8, 6), grad=(2, 3, 4, 3), dtype="FLOAT", index="INT32", fmt=None, **over):
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


# ---------------------------------------------------------------- 1. null pointers (stride is not nullable)


@pytest.mark.parametrize("product", ALL)
@pytest.mark.parametrize(
    "name", ["gradOutput", "self", "indices", "kernelSize", "stride", "padding", "dilation", "gradInput"]
)
def test_every_pointer_is_checked_first(product, name):
    bad = args(dtype="DOUBLE", kernelSize=[1, 2, 3], dilation=[0])
    bad[name] = None
    assert code(product, **bad) == 161001


# ---------------------------------------------------------------- 2. dtypes


@pytest.mark.parametrize("product", NONE)
def test_products_with_an_empty_self_list_reject_every_call(product):
    for dtype in ("FLOAT", "FLOAT16", "BFLOAT16", "DOUBLE"):
        assert code(product, **args(dtype=dtype)) == 161002, dtype
    # even an empty self: the dtype check is a parameter check
    assert code(product, **args(x=(0, 3, 8, 6), grad=(0, 3, 4, 3))) == 161002


@pytest.mark.parametrize("product", OK)
def test_self_dtype_lists(product):
    expected = {"FLOAT": 0, "FLOAT16": 0 if product == "950" else 161002}
    expected["BFLOAT16"] = expected["FLOAT16"]
    for dtype, want in expected.items():
        index = "INT64" if product == "950" else "INT32"
        assert code(product, **args(dtype=dtype, index=index)) == want, dtype
    for dtype in ("DOUBLE", "INT32", "INT8", "BOOL", "COMPLEX64"):
        assert code(product, **args(dtype=dtype)) == 161002, dtype


@pytest.mark.parametrize("product", OK)
def test_grad_output_and_grad_input_follow_self(product):
    assert code(product, **args(gradOutput=t((2, 3, 4, 3), "FLOAT16"))) == 161002
    assert code(product, **args(gradInput=t((2, 3, 8, 6), "FLOAT16"))) == 161002
    if product == "950":
        call = args(dtype="BFLOAT16", gradInput=t((2, 3, 8, 6), "FLOAT16"))
        assert code(product, **call) == 161002


@pytest.mark.parametrize("product", OK)
def test_indices_dtype(product):
    accepted = ("INT32", "INT64") if product == "950" else ("INT32", "INT8")
    for index in ("INT32", "INT64", "INT8", "INT16", "UINT8", "UINT32", "FLOAT", "BOOL"):
        assert code(product, **args(index=index)) == (0 if index in accepted else 161002), index


# ---------------------------------------------------------------- 3. formats and ranks


@pytest.mark.parametrize("product", OK)
def test_formats(product):
    # self, gradOutput and gradInput share any public format
    for fmt in ("ND", "NCHW", "HWCN", "NCDHW"):
        assert code(product, **args(fmt=fmt)) == 0, fmt
    assert code(product, **args(gradOutput=t((2, 3, 4, 3), fmt="ND"))) == 161002
    assert code(product, **args(gradInput=t((2, 3, 8, 6), fmt="ND"))) == 161002
    # indices' format is never compared, only tested for private formats
    for fmt in ("ND", "NHWC", "NCL"):
        assert code(product, **args(indices=t((2, 3, 4, 3), "INT32", fmt))) == 0, fmt
    for fmt in ("NC1HWC0", "FRACTAL_NZ"):
        assert code(product, **args(indices=t((2, 3, 4, 3), "INT32", fmt))) == 161002, fmt
        assert code(product, **args(fmt=fmt)) == 161002, fmt


@pytest.mark.parametrize("product", OK)
def test_ranks(product):
    assert code(product, **args(indices=t((1, 2, 3, 4, 3), "INT32"))) == 161002
    assert code(product, **args(indices=t((4, 3), "INT32"))) == 161002
    assert code(product, **args(x=(1, 2, 3, 8, 6), gradInput=t((1, 2, 3, 8, 6)))) == 161002
    assert code(product, **args(grad=(1, 2, 3, 4, 3))) == 161002
    assert code(product, **args(x=(8, 6), grad=(4, 3))) == 161002
    # 3-D everywhere (CHW)
    assert code(product, **args(x=(3, 8, 6), grad=(3, 4, 3))) == 0
    # ranks that differ fail on the gradOutput shape test
    assert code(product, **args(grad=(3, 4, 3))) == 161002
    # indices of any 3-D / 4-D shape pass: its shape test is discarded
    for shape in ((1, 1, 1), (9, 9, 9, 9), (3, 4, 3)):
        assert code(product, **args(indices=t(shape, "INT32"))) == 0, shape


# ---------------------------------------------------------------- 4. attributes


@pytest.mark.parametrize("product", OK)
def test_attribute_lengths_and_values(product):
    for over in (
        dict(kernelSize=[]),
        dict(kernelSize=[2, 2, 2]),
        dict(stride=[2, 2, 2]),
        dict(padding=[]),
        dict(padding=[0, 0, 0]),
        dict(dilation=[]),
        dict(dilation=[1, 1, 1]),
        dict(kernelSize=[0]),
        dict(kernelSize=[2, -1]),
        dict(stride=[0]),
        dict(stride=[2, -2]),
        dict(padding=[-1]),
        dict(padding=[0, -1]),
        dict(padding=[2]),  # > k/2 = 1
        dict(kernelSize=[3, 2], padding=[1, 2]),
        dict(dilation=[0]),
        dict(dilation=[1, -1]),
    ):
        assert code(product, **args(**over)) == 161002, over
    assert code(product, **args(stride=[])) == 0  # stride = kernelSize
    assert code(product, **args(kernelSize=[2, 2], stride=[2, 2], padding=[0, 0], dilation=[1, 1])) == 0


@pytest.mark.parametrize("product", OK)
def test_dilation_above_one(product):
    # self 8x6, k 2, s 2, d 2: Hout = (8-2-1)//2+1 = 3, Wout = (6-2-1)//2+1 = 2
    call = args(dilation=[2], grad=(2, 3, 3, 2), indices=t((2, 3, 3, 2), "INT32"))
    assert code(product, **call) == (0 if product == "950" else 161002)
    assert code(product, **args(dilation=[1, 2])) == 161002  # 950: shape; A2/A3: dilation must be 1


def test_950_dilation_that_leaves_no_output():
    # k 3, d 4 on W 6: 6 - 8 - 1 = -3 -> -3 // 1 + 1 = -2
    assert code("950", **args(kernelSize=[3], stride=[1], dilation=[1, 4], grad=(2, 3, 6, 1))) == 161002


# ---------------------------------------------------------------- 4. shapes


@pytest.mark.parametrize("product", OK)
def test_grad_input_shape_and_zero_dims(product):
    assert code(product, **args(gradInput=t((2, 3, 8, 7)))) == 161002
    assert code(product, **args(gradInput=t((3, 8, 6)))) == 161002
    for x in ((2, 0, 8, 6), (2, 3, 0, 6), (2, 3, 8, 0)):
        grad = x[:2] + (x[2] // 2, x[3] // 2)
        assert code(product, **args(x=x, grad=grad)) == 161002, x
    for x in ((0, 8, 6), (3, 0, 6), (3, 8, 0)):
        assert code(product, **args(x=x, grad=(x[0], x[1] // 2, x[2] // 2))) == 161002, x
    # N = 0 is the only empty self that passes: success after the parameter checks
    assert code(product, **args(x=(0, 3, 8, 6), grad=(0, 3, 4, 3))) == 0


@pytest.mark.parametrize("product", OK)
def test_empty_self_still_gets_every_parameter_check(product):
    empty = dict(x=(0, 3, 8, 6), grad=(0, 3, 4, 3))
    assert code(product, **args(**empty, gradOutput=t((0, 3, 4, 4)))) == 161002
    assert code(product, **args(**empty, padding=[2])) == 161002
    assert code(product, **args(**empty, index="INT16")) == 161002
    assert code(product, **args(**empty, indices=t((5, 5, 5), "INT32"))) == 0


@pytest.mark.parametrize("product", OK)
@pytest.mark.parametrize(
    "hw, kernel, stride, padding, ceil, out",
    [
        ((7, 5), [3], [2], [1], False, (4, 3)),
        ((8, 8), [3], [2], [0], False, (3, 3)),
        ((8, 8), [3], [2], [0], True, (4, 4)),
        ((5, 5), [2], [2], [1], True, (3, 3)),  # the last window would start in the padding: dropped
        ((2, 2), [4], [3], [0], True, (1, 1)),  # numerator 0 with ceil: one window
        ((9, 4), [3, 2], [3, 1], [1, 0], False, (3, 3)),
        ((6, 6), [2], [], [1], False, (4, 4)),  # empty stride = kernel
    ],
)
def test_pooled_shape(product, hw, kernel, stride, padding, ceil, out):
    call = dict(kernelSize=kernel, stride=stride, padding=padding, ceilMode=ceil)
    x = (2, 3) + hw
    assert code(product, **args(x=x, grad=(2, 3) + out, **call)) == 0
    assert code(product, **args(x=x, grad=(2, 3, out[0] + 1, out[1]), **call)) == 161002
    assert code(product, **args(x=x, grad=(2, 3, out[0], out[1] - 1), **call)) == 161002
    assert code(product, **args(x=x, grad=(2, 4) + out, **call)) == 161002  # C differs
    assert code(product, **args(x=x, grad=(1, 3) + out, **call)) == 161002  # N differs


@pytest.mark.parametrize("product", OK)
def test_output_size_rounds_towards_minus_infinity(product):
    # H 2, k 4, s 3: numerator 2 - 3 - 1 = -2, floor(-2 / 3) = -1, Hout = 0 -> rejected (truncation would give 1)
    call = dict(kernelSize=[4], stride=[3], padding=[0])
    for grad in ((2, 3, 1, 1), (2, 3, 0, 0)):
        assert code(product, **args(x=(2, 3, 2, 2), grad=grad, **call)) == 161002, grad
    # kernel larger than the padded input
    assert code(product, **args(x=(2, 3, 1, 6), grad=(2, 3, 0, 3))) == 161002


@pytest.mark.parametrize("product", OK)
def test_nhwc_reads_channels_last(product):
    # self [N, H, W, C] = [2, 8, 6, 3] -> gradOutput [2, 4, 3, 3]
    assert code(product, **args(x=(2, 8, 6, 3), grad=(2, 4, 3, 3), fmt="NHWC")) == 0
    assert code(product, **args(x=(2, 8, 6, 3), grad=(2, 8, 3, 3), fmt="NHWC")) == 161002  # NCHW reading
    # 3-D NHWC: [H, W, C]
    assert code(product, **args(x=(8, 6, 3), grad=(4, 3, 3), fmt="NHWC")) == 0
    assert code(product, **args(x=(8, 6, 3), grad=(8, 3, 1), fmt="NHWC")) == 161002
    # C is the last dim: zero there fails, a zero N is the empty success
    assert code(product, **args(x=(2, 8, 6, 0), grad=(2, 4, 3, 0), fmt="NHWC")) == 161002
    assert code(product, **args(x=(0, 8, 6, 3), grad=(0, 4, 3, 3), fmt="NHWC")) == 0
    # padding and output size use H and W from the NHWC positions: W 1 with kernel 2 -> no output
    assert code(product, **args(x=(2, 8, 1, 3), grad=(2, 4, 0, 3), fmt="NHWC")) == 161002


@pytest.mark.parametrize("product", OK)
def test_ceil_mode_changes_only_the_expected_shape(product):
    # H 7, k 2, s 2: floor gives 3, ceil gives 4
    assert code(product, **args(x=(2, 3, 7, 6), grad=(2, 3, 3, 3))) == 0
    assert code(product, **args(x=(2, 3, 7, 6), grad=(2, 3, 3, 3), ceilMode=True)) == 161002
    assert code(product, **args(x=(2, 3, 7, 6), grad=(2, 3, 4, 3), ceilMode=True)) == 0
