"""Independent review of specs/convolution_backward.yaml against CANN's op_api code.

Each case is one small call and the status CANN's ``aclnnConvolutionBackwardGetWorkspaceSize`` returns,
read from ``aclnn_convolution_backward.cpp`` and ``convolution_backward_checker.cpp`` (function names
cited), not from the doc or the spec. CANN's decision procedure (950 = regbase DAV_3510, A2/A3 = DAV_2201):

1. ``CheckNotNull``: gradOutput, input, weight, stride, padding, dilation, outputPadding, outputMask;
   outputMask length 3; gradInput/gradWeight/gradBias when their mask bit is set (all 161001).
   biasSizes is never null-checked here.
2. ``CheckDtypeValid`` per tensor (gradOutput, input, weight, then each NON-NULL output, whatever the mask):
   950 {F32, F16, BF16, HIF8} (+FP8_E4M3FN when not transposed); A2/A3/310B {F32, F16, BF16};
   910/310P {F32, F16}. 950 only: gradInput == input, gradWeight == weight (unless weight is 8-bit),
   gradBias == gradOutput (``CheckDataTypeValidFor*``).
3. ``CheckParamsFor8Bit`` (950 only): ``InterceptConvFor8bit`` (8-bit refused unless transposed and
   mask[0], only when gradInput and gradWeight are both non-null), ``CheckDtypeValidFor8bit`` (mask[0]),
   ``CheckDtypeValidForBpFilter8bit`` and ``CheckParamsValidForBpFilter8bit`` (mask[1]).
4. ``CheckFormatValid``: rank 3 ND/NCL, 4 NCHW, 5 NCDHW, other ranks refused (gradOutput, input, weight,
   non-null gradInput/gradWeight); gradBias ND when not transposed on A2/A3/950.
5. ``CheckConvParams``: stride >= 1, padding >= 0, dilation >= 1, outputPadding (transposed: >= 0 and, 3-D,
   < stride; else all 0), groups >= 1. ``CheckCubeMathTypeConvBackward``: 0..3 and the promoted dtype.
6. A2/A3/950 with an empty input or weight: return success here (shape checks skipped).
7. ``CheckConvShape`` (ranks, gradOutput/weight non-empty, output shapes, gradBias [Cout], param lengths),
   ``CheckConvChannelAndGroup`` (depthwise rule off 950), ``CheckConvShapePlus`` (3-D only).
8. Entry: empty input/weight/gradOutput -> ``CheckEmptyTensor`` (biasSizes, input N or C == 0, then on
   A2/A3/950 ``CheckShapeEmpty``); otherwise ``CalculateConvolutionBackward``: 3-D (``CalculateConv3DBp``)
   refused on other archs (161002), then ``CheckSupportedForConv3dBackpropFilter`` on A2/A3 (161002);
   l0 failures are 561103 (310B: no kernel, modelled as 561103 on non-empty calls).
"""

from __future__ import annotations

import pytest

import aclnn
from tests.specs.verdicts import verdict

T = aclnn.TensorDesc
OK = None
NULL = 161001
INVALID = 161002
INNER = 561103
FMT = {3: "NCL", 4: "NCHW", 5: "NCDHW"}


def t(shape, dtype="FLOAT", fmt=None):
    shape = tuple(shape)
    return T(shape, dtype, fmt or FMT.get(len(shape), "ND"))


def call(
    sp=2,
    dtype="FLOAT",
    n=2,
    cin=2,
    cout=2,
    size=7,
    groups=1,
    transposed=False,
    mask=(True, True, True),
    gw_dtype=None,
    **over,
):
    """A consistent call: 1x1 kernel, stride 1, no padding; sp spatial dims; all dtypes equal."""
    spatial = (size,) * sp
    ones = [1] * sp
    zeros = [0] * sp
    g = groups if groups >= 1 else 1
    if transposed:
        w_shape = (cin, cout // g) + (1,) * sp
    else:
        w_shape = (cout, cin // g) + (1,) * sp
    values = dict(
        gradOutput=t((n, cout) + spatial, dtype),
        input=t((n, cin) + spatial, dtype),
        weight=t(w_shape, dtype),
        biasSizes=[cout],
        stride=ones,
        padding=zeros,
        dilation=ones,
        transposed=transposed,
        outputPadding=zeros,
        groups=groups,
        outputMask=list(mask),
        cubeMathType=1,
        gradInput=t((n, cin) + spatial, dtype) if mask[0] else None,
        gradWeight=t(w_shape, gw_dtype or dtype) if mask[1] else None,
        gradBias=t((cout,), dtype) if mask[2] else None,
    )
    values.update(over)
    return values


def empty2d(**over):
    """2-D with input N == 0 (gradOutput N == 0 too)."""
    values = call(
        input=t((0, 2, 7, 7)),
        gradOutput=t((0, 2, 7, 7)),
        gradInput=t((0, 2, 7, 7)),
    )
    values.update(over)
    return values


def hif(transposed=True, mask=(True, True, True), **over):
    """950 8-bit call: HIFLOAT8 everywhere, FLOAT gradWeight, cubeMathType 0."""
    values = call(dtype="HIFLOAT8", transposed=transposed, mask=mask, gw_dtype="FLOAT", cubeMathType=0)
    values.update(over)
    return values


def conv3d(dtype="FLOAT", groups=1, gw_dtype=None, **over):
    return call(sp=3, dtype=dtype, groups=groups, gw_dtype=gw_dtype, **over)


def outcome(product, args):
    found = verdict("ConvolutionBackward", product, **args)
    return None if found is None else (found[1], found[0])


ALL = ["950", "910_93", "910b", "310p", "910"]

# (why, product, arguments, expected code, expected check id or None)
CASES = [
    # --- baselines per product and rank
    *[(f"2-D baseline {p}", p, call(), OK, None) for p in ALL],
    *[(f"1-D baseline {p}", p, call(sp=1), OK, None) for p in ALL],
    *[(f"2-D transposed baseline {p}", p, call(transposed=True), OK, None) for p in ALL],
    ("3-D baseline A2", "910b", conv3d(), OK, None),
    ("3-D baseline A3", "910_93", conv3d(), OK, None),
    ("3-D baseline 950", "950", conv3d(), OK, None),
    ("3-D transposed baseline A2", "910b", conv3d(transposed=True), OK, None),
    (
        "1-D all ND",
        "910b",
        call(sp=1, **{k: t((2, 2, 7), fmt="ND") for k in ("gradOutput", "input", "gradInput")}),
        OK,
        None,
    ),
    ("1-D ND weight", "910", call(sp=1, weight=t((2, 2, 1), fmt="ND"), gradWeight=t((2, 2, 1), fmt="ND")), OK, None),
    ("310b non-empty: no kernel (CalculateConv2DBp)", "310b", call(), INNER, "product-supported"),
    ("310b BF16 passes the FP32-cube list", "310b", call(dtype="BFLOAT16"), INNER, "product-supported"),
    ("310b cubeMathType 0 with FLOAT is allowed", "310b", call(cubeMathType=0), INNER, "product-supported"),
    ("no gradient requested", "910b", call(mask=(False, False, False)), OK, None),
    ("only gradBias", "910", call(mask=(False, False, True)), OK, None),
    ("biasSizes null is never read off the empty path", "910b", call(biasSizes=None), OK, None),
    ("biasSizes wrong is never read off the empty path", "950", call(biasSizes=[5, 6]), OK, None),
    # --- CheckNotNull
    *[
        (f"{name} null", "910b", call(**{name: None}), NULL, "null-pointers")
        for name in ("gradOutput", "input", "weight", "stride", "padding", "dilation", "outputPadding", "outputMask")
    ],
    ("outputMask of 2 is 161001", "910b", call(outputMask=[True, True]), NULL, "output-mask-length"),
    ("outputMask of 4 is 161001", "950", call(outputMask=[True, True, True, True]), NULL, "output-mask-length"),
    ("outputMask empty is 161001", "910", call(outputMask=[]), NULL, "output-mask-length"),
    ("gradInput null while requested", "910b", call(gradInput=None), NULL, "null-grad-input"),
    ("gradWeight null while requested", "910", call(gradWeight=None), NULL, "null-grad-weight"),
    ("gradBias null while requested", "950", call(gradBias=None), NULL, "null-grad-bias"),
    ("gradInput null not requested", "910b", call(mask=(False, True, True)), OK, None),
    ("gradWeight null not requested", "910b", call(mask=(True, False, True)), OK, None),
    ("gradBias null not requested", "910b", call(mask=(True, True, False)), OK, None),
    ("null before bad dtype", "910b", call(dtype="INT32", gradBias=None), NULL, "null-grad-bias"),
    ("null before empty path", "910b", empty2d(weight=None), NULL, "null-pointers"),
    (
        "mask length before requested null outputs",
        "910b",
        call(outputMask=[True, True], gradInput=None),
        NULL,
        "output-mask-length",
    ),
    ("null on 310b before the missing kernel", "310b", call(stride=None), NULL, "null-pointers"),
    # --- CheckDtypeValid per product
    ("BF16 on 910", "910", call(dtype="BFLOAT16"), INVALID, "dtype-supported"),
    ("BF16 on 310p", "310p", call(dtype="BFLOAT16"), INVALID, "dtype-supported"),
    ("BF16 on A3", "910_93", call(dtype="BFLOAT16"), OK, None),
    ("BF16 on 950", "950", call(dtype="BFLOAT16"), OK, None),
    ("FLOAT16 on 910", "910", call(dtype="FLOAT16", cubeMathType=0), OK, None),
    ("HIFLOAT8 on A2", "910b", call(dtype="HIFLOAT8"), INVALID, "dtype-supported"),
    ("DOUBLE weight", "910b", call(weight=t((2, 2, 1, 1), "DOUBLE")), INVALID, "dtype-supported"),
    ("INT8 input on 950", "950", call(input=t((2, 2, 7, 7), "INT8")), INVALID, "dtype-supported"),
    (
        "mixed float dtypes promote on A2",
        "910b",
        call(gradOutput=t((2, 2, 7, 7), "FLOAT16"), weight=t((2, 2, 1, 1), "BFLOAT16")),
        OK,
        None,
    ),
    ("gradInput dtype free on A2", "910b", call(gradInput=t((2, 2, 7, 7), "FLOAT16")), OK, None),
    (
        "gradInput BF16 on 910",
        "910",
        call(gradInput=t((2, 2, 7, 7), "BFLOAT16")),
        INVALID,
        "dtype-supported-grad-input",
    ),
    (
        "gradWeight INT32 though not requested",
        "910b",
        call(mask=(True, False, True), gradWeight=t((2, 2, 1, 1), "INT32")),
        INVALID,
        "dtype-supported-grad-weight",
    ),
    ("gradBias BF16 on 310p", "310p", call(gradBias=t((2,), "BFLOAT16")), INVALID, "dtype-supported-grad-bias"),
    ("gradBias FLOAT16 free on A2", "910b", call(gradBias=t((2,), "FLOAT16")), OK, None),
    (
        "950 gradInput must equal input",
        "950",
        call(gradInput=t((2, 2, 7, 7), "FLOAT16")),
        INVALID,
        "grad-input-dtype-950",
    ),
    (
        "950 gradInput equality even when not requested",
        "950",
        call(mask=(False, True, True), gradInput=t((2, 2, 7, 7), "BFLOAT16")),
        INVALID,
        "grad-input-dtype-950",
    ),
    (
        "950 gradWeight must equal weight",
        "950",
        call(gradWeight=t((2, 2, 1, 1), "FLOAT16")),
        INVALID,
        "grad-weight-dtype-950",
    ),
    ("950 gradBias must equal gradOutput", "950", call(gradBias=t((2,), "BFLOAT16")), INVALID, "grad-bias-dtype-950"),
    (
        "950 FP8 transposed refused by the list",
        "950",
        call(dtype="FLOAT8_E4M3FN", transposed=True),
        INVALID,
        "dtype-950-transposed",
    ),
    ("dtype before format", "910b", call(input=t((2, 2, 7, 7), "INT32", "NHWC")), INVALID, "dtype-supported"),
    # --- 950 8-bit rules
    ("HIF8 transposed all gradients", "950", hif(), OK, None),
    (
        "HIF8 transposed gradWeight HIF8",
        "950",
        hif(gradWeight=t((2, 2, 1, 1), "HIFLOAT8")),
        INVALID,
        "fp8-grad-weight-float",
    ),
    (
        "HIF8 transposed gradWeight FLOAT16",
        "950",
        hif(gradWeight=t((2, 2, 1, 1), "FLOAT16")),
        INVALID,
        "fp8-grad-weight-float",
    ),
    (
        "HIF8 transposed groups 2 with gradWeight",
        "950",
        hif(groups=2, weight=t((2, 1, 1, 1), "HIFLOAT8"), gradWeight=t((2, 1, 1, 1))),
        INVALID,
        "fp8-groups-one",
    ),
    (
        "HIF8 transposed groups 2 without gradWeight",
        "950",
        hif(mask=(True, False, True), groups=2, weight=t((2, 1, 1, 1), "HIFLOAT8"), gradWeight=None),
        OK,
        None,
    ),
    (
        "HIF8 transposed outputPadding with gradWeight",
        "950",
        hif(outputPadding=[1, 0], stride=[2, 1]),
        INVALID,
        "fp8-output-padding-zero",
    ),
    (
        "HIF8 transposed outputPadding without gradWeight",
        "950",
        hif(mask=(True, False, True), gradWeight=None, outputPadding=[1, 0], stride=[2, 1]),
        OK,
        None,
    ),
    ("HIF8 not transposed, both outputs", "950", hif(transposed=False), INVALID, "fp8-transposed-only"),
    (
        "HIF8 not transposed, gradInput only",
        "950",
        hif(transposed=False, mask=(True, False, False), gradWeight=None, gradBias=None),
        OK,
        None,
    ),
    (
        "HIF8 not transposed, gradWeight only",
        "950",
        hif(transposed=False, mask=(False, True, False), gradInput=None, gradBias=None),
        OK,
        None,
    ),
    (
        "HIF8 transposed, mask[0] false but gradInput given",
        "950",
        hif(mask=(False, True, True), gradInput=t((2, 2, 7, 7), "HIFLOAT8")),
        INVALID,
        "fp8-transposed-only",
    ),
    ("HIF8 transposed, gradWeight only", "950", hif(mask=(False, True, True), gradInput=None), OK, None),
    (
        "HIF8 mixed with FLOAT gradOutput",
        "950",
        hif(mask=(True, False, False), gradWeight=None, gradBias=None, gradOutput=t((2, 2, 7, 7))),
        INVALID,
        "fp8-all-same",
    ),
    (
        "HIF8 input only, gradWeight only",
        "950",
        call(
            mask=(False, True, False), gradInput=None, gradBias=None, input=t((2, 2, 7, 7), "HIFLOAT8"), cubeMathType=0
        ),
        INVALID,
        "fp8-grad-weight-float",
    ),
    (
        "FP8 not transposed, gradWeight only",
        "950",
        call(
            dtype="FLOAT8_E4M3FN",
            mask=(False, True, False),
            gw_dtype="FLOAT",
            gradInput=None,
            gradBias=None,
            cubeMathType=0,
        ),
        INVALID,
        "fp8-no-e4m3fn-grad-weight",
    ),
    (
        "FP8 not transposed, gradInput only",
        "950",
        call(dtype="FLOAT8_E4M3FN", mask=(True, False, False), gradWeight=None, gradBias=None, cubeMathType=0),
        OK,
        None,
    ),
    ("HIF8 gradBias FLOAT refused by the equality", "950", hif(gradBias=t((2,))), INVALID, "grad-bias-dtype-950"),
    (
        "8-bit rule before format",
        "950",
        hif(transposed=False, weight=t((2, 2, 1, 1), "HIFLOAT8", "ND")),
        INVALID,
        "fp8-transposed-only",
    ),
    # the equality chains of CheckDtypeValidFor8bit are "all or none", not a left-associative fold
    (
        "HIF8 input and gradInput only (F, H, F, H)",
        "950",
        call(
            transposed=True,
            mask=(True, False, False),
            gradWeight=None,
            gradBias=None,
            cubeMathType=0,
            input=t((2, 2, 7, 7), "HIFLOAT8"),
            gradInput=t((2, 2, 7, 7), "HIFLOAT8"),
        ),
        INVALID,
        "fp8-all-same",
    ),
    (
        "HIF8 gradOutput and weight only (H, F, H, F)",
        "950",
        call(
            transposed=True,
            mask=(True, False, False),
            gradWeight=None,
            gradBias=None,
            cubeMathType=0,
            gradOutput=t((2, 2, 7, 7), "HIFLOAT8"),
            weight=t((2, 2, 1, 1), "HIFLOAT8"),
        ),
        INVALID,
        "fp8-all-same",
    ),
    (
        "FP8 input and gradInput only, not transposed, gradInput only",
        "950",
        call(
            mask=(True, False, False),
            gradWeight=None,
            gradBias=None,
            cubeMathType=0,
            input=t((2, 2, 7, 7), "FLOAT8_E4M3FN"),
            gradInput=t((2, 2, 7, 7), "FLOAT8_E4M3FN"),
        ),
        INVALID,
        "fp8-all-same",
    ),
    (
        "HIF8 transposed, FP8 gradWeight though not requested",
        "950",
        hif(mask=(True, False, True), gradWeight=t((2, 2, 1, 1), "FLOAT8_E4M3FN")),
        INVALID,
        "dtype-950-transposed-grad-weight",
    ),
    ("HIF8 transposed, FLOAT gradWeight not requested", "950", hif(mask=(True, False, True)), OK, None),
    ("HIF8 transposed, no gradBias", "950", hif(mask=(True, True, False), gradBias=None), OK, None),
    (
        "HIF8 transposed, nothing 8-bit requested: no 8-bit rule runs",
        "950",
        hif(mask=(False, False, True), gradInput=t((2, 2, 7, 7), "HIFLOAT8"), gradWeight=t((2, 2, 1, 1))),
        OK,
        None,
    ),
    (
        "HIF8 gradOutput and gradBias only, gradInput requested",
        "950",
        call(
            mask=(True, False, True),
            gradWeight=None,
            cubeMathType=0,
            gradOutput=t((2, 2, 7, 7), "HIFLOAT8"),
            gradBias=t((2,), "HIFLOAT8"),
        ),
        INVALID,
        "fp8-all-same",
    ),
    (
        "1-D transposed HIF8",
        "950",
        call(sp=1, dtype="HIFLOAT8", transposed=True, gw_dtype="FLOAT", cubeMathType=0),
        OK,
        None,
    ),
    # --- CheckFormatValid
    ("input NHWC", "910b", call(input=t((2, 2, 7, 7), fmt="NHWC")), INVALID, "format-input"),
    ("gradOutput ND 4-D", "910", call(gradOutput=t((2, 2, 7, 7), fmt="ND")), INVALID, "format-grad-output"),
    ("weight ND 4-D", "950", call(weight=t((2, 2, 1, 1), fmt="ND")), INVALID, "format-weight"),
    ("3-D NDHWC input", "910b", conv3d(input=t((2, 2, 7, 7, 7), fmt="NDHWC")), INVALID, "format-input"),
    ("rank 6 input", "910b", call(input=t((2, 2, 7, 7, 1, 1), fmt="ND")), INVALID, "format-input"),
    ("rank 2 input", "910b", call(input=t((2, 2), fmt="ND")), INVALID, "format-input"),
    ("gradInput ND 4-D", "910b", call(gradInput=t((2, 2, 7, 7), fmt="ND")), INVALID, "format-grad-input"),
    (
        "gradInput bad format though not requested",
        "910b",
        call(mask=(False, True, True), gradInput=t((2, 2, 7, 7), fmt="NHWC")),
        INVALID,
        "format-grad-input",
    ),
    ("gradWeight NCL 4-D", "910b", call(gradWeight=t((2, 2, 1, 1), fmt="NCL")), INVALID, "format-grad-weight"),
    ("gradBias NCL on A2", "910b", call(gradBias=t((2,), fmt="NCL")), INVALID, "format-grad-bias"),
    ("gradBias NCL on 950", "950", call(gradBias=t((2,), fmt="NCL")), INVALID, "format-grad-bias"),
    ("gradBias NCL free on 910", "910", call(gradBias=t((2,), fmt="NCL")), OK, None),
    ("gradBias NCL free when transposed", "910b", call(transposed=True, gradBias=t((2,), fmt="NCL")), OK, None),
    ("NCL and ND mixed in 1-D", "910b", call(sp=1, input=t((2, 2, 7), fmt="ND")), OK, None),
    (
        "format before parameter values",
        "910b",
        call(input=t((2, 2, 7, 7), fmt="NHWC"), stride=[0, 1]),
        INVALID,
        "format-input",
    ),
    # --- CheckConvParams
    ("stride 0", "910b", call(stride=[1, 0]), INVALID, "stride-positive"),
    ("padding -1", "910", call(padding=[0, -1]), INVALID, "padding-non-negative"),
    ("dilation 0", "950", call(dilation=[0, 1]), INVALID, "dilation-positive"),
    ("outputPadding non-zero, not transposed", "910b", call(outputPadding=[0, 1]), INVALID, "output-padding-zero"),
    (
        "outputPadding of 4 non-zero, not transposed",
        "910b",
        call(outputPadding=[0, 0, 0, 1]),
        INVALID,
        "output-padding-zero",
    ),
    (
        "outputPadding -1 transposed",
        "910b",
        call(transposed=True, outputPadding=[-1, 0]),
        INVALID,
        "output-padding-non-negative",
    ),
    (
        "2-D transposed outputPadding >= stride not checked",
        "910b",
        call(transposed=True, outputPadding=[3, 3]),
        OK,
        None,
    ),
    (
        "3-D transposed outputPadding == stride",
        "910b",
        conv3d(transposed=True, outputPadding=[0, 1, 0]),
        INVALID,
        "output-padding-less-than-stride",
    ),
    ("groups 0", "910b", call(groups=0), INVALID, "groups-positive"),
    ("groups -3", "950", call(groups=-3), INVALID, "groups-positive"),
    ("stride value before stride length", "910b", call(stride=[0]), INVALID, "stride-positive"),
    ("padding value before padding length", "910b", call(padding=[-1, 0, 0]), INVALID, "padding-non-negative"),
    (
        "stride value before rank mismatch",
        "910b",
        call(stride=[0, 1], gradOutput=t((2, 2, 7))),
        INVALID,
        "stride-positive",
    ),
    # --- CheckCubeMathTypeConvBackward
    ("cubeMathType 4", "910b", call(cubeMathType=4), INVALID, "cube-math-type-range"),
    ("cubeMathType -1", "950", call(cubeMathType=-1), INVALID, "cube-math-type-range"),
    ("cubeMathType 3 allowed on A2", "910b", call(cubeMathType=3), OK, None),
    ("cubeMathType 0 FLOAT on 910", "910", call(cubeMathType=0), INVALID, "cube-math-type-fp32"),
    ("cubeMathType 3 FLOAT on 310p", "310p", call(cubeMathType=3), INVALID, "cube-math-type-fp32"),
    ("cubeMathType 2 FLOAT on 910", "910", call(cubeMathType=2), OK, None),
    ("cubeMathType 0 FLOAT16 on 910", "910", call(dtype="FLOAT16", cubeMathType=0), OK, None),
    (
        "cubeMathType 0 promoted FLOAT on 910",
        "910",
        call(dtype="FLOAT16", cubeMathType=0, weight=t((2, 2, 1, 1))),
        INVALID,
        "cube-math-type-fp32",
    ),
    ("cubeMathType 0 FLOAT on A2", "910b", call(cubeMathType=0), OK, None),
    ("cubeMathType 2 BF16 on A2 not checked", "910b", call(dtype="BFLOAT16", cubeMathType=2), OK, None),
    ("cube range before the empty skip", "910b", empty2d(cubeMathType=9), INVALID, "cube-math-type-range"),
    ("parameter values before the empty skip", "950", empty2d(dilation=[0, 1]), INVALID, "dilation-positive"),
    # --- CheckConvShape (non-empty)
    ("gradOutput rank 3 vs input rank 4", "910b", call(gradOutput=t((2, 2, 7))), INVALID, "rank-same"),
    (
        "weight rank 5 vs input rank 4",
        "950",
        call(weight=t((2, 2, 1, 1, 1)), gradWeight=t((2, 2, 1, 1, 1))),
        INVALID,
        "rank-same",
    ),
    ("gradOutput rank mismatch on 910", "910", call(gradOutput=t((2, 2, 7))), INVALID, "rank-same-910"),
    (
        "gradOutput empty, input not (A2)",
        "910b",
        call(gradOutput=t((2, 2, 0, 7))),
        INVALID,
        "grad-output-weight-not-empty",
    ),
    ("gradOutput empty on 950", "950", call(gradOutput=t((0, 2, 7, 7))), INVALID, "grad-output-weight-not-empty"),
    ("gradInput shape", "910b", call(gradInput=t((2, 2, 7, 6))), INVALID, "grad-input-shape"),
    (
        "gradInput shape though not requested",
        "950",
        call(mask=(False, True, True), gradInput=t((2, 2, 7, 6))),
        INVALID,
        "grad-input-shape",
    ),
    ("gradWeight shape", "910_93", call(gradWeight=t((2, 2, 1, 2))), INVALID, "grad-weight-shape"),
    ("gradWeight rank 3 NCL", "910b", call(gradWeight=t((2, 2, 1))), INVALID, "grad-weight-shape"),
    ("gradBias length", "910b", call(gradBias=t((3,))), INVALID, "grad-bias-shape"),
    ("gradBias rank 2", "910b", call(gradBias=t((2, 1), fmt="ND")), INVALID, "grad-bias-shape"),
    (
        "gradBias transposed uses gradOutput C",
        "910b",
        call(transposed=True, cin=2, cout=4, weight=t((2, 4, 1, 1)), gradWeight=t((2, 4, 1, 1)), gradBias=t((4,))),
        OK,
        None,
    ),
    (
        "gradBias transposed wrong",
        "910b",
        call(transposed=True, cin=2, cout=4, weight=t((2, 4, 1, 1)), gradWeight=t((2, 4, 1, 1)), gradBias=t((2,))),
        INVALID,
        "grad-bias-shape",
    ),
    ("stride of 1 in 2-D", "910b", call(stride=[1]), INVALID, "stride-length"),
    ("stride of 3 in 2-D", "910", call(stride=[1, 1, 1]), INVALID, "stride-length-910"),
    ("dilation of 1 in 2-D", "950", call(dilation=[1]), INVALID, "dilation-length"),
    ("padding of 4 in 2-D", "910b", call(padding=[0, 0, 0, 0]), OK, None),
    ("padding of 4 asymmetric in 2-D", "910b", call(padding=[1, 0, 0, 1]), OK, None),
    ("padding of 3 in 2-D", "910b", call(padding=[0, 0, 0]), INVALID, "padding-length"),
    ("padding of 2 in 1-D", "910b", call(sp=1, padding=[0, 0]), INVALID, "padding-length"),
    ("padding of 6 in 3-D", "910b", conv3d(padding=[0] * 6), INVALID, "padding-length"),
    ("padding of 4 in 3-D", "950", conv3d(padding=[0] * 4), INVALID, "padding-length"),
    ("outputPadding of 4 in 2-D accepted", "910b", call(outputPadding=[0, 0, 0, 0]), OK, None),
    ("outputPadding of 4 in 1-D", "910b", call(sp=1, outputPadding=[0, 0, 0, 0]), INVALID, "output-padding-length"),
    ("outputPadding of 1 in 2-D", "910", call(outputPadding=[0]), INVALID, "output-padding-length-910"),
    ("stride length before padding length", "910b", call(stride=[1], padding=[0]), INVALID, "stride-length"),
    (
        "shape checks before channels",
        "910b",
        call(gradInput=t((2, 2, 7, 6)), weight=t((3, 2, 1, 1)), gradWeight=t((3, 2, 1, 1))),
        INVALID,
        "grad-input-shape",
    ),
    (
        "gradBias shape checked though not requested",
        "950",
        call(mask=(True, True, False), gradBias=t((3,))),
        INVALID,
        "grad-bias-shape",
    ),
    ("gradBias 0-d", "910b", call(gradBias=t((), fmt="ND")), INVALID, "grad-bias-shape"),
    ("gradInput rank 5 for a rank-4 input", "910b", call(gradInput=t((2, 2, 7, 7, 1))), INVALID, "grad-input-shape"),
    ("empty stride", "910b", call(stride=[]), INVALID, "stride-length"),
    ("empty padding", "910b", call(padding=[]), INVALID, "padding-length"),
    (
        "3-D transposed outputPadding of 4",
        "910b",
        conv3d(transposed=True, outputPadding=[0, 0, 0, 0]),
        INVALID,
        "output-padding-length",
    ),
    (
        "3-D transposed outputPadding of 2",
        "910b",
        conv3d(transposed=True, outputPadding=[0, 0]),
        INVALID,
        "output-padding-length",
    ),
    ("0-d input", "910b", call(input=t((), fmt="ND")), INVALID, "format-input"),
    ("1-D cubeMathType 0 FLOAT on 910", "910", call(sp=1, cubeMathType=0), INVALID, "cube-math-type-fp32"),
    # --- CheckConvChannelAndGroup
    (
        "weight[0] != gradOutput C",
        "910b",
        call(weight=t((3, 2, 1, 1)), gradWeight=t((3, 2, 1, 1))),
        INVALID,
        "channels-weight-out",
    ),
    (
        "transposed weight[0] != input C",
        "950",
        call(transposed=True, weight=t((3, 2, 1, 1)), gradWeight=t((3, 2, 1, 1))),
        INVALID,
        "channels-weight-out",
    ),
    (
        "groups 2 with full weight",
        "910b",
        call(groups=2, weight=t((2, 2, 1, 1)), gradWeight=t((2, 2, 1, 1))),
        INVALID,
        "channels-groups",
    ),
    ("groups 2 consistent", "910b", call(groups=2, cin=4, cout=4), OK, None),
    (
        "input C not divisible by weight C",
        "910",
        call(cin=4, weight=t((2, 3, 1, 1)), gradWeight=t((2, 3, 1, 1))),
        INVALID,
        "channels-groups-910",
    ),
    ("transposed groups 2 consistent", "910b", call(transposed=True, groups=2, cin=4, cout=4), OK, None),
    (
        "transposed groups from gradOutput C",
        "910b",
        call(transposed=True, groups=2, cin=4, cout=4, gradOutput=t((2, 6, 7, 7)), gradBias=t((6,))),
        INVALID,
        "channels-groups",
    ),
    ("depthwise: gradOutput C < groups on A2", "910b", call(cin=4, cout=2, groups=4), INVALID, "depthwise-channels"),
    (
        "depthwise: gradOutput C < groups on 910",
        "910",
        call(cin=4, cout=2, groups=4),
        INVALID,
        "depthwise-channels-910",
    ),
    ("depthwise: gradOutput C < groups allowed on 950", "950", call(cin=4, cout=2, groups=4), OK, None),
    ("depthwise: gradOutput C % groups on A2", "910b", call(cin=4, cout=6, groups=4), INVALID, "depthwise-channels"),
    ("depthwise: multiplier 2 on A2", "910b", call(cin=4, cout=8, groups=4), OK, None),
    (
        "transposed depthwise uses input C",
        "910b",
        call(transposed=True, cin=2, cout=4, groups=4, weight=t((2, 1, 1, 1)), gradWeight=t((2, 1, 1, 1))),
        INVALID,
        "depthwise-channels",
    ),
    # --- 3-D: CheckConvShapePlus, CalculateConv3DBp, CheckSupportedForConv3dBackpropFilter
    ("3-D relation ignores N", "910b", conv3d(gradOutput=t((3, 2, 7, 7, 7))), OK, None),
    ("3-D on 910", "910", conv3d(), INVALID, "conv3d-unsupported"),
    ("3-D on 310p", "310p", conv3d(), INVALID, "conv3d-unsupported"),
    ("3-D on 310b: arch refused before the kernel", "310b", conv3d(), INVALID, "conv3d-unsupported"),
    ("3-D gradOutput D wrong on A2", "910b", conv3d(gradOutput=t((2, 2, 6, 7, 7))), INVALID, "spatial-3d"),
    ("3-D gradOutput W wrong on 950", "950", conv3d(gradOutput=t((2, 2, 7, 7, 8))), INVALID, "spatial-3d"),
    ("3-D spatial before arch on 910", "910", conv3d(gradOutput=t((2, 2, 6, 7, 7))), INVALID, "spatial-3d-910"),
    (
        "3-D kernel larger than padded input",
        "910b",
        conv3d(weight=t((2, 2, 9, 1, 1)), gradWeight=t((2, 2, 9, 1, 1)), gradOutput=t((2, 2, 0, 7, 7))),
        INVALID,
        "grad-output-weight-not-empty",
    ),
    (
        "3-D stride 2 padding 1 kernel 3",
        "910b",
        conv3d(
            weight=t((2, 2, 3, 3, 3)),
            gradWeight=t((2, 2, 3, 3, 3)),
            gradOutput=t((2, 2, 4, 4, 4)),
            stride=[2, 2, 2],
            padding=[1, 1, 1],
        ),
        OK,
        None,
    ),
    (
        "3-D stride 2 padding 1 kernel 3, off by one",
        "910b",
        conv3d(
            weight=t((2, 2, 3, 3, 3)),
            gradWeight=t((2, 2, 3, 3, 3)),
            gradOutput=t((2, 2, 4, 4, 3)),
            stride=[2, 2, 2],
            padding=[1, 1, 1],
        ),
        INVALID,
        "spatial-3d",
    ),
    (
        "3-D transposed: gradOutput is the conv input",
        "910b",
        conv3d(
            transposed=True,
            input=t((2, 2, 4, 7, 7)),
            gradInput=t((2, 2, 4, 7, 7)),
            stride=[2, 1, 1],
            outputPadding=[1, 0, 0],
        ),
        OK,
        None,
    ),
    (
        "3-D transposed: wrong input D",
        "950",
        conv3d(transposed=True, input=t((2, 2, 5, 7, 7)), gradInput=t((2, 2, 5, 7, 7)), stride=[2, 1, 1]),
        INVALID,
        "spatial-3d",
    ),
    (
        "3-D grouped dw, USE_FP16",
        "910b",
        conv3d(groups=2, cin=4, cout=4, cubeMathType=2),
        INVALID,
        "conv3d-dw-groups-fp16-math",
    ),
    (
        "3-D grouped dw, FLOAT16 to FLOAT",
        "910_93",
        conv3d("FLOAT16", groups=2, cin=4, cout=4, gw_dtype="FLOAT"),
        INVALID,
        "conv3d-dw-groups-half",
    ),
    (
        "3-D grouped dw, BF16 to FLOAT",
        "910b",
        conv3d("BFLOAT16", groups=2, cin=4, cout=4, gw_dtype="FLOAT"),
        INVALID,
        "conv3d-dw-groups-half",
    ),
    (
        "3-D grouped dw, USE_FP16 before half",
        "910b",
        conv3d("FLOAT16", groups=2, cin=4, cout=4, gw_dtype="FLOAT", cubeMathType=2),
        INVALID,
        "conv3d-dw-groups-fp16-math",
    ),
    ("3-D grouped dw, FLOAT16 to FLOAT16", "910b", conv3d("FLOAT16", groups=2, cin=4, cout=4), OK, None),
    (
        "3-D grouped dw, BF16 and FLOAT promote to FLOAT",
        "910b",
        conv3d("BFLOAT16", groups=2, cin=4, cout=4, gw_dtype="FLOAT", input=t((2, 4, 7, 7, 7))),
        OK,
        None,
    ),
    (
        "3-D grouped, gradWeight FLOAT but not requested",
        "910b",
        conv3d("FLOAT16", groups=2, cin=4, cout=4, mask=(True, False, True), gradWeight=t((4, 2, 1, 1, 1))),
        OK,
        None,
    ),
    ("3-D grouped USE_FP16 on 950", "950", conv3d(groups=2, cin=4, cout=4, cubeMathType=2), OK, None),
    ("3-D groups 1 USE_FP16", "910b", conv3d(cubeMathType=2), OK, None),
    ("2-D grouped USE_FP16 on A2", "910b", call(groups=2, cin=4, cout=4, cubeMathType=2), OK, None),
    # --- empty path (A2/A3/950 skip the shape checks; CheckEmptyTensor)
    ("empty N", "910b", empty2d(), OK, None),
    ("empty N on 950", "950", empty2d(), OK, None),
    (
        "empty C",
        "910_93",
        call(
            cin=0, input=t((2, 0, 7, 7)), gradInput=t((2, 0, 7, 7)), weight=t((2, 0, 1, 1)), gradWeight=t((2, 0, 1, 1))
        ),
        OK,
        None,
    ),
    ("empty: biasSizes null with mask[2]", "910b", empty2d(biasSizes=None), INVALID, "empty-bias-sizes-not-null"),
    (
        "empty: biasSizes null without mask[2]",
        "910b",
        empty2d(biasSizes=None, outputMask=[True, True, False], gradBias=None),
        OK,
        None,
    ),
    ("empty: biasSizes of 0", "910b", empty2d(biasSizes=[]), INVALID, "empty-bias-sizes-value"),
    ("empty: biasSizes of 2", "950", empty2d(biasSizes=[2, 2]), INVALID, "empty-bias-sizes-value"),
    (
        "empty: biasSizes from gradOutput C, not weight[0]",
        "910b",
        empty2d(gradOutput=t((0, 3, 7, 7)), biasSizes=[3]),
        OK,
        None,
    ),
    (
        "empty: biasSizes == weight[0] != gradOutput C",
        "910b",
        empty2d(gradOutput=t((0, 3, 7, 7)), biasSizes=[2]),
        INVALID,
        "empty-bias-sizes-value",
    ),
    (
        "empty transposed: biasSizes = weight[1] * groups",
        "910b",
        empty2d(
            transposed=True,
            groups=2,
            weight=t((2, 3, 1, 1)),
            gradWeight=t((2, 3, 1, 1)),
            gradOutput=t((0, 6, 7, 7)),
            biasSizes=[6],
        ),
        OK,
        None,
    ),
    (
        "empty transposed: biasSizes = weight[1]",
        "910b",
        empty2d(
            transposed=True,
            groups=2,
            weight=t((2, 3, 1, 1)),
            gradWeight=t((2, 3, 1, 1)),
            gradOutput=t((0, 6, 7, 7)),
            biasSizes=[3],
        ),
        INVALID,
        "empty-bias-sizes-value",
    ),
    (
        "empty H with gradInput requested",
        "910b",
        empty2d(input=t((2, 2, 0, 7)), gradOutput=t((2, 2, 0, 7)), gradInput=t((2, 2, 0, 7))),
        INVALID,
        "empty-input-n-or-c",
    ),
    (
        "empty H, no gradInput, formula one fails",
        "910b",
        empty2d(input=t((2, 2, 0, 7)), gradOutput=t((2, 2, 0, 7)), outputMask=[False, True, True], gradInput=None),
        INVALID,
        "empty-formula-one",
    ),
    (
        "empty H, no gradInput, padded",
        "910b",
        empty2d(
            input=t((2, 2, 0, 7)),
            gradOutput=t((2, 2, 0, 7)),
            outputMask=[False, True, True],
            gradInput=None,
            padding=[1, 0],
        ),
        OK,
        None,
    ),
    (
        "empty: bias check before input N/C",
        "910b",
        empty2d(input=t((2, 2, 0, 7)), gradOutput=t((2, 2, 0, 7)), gradInput=t((2, 2, 0, 7)), biasSizes=None),
        INVALID,
        "empty-bias-sizes-not-null",
    ),
    (
        "empty: input N/C before lengths",
        "950",
        empty2d(input=t((2, 2, 0, 7)), gradOutput=t((2, 2, 0, 7)), gradInput=t((2, 2, 0, 7)), stride=[1]),
        INVALID,
        "empty-input-n-or-c",
    ),
    ("empty: outputPadding of 4 in 2-D", "910b", empty2d(outputPadding=[0, 0, 0, 0]), OK, None),
    ("empty: outputPadding of 3 in 2-D", "910b", empty2d(outputPadding=[0, 0, 0]), INVALID, "empty-param-lengths"),
    ("empty: stride of 1 in 2-D", "950", empty2d(stride=[1]), INVALID, "empty-param-lengths"),
    (
        "empty: padding of 4 in 3-D",
        "910b",
        conv3d(input=t((0, 2, 7, 7, 7)), gradOutput=t((0, 2, 7, 7, 7)), gradInput=t((0, 2, 7, 7, 7)), padding=[0] * 4),
        INVALID,
        "empty-param-lengths",
    ),
    (
        "empty: weight[0] % groups",
        "910b",
        empty2d(
            groups=2, weight=t((3, 1, 1, 1)), gradWeight=t((3, 1, 1, 1)), gradOutput=t((0, 3, 7, 7)), biasSizes=[3]
        ),
        INVALID,
        "empty-weight-groups",
    ),
    ("empty: channels vs groups", "910b", empty2d(groups=2), INVALID, "empty-channels-groups"),
    (
        "empty: input C 0 and weight C 0",
        "950",
        call(
            cin=0,
            input=t((2, 0, 7, 7)),
            gradInput=t((2, 0, 7, 7)),
            weight=t((2, 0, 1, 1)),
            gradWeight=t((2, 0, 1, 1)),
            groups=2,
        ),
        OK,
        None,
    ),
    (
        "empty: weight[0] % groups with C 0",
        "950",
        call(
            cin=0,
            input=t((2, 0, 7, 7)),
            gradInput=t((2, 0, 7, 7)),
            weight=t((2, 0, 1, 1)),
            gradWeight=t((2, 0, 1, 1)),
            groups=3,
        ),
        INVALID,
        "empty-weight-groups",
    ),
    (
        "empty: weight C 0, input C 2",
        "910b",
        call(mask=(False, True, True), gradInput=None, weight=t((2, 0, 1, 1)), gradWeight=t((2, 0, 1, 1))),
        INVALID,
        "empty-channels-groups",
    ),
    (
        "empty weight Cout 0, no gradInput",
        "910b",
        call(
            mask=(False, True, False),
            gradInput=None,
            gradBias=None,
            weight=t((0, 2, 1, 1)),
            gradWeight=t((0, 2, 1, 1)),
            gradOutput=t((2, 0, 7, 7)),
        ),
        OK,
        None,
    ),
    (
        "empty weight with gradInput: input N, C non-zero",
        "910b",
        call(
            weight=t((0, 2, 1, 1)),
            gradWeight=t((0, 2, 1, 1)),
            gradOutput=t((2, 0, 7, 7)),
            mask=(True, True, False),
            gradBias=None,
        ),
        INVALID,
        "empty-input-n-or-c",
    ),
    ("empty transposed N", "910b", empty2d(transposed=True), OK, None),
    (
        "empty transposed: weight[0] != input C",
        "950",
        empty2d(transposed=True, input=t((0, 3, 7, 7)), gradInput=t((0, 3, 7, 7))),
        INVALID,
        "empty-transposed-weight",
    ),
    (
        "empty transposed N skips the channel rule",
        "910b",
        empty2d(transposed=True, gradOutput=t((0, 5, 7, 7)), biasSizes=[2]),
        OK,
        None,
    ),
    (
        "empty transposed C: weight[0] == 0",
        "910b",
        empty2d(
            transposed=True,
            input=t((2, 0, 7, 7)),
            gradInput=t((2, 0, 7, 7)),
            weight=t((0, 2, 1, 1)),
            gradWeight=t((0, 2, 1, 1)),
            gradOutput=t((2, 2, 7, 7)),
        ),
        INVALID,
        "empty-transposed-weight",
    ),
    (
        "empty: 4-value padding uses [0] for H and [1] for W",
        "910b",
        empty2d(
            input=t((0, 2, 1, 1)),
            gradInput=t((0, 2, 1, 1)),
            weight=t((2, 2, 3, 3)),
            gradWeight=t((2, 2, 3, 3)),
            padding=[1, 1, 0, 0],
        ),
        OK,
        None,
    ),
    (
        "empty: 4-value padding, W reads bottom",
        "910b",
        empty2d(
            input=t((0, 2, 1, 1)),
            gradInput=t((0, 2, 1, 1)),
            weight=t((2, 2, 3, 3)),
            gradWeight=t((2, 2, 3, 3)),
            padding=[2, 0, 0, 2],
        ),
        INVALID,
        "empty-formula-one",
    ),
    ("empty skips output shapes on A2", "910b", empty2d(gradInput=t((0, 2, 7, 6))), OK, None),
    ("empty skips rank equality on 950", "950", empty2d(gradOutput=t((0, 2, 7))), OK, None),
    ("empty skips channels on A2", "910b", empty2d(gradOutput=t((0, 5, 7, 7)), biasSizes=[5]), OK, None),
    (
        "empty skips the 3-D relation on A2",
        "910b",
        conv3d(input=t((0, 2, 7, 7, 7)), gradOutput=t((0, 2, 3, 7, 7)), gradInput=t((0, 2, 7, 7, 7))),
        OK,
        None,
    ),
    (
        "empty 3-D grouped USE_FP16 on A2 (no CalculateConv3DBp)",
        "910b",
        conv3d(
            groups=2,
            cin=4,
            cout=4,
            cubeMathType=2,
            input=t((0, 4, 7, 7, 7)),
            gradOutput=t((0, 4, 7, 7, 7)),
            gradInput=t((0, 4, 7, 7, 7)),
        ),
        OK,
        None,
    ),
    # --- empty on 910/310p/310b: every shape check runs first, no CheckShapeEmpty
    ("910: empty input, non-empty gradOutput", "910", empty2d(gradOutput=t((2, 2, 7, 7))), OK, None),
    ("910: empty gradOutput", "910", empty2d(), INVALID, "grad-output-weight-not-empty-910"),
    (
        "310p: empty weight",
        "310p",
        call(weight=t((2, 0, 1, 1)), gradWeight=t((2, 0, 1, 1))),
        INVALID,
        "grad-output-weight-not-empty-910",
    ),
    (
        "910: empty input, gradInput shape",
        "910",
        empty2d(gradOutput=t((2, 2, 7, 7)), gradInput=t((0, 2, 7, 6))),
        INVALID,
        "grad-input-shape-910",
    ),
    (
        "910: empty input, channels",
        "910",
        empty2d(gradOutput=t((2, 3, 7, 7)), biasSizes=[3], gradBias=t((3,))),
        INVALID,
        "channels-weight-out-910",
    ),
    (
        "910: empty input, biasSizes null",
        "910",
        empty2d(gradOutput=t((2, 2, 7, 7)), biasSizes=None),
        INVALID,
        "empty-bias-sizes-not-null",
    ),
    (
        "910: empty input H, gradInput requested",
        "910",
        empty2d(input=t((2, 2, 0, 7)), gradInput=t((2, 2, 0, 7)), gradOutput=t((2, 2, 7, 7))),
        INVALID,
        "empty-input-n-or-c",
    ),
    (
        "910: empty input, stride length not rechecked",
        "910",
        empty2d(gradOutput=t((2, 2, 7, 7)), outputPadding=[0, 0, 0, 0]),
        OK,
        None,
    ),
    ("910: empty 3-D input passes", "910", conv3d(input=t((0, 2, 7, 7, 7)), gradInput=t((0, 2, 7, 7, 7))), OK, None),
    (
        "910: empty 3-D input, spatial relation",
        "910",
        conv3d(input=t((0, 2, 7, 7, 7)), gradInput=t((0, 2, 7, 7, 7)), gradOutput=t((2, 2, 6, 7, 7))),
        INVALID,
        "spatial-3d-910",
    ),
    ("310b: empty input passes", "310b", empty2d(gradOutput=t((2, 2, 7, 7))), OK, None),
    ("310b: empty gradOutput", "310b", empty2d(), INVALID, "grad-output-weight-not-empty-910"),
    ("310b: depthwise rule", "310b", call(cin=4, cout=2, groups=4), INVALID, "depthwise-channels-910"),
]


@pytest.mark.parametrize(("why", "product", "args", "code", "check"), CASES, ids=[c[0] for c in CASES])
def test_case(why, product, args, code, check):
    expected = None if code is None else (code, check)
    assert outcome(product, args) == expected, why
