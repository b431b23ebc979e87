"""The shortcuts taken for render speed give exactly what the plain implementations give.

Each test keeps the plain implementation (as it was before the shortcut) and compares it with the
library function on arbitrary text, hostile text included.
"""

from __future__ import annotations

import functools
import re
import textwrap
import unicodedata
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from generator.emit import docs
from generator.escape import cpp
from generator.escape import markdown as esc
from generator.escape import python as pyesc
from tests.hostile.strings import HOSTILE

REPO = Path(__file__).resolve().parent.parent

TEXT = st.one_of(
    st.text(max_size=300),
    st.text(alphabet=st.characters(max_codepoint=0x7F), max_size=300),
    st.text(alphabet="ab ?*/\\\"'\t\n宽字符aclnnAbsX", max_size=300),
    st.sampled_from(HOSTILE),
)


# ---------------------------------------------------------------------------------------------
# C++ escaping: ASCII fast paths and the linear line wrapping


def plain_comment(text: str) -> str:
    out = []
    for ch in cpp.clean(str(text)):
        if ch in cpp._LINE_BREAKS or ch == "\t":
            out.append(" ")
        elif cpp._hidden(ch):
            out.append(cpp.REPLACEMENT)
        else:
            out.append(ch)
    line = "".join(out)
    line = line.replace("/*", "/ *").replace("*/", "* /")
    line = cpp._TRIGRAPH.sub("? ?", line)
    return cpp._end_safely(line)


def plain_string_literal(text: str) -> str:
    out = ['"']
    for ch in cpp.clean(str(text)):
        if ch in cpp._SIMPLE_ESCAPES:
            out.append(cpp._SIMPLE_ESCAPES[ch])
        elif ch in cpp._LINE_BREAKS or cpp._hidden(ch) or not ch.isprintable():
            out.extend(f"\\{byte:03o}" for byte in ch.encode("utf-8"))
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def plain_width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1 for ch in text)


def plain_comment_lines(text: str, width: int, indent: str = "") -> list[str]:
    folded = " ".join(plain_comment(text).split())
    if not folded:
        return []
    lines, current = [], ""
    for token in cpp._tokens(folded):
        if current.strip() and plain_width(current.rstrip() + token.rstrip()) > width:
            lines.append(current.rstrip())
            current = indent
        current += token
    if current.strip():
        lines.append(current.rstrip())
    return [cpp._end_safely(line) for line in lines]


@settings(max_examples=400, deadline=None)
@given(TEXT)
def test_cpp_comment_and_string_literal_fast_paths(text):
    assert cpp.comment(text) == plain_comment(text)
    assert cpp.string_literal(text) == plain_string_literal(text)
    assert cpp._width(text) == plain_width(text)


@settings(max_examples=400, deadline=None)
@given(TEXT, st.integers(min_value=1, max_value=120), st.sampled_from(["", "  ", "    ", " * ", "\u3000"]))
def test_cpp_comment_lines_wraps_like_the_plain_algorithm(text, width, indent):
    assert cpp.comment_lines(text, width, indent) == plain_comment_lines(text, width, indent)


@settings(max_examples=400, deadline=None)
@given(
    st.text(st.sampled_from("ab xyz \t\n*/\\?-"), max_size=300),
    st.integers(min_value=1, max_value=120),
    st.sampled_from(["", "  ", " * "]),
)
def test_cpp_comment_lines_ascii_path_wraps_like_the_plain_algorithm(text, width, indent):
    assert text.isascii()  # the fast path: one column per character, breaks at spaces only
    assert cpp.comment_lines(text, width, indent) == plain_comment_lines(text, width, indent)


@settings(max_examples=400, deadline=None)
@given(TEXT, st.booleans(), st.booleans())
def test_python_docstring_line_shortcut(text, first, last):
    for line in [text, *text.splitlines()]:
        assert pyesc._doc_line(line, first, last) == pyesc._escaped_doc_line(line, first, last)


def plain_lines(text: str, width: int | None) -> list[str]:
    lines = [line.rstrip(" ") for line in str(text).splitlines()] or [""]
    if not width:
        return lines
    out: list[str] = []
    for line in lines:
        wrapped = textwrap.wrap(line, width=width, expand_tabs=False, replace_whitespace=False, break_long_words=True)
        out.extend(wrapped or [""])
    return out


@settings(max_examples=400, deadline=None)
@given(
    st.one_of(TEXT, st.text(alphabet=" \t\x0b\x0c\r\n\x1c\x85\u2028a", max_size=40)),
    st.sampled_from([None, 1, 3, 8, 40, 100]),
)
def test_python_lines_shortcut_wraps_like_textwrap(text, width):
    assert pyesc._lines(text, width) == plain_lines(text, width)


def plain_sentences(text: str) -> list[str]:
    """Sentence splitting character by character (the algorithm ``docs.sentences`` restates with a regex)."""
    out, buf, depth = [], "", 0
    for i, ch in enumerate(text):
        buf += ch
        if ch in docs._OPENERS:
            depth += 1
        elif ch in docs._CLOSERS:
            depth = max(0, depth - 1)
        elif depth == 0:
            end = ch == "。"
            if ch in ".!?" and text[i + 1 : i + 2] == " " and text[i + 2 : i + 3][:1].isupper():
                end = not buf.rstrip().endswith(docs._ABBREVIATIONS)
            if end:
                out.append(buf.strip())
                buf = ""
    if buf.strip():
        out.append(buf.strip())
    return out


@settings(max_examples=600, deadline=None)
@given(
    st.one_of(TEXT, st.lists(st.sampled_from([*"aB .!?。（）()[]“”‘’【】Xé\u3000\t", "e.g.", "i.e. "])).map("".join))
)
def test_docs_sentences_like_the_plain_algorithm(text):
    assert docs.sentences(text) == plain_sentences(text)


# ---------------------------------------------------------------------------------------------
# Docs: the linker looks up only the operator names the text contains


class PlainLinker:
    """The linker as it was: every operator name of the project in one pattern."""

    def __init__(self, names, spec, lang: str, prefix: str, ext: str):
        self.targets: dict[str, str] = dict(docs.GLOSSARY[lang])
        for name in sorted(set(names) | set(spec.sources.links)):
            if name == spec.name:
                continue
            if name in names:
                self.targets[name] = f"{prefix}{name}{ext}"
            else:
                self.targets[name] = docs.UPSTREAM + spec.sources.links[name]

    def __call__(self, escaped: str, html: bool, extra=None) -> str:
        targets = dict(self.targets)
        targets.update(extra or {})
        if not targets:
            return escaped
        words = sorted(targets, key=len, reverse=True)
        pattern = re.compile(
            "|".join(
                rf"(?<![A-Za-z0-9]){re.escape(w)}(?![A-Za-z0-9])"
                if w.startswith("aclnn")
                else re.escape(esc.html_text(w))
                for w in words
            )
        )
        done: set[str] = set()

        def replace(match):
            text = match.group(0)
            key = next(w for w in words if esc.html_text(w) == text)
            if key in done:
                return text
            done.add(key)
            href = esc.url(targets[key])
            return f'<a href="{esc.html_attr(href)}">{text}</a>' if html else f"[{text}]({href})"

        parts = re.split(r"(<a\b.*?</a>|<[^>]*>|\[[^\]]*\]\([^)]*\))", escaped)
        return "".join(part if i % 2 else pattern.sub(replace, part) for i, part in enumerate(parts))


class _Sources:
    def __init__(self, links):
        self.links = links


class _Spec:
    def __init__(self, name, links):
        self.name, self.sources = name, _Sources(links)


NAMES = ["aclnnAbs", "aclnnAbsBackward", "aclnnAdd", "aclnnAddmm", "aclnnB2", "aclnnX"]
WORDS = st.sampled_from([*NAMES, "aclnnNotAnOp", "xaclnnAbs", "aclnnAbsX", "acl", "广播关系", "broadcast rules"])
PROSE = st.lists(
    st.one_of(WORDS, st.sampled_from([" ", "、", "。", ", ", "(", ")", "<b>", "</b>", "[a](b)"])), max_size=30
)


@settings(max_examples=400, deadline=None)
@given(
    PROSE,
    st.sets(st.sampled_from(NAMES)),
    st.dictionaries(st.sampled_from(["aclnnAbs", "aclnnUp", "acl", "aclnnX"]), st.just("docs/x.md"), max_size=3),
    st.sampled_from(["zh", "en"]),
    st.booleans(),
)
def test_linker_links_exactly_like_a_pattern_of_every_name(pieces, names, links, lang, html):
    escaped = esc.html_text("".join(pieces)) if html else "".join(pieces)
    spec = _Spec("aclnnAdd", links)
    mentions: set[str] = set()
    fast = docs.Linker(frozenset(names), spec, lang, "", ".md", mentions)(escaped, html)
    assert fast == PlainLinker(frozenset(names), spec, lang, "", ".md")(escaped, html)
    # what the output depends on: the names among the mentions
    only = frozenset(names) & mentions
    assert docs.Linker(only, spec, lang, "", ".md")(escaped, html) == fast


# ---------------------------------------------------------------------------------------------
# Docs: the site's index is assembled from each op's own table row


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(TEXT, TEXT, TEXT), min_size=1, max_size=4))
def test_site_index_from_row_fragments_is_the_whole_page_rendered(texts):
    from generator.emit import site
    from generator.generate import environment

    env = environment()
    rows = []
    for i, (zh, en, product) in enumerate(texts):
        row = {
            "page": f"aclnnOp{i}",
            "name": esc.md_cell(f"aclnnOp{i}"),
            "summary_zh": esc.md_cell(zh),
            "summary_en": esc.md_cell(en),
            "products": esc.md_cell(product),
        }
        row["site"] = docs._site_index_parts(env, [row])[1]
        rows.append(row)
    whole = site.page(env, "README.md", docs.index_page(env, rows, "site"))[1]
    assert docs.index_files(env, rows)["docs/site/index.html"] == whole


# ---------------------------------------------------------------------------------------------
# Site: markdown-it's normalize and block rules replaced by line-at-a-time equivalents

MARKDOWNISH = st.one_of(
    TEXT,
    st.text(alphabet="a \r\n\0\t<>*", max_size=200),
    st.lists(
        st.sampled_from(
            ["", " ", "  ", "\t", " \t", "- ", "1. ", "> ", "# ", "```", "<table>", "| a | b |", "|---|---|"]
        )
        .flatmap(
            lambda indent: st.tuples(st.just(indent), st.sampled_from(["x", "*y*", "`z`", "", " ", "\t", "[l](u)"]))
        )
        .map("".join),
        max_size=30,
    ).map("\n".join),
)


@functools.cache
def _stock_renderer():
    """The site's renderer with markdown-it's own normalize and block rules (built once)."""
    from markdown_it.rules_core.block import block
    from markdown_it.rules_core.normalize import normalize

    from generator.emit import site

    md = site._markdown()
    md.core.ruler.at("normalize", normalize)
    md.core.ruler.at("block", block)
    return md


@settings(max_examples=400, deadline=None)
@given(MARKDOWNISH)
def test_site_normalize_is_markdown_its_normalize(text):
    from markdown_it import MarkdownIt
    from markdown_it.rules_core.normalize import normalize
    from markdown_it.rules_core.state_core import StateCore

    from generator.emit import site

    md = MarkdownIt("commonmark")
    plain, fast = StateCore(text, md, {}), StateCore(text, md, {})
    normalize(plain)
    site._normalize(fast)
    assert fast.src == plain.src


@settings(max_examples=400, deadline=None)
@given(MARKDOWNISH)
def test_site_line_markers_are_markdown_its(text):
    from markdown_it.rules_block.state_block import StateBlock

    from generator.emit import site

    text = text.replace("\r", "\n").replace("\0", "\ufffd")  # as normalized
    md = site._markdown()
    plain, fast = StateBlock(text, md, {}, []), site._lines_state(text, md, {}, [])
    for name in ("bMarks", "eMarks", "tShift", "sCount", "bsCount", "lineMax", "line", "blkIndent", "src"):
        assert getattr(fast, name) == getattr(plain, name), name


@settings(max_examples=300, deadline=None)
@given(MARKDOWNISH)
def test_site_renderer_renders_like_the_stock_rules(text):
    from generator.emit import site

    site.to_html("")
    (renderer,) = site._RENDERER
    rules = {r.name: r.fn for r in renderer.core.ruler.__rules__}
    assert rules["normalize"] is site._normalize and rules["block"] is site._block
    assert renderer.render(text) == _stock_renderer().render(text)


def test_site_renderer_renders_every_generated_page_like_the_stock_rules():
    from generator.emit import site

    stock = _stock_renderer()
    pages = sorted((REPO / "generated" / "docs").rglob("*.md"))
    assert len(pages) > 80
    site.to_html("")
    (renderer,) = site._RENDERER
    for page in pages:
        text = page.read_text(encoding="utf-8")
        assert renderer.render(text) == stock.render(text), page


# ---------------------------------------------------------------------------------------------
# Docs: what an op's pages have in common in both flavours is computed once


def test_pages_sharing_their_common_part_are_the_pages_computed_alone():
    from generator.emit import cpp
    from generator.emit.view import OpView
    from generator.generate import LANGS, environment
    from generator.loader import load_project

    project = load_project(REPO / "specs")
    catalog, env = project.catalog, environment()
    # every operator name the specs mention counts as an op of the project: their pages then link
    # it, to a page whose suffix depends on the flavour
    mentioned = {m for path in (REPO / "specs").glob("*.yaml") for m in re.findall(r"aclnn\w+", path.read_text())}
    names = frozenset(info.spec.name for info in project.ops) | mentioned
    for info in project.ops:
        view = OpView(info)
        files, entries = cpp.op_files(info, catalog, env, cpp.cpp_names(info.spec), view)
        samples = {lang: [{**e, "text": files[e["path"]]} for e in entries if e["lang"] == lang] for lang in LANGS}
        shared: dict = {}
        for flavour in ("md", "site"):
            alone = docs.op_pages(info, catalog, names, env, samples, flavour, set(), view)
            assert docs.op_pages(info, catalog, names, env, samples, flavour, set(), view, shared) == alone
        assert shared  # (something was shared)
        # and each shared piece is what the other flavour computes for itself
        for lang in LANGS:
            md, site = (
                docs._Page(info, catalog, names, lang, samples[lang], flavour, set(), view)
                for flavour in ("md", "site")
            )
            assert md.example() == site.example() and md.prototypes() == site.prototypes()
            for p in info.spec.params:
                assert md._param_cells(p) == site._param_cells(p)
            md, site = (
                docs._MaintainerPage(info, catalog, names, lang, None, flavour, set(), view)
                for flavour in ("md", "site")
            )
            assert md.body() == site.body(), (info.spec.name, lang)
