"""``opgen diff OLD NEW``: what changed in the doc-owned facts, each change breaking or compatible.

A change is *breaking* when an API changed (a parameter added, removed, renamed or retyped, a status
code changed) or when a call that was accepted may now fail (a product or a dtype, format or
non-contiguous/empty-tensor support removed, a rank narrowed or newly stated, an error condition or a
constraint added, an error row widened to more products). Everything else (additions, removals of
error conditions, rewordings, determinism notes) is *compatible*. Rewordings are found on texts
normalised by :func:`view.norm` (whitespace and punctuation changes are not changes) and paired with
their old version by similarity, so a reworded row is one change, not a removal and an addition.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from generator.docimport.view import ConstraintView, RowView, TextView, View, align, norm, regroup


@dataclass
class Change:
    area: str  # product | param | dtype | format | rank | shape | non_contiguous | empty | scalar | error | constraint | text | determinism | op
    action: str  # added | removed | renamed | retyped | reworded | code | products | narrowed | widened | stated | unstated | changed
    subject: str  # what changed: a product tag, a parameter, "gradOutput on 910b", an error text...
    old: object = None
    new: object = None
    breaking: bool = False
    line: int = 0  # where NEW says it (docs), 0 when unknown
    detail: str = ""  # the one-line description
    key: tuple = ()  # for sync: what the change is about

    def as_dict(self) -> dict:
        out = {
            "area": self.area,
            "action": self.action,
            "subject": self.subject,
            "breaking": self.breaking,
            "detail": self.detail,
        }
        for name in ("old", "new"):
            value = getattr(self, name)
            if value is not None:
                out[name] = _jsonable(value)
        if self.line:
            out["line"] = self.line
        return out


def _jsonable(value):
    if isinstance(value, TextView):
        return {"zh": value.zh, "en": value.en} if value.en else {"zh": value.zh}
    if isinstance(value, RowView):
        out = {"text": _jsonable(value.text), "code": value.code}
        if value.products is not None:
            out["products"] = sorted(value.products, key=_order)
        return out
    if isinstance(value, ConstraintView):
        out = {"text": _jsonable(value.text)}
        if value.products is not None:
            out["products"] = sorted(value.products, key=_order)
        return out
    if isinstance(value, (set, frozenset)):
        return sorted(value)
    if isinstance(value, tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, list):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    return value


@dataclass
class OpDiff:
    name: str
    old: str  # source of the old side ("" when the op is new)
    new: str
    changes: list[Change] = field(default_factory=list)

    @property
    def breaking(self) -> int:
        return sum(1 for c in self.changes if c.breaking)


def _q(text: str, limit: int = 0) -> str:
    text = " ".join(text.split())
    if limit and len(text) > limit:
        text = text[: limit - 1] + "…"
    return f"“{text}”"


def _products(tags) -> str:
    return "all products" if tags is None else ", ".join(sorted(tags, key=_order))


_ORDER: dict[str, int] = {}


def _order(tag: str) -> int:
    return _ORDER.get(tag, 99)


# --- the comparison -------------------------------------------------------------------------------


def diff_views(old: View, new: View, catalog) -> list[Change]:
    """Every change from ``old`` to ``new`` (views of the same API), in reading order."""
    if not _ORDER:
        _ORDER.update({t: i for i, t in enumerate(catalog.product_tags)})
    out: list[Change] = []
    out += _diff_products(old, new, catalog)
    out += _diff_params(old, new)
    out += _diff_errors(old, new)
    out += _diff_constraints(old, new)
    for area, attr, label in (
        ("text", "summary", "summary"),
        ("text", "description", "description"),
        ("determinism", "deterministic", "determinism"),
    ):
        a, b = getattr(old, attr), getattr(new, attr)
        if a.key != b.key:
            action = "reworded" if a and b else ("added" if b else "removed")
            detail = (
                f"{label} {action}: {_q(a.zh)} -> {_q(b.zh)}" if a and b else f"{label} {action}: {_q((b or a).zh)}"
            )
            line = new.lines.get("deterministic", 0) if attr == "deterministic" else 0
            out.append(Change(area, action, label, a.zh, b.zh, False, line, detail, (attr,)))
    if "".join(old.formula.split()) != "".join(new.formula.split()):
        action = "changed" if old.formula and new.formula else ("added" if new.formula else "removed")
        out.append(
            Change("text", action, "formula", old.formula, new.formula, False, 0, f"formula {action}", ("formula",))
        )
    return out


def _diff_products(old: View, new: View, catalog) -> list[Change]:
    out = []
    for tag in old.products:
        line = new.lines.get(f"product:{tag}", new.lines.get("products", 0))
        if tag not in new.products:
            label = _label(catalog, tag)
            out.append(
                Change(
                    "product",
                    "removed",
                    tag,
                    tag,
                    None,
                    True,
                    line,
                    f"product removed: {tag} ({label})",
                    ("product", tag),
                )
            )
    for tag in new.products:
        line = new.lines.get(f"product:{tag}", 0)
        if tag not in old.products:
            label = _label(catalog, tag)
            tables = []
            for p in new.params:
                if p.dtypes is not None and tag in p.dtypes:
                    tables.append(f"{p.name} {'/'.join(p.dtypes[tag])}")
            extra = f"; dtypes: {', '.join(tables)}" if tables else ""
            out.append(
                Change(
                    "product",
                    "added",
                    tag,
                    None,
                    tag,
                    False,
                    line,
                    f"product added: {tag} ({label}){extra}",
                    ("product", tag),
                )
            )
    return out


def _label(catalog, tag: str) -> str:
    try:
        return catalog.product(tag).zh
    except StopIteration:
        return tag


def _diff_params(old: View, new: View) -> list[Change]:
    out: list[Change] = []
    old_names = [p.name for p in old.params]
    new_names = [p.name for p in new.params]
    gone = [p for p in old.params if p.name not in new_names]
    came = [p for p in new.params if p.name not in old_names]
    renamed: list[tuple] = []
    for a in list(gone):
        match = None
        for b in came:
            if (a.ctype, a.role) != (b.ctype, b.role):
                continue
            same_place = a.index == b.index
            alike = norm(a.description.zh) and norm(a.description.zh) == norm(b.description.zh)
            if same_place or alike:
                match = b
                break
        if match is not None:
            renamed.append((a, match))
            gone.remove(a)
            came.remove(match)
    for p in gone:
        out.append(
            Change(
                "param",
                "removed",
                p.name,
                f"{p.ctype} {p.name}",
                None,
                True,
                0,
                f"parameter removed: {p.ctype} {p.name}",
                ("param", p.name),
            )
        )
    for p in came:
        line = new.lines.get(f"param:{p.name}", 0)
        out.append(
            Change(
                "param", "added", p.name, None, f"{p.ctype} {p.name}", True, line,
                f"parameter added: {p.ctype} {p.name} ({p.role}, position {p.index + 1})", ("param", p.name),
            )
        )  # fmt: skip
    for a, b in renamed:
        line = new.lines.get(f"param:{b.name}", 0)
        out.append(
            Change(
                "param",
                "renamed",
                a.name,
                a.name,
                b.name,
                True,
                line,
                f"parameter renamed: {a.name} -> {b.name}",
                ("param", a.name),
            )
        )
    pairs = [(old.param(n), new.param(n)) for n in old_names if n in new_names] + renamed
    pairs.sort(key=lambda ab: ab[1].index)
    for a, b in pairs:
        out += _diff_param(a, b, new)
    return out


def _diff_param(a, b, new: View) -> list[Change]:
    out: list[Change] = []
    name = b.name
    line = new.lines.get(f"param:{name}", 0)
    if (a.ctype, a.role) != (b.ctype, b.role):
        out.append(
            Change(
                "param", "retyped", name, f"{a.ctype} ({a.role})", f"{b.ctype} ({b.role})", True, line,
                f"parameter retyped: {name}: {a.ctype} ({a.role}) -> {b.ctype} ({b.role})", ("param", name),
            )
        )  # fmt: skip
    moved = norm(a.description.zh + a.usage.zh) == norm(b.description.zh + b.usage.zh)
    for attr in () if moved else ("description", "usage"):  # text moved between the two columns: no change
        x, y = getattr(a, attr), getattr(b, attr)
        if x.key != y.key:
            action = "reworded" if x and y else ("added" if y else "removed")
            what = f"{name} {attr}"
            detail = f"{what} {action}: {_q(x.zh)} -> {_q(y.zh)}" if x and y else f"{what} {action}: {_q((y or x).zh)}"
            out.append(Change("text", action, what, x.zh, y.zh, False, line, detail, (attr, name)))
    if a.dtypes is not None or b.dtypes is not None:
        out += _diff_dtypes(a, b, new, line)
    if a.castable_to != b.castable_to and (a.castable_to or b.castable_to):
        out.append(
            Change(
                "scalar", "changed", name, a.castable_to, b.castable_to, True, line,
                f"{name}: dtype castable to {a.castable_to or '-'} -> {b.castable_to or '-'}", ("castable_to", name),
            )
        )  # fmt: skip
    if a.formats is not None and b.formats is not None:
        removed = [f for f in a.formats if f not in b.formats]
        added = [f for f in b.formats if f not in a.formats]
        if removed:
            out.append(
                Change(
                    "format",
                    "removed",
                    name,
                    a.formats,
                    b.formats,
                    True,
                    line,
                    f"{name}: formats removed: {', '.join(removed)}",
                    ("formats", name),
                )
            )
        if added:
            out.append(
                Change(
                    "format",
                    "added",
                    name,
                    a.formats,
                    b.formats,
                    False,
                    line,
                    f"{name}: formats added: {', '.join(added)}",
                    ("formats", name),
                )
            )
    if a.rank != b.rank and (a.is_tensor and b.is_tensor):
        out.append(_rank_change(name, a.rank, b.rank, line))
    if a.shape.key != b.shape.key and (a.is_tensor and b.is_tensor):
        x, y = a.shape, b.shape
        action = "changed" if x and y else ("added" if y else "removed")
        if action == "changed" and _dims(x.zh) is not None and _dims(x.zh) == _dims(y.zh):
            action = "reworded"  # the same dimensions, other words around them
        detail = (
            f"{name} shape {action}: {_q(x.zh)} -> {_q(y.zh)}"
            if x and y
            else f"{name} shape {action}: {_q((y or x).zh)}"
        )
        out.append(Change("shape", action, name, x.zh, y.zh, action == "changed", line, detail, ("shape", name)))
    for attr, label in (("non_contiguous", "non-contiguous tensors"), ("empty", "empty tensors")):
        x, y = getattr(a, attr), getattr(b, attr)
        if x is not None and y is not None and x != y:
            action = "removed" if x and not y else "added"
            detail = f"{name}: {label} {'no longer supported' if action == 'removed' else 'now supported'}"
            out.append(Change(attr, action, name, x, y, action == "removed", line, detail, (attr, name)))
    return out


def _dims(shape: str) -> str | None:
    """The dimension tuple a shape text starts with (``(bs, num_queries, 2)``), normalised."""
    import re
    import unicodedata

    m = re.match(r"\s*\(([^()]*)\)", unicodedata.normalize("NFKC", shape))
    return norm(m.group(1)) if m else None


def _rank_change(name: str, x, y, line: int) -> Change:
    def show(r):
        return "-" if r is None else (str(r[0]) if r[0] == r[1] else f"{r[0]}-{r[1]}")

    if x is None:
        action, breaking = "stated", True
    elif y is None:
        action, breaking = "unstated", False
    elif y[0] > x[0] or y[1] < x[1]:
        action, breaking = "narrowed", True
    else:
        action, breaking = "widened", False
    return Change("rank", action, name, x, y, breaking, line, f"{name}: rank {show(x)} -> {show(y)}", ("rank", name))


def _diff_dtypes(a, b, new: View, line: int) -> list[Change]:
    """Dtypes added / removed per product (products both sides support), grouped by product."""
    out: list[Change] = []
    x, y = a.dtypes or {}, b.dtypes or {}
    groups: dict[tuple[str, tuple[str, ...]], list[str]] = {}
    for tag in new.products:
        if tag not in x and tag not in y:
            continue
        if tag not in x:  # a product the old side did not support: part of "product added"
            continue
        old_d, new_d = x.get(tag, ()), y.get(tag, ())
        removed = tuple(d for d in old_d if d not in new_d)
        added = tuple(d for d in new_d if d not in old_d)
        if removed:
            groups.setdefault(("removed", removed), []).append(tag)
        if added:
            groups.setdefault(("added", added), []).append(tag)
    for (action, dtypes), tags in groups.items():
        detail = f"{b.name} on {', '.join(tags)}: dtypes {action}: {', '.join(dtypes)}"
        out.append(
            Change(
                "dtype",
                action,
                f"{b.name} on {', '.join(tags)}",
                dtypes,
                tuple(tags),
                action == "removed",
                line,
                detail,
                ("dtypes", b.name),
            )
        )
    return out


def _tags(products, view: View, other: View) -> frozenset[str]:
    """The products a row or constraint applies to (None: every product of its view). Two rows for
    every product are alike whatever the product lists; a row for every product and one for some
    are compared on the products they name that both sides support."""
    common = set(view.products) & set(other.products)
    return frozenset(common if products is None else common & set(products))


def _row_label(row: RowView) -> str:
    where = "" if row.products is None else f" [{_products(row.products)}]"
    return f"{row.code}{where}"


def _diff_errors(old: View, new: View) -> list[Change]:
    out: list[Change] = []
    a_rows, b_rows = list(old.errors), list(new.errors)
    a_texts, b_texts = [r.text.zh for r in a_rows], [r.text.zh for r in b_rows]
    pairs = align(a_texts, b_texts)
    matched = [(a_rows[i], b_rows[j], score) for i, j, score in pairs]
    groups = regroup(a_texts, b_texts, {i for i, _, _ in pairs}, {j for _, j, _ in pairs})
    paired_a = {id(x) for x, _, _ in matched} | {id(a_rows[i]) for g, _ in groups for i in g}
    paired_b = {id(y) for _, y, _ in matched} | {id(b_rows[j]) for _, g in groups for j in g}
    for xs, ys in groups:
        xr, yr = [a_rows[i] for i in xs], [b_rows[j] for j in ys]
        action = "split" if len(xr) == 1 else "merged"
        codes = {r.code for r in xr + yr}
        detail = f"error row {action}: {', '.join(_q(r.text.zh) for r in xr)} -> {', '.join(_q(r.text.zh) for r in yr)}"
        if len(codes) > 1:
            detail += f"; codes {', '.join(str(c) for c in sorted(codes, key=str))}"
        out.append(
            Change(
                "error",
                action,
                yr[0].text.zh,
                xr,
                yr,
                len(codes) > 1,
                yr[0].line,
                detail,
                ("error-group", tuple(r.key for r in xr), tuple(r.key for r in yr)),
            )
        )
    for x, y, _ in matched:
        changes = []
        if x.key != y.key:
            changes.append("reworded")
        if x.code != y.code:
            changes.append("code")
        old_tags, new_tags = _tags(x.products, old, new), _tags(y.products, new, old)
        if (x.products is not None or y.products is not None) and old_tags != new_tags:
            changes.append("products")
        if not changes:
            continue
        widened = not new_tags <= old_tags
        breaking = "code" in changes or ("products" in changes and widened)
        parts = []
        if "reworded" in changes:
            parts.append(f"reworded: {_q(x.text.zh)} -> {_q(y.text.zh)}")
        else:
            parts.append(_q(y.text.zh))
        if "code" in changes:
            parts.append(f"code {x.code} -> {y.code}")
        if "products" in changes:
            parts.append(f"products {_products(x.products)} -> {_products(y.products)}")
        action = changes[0] if len(changes) == 1 else "+".join(changes)
        out.append(
            Change(
                "error",
                action,
                y.text.zh,
                x,
                y,
                breaking,
                y.line,
                f"error row {'; '.join(parts)}",
                ("error", x.key, y.key),
            )
        )
    for x in old.errors:
        if id(x) not in paired_a:
            out.append(
                Change(
                    "error",
                    "removed",
                    x.text.zh,
                    x,
                    None,
                    False,
                    0,
                    f"error row removed ({_row_label(x)}): {_q(x.text.zh)}",
                    ("error", x.key, None),
                )
            )
    for y in new.errors:
        if id(y) not in paired_b:
            out.append(
                Change(
                    "error",
                    "added",
                    y.text.zh,
                    None,
                    y,
                    True,
                    y.line,
                    f"error row added ({_row_label(y)}): {_q(y.text.zh)}",
                    ("error", None, y.key),
                )
            )
    return out


def _diff_constraints(old: View, new: View) -> list[Change]:
    out: list[Change] = []
    a_items, b_items = list(old.constraints), list(new.constraints)
    a_texts, b_texts = [c.text.zh for c in a_items], [c.text.zh for c in b_items]
    pairs = align(a_texts, b_texts)
    matched = [(a_items[i], b_items[j]) for i, j, _ in pairs]
    groups = regroup(a_texts, b_texts, {i for i, _, _ in pairs}, {j for _, j, _ in pairs})
    used_a = {id(x) for x, _ in matched} | {id(a_items[i]) for g, _ in groups for i in g}
    used_b = {id(y) for _, y in matched} | {id(b_items[j]) for _, g in groups for j in g}
    for xs, ys in groups:
        xc, yc = [a_items[i] for i in xs], [b_items[j] for j in ys]
        action = "split" if len(xc) == 1 else "merged"
        detail = (
            f"constraint {action}: {', '.join(_q(c.text.zh) for c in xc)} -> {', '.join(_q(c.text.zh) for c in yc)}"
        )
        out.append(
            Change("constraint", action, yc[0].text.zh, xc, yc, False, yc[0].line, detail, ("constraint-group",))
        )
    for x, y in matched:
        if x.text.key != y.text.key:
            out.append(
                Change(
                    "constraint", "reworded", y.text.zh, x, y, False, y.line,
                    f"constraint reworded: {_q(x.text.zh)} -> {_q(y.text.zh)}", ("constraint", x.text.key, y.text.key),
                )
            )  # fmt: skip
        old_tags, new_tags = _tags(x.products, old, new), _tags(y.products, new, old)
        if (x.products is not None or y.products is not None) and old_tags != new_tags:
            widened = not new_tags <= old_tags
            out.append(
                Change(
                    "constraint", "products", y.text.zh, x, y, widened, y.line,
                    f"constraint {_q(y.text.zh, 60)}: products {_products(x.products)} -> {_products(y.products)}",
                    ("constraint", x.text.key, y.text.key),
                )
            )  # fmt: skip
    for x in old.constraints:
        if id(x) not in used_a:
            out.append(
                Change(
                    "constraint",
                    "removed",
                    x.text.zh,
                    x,
                    None,
                    False,
                    0,
                    f"constraint removed: {_q(x.text.zh)}",
                    ("constraint", x.text.key, None),
                )
            )
    for y in new.constraints:
        if id(y) not in used_b:
            where = "" if y.products is None else f" [{_products(y.products)}]"
            out.append(
                Change(
                    "constraint",
                    "added",
                    y.text.zh,
                    None,
                    y,
                    True,
                    y.line,
                    f"constraint added{where}: {_q(y.text.zh)}",
                    ("constraint", None, y.text.key),
                )
            )
    return out


# --- reports ----------------------------------------------------------------------------------------


def report(diffs: list[OpDiff], fmt: str, old: str, new: str) -> str:
    if fmt == "json":
        return (
            json.dumps(
                {
                    "old": old,
                    "new": new,
                    "breaking": sum(d.breaking for d in diffs),
                    "changes": sum(len(d.changes) for d in diffs),
                    "ops": [
                        {
                            "op": d.name,
                            "old": d.old,
                            "new": d.new,
                            "breaking": d.breaking,
                            "changes": [c.as_dict() for c in d.changes],
                        }
                        for d in diffs
                    ],
                },
                ensure_ascii=False,
                indent=2,
            )
            + "\n"
        )
    if fmt == "markdown":
        return _markdown(diffs, old, new)
    return _text(diffs, old, new)


def _summary(diffs: list[OpDiff]) -> str:
    changes = sum(len(d.changes) for d in diffs)
    breaking = sum(d.breaking for d in diffs)
    changed = sum(1 for d in diffs if d.changes)
    return f"{changes} change(s) in {changed} of {len(diffs)} op(s), {breaking} breaking"


def _line(text: str) -> str:
    """Doc text as one terminal-safe line (control characters shown as U+FFFD)."""
    from generator.escape.markdown import clean

    return clean(text)


def _text(diffs: list[OpDiff], old: str, new: str) -> str:
    lines = [f"opgen diff {old} -> {new}: {_summary(diffs)}"]
    for d in diffs:
        if not d.changes:
            continue
        lines.append("")
        lines.append(
            _line(f"{d.name} ({d.old or '-'} -> {d.new or '-'}): {len(d.changes)} change(s), {d.breaking} breaking")
        )
        for c in d.changes:
            where = f"  [line {c.line}]" if c.line else ""
            lines.append(f"  {'BREAKING  ' if c.breaking else 'compatible'}  {_line(c.detail)}{where}")
    return "\n".join(lines) + "\n"


def _md_cell(text: str) -> str:
    from generator.escape.markdown import md_cell

    return md_cell(text)


def _markdown(diffs: list[OpDiff], old: str, new: str) -> str:
    lines = [f"# Changes from `{old}` to `{new}`", "", _summary(diffs) + "."]
    for d in diffs:
        if not d.changes:
            continue
        lines += ["", f"## {_md_cell(d.name)}", "", f"{_md_cell(d.old or '-')} → {_md_cell(d.new or '-')}", ""]
        lines += ["| | area | change |", "|---|---|---|"]
        for c in d.changes:
            lines.append(f"| {'**breaking**' if c.breaking else 'compatible'} | {c.area} | {_md_cell(c.detail)} |")
    return "\n".join(lines) + "\n"
