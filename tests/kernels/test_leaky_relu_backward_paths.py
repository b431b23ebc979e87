"""LeakyReluBackward's compiled float64 loop (``driver(exact=True)``) against its NumPy chain, bit for bit.

The slope is rounded to float32 (CANN's attribute) and then widened exactly: the float64 loop must multiply by
that widened value, never round ``g`` through float32.
"""

from __future__ import annotations

import numpy as np
import pytest

from generator.kernels import _accel
from generator.kernels import leaky_relu_backward as module
from generator.kernels.leaky_relu_backward import leaky_relu_backward
from tests.kernels._oracle import BROADCAST_LAYOUTS, F32, F64, same_bits

pytest.importorskip("numba")

LAYOUTS = BROADCAST_LAYOUTS  # (grad_output, self)
TINY = np.finfo(np.float64).smallest_subnormal
SPECIALS = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, TINY, -TINY, 1e300, -1e300, 1.0, -1.0, 1 / 3], F64)


def _values(rng, shape) -> np.ndarray:
    values = rng.standard_normal(shape) * 3
    flat = values.reshape(-1)
    picks = rng.random(flat.size) < 0.3
    flat[picks] = rng.choice(SPECIALS, int(picks.sum()))
    return values


def both(*args):
    with _accel.forced("numpy"):
        reference = leaky_relu_backward(*args)
    with _accel.forced("compiled"):
        compiled = leaky_relu_backward(*args)
    assert compiled.dtype == reference.dtype == F64
    return reference, compiled


@pytest.mark.parametrize("slope, is_result", [(0.01, False), (0.2, True), (0.0, False), (-0.7, False), (1e-40, False)])
@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_float64_loop_equals_the_numpy_chain(rng, layout, slope, is_result):
    grad_shape, self_shape = LAYOUTS[layout]
    reference, compiled = both(_values(rng, grad_shape), _values(rng, self_shape), slope, is_result)
    same_bits(compiled, reference)


def test_every_special_pair_and_the_widened_slope():
    g, x = np.meshgrid(SPECIALS, SPECIALS)
    reference, compiled = both(g, x, 0.1, False)
    same_bits(compiled, reference)
    slope = float(np.float32(0.1))  # not 0.1: CANN's attribute is float32
    want = np.where(x > 0, g, g * slope)
    same_bits(compiled, want)


def test_non_contiguous_read_only_and_empty(rng):
    g, x = _values(rng, (7, 40)), _values(rng, (7, 40))
    frozen = x.copy()
    frozen.flags.writeable = False
    for a, b in [(g.T, x.T), (g[:, ::3], x[:, ::3]), (g, frozen), (g[:1], frozen)]:
        same_bits(*both(a, b, 0.3, False))
    for shapes in [((0,), (0,)), ((2, 0), (0,)), ((0, 3), (1, 3))]:
        reference, compiled = both(np.zeros(shapes[0]), np.zeros(shapes[1]), 0.1, False)
        assert compiled.shape == reference.shape == np.broadcast_shapes(*shapes)


def test_the_compiled_loop_runs(monkeypatch, rng):
    def refuse(*args, **kwargs):
        raise AssertionError("the NumPy path ran")

    monkeypatch.setattr(module, "blocked_map", refuse)
    with _accel.forced("compiled"):
        leaky_relu_backward(_values(rng, (3, 8)), _values(rng, (8,)), 0.01, False)
        with pytest.raises(AssertionError, match="NumPy path"):  # float32 x float64 promotes on the NumPy path
            leaky_relu_backward(np.ones(3, F32), np.ones(3, F64), 0.01, False)


def test_scalar_decisions_are_not_cached_as_successes():
    g = np.ones(3, F64)
    for _ in range(2):
        with pytest.raises(ValueError, match="negative_slope"):
            leaky_relu_backward(g, g, -0.5, True)
        with pytest.raises(TypeError):
            leaky_relu_backward(g.astype(np.int32), g, 0.1, False)
    assert leaky_relu_backward(g, -g, -0.5, False).tolist() == [-0.5] * 3
