"""Markdown/HTML-target escaping: every spec or catalogue string reaches a doc page through here.

Specs, imported docs and catalogues are untrusted. The docs emitter and the site builder turn such a
string into page text only with one of these helpers, chosen by the context it lands in:

* :func:`html_text` / :func:`html_attr`: text content and quoted attribute values of HTML (the
  pages' tables are HTML blocks, where Markdown is not processed); :func:`html_md` for text that
  may also be read as Markdown inline (product names in list items);
* :func:`md_inline`: Markdown prose outside HTML (paragraphs, list items, headings);
* :func:`md_cell`: a cell of a Markdown pipe table (``|`` escaped as well);
* :func:`code_html`: inline code inside HTML; :func:`fence`: a fence longer than any backtick run;
* :func:`formula_md`: one LaTeX line inside a ``$$`` block (no HTML, no ``$``, survives as text);
* :func:`url`: a link target (https or a safe relative path; anything else is refused);
* :func:`link_md` / :func:`link_html`: a link with escaped text and a checked target.

Every helper first applies :func:`clean`: one line (whitespace runs collapsed, so no blank line can
end an HTML block early), no control characters, no lone surrogates (which cannot be written as
UTF-8), no bidirectional overrides.
"""

from __future__ import annotations

import re
from functools import lru_cache
from urllib.parse import quote

# C0/C1 controls (tab and newline are whitespace and collapse), lone surrogates, and the bidi
# embedding/override/isolate controls, which can make escaped text read differently than it is.
_UNSAFE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\u202a-\u202e\u2066-\u2069]")


def clean(text: str) -> str:
    """``text`` as one safe line: unsafe characters become U+FFFD, whitespace runs one space."""
    return _clean(text) if type(text) is str else _clean(str(text))


# Pages repeat the same strings (names, dtypes, formats, products) many times: the escapes of a
# str are remembered (a bounded number; they are pure functions of it).
@lru_cache(maxsize=1 << 14)
def _clean(text: str) -> str:
    return " ".join(_UNSAFE.sub("\ufffd", text).split())


def html_text(text: str) -> str:
    """Escape for HTML text content (``& < > " '``)."""
    return _html_text(text) if type(text) is str else _html_text(str(text))


@lru_cache(maxsize=1 << 14)
def _html_text(text: str) -> str:
    return (
        _clean(text)
        .replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace('"', "&quot;")
        .replace("'", "&#39;")
    )


_MD_ENTITIES = str.maketrans({c: f"&#{ord(c)};" for c in "\\`*_[]~$|!{}#"})


def html_md(text: str) -> str:
    """Escape for text that is HTML in one renderer and Markdown inline in another (``<term>`` names in list
    items): HTML specials and Markdown punctuation as numeric entities, which both decode to plain text."""
    return html_text(text).translate(_MD_ENTITIES)


def html_attr(text: str) -> str:
    """Escape for a double-quoted HTML attribute value."""
    return html_text(text)


# ASCII punctuation Markdown may interpret anywhere in a line (emphasis, code, links, images, math,
# tables, strike-through, escapes, autolinks, raw HTML after entity decoding).
_MD_INLINE = re.compile(r"([\\`*_\[\]~$|!{}])")
# What may start a block when the text begins a line: headings, quotes, lists, rules, setext bars.
_MD_BLOCK_START = re.compile(r"^([#>+=-]|\d+[.)])")


def md_inline(text: str) -> str:
    """Escape for Markdown prose: HTML specials as entities, Markdown punctuation backslashed."""
    escaped = _MD_INLINE.sub(r"\\\1", html_text(text))
    return _MD_BLOCK_START.sub(r"\\\1", escaped)


def md_cell(text: str) -> str:
    """Escape for a cell of a Markdown pipe table (``md_inline`` escapes ``|`` too)."""
    return md_inline(text)


def code_html(text: str) -> str:
    """Inline code inside HTML."""
    return f"<code>{html_text(text)}</code>"


def fence(code: str, minimum: int = 3) -> str:
    """A backtick fence longer than any backtick run inside ``code``."""
    runs = [len(m) for m in re.findall(r"`+", code)]
    return "`" * max(minimum, max(runs, default=0) + 1)


def formula_md(line: str) -> str:
    """One LaTeX line for a ``$$`` block of a Markdown page.

    HTML specials become entities (a math renderer reads the decoded text, so ``a < b`` still typesets),
    ``$`` is backslashed (it cannot close the block) and ``](``/``]:`` are split by a space (no Markdown
    link or image can form); everything else is LaTeX and left alone.
    """
    escaped = html_text(line).replace("$", "\\$")
    # no link, image or link definition can form: "](" and "]:" get a space (insignificant in LaTeX math)
    return escaped.replace("](", "] (").replace("]:", "] :")


_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_RELATIVE = re.compile(r"^[A-Za-z0-9_.~/%&+=-]+(#[A-Za-z0-9_.~%-]*)?$")


def url(target: str) -> str:
    """A link target safe for Markdown and HTML: ``https://`` or a relative path; otherwise ValueError.

    Characters outside the unreserved set are percent-encoded (so a target never contains spaces,
    quotes, parentheses or angle brackets).
    """
    target = str(target)
    if target.startswith("https://"):
        head, rest = target[: len("https://")], target[len("https://") :]
        return head + quote(rest, safe="/#%&=?~.-_:+")
    if target.startswith("#"):  # an anchor: letters (any script) and digits stay readable
        return "#" + "".join(ch if ch.isalnum() or ch in "-_.~" else quote(ch, safe="") for ch in target[1:])
    if _SCHEME.match(target) or target.startswith("//") or "\\" in target:
        raise ValueError(f"refusing link target {target!r}: only https:// and relative links are allowed")
    encoded = quote(target, safe="/#%=~.-_+")
    if not _RELATIVE.match(encoded):
        raise ValueError(f"refusing link target {target!r}")
    return encoded


def link_md(text: str, target: str) -> str:
    """A Markdown link: escaped text, checked target."""
    return f"[{md_inline(text)}]({url(target)})"


def link_html(text: str, target: str) -> str:
    """An HTML link: escaped text, checked and escaped target."""
    return f'<a href="{html_attr(url(target))}">{html_text(text)}</a>'


def term(name: str) -> str:
    """A product name marked up as upstream docs do (``<term>...</term>``)."""
    return f"<term>{html_md(name)}</term>"
