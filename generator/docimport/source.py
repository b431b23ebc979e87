"""Reading a doc file: decoding, lines, code fences and the heading skeleton.

A :class:`Source` is the doc's text split into lines (1-based numbers kept everywhere) with the
Markdown headings found outside code fences. ``section(key)`` returns the lines under one
skeleton heading; ``SKELETON`` maps every spelling of the headings (current zh docs, the English
twins, the old seed headings, the generated pages) to one key.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# Canonical section keys and the heading texts that name them (compared without spaces, lower case).
SKELETON: dict[str, tuple[str, ...]] = {
    "products": ("产品支持情况", "支持的产品型号", "supportedproducts", "productsupport", "支持的产品", "产品支持"),
    "function": ("功能说明", "功能描述", "function", "functiondescription", "description", "功能"),
    "prototype": ("函数原型", "接口原型", "prototype", "functionprototype", "原型"),
    "constraints": ("约束说明", "约束与限制", "constraints", "约束", "restrictions"),
    "example": ("调用示例", "example", "examples", "sample", "示例", "samplecode"),
    "doc_issues": ("文档勘误", "docissues"),
}


def heading_key(title: str) -> str | None:
    """The skeleton key of a heading text, or None (an API heading or something else)."""
    norm = re.sub(r"[\s`*:：]", "", title).lower()
    for key, names in SKELETON.items():
        if norm in names:
            return key
    return None


@dataclass
class Heading:
    level: int
    title: str
    line: int  # 1-based


@dataclass
class Source:
    path: str
    text: str
    lines: list[str]
    headings: list[Heading] = field(default_factory=list)
    fences: list[tuple[int, int]] = field(default_factory=list)  # (first, last) 1-based, inclusive
    unclosed_fence: int = 0  # line of a fence that never closes (0: none)

    def in_fence(self, line: int) -> bool:
        return any(a <= line <= b for a, b in self.fences)

    def span(self, heading: Heading) -> tuple[int, int]:
        """Lines (first, last) under ``heading`` up to the next heading of the same or higher level."""
        index = self.headings.index(heading)
        end = len(self.lines)
        for other in self.headings[index + 1 :]:
            if other.level <= heading.level:
                end = other.line - 1
                break
        return heading.line + 1, end

    def block(self, first: int, last: int) -> str:
        return "\n".join(self.lines[first - 1 : last])


def decode(data: bytes) -> tuple[str, str | None]:
    """Text of a doc file; a BOM is dropped, undecodable bytes are replaced (with a remark)."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError as exc:
        return data.decode("utf-8", errors="replace"), f"not valid UTF-8 (byte {exc.start}); bad bytes replaced"


_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")


def read(path: str, text: str) -> Source:
    text = text.replace("\r\n", "\n").replace("\r", "\n").lstrip("\ufeff")
    text = re.sub(r"[\ud800-\udfff]", "\ufffd", text)  # lone surrogates cannot be written as UTF-8
    lines = text.split("\n")
    src = Source(path, text, lines)
    fence_start, fence_mark = 0, ""
    for number, line in enumerate(lines, 1):
        m = _FENCE.match(line)
        if fence_start:
            if (
                m
                and m.group(1)[0] == fence_mark[0]
                and len(m.group(1)) >= len(fence_mark)
                and not line.strip()[len(m.group(1)) :].strip()
            ):
                src.fences.append((fence_start, number))
                fence_start = 0
            continue
        if m:
            fence_start, fence_mark = number, m.group(1)
            continue
        h = _HEADING.match(line)
        if h and not line.startswith("    "):
            src.headings.append(Heading(len(h.group(1)), h.group(2).strip(), number))
    if fence_start:
        src.unclosed_fence = fence_start
        src.fences.append((fence_start, len(lines)))
    return src


def code_blocks(src: Source, first: int, last: int) -> list[tuple[int, str]]:
    """Fenced code blocks inside lines first..last: (line of the first code line, code)."""
    blocks = []
    for a, b in src.fences:
        if first <= a <= last:
            end = b - 1 if b != a and _FENCE.match(src.lines[b - 1]) else b
            blocks.append((a + 1, "\n".join(src.lines[a:end])))
    return blocks
