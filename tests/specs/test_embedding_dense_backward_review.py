"""Second reading of specs/embedding_dense_backward.yaml against aclnn_embedding_dense_backward.cpp (reviewer's cases).

Functions of the code cited per case: CheckNotNull, CheckDtypeValid (grad, indices, out, each against its own
list; grad / out lists per arch), CheckMaxDimension (grad, indices, out), CheckDimension, CheckOutShape,
CheckFormat (private formats only, after the shapes), the empty-tensor branch (ZerosLike into out), and the V1
l0 EmbeddingDenseGrad, which turns a failed kernel launch into a null tensor (561103).
"""

from __future__ import annotations

import pytest

import aclnn
from tests.specs.verdicts import verdict

T = aclnn.TensorDesc
ALL = ("950", "910_93", "910b", "310b", "310p", "910")
SUPPORTED = ("950", "910_93", "910b", "910")


def call(grad=(2, 3, 4), indices=(2, 3), dtype="FLOAT", idx="INT64", num=7, out_dtype=None, **over):
    values = dict(
        grad=T(grad, dtype),
        indices=T(indices, idx),
        numWeights=num,
        paddingIdx=0,
        scaleGradByFreq=False,
    )
    if "out" not in over:
        values["out"] = T((num, grad[-1] if grad else 1), out_dtype or dtype)
    values.update(over)
    return values


def status(product="910b", **kwargs):
    return verdict("EmbeddingDenseBackward", product, **kwargs)


@pytest.mark.parametrize("product", ALL)
def test_null_pointers_first(product):
    for name in ("grad", "indices", "out"):
        bad = {**call(dtype="DOUBLE", idx="UINT64", grad=(1,) * 9), name: None}
        assert status(product, **bad) == ("null-pointers", 161001), name


@pytest.mark.parametrize("product", ALL)
def test_dtype_lists_in_code_order(product):
    with_bf16 = product in ("950", "910_93", "910b")
    ok = None if product in SUPPORTED else ("product-supported", 561103)
    for dtype in ("FLOAT", "FLOAT16"):
        assert status(product, **call(dtype=dtype)) == ok, dtype
    assert status(product, **call(dtype="BFLOAT16")) == (ok if with_bf16 else ("dtype-supported", 161002))
    # grad and out are independent (no equality, any mix of the list)
    assert status(product, **call(dtype="FLOAT16", out_dtype="FLOAT")) == ok
    assert status(product, **call(dtype="FLOAT", out_dtype="FLOAT16")) == ok
    # indices: a wide list, floats and bool included
    for idx in ("FLOAT16", "FLOAT", "DOUBLE", "INT8", "UINT8", "INT16", "INT32", "INT64", "BOOL"):
        assert status(product, **call(idx=idx)) == ok, idx
    for idx in ("UINT16", "UINT32", "UINT64", "BFLOAT16", "COMPLEX64"):
        assert status(product, **call(idx=idx)) == ("dtype-supported", 161002), idx
    # grad's list, indices' list, out's list: all before any rank error
    assert status(product, **call(out_dtype="INT32", grad=(1,) * 9)) == ("dtype-supported", 161002)


@pytest.mark.parametrize("product", ("910b", "950"))
def test_max_rank_of_the_three(product):
    assert status(product, **call(grad=(1,) * 8 + (4,), indices=(1,) * 8)) == ("max-rank", 161002)
    assert status(product, **call(grad=(1,) * 7 + (4,), indices=(1,) * 8)) is None
    assert status(product, **call(indices=(1, 1, 1, 2, 3, 1, 1, 1, 1))) == ("max-rank", 161002)
    # out above 8 dims: the max-rank check, not the out-rank check that follows
    assert status(product, **call(out=T((1,) * 9, "FLOAT"))) == ("max-rank", 161002)
    # before the row match
    assert status(product, **call(indices=(1,) * 9 + (5,))) == ("max-rank", 161002)


def test_rows_of_grad_against_indices():
    # rows = prod(grad.shape[:-1]); indices may take any shape with that many elements
    for indices in ((6,), (6, 1), (1, 2, 1, 3), (3, 2)):
        assert status(**call(indices=indices)) is None, indices
    for indices in ((7,), (5,), (), (0,), (6, 0)):
        assert status(**call(indices=indices)) == ("grad-indices-match", 161002), indices
    # an empty grad row count needs an empty indices, unless the last axis is 0
    assert status(**call(grad=(0, 4), indices=(0,))) is None
    assert status(**call(grad=(0, 4), indices=(3,))) == ("grad-indices-match", 161002)
    assert status(**call(grad=(5, 0), indices=(9,))) is None
    assert status(**call(grad=(0, 0), indices=(9, 9))) is None
    # a 1-D grad is a single row: indices holds one element (0-d included)
    assert status(**call(grad=(4,), indices=())) is None
    assert status(**call(grad=(4,), indices=(1, 1, 1))) is None
    # the row match comes before out's rank and shape
    assert status(**call(indices=(5,), out=T((7,), "FLOAT"))) == ("grad-indices-match", 161002)


def test_out_rank_then_shape():
    for shape in ((7,), (7, 4, 1), (), (1, 7, 4)):
        assert status(**call(out=T(shape, "FLOAT"))) == ("out-rank", 161002), shape
    assert status(**call(out=T((6, 4), "FLOAT"))) == ("out-shape", 161002)
    assert status(**call(out=T((7, 3), "FLOAT"))) == ("out-shape", 161002)
    assert status(**call(out=T((4, 7), "FLOAT"))) == ("out-shape", 161002)
    # numWeights 0: out (0, D), an empty output that still passes
    assert status(**call(num=0)) is None
    assert status(**call(num=0, out=T((1, 4), "FLOAT"))) == ("out-shape", 161002)
    # a numWeights beyond int64 never matches a dimension
    assert status(**call(num=2**63, out=T((7, 4), "FLOAT"))) == ("out-shape", 161002)
    # out's shape is checked before the formats
    assert status(**call(out=T((6, 4), "FLOAT", "FRACTAL_NZ"))) == ("out-shape", 161002)


def test_private_formats_last():
    for name in ("grad", "indices", "out"):
        values = call()
        t = values[name]
        values[name] = T(t.shape, t.dtype, "NC1HWC0")
        assert status(**values) == ("format-not-private", 161002), name
    # public formats whatever the rank pairing
    assert status(**{**call(), "grad": T((2, 3, 4), "FLOAT", "NCHW"), "indices": T((2, 3), "INT64", "NCDHW")}) is None
    assert status(**call(out=T((7, 4), "FLOAT", "NHWC"))) is None


@pytest.mark.parametrize("product", ALL)
def test_empty_inputs_take_the_zero_branch_after_every_check(product):
    # grad or indices empty: success on every product (no compute kernel is added)
    assert status(product, **call(grad=(0, 4), indices=(0,))) is None
    assert status(product, **call(grad=(2, 0), indices=(2,))) is None
    assert status(product, **call(grad=(3, 0, 4), indices=(0, 5))) is None
    # but every check still runs first
    assert status(product, **call(grad=(0, 4), indices=(0,), idx="UINT32")) == ("dtype-supported", 161002)
    assert status(product, **call(grad=(0, 4), indices=(0,), num=3, out=T((7, 4), "FLOAT"))) == ("out-shape", 161002)


@pytest.mark.parametrize("product", ("310p", "310b"))
def test_products_without_the_kernel(product):
    """No product check; the V1 l0 EmbeddingDenseGrad turns a failed launch into null -> 561103 (unverified)."""
    assert status(product, **call()) == ("product-supported", 561103)
    assert status(product, **call(dtype="BFLOAT16")) == ("dtype-supported", 161002)
    assert status(product, **call(indices=(5,))) == ("grad-indices-match", 161002)


@pytest.mark.parametrize("product", SUPPORTED)
def test_attribute_values_are_not_checked(product):
    for padding in (0, 6, 7, 2**64 - 1):
        assert status(product, **call(paddingIdx=padding)) is None, padding
    assert status(product, **call(scaleGradByFreq=True)) is None
