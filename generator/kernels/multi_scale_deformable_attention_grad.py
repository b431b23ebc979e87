"""Reference kernel for aclnnMultiScaleDeformableAttentionGrad (and its forward, for testing).

Backward of multi-scale deformable attention (Deformable-DETR / mmcv ``MultiScaleDeformableAttnFunction``).
Shapes (bs = batch, K = num_keys, nh = heads, C = channels per head, L = levels, nq = queries, P = points):

* ``value`` (bs, K, nh, C); ``spatial_shape`` (L, 2) int rows (H_l, W_l); ``level_start_index`` (L,) int;
  ``location`` (bs, nq, nh, L, P, 2); ``attn_weight`` (bs, nq, nh, L, P); ``grad_output`` (bs, nq, nh*C) (3-D,
  head-major channel blocks; the seed doc's 4-D shape is a doc error, the op requires 3-D).
* Level ``l`` occupies rows ``s_l .. s_l + H_l*W_l - 1`` of ``value`` (``s_l = level_start_index[l]``) in
  row-major (y, x) order.

Conventions (cann-facts 5.4 (f), read from the device kernel; identical to mmcv / ``grid_sample`` with
``align_corners=False, padding_mode='zeros'``):

* **The last dim of ``location`` is (x, y)** = (width-normalised, height-normalised).  The aclnn doc says
  "2 represents y, x"; the kernel multiplies component 0 by W and component 1 by H, and ``grad_location[..., 0]``
  receives the W-direction gradient, so this module follows the kernel, not the doc text.
* Pixel coordinates ``x = loc_x * W - 0.5``, ``y = loc_y * H - 0.5`` (pixel centres at integer + 0.5).
* A sample is used only if ``-1 < y < H`` and ``-1 < x < W`` (strict); otherwise it contributes nothing to any
  output.  Inside, bilinear interpolation between the corners ``(y0, x0) .. (y0+1, x0+1)`` with
  ``y0 = floor(y)``, ``x0 = floor(x)``; corners outside the image read as 0 (zero padding) and receive no
  gradient.  Forward: ``out[b, q, h*C:(h+1)*C] = sum_{l,p} a * S`` with ``S`` the interpolated value vector.
* ``grad_attn_weight = dot(g, S)``; ``grad_value[corner] += a * w_corner * g``;
  ``grad_location[..., 0] = W * a * dot(g, dS/dx)``, ``grad_location[..., 1] = H * a * dot(g, dS/dy)``
  (the op README's "divided by W/H" is wrong; multiplying is the chain rule and what the kernel does).
* The only semantic difference from autograd of ``grid_sample``: a sample exactly on ``x == -1`` (or ``y == -1``) is
  dropped here (strict test), so its ``grad_location`` is 0, while ``grid_sample`` still returns the one-sided
  slope towards the in-range corner.  Values and the other two gradients agree there (the corner weight is 0).
* On an integer pixel coordinate the location gradient is the one of the cell to the right / below
  (``lx = 0``), as in grid_sample; the derivative jumps there, so a 1-ulp difference in ``loc * W - 0.5`` (e.g.
  grid_sample computes ``((2*loc - 1 + 1) * W - 1) / 2``) can select the neighbouring cell.

Dtypes: float32, float16 and bfloat16 are accepted for every float tensor (``grad_output`` too); all arithmetic
is float32 (the device casts to float32 and its kernel is float32-only), and each output is rounded to the dtype
of its own input (value / location / attn_weight).  Tolerance against a float32 golden on the same rounded
inputs: float32 ~1e-5 relative to the largest magnitude of each output (summation order differs); float16 /
bfloat16 add half an ulp of the output dtype.  The tests use the shared TOLERANCES (rtol, atol) with atol scaled
by max|expected| per output.

Implementation: one pass per level.  Each level is zero-padded by one pixel on every side, so all four
corners of an in-range sample are valid rows of a flat table and no per-corner masks are needed.  Valid samples
are sorted by their top-left corner row (stable radix sort on 16-bit keys); samples with the same row form a
segment.  Segments are processed in "rounds": round ``j`` takes the ``j``-th sample of every segment that has
more than ``j`` samples, so every update is a contiguous, conflict-free vector operation.  The same gathered
``grad_output`` rows give the four corner dot products (for the location and weight gradients) and the four
corner contributions to ``grad_value``.  Few, very full segments (many samples at one position) are finished
with ``np.add.at``.  Memory per level is a few times the padded level of ``value`` plus O(samples) scalars.
With the compiled helpers (``_accel``) the same formulas run one sample at a time (four corner dot products,
four corner updates of ``grad_value``): no temporaries beyond the outputs; sums in sample order (float32).
"""

from __future__ import annotations

import numpy as np

from generator.kernels import _accel
from generator.kernels._common import OPS_PER_STEP, Cost, check_float, from_compute, numel, to_compute

# Below this many active segments a round costs more in call overhead than np.add.at on the remaining rows.
_MIN_ROUND_ROWS = 32
# Row block for the np.add.at remainder and for the forward gather (bounds temporaries to ~block * 4 * C).
_BLOCK = 1 << 16


def _check(value, spatial_shape, level_start_index, location, attn_weight, grad_output=None):
    for name, array in (("value", value), ("location", location), ("attn_weight", attn_weight)):
        check_float(name, array)
    if grad_output is not None:
        check_float("grad_output", grad_output)
    for name, array in (("spatial_shape", spatial_shape), ("level_start_index", level_start_index)):
        if np.dtype(array.dtype) not in (np.dtype(np.int32), np.dtype(np.int64)):
            raise TypeError(f"{name}: dtype {array.dtype} is not int32 or int64")
    if value.ndim != 4:
        raise ValueError(f"value: expected 4-D (bs, num_keys, num_heads, channels), got {value.shape}")
    if location.ndim != 6 or location.shape[-1] != 2:
        raise ValueError(f"location: expected (bs, nq, num_heads, num_levels, num_points, 2), got {location.shape}")
    bs, _, nh, channels = value.shape
    _, nq, _, levels, points, _ = location.shape
    if spatial_shape.shape != (levels, 2):
        raise ValueError(f"spatial_shape: expected ({levels}, 2), got {spatial_shape.shape}")
    if level_start_index.shape != (levels,):
        raise ValueError(f"level_start_index: expected ({levels},), got {level_start_index.shape}")
    if location.shape[0] != bs or location.shape[2] != nh:
        raise ValueError(f"location {location.shape} does not match value {value.shape} in bs / num_heads")
    if attn_weight.shape != location.shape[:-1]:
        raise ValueError(f"attn_weight: expected {location.shape[:-1]}, got {attn_weight.shape}")
    if grad_output is not None and grad_output.shape != (bs, nq, nh * channels):
        raise ValueError(f"grad_output: expected {(bs, nq, nh * channels)}, got {grad_output.shape}")
    return bs, nh, channels, nq, levels, points


def _levels(spatial_shape, level_start_index, num_keys):
    """(H, W, start) per level, checked against value's key count."""
    out = []
    for (height, width), start in zip(
        np.asarray(spatial_shape).tolist(), np.asarray(level_start_index).tolist(), strict=True
    ):
        if height < 0 or width < 0 or start < 0 or start + height * width > num_keys:
            raise ValueError(f"level (H={height}, W={width}, start={start}) does not fit in value's {num_keys} keys")
        out.append((int(height), int(width), int(start)))
    return out


def _padded_level(value32, start, height, width):
    """Level as a flat zero-padded table (bs*nh*(H+2)*(W+2) + W+3, C); rows are (b, h, y+1, x+1)."""
    bs, _, nh, channels = value32.shape
    hp, wp = height + 2, width + 2
    rows = bs * nh * hp * wp
    flat = np.zeros((rows + wp + 1, channels), np.float32)
    padded = flat[:rows].reshape(bs, nh, hp, wp, channels)
    level = value32[:, start : start + height * width].reshape(bs, height, width, nh, channels)
    padded[:, :, 1 : height + 1, 1 : width + 1] = level.transpose(0, 3, 1, 2, 4)
    return flat, rows, wp


def _samples(location32, attn32, level, height, width, bh):
    """Valid samples of one level: indices into the flat (b, q, h, p) order, corner row, weights."""
    loc = location32[:, :, :, level]
    x = loc[..., 0].reshape(-1) * np.float32(width) - np.float32(0.5)
    y = loc[..., 1].reshape(-1) * np.float32(height) - np.float32(0.5)
    valid = np.flatnonzero((x > -1) & (x < width) & (y > -1) & (y < height))
    x, y = x[valid], y[valid]
    x0, y0 = np.floor(x), np.floor(y)
    lx, ly = x - x0, y - y0
    base = (bh[valid] * (height + 2) + (y0.astype(np.int64) + 1)) * (width + 2) + (x0.astype(np.int64) + 1)
    attn = attn32[:, :, :, level].reshape(-1)[valid]
    return valid, base, lx, ly, attn


def _corner_weights(lx, ly):
    """Bilinear weights of the corners (y0, x0), (y0, x0+1), (y0+1, x0), (y0+1, x0+1): (4, n)."""
    hx, hy = 1 - lx, 1 - ly
    return np.stack([hy * hx, hy * lx, ly * hx, ly * lx])


def _stable_argsort(keys, bound):
    """Stable argsort of non-negative int keys < bound (LSD radix on 16-bit digits when it fits)."""
    if bound <= 1 << 16:
        return np.argsort(keys.astype(np.uint16), kind="stable")
    if bound <= 1 << 32:
        order = np.argsort((keys & 0xFFFF).astype(np.uint16), kind="stable")
        return order[np.argsort((keys[order] >> 16).astype(np.uint16), kind="stable")]
    return np.argsort(keys, kind="stable")


def _round_order(base, bound):
    """Group samples by top-left row ``base`` (values < bound) and lay the groups out round-major.

    Returns (perm, keys, offsets): ``keys`` are the unique rows, sorted by decreasing group size; round j holds
    the j-th sample of each of the first ``offsets[j+1] - offsets[j]`` groups (those with more than j samples),
    and ``perm[offsets[j] + s]`` is the index of that sample for group ``s``.  Within a round every key occurs
    once, so accumulating a round is a plain vector operation on a prefix of the group arrays.
    """
    n = base.size
    order = _stable_argsort(base, bound)
    sorted_base = base[order]
    new = np.empty(n, bool)
    new[0] = True
    np.not_equal(sorted_base[1:], sorted_base[:-1], out=new[1:])
    starts = np.flatnonzero(new)
    counts = np.diff(np.append(starts, n))
    most = int(counts.max())
    by_size = _stable_argsort(most - counts, most + 1)
    size_rank = np.empty(starts.size, np.int64)
    size_rank[by_size] = np.arange(starts.size)
    active = starts.size - np.cumsum(np.bincount(counts, minlength=most + 1))[:-1]
    offsets = np.concatenate([[0], np.cumsum(active)])
    group = np.cumsum(new) - 1
    rank = np.arange(n) - starts[group]
    perm = np.empty(n, np.int64)
    perm[offsets[rank] + size_rank[group]] = order
    return perm, sorted_base[starts[by_size]], offsets


def _accumulate(corners, coef, g, mrow, offsets):
    """Round-major accumulation for one level (samples already in round-major order).

    ``corners`` (4, nseg, C) values at the four corners of each group, ``coef`` (4, n) per-corner factors
    a * w, sample i uses ``g[mrow[i]]``.  Returns (acc, dots): ``acc[k, s]`` is the summed grad_value
    contribution to corner k of group s, ``dots[k, i] = dot(g[mrow[i]], corners[k, group of i])``.
    """
    n = coef.shape[1]
    nseg, channels = corners.shape[1:]
    acc = np.empty((4, nseg, channels), np.float32)
    dots = np.empty((4, n), np.float32)
    buf = np.empty((nseg, channels), np.float32)
    rounds = offsets.size - 1
    j = 0
    while j < rounds and (j == 0 or offsets[j + 1] - offsets[j] >= _MIN_ROUND_ROWS):
        lo, hi = int(offsets[j]), int(offsets[j + 1])
        k = hi - lo
        rows = np.take(g, mrow[lo:hi], axis=0)
        dots[:, lo:hi] = np.einsum("qkc,kc->qk", corners[:, :k], rows)
        for corner in range(4):
            if j == 0:  # round 0 touches every group once: write instead of add
                np.multiply(coef[corner, lo:hi, None], rows, out=acc[corner])
            else:
                np.multiply(coef[corner, lo:hi, None], rows, out=buf[:k])
                acc[corner, :k] += buf[:k]
        j += 1
    # the rest (few, very full groups: many samples at one position) with np.add.at, in blocks
    for lo in range(int(offsets[j]), n, _BLOCK):
        hi = min(n, lo + _BLOCK)
        # group of sample i in round r is i - offsets[r]
        rnd = np.searchsorted(offsets, np.arange(lo, hi), side="right") - 1
        grp = np.arange(lo, hi) - offsets[rnd]
        rows = np.take(g, mrow[lo:hi], axis=0)
        dots[:, lo:hi] = np.einsum("qkc,kc->qk", np.take(corners, grp, axis=1), rows)
        for corner in range(4):
            np.add.at(acc[corner], grp, coef[corner, lo:hi, None] * rows)
    return acc, dots


def _level_sizes(spatial_shape) -> list[tuple[int, int]] | None:
    """(H, W) per level as Python ints, read without copying a large table; None if unreadable."""
    shape = getattr(spatial_shape, "shape", ())
    if len(shape) != 2 or shape[1] != 2 or shape[0] > 4096:
        return None
    try:
        return [(int(h), int(w)) for h, w in spatial_shape.tolist()]
    except (TypeError, ValueError, OverflowError):
        return None


def cost(value, spatial_shape, level_start_index, location, attn_weight, grad_output) -> Cost:
    """Per level: the zero-padded level table and its gradient (2 x (H+2)(W+2) rows of C floats per
    (batch, head)), O(samples) bookkeeping and 4 corners x C channels of gathers per sample."""
    v = tuple(int(d) for d in getattr(value, "shape", ()))
    loc = tuple(int(d) for d in getattr(location, "shape", ()))
    levels = _level_sizes(spatial_shape)
    if len(v) != 4 or len(loc) != 6 or levels is None:
        return Cost(0, 0, "value")
    bs, keys, nh, channels = v
    samples = bs * loc[1] * nh * loc[4]  # per level
    outputs = numel(v) + numel(loc) + numel(loc[:-1])
    fixed = 8 * outputs + 4 * (numel(v) + numel(loc) + numel(loc[:-1]) + int(getattr(grad_output, "size", 0)))
    worst_level = worst_table = 0
    ops = 4 * outputs
    for height, width in levels:
        if height < 0 or width < 0:
            return Cost(0, 0, "spatialShape")  # the kernel refuses negative sizes before allocating
        table = bs * nh * (height + 2) * (width + 2) * channels
        per_level = 8 * table + samples * (36 * channels + 160)
        worst_level, worst_table = max(worst_level, per_level), max(worst_table, table)
        # the gathers read whole rows of C contiguous floats: about 3 ops per float, not OPS_PER_GATHER
        ops += 6 * table + samples * (3 * 8 * channels + 60) + OPS_PER_STEP * 20
    param = "spatialShape" if worst_table > 4 * max(numel(v), 1) else ("location" if samples > keys else "value")
    return Cost(fixed + worst_level, ops, param)


@_accel.jit(fastmath={"contract"})
def _backward_compiled(value, levels, location, attn_weight, grad_output, grad_value, grad_location, grad_attn):
    """The same formulas one sample at a time: four corner dot products and four corner updates of
    ``grad_value`` per valid sample, no temporaries (float32 sums, in sample order)."""
    bs, _, nh, channels = value.shape
    nq, points = location.shape[1], location.shape[4]
    one, half = np.float32(1.0), np.float32(0.5)
    for b in range(bs):
        for q in range(nq):
            for h in range(nh):
                g = grad_output[b, q, h * channels : (h + 1) * channels]
                for lvl in range(levels.shape[0]):
                    height, width, start = levels[lvl, 0], levels[lvl, 1], levels[lvl, 2]
                    fw, fh = np.float32(width), np.float32(height)
                    for p in range(points):
                        x = location[b, q, h, lvl, p, 0] * fw - half
                        y = location[b, q, h, lvl, p, 1] * fh - half
                        if not (x > -1 and x < fw and y > -1 and y < fh):
                            continue
                        x0, y0 = np.floor(x), np.floor(y)
                        lx, ly = x - x0, y - y0
                        hx, hy = one - lx, one - ly
                        ix, iy = np.int64(x0), np.int64(y0)
                        a = attn_weight[b, q, h, lvl, p]
                        d = np.zeros(4, np.float32)
                        wts = (hy * hx, hy * lx, ly * hx, ly * lx)
                        for k in range(4):
                            cy, cx = iy + k // 2, ix + k % 2
                            if cy < 0 or cy >= height or cx < 0 or cx >= width:
                                continue
                            row = value[b, start + cy * width + cx, h]
                            acc = np.float32(0.0)
                            for c in range(channels):
                                acc += g[c] * row[c]
                            d[k] = acc
                            coef = a * wts[k]
                            grow = grad_value[b, start + cy * width + cx, h]
                            for c in range(channels):
                                grow[c] += coef * g[c]
                        grad_attn[b, q, h, lvl, p] = wts[0] * d[0] + wts[1] * d[1] + wts[2] * d[2] + wts[3] * d[3]
                        grad_location[b, q, h, lvl, p, 0] = fw * a * (hy * (d[1] - d[0]) + ly * (d[3] - d[2]))
                        grad_location[b, q, h, lvl, p, 1] = fh * a * (hx * (d[2] - d[0]) + lx * (d[3] - d[1]))


def multi_scale_deformable_attention_grad(
    value: np.ndarray,
    spatial_shape: np.ndarray,
    level_start_index: np.ndarray,
    location: np.ndarray,
    attn_weight: np.ndarray,
    grad_output: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return (grad_value, grad_location, grad_attn_weight) in the dtypes of value, location, attn_weight."""
    spatial_shape = np.asarray(spatial_shape)
    level_start_index = np.asarray(level_start_index)
    bs, nh, channels, nq, levels, points = _check(
        value, spatial_shape, level_start_index, location, attn_weight, grad_output
    )
    grad_value = np.zeros(value.shape, np.float32)
    grad_location = np.zeros(location.shape, np.float32)
    grad_attn = np.zeros(attn_weight.shape, np.float32)
    if value.size and location.size and grad_output.size and _accel.enabled():
        levels_ = np.array(_levels(spatial_shape, level_start_index, value.shape[1]), np.int64).reshape(-1, 3)
        _backward_compiled(
            to_compute(value), levels_, to_compute(location), to_compute(attn_weight), to_compute(grad_output),
            grad_value, grad_location, grad_attn,
        )  # fmt: skip
    elif value.size and location.size and grad_output.size:
        value32 = to_compute(value)
        location32 = to_compute(location)
        attn32 = to_compute(attn_weight)
        g = to_compute(grad_output).reshape(-1, channels)  # row m = (b*nq + q)*nh + h
        m = np.arange(bs * nq * nh)
        bh = np.repeat((m // (nq * nh)) * nh + m % nh, points)  # (b*nh + h) of every (b, q, h, p) sample
        for level, (height, width, start) in enumerate(_levels(spatial_shape, level_start_index, value.shape[1])):
            valid, base, lx, ly, attn = _samples(location32, attn32, level, height, width, bh)
            size = bs * nq * nh * points
            ga = np.zeros(size, np.float32)
            gl = np.zeros((size, 2), np.float32)
            if valid.size:
                flat, rows, wp = _padded_level(value32, start, height, width)
                offs = (0, 1, wp, wp + 1)
                perm, keys, offsets = _round_order(base, flat.shape[0])
                valid, lx, ly, attn = valid[perm], lx[perm], ly[perm], attn[perm]
                weights = _corner_weights(lx, ly)
                corners = np.stack([np.take(flat, keys + off, axis=0) for off in offs])
                acc, (d1, d2, d3, d4) = _accumulate(corners, weights * attn, g, valid // points, offsets)
                ga[valid] = weights[0] * d1 + weights[1] * d2 + weights[2] * d3 + weights[3] * d4
                gl[valid, 0] = np.float32(width) * attn * ((1 - ly) * (d2 - d1) + ly * (d4 - d3))
                gl[valid, 1] = np.float32(height) * attn * ((1 - lx) * (d3 - d1) + lx * (d4 - d2))
                del corners
                gflat = flat  # the level table is no longer needed: reuse its memory for its gradient
                gflat.fill(0)
                for corner, off in enumerate(offs):
                    gflat[keys + off] += acc[corner]  # keys are unique: plain fancy += is exact
                padded = gflat[:rows].reshape(bs, nh, height + 2, width + 2, channels)
                interior = padded[:, :, 1 : height + 1, 1 : width + 1].transpose(0, 2, 3, 1, 4)
                target = np.reshape(
                    grad_value[:, start : start + height * width], (bs, height, width, nh, channels), copy=False
                )
                target += interior  # a view of grad_value: no copy of the level
            grad_attn[:, :, :, level] = ga.reshape(bs, nq, nh, points)
            grad_location[:, :, :, level] = gl.reshape(bs, nq, nh, points, 2)
    return (
        from_compute(grad_value, value.dtype),
        from_compute(grad_location, location.dtype),
        from_compute(grad_attn, attn_weight.dtype),
    )


def multi_scale_deformable_attention(
    value: np.ndarray,
    spatial_shape: np.ndarray,
    level_start_index: np.ndarray,
    location: np.ndarray,
    attn_weight: np.ndarray,
) -> np.ndarray:
    """Forward: output (bs, nq, nh*C) in value's dtype, same conventions as the backward."""
    spatial_shape = np.asarray(spatial_shape)
    level_start_index = np.asarray(level_start_index)
    bs, nh, channels, nq, levels, points = _check(value, spatial_shape, level_start_index, location, attn_weight)
    out = np.zeros((bs * nq * nh, channels), np.float32)
    if value.size and location.size:
        value32 = to_compute(value)
        location32 = to_compute(location)
        attn32 = to_compute(attn_weight)
        m = np.arange(bs * nq * nh)
        bh = np.repeat((m // (nq * nh)) * nh + m % nh, points)
        for level, (height, width, start) in enumerate(_levels(spatial_shape, level_start_index, value.shape[1])):
            valid, base, lx, ly, attn = _samples(location32, attn32, level, height, width, bh)
            if not valid.size:
                continue
            flat, _, wp = _padded_level(value32, start, height, width)
            coef = _corner_weights(lx, ly) * attn
            mrow = valid // points
            for lo in range(0, valid.size, _BLOCK):
                sl = slice(lo, lo + _BLOCK)
                sample = sum(coef[k, sl][:, None] * flat[base[sl] + off] for k, off in enumerate((0, 1, wp, wp + 1)))
                np.add.at(out, mrow[sl], sample)
    return from_compute(out.reshape(bs, nq, nh * channels), value.dtype)
