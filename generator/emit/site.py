"""The static docs site (``generated/docs/site/``): every page as HTML, formulas as MathML, no network.

Pages are the docs emitter's Markdown rendered in the site flavour (links to ``.html``, formulas
already converted), turned into HTML by markdown-it-py (CommonMark + tables; the pages' own HTML
blocks pass through, and they only hold text escaped by :mod:`generator.escape.markdown`; two of its
core rules, ``normalize`` and ``block``, are swapped for equivalents that work a line at a time rather
than a character at a time, through its public rule API: same tokens, a fifth less time), then
wrapped in ``templates/docs/site/page.html.j2`` with a header (index, matrix, zh/en switch). The
matrix page is built from the matrix data with its own template and a small filter script.

Formulas are converted at build time from LaTeX to MathML (the vendored latex2mathml, generator/vendor), which Chromium renders
natively: no script, font or stylesheet is fetched at build or view time. The MathML is re-built
from an allow-list of MathML elements and attributes (so ``\\href``, ``\\text{<img ...>}`` or any
markup a converter might pass through never reaches the page); a formula that does not convert
cleanly is shown as its LaTeX source in a code block. Output is deterministic.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from generator.escape import markdown as esc
from generator.loader import Project

MATHML_NS = "http://www.w3.org/1998/Math/MathML"
# MathML Core presentation elements (and the annotation wrapper).
MATH_TAGS = frozenset(
    "math mrow mi mn mo ms mtext mspace msub msup msubsup mfrac msqrt mroot mover munder munderover "
    "mtable mtr mtd mstyle mpadded mphantom menclose merror mmultiscripts mprescripts none semantics "
    "annotation".split()
)
MATH_ATTRS = frozenset(
    "display stretchy fence form separator columnalign rowalign columnspacing rowspacing mathvariant "
    "displaystyle scriptlevel lspace rspace width height depth linethickness accent accentunder "
    "movablelimits largeop symmetric minsize maxsize notation columnlines rowlines frame framespacing "
    "encoding".split()
)
_ATTR_VALUE = re.compile(r"^[A-Za-z0-9 .%#+-]*$")


def mathml(latex: str) -> str:
    """One LaTeX formula as sanitized single-line MathML (block display), or its source as code."""
    from generator.vendor.latex2mathml import converter as latex2mathml_converter

    source = esc.clean(latex)
    try:
        converted = latex2mathml_converter.convert(source, display="block")
        tree = ET.fromstring(converted)
        body = [_sanitize(child) for child in tree]
    except Exception:  # noqa: BLE001 - any converter or parser failure falls back to the source
        return f'<pre class="latex"><code>{esc.html_text(source)}</code></pre>'
    parts = "".join(body)
    return (
        f'<math xmlns="{MATHML_NS}" display="block"><semantics><mrow>{parts}</mrow>'
        f'<annotation encoding="application/x-tex">{esc.html_text(source)}</annotation></semantics></math>'
    )


def _sanitize(node: ET.Element) -> str:
    tag = node.tag.split("}")[-1]
    if tag not in MATH_TAGS or tag in ("math", "annotation", "semantics"):
        raise ValueError(f"unexpected element {tag}")
    attrs = []
    for name, value in sorted(node.attrib.items()):
        name = name.split("}")[-1]
        if name in MATH_ATTRS and _ATTR_VALUE.match(value):
            attrs.append(f' {name}="{esc.html_attr(value)}"')
    text = esc.html_text(node.text) if node.text and node.text.strip() else ""
    children = "".join(
        _sanitize(child) + (esc.html_text(child.tail) if child.tail and child.tail.strip() else "") for child in node
    )
    return f"<{tag}{''.join(attrs)}>{text}{children}</{tag}>"


# ---------------------------------------------------------------------------------------------
# Markdown -> HTML


def _markdown():
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": True}).enable("table")
    md.core.ruler.at("normalize", _normalize)
    md.core.ruler.at("block", _block)

    def heading_ids(state) -> None:
        from generator.emit.matrix import anchor

        seen: set[str] = set()
        tokens = state.tokens
        for i, token in enumerate(tokens):
            if token.type == "heading_open" and i + 1 < len(tokens):
                ident = anchor(tokens[i + 1].content)
                base, n = ident, 1
                while ident in seen:
                    n += 1
                    ident = f"{base}-{n}"
                seen.add(ident)
                token.attrSet("id", ident)

    md.core.ruler.push("heading_ids", heading_ids)
    return md


def _normalize(state) -> None:
    """markdown-it's first core rule, the same result without its two regular-expression passes over
    the whole page (pages seldom hold a carriage return or a NUL; a page is scanned for them once)."""
    src = state.src
    if "\r" in src:
        src = src.replace("\r\n", "\n").replace("\r", "\n")
    if "\0" in src:
        src = src.replace("\0", "\ufffd")
    state.src = src


def _block(state) -> None:
    """markdown-it's block rule, the same tokens, with the line markers found a line at a time (see
    :func:`line_markers`) instead of a character at a time."""
    from markdown_it.rules_core.block import block

    if state.inlineMode or not state.src:
        block(state)
        return
    md = state.md
    lines = _lines_state(state.src, md, state.env, state.tokens)
    md.block.tokenize(lines, lines.line, lines.lineMax)


def _lines_state(src: str, md, env, tokens):
    """markdown-it's ``StateBlock`` of ``src``: built for an empty text (which sets every attribute),
    then given ``src`` and its line markers."""
    from markdown_it.rules_block.state_block import StateBlock

    state = StateBlock("", md, env, tokens)
    state.src = src
    state.bMarks, state.eMarks, state.tShift, state.sCount = line_markers(src)
    state.bsCount = [0] * len(state.bMarks)
    state.lineMax = len(state.bMarks) - 1
    return state


def line_markers(src: str) -> tuple[list[int], list[int], list[int], list[int]]:
    """Per line of ``src``: its start and end offsets, the length of its leading blanks (spaces and
    tabs) and their width (tabs to the next multiple of 4), plus markdown-it's closing entry; a last
    line that is empty or blank gets no entry (as in markdown-it)."""
    lines = src.split("\n")
    if not lines[-1].strip(" \t"):
        lines.pop()
    starts, ends, shifts, widths = [], [], [], []
    start = 0
    for line in lines:
        end = start + len(line)
        shift = len(line) - len(line.lstrip(" \t"))
        width = shift
        if shift and "\t" in line[:shift]:
            width = 0
            for ch in line[:shift]:
                width += 4 - width % 4 if ch == "\t" else 1
        starts.append(start)
        ends.append(end)
        shifts.append(shift)
        widths.append(width)
        start = end + 1
    length = len(src)
    starts.append(length)
    ends.append(length)
    shifts.append(0)
    widths.append(0)
    return starts, ends, shifts, widths


_RENDERER: list = []  # the Markdown renderer, built once (it keeps no state between renders)


def to_html(markdown: str) -> str:
    """A page body: Markdown to HTML, upstream's ``<term>`` markup as a styled span."""
    if not _RENDERER:
        _RENDERER.append(_markdown())
    body = _RENDERER[0].render(markdown)
    return body.replace("<term>", '<span class="term">').replace("</term>", "</span>")


def _title(markdown: str) -> str:
    for line in markdown.splitlines():
        if line.startswith("# "):
            return line[2:].strip()
    return "aclnn"


def _unescape_md(text: str) -> str:
    """Heading text as plain text (backslash escapes removed; entities stay, for an HTML title)."""
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", text)


def build(project: Project, env, pages: dict[str, str], matrix) -> dict[str, str]:
    """Every site file by path under ``docs/site/``."""
    from generator.emit import matrix as mx

    catalog = project.catalog
    out = {target: text for rel, text in pages.items() for target, text in [page(env, rel, text)]}
    out.update(aggregate_files(env, catalog, [mx.site_view(env, catalog, row) for row in mx.rows(project, matrix)]))
    return dict(sorted(out.items()))


def page(env, rel: str, text: str) -> tuple[str, str]:
    """One docs page (``rel`` under ``docs/``, Markdown in the site flavour) as (path under
    ``docs/site/``, HTML)."""
    return page_html(env, rel, to_html(text), markdown_title(text))


def markdown_title(text: str) -> str:
    """The title of a page from its Markdown (its first heading, as plain text)."""
    return _unescape_md(_title(text))


def page_html(env, rel: str, body: str, title: str) -> tuple[str, str]:
    """A page (``rel`` under ``docs/``) from its HTML body and title: (path under ``docs/site/``, HTML)."""
    target = "index.html" if rel == "README.md" else rel[: -len(".md")] + ".html"
    depth = target.count("/")
    root = "../" * depth
    lang, other = _languages(target)
    html = env.get_template("docs/site/page.html.j2").render(
        title=title,
        lang=lang or "zh",
        root=root,
        other=other,
        body=body,
        page_class="maintainers" if "/maintainers/" in target else ("index" if depth == 0 else "op"),
    )
    return target, html


def aggregate_files(env, catalog, matrix_views: list[dict]) -> dict[str, str]:
    """The matrix page (from the ops' ``matrix.site_view``\\ s, in op order) and the assets."""
    out = {"support_matrix.html": matrix_page(env, catalog, matrix_views)}
    out.update(asset_files(env))
    return out


def matrix_page(env, catalog, matrix_views: list[dict]) -> str:
    """``support_matrix.html`` from the ops' ``matrix.site_view``\\ s (in op order)."""
    from generator.emit import matrix as mx

    body = env.get_template("docs/site/matrix.html.j2").render(**mx.site_context_from(catalog, matrix_views))
    return env.get_template("docs/site/page.html.j2").render(
        title="aclnn 支持矩阵 / Support matrix",
        lang="zh",
        root="",
        other=None,
        body=body,
        page_class="matrix",
        script="assets/matrix.js",
    )


def asset_files(env) -> dict[str, str]:
    """The site's style sheet and script (``assets/``)."""
    return {f"assets/{asset}": env.get_template(f"docs/site/{asset}").render() for asset in ("site.css", "matrix.js")}


def _languages(target: str) -> tuple[str | None, dict | None]:
    """The page language and its counterpart in the other language (None for bilingual pages)."""
    parts = target.split("/")
    if parts[0] not in ("zh", "en"):
        return None, None
    other = "en" if parts[0] == "zh" else "zh"
    label = "English" if parts[0] == "zh" else "中文"
    depth = len(parts) - 1
    href = "../" * depth + "/".join([other, *parts[1:]])
    return parts[0], {"href": href, "label": label}
