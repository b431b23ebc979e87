"""The host runtime's operator units: ``hostrt/<snake>.cpp``, one per spec (CheckParams + both phases).

``unit_context(info, catalog, names)`` turns a spec into the data ``templates/cpp/hostrt_op.cpp.j2``
lays out. Every check of the spec becomes C++ with the semantics of the generated Python validator
(``templates/python/op.py.j2`` through ``generator.emit.python``): the same order, the same guards
(``products``, ``when``, null arguments skip the checks that mention them), the same per-kind tests and
the same failure: status code and message ``aclnn<Op>: check '<id>' failed: <text> Rule: <rule>.
Seen: ...``. Rules are rendered by :class:`generator.expr.CRenderer`; the doc text of a rule and the
text of a check come from the same helpers the Python emitter uses, so both sides say the same thing.
Spec strings only reach the C++ source as escaped string literals or comments.
"""

from __future__ import annotations

from generator import expr as ex
from generator.emit.python import check_text
from generator.emit.view import OpView
from generator.escape.cpp import comment_lines, string_literal
from generator.loader import Catalog, OpInfo
from generator.model import Check, Param

# The implicit product check of the validators (templates/python/op.py.j2).
IMPLICIT_PRODUCT_TEXT = "The operator is not supported on this product."

POINTER_KINDS = ("const aclTensor*", "aclTensor*", "const aclScalar*", "const aclIntArray*", "const aclBoolArray*",
                 "const aclFloatArray*", "const aclTensorList*", "const char*", "char*")  # fmt: skip

# Locals of the generated unit; no parameter may be called like one (generator.escape.cpp.identifiers).
UNIT_LOCALS = frozenset(
    "product check error status request kOp kChecks CheckParams opgen std workspace workspaceSize executor "
    "stream".split()
)

_LIST_ACCESSOR = {"const aclIntArray*": "Ints", "const aclBoolArray*": "Bools", "const aclFloatArray*": "Floats"}


def _is_pointer(p: Param) -> bool:
    return p.ctype.endswith("*")


class _Lines:
    def __init__(self):
        self.lines: list[str] = []

    def add(self, depth: int, text: str) -> None:
        self.lines.append("    " * depth + text)


def _list(items) -> str:
    return "{" + ", ".join(string_literal(str(i)) for i in items) + "}"


def _dtype_table(p: Param, catalog: Catalog) -> str:
    """The per-product dtype table of a tensor, built like the validators' DTYPES (first rule wins)."""
    table: dict[str, list[str]] = {}
    for rule in p.tensor.dtypes:
        for tag in catalog.product_tags if rule.products == "all" else rule.products:
            table.setdefault(tag, list(rule.dtypes))
    rows = [f"{{{string_literal(tag)}, {_list(names)}}}" for tag, names in table.items()]
    return "{" + ", ".join(rows) + "}"


class _Unit:
    def __init__(self, info: OpInfo, catalog: Catalog, names: dict[str, str]):
        self.info, self.spec, self.catalog, self.names = info, info.spec, catalog, names

    def c(self, node: ex.Node) -> str:
        types = {p.name: p.ctype for p in self.spec.params}
        return ex.to_c(node, types, self.names)

    def seen(self, pairs) -> str:
        """The C++ list of SeenValue for (doc name, C++ name) pairs."""
        items = [f"opgen::Seen({string_literal(doc)}, {local})" for doc, local in pairs]
        return "{" + ", ".join(items) + "}"

    def fail(self, index_expr: str, seen: str) -> str:
        return f"return opgen::Fail(kOp, {index_expr}, {seen});"

    def argument_test(self, check: Check, p: Param, arg: str) -> str:
        """The condition under which argument ``arg`` violates a per-argument check."""
        kind = check.kind
        if kind == "not_null":
            return f"{arg} == nullptr"
        if kind == "dtype_supported":
            test = f"!opgen::DtypeSupported(opgen::DataType({arg}), product, {_dtype_table(p, self.catalog)})"
        elif kind == "format_supported":
            test = f"!opgen::FormatIn(opgen::Format({arg}), {_list(p.tensor.formats)})"
        elif kind == "rank_supported":
            low, high = p.tensor.rank.min, p.tensor.rank.max
            test = f"!({low} <= opgen::Rank({arg}) && opgen::Rank({arg}) <= {high})"
        elif kind == "dtype_in":
            test = f"!opgen::DtypeIn(opgen::DataType({arg}), {_list(check.dtypes)})"
        elif kind == "format_in":
            test = f"!opgen::FormatIn(opgen::Format({arg}), {_list(check.formats)})"
        elif kind == "rank_in":
            test = f"!({check.rank.min} <= opgen::Rank({arg}) && opgen::Rank({arg}) <= {check.rank.max})"
        elif kind == "format_not_private":
            test = f"opgen::IsPrivate(opgen::Format({arg}))"
        elif kind == "length_in":
            lengths = ", ".join(str(n) for n in check.lengths)
            accessor = _LIST_ACCESSOR.get(p.ctype, "Ints")
            test = f"!opgen::Contains(std::vector<int64_t>{{{lengths}}}, opgen::Len(opgen::{accessor}({arg})))"
        elif kind == "dtype_castable":
            test = f"!opgen::Castable(opgen::DataType({arg}), opgen::DtypeNamed({string_literal(check.to)}))"
        else:  # pragma: no cover - every per-argument kind is listed above
            raise AssertionError(kind)
        return f"{arg} != nullptr && {test}" if _is_pointer(p) else test

    def block(self, index: int, check: Check, entry: str) -> list[str]:
        """The C++ lines of one check (mirrors generator.emit.python._check_block)."""
        spec, names = self.spec, self.names
        out = _Lines()
        guards = []
        if check.products:
            guards.append(f"opgen::ProductIn(product, {_list(check.products)})")
        if check.when:
            when = self.info.exprs[("checks", index, "when")]
            found = ex.names_used(when)
            used = [p.name for p in spec.params if p.name in found]
            guards += [f"{names[n]} != nullptr" for n in used if _is_pointer(spec.param(n))]
            guards.append(f"({self.c(when)})")
        depth = 0
        if guards:
            out.add(0, f"if ({' && '.join(guards)}) {{")
            depth = 1
        kind = check.kind
        if kind == "product_supported":
            products = _list(spec.products)
            out.add(depth, f"if (!opgen::ProductIn(product, {products})) {{")
            out.add(depth + 1, f"return opgen::Fail(kOp, {entry}, {{opgen::SeenProduct(product)}});")
            out.add(depth, "}")
        elif kind in ("dtype_same", "format_same", "shape_same"):
            accessor = {"dtype_same": "DataType", "format_same": "Format", "shape_same": "Shape"}[kind]
            first, *rest = check.params
            a = names[first]
            for other in rest:
                b = names[other]
                test = f"opgen::{accessor}({b}) != opgen::{accessor}({a})"
                nulls = [f"{x} != nullptr" for x, n in ((a, first), (b, other)) if _is_pointer(spec.param(n))]
                out.add(depth, f"if ({' && '.join([*nulls, test])}) {{")
                out.add(depth + 1, self.fail(entry, self.seen([(first, a), (other, b)])))
                out.add(depth, "}")
        elif kind == "dtype_castable" and check.to in names:
            target = names[check.to]
            for name in check.params:
                arg = names[name]
                test = f"!opgen::Castable(opgen::DataType({arg}), opgen::DataType({target}))"
                nulls = [f"{x} != nullptr" for x, n in ((arg, name), (target, check.to)) if _is_pointer(spec.param(n))]
                out.add(depth, f"if ({' && '.join([*nulls, test])}) {{")
                out.add(depth + 1, self.fail(entry, self.seen([(name, arg), (check.to, target)])))
                out.add(depth, "}")
        elif kind == "expr":
            node = self.info.exprs[("checks", index, "expr")]
            found = ex.names_used(node)
            used = [p.name for p in spec.params if p.name in found]
            nulls = [f"{names[n]} != nullptr" for n in used if _is_pointer(spec.param(n))]
            out.add(depth, f"if ({' && '.join([*nulls, f'!({self.c(node)})'])}) {{")
            out.add(depth + 1, self.fail(entry, self.seen([(n, names[n]) for n in used])))
            out.add(depth, "}")
        else:
            for name in check.params:
                arg = names[name]
                out.add(depth, f"if ({self.argument_test(check, spec.param(name), arg)}) {{")
                out.add(depth + 1, self.fail(entry, self.seen([(name, arg)])))
                out.add(depth, "}")
        if guards:
            out.add(0, "}")
        return out.lines


def unit_context(info: OpInfo, catalog: Catalog, names: dict[str, str], view: OpView | None = None) -> dict:
    """What ``templates/cpp/hostrt_op.cpp.j2`` needs for one op (``view``: the op's shared texts)."""
    spec = info.spec
    view = view if view is not None else OpView(info)
    unit = _Unit(info, catalog, names)
    implicit = not any(c.kind == "product_supported" for c in spec.checks)
    implicit_at = next((i for i, c in enumerate(spec.checks) if c.kind != "not_null"), len(spec.checks))
    infos, checks = [], []
    for i, c in enumerate(spec.checks):
        if implicit and i == implicit_at:
            checks.append(_implicit_product(len(infos), _list(spec.products)))
            infos.append(_info_row("product-supported", 161002, "ACLNN_ERR_PARAM_INVALID", IMPLICIT_PRODUCT_TEXT,
                                   f"product in [{', '.join(spec.products)}]"))  # fmt: skip
        code, code_name = catalog.status(c.code)
        entry = f"kChecks[{len(infos)}]"
        infos.append(_info_row(c.id, code, code_name, check_text(c), view.rule_doc(i, c)))
        checks.append(
            {
                "comment": comment_lines(f"{c.id} ({code}): {check_text(c)}", 100, ""),
                "enforced": c.enforced,
                "entry": entry,
                "lines": unit.block(i, c, entry) if c.enforced else [],
            }
        )
    # As in the validators, the implicit product check runs before the first check that is not a
    # null-pointer check; a spec of null-pointer checks only has none.
    params = [{"ctype": p.ctype, "local": names[p.name], "doc": string_literal(p.name)} for p in spec.params]
    return {
        "source": info.path.name,
        "name": spec.name,
        "op": string_literal(spec.op),
        "snake": string_literal(spec.snake),
        "header": spec.header,
        "stream_ctype": spec.stream_ctype,
        "infos": infos,
        "checks": checks,
        "params": params,
        "phase1_api": string_literal(f"{spec.name}GetWorkspaceSize"),
        "phase2_api": string_literal(spec.name),
    }


def _info_row(check_id: str, code: int, code_name: str, text: str, rule: str) -> list[str]:
    return [string_literal(check_id), str(code), string_literal(code_name), string_literal(text), string_literal(rule)]


def _implicit_product(index: int, products: str) -> dict:
    entry = f"kChecks[{index}]"
    return {
        "comment": ["product-supported (161002): the operator is not supported on this product (implicit check)."],
        "enforced": True,
        "entry": entry,
        "lines": [
            f"if (!opgen::ProductIn(product, {products})) {{",
            f"    return opgen::Fail(kOp, {entry}, {{opgen::SeenProduct(product)}});",
            "}",
        ],
    }
