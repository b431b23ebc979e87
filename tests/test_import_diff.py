"""``opgen diff``: what changed between two docs, specs or folders, each change breaking or compatible.

The release pairs below were checked by reading both docs side by side; each test states what the
text shows.
"""

from __future__ import annotations

import json

import pytest

from tests.importing import CURRENT, HISTORY, RELEASES, REPO, context, need


def _run(capsys, *argv) -> tuple[int, str, str]:
    from generator.cli import main

    code = main(["diff", *map(str, argv)])
    out = capsys.readouterr()
    return code, out.out, out.err


def _changes(capsys, old, new) -> tuple[int, list[dict]]:
    code, out, err = _run(capsys, need(old), need(new), "--format", "json")
    report = json.loads(out)
    return code, [c for op in report["ops"] for c in op["changes"]]


def _brief(changes, area=None) -> list[tuple]:
    return [(c["area"], c["action"], c["subject"], c["breaking"]) for c in changes if area in (None, c["area"])]


def _views(old_text: str, new_text: str, name: str = "x.md"):
    from generator.docimport.diff import diff_views

    problems: list[str] = []
    [(a, _)] = import_views_text(name, old_text, problems)
    [(b, _)] = import_views_text(name, new_text, problems)
    assert problems == []
    return diff_views(a, b, context().catalog)


def import_views_text(name, text, problems):
    from generator.docimport import import_doc
    from generator.docimport.view import doc_view

    result = import_doc(name, context(), text=text)
    return [(doc_view(s, result.facts, context().catalog), s) for s in result.specs]


# --- hand-verified release pairs ---------------------------------------------------------------------


def test_product_addition_elu_850_to_900(capsys):
    """9.0.0 adds the training and inference series (√) to EluBackward's product table (and lists the
    200I/500 A2 product as ×); nothing else a reader would call a change."""
    code, changes = _changes(capsys, RELEASES / "8.5.0/aclnnEluBackward.md", RELEASES / "9.0.0/aclnnEluBackward.md")
    assert _brief(changes) == [("product", "added", "310p", False), ("product", "added", "910", False)]
    assert code == 0
    assert "gradOutput FLOAT/FLOAT16" in changes[0]["detail"]  # the new products' dtype tables are named


def test_product_removal_mse_loss_910_to_master(capsys):
    """master marks the Atlas training series "不支持" for MseLossBackward: a breaking change, exit 1."""
    code, changes = _changes(capsys, RELEASES / "9.1.0/aclnnMseLossBackward.md", CURRENT / "aclnnMseLossBackward.md")
    assert _brief(changes) == [("product", "removed", "910", True)]
    assert code == 1


def test_dtype_change_max_pool2d_with_indices(capsys):
    """8.5.0: gradInput on A2/A3 "数据类型仅支持FLOAT"; 9.0.0's table gives gradInput BFLOAT16、FLOAT16、
    FLOAT32 while gradOutput and self stay FLOAT on A2/A3 (the constraint under the table)."""
    _, changes = _changes(
        capsys,
        RELEASES / "8.5.0/aclnnMaxPool2dWithIndicesBackward.md",
        RELEASES / "9.0.0/aclnnMaxPool2dWithIndicesBackward.md",
    )
    dtypes = [c for c in changes if c["area"] == "dtype"]
    assert [(c["action"], c["subject"], c["old"], c["breaking"]) for c in dtypes] == [
        ("added", "gradInput on 910_93, 910b", ["BFLOAT16", "FLOAT16"], False)
    ]
    assert ("product", "added", "950", False) in _brief(changes)


def test_error_rows_sigmoid_replaced(capsys):
    """9.0.0 replaces "gradOutput、output或gradInput shape不一致" by three rows (broadcast, broadcast result,
    more than 8 dims): one removal, three additions (a new failure condition is breaking)."""
    _, changes = _changes(
        capsys, RELEASES / "8.5.0/aclnnSigmoidBackward.md", RELEASES / "9.0.0/aclnnSigmoidBackward.md"
    )
    assert _brief(changes, "error") == [
        ("error", "removed", "gradOutput、output或gradInput shape不一致。", False),
        ("error", "added", "gradOutput和output的shape不满足broadcast条件。", True),
        ("error", "added", "gradInput的shape与gradOutput和output的broadcast结果不一致。", True),
        ("error", "added", "gradOutput或output的shape dim大于8。", True),
    ]


def test_error_row_reworded_not_removed_and_added(capsys):
    """HardtanhBackward 9.0.0 rewords its null-pointer row ("是空指针时" -> "存在空指针"): one change."""
    _, changes = _changes(
        capsys, RELEASES / "8.5.0/aclnnHardtanhBackward.md", RELEASES / "9.0.0/aclnnHardtanhBackward.md"
    )
    [row] = [c for c in changes if c["area"] == "error"]
    assert (row["action"], row["breaking"]) == ("reworded", False)
    assert row["old"]["text"]["zh"] == "传入的gradOutput、self、out、min、max是空指针时。"
    assert row["new"]["text"]["zh"] == "传入的gradOutput、self、out、min、max存在空指针。"


def test_convolution_900_to_910_exactly(capsys):
    """9.1.0: "使能" -> "开启" in transposed's description, the null row names the conditional outputs
    ("求解gradInput...时"), the separate gradBias null row goes, and the support link text changes."""
    _, changes = _changes(
        capsys, RELEASES / "9.0.0/aclnnConvolutionBackward.md", RELEASES / "9.1.0/aclnnConvolutionBackward.md"
    )
    assert _brief(changes) == [
        ("text", "reworded", "transposed description", False),
        ("error", "reworded", changes[1]["subject"], False),
        ("error", "removed", "输出中包含偏差的梯度时，传入的gradBias是空指针。", False),
        ("constraint", "reworded", changes[3]["subject"], False),
    ]
    assert "求解gradInput" in changes[1]["subject"] and changes[1]["new"]["code"] == 161001
    assert "on the website" in changes[3]["subject"]


def test_shape_rank_and_determinism_msda(capsys):
    """MSDA 9.0.0: gradOutput's shape column becomes (bs, num_queries, num_heads*channels) (rank 4 -> 3)
    and determinism changes to "暂不支持确定性实现"."""
    _, changes = _changes(
        capsys,
        RELEASES / "8.5.0/aclnnMultiScaleDeformableAttentionGrad.md",
        RELEASES / "9.0.0/aclnnMultiScaleDeformableAttentionGrad.md",
    )
    assert _brief(changes) == [
        ("rank", "narrowed", "gradOutput", True),
        ("shape", "changed", "gradOutput", True),
        ("determinism", "reworded", "determinism", False),
    ]
    assert changes[1]["new"] == "(bs, num_queries, num_heads*channels)"


def test_product_added_and_row_removed_msda_910_to_master(capsys):
    _, changes = _changes(
        capsys,
        RELEASES / "9.1.0/aclnnMultiScaleDeformableAttentionGrad.md",
        CURRENT / "aclnnMultiScaleDeformableAttentionGrad.md",
    )
    assert _brief(changes) == [
        ("product", "added", "950", False),
        ("error", "removed", "输入输出数据类型不一致。", False),
        ("determinism", "reworded", "determinism", False),
    ]


def test_rank_column_filled_in_is_breaking(capsys):
    """LayerNormBackward 9.0.0 fills the rank column ("-" -> "1-8") of all nine tensors."""
    _, changes = _changes(
        capsys, RELEASES / "8.5.0/aclnnLayerNormBackward.md", RELEASES / "9.0.0/aclnnLayerNormBackward.md"
    )
    ranks = [c for c in changes if c["area"] == "rank"]
    assert len(ranks) == 9 and all(c["action"] == "stated" and c["new"] == [1, 8] and c["breaking"] for c in ranks)


# --- every release step and history version --------------------------------------------------------


def _steps():
    names = ["8.5.0", "9.0.0", "9.1.0"]
    paths = [RELEASES / n for n in names] + [CURRENT]
    return list(zip(paths, paths[1:]))


@pytest.mark.parametrize("old,new", _steps(), ids=lambda p: p.name)
def test_every_release_step_diffs_all_ops(capsys, old, new):
    code, out, err = _run(capsys, need(old), need(new), "--format", "json")
    report = json.loads(out)
    assert err == "" and len(report["ops"]) == 20
    assert {op["op"] for op in report["ops"]} == {f"aclnn{p.stem[5:]}" for p in sorted(CURRENT.glob("aclnn*.md"))}
    assert code == (1 if report["breaking"] else 0)
    for op in report["ops"]:
        for c in op["changes"]:
            assert c["detail"] and isinstance(c["breaking"], bool)


def test_history_versions_diff_in_sequence(capsys):
    """Every successive pair of the history docs diffs; identical neighbours give no change, and a
    placeholder version ("本文档内容正按全新接口模板整改中") next to a real one reads as the op
    appearing or disappearing."""
    from generator.docimport.source import decode

    for stem in ("aclnnEluBackward", "aclnnConvolutionBackward"):
        versions = sorted(need(HISTORY).glob(f"{stem}.v*.md"))
        assert len(versions) > 10
        for a, b in zip(versions, versions[1:]):
            code, changes = _changes(capsys, a, b)
            same = decode(a.read_bytes())[0] == decode(b.read_bytes())[0]
            assert not (same and changes), (a.name, b.name)
            placeholder = ["全新接口模板整改中" in decode(p.read_bytes())[0] for p in (a, b)]
            if placeholder == [True, False]:
                assert _brief(changes) == [("op", "added", stem, False)]
            elif placeholder == [False, True]:
                assert _brief(changes) == [("op", "removed", stem, True)]


def test_history_sample_elu_alpha_symbol(capsys):
    """The last EluBackward versions replace LaTeX ``\\alpha`` by ``α`` in alpha's description and usage."""
    versions = sorted(need(HISTORY).glob("aclnnEluBackward.v*.md"))
    texts = [v.read_text(encoding="utf-8") for v in versions]
    i = next(i for i in range(1, len(texts)) if "\\alpha必须" in texts[i - 1] and "α必须" in texts[i])
    _, changes = _changes(capsys, versions[i - 1], versions[i])
    alpha = [c for c in changes if c["subject"].startswith("alpha ")]
    assert [(c["action"], c["subject"]) for c in alpha] == [
        ("reworded", "alpha description"),
        ("reworded", "alpha usage"),
    ]
    assert "\\alpha" in alpha[1]["old"] and "α" in alpha[1]["new"]


# --- texts: what is not a change ---------------------------------------------------------------------


def test_whitespace_and_punctuation_are_not_changes():
    text = need(CURRENT / "aclnnEluBackward.md").read_text(encoding="utf-8")
    noisy = (
        text.replace("，", ",").replace("。</td>", "</td>").replace("的数据类型", " 的 数据类型 ").replace("（", "(")
    )
    assert noisy != text
    assert _views(text, noisy) == []


def test_norm_and_similarity():
    from generator.docimport.view import align, norm, similarity, tokens

    assert norm("参数a、b是空指针。") == norm("参数a,b 是空指针") == norm("参数 a，b 是空指针!")
    assert norm("范围[0, 255]") != norm("范围[0, 25]")  # numbers count
    assert norm("1.5倍") != norm("15倍")
    assert (
        similarity(
            tokens("gradInput的数据类型不在支持的范围之内。"), tokens("gradOutput的数据类型不在支持的范围之内。")
        )
        < 0.55
    )
    # LeakyReluBackward 9.0.0: the one row replaced at its place is a rewording, however different
    old = ["参数a是空指针。", "gradOutput、self和out的shape不相同。", "维度大于8。"]
    new = ["参数a是空指针。", "gradOutput、self的shape不满足广播关系，或out的shape与广播结果不一致。", "维度大于8。"]
    assert [(i, j) for i, j, _ in align(old, new)] == [(0, 0), (1, 1), (2, 2)]
    # ... but a row that becomes three is a removal and additions
    new = ["参数a是空指针。", "x不满足broadcast条件。", "y与broadcast结果不一致。", "维度大于8。"]
    assert [(i, j) for i, j, _ in align(old, new)] == [(0, 0), (2, 3)]


# --- specs, curated flags ----------------------------------------------------------------------------


def test_spec_view_uses_the_docs_code_and_flags():
    """Rows of a spec are its documented checks under the doc's code (``doc_code``), enforced or not."""
    from generator.docimport.view import spec_view
    from generator.loader import load_project

    project = load_project(REPO / "specs")
    for info in project.ops:
        view = spec_view(info.spec, project.catalog)
        ids = {cid for row in view.errors for cid in row.checks}
        for check in info.spec.checks:
            assert (check.id in ids) == check.documented
            if check.documented:
                row = next(r for r in view.errors if check.id in r.checks)
                ref = check.doc_code if check.doc_code is not None else check.code
                assert row.code == project.catalog.status(ref)[0]


def test_spec_against_itself_and_a_folder_of_specs(capsys):
    code, out, _ = _run(capsys, REPO / "specs", REPO / "specs")
    ops = len(list((REPO / "specs").glob("*.yaml")))
    assert code == 0 and f"0 change(s) in 0 of {ops} op(s)" in out


def test_formats_and_exit_codes(capsys, tmp_path):
    old, new = RELEASES / "9.1.0/aclnnMseLossBackward.md", CURRENT / "aclnnMseLossBackward.md"
    code, out, _ = _run(capsys, need(old), need(new), "--format", "markdown")
    assert code == 1 and "| **breaking** | product | product removed: 910" in out
    code, out, _ = _run(capsys, old, new)
    assert code == 1 and "BREAKING    product removed: 910 (Atlas 训练系列产品)" in out
    code, _, err = _run(capsys, tmp_path / "missing.md", new)
    assert code == 2 and "no such file" in err


def test_folder_diff_reports_ops_added_and_removed(capsys, tmp_path):
    import shutil

    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    shutil.copy(need(CURRENT / "aclnnEluBackward.md"), a)
    shutil.copy(CURRENT / "aclnnGeluBackward.md", a)
    shutil.copy(CURRENT / "aclnnEluBackward.md", b)
    shutil.copy(CURRENT / "aclnnSiluBackward.md", b)
    code, changes = _changes(capsys, a, b)
    assert _brief(changes) == [
        ("op", "removed", "aclnnGeluBackward", True),
        ("op", "added", "aclnnSiluBackward", False),
    ]
    assert code == 1


def test_doc_text_cannot_drive_the_terminal_or_the_markdown(capsys, tmp_path):
    """Doc text is data: control characters never reach a terminal, Markdown table cells stay cells."""
    base = need(CURRENT / "aclnnEluBackward.md").read_text(encoding="utf-8")
    row = "<td>参数gradOutput、selfOrResult的数据类型不一致。</td>"
    hostile = base.replace(row, "<td>参数gradOutput、selfOrResult的数据类型不一致。&#27;[31m | x | y |\n</td>")
    (tmp_path / "new").mkdir()
    new = tmp_path / "new" / "aclnnEluBackward.md"
    new.write_text(hostile, encoding="utf-8")
    code, out, _ = _run(capsys, CURRENT / "aclnnEluBackward.md", new)
    assert code == 0 and "reworded" in out and "\x1b" not in out
    code, out, _ = _run(capsys, CURRENT / "aclnnEluBackward.md", new, "--format", "markdown")
    [line] = [x for x in out.splitlines() if "reworded" in x]
    assert "\x1b" not in line and line.count(" | ") == 2  # the row's own pipes are escaped
    code, out, _ = _run(capsys, CURRENT / "aclnnEluBackward.md", new, "--format", "json")
    assert json.loads(out)["ops"][0]["changes"][0]["new"]["text"]["zh"].endswith("[31m | x | y |")  # JSON: the data


def test_history_sample_convolution(capsys):
    """ConvolutionBackward history, read side by side: v03 -> v04 only turns "(" into "（" (no
    change); v11 -> v12 renames the 950 product label and drops the source link (no change); v13 -> v14
    fills 950's empty "其他约束" cell (one constraint added for 950)."""
    h = need(HISTORY)
    for a, b in (("v03", "v04"), ("v11", "v12")):
        code, changes = _changes(capsys, h / f"aclnnConvolutionBackward.{a}.md", h / f"aclnnConvolutionBackward.{b}.md")
        assert (code, changes) == (0, []), (a, b)
    code, changes = _changes(capsys, h / "aclnnConvolutionBackward.v13.md", h / "aclnnConvolutionBackward.v14.md")
    assert _brief(changes) == [("constraint", "added", changes[0]["subject"], True)] and code == 1
    assert changes[0]["new"]["products"] == ["950"] and "padding区域梯度" in changes[0]["subject"]
