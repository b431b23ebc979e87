"""Which dtypes each tensor of an operator accepts on each product, proven by its validator.

A dtype is listed for (operator, product, tensor) exactly when the operator's own first-phase
validator accepts a call in which that tensor has that dtype. The calls tried are the spec's
example and the ``boundary`` input of every check (each a valid call by construction), moved to
the product, with the tensor's dtype changed in three ways: together with every tensor of the
witness that shared its dtype, outputs re-inferred; the same on fully inferred arguments; the
tensor alone. The first accepted call is the witness of the cell (calls an earlier rejection by a
dtype check already rules out are skipped without running the validator). Calls with an empty
tensor are no witnesses (unless the example itself has one): many operators return success on an
empty tensor before they check dtypes at all, which says nothing about the dtypes a computation
takes. Candidate dtypes are the catalogue's, minus those an unconditional
``dtype_supported``/``dtype_in`` check on the tensor rejects anyway.

The same computation feeds ``aclnn.supports`` (against the package's validators), the docs'
support matrix and ``opgen matrix`` (against validators built from the same templates), so all
three agree with ``aclnn.validate`` by construction; ``tests/test_docs_support.py`` re-checks every
cell against ``aclnn.validate``.

Return contract of :func:`supports` (``aclnn.supports(op, product, dtype=None, param=None)``):

* ``supports(op, product)``: ``dict`` tensor parameter name -> ``tuple`` of dtype names it accepts
  on ``product`` (parameters in prototype order, dtypes in catalogue order); ``{}`` when the product
  does not support the operator: it is not in ``aclnn.ops()[op]`` (a later phase fails there even
  where the first-phase checks pass) or no call passes the checks there.
* ``supports(op, product, param=name)``: the ``tuple`` of dtype names for that tensor (``()`` if none).
* ``supports(op, product, dtype)``: ``bool``, whether the operator's main input (its first input
  tensor) accepts ``dtype`` on ``product``.
* ``supports(op, product, dtype, param=name)``: ``bool`` for that tensor.

Names are resolved as everywhere in ``aclnn``: the operator with or without the ``aclnn`` prefix,
products by tag or any of their names, dtypes by doc name, aclDataType name or NumPy dtype. An
unknown operator, product, dtype or a ``param`` that is not a tensor parameter raises
``AclnnError`` (161002, ACLNN_ERR_PARAM_INVALID). Results are cached per operator.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from generator.model import TENSOR_CTYPES, OpSpec
from generator.runtime.errors import AclnnError
from generator.runtime.values import Scalar, TensorDesc

Table = dict[str, dict[str, tuple[str, ...]]]  # product -> tensor parameter -> dtypes


def tensor_params(spec: OpSpec) -> list[str]:
    """The operator's tensor parameters, in prototype order."""
    return [p.name for p in spec.params if p.ctype in TENSOR_CTYPES]


def _has_empty(args: dict) -> bool:
    return any(isinstance(v, TensorDesc) and 0 in v.shape for v in args.values())


def main_input(spec: OpSpec) -> str:
    """The tensor a one-dtype question is about: the first input tensor (else the first tensor)."""
    names = tensor_params(spec)
    inputs = [p.name for p in spec.params if p.ctype in TENSOR_CTYPES and p.role == "input"]
    return (inputs or names)[0]


class _Search:
    """Witness search for one operator against one validator module."""

    def __init__(self, spec: OpSpec, module: Any, dtypes: Iterable[str], exprs: dict | None = None):
        self.spec, self.module, self.dtypes = spec, module, tuple(dtypes)
        self.params: tuple[str, ...] = tuple(module.PARAMS)
        self.outputs = frozenset(module.OUTPUTS)
        self.witnesses = self._witnesses()
        self._full: dict[tuple[str, int], dict | None] = {}  # (product, witness index) -> _inferred
        # The calls tried, by recipe: (product, witness index, inferred?, the tensors retyped), each
        # with its verdicts by dtype. Tensors that share a dtype are retyped together, so the calls
        # tried for one of them are often the very calls tried for another: each runs once.
        self._recipes: dict[tuple, _Recipe] = {}
        # Checks whose verdict is decided by the product and by what they read (_CheckKey: the
        # dtypes a dtype check tests, what a `when` or an `expr` rule reads). A call such a check
        # rejected proves every call that agrees on those rejected too (by that check or by an
        # earlier one: a validator accepts only calls that pass every check), so the search skips
        # those calls without running the validator: the result is the same, with far fewer calls
        # (BatchNormBackward: about 500 validator calls instead of 30,000).
        self._check_keys = _check_keys(spec, exprs, getattr(module, "DTYPES", None))
        self._rejected: dict[str, set[tuple]] = {}  # check id -> {(product, key)}
        # Membership checks (_CheckKey.allowed) reached, by what their `when` read: check id ->
        # {(product, the when's values)}; a rejection there proves the check applies to such calls.
        self._applies: dict[str, set[tuple]] = {}
        self._plans: dict[tuple[str, str], list] = {}  # (product, tensor) -> _variants
        self._groups: dict[int, dict] = {}  # witness index -> dtype -> its tensors (see _dtype_groups)
        self._full_groups: dict[tuple[str, int], dict] = {}  # the same for (product, witness index) inferred
        self._check_templates: dict[tuple, _Template | None] = {}  # shared by recipes: see _template
        self._coverage: dict[tuple, tuple[int, set[int]]] = {}  # see _covered
        self._memberships: dict[str, list] = {}  # tensor -> the membership checks testing it (see _covered)

    def _witnesses(self) -> list[dict]:
        from generator.runtime.examples import arguments

        spec = self.spec
        overrides = [{}] + [dict(c.cases.boundary) for c in spec.checks if c.cases is not None and c.cases.boundary]
        found, seen = [], set()
        for override in overrides:
            key = repr(sorted(override.items(), key=lambda item: item[0]))
            if key in seen:
                continue
            seen.add(key)
            try:
                raw = arguments(spec, spec.example, override, with_data=False)
            except (AclnnError, ValueError, IndexError, KeyError, TypeError):
                continue  # an override the example machinery cannot build is no witness
            found.append({name: _desc(value) for name, value in raw.items()})
        computing = [w for w in found if not _has_empty(w)]
        return computing if computing or not found or not _has_empty(found[0]) else found

    # -- running the validator

    def _accepts(self, product: str, args: dict) -> bool:
        missing = self.module.MISSING
        values = [args.get(name, missing if name in self.outputs else None) for name in self.params]
        try:
            self.module.validate(*values, product=product)
        except AclnnError as exc:
            check = self._check_keys.get(exc.check)
            if check is not None:
                key = check.key(args)
                if key is not None:
                    self._rejected.setdefault(exc.check, set()).add((product, key))
                    if check.allowed is not None:
                        self._applies.setdefault(exc.check, set()).add((product, key[1]))
            return False
        return True

    def _proven_rejected(self, call: _Recipe, dtype: str) -> bool:
        """Whether an earlier rejection by a check covers ``call`` with its tensors retyped to ``dtype``."""
        product = call.key[0]
        proofs = call.proofs
        for index, proof in enumerate(proofs):
            if proof is not None and self._proves(proof, product, dtype):
                if index:  # the proof that worked is tried first next time (the same check tends to)
                    proofs.insert(0, proofs.pop(index))
                return True
        rejected = self._rejected
        if len(proofs) < len(rejected):  # checks that rejected a call since this recipe last looked
            for check_id in list(rejected)[len(proofs) :]:
                template = self._template(call, check_id)
                proof = None
                if template is not None:
                    proof = (template, rejected[check_id], self._applies.get(check_id), self._check_keys[check_id])
                proofs.append(proof)
                if proof is not None and self._proves(proof, product, dtype):
                    return True
        return False

    @staticmethod
    def _proves(proof: tuple, product: str, dtype: str) -> bool:
        template, seen, applies, check = proof
        key = template.fill(dtype)
        if (product, key) in seen:
            return True
        # or the check applies here and a tested dtype is outside its list
        return applies is not None and (product, key[1]) in applies and check.outside(product, key[0])

    def _template(self, call: _Recipe, check_id: str):
        """The check's key template (``_Template`` or None) for a call, computed when first needed.
        It depends only on the base arguments (product, witness, inferred?) and on which of the
        arguments the check reads are retyped: calls that differ elsewhere share it."""
        template = call.templates.get(check_id, _UNSET)
        if template is _UNSET:
            check = self._check_keys[check_id]
            key = (call.key[:3], check_id, tuple(n for n in check.retypable if n in call.names))
            template = self._check_templates.get(key, _UNSET)
            if template is _UNSET:
                template = self._check_templates[key] = check.template(call.base, call.names)
            call.templates[check_id] = template
        return template

    def _inferred(self, product: str, raw: dict) -> dict | None:
        """``raw`` with every output made explicit as the validator would infer it (None if it cannot)."""
        normalize = getattr(self.module, "_normalize", None)
        if normalize is None:
            return None
        missing = self.module.MISSING
        values = [raw.get(name, missing if name in self.outputs else None) for name in self.params]
        try:
            normalized = normalize(product, *values)[1:]
        except AclnnError:
            return None
        return dict(zip(self.params, normalized))

    # -- candidates and witnesses

    def candidates(self, product: str, param: str) -> tuple[str, ...]:
        """Catalogue dtypes minus those an unconditional dtype check on ``param`` always rejects."""
        allowed = set(self.dtypes)
        tables = getattr(self.module, "DTYPES", {})
        for check in self.spec.checks:
            if not check.enforced or check.when is not None or param not in (check.params or ()):
                continue
            if check.products is not None and product not in check.products:
                continue
            if check.kind == "dtype_supported":
                allowed &= set(tables.get(param, {}).get(product, ()))
            elif check.kind == "dtype_in":
                allowed &= set(check.dtypes or ())
        return tuple(d for d in self.dtypes if d in allowed)

    def witness(self, product: str, param: str, dtype: str) -> dict | None:
        """Arguments (docs' names) of a call the validator accepts with ``param`` of ``dtype``, or None."""
        covered = self._covered(product, param, dtype)
        for index, call in enumerate(self._variants(product, param)):
            if covered and index in covered:
                continue
            verdicts = call.verdicts
            verdict = verdicts.get(dtype)
            if verdict is False:
                continue
            if verdict is None and self._rejected and self._proven_rejected(call, dtype):
                verdicts[dtype] = False
                continue
            args = _retype(call.base, call.names, dtype)
            if verdict is None:
                verdict = verdicts[dtype] = self._accepts(product, args)
            if verdict:
                return args
        return None

    def _covered(self, product: str, param: str, dtype: str) -> set[int]:
        """The calls for ``param`` (indices into ``_variants``) that a membership check testing
        ``param`` rejects with ``dtype``: ``dtype`` is outside its list and the check is known to
        apply there (an earlier rejection by it under the same `when` values on this product)."""
        covered: set[int] = set()
        memberships = self._memberships.get(param)
        if memberships is None:  # the membership checks testing ``param``, with its position in them
            memberships = self._memberships[param] = [
                (check_id, check, check.names.index(param))
                for check_id, check in self._check_keys.items()
                if check.allowed is not None and param in check.names
            ]
        for check_id, check, position in memberships:
            applies = self._applies.get(check_id)
            if not applies or dtype in check.allowed[position].get(product, ()):
                continue
            slot = (product, param, check_id)
            known = self._coverage.get(slot)
            if known is None or known[0] != len(applies):  # new facts: look again
                found = set()
                for index, call in enumerate(self._variants(product, param)):
                    template = self._template(call, check_id)
                    if template is not None and not template.open_seen:
                        if (product, template.fill("")[1]) in applies:
                            found.add(index)
                known = self._coverage[slot] = (len(applies), found)
            covered |= known[1]
        return covered

    def _variants(self, product: str, param: str) -> list[_Recipe]:
        """The calls to try for ``param``, in order. For each witness: ``param`` given in it, retyped
        with every tensor that shares its dtype (outputs re-inferred); the same on fully inferred
        arguments; ``param`` alone on those. The same for every dtype tried, so computed once."""
        cached = self._plans.get((product, param))
        if cached is not None:
            return cached
        calls = []
        for index, raw in enumerate(self.witnesses):
            target = raw.get(param)
            if isinstance(target, TensorDesc):
                groups = self._groups.get(index)
                if groups is None:  # the same on every product
                    groups = self._groups[index] = _dtype_groups(raw)
                names = groups[target.dtype]
                calls.append(((product, index, False, names), raw, names))
            full = self._full_args(product, index, raw)
            if full is None or not isinstance(full.get(param), TensorDesc):
                continue
            groups = self._full_groups.get((product, index))
            if groups is None:
                groups = self._full_groups[(product, index)] = _dtype_groups(full)
            group = groups[full[param].dtype]
            calls.append(((product, index, True, group), full, group))
            if group != (param,):
                calls.append(((product, index, True, (param,)), full, (param,)))
        plans = []
        for key, base, names in calls:
            call = self._recipes.get(key)
            if call is None:
                call = self._recipes[key] = _Recipe(key, base, names)
            plans.append(call)
        self._plans[(product, param)] = plans
        return plans

    def _full_args(self, product: str, index: int, raw: dict) -> dict | None:
        key = (product, index)
        if key not in self._full:  # the same for every tensor and dtype tried with this witness
            self._full[key] = self._inferred(product, raw)
        return self._full[key]

    def table(self, products: Iterable[str]) -> Table:
        out: Table = {}
        names = tensor_params(self.spec)
        for product in products:
            row = {
                name: tuple(d for d in self.candidates(product, name) if self.witness(product, name, d))
                for name in names
            }
            out[product] = row if any(row.values()) else {}
        return out


# Checks whose verdict (pass, or fail with this check) is a function of the product and of what
# they read: the dtypes (or nullness) of the arguments a dtype check tests, and what its `when` or
# an `expr` check's rule reads from each argument: only its dtype, only its layout (shape, rank,
# format, numel, empty) or the whole value.
_DTYPE_KINDS = frozenset({"dtype_supported", "dtype_in", "dtype_same", "dtype_castable"})
_DTYPE, _LAYOUT, _FULL = "dtype", "layout", "full"
_LAYOUT_ATTRS = frozenset({"shape", "rank", "format", "numel", "empty"})
_UNSET = object()


class _CheckKey:
    """What decides one check: the arguments whose dtypes it tests (``names``) and what it reads of
    the others (``reads``: (name, how) pairs: ``_DTYPE``, ``_LAYOUT`` or ``_FULL``).

    ``allowed`` (membership checks: ``dtype_supported``, ``dtype_in``): per tested argument, the
    dtypes it accepts by product (``allowed[i].get(product, ())``); such a check rejects every call
    that reaches it with one tested dtype outside those, whatever the others are."""

    def __init__(self, names: tuple[str, ...], reads: tuple[tuple[str, str], ...], allowed=None):
        self.names, self.reads, self.allowed = names, reads, allowed
        self._by_product: dict[str, tuple] = {}  # product -> per tested argument, its allowed dtypes
        # The arguments whose retyping changes the check's key: all but those read by layout.
        self.retypable = names + tuple(name for name, how in reads if how != _LAYOUT and name not in names)

    def outside(self, product: str, dtypes: tuple) -> bool:
        """Whether one of ``dtypes`` (of ``names``; None: a null argument, skipped) is not allowed."""
        allowed = self._by_product.get(product)
        if allowed is None:
            allowed = self._by_product[product] = tuple(ok.get(product, ()) for ok in self.allowed)
        for dtype, ok in zip(dtypes, allowed):
            if dtype is not None and dtype not in ok:
                return True
        return False

    def key(self, args: dict) -> tuple | None:
        """Everything the check's verdict depends on besides the product; None when unknown (an
        output the validator infers, a value without a dtype, an unhashable value)."""
        template = self.template(args, ())
        return None if template is None else template.fill("")

    def template(self, args: dict, retyped: tuple[str, ...]) -> _Template | None:
        """``key`` for ``args`` with the tensors ``retyped`` to a dtype given later."""
        dtypes, open_dtypes = [], []
        for name in self.names:
            if name not in args:
                return None
            value = args[name]
            if value is None:
                dtypes.append(None)
            elif name in retyped:
                open_dtypes.append(len(dtypes))
                dtypes.append(None)
            elif isinstance(value, (TensorDesc, Scalar)):
                dtypes.append(value.dtype)
            else:
                return None
        seen, open_seen = [], []
        for name, how in self.reads:
            if name not in args:
                return None
            value = args[name]
            if isinstance(value, TensorDesc):
                if how == _LAYOUT:
                    value = (value.shape, value.format)
                elif name in retyped:
                    open_seen.append((len(seen), how))
                elif how == _DTYPE:
                    value = value.dtype
            elif isinstance(value, Scalar) and how == _DTYPE:
                value = value.dtype
            elif isinstance(value, list):
                value = tuple(value)
            seen.append(value)
        try:
            hash((tuple(dtypes), tuple(seen)))
        except TypeError:
            return None
        return _Template(dtypes, seen, open_dtypes, open_seen)


class _Recipe:
    """One call of the search without its dtype, shared by every tensor whose calls include it: its
    ``key`` (product, witness index, inferred?, the tensors retyped), the arguments to retype
    (``base``) and the tensors retyped (``names``); what the search learnt of it: the validator's
    verdict by dtype, the proofs (template, rejected keys, applicability, check; None where the check
    cannot tell) of the checks that have rejected a call, in the order they did, as far as it has
    looked, and its key template per check."""

    __slots__ = ("key", "base", "names", "verdicts", "proofs", "templates")

    def __init__(self, key: tuple, base: dict, names: tuple[str, ...]) -> None:
        self.key, self.base, self.names = key, base, names
        self.verdicts: dict[str, bool] = {}
        self.templates: dict[str, _Template | None] = {}  # check id -> see _Search._template
        self.proofs: list[tuple | None] = []


class _Everywhere:
    """The same dtype list on every product (a ``dtype_in`` check's)."""

    def __init__(self, dtypes: frozenset[str]):
        self.dtypes = dtypes

    def get(self, product: str, default=()) -> frozenset[str]:
        return self.dtypes


class _Template:
    """A rejection key with the retyped tensors' dtype left open."""

    __slots__ = ("dtypes", "seen", "open_dtypes", "open_seen", "fixed")

    def __init__(self, dtypes: list, seen: list, open_dtypes: list[int], open_seen: list[tuple[int, str]]):
        self.dtypes, self.seen, self.open_dtypes, self.open_seen = dtypes, seen, open_dtypes, open_seen
        self.fixed = None if open_dtypes or open_seen else (tuple(dtypes), tuple(seen))

    def fill(self, dtype: str) -> tuple:
        if self.fixed is not None:
            return self.fixed
        dtypes, seen = list(self.dtypes), list(self.seen)
        for i in self.open_dtypes:
            dtypes[i] = dtype
        for i, how in self.open_seen:
            value = seen[i]  # the retyped tensor, as _retype makes it
            seen[i] = dtype if how == _DTYPE else TensorDesc.trusted(value.shape, dtype, value.format)
        return tuple(dtypes), tuple(seen)


def _check_keys(spec: OpSpec, exprs: dict | None, tables: dict | None = None) -> dict[str, _CheckKey]:
    """Check id -> what decides it: dtype checks, and ``expr`` checks, whose rule and ``when`` are
    parsed nodes in ``exprs`` (without them only dtype checks with no ``when`` qualify).
    ``tables``: the validator's ``DTYPES`` (for ``dtype_supported``)."""
    from generator import expr as ex

    out = {}
    params = {p.name for p in spec.params}
    for index, check in enumerate(spec.checks):
        if not check.enforced:
            continue
        reads: dict[str, str] = {}
        names: tuple[str, ...] = ()
        if check.kind in _DTYPE_KINDS and check.params:
            names = tuple(check.params)
            if check.kind == "dtype_castable" and check.to in params:
                names += (check.to,)
        elif check.kind == "expr":
            node = (exprs or {}).get(("checks", index, "expr"))
            if node is None:
                continue
            _reads(ex, node, reads)
        else:
            continue
        if check.when is not None:
            node = (exprs or {}).get(("checks", index, "when"))
            if node is None:
                continue
            _reads(ex, node, reads)
        allowed = None
        if check.kind == "dtype_in":
            listed = frozenset(check.dtypes or ())
            allowed = tuple(_Everywhere(listed) for _ in names)
        elif check.kind == "dtype_supported" and tables is not None:
            allowed = tuple(tables.get(name, {}) for name in names)
        out[check.id] = _CheckKey(names, tuple(sorted(reads.items())), allowed)
    return out


def _reads(ex, node, reads: dict[str, str]) -> None:
    """Add to ``reads`` the parameters an expression reads and how: only the dtype, only the layout
    (shape, rank, format, numel, empty of a tensor) or in full (anything else, or both)."""
    count: dict[str, int] = {}
    dtype: dict[str, int] = {}
    layout: dict[str, int] = {}
    for n in ex.walk(node):
        if isinstance(n, ex.Name) and n.kind == "param":
            count[n.id] = count.get(n.id, 0) + 1
        elif isinstance(n, ex.NullTest):
            reads[n.param] = _FULL  # present(p), p is None: its nullness (a full read is the safe side)
        elif isinstance(n, ex.Attr) and isinstance(n.obj, ex.Name) and n.obj.kind == "param":
            into = dtype if n.attr == "dtype" else layout if n.attr in _LAYOUT_ATTRS else None
            if into is not None:
                into[n.obj.id] = into.get(n.obj.id, 0) + 1
    for name, total in count.items():
        how = _DTYPE if dtype.get(name) == total else _LAYOUT if layout.get(name) == total else _FULL
        before = reads.get(name)
        reads[name] = how if before in (None, how) else _FULL


def _desc(value: object) -> object:
    """Example arguments as validator arguments: arrays (mask codecs) become descriptors."""
    from generator.runtime.values import _is_numpy, as_tensor

    return as_tensor("example", value) if _is_numpy(value, "ndarray") else value


def _dtype_groups(args: dict) -> dict[str, tuple[str, ...]]:
    """dtype -> the tensors of ``args`` that have it, in argument order (the tensors retyped together)."""
    groups: dict[str, list[str]] = {}
    for name, value in args.items():
        if isinstance(value, TensorDesc):
            groups.setdefault(value.dtype, []).append(name)
    return {dtype: tuple(names) for dtype, names in groups.items()}


def _retype(args: dict, names: list[str], dtype: str) -> dict:
    out = dict(args)
    for name in names:
        desc = out[name]
        out[name] = TensorDesc.trusted(desc.shape, dtype, desc.format)
    return out


def support_table(
    spec: OpSpec, module: Any, products: Iterable[str], dtypes: Iterable[str], exprs: dict | None = None
) -> Table:
    """Every product -> every tensor parameter -> the dtypes the validator ``module`` accepts.

    ``exprs`` (the loader's parsed expressions of ``spec``) only speeds the search up: it lets
    rejections by dtype checks with a ``when`` rule out further calls too."""
    return _Search(spec, module, dtypes, exprs).table(products)


def witness(spec: OpSpec, module: Any, product: str, param: str, dtype: str, dtypes: Iterable[str]) -> dict | None:
    """A call (docs' argument names) that ``module`` accepts with ``param`` of ``dtype`` on ``product``."""
    return _Search(spec, module, dtypes).witness(product, param, dtype)


# ---------------------------------------------------------------------------------------------
# aclnn.supports


_CACHE: dict[str, Table] = {}


def supports(module: Any, spec: OpSpec, product: object, dtype: object = None, param: str | None = None):
    """``aclnn.supports``: see the module docstring for the return contract."""
    from generator.runtime import values

    tag = values.normalize_product(product)
    names = tensor_params(spec)
    if param is not None and param not in names:
        raise AclnnError(
            161002,
            "ACLNN_ERR_PARAM_INVALID",
            f"{spec.name}: {param!r} is not a tensor parameter; tensors: {', '.join(names)}",
        )
    wanted = values.normalize_dtype(dtype) if dtype is not None else None
    table = _CACHE.get(spec.name)
    if table is None:
        all_dtypes = tuple(values._Tables.dtype_values)  # catalogue order
        table = _CACHE[spec.name] = support_table(spec, module, spec.products, all_dtypes, _rules(spec))
    row = table.get(tag, {})
    if wanted is None:
        return dict(row) if param is None else row.get(param, ())
    return wanted in row.get(param if param is not None else main_input(spec), ())


def _rules(spec: OpSpec) -> dict:
    """The spec's check rules (``when``, ``expr``) parsed as the loader parses them, against the
    installed catalogue: they let the search skip calls an earlier rejection rules out (a rule that
    does not parse here is left out, which only means fewer skips)."""
    from generator import expr as ex
    from generator.loader import expr_type
    from generator.runtime import values

    tables = values._Tables
    scope = ex.Scope(
        {p.name: expr_type(p) for p in spec.params},
        frozenset(tables.dtype_values),
        frozenset(tables.format_values),
        products=frozenset(tables.products),
    )
    out = {}
    for index, check in enumerate(spec.checks):
        for field in ("when", "expr"):
            text = getattr(check, field)
            if text is not None:
                try:
                    out[("checks", index, field)] = ex.parse(text, scope, ex.BOOL)
                except ex.ExprError:
                    continue
    return out
