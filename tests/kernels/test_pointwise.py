"""The shared pointwise machinery (generator/kernels/_pointwise.py): promotion, blocks, selects, casts."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.kernels import _pointwise as pw
from generator.kernels._common import BFLOAT16
from generator.runtime import rules

F32, F16, F64 = np.dtype(np.float32), np.dtype(np.float16), np.dtype(np.float64)


def test_promote_follows_the_cann_table():
    assert pw.promote(F16, F32) == F32
    assert pw.promote(BFLOAT16, F16) == F32  # not float16 or bfloat16
    assert pw.promote(np.int32, BFLOAT16) == BFLOAT16
    assert pw.promote(np.bool_, np.int8) == np.int8
    assert pw.promote(np.float32, np.complex64) == np.complex64
    for a, b in [(np.uint16, np.float32), (np.uint32, np.int32), (np.uint64, np.bool_)]:
        with pytest.raises(TypeError):
            pw.promote(a, b)
    for (a, b), want in rules.PROMOTION.items():  # every pair of the table that has a NumPy dtype
        if a in pw._NUMPY_BY_NAME and b in pw._NUMPY_BY_NAME:
            if want is None:
                with pytest.raises(TypeError):
                    pw.promote(pw._NUMPY_BY_NAME[a], pw._NUMPY_BY_NAME[b])
            elif want in pw._NUMPY_BY_NAME:
                assert pw.promote(pw._NUMPY_BY_NAME[a], pw._NUMPY_BY_NAME[b]) == pw._NUMPY_BY_NAME[want]
    with pytest.raises(TypeError):
        pw.acl_name(np.dtype("U3"))


def test_broadcast_shape_never_raises():
    assert pw.broadcast_shape((2, 1, 3), (4, 1)) == (2, 4, 3)
    assert pw.broadcast_shape((0, 1), (1, 5)) == (0, 5)
    assert pw.broadcast_shape((2, 3), (4, 3)) == (4, 3)  # incompatible: the larger size, no exception
    assert pw.broadcast_shape() == () and pw.numel(()) == 1


def _shapes():
    dims = st.integers(0, 3).flatmap(lambda r: st.lists(st.sampled_from([1, 2, 3, 5]), min_size=r, max_size=r))
    return st.tuples(dims, dims)


@settings(max_examples=60, deadline=None)
@given(
    shapes=_shapes(),
    dtypes=st.tuples(*[st.sampled_from([F32, F16, BFLOAT16, np.dtype(np.int32)])] * 2),
    block=st.sampled_from([1, 3, 7, 64]),
    transpose=st.booleans(),
)
def test_blocked_map_equals_the_direct_formula(shapes, dtypes, block, transpose):
    rng = np.random.default_rng(0)
    a = rng.standard_normal(shapes[0]).astype(np.float32).astype(dtypes[0])
    b = rng.standard_normal(shapes[1]).astype(np.float32).astype(dtypes[1])
    if transpose:
        a, b = a.T, b.T  # non-contiguous when rank >= 2
    try:
        shape = np.broadcast_shapes(a.shape, b.shape)
    except ValueError:
        with pytest.raises(ValueError):
            pw.blocked_map(lambda bl, o, t: None, [a, b], F32)
        return

    def chain(blocks, out, tmps):
        x, y = blocks
        (t,) = tmps
        np.multiply(x, 3, out=t)
        np.subtract(t, y, out=out)

    for result_dtype in (F32, F16, BFLOAT16):
        got = pw.blocked_map(chain, [a, b], result_dtype, scratch=1, block=block)
        want = (a.astype(np.float32) * 3 - b.astype(np.float32)).astype(result_dtype)
        assert got.shape == shape and got.dtype == result_dtype
        np.testing.assert_array_equal(got.astype(np.float32), np.broadcast_to(want, shape).astype(np.float32))


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), exponent_low=st.integers(0, 250))
def test_float16_store_rounds_exactly_like_numpy(seed, exponent_low):
    rng = np.random.default_rng(seed)
    bits = rng.integers(0, 2**32, 4096, dtype=np.uint64).astype(np.uint32)
    # concentrate on an exponent window (subnormal, normal, overflow, inf/NaN ranges)
    exponents = rng.integers(exponent_low, min(exponent_low + 6, 256), 4096).astype(np.uint32)
    bits = (bits & np.uint32(0x807FFFFF)) | (exponents << np.uint32(23))
    x = bits.view(np.float32)
    got = np.empty(x.shape, F16)
    pw.store(x, got)
    with np.errstate(all="ignore"):
        want = x.astype(F16)
    nan = np.isnan(want)
    np.testing.assert_array_equal(got.view(np.uint16)[~nan], want.view(np.uint16)[~nan])
    assert np.isnan(got[nan]).all()


def test_float16_and_bfloat16_loads_are_exact():
    every_half = np.arange(1 << 16, dtype=np.uint16)
    for dtype in (F16, BFLOAT16):
        src = every_half.view(dtype)
        got = pw.widen(src)
        want = src.astype(np.float32)
        nan = np.isnan(want)
        np.testing.assert_array_equal(got.view(np.uint32)[~nan], want.view(np.uint32)[~nan])
        assert np.isnan(got[nan]).all()
    assert pw.widen(np.float16(2.5)).shape == () and pw.to_dtype(np.float32([1e-6]), F16)[0] == np.float16(1e-6)


@pytest.mark.parametrize("dtype", [F32, F16, BFLOAT16, np.dtype(np.float64), np.dtype(np.int8), np.dtype(np.int64)])
def test_selects_are_bit_exact(dtype):
    rng = np.random.default_rng(1)
    values = np.array([np.inf, -np.inf, np.nan, -0.0, 1.5, -2.0, 3.0, 0.25] * 8, np.float64)
    if np.dtype(dtype).kind == "i":
        values = rng.integers(-100, 100, values.size)
    a = values.astype(dtype)
    b = a[::-1].copy()
    flags = rng.random(a.size) < 0.5
    out = np.empty_like(a)
    pw.zero_where(out, a, flags.copy())
    want = np.where(flags, np.zeros_like(a), a)
    np.testing.assert_array_equal(out.view(np.uint8), want.view(np.uint8))  # +0.0, NaN bits kept
    out = b.copy()
    pw.blend(out, a, out, flags.copy())  # out aliases "other"
    want = np.where(flags, a, b)
    np.testing.assert_array_equal(out.view(np.uint8), want.view(np.uint8))


def test_compiled_bfloat16_rounding_is_ml_dtypes_cast():
    """The compiled ``put`` for bfloat16 (32-bit LLVM IR) against ml_dtypes' cast, bit for bit (NaN included)."""
    pytest.importorskip("numba")
    from generator.kernels import _accel

    rng = np.random.default_rng(7)
    random = rng.integers(0, 1 << 32, 1 << 20, dtype=np.uint64).astype(np.uint32)
    every_bf16 = np.arange(1 << 16, dtype=np.uint32) << 16
    # each bfloat16, its neighbours and the exact ties below / above it (round half to even both ways)
    edges = np.concatenate([every_bf16 + d for d in (0, 1, 0x7FFF, 0x8000, 0x8001, 0xFFFF)]).astype(np.uint32)
    values = np.concatenate([random, edges]).view(np.float32)
    with np.errstate(invalid="ignore"):
        want = values.astype(BFLOAT16)
    with _accel.forced("compiled"):
        got = _accel.float32_to_bfloat16(values, BFLOAT16)
    np.testing.assert_array_equal(got.view(np.uint16), want.view(np.uint16))


@pytest.mark.parametrize("dtype", [F32, F16, BFLOAT16, np.dtype(np.int8), np.dtype(np.int32), np.dtype(np.int64)])
def test_compiled_select_covers_every_broadcast_mode(dtype):
    """The compiled select loop (``x <= 0`` zeroes ``g``) over every read mode of either input, bit for bit."""
    pytest.importorskip("numba")
    from generator.kernels import _accel
    from generator.kernels.threshold_backward import _FUSED

    rng = np.random.default_rng(3)
    specials = np.array([np.inf, -np.inf, np.nan, -0.0, 0.0, 1.5, -2.0], np.float64)
    shapes = {"full": (3, 40), "periodic": (40,), "row": (3, 1), "scalar": ()}
    for g_shape in shapes.values():
        for x_shape in shapes.values():
            if dtype.kind == "i":
                g, x = (rng.integers(-5, 5, s).astype(dtype) for s in (g_shape, x_shape))
            else:
                g, x = (rng.choice(specials, s).astype(dtype) for s in (g_shape, x_shape))
            with _accel.forced("compiled"):
                got = pw.fused(_FUSED, (g, x), dtype, (0,) if dtype.kind == "i" else (np.float32(0),), select=True)
            want = np.where(np.broadcast_to(x, got.shape).astype(np.float64) <= 0, np.zeros((), dtype), g)
            assert got.dtype == dtype and got.shape == want.shape
            bits = want.astype(dtype).reshape(-1).view(np.uint8)
            np.testing.assert_array_equal(got.reshape(-1).view(np.uint8), bits)


def test_exp32_normal_is_exp32_where_the_result_is_normal():
    pytest.importorskip("numba")
    from generator.kernels import _accel

    x = np.concatenate(
        [np.linspace(-86.5, 89.5, 400001, dtype=np.float32), np.float32([0.0, -0.0, 88.37, 88.72, 88.73, 1e-9])]
    )
    want, got = np.empty_like(x), np.empty_like(x)
    _accel.exp_array(x, want)
    _accel.exp_normal_array(x, got)
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))  # inf from 88.73 on, in both
    specials = np.float32([np.nan, np.inf, -np.inf, -86.6, -1000.0])
    got = np.empty_like(specials)
    _accel.exp_normal_array(specials, got)
    assert np.isnan(got[0]) and got[1] == np.inf
    assert np.all(got[2:] == got[2]) and 2.6e-38 < got[2] < 2.8e-38  # clamped: exp(-86.5)


def test_fused_plans_per_dtypes_and_shapes():
    """One cached plan per (loop, dtypes, shapes): calls differing in any of them each get their own result."""
    pytest.importorskip("numba")
    from generator.kernels import _accel
    from generator.kernels.sigmoid_backward import _EXACT, _FUSED

    rng = np.random.default_rng(5)
    calls = [
        (_FUSED, (3, 4), (3, 4), F32),
        (_FUSED, (3, 4), (4,), F32),
        (_FUSED, (4,), (3, 4), F32),
        (_FUSED, (3, 4), (3, 4), F16),
        (_EXACT, (3, 4), (3, 4), F64),
        (_EXACT, (2, 3, 4), (2, 3, 1), F64),
    ]
    with _accel.forced("compiled"):
        for _ in range(2):  # the second round runs on cached plans
            for loop, sa, sb, dtype in calls:
                g, y = rng.standard_normal(sa).astype(dtype), rng.standard_normal(sb).astype(dtype)
                got = pw.fused(loop, (g, y), dtype)
                wide = F64 if dtype == F64 else F32
                want = (g.astype(wide) * (1 - y.astype(wide))) * y.astype(wide)
                assert got.dtype == dtype and got.shape == want.shape
                np.testing.assert_array_equal(got, want.astype(dtype))
        # what the loops do not take: mixed dtypes on an exact loop, float64 on a float32 loop, empty results
        assert pw.fused(_EXACT, (np.ones(3, F32), np.ones(3, F64)), F64) is None
        assert pw.fused(_FUSED, (np.ones(3, F64), np.ones(3, F64)), F64) is None
        assert pw.fused(_FUSED, (np.ones((0, 3), F32), np.ones(3, F32)), F32) is None
        with pytest.raises(ValueError):  # shapes that do not broadcast, also once a plan exists for others
            pw.fused(_FUSED, (np.ones((2, 3), F32), np.ones((4, 3), F32)), F32)
    with _accel.forced("numpy"):
        assert pw.fused(_FUSED, (np.ones(3, F32), np.ones(3, F32)), F32) is None


def test_fused_copies_strided_read_only_and_unaligned_inputs():
    """Inputs the loops cannot take as they are (strided, read-only, unaligned) are copied, never written."""
    pytest.importorskip("numba")
    from generator.kernels import _accel
    from generator.kernels.sigmoid_backward import _FUSED

    rng = np.random.default_rng(6)
    g, y = rng.standard_normal((5, 8)).astype(F32), rng.standard_normal((5, 8)).astype(F32)
    want = (g * (1 - y)) * y
    frozen = y.copy()
    frozen.flags.writeable = False
    raw = np.zeros(y.size * 4 + 1, np.uint8)
    unaligned = raw[1:].view(F32).reshape(y.shape)
    unaligned[...] = y
    assert not unaligned.flags.aligned
    with _accel.forced("compiled"):
        for yy in (y, frozen, unaligned, np.asfortranarray(y), np.repeat(y, 2, axis=1)[:, ::2]):
            before = yy.copy()
            np.testing.assert_array_equal(pw.fused(_FUSED, (g, yy), F32), want)
            np.testing.assert_array_equal(yy, before)


def test_exact_select_loops_are_refused():
    from generator.kernels.threshold_backward import _drop

    with pytest.raises(ValueError, match="exact"):
        pw.driver(_drop, 2, select=True, exact=True)
