"""Review of specs/sigmoid_backward.yaml: adversarial first-phase cases written from the op_api code.

Decision procedure of aclnnSigmoidBackwardGetWorkspaceSize as read from aclnn_sigmoid_backward.cpp
(CheckParams, then the entry function) and sigmoid_grad.cpp (l0 SigmoidGrad), restated:
  1. CheckNotNull: gradOutput, output, gradInput -> 161001.
  2. CheckDtypeValid: gradOutput, output, gradInput each in {FLOAT, FLOAT16, DOUBLE, COMPLEX64, COMPLEX128,
     BF16} (one list on every product); then a BF16 gradOutput outside SocVersion ASCEND910B..ASCEND910E.
  3. CheckShape: ranks of gradOutput, output <= 8 (gradInput's rank is not looked at).
  4. CheckPromoteType: gradOutput and output promote, the result is in the list, it converts (CanCast) to
     gradInput's dtype.
  5. CheckShapeBroadcast: gradOutput and output broadcast; the result equals gradInput's shape.
  6. gradOutput or output empty -> success. Then broadcast, casts, SigmoidGrad (AI Core for FLOAT/FLOAT16/BF16,
     launcher result ignored; AI CPU otherwise), Cast to gradInput, ViewCopy. No product or format check.
"""

from __future__ import annotations

import pytest

from tests.specs.verdicts import T, verdict

OP = "SigmoidBackward"
ALL = ("950", "910_93", "910b", "310b", "310p", "910")
BF16_OK = ("950", "910_93", "910b")
BF16_NO = ("310b", "310p", "910")
LIST_DTYPES = ("FLOAT", "FLOAT16", "DOUBLE", "COMPLEX64", "COMPLEX128", "BFLOAT16")


def call(product="910b", g=(2, 3), y=None, o=None, gd="FLOAT", yd=None, od=None, **over):
    y = g if y is None else y
    kw = dict(gradOutput=T(g, gd), output=T(y, yd or gd), gradInput=T(o if o is not None else g, od or gd))
    kw.update(over)
    return verdict(OP, product, **kw)


OK = None
NULL = ("null-pointers", 161001)
LIST = ("dtype-supported", 161002)
BF16 = ("bf16-product", 161002)
RANK = ("max-rank", 161002)
CAST = ("result-castable", 161002)
BCAST = ("broadcastable", 161002)
OUT = ("out-shape", 161002)


@pytest.mark.parametrize("product", ALL)
@pytest.mark.parametrize("name", ["gradOutput", "output", "gradInput"])
def test_each_null_first(product, name):
    assert call(product, gd="INT32", g=(0,), **{name: None}) == NULL


@pytest.mark.parametrize("product", ALL)
@pytest.mark.parametrize("dtype", ["FLOAT", "FLOAT16", "DOUBLE", "COMPLEX64", "COMPLEX128"])
def test_list_on_every_product(product, dtype):
    assert call(product, gd=dtype) is OK


@pytest.mark.parametrize("product", ALL)
@pytest.mark.parametrize("dtype", ["INT32", "INT64", "INT8", "UINT8", "BOOL", "COMPLEX32", "UINT16"])
def test_each_tensor_in_the_list(product, dtype):
    assert call(product, gd=dtype, yd="FLOAT", od="FLOAT") == LIST
    assert call(product, gd="FLOAT", yd=dtype, od="FLOAT") == LIST
    assert call(product, gd="FLOAT", yd="FLOAT", od=dtype) == LIST


@pytest.mark.parametrize("product", BF16_NO)
def test_bf16_grad_output_only_is_limited(product):
    assert call(product, gd="BFLOAT16") == BF16
    # the list comes first: a bad gradInput with a BF16 gradOutput is a list failure
    assert call(product, gd="BFLOAT16", od="INT32") == LIST
    # BF16 output or gradInput pass on these products
    assert call(product, gd="FLOAT", yd="BFLOAT16", od="FLOAT") is OK
    assert call(product, gd="FLOAT", yd="FLOAT", od="BFLOAT16") is OK
    assert call(product, gd="FLOAT16", yd="BFLOAT16", od="BFLOAT16") is OK


@pytest.mark.parametrize("product", BF16_OK)
def test_bf16_on_a2_a3_950(product):
    assert call(product, gd="BFLOAT16") is OK
    assert call(product, gd="BFLOAT16", yd="FLOAT16", od="FLOAT") is OK


def test_dtype_errors_before_ranks_and_shapes():
    assert call(od="INT32", g=(1,) * 9, y=(3,), o=(7,)) == LIST
    assert call("910", gd="BFLOAT16", g=(1,) * 9, y=(3,), o=(7,)) == BF16


def test_ranks_of_both_inputs_before_promotion_and_shapes():
    assert call(g=(1,) * 8) is OK
    assert call(g=(), y=(), o=()) is OK
    assert call(g=(1,) * 9, y=(3,), o=(3,)) == RANK
    assert call(g=(3,), y=(1,) * 9, o=(3,)) == RANK
    assert call(g=(1,) * 9, yd="COMPLEX64", od="FLOAT") == RANK  # rank before the cast rule
    # gradInput's rank only counts through the shape comparison
    assert call(g=(1,) * 8, o=(1,) * 9) == OUT


@pytest.mark.parametrize(
    "gd,yd,od,want",
    [
        ("FLOAT16", "BFLOAT16", "FLOAT", OK),  # -> FLOAT
        ("FLOAT16", "BFLOAT16", "FLOAT16", OK),  # FLOAT converts to FLOAT16
        ("FLOAT", "DOUBLE", "FLOAT16", OK),  # -> DOUBLE, any float target
        ("FLOAT", "DOUBLE", "COMPLEX64", OK),
        ("FLOAT", "COMPLEX64", "COMPLEX128", OK),
        ("DOUBLE", "COMPLEX64", "COMPLEX64", OK),  # -> COMPLEX128, complex to complex
        ("FLOAT", "COMPLEX64", "FLOAT", CAST),  # complex does not convert to a real type
        ("COMPLEX128", "COMPLEX128", "DOUBLE", CAST),
        ("COMPLEX64", "FLOAT16", "BFLOAT16", CAST),
    ],
)
def test_promotion_and_conversion(gd, yd, od, want):
    assert call(gd=gd, yd=yd, od=od) == want


def test_cast_rule_before_broadcast():
    assert call(yd="COMPLEX64", od="FLOAT", y=(4,), o=(9,)) == CAST


def test_broadcast_and_grad_input_shape():
    assert call(g=(2, 3), y=(3,), o=(2, 3)) is OK
    assert call(g=(3,), y=(2, 3), o=(2, 3)) is OK
    assert call(g=(2, 1), y=(1, 3), o=(2, 3)) is OK
    assert call(g=(), y=(4, 1, 3), o=(4, 1, 3)) is OK
    assert call(g=(2, 3), y=(2,), o=(2, 3)) == BCAST
    assert call(g=(2, 3), y=(2,), o=(7,)) == BCAST
    assert call(g=(2, 3), y=(3,), o=(3,)) == OUT
    assert call(g=(2, 1), y=(1, 3), o=(2, 1)) == OUT
    assert call(g=(2, 3), o=(3, 2)) == OUT


@pytest.mark.parametrize("product", ALL)
def test_empty_after_every_check(product):
    assert call(product, g=(0, 3)) is OK
    assert call(product, g=(0, 3), y=(3,), o=(0, 3)) is OK
    assert call(product, g=(3,), y=(0, 1), o=(0, 3)) is OK
    assert call(product, g=(0, 3), gd="INT32") == LIST
    assert call(product, g=(0, 3), yd="COMPLEX64", od="FLOAT") == CAST
    assert call(product, g=(0, 3), y=(2, 3)) == BCAST
    assert call(product, g=(0, 3), o=(3,)) == OUT
    assert call(product, g=(0,) + (1,) * 8) == RANK


@pytest.mark.parametrize("product", ALL)
def test_no_product_check(product):
    assert call(product) is OK
    assert call(product, gd="DOUBLE") is OK


@pytest.mark.parametrize("fmt", ["NCHW", "NHWC", "FRACTAL_NZ", "NC1HWC0"])
def test_no_format_check(fmt):
    shape = (1, 2, 3, 4)
    assert call(gradOutput=T(shape, fmt=fmt), output=T(shape), gradInput=T(shape, fmt=fmt)) is OK
