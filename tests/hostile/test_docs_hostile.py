"""Hostile text in every prose field of a spec and in catalogue strings never becomes live HTML in the docs.

Each case puts one hostile text into every prose field of a spec (summary, description, formula,
parameter texts, enum values, check texts and notes, constraints, precision, doc issues, defaults,
example text) and into the products' and status codes' names. Either ``opgen lint`` rejects it with a
FILE:LINE:COL diagnostic, or the docs build and every page, as Markdown rendered by markdown-it-py and as
the site's HTML, holds only allow-listed elements and attributes, no ``javascript:`` URL, no event
handler, no script but the matrix's own asset, and the formula survives as text.
"""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser

import pytest
from hypothesis import HealthCheck, given, settings

from generator.diagnostics import SpecError
from generator.emit import docs, site
from generator.escape import markdown as esc
from generator.generate import environment
from generator.loader import load_project
from tests.hostile.strings import HOSTILE, hostile_text
from tests.hostile.trees import spec_tree

ALLOWED_TAGS = (
    frozenset(
        "html head meta title link body header nav main footer a h1 h2 h3 h4 h5 h6 p ul ol li table colgroup col "
        "thead tbody tr th td code pre span div strong em br sup term form label select option input script "
        "blockquote".split()
    )
    | site.MATH_TAGS
)
ALLOWED_ATTRS = (
    frozenset(
        "href id class style rowspan colspan scope lang charset name content rel src value type hidden xmlns "
        "display encoding".split()
    )
    | site.MATH_ATTRS
)
STYLE = re.compile(r"^(table-layout: fixed; )?width: [\d.]+(%|px)$")


class _AllowList(HTMLParser):
    def __init__(self, where: str):
        super().__init__(convert_charrefs=True)
        self.where, self.problems, self.text = where, [], []

    def handle_starttag(self, tag, attrs):
        if tag not in ALLOWED_TAGS:
            self.problems.append(f"{self.where}: element <{tag}>")
        for name, value in attrs:
            value = value or ""
            if name.startswith("on") or (name not in ALLOWED_ATTRS and not name.startswith("data-")):
                self.problems.append(f"{self.where}: attribute {name} on <{tag}>")
            if name in ("href", "src") and (re.match(r"^\s*[a-z]+:", value, re.I) and not value.startswith("https://")):
                self.problems.append(f"{self.where}: URL {value}")
            if name == "style" and not STYLE.match(value):
                self.problems.append(f"{self.where}: style {value}")
            if tag == "script" and (name != "src" or not value.endswith("assets/matrix.js")):
                self.problems.append(f"{self.where}: script {name}={value}")
        if tag == "script" and not attrs:
            self.problems.append(f"{self.where}: inline script")

    def handle_data(self, data):
        self.text.append(data)


def _check(html_text: str, where: str) -> tuple[list[str], str]:
    parser = _AllowList(where)
    parser.feed(html_text)
    parser.close()
    return parser.problems, "".join(parser.text)


def _mutate(text: str):
    def prose(node):
        if isinstance(node, dict):
            if set(node) <= {"zh", "en"} and "zh" in node:
                node["zh"] = "中文" + text
                node["en"] = "en " + text
                return
            for value in node.values():
                prose(value)
        elif isinstance(node, list):
            for value in node:
                prose(value)

    def mutate(data):
        for key in (
            "summary",
            "description",
            "deterministic",
            "params",
            "checks",
            "constraints",
            "precision",
            "doc_issues",
            "defaults",
        ):
            if key in data:
                prose(data[key])
        if "example" in data and "text" in data["example"]:
            prose(data["example"]["text"])
        data["formula"] = text
        data["precision"] = [*data.get("precision", []), {"zh": text, "en": text}]
        data["constraints"] = [*data.get("constraints", []), {"products": ["910"], "text": {"zh": text, "en": text}}]

    def mutate_catalog(name, data):
        if name == "products":
            for product in data["products"]:
                product["zh"] = product["zh"] + text
                product["en"] = product["en"] + text
        if name == "status_codes":
            for code in data["status_codes"]:
                code["zh"], code["en"] = text, text

    return mutate, mutate_catalog


def _declared_matrix(project, env):
    """The matrix from the specs' declared dtype tables: the hostile runs test escaping, not the validators
    (the Python emitter's own hostile tests cover the validator code built from the same specs)."""
    out = {}
    for info in project.ops:
        spec = info.spec
        out[spec.name] = {
            tag: {
                p.name: tuple(next((r.dtypes for r in p.tensor.dtypes if r.products == "all" or tag in r.products), ()))
                for p in spec.params
                if p.tensor is not None
            }
            if tag in spec.products
            else {}
            for tag in project.catalog.product_tags
        }
    return out


@pytest.fixture(autouse=True)
def _no_validator_exec(monkeypatch):
    from generator.emit import matrix

    monkeypatch.setattr(matrix, "build", _declared_matrix)


def _run(tmp_path, text: str) -> None:
    mutate, mutate_catalog = _mutate(text)
    specs = spec_tree(tmp_path, "elu_backward", mutate, mutate_catalog)
    try:
        project = load_project(specs)
    except SpecError as exc:
        assert exc.diagnostics
        for d in exc.diagnostics:
            assert re.match(r"^.+:\d+:\d+: ", str(d)), str(d)
        return
    out = docs.files(project, environment(), cpp_files={})
    problems: list[str] = []
    md = site._markdown()
    for rel, page in out.items():
        if rel.endswith(".md"):
            found, _ = _check(md.render(page), rel)
            problems += found
        elif rel.endswith(".html"):
            found, visible = _check(page, rel)
            problems += found
            if rel.endswith("/aclnnEluBackward.html") and "/maintainers/" not in rel:
                formula = esc.clean(text)
                if formula:
                    assert formula in html.unescape(visible) or formula.replace(" ", "") in visible.replace(" ", ""), (
                        rel
                    )
    assert not problems, "\n".join(problems[:20])


@pytest.mark.parametrize("text", HOSTILE, ids=range(len(HOSTILE)))
def test_fixed_hostile_texts(tmp_path, text):
    _run(tmp_path, text)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=hostile_text())
def test_arbitrary_unicode(tmp_path, text):
    _run(tmp_path, text)


def test_formula_with_script_is_text():
    """Issue 9's reproducer: a formula line closing a script tag stays text in Markdown and on the site."""
    line = "</script><script>alert(1)</script>"
    assert "<" not in esc.formula_md(line)
    rendered = site.mathml(line)
    problems, visible = _check(rendered, "formula")
    assert not problems and line in html.unescape(visible)
    for bad in ("\\href{javascript:alert(1)}{x}", "\\text{<img src=x onerror=alert(1)>}", "a & b < c"):
        problems, _ = _check(site.mathml(bad), bad)
        assert not problems, problems
        assert " href=" not in site.mathml(bad) and "<img" not in site.mathml(bad)


def test_url_refuses_scripts():
    for bad in ("javascript:alert(1)", "JAVASCRIPT:x", "data:text/html,x", "//evil.example/x", "vbscript:x", "a\\b"):
        with pytest.raises(ValueError):
            esc.url(bad)
    assert esc.url("https://x.example/a b") == "https://x.example/a%20b"
    assert esc.url("#约束说明") == "#约束说明"
