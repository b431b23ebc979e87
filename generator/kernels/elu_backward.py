"""NumPy reference kernel for ``aclnnEluBackward`` (golden: ``torch.ops.aten.elu_backward``).

Conventions
-----------
``elu_backward(grad_output, alpha, scale, input_scale, is_result, self_or_result)`` with ``g`` an element of
``grad_output`` and ``x`` the matching element of ``self_or_result`` (facts 5.2 (f)):

* ``is_result`` true (``x`` is the forward OUTPUT):
  ``g * scale`` if ``x > 0`` else ``g * input_scale * (x + alpha * scale)``;
* ``is_result`` false (``x`` is the forward INPUT):
  ``g * scale`` if ``x > 0`` else ``g * input_scale * alpha * scale * exp(x * input_scale)``.

``x <= 0`` (including ``x == 0`` and ``-0.0``) takes the negative branch.  Both tensors must have the same
shape and the same float dtype (float32, float16 or bfloat16); the result has that dtype.  Arithmetic is
done in float32 (the ATK golden upcasts FLOAT16/BFLOAT16 the same way) and rounded once at the end.

Readings chosen where the facts are silent
------------------------------------------
* NaN in ``self_or_result``: PyTorch's CPU kernel tests ``x <= 0`` for the negative branch, so a NaN ``x``
  takes the POSITIVE branch (``g * scale``); this kernel does the same (it selects on ``x <= 0``).
* ``is_result`` true with ``alpha < 0`` is rejected by the op (161002) and by PyTorch; this kernel raises
  ``ValueError`` as well so that a reference value is never produced for an invalid call.
* Scalars are converted with ``float()`` (the op casts every aclScalar to FLOAT; a bool alpha is 0.0/1.0).
  The combined coefficients (``input_scale * alpha * scale`` etc.) are formed in float32, like the device
  attributes, which are passed as float.
* Overflow of ``exp`` in lanes that take the positive branch cannot leak into the result: the branch is
  chosen with an exact bitwise select BEFORE the multiplication by ``g``.  In the negative branch the
  arithmetic (including inf/NaN propagation) is the plain IEEE float32 formula, as in PyTorch.

Implementation: an input of at most one block (32K elements) takes a short path with the fewest NumPy
calls (call overhead dominates there). Larger inputs are processed in cache-sized blocks (a loop over
blocks, never over elements) with in-place ufuncs and a bitwise blend instead of ``np.where`` (3-5x
faster); float16/bfloat16 blocks are converted to float32 one at a time (float16 by the compiled
converters of ``_accel`` when available: NumPy's float16 casts are slower than the whole computation)
and the result is written straight into the output dtype, so extra memory is a few hundred KiB on top
of the output.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import numpy as np

from generator.kernels import _accel
from generator.kernels._accel import exp32
from generator.kernels._common import Cost, from_compute, to_compute
from generator.kernels._pointwise import check_inputs, driver, fused

__all__ = ["cost", "elu_backward"]

_BLOCK = 1 << 15  # elements per block: 128 KiB per float32 temporary, keeps the working set in L2


def cost(grad_output, alpha, scale, input_scale, is_result, self_or_result) -> Cost:
    """The result (plus copies of non-contiguous inputs) and a few block buffers; about 12 passes per element."""
    n = max(int(getattr(grad_output, "size", 0)), int(getattr(self_or_result, "size", 0)))
    half = np.dtype(getattr(grad_output, "dtype", np.float32)) != np.float32
    return Cost(bytes=16 * n + 32 * _BLOCK, ops=(24 if half else 12) * n, param="gradOutput")


@functools.lru_cache(maxsize=256)
def _check(grad_dtype, self_dtype, grad_ndim: int, self_ndim: int) -> None:
    """Raise for dtypes or ranks the op rejects (cached: accepted combinations return at once)."""
    named = (("grad_output", grad_dtype, grad_ndim), ("self_or_result", self_dtype, self_ndim))
    check_inputs(named, same_dtype=True)


class _Constants(NamedTuple):
    """The float32 constants of one (alpha, scale, input_scale, is_result) and the compiled loop using them."""

    loop: object
    params: tuple  # (pos, neg_mul, neg_add, exp_scale)


@functools.lru_cache(maxsize=256)
def _constants(alpha: float, scale: float, input_scale: float, is_result: bool) -> _Constants:
    if is_result and alpha < 0:
        raise ValueError("alpha must be >= 0 when is_result is true")
    f32 = np.float32
    pos = f32(scale)
    if is_result:
        # g * input_scale * (x + alpha*scale) == (x + neg_add) * (g * neg_mul)
        neg_mul, neg_add = f32(input_scale), f32(alpha) * f32(scale)
    else:
        # g * (input_scale*alpha*scale) * exp(x * input_scale)
        neg_mul, neg_add = f32(input_scale) * f32(alpha) * f32(scale), f32(0)
    exp_scale = f32(input_scale)
    return _Constants(_FUSED_RESULT if is_result else _FUSED_INPUT, (pos, neg_mul, neg_add, exp_scale))


def elu_backward(grad_output, alpha, scale, input_scale, is_result, self_or_result) -> np.ndarray:
    """Gradient of ELU/SELU-style activations; see the module docstring for the formulas."""
    grad_output = np.asarray(grad_output)
    self_or_result = np.asarray(self_or_result)
    _check(grad_output.dtype, self_or_result.dtype, grad_output.ndim, self_or_result.ndim)
    if grad_output.shape != self_or_result.shape:
        raise ValueError(f"shape mismatch: grad_output {grad_output.shape} vs self_or_result {self_or_result.shape}")
    is_result = bool(is_result)
    loop, params = _constants(float(alpha), float(scale), float(input_scale), is_result)
    dtype = grad_output.dtype
    out = fused(loop, (grad_output, self_or_result), dtype, params)
    if out is not None:
        return out
    pos, neg_mul, neg_add, exp_scale = params
    f32 = np.float32
    size = grad_output.size
    if size <= _BLOCK:  # one block: the fewest NumPy calls (small calls are dominated by call overhead)
        g, x = to_compute(grad_output), to_compute(self_or_result)
        with np.errstate(over="ignore", invalid="ignore"):
            t = np.add(x, neg_add) if is_result else np.exp(np.multiply(x, exp_scale))
            t *= neg_mul
            t = np.where(x <= 0, t, pos)  # exact select; NaN x compares false -> positive branch
            t *= g
        return from_compute(t.reshape(grad_output.shape), dtype)

    g = grad_output.reshape(-1)  # views when contiguous; blocks are converted to float32 one at a time
    x = self_or_result.reshape(-1)
    out = np.empty(size, dtype=dtype)
    half = dtype != np.float32
    gbuf, xbuf, obuf = (np.empty(_BLOCK, dtype=f32) for _ in range(3)) if half else (None, None, None)
    t = np.empty(_BLOCK, dtype=f32)
    mask = np.empty(_BLOCK, dtype=np.int32)
    pos_bits = np.array(pos, dtype=f32).view(np.int32)
    with np.errstate(over="ignore", invalid="ignore"):
        for start in range(0, size, _BLOCK):
            stop = min(start + _BLOCK, size)
            n = stop - start
            xb, tb, mb = _load(x[start:stop], xbuf), t[:n], mask[:n]
            gb = _load(g[start:stop], gbuf)
            # mb = -1 (all bits set) where x <= 0, else 0; NaN compares false -> positive branch.
            np.less_equal(xb, 0, out=mb, casting="unsafe")
            np.negative(mb, out=mb)
            if is_result:
                np.add(xb, neg_add, out=tb)
            else:
                # exp may overflow where x > 0 (or where input_scale < 0); those lanes are discarded below.
                np.multiply(xb, exp_scale, out=tb)
                np.exp(tb, out=tb)
            np.multiply(tb, neg_mul, out=tb)
            # Branch-free exact select: t = mask ? t : pos (bitwise blend on the float32 bit patterns).
            ti = tb.view(np.int32)
            np.bitwise_xor(ti, pos_bits, out=ti)
            np.bitwise_and(ti, mb, out=ti)
            np.bitwise_xor(ti, pos_bits, out=ti)
            if half:
                np.multiply(tb, gb, out=obuf[:n])
                _store(obuf[:n], out[start:stop])
            else:
                np.multiply(tb, gb, out=out[start:stop])
    return out.reshape(grad_output.shape)


@_accel.jit(inline=True)
def _chain_input(g, x, params):
    """``is_result`` false, one element: the NumPy formulas fused (``exp32`` for ``np.exp``: within 1 ulp)."""
    pos, neg_mul, neg_add, exp_scale = params
    t = exp32(x * exp_scale) * neg_mul
    return (t if x <= np.float32(0.0) else pos) * g


@_accel.jit(inline=True)
def _chain_result(g, x, params):
    """``is_result`` true, one element (bit-identical to the NumPy path)."""
    pos, neg_mul, neg_add, exp_scale = params
    t = (x + neg_add) * neg_mul
    return (t if x <= np.float32(0.0) else pos) * g


_FUSED_INPUT = driver(_chain_input, 2, contract=True)
_FUSED_RESULT = driver(_chain_result, 2)


def _load(block: np.ndarray, buf: np.ndarray | None) -> np.ndarray:
    """A block as float32: itself when it already is, else converted into ``buf``."""
    if buf is None:
        return block
    n = block.size
    if block.dtype == np.float16 and _accel.enabled():
        return _accel.half_to_float32(block, buf[:n])
    np.copyto(buf[:n], block, casting="unsafe")
    return buf[:n]


def _store(block: np.ndarray, target: np.ndarray) -> None:
    """Round a float32 block into the half-type ``target`` (nearest even)."""
    if target.dtype == np.float16 and _accel.enabled():
        _accel.float32_to_half(block, target)
    else:
        np.copyto(target, block, casting="unsafe")
