"""Review of specs/gelu_backward.yaml: adversarial first-phase cases written from the op_api code.

Decision procedure of aclnnGeluBackwardGetWorkspaceSize as read from aclnn_gelu_backward.cpp (CheckParams,
then the entry function) and gelu_grad.cpp (l0 GeluGrad), restated:
  1. CheckNotNull: gradOutput, self, gradInput -> 161001.
  2. CheckPromoteType (shared helper CheckPromoteTypeGeluBackward, not in the sources; read as: the two input
     dtypes must promote (table A), and the promoted dtype must be FLOAT, FLOAT16 or BF16 - one list on every
     product). The input dtypes are not checked on their own; gradInput's dtype is not looked at.
  3. CheckShape: ranks of gradOutput, self <= 8; gradOutput and self broadcast; gradInput shape == that
     broadcast.
  4. Entry: self or gradOutput empty -> success (after every check).
  5. Then casts to the promoted dtype, GeluGrad (its l0 only logs a failure to add the kernel), Cast to
     gradInput's dtype, ViewCopy; no product or format check anywhere.
"""

from __future__ import annotations

import pytest

from tests.specs.verdicts import T, verdict

OP = "GeluBackward"
ALL = ("950", "910_93", "910b", "310b", "310p", "910")


def call(product="910b", g=(4, 2), s=None, o=None, gd="FLOAT", sd=None, od=None, **over):
    s = g if s is None else s
    kw = dict(gradOutput=T(g, gd), self=T(s, sd or gd), gradInput=T(o if o is not None else s, od or "FLOAT"))
    kw.update(over)
    return verdict(OP, product, **kw)


OK = None
NULL = ("null-pointers", 161001)
PROMO = ("dtype-promotable", 161002)
LIST = ("dtype-supported", 161002)
RANK = ("max-rank", 161002)
BCAST = ("broadcastable", 161002)
OUT = ("out-shape", 161002)


@pytest.mark.parametrize("product", ALL)
@pytest.mark.parametrize("name", ["gradOutput", "self", "gradInput"])
def test_each_null_first(product, name):
    assert call(product, g=(0,), gd="UINT16", sd="FLOAT", **{name: None}) == NULL


# Promotion pairs (table A of cann-facts 3.4) and what CheckPromoteType makes of them.
PAIRS = [
    # promoted to a supported dtype
    ("FLOAT", "FLOAT", OK),
    ("FLOAT16", "FLOAT16", OK),
    ("BFLOAT16", "BFLOAT16", OK),
    ("FLOAT16", "BFLOAT16", OK),  # -> FLOAT
    ("BFLOAT16", "FLOAT", OK),
    ("INT32", "FLOAT", OK),  # the doc's own sample
    ("FLOAT", "INT64", OK),
    ("BOOL", "FLOAT16", OK),
    ("INT8", "BFLOAT16", OK),
    ("BFLOAT16", "UINT8", OK),
    ("INT16", "FLOAT16", OK),
    # promoted, but not to FLOAT / FLOAT16 / BF16
    ("INT32", "INT32", LIST),
    ("INT8", "UINT8", LIST),  # -> INT16
    ("BOOL", "BOOL", LIST),
    ("DOUBLE", "FLOAT", LIST),
    ("FLOAT16", "DOUBLE", LIST),
    ("INT64", "DOUBLE", LIST),
    ("COMPLEX64", "FLOAT", LIST),
    ("FLOAT", "COMPLEX32", LIST),  # -> COMPLEX64
    ("BFLOAT16", "COMPLEX32", LIST),  # -> COMPLEX32
    ("UINT16", "UINT16", LIST),  # the unsigned types only promote with themselves
    ("UINT32", "UINT32", LIST),
    ("UINT64", "UINT64", LIST),
    # not promotable
    ("UINT16", "FLOAT", PROMO),
    ("FLOAT16", "UINT32", PROMO),
    ("UINT64", "BFLOAT16", PROMO),
    ("UINT16", "INT32", PROMO),
    ("UINT32", "UINT64", PROMO),
    ("COMPLEX64", "UINT16", PROMO),
]


@pytest.mark.parametrize("product", ALL)
@pytest.mark.parametrize("gd,sd,want", PAIRS)
def test_promotion_then_promoted_dtype_in_one_list_on_every_product(product, gd, sd, want):
    assert call(product, gd=gd, sd=sd) == want
    assert call(product, gd=sd, sd=gd) == want  # table A is symmetric


@pytest.mark.parametrize("dtype", ["HIFLOAT8", "FLOAT8_E4M3FN", "INT4"])
def test_types_outside_the_promotion_table_fail_with_161002(dtype):
    # not in table A: whichever of the two dtype rules reports it, the code is 161002
    assert call(gd=dtype, sd="FLOAT")[1] == 161002


@pytest.mark.parametrize("product", ("310b", "310p", "910"))
def test_bf16_passes_the_first_phase_where_the_doc_says_float_float16(product):
    assert call(product, gd="BFLOAT16") is OK
    assert call(product, gd="BFLOAT16", od="BFLOAT16") is OK


@pytest.mark.parametrize("od", ["INT32", "BOOL", "COMPLEX64", "DOUBLE", "UINT16", "INT8", "BFLOAT16"])
def test_grad_input_dtype_is_never_checked(od):
    assert call(od=od) is OK
    assert call(gd="FLOAT16", od=od) is OK


def test_dtype_rules_before_every_shape_rule():
    assert call(gd="UINT16", sd="FLOAT", g=(1,) * 9, s=(3,), o=(7,)) == PROMO
    assert call(gd="INT32", sd="INT32", g=(1,) * 9, s=(3,), o=(7,)) == LIST


def test_rank_limit_on_both_inputs_only():
    assert call(g=(1,) * 8) is OK
    assert call(g=(1,) * 9, s=(2,), o=(2,)) == RANK
    assert call(g=(2,), s=(1,) * 9, o=(2,)) == RANK
    assert call(g=(1,) * 9, s=(3,), o=(7,)) == RANK  # rank before broadcasting
    # a 9-d gradInput for 8-d inputs only fails the shape comparison
    assert call(g=(1,) * 8, o=(1,) * 9) == OUT


@pytest.mark.parametrize(
    "g,s,o",
    [
        ((), (), ()),
        ((), (2, 3), (2, 3)),
        ((2, 3), (), (2, 3)),
        ((3, 1, 2), (4, 2), (3, 4, 2)),
        ((1, 2), (4, 2), (4, 2)),
        ((5, 1), (1, 6), (5, 6)),
        ((1,) * 8, (2,), (1,) * 7 + (2,)),
    ],
)
def test_broadcasts_accepted(g, s, o):
    assert call(g=g, s=s, o=o) is OK


def test_broadcast_and_out_shape_failures():
    assert call(g=(3, 2), s=(4, 2), o=(4, 2)) == BCAST
    assert call(g=(2,), s=(3,), o=(9,)) == BCAST  # broadcast before the out shape
    # gradInput must be the broadcast, not self's shape
    assert call(g=(3, 1, 2), s=(4, 2), o=(4, 2)) == OUT
    assert call(g=(4, 2), s=(1, 2), o=(1, 2)) == OUT
    assert call(g=(4, 2), o=(2, 4)) == OUT
    assert call(g=(4, 2), o=(1, 4, 2)) == OUT
    assert call(g=(), s=(), o=(1,)) == OUT


@pytest.mark.parametrize("product", ALL)
def test_empty_inputs_succeed_only_after_every_check(product):
    assert call(product, g=(0, 2)) is OK
    assert call(product, g=(0, 2), s=(1, 2), o=(0, 2)) is OK
    assert call(product, g=(4, 2), s=(0, 4, 2), o=(0, 4, 2)) is OK
    assert call(product, g=(0, 2), gd="UINT16", sd="FLOAT") == PROMO
    assert call(product, g=(0, 2), gd="INT32", sd="INT32") == LIST
    assert call(product, g=(0, 2), s=(3, 2), o=(0, 2)) == BCAST  # 0 does not broadcast with 3
    assert call(product, g=(0, 2), o=(2,)) == OUT
    assert call(product, g=(0,) + (1,) * 8, o=(0,) + (1,) * 8) == RANK
    # an empty gradInput with non-empty inputs is only a wrong shape
    assert call(product, g=(4, 2), o=(0, 2)) == OUT


@pytest.mark.parametrize("product", ALL)
def test_no_product_check(product):
    assert call(product) is OK
    assert call(product, gd="INT32", sd="FLOAT16") is OK


@pytest.mark.parametrize("fmt", ["NCHW", "NHWC", "FRACTAL_NZ", "NC1HWC0"])
def test_no_format_check(fmt):
    shape = (1, 2, 3, 4)
    assert call(gradOutput=T(shape, fmt=fmt), self=T(shape), gradInput=T(shape, fmt=fmt)) is OK
