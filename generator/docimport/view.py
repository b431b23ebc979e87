"""The doc-owned facts of a spec or a doc: what a doc page states, in one comparable form.

``opgen diff`` and ``opgen sync`` compare these views, never raw specs, so that a curated spec and a
doc are compared like with like:

* products: the supported products, in the doc's order;
* parameters: name, C type, role, description and usage texts; for tensors the dtype table of each
  supported product (entries for other products are code facts a doc does not state), formats, rank,
  non-contiguous and empty-tensor support; for aclScalar the dtype table or the ``castable_to`` type;
* error rows: the doc's error table. From a spec: every *documented* check, under the code the doc
  gives (``doc_code`` when CANN returns another), checks with the same text forming one row; checks
  CANN does not enforce (``enforced: false``) are rows too, since the doc states them. From a doc: its
  error table as read, before any mapping to rules;
* constraints (with a spec's ``precision`` notes, which docs state among the constraints),
  determinism, summary, description and formula.

Texts are compared after :func:`norm` (whitespace, punctuation width and clause punctuation do not
count); :func:`similarity` pairs a reworded text with its old version.
"""

from __future__ import annotations

import difflib
import html
import re
import unicodedata
from dataclasses import dataclass, field

from generator.docimport.text import unescape_markdown

# --- text comparison --------------------------------------------------------------------------

_IGNORED = set(" \t\r\n\u3000，,、。；;：:！!？?\"'“”‘’「」『』《》〈〉`")
_SENTENCE_DOT = re.compile(r"\.(?!\d)")


def norm(text: str | None) -> str:
    """``text`` reduced to what a reader would call its wording: Markdown escapes, HTML entities,
    full-width forms, case, whitespace and clause punctuation (，、。；：!? quotes) do not count; a
    period counts only inside a number."""
    if not text:
        return ""
    t = unicodedata.normalize("NFKC", html.unescape(unescape_markdown(text)))
    t = _SENTENCE_DOT.sub("", t)
    return "".join(ch for ch in t if ch not in _IGNORED).lower()


_TOKEN = re.compile(r"[a-z0-9_]+(?:\.[0-9]+)?|\S")


def tokens(text: str | None) -> tuple[str, ...]:
    """The words of ``text`` for similarity: ASCII words and numbers whole, other characters one by
    one (so a long parameter name weighs as one word), punctuation and whitespace dropped."""
    if not text:
        return ()
    t = unicodedata.normalize("NFKC", html.unescape(unescape_markdown(text))).lower()
    t = "".join(" " if ch in _IGNORED else ch for ch in _SENTENCE_DOT.sub(" ", t))
    return tuple(_TOKEN.findall(t))


def similarity(a, b) -> float:
    """How alike two texts are (0..1), given as :func:`tokens`: the matching-blocks ratio of their
    words, raised to at least 0.8 when one contains the other (a detail added or dropped), halved when
    both name parameters (ASCII words) and share none."""
    if not a or not b:
        return 0.0
    if a == b:
        return 1.0
    ratio = difflib.SequenceMatcher(None, a, b, autojunk=False).ratio()
    short, long_ = (a, b) if len(a) <= len(b) else (b, a)
    if len(short) >= 4 and _contains(long_, short):
        ratio = max(ratio, 0.8)
    names_a, names_b = _names(a), _names(b)
    if names_a and names_b and not names_a & names_b:
        ratio *= 0.5  # the same sentence about other parameters is another row
    return ratio


def _names(words: tuple) -> set[str]:
    return {w for w in words if w[0].isalpha() and w.isascii() and len(w) > 1}


def _contains(long_: tuple, short: tuple) -> bool:
    n = len(short)
    return any(long_[i : i + n] == short for i in range(len(long_) - n + 1))


REWORD_THRESHOLD = 0.55


def pair(old: list[str], new: list[str], threshold: float = REWORD_THRESHOLD) -> list[tuple[int, int, float]]:
    """Pair texts of ``old`` with texts of ``new`` by similarity, best pairs first, each text at most
    once: ``[(old index, new index, score)]``."""
    scores = []
    old_t, new_t = [tokens(t) for t in old], [tokens(t) for t in new]
    for i, a in enumerate(old_t):
        for j, b in enumerate(new_t):
            s = similarity(a, b)
            if s >= threshold:
                scores.append((s, -abs(i - j), i, j))
    scores.sort(reverse=True)
    used_old, used_new, out = set(), set(), []
    for s, _, i, j in scores:
        if i in used_old or j in used_new:
            continue
        used_old.add(i)
        used_new.add(j)
        out.append((i, j, s))
    return sorted(out)


def align(old: list[str], new: list[str]) -> list[tuple[int, int, float]]:
    """Pair the texts of two ordered lists that stayed, moved or were reworded: equal texts
    (normalised) first, then a text replacing exactly one text at the same place in the list
    (similarity >= 0.3), then the most similar of the rest (>= REWORD_THRESHOLD)."""
    a_keys, b_keys = [norm(t) for t in old], [norm(t) for t in new]
    out: list[tuple[int, int, float]] = []
    used_a: set[int] = set()
    used_b: set[int] = set()
    for i, key in enumerate(a_keys):
        j = next((j for j, k in enumerate(b_keys) if k == key and j not in used_b), None)
        if j is not None:
            out.append((i, j, 1.0))
            used_a.add(i)
            used_b.add(j)
    matcher = difflib.SequenceMatcher(None, a_keys, b_keys, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "replace":
            continue
        rest_a = [i for i in range(i1, i2) if i not in used_a]
        rest_b = [j for j in range(j1, j2) if j not in used_b]
        if len(rest_a) == 1 and len(rest_b) == 1:
            i, j = rest_a[0], rest_b[0]
            score = similarity(tokens(old[i]), tokens(new[j]))
            if score >= 0.3:
                out.append((i, j, score))
                used_a.add(i)
                used_b.add(j)
    rest_a = [i for i in range(len(old)) if i not in used_a]
    rest_b = [j for j in range(len(new)) if j not in used_b]
    for x, y, score in pair([old[i] for i in rest_a], [new[j] for j in rest_b]):
        out.append((rest_a[x], rest_b[y], score))
    return sorted(out)


def regroup(
    old: list[str], new: list[str], used_old: set[int], used_new: set[int]
) -> list[tuple[list[int], list[int]]]:
    """Texts the other version splits into several (or merges from several): ``[(old indices, new
    indices)]`` where one side has one text and the other at least two unpaired texts that restate it
    (each shares a name or number with it; together they read alike, similarity >= 0.5)."""
    out: list[tuple[list[int], list[int]]] = []
    for one, many, used_one, used_many, flip in (
        (old, new, used_old, used_new, False),
        (new, old, used_new, used_old, True),
    ):
        for i, text in enumerate(one):
            if i in used_one:
                continue
            words = tokens(text)
            keys = {w for w in words if len(w) >= 2 and w.isascii() and w[0].isalnum()}
            parts = [j for j, t in enumerate(many) if j not in used_many and keys & set(tokens(t))]
            if len(parts) < 2:
                continue
            together = tuple(w for j in parts for w in tokens(many[j]))
            if similarity(words, together) < 0.5:
                continue
            used_one.add(i)
            used_many.update(parts)
            out.append((parts, [i]) if flip else ([i], parts))
    return out


# --- the view -----------------------------------------------------------------------------------


@dataclass
class TextView:
    zh: str = ""
    en: str | None = None

    @property
    def key(self) -> str:
        return norm(self.zh)

    def __bool__(self) -> bool:
        return bool(self.zh)


@dataclass
class ParamView:
    name: str
    index: int
    ctype: str
    role: str
    description: TextView
    usage: TextView
    dtypes: dict[str, tuple[str, ...]] | None = None  # supported product -> dtypes (tensors, aclScalar tables)
    castable_to: str | None = None
    formats: tuple[str, ...] | None = None
    rank: tuple[int, int] | None = None
    shape: TextView = field(default_factory=TextView)
    non_contiguous: bool | None = None
    empty: bool | None = None

    @property
    def is_tensor(self) -> bool:
        return self.ctype in ("const aclTensor*", "aclTensor*")


@dataclass
class RowView:
    """One row of the error table: its text, the code the doc gives, and the products it names."""

    text: TextView
    code: int | None
    products: frozenset[str] | None  # None: every product
    line: int = 0
    checks: list[str] = field(default_factory=list)  # ids of the spec checks that make this row
    rules: list[tuple] = field(default_factory=list)  # rule_key() of the checks the importer read from it

    @property
    def key(self) -> str:
        return self.text.key


@dataclass
class ConstraintView:
    text: TextView
    products: frozenset[str] | None
    line: int = 0


@dataclass
class View:
    """The doc-owned facts of one API (see the module docstring)."""

    name: str
    source: str  # the file it comes from
    kind: str  # "spec" | "doc"
    products: list[str]
    params: list[ParamView]
    errors: list[RowView]
    constraints: list[ConstraintView]
    summary: TextView
    description: TextView
    formula: str
    deterministic: TextView
    lines: dict[str, int] = field(default_factory=dict)  # "products", "param:<name>" ... -> doc line

    def param(self, name: str) -> ParamView | None:
        return next((p for p in self.params if p.name == name), None)


def _text(value) -> TextView:
    if value is None:
        return TextView()
    return TextView(value.zh or "", value.en)


def _table(rules, products: list[str], every: list[str]) -> dict[str, tuple[str, ...]]:
    """Per-product dtypes of a rule list (first rule naming a product wins), for ``products`` only."""
    out: dict[str, tuple[str, ...]] = {}
    for rule in rules:
        tags = every if rule.products == "all" else rule.products
        for tag in tags:
            if tag in products and tag not in out:
                out[tag] = tuple(rule.dtypes)
    return out


def full_table(rules, every: list[str]) -> dict[str, tuple[str, ...]]:
    """Per-product dtypes of a rule list for every catalogue product it names."""
    return _table(rules, every, every)


def _param_view(p, index: int, products: list[str], every: list[str]) -> ParamView:
    view = ParamView(p.name, index, p.ctype, p.role, _text(p.description), _text(p.usage))
    if p.tensor is not None:
        view.dtypes = _table(p.tensor.dtypes, products, every)
        view.formats = tuple(p.tensor.formats)
        view.rank = (p.tensor.rank.min, p.tensor.rank.max) if p.tensor.rank else None
        view.shape = _text(p.tensor.shape)
        view.non_contiguous = p.tensor.non_contiguous
        view.empty = p.tensor.empty
    elif p.scalar is not None:
        if p.scalar.dtypes:
            view.dtypes = _table(p.scalar.dtypes, products, every)
        view.castable_to = p.scalar.castable_to
    return view


def spec_rows(spec, catalog) -> list[RowView]:
    """The error table a spec states: documented checks under the doc's code, one row per text."""
    rows: dict[tuple[str, int | None], RowView] = {}
    for check in spec.checks:
        if not check.documented:
            continue
        ref = check.doc_code if check.doc_code is not None else check.code
        code = _code(ref, catalog)
        text = _text(check.text)
        key = (text.key, code)
        row = rows.get(key)
        products = frozenset(check.products) if check.products is not None else None
        if row is None:
            rows[key] = RowView(text, code, products, checks=[check.id])
            continue
        row.checks.append(check.id)
        if row.products is not None:
            row.products = None if products is None else row.products | products
    out = list(rows.values())
    for row in out:
        if row.products is not None and set(spec.products) <= row.products:
            row.products = None
    return out


def rule_key(kind: str, params, expr: str | None) -> tuple:
    """What a check tests, for matching a doc row with the curated checks that state it in other
    words: its kind, its parameters and (for ``expr``) the expression without spaces."""
    expr = "".join(expr.split()) if expr and expr.strip() != "true" else None
    return (kind, frozenset(params or ()), expr)


def covers(a: tuple, b: tuple) -> bool:
    """Whether two rule keys test the same thing (same kind; shared parameters or the same expression)."""
    if a[0] != b[0]:
        return False
    if a[0] == "expr":
        return a[2] is not None and a[2] == b[2]
    return bool(a[1] & b[1])


def _code(ref, catalog) -> int | None:
    if isinstance(ref, int):
        return ref
    return catalog.status_by_name.get(ref)


_MATCHERS: dict[int, object] = {}


def _matcher(catalog):
    from generator.docimport.products import ProductMatcher

    key = id(catalog)
    if key not in _MATCHERS:
        _MATCHERS[key] = (catalog, ProductMatcher(catalog.products.products))
    return _MATCHERS[key][1]


_LABEL = re.compile(r"^\s*([^：:。]{2,200}?)[：:]")


def label_products(text: str, catalog) -> frozenset[str] | None:
    """The products a text names in a leading label (``Atlas 训练系列产品、Atlas 推理系列产品：…``)."""
    m = _LABEL.match(text)
    if not m:
        return None
    tags, unknown = _matcher(catalog).tags_in(m.group(1))
    return frozenset(tags) if tags and not unknown else None


def _constraints(items, products: list[str], catalog) -> list[ConstraintView]:
    """Constraint views, one per text (products merged; a leading product label counts as products)."""
    out: dict[str, ConstraintView] = {}
    for text, tags in items:
        if tags is None:
            tags = label_products(text.zh, catalog)
        if tags is not None:
            tags = frozenset(t for t in tags if t in products)
            if not tags or set(products) <= tags:
                tags = None
        old = out.get(text.key)
        if old is None:
            out[text.key] = ConstraintView(text, tags)
        elif old.products is not None:
            old.products = None if tags is None else old.products | tags
            if old.products is not None and set(products) <= old.products:
                old.products = None
    return list(out.values())


def spec_view(spec, catalog, source: str = "", kind: str = "spec") -> View:
    """The doc-owned facts of a spec (an ``OpSpec``)."""
    every = list(catalog.product_tags)
    products = list(spec.products)
    stated = [(_text(c.text), frozenset(c.products) if c.products is not None else None) for c in spec.constraints]
    stated += [(_text(t), None) for t in spec.precision]  # curated specs file the doc's precision notes apart
    constraints = _constraints(stated, products, catalog)
    return View(
        name=spec.name,
        source=source,
        kind=kind,
        products=products,
        params=[_param_view(p, i, products, every) for i, p in enumerate(spec.params)],
        errors=spec_rows(spec, catalog),
        constraints=constraints,
        summary=_text(spec.summary),
        description=_text(spec.description),
        formula=(spec.formula or "").strip(),
        deterministic=_text(spec.deterministic),
    )


def doc_view(imported, facts, catalog, en_facts=None, source: str = "") -> View:
    """The doc-owned facts of one API of an imported doc: the imported spec's products, parameters,
    constraints and texts, and the doc's own error table (``facts``: the DocFacts it came from)."""
    from generator.model import OpSpec

    spec = OpSpec.model_validate(imported.data)
    view = spec_view(spec, catalog, source or facts.path, kind="doc")
    api = next((a for a in facts.apis if a.name == imported.name), None)
    en_api = None
    if en_facts is not None:
        en_api = next((a for a in en_facts.apis if a.name == imported.name), None)
    rows: dict[tuple[str, int | None], RowView] = {}
    errors = api.errors if api is not None else []
    en_rows = en_api.errors if en_api is not None and len(en_api.errors) == len(errors) else []
    for i, row in enumerate(errors):
        text = TextView(row.text, en_rows[i].text if en_rows else None)
        products = frozenset(t for t in row.products if t in spec.products) if row.products else None
        if products is not None and (not products or set(spec.products) <= products):
            products = None
        key = (text.key, row.code)
        if key in rows:
            old = rows[key]
            old.products = None if old.products is None or products is None else old.products | products
            continue
        rows[key] = RowView(text, row.code, products, row.line)
    view.errors = list(rows.values())
    rules: dict[str, list[tuple]] = {}
    for check in imported.data.get("checks", []):
        if check.get("documented", True):
            key = rule_key(check["kind"], check.get("params"), check.get("expr"))
            rules.setdefault(norm(check["text"]["zh"]), []).append(key)
    for row in view.errors:
        row.rules = rules.get(row.key, [])
    view.lines["products"] = facts.products[0].line if facts.products else facts.title_line
    for product in facts.products:
        view.lines.setdefault(f"product:{product.tag}", product.line)
    if api is not None:
        view.lines["api"] = api.line
        for r in api.rows:
            view.lines[f"param:{r.name}"] = r.line
            p = view.param(r.name)
            if p is not None and p.is_tensor:  # what the doc does not state is unknown, not the default
                p.non_contiguous = r.non_contiguous
                p.empty = r.empty
    where = {norm(c.text): c.line for c in facts.constraints}
    for note in api.notes if api is not None else []:
        where.setdefault(norm(note.text), note.line)
    for c in view.constraints:
        c.line = where.get(c.text.key, 0)
    view.lines["deterministic"] = facts.deterministic_line
    return view
