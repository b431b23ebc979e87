"""Symbolic shapes: ``(bs, num_queries, num_heads*channels)`` cells and the rules they imply.

A doc that writes each tensor's shape with named dimensions states, through the shared names,
that those dimensions agree (``bs`` in value and location), fixes literal ones (``2``), ties
products (``num_heads*channels``) and fixes each rank; its 约束说明 then limits the names
(``channels%8 = 0，且channels<=256``). :func:`shape_rules` turns all of that into rule drafts
over the parameters (``value.shape[3] % 8 == 0``), each type-checked by the caller.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_TUPLE = re.compile(r"^\s*[（(]([^()（）]*)[)）]")
_SYMBOL = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass
class ShapeRule:
    kind: str  # "rank_in" | "shape_same" | "expr"
    params: list[str] | None = None
    rank: tuple[int, int] | None = None
    expr: str | None = None
    source: str = "shape"  # "shape" (the parameter table) | "constraint"
    text: str = ""


def symbolic_shape(text: str) -> list[str] | None:
    """The dimension expressions of a ``(a, b, c)`` shape written at the start of ``text``."""
    m = _TUPLE.match(text or "")
    if not m:
        return None
    dims = [d.strip() for d in re.split(r"[,，]", m.group(1))]
    dims = [d for d in dims if d]
    if not dims or not all(re.fullmatch(r"[A-Za-z_0-9*+\- ]+", d) for d in dims):
        return None
    return dims


def shape_rules(shapes: dict[str, list[str]], constraints: list[str]) -> list[ShapeRule]:
    """Rules implied by the named shapes (``shapes``: tensor -> dims, in parameter order)."""
    rules: list[ShapeRule] = []
    by_rank: dict[int, list[str]] = {}
    for name, dims in shapes.items():
        by_rank.setdefault(len(dims), []).append(name)
    for rank, names in by_rank.items():
        rules.append(ShapeRule("rank_in", names, (rank, rank)))
    # Tensors with the very same named shape: one shape_same rule.
    same: dict[tuple, list[str]] = {}
    for name, dims in shapes.items():
        key = tuple(d.replace(" ", "") for d in dims)
        if all(_SYMBOL.fullmatch(d) for d in key):
            same.setdefault(key, []).append(name)
    grouped = {n for names in same.values() if len(names) > 1 for n in names[1:]}
    for names in same.values():
        if len(names) > 1:
            rules.append(ShapeRule("shape_same", list(names)))
    # Where each name first appears, and every other place it appears.
    first: dict[str, str] = {}
    places: dict[str, list[str]] = {}
    for name, dims in shapes.items():
        for i, dim in enumerate(dims):
            d = dim.replace(" ", "")
            ref = f"{name}.shape[{i}]"
            if _SYMBOL.fullmatch(d):
                if name in grouped:
                    first.setdefault(d, ref)
                    continue
                places.setdefault(d, []).append(ref)
                first.setdefault(d, ref)
    for symbol, refs in places.items():
        if len(refs) > 1:
            rules.append(ShapeRule("expr", expr=" == ".join(refs), text=symbol))
    for name, dims in shapes.items():
        if name in grouped:
            continue
        for i, dim in enumerate(dims):
            d = dim.replace(" ", "")
            ref = f"{name}.shape[{i}]"
            if re.fullmatch(r"\d+", d):
                rules.append(ShapeRule("expr", expr=f"{ref} == {d}", text=d))
            elif not _SYMBOL.fullmatch(d):
                value = _translate(d, first)
                if value is not None:
                    rules.append(ShapeRule("expr", expr=f"{ref} == {value}", text=d))
    for line in constraints:
        for cond in _conditions(line, first):
            rules.append(ShapeRule("expr", expr=cond, source="constraint", text=line))
    return rules


def _translate(expression: str, first: dict[str, str]) -> str | None:
    """``num_heads*channels`` -> ``value.shape[2] * value.shape[3]`` (None if a name is unknown)."""
    out = []
    for token in re.findall(r"[A-Za-z_][A-Za-z0-9_]*|\d+|[*+\-%/]|<=|>=|==|!=|[<>]", expression):
        if _SYMBOL.fullmatch(token):
            if token not in first:
                return None
            out.append(first[token])
        else:
            out.append(token)
    return " ".join(out) if out else None


_COMPARE = re.compile(
    r"([A-Za-z_][A-Za-z0-9_]*(?:\s*[%*/+\-]\s*(?:[A-Za-z_][A-Za-z0-9_]*|\d+))*)\s*(<=|>=|==|!=|=|<|>|≤|≥)\s*(-?\d+)"
)


def _conditions(line: str, first: dict[str, str]) -> list[str]:
    """Comparisons of a constraint line written with shape names (``channels<=256``)."""
    text = line.replace("＜", "<").replace("＞", ">").replace("＝", "=").replace("≤", "<=").replace("≥", ">=")
    out = []
    for m in _COMPARE.finditer(text):
        left = m.group(1)
        # The name may be glued to a Chinese word before it ("通道数channels"): keep the identifier only.
        names = _SYMBOL.findall(left)
        if not names or not all(n in first for n in names):
            continue
        op = "==" if m.group(2) == "=" else m.group(2)
        value = _translate(left, first)
        if value is None:
            continue
        out.append(f"{value} {op} {m.group(3)}")
    return out
