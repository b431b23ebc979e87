"""Shared material of the rule-language tests: a scope, expressions using every construct, random
arguments (hypothesis), and a type-directed text encoding of results that C++ prints the same way.

Parameters: ``t`` a tensor, ``w`` a nullable tensor, ``x`` ``y`` int arrays, ``m`` a bool array,
``n`` an int, ``f`` a double, ``a`` a scalar; plus ``product``.
"""

from __future__ import annotations

import math
from pathlib import Path

from hypothesis import strategies as st

from generator import expr as ex
from generator.evaluate import ScalarValue, TensorValue
from generator.loader import load_catalog

REPO = Path(__file__).resolve().parents[1]
CATALOG = load_catalog(REPO / "specs")
PRODUCTS = sorted(CATALOG.product_tags)
DTYPE_VALUES = {d.name: d.value for d in CATALOG.dtypes.dtypes}
FORMAT_VALUES = {f.name: f.value for f in CATALOG.formats.formats}

PARAMS = {
    "t": ex.TENSOR,
    "w": ex.TENSOR,
    "x": ex.INTS,
    "y": ex.INTS,
    "m": ex.BOOLS,
    "n": ex.INT,
    "f": ex.FLOAT,
    "a": ex.SCALAR,
}
C_TYPES = {
    "t": "const aclTensor*",
    "w": "const aclTensor*",
    "x": "const aclIntArray*",
    "y": "const aclIntArray*",
    "m": "const aclBoolArray*",
    "n": "int64_t",
    "f": "double",
    "a": "const aclScalar*",
}
SCOPE = ex.Scope(PARAMS, CATALOG.dtype_names, CATALOG.format_names, products=frozenset(CATALOG.product_tags))

# Every new construct, alone and combined; each is evaluated three ways (the evaluator, the Python
# rendering, the compiled C++ rendering) on the same random arguments.
EXPRESSIONS = [
    # broadcasting
    "broadcast_shape(x, y)",
    "broadcast_shape(t.shape, x)",
    "broadcastable(x, y)",
    "broadcastable(t.shape, [1] + y)",
    "broadcast_shape(x, y) == broadcast_shape(y, x)",
    "len(broadcast_shape(x, y)) == max(len(x), len(y))",
    "[v for v in broadcast_shape(x, y) if v != 1]",
    "max(broadcast_shape(x, y)) if broadcastable(x, y) and len(x) + len(y) > 0 else -1",
    # comprehensions
    "[v * 2 for v in x]",
    "[v for v in x if v > 1]",
    "[t.shape[i] for i in range(t.rank) if i != n]",
    "[d == FLOAT for d in [t.dtype, a.dtype]]",
    "[d for d in [t.dtype, a.dtype] if d != FLOAT16]",
    "[t.format for v in m if v]",
    '[p for p in ["910", "950", "910b"] if p != product]',
    "[v for v in m if v]",
    "[f32(v) for v in [f, 0.1, a.value]]",
    "len([v for v in x if v > 0])",
    "[v for v in [u + 1 for u in x] if v > 0]",
    "[x[i] for i in range(n)]",
    # quantifiers over any list, with a filter; lazy like Python's generators
    "all(d in [FLOAT, FLOAT16] for d in [t.dtype, a.dtype])",
    "any(d == BFLOAT16 for d in [t.dtype, a.dtype] if d != FLOAT)",
    "all(v > 0 for v in x if v != 0)",
    "any(t.shape[v] == 1 for v in range(t.rank) if v >= n)",
    "any(x[v] == 0 for v in range(len(x) + 2) if v >= 0)",
    "all(x[v] != 0 for v in range(len(x) + 2) if v >= 0)",
    "all([v > 0 for v in x])",
    "all(m)",
    "any(m)",
    "sum(v for v in range(n))",
    # reductions
    "sum(x)",
    "sum(m)",
    "sum(v * v for v in x if v > 0)",
    "sum([f, 1.5, -2])",
    "sum(v / 2 for v in x)",
    "all(v > 0.5 for v in [f, 1.0])",
    "prod(x)",
    "prod(v + 1 for v in x)",
    "prod([f, 2.0])",
    "prod(m)",
    "min(x)",
    "max(x)",
    "min(v for v in x if v > 0)",
    "max([f, 0.5])",
    "min([f, a.value])",
    "min(m)",
    "max(n, 3)",
    # products
    'product in ["910", "910b"]',
    'product == "950"',
    '"310p" != product',
    # null tests
    "present(w)",
    "w is None",
    "w is not None and w.rank == 2",
    "not present(w) or broadcastable(w.shape, t.shape)",
    # float32 rounding
    "f32(f)",
    "f32(n)",
    "f32(a.value) < 0",
    "f32(f) == f",
    "f32(f * 3)",
]


def parse(text: str) -> ex.Node:
    return ex.parse(text, SCOPE, expect=None)


# ---------------------------------------------------------------------------------------------
# Random arguments

DTYPES = ["FLOAT", "FLOAT16", "BFLOAT16", "INT32"]
FORMATS = ["ND", "NCHW"]
SPECIAL_FLOATS = [
    0.0,
    -0.0,
    0.1,
    1.5,
    -2.5,
    1e-45,
    3.4028234663852886e38,
    3.4028235677973366e38,  # float32's largest value plus half a step: rounds to inf
    3.4028235677973362e38,  # just below it: rounds to the largest value
    1e39,
    -1e39,
    math.inf,
    -math.inf,
    math.nan,
    16777217.0,
]
dims = st.lists(st.integers(0, 4), max_size=4)
tensors = st.builds(
    lambda shape, dtype, fmt: TensorValue(tuple(shape), dtype, fmt),
    dims,
    st.sampled_from(DTYPES),
    st.sampled_from(FORMATS),
)
floats = st.one_of(st.sampled_from(SPECIAL_FLOATS), st.floats(-1e6, 1e6), st.floats(allow_nan=True))
int_lists = st.lists(st.integers(-3, 5), max_size=5).map(tuple)
arguments = st.fixed_dictionaries(
    {
        "t": tensors,
        "w": st.one_of(st.none(), tensors),
        "x": int_lists,
        "y": st.one_of(int_lists, dims.map(tuple)),
        "m": st.lists(st.booleans(), max_size=4).map(tuple),
        "n": st.integers(-2, 6),
        "f": floats,
        "a": st.builds(ScalarValue, floats, st.sampled_from(DTYPES)),
        "product": st.sampled_from(PRODUCTS),
    }
)


# ---------------------------------------------------------------------------------------------
# Results as text (C++ prints the same): the expression type says how to read a value.

ERROR = "E"


def encode(value, type_: str) -> str:
    if type_ in ex.ELEMENTS:
        return "[" + ",".join(encode(v, ex.ELEMENTS[type_]) for v in value) + "]"
    if type_ == ex.BOOL:
        return "b1" if value else "b0"
    if type_ == ex.INT:
        return f"i{int(value)}"
    if type_ == ex.FLOAT:
        value = float(value)
        return "fnan" if math.isnan(value) else f"f{value!r}"
    if type_ == ex.DTYPE:
        return f"d{DTYPE_VALUES[value]}"
    if type_ == ex.FORMAT:
        return f"r{FORMAT_VALUES[value]}"
    if type_ == ex.PRODUCT:
        return f"p{value}"
    raise AssertionError(type_)
