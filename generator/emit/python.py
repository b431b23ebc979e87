"""Python emitter: the view of an op spec the ``aclnn`` package templates need.

``op_context`` turns one :class:`OpInfo` into plain data (names, check blocks as lines of code,
output inference expressions) that ``templates/python/op.py.j2`` lays out.
"""

from __future__ import annotations

import dataclasses

from generator import expr as ex
from generator.escape.python import GENERATED_NAMES, USED_BUILTINS, identifier, pyrepr, python_local
from generator.loader import Catalog, OpInfo, Project, expr_type
from generator.model import RANK_FORMATS, Check, OpSpec, Param, snake_case

INDENT = "    "


def local_name(param: str) -> str:
    """Python local (and keyword argument) for a doc parameter name: see ``escape.python.python_local``."""
    return python_local(param)


class _Names(dict):
    """Parameter doc name -> Python local, plus how the op module reaches builtins."""

    def __init__(self, spec: OpSpec):
        super().__init__((p.name, local_name(p.name)) for p in spec.params)
        # The op function is a module global named after the op: if that hides a builtin the
        # module uses (say an op aclnnAbs), the module reaches the builtin as builtins.<name>.
        self.shadowed = frozenset({spec.snake} & USED_BUILTINS)

    def builtin(self, name: str) -> str:
        return f"builtins.{name}" if name in self.shadowed else name


class _ValidatorRenderer(ex.PythonRenderer):
    """Rules as validator code: a tensor's rank and emptiness read its shape in place.

    ``x.rank`` renders as ``len(x.shape)`` and ``x.empty`` as ``0 in x.shape`` (``0 not in x.shape``
    under ``not``): exactly what ``TensorDesc.rank`` / ``.empty`` compute, without a property call at
    each of the many uses of large specs.
    """

    def r_Attr(self, n: ex.Attr, parent: int) -> str:
        if n.attr == "rank":
            return f"{self._builtin('len')}({self.render(n.obj, 9)}.shape)"
        if n.attr == "empty":
            text = f"0 in {self.render(n.obj, 9)}.shape"
            return f"({text})" if parent > 4 else text
        return super().r_Attr(n, parent)

    def r_Unary(self, n: ex.Unary, parent: int) -> str:
        if n.op == "not" and isinstance(n.operand, ex.Attr) and n.operand.attr == "empty":
            text = f"0 not in {self.render(n.operand.obj, 9)}.shape"
            return f"({text})" if parent > 4 else text
        return super().r_Unary(n, parent)

    def r_Compare(self, n: ex.Compare, parent: int) -> str:
        """``x in [A, B]`` over constants tests a set literal (a constant frozenset: one hash lookup)."""
        parts = [self.render(n.operands[0], 5)]
        for op, right in zip(n.ops, n.operands[1:]):
            constant = isinstance(right, ex.ListLit) and right.items
            if op in ("in", "not in") and constant and all(isinstance(i, (ex.Const, ex.Symbol)) for i in right.items):
                parts += [op, _set_literal(self.render(i) for i in right.items)]
            else:
                parts += [op, self.render(right, 5)]
        text = " ".join(parts)
        return f"({text})" if parent > 4 else text


def _py(node: ex.Node, names: _Names) -> str:
    return _ValidatorRenderer(names, taken=GENERATED_NAMES | USED_BUILTINS, shadowed=names.shadowed).render(node)


def q(value) -> str:
    """A Python literal with double quotes (ruff's style)."""
    return pyrepr(value)


def _set_literal(rendered) -> str:
    """A set literal of already rendered constants (first occurrence kept; never empty)."""
    return "{" + ", ".join(dict.fromkeys(rendered)) + "}"


def _set(items) -> str:
    """A set literal of names (dtype, format, product tags) for membership tests."""
    return _set_literal(q(i) for i in items)


def check_text(check: Check) -> str:
    return check.text.en or check.text.zh


def rule_doc(info: OpInfo, index: int, check: Check) -> str:
    """The rule of a check rendered for humans (used in error messages and docs)."""
    spec = info.spec
    names = ", ".join(check.params or [])
    kind = check.kind
    if kind == "expr":
        text = ex.to_doc(info.exprs[("checks", index, "expr")])
    elif kind == "not_null":
        text = f"{names} must not be null"
    elif kind == "product_supported":
        text = f"product in [{', '.join(spec.products)}]"
    elif kind == "dtype_supported":
        text = f"dtype of {names} in its supported list for the product"
    elif kind == "dtype_in":
        text = f"dtype of {names} in [{', '.join(check.dtypes)}]"
    elif kind == "dtype_same":
        text = f"{names} have the same dtype"
    elif kind == "dtype_castable":
        target = f"{check.to}'s dtype" if check.to in {p.name for p in spec.params} else check.to
        text = f"dtype of {names} converts to {target}"
    elif kind == "format_supported":
        text = f"format of {names} in its supported list"
        if any("ND" in spec.param(n).tensor.formats for n in check.params):
            rank_formats = ", ".join(f"{fmt} ({rank}-D)" for rank, fmt in sorted(RANK_FORMATS.items()))
            text += f" (ND also accepts the format of the tensor's rank: {rank_formats})"
    elif kind == "format_in":
        text = f"format of {names} in [{', '.join(check.formats)}]"
    elif kind == "format_same":
        text = f"{names} have the same format"
    elif kind == "format_not_private":
        text = f"{names} not in a private format"
    elif kind == "rank_supported":
        text = f"rank of {names} within its supported range"
    elif kind == "rank_in":
        text = f"{check.rank.min} <= rank of {names} <= {check.rank.max}"
    elif kind == "shape_same":
        text = f"{names} have the same shape"
    elif kind == "length_in":
        text = f"length of {names} in [{', '.join(str(n) for n in check.lengths)}]"
    else:  # pragma: no cover - the model's Literal makes this unreachable
        raise AssertionError(kind)
    if check.when:
        text += f", when {ex.to_doc(info.exprs[('checks', index, 'when')])}"
    if check.products:
        text += f", on {', '.join(check.products)}"
    return text


class _Block:
    def __init__(self):
        self.lines: list[str] = []

    def add(self, depth: int, line: str) -> None:
        self.lines.append(INDENT * depth + line)


def _nullable(spec: OpSpec, name: str, non_null: frozenset) -> bool:
    """Whether a parameter may be None at this point: a pointer not covered by an earlier not-null check."""
    return spec.param(name).ctype.endswith("*") and name not in non_null


def _non_null_before(spec: OpSpec) -> list[frozenset]:
    """Per check: the parameters an earlier enforced, unconditional ``not_null`` check has proven non-null."""
    known: set[str] = set()
    out = []
    for c in spec.checks:
        out.append(frozenset(known))
        if c.kind == "not_null" and c.enforced and not c.products and not c.when:
            known.update(c.params)
    return out


def _infallible(node: ex.Node, spec: OpSpec, non_null: frozenset) -> bool:
    """True when evaluating ``node`` can raise nothing: equality and membership tests over attributes of
    parameters proven non-null (or plain values), constants, ``not``/``and``/``or``/``if``."""
    if isinstance(node, (ex.Const, ex.Symbol)):
        return True
    if isinstance(node, ex.Name):
        return node.kind == "product" or (node.kind == "param" and not _nullable(spec, node.id, non_null))
    if isinstance(node, ex.Attr):
        return isinstance(node.obj, ex.Name) and _infallible(node.obj, spec, non_null)
    if isinstance(node, ex.Unary):
        return node.op == "not" and _infallible(node.operand, spec, non_null)
    if isinstance(node, ex.BoolOp):
        return all(_infallible(v, spec, non_null) for v in node.values)
    if isinstance(node, ex.IfExp):
        return all(_infallible(v, spec, non_null) for v in (node.test, node.body, node.orelse))
    if isinstance(node, ex.Compare):  # == and in never raise on normalised values (< may: complex scalars)
        return all(op in ("==", "!=", "in", "not in") for op in node.ops) and all(
            _infallible(v, spec, non_null) for v in node.operands
        )
    if isinstance(node, ex.ListLit):
        return all(_infallible(v, spec, non_null) for v in node.items)
    return False


def _shared_conditions(info: OpInfo, names: _Names, non_null: list[frozenset]) -> dict[int, tuple[str, int]]:
    """``when`` conditions several enforced checks share, computed once into a local.

    Only conditions that cannot raise (see :func:`_infallible`) at their first use: evaluating them there,
    before that check's product test, changes nothing but the time taken; a bare parameter is not worth
    a local. Returns check index -> (local name, number of checks sharing it for the check that defines
    it, else 0).
    """
    spec = info.spec
    uses: dict[str, list[int]] = {}
    for i, c in enumerate(spec.checks):
        if c.enforced and c.when:
            uses.setdefault(_py(info.exprs[("checks", i, "when")], names), []).append(i)
    taken = set(names.values()) | GENERATED_NAMES | USED_BUILTINS
    out: dict[int, tuple[str, int]] = {}
    for indices in uses.values():
        first = indices[0]
        node = info.exprs[("checks", first, "when")]
        trivial = isinstance(node, ex.Name) or (isinstance(node, ex.Unary) and isinstance(node.operand, ex.Name))
        if len(indices) < 2 or trivial or not _infallible(node, spec, non_null[first]):
            continue
        local = f"when_{len({v[0] for v in out.values()}) + 1}"
        while local in taken:
            local += "_"
        taken.add(local)
        out.update({i: (local, len(indices) if i == first else 0) for i in indices})
    return out


def _check_block(
    info: OpInfo,
    index: int,
    check: Check,
    names: _Names,
    non_null: frozenset = frozenset(),
    shared_when: tuple[str, int] | None = None,
) -> list[str]:
    """Lines (relative indentation 0) that perform one check on normalised locals.

    ``non_null``: parameters earlier checks have proven non-null (no ``is not None`` test for them).
    ``shared_when``: (local, users) when the ``when`` condition is computed once for several checks
    (``users`` > 0 at the check that computes it).
    """
    spec = info.spec
    block = _Block()
    key = q(check.id)
    depth = 0
    guards = []
    if check.products:
        guards.append(f"product in {_set(check.products)}")
    if check.when:
        when = info.exprs[("checks", index, "when")]
        used = sorted(ex.names_used(when), key=list(names).index)
        guards += [f"{names[n]} is not None" for n in used if _nullable(spec, n, non_null)]
        guards.append(f"({_py(when, names)})")
    if shared_when is not None:
        local, users = shared_when
        if users:  # the first of the checks that share it
            block.add(0, f"{local} = {guards[-1][1:-1]}  # the 'when' of {users} checks, computed once")
        guards[-1] = local
    if guards:
        block.add(0, f"if {' and '.join(guards)}:")
        depth = 1
    kind = check.kind
    if kind == "product_supported":
        block.add(depth, "if product not in PRODUCTS:")
        block.add(depth + 1, f'raise rt.fail(CHECKS[{key}], {{"product": product}})')
    elif kind in ("dtype_same", "format_same", "shape_same"):
        attr = kind.removesuffix("_same")
        first_name, *rest = check.params
        first = names[first_name]
        for name in rest:
            arg = names[name]
            test = _present([first_name, name], spec, names, non_null) + f"{arg}.{attr} != {first}.{attr}"
            block.add(depth, f"if {test}:")
            block.add(depth + 1, f"raise rt.fail(CHECKS[{key}], {{{q(first_name)}: {first}, {q(name)}: {arg}}})")
    elif kind == "dtype_castable" and check.to in names:
        target = names[check.to]
        for name in check.params:
            arg = names[name]
            test = _present([name, check.to], spec, names, non_null) + f"not rt.castable({arg}.dtype, {target}.dtype)"
            block.add(depth, f"if {test}:")
            block.add(depth + 1, f"raise rt.fail(CHECKS[{key}], {{{q(name)}: {arg}, {q(check.to)}: {target}}})")
    elif kind == "expr":
        node = info.exprs[("checks", index, "expr")]
        used = sorted(ex.names_used(node), key=list(names).index)
        nullable = [n for n in used if _nullable(spec, n, non_null)]
        if isinstance(node, ex.Compare) and node.ops in (("in",), ("not in",)):
            # negate a membership test by flipping it (`x not in xs`, not `not (x in xs)`: ruff E713)
            flipped = dataclasses.replace(node, ops=("not in" if node.ops == ("in",) else "in",))
            cond = _py(flipped, names)
        elif (negated := ex.negated_quantifier(node)) is not None:
            cond = _py(negated, names)  # `min(x, default=1) <= 0`, not `not (min(x, default=1) > 0)`
        else:
            cond = f"not ({_py(node, names)})"
        if nullable:
            cond = " and ".join(f"{names[n]} is not None" for n in nullable) + " and " + cond
        seen = "{" + ", ".join(f"{q(n)}: {names[n]}" for n in used) + "}"
        block.add(depth, f"if {cond}:")
        block.add(depth + 1, f"raise rt.fail(CHECKS[{key}], {seen})")
    else:  # a test of each listed argument on its own, in the listed order
        for name in check.params:
            test = _argument_test(check, spec.param(name), names)
            if check.kind != "not_null":
                test = _present([name], spec, names, non_null) + test
            block.add(depth, f"if {test}:")
            block.add(depth + 1, f"raise rt.fail(CHECKS[{key}], {{{q(name)}: {names[name]}}})")
    return block.lines


def _present(params: list[str], spec: OpSpec, names: _Names, non_null: frozenset) -> str:
    """``"x is not None and "`` for each parameter that may be None here (a null argument skips the check)."""
    return "".join(f"{names[n]} is not None and " for n in params if _nullable(spec, n, non_null))


def _argument_test(check: Check, p: Param, names: _Names) -> str:
    """The condition under which argument ``p`` (not None) violates a per-argument check."""
    arg = names[p.name]
    if check.kind == "not_null":
        return f"{arg} is None"
    rank = f"{names.builtin('len')}({arg}.shape)"
    if check.kind == "format_supported":
        # A doc's ND also stands for the format the binding infers from the rank (TensorSpec.accepts_format).
        test = f"{arg}.format not in FORMATS[{q(p.name)}]"
        if "ND" in p.tensor.formats:
            test += f" and {arg}.format != RANK_FORMATS.get({rank})"
    elif check.kind == "rank_supported":
        test = f"not {p.tensor.rank.min} <= {rank} <= {p.tensor.rank.max}"
    else:
        test = {
            "dtype_supported": lambda: f"{arg}.dtype not in DTYPES[{q(p.name)}].get(product, ())",
            "dtype_in": lambda: f"{arg}.dtype not in {_set(check.dtypes)}",
            "format_in": lambda: f"{arg}.format not in {_set(check.formats)}",
            "rank_in": lambda: f"not {check.rank.min} <= {rank} <= {check.rank.max}",
            "format_not_private": lambda: f"rt.is_private({arg}.format)",
            "length_in": lambda: f"{names.builtin('len')}({arg}) not in {_set(check.lengths)}",
            "dtype_castable": lambda: f"not rt.castable({arg}.dtype, {q(check.to)})",
        }[check.kind]()
    return test


def _normalizer(p: Param, names: _Names) -> str:
    local, name = names[p.name], p.name
    kind = expr_type(p)
    if kind == ex.TENSOR:
        return f"rt.as_tensor({q(name)}, {local})"
    if kind == ex.SCALAR:
        return f"rt.as_scalar({q(name)}, {local})"
    if kind == ex.INTS:
        return f"rt.as_int_array({q(name)}, {local})"
    if kind == ex.BOOLS:
        return f"rt.as_bool_array({q(name)}, {local})"
    if kind == ex.FLOATS:
        return f"rt.as_float_array({q(name)}, {local})"
    if kind == "tensor[]":
        return f"rt.as_tensor_list({q(name)}, {local})"
    if kind == "str":
        return f"rt.as_text({q(name)}, {local})"
    if kind == ex.BOOL:
        return f"rt.as_bool({q(name)}, {local})"
    if kind == ex.FLOAT:
        return f"rt.as_float({q(name)}, {local})"
    return f"rt.as_int({q(name)}, {local}, {q(p.ctype)})"


def _kernel_arg(p: Param, names: _Names) -> str:
    local = names[p.name]
    kind = expr_type(p)
    if kind == ex.TENSOR:
        return f"rt.tensor_data({local}, {q(p.name)})"
    if kind == ex.SCALAR:
        return f"None if {local} is None else {local}.value"
    if kind == "tensor[]":
        return f"rt.tensor_list_data({local}, {q(p.name)})"
    if kind in ex.LISTS:
        return f"None if {local} is None else {names.builtin('list')}({local})"
    return local


def op_context(info: OpInfo, catalog: Catalog) -> dict:
    spec: OpSpec = info.spec
    names = _Names(spec)
    checks = []
    # Without a product check placed by the spec, one runs after the leading null-pointer checks
    # (CANN checks pointers first in every op), so null arguments keep their 161001.
    implicit_product = not any(c.kind == "product_supported" for c in spec.checks)
    implicit_at = next((i for i, c in enumerate(spec.checks) if c.kind != "not_null"), len(spec.checks))
    non_null = _non_null_before(spec)
    shared = _shared_conditions(info, names, non_null)
    for i, c in enumerate(spec.checks):
        code, code_name = catalog.status(c.code)
        checks.append(
            {
                "id": c.id,
                "code": code,
                "code_name": code_name,
                "text": check_text(c),
                "rule": rule_doc(info, i, c),
                "enforced": c.enforced,
                "lines": _check_block(info, i, c, names, non_null[i], shared.get(i)) if c.enforced else [],
                "comment": f"{c.id} ({code}): {check_text(c)}",
                "note": (c.note.en or c.note.zh) if c.note else None,
            }
        )
    dtypes, formats = {}, {}
    for p in spec.params:
        if p.tensor:
            table = {}
            for rule in p.tensor.dtype_rules:
                # "all" means every product: CANN's dtype lists for such tensors do not depend on the chip.
                for tag in catalog.product_tags if rule.products == "all" else rule.products:
                    table.setdefault(tag, tuple(rule.dtypes))
            dtypes[p.name] = table
            formats[p.name] = tuple(p.tensor.formats)
    outputs = []
    for p in spec.outputs:
        path = ("params", spec.params.index(p), "infer")
        when = info.exprs.get(path + ("when",))
        fmt = info.exprs.get(path + ("format",))
        outputs.append(
            {
                "name": p.name,
                "local": names[p.name],
                "shape": _py(info.exprs[path + ("shape",)], names),
                "dtype": _py(info.exprs[path + ("dtype",)], names),
                "when": _py(when, names) if when is not None else None,
                "format": _py(fmt, names) if fmt is not None else None,
                "nullable": p.nullable,
            }
        )
    # Python needs a default on every parameter after the first one with a default: outputs may be left
    # out (inferred), and an input that follows an output in the C signature gets MISSING as default
    # and is checked for presence first (a TypeError, like any missing argument).
    first_output = next((i for i, p in enumerate(spec.params) if p.role == "output"), len(spec.params))
    params = [
        {
            "name": p.name,
            "local": names[p.name],
            "ctype": p.ctype,
            "role": p.role,
            "kind": expr_type(p),
            "required_after_output": p.role != "output" and i > first_output,
            "normalize": _normalizer(p, names),
            "kernel_arg": _kernel_arg(p, names),
            "kernel_name": snake_case(p.name),  # the kernel calling contract (not the mangled local)
            "doc": _param_doc(p, spec, catalog),
        }
        for i, p in enumerate(spec.params)
    ]
    kernel_formats = [
        {"key": key, "local": names[name]} for key, name in (spec.kernel.formats.items() if spec.kernel else ())
    ]
    rank_formats = any(
        c.enforced and c.kind == "format_supported" and any("ND" in spec.param(n).tensor.formats for n in c.params)
        for c in spec.checks
    )
    return {
        "spec": spec,
        "source": info.path.name,
        "op": identifier(spec.op),
        "snake": identifier(spec.snake),
        "shadowed": sorted(names.shadowed),
        "implicit_rule": f"product in [{', '.join(spec.products)}]",
        "summary": spec.summary.en or spec.summary.zh,
        "description": spec.description.en or spec.description.zh,
        "products": tuple(spec.products),
        "implicit_product": implicit_product,
        "implicit_at": implicit_at,
        "checks": checks,
        "dtypes": dtypes,
        "formats": formats,
        "rank_formats": dict(sorted(RANK_FORMATS.items())) if rank_formats else None,
        "params": params,
        "inputs": [p for p in params if p["role"] != "output"],
        "required": [p for p in params if p["required_after_output"]],
        "outputs": outputs,
        "kernel": spec.kernel,
        "kernel_formats": kernel_formats,
    }


def _param_doc(p: Param, spec: OpSpec, catalog: Catalog) -> str:
    text = p.description.en or p.description.zh
    if p.tensor:
        groups = []
        for rule in p.tensor.dtype_rules:
            tags = "all products" if rule.products == "all" else ", ".join(rule.products)
            groups.append(f"{tags}: {', '.join(rule.dtypes)}")
        text += f" Dtypes: {'; '.join(groups)}. Formats: {', '.join(p.tensor.formats)}."
        if p.tensor.rank:
            text += f" Rank {p.tensor.rank.min}-{p.tensor.rank.max}."
    if p.nullable or p.role == "output":
        text += " Optional." if p.role == "output" else " May be None."
    return f"{p.name} ({p.ctype}): {text}"


def spec_json(info: OpInfo) -> str:
    """The op's model as JSON (what ``aclnn.spec(name)`` returns, re-validated into OpSpec)."""
    return info.spec.model_dump_json(indent=1) + "\n"


def catalog_context(project: Project) -> dict:
    c = project.catalog
    return {
        "products": [p.model_dump(mode="json") for p in c.products.products],
        "dtypes": [d.model_dump(mode="json") for d in c.dtypes.dtypes],
        "formats": [f.model_dump(mode="json") for f in c.formats.formats],
        "status_codes": [s.model_dump(mode="json") for s in c.status_codes.status_codes],
    }
