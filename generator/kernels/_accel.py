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
import math
import mmap
import os
import threading
import types
import weakref

import numpy as np

from generator.kernels._common import BFLOAT16

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
    compiled first and substituted into the caller's globals).

    ``bind`` maps global names of the function to other compiled functions for this instance only: one
    generic loop (``_pointwise``'s drivers) is compiled once per elementwise chain it is bound to, each
    under its own name (``suffix``), hence with its own on-disk cache entry."""

    def __init__(self, function, fastmath=False, inline=False, bind=None, suffix=""):
        self.py_func = function
        self.fastmath = fastmath
        self.inline = inline
        self.bind = dict(bind or {})
        self.suffix = suffix
        self._dispatcher = None
        functools.update_wrapper(self, function)

    def bound(self, suffix: str, fastmath=None, **bind) -> _Compiled:
        """A copy of this function with the global names in ``bind`` replaced (see the class docstring),
        compiled with ``fastmath`` when given (e.g. ``{"contract"}`` for a chain evaluating polynomials)."""
        flags = self.fastmath if fastmath is None else fastmath
        return _Compiled(self.py_func, flags, self.inline, {**self.bind, **bind}, f"{self.suffix}[{suffix}]")

    def dispatcher(self):
        if self._dispatcher is None:
            import numba

            _register_overloads()
            function = self.py_func
            scope = function.__globals__
            names = [n for n in function.__code__.co_names if isinstance(self.bind.get(n, scope.get(n)), _Compiled)]
            if names or self.bind:  # resolve compiled callees in a copy of the globals
                scope = {**scope, **self.bind}
                for name in names:
                    scope[name] = scope[name].dispatcher()
                clone = types.FunctionType(function.__code__, scope, function.__name__, function.__defaults__)
                clone.__qualname__ = function.__qualname__ + self.suffix
                clone.__module__ = function.__module__
                function = clone
            options = dict(cache=True, nogil=True, error_model="numpy", fastmath=self.fastmath)  # noqa: C408
            if self.inline:
                options["inline"] = "always"
            dispatcher = numba.njit(**options)(function)
            _group_cache(dispatcher)
            self._dispatcher = dispatcher
        return self._dispatcher

    def __call__(self, *args):
        # Numba compiles one specialisation per array type, read-only included: a read-only argument (a
        # caller's frozen array, the CANN backend's device memory) is copied rather than compiled for anew
        # in the middle of a call. Read-only arrays are never outputs, so nothing written is lost.
        for a in args:
            if type(a) is np.ndarray and not a.flags.writeable:
                args = tuple(np.array(b) if type(b) is np.ndarray and not b.flags.writeable else b for b in args)
                break
        return (self._dispatcher or self.dispatcher())(*args)


def jit(function=None, *, fastmath=False, inline=False):
    """Compile ``function`` with Numba on first call (nopython, cached on disk, no GIL, no bounds checks).

    ``@jit(fastmath={"contract"})`` lets LLVM fuse multiply-adds; ``reassoc`` is used only for sums whose
    order the kernel's contract leaves open; no other fast-math flag is used anywhere: NaN, inf and signed
    zeros behave as in NumPy. ``inline=True`` inlines a small scalar helper into its callers at Numba's
    level (compiled with the caller's flags): LLVM does not inline a compiled callee's own callees, and
    a call left inside a loop keeps it from vectorising."""
    if function is None:
        return lambda f: _Compiled(f, fastmath, inline)
    return _Compiled(function, fastmath, inline)


# On-disk cache: Numba keys a cached function on its own source file only, so a caller would keep stale
# machine code after an edit of a helper it calls in another file. Kernels therefore stamp their cache
# entries with the sizes and modification times of every kernel source file: any edit recompiles them.
_STAMP: list = []


def _group_stamp():
    if not _STAMP:
        folder = os.path.dirname(os.path.abspath(__file__))
        entries = []
        for name in sorted(os.listdir(folder)):
            if name.endswith(".py"):
                st = os.stat(os.path.join(folder, name))
                entries.append((name, st.st_mtime_ns, st.st_size))
        _STAMP.append(tuple(entries))
    return _STAMP[0]


def _group_cache(dispatcher) -> None:
    """Replace ``dispatcher``'s cache by one whose freshness stamp covers every kernel source file
    (Numba internals, pinned version; on any surprise the default per-file cache stays)."""
    try:
        from numba.core import caching

        cache_class = _group_cache_class(caching)
        dispatcher._cache = cache_class(dispatcher.py_func)
    except Exception:  # noqa: BLE001  (keep Numba's own cache)
        return


@functools.cache
def _group_cache_class(caching):
    def get_source_stamp(self):
        return (super(type(self), self).get_source_stamp(), _group_stamp())

    impl = caching.FunctionCache._impl_class
    locators = [
        type(f"Kernel{base.__name__}", (base,), {"get_source_stamp": get_source_stamp})
        for base in impl._locator_classes
    ]
    kernel_impl = type("KernelCacheImpl", (impl,), {"_locator_classes": locators})
    return type("KernelFunctionCache", (caching.FunctionCache,), {"_impl_class": kernel_impl})


def ready(array: np.ndarray, dtype=None) -> np.ndarray:
    """``array`` as a C-contiguous, aligned, writeable array (of ``dtype``): Numba compiles one specialisation
    per array type (layout, alignment, read-only flag), so compiled helpers are always called with such arrays
    (no surprise compilation for a strided, unaligned or read-only view; the rare such input is copied)."""
    flags = array.flags
    if flags.c_contiguous and flags.aligned and flags.writeable and (dtype is None or array.dtype == dtype):
        return array  # the common case, without np.require's overhead
    return np.require(array, dtype, ("C", "A", "W"))


# ---------------------------------------------------------------------------------------------
# Scalar helpers for fused loops (branch-free, so loops using them vectorise once LLVM inlines them: it
# does for a direct callee; ``inline=True`` helpers are inlined by Numba itself, for deeper call chains).
# Numba has no float16 or bfloat16 type: half-precision values travel as their uint16 bit patterns.
# Numba widens integer arithmetic to 64 bits, so every helper states its widths explicitly.

_U32 = np.uint32
_SUBNORMAL_UNIT = np.float32(2.0**-24)  # value of the float16 subnormal 0x0001


def _half_value(value):
    """float16 bit pattern (uint16) -> float32 (exact; NaN payloads kept)."""
    h = _U32(value)
    magnitude = h & _U32(0x7FFF)
    normal = _U32((magnitude << _U32(13)) + _U32(0x38000000))  # rebias the exponent by 127 - 15
    special = _U32((magnitude << _U32(13)) | _U32(0x7F800000))  # inf / NaN
    tiny = _U32(np.float32(np.float32(magnitude) * _SUBNORMAL_UNIT).view(np.uint32))  # zero or subnormal
    r = special if magnitude >= _U32(0x7C00) else (tiny if magnitude < _U32(0x400) else normal)
    return _U32(r | ((h & _U32(0x8000)) << _U32(16))).view(np.float32)


def _bfloat16_value(value):
    """bfloat16 bit pattern (int16: only the low 16 bits count) -> float32 (exact)."""
    return _U32(_U32(value) << _U32(16)).view(np.float32)


def _float32_value(value):
    return np.float32(value)


def _same_value(value):
    return value


def _put_half(array, index, value):
    """float32 -> float16 bits, rounded to nearest even, overflow to inf, NaN -> 0x7E00 (sign kept):
    bit-identical to NumPy's ``astype(np.float16)`` except for NaN payloads (F. Giesen's method, as
    ``_pointwise._store_f16``)."""
    u = _U32(np.float32(value).view(np.uint32))
    a = _U32(u & _U32(0x7FFFFFFF))
    # normal results: drop 13 mantissa bits with round-half-even, rebias, clamp to inf (a >= 2**-14 here)
    normal = min(_U32(_U32(a + ((a >> _U32(13)) & _U32(1)) + _U32(0xFFF) - _U32(0x38000000)) >> _U32(13)), _U32(0x7C00))
    # subnormal results: adding 0.5 aligns the 10 mantissa bits and the FPU rounds to nearest even
    tiny = _U32(_U32(np.float32(a.view(np.float32) + np.float32(0.5)).view(np.uint32)) - _U32(0x3F000000))
    h = tiny if a < _U32(0x38800000) else normal
    h = _U32(0x7E00) if a > _U32(0x7F800000) else h
    array[index] = np.uint16(h | ((u >> _U32(16)) & _U32(0x8000)))


def _put_bfloat16(array, index, value):
    """float32 -> bfloat16 bits (int16), rounded to nearest even; NaN -> 0x7FC0 with its sign (as ml_dtypes)."""
    u = _U32(np.float32(value).view(np.uint32))
    rounded = _U32(_U32(u + _U32(0x7FFF) + ((u >> _U32(16)) & _U32(1))) >> _U32(16))
    nan = _U32(((u >> _U32(16)) & _U32(0x8000)) | _U32(0x7FC0))
    array[index] = np.int16(np.uint16(nan if (u & _U32(0x7FFFFFFF)) > _U32(0x7F800000) else rounded))


def _put_float32(array, index, value):
    array[index] = value


# exp in float32, vectorisable: LLVM does not vectorise calls to libm's expf, so compiled loops that
# need exp use this (Cephes' expf: range reduction by ln 2 split in two constants, a degree-6
# polynomial; within 1 ulp of the correctly rounded result like NumPy's and PyTorch's SIMD exp).
_LOG2E = np.float32(1.4426950408889634)
_LN2_HI = np.float32(0.693359375)
_LN2_LO = np.float32(-2.12194440e-4)
_EXP_P = tuple(
    np.float32(c)
    for c in (1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2, 1.6666665459e-1, 5.0000001201e-1)
)


@jit(inline=True)
def tap_range(out, stride, pad, tap, size):
    """(compiled pooling loops) The outputs ``[lo, hi)`` whose window cell ``o*stride - pad + tap`` lies
    inside ``[0, size)``: the taps to visit, clipped so no padding cell is touched."""
    lo = max(0, -(-(pad - tap) // stride))
    hi = min(out, (size - 1 + pad - tap) // stride + 1)
    return lo, max(lo, hi)


@jit(inline=True)
def exp32(x):
    """``exp(x)`` for a float32 ``x``: NaN gives NaN, large arguments inf, very negative ones 0 (with gradual
    underflow). Inlined (LLVM does not inline compiled callees of callees, and a call keeps a loop from
    vectorising); compiled with the caller's flags, hence written without relying on multiply-adds."""
    p0, p1, p2, p3, p4, p5 = _EXP_P
    c = np.float32(89.0) if x > np.float32(89.0) else x
    c = np.float32(-104.0) if c < np.float32(-104.0) else c  # NaN passes both tests unchanged
    k = np.floor(c * _LOG2E + np.float32(0.5))
    r = c - k * _LN2_HI - k * _LN2_LO
    z = r * r
    y = (((((p0 * r + p1) * r + p2) * r + p3) * r + p4) * r + p5) * z + r + np.float32(1.0)
    # a NaN k converts to an undefined integer (LLVM poison); v is then discarded by the final select, which
    # LLVM defines as x whatever the other operand is (a select of 0 for NaN cost 2 more instructions per vector)
    ki = np.int32(k)
    k1 = np.int32(ki >> np.int32(1))  # 2**k = 2**k1 * 2**(k - k1), both normal for k in [-150, 128]
    f1 = np.int32((k1 + np.int32(127)) << np.int32(23)).view(np.float32)
    f2 = np.int32((ki - k1 + np.int32(127)) << np.int32(23)).view(np.float32)
    v = y * f1 * f2
    return x if x != x else v


@jit(inline=True)
def exp32_normal(x):
    """:func:`exp32` where the result is a normal float32 or overflows, i.e. ``x >= -86.5`` (then identical to
    :func:`exp32`: same polynomial, and ``2**k`` is one normal scale factor); below, the result of
    ``exp(-86.5)`` (about 2.7e-38). For callers that only use ``1 + exp(x)`` or bound ``x`` themselves
    (sigmoids): a third fewer integer operations than the two-factor scaling needed for gradual underflow."""
    p0, p1, p2, p3, p4, p5 = _EXP_P
    c = np.float32(89.0) if x > np.float32(89.0) else x
    c = np.float32(-86.5) if c < np.float32(-86.5) else c  # NaN passes both tests unchanged
    k = np.floor(c * _LOG2E + np.float32(0.5))  # in [-125, 128]
    r = c - k * _LN2_HI - k * _LN2_LO
    z = r * r
    y = (((((p0 * r + p1) * r + p2) * r + p3) * r + p4) * r + p5) * z + r + np.float32(1.0)
    half_scale = np.int32((np.int32(k) + np.int32(126)) << np.int32(23)).view(np.float32)  # 2**(k-1), normal
    v = (y + y) * half_scale  # y + y is exact; 2**128 overflows to inf through the product, as it should
    return x if x != x else v


@jit
def exp_normal_array(x, out):
    """``out[i] = exp32_normal(x[i])`` (float32 arrays of the same size; for tests)."""
    for i in range(x.size):
        out[i] = exp32_normal(x[i])


@jit
def exp_array(x, out):
    """``out[i] = exp32(x[i])`` (float32 arrays of the same size; for tests and block use)."""
    for i in range(x.size):
        out[i] = exp32(x[i])


# tanh in float32, vectorisable (Cephes' tanhf): an odd polynomial below 0.625, else 1 - 2 / (exp(2|x|) + 1);
# within 2 ulp of the correctly rounded result.
_TANH_P = tuple(
    np.float32(c) for c in (-5.70498872745e-3, 2.06390887954e-2, -5.37397155531e-2, 1.33314422036e-1, -3.33332819422e-1)
)


@jit(inline=True)
def tanh32(x):
    """``tanh(x)`` for a float32 ``x`` (NaN gives NaN, +-inf gives +-1); both formulas are evaluated and one
    is selected, so loops calling it vectorise."""
    a = abs(x)
    z = x * x
    p0, p1, p2, p3, p4 = _TANH_P
    small = (((((p0 * z + p1) * z + p2) * z + p3) * z + p4) * z) * x + x
    small = x if a == np.float32(0.0) else small  # keeps the sign of zero
    big = np.float32(1.0) - np.float32(2.0) / (exp32(min(a + a, np.float32(40.0))) + np.float32(1.0))
    big = -big if x < np.float32(0.0) else big
    return small if a < np.float32(0.625) else (x if x != x else big)


# ---------------------------------------------------------------------------------------------
# Storage-generic element access for compiled loops. Numba has no float16 or bfloat16 type, so a
# half-precision array travels as its bit patterns with a tag in the integer type: float16 as uint16,
# bfloat16 as int16 (:func:`storage`). The two functions below are resolved when a loop is compiled,
# from the array's element type, so each specialisation of a loop converts without any run-time test.


# What ``storage`` views the half types as, for callers that look it up once per call (float32 and
# other dtypes: the array itself).
HALF_STORAGE = {np.dtype(np.float16): np.dtype(np.uint16), BFLOAT16: np.dtype(np.int16)}


def storage(array: np.ndarray) -> np.ndarray:
    """The array a compiled loop receives for ``array`` (FLOAT: itself; FLOAT16: a uint16 view; BFLOAT16:
    an int16 view; other dtypes: itself). INT16/UINT16 data must not be passed to ``as_f32``/``put``."""
    if array.dtype.itemsize == 2 and array.dtype.kind in "fV":
        return array.view(np.uint16 if array.dtype == np.float16 else np.int16)
    return array


def as_f32(value):
    """(compiled code only) The float32 value of one storage element: float32 as is, float16 bits (uint16)
    and bfloat16 bits (int16) converted exactly; any other number converted with ``np.float32``."""
    raise NotImplementedError("as_f32 is only available inside compiled loops")


def as_value(value):
    """(compiled code only) :func:`as_f32` for float storages (float32, uint16, int16); integers of other
    types unchanged (so that comparisons with them stay exact)."""
    raise NotImplementedError("as_value is only available inside compiled loops")


def put(array, index, value):
    """(compiled code only) ``array[index] = value`` for a float32 ``value``, rounded once to the storage of
    ``array`` (float32, float16 bits as uint16, bfloat16 bits as int16; nearest even)."""
    raise NotImplementedError("put is only available inside compiled loops")


@jit(inline=True)
def load_exact(value):
    """(compiled code only) One element as it is: the load of the exact pointwise loops (float64, complex),
    bound in place of :func:`as_f32` (see ``_pointwise.driver(exact=True)``)."""
    return value


@jit(inline=True)
def store_exact(array, index, value):
    """(compiled code only) ``array[index] = value`` without rounding: the store bound in place of :func:`put`
    by the exact pointwise loops (the value already has the array's dtype)."""
    array[index] = value


def fma(a, b, c):
    """(compiled code only) ``a * b + c`` rounded once, for float32 or float64 values of one type (LLVM's
    ``llvm.fma``: fused on every CPU, in hardware where there is one). NumPy's complex products are written
    with it (see ``sigmoid_backward``: each part of a product is one fused multiply-add, as NumPy's SIMD loops)."""
    raise NotImplementedError("fma is only available inside compiled loops")


# ---------------------------------------------------------------------------------------------
# Explicit 16-lane float32 vectors for register-blocked loops (matrix-product micro-kernels). LLVM's loop
# vectoriser only vectorises innermost loops, so a sum that runs over an outer loop (the reduction of a
# matrix product whose operands are not contiguous along it) would stay in memory; with these values a
# micro-kernel keeps a tile of R x V vectors in registers over the whole reduction. A vector is one LLVM
# ``<16 x float>`` (one AVX-512 register; two or four registers on narrower CPUs, same results). Loads and
# stores are unaligned; :func:`vec_fma` is an exact fused multiply-add (one rounding, on every CPU).


def vec_zero():
    """(compiled code only) A vector of 16 zeros."""
    raise NotImplementedError("vec_zero is only available inside compiled loops")


def vec_splat(value):
    """(compiled code only) A vector of 16 copies of ``value`` (converted to float32)."""
    raise NotImplementedError("vec_splat is only available inside compiled loops")


def vec_load(array, index):
    """(compiled code only) ``array[index : index + 16]`` of a C-contiguous 1-D float32 array (no bounds check:
    the caller keeps ``index`` in ``[0, array.size - 16]``)."""
    raise NotImplementedError("vec_load is only available inside compiled loops")


def vec_store(array, index, vector):
    """(compiled code only) ``array[index : index + 16] = vector`` on a C-contiguous 1-D float32 array (no
    bounds check, as :func:`vec_load`)."""
    raise NotImplementedError("vec_store is only available inside compiled loops")


def vec_fma(a, b, c):
    """(compiled code only) ``a * b + c`` lane by lane, rounded once."""
    raise NotImplementedError("vec_fma is only available inside compiled loops")


def vec_keep_last(vector, count):
    """(compiled code only) ``vector`` with its first ``16 - count`` lanes replaced by zeros (a select: no
    ``0 * inf``); ``count`` in 0..16."""
    raise NotImplementedError("vec_keep_last is only available inside compiled loops")


def vec_add(a, b):
    """(compiled code only) ``a + b`` lane by lane."""
    raise NotImplementedError("vec_add is only available inside compiled loops")


def vec_fold4(a, b, c, d):
    """(compiled code only) The four vectors folded into one: lanes ``4k .. 4k + 3`` hold the ``k``-th vector's
    lanes summed modulo 4 (lane ``m`` of the result block: ``(v[m] + v[m + 8]) + (v[m + 4] + v[m + 12])``)."""
    raise NotImplementedError("vec_fold4 is only available inside compiled loops")


def vec_add_sums4(array, index, vector):
    """(compiled code only) ``array[index + k] += sum(vector[4k : 4k + 4])`` for ``k`` in 0..3 (a 1-D float32
    array; lane sums ``(v[4k] + v[4k + 2]) + (v[4k + 1] + v[4k + 3])``): the four pair sums of a
    :func:`vec_fold4` result added to four consecutive floats."""
    raise NotImplementedError("vec_add_sums4 is only available inside compiled loops")


def vec_store_pairs(array, index, even, odd, count):
    """(compiled code only) The first ``count`` (0..32) values of ``even[0], odd[0], even[1], odd[1], ...`` stored
    at ``array[index:]`` (a C-contiguous 1-D float32 array; masked stores: nothing at or after ``index + count``
    is touched): two vectors interleaved, e.g. the two column phases of a stride-2 row."""
    raise NotImplementedError("vec_store_pairs is only available inside compiled loops")


def vec_add_where_bit(target, at, values, values_at, words, words_at, bit, count):
    """(compiled code only) ``target[at + l] += values[values_at + l]`` for the ``min(count, 16)`` lanes ``l``,
    adding ``+0.0`` instead where bit ``bit`` of ``words[words_at + l]`` is clear (``target``/``values``:
    C-contiguous 1-D float32, ``words``: C-contiguous 1-D uint16; masked loads and stores: no lane at or past
    ``count`` is read or written; ``values`` is read only where the bit is set)."""
    raise NotImplementedError("vec_add_where_bit is only available inside compiled loops")


def vec_put_where_bit(target, at, values, values_at, words, words_at, bit, count):
    """(compiled code only) :func:`vec_add_where_bit` onto zeros: ``target[at + l] = 0.0 + values[values_at + l]``
    where the bit is set, ``+0.0`` where it is clear (``target`` is not read)."""
    raise NotImplementedError("vec_put_where_bit is only available inside compiled loops")


def _register_vectors(nt, ir, intrinsic, overload) -> None:
    """The compiled forms of the ``vec_*`` functions (called once, from :func:`_register_overloads`)."""
    from llvmlite.binding import llvm_version_info as llvm_version
    from numba.core import cgutils
    from numba.extending import models, register_model

    class F32x16(nt.Type):
        def __init__(self):
            super().__init__(name="F32x16")

    vec_type = F32x16()
    lanes = ir.VectorType(ir.FloatType(), 16)

    @register_model(F32x16)
    class _F32x16Model(models.PrimitiveModel):
        def __init__(self, dmm, fe_type):
            super().__init__(dmm, fe_type, lanes)

    def is_vector_array(array):
        return isinstance(array, nt.Array) and array.ndim == 1 and array.dtype == nt.float32 and array.layout == "C"

    def address(context, builder, array_type, array, index_type, index):
        data = context.make_array(array_type)(context, builder, array).data
        offset = context.cast(builder, index, index_type, nt.intp)
        return builder.bitcast(builder.gep(data, [offset]), lanes.as_pointer())

    @intrinsic
    def zero(typingctx):
        return vec_type(), lambda context, builder, signature, args: ir.Constant(lanes, [0.0] * 16)

    @intrinsic
    def splat(typingctx, value):
        def codegen(context, builder, signature, args):
            scalar = context.cast(builder, args[0], signature.args[0], nt.float32)
            one = builder.insert_element(ir.Constant(lanes, ir.Undefined), scalar, ir.Constant(ir.IntType(32), 0))
            indices = ir.Constant(ir.VectorType(ir.IntType(32), 16), [0] * 16)
            return builder.shuffle_vector(one, ir.Constant(lanes, ir.Undefined), indices)

        return (vec_type(value), codegen) if isinstance(value, (nt.Float, nt.Integer)) else None

    @intrinsic
    def load(typingctx, array, index):
        def codegen(context, builder, signature, args):
            return builder.load(
                address(context, builder, signature.args[0], args[0], signature.args[1], args[1]), align=4
            )

        return (vec_type(array, index), codegen) if is_vector_array(array) and isinstance(index, nt.Integer) else None

    @intrinsic
    def store(typingctx, array, index, vector):
        def codegen(context, builder, signature, args):
            pointer = address(context, builder, signature.args[0], args[0], signature.args[1], args[1])
            builder.store(args[2], pointer, align=4)
            return context.get_dummy_value()

        ok = is_vector_array(array) and isinstance(index, nt.Integer) and vector == vec_type
        return (nt.none(array, index, vector), codegen) if ok else None

    @intrinsic
    def fma(typingctx, a, b, c):
        def codegen(context, builder, signature, args):
            function = cgutils.get_or_insert_function(
                builder.module, ir.FunctionType(lanes, [lanes] * 3), "llvm.fma.v16f32"
            )
            return builder.call(function, args)

        return (vec_type(a, b, c), codegen) if a == b == c == vec_type else None

    @intrinsic
    def keep_last(typingctx, vector, count):
        def codegen(context, builder, signature, args):
            i32 = ir.IntType(32)
            first = builder.trunc(context.cast(builder, args[1], signature.args[1], nt.int64), i32)
            first = builder.sub(ir.Constant(i32, 16), first)  # index of the first lane kept
            one = builder.insert_element(ir.Constant(ir.VectorType(i32, 16), ir.Undefined), first, ir.Constant(i32, 0))
            bound = builder.shuffle_vector(one, one, ir.Constant(ir.VectorType(i32, 16), [0] * 16))
            lane = ir.Constant(ir.VectorType(i32, 16), list(range(16)))
            keep = builder.icmp_signed(">=", lane, bound)
            return builder.select(keep, args[0], ir.Constant(lanes, [0.0] * 16))

        ok = vector == vec_type and isinstance(count, nt.Integer)
        return (vec_type(vector, count), codegen) if ok else None

    @intrinsic
    def add(typingctx, a, b):
        def codegen(context, builder, signature, args):
            return builder.fadd(args[0], args[1])

        return (vec_type(a, b), codegen) if a == b == vec_type else None

    overload(vec_zero)(lambda: lambda: zero())
    overload(vec_splat)(lambda value: lambda value: splat(value))
    overload(vec_load)(lambda array, index: lambda array, index: load(array, index))
    overload(vec_store)(lambda array, index, vector: lambda array, index, vector: store(array, index, vector))
    overload(vec_fma)(lambda a, b, c: lambda a, b, c: fma(a, b, c))
    overload(vec_keep_last)(lambda vector, count: lambda vector, count: keep_last(vector, count))

    @intrinsic
    def fold4(typingctx, a, b, c, d):
        def codegen(context, builder, signature, args):
            def pick(x, y, indices):
                return builder.shuffle_vector(x, y, ir.Constant(ir.VectorType(ir.IntType(32), 16), indices))

            def halves(x, y):  # [x[:8] + x[8:], y[:8] + y[8:]]
                low = pick(x, y, [*range(8), *range(16, 24)])
                high = pick(x, y, [*range(8, 16), *range(24, 32)])
                return builder.fadd(low, high)

            ab, cd = halves(args[0], args[1]), halves(args[2], args[3])
            low = pick(ab, cd, [*range(4), *range(8, 12), *range(16, 20), *range(24, 28)])
            high = pick(ab, cd, [*range(4, 8), *range(12, 16), *range(20, 24), *range(28, 32)])
            return builder.fadd(low, high)

        return (vec_type(a, b, c, d), codegen) if a == b == c == d == vec_type else None

    @intrinsic
    def add_sums4(typingctx, array, index, vector):
        def codegen(context, builder, signature, args):
            i32 = ir.IntType(32)
            quad = ir.VectorType(ir.FloatType(), 4)

            def pick(x, indices):
                return builder.shuffle_vector(x, x, ir.Constant(ir.VectorType(i32, len(indices)), indices))

            v = args[2]
            halves = builder.fadd(pick(v, [0, 1, 4, 5, 8, 9, 12, 13]), pick(v, [2, 3, 6, 7, 10, 11, 14, 15]))
            sums = builder.fadd(pick(halves, [0, 2, 4, 6]), pick(halves, [1, 3, 5, 7]))
            data = context.make_array(signature.args[0])(context, builder, args[0]).data
            offset = context.cast(builder, args[1], signature.args[1], nt.intp)
            pointer = builder.bitcast(builder.gep(data, [offset]), quad.as_pointer())
            builder.store(builder.fadd(builder.load(pointer, align=4), sums), pointer, align=4)
            return context.get_dummy_value()

        ok = is_vector_array(array) and isinstance(index, nt.Integer) and vector == vec_type
        return (nt.none(array, index, vector), codegen) if ok else None

    # Masked loads and stores touch only the lanes whose mask bit is set (no fault past an array's end). LLVM 22
    # takes their alignment as a pointer attribute (absent: unaligned, as these accesses are), older LLVMs as an
    # argument.
    def masked_alignment():
        return [] if llvm_version >= (22,) else [ir.Constant(ir.IntType(32), 1)]

    def masked_load(builder, pointer, mask, passthru):
        vector, alignment = passthru.type, masked_alignment()
        operands = [pointer.type, *(a.type for a in alignment), mask.type, vector]
        name = f"llvm.masked.load.v16{'f32' if vector.element == ir.FloatType() else 'i16'}.p0"
        function = cgutils.get_or_insert_function(builder.module, ir.FunctionType(vector, operands), name)
        return builder.call(function, [pointer, *alignment, mask, passthru])

    def masked_store(builder, vector, pointer, mask):
        alignment = masked_alignment()
        operands = [vector.type, pointer.type, *(a.type for a in alignment), mask.type]
        name = "llvm.masked.store.v16f32.p0"
        function = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.VoidType(), operands), name)
        builder.call(function, [vector, pointer, *alignment, mask])

    def lanes_below(context, builder, count_type, count, first):
        """The mask ``first + l < count`` of the 16 lanes ``l``: the low ``count - first`` bits (clamped to 0..16)
        of an integer, as 16 booleans (one mask-register move on AVX-512; all true for a constant count >= 16)."""
        i64 = ir.IntType(64)
        n = builder.sub(context.cast(builder, count, count_type, nt.int64), ir.Constant(i64, first))
        n = builder.select(builder.icmp_signed("<", n, ir.Constant(i64, 0)), ir.Constant(i64, 0), n)
        n = builder.select(builder.icmp_signed(">", n, ir.Constant(i64, 16)), ir.Constant(i64, 16), n)
        bits = builder.sub(builder.shl(ir.Constant(i64, 1), n), ir.Constant(i64, 1))
        return builder.bitcast(builder.trunc(bits, ir.IntType(16)), ir.VectorType(ir.IntType(1), 16))

    def element_address(context, builder, array_type, array, index_type, index, vector):
        data = context.make_array(array_type)(context, builder, array).data
        offset = context.cast(builder, index, index_type, nt.intp)
        return builder.bitcast(builder.gep(data, [offset]), vector.as_pointer())

    def is_word_array(array):
        return isinstance(array, nt.Array) and array.ndim == 1 and array.dtype == nt.uint16 and array.layout == "C"

    @intrinsic
    def store_pairs(typingctx, array, index, even, odd, count):
        def codegen(context, builder, signature, args):
            i32 = ir.IntType(32)
            pointer = address(context, builder, signature.args[0], args[0], signature.args[1], args[1])
            for half in (0, 1):
                order = ir.Constant(ir.VectorType(i32, 16), _PAIRS[16 * half : 16 * half + 16])
                vector = builder.shuffle_vector(args[2], args[3], order)
                mask = lanes_below(context, builder, signature.args[4], args[4], 16 * half)
                masked_store(builder, vector, builder.gep(pointer, [ir.Constant(i32, half)]), mask)
            return context.get_dummy_value()

        ok = is_vector_array(array) and isinstance(index, nt.Integer) and even == odd == vec_type
        return (nt.none(array, index, even, odd, count), codegen) if ok and isinstance(count, nt.Integer) else None

    def where_bit(accumulate):
        """The compiled ``vec_add_where_bit`` (``accumulate``) or ``vec_put_where_bit``."""

        def typer(typingctx, target, at, values, values_at, words, words_at, bit, count):
            ok = is_vector_array(target) and is_vector_array(values) and is_word_array(words)
            if not (ok and all(isinstance(i, nt.Integer) for i in (at, values_at, words_at, bit, count))):
                return None
            return nt.none(target, at, values, values_at, words, words_at, bit, count), codegen

        def codegen(context, builder, signature, args):
            types, i32, i16s = signature.args, ir.IntType(32), ir.VectorType(ir.IntType(16), 16)
            active = lanes_below(context, builder, types[7], args[7], 0)
            word_pointer = element_address(context, builder, types[4], args[4], types[5], args[5], i16s)
            word = masked_load(builder, word_pointer, active, ir.Constant(i16s, [0] * 16))
            shift = builder.trunc(context.cast(builder, args[6], types[6], nt.int64), ir.IntType(16))
            shift = builder.insert_element(ir.Constant(i16s, ir.Undefined), shift, ir.Constant(i32, 0))
            shift = builder.shuffle_vector(shift, shift, ir.Constant(ir.VectorType(i32, 16), [0] * 16))
            flag = builder.shl(ir.Constant(i16s, [1] * 16), shift)
            flagged = builder.icmp_unsigned("!=", builder.and_(word, flag), ir.Constant(i16s, [0] * 16))
            zeros = ir.Constant(lanes, [0.0] * 16)
            value_pointer = element_address(context, builder, types[2], args[2], types[3], args[3], lanes)
            value = masked_load(builder, value_pointer, builder.and_(active, flagged), zeros)  # +0.0 where clear
            target_pointer = element_address(context, builder, types[0], args[0], types[1], args[1], lanes)
            base = masked_load(builder, target_pointer, active, zeros) if accumulate else zeros
            masked_store(builder, builder.fadd(base, value), target_pointer, active)  # (0.0 + -0.0 is +0.0)
            return context.get_dummy_value()

        return intrinsic(typer)

    add_where_bit, put_where_bit = where_bit(True), where_bit(False)

    overload(vec_store_pairs)(
        lambda array, index, even, odd, count: (
            lambda array, index, even, odd, count: store_pairs(array, index, even, odd, count)
        )
    )
    overload(vec_add_where_bit)(
        lambda target, at, values, values_at, words, words_at, bit, count: (
            lambda target, at, values, values_at, words, words_at, bit, count: add_where_bit(
                target, at, values, values_at, words, words_at, bit, count
            )
        )
    )
    overload(vec_put_where_bit)(
        lambda target, at, values, values_at, words, words_at, bit, count: (
            lambda target, at, values, values_at, words, words_at, bit, count: put_where_bit(
                target, at, values, values_at, words, words_at, bit, count
            )
        )
    )
    overload(vec_add)(lambda a, b: lambda a, b: add(a, b))
    overload(vec_fold4)(lambda a, b, c, d: lambda a, b, c, d: fold4(a, b, c, d))
    overload(vec_add_sums4)(lambda array, index, vector: lambda array, index, vector: add_sums4(array, index, vector))


_PAIRS = [v for m in range(16) for v in (m, m + 16)]  # lanes of two vectors interleaved
_OVERLOADS: list = []


def _hardware_half() -> bool:
    """True when LLVM converts float16 in hardware on this CPU (x86 F16C, any 64-bit Arm): then
    ``fpext``/``fptrunc`` are used (IEEE, nearest even, exact like NumPy's casts; NaN payloads are quieted
    instead of canonicalised); elsewhere the branch-free integer code above."""
    import platform

    import llvmlite.binding as llvm

    if platform.machine().lower() in ("aarch64", "arm64"):
        return True
    try:
        return "+f16c" in llvm.get_host_cpu_features().flatten().split(",")
    except RuntimeError:  # features unknown
        return False


def _register_overloads() -> None:
    if _OVERLOADS:
        return
    _OVERLOADS.append(True)
    from llvmlite import ir
    from numba import types as nt
    from numba.extending import intrinsic, overload

    @intrinsic
    def half_bits_to_float(typingctx, value):
        def codegen(context, builder, signature, args):
            return builder.fpext(builder.bitcast(args[0], ir.HalfType()), ir.FloatType())

        return nt.float32(nt.uint16), codegen

    @intrinsic
    def float_to_half_bits(typingctx, value):
        def codegen(context, builder, signature, args):
            return builder.bitcast(builder.fptrunc(args[0], ir.HalfType()), ir.IntType(16))

        return nt.uint16(nt.float32), codegen

    hardware = _hardware_half()
    put_bfloat16 = _bfloat16_store()

    def half_value(value):
        return half_bits_to_float(value)

    def put_half(array, index, value):
        array[index] = float_to_half_bits(np.float32(value))

    def as_float(value):
        if value == nt.uint16:
            return half_value if hardware else _half_value
        if value == nt.int16:
            return _bfloat16_value
        return _float32_value

    def as_exact(value):
        if value in (nt.uint16, nt.int16) or not isinstance(value, nt.Integer):
            return as_float(value)
        return _same_value

    def store(array, index, value):
        if array.dtype == nt.uint16:
            return put_half if hardware else _put_half
        if array.dtype == nt.int16:
            return put_bfloat16
        return _put_float32

    # Compiled as functions of their own, which LLVM inlines into the calling loop (Numba-level inlining
    # of functions with conditional expressions trips a pedantic SSA check in Numba 0.68).
    overload(as_f32)(as_float)
    overload(as_value)(as_exact)
    overload(put)(store)
    overload(fma)(_fma_overload())
    _register_vectors(nt, ir, intrinsic, overload)


def _fma_overload():
    """The compiled :func:`fma`: one ``llvm.fma`` of three floats of the same type."""
    from numba import types as nt
    from numba.extending import intrinsic

    @intrinsic
    def fused_multiply_add(typingctx, a, b, c):
        if not (isinstance(a, nt.Float) and a == b == c):
            return None

        def codegen(context, builder, signature, args):
            return builder.fma(*args)

        return a(a, b, c), codegen

    def implementation(a, b, c):
        return lambda a, b, c: fused_multiply_add(a, b, c)

    return implementation


def _bfloat16_store():
    """The compiled ``put`` for bfloat16 storage: :func:`_put_bfloat16`'s rounding written directly in 32-bit
    LLVM IR. Numba widens integer arithmetic to 64 bits and LLVM then keeps the NaN test and the sign in 64-bit
    vector lanes (twice the instructions, plus packing); in 32-bit lanes the rounding costs a handful of
    instructions per 16 values. Not ``fptrunc`` to LLVM's ``bfloat``: AVX512-BF16's conversion flushes
    subnormal inputs to zero, ml_dtypes (and CANN's Cast) do not."""
    from llvmlite import ir
    from numba import types as nt
    from numba.extending import intrinsic

    @intrinsic
    def float_to_bfloat16_bits(typingctx, value):
        def codegen(context, builder, signature, args):
            i32 = ir.IntType(32)
            x = args[0]
            u = builder.bitcast(x, i32)
            high = builder.lshr(u, ir.Constant(i32, 16))
            odd = builder.and_(high, ir.Constant(i32, 1))  # round half to even
            rounded = builder.lshr(builder.add(builder.add(u, ir.Constant(i32, 0x7FFF)), odd), ir.Constant(i32, 16))
            nan = builder.or_(builder.and_(high, ir.Constant(i32, 0x8000)), ir.Constant(i32, 0x7FC0))
            bits = builder.select(builder.fcmp_unordered("uno", x, x), nan, rounded)
            return builder.trunc(bits, ir.IntType(16))

        return nt.int16(nt.float32), codegen

    def put_bfloat16(array, index, value):
        array[index] = float_to_bfloat16_bits(np.float32(value))

    return put_bfloat16


# Portable conversions (the code used where the CPU has no float16 conversions), for tests.
soft_half_value = jit(_half_value)
soft_put_half = jit(_put_half)


# ---------------------------------------------------------------------------------------------
# Whole-array conversions (NumPy's float16 casts run at 1 to 2 ns per element on this machine)


@jit
def _convert(values, out):
    """``out[i] = values[i]`` between storages (see :func:`storage`), through float32."""
    for i in range(values.size):
        put(out, i, as_f32(values[i]))


def half_to_float32(array: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """A float16 array as float32 (exact): a new C-contiguous array, or written into ``out`` (1-D, same size)."""
    bits = ready(array).view(np.uint16).reshape(-1)
    target = np.empty(bits.size, np.float32) if out is None else out
    _convert(bits, target)
    return target.reshape(array.shape) if out is None else target


def float32_to_half(array: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """A float32 array rounded to float16 (nearest even, overflow to inf), like ``astype(np.float16)``;
    a new array, or written into ``out`` (a C-contiguous float16 array of the same size)."""
    values = ready(array, np.float32).reshape(-1)
    target = np.empty(values.size, np.float16) if out is None else out
    _convert(values, target.reshape(-1).view(np.uint16))
    return target.reshape(np.shape(array)) if out is None else target


def float32_to_bfloat16(array: np.ndarray, dtype) -> np.ndarray:
    """A float32 array rounded to bfloat16 (``dtype``: ml_dtypes' bfloat16), like ``astype``; a new array."""
    values = ready(array, np.float32).reshape(-1)
    target = np.empty(values.size, dtype)
    _convert(values, target.view(np.int16))
    return target.reshape(np.shape(array))


# ---------------------------------------------------------------------------------------------
# Zero-filled results of 32 MiB and more (Linux; elsewhere ``np.zeros``)
#
# glibc recycles freed blocks below 32 MiB (its largest dynamic mmap threshold): ``calloc`` clears a recycled
# block at ``memset`` speed (~80 GB/s on the benchmark VM, in cache up to the L3's 32 MiB). From 32 MiB on, every
# ``malloc`` maps fresh pages that the OS zeroes on first touch: ~21 GB/s with transparent huge pages, ~3 GB/s
# (one fault per 4 KiB) without. A kernel whose result is that large (NLLLossBackward's float32 result of a
# float16 input, twice PyTorch's float16 bytes) therefore lost 3x to a PyTorch result just below the threshold.
# :func:`zeroed` gives such results the recycling glibc gives smaller ones, with glibc's own bound: it keeps
# freed result blocks of at most 64 MiB in total (glibc's largest dynamic trim threshold: the free memory its
# heap keeps at the top before returning it), advised ``MADV_FREE`` (the OS may take the pages back whenever
# it needs memory, without asking), and reuses one for the next result of the same size, cleared by ``memset``.
# Process-wide malloc settings are left alone. :func:`release_recycled` drops the kept blocks (the benchmark
# harness calls it before measuring a call's peak memory, as it calls ``malloc_trim``).

_HUGE_PAGE = 2 << 20  # bytes of a transparent huge page (x86-64, Arm64 with 4 KiB pages)
RECYCLE_FROM = 32 << 20  # glibc's largest dynamic mmap threshold (64-bit): it maps afresh from here on
RECYCLE_KEEP = 64 << 20  # bytes of freed blocks kept at most (glibc's largest dynamic trim threshold)
_recycled: list = []  # freed blocks (span, raw uint8 array of the mapping), oldest first
# Reentrant: a result's finalizer (``_give_back``) may run in a thread that holds the lock, when a collection of
# reference cycles happens to start inside one of the locked sections below.
_recycle_lock = threading.RLock()


class _Lease:
    """The owner (``base``) of a :func:`zeroed` result: when the last array using the block is freed, the lease
    is, and its finalizer gives the block back."""

    __slots__ = ("__array_interface__", "__weakref__")


def _fresh_block(span: int, nbytes: int):
    """``span`` bytes (a multiple of 2 MiB) of fresh anonymous memory on a huge-page boundary, its first
    ``nbytes`` rounded down to whole huge pages advised for transparent huge pages (the rest, 4 KiB pages, is
    resident only where written: the result costs no more memory than ``np.zeros``); a uint8 array viewing
    them (keeping the mapping alive), or None if refused."""
    try:
        mapping = mmap.mmap(-1, span + _HUGE_PAGE, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
        whole = np.frombuffer(mapping, np.uint8)
        first = -whole.ctypes.data % _HUGE_PAGE
        mapping.madvise(mmap.MADV_HUGEPAGE, first, nbytes // _HUGE_PAGE * _HUGE_PAGE)
    except (OSError, ValueError, AttributeError, BufferError):
        return None
    return whole[first : first + span]


def _madvise_free(raw: np.ndarray) -> None:
    base = raw.base  # the whole mapping's array, whose base is the mmap object
    try:
        base.base.madvise(mmap.MADV_FREE, raw.ctypes.data - base.ctypes.data, raw.size)
    except (OSError, ValueError, AttributeError):
        pass  # the block stays resident until reused or dropped


def _give_back(span: int, raw: np.ndarray) -> None:
    """Finalizer of a lease (it holds ``raw``, so the mapping lives as long as the result): keep the block for
    reuse, dropping the oldest kept ones beyond the bound; a block larger than the bound is just let go."""
    if span > RECYCLE_KEEP:
        return
    _madvise_free(raw)
    with _recycle_lock:
        _recycled.append((span, raw))
        total = sum(s for s, _ in _recycled)
        while total > RECYCLE_KEEP:
            total -= _recycled.pop(0)[0]  # (unmapped when its last reference goes)


def _take(span: int):
    with _recycle_lock:
        for i, (size, raw) in enumerate(_recycled):
            if size == span:
                del _recycled[i]
                return raw
    return None


def release_recycled() -> int:
    """Unmap the freed blocks :func:`zeroed` keeps for reuse; returns their bytes."""
    with _recycle_lock:
        total = sum(s for s, _ in _recycled)
        _recycled.clear()
    return total


def zeroed(shape, dtype) -> np.ndarray:
    """``np.zeros(shape, dtype)`` (C order; ``shape`` a tuple of ints). From :data:`RECYCLE_FROM` bytes on (where
    glibc maps fresh memory for every block), a block on huge pages: a freed one of the same size cleared by
    ``memset`` when one is kept (see the comment above), otherwise fresh memory, zero already. The result does
    not own its memory (its ``base`` chain ends in the block's owner); everything else behaves as ``np.zeros``."""
    if not isinstance(dtype, np.dtype):
        dtype = np.dtype(dtype)
    nbytes = math.prod(shape) * dtype.itemsize
    if nbytes < RECYCLE_FROM or dtype.hasobject or not hasattr(mmap, "MADV_HUGEPAGE"):
        return np.zeros(shape, dtype)  # (small results: glibc recycles them)
    span = -(-nbytes // _HUGE_PAGE) * _HUGE_PAGE
    raw = _take(span) if span <= RECYCLE_KEEP else None
    if raw is not None:
        raw[:nbytes].fill(0)
    else:
        raw = _fresh_block(span, nbytes)
        if raw is None:
            return np.zeros(shape, dtype)
    lease = _Lease()
    lease.__array_interface__ = {"shape": (nbytes,), "typestr": "|u1", "data": (raw.ctypes.data, False), "version": 3}
    # the finalizer holds the mapping until the lease goes, then keeps it for reuse or drops it (unmapping it)
    weakref.finalize(lease, _give_back, span, raw).atexit = False
    return np.asarray(lease).view(dtype).reshape(shape)
