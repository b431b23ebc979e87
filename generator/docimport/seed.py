"""Reader for the older plain-text docs (the seeds): bare-line headings, one line per parameter.

Both generations are read: the CANN 8.0-era layout (支持的产品型号, 接口原型, 功能描述,
``aclnnXxxGetWorkSpaceSize``, 参数说明:, 返回值:, 约束与限制, 调用示例) and the scraped web page
(产品支持情况… with ``[object Object]`` and ``undefined`` left where links and tables were).
Parameters are recognised by their ``name(type, role):`` shape, never by indentation; a line
``- <products>:数据类型支持…`` belongs to the parameter above it. Known defects (a repeated
parameter line, lost tables, KaTeX duplicates) are reported, not fatal.
"""

from __future__ import annotations

import re

from generator.docimport import notes as notes_mod
from generator.docimport.errors import inline_errors
from generator.docimport.facts import ApiFacts, ConstraintFact, DocFacts, ParamRow, ProductFact
from generator.docimport.prototype import prototypes
from generator.docimport.sample import read_sample
from generator.docimport.source import Source, heading_key
from generator.docimport.text import squash, strip_markdown

_PARAM = re.compile(
    r"^\s*(?:[-•*]\s*)?([A-Za-z_][A-Za-z0-9_]*)\s*[(（]\s*([^,，()（）]+?)\s*[,，]\s*"
    r"(计算输入|计算输出|入参|出参|输入|输出)\s*[)）]\s*[:：]\s*(.*)$"
)
_WS = re.compile(r"^(aclnn[A-Za-z0-9_]+?)GetWork[sS]pace[sS]ize\s*$")
_API = re.compile(r"^(aclnn[A-Za-z0-9_]+)\s*$")
_PRODUCT_LINE = re.compile(r"^\s*(?:[-•*]\s*)?(.+?)\s*[:：]\s*(数据类型.*)$")


def _bare(line: str) -> str:
    return re.sub(r"^\s*(?:[-•*]\s*)?", "", line).strip()


def read_seed(src: Source, ctx) -> DocFacts:
    facts = DocFacts(src.path, "zh", "seed")
    lines = src.lines
    marks: list[tuple[int, str, str]] = []  # (line, key, api)
    for number, raw in enumerate(lines, 1):
        text = _bare(raw).rstrip(":：")
        key = heading_key(text)
        if key and len(text) <= 12:
            marks.append((number, key, ""))
            continue
        m = _WS.match(text)
        if m:
            marks.append((number, "ws", m.group(1)))
            continue
        m = _API.match(text)
        if m and not facts.title:
            facts.title, facts.title_line = m.group(1), number
            marks.append((number, "title", m.group(1)))
        elif m and text == facts.title:
            marks.append((number, "exec", m.group(1)))
    if not facts.title:
        facts.warn(1, "no operator name (aclnnXxx) found on a line of its own")

    def span(index: int) -> tuple[int, int]:
        first = marks[index][0] + 1
        last = marks[index + 1][0] - 1 if index + 1 < len(marks) else len(lines)
        return first, last

    by_key: dict[str, int] = {}
    for i, (_, key, _) in enumerate(marks):
        by_key.setdefault(key, i)
    if "products" in by_key:
        _products(src, *span(by_key["products"]), facts, ctx)
    if "function" in by_key:
        _function(src, *span(by_key["function"]), facts)
    protos = []
    if "prototype" in by_key:
        first, last = span(by_key["prototype"])
        protos = prototypes(src.block(first, last), first)
    if not protos:
        protos = prototypes(src.text, 1)
    for p in protos:
        if p.name.endswith("GetWorkspaceSize"):
            name = p.name[: -len("GetWorkspaceSize")]
            if not any(a.name == name for a in facts.apis):
                facts.apis.append(ApiFacts(name, p.line, prototype=p))
    for p in protos:
        for a in facts.apis:
            if p.name == a.name:
                a.exec_prototype = p
    for i, (number, key, name) in enumerate(marks):
        if key != "ws":
            continue
        api = next((a for a in facts.apis if a.name == name), None)
        if api is None:
            api = ApiFacts(name, number)
            facts.apis.append(api)
            facts.warn(number, f"'{name}GetWorkspaceSize' has no prototype; parameters come from its list")
        first, last = span(i)
        # The section runs until the phase-2 heading (参数说明:/返回值: are inside it).
        j = i + 1
        while j < len(marks) and marks[j][1] not in ("exec", "constraints", "example", "ws", "title"):
            j += 1
        last = marks[j][0] - 1 if j < len(marks) else len(lines)
        _workspace(src, first, last, api, facts, ctx)
    if not facts.apis and facts.title:
        facts.apis.append(ApiFacts(facts.title, facts.title_line))
    if "constraints" in by_key:
        _constraints(src, *span(by_key["constraints"]), facts, ctx)
    if "example" in by_key:
        first, _ = span(by_key["example"])
        code = src.block(first, len(lines))
        if "GetWorkspaceSize(" in code:
            for api in facts.apis:
                params = [(p.name, p.ctype) for p in (api.prototype.params if api.prototype else [])]
                api.sample = read_sample(code, first, api.name, params, ctx.vocab)
            facts.sample = facts.apis[0].sample if facts.apis else None
        else:
            facts.warn(first, "the call sample is missing (lost in rendering)", "note")
    return facts


def _products(src: Source, first: int, last: int, facts: DocFacts, ctx) -> None:
    facts.products_found = True
    for number in range(first, last + 1):
        raw = src.lines[number - 1]
        text = _bare(raw)
        if not text or re.fullmatch(r"产品\s*是否支持", text):
            continue
        supported = not re.search(r"×|不支持", text)
        label = re.sub(r"\[object Object\]", " ", text)
        label = re.sub(r"[×√]|不支持|支持", "", label).strip().rstrip("。.").strip()
        if not label:
            continue
        tag = ctx.matcher.tag(label)
        if tag is None:
            facts.warn(number, f"unknown product '{label[:60]}' (not in the catalogue); ignored")
            continue
        if any(p.tag == tag for p in facts.products):
            continue
        facts.products.append(ProductFact(tag, supported, label, number))


def _function(src: Source, first: int, last: int, facts: DocFacts) -> None:
    facts.function_line = first
    prose = []
    for number in range(first, last + 1):
        text = squash(_bare(src.lines[number - 1]).replace("undefined", ""))
        if not text:
            continue
        m = re.match(r"^(?:算子功能|接口功能)\s*[:：]\s*(.*)$", text)
        if m:
            facts.summary = facts.summary or m.group(1).strip()
            text = m.group(1).strip()
        prose.append(text)
    if not facts.summary and prose:
        facts.summary = prose[0]
    facts.description = "".join(prose)


def _workspace(src: Source, first: int, last: int, api: ApiFacts, facts: DocFacts, ctx) -> None:
    lines = [(n, src.lines[n - 1]) for n in range(first, last + 1)]
    read_param_lines(lines, api, facts, ctx)
    if not api.error_table_found and "[object Object]" in src.block(first, last):
        facts.warn(first, "the error table was lost in rendering ([object Object])")


def read_param_lines(lines: list[tuple[int, str]], api: ApiFacts, facts: DocFacts, ctx) -> None:
    """Parameters written one per line as ``name(type, role): text`` (seeds, older Markdown docs)."""
    vocab, matcher = ctx.vocab, ctx.matcher
    current: ParamRow | None = None
    seen: set[str] = {r.name for r in api.rows}
    for number, raw in lines:
        text = raw.strip()
        if "<" in text or "](" in text:
            text = strip_markdown(text).strip()
        if not text:
            continue
        if "入参校验" in text or re.search(r"\d{6}\s*[（(]\s*ACLNN_", text):
            rows = inline_errors(text, number, ctx.status_by_name)
            if rows:
                api.errors += rows
                api.error_table_found = True
            continue
        m = _PARAM.match(text)
        if m:
            name, ctype, role, body = m.group(1), m.group(2), m.group(3), m.group(4)
            if name in seen:
                facts.warn(number, f"parameter '{name}' is described again (a copy in the doc); the first is used")
                current = None
                continue
            seen.add(name)
            body = body.replace("undefinedundefined支持", "支持非连续的Tensor,数据格式支持").replace(
                "undefined支持", "数据格式支持"
            )
            # "undefined为NCL,NCHW、NCDHW": the lost link text is 数据格式 when format names follow
            body = re.sub(r"undefined为(?=\s*(?:ND|NC|NCL|NCHW|NCDHW|NHWC|NDHWC)(?![A-Za-z0-9_]))", "数据格式为", body)
            role_key = "output" if "输出" in role or "出参" in role else "input"
            current = ParamRow(name=name, line=number, ctype=ctype, role=role_key, inline=True)
            current.description = squash(body.replace("undefined", ""))
            _param_facts(current, body, vocab, matcher)
            api.rows.append(current)
            api.table_found = True
            continue
        m = _PRODUCT_LINE.match(text)
        if m and current is not None:
            tags, unknown = matcher.tags_in(m.group(1))
            if tags and not unknown:
                dtypes = vocab.dtype_run(re.sub(r"^数据类型\s*(?:仅)?支持\s*", "", m.group(2)))
                if dtypes:
                    for tag in tags:
                        current.dtypes[tag] = dtypes
                    continue
        if current is not None and re.match(r"^\s*[-•*]\s*\d+\s*[:：]", text):
            current.usage = (current.usage + " " + _bare(text)).strip()  # enum items (cubeMathType)


def _param_facts(row: ParamRow, body: str, vocab, matcher) -> None:
    text = body.replace("，", ",").replace("：", ":")
    m = re.search(r"数据类型\s*(?:仅|只)?\s*(?:支持|为)\s*", text)
    if m:
        listing = text[m.end() :].split("。")[0]
        qualified = {}
        for q in re.finditer(r"([A-Za-z][A-Za-z0-9_]*)\s*[(（]\s*仅(.+?)支持\s*[)）]", listing):
            tags, _ = matcher.tags_in(q.group(2))
            name = vocab.dtype(q.group(1))
            if name and tags:
                qualified[name] = tags
        listing = re.sub(r"[(（]\s*仅.+?支持\s*[)）]", "", listing)
        names = vocab.dtype_run(listing)
        if names:
            plain = [n for n in names if n not in qualified]
            row.dtypes[None] = plain
            for name, tags in qualified.items():
                for tag in tags:
                    row.dtypes.setdefault(tag, list(plain)).append(name)
    m = re.search(r"(INT64|INT32|BOOL|FLOAT)类型(?:的)?数组", text)
    if m and None not in row.dtypes:
        row.dtypes[None] = [m.group(1)]
    m = re.search(r"数据格式\s*(?:仅|只)?\s*(?:支持|为)\s*([A-Za-z0-9_、,\s]+)", text)
    if m:
        formats = vocab.format_run(m.group(1))
        if formats:
            row.formats = formats
    m = re.search(r"(?:数据)?维度\s*支持\s*(\d+)\s*[-~至]\s*(\d+)\s*维", text)
    if m:
        row.rank = (int(m.group(1)), int(m.group(2)))
    m = re.search(r"支持维度\s*(\d+)\s*[-~至]\s*(\d+)\s*维", text) or re.search(r"维度为\s*(\d+)()\s*维", text)
    if m and row.rank is None:
        row.rank = (int(m.group(1)), int(m.group(2) or m.group(1)))
    m = re.search(r"数据类型\s*(?:与|和)\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:的)?(?:数据)?类型?\s*(?:相同|一致)", text)
    if m and not row.dtypes:
        row.dtype_same_as = m.group(1)
    m = re.search(r"不支持\s*(\d+)\s*维以上", text)
    if m and row.rank is None:
        row.rank = (0, int(m.group(1)))
    m = re.search(r"shape为\s*[(（]([^()（）]*)[)）]", text)
    if m:
        dims = [d for d in re.split(r"[,，]", m.group(1)) if d.strip()]
        if dims and row.rank is None:
            row.rank = (len(dims), len(dims))
        row.shape_text = f"({m.group(1).strip()})"
    if re.search(r"支持非连续", text):
        row.non_contiguous = True
    elif re.search(r"不支持非连续", text):
        row.non_contiguous = False
    if re.search(r"不支持空\s*[Tt]ensor", text):
        row.empty = False
    m = re.search(r"可转换为\s*([A-Za-z0-9_]+)\s*的数据类型", text)
    if m:
        row.castable_to = vocab.dtype(m.group(1))
    m = re.search(r"数组长度\s*(?:是|为)\s*(\d+)", text)
    if m:
        row.usage = (row.usage + f" 数组长度为{m.group(1)}。").strip()
    m = re.search(r"长度为\s*(\d+)(?:\s*\(.*?\))?\s*或\s*(\d+)", text)
    if m:
        row.usage = (row.usage + f" 长度支持{m.group(1)}、{m.group(2)}。").strip()


def _constraints(src: Source, first: int, last: int, facts: DocFacts, ctx) -> None:
    lines = [(n, src.lines[n - 1].replace("undefined", "")) for n in range(first, last + 1)]
    roots = notes_mod.items(lines)
    for root in roots:
        notes_mod.resolve_products(root, ctx.matcher, facts.warn)
    for root in roots:
        text = squash(" ".join([root.body] + [_flat(c) for c in root.children]))
        if not text or re.fullmatch(r"无。?", text):
            continue
        m = re.match(r"^(.+?)\s*[:：]\s*(.+)$", text)
        products = root.products
        if m and not products:
            tags, unknown = ctx.matcher.tags_in(m.group(1))
            if tags and not unknown:
                products = tags
        facts.constraints.append(ConstraintFact(text, products, root.line))


def _flat(item) -> str:
    return " ".join([item.body] + [_flat(c) for c in item.children])
