"""``opgen sync SPEC DOC``: a curated spec follows a new version of its doc; curation is kept.

The fixture is the curated EluBackward spec, synced from the current EluBackward doc (the base) to a
synthetic next version of it: a product becomes supported, two products gain a dtype, one error row
is reworded, one removed (under a curated check), one added.
"""

from __future__ import annotations

import html
import shutil
from pathlib import Path

import pytest

from tests.importing import CURRENT, REPO, context, need

COMMENT = "  # hand-checked against the op_api code"
TAIL = "kernel: {module: elu_backward, function: elu_backward}"


def _base_doc() -> str:
    return need(CURRENT / "aclnnEluBackward.md").read_text(encoding="utf-8")


def _new_doc(base: str) -> str:
    """The next version: 310b supported, BFLOAT16 for 310p/910, the dtype-equality row reworded, the
    alpha row removed, a row about empty tensors added."""
    new = base.replace(
        "- <term>Atlas 200I/500 A2 推理产品</term>：不支持", "- <term>Atlas 200I/500 A2 推理产品</term>：支持"
    )
    new = new.replace("：数据类型支持FLOAT、FLOAT16。\n", "：数据类型支持FLOAT、FLOAT16、BFLOAT16。\n")
    new = new.replace(
        "<td>参数gradOutput、selfOrResult的数据类型不一致。</td>",
        "<td>参数gradOutput与selfOrResult的数据类型不相同。</td>",
    )
    new = new.replace("    <tr>\n      <td>参数isResult为True时，alpha小于0。</td>\n    </tr>\n", "")
    new = new.replace(
        "<td>参数alpha、scale、inputScale的数据类型不可转换为FLOAT。</td>",
        "<td>参数alpha、scale、inputScale的数据类型不可转换为FLOAT。</td>\n    </tr>\n    <tr>\n"
        "      <td>参数gradOutput为空Tensor时，gradInput不是空Tensor。</td>",
    )
    assert new.count("<tr>") == base.count("<tr>")  # one row out, one row in
    return new


def _tree(tmp_path: Path, edit=None) -> Path:
    """A specs tree holding the catalogue and a copy of the curated EluBackward spec (with comments)."""
    specs = tmp_path / "specs"
    shutil.copytree(REPO / "specs" / "catalog", specs / "catalog")
    text = (REPO / "specs" / "elu_backward.yaml").read_text(encoding="utf-8")
    text = text.replace("checks:\n", f"checks:\n{COMMENT}\n", 1)
    text = text.replace(TAIL, TAIL + "  # the NumPy reference", 1)
    if edit is not None:
        text = edit(text)
    (specs / "elu_backward.yaml").write_text(text, encoding="utf-8")
    return specs / "elu_backward.yaml"


def _docs(tmp_path: Path, new_text: str | None = None) -> tuple[Path, Path]:
    base = tmp_path / "v1" / "aclnnEluBackward.md"
    new = tmp_path / "v2" / "aclnnEluBackward.md"
    base.parent.mkdir()
    new.parent.mkdir()
    base.write_text(_base_doc(), encoding="utf-8")
    new.write_text(new_text if new_text is not None else _new_doc(_base_doc()), encoding="utf-8")
    return base, new


def _sync(capsys, *argv) -> tuple[int, str, str]:
    from generator.cli import main

    code = main(["sync", *map(str, argv)])
    out = capsys.readouterr()
    return code, out.out, out.err


def _load(path: Path):
    from generator.loader import load_catalog, load_op

    return load_op(path, load_catalog(path.parent)).spec


def _table(spec, name) -> dict:
    from tests.importing import catalog

    every = catalog().product_tags
    out = {}
    for rule in spec.param(name).tensor.dtypes:
        for tag in every if rule.products == "all" else rule.products:
            out.setdefault(tag, rule.dtypes)
    return out


def _check(spec, ident):
    return next(c for c in spec.checks if c.id == ident)


def _selfOrResult_910_float_only(text: str) -> str:
    """A curated table: selfOrResult on 910 takes FLOAT only (the doc says FLOAT, FLOAT16)."""
    head, rest = text.split("  - name: selfOrResult", 1)
    rest = rest.replace(
        '        - {products: [310b, 310p, "910"], dtypes: [FLOAT, FLOAT16]}',
        '        - {products: [310b, 310p], dtypes: [FLOAT, FLOAT16]}\n        - {products: ["910"], dtypes: [FLOAT]}',
        1,
    )
    return head + "  - name: selfOrResult" + rest


# --- the three-way sync ----------------------------------------------------------------------------


def test_sync_applies_what_the_doc_owns_and_marks_curated_rules(tmp_path, capsys):
    spec_path = _tree(tmp_path, _selfOrResult_910_float_only)
    base, new = _docs(tmp_path)
    code, out, err = _sync(capsys, spec_path, new, "--base", base)
    assert code == 0, err
    spec = _load(spec_path)
    # products follow the doc
    assert spec.products == ["950", "910_93", "910b", "310b", "310p", "910"]
    assert "310b" in spec.review and "product-specific checks" in spec.review
    # dtype tables follow the doc where the spec still said what the old doc said
    go = _table(spec, "gradOutput")
    assert go["310p"] == go["910"] == ["FLOAT", "FLOAT16", "BFLOAT16"]
    assert go["310b"] == ["FLOAT", "FLOAT16"]  # the spec's (code) table for the new product is kept ...
    assert "310b" in spec.param("gradOutput").review  # ... and the doc's differing one is marked
    so = _table(spec, "selfOrResult")
    assert so["310p"] == ["FLOAT", "FLOAT16", "BFLOAT16"]
    assert so["910"] == ["FLOAT"]  # curated: not overwritten ...
    assert "selfOrResult on 910" in out and "the spec's table says FLOAT" in spec.param("selfOrResult").review
    # a reworded row: the check's text follows the doc, the rule is marked for review
    same = _check(spec, "dtype-same")
    assert same.text.zh == "参数gradOutput与selfOrResult的数据类型不相同。"
    assert same.kind == "dtype_same" and "rewords this error" in same.review and "en text" in same.review
    # a vanished row under a curated (enforced) check: undocumented, marked, kept
    alpha = _check(spec, "alpha-non-negative")
    assert alpha.documented is False and alpha.enforced and "no longer lists" in alpha.review
    # a new row: an unenforced check marked for review, after the row before it
    ids = [c.id for c in spec.checks]
    added = spec.checks[ids.index("scalar-castable") + 1]
    assert added.text.zh == "参数gradOutput为空Tensor时，gradInput不是空Tensor。"
    assert added.enforced is False and "new error row" in added.review and added.code == "ACLNN_ERR_PARAM_INVALID"
    # everything else is as curated
    original = _load(REPO / "specs" / "elu_backward.yaml")
    assert [c.id for c in spec.checks if c.id != added.id] == [c.id for c in original.checks]
    assert spec.example == original.example and spec.doc_issues == original.doc_issues
    assert _check(spec, "max-rank") == _check(original, "max-rank")
    for word in ("applied  product added: 310b", "applied  check dtype-same", "review   check alpha-non-negative"):
        assert word in out


def test_comments_key_order_and_untouched_text_survive(tmp_path, capsys):
    spec_path = _tree(tmp_path)
    before = spec_path.read_text(encoding="utf-8")
    base, new = _docs(tmp_path)
    assert _sync(capsys, spec_path, new, "--base", base)[0] == 0
    after = spec_path.read_text(encoding="utf-8")
    assert after.startswith("# yaml-language-server: $schema=")
    assert COMMENT in after and TAIL + "  # the NumPy reference" in after

    # the sections sync has no business with are byte-identical
    def block(text, start, end):
        return text.split(f"\n{start}:", 1)[1].split(f"\n{end}:", 1)[0]

    for start, end in (
        ("doc_issues", "kernel"),
        ("sources", "products"),
        ("formula", "sources"),
        ("constraints", "doc_issues"),
    ):
        assert block(after, start, end) == block(before, start, end)
    assert block(after, "example", "review") + "\n" == before.split("\nexample:", 1)[1]
    top = [line.split(":")[0] for line in after.splitlines() if line and line[0].isalpha()]
    assert top == [line.split(":")[0] for line in before.splitlines() if line and line[0].isalpha()] + ["review"]
    assert '["950", "910_93", 910b, 310b, 310p, "910"]' in after  # the flow list keeps its quoting style


def test_dry_run_writes_nothing(tmp_path, capsys):
    spec_path = _tree(tmp_path)
    before = spec_path.read_bytes()
    base, new = _docs(tmp_path)
    code, out, _ = _sync(capsys, spec_path, new, "--base", base, "--dry-run")
    assert code == 0 and "applied  product added: 310b" in out and "dry run: nothing written" in out
    assert spec_path.read_bytes() == before
    assert not (spec_path.parent / "upstream").exists()


def test_second_sync_applies_nothing(tmp_path, capsys):
    spec_path = _tree(tmp_path)
    base, new = _docs(tmp_path)
    assert _sync(capsys, spec_path, new, "--base", base)[0] == 0
    kept = spec_path.parent / "upstream" / "elu_backward.md"
    assert kept.read_bytes() == new.read_bytes()  # the doc this sync followed is kept for the next one
    once = spec_path.read_bytes()
    code, out, _ = _sync(capsys, spec_path, new)
    assert code == 0 and "nothing to apply" in out and "0 applied, 0 review marker(s)" in out
    assert spec_path.read_bytes() == once


def test_the_same_wrong_doc_is_not_a_change(tmp_path, capsys):
    """A curated reading the doc still contradicts (here: CANN returns 161002 where the doc says
    161001, recorded as ``doc_code``) is not re-applied; when the doc corrects itself, doc_code goes."""

    def doc_code(text):
        head, rest = text.split("  - id: dtype-same", 1)
        rest = rest.replace("    note:", "    doc_code: ACLNN_ERR_PARAM_NULLPTR\n    note:", 1)
        return head + "  - id: dtype-same" + rest

    spec_path = _tree(tmp_path, doc_code)
    assert _check(_load(spec_path), "dtype-same").doc_code == "ACLNN_ERR_PARAM_NULLPTR"
    row = "      <td>参数gradOutput、selfOrResult的数据类型不一致。</td>\n    </tr>\n    <tr>\n"
    wrong = (
        _base_doc()
        .replace(row, "")
        .replace(
            "是空指针。</td>\n    </tr>\n",
            "是空指针。</td>\n    </tr>\n    <tr>\n" + row.replace("    <tr>\n", "").rstrip() + "\n",
            1,
        )
    )
    assert wrong != _base_doc()
    base, new = _docs(tmp_path, wrong)
    code, out, _ = _sync(capsys, spec_path, new)  # no base: the spec's own doc view is compared
    assert code == 0 and "stated in its words by dtype-same" in out
    assert not [line for line in out.splitlines() if "dtype-same" in line and not line.startswith("  already")]
    assert _check(_load(spec_path), "dtype-same").doc_code == "ACLNN_ERR_PARAM_NULLPTR"
    # the doc now lists the row under the code CANN returns
    code, out, _ = _sync(capsys, spec_path, base)
    assert code == 0 and "doc_code dropped" in out
    assert _check(_load(spec_path), "dtype-same").doc_code is None


def test_a_vanished_row_removes_an_unenforced_check(tmp_path, capsys):
    """``enforced: false`` records a rule only the doc states: when the doc drops it, the check goes."""

    def unenforce(text):
        head, rest = text.split("  - id: shape-same", 1)
        return head + "  - id: shape-same" + rest.replace("    cases:", "    enforced: false\n    cases:", 1)

    spec_path = _tree(tmp_path, unenforce)
    assert _check(_load(spec_path), "shape-same").enforced is False
    base = _base_doc()
    new = base.replace(
        "    <tr>\n      <td>参数gradOutput、selfOrResult、gradInput的shape不一致。</td>\n    </tr>\n", ""
    )
    assert new != base
    base_path, new_path = _docs(tmp_path, new)
    code, out, _ = _sync(capsys, spec_path, new_path, "--base", base_path)
    assert code == 0 and "check shape-same removed" in out
    assert "shape-same" not in [c.id for c in _load(spec_path).checks]


# --- the first sync (no earlier doc) -----------------------------------------------------------------


def test_first_sync_of_an_imported_spec(tmp_path, capsys):
    """Without a base the spec's own doc-owned view is the base: additions apply, a text that differs
    may be curated and is only marked."""
    from generator.docimport import import_doc, write_spec

    specs = tmp_path / "specs"
    shutil.copytree(REPO / "specs" / "catalog", specs / "catalog")
    base, new = _docs(tmp_path)
    [imported] = import_doc(base, context()).specs
    spec_path = write_spec(imported, specs)
    code, out, err = _sync(capsys, spec_path, new)
    assert code == 0, err
    spec = _load(spec_path)
    assert "310b" in spec.products
    go = _table(spec, "gradOutput")
    assert "BFLOAT16" in go["910"]
    reworded = [c for c in spec.checks if c.text.zh == "参数gradOutput、selfOrResult的数据类型不一致。"]
    assert reworded and all("参数gradOutput与selfOrResult的数据类型不相同" in (c.review or "") for c in reworded)
    assert (specs / "upstream" / "elu_backward.md").is_file()
    assert "nothing to apply" in _sync(capsys, spec_path, new)[1]


# --- bad input ---------------------------------------------------------------------------------------


def test_a_doc_of_another_op_changes_nothing(tmp_path, capsys):
    spec_path = _tree(tmp_path)
    before = spec_path.read_bytes()
    code, _, err = _sync(capsys, spec_path, need(CURRENT / "aclnnGeluBackward.md"))
    assert code == 1 and "not aclnnEluBackward" in err and "not changed" in err
    assert spec_path.read_bytes() == before and not (spec_path.parent / "upstream").exists()


def test_a_spec_that_does_not_lint_is_refused(tmp_path, capsys):
    spec_path = _tree(tmp_path, lambda t: t.replace("kind: dtype_same", "kind: dtype_whatever", 1))
    before = spec_path.read_bytes()
    code, _, err = _sync(capsys, spec_path, need(CURRENT / "aclnnEluBackward.md"))
    assert code == 1 and "elu_backward.yaml" in err and "fix the spec first" in err
    assert spec_path.read_bytes() == before


@pytest.mark.parametrize("index", [0, 1, 9, 14, 20, 23])
def test_hostile_doc_text_stays_data(tmp_path, capsys, index):
    from tests.hostile.strings import HOSTILE

    hostile = "".join(ch for ch in HOSTILE[index] if ch.isprintable() and ch not in "\r\n")[:200] or "x"
    spec_path = _tree(tmp_path)
    base = _base_doc()
    new = base.replace(
        "<td>参数gradOutput、selfOrResult的数据类型不一致。</td>",
        f"<td>参数gradOutput、selfOrResult的数据类型不一致。{html.escape(hostile)}</td>",
    )
    base_path, new_path = _docs(tmp_path, new)
    code, _, err = _sync(capsys, spec_path, new_path, "--base", base_path)
    assert code == 0, err
    text = _check(_load(spec_path), "dtype-same").text.zh
    assert text.startswith("参数gradOutput、selfOrResult的数据类型不一致。") and hostile.strip() in text
    assert not (tmp_path / "pwned").exists() and not Path("pwned").exists()


def test_a_new_parameter_is_added_and_marked(tmp_path, capsys):
    """An API change: the parameter is inserted where the prototype has it, with an example value, and
    marked (its checks, the example and the kernel are for a person to update)."""
    base = _base_doc()
    new = base.replace(
        "  bool             isResult,\n", "  bool             isResult,\n  bool             deterministic,\n", 1
    )
    end = new.index("</tr>", new.index("<td>isResult")) + len("</tr>")
    row = "\n    <tr>\n      <td>deterministic（bool）</td>\n      <td>输入</td>\n      <td>是否使用确定性计算。</td>\n"
    row += "      <td>-</td>\n" * 5 + "    </tr>"
    new = new[:end] + row + new[end:]
    spec_path = _tree(tmp_path)
    base_path, new_path = _docs(tmp_path, new)
    code, out, err = _sync(capsys, spec_path, new_path, "--base", base_path)
    assert code == 0, err
    spec = _load(spec_path)
    names = [p.name for p in spec.params]
    assert names[names.index("isResult") + 1] == "deterministic"
    assert spec.param("deterministic").ctype == "bool" and "C signature changed" in spec.param("deterministic").review
    assert "deterministic" in spec.example.inputs
    assert "applied  parameter added: bool deterministic" in out
