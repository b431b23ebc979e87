"""Independent review of specs/elu_backward.yaml against CANN's aclnn_elu_backward.cpp.

Each case is one small call and the status CANN's ``aclnnEluBackwardGetWorkspaceSize`` returns, read
from the op_api code (function names cited), not from the doc or the spec. CANN's decision procedure:

1. ``CheckNotNull``: gradOutput, alpha, scale, inputScale, selfOrResult, gradInput (161001).
2. ``CheckDtypeValid``: gradOutput dtype == selfOrResult dtype; then gradOutput in {FLOAT, FLOAT16, BF16}
   on DAV_2201 (A2/A3) and 950, {FLOAT, FLOAT16} on any other arch (910, 310P, 310B); then alpha, scale,
   inputScale each CanCast to FLOAT; then CanCast(gradOutput dtype -> gradInput dtype) (161002).
3. ``CheckShape``: selfOrResult shape == gradOutput shape, gradInput shape == gradOutput shape (no
   broadcasting), gradOutput rank <= 8 (161002).
4. ``CheckAttributeValue``: isResult and alpha.ToFloat() < 0 (161002).
5. ``CheckFormat`` only logs (FRACTAL_NZ warns); no format is ever rejected.
6. Empty gradOutput: success before any kernel; otherwise EluGradV2 is added (310B: kernel availability
   unverified; the spec models its absence as 561103 on non-empty calls).
"""

from __future__ import annotations

import pytest

import aclnn
from tests.specs.verdicts import verdict

T = aclnn.TensorDesc
S = aclnn.Scalar
OK = None
NULL = 161001
INVALID = 161002


def call(dtype="FLOAT", shape=(2, 2), **over):
    values = dict(
        gradOutput=T(shape, dtype),
        alpha=1.0,
        scale=1.0,
        inputScale=1.0,
        isResult=True,
        selfOrResult=T(shape, dtype),
    )
    values.update(over)
    return values


def outcome(product, args):
    found = verdict("EluBackward", product, **args)
    return None if found is None else (found[1], found[0])


# (why, product, arguments, expected code, expected check id or None)
CASES = [
    # --- CheckNotNull: each pointer, and null before every other error
    ("gradOutput null", "910b", call(gradOutput=None), NULL, "null-pointers"),
    ("alpha null", "910b", call(alpha=None), NULL, "null-pointers"),
    ("alpha null, isResult false", "910b", call(alpha=None, isResult=False), NULL, "null-pointers"),
    ("scale null", "910", call(scale=None), NULL, "null-pointers"),
    ("inputScale null", "310p", call(inputScale=None), NULL, "null-pointers"),
    ("selfOrResult null", "950", call(selfOrResult=None), NULL, "null-pointers"),
    ("gradInput null", "910_93", call(gradInput=None), NULL, "null-pointers"),
    ("null before dtype mismatch", "910b", call("INT32", gradInput=None), NULL, "null-pointers"),
    ("null before empty success", "910b", call(shape=(0,), scale=None), NULL, "null-pointers"),
    ("null on 310b too", "310b", call(inputScale=None), NULL, "null-pointers"),
    # --- CheckDtypeValid: equality first, then the arch list
    ("dtypes differ", "910b", call(selfOrResult=T((2, 2), "FLOAT16")), INVALID, "dtype-same"),
    (
        "equality before list: BF16 vs FLOAT on 910",
        "910",
        call("BFLOAT16", selfOrResult=T((2, 2), "FLOAT")),
        INVALID,
        "dtype-same",
    ),
    (
        "equality before list: INT32 vs DOUBLE",
        "910b",
        call("INT32", selfOrResult=T((2, 2), "DOUBLE")),
        INVALID,
        "dtype-same",
    ),
    ("both INT32", "910b", call("INT32"), INVALID, "dtype-supported"),
    ("both DOUBLE", "950", call("DOUBLE"), INVALID, "dtype-supported"),
    ("both BOOL", "910b", call("BOOL", gradInput=T((2, 2), "BOOL")), INVALID, "dtype-supported"),
    ("both COMPLEX64", "910b", call("COMPLEX64"), INVALID, "dtype-supported"),
    ("8-bit float on 950", "950", call("HIFLOAT8"), INVALID, "dtype-supported"),
    ("BF16 on A2 (DAV_2201)", "910b", call("BFLOAT16"), OK, None),
    ("BF16 on A3 (DAV_2201)", "910_93", call("BFLOAT16"), OK, None),
    ("BF16 on 950 (regbase)", "950", call("BFLOAT16"), OK, None),
    ("BF16 on 910", "910", call("BFLOAT16"), INVALID, "dtype-supported"),
    ("BF16 on 310p", "310p", call("BFLOAT16"), INVALID, "dtype-supported"),
    ("BF16 on 310b (DAV_3002 is not DAV_2201)", "310b", call("BFLOAT16"), INVALID, "dtype-supported"),
    ("FLOAT on 910", "910", call("FLOAT"), OK, None),
    ("FLOAT16 on 310p", "310p", call("FLOAT16"), OK, None),
    ("list before scalar cast", "910b", call("DOUBLE", alpha=S(1, "COMPLEX64")), INVALID, "dtype-supported"),
    # --- scalars castable to FLOAT (each, whatever isResult is)
    ("complex alpha", "910b", call(alpha=S(1, "COMPLEX64")), INVALID, "scalar-castable"),
    (
        "complex alpha, isResult false",
        "910b",
        call(alpha=S(1, "COMPLEX128"), isResult=False),
        INVALID,
        "scalar-castable",
    ),
    ("complex scale", "910b", call(scale=S(1, "COMPLEX64")), INVALID, "scalar-castable"),
    ("complex inputScale", "910", call(inputScale=S(1, "COMPLEX128")), INVALID, "scalar-castable"),
    (
        "integer and bool scalars",
        "910b",
        call(alpha=S(2, "INT8"), scale=S(True, "BOOL"), inputScale=S(3, "UINT64")),
        OK,
        None,
    ),
    (
        "double and half scalars",
        "910b",
        call(alpha=S(0.5, "DOUBLE"), scale=S(2.0, "FLOAT16"), inputScale=S(1.5, "BFLOAT16")),
        OK,
        None,
    ),
    (
        "scalar cast before result cast",
        "910b",
        call(scale=S(1, "COMPLEX64"), gradInput=T((2, 2), "INT32")),
        INVALID,
        "scalar-castable",
    ),
    # --- CanCast(gradOutput -> gradInput): any float or complex target, no integer or bool
    ("float to int32", "910b", call(gradInput=T((2, 2), "INT32")), INVALID, "result-castable"),
    ("float to int8", "910b", call(gradInput=T((2, 2), "INT8")), INVALID, "result-castable"),
    ("float to bool", "910b", call(gradInput=T((2, 2), "BOOL")), INVALID, "result-castable"),
    ("half to uint8", "310p", call("FLOAT16", gradInput=T((2, 2), "UINT8")), INVALID, "result-castable"),
    ("float to double", "910b", call(gradInput=T((2, 2), "DOUBLE")), OK, None),
    ("float to complex64", "910b", call(gradInput=T((2, 2), "COMPLEX64")), OK, None),
    ("bf16 to float16", "910_93", call("BFLOAT16", gradInput=T((2, 2), "FLOAT16")), OK, None),
    ("gradInput BF16 on 910: only castability is checked", "910", call(gradInput=T((2, 2), "BFLOAT16")), OK, None),
    ("result cast before shape", "910b", call(gradInput=T((3,), "INT32")), INVALID, "result-castable"),
    # --- CheckShape: exact equality, then rank <= 8
    ("selfOrResult shape differs", "910b", call(selfOrResult=T((2, 3), "FLOAT")), INVALID, "shape-same"),
    ("gradInput shape differs", "910b", call(gradInput=T((2, 3), "FLOAT")), INVALID, "shape-same"),
    ("broadcastable is not equal", "910b", call(selfOrResult=T((1, 2), "FLOAT")), INVALID, "shape-same"),
    ("same numel, other shape", "910b", call(gradInput=T((4,), "FLOAT")), INVALID, "shape-same"),
    ("0-d vs 1-element 1-d", "910b", call(shape=(), selfOrResult=T((1,), "FLOAT")), INVALID, "shape-same"),
    ("shape before rank", "910b", call(shape=(1,) * 9, selfOrResult=T((1,) * 8, "FLOAT")), INVALID, "shape-same"),
    ("rank 9", "910b", call(shape=(1,) * 9), INVALID, "max-rank"),
    ("rank 8", "910b", call(shape=(1,) * 8), OK, None),
    ("rank 0", "910b", call(shape=()), OK, None),
    ("rank before alpha", "910b", call(shape=(1,) * 9, alpha=-1.0), INVALID, "max-rank"),
    # --- CheckAttributeValue: isResult && alpha.ToFloat() < 0
    ("alpha -1, isResult", "910b", call(alpha=-1.0), INVALID, "alpha-non-negative"),
    ("alpha -1, not isResult", "910b", call(alpha=-1.0, isResult=False), OK, None),
    ("int alpha -1", "910b", call(alpha=S(-1, "INT64")), INVALID, "alpha-non-negative"),
    ("int alpha most negative", "910b", call(alpha=S(-(2**63), "INT64")), INVALID, "alpha-non-negative"),
    ("bool alpha false is 0", "910b", call(alpha=S(False, "BOOL")), OK, None),
    ("alpha 0", "910b", call(alpha=0.0), OK, None),
    ("alpha -0.0", "910b", call(alpha=-0.0), OK, None),
    ("alpha NaN", "910b", call(alpha=float("nan")), OK, None),
    ("alpha -inf", "910b", call(alpha=float("-inf")), INVALID, "alpha-non-negative"),
    (
        "double alpha below float32's smallest half-ulp",
        "910b",
        call(alpha=S(-1.0e-45, "DOUBLE")),
        INVALID,
        "alpha-non-negative",
    ),
    ("double alpha -2^-150 rounds to -0.0", "910b", call(alpha=S(-(2.0**-150), "DOUBLE")), OK, None),
    (
        "double alpha just below -2^-150",
        "910b",
        call(alpha=S(-(2.0**-150) * (1 + 2.0**-52), "DOUBLE")),
        INVALID,
        "alpha-non-negative",
    ),
    ("float alpha -1e-46 is stored as -0.0", "910b", call(alpha=S(-1.0e-46, "FLOAT")), OK, None),
    ("negative scale and inputScale are fine", "910b", call(scale=-2.0, inputScale=-3.0), OK, None),
    ("alpha rule on 310p", "310p", call(alpha=-0.5), INVALID, "alpha-non-negative"),
    # --- empty gradOutput: every check runs first, then success without a kernel
    ("empty", "910b", call(shape=(0, 3)), OK, None),
    ("empty on 910", "910", call(shape=(2, 0)), OK, None),
    ("empty with shape mismatch", "910b", call(shape=(0, 3), gradInput=T((0, 2), "FLOAT")), INVALID, "shape-same"),
    ("empty with negative alpha", "910b", call(shape=(0,), alpha=-1.0), INVALID, "alpha-non-negative"),
    ("empty with bad dtype", "910", call("BFLOAT16", shape=(0,)), INVALID, "dtype-supported"),
    ("empty with rank 9", "910b", call(shape=(0,) * 9), INVALID, "max-rank"),
    ("empty on 310b returns before the kernel", "310b", call(shape=(0, 2)), OK, None),
    # --- CheckFormat never rejects
    (
        "FRACTAL_NZ only warns",
        "910b",
        call(gradOutput=T((2, 2), "FLOAT", "FRACTAL_NZ"), selfOrResult=T((2, 2), "FLOAT", "FRACTAL_NZ")),
        OK,
        None,
    ),
    (
        "mixed public formats",
        "910b",
        call(
            shape=(1, 1, 2, 2), gradOutput=T((1, 1, 2, 2), "FLOAT", "NCHW"), gradInput=T((1, 1, 2, 2), "FLOAT", "NHWC")
        ),
        OK,
        None,
    ),
    ("private format", "910", call(gradInput=T((2, 2), "FLOAT", "NC1HWC0")), OK, None),
    ("non-contiguous strides", "910b", call(gradOutput=T((2, 2), "FLOAT", strides=(1, 2))), OK, None),
    # --- 310b: no product check in the op_api; every parameter check runs with the FLOAT/FLOAT16 list
    ("310b dtype mismatch", "310b", call(selfOrResult=T((2, 2), "FLOAT16")), INVALID, "dtype-same"),
    ("310b shape mismatch", "310b", call(gradInput=T((3, 2), "FLOAT")), INVALID, "shape-same"),
    ("310b valid non-empty call: missing kernel (unverified)", "310b", call("FLOAT"), 561103, "product-supported"),
]


@pytest.mark.parametrize(("why", "product", "args", "code", "check"), CASES, ids=[c[0] for c in CASES])
def test_case(why, product, args, code, check):
    expected = None if code is None else (code, check)
    assert outcome(product, args) == expected, why


def test_half_scalar_alpha_is_compared_as_stored():
    # aclCreateScalar(FLOAT16) stores fp16(-1e-8) == -0.0; alpha.ToFloat() is -0.0, not < 0.
    # aclnn.Scalar holds the value as its dtype does, so the validator sees the same -0.0.
    assert outcome("910b", call(alpha=S(-1.0e-8, "FLOAT16"))) is None
    # fp16 keeps -1e-4 negative: rejected
    assert outcome("910b", call(alpha=S(-1.0e-4, "FLOAT16"))) == (INVALID, "alpha-non-negative")


def test_out_of_range_int8_alpha_is_refused_when_built():
    # An INT8 aclScalar cannot hold 255 (C would wrap it to -1): aclnn.Scalar refuses to build it
    # rather than let the validator and the C call disagree on the value.
    with pytest.raises(aclnn.AclnnError, match="does not fit its dtype INT8"):
        S(255, "INT8")
