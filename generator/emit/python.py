"""Python emitter: the view of an op spec the ``aclnn`` package templates need.

``op_context`` turns one :class:`OpInfo` into plain data (names, check blocks as lines of code,
output inference expressions) that ``templates/python/op.py.j2`` lays out.
"""

from __future__ import annotations

from generator import expr as ex
from generator.escape.python import GENERATED_NAMES, USED_BUILTINS, identifier, pyrepr, python_local, pytuple
from generator.loader import Catalog, OpInfo, Project, expr_type
from generator.model import Check, OpSpec, Param, snake_case

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


def _py(node: ex.Node, names: _Names) -> str:
    return ex.to_python(node, names, taken=GENERATED_NAMES | USED_BUILTINS, shadowed=names.shadowed)


def q(value) -> str:
    """A Python literal with double quotes (ruff's style)."""
    return pyrepr(value)


def _tuple(items) -> str:
    return pytuple(list(items))


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


def _check_block(info: OpInfo, index: int, check: Check, names: _Names) -> list[str]:
    """Lines (relative indentation 0) that perform one check on normalised locals."""
    spec = info.spec
    block = _Block()
    key = q(check.id)
    depth = 0
    guards = []
    if check.products:
        guards.append(f"product in {_tuple(check.products)}")
    if check.when:
        when = info.exprs[("checks", index, "when")]
        used = sorted(ex.names_used(when), key=list(names).index)
        guards += [f"{names[n]} is not None" for n in used if spec.param(n).ctype.endswith("*")]
        guards.append(f"({_py(when, names)})")
    if guards:
        block.add(0, f"if {' and '.join(guards)}:")
        depth = 1
    kind = check.kind
    if kind == "product_supported":
        block.add(depth, "if product not in PRODUCTS:")
        block.add(depth + 1, f'raise rt.fail(CHECKS[{key}], {{"product": product}})')
    elif kind in ("dtype_same", "format_same", "shape_same"):
        attr = kind.removesuffix("_same")
        (first_name, first), *rest = [(p, names[p]) for p in check.params]
        block.add(depth, f"for name, arg in {_pairs(rest)}:")
        block.add(depth + 1, f"if {first} is not None and arg is not None and arg.{attr} != {first}.{attr}:")
        block.add(depth + 2, f"raise rt.fail(CHECKS[{key}], {{{q(first_name)}: {first}, name: arg}})")
    elif kind == "dtype_castable" and check.to in names:
        target = names[check.to]
        block.add(depth, f"for name, arg in {_pairs((p, names[p]) for p in check.params)}:")
        block.add(
            depth + 1, f"if arg is not None and {target} is not None and not rt.castable(arg.dtype, {target}.dtype):"
        )
        block.add(depth + 2, f"raise rt.fail(CHECKS[{key}], {{name: arg, {q(check.to)}: {target}}})")
    elif kind == "expr":
        node = info.exprs[("checks", index, "expr")]
        used = sorted(ex.names_used(node), key=list(names).index)
        nullable = [n for n in used if spec.param(n).ctype.endswith("*")]
        cond = f"not ({_py(node, names)})"
        if nullable:
            cond = " and ".join(f"{names[n]} is not None" for n in nullable) + " and " + cond
        seen = "{" + ", ".join(f"{q(n)}: {names[n]}" for n in used) + "}"
        block.add(depth, f"if {cond}:")
        block.add(depth + 1, f"raise rt.fail(CHECKS[{key}], {seen})")
    else:  # a test of each listed argument on its own
        block.add(depth, f"for name, arg in {_pairs((p, names[p]) for p in check.params)}:")
        block.add(depth + 1, f"if {_argument_test(check, names)}:")
        block.add(depth + 2, f"raise rt.fail(CHECKS[{key}], {{name: arg}})")
    return block.lines


def _pairs(params) -> str:
    """A tuple literal of (doc name, local) pairs."""
    items = [f"({q(name)}, {local})" for name, local in params]
    return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"


def _argument_test(check: Check, names: _Names) -> str:
    """The condition under which one argument ``arg`` (named ``name``) violates a per-argument check."""
    if check.kind == "not_null":
        return "arg is None"
    test = {
        "dtype_supported": lambda: "arg.dtype not in DTYPES[name].get(product, ())",
        "format_supported": lambda: "arg.format not in FORMATS[name]",
        "rank_supported": lambda: "not RANKS[name][0] <= arg.rank <= RANKS[name][1]",
        "dtype_in": lambda: f"arg.dtype not in {_tuple(check.dtypes)}",
        "format_in": lambda: f"arg.format not in {_tuple(check.formats)}",
        "rank_in": lambda: f"not {check.rank.min} <= arg.rank <= {check.rank.max}",
        "format_not_private": lambda: "rt.is_private(arg.format)",
        "length_in": lambda: f"{names.builtin('len')}(arg) not in {_tuple(check.lengths)}",
        "dtype_castable": lambda: f"not rt.castable(arg.dtype, {q(check.to)})",
    }[check.kind]()
    return f"arg is not None and {test}"


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
                "lines": _check_block(info, i, c, names) if c.enforced else [],
                "comment": f"{c.id} ({code}): {check_text(c)}",
                "note": (c.note.en or c.note.zh) if c.note else None,
            }
        )
    dtypes, formats, ranks = {}, {}, {}
    for p in spec.params:
        if p.tensor:
            table = {}
            for rule in p.tensor.dtypes:
                # "all" means every product: CANN's dtype lists for such tensors do not depend on the chip.
                for tag in catalog.product_tags if rule.products == "all" else rule.products:
                    table.setdefault(tag, tuple(rule.dtypes))
            dtypes[p.name] = table
            formats[p.name] = tuple(p.tensor.formats)
            if p.tensor.rank:
                ranks[p.name] = (p.tensor.rank.min, p.tensor.rank.max)
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
    params = [
        {
            "name": p.name,
            "local": names[p.name],
            "ctype": p.ctype,
            "role": p.role,
            "kind": expr_type(p),
            "normalize": _normalizer(p, names),
            "kernel_arg": _kernel_arg(p, names),
            "kernel_name": snake_case(p.name),  # the kernel calling contract (not the mangled local)
            "doc": _param_doc(p, spec, catalog),
        }
        for p in spec.params
    ]
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
        "ranks": ranks,
        "params": params,
        "inputs": [p for p in params if p["role"] != "output"],
        "outputs": outputs,
        "kernel": spec.kernel,
    }


def _param_doc(p: Param, spec: OpSpec, catalog: Catalog) -> str:
    text = p.description.en or p.description.zh
    if p.tensor:
        groups = []
        for rule in p.tensor.dtypes:
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
