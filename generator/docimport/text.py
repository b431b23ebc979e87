"""Small text helpers shared by the doc readers: HTML to text, punctuation, list splitting.

Doc text is untrusted: these functions only ever produce plain strings (YAML data later); nothing
here interprets the text beyond recognising a few fixed words.
"""

from __future__ import annotations

import html
import re

# Full-width punctuation and its ASCII reading (only used to *recognise* patterns; the doc's own
# text is kept as written in every spec field).
_WIDTH = str.maketrans({"（": "(", "）": ")", "，": ",", "：": ":", "；": ";", "【": "[", "】": "]", "　": " "})


def ascii_punct(text: str) -> str:
    """``text`` with full-width brackets, commas, colons and semicolons replaced by ASCII ones."""
    return text.translate(_WIDTH)


_TAG = re.compile(r"<[^<>]*>")
_BLOCK_BREAK = re.compile(r"<\s*(?:br|/li|/p|/il|li|il|p|/ul|ul|/ol|ol)\b[^<>]*>", re.I)
_ARTIFACTS = ("[object Object]",)


def strip_tags(fragment: str) -> str:
    """Drop every HTML tag (keeping the text of links, ``<term>``, ``<code>``...), unescape entities."""
    return html.unescape(_TAG.sub("", fragment))


def cell_items(fragment: str) -> list[str]:
    """The text items of an HTML cell: ``<li>`` items and ``<br>``-separated lines, tags dropped."""
    marked = _BLOCK_BREAK.sub("\n", fragment)
    items = []
    for line in unescape_markdown(strip_tags(marked)).split("\n"):
        line = squash(line)
        if line:
            items.append(line)
    return items


def join_items(items: list[str]) -> str:
    """Join list items into one paragraph the way the curated specs write them."""
    out = ""
    for item in items:
        item = item.strip()
        if not item:
            continue
        if out and not re.search(r"[。；;.!！?？:：]$", out):
            out += "；"
        out += item
    return out


def cell_text(fragment: str) -> str:
    """One paragraph of plain text for an HTML cell (``-`` and empty cells give '')."""
    text = join_items(cell_items(fragment))
    return "" if text in ("-", "—", "–", "/") else text


def squash(text: str) -> str:
    """Collapse runs of whitespace into one space and trim; drop renderer artefacts."""
    for artifact in _ARTIFACTS:
        text = text.replace(artifact, "")
    return re.sub(r"\s+", " ", text).strip()


_ESCAPED = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|<>~])")
_MARK = "\ue000"


def unescape_markdown(text: str) -> str:
    """``aclTensor\\*`` -> ``aclTensor*`` (Markdown backslash escapes of punctuation)."""
    return _ESCAPED.sub(r"\1", text)


def strip_markdown(text: str) -> str:
    """Markdown inline markup to plain text: links keep their text, emphasis and code marks go,
    backslash escapes give their character."""
    text = _ESCAPED.sub(lambda m: _MARK + m.group(1), text)
    text = re.sub(r"!\[[^\[\]]*\]\([^()\s]*\)", "", text)
    text = re.sub(r"\[([^\[\]]*)\]\([^()\s]*\)", r"\1", text)
    text = re.sub(r"\*\*([^*]+)\*\*", r"\1", text)
    text = re.sub(r"(?<![\w*])\*([^*\s][^*]*)\*(?![\w*])", r"\1", text)
    text = text.replace("`", "")
    return strip_tags(text).replace(_MARK, "")


# Separators between names in a list ("gradOutput、self或out"): the ideographic comma, commas,
# "和/与/或/及/以及/and/or" and slashes.
_NAME_SEP = re.compile(r"\s*(?:、|,|，|;|；|/|以及|及|和|与|或者|或|\band\b|\bor\b)\s*")


def split_names(text: str) -> list[str]:
    """Split a list of names joined by 、/，/和/或/and... into its items (empty items dropped)."""
    return [part.strip() for part in _NAME_SEP.split(text) if part and part.strip()]


_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def identifiers(text: str) -> list[str]:
    """Every identifier-looking word of ``text``, in order."""
    return _IDENT.findall(text)


def line_of(text: str, offset: int) -> int:
    """1-based line number of a character offset."""
    return text.count("\n", 0, offset) + 1


def ends_sentence(text: str) -> str:
    return text if re.search(r"[。.!！?？]$", text) else text + "。"
