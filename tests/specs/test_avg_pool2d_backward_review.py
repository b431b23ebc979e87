"""Second reading of specs/avg_pool2d_backward.yaml against aclnn_avgpool2d_backward.cpp.

Written from the op_api code, not from the spec. CANN's decision procedure (CheckParams, then the rest of
aclnnAvgPool2dBackwardGetWorkspaceSize):

1. CheckNotNull: gradOutput, self, kernelSize, padding, gradInput (161001); stride may be null.
2. CheckDtypeVaild: gradOutput, self, gradInput each in the list (SocVersion 910B / 910_93 or regbase 950:
   FLOAT, FLOAT16, BFLOAT16; else FLOAT, FLOAT16), then gradOutput == gradInput (self is free) (161002).
3. CheckFormatVaild: each storage format NCHW or NCL; when gradOutput is 4-D, gradOutput and gradInput NCHW.
4. CheckDimsVaild: gradOutput and gradInput both 3-D or both 4-D; kernelSize length 1..2 with values > 0;
   stride (when not null) length <= 2 with values > 0; padding length <= 2.
5. CheckPaddingValidAvgPool2D: padding not empty; kH >= 2*pH and kW >= 2*pW (length-1 arrays repeat).
6. CheckCubeMathTypeValid: 0..3.  7. CheckOutputShape: self's shape == gradInput's shape.
8. Empty gradOutput, self or gradInput: success.
9. 950 (regbase): the global-average test (divisorOverride 0, kernel == self's H, W, both >= 10, gradOutput
   1x1) takes a Div graph; otherwise CheckArrayDataAvgPoolBackWard walks kernelSize's length and rejects a
   negative padding (161002), then AvgPoolV2Grad.
10. Other products, BuildAvgPool2dBackwardGraph: the same global test first; then 910/310P/310B check
   divisorOverride in [-255, 255] (CheckCubeSupport, 161002) and build the Cube graph, whose failures
   become 161002 (FLOAT32 cube without cubeMathType 1/2, negative padding: modelled, unverified); A2/A3
   take the Cube graph only when countIncludePad, !ceilMode, |divisor| <= 255, kernel small enough, no long
   strip and C < 65536, otherwise the AvgPool3DGrad graph after CheckArrayDataAvgPoolBackWard on the
   3-D-filled arrays (negative padding on either axis: 161002).
"""

from __future__ import annotations

import pytest

import aclnn
from tests.specs.verdicts import status

OP = "AvgPool2dBackward"
ALL = ["950", "910_93", "910b", "310b", "310p", "910"]
BF16 = ["950", "910_93", "910b"]
A2A3 = ["910_93", "910b"]
OLD = ["910", "310p"]  # Cube-only non-global path, divisor range checked


def t(shape, dtype="FLOAT", fmt=None):
    return aclnn.TensorDesc(shape, dtype, fmt or {3: "NCL", 4: "NCHW"}.get(len(shape), "ND"))


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
        gradInput=t(x, dtype),
    )
    values.update(over)
    return values


def glob(x=(2, 3, 12, 10), **over):
    """A call that takes the global-average branch (self's H and W >= 10, kernel == H, W, gradOutput 1x1)."""
    values = dict(kernelSize=list(x[-2:]), stride=list(x[-2:]))
    values.update(over)
    return args(grad=x[:-2] + (1, 1), x=x, **values)


def code(product="910b", **kwargs):
    return status(OP, product, **kwargs)


# ---------------------------------------------------------------- 1. null pointers


@pytest.mark.parametrize("product", ALL)
@pytest.mark.parametrize("name", ["gradOutput", "self", "kernelSize", "padding", "gradInput"])
def test_null_pointer_comes_before_every_other_error(product, name):
    bad = args(dtype="INT32", kernelSize=[0, 0, 0], padding=[5, 5, 5], cubeMathType=9)
    bad[name] = None
    assert code(product, **bad) == 161001


@pytest.mark.parametrize("product", ["910", "310p", "910b", "910_93"])
def test_null_stride_is_kernel_size_on_the_cube_path(product):
    # CalculateStrideHW reads a null stride as kernelSize; 950 and the A2/A3 AvgPool3DGrad path would
    # dereference it (undefined, not asserted)
    assert code(product, **args(stride=None)) == 0
    assert code(product, **glob(stride=None)) == 0


# ---------------------------------------------------------------- 2. dtypes


@pytest.mark.parametrize("product", ALL)
def test_dtype_lists(product):
    ok = 0 if product != "310b" else 161002  # 310b: the product-supported failure after every check
    for dtype in ("FLOAT", "FLOAT16"):
        assert code(product, **args(dtype=dtype)) == ok, dtype
    assert code(product, **args(dtype="BFLOAT16")) == (0 if product in BF16 else 161002)
    for dtype in ("DOUBLE", "INT32", "INT8", "UINT8", "BOOL", "INT64", "COMPLEX64", "HIFLOAT8"):
        assert code(product, **args(dtype=dtype)) == 161002, dtype


@pytest.mark.parametrize("product", BF16)
def test_self_dtype_is_independent(product):
    # CheckDtypeVaild compares gradOutput with gradInput only; self just has to be in the list
    for go, s in (("FLOAT", "FLOAT16"), ("FLOAT16", "BFLOAT16"), ("BFLOAT16", "FLOAT")):
        call = args(dtype=go, self=t((2, 3, 8, 8), s))
        assert code(product, **call) == 0, (go, s)
    assert code(product, **args(self=t((2, 3, 8, 8), "DOUBLE"))) == 161002
    assert code(product, **args(gradInput=t((2, 3, 8, 8), "FLOAT16"))) == 161002
    assert code(product, **args(dtype="BFLOAT16", gradInput=t((2, 3, 8, 8), "FLOAT"))) == 161002


@pytest.mark.parametrize("product", OLD)
def test_bf16_self_is_rejected_even_when_self_dtype_is_free(product):
    assert code(product, **args(self=t((2, 3, 8, 8), "BFLOAT16"))) == 161002
    assert code(product, **args(self=t((2, 3, 8, 8), "FLOAT16"))) == 0


def test_check_keys_come_before_the_empty_return():
    for product in ALL:
        empty = args(grad=(0, 3, 4, 4), x=(0, 3, 8, 8))
        assert code(product, **{**empty, "gradInput": t((0, 3, 8, 8), "FLOAT16")}) == 161002, product
        assert code(product, **{**empty, "self": t((0, 3, 8, 8), "DOUBLE")}) == 161002, product


# ---------------------------------------------------------------- 3. formats


@pytest.mark.parametrize("product", ["950", "910b", "910"])
def test_formats(product):
    for fmt in ("ND", "NHWC", "HWCN", "NC1HWC0", "FRACTAL_Z"):
        for name, shape in (("gradOutput", (2, 3, 4, 4)), ("self", (2, 3, 8, 8)), ("gradInput", (2, 3, 8, 8))):
            assert code(product, **args(**{name: t(shape, fmt=fmt)})) == 161002, (fmt, name)
    # 4-D gradOutput: gradOutput and gradInput NCHW; self's NCL passes
    assert code(product, **args(gradOutput=t((2, 3, 4, 4), fmt="NCL"))) == 161002
    assert code(product, **args(gradInput=t((2, 3, 8, 8), fmt="NCL"))) == 161002
    assert code(product, **args(self=t((2, 3, 8, 8), fmt="NCL"))) == 0
    # 3-D: any mix of NCHW and NCL
    for fg, fs, fi in (("NCHW", "NCHW", "NCHW"), ("NCL", "NCHW", "NCL"), ("NCHW", "NCL", "NCHW")):
        call = args(gradOutput=t((3, 4, 4), fmt=fg), self=t((3, 8, 8), fmt=fs), gradInput=t((3, 8, 8), fmt=fi))
        assert code(product, **call) == 0, (fg, fs, fi)
    # ND is rejected even for 3-D tensors
    assert code(product, **args(grad=(3, 4, 4), x=(3, 8, 8), self=t((3, 8, 8), fmt="ND"))) == 161002


def test_format_checks_come_before_the_empty_return():
    empty = args(grad=(0, 3, 4, 4), x=(0, 3, 8, 8))
    assert code(**{**empty, "gradInput": t((0, 3, 8, 8), fmt="NCL")}) == 161002
    assert code(**{**empty, "self": t((0, 3, 8, 8), fmt="ND")}) == 161002


# ---------------------------------------------------------------- 4./7. ranks and shapes


@pytest.mark.parametrize("product", ["950", "910b", "910"])
@pytest.mark.parametrize(
    "grad, x, out",
    [
        ((3, 4, 4), (2, 3, 8, 8), (2, 3, 8, 8)),  # gradOutput 3-D, gradInput 4-D
        ((2, 3, 4, 4), (3, 8, 8), (3, 8, 8)),  # gradOutput 4-D, gradInput 3-D
        ((1, 2, 3, 4, 4), (1, 2, 3, 8, 8), (1, 2, 3, 8, 8)),  # 5-D
        ((4, 4), (8, 8), (8, 8)),  # 2-D
        ((2, 3, 4, 4), (3, 8, 8), (2, 3, 8, 8)),  # self 3-D, the rest 4-D: self-shape
        ((2, 3, 4, 4), (2, 3, 8, 8), (2, 3, 8, 9)),  # gradInput W differs
        ((2, 3, 4, 4), (2, 3, 8, 8), (1, 3, 8, 8)),  # gradInput N differs
        ((3, 4, 4), (3, 8, 8), (4, 8, 8)),  # 3-D: gradInput C differs
    ],
)
def test_ranks_and_output_shape(product, grad, x, out):
    assert code(product, **args(grad=grad, x=x, gradInput=t(out))) == 161002


def test_gradinput_shape_check_comes_before_the_empty_return():
    assert code(**args(grad=(0, 3, 4, 4), x=(0, 3, 8, 8), gradInput=t((0, 3, 8, 9)))) == 161002
    assert code(**args(x=(2, 3, 0, 8), gradInput=t((2, 3, 8, 8)))) == 161002


@pytest.mark.parametrize("product", ALL)
def test_grad_output_shape_is_not_a_parameter_check(product):
    """Nothing compares gradOutput's N, C, H or W with self: an empty gradOutput alone returns success even
    when its N differs from self's."""
    assert code(product, **args(grad=(0, 3, 4, 4))) == 0
    assert code(product, **args(grad=(2, 0, 4, 4))) == 0
    assert code(product, **args(grad=(5, 7, 0, 4))) == 0
    assert code(product, **args(grad=(3, 0, 4), x=(3, 8, 8))) == 0


# ---------------------------------------------------------------- 4./5./6. attributes


@pytest.mark.parametrize("product", ["950", "910b", "910"])
def test_attribute_lengths_and_signs(product):
    for kernel in ([], [2, 2, 2], [0], [2, 0], [-1, 2]):
        assert code(product, **args(kernelSize=kernel)) == 161002, kernel
    for stride in ([2, 2, 2], [0], [2, -1], [-2]):
        assert code(product, **args(stride=stride)) == 161002, stride
    for stride in ([], [2], [2, 2], [1, 3]):
        assert code(product, **args(stride=stride)) == 0, stride
    for padding in ([], [0, 0, 0]):
        assert code(product, **args(padding=padding)) == 161002, padding
    for cube in (-1, 4, 127, -128):
        assert code(product, **args(cubeMathType=cube)) == 161002, cube
    for cube in (1, 2):
        assert code(product, **args(cubeMathType=cube)) == 0, cube


@pytest.mark.parametrize("product", ["950", "910b", "910"])
@pytest.mark.parametrize(
    "kernel, padding, ok",
    [
        ([3], [1], True),  # 3 >= 2
        ([3], [2], False),  # 3 < 4
        ([4], [2], True),  # 4 >= 4
        ([5, 1], [2], False),  # padding [2] also applies to W: 1 < 4
        ([4, 2], [2, 1], True),
        ([4, 2], [2, 2], False),
        ([1, 4], [0, 2], True),
        ([2], [1, 1], True),  # kernel [2] applies to both axes
        ([2], [0, 2], False),  # W: 2 < 4
    ],
)
def test_padding_at_most_half_the_kernel(product, kernel, padding, ok):
    """Checked in CheckParams, so it also fails an empty call."""
    call = args(kernelSize=kernel, padding=padding, grad=(0, 3, 4, 4), x=(0, 3, 8, 8))
    assert code(product, **call) == (0 if ok else 161002)


def test_attribute_checks_come_before_the_empty_return():
    empty = dict(grad=(0, 3, 4, 4), x=(0, 3, 8, 8))
    assert code(**args(kernelSize=[], **empty)) == 161002
    assert code(**args(stride=[0], **empty)) == 161002
    assert code(**args(padding=[], **empty)) == 161002
    assert code(**args(cubeMathType=5, **empty)) == 161002


# ---------------------------------------------------------------- 8. empty tensors skip every later failure


@pytest.mark.parametrize("product", ALL)
def test_empty_skips_the_branch_failures(product):
    for empty in (dict(grad=(0, 3, 4, 4), x=(0, 3, 8, 8)), dict(x=(2, 3, 0, 8)), dict(grad=(3, 4, 4), x=(3, 0, 8))):
        assert code(product, **args(divisorOverride=1000, **empty)) == 0
        assert code(product, **args(padding=[-1], **empty)) == 0
        assert code(product, **args(cubeMathType=0, **empty)) == 0


# ---------------------------------------------------------------- 9./10. the global-average branch


@pytest.mark.parametrize("product", ALL)
def test_global_branch_boundaries(product):
    """cubeMathType 0 with FLOAT tells the branches apart on 910/310P (only the Cube fails on it); on 310B
    the global branch fails with 561103, the Cube branch with 161002."""
    if product in OLD:
        on, off = 0, 161002
    elif product == "310b":
        on, off = 561103, 161002
    else:
        on = off = 0
    assert code(product, **glob(cubeMathType=0)) == on
    assert code(product, **glob(x=(2, 3, 10, 10), cubeMathType=0)) == on
    assert code(product, **glob(x=(3, 10, 11), cubeMathType=0)) == on  # 3-D
    assert code(product, **glob(x=(2, 3, 10, 10), kernelSize=[10], cubeMathType=0)) == on  # length-1 kernel
    # one condition off each time
    assert code(product, **glob(x=(2, 3, 9, 10), cubeMathType=0)) == off  # H < 10
    assert code(product, **glob(x=(2, 3, 10, 9), cubeMathType=0)) == off  # W < 10
    assert code(product, **glob(divisorOverride=1, cubeMathType=0)) == off
    assert code(product, **glob(kernelSize=[12, 8], cubeMathType=0)) == off  # kernel != self's H, W
    assert code(product, **glob(x=(2, 3, 10, 12), kernelSize=[10], cubeMathType=0)) == off  # [10] -> 10x10
    call = glob(cubeMathType=0)
    assert code(product, **{**call, "gradOutput": t((2, 3, 1, 2))}) == off  # gradOutput not 1x1


@pytest.mark.parametrize("product", ["950", "910_93", "910b", "310p", "910"])
def test_global_branch_ignores_padding_and_modes(product):
    assert code(product, **glob(padding=[-3])) == 0
    assert code(product, **glob(padding=[-1, 2], ceilMode=True, countIncludePad=False)) == 0


# ---------------------------------------------------------------- 10. divisorOverride range


@pytest.mark.parametrize("product", ALL)
def test_divisor_range(product):
    checked = product in OLD or product == "310b"
    for divisor in (256, -256, 2**40, -(2**63)):
        assert code(product, **args(divisorOverride=divisor)) == (161002 if checked else 0), divisor
    for divisor in (255, -255, 1, -1):
        assert code(product, **args(divisorOverride=divisor)) == (161002 if product == "310b" else 0), divisor


# ---------------------------------------------------------------- 9./10. negative padding


@pytest.mark.parametrize(
    "path",
    [
        {},  # Cube graph
        {"countIncludePad": False},  # AvgPool3DGrad graph on A2/A3
        {"ceilMode": True},
        {"divisorOverride": 256},
        {"x": (2, 3, 8, 16), "gradInput": t((2, 3, 8, 16))},  # long strip W/H == 2
        {"kernelSize": [21, 13]},  # kH > 20 and kH*kW > 255
    ],
)
@pytest.mark.parametrize("product", A2A3)
def test_a2_a3_negative_padding_on_both_graphs(product, path):
    call = args(padding=[-1], **{k: v for k, v in path.items() if k != "x"})
    if "x" in path:
        call["self"] = t(path["x"])
    assert code(product, **call) == 161002
    assert code(product, **{**call, "padding": [0, -1]}) == 161002
    assert code(product, **{**call, "padding": [0]}) == 0


def test_950_tests_only_the_padding_kernel_size_covers():
    assert code("950", **args(padding=[-1])) == 161002
    assert code("950", **args(padding=[-1, 0])) == 161002
    assert code("950", **args(padding=[0, -1])) == 0  # kernelSize [2]: only padding[0] is walked
    assert code("950", **args(kernelSize=[2, 2], padding=[0, -1])) == 161002
    assert code("950", **args(kernelSize=[2, 2], padding=[-1])) == 161002  # padding[0] for both axes


@pytest.mark.parametrize("product", OLD)
def test_old_products_negative_padding(product):
    # modelled: the Cube graph refuses it and the op_api turns that into 161002 (unverified)
    assert code(product, **args(padding=[0, -1])) == 161002
    # divisorOverride out of range fails first, with the same code
    assert code(product, **args(padding=[-1], divisorOverride=300)) == 161002


# ---------------------------------------------------------------- 10. Cube FLOAT32 on 910 / 310P


@pytest.mark.parametrize("product", ALL)
def test_cube_math_type_and_float32(product):
    for cube in (0, 3):
        expected = {"910": 161002, "310p": 161002, "310b": 161002}.get(product, 0)
        assert code(product, **args(cubeMathType=cube)) == expected, cube
        assert code(product, **args(dtype="FLOAT16", cubeMathType=cube)) == (161002 if product == "310b" else 0)
    for cube in (1, 2):
        assert code(product, **args(cubeMathType=cube)) == (161002 if product == "310b" else 0)


def test_310b_product_failure_is_after_every_parameter_check():
    assert code("310b", **args(gradInput=t((2, 3, 8, 9)))) == 161002
    assert code("310b", **args(grad=(0, 3, 4, 4), x=(0, 3, 8, 8))) == 0
    assert code("310b", **args(grad=(0, 3, 4, 4), x=(0, 3, 8, 8), cubeMathType=8)) == 161002
    assert code("310b", **glob()) == 561103
