"""ConvolutionBackward reference kernel vs PyTorch (aten.convolution_backward and autograd of F.conv*).

Tolerances: float32 results use rtol=1e-5 and atol=1e-5*sqrt(L), where L is the number of products summed
for the output (float32 summation order differs from PyTorch's). float16/bfloat16 results are compared with
the float32 PyTorch result computed from the *same rounded inputs*, with the dtype's (rtol, atol) from
``TOLERANCES`` and atol scaled by sqrt(L) (the kernel rounds its float32 result once to the output dtype).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.kernels._common import BFLOAT16
from generator.kernels.convolution_backward import convolution_backward, round_hf32
from tests.kernels.conftest import DTYPE_IDS, DTYPES, TOLERANCES, from_torch, to_torch

torch = pytest.importorskip("torch")
F = torch.nn.functional

F32 = np.dtype(np.float32)
ALL = [True, True, True]
CONV = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}
CONV_T = {1: F.conv_transpose1d, 2: F.conv_transpose2d, 3: F.conv_transpose3d}


def _out_size(in_size, kernel, stride, padding, dilation, transposed, output_padding):
    if transposed:
        return [
            (i - 1) * s - 2 * p + d * (k - 1) + op + 1
            for i, k, s, p, d, op in zip(in_size, kernel, stride, padding, dilation, output_padding, strict=True)
        ]
    return [
        (i + 2 * p - d * (k - 1) - 1) // s + 1
        for i, k, s, p, d in zip(in_size, kernel, stride, padding, dilation, strict=True)
    ]


def _make(rng, cfg, dtype=F32):
    """Random (grad_output, input, weight) for a config dict, rounded to ``dtype``."""
    n, cin, cout, g = cfg["n"], cfg["cin"], cfg["cout"], cfg["groups"]
    spatial = len(cfg["in_size"])
    op = cfg.get("output_padding", [0] * spatial)
    wshape = (cin, cout // g, *cfg["kernel"]) if cfg["transposed"] else (cout, cin // g, *cfg["kernel"])
    out = _out_size(
        cfg["in_size"], cfg["kernel"], cfg["stride"], cfg["padding"], cfg["dilation"], cfg["transposed"], op
    )
    x = rng.standard_normal((n, cin, *cfg["in_size"]), dtype=np.float32).astype(dtype)
    w = rng.standard_normal(wshape, dtype=np.float32).astype(dtype)
    gy = rng.standard_normal((n, cout, *out), dtype=np.float32).astype(dtype)
    return gy, x, w


def _ours(gy, x, w, cfg, mask=ALL, **kw):
    spatial = len(cfg["in_size"])
    return convolution_backward(
        grad_output=gy,
        input=x,
        weight=w,
        bias_sizes=[gy.shape[1]],
        stride=cfg["stride"],
        padding=cfg["padding"],
        dilation=cfg["dilation"],
        transposed=cfg["transposed"],
        output_padding=cfg.get("output_padding", [0] * spatial),
        groups=cfg["groups"],
        output_mask=mask,
        **kw,
    )


def _f32(a):
    return to_torch(np.asarray(a, dtype=np.float32))


def _aten(gy, x, w, cfg, mask=ALL):
    """float32 torch.ops.aten.convolution_backward on the (possibly rounded) inputs."""
    spatial = len(cfg["in_size"])
    res = torch.ops.aten.convolution_backward(
        _f32(gy),
        _f32(x),
        _f32(w),
        [gy.shape[1]],
        list(cfg["stride"]),
        list(cfg["padding"]),
        list(cfg["dilation"]),
        cfg["transposed"],
        list(cfg.get("output_padding", [0] * spatial)),
        cfg["groups"],
        mask,
    )
    return [None if r is None else from_torch(r) for r in res]


def _autograd(gy, x, w, cfg):
    """Gradients via autograd of F.conv{1,2,3}d / F.conv_transpose{1,2,3}d with a bias."""
    spatial = len(cfg["in_size"])
    xt = _f32(x).requires_grad_()
    wt = _f32(w).requires_grad_()
    bt = torch.zeros(gy.shape[1], requires_grad=True)
    if cfg["transposed"]:
        op = cfg.get("output_padding", [0] * spatial)
        y = CONV_T[spatial](xt, wt, bt, cfg["stride"], cfg["padding"], op, cfg["groups"], cfg["dilation"])
    else:
        y = CONV[spatial](xt, wt, bt, cfg["stride"], cfg["padding"], cfg["dilation"], cfg["groups"])
    y.backward(_f32(gy))
    return [from_torch(t.grad) for t in (xt, wt, bt)]


def _reduction_lengths(gy, x, w, transposed):
    """Number of products summed for one element of (grad_input, grad_weight, grad_bias) (upper bounds)."""
    k = math.prod(w.shape[2:])
    gi = w.shape[1] * k if transposed else w.shape[0] * k
    gw = x.shape[0] * math.prod(x.shape[2:] if transposed else gy.shape[2:])
    gb = gy.shape[0] * math.prod(gy.shape[2:])
    return gi, gw, gb


def _check(got, ref, dtype, length):
    assert got.dtype == dtype
    assert got.shape == ref.shape
    rtol, atol = TOLERANCES[np.dtype(dtype)]
    np.testing.assert_allclose(
        got.astype(np.float32), ref.astype(np.float32), rtol=rtol, atol=atol * math.sqrt(max(length, 1))
    )


def _check_all(got, ref, gy, x, w, transposed):
    lengths = _reduction_lengths(gy, x, w, transposed)
    for g, r, dtype, length in zip(got, ref, (x.dtype, w.dtype, gy.dtype), lengths, strict=True):
        _check(g, r, dtype, length)


def cfg(
    in_size,
    cin,
    cout,
    kernel,
    stride,
    padding,
    dilation,
    groups=1,
    n=2,
    transposed=False,
    output_padding=None,
):
    c = {
        "n": n,
        "cin": cin,
        "cout": cout,
        "in_size": list(in_size),
        "kernel": list(kernel),
        "stride": list(stride),
        "padding": list(padding),
        "dilation": list(dilation),
        "groups": groups,
        "transposed": transposed,
    }
    if output_padding is not None:
        c["output_padding"] = list(output_padding)
    return c


CASES = {
    "1d_basic": cfg([9], 3, 5, [3], [1], [1], [1]),
    "1d_stride_dil_groups": cfg([13], 4, 6, [3], [2], [2], [2], groups=2),
    "1d_uncovered": cfg([10], 2, 3, [2], [3], [0], [1]),
    "2d_basic": cfg([7, 9], 3, 4, [3, 3], [1, 1], [1, 1], [1, 1]),
    "2d_odd_mixed": cfg([11, 8], 4, 6, [3, 2], [2, 3], [1, 0], [2, 1], groups=2),
    "2d_depthwise": cfg([9, 7], 6, 6, [3, 3], [2, 1], [1, 1], [1, 2], groups=6),
    "2d_depthwise_mult": cfg([8, 8], 3, 6, [3, 3], [1, 1], [1, 1], [1, 1], groups=3),
    "2d_1x1_stride2": cfg([9, 10], 5, 3, [1, 1], [2, 2], [0, 0], [1, 1]),
    "2d_uncovered": cfg([10, 11], 2, 3, [2, 3], [3, 4], [0, 1], [1, 1], n=3),
    "2d_big_pad": cfg([5, 4], 2, 2, [3, 3], [1, 2], [3, 2], [1, 1]),
    "3d_basic": cfg([5, 6, 7], 2, 3, [3, 3, 3], [1, 1, 1], [1, 1, 1], [1, 1, 1]),
    "3d_mixed": cfg([6, 7, 5], 4, 6, [2, 3, 2], [2, 1, 3], [1, 2, 0], [1, 2, 1], groups=2),
    "1d_transposed": cfg([7], 3, 4, [3], [2], [1], [1], transposed=True, output_padding=[1]),
    "2d_transposed": cfg(
        [5, 6], 4, 6, [3, 3], [2, 3], [1, 2], [1, 2], groups=2, transposed=True, output_padding=[1, 2]
    ),
    "2d_transposed_dw": cfg(
        [5, 4], 4, 4, [3, 2], [2, 2], [0, 1], [1, 1], groups=4, transposed=True, output_padding=[1, 0]
    ),
    "3d_transposed": cfg(
        [4, 5, 3],
        4,
        6,
        [3, 2, 3],
        [2, 3, 1],
        [1, 0, 2],
        [1, 2, 1],
        groups=2,
        transposed=True,
        output_padding=[1, 2, 0],
    ),
    "2d_transposed_s1": cfg([6, 5], 3, 2, [3, 3], [1, 1], [1, 0], [1, 1], transposed=True),
}


@pytest.mark.parametrize("name", list(CASES))
def test_float32_vs_aten(name, rng):
    c = CASES[name]
    gy, x, w = _make(rng, c)
    _check_all(_ours(gy, x, w, c), _aten(gy, x, w, c), gy, x, w, c["transposed"])


@pytest.mark.parametrize(
    "name",
    ["1d_stride_dil_groups", "2d_odd_mixed", "2d_depthwise", "3d_mixed", "2d_transposed", "3d_transposed"],
)
def test_float32_vs_autograd(name, rng):
    c = CASES[name]
    gy, x, w = _make(rng, c)
    _check_all(_ours(gy, x, w, c), _autograd(gy, x, w, c), gy, x, w, c["transposed"])


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("name", ["1d_stride_dil_groups", "2d_odd_mixed", "3d_mixed", "2d_transposed", "2d_depthwise"])
def test_dtypes_vs_aten_on_rounded_inputs(name, dtype, rng):
    c = CASES[name]
    gy, x, w = _make(rng, c, dtype)
    got = _ours(gy, x, w, c)
    _check_all(got, _aten(gy, x, w, c), gy, x, w, c["transposed"])


def test_mixed_dtypes_follow_each_input(rng):
    c = CASES["2d_odd_mixed"]
    gy, x, w = _make(rng, c)
    gy, x, w = gy.astype(BFLOAT16), x.astype(np.float16), w.astype(np.float32)
    got = _ours(gy, x, w, c)
    assert [g.dtype for g in got] == [np.dtype(np.float16), F32, BFLOAT16]
    _check_all(got, _aten(gy, x, w, c), gy, x, w, False)


def test_uncovered_input_positions_get_zero(rng):
    # H: k=2, s=3, no pad -> rows 2, 5, 8, 9 never read; W: k=3, s=4, pad 1 -> cols 2, 6, 10 never read
    c = CASES["2d_uncovered"]
    gy, x, w = _make(rng, c)
    gi = _ours(gy, x, w, c)[0]
    assert np.all(gi[:, :, 2::3, :] == 0) and np.all(gi[:, :, 9, :] == 0) and np.all(gi[:, :, :, 2::4] == 0)
    assert np.count_nonzero(gi) > gi.size // 3


@pytest.mark.parametrize(
    "mask", list(itertools.product([False, True], repeat=3)), ids=lambda m: "".join("01"[b] for b in m)
)
@pytest.mark.parametrize("name", ["2d_odd_mixed", "2d_transposed"])
def test_every_output_mask(name, mask, rng):
    c = CASES[name]
    gy, x, w = _make(rng, c)
    full = _ours(gy, x, w, c)
    got = _ours(gy, x, w, c, mask=list(mask))
    ref = _aten(gy, x, w, c, mask=list(mask))
    for bit, g, f, r in zip(mask, got, full, ref, strict=True):
        if not bit:
            assert g is None
        else:
            np.testing.assert_array_equal(g, f)  # masking must not change the computed values
            np.testing.assert_allclose(g, r, rtol=1e-5, atol=1e-4)


def _pad_reference(gy, x, w, pads, stride, dilation, groups, transposed, output_padding):
    """Autograd of the explicit-padding composition for 4-value [top, bottom, left, right] padding."""
    top, bottom, left, right = pads
    xt = _f32(x).requires_grad_()
    wt = _f32(w).requires_grad_()
    bt = torch.zeros(gy.shape[1], requires_grad=True)
    if transposed:
        full = F.conv_transpose2d(xt, wt, None, stride, 0, 0, groups, dilation)
        oph, opw = output_padding
        y = F.pad(full, (-left, -right + opw, -top, -bottom + oph)) + bt.view(1, -1, 1, 1)
    else:
        y = F.conv2d(F.pad(xt, (left, right, top, bottom)), wt, bt, stride, 0, dilation, groups)
    assert tuple(y.shape) == gy.shape
    y.backward(_f32(gy))
    return [from_torch(t.grad) for t in (xt, wt, bt)]


ASYM = [
    # (in_size, cin, cout, kernel, stride, dilation, groups, pads [t, b, l, r], transposed, output_padding)
    ([8, 9], 3, 4, [3, 3], [1, 1], [1, 1], 1, [1, 0, 2, 1], False, [0, 0]),
    ([9, 7], 4, 6, [3, 2], [2, 3], [2, 1], 2, [0, 2, 1, 0], False, [0, 0]),
    ([6, 7], 4, 4, [3, 3], [2, 1], [1, 2], 4, [2, 1, 0, 3], False, [0, 0]),
    ([5, 6], 4, 6, [3, 3], [2, 3], [1, 2], 2, [1, 0, 2, 1], True, [1, 2]),
    ([4, 5], 3, 2, [3, 2], [2, 2], [1, 1], 1, [0, 2, 1, 1], True, [0, 1]),
]


@pytest.mark.parametrize("case", ASYM, ids=[f"asym{i}" for i in range(len(ASYM))])
def test_asymmetric_padding(case, rng):
    in_size, cin, cout, kernel, stride, dilation, groups, pads, transposed, op = case
    top, bottom, left, right = pads
    c = cfg(in_size, cin, cout, kernel, stride, [0, 0], dilation, groups, transposed=transposed, output_padding=op)
    eff = [d * (k - 1) + 1 for d, k in zip(dilation, kernel, strict=True)]
    if transposed:
        out = [
            (i - 1) * s + e + o - lo - hi
            for i, s, e, o, lo, hi in zip(in_size, stride, eff, op, (top, left), (bottom, right), strict=True)
        ]
        wshape = (cin, cout // groups, *kernel)
    else:
        out = [
            (i + lo + hi - e) // s + 1
            for i, s, e, lo, hi in zip(in_size, stride, eff, (top, left), (bottom, right), strict=True)
        ]
        wshape = (cout, cin // groups, *kernel)
    x = rng.standard_normal((2, cin, *in_size), dtype=np.float32)
    w = rng.standard_normal(wshape, dtype=np.float32)
    gy = rng.standard_normal((2, cout, *out), dtype=np.float32)
    c["padding"] = pads
    got = _ours(gy, x, w, c)
    ref = _pad_reference(gy, x, w, pads, stride, dilation, groups, transposed, op)
    _check_all(got, ref, gy, x, w, transposed)


def test_pad_reference_composition_matches_aten_when_symmetric(rng):
    # Validates the reference used for the asymmetric case: symmetric 4-value padding == aten with padding [p, q].
    for name in ("2d_odd_mixed", "2d_transposed"):
        c = CASES[name]
        gy, x, w = _make(rng, c)
        ph, pw = c["padding"]
        ref = _pad_reference(
            gy,
            x,
            w,
            [ph, ph, pw, pw],
            c["stride"],
            c["dilation"],
            c["groups"],
            c["transposed"],
            c.get("output_padding", [0, 0]),
        )
        _check_all(_aten(gy, x, w, c), ref, gy, x, w, c["transposed"])
        c4 = dict(c, padding=[ph, ph, pw, pw])
        for a, b in zip(_ours(gy, x, w, c4), _ours(gy, x, w, c), strict=True):
            np.testing.assert_array_equal(a, b)


@st.composite
def _random_cfg(draw):
    spatial = draw(st.integers(1, 3))
    transposed = draw(st.booleans())
    groups = draw(st.sampled_from([1, 1, 2, 3]))
    cin = groups * draw(st.integers(1, 3))
    cout = groups * draw(st.integers(1, 3))
    kernel = [draw(st.integers(1, 3)) for _ in range(spatial)]
    stride = [draw(st.integers(1, 3)) for _ in range(spatial)]
    dilation = [draw(st.integers(1, 2)) for _ in range(spatial)]
    padding = [draw(st.integers(0, 2)) for _ in range(spatial)]
    max_in = {1: 12, 2: 8, 3: 5}[spatial]
    in_size, output_padding = [], []
    for k, s, d, p in zip(kernel, stride, dilation, padding, strict=True):
        eff = d * (k - 1) + 1
        if transposed:
            op = draw(st.integers(0, max(s, d) - 1))
            lo = max(1, -(-(2 * p - eff - op + 1) // s) + 1)
            output_padding.append(op)
        else:
            lo = max(1, eff - 2 * p)
        in_size.append(draw(st.integers(lo, max(lo, max_in))))
    n = draw(st.integers(1, 3))
    return cfg(in_size, cin, cout, kernel, stride, padding, dilation, groups, n, transposed, output_padding or None)


@settings(max_examples=150, deadline=None, derandomize=True)
@given(c=_random_cfg(), seed=st.integers(0, 2**32 - 1))
def test_random_configs_vs_aten(c, seed):
    gy, x, w = _make(np.random.default_rng(seed), c)
    _check_all(_ours(gy, x, w, c), _aten(gy, x, w, c), gy, x, w, c["transposed"])


@pytest.mark.parametrize("name", ["2d_odd_mixed", "2d_transposed"])
def test_empty_batch(name, rng):
    c = dict(CASES[name], n=0)
    gy, x, w = _make(rng, c)
    gi, gw, gb = _ours(gy, x, w, c)
    assert gi.shape == x.shape and gi.dtype == F32
    assert gw.shape == w.shape and not np.any(gw)
    assert gb.shape == (c["cout"],) and not np.any(gb)
    ref = _aten(gy, x, w, c)
    np.testing.assert_array_equal(gw, ref[1])
    np.testing.assert_array_equal(gb, ref[2])


def test_empty_input_channels(rng):
    x = np.zeros((2, 0, 5, 5), np.float32)
    w = np.zeros((3, 0, 3, 3), np.float32)
    gy = rng.standard_normal((2, 3, 3, 3), dtype=np.float32)
    gi, gw, gb = convolution_backward(gy, x, w, [3], [1, 1], [0, 0], [1, 1], False, [0, 0], 1, ALL)
    assert gi.shape == (2, 0, 5, 5) and gw.shape == (3, 0, 3, 3)
    # CANN's empty-tensor path zero-fills grad_bias (length bias_sizes[0]) whatever grad_output holds
    # (torch would sum grad_output here)
    assert gb.shape == (3,) and not np.any(gb)


def test_empty_path_needs_no_shape_relation():
    """What the A2/A3/950 empty path accepts (issue 11): 4-value output padding, C(gradOutput) != weight N, ..."""
    f = np.float32
    gi, gw, gb = convolution_backward(
        np.ones((0, 3, 7, 7), f), np.ones((0, 2, 7, 7), f), np.ones((2, 2, 1, 1), f), [3], [1, 1],
        [0, 0, 0, 0], [1, 1], False, [0, 0, 0, 0], 1, ALL,
    )  # fmt: skip
    assert gi.shape == (0, 2, 7, 7) and gw.shape == (2, 2, 1, 1) and not np.any(gw) and gb.shape == (3,)
    # transposed with an empty kernel: grad_input not requested
    gi, gw, gb = convolution_backward(
        np.ones((2, 1, 7, 7), f), np.ones((2, 2, 7, 7), f), np.ones((2, 1, 0, 1), f), [1], [1, 1],
        [0, 0], [1, 1], True, [0, 0], 1, [False, True, True],
    )  # fmt: skip
    assert gi is None and gw.shape == (2, 1, 0, 1) and gb.shape == (1,) and not np.any(gb)
    with pytest.raises(ValueError, match="not written"):  # a non-empty grad_input is never produced there
        convolution_backward(
            np.ones((2, 1, 7, 7), f), np.ones((2, 2, 7, 7), f), np.ones((2, 1, 0, 1), f), [1], [1, 1],
            [0, 0], [1, 1], True, [0, 0], 1, ALL,
        )  # fmt: skip
    with pytest.raises(ValueError, match="bias_sizes"):
        convolution_backward(
            np.ones((0, 2, 7, 7), f), np.ones((0, 2, 7, 7), f), np.ones((2, 2, 1, 1), f), None, [1, 1],
            [0, 0], [1, 1], False, [0, 0], 1, ALL,
        )  # fmt: skip


def test_round_hf32():
    vals = np.array([1 + 2.0**-12, 1 + 2.0**-13, -(1 + 2.0**-12), 1 + 3 * 2.0**-12, np.inf, -np.inf, 0.0], np.float32)
    expect = np.array([1 + 2.0**-11, 1.0, -(1 + 2.0**-11), 1 + 2.0**-10, np.inf, -np.inf, 0.0], np.float32)
    np.testing.assert_array_equal(round_hf32(vals), expect)
    assert np.isnan(round_hf32(np.array([np.nan], np.float32))[0])
    assert round_hf32(np.array([np.finfo(np.float32).max], np.float32))[0] == np.inf
    assert round_hf32(np.array([1 + 2.0**-12], np.float32), drop_bits=13)[0] == 1.0
    assert round_hf32(np.array([1 + 2.0**-11], np.float32), drop_bits=13)[0] == 1 + 2.0**-10
    big = np.random.default_rng(0).standard_normal(10000).astype(np.float32)
    r = round_hf32(big)
    assert np.all((r.view(np.uint32) & 0xFFF) == 0)
    assert np.all(np.abs(r - big) <= np.abs(big) * 2.0**-12)


@pytest.mark.parametrize("cube", [1, 3])
def test_emulate_hf32(cube, rng):
    c = CASES["2d_odd_mixed"]
    gy, x, w = _make(rng, c)
    got = _ours(gy, x, w, c, cube_math_type=cube, emulate_precision=True)
    ref = _aten(round_hf32(gy), round_hf32(x), round_hf32(w), c)
    _check_all(got, ref, gy, x, w, False)
    plain = _ours(gy, x, w, c, cube_math_type=cube)
    assert not np.allclose(got[1], plain[1], rtol=1e-6, atol=0)  # the emulation really changes the result
    for a, b in zip(plain, _ours(gy, x, w, c, cube_math_type=0), strict=True):
        np.testing.assert_array_equal(a, b)  # without emulation every cube_math_type is KEEP_DTYPE


@pytest.mark.parametrize("dtype", [F32, BFLOAT16], ids=["float32", "bfloat16"])
def test_emulate_fp16(dtype, rng):
    c = CASES["2d_transposed"]
    gy, x, w = _make(rng, c, dtype)
    # bf16 -> fp16 is exact for normal fp16 values: scale x into the fp16 subnormal range so that it rounds.
    scale = 2.0**-20 if dtype == BFLOAT16 else 1.0
    x = (x.astype(np.float32) * scale).astype(dtype)
    got = _ours(gy, x, w, c, cube_math_type=2, emulate_precision=True)
    ref = _aten(*(a.astype(np.float16) for a in (gy, x, w)), c)
    plain = _ours(gy, x, w, c)
    assert not np.allclose(got[1].astype(np.float32), plain[1].astype(np.float32), rtol=1e-3, atol=0)
    rtol, atol = TOLERANCES[np.dtype(dtype)]
    lengths = _reduction_lengths(gy, x, w, True)
    for g, r, length, sc in zip(got, ref, lengths, (1.0, scale, 1.0), strict=True):
        np.testing.assert_allclose(g.astype(np.float32), r, rtol=rtol, atol=atol * sc * math.sqrt(length))


def test_emulate_leaves_half_and_keep_dtype_alone(rng):
    c = CASES["2d_odd_mixed"]
    gy16, x16, w16 = _make(rng, c, np.float16)
    for cube in (0, 1, 2, 3):
        a = _ours(gy16, x16, w16, c, cube_math_type=cube, emulate_precision=True)
        b = _ours(gy16, x16, w16, c)
        for u, v in zip(a, b, strict=True):
            np.testing.assert_array_equal(u, v)
    gy, x, w = _make(rng, c)
    for u, v in zip(_ours(gy, x, w, c, cube_math_type=0, emulate_precision=True), _ours(gy, x, w, c), strict=True):
        np.testing.assert_array_equal(u, v)
    # bf16 with HF32 modes keeps bf16 compute (no rounding)
    gyb, xb, wb = _make(rng, c, BFLOAT16)
    for u, v in zip(
        _ours(gyb, xb, wb, c, cube_math_type=3, emulate_precision=True), _ours(gyb, xb, wb, c), strict=True
    ):
        np.testing.assert_array_equal(u, v)


def _args(**over):
    base = {
        "grad_output": np.zeros((1, 2, 3, 3), np.float32),
        "input": np.zeros((1, 2, 5, 5), np.float32),
        "weight": np.zeros((2, 2, 3, 3), np.float32),
        "bias_sizes": [2],
        "stride": [1, 1],
        "padding": [0, 0],
        "dilation": [1, 1],
        "transposed": False,
        "output_padding": [0, 0],
        "groups": 1,
        "output_mask": ALL,
    }
    base.update(over)
    return base


def test_valid_base_arguments_run():
    gi, gw, gb = convolution_backward(**_args())
    assert gi.shape == (1, 2, 5, 5) and gw.shape == (2, 2, 3, 3) and gb.shape == (2,)


@pytest.mark.parametrize(
    ("over", "exc"),
    [
        ({"grad_output": np.zeros((1, 2, 4, 3), np.float32)}, ValueError),  # wrong output size
        ({"input": np.zeros((1, 2, 5, 5), np.int32)}, TypeError),
        ({"input": np.zeros((1, 2, 5, 5, 5, 5), np.float32)}, ValueError),
        ({"weight": np.zeros((2, 2, 3), np.float32)}, ValueError),
        ({"output_padding": [1, 0]}, ValueError),  # non-transposed output_padding must be 0
        ({"output_mask": [True, True]}, ValueError),
        ({"cube_math_type": 4}, ValueError),
        ({"groups": 2}, ValueError),  # Cin != groups * weight C
        ({"groups": 0}, ValueError),
        ({"stride": [0, 1]}, ValueError),
        ({"stride": [1, 1, 1]}, ValueError),
        ({"padding": [-1, 0]}, ValueError),
        ({"padding": [0, 0, 0]}, ValueError),
        ({"dilation": [1, 0]}, ValueError),
        ({"bias_sizes": [3]}, ValueError),
    ],
)
def test_invalid_arguments(over, exc):
    with pytest.raises(exc):
        convolution_backward(**_args(**over))
