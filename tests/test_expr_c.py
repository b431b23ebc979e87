"""Rule expressions rendered as C++ (generator.expr.to_c) evaluate like their Python rendering.

Every expression of every spec renders (the host runtime compiles them all in its CheckParams units;
tests/test_cpp_checks.py evaluates them on a shared table). Here a harness evaluates literal expressions
that exercise each helper of opgen/checks.h at its edges (floor division and modulo of negatives and
floats, slices and negative indices, pooling and convolution sizes, promotion, overflow) in C++ and in
Python: the same value, or the same evaluation error with Python's message. ``opgen::PyRepr`` prints
doubles exactly as Python's repr().
"""

from __future__ import annotations

import random
import subprocess
from pathlib import Path

import pytest

from generator import expr as ex
from generator.escape.cpp import string_literal
from generator.hostrt import INTERNAL_INCLUDE, PUBLIC_INCLUDE, find_compiler
from generator.runtime import rules
from generator.runtime.errors import EVALUATION_ERRORS
from tests.hostrt_support import GENERATED, project, toolkit

CXX = find_compiler()
needs_cxx = pytest.mark.skipif(CXX is None, reason="no C++ compiler")
SCOPE = ex.Scope({}, frozenset({"FLOAT", "FLOAT16", "INT32", "BFLOAT16", "UINT16"}), frozenset({"NCHW", "ND"}))

# Literal expressions at the helpers' edges; each evaluates to a bool, an int, a float or an error.
CASES = [
    "7 // 2", "-7 // 2", "7 // -2", "-7 // -2", "7 % 3", "-7 % 3", "7 % -3", "-7 % -3", "7.5 // 2", "-7.5 // 2",
    "7.5 % 2", "-7.5 % 2", "7 / 2", "1 // 0", "1 % 0", "1.0 // 0", "1.0 % 0", "1 / 0", "1.0 / 0",
    "[1, 2, 3][-1]", "[1, 2, 3][3]", "[1, 2, 3][-4]", "len([1, 2, 3][1:])", "[1, 2, 3][-2:] == [2, 3]",
    "[1, 2, 3][:-5] == []", "[1, 2, 3][5:] == []", "len([1, 2, 3][-10:10])", "[True, False][1:] == [False]",
    "pool_out(4, 2, 2, 0, 1, False)", "pool_out(5, 2, 2, 0, 1, True)", "pool_out(5, 3, 2, 1, 1, True)",
    "pool_out(4, 2, 0, 0, 1, False)", "conv_out(7, 3, 2, 1, 1)", "conv_out(7, 3, 0, 1, 1)",
    "ceil_div(7, 2)", "ceil_div(-7, 2)", "ceil_div(7, 0)", "expand([3], 3) == [3, 3, 3]", "expand([1, 2], 5) == [1, 2]",
    "len(expand([3], -2))", "or_default([], [4, 5]) == [4, 5]", "prod([2, 3, 4])", "prod([])",
    "prod([4294967296, 4294967296])", "9223372036854775807 + 1 > 0", "abs(-3)", "abs(-2.5)", "min(3, 2.5)",
    "max(3, 2.5)", "min(2, 2.0)", "sum(v for v in [1, 2, 3])", "sum(v * 0.5 for v in [1, 2, 3])",
    "all(v > 0 for v in [1, 2, 3])", "any(v for v in [False, False])", "all([True, True])", "sum([1, 2])",
    "all(i < 5 for i in range(5))", "sum(i for i in range(2, 5))", "3 in [1, 2, 3]", "2 not in [1, 3]",
    "True + True", "1 < 2.5 < 3", "castable(FLOAT, FLOAT16)", "castable(FLOAT, INT32)", "castable(INT32, FLOAT)",
    "promote(FLOAT16, BFLOAT16) == FLOAT", "promote(UINT16, FLOAT) == FLOAT", "promotable(UINT16, FLOAT)",
    "is_private(NCHW)", "(2 if 1 > 2 else 3.5) == 3.5", "-(3 - 5)", "[1, 2] + [3] == [1, 2, 3]",
    "[1, 0] == [True, False]", "2 in [True, False]", "INT32_MAX + 1 > INT32_MAX",
]  # fmt: skip


def _python(node: ex.Node) -> str:
    try:
        value = eval(ex.to_python(node, {}), {"rt": rules})  # noqa: S307 - our own parsed expression
    except EVALUATION_ERRORS as exc:
        return f"error: {exc}"
    if isinstance(value, bool):
        return "true" if value else "false"
    if node.type == ex.FLOAT:  # min(3, 2.5) is the int 3 in Python: compare the numbers
        return repr(float(value))
    return str(value)


def _print(node: ex.Node) -> str:
    value = ex.to_c(node, {})
    if node.type == ex.BOOL:
        return f'std::printf("%s\\n", ({value}) ? "true" : "false");'
    if node.type == ex.FLOAT:
        return f'std::printf("%s\\n", opgen::PyRepr({value}).c_str());'
    return f'std::printf("%lld\\n", static_cast<long long>({value}));'


def test_every_spec_expression_renders():
    count = 0
    for info in project().ops:
        types = {p.name: p.ctype for p in info.spec.params}
        for node in info.exprs.values():
            assert ex.to_c(node, types)
            count += 1
    assert count > 100


def test_c_rendering_examples():
    scope = ex.Scope({"k": ex.INTS, "t": ex.TENSOR, "a": ex.SCALAR}, frozenset({"FLOAT"}), frozenset({"NCHW"}))
    render = lambda text: ex.to_c(ex.parse(text, scope), {"k": "const aclIntArray*"})  # noqa: E731
    assert render("len(k) in [1, 2]") == "opgen::Contains(std::vector<int64_t>{1, 2}, opgen::Len(opgen::Ints(k)))"
    assert render("t.rank // 2 == -1") == "opgen::FloorDiv(opgen::Rank(t), 2) == -1"
    assert render("t.dtype == FLOAT and t.format != NCHW") == (
        'opgen::DataType(t) == opgen::DtypeNamed("FLOAT") && opgen::Format(t) != opgen::FormatNamed("NCHW")'
    )
    assert render("all(v > 0 for v in k)") == "opgen::All(opgen::Ints(k), [&](int64_t q_v) { return q_v > 0; })"
    assert render("t.rank + 1 > 2") == "opgen::Add(opgen::Rank(t), 1) > 2"
    assert render("a.value * 2.5 > 1") == "opgen::ScalarValue(a) * 2.5 > 1"
    assert render("t.shape == k") == "opgen::ListEq(opgen::Shape(t), opgen::Ints(k))"
    renamed = ex.to_c(ex.parse("len(k) > 0", scope), {"k": "const aclIntArray*"}, {"k": "arg_k"})
    assert renamed == "opgen::Len(opgen::Ints(arg_k)) > 0"


def test_constants_beyond_int64_are_refused():
    node = ex.Const(2**63, type=ex.INT)
    with pytest.raises(ValueError, match="does not fit int64_t"):
        ex.to_c(node, {})
    assert ex.to_c(ex.Const(-(2**63), type=ex.INT), {}) == "(-INT64_C(9223372036854775807) - 1)"
    assert ex.to_c(ex.Const(float("inf"), type=ex.FLOAT), {}) == "std::numeric_limits<double>::infinity()"


def _run(tmp_path: Path, body: list[str], stdin: str = "") -> list[str]:
    tk = toolkit()
    source = tmp_path / "harness.cpp"
    lines = ["#include <cstdio>", "#include <cstdlib>", '#include "opgen/checks.h"', '#include "opgen/hostrt.h"', "",
             "int main()", "{"]  # fmt: skip
    lines += [f"    {line}" for line in body] + ["    return 0;", "}"]
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    exe = tmp_path / "harness"
    includes = [f"-I{d}" for d in (PUBLIC_INCLUDE, INTERNAL_INCLUDE, GENERATED / "include", GENERATED)]
    cmd = [*CXX.split(), "-std=c++17", "-Wall", "-Wextra", "-Werror", *includes, str(source),
           f"-L{tk.lib64}", "-lnnopbase", "-lascendcl", f"-Wl,-rpath,{tk.lib64}", "-o", str(exe)]  # fmt: skip
    build = subprocess.run(cmd, capture_output=True, text=True)
    assert build.returncode == 0, build.stderr[:4000]
    run = subprocess.run([str(exe)], input=stdin, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    return run.stdout.splitlines()


@needs_cxx
def test_cpp_helpers_evaluate_like_python(tmp_path):
    nodes = [ex.parse(text, SCOPE, None) for text in CASES]
    body = []
    for node in nodes:
        body += [
            "try {",
            f"    {_print(node)}",
            "} catch (const opgen::EvaluationError& e) {",
            '    std::printf("error: %s\\n", e.what());',
            "}",
        ]
    got = _run(tmp_path, body)
    want = [_python(node) for node in nodes]
    differ = [(text, w, g) for text, w, g in zip(CASES, want, got, strict=True) if w != g]
    # Python's integers do not overflow; the C++ helpers report it instead of wrapping around.
    assert differ == [
        ("prod([4294967296, 4294967296])", "18446744073709551616", "error: integer overflow"),
        ("9223372036854775807 + 1 > 0", "true", "error: integer overflow"),
    ]
    assert any(w.startswith("error: ") for w in want) and any(w == "true" for w in want)


@needs_cxx
def test_py_repr_matches_python(tmp_path):
    rng = random.Random(11)
    values = [0.0, -0.0, 1.0, -2.5, 0.1, 1e-05, 1e-4, 1e16, 1e15, 123456789.0, 5e-324, 1.7976931348623157e308,
              float("inf"), float("-inf"), float("nan"), 2.0**-1074, 0.30000000000000004]  # fmt: skip
    values += [rng.uniform(-1e6, 1e6) for _ in range(200)]
    values += [rng.choice([-1, 1]) * 10 ** rng.uniform(-320, 308) for _ in range(300)]
    values += [float(f"{rng.randint(1, 999)}e{rng.randint(-30, 30)}") for _ in range(200)]
    got = _run(
        tmp_path,
        [
            "double v = 0;",
            'while (std::scanf("%lf", &v) == 1) {',
            '    std::printf("%s\\n", opgen::PyRepr(v).c_str());',
            "}",
        ],  # fmt: skip
        "\n".join(v.hex() if v == v and abs(v) != float("inf") else repr(v) for v in values),
    )
    assert got == [repr(v) for v in values]


def test_string_literals_round_trip_through_the_compiler(tmp_path):
    if CXX is None:
        pytest.skip("no C++ compiler")
    texts = ['a"b\\c', "??/ trigraph ??=", "line\nbreak\r\0nul", "\u202e bidi \u2028 sep", "中文 ok", "\x1b[0m %s %n"]
    source = tmp_path / "lit.cpp"
    lines = ["#include <cstdio>", "int main()", "{"]
    for text in texts:
        literal = string_literal(text)
        lines.append(f"    std::fwrite({literal}, 1, sizeof({literal}) - 1, stdout);")
        lines.append('    std::fputs("\\n--\\n", stdout);')
    lines += ["    return 0;", "}"]
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    for std in ("c++11", "c++17"):
        exe = tmp_path / f"lit-{std}"
        build = subprocess.run([*CXX.split(), f"-std={std}", "-Wall", "-Wextra", "-Werror", str(source), "-o", str(exe)],
                               capture_output=True, text=True)  # fmt: skip
        assert build.returncode == 0, build.stderr
        out = subprocess.run([str(exe)], capture_output=True).stdout.decode("utf-8")
        assert out.split("\n--\n")[:-1] == texts
