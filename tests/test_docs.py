"""The generated docs: seed content is complete and defect-free, markdown/HTML are well formed, links resolve.

Everything is rendered in-process (``generator.emit.docs.files``); nothing is read from ``generated/``.
"""

from __future__ import annotations

import dataclasses
import html
import re
import subprocess
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path, PurePosixPath

import pytest

from generator.emit import docs
from generator.generate import environment
from generator.loader import Project, load_project
from generator.model import Constraint, Text

REPO = Path(__file__).resolve().parents[1]
SEEDS = REPO.parent / "shared" / "seeds"
if not SEEDS.is_dir():
    SEEDS = Path("/work/shared/seeds")
CHROMIUM = Path("/usr/bin/chromium")

PROJECT = load_project(REPO / "specs")
CATALOG = PROJECT.catalog
SEED_OPS = {info.spec.sources.seed: info for info in PROJECT.ops if info.spec.sources.seed}
CODE = re.compile(r"\b(161\d{3}|361\d{3}|561\d{3})\b")
# Rendering defects of the seed docs that must never reach a generated page (outside the errata, which
# quotes them on purpose).
SEED_DEFECTS = ("[object Object]", "undefined", "GetWorkSpaceSize")


@pytest.fixture(scope="module")
def rendered() -> dict[str, str]:
    return docs.files(PROJECT, environment())


# ---------------------------------------------------------------------------------------------
# helpers


def visible(markdown: str) -> str:
    """The text a reader sees: tags dropped, entities and markdown escapes resolved, whitespace collapsed."""
    text = re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", markdown)
    text = html.unescape(re.sub(r"<[^>]+>", " ", text))
    return re.sub(r"\s+", " ", text)


def norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def section(page: str, start: str, stop: str) -> str:
    begin = page.index(start)
    end = page.find(stop, begin + len(start))
    return page[begin : end if end >= 0 else len(page)]


def without_errata(page: str) -> str:
    """The page minus the doc-issues subsection (which quotes seed defects to explain them)."""
    for heading in ("### 文档勘误", "### Doc Issues"):
        if heading in page:
            begin = page.index(heading)
            end = page.find("\n## ", begin)
            return page[:begin] + (page[end:] if end >= 0 else "")
    return page


def cells(row_html: str) -> list[str]:
    return re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", row_html, flags=re.S)


def rows(table_html: str) -> list[str]:
    return re.findall(r"<tr>(.*?)</tr>", table_html, flags=re.S)


def param_table(page: str, name: str) -> str:
    part = section(page, f"## {name}GetWorkspaceSize", "- **返回值")
    return part[part.index("<tbody>") : part.index("</tbody>")]


def error_rows(page: str, name: str) -> list[tuple[int, str]]:
    """(doc status code, description) per row of the first-phase error table, following rowspans."""
    part = section(page, "第一段接口完成入参校验", "</table>")
    out, code = [], None
    for row in rows(part[part.index("<tbody>") :]):
        found = cells(row)
        if len(found) == 3:
            code = int(found[1])
        out.append((code, found[-1]))
    return out


def seed_text(info) -> str:
    path = SEEDS / info.spec.sources.seed
    if not path.is_file():
        pytest.skip(f"seed {path.name} not available")
    return path.read_text(encoding="utf-8")


def zh_page(rendered, info) -> str:
    return rendered[f"docs/zh/{info.spec.name}.md"]


SEED_IDS = sorted(SEED_OPS)


# ---------------------------------------------------------------------------------------------
# per seed op: the zh page holds everything the spec says, and none of the seed's defects


@pytest.mark.parametrize("seed", SEED_IDS)
def test_products_listed(rendered, seed):
    info = SEED_OPS[seed]
    seed_text(info)
    page = zh_page(rendered, info)
    listed = re.findall(r"^- <term>(.+?)</term>：(支持|不支持)$", section(page, "## 产品支持情况", "## 功能说明"), re.M)
    expected = [(p.zh, "支持" if p.tag in info.spec.products else "不支持") for p in CATALOG.products.products]
    assert listed == expected


@pytest.mark.parametrize("seed", SEED_IDS)
def test_parameter_rows(rendered, seed):
    """Each parameter has exactly one 参数说明 row, with its dtypes per product, formats and rank."""
    info = SEED_OPS[seed]
    seed_text(info)
    spec = info.spec
    table = param_table(zh_page(rendered, info), spec.name)
    by_name: dict[str, list[str]] = {}
    names = []
    for row in rows(table):
        found = cells(row)
        name = html.unescape(found[0]).split("（")[0]
        names.append(name)
        by_name[name] = found
    assert Counter(names) == Counter([p.name for p in spec.params] + ["workspaceSize", "executor"])
    assert names[: len(spec.params)] == [p.name for p in spec.params]  # prototype order
    tag_by_name = {p.zh: p.tag for p in CATALOG.products.products}
    for p in spec.params:
        row = by_name[p.name]
        assert row[1] == ("输出" if p.role == "output" else "输入")
        if p.tensor is None:
            if p.array:
                assert row[4] == p.array.element
            continue
        expected = {}
        for rule in p.tensor.dtypes:
            for tag in spec.products if rule.products == "all" else rule.products:
                expected.setdefault(tag, list(rule.dtypes))
        shown = {}
        for line in row[4].split("<br>"):
            if "：" in line:
                products, dtypes = line.split("：")
                tags = [tag_by_name[html.unescape(t)] for t in re.findall(r"<term>(.*?)</term>", products)]
            else:
                tags, dtypes = list(spec.products), line
            for tag in tags:
                shown[tag] = dtypes.split("、")
        assert shown == expected, p.name
        assert row[5].split("、") == list(p.tensor.formats)
        assert row[7] == ("√" if p.tensor.non_contiguous else "×")
        if p.tensor.rank:
            lo, hi = p.tensor.rank.min, p.tensor.rank.max
            assert row[6].split("<br>")[0] == (str(lo) if lo == hi else f"{lo}-{hi}")


@pytest.mark.parametrize("seed", SEED_IDS)
def test_every_dtype_and_format_appears(rendered, seed):
    info = SEED_OPS[seed]
    seed_text(info)
    text = visible(zh_page(rendered, info))
    words = set(re.findall(r"[A-Z][A-Z0-9_]+", text))
    wanted = set()
    for p in info.spec.params:
        if p.tensor:
            wanted |= {d for rule in p.tensor.dtypes for d in rule.dtypes} | set(p.tensor.formats)
        if p.array:
            wanted.add(p.array.element)
        if p.scalar and p.scalar.castable_to:
            wanted.add(p.scalar.castable_to)
    for c in info.spec.checks:
        wanted |= set(c.dtypes or []) | set(c.formats or [])
    assert wanted <= words, sorted(wanted - words)


@pytest.mark.parametrize("seed", SEED_IDS)
def test_error_table(rendered, seed):
    """Every documented condition sits in the group of the code the doc states; numbering has no gaps;
    every status code the seed names is there."""
    info = SEED_OPS[seed]
    text = seed_text(info)
    spec = info.spec
    found = error_rows(zh_page(rendered, info), spec.name)
    by_code: dict[int, list[str]] = {}
    for code, description in found:
        by_code.setdefault(code, []).append(visible(description))
    for check in spec.checks:
        if not check.documented:
            continue
        code = CATALOG.status(check.doc_code if check.doc_code is not None else check.code)[0]
        assert any(norm(check.text.zh) in d for d in by_code.get(code, [])), (check.id, code)
    for code, descriptions in by_code.items():
        assert len(descriptions) == len(set(descriptions)), f"duplicate rows under {code}"
        if len(descriptions) > 1:
            numbers = [int(re.match(r"\s*(\d+)\. ", d).group(1)) for d in descriptions]
            assert numbers == list(range(1, len(descriptions) + 1)), (code, numbers)
    seed_codes = {int(c) for c in CODE.findall(text.split("调用示例")[0])}
    assert seed_codes <= set(by_code), sorted(seed_codes - set(by_code))


@pytest.mark.parametrize("seed", SEED_IDS)
def test_differences_noted(rendered, seed):
    """A documented rule CANN does not enforce, or returns another code for, gets a note after the table."""
    info = SEED_OPS[seed]
    seed_text(info)
    page = zh_page(rendered, info)
    notes = section(page, "第一段接口完成入参校验", "<details>")
    for check in info.spec.checks:
        differs = check.doc_code is not None and CATALOG.status(check.doc_code)[0] != CATALOG.status(check.code)[0]
        if check.documented and (differs or not check.enforced):
            assert f"检查`{check.id}`" in notes, check.id
        if not check.documented and check.enforced:
            assert f"（`{check.id}`）" in notes, check.id


@pytest.mark.parametrize("seed", SEED_IDS)
def test_constraints_and_statements(rendered, seed):
    info = SEED_OPS[seed]
    seed_text(info)
    spec = info.spec
    page = zh_page(rendered, info)
    constraints = visible(section(page, "## 约束说明", "## 调用示例"))
    for c in spec.constraints:
        assert norm(c.text.zh) in constraints
    for p in spec.precision:
        assert norm(p.zh) in constraints
    if spec.deterministic:
        assert norm(spec.deterministic.zh) in constraints
    for issue in spec.doc_issues:
        assert norm(issue.text.zh) in constraints and norm(issue.resolution.zh) in constraints
    assert norm(spec.description.zh) in visible(section(page, "## 功能说明", "## 函数原型"))


@pytest.mark.parametrize("seed", SEED_IDS)
def test_no_seed_defects(rendered, seed):
    info = SEED_OPS[seed]
    seed_text(info)
    for lang in ("zh", "en"):
        page = without_errata(rendered[f"docs/{lang}/{info.spec.name}.md"])
        defects = SEED_DEFECTS if lang == "zh" else ("[object Object]", "GetWorkSpaceSize")  # en: "undefined behaviour"
        for defect in defects:
            assert defect not in page, (lang, defect)
        assert "gradOutputOrResult" not in page
        assert not re.search(r"\bNone\b", page), lang


def test_elu_backward_has_no_phantom_parameter(rendered):
    page = rendered["docs/zh/aclnnEluBackward.md"]
    assert "gradOutputOrResult" not in without_errata(page)
    assert "gradOutputOrResult" not in rendered["docs/en/aclnnEluBackward.md"].split("### Doc Issues")[0]


@pytest.mark.parametrize("info", PROJECT.ops, ids=lambda info: info.spec.name)
def test_example_section(rendered, info):
    """The generated C++ sample is embedded verbatim (or its path is named), then the expected outputs."""
    spec = info.spec
    from generator.emit import cpp

    sample = cpp.files(PROJECT, environment()).get(f"samples/{spec.snake}.cpp")
    for lang in ("zh", "en"):
        part = section(
            rendered[f"docs/{lang}/{spec.name}.md"], "\n## 调用示例" if lang == "zh" else "\n## Example", "\0"
        )
        assert f"samples/{spec.snake}.cpp" in part
        if sample:
            assert "Cpp\n" + sample.rstrip("\n") + "\n```" in part
        block = part[part.index("期望输出" if lang == "zh" else "Expected output") :]
        block = block[block.index("```text\n") + 8 : block.rindex("```")]
        shown: dict[str, list[str]] = {}
        for line in block.splitlines():
            head = re.match(r"^(\w+)(?:（| \()shape \[[\d, ]*\](?:，|, )\w+(?:）：|\):)$", line)
            if head:
                shown[head.group(1)] = []
            else:
                shown[list(shown)[-1]].append(line)
        assert list(shown) == list(spec.example.expected)
        for name, tensor in spec.example.expected.items():
            text = " ".join(shown[name])
            if tensor.data is not None:
                values = re.findall(r"-?\d+(?:\.\d+)?(?:e[-+]?\d+)?", text)
                assert [float(v) for v in values] == [float(v) for v in tensor.data], name
            elif tensor.fill is not None:
                assert str(float(tensor.fill)) in text, name


# ---------------------------------------------------------------------------------------------
# markdown validity, HTML balance, links


class _Html(HTMLParser):
    """Checks nesting of the structural tags and the rowspan/colspan geometry of every table."""

    TRACKED = frozenset("table thead tbody tr td th ul ol li details summary code sup term".split())

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.errors: list[str] = []
        self.counts: Counter = Counter()
        self.tables: list[list[list[list[tuple[int, int]]]]] = []  # table -> section -> row -> (rowspan, colspan)
        self.hrefs: list[str] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "a" and attrs.get("href"):
            self.hrefs.append(attrs["href"])
        if tag not in self.TRACKED:
            return
        self.counts[f"<{tag}>"] += 1
        self.stack.append(tag)
        if tag == "table":
            self.tables.append([])
        elif tag in ("thead", "tbody"):
            self.tables[-1].append([])
        elif tag == "tr":
            if not self.tables[-1] or self.stack[-2] == "table":
                self.tables[-1].append([])
            self.tables[-1][-1].append([])
        elif tag in ("td", "th") and "tr" in self.stack:
            span = (int(attrs.get("rowspan", 1)), int(attrs.get("colspan", 1)))
            self.tables[-1][-1][-1].append(span)

    def handle_endtag(self, tag):
        if tag not in self.TRACKED:
            return
        self.counts[f"</{tag}>"] += 1
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes <{self.stack[-1] if self.stack else '-'}>")
            if tag in self.stack:
                while self.stack.pop() != tag:
                    pass
            return
        self.stack.pop()

    def finish(self) -> list[str]:
        self.close()
        errors = list(self.errors) + [f"<{tag}> never closed" for tag in self.stack]
        for t, table in enumerate(self.tables):
            for s, part in enumerate(table):
                errors += _geometry(part, f"table {t + 1}, section {s + 1}")
        return errors


def _geometry(section_rows: list[list[tuple[int, int]]], where: str) -> list[str]:
    """Every row covers the same number of columns, counting cells spanned from rows above; no rowspan
    runs past the end of its section (so each rowspan equals the rows it actually spans)."""
    errors, carried, width = [], [], None
    for r, row in enumerate(section_rows):
        occupied = sum(cols for left, cols in carried if left > 0)
        total = occupied + sum(cols for _, cols in row)
        width = total if width is None else width
        if total != width:
            errors.append(f"{where}, row {r + 1}: {total} columns, expected {width}")
        carried = [(left - 1, cols) for left, cols in carried if left > 1] + [(rs - 1, cs) for rs, cs in row if rs > 1]
    if any(left > 0 for left, _ in carried):
        errors.append(f"{where}: a rowspan extends past the last row")
    return errors


def _markdown():
    markdown_it = pytest.importorskip("markdown_it")
    return markdown_it.MarkdownIt("commonmark").enable("table")


def _html_of(tokens) -> str:
    parts = []
    for token in tokens:
        if token.type in ("html_block", "html_inline"):
            parts.append(token.content)
        if token.children:
            parts.append(_html_of(token.children))
    return "".join(parts)


def _links(tokens) -> list[str]:
    found = []
    for token in tokens:
        if token.type == "link_open":
            found.append(token.attrs["href"])
        if token.children:
            found += _links(token.children)
    return found


def _check_target(rel: str, href: str, existing: set[str]) -> str | None:
    if re.match(r"^[a-z][a-z0-9+.-]*:", href) or href.startswith("#"):
        return None if href.startswith(("https://", "#")) else f"{rel}: unexpected link {href}"
    target = PurePosixPath(rel).parent / href.split("#")[0]
    parts: list[str] = []
    for part in target.parts:
        if part == "..":
            if not parts:
                return f"{rel}: {href} leaves the generated tree"
            parts.pop()
        elif part != ".":
            parts.append(part)
    resolved = "/".join(parts)
    return None if resolved in existing else f"{rel}: broken link {href} ({resolved})"


def test_markdown_is_valid(rendered):
    md = _markdown()
    existing = set(rendered)
    problems = []
    pages = {rel: text for rel, text in rendered.items() if rel.endswith(".md")}
    assert len(pages) == 2 * len(PROJECT.ops) + 2
    for rel, text in pages.items():
        tokens = md.parse(text)
        lines = text.splitlines()
        for token in tokens:
            if token.type == "fence":
                closing = lines[token.map[1] - 1].strip() if token.map[1] - 1 < len(lines) else ""
                if token.map[1] - 1 == token.map[0] or not (
                    closing.startswith(token.markup) and set(closing) == {token.markup[0]}
                ):
                    problems.append(f"{rel}: code block at line {token.map[0] + 1} is not closed")
        parser = _Html()
        parser.feed(_html_of(tokens))
        problems += [f"{rel}: {e}" for e in parser.finish()]
        for opening in ("table", "tr", "td", "th"):
            if parser.counts[f"<{opening}>"] != parser.counts[f"</{opening}>"]:
                problems.append(
                    f"{rel}: {parser.counts[f'<{opening}>']} <{opening}> vs {parser.counts[f'</{opening}>']}"
                )
        for href in _links(tokens) + parser.hrefs:
            problem = _check_target(rel, href, existing)
            if problem:
                problems.append(problem)
    assert not problems, "\n".join(problems)


def test_pages_link_each_other(rendered):
    index = rendered["docs/README.md"]
    assert "(support_matrix.md)" in index
    for info in PROJECT.ops:
        name = info.spec.name
        assert f"(zh/{name}.md)" in index and f"(en/{name}.md)" in index
        assert norm(info.spec.summary.zh) in visible(index)
        assert f"(../en/{name}.md)" in rendered[f"docs/zh/{name}.md"]
        assert f"(../zh/{name}.md)" in rendered[f"docs/en/{name}.md"]
        for lang in ("zh", "en"):
            assert "(../README.md)" in rendered[f"docs/{lang}/{name}.md"]


def test_rowspans_match_groups(rendered):
    for info in PROJECT.ops:
        page = zh_page(rendered, info)
        part = section(page, "第一段接口完成入参校验", "</table>")
        body = part[part.index("<tbody>") :]
        spans = [int(n) for n in re.findall(r'<td rowspan="(\d+)">ACLNN_', body)]
        groups = Counter(code for code, _ in error_rows(page, info.spec.name))
        assert spans == [n for n in groups.values() if n > 1]


# ---------------------------------------------------------------------------------------------
# English edition and escaping


def test_english_fallback_and_escaping():
    """A missing English text shows the Chinese one marked (zh); '<' and '&' in texts are escaped."""
    info = PROJECT.op("aclnnEluBackward")
    spec = info.spec
    checks = list(spec.checks)
    checks[0] = checks[0].model_copy(update={"text": Text(zh="参数<b>与&是空指针。", en="gradOutput <b> & null.")})
    changed = spec.model_copy(
        update={
            "summary": Text(zh="仅中文的简介。"),
            "constraints": [*spec.constraints, Constraint(text=Text(zh="仅中文的约束，a*b<c。"))],
            "checks": checks,
        }
    )
    project = Project(PROJECT.root, CATALOG, [dataclasses.replace(info, spec=changed)])
    out = docs.files(project, environment())
    en, zh = out["docs/en/aclnnEluBackward.md"], out["docs/zh/aclnnEluBackward.md"]
    assert "仅中文的约束，a\\*b&lt;c。 (zh)" in en
    assert "仅中文的约束，a\\*b&lt;c。" in zh and "(zh)" not in zh
    assert "仅中文的简介。 (zh)" in out["docs/README.md"]
    assert "参数&lt;b>与&amp;是空指针。" in zh and "<b>" not in without_errata(zh)
    assert "gradOutput &lt;b> &amp; null." in en


def test_deterministic(rendered):
    again = docs.files(PROJECT, environment())
    assert again == rendered
    for text in rendered.values():
        assert not re.search(r"\b20\d\d-\d\d-\d\d\b", text)


# ---------------------------------------------------------------------------------------------
# support matrix


class _Matrix(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.section = None
        self.head: list[str] = []
        self.body: list[list[str]] = []  # row -> [row header, cell texts...]
        self.cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        if tag in ("thead", "tbody"):
            self.section = tag
        elif tag == "tr" and self.section == "tbody":
            self.body.append([])
        elif tag in ("th", "td"):
            self.cell = []

    def handle_endtag(self, tag):
        if tag in ("th", "td") and self.cell is not None:
            text = " ".join("".join(self.cell).split())
            (self.head if self.section == "thead" else self.body[-1]).append(text)
            self.cell = None
        elif tag in ("thead", "tbody"):
            self.section = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell.append(" " + data)


def _expected_matrix() -> dict[str, list[set[str]]]:
    out = {}
    for info in PROJECT.ops:
        spec, row = info.spec, []
        for product in CATALOG.products.products:
            found: set[str] = set()
            if product.tag in spec.products:
                for p in spec.params:
                    if p.role == "input" and p.tensor:
                        for rule in p.tensor.dtypes:
                            if rule.products == "all" or product.tag in rule.products:
                                found |= set(rule.dtypes)
                                break
            row.append(found)
        out[spec.name] = row
    return out


def _check_matrix_html(page: str) -> None:
    parser = _Matrix()
    parser.feed(page)
    assert len(parser.head) == 1 + len(CATALOG.products.products)
    for header, product in zip(parser.head[1:], CATALOG.products.products, strict=True):
        assert header.startswith(product.zh)
    assert len(parser.body) == len(PROJECT.ops)
    expected = _expected_matrix()
    for row in parser.body:
        name = row[0].split()[0]
        assert len(row) == 1 + len(CATALOG.products.products), name
        for text, dtypes in zip(row[1:], expected.pop(name), strict=True):
            assert (set(text.split()) if dtypes else {text}) == (dtypes or {"—"}), (name, text)
    assert not expected


def test_support_matrix_html(rendered):
    page = rendered["docs/support_matrix.html"]
    assert page.count("<table") == 1
    assert not re.search(r"<(link|script)\b|src=|url\(", page), "the page must not load external assets"
    _check_matrix_html(page)


def test_support_matrix_markdown(rendered):
    tokens = _markdown().parse(rendered["docs/support_matrix.md"])
    header = [t for t in tokens if t.type == "th_open"]
    body_rows = []
    in_body = False
    for t in tokens:
        if t.type == "tbody_open":
            in_body = True
        elif t.type == "tbody_close":
            in_body = False
        elif in_body and t.type == "tr_open":
            body_rows.append([])
        elif in_body and t.type == "inline":
            body_rows[-1].append(t.content)
    assert len(header) == 1 + len(CATALOG.products.products)
    assert len(body_rows) == len(PROJECT.ops)
    expected = _expected_matrix()
    for row in body_rows:
        name = re.match(r"\[(\w+)\]", row[0]).group(1)
        for text, dtypes in zip(row[1:], expected.pop(name), strict=True):
            assert (set(text.split(", ")) if dtypes else {text}) == (dtypes or {"—"}), (name, text)


@pytest.mark.skipif(not CHROMIUM.exists(), reason="chromium is not installed")
def test_support_matrix_in_chromium(rendered, tmp_path):
    """The real browser builds the DOM: one table, one row per operator."""
    out = tmp_path / "docs"
    for rel, text in rendered.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text, encoding="utf-8")
    command = [
        str(CHROMIUM),
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={tmp_path / 'profile'}",
        "--dump-dom",
        (out / "support_matrix.html").as_uri(),
    ]
    try:
        proc = subprocess.run(command, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        pytest.skip(f"chromium could not run: {exc}")
    if proc.returncode != 0 or "<table" not in proc.stdout:
        pytest.skip(f"chromium could not render the page: {proc.stderr[-500:]}")
    _check_matrix_html(proc.stdout)
