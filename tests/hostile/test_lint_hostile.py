"""Specs that used to pass lint and then broke generation, a validator or ``aclnn.spec``: each is now
a lint error at FILE:LINE:COL naming the field (issue 9, items 6, 7 and the minor ones)."""

from __future__ import annotations

import re
import shutil
import time
from pathlib import Path

import pytest

from generator.cli import main
from generator.diagnostics import SpecError
from generator.loader import load_project
from tests.hostile.trees import REPO, spec_tree_utf8

ELU = (REPO / "specs" / "elu_backward.yaml").read_text(encoding="utf-8")
LOCATED = re.compile(r"^(?P<file>[^:]+\.yaml):(?P<line>\d+):(?P<col>\d+):(?: (?P<path>[^ ]+):)? (?P<msg>.+)$")
ALPHA_RULE = "expr: not (isResult and alpha.value < 0)"
EXAMPLE_ALPHA = "    alpha: {value: 1.0, dtype: FLOAT}\n"
EXAMPLE_GRAD = "    gradOutput: {shape: [2, 2], dtype: FLOAT, data: [-2, -1, 0, 1]}\n"
ALPHA_TRIGGER = "      trigger: {alpha: {value: -1.0e-45, dtype: DOUBLE}}\n"


def _replace(old: str, new: str, text: str = ELU) -> str:
    assert text.count(old) == 1, old
    return text.replace(old, new)


def _rule(expr: str) -> str:
    return _replace(ALPHA_RULE, f"expr: {expr}")


def _rename(old: str, new: str) -> str:
    return re.sub(rf"\b{old}\b(?!-)", new, ELU)  # not inside check ids (alpha-non-negative)


def _as_op(name: str, snake: str) -> tuple[str, str]:
    text = ELU.replace("name: aclnnEluBackward", f"name: {name}").replace("snake: elu_backward", f"snake: {snake}")
    text = text.replace("header: aclnnop/aclnn_elu_backward.h", f"header: aclnnop/aclnn_{snake}.h")
    return text, f"{snake}.yaml"


def _line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


# (id, spec text, file name, message substring, field path, line needle or None)
CASES = [
    # 7: non-finite numbers in the example
    ("nan-scalar", _replace(EXAMPLE_ALPHA, "    alpha: {value: .nan, dtype: FLOAT}\n"), None, "finite number", "example.inputs.alpha.value", "value: .nan"),
    ("inf-data", _replace(EXAMPLE_GRAD, "    gradOutput: {shape: [2, 2], dtype: FLOAT, data: [-2, -1, .inf, 1]}\n"), None, "finite number", "example.inputs.gradOutput.data[2]", ".inf"),
    ("inf-rtol", ELU + "  tolerance: {rtol: .inf, atol: 1.0e-5}\n", None, "finite number", "example.tolerance.rtol", "rtol: .inf"),
    ("nan-atol", ELU + "  tolerance: {rtol: 1.0e-5, atol: .nan}\n", None, "finite number", "example.tolerance.atol", "atol: .nan"),
    ("negative-rtol", ELU + "  tolerance: {rtol: -1.0, atol: 1.0e-5}\n", None, "greater than or equal to 0", "example.tolerance.rtol", "rtol: -1.0"),
    # 6: literals that cannot be rendered
    ("inf-literal", _rule("not (isResult and alpha.value < 1e999)"), None, "out of range (it would be infinite)", "checks[7].expr", "1e999"),
    ("int64-overflow", _rule("not (isResult and alpha.value < 99999999999999999999)"), None, "does not fit int64", "checks[7].expr", "9999"),
    # size limits (RecursionError before)
    ("5000-not", _rule("not " * 5000 + "isResult"), None, "too long", "checks[7].expr", None),
    ("10k-sum", _rule(" + ".join(["1"] * 10000) + " > 0"), None, "too long", "checks[7].expr", None),
    ("deep-not", _rule("not " * 300 + "isResult"), None, "nested too deeply", "checks[7].expr", None),
    ("deep-parens", _rule("(" * 300 + "isResult" + ")" * 300), None, "in expression", "checks[7].expr", None),
    ("deep-minus", _rule("-" * 1500 + "1 < 0"), None, "nested too deeply", "checks[7].expr", None),
    ("carriage-return", _rule('"isResult\\r or isResult"'), None, "one line", "checks[7].expr", None),
    ("nul", _rule('"isResult\\0"'), None, "in expression", "checks[7].expr", None),
    # unbounded iteration or expansion
    ("range-int64-max", _rule("all(v >= 0 for v in range(INT64_MAX))"), None, "range() may span", "checks[7].expr", None),
    ("range-folded", _rule("all(v >= 0 for v in range(INT32_MAX * 2))"), None, "range() may span", "checks[7].expr", None),
    ("range-negative-start", _rule("all(v >= 0 for v in range(-INT64_MAX, gradOutput.rank))"), None, "range() may span", "checks[7].expr", None),
    ("expand-int64-max", _rule("len(expand([1], INT64_MAX)) > 0"), None, "expand() may build", "checks[7].expr", None),
    ("nested-quantifiers", _rule("all(all(a >= b for b in gradOutput.shape) for a in gradOutput.shape)"), None, "cannot be nested", "checks[7].expr", None),
    # loop variables
    ("var-shadows-param", _rule("all(gradOutput >= 0 for gradOutput in [1])"), None, "shadows a parameter", "checks[7].expr", None),
    ("var-shadows-dtype", _rule("all(FLOAT >= 0 for FLOAT in [1])"), None, "shadows a dtype", "checks[7].expr", None),
    ("var-shadows-product", _rule("all(product >= 0 for product in [1])"), None, "name of the rule language", "checks[7].expr", None),
    ("var-cpp-keyword", _rule("all(new >= 0 for new in [1])"), None, "C++ keyword", "checks[7].expr", None),
    ("var-non-ascii", _rule("all(é >= 0 for é in [1])"), None, "ASCII", "checks[7].expr", None),
    # parameter names
    ("param-cpp-keyword", _rename("alpha", "new"), None, "C++ keyword", "params[1].name", "- name: new"),
    ("param-product", _rename("alpha", "product"), None, "rule language", "params[1].name", "- name: product"),
    ("param-dtype-name", _rename("alpha", "FLOAT16"), None, "rule language", "params[1].name", "- name: FLOAT16"),
    ("param-python-keyword-in-rule", _rename("alpha", "lambda"), None, "'lambda' is a Python keyword", "checks[7].expr", "lambda.value"),
    ("param-backend", _rename("alpha", "backend"), None, "aclnn.run", "params[1].name", "- name: backend"),
    ("python-name-clash", _rename("selfOrResult", "grad_output"), None, "both become the Python argument 'grad_output'", "params[5].name", "- name: grad_output"),
    # op names the package cannot hold
    ("snake-class", *_as_op("aclnnClass", "class"), "Python keyword", "snake", "snake: class"),
    ("op-validate", *_as_op("aclnnValidate", "validate"), "already a name of the generated aclnn package", "snake", "snake: validate"),
    ("op-run", *_as_op("aclnnRun", "run"), "already a name", "snake", "snake: run"),
    ("op-spec", *_as_op("aclnnSpec", "spec"), "already a name", "snake", "snake: spec"),
    ("op-zip", *_as_op("aclnnZip", "zip"), "already a name", "snake", "snake: zip"),
    # the example must be usable
    ("complex-example-scalar", _replace(EXAMPLE_ALPHA, "    alpha: {value: 1.0, dtype: COMPLEX64}\n"), None, "cannot use dtype COMPLEX64", "example.inputs.alpha.dtype", "alpha: {value: 1.0, dtype: COMPLEX64}"),
    ("negative-dim", _replace(EXAMPLE_GRAD, "    gradOutput: {shape: [-2, 2], dtype: FLOAT}\n"), None, "greater than or equal to 0", "example.inputs.gradOutput.shape[0]", "[-2, 2]"),
    ("30-digit-dim", _replace(EXAMPLE_GRAD, "    gradOutput: {shape: [100000000000000000000000000000, 2], dtype: FLOAT}\n"), None, "less than or equal to", "example.inputs.gradOutput.shape[0]", "1000000"),
    ("1e10-elements", _replace(EXAMPLE_GRAD, "    gradOutput: {shape: [100000, 100000], dtype: FLOAT}\n"), None, "an example holds at most", "example.inputs.gradOutput.shape", "100000, 100000"),
    ("1e10-elements-fill", _replace(EXAMPLE_GRAD, "    gradOutput: {shape: [100000, 100000], dtype: FLOAT, fill: 1}\n"), None, "an example holds at most", "example.inputs.gradOutput", "100000, 100000"),
    # outputs are inferred from the inputs
    ("infer-own-output", _replace("infer: {shape: gradOutput.shape,", "infer: {shape: gradInput.shape,"), None, "'infer' may only use inputs", "params[6].infer.shape", "infer: {shape: gradInput"),
    # shadowed_by names an earlier, enforced check with the same code
    ("shadowed-unknown", _replace(ALPHA_TRIGGER, "      shadowed_by: nope\n" + ALPHA_TRIGGER), None, "unknown check 'nope'", "checks[7].cases.shadowed_by", "shadowed_by: nope"),
    ("shadowed-self", _replace(ALPHA_TRIGGER, "      shadowed_by: alpha-non-negative\n" + ALPHA_TRIGGER), None, "by itself", "checks[7].cases.shadowed_by", "shadowed_by: alpha"),
    ("shadowed-later", _replace("      trigger: {alpha: null}\n", "      shadowed_by: max-rank\n      trigger: {alpha: null}\n"), None, "later check", "checks[0].cases.shadowed_by", "shadowed_by: max-rank"),
    ("shadowed-other-code", _replace(ALPHA_TRIGGER, "      shadowed_by: null-pointers\n" + ALPHA_TRIGGER), None, "another status code", "checks[7].cases.shadowed_by", "shadowed_by: null"),
    ("shadowed-unenforced", _replace(ALPHA_TRIGGER, "      shadowed_by: dtype-same\n" + ALPHA_TRIGGER, _replace("  - id: dtype-same\n", "  - id: dtype-same\n    enforced: false\n")), None, "not enforced", "checks[7].cases.shadowed_by", "shadowed_by: dtype-same"),
    # checks that contradict the spec's own example
    ("contradictory-expr", _rule("not (isResult and alpha.value > 0)"), None, "rejects the spec's own example", "checks[7]", "- id: alpha-non-negative"),
    ("contradictory-rank", _replace("    rank: {min: 0, max: 8}\n    text:", "    rank: {min: 0, max: 1}\n    text:"), None, "check 'max-rank' rejects the spec's own example", "checks[6]", "- id: max-rank"),
    ("contradictory-dtype-in", _replace("    params: [alpha, scale, inputScale]\n    to: FLOAT", "    params: [alpha, scale, inputScale]\n    to: INT8"), None, "check 'scalar-castable' rejects", "checks[3]", "- id: scalar-castable"),
]  # fmt: skip


def _lint(tmp_path: Path, capsys, text: str, name: str | None) -> tuple[int, list[str]]:
    specs = tmp_path / "specs"
    shutil.copytree(REPO / "specs" / "catalog", specs / "catalog")
    (specs / (name or "elu_backward.yaml")).write_text(text, encoding="utf-8")
    code = main(["lint", str(specs)])
    err = capsys.readouterr().err
    return code, [line for line in err.splitlines() if not line.startswith("opgen lint:")]


@pytest.mark.parametrize("case_id, text, name, message, path, needle", CASES, ids=[c[0] for c in CASES])
def test_hostile_spec_is_a_located_lint_error(tmp_path, capsys, case_id, text, name, message, path, needle):
    start = time.perf_counter()
    code, lines = _lint(tmp_path, capsys, text, name)
    assert code == 1
    assert time.perf_counter() - start < 30  # a guard against hangs, not a performance assertion
    found = [m for m in map(LOCATED.match, lines) if m and message in m["msg"]]
    assert found, lines
    match = found[0]
    assert int(match["line"]) >= 1 and int(match["col"]) >= 1, lines
    assert match["path"] == path, lines
    if needle is not None:
        assert int(match["line"]) == _line_of(text, needle), lines
    assert all(LOCATED.match(line) for line in lines), lines
    assert not any("Traceback" in line for line in lines)


def test_expression_errors_point_at_the_column(tmp_path, capsys):
    text = _rule("not (isResult and alpha.value < 1e999)")
    _, lines = _lint(tmp_path, capsys, text, None)
    match = LOCATED.match(lines[0])
    line = text.splitlines()[int(match["line"]) - 1]
    assert line[int(match["col"]) - 1 :].startswith("1e999"), (line, match["col"])


def test_size_limits_admit_every_real_rule():
    from generator import expr as ex

    project = load_project(REPO / "specs")
    texts = [c.expr or "" for info in project.ops for c in info.spec.checks]
    assert max(len(t) for t in texts) < ex.MAX_LENGTH // 2


def test_bounds_agree_with_the_runtime():
    from generator import expr as ex
    from generator.runtime import rules

    assert ex.MAX_ITEMS == rules.MAX_RULE_ITEMS


def _conv_tree(tmp_path, mutate):
    return spec_tree_utf8(tmp_path, "convolution_backward", mutate)


@pytest.mark.parametrize(
    "value, message",
    [(300, "does not fit 'cubeMathType' (int8_t"), (True, "is an integer"), (1.5, "is an integer")],
)
def test_example_plain_values_fit_their_c_type(tmp_path, value, message):
    specs = _conv_tree(tmp_path, lambda d: d["example"]["inputs"].update(cubeMathType=value))
    with pytest.raises(SpecError) as info:
        load_project(specs)
    assert any(d.path == "example.inputs.cubeMathType" and message in d.message for d in info.value.diagnostics), (
        info.value
    )


def test_example_int_arrays_hold_int64(tmp_path):
    specs = _conv_tree(tmp_path, lambda d: d["example"]["inputs"].update(stride=[1, True]))
    with pytest.raises(SpecError) as info:
        load_project(specs)
    assert any(d.path == "example.inputs.stride" for d in info.value.diagnostics), info.value


def test_imported_style_check_without_cases_still_lints(tmp_path):
    """A faithful but uncurated import (a check with no test cases) is not a lint error."""

    def mutate(data):
        data["checks"][7].pop("cases")

    load_project(spec_tree_utf8(tmp_path, "elu_backward", mutate))


def test_lint_evaluates_without_the_runtime_package():
    """Lint runs the example through the checks with the validators' own rule functions and error
    set, but without importing the runtime package (NumPy, backends): it stays light."""
    import subprocess
    import sys

    from generator import evaluate
    from generator.runtime.errors import EVALUATION_ERRORS

    assert evaluate.EVALUATION_ERRORS == EVALUATION_ERRORS
    script = (
        "import sys; from generator.cli import main; assert main(['lint', sys.argv[1]]) == 0; "
        "assert 'numpy' not in sys.modules and 'generator.runtime' not in sys.modules"
    )
    proc = subprocess.run([sys.executable, "-c", script, str(REPO / "specs")], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize("name", ["main", "check", "rt", "len", "name", "result", "input", "op"])
def test_names_python_can_rename_are_accepted(tmp_path, capsys, name):
    """Parameters named like the validator's locals, builtins or Python keywords are renamed in the
    generated code (see test_python_names), so lint accepts them."""
    code, lines = _lint(tmp_path, capsys, _rename("alpha", name), None)
    assert code == 0, lines
