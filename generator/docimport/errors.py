"""The error table of ``aclnnXxxGetWorkspaceSize`` -> :class:`ErrorRow` records (code, name, text).

Rows are read by what their cells hold, not by position, so broken row spans are harmless: a cell
``ACLNN_...`` starts a code group, a six-digit cell gives its value, any other cell is one error
description of the current group (a row with only the group cells and no description, or an
empty ``<tr></tr>``, adds nothing). The seeds' one-line form ``返回161001(ACLNN_ERR_PARAM_NULLPTR):
1. ... 2. ...`` is read by :func:`inline_errors`.
"""

from __future__ import annotations

import re

from generator.docimport.facts import ErrorRow
from generator.docimport.tables import Table
from generator.docimport.text import strip_tags

_NAME = re.compile(r"^\s*(ACLNN_[A-Z0-9_]+)\s*$")
_CODE = re.compile(r"^\s*(\d{6})\s*$")
_NUMBERING = re.compile(r"^\s*(?:\d+\s*[.、)）]|[（(]\d+[)）])\s*")


def is_error_table(table: Table) -> bool:
    """The 返回码 | 错误码 | 描述 table (a wider table that also has 检查/规则 columns is something else)."""
    heads = [strip_tags(c.html).strip().lower() for c in table.header]
    joined = " ".join(heads)
    if not ("错误码" in joined or "error code" in joined or "errorcode" in joined):
        return False
    if any(h in ("检查", "规则", "check", "rule", "序号", "no.") for h in heads):
        return False
    return any(h.startswith(("返回", "return")) for h in heads) or len(heads) == 3


_SUP = re.compile(r"<sup\b[^>]*>.*?</sup>", re.S | re.I)
_LABELLED = re.compile(r"^\s*((?:<term>.*?</term>\s*(?:、|，|,|和|and)?\s*)+)[：:]\s*(.*)$", re.S)


def read_table(
    table: Table, status_by_name: dict[str, int], status_by_value: dict[int, str], warn, matcher=None
) -> list[ErrorRow]:
    rows: list[ErrorRow] = []
    name: str | None = None
    code: int | None = None
    for cells in table.rows[1:]:
        descriptions = []
        for cell in cells:
            text = strip_tags(cell.html).strip()
            if _NAME.match(text):
                name = _NAME.match(text).group(1)
                code = status_by_name.get(name)
                if code is None:
                    warn(cell.line, f"unknown status code name '{name}'")
            elif _CODE.match(text):
                value = int(text)
                if code is not None and value != code:
                    warn(cell.line, f"error code {value} contradicts {name} ({code}); {value} is used")
                code = value
                if name is None or status_by_name.get(name) != value:
                    name = status_by_value.get(value, name)
            else:
                for item in _html_items(cell.html):
                    descriptions.append((item, cell.line))
        for item, line in descriptions:
            _add_rows(rows, item, None, name, code, line, warn, matcher)
    return rows


def _add_rows(rows, item: _Item, products, name, code, line, warn, matcher) -> None:
    """One description item (and its nested list) as rows.

    ``<term>P</term>：`` before an item (or a nested list) gives its rows those products; a text that
    ends in a colon above a nested list (``X不符合约束：<ul><li>a</li>...``) is the shared head of one
    row per list item (``X不符合约束（a）。``), as pages group rows that differ in a trailing
    parenthesis; any other text above a list is a row of its own, and so is each list item.
    """
    head = _NUMBERING.sub("", strip_tags_but_terms(item.html))
    labelled = _LABELLED.match(head)
    if labelled and matcher is not None:
        tags, unknown = matcher.tags_in(labelled.group(1))
        if tags and not unknown:
            products = tags if products is None else [t for t in products if t in tags] or tags
            head = labelled.group(2)
    text = re.sub(r"\s+", " ", _NUMBERING.sub("", strip_tags(head)).strip())
    if item.children and (not text or text[-1] in "：:"):
        head_text = text[:-1].rstrip() if text else ""
        for child in item.children:
            if not head_text:
                _add_rows(rows, child, products, name, code, line, warn, matcher)
                continue
            for detail in _rows_of(child, products, name, code, line, warn, matcher):
                rows.append(ErrorRow(name, code, _with_detail(head_text, detail.text), line, detail.products))
        return
    if text and text not in ("-", "—"):
        if name is None and code is None:
            warn(line, f"error description '{text[:40]}' has no status code before it")
        rows.append(ErrorRow(name, code, text, line, products))
    for child in item.children:
        _add_rows(rows, child, products, name, code, line, warn, matcher)


def _rows_of(item, products, name, code, line, warn, matcher) -> list[ErrorRow]:
    out: list[ErrorRow] = []
    _add_rows(out, item, products, name, code, line, lambda *_: None, matcher)
    return out


_HAN = re.compile(r"[\u4e00-\u9fff]")


def _with_detail(head: str, detail: str) -> str:
    """``head（detail）。`` (``head (detail).`` in English text)."""
    detail = detail.rstrip("。.；;")
    if _HAN.search(head):
        return f"{head}（{detail}）。"
    return f"{head} ({detail})."


class _Item:
    """A piece of a description cell: its own HTML and the items of the list nested under it."""

    __slots__ = ("children", "html")

    def __init__(self) -> None:
        self.html = ""
        self.children: list[_Item] = []


_BLOCK_TAG = re.compile(r"<\s*(/?)\s*(br|li|ul|ol|p)\b[^<>]*>", re.I)


def _html_items(fragment: str) -> list[_Item]:
    """The items of a description cell as a tree (``<br>``/``<p>`` split items, ``<ul>``/``<ol>`` nest
    a list under the item before it; footnote marks dropped). Unbalanced tags are tolerated."""
    fragment = _SUP.sub("", fragment)
    top: list[_Item] = []
    stack: list[list[_Item]] = [top]  # the open lists, innermost last
    owners: list[_Item | None] = [None]  # the item each open list hangs under
    current: _Item | None = None
    pos = 0

    def text(chunk: str) -> None:
        nonlocal current
        if not chunk.strip():
            if current is not None:
                current.html += chunk
            return
        if current is None:
            current = _Item()
            stack[-1].append(current)
        current.html += chunk

    for m in _BLOCK_TAG.finditer(fragment):
        text(fragment[pos : m.start()])
        pos = m.end()
        closing, tag = m.group(1) == "/", m.group(2).lower()
        if tag in ("ul", "ol"):
            if not closing:
                owner = current
                if owner is None:
                    owner = stack[-1][-1] if stack[-1] else None
                if owner is None:
                    owner = _Item()
                    stack[-1].append(owner)
                stack.append(owner.children)
                owners.append(owner)
                current = None
            elif len(stack) > 1:
                stack.pop()
                owners.pop()
                current = None
        else:  # li, /li, br, p, /p: the next text starts a new item at this level
            current = None
    text(fragment[pos:])
    return _prune(top)


def _prune(items: list[_Item]) -> list[_Item]:
    out = []
    for item in items:
        item.children = _prune(item.children)
        if strip_tags(item.html).strip() or item.children:
            out.append(item)
    return out


def strip_tags_but_terms(fragment: str) -> str:
    return re.sub(r"<(?!/?term>)[^<>]*>", "", fragment).strip()


_INLINE = re.compile(r"(?:返回)?\s*(\d{6})\s*[（(]\s*(ACLNN_[A-Z0-9_]+)\s*[)）]\s*[:：]?")


def inline_errors(text: str, first_line: int, status_by_name: dict[str, int]) -> list[ErrorRow]:
    """``返回161001(ACLNN_ERR_PARAM_NULLPTR):参数…。 返回161002(…):1. … 2. …`` as rows."""
    rows: list[ErrorRow] = []
    text = re.sub(r"(?m)^\s*(?:`{3,}|~{3,}).*$", "", text)  # fence lines of a list written as code
    matches = list(_INLINE.finditer(text))
    for i, m in enumerate(matches):
        end = matches[i + 1].start() if i + 1 < len(matches) else len(text)
        body = re.split(r"\n\s*\n", text[m.end() : end])[0]
        line = first_line + text.count("\n", 0, m.start())
        code, name = int(m.group(1)), m.group(2)
        parts = re.split(r"(?:^|\s)\d+\s*[.、]\s*", body)
        for part in parts:
            part = part.strip()
            if part:
                rows.append(ErrorRow(name, code, part, line))
    return rows
