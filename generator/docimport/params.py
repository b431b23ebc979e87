"""The parameter table of ``aclnnXxxGetWorkspaceSize`` (and its cells) -> :class:`ParamRow` records.

Columns are matched by their header text, never by position: the eight canonical columns
(参数名, 输入/输出, 描述, 使用说明, 数据类型, 数据格式, 维度(shape), 非连续Tensor), their spelling
variants and the English twins' headers. A first cell may carry the C type (``gradOutput（aclTensor*）``).
"""

from __future__ import annotations

import re

from generator.docimport.facts import ParamRow
from generator.docimport.tables import Cell, Table
from generator.docimport.text import cell_items, cell_text, join_items, strip_markdown, strip_tags

COLUMNS: dict[str, tuple[str, ...]] = {
    "name": ("参数名", "参数", "name", "parameter", "参数名称", "paramname"),
    "role": ("输入/输出", "输入/输出/属性", "input/output", "输入输出", "类型", "direction", "i/o"),
    "description": ("描述", "description", "说明", "参数描述"),
    "usage": ("使用说明", "usagenotes", "usage", "precaution", "precautions", "notes", "约束说明", "使用约束"),
    "dtype": ("数据类型", "datatype", "dtype"),
    "format": ("数据格式", "dataformat", "format"),
    "shape": ("维度(shape)", "维度", "shape", "dimension(shape)", "dimension", "维度（shape）", "shape维度"),
    "noncontig": (
        "非连续tensor",
        "非连续张量tensor",
        "非连续的tensor",
        "非连续",
        "非连续张量",
        "non-contiguoustensor",
        "noncontiguoustensor",
        "non-contiguous",
    ),
}


def column_key(header: str) -> str | None:
    norm = re.sub(r"\s+", "", strip_tags(header)).lower().replace("（", "(").replace("）", ")")
    for key, names in COLUMNS.items():
        if norm in (n.replace("（", "(").replace("）", ")") for n in names):
            return key
    if "非连续" in norm or "contiguous" in norm:
        return "noncontig"
    if norm.startswith("维度") or norm.startswith("dimension"):
        return "shape"
    return None


def is_param_table(table: Table) -> bool:
    keys = [column_key(c.html) for c in table.header]
    return "name" in keys and ("role" in keys or "description" in keys) and "dtype" not in keys[:1]


_NAME_CELL = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:[（(]\s*([^()（）]*?)\s*[)）])?\s*$")


def split_name_cell(text: str) -> tuple[str | None, str | None]:
    """``gradOutput（aclTensor*）`` -> ("gradOutput", "aclTensor*")."""
    m = _NAME_CELL.match(strip_markdown(text).strip())
    if not m:
        words = re.findall(r"[A-Za-z_][A-Za-z0-9_]*", strip_markdown(text))
        return (words[0] if words else None), None
    return m.group(1), (m.group(2) or None)


def role_of(text: str) -> str | None:
    t = strip_tags(text).strip().lower()
    if re.fullmatch(r"输入\s*/\s*输出|input\s*/\s*output|入参\s*/\s*出参|inout|in/out", t):
        return "inout"
    if t in ("输入", "input", "入参", "计算输入", "in"):
        return "input"
    if t in ("输出", "output", "出参", "计算输出", "out"):
        return "output"
    if t in ("属性", "attribute", "attr"):
        return "attribute"
    if "输出" in t or "output" in t:
        return "output"
    if "输入" in t or "input" in t:
        return "input"
    return None


def rank_of(text: str) -> tuple[tuple[int, int] | None, str]:
    """(rank range, shape text) of a 维度(shape) cell: ``0-8``, ``4``, ``(bs, C)<br>...``, prose."""
    items = cell_items(text)
    if not items:
        return None, ""
    first = items[0].strip().rstrip("。.")
    full = join_items(items)
    if first in ("-", "—", "–", "/"):
        return None, ""
    m = re.fullmatch(r"(\d+)\s*(?:-|–|—|~|～|至|to)\s*(\d+)\s*维?", first)
    if m:
        a, b = int(m.group(1)), int(m.group(2))
        return ((a, b) if a <= b and b <= 64 else None), ("" if len(items) == 1 else full)
    m = re.fullmatch(r"(\d+)\s*维?", first)
    if m and int(m.group(1)) <= 64:
        return (int(m.group(1)), int(m.group(1))), ("" if len(items) == 1 else full)
    m = re.fullmatch(r"(\d+)\s*(?:或|、|,|，|/|or)\s*(\d+)\s*维?", first)
    if m:
        a, b = sorted((int(m.group(1)), int(m.group(2))))
        if b - a == 1 and b <= 64:
            return (a, b), ("" if len(items) == 1 else full)
    m = re.fullmatch(r"[（(]([^()（）]*)[)）]", first)
    if m:
        dims = [d for d in re.split(r"[,，]", m.group(1)) if d.strip()]
        if dims:
            return (len(dims), len(dims)), full
    if "约束" in full or "constraint" in full.lower():
        return None, ""
    return None, full


def noncontig_of(text: str) -> bool | None:
    t = strip_tags(text).strip()
    if t in ("√", "✓", "✔", "是", "支持", "yes", "Yes", "Y"):
        return True
    if t in ("×", "✗", "x", "否", "不支持", "no", "No", "N"):
        return False
    return None


def read_table(table: Table, matcher, vocab, warn) -> list[ParamRow]:
    """Rows of a parameter table (``warn(line, message)`` records problems)."""
    keys = [column_key(c.html) for c in table.header]
    rows: list[ParamRow] = []
    grid = table.grid()
    for cells in grid[1:]:
        by_key: dict[str, Cell] = {}
        for key, cell in zip(keys, cells):
            if key is not None and cell is not None and key not in by_key:
                by_key[key] = cell
        name_cell = by_key.get("name")
        if name_cell is None or not strip_tags(name_cell.html).strip():
            continue
        name, ctype = split_name_cell(strip_tags(name_cell.html))
        if name is None:
            warn(name_cell.line, f"parameter cell '{strip_tags(name_cell.html).strip()[:60]}' names no parameter")
            continue
        row = ParamRow(name=name, line=name_cell.line, ctype=ctype)
        row.cells = {k: c.html for k, c in by_key.items()}
        if "role" in by_key:
            row.role = role_of(by_key["role"].html)
        if "description" in by_key:
            row.description = cell_text(by_key["description"].html)
        if "usage" in by_key:
            row.usage = cell_text(by_key["usage"].html)
        if "dtype" in by_key:
            row.dtype_cell = by_key["dtype"].html
            read_dtype_cell(row, by_key["dtype"].html, matcher, vocab, warn, by_key["dtype"].line)
        if "format" in by_key:
            text = cell_text(by_key["format"].html)
            if text:
                formats, unknown = vocab.format_list(text)
                row.formats = formats or None
                row.unknown_formats = unknown
        if "shape" in by_key:
            row.rank, row.shape_text = rank_of(by_key["shape"].html)
        if "noncontig" in by_key:
            row.non_contiguous = noncontig_of(by_key["noncontig"].html)
        usage = row.usage + row.description
        if re.search(r"不支持空\s*Tensor|不支持空tensor|empty tensors? (?:are|is) not supported", usage, re.I):
            row.empty = False
        elif re.search(r"支持空\s*Tensor|支持空tensor|empty tensors? (?:are|is) supported", usage, re.I):
            row.empty = True
        rows.append(row)
    return rows


_SAME_AS = re.compile(
    r"^(?:数据类型)?\s*(?:与|和|同)\s*`?\*{0,2}([A-Za-z_][A-Za-z0-9_]*)\*{0,2}`?\s*(?:的数据类型)?\s*(?:保持)?\s*(?:一致|相同)"
    r"|^same as \**`?([A-Za-z_][A-Za-z0-9_]*)`?\**",
    re.I,
)
_CASTABLE = re.compile(r"可转换为\s*([A-Za-z0-9_]+)\s*的数据类型|convertible to ([A-Za-z0-9_]+)", re.I)
_ONLY = re.compile(r"([A-Za-z][A-Za-z0-9_]*)\s*[（(]\s*仅(.+?)支持\s*[)）]")


def read_dtype_cell(row: ParamRow, html_text: str, matcher, vocab, warn, line: int) -> None:
    """Fill ``row.dtypes`` (product -> dtypes; None = every product) from a 数据类型 cell."""
    items = cell_items(html_text)
    if not items or items == ["-"]:
        return
    text = join_items(items)
    m = _SAME_AS.match(strip_markdown(text).strip())
    if m:
        row.dtype_same_as = m.group(1) or m.group(2)
        return
    m = _CASTABLE.search(text)
    if m:
        row.castable_to = vocab.dtype(m.group(1) or m.group(2))
        return
    # Per-product lines: "<term>P1</term>、<term>P2</term>：FLOAT、FLOAT16<br>..."
    lines = re.split(r"<\s*br\s*/?>|</li>|<li>|\n", html_text)
    per_product = [
        ln for ln in lines if re.search(r"[：:]", strip_tags(ln)) and ("<term>" in ln or _labels_resolve(ln, matcher))
    ]
    if per_product:
        for ln in per_product:
            labels, _, values = (
                strip_tags_keep_terms(ln).rpartition("：") if "：" in ln else strip_tags_keep_terms(ln).rpartition(":")
            )
            tags, unknown = matcher.tags_in(labels)
            for label in unknown:
                warn(line, f"unknown product '{strip_tags(label)}' in the dtype cell of '{row.name}'")
            names, bad = vocab.dtype_list(values)
            row.unknown_dtypes += bad
            for tag in tags:
                row.dtypes[tag] = names
        return
    # "BFLOAT16(仅<product>支持)" qualifiers
    plain = strip_tags(text)
    qualified: dict[str, list[str]] = {}
    for q in _ONLY.finditer(plain):
        name = vocab.dtype(q.group(1))
        tags, _ = matcher.tags_in(q.group(2))
        if name and tags:
            qualified[name] = tags
    plain = _ONLY.sub(r"\1", plain)
    if re.fullmatch(r"\s*bool\s*array\s*", plain, re.I) or plain.strip().upper() == "BOOLARRAY":
        plain = "BOOL"
    names, unknown = vocab.dtype_list(plain)
    row.unknown_dtypes += unknown
    if not names:
        return
    if qualified:
        everywhere = [n for n in names if n not in qualified]
        row.dtypes[None] = everywhere
        for name, tags in qualified.items():
            for tag in tags:
                row.dtypes.setdefault(tag, list(everywhere))
                row.dtypes[tag].append(name)
    else:
        row.dtypes[None] = names


def _labels_resolve(line: str, matcher) -> bool:
    head = strip_tags(line).split("：")[0].split(":")[0]
    tags, unknown = matcher.tags_in(head)
    return bool(tags) and not unknown


def strip_tags_keep_terms(fragment: str) -> str:
    """Tags removed except ``<term>`` (product labels stay delimited)."""
    return re.sub(r"<(?!/?term>)[^<>]*>", "", fragment)
