"""Every rule expression of every spec renders as C++ that compiles against opgen/checks.h.

Each expression becomes a function over the op's C parameters; the whole file is compiled with
-std=c++17 -Wall -Wextra -Werror -fsyntax-only (the helpers' accessors are only declared).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from generator import expr as ex
from generator.csamples import INCLUDE_DIR, find_compiler
from generator.generate import render_all
from generator.loader import load_project

REPO = Path(__file__).resolve().parents[1]
PROJECT = load_project(REPO / "specs")
C_TYPES = {"aclTensor*": "const aclTensor*"}


def _c_param(ctype: str, name: str) -> str:
    return f"{C_TYPES.get(ctype, ctype)} {name}"


def _translation_unit() -> tuple[str, int]:
    lines = ['#include "opgen/checks.h"', ""]
    count = 0
    for info in PROJECT.ops:
        spec = info.spec
        params = ", ".join(_c_param(p.ctype, p.name) for p in spec.params)
        types = {p.name: p.ctype for p in spec.params}
        for path, node in info.exprs.items():
            if node.type not in (ex.BOOL, ex.INT, ex.INTS, ex.DTYPE, ex.FORMAT, ex.FLOAT):
                continue
            result = {ex.BOOL: "bool", ex.INT: "int64_t", ex.INTS: "opgen::IntList", ex.FLOAT: "double"}.get(
                node.type, "aclDataType" if node.type == ex.DTYPE else "aclFormat"
            )
            count += 1
            name = f"{spec.snake}_{count}"
            lines.append(f"// {spec.name} {'.'.join(map(str, path))}: {ex.to_doc(node)}")
            lines.append(f"[[maybe_unused]] static {result} {name}({params}) {{")
            for p in spec.params:
                lines.append(f"  (void){p.name};")
            lines.append(f"  return {ex.to_c(node, types)};")
            lines.append("}")
    return "\n".join(lines) + "\n", count


def test_every_rule_renders_as_compilable_cpp(tmp_path):
    compiler = find_compiler()
    if compiler is None:
        pytest.skip("no C++ compiler")
    import subprocess

    generated = tmp_path / "generated"
    for rel, text in render_all(PROJECT, only="cpp").items():
        (generated / rel).parent.mkdir(parents=True, exist_ok=True)
        (generated / rel).write_text(text)
    source, count = _translation_unit()
    assert count > 100  # the five specs hold well over a hundred expressions
    path = tmp_path / "rules.cpp"
    path.write_text(source)
    cmd = [compiler, "-std=c++17", "-Wall", "-Wextra", "-Werror", "-fsyntax-only"]
    cmd += [f"-I{INCLUDE_DIR}", f"-I{generated / 'include'}", str(path)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[:4000]


def test_c_rendering_examples():
    scope = ex.Scope({"k": ex.INTS, "t": ex.TENSOR, "a": ex.SCALAR}, frozenset({"FLOAT"}), frozenset({"NCHW"}))
    render = lambda text: ex.to_c(ex.parse(text, scope), {"k": "const aclIntArray*"})  # noqa: E731
    assert render("len(k) in [1, 2]") == "opgen::Contains(std::vector<int64_t>{1, 2}, opgen::Len(opgen::Ints(k)))"
    assert render("t.rank // 2 == -1") == "opgen::FloorDiv(opgen::Rank(t), 2) == -1"
    assert render("t.dtype == FLOAT and t.format != NCHW") == (
        "opgen::DataType(t) == opgen::dtype::FLOAT && opgen::Format(t) != opgen::format::NCHW"
    )
    assert render("all(v > 0 for v in k)") == "opgen::All(opgen::Ints(k), [&](int64_t v) { return v > 0; })"
