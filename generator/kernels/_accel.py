"""Compiled helpers for the reference kernels (Numba), with the NumPy code as the readable reference.

Why: a few kernel steps are data-dependent loops (scatter-adds, bit-mask decoding, per-sample
bilinear updates, depthwise stencils) that NumPy can only express with extra passes, index arrays
and temporaries; compiled loops do them in one pass and no extra memory. Numba (a wheel, LLVM
inside) compiles plain Python loops, so the compiled code stays readable and next to the NumPy
reference it must reproduce.

The pattern, for any kernel:

* write the loop as a plain Python function and decorate it with :func:`jit` (compiled lazily on
  first use, cached on disk with ``cache=True``, single-threaded, ``nogil``; importing a kernel
  module never imports Numba);
* keep the NumPy path and choose at run time with :func:`enabled`::

      if _accel.enabled():
          out = _scatter_compiled(...)
      else:
          out = reference_numpy(...)

* test both: the kernel tests run under ``_accel.forced("numpy")`` and ``forced("compiled")`` and
  compare the two paths (bit for bit where both sum in the same order).

``ACLNN_KERNELS=numpy`` (environment) selects the NumPy paths everywhere, e.g. where Numba is not
installed or to debug; the default ``auto`` uses the compiled helpers when Numba imports.
Compiled helpers take C-contiguous float32 / integer arrays; half types are converted around them
(:func:`half_to_float32` / :func:`float32_to_half` are fast compiled conversions for float16).
"""

from __future__ import annotations

import contextlib
import functools
import os
import types

import numpy as np

ENV = "ACLNN_KERNELS"
_state = {"forced": None, "numba": None}


def _have_numba() -> bool:
    if _state["numba"] is None:
        try:
            import numba  # noqa: F401
        except ImportError:  # the NumPy paths are complete; Numba only makes them faster
            _state["numba"] = False
        else:
            _state["numba"] = True
    return _state["numba"]


def enabled() -> bool:
    """True when kernels should use their compiled helpers (``ACLNN_KERNELS`` is read once)."""
    mode = _state["forced"]
    if mode is None:
        if "env" not in _state:
            _state["env"] = os.environ.get(ENV, "auto").strip().lower()
        mode = _state["env"]
    if mode == "numpy":
        return False
    if mode == "compiled" and not _have_numba():
        raise RuntimeError("compiled kernels requested but Numba is not installed")
    return _have_numba()


@contextlib.contextmanager
def forced(mode: str):
    """Force ``"numpy"`` or ``"compiled"`` paths inside a ``with`` block (tests)."""
    previous, _state["forced"] = _state["forced"], mode
    try:
        yield
    finally:
        _state["forced"] = previous


class _Compiled:
    """A function compiled by Numba on first call; other compiled functions may call it (the callee is
    compiled first and substituted into the caller's globals)."""

    def __init__(self, function, fastmath=False):
        self.py_func = function
        self.fastmath = fastmath
        self._dispatcher = None
        functools.update_wrapper(self, function)

    def dispatcher(self):
        if self._dispatcher is None:
            import numba

            function = self.py_func
            names = [n for n in function.__code__.co_names if isinstance(function.__globals__.get(n), _Compiled)]
            if names:  # resolve compiled callees in a copy of the globals
                scope = dict(function.__globals__)
                for name in names:
                    scope[name] = scope[name].dispatcher()
                clone = types.FunctionType(function.__code__, scope, function.__name__, function.__defaults__)
                clone.__qualname__, clone.__module__ = function.__qualname__, function.__module__
                function = clone
            options = dict(cache=True, nogil=True, error_model="numpy", fastmath=self.fastmath)  # noqa: C408
            self._dispatcher = numba.njit(**options)(function)
        return self._dispatcher

    def __call__(self, *args):
        return (self._dispatcher or self.dispatcher())(*args)


def jit(function=None, *, fastmath=False):
    """Compile ``function`` with Numba on first call (nopython, cached on disk, no GIL, no bounds checks).

    ``@jit(fastmath={"contract"})`` lets LLVM fuse multiply-adds (for polynomial evaluation); no other
    fast-math flag is used anywhere: NaN, inf and signed zeros behave as in NumPy."""
    if function is None:
        return lambda f: _Compiled(f, fastmath)
    return _Compiled(function, fastmath)


def ready(array: np.ndarray, dtype=None) -> np.ndarray:
    """``array`` as a C-contiguous, aligned, writeable array (of ``dtype``): Numba compiles one specialisation
    per array type (layout, alignment, read-only flag), so compiled helpers are always called with such arrays
    (no surprise compilation for a strided, unaligned or read-only view; the rare such input is copied)."""
    flags = array.flags
    if flags.c_contiguous and flags.aligned and flags.writeable and (dtype is None or array.dtype == dtype):
        return array  # the common case, without np.require's overhead
    return np.require(array, dtype, ("C", "A", "W"))


# ---------------------------------------------------------------------------------------------
# float16 <-> float32 (NumPy's float16 casts run at 1 to 2 ns per element on this machine)


@jit
def _half_bits_to_float32(bits, out):
    ob = out.view(np.uint32)
    for i in range(bits.size):
        h = np.uint32(bits[i])
        sign = (h & np.uint32(0x8000)) << np.uint32(16)
        exp = (h >> np.uint32(10)) & np.uint32(0x1F)
        man = h & np.uint32(0x3FF)
        if exp == 0x1F:  # inf / NaN (payload kept)
            ob[i] = sign | np.uint32(0x7F800000) | (man << np.uint32(13))
        elif exp != 0:
            ob[i] = sign | ((exp + np.uint32(112)) << np.uint32(23)) | (man << np.uint32(13))
        else:  # zero or subnormal: man * 2**-24, exact in float32
            out[i] = np.float32(man) * np.float32(5.9604644775390625e-08)
            ob[i] |= sign


@jit
def _float32_to_half_bits(values, out):
    vb = values.view(np.uint32)
    for i in range(values.size):
        f = vb[i]
        sign = np.uint16((f >> np.uint32(16)) & np.uint32(0x8000))
        a = f & np.uint32(0x7FFFFFFF)
        if a >= np.uint32(0x7F800000):  # inf / NaN (quiet NaN kept quiet)
            out[i] = sign | np.uint16(0x7C00) | np.uint16(0x200 if a > np.uint32(0x7F800000) else 0)
        elif a >= np.uint32(0x477FF000):  # rounds to >= 65520: overflow to inf
            out[i] = sign | np.uint16(0x7C00)
        elif a >= np.uint32(0x38800000):  # normal half: round the 13 dropped bits to nearest even
            r = a + np.uint32(0xFFF) + ((a >> np.uint32(13)) & np.uint32(1))
            out[i] = sign | np.uint16((r - np.uint32(0x38000000)) >> np.uint32(13))
        else:  # subnormal half or zero: value * 2**24 rounded to nearest even (exact float32 arithmetic)
            x = values[i]
            if x < 0:
                x = -x
            out[i] = sign | np.uint16(np.rint(x * np.float32(16777216.0)))


def half_to_float32(array: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """A float16 array as float32 (exact): a new C-contiguous array, or written into ``out`` (1-D, same size)."""
    bits = ready(array).view(np.uint16).reshape(-1)
    target = np.empty(bits.size, np.float32) if out is None else out
    _half_bits_to_float32(bits, target)
    return target.reshape(array.shape) if out is None else target


def float32_to_half(array: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """A float32 array rounded to float16 (nearest even, overflow to inf), like ``astype(np.float16)``;
    a new array, or written into ``out`` (a C-contiguous float16 array of the same size)."""
    values = ready(array, np.float32).reshape(-1)
    target = np.empty(values.size, np.float16) if out is None else out
    _float32_to_half_bits(values, target.reshape(-1).view(np.uint16))
    return target.reshape(np.shape(array)) if out is None else target


# ---------------------------------------------------------------------------------------------
# exp in float32, vectorisable: LLVM does not vectorise calls to libm's expf, so compiled loops that
# need exp use this (Cephes' expf: range reduction by ln 2 split in two constants, a degree-6
# polynomial; within 1 ulp of the correctly rounded result like NumPy's and PyTorch's SIMD exp).

EXP_BLOCK = 2048
_LOG2E = np.float32(1.4426950408889634)
_LN2_HI = np.float32(0.693359375)
_LN2_LO = np.float32(-2.12194440e-4)
_EXP_P = tuple(
    np.float32(c)
    for c in (1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2, 1.6666665459e-1, 5.0000001201e-1)
)


@jit(fastmath={"contract"})
def exp_block(t, out, bits, n):
    """``out[:n] = exp(t[:n])`` for float32 ``t``; ``bits`` is an int32 scratch of shape ``(2, >= n)``.

    NaN gives NaN, large arguments inf, very negative ones 0 (with gradual underflow)."""
    e1 = bits[0]
    e2 = bits[1]
    p0, p1, p2, p3, p4, p5 = _EXP_P
    for i in range(n):
        x = t[i]
        x = np.float32(89.0) if x > np.float32(89.0) else x
        x = np.float32(-104.0) if x < np.float32(-104.0) else x  # NaN passes both tests unchanged
        k = np.floor(x * _LOG2E + np.float32(0.5))
        k = np.float32(0.0) if k != k else k
        r = x - k * _LN2_HI - k * _LN2_LO
        z = r * r
        out[i] = (((((p0 * r + p1) * r + p2) * r + p3) * r + p4) * r + p5) * z + r + np.float32(1.0)
        ki = np.int32(k)
        k1 = ki >> 1  # 2**k = 2**k1 * 2**(k - k1), both normal for k in [-150, 128]
        e1[i] = (k1 + 127) << 23
        e2[i] = (ki - k1 + 127) << 23
    f1 = e1.view(np.float32)
    f2 = e2.view(np.float32)
    for i in range(n):
        v = out[i] * f1[i] * f2[i]
        out[i] = t[i] if t[i] != t[i] else v
