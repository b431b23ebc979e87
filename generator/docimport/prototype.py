"""C prototypes of a doc (``aclnnStatus aclnnXxxGetWorkspaceSize(...)``), fenced, inline or plain."""

from __future__ import annotations

import re

from generator.docimport.facts import ProtoParam, Prototype
from generator.docimport.text import line_of
from generator.docimport.vocab import normalize_ctype

_DECL = re.compile(r"aclnnStatus\s+(aclnn[A-Za-z0-9_]+)\s*\(([^()]*)\)", re.S)


def prototypes(text: str, first_line: int) -> list[Prototype]:
    """Every ``aclnnStatus aclnnX(...)`` declaration in ``text`` (calls without a return type are skipped)."""
    found = []
    for m in _DECL.finditer(text):
        name = m.group(1)
        params = []
        start = m.start(2)
        for part_match in re.finditer(r"[^,]+", m.group(2)):
            raw = part_match.group(0)
            if not raw.strip():
                continue
            line = first_line + line_of(text, start + part_match.start()) - 1
            param = _param(raw)
            if param is not None:
                params.append(ProtoParam(param[1], param[0], line))
        found.append(Prototype(name, params, first_line + line_of(text, m.start()) - 1))
    return found


def _param(raw: str) -> tuple[str, str] | None:
    """(ctype, name) of one declared parameter such as ``const aclTensor *gradOutput``."""
    text = re.sub(r"//.*|/\*.*?\*/", " ", raw, flags=re.S)
    text = text.replace("•", " ").strip().rstrip(";")
    m = re.match(r"^(.*?)([A-Za-z_][A-Za-z0-9_]*)\s*(\[\s*\d*\s*\])?$", text.strip(), re.S)
    if not m or not m.group(1).strip():
        return None
    ctype = normalize_ctype(m.group(1))
    if m.group(3):
        ctype += "*"
    return ctype, m.group(2)
