"""The C++ side of the rule language's list and product functions, compiled and run.

1. ``opgen/rule_functions.h`` alone compiles as C++11 with -Wall -Wextra -Werror -pedantic, and its
   helpers (broadcasting, f32, reductions) compute what ``generator/runtime/rules.py`` and Python's
   builtins compute, on random values.
2. Every expression of ``tests/expr_lang_cases.py`` rendered by ``generator.expr.to_c`` compiles
   against ``opgen/checks.h`` and, run on random arguments, gives what the evaluator (and so the
   Python rendering, see test_expr_lang.py) gives, errors included.
"""

from __future__ import annotations

import math
import re
import subprocess

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generator import expr as ex
from generator.csamples import INCLUDE_DIR, find_compiler
from generator.evaluate import EVALUATION_ERRORS
from generator.runtime import rules
from tests.expr_lang_cases import (
    C_TYPES,
    CATALOG,
    DTYPE_VALUES,
    ERROR,
    EXPRESSIONS,
    FORMAT_VALUES,
    PARAMS,
    REPO,
    arguments,
    encode,
    parse,
)

COMPILER = find_compiler()
pytestmark = pytest.mark.skipif(COMPILER is None, reason="no C++ compiler")
WARNINGS = ["-Wall", "-Wextra", "-Werror"]
GENERATED_INCLUDE = REPO / "generated" / "include"  # opgen/catalog.h (committed, kept current)
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


def _compile(tmp_path, name: str, source: str, std: str, extra=()) -> str:
    path = tmp_path / f"{name}.cpp"
    path.write_text(source, encoding="utf-8")
    binary = tmp_path / name
    cmd = [*COMPILER.split(), f"-std={std}", *WARNINGS, *extra, f"-I{INCLUDE_DIR}", f"-I{GENERATED_INCLUDE}"]
    proc = subprocess.run([*cmd, str(path), "-o", str(binary)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[:6000]
    return str(binary)


def _run(binary: str, text: str) -> list[str]:
    proc = subprocess.run([binary], input=text, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.splitlines()


def _canon(text: str) -> str:
    """Floats as Python's repr (C++ prints %.17g): f1.5000000000000000 -> f1.5, f-nan -> fnan."""

    def token(match: re.Match) -> str:
        value = float(match.group(1))
        return "fnan" if math.isnan(value) else f"f{value!r}"

    return re.sub(r"(?<![a-z0-9_])f(-?inf|-?nan|[-+0-9.eE]+)", token, text)


def _hex(value: float) -> str:
    return float(value).hex() if math.isfinite(value) else repr(float(value))


# ---------------------------------------------------------------------------------------------
# 1. rule_functions.h alone, as C++11

HELPERS_DRIVER = r"""
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

namespace opgen {
class EvaluationError : public std::runtime_error {
public:
    explicit EvaluationError(const std::string& message) : std::runtime_error(message) {}
};
}  // namespace opgen

#include "opgen/rule_functions.h"

static std::string F(double v)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "f%.17g", v);
    return buf;
}

static std::string I(int64_t v)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "i%lld", static_cast<long long>(v));
    return buf;
}

static std::string B(bool v)
{
    return v ? "b1" : "b0";
}

template <class T>
static std::vector<T> ReadList()
{
    size_t n = 0;
    std::cin >> n;
    std::vector<T> out;
    for (size_t i = 0; i < n; ++i) {
        std::string token;
        std::cin >> token;
        out.push_back(static_cast<T>(std::strtod(token.c_str(), NULL)));
    }
    return out;
}

static std::vector<int64_t> ReadInts()
{
    size_t n = 0;
    std::cin >> n;
    std::vector<int64_t> out;
    for (size_t i = 0; i < n; ++i) {
        long long v = 0;
        std::cin >> v;
        out.push_back(v);
    }
    return out;
}

#define TRY(expr) try { std::cout << (expr); } catch (const opgen::EvaluationError&) { std::cout << "E"; }

template <class T, class Show>
static void Reduce(const std::vector<T>& v, Show show)
{
    TRY(show(opgen::SumOf(v))) std::cout << " ";
    TRY(show(opgen::ProdOf(v))) std::cout << " ";
    TRY(show(opgen::MinOf(v))) std::cout << " ";
    TRY(show(opgen::MaxOf(v))) std::cout << "\n";
}

int main()
{
    std::string op;
    while (std::cin >> op) {
        if (op == "B") {
            std::vector<int64_t> a = ReadInts(), b = ReadInts();
            std::cout << B(opgen::Broadcastable(a, b)) << " ";
            try {
                std::vector<int64_t> out = opgen::BroadcastShape(a, b);
                std::cout << "[";
                for (size_t i = 0; i < out.size(); ++i) std::cout << (i ? "," : "") << I(out[i]);
                std::cout << "]\n";
            } catch (const opgen::EvaluationError&) {
                std::cout << "E\n";
            }
        } else if (op == "F") {
            std::string token;
            std::cin >> token;
            std::cout << F(opgen::F32(std::strtod(token.c_str(), NULL))) << "\n";
        } else if (op == "I") {
            long long v = 0;
            std::cin >> v;
            std::cout << F(opgen::F32(static_cast<int64_t>(v))) << " " << F(opgen::F32(static_cast<int>(v % 1000)))
                      << "\n";
        } else if (op == "SI") {
            Reduce(ReadInts(), I);
        } else if (op == "SF") {
            Reduce(ReadList<double>(), F);
        } else if (op == "SB") {
            std::vector<bool> v = ReadList<bool>();
            std::cout << B(opgen::AllOf(v)) << " " << B(opgen::AnyOf(v)) << " ";
            Reduce(v, [](int64_t x) { return I(x); });
        }
    }
    return 0;
}
"""


@pytest.fixture(scope="module")
def helpers(tmp_path_factory) -> str:
    return _compile(tmp_path_factory.mktemp("helpers"), "helpers", HELPERS_DRIVER, "c++11", ["-pedantic"])


def _checked(values, start, step):
    """Left-to-right int64 accumulation; None on overflow (where C++ throws and Python grows)."""
    total = start
    for v in values:
        total = step(total, int(v))
        if not INT64_MIN <= total <= INT64_MAX:
            return None
    return total


def _py_reductions(values, kind: str) -> str:
    show = (lambda v: encode(v, ex.FLOAT)) if kind == "F" else (lambda v: encode(v, ex.INT))
    if kind == "F":
        total, product = rules.float_sum(values), rules.prod(values)
        out = [show(total), show(product)]
    else:
        total, product = _checked(values, 0, int.__add__), _checked(values, 1, int.__mul__)
        out = [ERROR if total is None else show(total), ERROR if product is None else show(product)]
    for func in (min, max):
        out.append(show(func(values)) if values else ERROR)
    return " ".join(out)


int64s = st.one_of(
    st.integers(-5, 5), st.integers(INT64_MIN, INT64_MAX), st.sampled_from([INT64_MAX, INT64_MIN, 2**32])
)
doubles = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([3.4028235677973366e38, 3.4028235677973362e38, -3.4028235677973366e38, 1e-46, -0.0]),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    shapes=st.lists(
        st.tuples(st.lists(st.integers(0, 3), max_size=4), st.lists(st.integers(0, 3), max_size=4)), max_size=8
    ),
    floats=st.lists(doubles, max_size=8),
    ints=st.lists(int64s, max_size=8),
    int_lists=st.lists(st.lists(int64s, max_size=5), max_size=4),
    float_lists=st.lists(st.lists(doubles, max_size=5), max_size=4),
    bool_lists=st.lists(st.lists(st.booleans(), max_size=5), max_size=4),
)
def test_helpers_compute_what_python_computes(helpers, shapes, floats, ints, int_lists, float_lists, bool_lists):
    lines, expected = [], []
    for a, b in shapes:
        lines.append(f"B {len(a)} {' '.join(map(str, a))} {len(b)} {' '.join(map(str, b))}")
        try:
            shape = encode(rules.broadcast_shape(tuple(a), tuple(b)), ex.INTS)
        except ValueError:
            shape = ERROR
        expected.append(f"{encode(rules.broadcastable(tuple(a), tuple(b)), ex.BOOL)} {shape}")
    for x in floats:
        lines.append(f"F {_hex(x)}")
        expected.append(encode(rules.f32(x), ex.FLOAT))
    for x in ints:
        lines.append(f"I {x}")
        small = (abs(x) % 1000) * (1 if x >= 0 else -1)  # C++'s % truncates
        expected.append(f"{encode(rules.f32(x), ex.FLOAT)} {encode(rules.f32(small), ex.FLOAT)}")
    for values in int_lists:
        lines.append(f"SI {len(values)} {' '.join(map(str, values))}")
        expected.append(_py_reductions(values, "I"))
    for values in float_lists:
        lines.append(f"SF {len(values)} {' '.join(_hex(v) for v in values)}")
        expected.append(_py_reductions(values, "F"))
    for values in bool_lists:
        lines.append(f"SB {len(values)} {' '.join('1' if v else '0' for v in values)}")
        head = f"{encode(all(values), ex.BOOL)} {encode(any(values), ex.BOOL)} "
        expected.append(head + _py_reductions([int(v) for v in values], "I"))
    got = _run(helpers, "\n".join(lines) + "\n")
    assert [_canon(line) for line in got] == [_canon(line) for line in expected]


# ---------------------------------------------------------------------------------------------
# 2. Rendered expressions, compiled against opgen/checks.h and run

ACCESSORS = r"""
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "opgen/checks.h"

struct aclTensor {
    std::vector<int64_t> shape;
    aclDataType dtype;
    aclFormat format;
};
struct aclScalar {
    double value;
    aclDataType dtype;
};
struct aclIntArray {
    std::vector<int64_t> values;
};
struct aclBoolArray {
    std::vector<bool> values;
};

static std::string g_product;

namespace opgen {
IntList Shape(const aclTensor* tensor) { return tensor->shape; }
int64_t Rank(const aclTensor* tensor) { return static_cast<int64_t>(tensor->shape.size()); }
aclDataType DataType(const aclTensor* tensor) { return tensor->dtype; }
aclFormat Format(const aclTensor* tensor) { return tensor->format; }
int64_t Numel(const aclTensor* tensor)
{
    int64_t n = 1;
    for (size_t i = 0; i < tensor->shape.size(); ++i) n *= tensor->shape[i];
    return n;
}
bool IsEmpty(const aclTensor* tensor) { return Numel(tensor) == 0; }
double ScalarValue(const aclScalar* scalar) { return scalar->value; }
aclDataType DataType(const aclScalar* scalar) { return scalar->dtype; }
IntList Ints(const aclIntArray* array) { return array->values; }
BoolList Bools(const aclBoolArray* array) { return array->values; }
std::string CurrentProduct() { return g_product; }
aclDataType DtypeNamed(const char* name)
{
%(dtype_named)s
    std::abort();
}
aclFormat FormatNamed(const char* name)
{
%(format_named)s
    std::abort();
}
}  // namespace opgen

static std::string Enc(bool v) { return v ? "b1" : "b0"; }
static std::string Enc(int64_t v)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "i%%lld", static_cast<long long>(v));
    return buf;
}
static std::string Enc(double v)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "f%%.17g", v);
    return buf;
}
static std::string Enc(aclDataType v) { return "d" + std::to_string(static_cast<int>(v)); }
static std::string Enc(aclFormat v) { return "r" + std::to_string(static_cast<int>(v)); }
static std::string Enc(const std::string& v) { return "p" + v; }
template <class T>
static std::string Enc(const std::vector<T>& values)
{
    std::string out = "[";
    for (size_t i = 0; i < values.size(); ++i) out += (i ? "," : "") + Enc(static_cast<T>(values[i]));
    return out + "]";
}

static std::vector<int64_t> ReadInts()
{
    size_t n = 0;
    std::cin >> n;
    std::vector<int64_t> out(n);
    for (size_t i = 0; i < n; ++i) {
        long long v = 0;
        std::cin >> v;
        out[i] = v;
    }
    return out;
}

static double ReadDouble()
{
    std::string token;
    std::cin >> token;
    return std::strtod(token.c_str(), NULL);
}

static aclTensor ReadTensor()
{
    aclTensor t;
    t.shape = ReadInts();
    int dtype = 0, format = 0;
    std::cin >> dtype >> format;
    t.dtype = static_cast<aclDataType>(dtype);
    t.format = static_cast<aclFormat>(format);
    return t;
}
"""


def _c_result(type_: str) -> str:
    items = {ex.INT: "int64_t", ex.BOOL: "bool", ex.FLOAT: "double", ex.DTYPE: "aclDataType"}
    items.update({ex.FORMAT: "aclFormat", ex.PRODUCT: "std::string"})
    if type_ in ex.ELEMENTS:
        return f"std::vector<{items[ex.ELEMENTS[type_]]}>"
    return items[type_]


def _expressions_source() -> str:
    named = "\n".join(f'    if (std::strcmp(name, "{d.name}") == 0) return {d.acl};' for d in CATALOG.dtypes.dtypes)
    formats = "\n".join(f'    if (std::strcmp(name, "{f.name}") == 0) return {f.acl};' for f in CATALOG.formats.formats)
    lines = [ACCESSORS % {"dtype_named": named, "format_named": formats}]
    signature = ", ".join(f"{C_TYPES[p]} {p}" for p in PARAMS)
    calls = []
    for i, text in enumerate(EXPRESSIONS):
        node = parse(text)
        lines.append(f"// {text}")
        lines.append(f"static {_c_result(node.type)} rule_{i}({signature})")
        lines.append("{")
        lines += [f"    (void){p};" for p in PARAMS]
        lines.append(f"    return {ex.to_c(node, C_TYPES)};")
        lines.append("}")
        calls.append(
            f"    try {{ std::cout << Enc(rule_{i}({', '.join(PARAMS)})); }}"
            ' catch (const std::exception&) { std::cout << "E"; }\n    std::cout << "\\n";'
        )
    lines.append(
        """
int main()
{
    std::cin >> g_product;
    aclTensor t_value = ReadTensor();
    int has_w = 0;
    std::cin >> has_w;
    aclTensor w_value;
    if (has_w) w_value = ReadTensor();
    aclIntArray x_value, y_value;
    x_value.values = ReadInts();
    y_value.values = ReadInts();
    aclBoolArray m_value;
    std::vector<int64_t> bits = ReadInts();
    for (size_t i = 0; i < bits.size(); ++i) m_value.values.push_back(bits[i] != 0);
    long long n_value = 0;
    std::cin >> n_value;
    double f = ReadDouble();
    aclScalar a_value;
    a_value.value = ReadDouble();
    int a_dtype = 0;
    std::cin >> a_dtype;
    a_value.dtype = static_cast<aclDataType>(a_dtype);
    const aclTensor* t = &t_value;
    const aclTensor* w = has_w ? &w_value : NULL;
    const aclIntArray* x = &x_value;
    const aclIntArray* y = &y_value;
    const aclBoolArray* m = &m_value;
    const int64_t n = n_value;
    const aclScalar* a = &a_value;
"""
        + "\n".join(calls)
        + "\n    return 0;\n}\n"
    )
    return "\n".join(lines)


def _standard(tmp_path) -> str:
    """C++11 when opgen/checks.h compiles as C++11 (the target), else the C++17 it still needs."""
    probe = tmp_path / "probe.cpp"
    probe.write_text('#include "opgen/checks.h"\nint main() { return 0; }\n', encoding="utf-8")
    cmd = [*COMPILER.split(), "-std=c++11", "-fsyntax-only", f"-I{INCLUDE_DIR}", f"-I{GENERATED_INCLUDE}", str(probe)]
    return "c++11" if subprocess.run(cmd, capture_output=True).returncode == 0 else "c++17"


@pytest.fixture(scope="module")
def rules_binary(tmp_path_factory) -> str:
    tmp = tmp_path_factory.mktemp("rules")
    return _compile(tmp, "rules", _expressions_source(), _standard(tmp))


def _tensor_text(t) -> str:
    return f"{len(t.shape)} {' '.join(map(str, t.shape))} {DTYPE_VALUES[t.dtype]} {FORMAT_VALUES[t.format]}"


def _input(args: dict) -> str:
    ints = lambda values: f"{len(values)} {' '.join(str(int(v)) for v in values)}"  # noqa: E731
    w = args["w"]
    return (
        "\n".join(
            [
                args["product"],
                _tensor_text(args["t"]),
                "0" if w is None else f"1 {_tensor_text(w)}",
                ints(args["x"]),
                ints(args["y"]),
                ints(args["m"]),
                str(args["n"]),
                _hex(args["f"]),
                f"{_hex(args['a'].value)} {DTYPE_VALUES[args['a'].dtype]}",
            ]
        )
        + "\n"
    )


NODES = [(text, parse(text)) for text in EXPRESSIONS]


def _expected(args: dict) -> list[str]:
    params = {k: v for k, v in args.items() if k != "product"}
    out = []
    for _, node in NODES:
        try:
            out.append(encode(ex.evaluate(node, params, args["product"]), node.type))
        except EVALUATION_ERRORS:
            out.append(ERROR)
    return out


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(args=arguments)
def test_rendered_rules_compute_what_the_evaluator_computes(rules_binary, args):
    got = [_canon(line) for line in _run(rules_binary, _input(args))]
    expected = [_canon(line) for line in _expected(args)]
    assert len(got) == len(EXPRESSIONS)
    for text, g, e in zip(EXPRESSIONS, got, expected):
        assert g == e, (text, g, e)


def test_c_renderings():
    """The C++ shapes of the new constructs (parts that do not depend on how opgen/checks.h spells
    arithmetic, list equality, dtype names or loop variables)."""
    render = lambda text: ex.to_c(parse(text), C_TYPES)  # noqa: E731
    v = getattr(ex.CRenderer(C_TYPES), "var_prefix", "") + "v"  # the C++ name of loop variable v
    d = v[:-1] + "d"
    assert "opgen::BroadcastShape(opgen::Ints(x), opgen::Ints(y))" in render("broadcast_shape(x, y) == t.shape")
    assert render("broadcastable(x, y)") == "opgen::Broadcastable(opgen::Ints(x), opgen::Ints(y))"
    assert render("[v * 2 for v in x if v > 0]").startswith(
        f"opgen::FilterMap<int64_t>(opgen::Ints(x), [&](int64_t {v}) {{ return {v} > 0; }}, [&](int64_t {v}) {{ return "
    )
    assert render("[f32(v) for v in x]") == (
        f"opgen::MapList<double>(opgen::Ints(x), [&](int64_t {v}) {{ return opgen::F32({v}); }})"
    )
    assert render("all(d != FLOAT for d in [t.dtype, a.dtype])").startswith(
        f"opgen::AllOf(std::vector<aclDataType>{{opgen::DataType(t), opgen::DataType(a)}}, [&](aclDataType {d}) {{ return {d} != "
    )
    assert render("any(v for v in m if v)") == (
        f"opgen::AnyOf(opgen::Bools(m), [&](bool {v}) {{ return {v}; }}, [&](bool {v}) {{ return {v}; }})"
    )
    assert (
        render("[t.format for v in m]")
        == "opgen::MapList<aclFormat>(opgen::Bools(m), [&](bool) { return opgen::Format(t); })"
    )
    text = render("sum(m) + prod(x) > min(x)")
    assert all(
        part in text
        for part in ("opgen::SumOf(opgen::Bools(m))", "opgen::Prod(opgen::Ints(x))", "opgen::MinOf(opgen::Ints(x))")
    )
    assert (
        render("max(v for v in x)")
        == f"opgen::MaxOf(opgen::MapList<int64_t>(opgen::Ints(x), [&](int64_t {v}) {{ return {v}; }}))"
    )
    assert render('product in ["910", "310p"]') == (
        'opgen::Contains(std::vector<std::string>{std::string("910"), std::string("310p")}, opgen::CurrentProduct())'
    )
    assert render('product == "950"') == 'opgen::CurrentProduct() == std::string("950")'
    assert render("not m[1] or present(w)").endswith(" || w != nullptr")
    assert render("not (w is None)") == "!(w == nullptr)"
    assert render("f32(a.value) < 0") == "opgen::F32(opgen::ScalarValue(a)) < 0"
