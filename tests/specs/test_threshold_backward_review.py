"""Review of specs/threshold_backward.yaml: adversarial first-phase cases written from the op_api code.

Decision procedure of aclnnThresholdBackwardGetWorkspaceSize as read from aclnn_threshold_backward.cpp
(the entry function, CheckParams) and threshold_grad.cpp (l0 ThresholdGradV2D), restated:
  1. threshold null -> 161001; its ToFloat() value is kept; out null -> 161001; then (CheckPtrValid)
     gradOutput, self null -> 161001.
  2. CheckDtypeValid: the list by arch - DAV_2201 (A2/A3): FLOAT, INT32, FLOAT16, INT8, UINT8, BF16; regbase
     (950): the same, plus INT64 when |threshold as float32| <= FLT_EPSILON (IsFloatEqual); others: without
     BF16. gradOutput, then self in the list; gradOutput dtype == self; out dtype == self.
  3. CheckShape: ranks of gradOutput, self <= 8.
  4. Entry: self and gradOutput broadcast; out shape == the broadcast; self or gradOutput empty -> success.
  5. ReluGrad (threshold ~ 0) or ThresholdGradV2D (whose l0 ignores the launcher result), ViewCopy.
"""

from __future__ import annotations

import pytest

import aclnn
from tests.specs.verdicts import T, verdict

OP = "ThresholdBackward"
ALL = ("950", "910_93", "910b", "310b", "310p", "910")
BF16_OK = ("950", "910_93", "910b")
BF16_NO = ("310b", "310p", "910")
EPS = 2.0**-23


def S(value=0.5, dtype="FLOAT"):
    return aclnn.Scalar(value, dtype)


def call(product="910b", g=(2, 2), s=None, o=None, gd="FLOAT", sd=None, od=None, th=None, **over):
    s = g if s is None else s
    kw = dict(
        gradOutput=T(g, gd),
        self=T(s, sd or gd),
        threshold=th or S(),
        out=T(o if o is not None else s, od or sd or gd),
    )
    kw.update(over)
    return verdict(OP, product, **kw)


OK = None
NULL = ("null-pointers", 161001)
LIST = ("dtype-supported", 161002)
SAME = ("dtype-same", 161002)
RANK = ("max-rank", 161002)
BCAST = ("broadcastable", 161002)
OUT = ("out-shape", 161002)


@pytest.mark.parametrize("product", ALL)
@pytest.mark.parametrize("name", ["threshold", "out", "gradOutput", "self"])
def test_each_null_first(product, name):
    assert call(product, gd="DOUBLE", g=(0,), s=(3,), **{name: None}) == NULL


@pytest.mark.parametrize("product", ALL)
@pytest.mark.parametrize("dtype", ["FLOAT", "FLOAT16", "INT32", "INT8", "UINT8"])
def test_common_list(product, dtype):
    assert call(product, gd=dtype) is OK
    assert call(product, gd=dtype, th=S(0.0)) is OK


@pytest.mark.parametrize("product", BF16_OK)
def test_bf16_on_a2_a3_950(product):
    assert call(product, gd="BFLOAT16") is OK


@pytest.mark.parametrize("product", BF16_NO)
def test_bf16_elsewhere(product):
    assert call(product, gd="BFLOAT16") == LIST
    assert call(product, gd="FLOAT", sd="BFLOAT16", od="BFLOAT16") == LIST  # self is listed too


@pytest.mark.parametrize("product", ALL)
@pytest.mark.parametrize("dtype", ["DOUBLE", "INT16", "BOOL", "UINT16", "COMPLEX64", "UINT32"])
def test_never_supported(product, dtype):
    assert call(product, gd=dtype, th=S(0.0)) == LIST
    assert call(product, gd="FLOAT", sd=dtype, od=dtype, th=S(0.0)) == LIST


@pytest.mark.parametrize(
    "th,ok",
    [
        (S(0.0), True),
        (S(-0.0), True),
        (S(0, "INT32"), True),
        (S(False, "BOOL"), True),
        (S(EPS), True),  # |a - b| <= FLT_EPSILON is inclusive
        (S(-EPS), True),
        (S(1.2e-7), False),  # just above FLT_EPSILON in float32
        (S(1e-7, "DOUBLE"), True),  # ToFloat of a double rounds to float32 first
        (S(1.1920929e-07, "DOUBLE"), True),  # rounds to FLT_EPSILON
        (S(1.2e-7, "DOUBLE"), False),
        (S(1.4e-7, "FLOAT16"), True),  # stored as the half 2^-23
        (S(1.6e-7, "FLOAT16"), False),  # stored as the half 3 * 2^-24
        (S(1.1965e-7, "BFLOAT16"), True),  # stored as the bf16 2^-23
        (S(1.2e-7, "BFLOAT16"), False),
        (S(float("nan")), False),
        (S(1, "INT32"), False),
        (S(0.5), False),
    ],
)
def test_int64_on_950_only_on_the_relu_grad_path(th, ok):
    assert call("950", gd="INT64", th=th) == (OK if ok else LIST)
    # on the other archs INT64 is never listed
    for product in ("910_93", "910b", "310p", "910", "310b"):
        assert call(product, gd="INT64", th=th) == LIST


def test_int64_self_alone_is_listed_before_equality():
    assert call("950", gd="FLOAT", sd="INT64", od="INT64", th=S(0.0)) == SAME
    assert call("950", gd="FLOAT", sd="INT64", od="INT64", th=S(1.0)) == LIST


@pytest.mark.parametrize("product", ALL)
def test_equal_dtypes_gradoutput_then_out(product):
    assert call(product, gd="FLOAT16", sd="FLOAT", od="FLOAT") == SAME
    assert call(product, gd="FLOAT", od="FLOAT16") == SAME
    assert call(product, gd="INT8", od="UINT8") == SAME
    # out's dtype only has to equal self's: an out outside the list is a mismatch
    assert call(product, gd="FLOAT", od="DOUBLE") == SAME
    assert call(product, gd="INT32", od="INT64") == SAME


@pytest.mark.parametrize(
    "tdt,value", [("DOUBLE", 1.0), ("INT64", 3), ("BOOL", True), ("COMPLEX64", 1.0), ("UINT64", 7), ("BFLOAT16", 1.0)]
)
@pytest.mark.parametrize("product", ("910b", "910"))
def test_threshold_dtype_is_not_checked(product, tdt, value):
    assert call(product, th=S(value, tdt)) is OK


def test_dtype_before_ranks_and_shapes():
    assert call(gd="DOUBLE", g=(1,) * 9, s=(3,), o=(5,)) == LIST
    assert call(od="FLOAT16", g=(1,) * 9, s=(3,), o=(5,)) == SAME


def test_ranks_then_broadcast_then_out_shape():
    assert call(g=(1,) * 8) is OK
    assert call(g=(), s=(), o=()) is OK
    assert call(g=(1,) * 9, s=(2,), o=(2,)) == RANK
    assert call(g=(2,), s=(1,) * 9, o=(2,)) == RANK
    assert call(g=(1,) * 9, s=(3,), o=(7,)) == RANK  # rank before broadcasting
    assert call(g=(2, 2), s=(2,), o=(2, 2)) is OK
    assert call(g=(2,), s=(3, 1), o=(3, 2)) is OK
    assert call(g=(2, 2), s=(3,), o=(2, 2)) == BCAST
    assert call(g=(2, 2), s=(3,), o=(9,)) == BCAST  # broadcast before the out shape
    assert call(g=(2, 2), s=(2,), o=(2,)) == OUT
    assert call(g=(2,), s=(3, 1), o=(3, 1)) == OUT
    assert call(g=(1,) * 8, o=(1,) * 9) == OUT


@pytest.mark.parametrize("product", ALL)
def test_empty_after_every_check(product):
    assert call(product, g=(0, 2)) is OK
    assert call(product, g=(2,), s=(0, 2), o=(0, 2)) is OK
    assert call(product, g=(0, 2), s=(1, 2), o=(0, 2)) is OK
    assert call(product, g=(0, 2), gd="DOUBLE") == LIST
    assert call(product, g=(0, 2), od="FLOAT16") == SAME
    assert call(product, g=(0, 2), s=(3, 2)) == BCAST
    assert call(product, g=(0, 2), s=(0, 2), o=(2,)) == OUT
    assert call(product, g=(0,) + (1,) * 8) == RANK


@pytest.mark.parametrize("product", ALL)
def test_no_product_check(product):
    assert call(product) is OK
    assert call(product, th=S(0.0)) is OK


@pytest.mark.parametrize("fmt", ["NCHW", "NHWC", "FRACTAL_NZ", "NC1HWC0"])
def test_no_format_check(fmt):
    shape = (1, 2, 3, 4)
    assert call(gradOutput=T(shape, fmt=fmt), self=T(shape), out=T(shape, fmt=fmt)) is OK
