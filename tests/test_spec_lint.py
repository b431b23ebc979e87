"""Malformed specs: each gives exactly one clear, located error and exit code 1 (never a traceback)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from generator.cli import main

REPO = Path(__file__).resolve().parents[1]
ELU = (REPO / "specs" / "elu_backward.yaml").read_text(encoding="utf-8")
LOCATED = re.compile(r"^(?P<file>[^:]+\.yaml):(?P<line>\d+):(?P<col>\d+):(?: (?P<path>[^ ]+):)? (?P<msg>.+)$")


def _specs_dir(tmp_path: Path, text: str, name: str = "elu_backward.yaml") -> Path:
    specs = tmp_path / "specs"
    shutil.copytree(REPO / "specs" / "catalog", specs / "catalog")
    (specs / name).write_text(text, encoding="utf-8")
    return specs


def _lint(capsys, specs: Path) -> tuple[int, list[str]]:
    code = main(["lint", str(specs)])
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if not line.startswith("opgen lint:")]
    return code, lines


def _replace(old: str, new: str, count: int = 1) -> str:
    assert old in ELU, old
    return ELU.replace(old, new, count)


def _line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


# (id, spec text, substring of the message, substring of the field path or None, line needle or None)
CASES = [
    (
        "broken-yaml-indent",
        _replace("snake: elu_backward", "snake: elu_backward\n  bad: [1, 2"),
        "YAML syntax",
        None,
        None,
    ),
    ("broken-yaml-unclosed", _replace("products: [", "products: [[", 1), "YAML syntax", None, None),
    ("tab-indent", _replace("header: aclnnop", "header:\taclnnop\n\t- x"), "YAML", None, None),
    (
        "duplicate-key",
        _replace("snake: elu_backward", "snake: elu_backward\nsnake: other"),
        "duplicate key 'snake'",
        None,
        "snake: other",
    ),
    ("not-a-mapping", "# yaml-language-server: $schema=x\n- just\n- a list\n", "must be a mapping", None, None),
    ("unknown-top-key", _replace("header:", "headr: x\nheader:"), "unknown key 'headr'", "headr", "headr: x"),
    (
        "unknown-param-key",
        _replace("    nullable: false\n", "")
        if "    nullable: false\n" in ELU
        else _replace("    role: input\n", "    role: input\n    nulable: true\n"),
        "unknown key 'nulable'",
        "params[0].nulable",
        "nulable: true",
    ),
    ("missing-name", _replace("name: aclnnEluBackward\n", ""), "missing required key 'name'", "name", None),
    (
        "wrong-type-products",
        _replace('products: ["950", "910_93", 910b, 310p, "910"]', "products: 12"),
        "list",
        "products",
        "products: 12",
    ),
    (
        "wrong-type-nullable",
        _replace("    role: input\n", "    role: input\n    nullable: maybe\n"),
        "bool",
        "params[0].nullable",
        "nullable: maybe",
    ),
    ("bad-role", _replace("    role: input\n", "    role: inptu\n"), "input", "params[0].role", "role: inptu"),
    (
        "bad-ctype",
        _replace("ctype: const aclTensor*\n", "ctype: const aclTensr*\n"),
        "aclTensor",
        "params[0].ctype",
        "aclTensr",
    ),
    (
        "ctype-role-mismatch",
        _replace("    ctype: aclTensor*\n    role: output", "    ctype: const aclTensor*\n    role: output"),
        "output must have C type",
        "params[6]",
        None,
    ),
    (
        "unknown-dtype",
        _replace("dtypes: [FLOAT, FLOAT16, BFLOAT16]}", "dtypes: [FLOAT, FLAOT16, BFLOAT16]}"),
        "did you mean FLOAT16?",
        "params[0].tensor.dtypes[0].dtypes[1]",
        "FLAOT16",
    ),
    (
        "unknown-product",
        _replace('products: ["950", "910_93", 910b, 310p, "910"]', 'products: ["950", "910_93", 910b, 310q, "910"]'),
        "unknown product '310q' (did you mean 310p?)",
        "products[3]",
        None,
    ),
    (
        "unknown-format",
        _replace("      formats: [ND]\n", "      formats: [NDD]\n"),
        "unknown format 'NDD'",
        "params[0].tensor.formats[0]",
        "NDD",
    ),
    (
        "unknown-status-name",
        _replace("code: ACLNN_ERR_PARAM_NULLPTR", "code: ACLNN_ERR_PARAM_NULPTR"),
        "did you mean ACLNN_ERR_PARAM_NULLPTR?",
        "checks[0].code",
        "NULPTR",
    ),
    (
        "unknown-status-value",
        _replace("code: ACLNN_ERR_PARAM_NULLPTR", "code: 161009"),
        "unknown status code 161009",
        "checks[0].code",
        "161009",
    ),
    (
        "unknown-param-in-rule",
        _replace(
            "params: [gradOutput, selfOrResult]\n    text:\n      zh: 参数gradOutput、selfOrResult的数据类型不一致",
            "params: [gradOutput, selfOrResul]\n    text:\n      zh: 参数gradOutput、selfOrResult的数据类型不一致",
        ),
        "did you mean selfOrResult?",
        "checks[1].params[1]",
        "selfOrResul]",
    ),
    (
        "unknown-name-in-expr",
        _replace("expr: not (isResult and alpha.value < 0)", "expr: not isReslt or alpha.value >= 0"),
        "did you mean isResult?",
        "checks[7].expr",
        "isReslt",
    ),
    (
        "malformed-expr",
        _replace("expr: not (isResult and alpha.value < 0)", "expr: not isResult or alpha.value >="),
        "syntax error",
        "checks[7].expr",
        "alpha.value >=",
    ),
    (
        "expr-wrong-type",
        _replace("expr: not (isResult and alpha.value < 0)", "expr: alpha.value + 1"),
        "expected bool",
        "checks[7].expr",
        None,
    ),
    (
        "expr-bad-attribute",
        _replace("expr: not (isResult and alpha.value < 0)", "expr: not isResult or alpha.shape >= 0"),
        "scalar has no attribute 'shape'",
        "checks[7].expr",
        None,
    ),
    (
        "expr-eval-forbidden",
        _replace("expr: not (isResult and alpha.value < 0)", "expr: __import__('os').system('true') == 0"),
        "only plain function calls",
        "checks[7].expr",
        None,
    ),
    (
        "expr-dunder",
        _replace("expr: not (isResult and alpha.value < 0)", "expr: __import__(1) == 0"),
        "unknown function '__import__'",
        "checks[7].expr",
        None,
    ),
    (
        "expr-string-literal",
        _replace("expr: not (isResult and alpha.value < 0)", "expr: \"not isResult or 'x' == 'y'\""),
        "unsupported literal",
        "checks[7].expr",
        None,
    ),
    (
        "kind-wrong-param",
        _replace(
            "kind: rank_in\n    code: ACLNN_ERR_PARAM_INVALID\n    params: [gradOutput]",
            "kind: rank_in\n    code: ACLNN_ERR_PARAM_INVALID\n    params: [alpha]",
        ),
        "applies to tensors",
        "checks[6].params[0]",
        None,
    ),
    ("kind-missing-field", _replace("    to: FLOAT\n", ""), "needs 'to'", "checks[3]", None),
    (
        "kind-extra-field",
        _replace("    rank: {min: 0, max: 8}\n    text:", "    rank: {min: 0, max: 8}\n    lengths: [1]\n    text:"),
        "'lengths' does not apply",
        "checks[6]",
        None,
    ),
    (
        "duplicate-param",
        _replace("  - name: alpha\n", "  - name: gradOutput\n"),
        "duplicate parameter 'gradOutput'",
        "params",
        None,
    ),
    (
        "duplicate-check-id",
        _replace("  - id: dtype-supported\n", "  - id: dtype-same\n"),
        "duplicate check id 'dtype-same'",
        "checks[2].id",
        None,
    ),
    (
        "hostile-name-path",
        _replace("  - name: alpha\n", "  - name: ../x\n"),
        "should match pattern",
        "params[1].name",
        None,
    ),
    (
        "hostile-name-quote",
        _replace("  - name: alpha\n", '  - name: "al\'pha"\n'),
        "should match pattern",
        "params[1].name",
        None,
    ),
    (
        "hostile-name-newline",
        _replace("  - name: alpha\n", '  - name: "al\\npha"\n'),
        "should match pattern",
        "params[1].name",
        None,
    ),
    (
        "hostile-snake",
        _replace("snake: elu_backward", "snake: ../../etc/passwd"),
        "should match pattern",
        "snake",
        None,
    ),
    (
        "hostile-header",
        _replace("header: aclnnop/aclnn_elu_backward.h", "header: ../../x.h"),
        "should match pattern",
        "header",
        None,
    ),
    (
        "rank-min-gt-max",
        _replace("    rank: {min: 0, max: 8}\n    text:", "    rank: {min: 9, max: 8}\n    text:"),
        "greater than max",
        "checks[6].rank",
        None,
    ),
    (
        "example-missing-input",
        _replace("    isResult: true\n", ""),
        "no value for input 'isResult'",
        "example.inputs",
        None,
    ),
    (
        "example-bad-data-length",
        _replace(
            "gradOutput: {shape: [2, 2], dtype: FLOAT, data: [-2, -1, 0, 1]}",
            "gradOutput: {shape: [2, 2], dtype: FLOAT, data: [-2, -1, 0]}",
        ),
        "holds 4",
        "example.inputs.gradOutput",
        None,
    ),
    (
        "example-product-unsupported",
        _replace("  product: 910b\n", "  product: 310b\n"),
        "not supported by the op",
        "example.product",
        None,
    ),
    ("missing-schema-comment", ELU.split("\n", 1)[1], "must start with", None, None),
    ("wrong-snake", _replace("snake: elu_backward", "snake: elu_backwards"), "should be 'elu_backward'", "snake", None),
    (
        "infer-bad-expr",
        _replace("infer: {shape: gradOutput.shape,", "infer: {shape: gradOutput.dtype,"),
        "expected int[]",
        "params[6].infer.shape",
        None,
    ),
    (
        "not-null-on-value",
        _replace(
            "params: [gradOutput, alpha, scale, inputScale, selfOrResult, gradInput]",
            "params: [gradOutput, alpha, scale, inputScale, selfOrResult, gradInput, isResult]",
        ),
        "cannot be null",
        "checks[0].params[6]",
        None,
    ),
    (
        "text-empty",
        _replace("      zh: 参数isResult为True时，alpha小于0。", '      zh: ""'),
        "at least 1 character",
        "checks[7].text.zh",
        None,
    ),
]


@pytest.mark.parametrize("case_id, text, message, path, needle", CASES, ids=[c[0] for c in CASES])
def test_malformed_spec_gives_one_located_error(tmp_path, capsys, case_id, text, message, path, needle):
    assert text != ELU
    specs = _specs_dir(tmp_path, text)
    code, lines = _lint(capsys, specs)
    assert code == 1
    assert len(lines) == 1, lines
    match = LOCATED.match(lines[0])
    assert match, lines[0]
    assert match["file"].endswith("elu_backward.yaml")
    assert int(match["line"]) >= 1 and int(match["col"]) >= 1
    assert message in match["msg"], lines[0]
    if path is not None:
        assert match["path"] == path, lines[0]
    if needle is not None:
        assert int(match["line"]) == _line_of(text, needle), lines[0]
    assert "Traceback" not in lines[0]


def test_case_count():
    assert len(CASES) >= 30


def test_every_error_of_a_file_is_reported(tmp_path, capsys):
    text = ELU.replace("FLOAT16, BFLOAT16]}", "FLOAT61, BFLOAT16]}").replace('910b, 310p, "910"]', '910b, 310q, "910"]')
    code, lines = _lint(capsys, _specs_dir(tmp_path, text))
    assert code == 1
    assert len(lines) >= 4  # three FLOAT61 occurrences... and the unknown product
    assert any("310q" in line for line in lines)


def test_unreadable_and_missing_paths(tmp_path, capsys):
    specs = _specs_dir(tmp_path, ELU)
    (specs / "binary.yaml").write_bytes(b"\xff\xfe\x00bad")
    code, lines = _lint(capsys, specs)
    assert code == 1 and len(lines) == 1 and "UTF-8" in lines[0]
    assert main(["lint", str(tmp_path / "nope")]) == 1


def test_repo_specs_lint_clean(capsys):
    assert main(["lint", str(REPO / "specs")]) == 0


def test_strict_reports_missing_english(tmp_path, capsys):
    text = ELU.replace("  en: Backward of the ELU activation (aclnnElu); returns", "  # en: Backward", 1)
    text = text.replace("  # en: Backward the gradient with respect to the forward input.", "", 1)
    specs = _specs_dir(
        tmp_path,
        text.replace(
            "\n  # en: Backward of the ELU activation (aclnnElu); returns the gradient with respect to the forward input.",
            "",
        ),
    )
    assert main(["lint", str(specs)]) == 0
    capsys.readouterr()
    assert main(["lint", "--strict", str(specs)]) == 1
    err = capsys.readouterr().err
    assert "summary: missing English text" in err


def test_a_repeated_rule_is_parsed_once_and_reported_at_each_place(tmp_path, capsys):
    from generator.loader import load_project

    # the same valid text on two checks: one node, found at both places
    same = _replace("when: f32(alpha.value) != 0", "when: not gradOutput.empty")
    project = load_project(_specs_dir(tmp_path / "ok", same))
    (info,) = project.ops
    whens = [node for path, node in info.exprs.items() if path[-1] == "when"]
    assert len(whens) == 2 and whens[0] is whens[1]
    # the same broken text on both: an error at each line
    broken = same.replace("when: not gradOutput.empty", "when: not gradOutput.emptyy")
    code, lines = _lint(capsys, _specs_dir(tmp_path / "bad", broken))
    assert code == 1
    found = [m for m in map(LOCATED.match, lines) if m and "no attribute 'emptyy'" in m.group("msg")]
    places = [i for i, line in enumerate(broken.splitlines(), 1) if "gradOutput.emptyy" in line]
    assert len(places) == 2
    assert sorted(int(m.group("line")) for m in found) == places, lines
