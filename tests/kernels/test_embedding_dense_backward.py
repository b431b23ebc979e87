"""embedding_dense_backward vs torch.ops.aten.embedding_dense_backward (PyTorch CPU)."""

from __future__ import annotations

import numpy as np
import pytest

from generator.kernels import embedding_dense_backward as module
from generator.kernels._common import BFLOAT16
from generator.kernels.embedding_dense_backward import cost, embedding_dense_backward
from tests.kernels._oracle import F16, F32, HALF_AND_SINGLE, HALF_AND_SINGLE_IDS, close, n, randn, t

torch = pytest.importorskip("torch")

# (indices shape, embedding dim, num_weights)
CASES = [((), 4, 3), ((5,), 3, 7), ((4, 6), 8, 5), ((2, 3, 4), 16, 30), ((3, 1, 2, 1, 2, 1, 2), 2, 4), ((200,), 1, 3)]
INDEX_DTYPES = [np.dtype(d) for d in (np.int64, np.int32, np.int16, np.int8, np.uint8, np.bool_)]


def _golden(grad, indices, num_weights, padding_idx, scale, dtype):
    res = torch.ops.aten.embedding_dense_backward(t(grad), t(indices.astype(np.int64)), num_weights, padding_idx, scale)
    return n(res, dtype)


@pytest.mark.parametrize("dtype", HALF_AND_SINGLE, ids=HALF_AND_SINGLE_IDS)
@pytest.mark.parametrize("scale", [False, True], ids=["plain", "scale"])
@pytest.mark.parametrize("padding_idx", [-1, 0, 2])
@pytest.mark.parametrize("case", CASES, ids=[f"{s}-d{d}-w{w}" for s, d, w in CASES])
def test_matches_torch(rng, dtype, scale, padding_idx, case):
    shape, dim, num_weights = case
    indices = rng.integers(0, num_weights, size=shape)
    grad = randn(rng, shape + (dim,), dtype)
    got = embedding_dense_backward(grad, indices, num_weights, padding_idx, scale, product="950")
    close(got, _golden(grad, indices, num_weights, padding_idx, scale, dtype), scale=4)


@pytest.mark.parametrize("index_dtype", INDEX_DTYPES, ids=[d.name for d in INDEX_DTYPES])
def test_integer_index_dtypes(rng, index_dtype):
    num_weights = 2 if index_dtype == np.bool_ else 6
    indices = rng.integers(0, num_weights, size=(4, 5)).astype(index_dtype)
    grad = randn(rng, (4, 5, 3), F32)
    got = embedding_dense_backward(grad, indices, num_weights, 1, True)
    close(got, _golden(grad, indices, num_weights, 1, True, F32))


@pytest.mark.parametrize("index_dtype", [F32, F16, np.dtype(np.float64)], ids=["float32", "float16", "float64"])
def test_float_indices_truncate(rng, index_dtype):
    indices = np.array([0.0, 1.9, 2.5, -0.5, 3.99], index_dtype)
    grad = randn(rng, (5, 2), F32)
    got = embedding_dense_backward(grad, indices, 4, -1, False)
    close(got, _golden(grad, np.array([0, 1, 2, 0, 3]), 4, -1, False, F32))


def test_by_hand_and_doc_sample():
    # aclnnEmbeddingDenseBackward.md sample: grad 2x3 = 1..6, indices {1, 2}, numWeights 4, paddingIdx 0
    grad = np.arange(1, 7, dtype=np.float32).reshape(2, 3)
    got = embedding_dense_backward(grad, np.array([1, 2]), 4, 0, False)
    np.testing.assert_array_equal(got, [[0, 0, 0], [1, 2, 3], [4, 5, 6], [0, 0, 0]])
    # repeated indices accumulate, padding row stays zero, scale divides by the count
    grad = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]], np.float32)
    idx = np.array([2, 0, 2, 2])
    np.testing.assert_array_equal(embedding_dense_backward(grad, idx, 3, -1, False), [[3, 4], [0, 0], [13, 16]])
    np.testing.assert_allclose(embedding_dense_backward(grad, idx, 3, 0, True), [[0, 0], [0, 0], [13 / 3, 16 / 3]])


@pytest.mark.parametrize("padding_idx", [-1, 2**64 - 1, 3, 100])
def test_out_of_range_padding_idx_disables_padding(rng, padding_idx):
    grad = randn(rng, (6, 2), F32)
    idx = np.array([0, 1, 2, 0, 1, 2])
    got = embedding_dense_backward(grad, idx, 3, padding_idx, False)
    close(got, _golden(grad, idx, 3, -1, False, F32))


@pytest.mark.parametrize(
    "dtype, product, rows, dim, num_weights, scale, result",
    [
        (F16, None, 8, 4, 5, False, F32),
        (F16, "910", 8, 4, 5, False, F32),
        (BFLOAT16, "910b", 8, 4, 5, False, F32),
        (F16, "950", 8, 4, 5, False, F16),
        (F32, "910", 8, 4, 5, False, F32),
        # A2/A3 skip the cast for big calls: >= 512 rows, (grad + out elements) * 2 >= 100 MiB, no scaling
        (BFLOAT16, "910_93", 1024, 4, 13_200_000, False, BFLOAT16),
        (BFLOAT16, "910_93", 1024, 4, 13_200_000, True, F32),
        (BFLOAT16, "910_93", 511, 4, 13_200_000, False, F32),
        (BFLOAT16, "910b", 1024, 4, 13_000_000, False, F32),
    ],
)
def test_result_dtype_per_product(dtype, product, rows, dim, num_weights, scale, result):
    assert module._result_dtype(np.dtype(dtype), rows, dim, num_weights, scale, product) == result
    if num_weights < 1000:
        rng = np.random.default_rng(0)
        grad, idx = randn(rng, (rows, dim), dtype), rng.integers(0, num_weights, rows)
        got = embedding_dense_backward(grad, idx, num_weights, -1, scale, product=product)
        assert got.dtype == result
        close(got, _golden(grad, idx, num_weights, -1, scale, result), scale=4)


def test_many_blocks_and_heavy_repeats(rng):
    rows = 3 * module._ROWS_ELEMENTS // 5 + 7
    idx = rng.integers(0, 4, rows)  # every index repeats ~40k times
    grad = randn(rng, (rows, 5), F32)
    got = embedding_dense_backward(grad, idx, 4, -1, True)
    want = _golden(grad, idx, 4, -1, True, F32)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)  # float32 sums of 40k terms, any order
    exact = np.zeros((4, 5))
    np.add.at(exact, idx, grad.astype(np.float64))
    exact /= np.bincount(idx, minlength=4)[:, None]
    np.testing.assert_allclose(got, exact, rtol=1e-4, atol=1e-6)


def test_non_contiguous(rng):
    grad = randn(rng, (5, 6), F32).T  # (6, 5) view
    idx = rng.integers(0, 4, (12,))[::2]
    close(
        embedding_dense_backward(grad, idx, 4, -1, False), _golden(np.ascontiguousarray(grad), idx, 4, -1, False, F32)
    )


def test_empty():
    got = embedding_dense_backward(np.zeros((0, 3), F16), np.zeros(0, np.int64), 4, -1, False, product="950")
    assert got.shape == (4, 3) and got.dtype == F16 and not got.any()
    got = embedding_dense_backward(np.zeros((5, 0), F32), np.zeros(7, np.int32), 3, 0, True)  # D == 0
    assert got.shape == (3, 0)
    assert embedding_dense_backward(np.zeros((0, 2), F32), np.zeros((0,), np.int32), 0, -1, False).shape == (0, 2)


def test_rejections():
    grad = np.zeros((3, 2), F32)
    with pytest.raises(IndexError):
        embedding_dense_backward(grad, np.array([0, 1, 4]), 4, -1, False)
    with pytest.raises(IndexError):
        embedding_dense_backward(grad, np.array([0, -1, 2]), 4, -1, False)
    with pytest.raises(IndexError):
        embedding_dense_backward(grad, np.array([0, np.nan, 2], F32), 4, -1, False)
    with pytest.raises(IndexError):
        embedding_dense_backward(grad, np.array([0, 4.5, 2], F32), 4, -1, False)
    with pytest.raises(ValueError):
        embedding_dense_backward(grad, np.array([0, 1]), 4, -1, False)  # 3 rows, 2 indices
    with pytest.raises(ValueError):
        embedding_dense_backward(np.zeros((), F32), np.array(0), 4, -1, False)
    with pytest.raises(TypeError):
        embedding_dense_backward(grad.astype(np.float64), np.array([0, 1, 2]), 4, -1, False)
    with pytest.raises(TypeError):
        embedding_dense_backward(grad, np.array([0, 1, 2], np.uint16), 4, -1, False)


def test_cost():
    small = cost(np.zeros((4, 8), F32), np.zeros(4, np.int64), 2, -1, False)
    big = cost(np.zeros((4000, 8), F32), np.zeros(4000, np.int64), 10, -1, False)
    table = cost(np.zeros((4, 8), F32), np.zeros(4, np.int64), 10**6, -1, False, product="950")
    assert small.param == big.param == "grad" and table.param == "numWeights"
    assert big.bytes > small.bytes and big.ops > small.ops
    assert table.bytes >= 10**6 * 8 * 4


@pytest.mark.parametrize("dtype", [F16, BFLOAT16], ids=["float16", "bfloat16"])
@pytest.mark.parametrize("scale", [False, True], ids=["plain", "scale"])
def test_half_result_compiled_runs_match_numpy_bit_for_bit(rng, dtype, scale):
    """A half-type result (950): the compiled run sums (sorted indices, one float32 row buffer) give
    exactly the NumPy path's float32 sums rounded once, specials included."""
    from generator.kernels import _accel

    if not _accel.enabled():
        pytest.skip("compiled kernels are off")
    rows, dim, num_weights = 700, 33, 40
    grad = (rng.standard_normal((rows, dim)) * 300).astype(np.float32)
    grad.flat[rng.integers(0, grad.size, 40)] = rng.choice([np.nan, np.inf, -np.inf, -0.0, 1e-40], 40)
    grad = grad.astype(dtype)
    indices = np.minimum(rng.zipf(1.3, rows), num_weights - 1)  # heavy repeats, unused rows
    for padding_idx in (-1, int(indices[0]), num_weights):
        with _accel.forced("numpy"):
            want = embedding_dense_backward(grad, indices, num_weights, padding_idx, scale, product="950")
        with _accel.forced("compiled"):
            got = embedding_dense_backward(grad, indices, num_weights, padding_idx, scale, product="950")
        assert got.dtype == want.dtype == dtype
        np.testing.assert_array_equal(got.view(np.uint16), want.view(np.uint16))
