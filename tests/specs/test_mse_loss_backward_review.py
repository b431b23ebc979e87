"""Review of specs/mse_loss_backward.yaml: adversarial first-phase cases written from the op_api code.

Decision procedure of aclnnMseLossBackwardGetWorkspaceSize as read from aclnn_mse_loss_backward.cpp
(CheckParams, then the entry function) and mse_loss_grad.cpp (l0 MseLossGrad), restated:
  1. CheckNotNull4Tensor: gradOutput, self, target, out -> 161001.
  2. CheckDtypeValid: gradOutput dtype == self dtype; target dtype == self dtype; self in the list; out in the
     list (GetDtypeSupportListV2: FLOAT, FLOAT16, BF16 on A2/A3/950; FLOAT, FLOAT16 elsewhere). out need not
     equal self.
  3. CheckReduction: 0 <= reduction <= 2.
  4. CheckShape: ranks of gradOutput, self, target <= 8 (in that order); gradOutput and self broadcast;
     target broadcasts with that result; out shape == broadcast of all three (whatever the reduction).
  5. Entry: self, gradOutput or target empty -> success (after every check, on every product).
  6. Otherwise the l0 call adds the MseLossGrad kernel and turns a failure into a null tensor (561103); the
     spec models the missing kernel on products the doc marks unsupported (310b, 910) that way (unverified).
"""

from __future__ import annotations

import pytest

from tests.specs.verdicts import T, verdict

OP = "MseLossBackward"
ALL = ("950", "910_93", "910b", "310b", "310p", "910")
BF16_OK = ("950", "910_93", "910b")
BF16_NO = ("310b", "310p", "910")
LISTED = ("950", "910_93", "910b", "310p")
UNLISTED = ("310b", "910")


def call(product="910b", g=(2, 3), s=None, t=None, o=None, dt="FLOAT", gd=None, td=None, od=None, red=1, **over):
    s = g if s is None else s
    t = s if t is None else t
    kw = dict(
        gradOutput=T(g, gd or dt),
        self=T(s, dt),
        target=T(t, td or dt),
        reduction=red,
        out=T(o if o is not None else s, od or dt),
    )
    kw.update(over)
    return verdict(OP, product, **kw)


OK = None
NULL = ("null-pointers", 161001)
SAME = ("dtype-same", 161002)
LIST = ("dtype-supported", 161002)
RED = ("reduction-range", 161002)
RANK = ("max-rank", 161002)
BCAST = ("broadcastable", 161002)
OUT = ("out-shape", 161002)
NOKERNEL = ("product-supported", 561103)


# --- CheckNotNull4Tensor -------------------------------------------------------------------------------


@pytest.mark.parametrize("product", ALL)
@pytest.mark.parametrize("name", ["gradOutput", "self", "target", "out"])
def test_each_null_first(product, name):
    assert call(product, dt="INT32", red=9, g=(0,), **{name: None}) == NULL


# --- CheckDtypeValid -----------------------------------------------------------------------------------


@pytest.mark.parametrize("product", ALL)
def test_equal_dtypes_before_the_list(product):
    assert call(product, gd="FLOAT16") == SAME
    assert call(product, td="FLOAT16") == SAME
    # a bad gradOutput dtype is reported as unequal before the list is looked at
    assert call(product, gd="DOUBLE") == SAME
    assert call(product, td="INT64") == SAME
    # all three agreeing on an unsupported dtype: the list check on self
    assert call(product, dt="DOUBLE") == LIST
    assert call(product, dt="INT32") == LIST
    assert call(product, dt="BOOL") == LIST


@pytest.mark.parametrize("product", BF16_OK)
def test_bf16_on_a2_a3_950(product):
    assert call(product, dt="BFLOAT16") is OK
    assert call(product, od="BFLOAT16") is OK
    assert call(product, dt="BFLOAT16", od="FLOAT16") is OK


@pytest.mark.parametrize("product", BF16_NO)
def test_bf16_elsewhere(product):
    assert call(product, dt="BFLOAT16") == LIST
    # out is checked against the same per-product list
    assert call(product, od="BFLOAT16") == LIST


@pytest.mark.parametrize("product", ALL)
@pytest.mark.parametrize("od", ["DOUBLE", "INT32", "INT8", "BOOL", "COMPLEX64"])
def test_out_must_be_in_the_list(product, od):
    assert call(product, od=od) == LIST


@pytest.mark.parametrize("product", LISTED)
def test_out_need_not_match_self(product):
    assert call(product, dt="FLOAT", od="FLOAT16") is OK
    assert call(product, dt="FLOAT16", od="FLOAT") is OK


def test_dtype_errors_before_reduction_ranks_and_shapes():
    assert call(gd="FLOAT16", red=7, g=(1,) * 9, o=(5,)) == SAME
    assert call(od="DOUBLE", red=7, g=(1,) * 9, o=(5,)) == LIST


# --- CheckReduction ------------------------------------------------------------------------------------


@pytest.mark.parametrize("red,ok", [(-1, False), (0, True), (1, True), (2, True), (3, False), (2**63 - 1, False)])
def test_reduction_range(red, ok):
    assert call(red=red) == (OK if ok else RED)


def test_reduction_before_ranks_and_shapes():
    assert call(red=-(2**63), g=(1,) * 9, t=(7,)) == RED


# --- CheckShape ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("which", ["g", "s", "t"])
def test_rank_nine_on_any_input(which):
    nine = (1,) * 9
    kw = {"g": (2,), "s": (2,), "t": (2,), "o": (2,)}
    kw[which] = nine
    assert call(**kw) == RANK


def test_rank_eight_and_zero_pass_out_rank_is_only_compared():
    assert call(g=(1,) * 8) is OK
    assert call(g=(), s=(), t=(), o=()) is OK
    # out of rank 9 for 8-d inputs: only the out shape rule
    assert call(g=(1,) * 8, o=(1,) * 9) == OUT


def test_rank_before_broadcast():
    assert call(g=(1,) * 9, s=(2,), t=(3,)) == RANK


@pytest.mark.parametrize(
    "g,s,t,o",
    [
        ((1,), (2, 2), (2,), (2, 2)),  # the doc sample: mean with a one-element gradOutput
        ((), (2, 3), (3,), (2, 3)),
        ((2, 1), (1, 3), (3,), (2, 3)),
        ((), (), (4, 5), (4, 5)),  # target alone decides the shape
        ((3, 1, 1), (2, 1), (1, 5), (3, 2, 5)),
        ((2, 3), (2, 3), (1, 1, 1, 2, 3), (1, 1, 1, 2, 3)),
    ],
)
def test_broadcasts_accepted(g, s, t, o):
    for red in (0, 1, 2):
        assert call(g=g, s=s, t=t, o=o, red=red) is OK


def test_broadcast_failures():
    assert call(g=(2,), s=(3,), t=(3,), o=(3,)) == BCAST  # gradOutput with self
    assert call(g=(2, 3), s=(2, 3), t=(4,), o=(2, 3)) == BCAST  # target with the first result
    assert call(g=(2, 1), s=(1, 3), t=(2, 2), o=(2, 3)) == BCAST
    # broadcasting before the out rule
    assert call(g=(2,), s=(3,), o=(9,)) == BCAST


def test_out_must_be_the_full_broadcast_shape_for_every_reduction():
    for red in (0, 1, 2):
        assert call(g=(1,), s=(2, 2), t=(2,), o=(1,), red=red) == OUT
        assert call(g=(1,), s=(2, 2), t=(2,), o=(), red=red) == OUT
        assert call(g=(2, 1), s=(1, 3), o=(1, 3), red=red) == OUT
        assert call(g=(2, 3), o=(3, 2), red=red) == OUT
        assert call(g=(2, 3), o=(1, 2, 3), red=red) == OUT


# --- empty tensors (entry function, after CheckParams) -----------------------------------------------------


@pytest.mark.parametrize("product", ALL)
def test_empty_inputs_succeed_after_all_checks(product):
    assert call(product, g=(0, 3)) is OK
    assert call(product, g=(1,), s=(0, 3), t=(3,), o=(0, 3)) is OK
    assert call(product, g=(2, 3), s=(2, 3), t=(0, 1, 1), o=(0, 2, 3)) is OK
    # every check still runs on empty tensors
    assert call(product, g=(0, 3), red=3) == RED
    assert call(product, g=(0, 3), o=(3,)) == OUT
    assert call(product, g=(0, 3), s=(2, 3)) == BCAST  # 0 does not broadcast with 2
    assert call(product, g=(0, 3), s=(1, 3), o=(0, 3)) is OK  # 0 broadcasts with 1
    assert call(product, g=(0,), gd="FLOAT16") == SAME
    assert call(product, g=(0,), dt="DOUBLE") == LIST


# --- no product check in op_api; missing kernel (unverified) -----------------------------------------------


@pytest.mark.parametrize("product", UNLISTED)
def test_unlisted_products_pass_every_check_then_miss_the_kernel(product):
    assert call(product) == NOKERNEL
    assert call(product, g=(), s=(), t=(), o=()) == NOKERNEL
    # every parameter error is reported first with its own code
    assert call(product, dt="BFLOAT16") == LIST
    assert call(product, red=3) == RED
    assert call(product, o=(7,)) == OUT
    # empty inputs return before any kernel is added
    assert call(product, g=(0, 2)) is OK


@pytest.mark.parametrize("product", LISTED)
def test_listed_products_accept(product):
    assert call(product) is OK
    assert call(product, dt="FLOAT16") is OK


@pytest.mark.parametrize("fmt", ["NCHW", "NHWC", "FRACTAL_NZ", "NC1HWC0"])
def test_no_format_check(fmt):
    shape = (1, 2, 3, 4)
    assert call(gradOutput=T(shape, fmt=fmt), self=T(shape), target=T(shape, fmt=fmt), out=T(shape, fmt=fmt)) is OK
