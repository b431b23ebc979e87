"""The rule language's functions for lists and products (issue 11): broadcasting, comprehensions,
reductions, product tags, null tests, f32.

Parse and type errors point at a column; the Python rendering (what validators run) and the
in-process evaluator (what lint runs) agree on random arguments; the doc rendering is readable;
the README documents exactly the language's functions. The C++ rendering is compiled and run
against the same values in ``test_expr_lang_cpp.py``; a spec using every function is linted,
generated and validated in ``test_expr_lang_spec.py``.
"""

from __future__ import annotations

import builtins
import math
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generator import expr as ex
from generator.evaluate import EVALUATION_ERRORS, TensorValue
from generator.runtime import rules
from tests.expr_lang_cases import ERROR, EXPRESSIONS, PARAMS, REPO, SCOPE, arguments, encode, parse

# ---------------------------------------------------------------------------------------------
# Parse and type errors: a message and the column of the offending part


ERRORS = [
    # (expression, message part, the text the column points at)
    ("foo(x) == 1", "unknown function 'foo'; functions: abs, all, any, broadcast_shape", "foo("),
    ("n + brodcast_shape(x, y)[0] > 0", "(did you mean broadcast_shape?)", "brodcast_shape"),
    ("sumx(x) > 0", "(did you mean sum?)", "sumx"),
    ('product == "91"', "unsupported literal '91' (did you mean 910?)", '"91"'),
    ('product in ["910b", "ascend"]', "a string literal must be a product tag", '"ascend"'),
    ("n is None", "'n' is a plain C value (int); it is never null", "n is"),
    ("present(n)", "it is never null", "n)"),
    ("present(q)", "'q' is not a parameter", "q)"),
    ("present(t.shape)", "p must be a parameter name", "t.shape"),
    ("present(t, w)", "present() takes one parameter name", "present"),
    ("x is 3", "only compare a parameter with None", "3"),
    ("w is None is None", "cannot be chained", "w is"),
    ("n > 0 or None", "None may only appear in 'p is None'", "None"),
    ("(v for v in x) == x", "a generator may only be the argument of all, any, sum, prod, min, max", "(v"),
    ("all([v for v in x])", "all() needs bool items, got int", "[v"),
    ("sum([t.dtype, a.dtype]) > 0", "sum() needs numeric items, got dtype", "[t"),
    ("max(t.dtype for v in x) == FLOAT", "max() needs numeric items, got dtype", "t.dtype for"),
    ("len([t for v in x]) > 0", "builds a list of numbers, bools, dtypes, formats or products, not tensor", "t for"),
    ("len([v for v in x if v]) > 0", "the 'if' condition must be bool, got int", "v])"),
    ("len([v for v in x if v > 0 if v < 3]) > 0", "use one 'if'", "v < 3"),
    ("all(all(b for b in m) for u in m)", "cannot be nested", "all(b"),
    ("len([[v for v in x] for u in y]) > 0", "cannot be nested", "[v"),
    ("any(len([v for v in x]) > u for u in y)", "cannot be nested", "[v"),
    ("len([v for x in y]) > 0", "loop variable 'x' shadows a parameter", "x in"),
    ("len([v for f32 in y]) > 0", "shadows a function of the rule language", "f32 in"),
    ("len([v for v in range(INT64_MAX)]) > 0", "range() may span more than 4096 items", "range"),
    ("len([v for v in n]) > 0", "cannot iterate over a value of type int", "n]"),
    ("len([v for v, u in x]) > 0", "use the form 'expr for name in list [if condition]'", "[v"),
    ("min(x, y, x) > 0", "min() takes one list or generator, or two numbers", "min"),
    ("min(x, 1) > 0", "min() argument 1 must be num, got int[]", "x, 1"),
    ("sum(x, 1) > 0", "sum() takes one list or generator", "sum"),
    ("prod(t) > 0", "prod() needs a list or a generator, got tensor", "t)"),
    ("broadcast_shape(x) == x", "broadcast_shape() takes 2 argument(s), got 1", "broadcast_shape"),
    ("broadcastable(x, t)", "broadcastable() argument 2 must be int[], got tensor", "t)"),
    ("f32(x) > 0", "f32() argument 1 must be num, got int[]", "x)"),
    ("[t.dtype] == [1]", "cannot compare dtype[] with int[]", "[t.dtype] =="),
    ("n in [t.dtype]", "cannot test a int for membership in a list of dtype", "n in"),
]


@pytest.mark.parametrize("text, message, at", ERRORS, ids=[e[0] for e in ERRORS])
def test_errors_name_the_problem_and_its_column(text, message, at):
    with pytest.raises(ex.ExprError) as info:
        ex.parse(text, SCOPE)
    assert message in info.value.message, info.value.message
    assert text.index(at) == info.value.col, (info.value.col, text[info.value.col :])


def test_unknown_function_lists_every_function():
    with pytest.raises(ex.ExprError) as info:
        ex.parse("frobnicate(x)", SCOPE)
    listed = info.value.message.split("functions: ", 1)[1].split(", ")
    assert listed == ex.function_names()
    assert {"broadcast_shape", "broadcastable", "f32", "present", "prod", "min", "max", "sum"} <= set(listed)


def test_expression_types():
    types = {
        "broadcast_shape(x, y)": ex.INTS,
        "broadcastable(x, y)": ex.BOOL,
        "[v * 2 for v in x]": ex.INTS,
        "[v > 0 for v in x]": ex.BOOLS,
        "[f32(v) for v in x]": ex.FLOATS,
        "[d for d in [t.dtype, a.dtype]]": ex.DTYPES,
        "[t.format for v in x]": ex.FORMATS,
        '[p for p in ["910", "950"]]': ex.PRODUCTS,
        "sum(m)": ex.INT,
        "sum(v / 2 for v in x)": ex.FLOAT,
        "prod(x)": ex.INT,
        "prod([f, 2])": ex.FLOAT,
        "min(x)": ex.INT,
        "max(m)": ex.BOOL,
        "max(v / 2 for v in x)": ex.FLOAT,
        "min(n, f)": ex.FLOAT,
        "all(v for v in m if v)": ex.BOOL,
        "present(w)": ex.BOOL,
        "f32(n)": ex.FLOAT,
        '"910b"': ex.PRODUCT,
    }
    for text, expected in types.items():
        assert parse(text).type == expected, text


def test_null_tests_are_not_uses():
    """A check skips when a nullable parameter it uses is null; a null test is not such a use."""
    node = ex.parse("not m[1] or present(w)", SCOPE)
    assert ex.names_used(node) == {"m"}
    assert ex.names_tested(node) == {"w"}
    assert ex.names_mentioned(node) == {"m", "w"}
    node = ex.parse("w is None or w.rank == 1", SCOPE)
    assert ex.names_used(node) == {"w"} and ex.names_tested(node) == {"w"}


def test_product_tags_come_from_the_catalogue():
    scope = ex.Scope(PARAMS, SCOPE.dtypes, SCOPE.formats)  # a scope that knows no product
    with pytest.raises(ex.ExprError, match="a string literal must be a product tag"):
        ex.parse('product == "910b"', scope)
    assert isinstance(ex.parse('product == "910b"', SCOPE).operands[1], ex.ProductTag)


# ---------------------------------------------------------------------------------------------
# Renderings


RENDERINGS = [
    # (expression, Python, doc)
    ("broadcast_shape(x, y) == t.shape", "rt.broadcast_shape(x, y) == t.shape", "broadcast_shape(x, y) == t.shape"),
    ("[v * 2 for v in x if v > 0] == y", "tuple(v * 2 for v in x if v > 0) == y", "[v * 2 for v in x if v > 0] == y"),
    (
        "all(d in [FLOAT, FLOAT16] for d in [t.dtype, a.dtype])",
        'all(d in ("FLOAT", "FLOAT16") for d in (t.dtype, a.dtype))',
        "all(d in [FLOAT, FLOAT16] for d in [t.dtype, a.dtype])",
    ),
    ("prod(v for v in x if v != 0) > 1", "rt.prod(v for v in x if v != 0) > 1", "prod(v for v in x if v != 0) > 1"),
    ("min(x) >= 0 and max(m)", "min(x) >= 0 and max(m)", "min(x) >= 0 and max(m)"),
    ("sum([f, 1.5]) > 0", "rt.float_sum((f, 1.5)) > 0", "sum([f, 1.5]) > 0"),
    ("sum(x) > 0", "sum(x) > 0", "sum(x) > 0"),
    ("sum(v / 2 for v in x) > 0", "rt.float_sum(v / 2 for v in x) > 0", "sum(v / 2 for v in x) > 0"),
    ("sum(v // 2 for v in x) > 0", "sum(v // 2 for v in x) > 0", "sum(v // 2 for v in x) > 0"),
    ('product in ["910", "910b"]', 'product in ("910", "910b")', 'product in ["910", "910b"]'),
    ('product != "950"', 'product != "950"', 'product != "950"'),
    ("not m[1] or present(w)", "not m[1] or w is not None", "not m[1] or w is not null"),
    ("not (w is None)", "not w is None", "not w is null"),
    ("f32(a.value) < 0", "rt.f32(a.value) < 0", "f32(a.value) < 0"),
    ("len([v for v in x if v > 0]) == 0", "len(tuple(v for v in x if v > 0)) == 0", "len([v for v in x if v > 0]) == 0"),
    ("[v for v in range(n)] == x", "tuple(v for v in rt.bounded_range(0, n)) == x", "[v for v in range(n)] == x"),
    ("[v for v in range(t.rank)] == x", "tuple(v for v in range(t.rank)) == x", "[v for v in range(t.rank)] == x"),
    (
        "all(v > 0 for v in (x if n > 0 else y))",
        "min(x if n > 0 else y, default=1) > 0",
        "all(v > 0 for v in (x if n > 0 else y))",
    ),
    ("all(v >= 0 for v in x)", "min(x, default=0) >= 0", "all(v >= 0 for v in x)"),
    ("any(v < 2 for v in x)", "min(x, default=2) < 2", "any(v < 2 for v in x)"),
    ("all(v != 0 for v in x)", "0 not in x", "all(v != 0 for v in x)"),
    ("any(v == 3 for v in x)", "3 in x", "any(v == 3 for v in x)"),
    ("all(v == 0 for v in x)", "all(v == 0 for v in x)", "all(v == 0 for v in x)"),
    ("all(v > 0 for v in x) == (n > 0)", "(min(x, default=1) > 0) == (n > 0)", "all(v > 0 for v in x) == (n > 0)"),
    ("[(v if v > 0 else 0) for v in x] == y", "tuple((v if v > 0 else 0) for v in x) == y", "[(v if v > 0 else 0) for v in x] == y"),
    ("[v for v in x if (v > 0 if n > 0 else v < 0)] == y", "tuple(v for v in x if (v > 0 if n > 0 else v < 0)) == y", "[v for v in x if (v > 0 if n > 0 else v < 0)] == y"),
]  # fmt: skip


@pytest.mark.parametrize("text, python, doc", RENDERINGS, ids=[r[0] for r in RENDERINGS])
def test_python_and_doc_renderings(text, python, doc):
    node = ex.parse(text, SCOPE)
    assert ex.to_python(node, {p: p for p in PARAMS}) == python
    assert ex.to_doc(node) == doc
    compile(python, "<rule>", "eval")  # valid Python


@pytest.mark.parametrize("func", ["all", "any"])
@pytest.mark.parametrize("op", ["==", "!=", "<", "<=", ">", ">="])
@pytest.mark.parametrize("c", [-2, 0, 1, 3])
def test_int_list_quantifiers_render_to_the_same_verdicts(func, op, c):
    """``all``/``any`` of ``v OP c`` over an int list may render as one builtin call (``min(x,
    default=...)``, ``c in x``): on every list it gives the verdict of the generator it replaces."""
    node = ex.parse(f"{func}(v {op} {c} for v in x)", SCOPE)
    code = compile(ex.to_python(node, {p: p for p in PARAMS}), "<rule>", "eval")
    lists = [(), (c,), (c - 1,), (c + 1,), (c - 1, c, c + 1), (c, c), (c + 5, c + 1), (-(2**63), 2**63 - 1)]
    for x in lists:
        expected = {"all": all, "any": any}[func](eval(f"v {op} {c}", {"v": v}) for v in x)
        assert eval(code, {"x": x, "min": min, "max": max, "all": all, "any": any}) == expected, x


@pytest.mark.parametrize("func", ["all", "any"])
@pytest.mark.parametrize("op", ["==", "!=", "<", "<=", ">", ">="])
def test_negated_int_list_quantifiers_give_the_opposite_verdict(func, op):
    """A failing check's condition ``not all(v > 0 ...)`` is rendered as ``min(x, default=1) <= 0``: on
    every int list the negated quantifier's verdict is the opposite of the original's."""
    node = ex.parse(f"{func}(v {op} 1 for v in x)", SCOPE)
    negated = ex.negated_quantifier(node)
    assert negated is not None and negated.func != func
    code = compile(ex.to_python(node, {p: p for p in PARAMS}), "<rule>", "eval")
    opposite = compile(ex.to_python(negated, {p: p for p in PARAMS}), "<rule>", "eval")
    for x in [(), (1,), (0,), (2,), (0, 1, 2), (1, 1), (5, 3), (-(2**63), 2**63 - 1)]:
        scope = {"x": x, "min": min, "max": max, "all": all, "any": any}
        assert eval(opposite, scope) is (not eval(code, scope)), x
    assert ex.negated_quantifier(ex.parse("all(v > 0.5 for v in x)", SCOPE)) is None  # a float bound: not ints


def test_loop_variables_are_renamed_away_from_builtins_and_locals():
    node = ex.parse("[tuple for tuple in x] == [rt + 1 for rt in y]", SCOPE)
    text = ex.to_python(node, {p: p for p in PARAMS})
    assert text == "tuple(tuple_ for tuple_ in x) == tuple(rt_ + 1 for rt_ in y)"
    assert ex.to_doc(node) == "[tuple for tuple in x] == [rt + 1 for rt in y]"
    # A parameter local named like a loop variable, and a module that hides a builtin.
    node = ex.parse("max(v for v in x) > n", SCOPE)
    text = ex.to_python(node, {**{p: p for p in PARAMS}, "n": "v"}, shadowed={"max"})
    assert text == "builtins.max(v_ for v_ in x) > v"


def test_every_runtime_function_the_rendering_calls_exists():
    import generator.runtime as rt

    called = set(
        re.findall(
            r"\brt\.([a-z_0-9]+)\(", " ".join(ex.to_python(parse(e), {p: p for p in PARAMS}) for e in EXPRESSIONS)
        )
    )
    assert {"broadcast_shape", "broadcastable", "f32", "prod", "float_sum", "bounded_range"} <= called
    for name in called | {n for n in ex.FUNCTIONS if n not in ("len", "abs")}:
        assert callable(getattr(rt, name)), name
        assert getattr(rt, name) is getattr(rules, name, getattr(rt, name))


# ---------------------------------------------------------------------------------------------
# The Python rendering and the evaluator agree on random arguments


NODES = [(text, parse(text)) for text in EXPRESSIONS]


def _python_value(node: ex.Node, args: dict):
    code = ex.to_python(node, {p: p for p in PARAMS})
    env = {"rt": rules, "builtins": builtins, **args}  # one namespace: generators see every name
    return eval(compile(code, "<rule>", "eval"), env)  # noqa: S307 - rendered from a parsed rule


def outcome(compute, node: ex.Node) -> str:
    try:
        value = compute()
    except EVALUATION_ERRORS:
        return ERROR
    return encode(value, node.type)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(args=arguments)
def test_python_rendering_agrees_with_the_evaluator(args):
    params = {k: v for k, v in args.items() if k != "product"}
    for text, node in NODES:
        by_python = outcome(lambda node=node: _python_value(node, args), node)
        by_evaluator = outcome(lambda node=node: ex.evaluate(node, params, args["product"]), node)
        assert by_python == by_evaluator, (text, by_python, by_evaluator)


def test_comprehension_reductions_are_lazy():
    """all()/any() of a generator stop at the deciding item: later items cannot fail the rule."""
    node = parse("any(x[v] == 0 for v in range(len(x) + 2) if v >= 0)")
    values = {"x": (0, 1)}
    assert ex.evaluate(node, values, "910b") is True
    assert _python_value(node, {**values, "product": "910b"}) is True
    with pytest.raises(IndexError):
        ex.evaluate(node, {"x": (1, 2)}, "910b")


def test_comprehension_bounds():
    """A comprehension over a range read from the arguments is bounded like a quantifier's."""
    node = parse("[v for v in range(n)]")
    with pytest.raises(ValueError, match="more than 4096 items"):
        ex.evaluate(node, {"n": 10**9}, "910b")
    with pytest.raises(ValueError, match="at most 4096"):
        _python_value(node, {"n": 10**9, "product": "910b"})
    assert len(ex.evaluate(node, {"n": 4096}, "910b")) == 4096


def test_constant_folding_treats_null_tests_and_products_as_arguments():
    assert ex.constant(parse("sum([1, 2, 3])")) == 6
    assert ex.constant(parse("max(v * 2 for v in [1, 5, 3])")) == 10
    assert ex.constant(parse("len(broadcast_shape([2, 1], [3, 1, 4]))")) == 3
    assert ex.constant(parse("len([v for v in [1, 2] if present(w)])")) is None
    assert ex.constant(parse('len([v for v in [1, 2] if product == "910"])')) is None


# ---------------------------------------------------------------------------------------------
# The functions themselves, against NumPy


@settings(max_examples=300, deadline=None)
@given(a=st.lists(st.integers(0, 4), max_size=5), b=st.lists(st.integers(0, 4), max_size=5))
def test_broadcast_shape_is_numpys(a, b):
    try:
        expected = tuple(np.broadcast_shapes(tuple(a), tuple(b)))
    except ValueError:
        expected = None
    assert rules.broadcastable(tuple(a), tuple(b)) == (expected is not None)
    if expected is None:
        with pytest.raises(ValueError, match="do not broadcast"):
            rules.broadcast_shape(tuple(a), tuple(b))
    else:
        assert rules.broadcast_shape(tuple(a), tuple(b)) == expected


def test_broadcast_shape_examples():
    assert rules.broadcast_shape((2, 1, 3), (4, 1)) == (2, 4, 3)
    assert rules.broadcast_shape((), ()) == ()
    assert rules.broadcast_shape((1,), (0,)) == (0,)
    assert rules.broadcast_shape((5, 0), (1,)) == (5, 0)
    assert not rules.broadcastable((2,), (3,))
    assert not rules.broadcastable((0,), (2,))


def test_broadcast_shape_remembers_recent_broadcasts_within_bounds(monkeypatch):
    monkeypatch.setattr(rules, "_BROADCASTS", {})
    monkeypatch.setattr(rules, "_BROADCASTS_MAX", 4)
    first = rules.broadcast_shape((2, 1, 3), (4, 1))
    assert rules._BROADCASTS == {((2, 1, 3), (4, 1)): (2, 4, 3)}
    assert rules.broadcast_shape((2, 1, 3), (4, 1)) is first  # the remembered tuple
    assert rules.broadcast_shape((4, 1), (2, 1, 3)) == (2, 4, 3)  # the other order is its own entry
    for n in range(5, 10):  # a full table starts again: never more than _BROADCASTS_MAX entries
        assert rules.broadcast_shape((n, 1), (1, n)) == (n, n)
        assert len(rules._BROADCASTS) <= 4
    with pytest.raises(ValueError, match="do not broadcast"):  # failures are not remembered
        rules.broadcast_shape((2,), (3,))
    assert ((2,), (3,)) not in rules._BROADCASTS
    long = tuple([1] * 9)
    assert rules.broadcast_shape(long, (1, 3) * 4) == (1,) + (1, 3) * 4  # 17 dimensions: not kept
    assert all(len(a) + len(b) <= 16 for a, b in rules._BROADCASTS)
    assert rules.broadcast_shape([2, 1], (1, 3)) == (2, 3)  # a list is computed, never a key
    with pytest.raises(ValueError, match="do not broadcast"):  # unhashable: the computation judges it
        rules.broadcast_shape((2, [1]), (1, 3))


def _numpy_f32(x) -> float:
    with np.errstate(over="ignore"):
        if isinstance(x, int):
            return float(np.array([x], dtype=np.int64).astype(np.float32)[0])
        return float(np.float32(x))


@settings(max_examples=500, deadline=None)
@given(
    x=st.one_of(
        st.floats(allow_nan=False),
        st.floats(-4e38, 4e38),
        st.integers(-(2**63), 2**63 - 1),
        st.sampled_from([3.4028235677973366e38, 3.4028235677973362e38, -3.4028235677973366e38, 2**24 + 1, 2**53 + 1]),
    )
)
def test_f32_rounds_like_numpy_float32(x):
    assert rules.f32(x) == _numpy_f32(x)
    assert math.copysign(1, rules.f32(x)) == math.copysign(1, _numpy_f32(x))


def test_f32_edges():
    assert math.isnan(rules.f32(math.nan))
    assert rules.f32(True) == 1.0 and rules.f32(False) == 0.0
    assert rules.f32(2**200) == math.inf and rules.f32(-(2**200)) == -math.inf
    assert rules.f32(2**128 - 2**103) == math.inf  # a tie at the top rounds to even: infinity
    assert rules.f32(2**128 - 2**103 - 1) == 3.4028234663852886e38
    assert rules.f32(0.1) == 0.10000000149011612


def test_float_sum_adds_left_to_right():
    assert rules.float_sum([1e16, 1.0, 1.0]) == 1e16  # each 1.0 is lost (Python 3.12's sum() keeps them)
    assert rules.float_sum([]) == 0.0


# ---------------------------------------------------------------------------------------------
# The README documents exactly these functions


def test_readme_documents_every_function_once():
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text.split("**Rule functions**", 1)[1].split("\n\n", 2)[1]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    documented = [re.match(r"\| `([a-z_0-9]+)\(", row).group(1) for row in rows]
    assert sorted(set(documented)) == ex.function_names()


def test_evaluation_sees_tensor_values_like_validators():
    """TensorValue is what lint evaluates over; the validators' TensorDesc has the same attributes."""
    t = TensorValue((2, 3), "FLOAT", "ND")
    node = parse("broadcast_shape(t.shape, [3]) == t.shape and t.numel == prod(t.shape)")
    assert ex.evaluate(node, {"t": t}, "910b") is True
