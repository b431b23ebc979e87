"""``generator.docimport``: what a doc becomes, and how malformed docs are reported (never a crash)."""

from __future__ import annotations

import re

import pytest

from tests.importing import CURRENT, FIXTURES, SEEDS, context, need


def _import(path, text=None, **kw):
    from generator.docimport import import_doc

    return import_doc(path, context(), text=text, **kw)


def _elu_text() -> str:
    return need(CURRENT / "aclnnEluBackward.md").read_text(encoding="utf-8")


def _only(result):
    assert len(result.specs) == 1, [str(m) for m in result.messages]
    return result.specs[0].data


def _check(data, kind, **fields):
    for c in data["checks"]:
        if c["kind"] == kind and all(c.get(k) == v for k, v in fields.items()):
            return c
    raise AssertionError(f"no {kind} check with {fields}: {[(c['kind'], c.get('params')) for c in data['checks']]}")


# --- the current Markdown format ------------------------------------------------------------


def test_elu_doc_maps_onto_the_vocabulary():
    data = _only(_import(CURRENT / "aclnnEluBackward.md", _elu_text()))
    assert data["name"] == "aclnnEluBackward" and data["snake"] == "elu_backward"
    assert data["header"] == "aclnnop/aclnn_elu_backward.h"
    assert data["products"] == ["950", "910_93", "910b", "310p", "910"]  # 310b: 不支持
    assert [(p["name"], p["ctype"], p["role"]) for p in data["params"]] == [
        ("gradOutput", "const aclTensor*", "input"),
        ("alpha", "const aclScalar*", "attribute"),
        ("scale", "const aclScalar*", "attribute"),
        ("inputScale", "const aclScalar*", "attribute"),
        ("isResult", "bool", "attribute"),
        ("selfOrResult", "const aclTensor*", "input"),
        ("gradInput", "aclTensor*", "output"),
    ]
    grad = data["params"][0]["tensor"]
    # the note below the table narrows the table for the two older products
    assert grad["dtypes"] == [
        {"products": ["950", "910_93", "910b"], "dtypes": ["FLOAT", "FLOAT16", "BFLOAT16"]},
        {"products": ["310p", "910"], "dtypes": ["FLOAT", "FLOAT16"]},
    ]
    assert grad["formats"] == ["ND"] and grad["rank"] == {"min": 0, "max": 8}
    assert data["params"][1]["scalar"] == {"castable_to": "FLOAT"}
    assert data["params"][6]["infer"] == {
        "shape": "gradOutput.shape",
        "dtype": "gradOutput.dtype",
        "format": "gradOutput.format",
    }
    _check(data, "not_null", params=["gradOutput", "alpha", "scale", "inputScale", "selfOrResult", "gradInput"])
    _check(data, "dtype_supported", params=["gradOutput", "selfOrResult"])
    _check(data, "dtype_same", params=["gradOutput", "selfOrResult"])
    _check(data, "dtype_castable", params=["alpha", "scale", "inputScale"], to="FLOAT")
    _check(data, "dtype_castable", params=["gradOutput"], to="gradInput")
    _check(data, "shape_same", params=["gradOutput", "selfOrResult", "gradInput"])
    _check(data, "rank_in", rank={"min": 0, "max": 8})
    alpha = _check(data, "expr", when="isResult")  # 参数isResult为True时，alpha小于0。
    assert alpha["expr"] == "not (alpha.value < 0)"
    assert all(c["code"] in ("ACLNN_ERR_PARAM_NULLPTR", "ACLNN_ERR_PARAM_INVALID") for c in data["checks"])
    assert (
        data["checks"][0]["text"]["zh"] == "参数gradOutput、alpha、scale、inputScale、selfOrResult、gradInput是空指针。"
    )
    assert data["deterministic"]["zh"] == "aclnnEluBackward默认确定性实现。"
    assert data["example"]["inputs"]["gradOutput"] == {"shape": [2, 2], "dtype": "FLOAT", "data": [-2, -1, 0, 1]}
    assert data["example"]["inputs"]["alpha"] == {"value": 1.0, "dtype": "FLOAT"}
    assert data["example"]["inputs"]["isResult"] is True
    assert "kernel" not in data and "review" not in data


def test_two_api_doc_gives_two_specs():
    path = FIXTURES / "aclnnLeakyRelu&aclnnInplaceLeakyRelu.md"
    result = _import(path)
    assert [s.name for s in result.specs] == ["aclnnLeakyRelu", "aclnnInplaceLeakyRelu"]
    plain, inplace = (s.data for s in result.specs)
    assert [p["name"] for p in plain["params"]] == ["self", "negativeSlope", "out"]
    assert [p["name"] for p in inplace["params"]] == ["selfRef", "negativeSlope"]
    assert "in-place" in inplace["params"][0]["review"]  # 输入/输出: no in-place parameter in the model
    assert inplace["example"]["inputs"]["selfRef"]["shape"] == [4, 2]  # from the second call of the sample
    assert [c["params"] for c in inplace["checks"] if c["kind"] == "not_null"] == [["selfRef", "negativeSlope"]]


def test_bom_and_crlf_change_nothing():
    text = _elu_text()
    plain = _only(_import("aclnnEluBackward.md", text))
    noisy = _only(_import("aclnnEluBackward.md", "\ufeff" + text.replace("\n", "\r\n")))
    assert noisy == plain


def test_unclosed_code_fence_is_reported_and_the_rest_imported():
    text = _elu_text()
    last = text.rindex("```")
    result = _import("broken.md", text[:last])
    assert any(m.level == "warning" and "never closed" in m.message and m.line > 1 for m in result.messages)
    assert result.specs and result.specs[0].data["example"]["inputs"]["gradOutput"]["shape"] == [2, 2]


def test_headings_off_the_skeleton_are_kept_for_review():
    text = _elu_text().replace("## 约束说明", "## 实现说明\n\n内部实现按块计算。\n\n### 约束说明")
    result = _import("odd.md", text)
    data = _only(result)
    line = text.splitlines().index("## 实现说明") + 1
    assert any(m.line == line and "not part of the doc skeleton" in m.message for m in result.messages)
    kept = [c for c in data["constraints"] if "内部实现按块计算" in c["text"]["zh"]]
    assert kept and "review" in kept[0]
    assert data["deterministic"]["zh"] == "aclnnEluBackward默认确定性实现。"  # the H3 约束说明 is still read


def test_product_label_contradicting_its_npu_tag_is_located():
    text = _elu_text().replace('<!-- npu="910b" id3 -->', '<!-- npu="310p" id3 -->')
    result = _import("contradiction.md", text)
    line = next(
        i
        for i, ln in enumerate(text.splitlines(), 1)
        if "Atlas A2 训练系列产品/Atlas A2 推理系列产品</term>：支持" in ln
    )
    assert any(m.line == line and "contradicts" in m.message for m in result.messages)
    assert "910b" in _only(result)["products"]  # the label wins


def test_contradictory_product_lists_are_reported():
    text = _elu_text().replace(
        '<!-- npu="910" id6 -->', '- <term>Atlas 推理系列产品</term>：不支持\n<!-- npu="910" id6 -->'
    )
    result = _import("twice.md", text)
    assert any("listed again" in m.message for m in result.messages)
    assert "310p" in _only(result)["products"]  # the first listing is used


def test_unknown_names_do_not_crash():
    text = _elu_text().replace("FLOAT、FLOAT16、BFLOAT16</td>", "FLOAT、FLOAT16、BFLOAT16、FLOAT99</td>", 1)
    text = text.replace("<term>Atlas 训练系列产品</term>：支持", "<term>Atlas X99 系列产品</term>：支持")
    text = text.replace("ACLNN_ERR_PARAM_NULLPTR", "ACLNN_ERR_NOT_A_CODE", 1)
    result = _import("unknown.md", text)
    messages = " | ".join(str(m) for m in result.messages)
    assert "FLOAT99" in messages and "Atlas X99" in messages and "ACLNN_ERR_NOT_A_CODE" in messages
    data = _only(result)
    assert "FLOAT99" in data["params"][0]["review"]
    assert "910" in data["products"]  # the unknown label's npu="910" wrapper still says which product


def test_nothing_usable():
    result = _import("empty.md", "# aclnnNothing\n\n本文档内容正按全新接口模板整改中。\n")
    assert not result.usable
    assert any(m.level == "error" and "nothing usable" in m.message for m in result.messages)
    result = _import("binary.md", "\x00\x01garbage")
    assert not result.usable


def test_unreadable_sentences_are_kept_verbatim_for_review():
    text = _elu_text().replace("参数isResult为True时，alpha小于0。", "当月亮是圆的时候，结果不确定。")
    data = _only(_import("vague.md", text))
    kept = [c for c in data["checks"] if c["text"]["zh"] == "当月亮是圆的时候，结果不确定。"]
    assert len(kept) == 1
    assert kept[0]["kind"] == "expr" and kept[0]["expr"] == "true" and kept[0]["enforced"] is False
    assert kept[0]["review"]


def test_english_twin_fills_en():
    from tests.importing import RELEASES

    zh = need(RELEASES / "8.5.0" / "aclnnEluBackward.md")
    result = _import(zh)  # the twin X_en.md lies beside it
    data = _only(result)
    assert data["summary"]["en"].startswith("Performs backward computation")
    gradOutput = data["params"][0]
    assert gradOutput["description"]["en"] and gradOutput["description"]["zh"] != gradOutput["description"]["en"]
    assert all("en" in c["text"] for c in data["checks"] if c.get("documented", True))


def test_bullet_list_parameters_and_code_block_errors():
    """Older Markdown: ``- grad(aclTensor*,计算输入)：…`` lines and the error list in a code block."""
    data = _only(_import(need(CURRENT / "aclnnEmbeddingDenseBackward.md")))
    grad = next(p for p in data["params"] if p["name"] == "grad")
    assert grad["tensor"]["rank"] == {"min": 2, "max": 8}
    assert grad["tensor"]["dtypes"] == [
        {"products": ["950", "910_93", "910b"], "dtypes": ["BFLOAT16", "FLOAT16", "FLOAT"]},
        {"products": ["910"], "dtypes": ["FLOAT16", "FLOAT"]},
    ]
    texts = [c["text"]["zh"] for c in data["checks"]]
    assert "out的shape不符合推导结果" in texts  # the last item of the code-block list, fence line dropped


def test_rowspan_counts_that_do_not_add_up():
    """MaxPool2dWithMask: rowspan 11 over 10 rows; every description still gets its code."""
    result = _import(need(CURRENT / "aclnnMaxPool2dWithMaskBackward.md"))
    rows = result.facts.apis[0].errors
    assert len(rows) == 11 and rows[0].code == 161001 and all(r.code == 161002 for r in rows[1:])


def test_nested_lists_in_the_error_table():
    """A head ending in a colon over a list, product labels over lists, lists nested two deep."""
    from generator.docimport.errors import read_table
    from generator.docimport.tables import html_tables

    cell = (
        "<td>x的shape不符合约束：<ul><li>a维度为1</li><li>b维度为2。</li></ul></td></tr><tr>"
        "<td><term>Atlas 训练系列产品</term>：<ul><li>y不支持空Tensor。</li>"
        "<li>z的shape不符合约束：<ol><li>c</li></ol></li></ul></td></tr><tr>"
        "<td>w非法。<ul><li>u为负数。</li></ul></td>"
    )
    table = html_tables(
        "<table><tr><th>返回值</th><th>错误码</th><th>描述</th></tr>"
        f"<tr><td rowspan='3'>ACLNN_ERR_PARAM_INVALID</td><td rowspan='3'>161002</td>{cell}</tr></table>",
        1,
    )[0]
    ctx = context()
    warnings = []
    rows = read_table(table, ctx.status_by_name, ctx.status_by_value, lambda *a: warnings.append(a), ctx.matcher)
    assert [(r.text, r.products, r.code) for r in rows] == [
        ("x的shape不符合约束（a维度为1）。", None, 161002),
        ("x的shape不符合约束（b维度为2）。", None, 161002),
        ("y不支持空Tensor。", ["910"], 161002),
        ("z的shape不符合约束（c）。", ["910"], 161002),
        ("w非法。", None, 161002),
        ("u为负数。", None, 161002),
    ]
    assert warnings == []


def test_constraint_table_and_per_product_dtype_rows():
    data = _only(_import(need(CURRENT / "aclnnConvolutionBackward.md")))
    go = data["params"][0]["tensor"]["dtypes"]
    old = next(r for r in go if "910" in r["products"])
    assert "BFLOAT16" not in old["dtypes"]  # "dtype约束：不支持BFLOAT16…" for 310p/910 in the constraint table
    assert any(c.get("products") == ["950"] and c["text"]["zh"].startswith("dtype约束：") for c in data["constraints"])
    assert "非确定性" in data["deterministic"]["zh"] and "Ascend 950PR/Ascend 950DT：" in data["deterministic"]["zh"]


def test_named_shapes_become_rules():
    data = _only(_import(need(CURRENT / "aclnnMultiScaleDeformableAttentionGrad.md")))
    exprs = [c.get("expr") for c in data["checks"]]
    assert "value.shape[3] % 8 == 0" in exprs and "value.shape[3] <= 256" in exprs
    assert "gradOutput.shape[2] == value.shape[2] * value.shape[3]" in exprs
    assert any(c["kind"] == "rank_in" and c["params"] == ["location"] for c in data["checks"])


# --- the seeds (old plain text) -------------------------------------------------------------


def test_seed_with_repeated_parameter_line():
    result = _import(need(SEEDS / "000_d01c7313256366ee.txt"))
    assert any("described again" in m.message for m in result.messages)
    data = _only(result)
    assert [p["name"] for p in data["params"]][:3] == ["gradOutput", "self", "indices"]
    assert data["params"][3]["ctype"] == "const aclIntArray*"
    assert data["params"][7] == {**data["params"][7], "name": "ceilMode", "ctype": "bool"}  # 'const bool *' typo
    assert data["sources"] == {"seed": "000_d01c7313256366ee.txt"}
    assert data["products"] == ["910b", "910"]


def test_seed_that_lost_its_error_table():
    result = _import(need(SEEDS / "002_b4237418b7b2097b.txt"))
    data = _only(result)
    assert any("lost in rendering" in m.message for m in result.messages)
    assumed = [c for c in data["checks"] if c.get("documented") is False]
    assert {c["kind"] for c in assumed} >= {"not_null", "dtype_supported"}
    assert all(c.get("review") for c in assumed)
    assert data["products"] == ["910_93", "910b"]  # "no ×" means supported in the scraped table
    self_ = next(p for p in data["params"] if p["name"] == "self")
    assert self_["tensor"]["dtypes"] == [{"products": "all", "dtypes": ["FLOAT", "FLOAT16", "BFLOAT16"]}]


def test_seed_inline_product_qualifier():
    data = _only(_import(need(SEEDS / "004_89c408470a894791.txt")))
    go = data["params"][0]["tensor"]["dtypes"]
    assert {"products": ["910b"], "dtypes": ["FLOAT", "FLOAT16", "BFLOAT16"]} in go  # BFLOAT16(仅Atlas A2…支持)
    assert {"products": ["310p", "910"], "dtypes": ["FLOAT", "FLOAT16"]} in go


# --- sentences -> rules ---------------------------------------------------------------------


@pytest.fixture
def mapper():
    from generator import expr as ex
    from generator.docimport.rules import Mapper, ParamInfo

    params = [
        ParamInfo("gradOutput", ex.TENSOR, "input", rank=(0, 8), has_dtypes=True),
        ParamInfo("self", ex.TENSOR, "input", rank=(0, 8), has_dtypes=True),
        ParamInfo("kernelSize", ex.INTS, "attribute"),
        ParamInfo("padding", ex.INTS, "attribute"),
        ParamInfo("outputMask", ex.BOOLS, "attribute"),
        ParamInfo("reduction", ex.INT, "attribute"),
        ParamInfo("dim", ex.INT, "attribute"),
        ParamInfo("negativeSlope", ex.SCALAR, "attribute"),
        ParamInfo("selfIsResult", ex.BOOL, "attribute"),
        ParamInfo("gradInput", ex.TENSOR, "output", rank=(0, 8), has_dtypes=True),
    ]
    ctx = context()
    return Mapper(params, ctx.vocab, ctx.matcher, ["950", "910b", "910"])


@pytest.mark.parametrize(
    "sentence, expected",
    [
        ("传入的gradOutput、self或gradInput是空指针。", [("not_null", ["gradOutput", "self", "gradInput"])]),
        ("gradOutput和self数据类型不一致。", [("dtype_same", ["gradOutput", "self"])]),
        (
            "gradOutput、self的数据类型和数据格式不在支持的范围之内。",
            [("dtype_supported", None), ("format_supported", None)],
        ),
        ("gradOutput与self的shape不一致，self和gradInput的shape不一致。", [("shape_same", None), ("shape_same", None)]),
        ("gradOutput或self的shape超过8维。", [("rank_in", None)]),
        ("kernelSize的长度不等于1或者2。", [("length_in", ["kernelSize"])]),
        ("kernelSize中存在小于等于0的数值。", [("expr", "all(v > 0 for v in kernelSize)")]),
        ("reduction值不在0~2范围之内。", [("expr", "0 <= reduction <= 2")]),
        ("selfIsResult为true时，negativeSlope是负数。", [("expr", "not (negativeSlope.value < 0)")]),
        ("gradOutput和self的shape不满足broadcast关系。", [("expr", None)]),
        ("平台不支持。", [("product_supported", None)]),
        ("当outputMask[0]为true，传入的gradInput是空指针时。", [("not_null", ["gradInput"])]),
        ("reduction的取值不在[0, 2]范围内。", [("expr", "0 <= reduction <= 2")]),
        ("reduction不是0、1、2中的一个。", [("expr", "reduction in [0, 1, 2]")]),
        ("dim超出self的维度范围。", [("expr", "-max(self.rank, 1) <= dim < max(self.rank, 1)")]),
        ("self的数据类型不属于支持的数据类型。", [("dtype_supported", ["self"])]),
        ("padding中存在小于0或者大于kernelSize/2的数值。", [("expr", "all(v >= 0 for v in padding)"), ("expr", None)]),
        ("gradOutput或self为空tensor。", [("expr", "not gradOutput.empty and not self.empty")]),
    ],
)
def test_sentence_to_rule(mapper, sentence, expected):
    """``expected``: (kind, detail) per check; detail = its params (a list), its expr (a str) or None."""
    drafts = mapper.map_row(sentence, 161002, 1)
    assert [d.kind for d in drafts] == [kind for kind, _ in expected]
    for d, (_, detail) in zip(drafts, expected):
        if isinstance(detail, list):
            assert d.params == detail
        elif isinstance(detail, str):
            assert d.expr == detail
        assert d.mapped and d.enforced and mapper.valid(d.expr or "true")
        assert d.text == sentence  # every part keeps the doc's whole sentence


def test_when_clause(mapper):
    [d] = mapper.map_row("当outputMask[0]为true，传入的gradInput是空指针时。", 161001, 1)
    assert d.when == "outputMask[0]"
    [d] = mapper.map_row("selfIsResult为true时，negativeSlope是负数。", 161002, 1)
    assert d.when == "selfIsResult"


def test_product_exclusion(mapper):
    [d] = mapper.map_row("reduction值不在0~2范围之内，但对Ascend 950PR/Ascend 950DT无此校验", 161002, 1)
    assert d.products == ["910b", "910"]


def test_broadcast_rules_type_check(mapper):
    from generator import expr as ex

    for sentence in (
        "gradOutput和self的shape不满足broadcast关系。",
        "gradInput的shape与gradOutput和self的broadcast结果不一致。",
    ):
        [d] = mapper.map_row(sentence, 161002, 1)
        assert d.kind == "expr" and mapper.valid(d.expr), d.expr
        assert ex.parse(d.expr, mapper.scope).type == ex.BOOL


def test_hostile_doc_text_is_only_data(tmp_path, monkeypatch):
    """Hostile strings in prose spots of a doc come back exactly as YAML data, and none of them runs
    while the importer checks the example against the spec's own validator."""
    monkeypatch.chdir(tmp_path)
    from generator.docimport import dump_spec
    from generator.docimport.validator import load_spec
    from generator.yamlio import load_yaml
    from tests.hostile.strings import HOSTILE

    text = _elu_text()
    for i, hostile in enumerate(HOSTILE):
        safe = hostile.replace("<", "‹").replace("\n", " ").replace("\r", " ")  # keep the HTML/Markdown structure
        doc = text.replace("表示ELU激活函数的缩放系数", safe, 1).replace(
            "参数gradOutput、selfOrResult的数据类型不一致。", safe, 1
        )
        result = _import(f"hostile{i}.md", doc)
        data = _only(result)
        back = load_yaml(dump_spec(data)).data
        assert back == data
        load_spec(data, context().catalog)  # and `opgen lint` accepts it
        scale = next(p for p in data["params"] if p["name"] == "scale")
        plain = re.sub(r"[\ud800-\udfff]", "\ufffd", re.sub(r"\s+", " ", safe)).strip()
        if plain.isprintable() and "\\" not in plain and "&" not in plain:
            assert plain in scale["description"]["zh"]
    assert not (tmp_path / "pwned").exists()
