"""ConvolutionBackward: every implementation path against PyTorch, on channel counts that reach every block.

The kernel has a NumPy reference path (``ACLNN_KERNELS=numpy``: one stacked GEMM for small problems, else one
GEMM per kernel offset over column chunks) and a compiled path (Numba, batches of samples; tiny problems keep
the stacked GEMMs): grad_input by register tiles of 12, 8, 4 or 1 rows x 32 columns (runs shorter than a tile by
a plain loop), grad_weight by tiles of 6 or 4 or 1 rows x 4 source rows over blocks of columns (a masked last
step; remainder source rows and runs shorter than a step by a plain loop); groups of 1-3 channels by 4 x 4 dot
products and 4 x 8 gathered rows in column blocks sized to the cache. The configurations below choose
channels per group so that each tile shape and remainder is used (cin/g of 1, 3, 4, 5, 8, 12, 13; cout/g of
1, 2, 4, 5, 7, 9, 11, 12, 14), and the tests shrink the batch, column-block and chunk sizes to run the
multi-batch and multi-block loops on small inputs. Both paths must agree with
``torch.ops.aten.convolution_backward`` within the tolerances of ``test_convolution_backward`` (float32:
rtol 1e-5, atol 1e-5 * sqrt(reduction length)); half types round the float32 result once.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.kernels import _accel
from generator.kernels import convolution_backward as conv
from tests.kernels.conftest import DTYPE_IDS, DTYPES
from tests.kernels.test_convolution_backward import _aten, _check_all, _make, _ours, cfg, torch

pytest.importorskip("numba")

BLOCKS = {
    # 4 x 8 and 4 x 4 blocks with remainders on both sides, stride and dilation
    "2d_c13_to_9": cfg([11, 10], 13, 9, [3, 3], [1, 2], [1, 1], [2, 1], n=3),
    "2d_c12_to_8_s2": cfg([12, 9], 12, 8, [3, 2], [2, 2], [1, 0], [1, 1]),
    # groups: blocks must stop at group boundaries (cout/g = 5, 7; cin/g = 4, 5)
    "2d_groups_5x4": cfg([9, 9], 8, 10, [3, 3], [1, 1], [1, 1], [1, 1], groups=2),
    "2d_groups_7x5": cfg([8, 7], 15, 21, [2, 3], [1, 1], [0, 1], [1, 1], groups=3),
    "2d_groups_4x4": cfg([10, 10], 16, 16, [3, 3], [1, 1], [1, 1], [1, 1], groups=4),
    # depthwise-like shapes the direct stencil does not take (3-D, transposed, multiplier > 4)
    "3d_depthwise": cfg([4, 6, 5], 4, 4, [3, 3, 3], [1, 1, 1], [1, 1, 1], [1, 1, 1], groups=4),
    "2d_multiplier_5": cfg([7, 8], 2, 10, [3, 3], [1, 1], [1, 1], [1, 1], groups=2),
    # 3-D with every stride phase populated, and a 1-D case
    "3d_c9_to_12_s2": cfg([5, 7, 6], 9, 12, [3, 2, 3], [2, 2, 1], [1, 0, 1], [1, 1, 2], n=3),
    "1d_c12_to_5": cfg([37], 12, 5, [5], [3], [2], [2], n=2),
    # transposed: the gathered convolution into the y side, grouped and strided
    "2d_transposed_c12": cfg([6, 7], 12, 9, [3, 3], [2, 2], [1, 1], [1, 1], transposed=True, output_padding=[1, 0]),
    "2d_transposed_groups": cfg(
        [5, 6], 10, 14, [3, 2], [2, 3], [1, 0], [1, 2], groups=2, transposed=True, output_padding=[1, 2]
    ),
    "3d_transposed_c8": cfg([3, 4, 5], 8, 8, [2, 3, 3], [2, 1, 2], [0, 1, 1], [1, 1, 1], transposed=True),
}

# The grad_weight tiles (rows 14 = 6 + 4 + 4, 11 = 6 + 4 + 1, 12 = 6 + 6 per group; source rows 13 = 3 x 4 + 1)
# and the grad_input tiles (rows 13 = 12 + 1, 11 = 8 + 1 + 1 + 1, 16 = 12 + 4 per group), with runs that end in
# partial steps and tiles, runs shorter than a step or a tile, and strided grids (offsets on several phases).
TILES = {
    "2d_s2_c13_to_14": cfg([11, 40], 13, 14, [3, 3], [2, 2], [1, 1], [1, 1]),
    "2d_transposed_s2_c12_to_11": cfg(
        [6, 21], 12, 11, [3, 3], [2, 2], [1, 1], [1, 1], transposed=True, output_padding=[1, 1]
    ),
    "2d_c13_to_14": cfg([9, 40], 13, 14, [3, 3], [1, 1], [1, 1], [1, 1]),
    "2d_c13_to_11_dilated": cfg([7, 45], 13, 11, [2, 3], [1, 1], [1, 2], [2, 2], n=3),
    "2d_groups_32_to_24": cfg([6, 37], 32, 24, [3, 3], [1, 1], [1, 1], [1, 1], groups=2),
    "2d_transposed_c11_to_13": cfg([8, 35], 11, 13, [3, 3], [1, 1], [1, 1], [1, 1], transposed=True),
    "3d_c8_to_14": cfg([4, 5, 21], 8, 14, [3, 3, 3], [1, 1, 1], [1, 1, 1], [1, 1, 1]),
    "1d_long_c13_to_14": cfg([300], 13, 14, [5], [1], [2], [1]),
    "1d_short_runs": cfg([12], 9, 10, [3], [1], [1], [1], n=3),
    "1d_runs_of_20": cfg([20], 9, 12, [3], [1], [1], [1], n=3),
}

# Asymmetric [top, bottom, left, right] padding on the compiled path (its spans start at the top/left pad).
ASYM = {
    "asym_c9": (cfg([9, 8], 9, 6, [3, 3], [2, 1], [0, 0], [1, 1]), [2, 0, 1, 2]),
    "asym_transposed_c8": (
        cfg([5, 6], 8, 5, [3, 3], [2, 2], [0, 0], [1, 1], transposed=True, output_padding=[1, 1]),
        [1, 2, 0, 1],
    ),
}


@pytest.fixture(autouse=True)
def _compiled_path_at_any_size(monkeypatch):
    """These inputs are small: let the compiled grid products take them (not only the stacked GEMMs)."""
    monkeypatch.setattr(conv, "_COMPILED_MIN_FLOATS", 0)


def _small_path(monkeypatch) -> list:
    """Send every problem to the compiled small-problem path; the returned list records its calls."""
    monkeypatch.setattr(conv, "_COMPILED_MIN_FLOATS", 1 << 30)
    calls, real = [], conv._small_gradients
    monkeypatch.setattr(conv, "_small_gradients", lambda *args: calls.append(args) or real(*args))
    return calls


@pytest.mark.parametrize("name", [*BLOCKS, *TILES])
def test_small_problems_on_the_im2col_path(name, rng, monkeypatch):
    """Below the size threshold the compiled mode runs the stacked GEMMs on an im2col stack of the valid
    columns (compiled copies in and out of the image, padding, strides, dilation, groups, both modes)."""
    calls = _small_path(monkeypatch)
    c = {**BLOCKS, **TILES}[name]
    gy, x, w = _make(rng, c)
    _check_all(_run("compiled", gy, x, w, c), _aten(gy, x, w, c), gy, x, w, c["transposed"])
    assert calls


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("name", ["3d_c9_to_12_s2", "2d_transposed_groups", "1d_c12_to_5"])
def test_small_problems_masks_and_dtypes(name, dtype, rng, monkeypatch):
    calls = _small_path(monkeypatch)
    c = BLOCKS[name]
    gy, x, w = _make(rng, c, dtype)
    ref = _aten(gy, x, w, c)
    got = _run("compiled", gy, x, w, c)
    assert [g.dtype for g in got] == [x.dtype, w.dtype, gy.dtype]
    _check_all(got, ref, gy, x, w, c["transposed"])
    for mask in ([True, False, False], [False, True, False], [False, False, True]):
        with _accel.forced("compiled"):
            part = _ours(gy, x, w, c, mask=mask)
        for bit, g, full in zip(mask, part, got, strict=True):
            assert (g is None) == (not bit)
            if bit:
                np.testing.assert_array_equal(g, full)
    assert calls


def _run(mode, gy, x, w, c):
    with _accel.forced(mode):
        return _ours(gy, x, w, c)


@pytest.mark.parametrize("mode", ["numpy", "compiled"])
@pytest.mark.parametrize("name", list(BLOCKS))
def test_paths_vs_aten(name, mode, rng):
    c = BLOCKS[name]
    gy, x, w = _make(rng, c)
    _check_all(_run(mode, gy, x, w, c), _aten(gy, x, w, c), gy, x, w, c["transposed"])


@pytest.mark.parametrize("mode", ["numpy", "compiled"])
@pytest.mark.parametrize("name", list(TILES))
def test_tiles_vs_aten(name, mode, rng):
    c = TILES[name]
    assert min(c["cin"], c["cout"]) // c["groups"] >= conv._TILES_MIN_CHANNELS  # (the tiles take these)
    gy, x, w = _make(rng, c)
    _check_all(_run(mode, gy, x, w, c), _aten(gy, x, w, c), gy, x, w, c["transposed"])


@pytest.mark.parametrize(
    "name", ["2d_c13_to_9", "2d_groups_7x5", "3d_c9_to_12_s2", "2d_transposed_groups", "2d_c13_to_14"]
)
def test_small_batches_and_column_blocks(name, rng, monkeypatch):
    """One sample per batch and the narrowest column blocks: the loops over batches, segments and blocks
    (grad_weight tile blocks of 20 columns: partial last steps, and last blocks shorter than a step that join
    the block before)."""
    c = dict({**BLOCKS, **TILES}[name], n=4)
    gy, x, w = _make(rng, c)
    monkeypatch.setattr(conv, "_BATCH_BYTES", 1)
    monkeypatch.setattr(conv, "_CACHE_BYTES", 1)
    monkeypatch.setattr(conv, "_DOTS_BLOCK", 20)
    _check_all(_run("compiled", gy, x, w, c), _aten(gy, x, w, c), gy, x, w, c["transposed"])


@pytest.mark.parametrize("quads_outer", [False, True])
@pytest.mark.parametrize(
    "name", ["2d_s2_c13_to_14", "2d_c13_to_14", "2d_groups_32_to_24", "2d_transposed_s2_c12_to_11", "3d_c8_to_14"]
)
def test_dot_tile_loop_orders(name, quads_outer, rng, monkeypatch):
    """The grad_weight tiles in both loop orders (quads of x-side rows outside or inside the row blocks), with
    groups, strides and short column blocks."""
    c = dict(TILES[name], n=2)
    gy, x, w = _make(rng, c)
    monkeypatch.setattr(conv, "_dots_quads_outer", lambda x_rows, y_rows: quads_outer)
    monkeypatch.setattr(conv, "_DOTS_BLOCK", 48)
    _check_all(_run("compiled", gy, x, w, c), _aten(gy, x, w, c), gy, x, w, c["transposed"])


@pytest.mark.parametrize("name", ["2d_c13_to_9", "2d_groups_7x5", "3d_c9_to_12_s2", "2d_transposed_groups"])
def test_numpy_per_offset_gemms_in_chunks(name, rng, monkeypatch):
    """The NumPy path above the stacked-GEMM size: one GEMM per kernel offset over chunks of columns."""
    c = BLOCKS[name]
    gy, x, w = _make(rng, c)
    monkeypatch.setattr(conv, "_STACKED_MAX_FLOATS", 0)
    monkeypatch.setattr(conv, "_CHUNK", 37)
    _check_all(_run("numpy", gy, x, w, c), _aten(gy, x, w, c), gy, x, w, c["transposed"])


@pytest.mark.parametrize("small", [False, True])
@pytest.mark.parametrize("name", list(ASYM))
def test_asymmetric_padding_on_both_paths(name, small, rng, monkeypatch):
    if small:
        _small_path(monkeypatch)
    base, pads = ASYM[name]
    for mode in ("numpy", "compiled"):
        c = dict(base, padding=pads)
        top, bottom, left, right = pads
        sym = dict(base, padding=[0, 0])
        gy_shape_ref = _make(np.random.default_rng(0), sym)[0].shape  # shape without padding
        gy, x, w = _make(rng, sym)
        # grow grad_output to the padded geometry: out changes by the total padding per dim (divided by stride)
        kernel, stride, dil = base["kernel"], base["stride"], base["dilation"]
        if base["transposed"]:
            out = [g - lo - hi for g, lo, hi in zip(gy_shape_ref[2:], (top, left), (bottom, right), strict=True)]
        else:
            out = [
                (i + lo + hi - d * (k - 1) - 1) // s + 1
                for i, lo, hi, d, k, s in zip(base["in_size"], (top, left), (bottom, right), dil, kernel, stride)
            ]
        gy = rng.standard_normal((gy.shape[0], gy.shape[1], *out), dtype=np.float32)
        with _accel.forced(mode):
            got = _ours(gy, x, w, c)
        with _accel.forced("numpy"):
            ref = _ours(gy, x, w, c)  # the NumPy path is checked against torch in test_convolution_backward
        _check_all(got, ref, gy, x, w, base["transposed"])


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("name", ["2d_c13_to_9", "2d_c12_to_8_s2", "3d_c9_to_12_s2", "2d_transposed_c12"])
def test_dtypes_on_the_compiled_path(name, dtype, rng, monkeypatch):
    c = dict(BLOCKS[name], n=3)
    gy, x, w = _make(rng, c, dtype)
    monkeypatch.setattr(conv, "_BATCH_BYTES", 1)  # each batch's grad_input is rounded into the result
    got = _run("compiled", gy, x, w, c)
    assert [g.dtype for g in got] == [x.dtype, w.dtype, gy.dtype]
    _check_all(got, _aten(gy, x, w, c), gy, x, w, c["transposed"])


def test_compiled_and_numpy_agree_on_partial_masks(rng):
    c = BLOCKS["3d_c9_to_12_s2"]
    gy, x, w = _make(rng, c)
    for mask in ([True, False, False], [False, True, False], [False, False, True]):
        with _accel.forced("numpy"):
            ref = _ours(gy, x, w, c, mask=mask)
        with _accel.forced("compiled"):
            got = _ours(gy, x, w, c, mask=mask)
        for bit, g, r in zip(mask, got, ref, strict=True):
            assert (g is None) == (not bit) == (r is None)
            if bit:
                np.testing.assert_allclose(g, r, rtol=1e-5, atol=1e-4)


def test_cost_covers_the_compiled_buffers():
    """cost() bounds what the compiled path holds: its grid buffers, at most one batch at a time."""
    x = np.zeros((4, 12, 20, 18), np.float32)
    w = np.zeros((9, 12, 3, 3), np.float32)
    gy = np.zeros((4, 9, 10, 18), np.float32)
    args = ([9], [2, 1], [1, 1], [1, 1], False, [0, 0], 1, [True, True, True])
    grid = conv._Grid(4, (20, 18), (10, 18), (3, 3), (2, 1), (1, 1), (1, 1))
    held = conv._grid_bytes(grid, 12, 9) + 4 * (x.size + w.size)  # all samples in one batch, plus the results
    assert conv.cost(gy, x, w, *args).bytes >= held
    # stride 1: grad_weight's float32 sums (one per weight), plus the packed weights
    gy1 = np.zeros((4, 9, 20, 18), np.float32)
    args1 = ([9], [1, 1], [1, 1], [1, 1], False, [0, 0], 1, [True, True, True])
    grid1 = conv._Grid(4, (20, 18), (20, 18), (3, 3), (1, 1), (1, 1), (1, 1))
    held1 = conv._grid_bytes(grid1, 12, 9) + 4 * (x.size + w.size) + 4 * w.size + 8 * w.size
    assert conv._dot_tiles_apply(12, 9)
    assert conv.cost(gy1, x, w, *args1).bytes >= held1


def test_cost_covers_the_small_problem_stack(monkeypatch):
    """cost() covers the small-problem path's stack of kernel offsets and its product (both [K, Cx, cols])."""
    x = np.zeros((1, 16, 12, 12), np.float32)
    w = np.zeros((1, 16, 3, 3), np.float32)
    gy = np.zeros((1, 1, 12, 12), np.float32)
    args = ([1], [1, 1], [1, 1], [1, 1], False, [0, 0], 1, [True, True, True])
    calls = _small_path(monkeypatch)
    with _accel.forced("compiled"):
        conv.convolution_backward(gy, x, w, *args)
    assert calls  # (this problem takes that path)
    stack = 4 * 9 * 16 * 144
    assert conv.cost(gy, x, w, *args).bytes >= 2 * stack + 4 * (x.size + w.size + 1)


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize(
    "geometry",  # n, x_size, y_size, kernel, stride, dilation, pad_lo: widths odd and even, pads of both parities
    [
        (2, (7, 9), (4, 5), (3, 3), (2, 2), (1, 1), (1, 0)),
        (2, (6, 10), (3, 5), (3, 3), (2, 2), (1, 1), (0, 1)),
        (1, (5, 11), (5, 4), (1, 3), (1, 3), (1, 1), (0, 2)),
        (2, (7, 6), (4, 6), (3, 3), (2, 1), (1, 1), (1, 1)),  # stride 1 along the rows
        (2, (4, 5, 7), (2, 3, 4), (3, 2, 3), (2, 1, 2), (1, 1, 1), (1, 0, 1)),
        (3, (13,), (7,), (3,), (2,), (2,), (1,)),
    ],
)
def test_compiled_phase_split_and_merge(geometry, dtype, rng):
    """The compiled phase split and merge (strided grids; the row copies of stride 1, the paired loop of stride 2
    and the strided loops of other strides) give NumPy's copies bit for bit, the merge rounded to every output
    dtype."""
    grid = conv._Grid(*geometry)
    x = rng.standard_normal((grid.n, 3, *grid.x_size), dtype=np.float32)
    with _accel.forced("numpy"):
        want = grid.x_to_phases(x)
    with _accel.forced("compiled"):
        got = grid.x_to_phases(x)
    np.testing.assert_array_equal(got, want)
    phases = rng.standard_normal(want.shape, dtype=np.float32)
    with _accel.forced("numpy"):
        want = grid.phases_to_x(phases, np.dtype(dtype))
    with _accel.forced("compiled"):
        got = grid.phases_to_x(phases, np.dtype(dtype))
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))


@pytest.mark.parametrize(
    "geometry",  # n, x_size, y_size, kernel, stride, dilation, pad_lo
    [
        (3, (7, 6), (4, 3), (3, 3), (2, 2), (1, 1), (1, 1)),
        (2, (2,), (1,), (1,), (3,), (1,), (0,)),  # stride phase 2 holds no x position
        (2, (4, 5, 6), (2, 3, 3), (3, 2, 3), (2, 2, 2), (1, 1, 1), (1, 0, 1)),
        (2, (5, 5), (5, 5), (3, 3), (1, 1), (1, 1), (1, 1)),
    ],
)
def test_clear_padding_restores_a_fresh_phase_buffer(geometry, rng):
    """The non-transposed grad_input grid overlays the x phases: before the next batch, clear_padding must zero
    everything x_to_phases does not write (padding, empty phases, slack), whatever the overlay left there."""
    grid = conv._Grid(*geometry)
    x = rng.standard_normal((grid.n, 3, *grid.x_size), dtype=np.float32)
    used = np.full((grid.phases, 3, grid.total), np.nan, np.float32)
    grid.clear_padding(used)
    np.testing.assert_array_equal(grid.x_to_phases(x, used), grid.x_to_phases(x))


def test_tiles_add_no_nan_for_infinite_inputs(rng):
    """The grad_weight tiles' masked last step and the overlapping last grad_input tile re-read columns already
    summed: with infinities in the inputs they must not turn into NaN where the NumPy path (and torch) keep
    +-inf (the masked lanes are selected away, never multiplied by zero)."""
    c = TILES["1d_runs_of_20"]
    gy, x, w = _make(rng, c)
    gy, x = np.abs(gy) + 0.5, np.abs(x) + 0.5  # positive: an infinity stays +inf through every sum
    gy[0, 2, 17] = np.inf  # a column of the last, partial step of its run
    x[1, 4, 18] = np.inf
    got, ref = _run("compiled", gy, x, w, c), _run("numpy", gy, x, w, c)
    for g, r in zip(got, ref, strict=True):
        np.testing.assert_array_equal(np.isnan(g), np.isnan(r))
        np.testing.assert_array_equal(np.isinf(g), np.isinf(r))
    assert np.isinf(got[1]).any() and not np.isnan(got[1]).any()


def test_tile_row_blocks():
    """The grad_input tiles cover each group's rows with 12-, 8-, 4- and 1-row tiles; the weights are laid out
    in the same order, one contiguous ``[t, c, tile row]`` stream per tile."""
    for rows, group, expect in ((26, 13, [12, 1, 12, 1]), (58, 29, [12, 12, 4, 1] * 2), (21, 21, [12, 8, 1])):
        blocks, r = [], 0
        while r < rows:
            block = conv._gather_rows(r, rows, group)
            blocks.append(block)
            r += block
        assert blocks == expect
        wp = np.arange(2 * 3 * rows, dtype=np.float32).reshape(2, 3, rows)
        tiled, k, r = conv._tiled_weights(wp, group), 0, 0
        for block in blocks:
            np.testing.assert_array_equal(tiled[k : k + 2 * 3 * block], wp[:, :, r : r + block].reshape(-1))
            k, r = k + 2 * 3 * block, r + block
        assert k == tiled.size


def test_vector_helpers():
    """``_accel.vec_*`` (the tiles' explicit vectors): loads, stores, splats, exact fused multiply-adds, sums,
    ``vec_add_sums4`` and ``vec_keep_last`` for every count, against NumPy."""
    from generator.kernels._accel import (
        vec_add,
        vec_add_sums4,
        vec_fma,
        vec_fold4,
        vec_keep_last,
        vec_load,
        vec_splat,
        vec_store,
        vec_zero,
    )

    @_accel.jit
    def lanes(a, b, out):  # out rows: fma(a, splat(b[0]), a[16:]), a + zero, keep_last(a, k) for k = 0..16, fold4
        x, y = vec_load(a, 0), vec_load(a, 16)
        vec_store(out, 0, vec_fma(x, vec_splat(b[0]), y))
        vec_store(out, 16, vec_add(x, vec_zero()))
        for k in range(17):
            vec_store(out, 32 + 16 * k, vec_keep_last(x, k))
        vec_store(out, 32 + 16 * 17, vec_fold4(vec_load(b, 1), vec_load(b, 17), vec_load(b, 33), vec_load(b, 49)))
        vec_add_sums4(out, 32 + 16 * 18 + 1, vec_load(b, 1))  # out[..., 1:5] += sums of 4 lanes, from 1.0 each

    rng = np.random.default_rng(5)
    a = rng.standard_normal(32).astype(np.float32)
    a[3] = np.inf
    b = np.concatenate([[1.0 / 3.0], rng.integers(-50, 50, 64)]).astype(np.float32)  # integers: exact sums
    out = np.full(32 + 18 * 16 + 6, np.nan, np.float32)
    out[-6:] = 1.0
    lanes(a, b, out)
    np.testing.assert_array_equal(out[-6:], [1.0, *(1.0 + b[1:17].reshape(4, 4).sum(axis=1)), 1.0])  # 4 floats only
    out = out[:-6]
    np.testing.assert_array_equal(out[-16:], b[1:].reshape(4, 4, 4).sum(axis=1).reshape(-1))  # lanes mod 4
    fused = (a[:16].astype(np.float64) * np.float64(b[0]) + a[16:]).astype(np.float32)  # exact product, one rounding
    np.testing.assert_array_equal(out[:16], fused)
    np.testing.assert_array_equal(out[16:32], a[:16])
    for k in range(17):
        expect = np.where(np.arange(16) >= 16 - k, a[:16], np.float32(0.0))
        np.testing.assert_array_equal(out[32 + 16 * k : 48 + 16 * k], expect)  # zeros, never 0 * inf = NaN


def test_attribute_checks_are_remembered_only_when_accepted(rng):
    """The checked attributes are remembered per (shapes, attributes): the same values given as tuples or NumPy
    arrays give the same results, unhashable values are checked without the cache, and a rejected call raises
    again every time."""
    c = BLOCKS["2d_c12_to_8_s2"]
    gy, x, w = _make(rng, c)
    ref = _ours(gy, x, w, c)
    same = dict(c, stride=tuple(c["stride"]), padding=np.array(c["padding"]), dilation=np.array(c["dilation"]))
    for got, want in zip(_ours(gy, x, w, same), ref, strict=True):
        np.testing.assert_array_equal(got, want)
    with pytest.raises(TypeError):  # a nested list is not a valid stride: the uncached check rejects it too
        _ours(gy, x, w, dict(c, stride=[[2], [2]]))
    wrong = dict(c, stride=[1, 1])
    for _ in range(2):
        with pytest.raises(ValueError, match="grad_output spatial size"):
            _ours(gy, x, w, wrong)


@st.composite
def _asymmetric_2d(draw):
    """A 2-D geometry with [top, bottom, left, right] padding (either mode), channels that reach the tiles."""
    transposed = draw(st.booleans())
    groups = draw(st.sampled_from([1, 2]))
    cin, cout = groups * draw(st.integers(1, 7)), groups * draw(st.integers(1, 7))
    kernel = [draw(st.integers(1, 3)) for _ in range(2)]
    stride = [draw(st.integers(1, 3)) for _ in range(2)]
    dilation = [draw(st.integers(1, 2)) for _ in range(2)]
    pads = [draw(st.integers(0, 3)) for _ in range(4)]
    in_size = []
    for dim in range(2):
        eff = dilation[dim] * (kernel[dim] - 1) + 1
        lo, hi = pads[2 * dim], pads[2 * dim + 1]
        low = max(1, -(-(lo + hi - eff + 1) // stride[dim]) + 1) if transposed else max(1, eff - lo - hi)
        in_size.append(draw(st.integers(low, low + 9)))
    return cfg(in_size, cin, cout, kernel, stride, [0, 0], dilation, groups, draw(st.integers(1, 2)), transposed), pads


def _aten_padded(gy, x, w, c, pads):
    """The oracle for asymmetric padding: torch without padding, on the explicitly padded input (non-transposed;
    grad_input cropped back), or on the full transposed output (transposed; grad_output zero-padded around the
    kept window)."""
    top, bottom, left, right = pads
    args = (list(c["stride"]), [0, 0], list(c["dilation"]), c["transposed"], [0, 0], c["groups"], [True] * 3)
    tx, tw, tgy = (torch.from_numpy(np.asarray(a, np.float32)) for a in (x, w, gy))
    if c["transposed"]:
        full = torch.nn.functional.pad(tgy, (left, right, top, bottom))
        res = torch.ops.aten.convolution_backward(full, tx, tw, [gy.shape[1]], *args)
        gi, gw = res[0], res[1]
    else:
        padded = torch.nn.functional.pad(tx, (left, right, top, bottom))
        res = torch.ops.aten.convolution_backward(tgy, padded, tw, [gy.shape[1]], *args)
        gi = res[0][:, :, top : top + x.shape[2], left : left + x.shape[3]]
        gw = res[1]
    return gi.numpy(), gw.numpy(), tgy.sum(dim=(0, 2, 3)).numpy()


@settings(max_examples=60, deadline=None, derandomize=True)
@given(case=_asymmetric_2d(), seed=st.integers(0, 2**32 - 1))
def test_asymmetric_padding_vs_explicitly_padded_aten(case, seed):
    """Every path (NumPy grid, compiled grid, compiled small problems) against an independent oracle for CANN's
    asymmetric padding, on random geometries: strides, dilation, groups, both modes, padding on either side."""
    c, pads = case
    rng = np.random.default_rng(seed)
    w_shape = (c["cin"], c["cout"] // c["groups"], *c["kernel"]) if c["transposed"] else None
    w_shape = w_shape or (c["cout"], c["cin"] // c["groups"], *c["kernel"])
    x = rng.standard_normal((c["n"], c["cin"], *c["in_size"]), dtype=np.float32)
    w = rng.standard_normal(w_shape, dtype=np.float32)
    eff = [d * (k - 1) + 1 for d, k in zip(c["dilation"], c["kernel"], strict=True)]
    lo, hi = pads[0::2], pads[1::2]
    if c["transposed"]:
        out = [(i - 1) * s - a - b + e for i, s, a, b, e in zip(c["in_size"], c["stride"], lo, hi, eff, strict=True)]
    else:
        out = [(i + a + b - e) // s + 1 for i, s, a, b, e in zip(c["in_size"], c["stride"], lo, hi, eff, strict=True)]
    gy = rng.standard_normal((c["n"], c["cout"], *out), dtype=np.float32)
    ref = _aten_padded(gy, x, w, c, pads)
    for mode, threshold in (("numpy", 1 << 15), ("compiled", 0), ("compiled", 1 << 30)):
        original = conv._COMPILED_MIN_FLOATS
        conv._COMPILED_MIN_FLOATS = threshold
        try:
            got = _run(mode, gy, x, w, dict(c, padding=pads))
        finally:
            conv._COMPILED_MIN_FLOATS = original
        _check_all(got, ref, gy, x, w, c["transposed"])


@pytest.mark.parametrize("dtype", [*DTYPES, np.uint8], ids=[*DTYPE_IDS, "uint8"])
@pytest.mark.parametrize("shape", [(3, 5), (2, 3, 1024, 200), (1 << 20,)])
def test_zeroed_blocks(shape, dtype, monkeypatch):
    """The grid buffers and results: zero-filled, writeable arrays of the shape and dtype asked (fresh memory
    advised for huge pages from 2 MiB on, np.zeros below or where the advice does not exist), independent of
    each other."""
    for advice in (True, False):
        if not advice:
            monkeypatch.delattr(conv.mmap, "MADV_HUGEPAGE", raising=False)
        a, b = conv._zeroed_block(shape, dtype), conv._zeroed_block(shape, dtype)
        assert a.shape == shape and a.dtype == np.dtype(dtype) and a.flags.writeable and a.flags.c_contiguous
        assert not np.any(a.view(np.uint8)) and not np.any(b.view(np.uint8))
        a.reshape(-1)[::4099] = 1
        assert not np.any(b.view(np.uint8)) and np.count_nonzero(a) == a[..., None].reshape(-1)[::4099].size
