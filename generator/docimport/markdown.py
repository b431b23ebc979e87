"""Reader for the current upstream Markdown docs (and their English twins, and our generated pages).

The H2 skeleton (产品支持情况, 功能说明, 函数原型, aclnnXxxGetWorkspaceSize, aclnnXxx, 约束说明,
调用示例) is found by heading text whatever its level; every part is optional, and anything off
the skeleton is reported (and its text kept as a constraint for review) rather than dropped.
"""

from __future__ import annotations

import re

from generator.docimport import errors as error_table
from generator.docimport import notes as notes_mod
from generator.docimport import params as param_table
from generator.docimport.facts import ApiFacts, ConstraintFact, DocFacts, NoteFact, ProductFact
from generator.docimport.prototype import prototypes
from generator.docimport.sample import read_sample
from generator.docimport.source import Heading, Source, code_blocks, heading_key
from generator.docimport.tables import Table, html_tables, markdown_tables
from generator.docimport.text import cell_items, cell_text, join_items, squash, strip_markdown, strip_tags

_WS = re.compile(r"^`?(aclnn[A-Za-z0-9_]+?)GetWork[sS]pace[sS]ize`?$")
_API = re.compile(r"^`?(aclnn[A-Za-z0-9_]+)`?$")


def read_markdown(src: Source, ctx, lang: str = "zh") -> DocFacts:
    facts = DocFacts(src.path, lang, "markdown")
    if src.unclosed_fence:
        facts.warn(src.unclosed_fence, "code fence is never closed; it runs to the end of the doc")
    title = next((h for h in src.headings if h.level == 1), None)
    if title is not None:
        facts.title, facts.title_line = strip_markdown(title.title).strip(), title.line
    sections: dict[str, list[Heading]] = {}
    ws: list[tuple[str, Heading]] = []
    for h in src.headings:
        if h is title:
            continue
        key = heading_key(h.title)
        text = strip_markdown(h.title).strip()
        if key:
            sections.setdefault(key, []).append(h)
        elif _WS.match(text):
            ws.append((_WS.match(text).group(1), h))
        elif _API.match(text):
            sections.setdefault("exec", []).append(h)
        elif h.level <= 2:
            first, last = src.span(h)
            body = squash(strip_markdown(src.block(first, last)))
            facts.warn(h.line, f"heading '{text[:60]}' is not part of the doc skeleton; its text is kept for review")
            if body:
                facts.constraints.append(
                    ConstraintFact(f"{text}：{body}", None, h.line, review="text under a heading off the doc skeleton")
                )
    if "products" in sections:
        _products(src, sections["products"][0], facts, ctx)
    if "function" in sections:
        _function(src, sections["function"][0], facts)
    protos = []
    if "prototype" in sections:
        first, last = src.span(sections["prototype"][0])
        protos = prototypes(src.block(first, last), first)
    if not protos:
        example_first = sections["example"][0].line if "example" in sections else len(src.lines) + 1
        protos = prototypes(src.block(1, example_first - 1), 1)
    apis = _apis(protos, ws, facts)
    if not apis and title is not None and _API.match(facts.title.split("&")[0]):
        apis = [ApiFacts(_API.match(facts.title.split("&")[0]).group(1), title.line)]
    facts.apis = apis
    for api in apis:
        heading = next((h for name, h in ws if name == api.name), None)
        if heading is None and len(ws) == 1 and len(apis) == 1:
            heading = ws[0][1]
        if heading is not None:
            first, last = src.span(heading)
        elif ws:
            continue
        else:  # no GetWorkspaceSize heading: look for the tables anywhere before the sample
            first = 1
            last = (sections["example"][0].line - 1) if "example" in sections else len(src.lines)
        _workspace_section(src, first, last, api, facts, ctx)
    for api in apis:
        if not api.table_found and ws:
            donor = next((a for a in apis if a.table_found), None)
            if donor is not None:
                api.rows, api.dtype_facts, api.notes = donor.rows, donor.dtype_facts, donor.notes
                api.errors, api.error_table_found, api.table_found = donor.errors, donor.error_table_found, True
    if "constraints" in sections:
        _constraints(src, sections["constraints"][0], facts, ctx)
    if "example" in sections:
        _example(src, sections["example"][0], facts, ctx)
    return facts


# --- products -------------------------------------------------------------------------------


def _products(src: Source, heading: Heading, facts: DocFacts, ctx) -> None:
    first, last = src.span(heading)
    facts.products_found = True
    lines = src.lines[first - 1 : last]
    tables = markdown_tables(lines, first) + html_tables(src.block(first, last), first)
    if tables:
        for table in tables:
            for row in table.rows[1:]:
                if not row:
                    continue
                label = row[0].html
                verdict = strip_tags(" ".join(c.html for c in row[1:])).strip()
                _add_product(facts, ctx, label, _verdict(verdict, default=True), row[0].line, row[0].npu)
        return
    npu = None
    for number in range(first, last + 1):
        line = src.lines[number - 1]
        opened = re.search(r'<!--\s*npu\s*=\s*"([^"]*)"', line)
        if opened:
            npu = opened.group(1)
            continue
        if re.search(r"<!--\s*end\b", line):
            npu = None
            continue
        text = line.strip()
        if not text or text.startswith("<!--"):
            continue
        text = re.sub(r"^(?:[-*+•]|\d+[.、])\s*", "", text)
        if "<term>" in text:
            label = " ".join(re.findall(r"<term>(.*?)</term>", text))
            rest = re.sub(r"<term>.*?</term>", "", text)
        else:
            label, _, rest = text.partition("：")
            if not rest:
                label, _, rest = text.partition(":")
        _add_product(facts, ctx, label, _verdict(rest, default=True), number, npu)


def _verdict(text: str, default: bool) -> bool:
    t = strip_tags(text)
    if "不支持" in t or "×" in t or re.search(r"\bno\b|not supported|unsupported", t, re.I):
        return False
    if "支持" in t or "√" in t or re.search(r"\byes\b|supported", t, re.I):
        return True
    return default


def _add_product(facts: DocFacts, ctx, label: str, supported: bool, line: int, npu: str | None) -> None:
    matcher = ctx.matcher
    label_text = strip_tags(label).strip()
    tag = matcher.tag(label) if label_text else None
    if npu:
        npu_tags, unknown = matcher.npu_tags(npu)
        for u in unknown:
            facts.warn(line, f'unknown product tag npu="{u}"')
        if tag is None and len(npu_tags) == 1:
            tag = npu_tags[0]
            if label_text:
                facts.warn(line, f"unknown product label '{label_text[:60]}'; npu=\"{npu}\" ({tag}) is used")
        elif tag is not None and npu_tags and tag not in npu_tags:
            facts.warn(line, f"product '{label_text}' contradicts npu=\"{npu}\"; the label is used")
    if tag is None:
        if label_text and not re.fullmatch(r"(产品|product|products)", label_text, re.I):
            facts.warn(line, f"unknown product '{label_text[:60]}' (not in the catalogue); ignored")
        return
    for p in facts.products:
        if p.tag == tag:
            if p.supported != supported:
                facts.warn(
                    line,
                    f"product '{label_text}' is listed again as {'supported' if supported else 'unsupported'} "
                    f"(line {p.line} says the opposite); the first listing is used",
                )
            return
    facts.products.append(ProductFact(tag, supported, label_text, line))


# --- function -------------------------------------------------------------------------------


def _function(src: Source, heading: Heading, facts: DocFacts) -> None:
    first, last = src.span(heading)
    facts.function_line = first
    prose, formulas, block = [], [], None
    for number in range(first, last + 1):
        raw = src.lines[number - 1]
        line = raw.strip()
        if block is not None:
            if line.startswith("$$"):
                formulas.append(" ".join(x for x in block if x).strip())
                block = None
            else:
                block.append(line)
            continue
        if line.startswith("$$"):
            inner = line[2:]
            if inner.rstrip().endswith("$$") and inner.strip() != "":
                formulas.append(inner.rstrip()[:-2].strip())
            else:
                block = [inner] if inner.strip() else []
            continue
        if not line or line.startswith("<!--") or src.in_fence(number):
            continue
        text = re.sub(r"^(?:[-*+•]|\d+[.、])\s+", "", line)
        text = strip_markdown(text.replace("$", ""))
        text = squash(text)
        if not text:
            continue
        m = re.match(r"^(?:接口功能|算子功能|功能|description|function|api function)\s*[：:]\s*(.*)$", text, re.I)
        if m and not facts.summary:
            facts.summary = m.group(1).strip()
            text = m.group(1).strip()
        prose.append(text)
    if block:
        formulas.append(" ".join(x for x in block if x).strip())
    if not facts.summary and prose:
        facts.summary = prose[0]
    sep = "" if facts.lang == "zh" else " "
    facts.description = sep.join(prose)
    facts.formula = "\n".join(f for f in formulas if f)


# --- APIs -----------------------------------------------------------------------------------


def _apis(protos, ws, facts: DocFacts) -> list[ApiFacts]:
    apis: list[ApiFacts] = []
    by_name = {}
    for p in protos:
        if p.name.endswith("GetWorkspaceSize"):
            name = p.name[: -len("GetWorkspaceSize")]
            if name in by_name:
                continue
            api = ApiFacts(name, p.line, prototype=p)
            by_name[name] = api
            apis.append(api)
    for p in protos:
        if p.name in by_name:
            by_name[p.name].exec_prototype = p
    for name, h in ws:
        if name not in by_name:
            facts.warn(h.line, f"section '{h.title}' has no prototype in 函数原型; parameters come from its table")
            api = ApiFacts(name, h.line)
            by_name[name] = api
            apis.append(api)
    return apis


def _workspace_section(src: Source, first: int, last: int, api: ApiFacts, facts: DocFacts, ctx) -> None:
    block = src.block(first, last)
    tables = html_tables(block, first) + markdown_tables(src.lines[first - 1 : last], first)
    tables.sort(key=lambda t: t.line)
    param_tables = [t for t in tables if param_table.is_param_table(t)]
    err_tables = [t for t in tables if error_table.is_error_table(t)]
    for t in tables:
        if not t.closed:
            facts.warn(t.line, "HTML table is never closed (</table> missing); read up to the end of the section")
    warn = facts.warn
    if param_tables:
        table = param_tables[0]
        api.table_found = True
        api.rows = param_table.read_table(table, ctx.matcher, ctx.vocab, warn)
        # Notes between the parameter table and 返回值 / the error table.
        stop = last
        for number in range(table.end_line + 1, last + 1):
            text = src.lines[number - 1]
            if re.search(r"返回值|\*\*return|return value", text, re.I) or (
                err_tables and number >= err_tables[0].line
            ):
                stop = number - 1
                break
        lines = [(n, src.lines[n - 1]) for n in range(table.end_line + 1, stop + 1) if not src.in_fence(n)]
        _notes(lines, api, facts, ctx)
    if not param_tables:
        from generator.docimport.seed import read_param_lines

        stop = err_tables[0].line - 1 if err_tables else last
        lines = [(n, src.lines[n - 1]) for n in range(first, stop + 1) if not src.in_fence(n)]
        read_param_lines(lines, api, facts, ctx)
    for t in err_tables:
        api.error_table_found = True
        api.errors += error_table.read_table(t, ctx.status_by_name, ctx.status_by_value, warn, ctx.matcher)
    if not err_tables:
        rows = error_table.inline_errors(block, first, ctx.status_by_name)
        if rows:
            api.error_table_found = True
            api.errors = rows


def _notes(lines, api: ApiFacts, facts: DocFacts, ctx) -> None:
    names = {r.name for r in api.rows}
    roots = notes_mod.items(lines)
    for root in roots:
        notes_mod.resolve_products(root, ctx.matcher, facts.warn)
    for root in roots:
        _note_item(root, api, facts, ctx, names)


def _note_item(item, api: ApiFacts, facts: DocFacts, ctx, names) -> None:
    body = item.body
    if body.strip():
        sf = notes_mod.statement_facts(body, item.products, names, ctx.vocab, item.line)
        api.dtype_facts += sf.dtypes
        per_product_formats = False
        for params, formats, negative in sf.formats:
            if item.products:
                per_product_formats = True  # the model has no per-product formats: kept as a note
            else:
                _format_fact(api, params, formats, negative)
        if sf.unmapped or per_product_formats:
            text = _label_prefix(item, ctx) + strip_markdown(body)
            api.notes.append(NoteFact(squash(text), item.products, item.line))
        elif sf.dtypes and not any(n.line == item.line for n in api.notes):
            api.notes.append(
                NoteFact(squash(_label_prefix(item, ctx) + strip_markdown(body)), item.products, item.line, True)
            )
    for child in item.children:
        _note_item(child, api, facts, ctx, names)


def _label_prefix(item, ctx) -> str:
    if not item.label_text:
        return ""
    labels = [strip_tags(lbl) for lbl in ctx.matcher.split_labels(item.label_text)]
    return "、".join(labels) + "："


def _format_fact(api: ApiFacts, params, formats, negative) -> None:
    for row in api.rows:
        if params is not None and row.name not in params:
            continue
        if row.formats is None and params is None:
            continue
        current = row.formats or []
        row.formats = [f for f in current if f not in formats] if negative else list(formats)


# --- constraints ----------------------------------------------------------------------------


def _constraints(src: Source, heading: Heading, facts: DocFacts, ctx) -> None:
    first, last = src.span(heading)
    block = src.block(first, last)
    tables = html_tables(block, first)
    table_lines: set[int] = set()
    for t in tables:
        table_lines.update(range(t.line, t.end_line + 1))
        _constraint_table(t, facts, ctx)
    lines = [(n, src.lines[n - 1]) for n in range(first, last + 1) if n not in table_lines and not src.in_fence(n)]
    roots = notes_mod.items(lines)
    for root in roots:
        notes_mod.resolve_products(root, ctx.matcher, facts.warn)
    for root in roots:
        body = squash(strip_markdown(root.body))
        if re.match(
            r"^(?:确定性计算|确定性|deterministic computing|determinism|deterministic)\s*[：:]?\s*$", body, re.I
        ) or (re.match(r"^(?:确定性计算|deterministic computing)\s*[：:]", body, re.I)):
            parts = []
            rest = re.sub(
                r"^(?:确定性计算|确定性|deterministic computing|determinism|deterministic)\s*[：:]?\s*",
                "",
                body,
                flags=re.I,
            )
            if rest:
                parts.append(rest)
            for child in root.children:
                parts.append(_flatten(child, ctx))
            sep = "" if facts.lang == "zh" else " "
            facts.deterministic = sep.join(p for p in parts if p)
            facts.deterministic_line = root.line
            continue
        if re.fullmatch(r"无。?|none\.?|n/a", body, re.I):
            continue
        product_children = [c for c in root.children if c.products and c.products != root.products]
        if product_children and not root.products:
            head = body
            others = [c for c in root.children if c not in product_children]
            text = head + ("" if facts.lang == "zh" else " ").join(_flatten(c, ctx) for c in others)
            if text.strip():
                facts.constraints.append(ConstraintFact(text, None, root.line))
            for child in product_children:
                facts.constraints.append(
                    ConstraintFact(
                        (head.rstrip("：:") + "：" if head else "") + _flatten(child, ctx), child.products, child.line
                    )
                )
            continue
        text = _flatten(root, ctx)
        if text:
            facts.constraints.append(ConstraintFact(text, root.products, root.line))


def _flatten(item, ctx) -> str:
    head = _label_prefix(item, ctx) + squash(strip_markdown(item.body))
    children = join_items([_flatten(child, ctx) for child in item.children])
    if not children:
        return head
    if not head or head.endswith(("：", ":")):
        return head + children
    return join_items([head, children])


def _constraint_table(table: Table, facts: DocFacts, ctx) -> None:
    if not table.rows:
        return
    header = table.grid()[0] if table.rows else []
    column_products: list[list[str] | None] = []
    for cell in header:
        if cell is None:
            column_products.append(None)
            continue
        tags: list[str] = []
        if cell.npu:
            tags, _ = ctx.matcher.npu_tags(cell.npu)
        labelled, _ = ctx.matcher.tags_in(cell.html) if "<term>" in cell.html else ([], [])
        column_products.append(labelled or tags or None)
    for row in table.grid()[1:]:
        if not row or row[0] is None:
            continue
        head = cell_text(row[0].html)
        seen: list[int] = []
        for cell in row[1:]:
            if cell is None or id(cell) in seen:
                continue
            seen.append(id(cell))
            text = join_items(cell_items(cell.html))
            if not text or text in ("-", "—"):
                continue
            products: list[str] = []
            for j, other in enumerate(row):
                if other is cell and j < len(column_products) and column_products[j]:
                    products += [t for t in column_products[j] if t not in products]
            facts.constraints.append(ConstraintFact(f"{head}：{text}" if head else text, products or None, cell.line))


# --- example --------------------------------------------------------------------------------


def _example(src: Source, heading: Heading, facts: DocFacts, ctx) -> None:
    first, last = src.span(heading)
    blocks = code_blocks(src, first, last)
    if not blocks:
        if "aclnnStatus" in src.block(first, last) or "GetWorkspaceSize(" in src.block(first, last):
            blocks = [(first, src.block(first, last))]
        else:
            return
    chosen = next((b for b in blocks if "GetWorkspaceSize" in b[1]), blocks[0])
    line, code = chosen
    for api in facts.apis:
        params = [(p.name, p.ctype) for p in (api.prototype.params if api.prototype else [])]
        api.sample = read_sample(code, line, api.name, params, ctx.vocab)
    if facts.apis:
        facts.sample = facts.apis[0].sample
