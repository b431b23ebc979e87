"""Shared machinery of the pointwise reference kernels (activation and loss backwards).

* CANN dtype names of NumPy dtypes and CANN's tensor x tensor promotion (``PromoteType``, table A of
  cann-facts 3.4, the same table the validators use through ``generator.runtime.rules``);
* :func:`blocked_map`: evaluates an elementwise chain over broadcast inputs in cache-sized blocks.  Each
  block of every input is converted once to the compute dtype (float32 for the half types, so half types
  are computed in float32 and rounded once), the chain runs in place on those small buffers and the
  block is written straight into the result in its final dtype.  Broadcast operands much smaller than
  the result are converted once up front.  Extra memory is a few MiB at most, whatever the size of the
  call; non-contiguous inputs are iterated in place (``np.nditer``), never copied whole;
* :func:`zero_where` / :func:`blend`: exact, branch-free selects on the integer bit patterns (``np.where``
  and ``np.copyto(where=)`` are 30x slower on unpredictable masks);
* small shape helpers for the ``cost`` functions (pure Python ints, never raising).

Conversions: bfloat16 -> float32 is a 16-bit shift (exact); float16 -> float32 goes through a 64 Ki-entry
lookup table (exact, faster than NumPy's scalar conversion loop); float32 -> bfloat16 is ml_dtypes' cast;
float32 -> float16 is integer arithmetic on the bit patterns, bit-identical to NumPy's cast (checked for
all 2**32 inputs) but without NumPy's ~40x slowdown on subnormal results.  Both round to nearest even,
like CANN's Cast.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Sequence
from typing import NamedTuple

import numpy as np

from generator.kernels import _accel
from generator.kernels._accel import as_f32, as_value, put
from generator.kernels._common import BFLOAT16, FLOAT_DTYPES
from generator.runtime import rules

__all__ = [
    "BLOCK",
    "acl_name",
    "blend",
    "blocked_map",
    "broadcast_shape",
    "check_inputs",
    "compute_dtype",
    "driver",
    "fused",
    "layout",
    "itemsize",
    "numel",
    "promote",
    "store",
    "to_dtype",
    "widen",
    "zero_where",
]

BLOCK = 1 << 16  # elements per block: 256 KiB per float32 buffer; measured best (fewer NumPy calls, still in L2)

F32 = np.dtype(np.float32)
F16 = np.dtype(np.float16)
F64 = np.dtype(np.float64)

_ACL_NAMES = {
    F32: "FLOAT",
    F16: "FLOAT16",
    F64: "DOUBLE",
    BFLOAT16: "BFLOAT16",
    np.dtype(np.int8): "INT8",
    np.dtype(np.uint8): "UINT8",
    np.dtype(np.int16): "INT16",
    np.dtype(np.uint16): "UINT16",
    np.dtype(np.int32): "INT32",
    np.dtype(np.uint32): "UINT32",
    np.dtype(np.int64): "INT64",
    np.dtype(np.uint64): "UINT64",
    np.dtype(np.bool_): "BOOL",
    np.dtype(np.complex64): "COMPLEX64",
    np.dtype(np.complex128): "COMPLEX128",
}
_NUMPY_BY_NAME = {name: dtype for dtype, name in _ACL_NAMES.items()}


def acl_name(dtype) -> str:
    """The aclDataType name (``FLOAT``, ``BFLOAT16``, ...) of a NumPy dtype; TypeError when it has none."""
    try:
        return _ACL_NAMES[np.dtype(dtype)]
    except (KeyError, TypeError):
        raise TypeError(f"dtype {dtype} has no aclDataType equivalent") from None


def promote(a, b) -> np.dtype:
    """CANN's ``PromoteType`` of two tensor dtypes as a NumPy dtype; TypeError when they cannot be promoted."""
    name_a, name_b = acl_name(a), acl_name(b)
    try:
        return _NUMPY_BY_NAME[rules.promote(name_a, name_b)]
    except (ValueError, KeyError):
        raise TypeError(f"dtypes {name_a} and {name_b} cannot be promoted") from None


def check_inputs(named: Sequence[tuple], supported: Sequence[str] | None = None, *, same_dtype: bool = False) -> None:
    """Raise TypeError for an input whose dtype is not ``supported`` (aclDataType names; None: float32,
    float16 or bfloat16) and ValueError for a rank over 8; ``named``: (name, dtype, rank) per input,
    checked in order. ``same_dtype``: TypeError too when an input's dtype differs from the first one's.
    Kernels call it from a cached per-(dtypes, ranks) function."""
    for name, dtype, ndim in named:
        if supported is None:
            if np.dtype(dtype) not in FLOAT_DTYPES:
                raise TypeError(f"{name}: dtype {dtype} is not one of float32, float16, bfloat16")
        elif acl_name(dtype) not in supported:
            raise TypeError(f"{name}: dtype {dtype} is not one of {', '.join(supported)}")
        if ndim > 8:
            raise ValueError(f"{name}: rank {ndim} exceeds 8")
    if same_dtype:
        first, first_dtype, _ = named[0]
        for name, dtype, _ in named[1:]:
            if dtype != first_dtype:
                raise TypeError(f"{first} dtype {first_dtype} differs from {name} dtype {dtype}")


def compute_dtype(dtype) -> np.dtype:
    """The dtype a kernel computes in: float64 / complex stay as they are, everything else is float32."""
    dtype = np.dtype(dtype)
    if dtype == F64 or dtype.kind == "c":
        return dtype
    return F32


def numel(shape: Sequence[int]) -> int:
    """Number of elements of a shape, as a Python int."""
    return math.prod(int(d) for d in shape)


def itemsize(array, default: int = 4) -> int:
    """Bytes per element of an array argument (``default`` when it has no dtype, e.g. None)."""
    dtype = getattr(array, "dtype", None)
    return int(dtype.itemsize) if dtype is not None else default


def broadcast_shape(*shapes: Sequence[int]) -> tuple[int, ...]:
    """NumPy/CANN broadcast of shapes for cost estimates: never raises (a mismatch takes the larger size)."""
    rank = max((len(s) for s in shapes), default=0)
    out = []
    for axis in range(rank):
        sizes = [int(s[axis - rank + len(s)]) for s in shapes if axis - rank + len(s) >= 0]
        non_one = [d for d in sizes if d != 1]
        out.append(0 if 0 in non_one else max(non_one, default=1))
    return tuple(out)


_F16_TABLE: np.ndarray | None = None
_U32 = np.uint32


def _f16_table() -> np.ndarray:
    global _F16_TABLE
    if _F16_TABLE is None:
        _F16_TABLE = np.arange(1 << 16, dtype=np.uint16).view(F16).astype(F32)
    return _F16_TABLE


def _load(src: np.ndarray, buf: np.ndarray) -> np.ndarray:
    """Convert the 1-D block ``src`` into ``buf`` (same length, its own dtype); returns ``buf``."""
    if buf.dtype == F32 and src.dtype == F16:
        np.take(_f16_table(), src.view(np.uint16), out=buf)
    elif buf.dtype == F32 and src.dtype == BFLOAT16:
        bits = buf.view(_U32)
        np.copyto(bits, src.view(np.uint16), casting="unsafe")
        np.left_shift(bits, _U32(16), out=bits)
    else:
        np.copyto(buf, src, casting="unsafe")
    return buf


def widen(array: np.ndarray, dtype=F32) -> np.ndarray:
    """A new C-contiguous copy of ``array`` converted to ``dtype`` (same shape) with the fast block loaders."""
    dtype = np.dtype(dtype)
    flat = np.ascontiguousarray(array).reshape(-1)
    out = np.empty(flat.shape, dtype)
    for start in range(0, flat.size, BLOCK):
        _load(flat[start : start + BLOCK], out[start : start + BLOCK])
    return out.reshape(array.shape)


def to_dtype(array: np.ndarray, dtype) -> np.ndarray:
    """Round a float32 (or other compute-dtype) array once to ``dtype``, blockwise with the fast stores."""
    dtype = np.dtype(dtype)
    if array.dtype == dtype:
        return array
    if array.dtype == F32 and dtype in (F16, BFLOAT16) and array.size > BLOCK and _accel.enabled():
        if dtype == F16:  # compiled conversions: one pass, same rounding
            return _accel.float32_to_half(array)
        return _accel.float32_to_bfloat16(array, dtype)
    flat = np.ascontiguousarray(array).reshape(-1)
    out = np.empty(flat.shape, dtype)
    for start in range(0, flat.size, BLOCK):
        store(flat[start : start + BLOCK], out[start : start + BLOCK])
    return out.reshape(array.shape)


def _store_f16(src: np.ndarray, out: np.ndarray) -> None:
    """float32 block -> float16 block, round to nearest even, bit-identical to NumPy's cast.

    Integer arithmetic on the float32 bit patterns (F. Giesen's branch-free method): the same speed as
    NumPy's cast for normal results and ~40x faster when results are float16 subnormals (e.g. 'mean'
    gradients over millions of elements), where NumPy falls back to a slow per-element path.
    """
    u = src.view(_U32)
    a = np.bitwise_and(u, _U32(0x7FFFFFFF))  # |x|
    # normal results: rebias the exponent, round half to even on the 13 dropped bits, clamp to inf
    h = np.right_shift(a, _U32(13))
    np.bitwise_and(h, _U32(1), out=h)
    np.add(h, a, out=h)
    np.add(h, _U32((((15 - 127) << 23) + 0xFFF) & 0xFFFFFFFF), out=h)
    np.right_shift(h, _U32(13), out=h)
    np.minimum(h, _U32(0x7C00), out=h)
    # NaN -> quiet NaN 0x7E00
    nan = np.greater(a, _U32(0x7F800000)).astype(_U32)
    np.left_shift(nan, _U32(9), out=nan)
    np.bitwise_or(h, nan, out=h)
    # subnormal or zero results (|x| < 2**-14): adding 0.5 aligns the 10 mantissa bits, the FPU rounds
    with np.errstate(invalid="ignore"):
        sub = np.add(a.view(F32), np.float32(0.5)).view(_U32)
    np.subtract(sub, _U32(126 << 23), out=sub)
    blend(h, sub, h, np.less(a, _U32(113 << 23)))
    # sign
    np.right_shift(u, _U32(16), out=a)
    np.bitwise_and(a, _U32(0x8000), out=a)
    np.bitwise_or(h, a, out=h)
    np.copyto(out.view(np.uint16), h, casting="unsafe")


def store(src: np.ndarray, out: np.ndarray) -> None:
    """Write the contiguous compute-dtype block ``src`` into ``out`` (same shape, its final dtype), rounding once."""
    if out.dtype == F16 and src.dtype == F32:
        _store_f16(src, out)
    else:
        np.copyto(out, src, casting="unsafe")


_INT_OF_WIDTH = {1: np.dtype(np.int8), 2: np.dtype(np.int16), 4: np.dtype(np.int32), 8: np.dtype(np.int64)}


def _lane_mask(flags: np.ndarray, width: int, *, invert: bool) -> np.ndarray:
    """All-ones / all-zeros integer lanes of ``width`` bytes from a bool array (which it overwrites)."""
    small = flags.view(np.int8)
    if invert:
        np.subtract(small, 1, out=small)  # True -> 0, False -> -1
    else:
        np.negative(small, out=small)  # True -> -1, False -> 0
    if width == 1:
        return small
    return small.astype(_INT_OF_WIDTH[width])


def zero_where(out: np.ndarray, values: np.ndarray, drop: np.ndarray) -> None:
    """``out = 0 if drop else values``, bit-exact (+0.0 for floats), without branches.

    ``out`` and ``values`` are 1-D blocks of one dtype (any width); ``drop`` is a bool block that is
    overwritten.  Much faster than ``np.copyto(..., where=)`` / ``np.where`` on unpredictable masks.
    """
    ints = _INT_OF_WIDTH[out.dtype.itemsize]
    mask = _lane_mask(drop, out.dtype.itemsize, invert=True)
    np.bitwise_and(values.view(ints), mask, out=out.view(ints))


def blend(out: np.ndarray, take: np.ndarray, other: np.ndarray, flags: np.ndarray) -> None:
    """``out = take if flags else other``, bit-exact; ``out`` may alias ``other`` (not ``take``).

    ``flags`` is a bool block that is overwritten.
    """
    ints = _INT_OF_WIDTH[out.dtype.itemsize]
    keep_other = _lane_mask(flags, out.dtype.itemsize, invert=True)
    o, t = out.view(ints), take.view(ints)
    np.bitwise_xor(other.view(ints), t, out=o)
    np.bitwise_and(o, keep_other, out=o)
    np.bitwise_xor(o, t, out=o)


Kernel = Callable[[list[np.ndarray], np.ndarray, list[np.ndarray]], None]


def blocked_map(
    fn: Kernel,
    inputs: Sequence[np.ndarray],
    result_dtype,
    *,
    compute=F32,
    load: Sequence | None = None,
    scratch: int = 0,
    block: int = BLOCK,
) -> np.ndarray:
    """Evaluate an elementwise chain over the broadcast of ``inputs``; returns a new ``result_dtype`` array.

    ``fn(blocks, out, tmps)`` receives one 1-D block per input (already in ``compute`` dtype, or in
    ``load[i]`` when given; must not be modified), the 1-D ``out`` block (``compute`` dtype) it must fill,
    and ``scratch`` temporaries of the ``compute`` dtype and the same length.  Blocks never exceed
    ``block`` elements.  Broadcasting follows NumPy's (= CANN's) rule and raises ValueError for
    incompatible shapes.  Inputs may be non-contiguous; nothing the size of the inputs is copied.
    """
    inputs = [np.asarray(a) for a in inputs]
    compute = np.dtype(compute)
    loads = [compute if d is None else np.dtype(d) for d in (load or [None] * len(inputs))]
    result_dtype = np.dtype(result_dtype)
    shape = np.broadcast_shapes(*(a.shape for a in inputs))
    result = np.empty(shape, dtype=result_dtype)
    if result.size == 0:
        return result
    # Broadcast operands much smaller than the result are converted once, not once per block.
    inputs = [widen(a, d) if a.size * 4 <= result.size and a.dtype != d else a for a, d in zip(inputs, loads)]
    run = _Runner(fn, loads, result_dtype, compute, scratch, block)
    if all(a.shape == shape and a.flags.c_contiguous for a in inputs):
        flats, out = [a.reshape(-1) for a in inputs], result.reshape(-1)
        for start in range(0, out.size, block):
            stop = start + block
            run([a[start:stop] for a in flats], out[start:stop])
    else:
        it = np.nditer(
            [*inputs, result],
            flags=["external_loop", "buffered", "zerosize_ok", "refs_ok"],
            op_flags=[["readonly"]] * len(inputs) + [["writeonly"]],
            op_dtypes=[*(a.dtype for a in inputs), result_dtype],
            buffersize=block,
        )
        with it:
            for *blocks, out in it:
                run(blocks, out)
    return result


class _Runner:
    """Per-call buffers; converts one chunk of native-dtype inputs, runs ``fn``, stores the result."""

    def __init__(self, fn, loads, result_dtype, compute, scratch, block):
        self.fn, self.loads, self.compute, self.scratch = fn, loads, compute, scratch
        self.direct_out = result_dtype == compute
        self._alloc(block)

    def _alloc(self, size: int) -> None:
        self.size = size
        self.bufs = [np.empty(size, d) for d in self.loads]
        self.out_buf = np.empty(size, self.compute)
        self.tmps = [np.empty(size, self.compute) for _ in range(self.scratch)]

    def __call__(self, blocks, out) -> None:
        n = out.shape[0]
        if n > self.size:  # nditer never yields more than buffersize, but stay safe
            self._alloc(n)
        ins = [a if a.dtype == d else _load(a, b[:n]) for a, d, b in zip(blocks, self.loads, self.bufs)]
        tmps = [t[:n] for t in self.tmps]
        if self.direct_out:
            self.fn(ins, out, tmps)
        else:
            ob = self.out_buf[:n]
            self.fn(ins, ob, tmps)
            store(ob, out)


# ---------------------------------------------------------------------------------------------
# Compiled fused maps (``_accel``): one pass over the data, half types converted in registers.
#
# A kernel module writes its chain once more as a small compiled scalar function (next to the NumPy
# chain, which stays the reference), binds it to a generic loop with :func:`driver` and calls
# :func:`fused`; that returns None when the call does not qualify (Numba off, another dtype, a broadcast
# pattern other than the ones below; a non-contiguous or read-only input is copied first) and the module then
# runs :func:`blocked_map`.  The loops see the result as ``outer`` rows of ``inner`` elements; every input
# is read in one of four modes: FULL (``o * inner + j``), PERIODIC (``j``: a trailing sub-shape repeated
# over leading dims), ROW (``o``: a leading sub-shape constant along trailing dims) or SCALAR (``0``);
# ``modes`` packs them (2 bits per input).  Arrays travel as ``_accel.storage`` views; a chain receives
# float32 values and returns the float32 result, rounded once by ``_accel.put``.  Exact loops
# (``driver(exact=True)``: float64, complex64, complex128, every input of the result's dtype) are the same
# generic loops with ``_accel.load_exact`` / ``store_exact`` bound in place of ``as_f32`` / ``put``: the chain
# computes in that dtype and nothing is rounded on the way.

FULL, PERIODIC, ROW, SCALAR = 0, 1, 2, 3


def _layout(shapes: tuple) -> tuple | None:
    """``(shape, outer, inner, modes)`` of a broadcast, or None when it is not one of the four modes."""
    shape = np.broadcast_shapes(*shapes)  # ValueError for incompatible shapes, as NumPy
    n = math.prod(shape)
    if n == 0:
        return None
    inner, modes = None, 0
    for i, s in enumerate(shapes):
        size = math.prod(s)
        padded = (1,) * (len(shape) - len(s)) + tuple(s)
        if size == n:
            mode, split = FULL, None
        elif size == 1:
            mode, split = SCALAR, None
        else:
            first = next(k for k, d in enumerate(padded) if d != 1)
            last = max(k for k, d in enumerate(padded) if d != 1) + 1
            if padded[first:] == shape[first:]:
                mode, split = PERIODIC, size
            elif padded[:last] == shape[:last]:
                mode, split = ROW, n // size
            else:
                return None
        if split is not None:
            if inner is not None and inner != split:
                return None
            inner = split
        modes |= mode << (2 * i)
    inner = n if inner is None else inner
    return shape, n // inner, inner, modes


_LAYOUTS: dict = {}


def layout(shapes: tuple) -> tuple | None:
    """Cached :func:`_layout` of a tuple of input shapes (ValueError for shapes that do not broadcast)."""
    found = _LAYOUTS.get(shapes, False)
    if found is False:
        found = _layout(shapes)
        if len(_LAYOUTS) > 512:
            _LAYOUTS.clear()
        _LAYOUTS[shapes] = found
    return found


_U16 = np.dtype(np.uint16)
# dtype -> the view a compiled loop receives (None: the array itself), see ``_accel.storage``
_FUSED_VIEWS = {F32: None, **_accel.HALF_STORAGE}
_SELECT_VIEWS = {**_FUSED_VIEWS, **{np.dtype(t): None for t in (np.int8, np.uint8, np.int32, np.int64)}}
# exact loops (float64 / complex chains): every input and the result share one of these dtypes, passed as is
_EXACT_VIEWS = {F64: None, np.dtype(np.complex64): None, np.dtype(np.complex128): None}
# select loops: the first input and the result as raw bit patterns
_BITS = {2: _U16, 4: np.dtype(np.uint32)}
_RAW_VIEWS = {d: _BITS.get(d.itemsize) for d in _SELECT_VIEWS}


class _Plan(NamedTuple):
    """What :func:`fused` does for one (loop, dtypes, shapes): the per-input views, the result, the loop."""

    views: tuple  # per input: the dtype it is viewed as (None: as is)
    shape: tuple  # the result's shape
    dtype: np.dtype  # the result's dtype
    out_view: np.dtype | None  # the result's view for the loop
    modes: int
    outer: int
    inner: int
    extra: tuple  # trailing loop arguments (the select loops' zero)


_PLANS: dict = {}
_DTYPE_SHAPE = operator.attrgetter("dtype", "shape")


def _plan(loop, inputs: Sequence[np.ndarray], result_dtype, select: bool) -> _Plan | None:
    """The plan of a call, or None when the call does not qualify (ValueError for shapes that do not broadcast)."""
    result_dtype = np.dtype(result_dtype)
    accepted = loop.storages
    if result_dtype not in accepted or any(a.dtype not in accepted for a in inputs):
        return None
    if accepted is _EXACT_VIEWS and any(a.dtype != result_dtype for a in inputs):
        return None  # exact loops do not convert
    views = [accepted[a.dtype] for a in inputs]
    out_view = accepted[result_dtype]
    extra = ()
    if select:
        if inputs[0].dtype != result_dtype:
            return None
        views[0] = out_view = _RAW_VIEWS[result_dtype]
        extra = ((out_view or result_dtype).type(0),)  # a zero the compiler cannot see (see _select2)
    found = layout(tuple(a.shape for a in inputs))
    if found is None:
        return None
    shape, outer, inner, modes = found
    return _Plan(tuple(views), shape, result_dtype, out_view, modes, outer, inner, extra)


def fused(loop, inputs: Sequence[np.ndarray], result_dtype, params: tuple = (), *, select: bool = False):
    """Run a compiled ``loop`` (from :func:`driver`) over the broadcast of ``inputs`` -> a new ``result_dtype``
    array, or None when the call does not qualify (see above).  ``params`` is the chain's parameter tuple.

    ``select=True``: the first input and the result share their dtype and travel as raw bit patterns
    (exact selects such as ReLU's gradient: nothing is converted); integer dtypes are allowed there.

    The Python side is most of the time of a small call, so everything that depends only on the dtypes
    and shapes (views, broadcast layout) is planned once per combination and cached; a call then costs a
    dictionary lookup, a flat view per array and the dispatcher call (every array ready: C-contiguous,
    aligned, writeable; others are copied first, so the result does not depend on the layout)."""
    if not _accel.enabled():
        return None
    if len(inputs) == 2:  # the common case spelled out: building the key is a fair part of a small call
        a, b = inputs
        key = (loop, select, result_dtype, a.dtype, b.dtype, a.shape, b.shape)
    else:
        key = (loop, select, result_dtype, *map(_DTYPE_SHAPE, inputs))
    plan = _PLANS.get(key, False)
    if plan is False:
        plan = _plan(loop, inputs, result_dtype, select)
        if len(_PLANS) > 1024:
            _PLANS.clear()
        _PLANS[key] = plan
    if plan is None:
        return None
    args = []
    for a, view in zip(inputs, plan.views):
        flat = a.ravel() if a.flags.carray else _accel.ready(a).ravel()
        args.append(flat if view is None else flat.view(view))
    out = np.empty(plan.shape, plan.dtype)
    flat = out.ravel()
    if plan.out_view is not None:
        flat = flat.view(plan.out_view)
    dispatcher = loop._dispatcher or loop.dispatcher()
    dispatcher(*args, flat, plan.modes, plan.outer, plan.inner, params, *plan.extra)
    return out


def driver(chain, arity: int, *, select: bool = False, contract: bool = False, exact: bool = False):
    """The generic compiled loop for ``arity`` inputs bound to ``chain`` (an ``_accel.jit(inline=True)``
    scalar function ``chain(v1, ..., params) -> float32``; with ``select``: ``chain(x, params) -> bool``,
    True where the lane is zeroed, ``x`` being the second input).

    ``exact=True``: the loop for float64 / complex64 / complex128 chains: every input has the result's
    dtype and values are loaded and stored as they are (``chain(v1, ..., params)`` computes in that dtype;
    its constants must leave those values exact, e.g. a float32 ``1.0`` is widened, never the reverse).

    ``contract=True`` lets LLVM fuse multiply-adds (for chains evaluating ``exp32``/``tanh32`` polynomials:
    about 25% faster, results within the same ulp bounds); no other fast-math flag is ever used."""
    if select:
        generic = _select2
    else:
        generic = {1: _map1, 2: _map2, 3: _map3}[arity]
    name = f"{chain.py_func.__module__}.{chain.py_func.__qualname__}"
    bind = {"CHAIN": chain}
    if exact:
        if select:
            raise ValueError("exact select loops are not needed: select loops never convert")
        bind.update(as_f32=_accel.load_exact, put=_accel.store_exact)
    loop = generic.bound(name, fastmath={"contract"} if contract else False, **bind)
    loop.storages = _EXACT_VIEWS if exact else _SELECT_VIEWS if select else _FUSED_VIEWS
    return loop


def CHAIN(*args):  # noqa: N802  (placeholder bound by ``driver``)
    raise NotImplementedError("a generic loop must be bound to a chain with driver()")


@_accel.jit
def _map1(a, out, modes, outer, inner, params):
    for o in range(outer):
        dst = out[o * inner : (o + 1) * inner]
        if modes & 3 < 2:
            sa = a[o * inner : (o + 1) * inner] if modes & 3 == 0 else a[:inner]
            for j in range(inner):
                put(dst, j, CHAIN(as_f32(sa[j]), params))
        else:
            v = CHAIN(as_f32(a[o if modes & 3 == 2 else 0]), params)
            for j in range(inner):
                put(dst, j, v)


@_accel.jit
def _map2(a, b, out, modes, outer, inner, params):
    ma, mb = modes & 3, (modes >> 2) & 3
    for o in range(outer):
        lo, hi = o * inner, (o + 1) * inner
        dst = out[lo:hi]
        sa = a[lo:hi] if ma == 0 else a[:inner]  # used when ma < 2
        sb = b[lo:hi] if mb == 0 else b[:inner]
        ca = as_f32(a[o if ma == 2 else 0])  # used when ma >= 2
        cb = as_f32(b[o if mb == 2 else 0])
        if ma < 2 and mb < 2:
            for j in range(inner):
                put(dst, j, CHAIN(as_f32(sa[j]), as_f32(sb[j]), params))
        elif ma < 2:
            for j in range(inner):
                put(dst, j, CHAIN(as_f32(sa[j]), cb, params))
        elif mb < 2:
            for j in range(inner):
                put(dst, j, CHAIN(ca, as_f32(sb[j]), params))
        else:
            v = CHAIN(ca, cb, params)
            for j in range(inner):
                put(dst, j, v)


@_accel.jit
def _map3(a, b, c, out, modes, outer, inner, params):
    ma, mb, mc = modes & 3, (modes >> 2) & 3, (modes >> 4) & 3
    for o in range(outer):
        lo, hi = o * inner, (o + 1) * inner
        dst = out[lo:hi]
        sa = a[lo:hi] if ma == 0 else a[:inner]
        sb = b[lo:hi] if mb == 0 else b[:inner]
        sc = c[lo:hi] if mc == 0 else c[:inner]
        ca = as_f32(a[o if ma == 2 else 0])
        cb = as_f32(b[o if mb == 2 else 0])
        cc = as_f32(c[o if mc == 2 else 0])
        if ma < 2 and mb < 2 and mc < 2:
            for j in range(inner):
                put(dst, j, CHAIN(as_f32(sa[j]), as_f32(sb[j]), as_f32(sc[j]), params))
        elif ma >= 2 and mb < 2 and mc < 2:  # a scalar gradient ('mean' / 'sum' losses)
            for j in range(inner):
                put(dst, j, CHAIN(ca, as_f32(sb[j]), as_f32(sc[j]), params))
        else:  # other mixes: one element at a time
            for j in range(inner):
                va = as_f32(sa[j]) if ma < 2 else ca
                vb = as_f32(sb[j]) if mb < 2 else cb
                vc = as_f32(sc[j]) if mc < 2 else cc
                put(dst, j, CHAIN(va, vb, vc, params))


@_accel.jit
def _select2(g, x, out, modes, outer, inner, params, zero):
    """``out = 0 if CHAIN(x) else g`` on raw bit patterns (``g`` and ``out`` share a storage type).

    ``zero`` is 0, passed at run time and applied as ``g & zero``: with a literal 0, LLVM folds the load of ``g``
    into a masked (zeroing) load that waits for the comparison on ``x``; on AMD Zen such loads made the
    whole stream about 1.3x slower than an unconditional load and a masked AND in registers (measured)."""
    mg, mx = modes & 3, (modes >> 2) & 3
    for o in range(outer):
        lo, hi = o * inner, (o + 1) * inner
        dst = out[lo:hi]
        sg = g[lo:hi] if mg == 0 else g[:inner]
        sx = x[lo:hi] if mx == 0 else x[:inner]
        cg = g[o if mg == 2 else 0]
        cx = as_value(x[o if mx == 2 else 0])
        if mg < 2 and mx < 2:
            for j in range(inner):
                v = sg[j]
                dst[j] = v & zero if CHAIN(as_value(sx[j]), params) else v
        elif mg < 2:
            drop = CHAIN(cx, params)
            for j in range(inner):
                v = sg[j]
                dst[j] = v & zero if drop else v
        elif mx < 2:
            for j in range(inner):
                dst[j] = zero if CHAIN(as_value(sx[j]), params) else cg
        else:
            v = zero if CHAIN(cx, params) else cg
            for j in range(inner):
                dst[j] = v
