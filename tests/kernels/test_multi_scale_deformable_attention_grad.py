"""MultiScaleDeformableAttentionGrad kernel vs autograd of mmcv's grid_sample composition (PyTorch, float32).

Sampling positions are kept at least 1e-3 pixel away from integer pixel coordinates (where the location
gradient of bilinear interpolation jumps, so a 1-ulp difference in ``loc * W - 0.5`` between the kernel and
grid_sample's ``((2*loc - 1 + 1) * W - 1) / 2`` could pick the other cell) and in particular from the range
boundary -1 (where the kernel's strict test differs from grid_sample, see test_strict_range_boundary).
"""

from __future__ import annotations

import numpy as np
import pytest

from generator.kernels.multi_scale_deformable_attention_grad import (
    multi_scale_deformable_attention,
    multi_scale_deformable_attention_grad,
)
from tests.kernels.conftest import DTYPE_IDS, DTYPES, TOLERANCES, from_torch, to_torch

torch = pytest.importorskip("torch")
F = torch.nn.functional


def torch_forward(value, spatial_shape, level_start_index, location, attn_weight):
    """mmcv ``multi_scale_deformable_attn_pytorch`` (levels sliced by level_start_index): (bs, nq, nh*C)."""
    bs, _, nh, channels = value.shape
    _, nq, _, levels, points, _ = location.shape
    grids = 2 * location - 1  # grid_sample's grid is (x, y) in [-1, 1]
    sampled = []
    for level, ((h, w), s) in enumerate(zip(spatial_shape.tolist(), level_start_index.tolist(), strict=True)):
        v = value[:, s : s + h * w].flatten(2).transpose(1, 2).reshape(bs * nh, channels, h, w)
        grid = grids[:, :, :, level].transpose(1, 2).flatten(0, 1)  # (bs*nh, nq, P, 2)
        sampled.append(F.grid_sample(v, grid, mode="bilinear", padding_mode="zeros", align_corners=False))
    weights = attn_weight.transpose(1, 2).reshape(bs * nh, 1, nq, levels * points)
    out = (torch.stack(sampled, dim=-2).flatten(-2) * weights).sum(-1)  # (bs*nh, C, nq)
    return out.view(bs, nh * channels, nq).transpose(1, 2).contiguous()


def torch_reference(value, spatial_shape, level_start_index, location, attn_weight, grad_output):
    """Forward output and the three gradients, in float32, from inputs already rounded to their dtype."""
    leaves = [to_torch(a.astype(np.float32)).requires_grad_() for a in (value, location, attn_weight)]
    out = torch_forward(leaves[0], spatial_shape, level_start_index, leaves[1], leaves[2])
    out.backward(to_torch(grad_output.astype(np.float32)))
    return from_torch(out), *(from_torch(leaf.grad) for leaf in leaves)


def assert_close(actual, expected, dtype, name):
    """Shared (rtol, atol) per dtype; atol is relative to the largest magnitude of the expected tensor."""
    rtol, atol = TOLERANCES[np.dtype(dtype)]
    scale = max(1.0, float(np.abs(expected).max(initial=0.0)))
    np.testing.assert_allclose(actual.astype(np.float32), expected, rtol=rtol, atol=atol * scale, err_msg=name)


def make_locations(rng, lead_shape, shapes, dtype, outside=0.2):
    """(x, y) locations of shape lead_shape + (2,) for levels ``shapes``, rounded to ``dtype``.

    A fraction ``outside`` of the coordinates lies outside the sampling range (-1, size) in pixel space, the
    rest inside; after rounding every pixel coordinate is >= 1e-3 away from an integer.
    """
    loc = np.empty(lead_shape + (2,))
    for level, (h, w) in enumerate(shapes):
        for comp, size in ((0, w), (1, h)):
            sub = lead_shape[:3] + lead_shape[4:]
            pix = rng.uniform(-1.0, size, sub)
            out = rng.random(sub) < outside
            pix[out] = np.where(
                rng.random(out.sum()) < 0.5,
                rng.uniform(-3.0, -1.0, out.sum()),
                size + 2 * rng.random(out.sum()),
            )
            loc[:, :, :, level, :, comp] = (pix + 0.5) / size
    return move_off_integers(loc.astype(dtype), shapes)


def move_off_integers(loc, shapes):
    """Move (in place) coordinates within 1e-3 pixel of an integer to the centre of their cell."""
    for _ in range(5):
        moved = False
        for level, (h, w) in enumerate(shapes):
            for comp, size in ((0, w), (1, h)):
                view = loc[:, :, :, level, :, comp]
                pix = view.astype(np.float64) * size - 0.5
                bad = np.abs(pix - np.round(pix)) < 1e-3
                if bad.any():
                    moved = True
                    view[bad] = ((np.floor(pix[bad]) + 1.0) / size).astype(loc.dtype)
        if not moved:
            return loc
    raise AssertionError("could not move sampling positions away from integer pixel coordinates")


def make_case(rng, dtype, bs, nq, nh, channels, points, shapes, gap=0, index_dtype=np.int64, outside=0.2):
    """Inputs for one case; ``gap`` unused keys are left between levels (level_start_index is not a cumsum)."""
    sizes = [h * w for h, w in shapes]
    starts = np.cumsum([0] + [s + gap for s in sizes[:-1]])
    num_keys = int(starts[-1] + sizes[-1] + gap)
    levels = len(shapes)
    return {
        "value": rng.standard_normal((bs, num_keys, nh, channels)).astype(dtype),
        "spatial_shape": np.array(shapes, index_dtype).reshape(levels, 2),
        "level_start_index": starts.astype(index_dtype),
        "location": make_locations(rng, (bs, nq, nh, levels, points), shapes, dtype, outside),
        "attn_weight": rng.uniform(0.0, 1.0, (bs, nq, nh, levels, points)).astype(dtype),
        "grad_output": rng.standard_normal((bs, nq, nh * channels)).astype(dtype),
    }


def check_case(case, dtype):
    expected = torch_reference(**case)
    forward = {k: v for k, v in case.items() if k != "grad_output"}
    out = multi_scale_deformable_attention(**forward)
    grads = multi_scale_deformable_attention_grad(**case)
    assert out.dtype == case["value"].dtype and out.shape == expected[0].shape
    for name, src, grad in zip(
        ("grad_value", "grad_location", "grad_attn_weight"),
        ("value", "location", "attn_weight"),
        grads,
        strict=True,
    ):
        assert grad.dtype == case[src].dtype and grad.shape == case[src].shape, name
    for name, actual, ref in zip(
        ("output", "grad_value", "grad_location", "grad_attn_weight"), (out, *grads), expected, strict=True
    ):
        assert_close(actual, ref, dtype, name)
    return grads


CASES = {
    # bs, nq, nh, C, P, level shapes, gap between levels, index dtype
    "4levels_odd": (2, 37, 3, 16, 4, [(7, 5), (4, 9), (3, 3), (1, 2)], 0, np.int64),
    "1level_many_heads": (1, 64, 8, 8, 2, [(11, 13)], 0, np.int32),
    "3levels_gap_c32": (2, 23, 2, 32, 3, [(5, 6), (9, 4), (2, 7)], 3, np.int32),
    "tiny_levels_many_points": (3, 50, 2, 24, 8, [(1, 1), (2, 1), (1, 3)], 0, np.int64),
}


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
@pytest.mark.parametrize("case", list(CASES), ids=list(CASES))
def test_matches_torch(rng, dtype, case):
    bs, nq, nh, channels, points, shapes, gap, index_dtype = CASES[case]
    data = make_case(rng, dtype, bs, nq, nh, channels, points, shapes, gap, index_dtype)
    grad_value, grad_location, grad_attn = check_case(data, dtype)
    # sanity of the data: some samples are dropped and some are used, so both paths are exercised
    dropped = grad_attn.astype(np.float32) == 0
    assert dropped.any() and not dropped.all()
    if gap:  # unused keys between levels receive no gradient
        sizes = np.prod(data["spatial_shape"], axis=1)
        for start, size in zip(data["level_start_index"], sizes, strict=True):
            assert not grad_value[:, start + size : start + size + gap].astype(np.float32).any()


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_heavy_groups_match_torch(rng, dtype):
    """Many samples at a few positions (np.add.at remainder path) mixed with random ones (round path)."""
    shapes = [(6, 7), (3, 4)]
    data = make_case(rng, dtype, 2, 300, 2, 8, 4, shapes, outside=0.1)
    loc = data["location"]
    heavy = rng.random(loc.shape[:-1]) < 0.5
    fixed = np.array([[0.3, 0.55], [0.62, 0.2], [0.1, 0.9]])[rng.integers(0, 3, heavy.sum())]
    loc[heavy] = fixed.astype(dtype)
    move_off_integers(loc, shapes)
    check_case(data, dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=DTYPE_IDS)
def test_doc_sample(dtype):
    """Sample program of the doc (= seed 003), spatialShape / levelStartIndex read as integers.

    value = ones(1, 1, 1, 8), one 1x1 level, 32 queries at location (0, 0), attnWeight = 1, gradOutput = 1.
    Pixel position (-0.5, -0.5): inside (-1, 1); only corner (0, 0) is in the image, weight 0.25.
    gradValue = 32 * 0.25 = 8; gradAttnWeight = 8 channels * 0.25 = 2;
    gradLocation = W (or H) * 8 channels * (0.5 * (1 - 0)) = 4 for x and y.
    """
    case = {
        "value": np.ones((1, 1, 1, 8), dtype),
        "spatial_shape": np.array([[1, 1]], np.int32),
        "level_start_index": np.array([0], np.int32),
        "location": np.zeros((1, 32, 1, 1, 1, 2), dtype),
        "attn_weight": np.ones((1, 32, 1, 1, 1), dtype),
        "grad_output": np.ones((1, 32, 8), dtype),
    }
    grad_value, grad_location, grad_attn = check_case(case, dtype)
    np.testing.assert_array_equal(grad_value.astype(np.float32), np.full((1, 1, 1, 8), 8.0))
    np.testing.assert_array_equal(grad_location.astype(np.float32), np.full((1, 32, 1, 1, 1, 2), 4.0))
    np.testing.assert_array_equal(grad_attn.astype(np.float32), np.full((1, 32, 1, 1, 1), 2.0))


def test_location_is_x_then_y():
    """Component 0 scales with W and indexes columns (doc says "y, x"; kernel and mmcv use (x, y)).

    H=2, W=4, value[y, x, c] = 10*y + x + c; location (0.625, 0.25) -> pixel x = 2, y = 0 exactly.
    On an integer coordinate the kernel uses the cell to the right/below (lx = ly = 0), like grid_sample.
    """
    h, w, channels = 2, 4, 8
    yy, xx, cc = np.meshgrid(np.arange(h), np.arange(w), np.arange(channels), indexing="ij")
    case = {
        "value": (10.0 * yy + xx + cc).reshape(1, h * w, 1, channels).astype(np.float32),
        "spatial_shape": np.array([[h, w]], np.int64),
        "level_start_index": np.array([0], np.int64),
        "location": np.array([0.625, 0.25], np.float32).reshape(1, 1, 1, 1, 1, 2),
        "attn_weight": np.ones((1, 1, 1, 1, 1), np.float32),
        "grad_output": np.ones((1, 1, channels), np.float32),
    }
    forward = {k: v for k, v in case.items() if k != "grad_output"}
    np.testing.assert_array_equal(multi_scale_deformable_attention(**forward)[0, 0], 2.0 + np.arange(channels))
    grad_value, grad_location, grad_attn = check_case(case, np.dtype(np.float32))
    expected_value = np.zeros((1, h * w, 1, channels), np.float32)
    expected_value[0, 2] = 1.0  # only pixel (y=0, x=2) has weight
    np.testing.assert_array_equal(grad_value, expected_value)
    # d/dx: one column to the right adds 1 per channel -> W * 8 = 32; d/dy: one row down adds 10 -> H * 80
    np.testing.assert_array_equal(grad_location.reshape(2), [32.0, 160.0])
    np.testing.assert_array_equal(grad_attn.reshape(()), np.sum(2.0 + np.arange(channels)))


@pytest.mark.parametrize("comp", [0, 1], ids=["x", "y"])
def test_strict_range_boundary(comp):
    """Pixel coordinate exactly -1: the kernel drops the sample (strict -1 < x), grid_sample does not.

    Values and grad_value agree (the only in-image corner has weight 0), grad_location differs: the kernel
    returns 0, grid_sample the one-sided slope towards the in-image corner.  Just inside (-1 + 1/64) both agree.
    """
    h, w, channels = 4, 4, 8
    rng = np.random.default_rng(7)
    value = rng.standard_normal((1, h * w, 1, channels)).astype(np.float32)
    coords = np.array([0.375, 0.625], np.float32)  # pixel (1, 2), away from integers
    coords[comp] = -0.125  # pixel -1 exactly (-0.125 * 4 - 0.5)
    case = {
        "value": value,
        "spatial_shape": np.array([[h, w]], np.int64),
        "level_start_index": np.array([0], np.int64),
        "location": coords.reshape(1, 1, 1, 1, 1, 2),
        "attn_weight": np.ones((1, 1, 1, 1, 1), np.float32),
        "grad_output": rng.standard_normal((1, 1, channels)).astype(np.float32),
    }
    out_ref, gv_ref, gl_ref, ga_ref = torch_reference(**case)
    grad_value, grad_location, grad_attn = multi_scale_deformable_attention_grad(**case)
    assert not grad_value.any() and not grad_location.any() and not grad_attn.any()
    np.testing.assert_allclose(gv_ref, 0.0, atol=1e-6)
    np.testing.assert_allclose(ga_ref, 0.0, atol=1e-6)
    assert abs(gl_ref.reshape(2)[comp]) > 1e-3  # grid_sample: non-zero one-sided gradient
    case["location"].reshape(2)[comp] = -0.125 + 1 / 256  # pixel -1 + 1/64: inside for both
    check_case(case, np.dtype(np.float32))


def test_noncontiguous_inputs(rng):
    data = make_case(rng, np.dtype(np.float32), 2, 20, 2, 8, 2, [(3, 5), (4, 2)])
    expected = multi_scale_deformable_attention_grad(**data)
    strided = {k: np.asfortranarray(v) for k, v in data.items()}
    assert not strided["location"].flags.c_contiguous
    for actual, ref in zip(multi_scale_deformable_attention_grad(**strided), expected, strict=True):
        np.testing.assert_array_equal(actual, ref)


def test_empty_queries():
    value = np.ones((1, 6, 2, 8), np.float32)
    grads = multi_scale_deformable_attention_grad(
        value=value,
        spatial_shape=np.array([[2, 3]], np.int64),
        level_start_index=np.array([0], np.int64),
        location=np.zeros((1, 0, 2, 1, 4, 2), np.float16),
        attn_weight=np.zeros((1, 0, 2, 1, 4), np.float32),
        grad_output=np.zeros((1, 0, 16), np.float32),
    )
    assert [g.shape for g in grads] == [(1, 6, 2, 8), (1, 0, 2, 1, 4, 2), (1, 0, 2, 1, 4)]
    assert [g.dtype for g in grads] == [np.float32, np.float16, np.float32]
    assert not grads[0].any()


def test_rejects_bad_inputs(rng):
    data = make_case(rng, np.dtype(np.float32), 1, 4, 2, 8, 2, [(3, 3)])
    with pytest.raises(ValueError, match="grad_output"):
        multi_scale_deformable_attention_grad(**{**data, "grad_output": data["grad_output"].reshape(1, 4, 2, 8)})
    with pytest.raises(TypeError, match="spatial_shape"):
        multi_scale_deformable_attention_grad(**{**data, "spatial_shape": data["spatial_shape"].astype(np.float32)})
    with pytest.raises(TypeError, match="value"):
        multi_scale_deformable_attention_grad(**{**data, "value": data["value"].astype(np.float64)})
    with pytest.raises(ValueError, match="does not fit"):
        multi_scale_deformable_attention_grad(**{**data, "level_start_index": np.array([1], np.int64)})
    with pytest.raises(ValueError, match="attn_weight"):
        multi_scale_deformable_attention_grad(**{**data, "attn_weight": data["attn_weight"][:, :, :, :, :1]})
