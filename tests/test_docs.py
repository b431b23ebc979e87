"""The generated docs: user pages hold the spec's user facts and no maintainer material, maintainers'
pages hold every maintainer fact, Markdown/HTML are well formed, links resolve.

Everything is rendered in-process (``generator.emit.docs.files``); nothing is read from ``generated/``.
"""

from __future__ import annotations

import dataclasses
import html
import re
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
# Rendering defects of the seed docs that must never reach a user page.
SEED_DEFECTS = ("[object Object]", "undefined", "GetWorkSpaceSize")
# References to internal files and maintainer vocabulary that must never reach a user page.
INTERNAL = re.compile(
    r"cann-facts|golden|specs/|\.yaml|\.txt\b|op_api|generator/|opgen-|种子|\bseed\b|参考实现|reference kernel|"
    r"shadowed|doc_code|enforced|documented: false|文档勘误|Doc Issues|note\b"
)


@pytest.fixture(scope="module")
def rendered() -> dict[str, str]:
    return docs.files(PROJECT, environment())


# ---------------------------------------------------------------------------------------------
# helpers


def visible(markdown: str) -> str:
    """The text a reader sees: tags dropped, entities and markdown escapes resolved, whitespace collapsed."""
    text = re.sub(r"(?<!\\)\[([^\]]*)\]\([^)]*\)", r"\1", markdown)
    text = re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", text)
    text = html.unescape(re.sub(r"<[^>]+>", " ", text))
    return re.sub(r"\s+", " ", text)


def norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def section(page: str, start: str, stop: str) -> str:
    begin = page.index(start)
    end = page.find(stop, begin + len(start))
    return page[begin : end if end >= 0 else len(page)]


def cells(row_html: str) -> list[str]:
    return re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", row_html, flags=re.S)


def rows(table_html: str) -> list[str]:
    return re.findall(r"<tr>(.*?)</tr>", table_html, flags=re.S)


def param_table(page: str, name: str) -> str:
    part = section(page, f"## {name}GetWorkspaceSize", "- **返回值")
    return part[part.index("<tbody>") : part.index("</tbody>")]


def error_rows(page: str, name: str) -> list[tuple[int, str]]:
    """(status code, description) per row of the first-phase error table, following rowspans."""
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


def user_page(rendered, info, lang="zh") -> str:
    return rendered[f"docs/{lang}/{info.spec.name}.md"]


def maintainer_page(rendered, info, lang="zh") -> str:
    return rendered[f"docs/{lang}/maintainers/{info.spec.name}.md"]


ALL = PROJECT.ops
IDS = [info.spec.name for info in ALL]


# ---------------------------------------------------------------------------------------------
# user pages


@pytest.mark.parametrize("info", ALL, ids=IDS)
def test_products_listed(rendered, info):
    page = user_page(rendered, info)
    listed = re.findall(r"^- <term>(.+?)</term>：(支持|不支持)$", section(page, "## 产品支持情况", "## 功能说明"), re.M)
    expected = [
        (html.escape(p.zh), "支持" if p.tag in info.spec.products else "不支持") for p in CATALOG.products.products
    ]
    assert listed == expected


@pytest.mark.parametrize("info", ALL, ids=IDS)
def test_parameter_rows(rendered, info):
    """Each parameter has exactly one 参数说明 row, with its dtypes per product, formats and rank."""
    spec = info.spec
    table = param_table(user_page(rendered, info), spec.name)
    by_name: dict[str, list[str]] = {}
    names = []
    for row in rows(table):
        found = cells(row)
        name = html.unescape(found[0]).split("（")[0]
        names.append(name)
        by_name[name] = found
    assert names == [p.name for p in spec.params] + ["workspaceSize", "executor"]
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


@pytest.mark.parametrize("info", ALL, ids=IDS)
def test_error_table_lists_what_cann_returns(rendered, info):
    """Every check CANN runs and that can fail on its own is in the group of the code CANN returns; a rule CANN
    does not enforce, or that an earlier check always pre-empts, is not (unless another check has its words)."""
    spec = info.spec
    found = error_rows(user_page(rendered, info), spec.name)
    by_code: dict[int, str] = {}
    for code, description in found:
        by_code[code] = by_code.get(code, "") + " " + visible(description)
    shown = docs.user_checks(spec)
    for check in shown:
        code = CATALOG.status(check.code)[0]
        text = norm(check.text.zh).rstrip("。")
        head = text.split("（")[0] if text.endswith("）") else text
        assert head in norm(by_code.get(code, "")), (check.id, code)
    shown_texts = {norm(c.text.zh) for c in shown}
    for check in spec.checks:
        if check not in shown and norm(check.text.zh) not in shown_texts:
            assert norm(check.text.zh) not in visible(section(user_page(rendered, info), "第一段接口完成", "</table>"))
    assert set(by_code) == {CATALOG.status(c.code)[0] for c in shown}
    for code, _ in found:
        assert code is not None


@pytest.mark.parametrize("info", ALL, ids=IDS)
def test_code_differences_noted_for_users(rendered, info):
    """A check whose code differs from the doc's gets a footnote saying what CANN returns (no check id)."""
    page = user_page(rendered, info)
    part = section(page, "第一段接口完成", "\n## ")
    for check in docs.user_checks(info.spec):
        if check.doc_code is not None and CATALOG.status(check.doc_code)[0] != CATALOG.status(check.code)[0]:
            doc, code = CATALOG.status(check.doc_code)[0], CATALOG.status(check.code)[0]
            assert f"上游文档将此情形列为{doc}" in part and f"CANN实际返回{code}" in part, check.id


@pytest.mark.parametrize("info", ALL, ids=IDS)
def test_constraints_and_statements(rendered, info):
    spec = info.spec
    for lang in ("zh", "en"):
        page = user_page(rendered, info, lang)
        head = "## 约束说明" if lang == "zh" else "## Constraints"
        constraints = visible(section(page, head, "\n## "))
        for c in spec.constraints:
            label, body = docs.topic(docs.pick(c.text, lang), lang)
            assert norm(body) in constraints, (lang, c.text.zh)
        for p in spec.precision:
            assert norm(docs.pick(p, lang)) in constraints
        if spec.deterministic:
            assert norm(docs.pick(spec.deterministic, lang)) in constraints
    assert norm(spec.description.zh) in visible(section(user_page(rendered, info), "## 功能说明", "## 函数原型"))


def test_per_product_constraints_are_a_table(rendered):
    """Upstream's layout: one row per topic, one column per group of products, equal cells merged."""
    page = user_page(rendered, PROJECT.op("aclnnConvolutionBackward"))
    table = section(section(page, "## 约束说明", "\n## "), '<table class="constraints"', "</table>")
    heads = re.findall(r"<th>(.*?)</th>", table)
    assert len(heads) == 3 and "Ascend 950PR" in heads[0] and "Atlas 训练系列产品" in heads[2]
    labels = re.findall(r'<th scope="row">(.*?)</th>', table)
    for label in ("空Tensor约束", "stride约束", "padding约束", "dilation约束", "dtype约束", "其他约束"):
        assert label in labels
    assert 'colspan="2"' in table


@pytest.mark.parametrize("info", ALL, ids=IDS)
def test_user_pages_carry_no_maintainer_material(rendered, info):
    """No seed-defect strings, check or doc-issue ids, internal files or maintainer vocabulary on user pages."""
    spec = info.spec
    ids = [c.id for c in spec.checks if "-" in c.id] + [i.id for i in spec.doc_issues if "-" in i.id]
    for lang in ("zh", "en"):
        page = user_page(rendered, info, lang)
        defects = SEED_DEFECTS if lang == "zh" else ("[object Object]", "GetWorkSpaceSize")  # en: "undefined behaviour"
        for defect in defects:
            assert defect not in page, (lang, defect)
        found = INTERNAL.search(page)
        assert not found, (lang, page[max(0, found.start() - 80) : found.end() + 40])
        text = visible(page)
        for ident in ids:
            assert not re.search(rf"(?<![\w-]){re.escape(ident)}(?![\w-])", text), (lang, ident)
        assert not re.search(r"\bNone\b", page), lang


@pytest.mark.parametrize("info", ALL, ids=IDS)
def test_every_maintainer_fact_is_on_the_maintainers_page(rendered, info):
    spec = info.spec
    for lang in ("zh", "en"):
        page = visible(maintainer_page(rendered, info, lang))
        for issue in spec.doc_issues:
            assert issue.id in page
            assert norm(docs.pick(issue.text, lang)) in page and norm(docs.pick(issue.resolution, lang)) in page
        for check in spec.checks:
            assert check.id in page
            assert norm(docs.pick(check.text, lang)) in page
            if check.note:
                assert norm(docs.pick(check.note, lang)) in page, check.id
            if check.cases and check.cases.shadowed_by:
                assert check.cases.shadowed_by in page
        for value in (spec.sources.seed, spec.sources.doc, spec.sources.code):
            if value:
                assert value in page
        deviations = visible(
            section(maintainer_page(rendered, info, lang), "## " + docs.LABELS[lang]["m_deviations"], "\n## ")
        )
        for check in spec.checks:
            differs = check.doc_code is not None and CATALOG.status(check.doc_code)[0] != CATALOG.status(check.code)[0]
            if differs or not check.enforced or not check.documented or (check.cases and check.cases.shadowed_by):
                assert check.id in deviations, check.id


def test_links_restored(rendered):
    elu = user_page(rendered, PROJECT.op("aclnnEluBackward"))
    assert "[📄 查看源码](https://gitcode.com/cann/ops-nn/tree/master/activation/elu_grad_v2)" in elu
    assert (
        "[aclnnElu](https://gitcode.com/cann/ops-nn/blob/master/activation/elu/docs/aclnnElu&aclnnInplaceElu.md)" in elu
    )
    assert (
        '<a href="https://gitcode.com/cann/ops-nn/blob/master/docs/zh/context/conversion_relationship.md">互转换关系</a>'
        in elu
    )
    en = user_page(rendered, PROJECT.op("aclnnEluBackward"), "en")
    assert ">conversion rules</a>" in en
    conv = user_page(rendered, PROJECT.op("aclnnConvolutionBackward"))
    assert "[获取技术支持](https://www.hiascend.com/support)" in conv
    assert '<a href="#约束说明">约束说明</a>' in conv


@pytest.mark.parametrize("info", ALL, ids=IDS)
def test_no_repeated_sentences(rendered, info):
    """No sentence is said twice in one table cell or list of the user page."""
    for lang in ("zh", "en"):
        page = user_page(rendered, info, lang)
        for row in rows(page):
            for content in cells(row):
                items = [norm(visible(i)) for i in re.findall(r"<li>(.*?)</li>", content)]
                items = [i for i in items if i]
                assert len(items) == len(set(items)), (lang, items)
        bullets = [line for line in page.splitlines() if line.startswith("- ") and not line.startswith("- **")]
        assert len(bullets) == len(set(bullets)), lang


def _comment_blocks(code: str) -> list[str]:
    """The text of each run of consecutive ``//`` comment lines, and of each trailing comment."""
    blocks, current = [], []
    for line in code.splitlines():
        stripped = line.strip()
        if stripped.startswith("//"):
            current.append(stripped[2:].strip())
            continue
        if current:
            blocks.append(" ".join(current))
            current = []
        if "//" in line and '"' not in line:
            blocks.append(line.split("//", 1)[1].strip())
    if current:
        blocks.append(" ".join(current))
    return blocks


@pytest.mark.parametrize("info", ALL, ids=IDS)
def test_example_section(rendered, info):
    """Every generated C++ sample of the page's language (one per product data layout) is embedded, with
    comments in that language, then the expected outputs."""
    spec = info.spec
    from generator.emit import cpp

    files = cpp.files(PROJECT, environment())
    for lang in ("zh", "en"):
        page = user_page(rendered, info, lang)
        part = section(page, "\n## 调用示例" if lang == "zh" else "\n## Example", "\0")
        samples = cpp.op_samples(files, spec.name, lang)
        assert samples, lang
        for sample in samples:
            assert f"`{sample['path']}`" in part
            assert sample["path"].startswith(f"samples/{lang}/")
            code = docs._without_stamp(sample["text"]).rstrip("\n")
            assert "Cpp\n" + code + "\n```" in part
            if lang == "zh":
                english = [
                    c
                    for c in _comment_blocks(code)
                    if re.search(r"[A-Za-z]{3,}", c)
                    and not re.search(r"[\u4e00-\u9fff]", c)
                    and not c.startswith(("g++ ", "./"))  # the build command
                    and not re.fullmatch(r"\d+ = [A-Z0-9_]+", c)  # an enum value and its name
                ]
                assert not english, english
        if len(samples) > 1:  # one heading per data layout, naming its products
            assert part.count("适用于" if lang == "zh" else "the data layout depends on the product") == len(samples)
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
    assert len(pages) == 4 * len(PROJECT.ops) + 2
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
            problem = _check_target(rel, href.split("#")[0] or "#", existing) if not href.startswith("#") else None
            if problem:
                problems.append(problem)
    assert not problems, "\n".join(problems)


def test_pages_link_each_other(rendered):
    index = rendered["docs/README.md"]
    assert "(support_matrix.md)" in index
    for info in PROJECT.ops:
        name = info.spec.name
        assert f"(zh/{name}.md)" in index and f"(en/{name}.md)" in index
        assert f"(zh/maintainers/{name}.md)" in index and f"(en/maintainers/{name}.md)" in index
        assert norm(info.spec.summary.zh) in visible(index)
        assert f"(../en/{name}.md)" in rendered[f"docs/zh/{name}.md"]
        assert f"(../zh/{name}.md)" in rendered[f"docs/en/{name}.md"]
        for lang in ("zh", "en"):
            assert "(../README.md)" in rendered[f"docs/{lang}/{name}.md"]
            assert f"(../{name}.md)" in rendered[f"docs/{lang}/maintainers/{name}.md"]


def test_rowspans_match_groups(rendered):
    for info in PROJECT.ops:
        page = user_page(rendered, info)
        part = section(page, "第一段接口完成入参校验", "</table>")
        body = part[part.index("<tbody>") :]
        spans = [int(n) for n in re.findall(r'<td rowspan="(\d+)">ACLNN_', body)]
        groups = Counter(code for code, _ in error_rows(page, info.spec.name))
        assert spans == [n for n in groups.values() if n > 1]


def test_english_fallback_and_escaping():
    """A missing English text shows the Chinese one marked (zh); HTML specials in texts are escaped."""
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
    assert "参数&lt;b&gt;与&amp;是空指针。" in zh and "<b>" not in zh
    assert "gradOutput &lt;b&gt; &amp; null." in en


def test_deterministic(rendered):
    again = docs.files(PROJECT, environment())
    assert again == rendered
    for text in rendered.values():
        assert not re.search(r"\b20\d\d-\d\d-\d\d\b", text)


def test_support_matrix_markdown(rendered):
    """Per tensor: the main-input table and one table per op, as aclnn.supports says."""
    import aclnn

    tokens = _markdown().parse(rendered["docs/support_matrix.md"])
    tables, current, in_body = [], None, False
    for t in tokens:
        if t.type == "table_open":
            current = []
            tables.append(current)
        elif t.type == "tbody_open":
            in_body = True
        elif t.type == "tbody_close":
            in_body = False
        elif in_body and t.type == "tr_open":
            current.append([])
        elif in_body and t.type == "inline":
            current[-1].append(t.content)
    products = CATALOG.products.products
    assert len(tables) == 1 + len(PROJECT.ops)
    for row in tables[0]:
        name = re.match(r"\[(\w+)\]", row[0]).group(1)
        main = row[1]
        for text, product in zip(row[2:], products, strict=True):
            assert text == (", ".join(aclnn.supports(name, product.tag, param=main)) or "—"), (name, product.tag)
    for info, table in zip(PROJECT.ops, tables[1:], strict=True):
        for row in table:
            tensor = row[0].split("（")[0]
            for text, product in zip(row[1:], products, strict=True):
                expected = ", ".join(aclnn.supports(info.spec.name, product.tag, param=tensor)) or "—"
                assert text == expected, (info.spec.name, tensor, product.tag)


def test_pipe_in_a_product_name_keeps_the_matrix_intact():
    """A '|' in catalogue text is escaped in every pipe table (index, matrix)."""
    products = [p.model_copy(update={"zh": p.zh + " | x"}) for p in CATALOG.products.products]
    catalog = dataclasses.replace(CATALOG, products=CATALOG.products.model_copy(update={"products": products}))
    project = Project(PROJECT.root, catalog, PROJECT.ops)
    from generator.emit import matrix

    text = matrix.markdown(project, matrix.build(project, environment()))
    tokens = _markdown().parse(text)
    heads = [t for t in tokens if t.type == "th_open"]
    assert len(heads) == (2 + len(products)) + len(PROJECT.ops) * (1 + len(products))
