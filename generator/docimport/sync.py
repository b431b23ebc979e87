"""``opgen sync SPEC DOC``: update a curated spec from a new version of its doc, in place.

The changes to apply are those between the doc version the spec was last synced with (the *base*)
and the new doc, both read by the importer and compared as doc-owned views (:mod:`.view`,
:mod:`.diff`), so a curated deviation from the doc that the doc still makes is never a change. The
base is the copy ``sync`` keeps of the doc beside the spec (``<specs>/upstream/<snake>.md``, with
``<snake>_en.md`` for an English twin), or ``--base DOC``. Without a base (the first sync of a spec)
the spec's own doc-owned view is the base, so every difference looks like a change although it may
be curation: then only additions apply (a product, dtypes, formats, a rank, a constraint or error row
the spec lacks); a curated text that keeps the doc's words, a text the doc does not give, a check that
states a row in other words and a constraint the doc does not state are kept and listed; every other
difference gets a review marker. The doc is kept as the base of the next sync.

Each change is applied by ownership and by a three-way test on the item (base ``b``, new doc
``t``, spec ``o``): when the spec already says ``t`` nothing is done; when it still says ``b`` what
the doc owns follows the doc (products, dtype tables, formats, ranks, non-contiguous and empty
support, doc texts, constraints, error rows); when the spec says something else the item was
curated and gets a review marker. Curated rules are never rewritten: an error row that is new, was
reworded, changed its code or products, or vanished gives its checks a ``review`` marker (with the
consistent flag changes: a new row is added as an unenforced check, a vanished row makes its checks
``documented: false``, a row the doc now lists under another code sets ``doc_code``). Comments, key
order and formatting of untouched parts survive (ruamel.yaml round trip); the result is loaded and
cross-checked like ``opgen lint`` before anything is written.
"""

from __future__ import annotations

import io
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from generator.diagnostics import SpecError, display_path
from generator.docimport.diff import Change, diff_views
from generator.docimport.inputs import catalog_dir, import_views
from generator.docimport.view import RowView, View, covers, full_table, norm, rule_key, similarity, spec_view, tokens

UPSTREAM = "upstream"  # folder beside the specs holding the doc each spec was last synced with

_ORDER = {
    "spec": [
        "name", "snake", "header", "summary", "description", "formula", "sources", "products", "deterministic",
        "stream_ctype", "params", "defaults", "checks", "constraints", "precision", "doc_issues", "kernel",
        "example", "review",
    ],
    "param": ["name", "ctype", "role", "nullable", "description", "usage", "tensor", "array", "scalar", "value", "infer", "review"],
    "tensor": ["dtypes", "formats", "rank", "shape", "non_contiguous", "empty"],
    "check": [
        "id", "kind", "code", "params", "dtypes", "to", "formats", "rank", "lengths", "expr", "products", "when", "text",
        "documented", "enforced", "doc_code", "note", "cases", "review",
    ],
    "constraint": ["text", "products", "review"],
    "text": ["zh", "en"],
    "sources": ["seed", "doc", "code", "links"],
}  # fmt: skip


class SyncError(Exception):
    """The spec or the doc cannot be used (located problems in ``problems``)."""

    def __init__(self, problems: list[str]):
        super().__init__("; ".join(problems))
        self.problems = problems


@dataclass
class Action:
    """What sync did about one change: ``applied``, ``already`` (the spec says it), ``review``."""

    status: str
    message: str
    change: Change | None = None


@dataclass
class SyncResult:
    spec: Path
    doc: Path
    base: str  # what the changes were computed from
    actions: list[Action] = field(default_factory=list)
    text: str = ""  # the updated spec
    original: str = ""
    upstream: list[tuple[Path, bytes]] = field(default_factory=list)  # doc copies to keep
    stale: list[Path] = field(default_factory=list)  # an English twin copy the new doc no longer has

    @property
    def changed(self) -> bool:
        return self.text != self.original

    def count(self, status: str) -> int:
        return sum(1 for a in self.actions if a.status == status)


def upstream_paths(spec_path: Path, snake: str) -> tuple[Path, Path]:
    folder = spec_path.parent / UPSTREAM
    return folder / f"{snake}.md", folder / f"{snake}_en.md"


def _yaml():
    from ruamel.yaml import YAML

    y = YAML(typ="rt")
    y.preserve_quotes = True
    y.width = 1 << 20
    y.indent(mapping=2, sequence=4, offset=2)
    return y


def sync(spec_path: Path, doc_path: Path, ctx, *, en: Path | None = None, base: Path | None = None) -> SyncResult:
    """Compute the updated spec (nothing is written; see :func:`write`)."""
    from generator.loader import load_catalog, load_op

    spec_path, doc_path = Path(spec_path), Path(doc_path)
    problems: list[str] = []
    try:
        catalog = load_catalog(catalog_dir(spec_path, spec_path.parent))
        ours = load_op(spec_path, catalog).spec
    except SpecError as exc:
        raise SyncError([str(d) for d in exc.diagnostics] + ["fix the spec first ('opgen lint')"]) from None
    original = spec_path.read_text(encoding="utf-8")
    new_side = _doc_view(doc_path, ours.name, ctx, problems, en=en)
    if new_side is None:
        raise SyncError(problems or [f"{display_path(doc_path)}: no API {ours.name} in the doc"])
    new, imported = new_side
    upstream, upstream_en = upstream_paths(spec_path, ours.snake)
    o_view = spec_view(ours, ctx.catalog, display_path(spec_path))
    if base is not None:
        label = display_path(base)
        base_side = _doc_view(Path(base), ours.name, ctx, problems, twins=True)
        if base_side is None:
            raise SyncError(problems or [f"{display_path(base)}: no API {ours.name} in the base doc"])
        b_view = base_side[0]
    elif upstream.is_file():
        label = f"{display_path(upstream)} (the doc of the last sync)"
        base_side = _doc_view(upstream, ours.name, ctx, problems, en=upstream_en if upstream_en.is_file() else None)
        if base_side is None:
            raise SyncError(problems or [f"{display_path(upstream)}: no API {ours.name}"])
        b_view = base_side[0]
    else:
        label = "the spec itself (no earlier doc kept: texts get review markers only)"
        b_view = o_view
    result = SyncResult(spec_path, doc_path, label, original=original)
    tree = _yaml().load(original)
    editor = Editor(tree, ours, o_view, b_view, new, imported.data, ctx, doc_path, two_way=b_view is o_view)
    for change in diff_views(b_view, new, ctx.catalog):
        if change.area == "error" and editor.two_way:
            continue  # without a base, the rows are matched to the checks directly (Editor.rows_two_way)
        editor.apply(change)
    if editor.two_way:
        editor.rows_two_way()
    editor.finish()
    result.actions = editor.actions
    out = io.StringIO()
    _yaml().dump(tree, out)
    result.text = out.getvalue()
    if result.changed:
        _validate(result.text, spec_path, catalog)
    result.upstream.append((upstream, doc_path.read_bytes()))
    twin = en if en is not None else _twin(doc_path)
    if twin is not None:
        result.upstream.append((upstream_en, Path(twin).read_bytes()))
    elif upstream_en.is_file():
        result.stale.append(upstream_en)
    return result


def _twin(doc: Path) -> Path | None:
    from generator.docimport import english_twin

    return english_twin(doc)


def _doc_view(path: Path, name: str, ctx, problems: list[str], *, en=None, twins: bool = True):
    if not path.is_file():
        problems.append(f"{display_path(path)}: no such file")
        return None
    found = import_views(path, ctx, problems, twins=twins, en=en)
    for view, spec in found:
        if view.name == name:
            return view, spec
    if found:
        names = ", ".join(v.name for v, _ in found)
        problems.append(f"{display_path(path)}: documents {names}, not {name}")
    return None


def _validate(text: str, spec_path: Path, catalog) -> None:
    from generator.loader import load_op

    with tempfile.TemporaryDirectory() as tmp:
        probe = Path(tmp) / spec_path.name
        probe.write_text(text, encoding="utf-8")
        try:
            load_op(probe, catalog)
        except SpecError as exc:
            lines = [str(d).replace(str(probe), display_path(spec_path)) for d in exc.diagnostics]
            raise SyncError(["the synced spec does not load (nothing written):", *lines]) from None


def write(result: SyncResult) -> None:
    """Write the updated spec (atomically) and keep the doc it was synced with."""
    if result.changed:
        tmp = result.spec.with_name(f".{result.spec.name}.tmp")
        tmp.write_text(result.text, encoding="utf-8")
        tmp.replace(result.spec)
    for path, data in result.upstream:
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.is_file() or path.read_bytes() != data:
            tmp = path.with_name(f".{path.name}.tmp")
            tmp.write_bytes(data)
            tmp.replace(path)
    for path in result.stale:
        path.unlink(missing_ok=True)


# --- editing without losing comments -----------------------------------------------------------------
#
# ruamel keeps a comment that follows a node with the last key of the innermost mapping before it (the
# rest of that key's line, then whole comment lines). Adding a key after it, inserting an item after
# it or deleting it would move or drop the comment lines; these helpers carry them along.


def _is_block(node) -> bool:
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    return isinstance(node, (CommentedMap, CommentedSeq)) and len(node) > 0 and not node.fa.flow_style()


def _tail(node):
    """``(mapping, key)`` holding the comment that follows ``node``, or None."""
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    while True:
        if isinstance(node, CommentedMap) and len(node):
            key = list(node)[-1]
            if _is_block(node[key]):
                node = node[key]
                continue
            return node, key
        if isinstance(node, CommentedSeq) and len(node) and _is_block(node[-1]):
            node = node[-1]
            continue
        return None


def _take_lines(node) -> str:
    """Remove and return the whole comment lines that follow ``node`` (its end-of-line comment stays)."""
    where = _tail(node)
    if where is None:
        return ""
    mapping, key = where
    entry = mapping.ca.items.get(key)
    if not entry or len(entry) < 3 or entry[2] is None:
        return ""
    token = entry[2]
    value = token.value
    if value.startswith("#"):  # the key's own end-of-line comment, then whole lines
        inline, _, rest = value.partition("\n")
        token.value = inline + "\n"
        return rest
    entry[2] = None
    return value[1:] if value.startswith("\n") else value


def _give_lines(node, lines: str) -> None:
    """Put whole comment lines after ``node``."""
    if not lines:
        return
    where = _tail(node)
    if where is None:
        return
    mapping, key = where
    entry = mapping.ca.items.setdefault(key, [None, None, None, None])
    while len(entry) < 4:
        entry.append(None)
    if entry[2] is None:
        entry[2] = _token("\n" + lines)
    else:
        value = entry[2].value
        entry[2].value = value + lines if value.endswith("\n") else value + "\n" + lines


def _token(text: str):
    from ruamel.yaml.error import CommentMark
    from ruamel.yaml.tokens import CommentToken

    return CommentToken(text, CommentMark(0), None)


def _append_key(mapping, key, value) -> None:
    """Add ``key`` at the end of ``mapping``; comment lines after the mapping stay after it."""
    lines = _take_lines(mapping)
    mapping[key] = value
    _give_lines(mapping, lines)


def _delete_key(mapping, key) -> None:
    """Delete ``key``; comment lines after it stay where they were."""
    keys = list(mapping)
    last = keys[-1] == key
    lines = _take_lines(mapping) if last else ""
    entry = mapping.ca.items.pop(key, None)
    if not last and entry and len(entry) > 2 and entry[2] is not None:
        value = entry[2].value
        lines = value.partition("\n")[2] if value.startswith("#") else value.lstrip("\n")
    del mapping[key]
    if last:
        _give_lines(mapping, lines)
    elif lines:
        previous = keys[keys.index(key) - 1] if keys.index(key) else None
        if previous is not None:
            slot = mapping.ca.items.setdefault(previous, [None, None, None, None])
            if slot[2] is None:
                slot[2] = _token("\n" + lines)
            else:
                slot[2].value = slot[2].value + lines


def _insert_item(seq, index: int, node) -> None:
    """Insert ``node`` at ``index``; comment lines that followed the item before it now follow ``node``."""
    lines = _take_lines(seq[index - 1]) if index > 0 else ""
    seq.insert(index, node)
    _give_lines(node, lines)


def _delete_item(seq, index: int) -> None:
    """Delete ``seq[index]``; the comment lines that followed it now follow the item before it."""
    lines = _take_lines(seq[index])
    del seq[index]
    if index > 0:
        _give_lines(seq[index - 1], lines)


# --- applying changes ---------------------------------------------------------------------------


def _styled(key: str, value, parent: str | None = None):
    """A ruamel node for ``value`` written in the house style of :mod:`.yamlout`."""
    from generator.docimport import yamlout

    lines: list[str] = []
    yamlout._emit_value(key, value, 0, parent, lines, f"{yamlout._key(key)}:")
    return _yaml().load("\n".join(lines) + "\n")[key]


def _styled_item(value, parent: str):
    from generator.docimport import yamlout

    lines: list[str] = []
    yamlout._emit_item(value, 0, parent, lines)
    return _yaml().load("\n".join(lines) + "\n")[0]


def _put(mapping, key: str, value, order: list[str]) -> None:
    """Set ``mapping[key]``, inserting a new key where the model's field order puts it."""
    if key in mapping:
        mapping[key] = value
        return
    later = order[order.index(key) + 1 :] if key in order else []
    for i, existing in enumerate(mapping):
        if existing in later:
            mapping.insert(i, key, value)
            return
    _append_key(mapping, key, value)


def _q(text: str) -> str:
    return f"“{' '.join(str(text).split())}”"


def extends(spec_text: str, doc_text: str) -> bool:
    """Whether a curated text keeps (nearly) all the doc's words, adding its own (a refinement)."""
    import difflib

    a, b = tokens(doc_text), tokens(spec_text)
    if not a or not b:
        return False
    found = sum(m.size for m in difflib.SequenceMatcher(None, a, b, autojunk=False).get_matching_blocks())
    return found >= 0.9 * len(a)


class Editor:
    def __init__(
        self, tree, ours, o_view: View, b_view: View, new: View, imported: dict, ctx, doc: Path, *, two_way: bool
    ):
        self.tree, self.ours, self.o, self.b, self.t, self.imported = tree, ours, o_view, b_view, new, imported
        self.ctx, self.catalog = ctx, ctx.catalog
        self.doc_name = doc.name
        self.two_way = two_way
        self.actions: list[Action] = []
        self.spec_reviews: list[str] = []
        self.added_checks: list[str] = []
        self.added_constraints: set[str] = set()
        self.tables: dict[str, dict] = {}

    # -- bookkeeping

    def where(self, line: int = 0) -> str:
        return f"{self.doc_name}:{line}" if line else self.doc_name

    def act(self, status: str, message: str, change: Change | None = None) -> None:
        self.actions.append(Action(status, message, change))

    def review(self, node, reason: str, message: str, change: Change | None = None) -> None:
        """Add a review marker (``sync <doc>: reason``) to ``node`` (a mapping with a review field)."""
        text = f"sync {reason}"
        old = node.get("review")
        if old and text in str(old):
            return
        if old:
            node["review"] = _styled("review", f"{old}; {text}")
        else:
            _append_key(node, "review", _styled("review", text))
        self.act("review", f"{message.removesuffix(' (review)')}: {reason}", change)

    def param_node(self, name: str):
        return next((p for p in self.tree["params"] if p.get("name") == name), None)

    def check_nodes(self, ids: list[str]):
        return [c for c in self.tree["checks"] if c.get("id") in ids]

    def text_node(self, holder, key: str, zh: str, en: str | None, old_zh: str, order: list[str] | None = None) -> bool:
        """Set the zh text of ``holder[key]`` (and en when the doc has one); True when the en text
        now lags behind (kept, marked)."""
        node = holder.get(key)
        if node is None:
            value = {"zh": zh}
            if en:
                value["en"] = en
            _put(holder, key, _styled(key, value), order or _ORDER["spec"])
            return False
        node["zh"] = _styled("zh", zh)
        if en:
            _put(node, "en", _styled("en", en), _ORDER["text"])
            return False
        return bool(node.get("en")) and norm(zh) != norm(old_zh)

    # -- dispatch

    def apply(self, change: Change) -> None:
        handler = getattr(self, f"on_{change.area}", None)
        if handler is None:
            self.act("review", f"not applied (no rule for {change.area}): {change.detail}", change)
            return
        handler(change)

    def finish(self) -> None:
        if self.spec_reviews:
            for reason in self.spec_reviews:
                self.review(self.tree, reason, "spec")
        sources = self.tree.get("sources")
        if sources is not None and "doc" not in sources and "seed" not in sources:
            _put(sources, "doc", self.doc_name, _ORDER["sources"])

    # -- products

    def on_product(self, c: Change) -> None:
        tag = c.subject
        products = self.tree["products"]
        label = self.catalog.product(tag).zh
        if c.action == "added":
            if tag in products:
                self.act("already", f"product {tag} already supported", c)
                return
            order = self.t.products
            after = [p for p in order[order.index(tag) + 1 :] if p in products]
            index = list(products).index(after[0]) if after else len(products)
            products.insert(index, _styled_item(tag, "products"))
            self.act("applied", f"product added: {tag} ({label})", c)
            self.product_tables(tag, c)
            self.spec_reviews.append(
                f"{self.where(c.line)}: the doc now supports {tag} ({label}); check which product-specific checks "
                "('products:') and dtype tables apply to it in CANN's code"
            )
        else:
            if tag not in products:
                self.act("already", f"product {tag} already unsupported", c)
                return
            if self.two_way:
                self.spec_reviews.append(
                    f"{self.where(c.line)}: the doc does not list {tag} ({label}) as supported; the spec does: "
                    "check CANN's code, then remove it from products or keep it"
                )
                return
            del products[list(products).index(tag)]
            self.act("applied", f"product removed: {tag} ({label})", c)
            self.spec_reviews.append(
                f"{self.where(c.line)}: the doc no longer supports {tag} ({label}); its dtype tables and checks are "
                "kept: check what CANN's code does on it"
            )

    def product_tables(self, tag: str, c: Change) -> None:
        """The new product's dtype tables, from the doc (a table the spec already has for it is kept)."""
        for p in self.t.params:
            if p.dtypes is None or tag not in p.dtypes:
                continue
            node = self.param_node(p.name)
            spec_param = next((x for x in self.ours.params if x.name == p.name), None)
            if node is None or spec_param is None or spec_param.tensor is None:
                continue
            table = self.table(p.name, spec_param.tensor.dtypes)
            if tag in table:
                if set(table[tag]) != set(p.dtypes[tag]):
                    self.review(
                        node,
                        f"{self.where(c.line)}: the doc gives {tag} the dtypes {', '.join(p.dtypes[tag])}; the spec's "
                        f"table says {', '.join(table[tag])}: check CANN's code",
                        f"{p.name}: dtypes on new product {tag} differ from the spec's table (kept)",
                        c,
                    )
                continue
            table[tag] = tuple(p.dtypes[tag])
            self.set_table(node, spec_param.tensor.dtypes, table)
            self.act("applied", f"{p.name} on {tag}: dtypes {', '.join(p.dtypes[tag])}", c)

    # -- parameters

    def on_param(self, c: Change) -> None:
        name = c.subject
        node = self.param_node(name)
        if c.action == "added":
            if node is not None:
                self.act("already", f"parameter {name} already in the spec", c)
                return
            self.add_param(name, c)
            return
        if node is None:
            self.act("already", f"parameter {name} no longer in the spec", c)
            return
        what = {
            "removed": f"the doc no longer has parameter {name}",
            "renamed": f"the doc renames {c.old} to {c.new}",
            "retyped": f"the doc now types {name} as {c.new} (was {c.old})",
        }[c.action]
        self.review(
            node,
            f"{self.where(c.line)}: {what}: the C signature changed; update the parameter, the checks, the example "
            "and the kernel",
            f"parameter {name}: {what}",
            c,
        )

    def add_param(self, name: str, c: Change) -> None:
        data = next((p for p in self.imported["params"] if p["name"] == name), None)
        if data is None:
            return
        order = [p.name for p in self.t.params]
        before = [p for p in order[: order.index(name)] if self.param_node(p) is not None]
        params = self.tree["params"]
        index = list(params).index(self.param_node(before[-1])) + 1 if before else 0
        data = dict(data)
        data.pop("review", None)
        node = _styled_item(data, "params")
        _insert_item(params, index, node)
        self.act("applied", f"parameter added: {data['ctype']} {name}", c)
        self.review(
            node,
            f"{self.where(c.line)}: new parameter in the doc: the C signature changed; add it to the checks, the "
            "example and the kernel",
            f"parameter {name}: new, to curate",
            c,
        )
        example = self.tree.get("example")
        value = self.imported.get("example", {}).get("inputs", {}).get(name, "__missing__")
        if example is not None and value != "__missing__" and name not in example.get("inputs", {}):
            example["inputs"][name] = _styled(name, value, "inputs")

    # -- parameter facts

    def spec_param(self, name: str):
        return next((p for p in self.ours.params if p.name == name), None)

    def three_way(self, o, b, t) -> str:
        """``already`` / ``apply`` / ``conflict`` for one item. Without a base (two-way) only an
        addition applies (``t`` a superset of ``o``): what the spec has and the doc lacks may be curated."""
        if o == t:
            return "already"
        if self.two_way:
            return "apply" if isinstance(o, set) and o <= t else "conflict"
        return "apply" if o == b else "conflict"

    def on_dtype(self, c: Change) -> None:
        name = c.subject.split(" on ")[0]
        node, spec_param = self.param_node(name), self.spec_param(name)
        tags = list(c.new)
        rules = None
        if spec_param is not None:
            rules = (
                spec_param.tensor.dtypes
                if spec_param.tensor is not None
                else (spec_param.scalar.dtypes if spec_param.scalar else None)
            )
        if node is None or rules is None:
            self.act("already", f"{name}: no dtype table in the spec", c)
            return
        table = self.table(name, rules)
        t_param = self.t.param(name)
        b_param = self.b.param(name)
        changed = False
        for tag in tags:
            t = tuple(t_param.dtypes.get(tag, ())) if t_param and t_param.dtypes else ()
            b = tuple(b_param.dtypes.get(tag, ())) if b_param and b_param.dtypes else ()
            o = table.get(tag, ())
            verdict = self.three_way(set(o), set(b), set(t))
            if verdict == "already":
                continue
            if verdict == "conflict":
                was = "" if self.two_way else f" (was {', '.join(b) or '-'})"
                self.review(
                    node,
                    f"{self.where(c.line)}: the doc gives {name} on {tag} the dtypes {', '.join(t) or '-'}{was}; "
                    f"the spec's table says {', '.join(o) or '-'}: check CANN's code",
                    f"{name} on {tag} dtypes",
                    c,
                )
                continue
            kept = [d for d in o if d in t]
            table[tag] = tuple(kept + [d for d in t if d not in kept])
            changed = True
        if changed:
            self.set_table(node, rules, table, scalar=spec_param.tensor is None)
            self.act("applied", c.detail, c)
        elif not any(a.change is c for a in self.actions):
            self.act("already", f"{c.detail} (already in the spec)", c)

    def table(self, name: str, rules) -> dict:
        """The parameter's dtype table as edited so far (product -> dtypes, every product it names)."""
        if name not in self.tables:
            self.tables[name] = full_table(rules, list(self.catalog.product_tags))
        return self.tables[name]

    def set_table(self, node, rules, table: dict, scalar: bool = False) -> None:
        """Rewrite a dtype rule list for ``table`` (product -> dtypes), keeping unchanged rules as they are."""
        every = list(self.catalog.product_tags)
        order: list[str] = []
        for rule in rules:
            for tag in every if rule.products == "all" else rule.products:
                if tag not in order:
                    order.append(tag)
        order += [t for t in every if t not in order and t in table]
        groups: dict[tuple, list[str]] = {}
        for tag in order:
            if tag in table and table[tag]:
                groups.setdefault(tuple(table[tag]), []).append(tag)
        holder = node["scalar"] if scalar else node["tensor"]
        old_nodes = list(holder["dtypes"])
        new_rules = []
        for dtypes, tags in groups.items():
            products = "all" if set(tags) == set(every) else tags
            old = next(
                (
                    n
                    for n, r in zip(old_nodes, rules)
                    if tuple(r.dtypes) == dtypes
                    and (
                        r.products == products
                        or (r.products != "all" and products != "all" and list(r.products) == tags)
                    )
                ),
                None,
            )
            new_rules.append(
                old if old is not None else _styled_item({"products": products, "dtypes": list(dtypes)}, "dtypes")
            )
        seq = holder["dtypes"]
        while len(seq):
            del seq[0]
        for item in new_rules:
            seq.append(item)

    def on_format(self, c: Change) -> None:
        name = c.subject
        node, spec_param = self.param_node(name), self.spec_param(name)
        if node is None or spec_param is None or spec_param.tensor is None:
            self.act("already", f"{name}: no tensor in the spec", c)
            return
        o, b, t = list(spec_param.tensor.formats), list(c.old), list(c.new)
        verdict = self.three_way(set(o), set(b), set(t))
        if verdict == "already":
            self.act("already", f"{c.detail} (already in the spec)", c)
        elif verdict == "conflict":
            was = "" if self.two_way else f" (was {', '.join(b)})"
            self.review(
                node,
                f"{self.where(c.line)}: the doc gives {name} the formats {', '.join(t)}{was}; "
                f"the spec says {', '.join(o)}: check CANN's code",
                f"{name} formats",
                c,
            )
        else:
            kept = [f for f in o if f in t or f not in b]
            kept += [f for f in t if f not in kept]
            node["tensor"]["formats"] = _styled("formats", kept)
            self.act("applied", c.detail, c)

    def on_rank(self, c: Change) -> None:
        name = c.subject
        node, spec_param = self.param_node(name), self.spec_param(name)
        if node is None or spec_param is None or spec_param.tensor is None:
            self.act("already", f"{name}: no tensor in the spec", c)
            return
        r = spec_param.tensor.rank
        o = (r.min, r.max) if r else None
        verdict = self.three_way(o, c.old, c.new)
        if self.two_way and c.new is None:
            self.act("kept", f"{name}: the doc states no rank; the spec's {o[0]}-{o[1]} is kept", c)
            return
        if self.two_way and o is None:
            verdict = "apply"
        if verdict == "already":
            self.act("already", f"{c.detail} (already in the spec)", c)
        elif verdict == "conflict" or c.new is None:
            why = "no longer states a rank" if c.new is None else "changed the rank"
            self.review(
                node,
                f"{self.where(c.line)}: the doc {why} ({c.detail.split(': ', 1)[1]}); the spec says "
                f"{'-' if o is None else f'{o[0]}-{o[1]}'}: check CANN's code",
                f"{name} rank",
                c,
            )
        else:
            _put(node["tensor"], "rank", _styled("rank", {"min": c.new[0], "max": c.new[1]}), _ORDER["tensor"])
            self.act("applied", c.detail, c)

    def _flag(self, c: Change, key: str) -> None:
        name = c.subject
        node, spec_param = self.param_node(name), self.spec_param(name)
        if node is None or spec_param is None or spec_param.tensor is None:
            self.act("already", f"{name}: no tensor in the spec", c)
            return
        o = getattr(spec_param.tensor, key)
        verdict = self.three_way(o, c.old, c.new)
        if verdict == "already":
            self.act("already", f"{c.detail} (already in the spec)", c)
        elif verdict == "conflict" or self.two_way:
            self.review(node, f"{self.where(c.line)}: {c.detail}; the spec says otherwise: check CANN's code", name, c)
        else:
            if c.new:
                if key in node["tensor"]:
                    _delete_key(node["tensor"], key)
            else:
                _put(node["tensor"], key, False, _ORDER["tensor"])
            self.act("applied", c.detail, c)

    def on_non_contiguous(self, c: Change) -> None:
        self._flag(c, "non_contiguous")

    def on_empty(self, c: Change) -> None:
        self._flag(c, "empty")

    def on_scalar(self, c: Change) -> None:
        node = self.param_node(c.subject)
        if node is None:
            return
        self.review(node, f"{self.where(c.line)}: {c.detail}: check CANN's code", c.detail, c)

    # -- texts

    def on_text(self, c: Change) -> None:
        key = c.key
        if len(key) == 2:  # a parameter's description or usage
            holder = self.param_node(key[1])
            if holder is None:
                return
            current = getattr(self.spec_param(key[1]), key[0])
            self.text_change(c, holder, key[0], current.zh if current else "", c.subject, _ORDER["param"])
        elif key[0] == "formula":
            self.on_formula(c)
        else:
            current = getattr(self.ours, key[0])
            self.text_change(c, self.tree, key[0], current.zh if current else "", c.subject, _ORDER["spec"])

    def on_shape(self, c: Change) -> None:
        name = c.subject
        node, spec_param = self.param_node(name), self.spec_param(name)
        if node is None or spec_param is None or spec_param.tensor is None:
            self.act("already", f"{name}: no tensor in the spec", c)
            return
        current = spec_param.tensor.shape
        tensor = node["tensor"]
        self.text_change(c, tensor, "shape", current.zh if current else "", f"{name} shape", _ORDER["tensor"], node)

    def on_determinism(self, c: Change) -> None:
        current = self.ours.deterministic
        self.text_change(c, self.tree, "deterministic", current.zh if current else "", "determinism", _ORDER["spec"])

    def text_change(self, c: Change, holder, field_: str, o: str, label: str, order: list[str], target=None) -> None:
        b, t = c.old or "", c.new or ""
        verdict = self.three_way(norm(o), norm(b), norm(t))
        target = holder if target is None else target
        if verdict == "already":
            self.act("already", f"{label}: the spec already says it", c)
            return
        if self.two_way and t and extends(o, t):
            self.act("kept", f"{label}: the spec's curated text keeps the doc's words and adds to them", c)
            return
        if self.two_way and not t:
            self.act("kept", f"{label}: the doc says nothing; the spec's curated text is kept", c)
            return
        if self.two_way and not o:
            verdict = "apply"
        if verdict == "conflict" or (self.two_way and o):
            reason = (
                f"{self.where(c.line)}: the doc's {label} now reads {_q(t) if t else '(nothing)'}"
                + ("" if self.two_way else f" (was {_q(b)})")
                + "; the spec's text differs: take the doc's words or keep the curated text, then delete this marker"
            )
            self.review(target, reason, f"{label}: {c.action} in the doc (review)", c)
            return
        if not t:
            if field_ in ("usage", "deterministic", "shape") and field_ in holder:
                _delete_key(holder, field_)
                self.act("applied", f"{label} removed", c)
            else:
                self.review(
                    target,
                    f"{self.where(c.line)}: the doc no longer gives a {label}",
                    f"{label}: removed in the doc",
                    c,
                )
            return
        t_en = self.new_en(c)
        lagging = self.text_node(holder, field_, t, t_en, o, order)
        self.act("applied", f"{label} {c.action}: {_q(t)}", c)
        if lagging:
            self.review(
                target,
                f"{self.where(c.line)}: {label} follows the new doc; its en text still translates the old one",
                f"{label}: en to update",
                c,
            )

    def new_en(self, c: Change) -> str | None:
        key = c.key
        if len(key) == 2:
            p = self.t.param(key[1])
            return getattr(p, key[0]).en if p else None
        if key[0] in ("summary", "description", "deterministic"):
            return getattr(self.t, key[0]).en
        return None

    def on_formula(self, c: Change) -> None:
        o = "".join((self.ours.formula or "").split())
        b, t = "".join((c.old or "").split()), "".join((c.new or "").split())
        verdict = self.three_way(o, b, t)
        if verdict == "already":
            self.act("already", "formula: the spec already has it", c)
        elif verdict == "conflict" or self.two_way:
            self.review(
                self.tree,
                f"{self.where()}: the doc's formula changed; compare it with the spec's",
                "formula changed in the doc (review)",
                c,
            )
        elif not c.new:
            if "formula" in self.tree:
                _delete_key(self.tree, "formula")
            self.act("applied", "formula removed", c)
        else:
            from ruamel.yaml.scalarstring import LiteralScalarString

            _put(self.tree, "formula", LiteralScalarString(c.new.rstrip("\n") + "\n"), _ORDER["spec"])
            self.act("applied", "formula changed", c)

    # -- constraints

    def constraint_nodes(self, key: str) -> list:
        out = []
        for node, c in zip(self.tree.get("constraints") or [], self.ours.constraints):
            if norm(c.text.zh) == key:
                out.append(node)
        return out

    def on_constraint(self, c: Change) -> None:
        if c.action in ("split", "merged"):
            nodes = [n for x in c.old for n in self.constraint_nodes(x.text.key)]
            if nodes and self.two_way:
                self.act("kept", f"constraint kept as curated; the doc now states it as {len(c.new)} item(s)", c)
                return
            seq = self.tree.get("constraints")
            for node in nodes:
                _delete_item(seq, list(seq).index(node))
            for item in c.new:
                if not self.constraint_nodes(item.text.key):
                    self.add_constraint(
                        Change("constraint", "added", item.text.zh, None, item, False, item.line, "", ())
                    )
            if nodes:
                self.act("applied", f"constraint {c.action}: {c.detail.split(': ', 1)[1]}", c)
            return
        _, old_key, new_key = c.key
        if c.action == "added":
            if self.constraint_nodes(new_key):
                self.act("already", f"constraint already in the spec: {_q(c.new.text.zh)}", c)
                return
            self.add_constraint(c)
            return
        nodes = self.constraint_nodes(old_key)
        precision = {norm(t.zh) for t in self.ours.precision}
        if not nodes and old_key in precision:  # curated as a precision note
            if c.action == "removed" and not self.two_way:
                self.spec_reviews.append(
                    f"{self.where()}: the doc no longer states the precision note {_q(c.old.text.zh)}"
                )
            elif c.action == "reworded" and not (self.two_way and extends(c.old.text.zh, c.new.text.zh)):
                self.spec_reviews.append(f"{self.where(c.line)}: the doc rewords a precision note: {_q(c.new.text.zh)}")
            else:
                self.act("kept", f"precision note kept as curated: {_q(c.old.text.zh)}", c)
            return
        if not nodes:
            if c.action != "removed" and self.constraint_nodes(new_key):
                self.act("already", f"constraint already in the spec: {_q(c.new.text.zh)}", c)
            elif c.action != "removed":
                self.add_constraint(c)
            else:
                self.act("already", f"constraint not in the spec: {_q(c.old.text.zh)}", c)
            return
        if c.action == "removed":
            if self.two_way:
                self.act("kept", f"constraint not in the doc, kept as curated: {_q(c.old.text.zh)}", c)
                return
            seq = self.tree["constraints"]
            for node in nodes:
                _delete_item(seq, list(seq).index(node))
            self.act("applied", f"constraint removed: {_q(c.old.text.zh)}", c)
            return
        for node in nodes:
            if c.action == "products":
                self.set_products(node, c.new.products)
                self.act("applied", c.detail, c)
            elif self.two_way and extends(c.old.text.zh, c.new.text.zh):
                self.act("kept", f"constraint: the spec's curated text keeps the doc's words: {_q(c.new.text.zh)}", c)
            elif self.two_way:
                self.review(
                    node,
                    f"{self.where(c.line)}: the doc now says {_q(c.new.text.zh)}: take the doc's words or keep the "
                    "curated text, then delete this marker",
                    f"constraint reworded in the doc (review): {_q(c.new.text.zh)}",
                    c,
                )
            else:
                lagging = self.text_node(
                    node, "text", c.new.text.zh, c.new.text.en, c.old.text.zh, _ORDER["constraint"]
                )
                self.act("applied", c.detail, c)
                if lagging:
                    self.review(
                        node,
                        f"{self.where(c.line)}: the constraint follows the new doc; its en text still translates the old one",
                        "constraint: en to update",
                        c,
                    )

    def set_products(self, node, products) -> None:
        if products is None:
            if "products" in node:
                _delete_key(node, "products")
        else:
            tags = [t for t in self.t.products if t in products]
            _put(node, "products", _styled("products", tags), _ORDER["constraint"])

    def add_constraint(self, c: Change) -> None:
        row = c.new
        if row.text.key in self.added_constraints:
            return
        self.added_constraints.add(row.text.key)
        value: dict = {"text": {"zh": row.text.zh}}
        if row.text.en:
            value["text"]["en"] = row.text.en
        if row.products is not None:
            value["products"] = [t for t in self.t.products if t in row.products]
        if "constraints" not in self.tree:
            _put(self.tree, "constraints", _styled("constraints", [value]), _ORDER["spec"])
            node = self.tree["constraints"][0]
        else:
            node = _styled_item(value, "constraints")
            _insert_item(self.tree["constraints"], len(self.tree["constraints"]), node)
        self.act("applied", f"constraint added: {_q(row.text.zh)}", c)
        self.review(
            node,
            f"{self.where(c.line)}: new constraint in the doc: check whether CANN's code enforces it (then it is a "
            "check too)" + ("" if row.text.en else " and translate it"),
            "constraint: new, to curate",
            c,
        )

    # -- error rows

    def checks_for(self, row: RowView, *, undocumented: bool = False, among: list[RowView] | None = None) -> list[str]:
        """Ids of the spec's checks that state ``row``: the same words (or a refinement, or a close
        rewording: similarity >= 0.8), unless another row of ``among`` (the rows of the same doc) is
        closer to the check; else the checks testing what the importer reads in the row (same kind and
        parameters, or the same expression). ``undocumented``: among the ``documented: false`` checks."""
        pool = [c for c in self.ours.checks if c.documented != undocumented]
        rows = among if among is not None else self.rows_of(row)
        words = tokens(row.text.zh)
        close = []
        for c in pool:
            mine = tokens(c.text.zh)
            score = 1.0 if norm(c.text.zh) == row.key else similarity(mine, words)
            if score < 0.8:
                continue
            best = max(
                (1.0 if norm(c.text.zh) == r.key else similarity(mine, tokens(r.text.zh)) for r in rows), default=0
            )
            if score >= best:
                close.append(c.id)
        if close:
            return close
        return [c.id for c in pool if any(covers(r, rule_key(c.kind, c.params, c.expr)) for r in row.rules)]

    def in_tables(self, check) -> bool:
        """Whether the doc's parameter table states the check's rule (dtype, format or rank columns)."""
        column = {
            "dtype_supported": "dtypes",
            "format_supported": "formats",
            "format_in": "formats",
            "rank_supported": "rank",
            "rank_in": "rank",
        }.get(check.kind)
        if column is None or not check.params:
            return False
        params = [self.t.param(name) for name in check.params]
        return all(p is not None and getattr(p, column) for p in params)

    def rows_of(self, row: RowView) -> list[RowView]:
        """The rows of the doc version ``row`` belongs to (the new doc's or the base's)."""
        for view in (self.t, self.b):
            if any(r is row for r in view.errors):
                return view.errors
        return [row]

    def rows_two_way(self) -> None:
        """Without a base: every row of the doc is matched with the checks that state it; a row no check
        states is added (unenforced, for review); a documented check no row states gets a marker."""
        covered: set[str] = set()
        checks = {x.id: x for x in self.ours.checks}
        for row in self.t.errors:
            c = Change("error", "added", row.text.zh, None, row, True, row.line, "", ("error", None, row.key))
            ids = self.checks_for(row)
            if not ids:
                self.row_added(c, row)
                continue
            covered |= set(ids)
            worded = [
                i
                for i in ids
                if norm(checks[i].text.zh) == row.key
                or extends(checks[i].text.zh, row.text.zh)  # the check adds detail to the row
                or extends(row.text.zh, checks[i].text.zh)  # the check is one clause of the row
            ]
            words = tokens(row.text.zh)
            for node in self.check_nodes(ids):
                check = checks[node["id"]]
                doc = self.catalog.status(check.doc_code if check.doc_code is not None else check.code)[0]
                if row.code is not None and doc != row.code and check.id in worded:
                    c.old = RowView(row.text, doc, row.products)
                    self.code_changed(c, node, check, f"check {check.id}")
                if check.id not in worded and similarity(tokens(check.text.zh), words) >= 0.8:
                    self.review(
                        node,
                        f"{self.where(row.line)}: the doc's row reads {_q(row.text.zh)}: take the doc's words (and check "
                        "the rule) or keep the curated text, then delete this marker",
                        f"check {check.id}: worded differently from the doc",
                        c,
                    )
            how = "in its words" if worded else "in other words"
            self.act("already", f"error row {_q(row.text.zh)}: stated {how} by {', '.join(ids)}", c)
        elsewhere = [
            rule_key(x["kind"], x.get("params"), x.get("expr"))
            for x in self.imported.get("checks", [])
            if norm(x["text"]["zh"]) not in {r.key for r in self.t.errors}
        ]
        for check in self.ours.checks:
            if check.documented and check.id not in covered:
                key = rule_key(check.kind, check.params, check.expr)
                if any(covers(r, key) for r in elsewhere) or self.in_tables(check):
                    self.act("already", f"check {check.id}: the doc states its rule outside the error table")
                    continue
                node = self.check_nodes([check.id])[0]
                self.review(
                    node,
                    f"{self.where()}: the doc's error table has no row for {_q(check.text.zh)}: if CANN checks it "
                    "silently set documented: false; if it is the doc's rule in other words, keep it",
                    f"check {check.id}: no matching row in the doc",
                )

    def on_error(self, c: Change) -> None:
        if c.action in ("split", "merged"):
            self.rows_regrouped(c)
            return
        b, t = c.old, c.new
        if c.action == "added":
            self.row_added(c, t)
            return
        ids = self.checks_for(b)
        if not ids:
            if t is not None:
                self.row_added(c, t)
            else:
                self.act("already", f"error row not in the spec: {_q(b.text.zh)}", c)
            return
        nodes = self.check_nodes(ids)
        if c.action == "removed":
            self.row_removed(c, b, nodes)
            return
        actions = c.action.split("+")
        checks = {x.id: x for x in self.ours.checks}
        for node in nodes:
            check = checks[node["id"]]
            label = f"check {check.id}"
            if "code" in actions:
                self.code_changed(c, node, check, label)
            if "reworded" in actions:
                same = norm(check.text.zh) == b.key
                if same and not self.two_way:
                    lagging = self.text_node(node, "text", t.text.zh, t.text.en, check.text.zh, _ORDER["check"])
                    self.act("applied", f"{label}: text follows the doc: {_q(t.text.zh)}", c)
                    extra = "; its en text still translates the old one" if lagging else ""
                    self.review(
                        node,
                        f"{self.where(c.line)}: the doc rewords this error (was {_q(b.text.zh)}): check that the rule "
                        f"still matches{extra}",
                        f"{label}: error row reworded (review)",
                        c,
                    )
                else:
                    self.review(
                        node,
                        f"{self.where(c.line)}: the doc's row now reads {_q(t.text.zh)}"
                        + ("" if self.two_way else f" (was {_q(b.text.zh)})")
                        + ": check the rule and the text",
                        f"{label}: error row reworded (review)",
                        c,
                    )
            if "products" in actions:
                where = "every product" if t.products is None else ", ".join(sorted(t.products))
                self.review(
                    node,
                    f"{self.where(c.line)}: the doc now lists this error for {where}: check the check's products in CANN's code",
                    f"{label}: error row products changed (review)",
                    c,
                )

    def rows_regrouped(self, c: Change) -> None:
        """Rows the doc now states as several (or as one): the checks of the old rows are marked."""
        ids = list(dict.fromkeys(i for row in c.old for i in self.checks_for(row)))
        if not ids:
            for row in c.new:
                self.row_added(c, row)
            return
        news = ", ".join(_q(r.text.zh) for r in c.new)
        for node in self.check_nodes(ids):
            self.review(
                node,
                f"{self.where(c.line)}: the doc now states this error as {news}: check the rule(s) and the text",
                f"check {node['id']}: error row {c.action} in the doc",
                c,
            )

    def code_changed(self, c: Change, node, check, label: str) -> None:
        new_code = c.new.code
        actual = self.catalog.status(check.code)[0]
        if new_code is None:
            return
        if new_code == actual:
            if "doc_code" in node:
                _delete_key(node, "doc_code")
                self.act("applied", f"{label}: the doc now gives CANN's code {actual}; doc_code dropped", c)
            else:
                self.act("already", f"{label}: code {actual}", c)
            return
        name = self.catalog.status_by_value.get(new_code, new_code)
        _put(node, "doc_code", _styled("doc_code", name), _ORDER["check"])
        self.act("applied", f"{label}: doc_code {name} (the doc's code; CANN returns {actual} per this check)", c)
        self.review(
            node,
            f"{self.where(c.line)}: the doc now lists this error under {new_code} (was {c.old.code}); the check says CANN "
            f"returns {actual}: verify in the op_api code",
            f"{label}: error code changed in the doc (review)",
            c,
        )

    def row_removed(self, c: Change, b: RowView, nodes) -> None:
        checks = {x.id: x for x in self.ours.checks}
        for node in list(nodes):
            check = checks[node["id"]]
            label = f"check {check.id}"
            if self.two_way:
                self.review(
                    node,
                    f"{self.where()}: the doc's error table does not list {_q(check.text.zh)}: keep the check "
                    "(documented: false if CANN checks it silently) or delete it",
                    f"{label}: not in the doc's error table (review)",
                    c,
                )
                continue
            if not check.enforced:
                seq = self.tree["checks"]
                _delete_item(seq, list(seq).index(node))
                self.act("applied", f"{label} removed: the doc no longer lists it and CANN does not enforce it", c)
                continue
            _put(node, "documented", False, _ORDER["check"])
            self.act("applied", f"{label}: documented: false (the doc no longer lists {_q(b.text.zh)})", c)
            self.review(
                node,
                f"{self.where()}: the doc no longer lists this error: check CANN's code still checks it (keep it, "
                "undocumented) or delete the check",
                f"{label}: error row removed from the doc (review)",
                c,
            )

    def row_added(self, c: Change, t: RowView) -> None:
        ids = self.checks_for(t) or self.checks_for(t, undocumented=True)
        if ids:
            checks = {x.id: x for x in self.ours.checks}
            for node in self.check_nodes(ids):
                check = checks[node["id"]]
                if not check.documented:
                    _delete_key(node, "documented")
                    self.act("applied", f"check {check.id}: documented (the doc now lists {_q(t.text.zh)})", c)
                    self.review(
                        node,
                        f"{self.where(c.line)}: the doc now lists this error as {_q(t.text.zh)}: check the text and the code",
                        f"check {check.id}: now documented (review)",
                        c,
                    )
                else:
                    self.act("already", f"error row already in the spec: {_q(t.text.zh)}", c)
            return
        self.add_checks(c, t)

    def add_checks(self, c: Change, t: RowView) -> None:
        """A new error row as the importer maps it, unenforced and marked for review."""
        made = [
            dict(x)
            for x in self.imported.get("checks", [])
            if norm(x["text"]["zh"]) == t.key and x.get("documented", True)
        ]
        known = {p["name"] for p in self.tree["params"]}
        if not made or any(not set(x.get("params") or []) <= known for x in made):
            made = [{"id": "doc-row", "kind": "expr", "code": "", "expr": "true", "text": {"zh": t.text.zh}}]
        ids = {x.get("id") for x in self.tree["checks"]}
        seq = self.tree["checks"]
        index = self.insert_index(t)
        for x in made:
            x.pop("review", None)
            x.pop("doc_code", None)
            x.pop("cases", None)
            x["code"] = (
                self.catalog.status_by_value.get(t.code, "ACLNN_ERR_PARAM_INVALID")
                if t.code
                else x.get("code") or "ACLNN_ERR_PARAM_INVALID"
            )
            if t.text.en and "en" not in x["text"]:
                x["text"] = {"zh": x["text"]["zh"], "en": t.text.en}
            ident, n = x["id"], 2
            while ident in ids:
                ident = f"{x['id'][:58]}-doc" if n == 2 else f"{x['id'][:55]}-doc-{n}"
                n += 1
            ids.add(ident)
            x["id"] = ident
            x["enforced"] = False
            x = {k: x[k] for k in _ORDER["check"] if k in x}
            node = _styled_item(x, "checks")
            _insert_item(seq, index, node)
            index += 1
            self.added_checks.append(ident)
            self.act("applied", f"check {ident} added (unenforced): {_q(t.text.zh)}", c)
            self.review(
                node,
                f"{self.where(c.line)}: new error row in the doc (code {t.code}); read as {x['kind']}"
                + (f" '{x['expr']}'" if x.get("expr") else "")
                + ": check CANN's code, then enforce it at its place in CANN's order with cases, or keep it unenforced",
                f"check {ident}: new, to curate",
                c,
            )

    def insert_index(self, t: RowView) -> int:
        """After the checks of the row that precedes ``t`` in the new doc (else at the end)."""
        seq = self.tree["checks"]
        rows = self.t.errors
        position = next((i for i, r in enumerate(rows) if r is t), len(rows))
        for r in reversed(rows[:position]):
            ids = [cid for o in self.o.errors if o.key == r.key for cid in o.checks]
            if ids:
                last = max(i for i, node in enumerate(seq) if node.get("id") in ids)
                return last + 1
        return len(seq)
