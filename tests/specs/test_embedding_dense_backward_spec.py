"""Content tests for specs/embedding_dense_backward.yaml (aclnnEmbeddingDenseBackward), through the validator.

Written from aclnn_embedding_dense_backward.cpp (CheckParams: nulls, three dtype lists, max rank, the
grad/indices row count, out's inferred shape, private formats; the all-zero empty path) and
embedding_dense_grad.cpp, not from the spec's own cases.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import aclnn
from generator.kernels._common import BFLOAT16
from generator.loader import load_project
from tests.specs.verdicts import verdict

torch = pytest.importorskip("torch")

project = load_project(Path(__file__).resolve().parents[2] / "specs")
spec = project.op("aclnnEmbeddingDenseBackward").spec

CODE_ORDER = [
    "null-pointers",
    "dtype-supported",
    "max-rank",
    "grad-indices-match",
    "out-rank",
    "out-shape",
    "format-not-private",
    "product-supported",
]
T = aclnn.TensorDesc
INDEX_DTYPES = ["FLOAT", "FLOAT16", "DOUBLE", "INT32", "INT64", "INT16", "INT8", "UINT8", "BOOL"]


def args(grad=(2, 3, 4), indices=(2, 3), num_weights=7, dtype="FLOAT", idx_dtype="INT64", out=None, **over):
    values = dict(
        grad=T(grad, dtype) if isinstance(grad, tuple) else grad,
        indices=T(indices, idx_dtype) if isinstance(indices, tuple) else indices,
        numWeights=num_weights,
        paddingIdx=0,
        scaleGradByFreq=False,
    )
    if out is not None:
        values["out"] = out
    values.update(over)
    return values


def failure(product="910b", **kwargs):
    return verdict("EmbeddingDenseBackward", product, **kwargs)


def test_check_order_follows_code():
    assert [c.id for c in spec.checks] == CODE_ORDER


def test_null_pointers_first():
    for name in ("grad", "indices", "out"):
        bad = args(indices=(1,) * 9, idx_dtype="UINT64")
        bad[name] = None
        assert failure(**bad) == ("null-pointers", 161001), name


@pytest.mark.parametrize("product", ["950", "910_93", "910b", "910"])
def test_supported_products_pass(product):
    for dtype in ("FLOAT", "FLOAT16"):
        for idx in INDEX_DTYPES:
            assert failure(product, **args(dtype=dtype, idx_dtype=idx)) is None, (dtype, idx)


def test_grad_and_out_lists_are_per_arch_and_independent():
    for product in ("950", "910_93", "910b"):
        assert failure(product, **args(dtype="BFLOAT16")) is None
    assert failure("910", **args(dtype="BFLOAT16")) == ("dtype-supported", 161002)
    # out is checked against its own list; it need not match grad
    assert failure("910", **args(out=T((7, 4), "FLOAT16"))) is None
    assert failure("910b", **args(dtype="BFLOAT16", out=T((7, 4), "FLOAT"))) is None
    assert failure("910", **args(out=T((7, 4), "BFLOAT16"))) == ("dtype-supported", 161002)
    for dtype in ("DOUBLE", "INT32", "COMPLEX64"):
        assert failure(**args(out=T((7, 4), dtype))) == ("dtype-supported", 161002), dtype
        assert failure(**args(dtype=dtype)) == ("dtype-supported", 161002), dtype


def test_index_dtypes():
    for dtype in ("UINT16", "UINT32", "UINT64", "COMPLEX64", "BFLOAT16"):
        assert failure(**args(idx_dtype=dtype)) == ("dtype-supported", 161002), dtype
    # the dtype lists come before the rank rule
    assert failure(**args(indices=(1,) * 9, idx_dtype="UINT64")) == ("dtype-supported", 161002)


def test_max_rank_covers_out_too():
    assert failure(**args(grad=(1,) * 8 + (4,), indices=(1,) * 8)) == ("max-rank", 161002)
    assert failure(**args(indices=(1,) * 9)) == ("max-rank", 161002)
    assert failure(**args(out=T((1,) * 9, "FLOAT"))) == ("max-rank", 161002)
    assert failure(**args(grad=(1,) * 7 + (4,), indices=(1,) * 8)) is None


def test_rows_of_grad_match_indices():
    for indices in ((6,), (2, 3), (3, 2), (1, 6, 1)):
        assert failure(**args(indices=indices)) is None, indices
    for indices in ((5,), (2, 2), (), (0,)):
        assert failure(**args(indices=indices)) == ("grad-indices-match", 161002), indices
    # a zero last axis passes whatever indices is
    assert failure(**args(grad=(2, 3, 0), indices=(11,), out=T((7, 0), "FLOAT"))) is None
    # a 1-D grad is one row (the doc says 2-8 dims): indices holds one element
    assert failure(**args(grad=(4,), indices=())) is None
    assert failure(**args(grad=(4,), indices=(1, 1))) is None
    assert failure(**args(grad=(4,), indices=(2,))) == ("grad-indices-match", 161002)
    # a 0-D grad has no last axis (undefined in CANN): rejected here
    assert failure(**args(grad=(), indices=(), out=T((7, 1), "FLOAT"))) == ("grad-indices-match", 161002)


def test_out_shape_is_num_weights_by_embedding_dim():
    assert failure(**args(out=T((7, 4, 1), "FLOAT"))) == ("out-rank", 161002)
    assert failure(**args(out=T((28,), "FLOAT"))) == ("out-rank", 161002)
    assert failure(**args(out=T((6, 4), "FLOAT"))) == ("out-shape", 161002)
    assert failure(**args(out=T((7, 3), "FLOAT"))) == ("out-shape", 161002)
    assert failure(**args(num_weights=0, out=T((0, 4), "FLOAT"))) is None
    assert failure(**args(num_weights=2**40, out=T((2**40, 4), "FLOAT"))) is None


def test_formats_only_private_ones_fail_and_after_shapes():
    for fmt in ("NCHW", "NHWC", "HWCN"):
        assert failure(**args(grad=T((1, 2, 3, 4), "FLOAT", fmt), indices=(6,))) is None, fmt
        assert failure(**args(out=T((7, 4), "FLOAT", fmt if fmt != "NCHW" else "NC"))) is None, fmt
    for fmt in ("FRACTAL_NZ", "NC1HWC0"):
        assert failure(**args(out=T((7, 4), "FLOAT", fmt))) == ("format-not-private", 161002), fmt
        assert failure(**args(indices=T((6,), "INT64", fmt))) == ("format-not-private", 161002)
    # a wrong out shape is reported before its format
    assert failure(**args(out=T((6, 4), "FLOAT", "FRACTAL_NZ"))) == ("out-shape", 161002)


def test_unsupported_products_run_every_check_then_miss_the_kernel():
    for product in ("310p", "310b"):
        assert product not in spec.products
        assert failure(product, **args(dtype="BFLOAT16")) == ("dtype-supported", 161002)
        assert failure(product, **args(indices=(5,))) == ("grad-indices-match", 161002)
        assert failure(product, **args()) == ("product-supported", 561103)
        # empty grad or indices: the all-zero path, before any compute kernel
        assert failure(product, **args(grad=(0, 4), indices=(0,))) is None
        assert failure(product, **args(grad=(2, 3, 0), indices=(6,), out=T((7, 0), "FLOAT"))) is None


# ----------------------------------------------------------------------------------------------
# The binding runs the kernel on what the validator accepts; results agree with PyTorch.


def _golden(grad, indices, num_weights, padding_idx, scale):
    return torch.ops.aten.embedding_dense_backward(
        torch.from_numpy(grad.astype(np.float32)),
        torch.from_numpy(indices.astype(np.int64)),
        num_weights,
        padding_idx,
        scale,
    ).numpy()


@pytest.mark.parametrize("scale", [False, True])
@pytest.mark.parametrize("padding_idx", [0, 3, 2**64 - 1])
@pytest.mark.parametrize("idx_dtype", [np.int64, np.int32, np.uint8, np.float32])
def test_binding_matches_torch(scale, padding_idx, idx_dtype):
    rng = np.random.default_rng(int(scale) * 7 + padding_idx % 11)
    grad = rng.standard_normal((3, 5, 4)).astype(np.float32)
    indices = rng.integers(0, 6, size=(3, 5)).astype(idx_dtype)
    got = aclnn.embedding_dense_backward(grad, indices, 6, padding_idx, scale, product="910")
    want = _golden(grad, indices, 6, -1 if padding_idx >= 6 else padding_idx, scale)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_one_dimensional_grad_is_one_row():
    grad = np.array([1.0, 2.0, 3.0], np.float32)
    got = aclnn.embedding_dense_backward(grad, np.array(2, np.int32), 4, 0, False)
    np.testing.assert_array_equal(got, [[0, 0, 0], [0, 0, 0], [1, 2, 3], [0, 0, 0]])


def test_empty_inputs_give_zeros():
    got = aclnn.embedding_dense_backward(np.ones((0, 3), np.float32), np.ones((0,), np.int64), 4, 9, True)
    np.testing.assert_array_equal(got, np.zeros((4, 3)))


def test_half_grad_is_computed_in_float_on_910_and_kept_on_950():
    # 1 + 2**-11 is not a float16 value: 910 sums in FLOAT, 950 keeps FLOAT16
    grad = np.array([[1.0], [2.0**-11]], np.float16)
    indices = np.array([0, 0], np.int64)
    results = {}
    for product in ("910", "950"):
        out = np.empty((1, 1), np.float32)
        aclnn.embedding_dense_backward(grad, indices, 1, 5, False, out, product=product)
        results[product] = out[0, 0]
    assert results["910"] == np.float32(1 + 2.0**-11)
    assert results["950"] == 1.0


def test_bfloat16_grad_and_float16_out():
    rng = np.random.default_rng(5)
    grad = rng.standard_normal((6, 3)).astype(BFLOAT16)
    indices = rng.integers(0, 4, size=6)
    out = np.empty((4, 3), np.float16)
    aclnn.embedding_dense_backward(grad, indices, 4, 2**64 - 1, True, out, product="910b")
    np.testing.assert_allclose(out, _golden(grad, indices, 4, -1, True), rtol=2e-3, atol=2e-3)


def test_out_of_range_index_is_refused_by_the_kernel():
    grad = np.ones((3, 2), np.float32)
    indices = np.array([0, 4, 1], np.int64)
    aclnn.validate("EmbeddingDenseBackward", grad=grad, indices=indices, numWeights=4, paddingIdx=0,
                   scaleGradByFreq=False)  # fmt: skip
    with pytest.raises(aclnn.AclnnError) as info:
        aclnn.embedding_dense_backward(grad, indices, 4, 0, False)
    assert info.value.code == 561000
