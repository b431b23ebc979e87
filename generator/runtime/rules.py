"""Functions available to rule expressions (see ``generator.expr.FUNCTIONS``).

Their semantics are documented once, in the README's table of rule functions; opgen/checks.h and
opgen/rule_functions.h implement the same for the C++ rendering. dtype conversion and promotion
follow CANN's tables (cann-facts.md 3.3, 3.4 table A).
"""

from __future__ import annotations

import math
import struct
from functools import cache

from generator.int_ranges import C_INT_RANGES, DTYPE_CTYPES

_INTS = ("INT8", "UINT8", "INT16", "UINT16", "INT32", "UINT32", "INT64", "UINT64")
_FLOATS = ("FLOAT16", "FLOAT", "DOUBLE", "BFLOAT16")
_COMPLEX = ("COMPLEX32", "COMPLEX64", "COMPLEX128")


@cache
def castable(source: str, target: str) -> bool:
    """CANN's CanCast: may a result of dtype ``source`` be written to a tensor of ``target``?"""
    if source in _INTS or source == "BOOL":
        return target in _INTS or target in _FLOATS or target in _COMPLEX or target == source
    if source in _FLOATS:
        return target in _FLOATS or target in _COMPLEX
    if source in _COMPLEX:
        return target in _COMPLEX
    return False


# Table A (tensor x tensor), by abbreviation; "x" = cannot be promoted.
_ABBR = {
    "f32": "FLOAT", "f16": "FLOAT16", "f64": "DOUBLE", "bf16": "BFLOAT16", "s8": "INT8", "u8": "UINT8",
    "s16": "INT16", "u16": "UINT16", "s32": "INT32", "u32": "UINT32", "s64": "INT64", "u64": "UINT64",
    "bool": "BOOL", "c32": "COMPLEX32", "c64": "COMPLEX64", "c128": "COMPLEX128",
}  # fmt: skip
_ORDER = "f32 f16 f64 bf16 s8 u8 s16 u16 s32 u32 s64 u64 bool c32 c64 c128".split()
_TABLE_A = """
f32  f32 f32 f64 f32 f32 f32 f32 x f32 x f32 x f32 c64 c64 c128
f16  f32 f16 f64 f32 f16 f16 f16 x f16 x f16 x f16 c32 c64 c128
f64  f64 f64 f64 f64 f64 f64 f64 x f64 x f64 x f64 c128 c128 c128
bf16 f32 f32 f64 bf16 bf16 bf16 bf16 x bf16 x bf16 x bf16 c32 c64 c128
s8   f32 f16 f64 bf16 s8 s16 s16 x s32 x s64 x s8 c32 c64 c128
u8   f32 f16 f64 bf16 s16 u8 s16 x s32 x s64 x u8 c32 c64 c128
s16  f32 f16 f64 bf16 s16 s16 s16 x s32 x s64 x s16 c32 c64 c128
u16  x x x x x x x u16 x x x x x x x x
s32  f32 f16 f64 bf16 s32 s32 s32 x s32 x s64 x s32 c32 c64 c128
u32  x x x x x x x x x u32 x x x x x x
s64  f32 f16 f64 bf16 s64 s64 s64 x s64 x s64 x s64 c32 c64 c128
u64  x x x x x x x x x x x u64 x x x x
bool f32 f16 f64 bf16 s8 u8 s16 x s32 x s64 x bool c32 c64 c128
c32  c64 c32 c128 c32 c32 c32 c32 x c32 x c32 x c32 c32 c64 c128
c64  c64 c64 c128 c64 c64 c64 c64 x c64 x c64 x c64 c64 c64 c128
c128 c128 c128 c128 c128 c128 c128 c128 x c128 x c128 x c128 c128 c128 c128
"""
PROMOTION: dict[tuple[str, str], str | None] = {}
for _row in _TABLE_A.strip().splitlines():
    _head, *_cells = _row.split()
    for _col, _cell in zip(_ORDER, _cells):
        PROMOTION[(_ABBR[_head], _ABBR[_col])] = None if _cell == "x" else _ABBR[_cell]


def promotable(a: str, b: str) -> bool:
    """True when the two dtypes have a promoted dtype (table A)."""
    return PROMOTION.get((a, b)) is not None


def promote(a: str, b: str) -> str:
    """The promoted dtype of ``a`` and ``b``; raises ValueError when there is none."""
    result = PROMOTION.get((a, b))
    if result is None:
        raise ValueError(f"{a} and {b} cannot be promoted")
    return result


def pool_out(size: int, kernel: int, stride: int, pad: int, dilation: int, ceil_mode: bool) -> int:
    """Pooled output length (PyTorch's rule, used by every CANN max-pool op)."""
    num = size + 2 * pad - dilation * (kernel - 1) - 1 + (stride - 1 if ceil_mode else 0)
    out = num // stride + 1
    if ceil_mode and (out - 1) * stride >= size + pad:
        out -= 1
    return out


def conv_out(size: int, kernel: int, stride: int, pad: int, dilation: int) -> int:
    """Convolution output length."""
    return (size + 2 * pad - dilation * (kernel - 1) - 1) // stride + 1


def ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def prod(values) -> int:
    """The product of the items, left to right from 1."""
    result = 1
    for v in values:
        result *= v
    return result


def float_sum(values) -> float:
    """The sum of float items, left to right from 0 (the additions C++ makes; the builtin ``sum``
    compensates rounding errors since Python 3.12)."""
    result = 0.0
    for v in values:
        result += v
    return result


# Items a rule may iterate over or build (generator.expr.MAX_ITEMS): a longer range or expansion
# makes the check fail (ValueError) instead of hanging or allocating.
MAX_RULE_ITEMS = 1 << 12


def bounded_range(start: int, stop: int) -> range:
    """``range(start, stop)`` for a rule whose bound comes from the arguments (at most MAX_RULE_ITEMS)."""
    if stop - start > MAX_RULE_ITEMS:
        raise ValueError(f"a rule may not iterate over {stop - start} items (at most {MAX_RULE_ITEMS})")
    return range(start, stop)


def expand(values: tuple, n: int) -> tuple:
    """A length-1 tuple repeated ``n`` times; any other tuple unchanged."""
    if len(values) != 1:
        return tuple(values)
    if n > MAX_RULE_ITEMS:
        raise ValueError(f"a rule may not build {n} items (at most {MAX_RULE_ITEMS})")
    return tuple(values) * n


def or_default(values: tuple, default: tuple) -> tuple:
    return tuple(values) if len(values) else tuple(default)


_PRIVATE: frozenset[str] = frozenset()


def set_private_formats(names) -> None:
    global _PRIVATE
    _PRIVATE = frozenset(names)


def is_private(fmt: str) -> bool:
    return fmt in _PRIVATE


# Broadcasts of two different shapes already computed: a validator computes the same one several
# times (to infer an output, then in each check that names it) and calls repeat shapes.
_BROADCASTS: dict[tuple, tuple] = {}
_BROADCASTS_MAX = 512  # entries, then the table starts again (shapes of at most 16 dimensions in all)


def broadcast_shape(a: tuple, b: tuple) -> tuple:
    """The broadcast of two shapes (NumPy's rule, CANN's BroadcastInferShape): aligned from the last
    dimension, a missing dimension counts as 1, and two dimensions agree when equal or when one is 1
    (the result takes the other). Raises ValueError when they do not broadcast."""
    if a == b:  # the common case, at validator speed
        return tuple(a)
    small = type(a) is tuple and type(b) is tuple and len(a) + len(b) <= 16
    if small:
        try:
            known = _BROADCASTS.get((a, b))
        except TypeError:  # an unhashable item: the computation below reports it
            known = small = None
        if known is not None:
            return known
    out = _broadcast(a, b)
    if small:
        if len(_BROADCASTS) >= _BROADCASTS_MAX:
            _BROADCASTS.clear()
        _BROADCASTS[(a, b)] = out
    return out


def _broadcast(a, b) -> tuple:
    out = []
    for i in range(1, max(len(a), len(b)) + 1):
        x = a[-i] if i <= len(a) else 1
        y = b[-i] if i <= len(b) else 1
        if x == y or y == 1:
            out.append(x)
        elif x == 1:
            out.append(y)
        else:
            raise ValueError(f"shapes {list(a)} and {list(b)} do not broadcast (dimension -{i}: {x} vs {y})")
    return tuple(reversed(out))


def broadcastable(a: tuple, b: tuple) -> bool:
    """True when :func:`broadcast_shape` of the two shapes exists."""
    if a == b:
        return True
    try:
        broadcast_shape(a, b)
    except ValueError:
        return False
    return True


_FLOAT32_MAX_BITS = 128  # |x| >= 2**128 is beyond float32's range even after rounding


def f32(x) -> float:
    """``x`` rounded to float32 (round to nearest, ties to even; beyond float32's range: +-inf; NaN
    stays NaN), as CANN's ``aclScalar::ToFloat()`` and a C++ ``static_cast<float>`` give it.
    Integers are rounded once, directly (not through a double)."""
    if isinstance(x, int):  # bool included
        n = abs(int(x))
        bits = n.bit_length()
        if bits > 24:  # keep 24 significant bits, rounding half to even
            shift = bits - 24
            q, r = divmod(n, 1 << shift)
            half = 1 << (shift - 1)
            if r > half or (r == half and q & 1):
                q += 1
            if (q << shift).bit_length() > _FLOAT32_MAX_BITS:
                return math.copysign(math.inf, x)
            n = q << shift
        value = float(n)
        value = struct.unpack("<f", struct.pack("<f", value))[0]  # exact: at most 24 significant bits
        return -value if x < 0 else value
    try:
        return struct.unpack("<f", struct.pack("<f", x))[0]
    except OverflowError:  # rounds beyond float32's range
        return math.copysign(math.inf, x)


def _half(x: float) -> float:
    try:
        return struct.unpack("<e", struct.pack("<e", x))[0]  # double -> binary16, rounded once
    except OverflowError:  # rounds beyond FLOAT16's range
        return math.copysign(math.inf, x)


def _bfloat16(x: float) -> float:
    value = f32(x)  # as ml_dtypes and CANN's bfloat16 type convert: through float32
    if math.isnan(value):
        return value
    bits = struct.unpack("<I", struct.pack("<f", value))[0]
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000  # round to nearest, ties to even
    return struct.unpack("<f", struct.pack("<I", bits))[0]


def stored_scalar(number, dtype: str):
    """The value an aclScalar of ``dtype`` holds, given a Python bool/int/float/complex ``number``.

    C's ``aclCreateScalar`` reads the value from memory of that type, so CANN's checks and kernels
    (and the host runtime's C++ checks) see it rounded: a FLOAT scalar of 1e-46 is 0.0. Floats are
    rounded to nearest-even in their dtype (beyond its range +-inf, NaN stays NaN); integer dtypes
    need a whole number in their range (ValueError otherwise); BOOL keeps the value's truth;
    COMPLEX64 rounds both parts to FLOAT. Other dtypes keep the number as given.
    """
    if dtype in ("FLOAT", "FLOAT16", "BFLOAT16", "DOUBLE"):
        if isinstance(number, int) and dtype == "FLOAT":
            return f32(number)  # an integer is rounded once, directly
        try:
            value = float(number)
        except OverflowError:  # an integer beyond a double
            value = math.copysign(math.inf, number)
        if dtype == "DOUBLE":
            return value
        return f32(value) if dtype == "FLOAT" else _half(value) if dtype == "FLOAT16" else _bfloat16(value)
    if dtype in DTYPE_CTYPES:
        if isinstance(number, float):
            if not number.is_integer():
                raise ValueError(f"{number!r} is not a whole number but the dtype is {dtype}")
            number = int(number)
        low, high = C_INT_RANGES[DTYPE_CTYPES[dtype]]
        if not low <= number <= high:
            raise ValueError(f"{number!r} does not fit its dtype {dtype}")
        return int(number)
    if dtype == "BOOL":
        return bool(number)
    if dtype == "COMPLEX64":  # two FLOAT parts; a real value stays a real number
        if isinstance(number, complex):
            return complex(f32(number.real), f32(number.imag))
        return f32(float(number))
    return number
