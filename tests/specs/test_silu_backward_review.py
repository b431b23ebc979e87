"""Review of specs/silu_backward.yaml: adversarial first-phase cases written from the op_api code.

Decision procedure of aclnnSiluBackwardGetWorkspaceSize as read from aclnn_silu_backward.cpp (CheckParams,
then the entry function) and silu_grad.cpp (l0 SiluGrad), restated:
  1. CheckNotNull: gradOutput, self, gradInput -> 161001.
  2. CheckDtypeValid: gradOutput, self, gradInput each in {FLOAT16, FLOAT, BF16} (every product); then on
     regbase (950) with gradOutput dtype != self dtype: gradInput must be FLOAT; otherwise gradOutput and self
     must both equal gradInput; then BF16 self or gradOutput off DAV_2201/regbase (310b, 310p, 910).
  3. CheckShapeValid: ranks of gradOutput, self <= 8; off 950: gradOutput shape == gradInput shape, then
     self shape == gradInput shape; on 950: gradOutput and self broadcast and gradInput == the broadcast.
  4. gradOutput or self empty -> success. Then SiluGrad (a failure to add the kernel -> null -> 561103);
     the spec models the missing kernel on the products the doc marks unsupported (310b, 310p) that way.
"""

from __future__ import annotations

import pytest

from tests.specs.verdicts import T, verdict

OP = "SiluBackward"
ALL = ("950", "910_93", "910b", "310b", "310p", "910")
NOT_950 = ("910_93", "910b", "310b", "310p", "910")
BF16_OK = ("950", "910_93", "910b")
BF16_NO = ("310b", "310p", "910")
UNLISTED = ("310b", "310p")


def call(product="910b", g=(2, 3), s=None, o=None, gd="FLOAT", sd=None, od=None, **over):
    s = g if s is None else s
    kw = dict(gradOutput=T(g, gd), self=T(s, sd or gd), gradInput=T(o if o is not None else g, od or gd))
    kw.update(over)
    return verdict(OP, product, **kw)


OK = None
NULL = ("null-pointers", 161001)
LIST = ("dtype-supported", 161002)
SAME = ("dtype-same", 161002)
BF16 = ("bf16-product", 161002)
RANK = ("max-rank", 161002)
SHAPE = ("shape-same", 161002)
BCAST = ("broadcastable", 161002)
OUT = ("out-shape", 161002)
NOKERNEL = ("product-supported", 561103)


def accepted(product):
    return NOKERNEL if product in UNLISTED else OK


@pytest.mark.parametrize("product", ALL)
@pytest.mark.parametrize("name", ["gradOutput", "self", "gradInput"])
def test_each_null_first(product, name):
    assert call(product, gd="DOUBLE", g=(0,), **{name: None}) == NULL


@pytest.mark.parametrize("product", ALL)
@pytest.mark.parametrize("dtype", ["DOUBLE", "INT32", "INT8", "BOOL", "COMPLEX64", "UINT8"])
def test_each_tensor_in_one_list(product, dtype):
    assert call(product, gd=dtype, sd="FLOAT", od="FLOAT") == LIST
    assert call(product, gd="FLOAT", sd=dtype, od="FLOAT") == LIST
    assert call(product, gd="FLOAT", sd="FLOAT", od=dtype) == LIST


@pytest.mark.parametrize("product", ALL)
@pytest.mark.parametrize("dtype", ["FLOAT", "FLOAT16"])
def test_float_and_half(product, dtype):
    assert call(product, gd=dtype) == accepted(product)


@pytest.mark.parametrize("product", BF16_OK)
def test_bf16_on_a2_a3_950(product):
    assert call(product, gd="BFLOAT16") is OK


@pytest.mark.parametrize("product", BF16_NO)
def test_bf16_after_the_equal_dtype_rule_elsewhere(product):
    assert call(product, gd="BFLOAT16") == BF16
    # a BF16 input with unequal dtypes is reported as unequal first
    assert call(product, gd="BFLOAT16", sd="FLOAT", od="FLOAT") == SAME
    assert call(product, gd="FLOAT", sd="BFLOAT16", od="BFLOAT16") == SAME


@pytest.mark.parametrize("product", NOT_950)
def test_all_three_dtypes_equal_off_950(product):
    assert call(product, gd="FLOAT16", sd="FLOAT", od="FLOAT") == SAME
    assert call(product, gd="FLOAT", sd="FLOAT16", od="FLOAT") == SAME
    assert call(product, gd="FLOAT", sd="FLOAT", od="FLOAT16") == SAME
    assert call(product, gd="FLOAT16", sd="FLOAT16", od="FLOAT") == SAME


@pytest.mark.parametrize(
    "gd,sd,od,want",
    [
        ("FLOAT16", "FLOAT", "FLOAT", OK),  # mixed precision: gradInput must be FLOAT
        ("FLOAT", "BFLOAT16", "FLOAT", OK),
        ("BFLOAT16", "FLOAT16", "FLOAT", OK),
        ("FLOAT16", "FLOAT", "FLOAT16", SAME),
        ("BFLOAT16", "FLOAT16", "BFLOAT16", SAME),
        ("FLOAT16", "FLOAT16", "FLOAT", SAME),  # equal inputs: gradInput must match them
        ("BFLOAT16", "BFLOAT16", "FLOAT", SAME),
        ("FLOAT16", "FLOAT16", "FLOAT16", OK),
        ("FLOAT16", "FLOAT", "DOUBLE", LIST),  # the list comes first
    ],
)
def test_950_mixed_precision(gd, sd, od, want):
    assert call("950", gd=gd, sd=sd, od=od) == want


def test_dtype_errors_before_ranks_and_shapes():
    assert call(gd="FLOAT16", sd="FLOAT", od="FLOAT", g=(1,) * 9, s=(4,), o=(7,)) == SAME
    assert call("910", gd="BFLOAT16", g=(1,) * 9, s=(4,), o=(7,)) == BF16


@pytest.mark.parametrize("product", NOT_950)
def test_equal_shapes_off_950(product):
    want = accepted(product)
    assert call(product, g=(1,) * 8) == want
    assert call(product, g=(), s=(), o=()) == want
    assert call(product, g=(1,) * 9) == RANK
    assert call(product, g=(2, 3), s=(1,) * 9) == RANK
    assert call(product, g=(2, 3), s=(3,), o=(2, 3)) == SHAPE  # no broadcasting here
    assert call(product, g=(3,), s=(2, 3), o=(2, 3)) == SHAPE
    assert call(product, g=(2, 3), s=(2, 3), o=(3, 2)) == SHAPE
    assert call(product, g=(1,) * 8, o=(1,) * 9) == SHAPE


def test_broadcasting_on_950():
    assert call("950", g=(2, 3), s=(3,), o=(2, 3)) is OK
    assert call("950", g=(3,), s=(2, 3), o=(2, 3)) is OK
    assert call("950", g=(2, 1), s=(1, 3), o=(2, 3)) is OK
    assert call("950", g=(), s=(4, 5), o=(4, 5)) is OK
    assert call("950", g=(2, 3), s=(2,), o=(2, 3)) == BCAST
    assert call("950", g=(2, 3), s=(2,), o=(9,)) == BCAST
    assert call("950", g=(2, 3), s=(3,), o=(3,)) == OUT
    assert call("950", g=(2, 1), s=(1, 3), o=(2, 1)) == OUT
    assert call("950", g=(1,) * 9, s=(3,), o=(3,)) == RANK  # rank before broadcasting
    assert call("950", g=(2, 3), gd="FLOAT16", sd="FLOAT", od="FLOAT", s=(3,), o=(2, 3)) is OK


@pytest.mark.parametrize("product", ALL)
def test_empty_after_every_check(product):
    assert call(product, g=(0, 3)) is OK
    assert call(product, g=(0, 3), gd="DOUBLE") == LIST
    assert call(product, g=(0, 3), od="FLOAT16") == SAME
    assert call(product, g=(0,) + (1,) * 8) == RANK
    if product == "950":
        assert call(product, g=(0, 3), s=(3,), o=(0, 3)) is OK
        assert call(product, g=(0, 3), s=(2, 3)) == BCAST
        assert call(product, g=(0, 3), o=(3,)) == OUT
    else:
        assert call(product, g=(0, 3), s=(3,), o=(0, 3)) == SHAPE
        assert call(product, g=(0, 3), o=(3,)) == SHAPE


@pytest.mark.parametrize("product", UNLISTED)
def test_unlisted_products_pass_every_check_then_miss_the_kernel(product):
    assert call(product) == NOKERNEL
    assert call(product, gd="BFLOAT16") == BF16
    assert call(product, o=(6,)) == SHAPE
    assert call(product, g=(0, 2)) is OK


@pytest.mark.parametrize("fmt", ["NCHW", "NHWC", "FRACTAL_NZ", "NC1HWC0"])
def test_no_format_check(fmt):
    shape = (1, 2, 3, 4)
    assert call(gradOutput=T(shape, fmt=fmt), self=T(shape), gradInput=T(shape, fmt=fmt)) is OK
