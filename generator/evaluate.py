"""Run a spec's enforced checks on its own example, in process, as the generated validator would.

``opgen lint`` uses this to reject contradictory specs (checks that reject the spec's example)
without rendering or executing generated code: every rule is evaluated over the parsed expression
tree (:class:`generator.expr.Evaluator`) and every check kind is restated here. A test compares the
verdicts with the generated validators on every check case of every spec, so the two cannot drift.
"""

from __future__ import annotations

from dataclasses import dataclass

from generator import expr as ex
from generator.int_ranges import C_INT_RANGES
from generator.model import Check, Example, ExampleScalar, ExampleTensor, OpSpec, Param


@dataclass(frozen=True)
class TensorValue:
    """What a validator sees of a tensor (like ``generator.runtime.TensorDesc``, without data)."""

    shape: tuple[int, ...]
    dtype: str
    format: str

    @property
    def rank(self) -> int:
        return len(self.shape)

    @property
    def numel(self) -> int:
        count = 1
        for dim in self.shape:
            count *= dim
        return count

    @property
    def empty(self) -> bool:
        return 0 in self.shape


@dataclass(frozen=True)
class ScalarValue:
    value: object
    dtype: str


# What evaluating a rule can raise; the validators catch the same (generator.runtime.errors).
EVALUATION_ERRORS = (IndexError, TypeError, ValueError, ZeroDivisionError, OverflowError, KeyError, AttributeError)


class Rejected(Exception):
    """The arguments cannot even reach the checks (the binding's argument normalisation refuses them)."""


@dataclass(frozen=True)
class Verdict:
    """The first failing check: its index in ``spec.checks`` (None: the implicit product check)."""

    index: int | None
    check_id: str
    seen: dict


def _default_format(rank: int) -> str:
    return {3: "NCL", 4: "NCHW", 5: "NCDHW"}.get(rank, "ND")


def _scalar(p: Param, value, dtype: str) -> ScalarValue:
    """A scalar as ``aclnn.Scalar`` stores it: the value as its dtype holds it (1e-46 as FLOAT is 0.0)."""
    try:
        return ScalarValue(ex.rules_module().stored_scalar(value, dtype), dtype)
    except ValueError as exc:
        raise Rejected(f"{p.name}: Scalar.value {exc}") from None


def _normalise(p: Param, value):
    """The validator's view of an example value (``rt.as_*``); Rejected where those would raise."""
    kind = _kind(p)
    if value is None:
        if not p.ctype.endswith("*"):  # a plain C value has no null (rt.as_bool/as_int/as_float refuse None)
            raise Rejected(f"{p.name} is a {p.ctype} and cannot be null")
        return None
    if kind == ex.TENSOR:
        if not isinstance(value, ExampleTensor):
            raise Rejected(f"{p.name}: not a tensor")
        if value.mask_from_argmax is not None:  # encoded into an int8 array (generator.runtime.examples)
            return TensorValue(tuple(value.shape), "INT8", _default_format(len(value.shape)))
        return TensorValue(tuple(value.shape), value.dtype, value.format)
    if kind == ex.SCALAR:  # rt.as_scalar: a plain bool/int/float becomes a BOOL/INT64/FLOAT scalar
        if isinstance(value, ExampleScalar):
            return _scalar(p, value.value, value.dtype)
        if isinstance(value, bool):
            return ScalarValue(value, "BOOL")
        if isinstance(value, int) and -(2**63) <= value < 2**63:
            return ScalarValue(value, "INT64")
        if isinstance(value, float):
            return _scalar(p, value, "FLOAT")
        raise Rejected(f"{p.name}: not a scalar")
    if kind in ex.LISTS:
        if not isinstance(value, list):
            raise Rejected(f"{p.name}: not a list")
        if kind == ex.BOOLS and not all(isinstance(v, bool) for v in value):
            raise Rejected(f"{p.name} must hold bools")
        if kind == ex.INTS and any(isinstance(v, bool) or not -(2**63) <= v < 2**63 for v in value):
            raise Rejected(f"{p.name} must hold int64 integers")
        return tuple(value)
    if kind == ex.BOOL:
        if not isinstance(value, bool):
            raise Rejected(f"{p.name}: not a bool")
        return value
    if kind == ex.FLOAT:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise Rejected(f"{p.name}: not a number")
        return float(value)
    if kind == "tensor[]":  # an aclTensorList: the validator sees a tuple of tensor descriptors
        if not isinstance(value, list) or not all(isinstance(v, ExampleTensor) for v in value):
            raise Rejected(f"{p.name}: not a list of tensors")
        return tuple(TensorValue(tuple(v.shape), v.dtype, v.format) for v in value)
    if kind == "str":  # a const char*
        if not isinstance(value, str):
            raise Rejected(f"{p.name}: not a string")
        return value
    if isinstance(value, bool) or not isinstance(value, int):
        raise Rejected(f"{p.name}: not an integer")
    low, high = C_INT_RANGES.get(p.ctype, C_INT_RANGES["int64_t"])
    if not low <= value <= high:
        raise Rejected(f"{p.name} = {value} does not fit the C type {p.ctype}")
    return value


def _kind(p: Param) -> str:
    from generator.loader import expr_type

    return expr_type(p)


class SpecEvaluator:
    """The checks of one op (parsed expressions from the loader) over concrete arguments."""

    def __init__(self, spec: OpSpec, exprs: dict, product_tags: list[str], private_formats=frozenset()):
        self.spec, self.exprs = spec, exprs
        self.private = frozenset(private_formats)
        self.params = {p.name: p for p in spec.params}
        self.dtypes: dict[str, dict[str, tuple[str, ...]]] = {}
        for p in spec.params:
            if p.tensor:
                table: dict[str, tuple[str, ...]] = {}
                for rule in p.tensor.dtypes:
                    for tag in product_tags if rule.products == "all" else rule.products:
                        table.setdefault(tag, tuple(rule.dtypes))
                self.dtypes[p.name] = table

    # -- arguments

    def arguments(self, example: Example, overrides: dict | None = None, product: str | None = None) -> dict:
        """Normalised arguments for ``example`` (plus ``overrides``); outputs not given are inferred."""
        product = product or example.product
        raw = {**example.inputs, **(overrides or {})}
        values = {}
        for p in self.spec.params:
            if p.role != "output" or p.name in raw:
                values[p.name] = _normalise(p, raw.get(p.name))
        for i, p in enumerate(self.spec.params):
            if p.role == "output" and p.name not in raw:
                values[p.name] = self._infer(i, values, product)
        return values

    def _infer(self, index: int, values: dict, product: str):
        """An inferred output (the validators' inline inference): None when not produced or when the inputs
        are too broken to infer it (``rt.INFER_ERRORS``)."""
        path = ("params", index, "infer")
        try:
            when = self.exprs.get(path + ("when",))
            if when is not None and not self._eval(when, values, product):
                return None
            shape = tuple(self._eval(self.exprs[path + ("shape",)], values, product))
            dtype = self._eval(self.exprs[path + ("dtype",)], values, product)
            fmt_node = self.exprs.get(path + ("format",))
            fmt = self._eval(fmt_node, values, product) if fmt_node is not None else _default_format(len(shape))
        except EVALUATION_ERRORS:
            return None
        if not all(type(d) is int and 0 <= d < 2**63 for d in shape):
            return None
        return TensorValue(shape, dtype, fmt)

    def _eval(self, node: ex.Node, values: dict, product: str):
        return ex.Evaluator(values, product, self.private).eval(node)

    # -- checks

    def first_failure(self, values: dict, product: str) -> Verdict | None:
        """The first enforced check these arguments fail, in the validator's order (None: all pass)."""
        checks = self.spec.checks
        implicit = not any(c.kind == "product_supported" for c in checks)
        implicit_at = next((i for i, c in enumerate(checks) if c.kind != "not_null"), len(checks))
        for i in range(len(checks) + 1):
            if implicit and i == implicit_at and product not in self.spec.products:
                return Verdict(None, "product-supported", {"product": product})
            if i == len(checks):
                break
            check = checks[i]
            if not check.enforced:
                continue
            try:
                seen = self._failure(i, check, values, product)
            except EVALUATION_ERRORS:
                seen = {}
            if seen is not None:
                return Verdict(i, check.id, seen)
        return None

    def _failure(self, index: int, check: Check, values: dict, product: str) -> dict | None:
        """None when the check passes; else the arguments it blames (as the validator reports them)."""
        if check.products and product not in check.products:
            return None
        if check.when:
            when = self.exprs[("checks", index, "when")]
            if any(values[n] is None for n in ex.names_used(when) if self._pointer(n)):
                return None
            if not self._eval(when, values, product):
                return None
        kind, names = check.kind, check.params or []
        if kind == "product_supported":
            return {"product": product} if product not in self.spec.products else None
        if kind in ("dtype_same", "format_same", "shape_same"):
            attr = kind.removesuffix("_same")
            first = values[names[0]]
            for name in names[1:]:
                arg = values[name]
                if first is not None and arg is not None and getattr(arg, attr) != getattr(first, attr):
                    return {names[0]: first, name: arg}
            return None
        if kind == "dtype_castable" and check.to in self.params:
            castable = ex.rules_module().castable
            target = values[check.to]
            for name in names:
                arg = values[name]
                if arg is not None and target is not None and not castable(arg.dtype, target.dtype):
                    return {name: arg, check.to: target}
            return None
        if kind == "expr":
            node = self.exprs[("checks", index, "expr")]
            names_used = ex.names_used(node)
            used = [n for n in self.params if n in names_used]
            if any(values[n] is None for n in used if self._pointer(n)):
                return None
            return None if self._eval(node, values, product) else {n: values[n] for n in used}
        for name in names:
            arg = values[name]
            if self._argument_fails(check, name, arg, product):
                return {name: arg}
        return None

    def _pointer(self, name: str) -> bool:
        return self.params[name].ctype.endswith("*")

    def _argument_fails(self, check: Check, name: str, arg, product: str) -> bool:
        kind = check.kind
        if kind == "not_null":
            return arg is None
        if arg is None:
            return False
        if kind == "dtype_supported":
            return arg.dtype not in self.dtypes[name].get(product, ())
        if kind == "format_supported":
            return not self.params[name].tensor.accepts_format(arg.format, arg.rank)
        if kind == "rank_supported":
            rank = self.params[name].tensor.rank
            return not rank.min <= arg.rank <= rank.max
        if kind == "dtype_in":
            return arg.dtype not in check.dtypes
        if kind == "format_in":
            return arg.format not in check.formats
        if kind == "rank_in":
            return not check.rank.min <= arg.rank <= check.rank.max
        if kind == "format_not_private":
            return arg.format in self.private
        if kind == "length_in":
            return len(arg) not in check.lengths
        if kind == "dtype_castable":
            return not ex.rules_module().castable(arg.dtype, check.to)
        raise AssertionError(kind)  # pragma: no cover - the model's Literal makes this unreachable


def describe(value) -> str:
    """Compact text of a normalised argument for lint messages."""
    if isinstance(value, TensorValue):
        return f"shape={list(value.shape)}, dtype={value.dtype}, format={value.format}"
    if isinstance(value, ScalarValue):
        return f"{value.value!r} ({value.dtype})"
    if isinstance(value, tuple):
        return repr(list(value))
    return repr(value)
