"""Bulleted statements (notes below a parameter table, 约束说明 items) and the facts they state.

``items(lines)`` turns a block of doc lines into :class:`Item` records (text, indentation,
products from ``<!-- npu="..." -->`` wrappers and ``<term>`` labels, children).
``statement_facts`` reads the dtype and format statements of one item ("参数self、out的数据类型
不支持BFLOAT16", "数据类型支持FLOAT、FLOAT16", "gradOutput和self数据类型支持…，数据格式支持ND…").
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from generator.docimport.facts import DtypeFact
from generator.docimport.text import strip_markdown, strip_tags

_NPU_OPEN = re.compile(r'<!--\s*npu\s*=\s*"([^"]*)"[^>]*-->')
_NPU_END = re.compile(r"<!--\s*end\b[^>]*-->")
_BULLET = re.compile(r"^(\s*)(?:[-*+•]|\d+[.、)])\s+(.*)$")
_LABELS = re.compile(
    r"^\s*((?:(?:<term>.*?</term>|\[object Object\].*?\[object Object\])\s*(?:、|，|,|和|及|and)?\s*)+)\s*[：:]\s*(.*)$",
    re.S,
)


@dataclass
class Item:
    text: str  # as written (HTML tags and markdown kept)
    line: int
    indent: int
    npu: str | None
    products: list[str] | None = None  # resolved later
    label_text: str = ""  # the "<term>A</term>、<term>B</term>" prefix, if any
    body: str = ""  # text after the label prefix
    children: list[Item] = field(default_factory=list)
    bullet: bool = True

    def all_text(self) -> str:
        return " ".join([self.text] + [c.all_text() for c in self.children])


def items(lines: list[tuple[int, str]]) -> list[Item]:
    """Top-level items of a block (children nested by indentation)."""
    flat: list[Item] = []
    npu: str | None = None
    lines = _join_math(lines)
    for number, raw in lines:
        line = raw.rstrip()
        opened = _NPU_OPEN.search(line)
        if opened:
            npu = opened.group(1)
            line = _NPU_OPEN.sub("", line)
        if _NPU_END.search(line):
            line = _NPU_END.sub("", line)
            if not line.strip():
                npu = None
                continue
            closing = True
        else:
            closing = False
        if not line.strip():
            if closing:
                npu = None
            continue
        line = line.replace("\t", "    ")
        m = _BULLET.match(line)
        if m:
            flat.append(Item(m.group(2).strip(), number, len(m.group(1)), npu))
        else:
            indent = len(line) - len(line.lstrip())
            if flat and flat[-1].bullet and indent > flat[-1].indent and not _LABELS.match(line.strip()):
                flat[-1].text += " " + line.strip()  # continuation of a bullet
            else:
                flat.append(Item(line.strip(), number, indent, npu, bullet=False))
        if closing:
            npu = None
    roots: list[Item] = []
    stack: list[Item] = []
    for item in flat:
        m = _LABELS.match(item.text)
        if m:
            item.label_text, item.body = m.group(1), m.group(2).strip()
        else:
            item.body = item.text
        while stack and stack[-1].indent >= item.indent:
            stack.pop()
        if stack and item.bullet:
            stack[-1].children.append(item)
        else:
            roots.append(item)
        stack.append(item)
    return roots


def _join_math(lines: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """``$$`` display-math blocks folded into the line before them (they belong to that item)."""
    out: list[tuple[int, str]] = []
    block: list[str] | None = None
    for number, raw in lines:
        stripped = raw.strip()
        if block is not None:
            if stripped.startswith("$$"):
                _append(out, number, "$$ " + " ".join(x for x in block if x) + " $$")
                block = None
            else:
                block.append(stripped)
            continue
        if stripped.startswith("$$") and not (len(stripped) > 4 and stripped.endswith("$$")):
            block = [stripped[2:].strip()] if stripped[2:].strip() else []
            continue
        if stripped.startswith("$$"):
            _append(out, number, stripped)
            continue
        out.append((number, raw))
    if block:
        out.append((lines[-1][0], "$$ " + " ".join(block)))
    return out


def _append(out: list[tuple[int, str]], number: int, text: str) -> None:
    for i in range(len(out) - 1, -1, -1):
        if out[i][1].strip() and not out[i][1].strip().startswith("<!--"):
            out[i] = (out[i][0], out[i][1].rstrip() + " " + text)
            return
    out.append((number, text))


def resolve_products(item: Item, matcher, warn, inherited: list[str] | None = None) -> None:
    """Set ``item.products`` (labels first, then the npu wrapper, then the parent's) recursively."""
    products = inherited
    from_npu = None
    if item.npu:
        tags, unknown = matcher.npu_tags(item.npu)
        for u in unknown:
            warn(item.line, f"unknown product '{u}' in npu=\"{item.npu}\"")
        from_npu = tags or None
    if item.label_text:
        tags, unknown = matcher.tags_in(item.label_text)
        for u in unknown:
            warn(item.line, f"unknown product label '{strip_tags(u)}'")
        if tags:
            if from_npu and set(from_npu) != set(tags):
                warn(
                    item.line,
                    f'the product labels ({", ".join(tags)}) contradict npu="{item.npu}"; the labels are used',
                )
            products = tags
        elif from_npu:
            products = from_npu
    elif from_npu:
        products = from_npu
    item.products = products
    for child in item.children:
        resolve_products(child, matcher, warn, products)


# --- statements ---------------------------------------------------------------------------


_DTYPE_POS = re.compile(r"数据类型\s*(?:仅|只)?\s*(?:支持|为|可以为|可以是|是)\s*[：:]?\s*(.*)$")
_DTYPE_NEG = re.compile(r"数据类型\s*(?:不支持|不能为|不可以为|不能是)\s*[：:]?\s*(.*)$")
_FORMAT_POS = re.compile(r"数据格式\s*(?:仅|只)?\s*(?:支持|为|可以为|可以是|是)\s*[：:]?\s*(.*)$")
_FORMAT_NEG = re.compile(r"数据格式\s*(?:不支持|不能为)\s*[：:]?\s*(.*)$")


_DTYPE_BEFORE = re.compile(r"(不支持|仅支持|只支持|支持)\s*([A-Za-z][A-Za-z0-9_、,，/和或\s]*?)\s*(?:的)?数据类型")


def _statement(body: str):
    """(what, negative, start of the predicate, the listed values) of a dtype/format statement."""
    for pattern, what, negative in (
        (_DTYPE_NEG, "dtype", True),
        (_DTYPE_POS, "dtype", False),
        (_FORMAT_NEG, "format", True),
        (_FORMAT_POS, "format", False),
    ):
        m = pattern.search(body)
        if m:
            return what, negative, m.start(), m.group(1)
    m = _DTYPE_BEFORE.search(body)  # "不支持BFLOAT16、INT64数据类型"
    if m:
        return "dtype", m.group(1) == "不支持", m.start(), m.group(2)
    return None


@dataclass
class StatementFacts:
    dtypes: list[DtypeFact] = field(default_factory=list)
    formats: list[tuple[list[str] | None, list[str], bool]] = field(default_factory=list)  # (params, formats, negative)
    unmapped: list[str] = field(default_factory=list)  # sentences that state something else


def _subject_params(subject: str, names: set[str]) -> list[str] | None:
    found = [w for w in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", subject) if w in names]
    out: list[str] = []
    for w in found:
        if w not in out:
            out.append(w)
    return out or None


def statement_facts(text: str, products, names: set[str], vocab, line: int) -> StatementFacts:
    """The dtype/format facts of one statement; sentences that state anything else are kept."""
    result = StatementFacts()
    plain = strip_markdown(text)
    for sentence in [s for s in re.split(r"(?<=[。；;])", plain) if s.strip()]:
        clauses = [c for c in re.split(r"[，,](?=[^，,]*(?:数据类型|数据格式))", sentence) if c.strip()]
        subject: list[str] | None = None
        mapped_any, unmapped = False, False
        for clause in clauses:
            body = clause.strip().rstrip("。；;.")
            found = _statement(body)
            if found is None:
                unmapped = True
                continue
            what, negative, start, values = found
            head = body[:start]
            params = _subject_params(head, names)
            if params is None and head.strip(" 的参数，,") and not re.fullmatch(r"[\s参数的输入输出所有]*", head):
                if subject is None:
                    unmapped = True
                    continue
            subject = params or subject
            if what == "dtype":
                dtypes = vocab.dtype_run(values)
                if not dtypes:
                    unmapped = True
                    continue
                result.dtypes.append(DtypeFact(dtypes, products, subject, negative, line, clause.strip()))
                mapped_any = True
            else:
                formats = vocab.format_run(values)
                if not formats:
                    unmapped = True
                    continue
                result.formats.append((subject, formats, negative))
                mapped_any = True
        if unmapped or not mapped_any:
            result.unmapped.append(sentence.strip())
    return result
