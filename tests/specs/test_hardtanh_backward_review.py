"""Review of specs/hardtanh_backward.yaml: adversarial first-phase cases written from the op_api code.

Decision procedure of aclnnHardtanhBackwardGetWorkspaceSize as read from aclnn_hardtanh_backward.cpp
(CheckParams, then the entry function) and hardtanh_grad.cpp (l0 HardtanhGrad), restated:
  1. CheckNotNull: self, gradOutput, out, min, max -> 161001.
  2. CheckDtypeValid (GetDtypeSupportList: FLOAT, FLOAT16, BF16 on DAV_2201 or regbase, i.e. A2/A3/950;
     FLOAT, FLOAT16 on 310b/310p/910): gradOutput, self, out each in the list, then gradOutput == self.
  3. CheckShapeValid: ranks of gradOutput, self <= 8, then gradOutput shape == self shape; out's shape is
     never compared; min and max are only read with ToFloat (no dtype or order check).
  4. Entry: gradOutput or self empty -> success.
  5. HardtanhGrad writes straight into out (no Cast); the l0 turns a failure to add the kernel into a null
     tensor -> 561103. An out whose dtype differs from the inputs' has no kernel: modelled as out-dtype
     (561103, unverified on a device).
"""

from __future__ import annotations

import pytest

import aclnn
from tests.specs.verdicts import T, verdict

OP = "HardtanhBackward"
ALL = ("950", "910_93", "910b", "310b", "310p", "910")
BF16_OK = ("950", "910_93", "910b")
BF16_NO = ("310b", "310p", "910")


def S(value=1.0, dtype="FLOAT"):
    return aclnn.Scalar(value, dtype)


def call(product="910b", g=(4, 2), s=None, o=None, gd="FLOAT", sd=None, od=None, lo=None, hi=None, **over):
    s = g if s is None else s
    kw = dict(
        gradOutput=T(g, gd),
        self=T(s, sd or gd),
        min=lo or S(-1.0),
        max=hi or S(1.0),
        out=T(o if o is not None else s, od or sd or gd),
    )
    kw.update(over)
    return verdict(OP, product, **kw)


OK = None
NULL = ("null-pointers", 161001)
LIST = ("dtype-supported", 161002)
SAME = ("dtype-same", 161002)
RANK = ("max-rank", 161002)
SHAPE = ("shape-same", 161002)
OUTDT = ("out-dtype", 561103)


@pytest.mark.parametrize("product", ALL)
@pytest.mark.parametrize("name", ["self", "gradOutput", "out", "min", "max"])
def test_each_null_first(product, name):
    assert call(product, g=(0,), gd="DOUBLE", s=(3,), **{name: None}) == NULL


@pytest.mark.parametrize("product", BF16_OK)
def test_bf16_on_a2_a3_950(product):
    assert call(product, gd="BFLOAT16") is OK


@pytest.mark.parametrize("product", BF16_NO)
def test_bf16_rejected_by_the_list_elsewhere(product):
    assert call(product, gd="BFLOAT16") == LIST
    # each of the three tensors is checked against the list, before the equal-dtype rule
    assert call(product, gd="FLOAT", sd="BFLOAT16") == LIST
    assert call(product, gd="FLOAT16", od="BFLOAT16") == LIST


@pytest.mark.parametrize("product", ALL)
@pytest.mark.parametrize("dtype", ["DOUBLE", "INT32", "INT8", "BOOL", "COMPLEX64", "UINT8", "INT64"])
def test_unsupported_dtypes_on_any_tensor(product, dtype):
    assert call(product, gd=dtype, sd="FLOAT", od="FLOAT") == LIST
    assert call(product, gd="FLOAT", sd=dtype, od="FLOAT") == LIST
    assert call(product, gd="FLOAT", sd="FLOAT", od=dtype) == LIST


@pytest.mark.parametrize("product", ALL)
def test_list_before_equality_and_equality_before_shapes(product):
    # gradOutput FLOAT16, self FLOAT: the list passes, equality fails
    assert call(product, gd="FLOAT16", sd="FLOAT") == SAME
    # a bad out dtype is found by the list before the unequal inputs
    assert call(product, gd="FLOAT16", sd="FLOAT", od="DOUBLE") == LIST
    assert call(product, gd="FLOAT16", sd="FLOAT", g=(1,) * 9, s=(2,)) == SAME


@pytest.mark.parametrize("product", ALL)
def test_out_dtype_must_match_for_the_kernel(product):
    # out passes the list but the kernel writes it directly: no kernel for mixed dtypes (561103)
    assert call(product, gd="FLOAT", od="FLOAT16") == OUTDT
    assert call(product, gd="FLOAT16", od="FLOAT") == OUTDT
    # the empty shortcut comes before the kernel
    assert call(product, g=(0, 2), gd="FLOAT", od="FLOAT16") is OK
    # and every parameter error comes first
    assert call(product, g=(4, 2), s=(2, 4), od="FLOAT16") == SHAPE


def test_out_dtype_bf16_pairs_on_a2():
    assert call("910b", gd="BFLOAT16", od="FLOAT") == OUTDT
    assert call("910b", gd="FLOAT", od="BFLOAT16") == OUTDT


def test_ranks_then_equal_shapes_no_broadcast():
    assert call(g=(1,) * 8) is OK
    assert call(g=(), s=(), o=()) is OK
    assert call(g=(1,) * 9, s=(2,)) == RANK
    assert call(g=(2,), s=(1,) * 9) == RANK
    assert call(g=(1,) * 9) == RANK
    assert call(g=(1, 2), s=(4, 2)) == SHAPE  # broadcastable is not enough
    assert call(g=(4, 2), s=(2, 4)) == SHAPE
    assert call(g=(), s=(1,)) == SHAPE
    assert call(g=(8,), s=(4, 2)) == SHAPE


@pytest.mark.parametrize("o", [(2, 4), (8,), (), (1,) * 9, (0,)])
def test_out_shape_is_not_compared(o):
    assert call(o=o) is OK


@pytest.mark.parametrize(
    "lo,hi",
    [
        (S(2.0), S(-2.0)),  # min > max
        (S(0.5), S(0.5)),
        (S(-1, "INT32"), S(1, "INT64")),
        (S(True, "BOOL"), S(3, "INT8")),
        (S(-1.0, "DOUBLE"), S(1.0, "FLOAT16")),
        (S(-1.0, "BFLOAT16"), S(1.0, "BFLOAT16")),
        (S(float("nan")), S(float("inf"))),
    ],
)
@pytest.mark.parametrize("product", ("910b", "910"))
def test_min_max_values_and_dtypes_are_not_checked(product, lo, hi):
    assert call(product, lo=lo, hi=hi) is OK


@pytest.mark.parametrize("product", ALL)
def test_empty_tensors_after_every_parameter_check(product):
    assert call(product, g=(0, 2)) is OK
    assert call(product, g=(2, 0, 3), o=(5,)) is OK
    assert call(product, g=(0, 2), gd="DOUBLE") == LIST
    assert call(product, g=(0, 2), gd="FLOAT16", sd="FLOAT") == SAME
    assert call(product, g=(0, 2), s=(0, 3)) == SHAPE
    assert call(product, g=(0, 2), s=(2,)) == SHAPE
    assert call(product, g=(0,) + (1,) * 8) == RANK


@pytest.mark.parametrize("fmt", ["NCHW", "NHWC", "FRACTAL_NZ", "NC1HWC0"])
def test_no_format_check(fmt):
    shape = (1, 2, 3, 4)
    assert call(gradOutput=T(shape, fmt=fmt), self=T(shape), out=T(shape, fmt=fmt)) is OK
