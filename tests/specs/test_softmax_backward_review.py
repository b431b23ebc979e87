"""Review of specs/softmax_backward.yaml: adversarial first-phase cases written from the op_api code.

Decision procedure of aclnnSoftmaxBackwardGetWorkspaceSize as read from aclnn_softmax_backward.cpp
(CheckParams, then the entry function), restated:
  1. CheckNotNull: gradOutput, output, out -> 161001 (workspaceSize/executor are not checked).
  2. Not 950 (IsRegbase false) and gradOutput or output empty -> success, nothing else runs.
  3. CheckDtypeValid: BF16 gradOutput outside SocVersion ASCEND910B..ASCEND910E (so on 310b, 310p, 910);
     gradOutput in {FLOAT, FLOAT16, BF16}; output in the same list; output dtype == gradOutput dtype.
  4. CheckDim: dim in [-n, n) with n = rank of gradOutput, a 0-d tensor counting as rank 1.
  5. CheckShape: rank(gradOutput) <= 8, then output shape == gradOutput shape, out shape == gradOutput shape.
  6. Entry: (950) empty -> success; else contiguous, SoftmaxGrad, Cast to out dtype, ViewCopy; no format,
     out dtype or product check anywhere.
"""

from __future__ import annotations

import pytest

from tests.specs.verdicts import T, verdict

OP = "SoftmaxBackward"
ALL = ("950", "910_93", "910b", "310b", "310p", "910")
BF16_OK = ("950", "910_93", "910b")  # SocVersion between ASCEND910B and ASCEND910E
BF16_NO = ("310b", "310p", "910")
NOT_950 = ("910_93", "910b", "310b", "310p", "910")


def call(product="910b", g=(2, 3), y=None, o=None, dim=-1, gd="FLOAT", yd=None, od=None, **over):
    kw = dict(
        gradOutput=T(g, gd),
        output=T(y if y is not None else g, yd or gd),
        dim=dim,
        out=T(o if o is not None else g, od or gd),
    )
    kw.update(over)
    return verdict(OP, product, **kw)


OK = None
NULL = ("null-pointers", 161001)
BF16 = ("bf16-product", 161002)
LIST = ("dtype-supported", 161002)
SAME = ("dtype-same", 161002)
DIM = ("dim-range", 161002)
RANK = ("max-rank", 161002)
SHAPE = ("shape-same", 161002)


# --- CheckNotNull ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("product", ALL)
@pytest.mark.parametrize("name", ["gradOutput", "output", "out"])
def test_nulls_come_first_even_with_empty_tensors_and_other_errors(product, name):
    # the null check precedes the empty shortcut and every other check (CheckParams step 1)
    assert call(product, g=(0, 3), gd="DOUBLE", dim=9, **{name: None}) == NULL


# --- empty shortcut (CheckParams, IsRegbase) -------------------------------------------------------------


@pytest.mark.parametrize("product", NOT_950)
def test_empty_off_950_hides_every_later_error(product):
    # gradOutput empty: BF16 on a non-BF16 product, INT8 output, dim far out of range, rank 9, shapes off
    assert call(product, g=(0,) + (1,) * 8, y=(4,), o=(7, 7), gd="BFLOAT16", yd="INT8", dim=100) is OK
    # only output empty
    assert call(product, g=(2, 3), y=(2, 0), gd="DOUBLE", dim=-5) is OK
    # a 0-sized dim anywhere counts
    assert call(product, g=(3, 0, 2), dim=3, gd="INT32") is OK


@pytest.mark.parametrize("product", NOT_950)
def test_empty_out_does_not_take_the_shortcut(product):
    # only gradOutput and output are tested for emptiness; an empty out just fails the shape rule
    assert call(product, o=(0, 3)) == SHAPE
    assert call(product, o=(0, 3), dim=2) == DIM


def test_950_runs_every_check_on_empty_tensors_in_order():
    assert call("950", g=(0, 3)) is OK
    assert call("950", g=(0, 3), gd="BFLOAT16") is OK
    assert call("950", g=(0, 3), gd="DOUBLE", dim=9) == LIST
    assert call("950", g=(0, 3), yd="FLOAT16", dim=9) == SAME
    assert call("950", g=(0, 3), dim=2) == DIM
    assert call("950", g=(0,) + (1,) * 8, dim=0) == RANK
    assert call("950", g=(0, 3), y=(3, 0)) == SHAPE
    assert call("950", g=(2, 3), y=(0, 3)) == SHAPE
    assert call("950", g=(0, 3), o=(0, 4)) == SHAPE


# --- CheckDtypeValid ------------------------------------------------------------------------------------


@pytest.mark.parametrize("product", BF16_NO)
def test_bf16_grad_output_rejected_before_the_list_off_a2_a3_950(product):
    assert call(product, gd="BFLOAT16") == BF16
    # the BF16 test only looks at gradOutput: a BF16 output passes the list and fails equality
    assert call(product, gd="FLOAT", yd="BFLOAT16") == SAME
    assert call(product, gd="FLOAT16", yd="BFLOAT16") == SAME
    # BF16 gradOutput with an unsupported output: the BF16 test still fires first
    assert call(product, gd="BFLOAT16", yd="DOUBLE") == BF16


@pytest.mark.parametrize("product", BF16_OK)
def test_bf16_accepted_on_a2_a3_950(product):
    assert call(product, gd="BFLOAT16") is OK
    assert call(product, gd="BFLOAT16", yd="FLOAT") == SAME
    assert call(product, gd="BFLOAT16", yd="FLOAT16") == SAME


@pytest.mark.parametrize("product", ALL)
@pytest.mark.parametrize("dtype", ["FLOAT", "FLOAT16"])
def test_float_and_half_everywhere(product, dtype):
    assert call(product, gd=dtype) is OK


@pytest.mark.parametrize("product", ALL)
@pytest.mark.parametrize(
    "dtype", ["DOUBLE", "INT8", "UINT8", "INT16", "INT32", "INT64", "BOOL", "COMPLEX64", "COMPLEX128"]
)
def test_unsupported_dtypes(product, dtype):
    # gradOutput is listed before output; with gradOutput fine, output's list check fires before equality
    assert call(product, gd=dtype) == LIST
    assert call(product, gd="FLOAT", yd=dtype) == LIST
    assert call(product, gd=dtype, yd="FLOAT") == LIST


def test_dtype_errors_come_before_dim_rank_and_shape():
    assert call(gd="INT32", dim=7, g=(1,) * 9, y=(2,)) == LIST
    assert call(yd="FLOAT16", dim=7, g=(1,) * 9, y=(2,)) == SAME


@pytest.mark.parametrize("product", ALL)
@pytest.mark.parametrize("dtype", ["DOUBLE", "INT32", "BOOL", "COMPLEX64", "BFLOAT16", "FLOAT16", "INT8"])
def test_out_dtype_is_never_checked(product, dtype):
    # out only receives a Cast to its dtype after the kernel; no first-phase check reads it
    assert call(product, od=dtype) is OK


# --- CheckDim ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "rank,dim,ok",
    [
        (0, 0, True),
        (0, -1, True),
        (0, 1, False),
        (0, -2, False),
        (1, 0, True),
        (1, -1, True),
        (1, 1, False),
        (1, -2, False),
        (3, 2, True),
        (3, -3, True),
        (3, 3, False),
        (3, -4, False),
        (8, 7, True),
        (8, -8, True),
        (8, 8, False),
        (8, -9, False),
    ],
)
def test_dim_boundaries(rank, dim, ok):
    shape = (2,) * rank
    assert call(g=shape, dim=dim) == (OK if ok else DIM)


def test_dim_extremes_of_int64():
    assert call(dim=2**63 - 1) == DIM
    assert call(dim=-(2**63)) == DIM


def test_dim_uses_grad_output_rank_not_output_rank():
    # output of another rank: dim valid for gradOutput -> the shape rule fails, not the dim rule
    assert call(g=(2, 3), y=(2, 3, 4), dim=2) == DIM
    assert call(g=(2, 3, 4), y=(2, 3), dim=2) == SHAPE


# --- CheckShape ----------------------------------------------------------------------------------------


def test_rank_limit_is_eight_on_grad_output_only():
    assert call(g=(1,) * 8) is OK
    assert call(g=(1,) * 9) == RANK
    assert call(g=(1,) * 9, dim=-9) == RANK
    # a rank-9 output or out with a rank-8 gradOutput is a shape mismatch, not a rank error
    assert call(g=(1,) * 8, y=(1,) * 9) == SHAPE
    assert call(g=(1,) * 8, o=(1,) * 9) == SHAPE


def test_rank_before_shapes_and_dim_before_rank():
    assert call(g=(1,) * 9, y=(3,), dim=0) == RANK
    assert call(g=(1,) * 9, y=(3,), dim=9) == DIM


def test_shapes_must_be_identical_no_broadcast():
    assert call(y=(1, 3)) == SHAPE
    assert call(y=(3,)) == SHAPE
    assert call(o=(2, 1)) == SHAPE
    assert call(o=(1, 2, 3)) == SHAPE
    assert call(g=(), y=(1,), dim=0) == SHAPE
    assert call(g=(), y=(), o=(), dim=0) is OK


# --- formats and products --------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["NCHW", "NHWC", "NC1HWC0", "FRACTAL_NZ"])
def test_no_format_is_checked(fmt):
    assert call(gradOutput=T((1, 2, 3, 4), fmt=fmt), output=T((1, 2, 3, 4)), out=T((1, 2, 3, 4), fmt=fmt)) is OK


def test_no_product_check_in_the_first_phase():
    # 310b is not listed as supported by the doc, but the op_api code has no product test
    assert call("310b") is OK
    assert call("310b", gd="FLOAT16") is OK
