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
            products = None
            labelled = _LABELLED.match(_NUMBERING.sub("", strip_tags_but_terms(item)))
            if labelled and matcher is not None:
                tags, unknown = matcher.tags_in(labelled.group(1))
                if tags and not unknown:
                    products, item = tags, labelled.group(2)
            text = _NUMBERING.sub("", strip_tags(item)).strip()
            text = re.sub(r"\s+", " ", text)
            if not text or text in ("-", "—"):
                continue
            if name is None and code is None:
                warn(line, f"error description '{text[:40]}' has no status code before it")
            rows.append(ErrorRow(name, code, text, line, products))
    return rows


def _html_items(fragment: str) -> list[str]:
    """The items of a description cell as HTML (``<li>``/``<br>`` split; footnote marks dropped)."""
    fragment = _SUP.sub("", fragment)
    parts = re.split(r"<\s*(?:br|/li|li|/?ul|/?ol|/?p)\b[^<>]*>", fragment, flags=re.I)
    return [p.strip() for p in parts if strip_tags(p).strip()]


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
