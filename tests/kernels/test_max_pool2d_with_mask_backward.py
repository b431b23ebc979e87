"""max_pool2d_with_mask(_backward) and the INT8 mask codecs vs torch max_pool2d(_with_indices_backward)."""

from __future__ import annotations

import numpy as np
import pytest

from generator.kernels._accel import vec_add_where_bit, vec_load, vec_put_where_bit, vec_store_pairs
from generator.kernels.max_pool2d_with_mask_backward import (
    decode_mask,
    encode_mask,
    mask_layout,
    mask_shape,
    max_pool2d_with_mask,
    max_pool2d_with_mask_backward,
)
from tests.kernels.conftest import DTYPE_IDS, DTYPES, TOLERANCES, to_torch

torch = pytest.importorskip("torch")
F = torch.nn.functional

A2, V1 = "a2_int32", "v1_bitmask"

# (self shape, kernel, stride, padding, ceil_mode)
CASES = [
    ((2, 3, 6, 7), [2], [2], [0], False),  # non-overlapping, 4-D
    ((1, 18, 7, 9), [3], [2], [1], True),  # overlapping, padding, ceil, C spans two C0 blocks
    ((3, 9, 8), [3, 2], [1, 2], [1, 1], False),  # 3-D (C, H, W), per-axis attrs, stride 1 rows
    ((2, 5, 5, 11), [2, 3], [], [1, 0], True),  # empty stride (= kernel), ceil
    ((1, 17, 8, 9), [3], [3], [1], True),  # ceil: Ho (8+2-3+2)//3+1 = 4 trimmed to 3 (9 >= 8+1); Wo = 4
    ((2, 4, 10, 6), [4, 2], [3, 1], [2, 1], False),  # larger kernel with maximal padding
]
CASE_IDS = [f"case{i}" for i in range(len(CASES))]


def _pair(values, default=None):
    values = list(values)
    if not values:
        return default
    return values * 2 if len(values) == 1 else values


def _attrs(kernel, stride, padding):
    k = _pair(kernel)
    return k, _pair(stride, k), _pair(padding)


def _torch_forward(x32, kernel, stride, padding, ceil_mode):
    k, s, p = _attrs(kernel, stride, padding)
    out, idx = F.max_pool2d(torch.from_numpy(x32), k, s, p, 1, ceil_mode=ceil_mode, return_indices=True)
    return out.numpy(), idx


def _golden_backward(grad, x, idx, kernel, stride, padding, ceil_mode):
    """ATK golden: torch max_pool2d_with_indices_backward in float32, cast back to the input dtype."""
    k, s, p = _attrs(kernel, stride, padding)
    res = torch.ops.aten.max_pool2d_with_indices_backward(
        torch.from_numpy(grad.astype(np.float32)),
        torch.from_numpy(x.astype(np.float32)),
        k,
        s,
        p,
        [1, 1],
        ceil_mode,
        idx,
    )
    return res.numpy().astype(x.dtype)


def _atk_encode(idx_torch, shape):
    """The ATK executor's encoder: int32, flatten, zero-pad to the mask size, view as int8, reshape."""
    flat = idx_torch.numpy().astype(np.int32).reshape(-1)
    buf = np.zeros(int(np.prod(shape)) // 4, np.int32)
    buf[: flat.size] = flat
    return buf.view(np.int8).reshape(shape)


def _close(got, want):
    rtol, atol = TOLERANCES[np.dtype(want.dtype)]
    np.testing.assert_allclose(got.astype(np.float32), want.astype(np.float32), rtol=rtol, atol=atol)


def _input(rng, shape, dtype, ties):
    if ties:
        return rng.integers(-2, 3, size=shape).astype(np.float32).astype(dtype)
    return rng.standard_normal(shape).astype(np.float32).astype(dtype)


# --------------------------------------------------------------------------------------------- layouts


def test_mask_layout():
    assert mask_layout("910b", [3, 3]) == A2
    assert mask_layout("910_93", [2]) == A2
    assert mask_layout("910b", [1, 2]) == A2
    assert mask_layout("910b", [1]) == V1
    assert mask_layout("910_93", [1, 1]) == V1
    assert mask_layout("910", [3, 3]) == V1
    assert mask_layout("910", [1]) == V1
    for product in ("950", "310p", "310b", "kirinx90"):
        with pytest.raises(ValueError):
            mask_layout(product, [2, 2])


def test_mask_shape():
    # seed 000 sample: self {1,1,4,3}, kernel 2, stride 2 -> Ho*Wo = 2 -> (ceil(2/16)+1)*32 = 64
    assert mask_shape((1, 1, 4, 3), [2, 2], [2, 2], [0, 0], [1, 1], False) == (1, 1, 4, 64)
    # Ho = Wo = 5 -> 25 positions -> (2 + 1) * 32 = 96; 3-D self drops N
    assert mask_shape((7, 10, 10), [3], [2], [1], [1], False) == (7, 9, 96)
    # stride defaults to kernel; ceil mode changes Ho: 17 x 1 = 17 positions (3 blocks) vs 16 (2 blocks)
    assert mask_shape((2, 3, 33, 2), [2], [], [0], [1], True) == (2, 3, 4, 96)
    assert mask_shape((2, 3, 33, 2), [2], [], [0], [1], False) == (2, 3, 4, 64)
    assert mask_shape((1, 1, 64, 4), [2], [2], [0], [1], False) == (
        1,
        1,
        4,
        160,
    )  # 64 positions -> 4+1 blocks


# --------------------------------------------------------------------------------------------- vs torch


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_backward_a2_mask_matches_torch(rng, dtype, case):
    shape, kernel, stride, padding, ceil_mode = case
    for ties in (False, True):
        x = _input(rng, shape, dtype, ties)
        _, idx_t = _torch_forward(x.astype(np.float32), kernel, stride, padding, ceil_mode)
        grad = rng.uniform(-2, 2, size=tuple(idx_t.shape)).astype(np.float32).astype(dtype)
        mask = _atk_encode(idx_t, mask_shape(shape, kernel, stride, padding, [1], ceil_mode))
        np.testing.assert_array_equal(
            encode_mask(idx_t.numpy(), shape, kernel, stride, padding, ceil_mode, layout=A2), mask
        )
        got = max_pool2d_with_mask_backward(grad, x, mask, kernel, stride, padding, [1], ceil_mode, product="910b")
        assert got.dtype == dtype and got.shape == x.shape
        _close(got, _golden_backward(grad, x, idx_t, kernel, stride, padding, ceil_mode))


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
@pytest.mark.parametrize("product", ["910b", "910_93", "910"])
def test_forward_mask_roundtrip_matches_torch(rng, dtype, case, product):
    """our forward -> device mask -> our backward == torch backward; decode(mask) == torch indices."""
    shape, kernel, stride, padding, ceil_mode = case
    layout = mask_layout(product, kernel)
    x = _input(rng, shape, dtype, ties=rng.integers(2) == 1)
    x32 = x.astype(np.float32)
    if product == "910" and dtype == np.float32:
        x32 = x32.astype(np.float16).astype(np.float32)  # 910 compares FLOAT as FLOAT16
    out_t, idx_t = _torch_forward(x32, kernel, stride, padding, ceil_mode)
    out, mask = max_pool2d_with_mask(x, kernel, stride, padding, [1], ceil_mode, product=product)
    assert mask.dtype == np.int8 and mask.shape == mask_shape(shape, kernel, stride, padding, [1], ceil_mode)
    assert out.dtype == dtype
    np.testing.assert_array_equal(out.astype(np.float32), out_t.astype(dtype).astype(np.float32))
    decoded = decode_mask(mask, shape, kernel, stride, padding, ceil_mode, layout=layout)
    np.testing.assert_array_equal(decoded, idx_t.numpy())
    np.testing.assert_array_equal(encode_mask(decoded, shape, kernel, stride, padding, ceil_mode, layout=layout), mask)
    grad = rng.uniform(-2, 2, size=out.shape).astype(np.float32).astype(dtype)
    got = max_pool2d_with_mask_backward(grad, x, mask, kernel, stride, padding, [1], ceil_mode, product=product)
    _close(got, _golden_backward(grad, x, idx_t, kernel, stride, padding, ceil_mode))


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("shape, stride", [((2, 20, 5, 6), [1]), ((3, 7, 5), [2, 3]), ((1, 16, 4, 4), [])])
def test_one_by_one_kernel_on_a2_uses_bitmask(rng, dtype, shape, stride):
    x = _input(rng, shape, dtype, ties=False)
    out, mask = max_pool2d_with_mask(x, [1, 1], stride, [0], [1], False, product="910b")
    out_t, idx_t = _torch_forward(x.astype(np.float32), [1], stride, [0], False)
    np.testing.assert_array_equal(out.astype(np.float32), out_t)
    # every word of the used region is 0xFFFF, the rest of the INT8 buffer is zero
    n = shape[0] if len(shape) == 4 else 1
    c = shape[-3]
    used = n * (-(-c // 16)) * 1 * mask.shape[-1]  # bytes: N * C1 * kH*kW * Q*2
    raw = mask.reshape(-1).view(np.uint8)
    assert np.all(raw[:used] == 0xFF) and np.all(raw[used:] == 0)
    np.testing.assert_array_equal(decode_mask(mask, shape, [1], stride, [0], False, layout=V1), idx_t.numpy())
    grad = rng.uniform(-2, 2, size=out.shape).astype(np.float32).astype(dtype)
    got = max_pool2d_with_mask_backward(grad, x, mask, [1], stride, [0], [1], False, product="910_93")
    _close(got, _golden_backward(grad, x, idx_t, [1], stride, [0], False))


# --------------------------------------------------------------------------------------------- bit layout


def test_v1_bit_positions_by_hand():
    """Channel 16*c1+b, window cell k, output p -> bit b of little-endian uint16 word ((n*C1+c1)*K+k)*Q+p."""
    n, c, h, w = 2, 18, 4, 4
    kernel, stride = [2, 2], [2, 2]
    x = np.zeros((n, c, h, w), np.float32)
    # n=1, channel 17 (c1=1, b=1): output (ho=1, wo=0) = window rows 2-3, cols 0-1; max at (3, 1) -> k=3
    x[1, 17, 3, 1] = 5.0
    _, mask = max_pool2d_with_mask(x, kernel, stride, [0], [1], False, product="910")
    q = 32  # Ho*Wo = 4 -> (1 + 1) * 16 words
    raw = mask.reshape(-1).view(np.uint8)

    def word(ni, c1, k, p):
        off = (((ni * 2 + c1) * 4 + k) * q + p) * 2
        return int(raw[off]) | (int(raw[off + 1]) << 8)

    p = 1 * 2 + 0
    assert word(1, 1, 3, p) & (1 << 1)
    assert not word(1, 1, 0, p) & (1 << 1)
    # all-zero planes: first window cell (k=0) holds every bit; pad lanes 2..15 of c1=1 included
    assert word(0, 0, 0, 0) == 0xFFFF and word(0, 1, 0, 0) == 0xFFFF
    assert word(1, 1, 0, p) == 0xFFFF & ~(1 << 1)
    assert word(1, 1, 3, p) == 1 << 1
    # tail words (p >= Ho*Wo) and the "+1" block are zero; bytes past N*C1*K*Q*2 are zero
    assert all(word(ni, c1, k, pp) == 0 for ni in range(2) for c1 in range(2) for k in range(4) for pp in range(4, q))
    assert not raw[n * 2 * 4 * q * 2 :].any()


def test_v1_pad_lanes_follow_first_inbounds_cell():
    # padding 1 -> window (0,0) starts at (-1,-1): first in-bounds cell is k = 1*2 + 1 = 3
    x = np.zeros((1, 1, 3, 3), np.float32)
    _, mask = max_pool2d_with_mask(x, [2], [2], [1], [1], False, product="910")
    words = mask.reshape(-1).view("<u2")
    assert words[3 * 32 + 0] == 0xFFFF  # k=3, p=0: channel 0 and the 15 zero-padded lanes
    assert words[0 * 32 + 0] == 0 and words[1 * 32 + 0] == 0 and words[2 * 32 + 0] == 0


def test_v1_multiple_bits_add_to_each_cell_and_padding_is_dropped():
    shape, kernel, stride, padding = (1, 2, 4, 4), [2], [2], [1]
    ms = mask_shape(shape, kernel, stride, padding, [1], False)  # Ho = Wo = 3 -> Q = 32
    words = np.zeros(int(np.prod(ms)) // 2, "<u2")
    q = 32

    def setbit(k, p, ch):
        words[k * q + p] |= 1 << ch

    # output (1,1) (p=4): window rows 1-2, cols 1-2; channel 0 flags k=0 and k=3 -> both get the gradient
    setbit(0, 4, 0)
    setbit(3, 4, 0)
    # output (0,0) (p=0): window rows -1..0, cols -1..0; channel 1 flags k=0 (padding) and k=3 (cell (0,0))
    setbit(0, 0, 1)
    setbit(3, 0, 1)
    # output (2,2) (p=8) channel 1: no bit at all -> dropped
    mask = words.view(np.int8).reshape(ms)
    grad = np.zeros((1, 2, 3, 3), np.float32)
    grad[0, 0, 1, 1] = 2.0
    grad[0, 1, 0, 0] = 3.0
    grad[0, 1, 2, 2] = 7.0
    got = max_pool2d_with_mask_backward(
        grad, np.zeros(shape, np.float32), mask, kernel, stride, padding, [1], False, product="910"
    )
    want = np.zeros(shape, np.float32)
    want[0, 0, 1, 1] = 2.0
    want[0, 0, 2, 2] = 2.0
    want[0, 1, 0, 0] = 3.0
    np.testing.assert_array_equal(got, want)
    decoded = decode_mask(mask, shape, kernel, stride, padding, False, layout=V1)
    assert decoded[0, 0, 1, 1] == 1 * 4 + 1  # first flagged cell wins
    assert decoded[0, 1, 0, 0] == 0  # the padding cell is skipped
    assert decoded[0, 1, 2, 2] == -1


def test_seed_sample_under_v1_layout():
    """Seed 000 / current doc sample: 4x3 input, kernel 2 stride 2, first 32 mask bytes = -1 (product 910)."""
    x = np.array([0.0850, -0.5147, -0.0212, -0.5654, -0.3222, 0.5847, 1.7510, 0.9954, 0.1842, 0.8392, 0.4835, 0.9213])
    x = x.astype(np.float32).reshape(1, 1, 4, 3)
    mask = np.zeros(256, np.int8)
    mask[:32] = -1
    mask = mask.reshape(1, 1, 4, 64)
    args = ([2, 2], [2, 2], [0, 0])
    decoded = decode_mask(mask, x.shape, *args, False, layout=V1)
    np.testing.assert_array_equal(decoded.reshape(-1), [0, 6])  # top-left cells (0,0) and (2,0)
    ones = np.ones((1, 1, 2, 1), np.float32)
    got = max_pool2d_with_mask_backward(ones, x, mask, *args, [1, 1], False, product="910")
    want = np.zeros(12, np.float32)
    want[[0, 6]] = 1.0
    np.testing.assert_array_equal(got.reshape(-1), want)
    grad = np.array([0.4757, 0.1726], np.float32).reshape(1, 1, 2, 1)  # the sample's actual gradOutput
    got = max_pool2d_with_mask_backward(grad, x, mask, *args, [1, 1], False, product="910")
    want[[0, 6]] = [0.4757, 0.1726]
    np.testing.assert_array_equal(got.reshape(-1), want)
    # the device-written mask for this input also routes to cells 0 and 6 (they are the true maxima)
    _, own = max_pool2d_with_mask(x, *args, [1, 1], False, product="910")
    np.testing.assert_array_equal(decode_mask(own, x.shape, *args, False, layout=V1).reshape(-1), [0, 6])
    # under the A2 layout those bytes are int32 -1: invalid
    with pytest.raises(ValueError):
        max_pool2d_with_mask_backward(grad, x, mask, *args, [1, 1], False, product="910b")


def test_910_compares_float_as_float16():
    # 1.0001 and 1.0002 round to the same float16 -> on 910 the first cell wins, on A2 the true maximum
    x = np.array([[1.0001, 1.0002], [0.0, 0.5]], np.float32).reshape(1, 1, 2, 2)
    out_v1, mask_v1 = max_pool2d_with_mask(x, [2], [2], [0], [1], False, product="910")
    out_a2, mask_a2 = max_pool2d_with_mask(x, [2], [2], [0], [1], False, product="910b")
    assert decode_mask(mask_v1, x.shape, [2], [2], [0], False, layout=V1).item() == 0
    assert decode_mask(mask_a2, x.shape, [2], [2], [0], False, layout=A2).item() == 1
    assert out_v1.item() == np.float32(np.float16(1.0001)) and out_a2.item() == np.float32(1.0002)


# --------------------------------------------------------------------------------------------- codecs


@pytest.mark.parametrize("layout", [A2, V1])
@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_encode_decode_roundtrip(rng, layout, case):
    shape, kernel, stride, padding, ceil_mode = case
    _, idx_t = _torch_forward(rng.standard_normal(shape).astype(np.float32), kernel, stride, padding, ceil_mode)
    argmax = idx_t.numpy()
    mask = encode_mask(argmax, shape, kernel, stride, padding, ceil_mode, layout=layout)
    assert mask.dtype == np.int8 and mask.shape == mask_shape(shape, kernel, stride, padding, [1], ceil_mode)
    back = decode_mask(mask, shape, kernel, stride, padding, ceil_mode, layout=layout)
    np.testing.assert_array_equal(back, argmax)
    assert back.dtype == np.int64
    # decode reads the raw buffer: a larger / differently shaped int8 buffer with the same prefix also works
    bigger = np.concatenate([mask.reshape(-1), np.full(64, 7, np.int8)])
    np.testing.assert_array_equal(decode_mask(bigger, shape, kernel, stride, padding, ceil_mode, layout=layout), argmax)


def test_encode_v1_rejects_cells_outside_the_window():
    shape = (1, 1, 4, 4)
    argmax = np.array([0, 2, 8, 10]).reshape(1, 1, 2, 2)  # top-left of each 2x2 window: fine
    encode_mask(argmax, shape, [2], [2], [0], False, layout=V1)
    argmax[0, 0, 1, 1] = 0  # (0,0) is not in the window of output (1,1)
    with pytest.raises(ValueError):
        encode_mask(argmax, shape, [2], [2], [0], False, layout=V1)


# --------------------------------------------------------------------------------------------- edges


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("product", ["910b", "910"])
def test_empty_batch(dtype, product):
    shape = (0, 3, 6, 6)
    x = np.zeros(shape, dtype)
    out, mask = max_pool2d_with_mask(x, [2], [2], [0], [1], False, product=product)
    assert out.shape == (0, 3, 3, 3) and mask.shape == (0, 3, 4, 64)
    got = max_pool2d_with_mask_backward(
        np.zeros((0, 3, 3, 3), dtype), x, mask, [2], [2], [0], [1], False, product=product
    )
    assert got.shape == shape and got.dtype == dtype


def test_rejections():
    x = np.zeros((1, 2, 4, 4), np.float32)
    grad = np.zeros((1, 2, 2, 2), np.float32)
    mask = np.zeros(mask_shape(x.shape, [2], [2], [0], [1], False), np.int8)
    bwd = max_pool2d_with_mask_backward
    with pytest.raises(ValueError):  # dilation must be 1
        bwd(grad, x, mask, [2], [2], [0], [2], False)
    with pytest.raises(ValueError):  # padding > kernel // 2
        bwd(grad, x, mask, [2], [2], [2], [1], False)
    with pytest.raises(ValueError):  # grad_output is not the pooled shape
        bwd(np.zeros((1, 2, 3, 3), np.float32), x, mask, [2], [2], [0], [1], False)
    with pytest.raises(ValueError):  # too few mask bytes
        bwd(grad, x, mask.reshape(-1)[:10], [2], [2], [0], [1], False)
    with pytest.raises(ValueError):  # unsupported product
        bwd(grad, x, mask, [2], [2], [0], [1], False, product="950")
    with pytest.raises(ValueError):  # 5-D self
        bwd(grad[None], x[None], mask, [2], [2], [0], [1], False)
    with pytest.raises(TypeError):  # mask must be INT8
        bwd(grad, x, mask.astype(np.int32), [2], [2], [0], [1], False)
    with pytest.raises(TypeError):
        bwd(grad.astype(np.float16), x, mask, [2], [2], [0], [1], False)
    bad = encode_mask(np.full((1, 2, 2, 2), 16), x.shape, [2], [2], [0], False, layout=A2)
    with pytest.raises(ValueError):  # argmax outside the H*W plane
        bwd(grad, x, bad, [2], [2], [0], [1], False)


def test_torch_tensor_helpers_roundtrip(rng):
    # the A2 decode of a bfloat16-input forward equals torch's indices on the same bf16 data
    x = rng.standard_normal((1, 3, 5, 5)).astype(np.float32)
    x_bf = x.astype(DTYPES[2])
    _, mask = max_pool2d_with_mask(x_bf, [3], [2], [1], [1], True, product="910b")
    _, idx = F.max_pool2d(to_torch(x_bf), 3, 2, 1, ceil_mode=True, return_indices=True)
    np.testing.assert_array_equal(decode_mask(mask, x.shape, [3], [2], [1], True, layout=A2), idx.numpy())


# The compiled bit-mask backward accumulates each plane split by phase (row mod sH, column mod sW) with a
# pitch of max(Wo, ceil(W / sW)); these geometries cover every branch: sW 1, 2 and 3 (the three ways back
# into the input's layout), sH != sW, a pitch wider than Wo (by more than a vector: kernel 20), partial
# windows on every side (padding, ceil mode), 3-D self, a channel count that is not a multiple of 16.
PHASE_CASES = [
    ((2, 16, 28, 28), [3], [2], [1], False),  # the ResNet stem pooling: pitch == Wo
    ((1, 5, 28, 27), [3], [2], [0], False),  # pitch 14 > Wo 13
    ((1, 3, 9, 10), [3, 2], [1, 1], [1, 1], True),  # stride 1: a plain copy back
    ((2, 18, 11, 13), [3], [3, 2], [1, 0], True),  # sH 3, sW 2, ceil
    ((1, 2, 12, 14), [4, 5], [2, 3], [2, 2], True),  # sW 3: the generic interleave, maximal padding
    ((20, 40, 41), [20], [1], [0], False),  # 3-D, kernel 20: pitch 41 = Wo 22 + 19
    ((1, 17, 5, 5), [1], [2], [0], False),  # 1x1 kernel, stride 2: phases never targeted stay zero
    ((1, 3, 21, 75), [3], [2], [1], True),  # stride-2 rows of 75: interleaved 32 + 32 + 11 at a time, odd width
    ((1, 2, 9, 65), [3], [2], [1], False),  # rows of 65: a last interleave of 1
    ((2, 33, 32, 32), [2], [2], [0], False),  # pooled grid 16 x 16 (whole vectors), C 33: three channel groups
    ((1, 4, 9, 12), [3], [1, 2], [1], False),  # sH 1, sW 2: the stride-2 interleave, one row phase
    ((2, 3, 2, 3), [3], [2], [1], False),  # Ho 1: the first cell of the odd rows reaches none (plane zeroed)
    ((1, 5, 3, 4), [3], [2], [1], True),  # tiny planes, ceil: several channels reuse the accumulator
]


@pytest.mark.parametrize("case", PHASE_CASES, ids=[f"phase{i}" for i in range(len(PHASE_CASES))])
@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_v1_compiled_path_is_bit_identical_to_numpy(rng, dtype, case):
    from generator.kernels import _accel

    pytest.importorskip("numba")
    shape, kernel, stride, padding, ceil_mode = case
    x = rng.standard_normal(shape).astype(dtype)
    out, mask = max_pool2d_with_mask(x, kernel, stride, padding, [1], ceil_mode, product="910")
    grad = rng.standard_normal(out.shape).astype(np.float32)
    grad.reshape(-1)[::7] = np.inf
    grad.reshape(-1)[3::13] = -np.inf  # inf - inf = NaN where both reach one cell
    grad.reshape(-1)[5::17] = -0.0
    grad = grad.astype(dtype)
    noise = rng.integers(-128, 128, mask.shape).astype(np.int8)  # several bits per output, padding cells too
    for m in (mask, noise):
        args = (grad, x, m, kernel, stride, padding, [1], ceil_mode)
        with _accel.forced("numpy"):
            want = max_pool2d_with_mask_backward(*args, product="910")
        grad.flags.writeable = False
        with _accel.forced("compiled"):
            got = max_pool2d_with_mask_backward(*args, product="910")
        grad.flags.writeable = True
        assert got.dtype == want.dtype and got.shape == want.shape == x.shape
        np.testing.assert_array_equal(got.view(f"u{got.itemsize}"), want.view(f"u{want.itemsize}"))


@pytest.mark.parametrize("case", PHASE_CASES, ids=[f"phase{i}" for i in range(len(PHASE_CASES))])
def test_v1_compiled_loop_writes_only_its_output(rng, case):
    """The compiled loop writes ``out`` in address order with whole stores whose values past a row are
    overwritten later: nothing after the end of ``out`` may be touched (here: guard values right after it)."""
    from generator.kernels import max_pool2d_with_mask_backward as module

    pytest.importorskip("numba")
    shape, kernel, stride, padding, ceil_mode = case
    x = rng.standard_normal(shape).astype(np.float32)
    out, mask = max_pool2d_with_mask(x, kernel, stride, padding, [1], ceil_mode, product="910")
    grad = rng.standard_normal(out.shape).astype(np.float32)
    setup = module._setup("910", tuple(kernel), tuple(stride), tuple(padding), (1,), ceil_mode, x.shape)
    plan, mask_bytes = setup[-2], setup[-1]
    words = mask.reshape(-1)[:mask_bytes].view(np.uint16)
    buffer = np.full(x.size + 64, np.nan, np.float32)
    module._v1_backward_compiled.dispatcher()(words, grad.reshape(-1), buffer[: x.size], plan)
    assert np.isnan(buffer[x.size :]).all()
    want = max_pool2d_with_mask_backward(grad, x, mask, kernel, stride, padding, [1], ceil_mode, product="910")
    np.testing.assert_array_equal(buffer[: x.size].view(np.uint32), want.reshape(-1).view(np.uint32))


@pytest.mark.parametrize("product", ["910", "910b"])
def test_mask_layout_in_memory_does_not_matter(rng, product):
    """The mask is read as C-order bytes: a strided view of the same bytes (exactly the needed size, or larger
    with only the leading bytes read) gives the contiguous mask's result; uint8 reads like int8."""
    shape, attrs = (2, 18, 9, 8), ([3], [2], [1], [1], True)
    x = rng.standard_normal(shape).astype(np.float32)
    out, mask = max_pool2d_with_mask(x, *attrs, product=product)
    grad = rng.standard_normal(out.shape).astype(np.float32)
    want = max_pool2d_with_mask_backward(grad, x, mask, *attrs, product=product)
    flat = mask.reshape(-1)
    wide = np.zeros(2 * flat.size + 64, np.int8)
    wide[: 2 * flat.size : 2] = flat
    same_size = wide[: 2 * flat.size : 2]  # strided, exactly the mask's bytes
    larger = wide[::2]  # strided, 32 bytes more than the mask
    fortran = np.asfortranarray(mask)  # same values, other memory order: still read in C order
    for m in (same_size, larger, fortran, mask.view(np.uint8)):
        got = max_pool2d_with_mask_backward(grad, x, m, *attrs, product=product)
        np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))


def test_cost_counts_the_compiled_scratch():
    """A large kernel: one channel group's pitched words (kH*kW x Ho x pitch uint16) outweigh everything else."""
    from generator.kernels.max_pool2d_with_mask_backward import cost

    self = np.zeros((1, 1, 200, 200), np.float32)
    grad = np.zeros((1, 1, 181, 181), np.float32)
    estimate = cost(grad, self, None, [20], [1], [0], [1], False, product="910")
    assert estimate.bytes >= 2 * 400 * 181 * 200 and estimate.param in ("self", "kernelSize")


def _a2_case(rng, shape, kernel, stride, padding, ceil_mode):
    x = _input(rng, shape, np.float32, True)
    _, idx_t = _torch_forward(x, kernel, stride, padding, ceil_mode)
    grad = rng.standard_normal(tuple(idx_t.shape)).astype(np.float32)
    return x, grad, idx_t, _atk_encode(idx_t, mask_shape(shape, kernel, stride, padding, [1], ceil_mode))


@pytest.mark.parametrize("zeroed", [False, True], ids=["planes-zeroed", "calloc"])
@pytest.mark.parametrize("case", [*CASES, PHASE_CASES[0]], ids=[*CASE_IDS, "stem"])
def test_a2_compiled_path_is_torch_bit_for_bit(rng, monkeypatch, case, zeroed):
    """The compiled A2/A3 loop zeroes each plane (or, from ``_ZEROED_BYTES`` on, gets zeros) and adds
    ``grad_output`` in pooled order in float32, as PyTorch's CPU kernel: the same bits, ties (one cell the maximum
    of several windows) included, on both sides of the threshold."""
    from generator.kernels import _accel
    from generator.kernels import max_pool2d_with_mask_backward as module

    pytest.importorskip("numba")
    monkeypatch.setattr(module, "_ZEROED_BYTES", 0 if zeroed else 1 << 62)
    shape, kernel, stride, padding, ceil_mode = case
    x, grad, idx_t, mask = _a2_case(rng, shape, kernel, stride, padding, ceil_mode)
    want = _golden_backward(grad, x, idx_t, kernel, stride, padding, ceil_mode)
    args = (grad, x, mask, kernel, stride, padding, [1], ceil_mode)
    with _accel.forced("compiled"):
        got = max_pool2d_with_mask_backward(*args, product="910b")
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))
    out = np.full(x.size, 0.0 if zeroed else np.nan, np.float32)  # (the loop itself: what it does not zero shows)
    argmax = mask.reshape(-1)[: 4 * grad.size].view(np.int32)
    pooled, plane = grad.shape[-1] * grad.shape[-2], x.shape[-1] * x.shape[-2]
    assert module._a2_backward_compiled.dispatcher()(argmax, grad.reshape(-1), out, pooled, plane, zeroed)
    np.testing.assert_array_equal(out.view(np.uint32), want.reshape(-1).view(np.uint32))
    with _accel.forced("numpy"):  # float64 sums: within a float32 rounding
        _close(max_pool2d_with_mask_backward(*args, product="910b"), want)


@pytest.mark.parametrize("mode", ["numpy", "compiled"])
@pytest.mark.parametrize("value", [-1, 16, 2**31 - 1])
def test_a2_argmax_out_of_the_plane_is_rejected(mode, value):
    """On both paths, an argmax value outside ``[0, H*W)`` (anywhere, here in the last plane) raises ValueError
    naming the range (the compiled loop stops and the NumPy path reports it)."""
    from generator.kernels import _accel

    if mode == "compiled":
        pytest.importorskip("numba")
    x, grad = np.zeros((1, 2, 4, 4), np.float32), np.ones((1, 2, 2, 2), np.float32)
    argmax = np.zeros((1, 2, 2, 2), np.int64)
    argmax[0, 1, 1, 1] = value
    bad = encode_mask(argmax, x.shape, [2], [2], [0], False, layout=A2)
    with _accel.forced(mode), pytest.raises(ValueError, match="indices must lie in"):
        max_pool2d_with_mask_backward(grad, x, bad, [2], [2], [0], [1], False, product="910b")


# --------------------------------------------------------------------------------------------- 16-lane intrinsics


def _store_pairs(even, odd, out, at, count):
    vec_store_pairs(out, at, vec_load(even, 0), vec_load(odd, 0), count)


def _add_where_bit(target, at, values, values_at, words, words_at, bit, count):
    vec_add_where_bit(target, at, values, values_at, words, words_at, bit, count)


def _put_where_bit(target, at, values, values_at, words, words_at, bit, count):
    vec_put_where_bit(target, at, values, values_at, words, words_at, bit, count)


def _compiled(function):
    from generator.kernels import _accel

    pytest.importorskip("numba")
    return _accel.jit(function).dispatcher()


def test_vec_store_pairs_writes_exactly_count_values():
    """``vec_store_pairs``: the two vectors interleaved, the first ``count`` values stored, nothing else touched
    (counts below 0 store nothing, above 32 all 32)."""
    run = _compiled(_store_pairs)
    even, odd = np.arange(16, dtype=np.float32), -np.arange(1, 17, dtype=np.float32)
    pairs = np.stack([even, odd], axis=1).reshape(-1)
    for count in (-3, 0, 1, 2, 15, 16, 17, 28, 31, 32, 40):
        out = np.full(40, np.nan, np.float32)
        run(even, odd, out, 5, count)
        want = np.full(40, np.nan, np.float32)
        stored = min(max(count, 0), 32)
        want[5 : 5 + stored] = pairs[:stored]
        np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("put", [False, True], ids=["add", "put"])
def test_vec_where_bit_uses_only_flagged_lanes(put):
    """``vec_add_where_bit``: ``target += values`` in the lanes whose word has the bit, ``+= +0.0`` in the others
    (a NaN or inf there does not leak; ``-0.0`` gives ``+0.0`` on a zero target, as NumPy's sums);
    ``vec_put_where_bit``: the same onto zeros, whatever the target held. Nothing at or past ``count`` is read
    or written."""
    run = _compiled(_put_where_bit if put else _add_where_bit)
    rng = np.random.default_rng(5)
    words = rng.integers(0, 2**16, 40).astype(np.uint16)
    values = rng.standard_normal(40).astype(np.float32)
    values[[3, 9]] = np.nan, -np.inf
    values[[4, 11]] = -0.0
    for bit in (0, 7, 15):
        for count in (-1, 0, 1, 9, 16, 50):
            target = np.zeros(40, np.float32)
            target[2:] = np.nan if put else 0.0  # (put: the old values must not matter)
            target[30:] = 7.0
            want = target.copy()
            run(target, 2, values, 3, words, 1, bit, count)
            lanes = min(max(count, 0), 16)
            flagged = (words[1 : 1 + lanes] >> bit) & 1 == 1
            base = np.zeros(lanes, np.float32) if put else want[2 : 2 + lanes]
            want[2 : 2 + lanes] = base + np.where(flagged, values[3 : 3 + lanes], np.float32(0.0))
            np.testing.assert_array_equal(target.view(np.uint32), want.view(np.uint32))
