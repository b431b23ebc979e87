"""Review of specs/leaky_relu_backward.yaml: adversarial first-phase cases written from the op_api code.

Decision procedure of aclnnLeakyReluBackwardGetWorkspaceSize as read from aclnn_leaky_relu_backward.cpp
(CheckParams, then the entry function) and leaky_relu_grad.cpp (l0 LeakyReluGrad), restated:
  1. CheckNotNull: gradOutput, self, negativeSlope, out -> 161001.
  2. CheckDtypeValid: gradOutput, then self in {FLOAT, FLOAT16, DOUBLE} (+ BF16 on DAV_2201 / regbase, i.e.
     A2, A3, 950); negativeSlope in {FLOAT, FLOAT16, DOUBLE, INT32, INT64, INT8, UINT8, BOOL, INT16}
     (+ BF16 on the same archs).
  3. CheckShape: ranks of gradOutput, self <= 8; they broadcast; out shape == the broadcast.
  4. CheckIsResult: selfIsResult and negativeSlope.ToDouble() < 0 -> 161002 (the value as stored in the
     scalar's dtype: a tiny negative FLOAT/FLOAT16/BF16 value stored as -0 passes).
  5. CheckPromoteType: gradOutput and self promote; the promoted dtype converts (CanCast) to out's dtype.
  6. Entry: self empty -> success. Then casts, LeakyReluGrad (AI Core for FLOAT/FLOAT16 (+BF16 on A2/A3/950),
     else AI CPU; a failure to add it -> null -> 561103), Cast to out, ViewCopy.
"""

from __future__ import annotations

import pytest

import aclnn
from tests.specs.verdicts import T, verdict

OP = "LeakyReluBackward"
ALL = ("950", "910_93", "910b", "310b", "310p", "910")
LISTED = ("950", "910_93", "910b", "310p", "910")
BF16_OK = ("950", "910_93", "910b")
BF16_NO = ("310b", "310p", "910")


def S(value=0.01, dtype="FLOAT"):
    return aclnn.Scalar(value, dtype)


def call(product="910b", g=(2, 3), s=None, o=None, gd="FLOAT", sd=None, od=None, slope=None, res=False, **over):
    s = g if s is None else s
    kw = dict(
        gradOutput=T(g, gd),
        self=T(s, sd or gd),
        negativeSlope=slope or S(),
        selfIsResult=res,
        out=T(o if o is not None else s, od or sd or gd),
    )
    kw.update(over)
    return verdict(OP, product, **kw)


OK = None
NULL = ("null-pointers", 161001)
LIST = ("dtype-supported", 161002)
SLOPE = ("slope-dtype-supported", 161002)
RANK = ("max-rank", 161002)
BCAST = ("broadcastable", 161002)
OUT = ("out-shape", 161002)
NEG = ("slope-non-negative", 161002)
CAST = ("result-castable", 161002)
NOKERNEL = ("product-supported", 561103)


@pytest.mark.parametrize("product", ALL)
@pytest.mark.parametrize("name", ["gradOutput", "self", "negativeSlope", "out"])
def test_each_null_first(product, name):
    assert call(product, gd="INT32", g=(0,), res=True, slope=S(-1.0), **{name: None}) == NULL


@pytest.mark.parametrize("product", ALL)
@pytest.mark.parametrize("dtype", ["FLOAT", "FLOAT16", "DOUBLE"])
def test_float_half_double_on_every_product_list(product, dtype):
    want = NOKERNEL if product == "310b" and dtype != "DOUBLE" else OK
    assert call(product, gd=dtype) == want


@pytest.mark.parametrize("product", BF16_NO)
def test_bf16_tensors_only_on_a2_a3_950(product):
    assert call(product, gd="BFLOAT16") == LIST
    assert call(product, gd="FLOAT", sd="BFLOAT16", od="FLOAT") == LIST


@pytest.mark.parametrize("product", BF16_OK)
def test_bf16_tensors_on_a2_a3_950(product):
    assert call(product, gd="BFLOAT16") is OK
    assert call(product, gd="BFLOAT16", sd="FLOAT16", od="FLOAT") is OK  # promoted to FLOAT
    assert call(product, gd="BFLOAT16", sd="DOUBLE", od="DOUBLE") is OK


@pytest.mark.parametrize("product", ALL)
@pytest.mark.parametrize("dtype", ["INT32", "INT64", "INT8", "UINT8", "BOOL", "COMPLEX64", "UINT16"])
def test_non_float_tensors_rejected(product, dtype):
    assert call(product, gd=dtype, sd="FLOAT", od="FLOAT") == LIST
    assert call(product, gd="FLOAT", sd=dtype, od="FLOAT") == LIST


@pytest.mark.parametrize("product", LISTED)
@pytest.mark.parametrize(
    "sdt,value", [("INT32", 1), ("INT64", 2), ("INT8", 1), ("UINT8", 3), ("BOOL", True), ("INT16", 1), ("DOUBLE", 0.2)]
)
def test_slope_dtypes_accepted(product, sdt, value):
    assert call(product, slope=S(value, sdt)) is OK


@pytest.mark.parametrize("product", ALL)
@pytest.mark.parametrize("sdt,value", [("UINT16", 1), ("UINT32", 1), ("UINT64", 1), ("COMPLEX64", 0.5)])
def test_slope_dtypes_rejected(product, sdt, value):
    assert call(product, slope=S(value, sdt)) == SLOPE


def test_bf16_slope_follows_the_arch():
    for product in BF16_OK:
        assert call(product, slope=S(0.5, "BFLOAT16")) is OK
    for product in BF16_NO:
        assert call(product, slope=S(0.5, "BFLOAT16")) == SLOPE


def test_dtype_order_gradoutput_self_slope_then_shapes():
    assert call(gd="INT32", sd="FLOAT", slope=S(1, "UINT32")) == LIST
    assert call(slope=S(1, "UINT32"), g=(1,) * 9, s=(5,)) == SLOPE


def test_ranks_broadcast_out_shape():
    assert call(g=(1,) * 8) is OK
    assert call(g=(), s=(), o=()) is OK
    assert call(g=(1,) * 9, s=(3,), o=(3,)) == RANK
    assert call(g=(3,), s=(1,) * 9, o=(3,)) == RANK
    assert call(g=(1,) * 9, s=(4,), o=(9,)) == RANK  # rank before broadcasting
    assert call(g=(2, 3), s=(3,), o=(2, 3)) is OK
    assert call(g=(2, 1), s=(1, 3), o=(2, 3)) is OK
    assert call(g=(), s=(2, 3), o=(2, 3)) is OK
    assert call(g=(2, 3), s=(4,), o=(2, 3)) == BCAST
    assert call(g=(2, 3), s=(3,), o=(3,)) == OUT  # self's shape is not the broadcast
    assert call(g=(2, 3), s=(3,), o=(1, 2, 3)) == OUT
    assert call(g=(1,) * 8, o=(1,) * 9) == OUT  # out's rank is only compared


@pytest.mark.parametrize(
    "slope,ok",
    [
        (S(-0.5), False),
        (S(0.0), True),
        (S(-0.0), True),
        (S(float("nan")), True),
        (S(float("-inf")), False),
        (S(-1, "INT32"), False),
        (S(-1, "INT8"), False),
        (S(0, "INT64"), True),
        (S(True, "BOOL"), True),
        (S(-1e-300, "DOUBLE"), False),  # ToDouble of a DOUBLE: no float32 rounding
        (S(-1e-46, "FLOAT"), True),  # stored as float32 -0.0
        (S(-1e-44, "FLOAT"), False),  # a float32 subnormal, still negative
        (S(-(2.0**-25), "FLOAT16"), True),  # rounds to -0 in half precision (tie to even)
        (S(-3e-8, "FLOAT16"), False),  # rounds to the smallest half subnormal
        (S(-1e-8, "FLOAT16"), True),
        (S(-0.01, "FLOAT16"), False),
        (S(-1e-42, "BFLOAT16"), True),
        (S(-1e-39, "BFLOAT16"), False),
    ],
)
def test_negative_slope_with_self_is_result(slope, ok):
    assert call(slope=slope, res=True) == (OK if ok else NEG)
    assert call(slope=slope, res=False) is OK


def test_slope_value_after_shapes_and_before_promotion():
    assert call(slope=S(-1.0), res=True, o=(7,)) == OUT
    assert call(slope=S(-1.0), res=True, od="INT32") == NEG


@pytest.mark.parametrize("od", ["INT32", "INT8", "UINT8", "INT64", "BOOL", "UINT16"])
def test_out_must_be_castable_from_the_promoted_float(od):
    assert call(od=od) == CAST
    assert call(gd="DOUBLE", od=od) == CAST


@pytest.mark.parametrize("od", ["FLOAT", "FLOAT16", "DOUBLE", "BFLOAT16", "COMPLEX64", "COMPLEX128", "COMPLEX32"])
def test_out_any_float_or_complex(od):
    assert call(od=od) is OK
    assert call("910", od=od) is OK  # out's dtype is not checked against the list


@pytest.mark.parametrize("product", ALL)
def test_empty_self_returns_after_every_parameter_check(product):
    assert call(product, g=(0, 3)) is OK
    assert call(product, g=(3,), s=(0, 3), o=(0, 3)) is OK
    assert call(product, g=(0, 3), gd="INT32") == LIST
    assert call(product, g=(0, 3), slope=S(1, "UINT64")) == SLOPE
    assert call(product, g=(0, 3), s=(0, 4)) == BCAST
    assert call(product, g=(0, 3), o=(3,)) == OUT
    assert call(product, g=(0, 3), slope=S(-1.0), res=True) == NEG
    assert call(product, g=(0, 3), od="INT32") == CAST


@pytest.mark.parametrize("product", LISTED)
def test_empty_grad_output_with_non_empty_self_is_accepted(product):
    assert call(product, g=(0, 3), s=(3,), o=(0, 3)) is OK


def test_310b_passes_every_check_then_misses_the_ai_core_kernel():
    assert call("310b") == NOKERNEL
    assert call("310b", gd="FLOAT16") == NOKERNEL
    assert call("310b", gd="FLOAT16", sd="FLOAT") == NOKERNEL
    # DOUBLE runs on AI CPU
    assert call("310b", gd="DOUBLE") is OK
    assert call("310b", gd="FLOAT16", sd="DOUBLE", od="FLOAT") is OK
    # empty self returns before the kernel; every parameter error comes first
    assert call("310b", g=(0,)) is OK
    assert call("310b", od="INT32") == CAST
    assert call("310b", gd="BFLOAT16") == LIST


@pytest.mark.parametrize("fmt", ["NCHW", "NHWC", "FRACTAL_NZ", "NC1HWC0"])
def test_no_format_check(fmt):
    shape = (1, 2, 3, 4)
    assert call(gradOutput=T(shape, fmt=fmt), self=T(shape), out=T(shape, fmt=fmt)) is OK
