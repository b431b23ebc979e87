"""SigmoidBackward's compiled exact loops (float64, complex64, complex128) against its NumPy chains.

The AI CPU dtypes run in compiled loops that load and store values as they are (``driver(exact=True)``);
these tests prove they give the NumPy path's bits (NaN positions included; a NaN's sign may differ) over
every broadcast mode, special values, subnormals, non-contiguous, read-only and empty inputs, and that the
compiled loop is really the one that runs.
"""

from __future__ import annotations

import numpy as np
import pytest

from generator.kernels import _accel
from generator.kernels import sigmoid_backward as module
from generator.kernels.sigmoid_backward import sigmoid_backward
from tests.kernels._oracle import BROADCAST_LAYOUTS, C64, C128, F32, F64, same_bits

pytest.importorskip("numba")

EXACT = [F64, C64, C128]
EXACT_IDS = ["float64", "complex64", "complex128"]
LAYOUTS = {**BROADCAST_LAYOUTS, "one_element": ((1,), (1,))}  # (grad_output, output)


def _part(dtype) -> np.dtype:
    return np.finfo(dtype).dtype


def _specials(dtype) -> np.ndarray:
    """Values of the real (or part) type: zeros of both signs, infinities, NaN, subnormals, overflow."""
    info = np.finfo(_part(dtype))
    tiny = info.smallest_subnormal
    return np.array(
        [0.0, -0.0, np.inf, -np.inf, np.nan, tiny, -tiny, 3 * tiny, info.max, -info.max, 1.0, 0.5, -2.0],
        _part(dtype),
    )


def _values(rng, shape, dtype) -> np.ndarray:
    """Normal values with the special values sprinkled in (both parts for complex dtypes)."""
    specials = _specials(dtype)

    def part():
        values = rng.standard_normal(shape) * 3
        flat = values.reshape(-1)
        picks = rng.random(flat.size) < 0.3
        flat[picks] = rng.choice(specials, int(picks.sum()))
        return values.astype(_part(dtype))

    if np.dtype(dtype).kind == "c":
        real, imag = part(), part()
        out = np.empty(shape, dtype)
        out.real, out.imag = real, imag
        return out
    return part()


def _numpy_fuses_complex_products(dtype) -> bool:
    """True when NumPy's complex multiply forms each part with one fused multiply-add (its SIMD loops on CPUs
    with FMA); the compiled loop always does, so the two paths agree bit for bit exactly then."""
    rng = np.random.default_rng(0)
    a = (rng.standard_normal(512) + 1j * rng.standard_normal(512)).astype(dtype)
    b = (rng.standard_normal(512) + 1j * rng.standard_normal(512)).astype(dtype)
    plain = np.multiply(a.real, b.real) - np.multiply(a.imag, b.imag)  # two roundings
    return not np.array_equal((a * b).real, plain)


def both(*args):
    with _accel.forced("numpy"):
        reference = sigmoid_backward(*args)
    with _accel.forced("compiled"):
        compiled = sigmoid_backward(*args)
    return reference, compiled


def agree(reference, compiled) -> None:
    """Bit for bit (NaN positions, not NaN signs); complex results part by part."""
    assert compiled.dtype == reference.dtype and compiled.shape == reference.shape
    if reference.dtype.kind != "c":
        same_bits(compiled, reference)
    elif _numpy_fuses_complex_products(reference.dtype):
        same_bits(compiled.real.copy(), reference.real.copy())
        same_bits(compiled.imag.copy(), reference.imag.copy())
    else:  # NumPy rounds each product separately here: within a few ulp
        np.testing.assert_allclose(compiled, reference, rtol=4 * np.finfo(reference.dtype).eps, equal_nan=True)


@pytest.mark.parametrize("dtype", EXACT, ids=EXACT_IDS)
@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_exact_loops_equal_the_numpy_chain(rng, dtype, layout):
    grad_shape, out_shape = LAYOUTS[layout]
    grad, y = _values(rng, grad_shape, dtype), _values(rng, out_shape, dtype)
    agree(*both(grad, y))


@pytest.mark.parametrize("dtype", EXACT, ids=EXACT_IDS)
def test_every_special_pair(dtype):
    """Every (grad, output) pair of special values, in both parts for complex dtypes."""
    specials = _specials(dtype)
    g, y = np.meshgrid(specials, specials)
    if np.dtype(dtype).kind == "c":  # every special in both parts of both inputs
        values = np.empty(g.size, dtype)
        values.real, values.imag = g.reshape(-1), y.reshape(-1)
        grad, out = np.meshgrid(values, values[::-1])
    else:
        grad, out = g.astype(dtype), y.astype(dtype)
    agree(*both(grad, out))


@pytest.mark.parametrize("dtype", EXACT, ids=EXACT_IDS)
def test_non_contiguous_and_read_only_inputs(rng, dtype):
    grad, y = _values(rng, (7, 40), dtype), _values(rng, (7, 40), dtype)
    want, _ = both(grad, y)
    frozen_g, frozen_y = grad.copy(), y.copy()
    frozen_g.flags.writeable = frozen_y.flags.writeable = False
    for g, o in [(grad.T, y.T), (grad[:, ::2], y[:, ::2]), (frozen_g, frozen_y), (frozen_g, y[:1])]:
        reference, compiled = both(g, o)
        agree(reference, compiled)
    _, compiled = both(frozen_g, frozen_y)
    agree(compiled, want)
    assert np.array_equal(frozen_g, grad, equal_nan=True)  # inputs untouched


@pytest.mark.parametrize("dtype", EXACT, ids=EXACT_IDS)
def test_empty_inputs(dtype):
    for shapes in [((0,), (0,)), ((2, 0), (0,)), ((0, 3), (1, 3))]:
        reference, compiled = both(np.zeros(shapes[0], dtype), np.zeros(shapes[1], dtype))
        assert compiled.shape == reference.shape == np.broadcast_shapes(*shapes)
        assert compiled.dtype == dtype


@pytest.mark.parametrize("dtype", EXACT, ids=EXACT_IDS)
def test_the_compiled_loop_runs(monkeypatch, rng, dtype):
    """Same-dtype calls in a loop mode never reach the NumPy chain (no silent fallback)."""

    def refuse(*args, **kwargs):
        raise AssertionError("the NumPy path ran")

    monkeypatch.setattr(module, "blocked_map", refuse)
    with _accel.forced("compiled"):
        for grad_shape, out_shape in [((3, 8), (3, 8)), ((3, 8), (8,)), ((), (3, 8)), ((4, 1), (1, 5))]:
            sigmoid_backward(_values(rng, grad_shape, dtype), _values(rng, out_shape, dtype))
        with pytest.raises(AssertionError, match="NumPy path"):  # mixed dtypes: the NumPy path converts
            sigmoid_backward(np.ones(3, F32), np.ones(3, dtype))


def test_mixed_dtypes_promote_on_the_numpy_path(rng):
    for a, b, promoted in [(F32, F64, F64), (F32, C64, C64), (F64, C64, C128), (C64, C128, C128)]:
        grad, y = _values(rng, (3, 5), a), _values(rng, (3, 5), b)
        reference, compiled = both(grad, y)
        assert compiled.dtype == promoted
        agree(reference, compiled)
        agree(both(grad.astype(promoted), y.astype(promoted))[1], compiled)
