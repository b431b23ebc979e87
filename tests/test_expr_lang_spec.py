"""A spec whose checks use every function the rule language gained in issue 11
(``tests/fixtures/expr/rule_language_demo.yaml``): it lints, generates (Python, C++, docs), and its
check cases behave in the generated validators and in lint's evaluator: each trigger fails with
exactly its check, each boundary passes."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys

import pytest

from generator import expr as ex
from generator.csamples import INCLUDE_DIR, find_compiler
from generator.evaluate import SpecEvaluator
from generator.generate import render_all
from generator.loader import load_project
from tests.expr_lang_cases import REPO

FIXTURE = REPO / "tests" / "fixtures" / "expr" / "rule_language_demo.yaml"


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    root = tmp_path_factory.mktemp("demo")
    specs = root / "specs"
    shutil.copytree(REPO / "specs" / "catalog", specs / "catalog")
    shutil.copy(FIXTURE, specs / FIXTURE.name)
    project = load_project(specs)  # lint: schema, names, expressions, the example against the checks
    out = root / "out"
    for rel, text in render_all(project).items():
        (out / rel).parent.mkdir(parents=True, exist_ok=True)
        (out / rel).write_text(text, encoding="utf-8")
    return project, out


def _cases(info):
    for check in info.spec.checks:
        if check.cases is None:
            continue
        product = check.cases.product or info.spec.example.product
        yield check, "trigger", check.cases.trigger, product
        yield check, "boundary", check.cases.boundary, product


def test_every_new_function_is_used(demo):
    project, _ = demo
    (info,) = project.ops
    nodes = [n for node in info.exprs.values() for n in ex.walk(node)]
    calls = {n.func for n in nodes if isinstance(n, (ex.Call, ex.Quant))}
    assert {"broadcast_shape", "broadcastable", "f32", "sum", "prod", "min", "max", "all", "any"} <= calls
    comps = [n for n in nodes if isinstance(n, ex.Comp)]
    assert any(c.cond is not None for c in comps) and any(c.cond is None for c in comps)
    assert any(isinstance(c.iterable, ex.ListLit) and c.iterable.type == ex.DTYPES for c in comps)
    assert {n.is_null for n in nodes if isinstance(n, ex.NullTest)} == {True, False}
    assert {n.tag for n in nodes if isinstance(n, ex.ProductTag)} >= {"910", "310p"}
    assert sum(1 for c in info.spec.checks if c.cases is not None) == len(info.spec.checks)


VALIDATE = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
import aclnn
from generator.runtime.examples import arguments

assert aclnn.__file__.startswith(sys.argv[1]), aclnn.__file__
spec = aclnn.spec("RuleLanguageDemo")
verdicts = {}
for check in spec.checks:
    product = check.cases.product or spec.example.product
    for which in ("trigger", "boundary"):
        args = arguments(spec, spec.example, getattr(check.cases, which), with_data=False)
        try:
            aclnn.validate(spec.op, product=product, **args)
            verdicts[f"{check.id}/{which}"] = None
        except aclnn.AclnnError as err:
            verdicts[f"{check.id}/{which}"] = [err.check, err.code]
aclnn.validate(spec.op, product=spec.example.product, **arguments(spec, spec.example, with_data=False))
print(json.dumps(verdicts))
"""


def test_cases_in_the_generated_validators_and_in_lint(demo):
    project, out = demo
    (info,) = project.ops
    proc = subprocess.run([sys.executable, "-c", VALIDATE, str(out)], capture_output=True, text=True, cwd=REPO)
    assert proc.returncode == 0, proc.stderr
    verdicts = json.loads(proc.stdout)
    private = [f.name for f in project.catalog.formats.formats if f.private]
    evaluator = SpecEvaluator(info.spec, info.exprs, project.catalog.product_tags, private)
    codes = {s.name: s.value for s in project.catalog.status_codes.status_codes}
    for check, which, overrides, product in _cases(info):
        key = f"{check.id}/{which}"
        expected = [check.id, codes[check.code]] if which == "trigger" else None
        assert verdicts[key] == expected, key
        values = evaluator.arguments(info.spec.example, overrides, product)
        verdict = evaluator.first_failure(values, product)
        assert (verdict.check_id if verdict else None) == (check.id if which == "trigger" else None), key


def test_the_rules_render_in_the_docs_and_the_python_module(demo):
    _, out = demo
    module = (out / "aclnn" / "ops" / "rule_language_demo.py").read_text(encoding="utf-8")
    squeezed = "".join(module.split())  # the module is formatted: lines may wrap anywhere
    for code in (
        "rt.broadcast_shape(grad_output.shape, self.shape) == grad_input.shape",
        'product not in ("910", "310p") or all(d != "BFLOAT16" for d in (grad_output.dtype, self.dtype) if d != "FLOAT")',
        "len(tuple(d for d in rt.broadcast_shape(grad_output.shape, self.shape) if d == 0)) == 0",
        "not (not output_mask[1] or grad_weight is not None):",
        "rt.f32(alpha.value) >= 0",
    ):
        assert "".join(code.split()) in squeezed, code
    page = (out / "docs" / "en" / "maintainers" / "aclnnRuleLanguageDemo.md").read_text(encoding="utf-8")
    assert "broadcast_shape(gradOutput.shape, self.shape) == gradInput.shape" in page
    assert "not outputMask[1] or gradWeight is not null" in page
    assert "f32(alpha.value) &gt;= 0" in page


def test_the_rules_compile_as_cpp(demo, tmp_path):
    compiler = find_compiler()
    if compiler is None:
        pytest.skip("no C++ compiler")
    project, out = demo
    (info,) = project.ops
    spec = info.spec
    types = {p.name: p.ctype for p in spec.params}
    params = ", ".join(f"{'const aclTensor*' if p.ctype == 'aclTensor*' else p.ctype} {p.name}" for p in spec.params)
    lines = ['#include "opgen/checks.h"', ""]
    results = {ex.BOOL: "bool", ex.INTS: "opgen::IntList", ex.DTYPE: "aclDataType", ex.FORMAT: "aclFormat"}
    for i, (path, node) in enumerate(info.exprs.items()):
        lines.append(f"// {'.'.join(map(str, path))}: {ex.to_doc(node)}")
        lines.append(f"static {results[node.type]} rule_{i}({params}) {{")
        lines += [f"    (void){p.name};" for p in spec.params]
        lines.append(f"    return {ex.to_c(node, types)};")
        lines.append("}")
    lines.append("int main() { return 0; }")
    source = tmp_path / "demo.cpp"
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    cmd = [*compiler.split(), "-std=c++17", "-Wall", "-Wextra", "-Werror", "-Wno-unused-function", "-fsyntax-only"]
    cmd += [f"-I{INCLUDE_DIR}", f"-I{out / 'include'}", str(source)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[:4000]


LOCATED = re.compile(r"^(?P<file>[^:]+\.yaml):(?P<line>\d+):(?P<col>\d+): (?P<path>[^ ]+): (?P<msg>.+)$")


@pytest.mark.parametrize(
    "old, new, message, at",
    [
        (
            'expr: product != "910" or self.rank <= 2',
            'expr: product != "91" or self.rank <= 2',
            "(did you mean 910?)",
            '"91"',
        ),
        (
            "expr: any(outputMask)",
            "expr: anyy(outputMask)",
            "unknown function 'anyy' (did you mean any?); functions: abs,",
            "anyy",
        ),
        ("expr: f32(alpha.value) >= 0", "expr: f32(alpha) >= 0", "f32() argument 1 must be num, got scalar", "alpha)"),
        ("expr: weight is None or", "expr: alpha.value is None or", "p must be a parameter name", "alpha.value is"),
        (
            "expr: sum(d for d in self.shape if d > 1) <= 64",
            "expr: sum(d for d in self.shape if any(e for e in outputMask)) <= 64",
            "cannot be nested",
            "any(e",
        ),
    ],
)
def test_new_errors_are_located_lint_errors(tmp_path, capsys, old, new, message, at):
    from generator.cli import main

    specs = tmp_path / "specs"
    shutil.copytree(REPO / "specs" / "catalog", specs / "catalog")
    text = FIXTURE.read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    text = text.replace(old, new)
    (specs / FIXTURE.name).write_text(text, encoding="utf-8")
    assert main(["lint", str(specs)]) == 1
    lines = [line for line in capsys.readouterr().err.splitlines() if not line.startswith("opgen lint:")]
    (match,) = [m for m in map(LOCATED.match, lines) if m]
    assert message in match["msg"], match["msg"]
    line = text.splitlines()[int(match["line"]) - 1]
    assert line[int(match["col"]) - 1 :].startswith(at), (line, match["col"])
