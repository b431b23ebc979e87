"""The rule expression language: parsed, type-checked, rendered as Python, C++ and doc text.

Syntax is a small subset of Python expressions (parsed with :mod:`ast`, never evaluated):

* literals (int, float, true/false/True/False), list literals ``[1, 2]``, and string literals that
  are catalogue product tags (``"910b"``; compared with ``product``);
* names: operator parameters (by their doc name), loop variables, ``product`` (the product tag),
  dtype and format names (``FLOAT16``, ``NCHW``) and the constants ``INT32_MAX`` / ``INT64_MAX``;
* tensor attributes ``.shape .rank .dtype .format .numel .empty``; scalar attributes ``.value .dtype``;
* indexing ``x[i]`` (negative from the end) and slicing ``x[a:b]`` of int/bool lists;
* ``+ - * // % /``, comparisons (chained), ``in`` / ``not in``, ``and or not``, ``a if c else b``;
* null tests ``present(p)``, ``p is None``, ``p is not None`` (not a use of ``p``: see
  :func:`names_used`);
* functions (see :data:`FUNCTIONS`), e.g. ``len(x)``, ``broadcast_shape(a, b)``, ``f32(x)``;
* comprehensions ``[e for v in xs if c]`` over any list or ``range(a, b)``: a typed list;
* reductions ``all any sum prod min max`` of a list or of a generator ``f(e for v in xs if c)``
  (lazy, like Python's); ``min``/``max`` also of two numbers.

Every function's semantics is documented once, in the README's table of rule functions.
Every expression is converted into the typed node tree below; emitters walk that tree, and
:class:`Evaluator` computes it in process (lint: constant bounds, the example against its checks).
Spec text is untrusted, so a rule is bounded (:data:`MAX_LENGTH`, :data:`MAX_NODES`,
:data:`MAX_DEPTH`; literals fit int64 or are finite; quantifiers and comprehensions do not nest;
``range``/``expand`` build at most :data:`MAX_ITEMS` items) and loop variables hide no other name.
"""

from __future__ import annotations

import ast
import dataclasses
import math
import re
from dataclasses import dataclass, field
from functools import cache

from generator.diagnostics import did_you_mean

# ---------------------------------------------------------------------------------------------
# Types

INT, FLOAT, BOOL, DTYPE, FORMAT, PRODUCT = "int", "float", "bool", "dtype", "format", "product"
INTS, BOOLS, FLOATS = "int[]", "bool[]", "float[]"
TENSOR, SCALAR = "tensor", "scalar"
NUMERIC = (INT, FLOAT, BOOL)
LISTS = {INTS: INT, BOOLS: BOOL, FLOATS: FLOAT}  # the list types a parameter can have
DTYPES, FORMATS, PRODUCTS = "dtype[]", "format[]", "product[]"
# Every list type an expression can build (literals, comprehensions) -> its element type.
ELEMENTS = {**LISTS, DTYPES: DTYPE, FORMATS: FORMAT, PRODUCTS: PRODUCT}
LIST_OF = {element: list_type for list_type, element in ELEMENTS.items()}

ATTRIBUTES: dict[str, dict[str, str]] = {
    TENSOR: {"shape": INTS, "rank": INT, "dtype": DTYPE, "format": FORMAT, "numel": INT, "empty": BOOL},
    SCALAR: {"value": FLOAT, "dtype": DTYPE},
}

CONSTANTS = {"INT32_MAX": 2**31 - 1, "INT64_MAX": 2**63 - 1}


def _quote(text: str, limit: int = 40) -> str:
    """Spec text quoted for an error message (shortened; escapes keep it on one line)."""
    return repr(text if len(text) <= limit else text[:limit] + "...")


class ExprError(Exception):
    """A parse or type error at ``col`` (0-based offset into the expression text)."""

    def __init__(self, message: str, col: int = 0):
        super().__init__(message)
        self.message, self.col = message, col


# ---------------------------------------------------------------------------------------------
# Nodes


@dataclass(frozen=True)
class Node:
    type: str = field(default="", compare=False, kw_only=True)
    col: int = field(default=0, compare=False, kw_only=True)


@dataclass(frozen=True)
class Const(Node):
    value: object


@dataclass(frozen=True)
class Symbol(Node):
    """A dtype, format or named constant written as a bare identifier."""

    kind: str  # "dtype" | "format" | "const"
    name: str


@dataclass(frozen=True)
class Name(Node):
    id: str
    kind: str  # "param" | "var" | "product"


@dataclass(frozen=True)
class Attr(Node):
    obj: Node
    attr: str


@dataclass(frozen=True)
class Index(Node):
    obj: Node
    index: Node


@dataclass(frozen=True)
class Slice(Node):
    obj: Node
    lower: Node | None
    upper: Node | None


@dataclass(frozen=True)
class Unary(Node):
    op: str  # "-" | "not"
    operand: Node


@dataclass(frozen=True)
class Binary(Node):
    op: str  # + - * / // %
    left: Node
    right: Node


@dataclass(frozen=True)
class Compare(Node):
    ops: tuple[str, ...]  # == != < <= > >= in not-in
    operands: tuple[Node, ...]


@dataclass(frozen=True)
class BoolOp(Node):
    op: str  # "and" | "or"
    values: tuple[Node, ...]


@dataclass(frozen=True)
class IfExp(Node):
    test: Node
    body: Node
    orelse: Node


@dataclass(frozen=True)
class ListLit(Node):
    items: tuple[Node, ...]


@dataclass(frozen=True)
class Call(Node):
    func: str
    args: tuple[Node, ...]


@dataclass(frozen=True)
class Range(Node):
    start: Node
    stop: Node


@dataclass(frozen=True)
class Quant(Node):
    func: str  # all | any | sum
    elt: Node
    var: str
    iterable: Node


@dataclass(frozen=True)
class Comp(Node):
    """``[elt for var in iterable if cond]``: a list (type ``LIST_OF[elt.type]``). As the one argument
    of a reduction (``all any sum prod min max``) it is the generator ``f(elt for var in ...)``."""

    elt: Node
    var: str
    iterable: Node
    cond: Node | None


@dataclass(frozen=True)
class NullTest(Node):
    """``present(p)`` / ``p is not None`` (``is_null`` False) or ``p is None`` (True).

    The parameter is a plain string, not a :class:`Name`: a null test is not a use of ``p``, so a
    check that only tests ``p`` for null is not skipped when ``p`` is null (see :func:`names_used`).
    """

    param: str
    is_null: bool


@dataclass(frozen=True)
class ProductTag(Node):
    """A string literal naming a catalogue product (``"910b"``)."""

    tag: str


# Functions with a fixed signature: name -> (argument types, result type). "num" accepts int/float;
# "list" any list. Their semantics are documented once, in the README's table of rule functions,
# and implemented by generator.runtime.rules (Python) and opgen/checks.h (C++).
FUNCTIONS: dict[str, tuple[tuple[str, ...], str]] = {
    "len": (("list",), INT),
    "abs": (("num",), "num"),
    "ceil_div": ((INT, INT), INT),
    "pool_out": ((INT, INT, INT, INT, INT, BOOL), INT),
    "conv_out": ((INT, INT, INT, INT, INT), INT),
    "expand": ((INTS, INT), INTS),
    "or_default": ((INTS, INTS), INTS),
    "castable": ((DTYPE, DTYPE), BOOL),
    "promotable": ((DTYPE, DTYPE), BOOL),
    "promote": ((DTYPE, DTYPE), DTYPE),
    "is_private": ((FORMAT,), BOOL),
    "broadcast_shape": ((INTS, INTS), INTS),
    "broadcastable": ((INTS, INTS), BOOL),
    "f32": (("num",), FLOAT),
}
# Reductions of a list or of a generator (``all(e for v in xs if c)``); ``min``/``max`` also take two
# numbers. ``present`` is the null test; ``range`` only appears as what a loop iterates over.
REDUCTIONS = ("all", "any", "sum", "prod", "min", "max")
SPECIAL_FUNCTIONS = ("present", "range")


def function_names() -> list[str]:
    """Every function of the rule language (what an 'unknown function' error lists)."""
    return sorted({*FUNCTIONS, *REDUCTIONS, *SPECIAL_FUNCTIONS})


_BINOPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%"}
_CMPOPS = {
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
    ast.In: "in",
    ast.NotIn: "not in",
}


@dataclass
class Scope:
    """Names an expression may use: parameters with their expression types, and catalogues."""

    params: dict[str, str]
    dtypes: frozenset[str] = frozenset()
    formats: frozenset[str] = frozenset()
    variables: dict[str, str] = field(default_factory=dict)
    products: frozenset[str] = frozenset()  # catalogue product tags (string literals must be one)

    def with_var(self, name: str, type_: str) -> Scope:
        return Scope(self.params, self.dtypes, self.formats, {**self.variables, name: type_}, self.products)


# ---------------------------------------------------------------------------------------------
# Parsing + type checking


# Size limits: a rule is a line of a spec, not a program. The longest rule of the current specs has
# about 500 characters, 260 syntax nodes and a nesting depth of 18.
MAX_LENGTH = 2000  # characters
MAX_NODES = 1000  # Python syntax nodes
MAX_DEPTH = 64  # nesting depth of the syntax tree
MAX_ITEMS = 1 << 12  # items a rule may iterate over or build (range(), expand()); = rules.MAX_RULE_ITEMS
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1

# C++ keywords (and alternative tokens): neither a parameter nor a loop variable may be one.
CPP_KEYWORDS = frozenset(
    """alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t char16_t
    char32_t class compl concept const consteval constexpr constinit const_cast continue co_await
    co_return co_yield decltype default delete do double dynamic_cast else enum explicit export
    extern false float for friend goto if inline int long mutable namespace new noexcept not not_eq
    nullptr operator or or_eq private protected public register reinterpret_cast requires return
    short signed sizeof static static_assert static_cast struct switch template this thread_local
    throw true try typedef typeid typename union unsigned using virtual void volatile wchar_t while
    xor xor_eq""".split()
)
# Loop variables may not take these names either: the C++ rendering uses them as lambda parameters
# next to the opgen/std helpers (Python renames its locals itself, see PythonRenderer).
CPP_RESERVED = CPP_KEYWORDS | frozenset(
    """std opgen main int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t size_t
    INT64_C NULL aclTensor aclScalar aclIntArray aclBoolArray aclFloatArray aclDataType
    aclFormat""".split()
)
_ASCII_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def parse(text: str, scope: Scope, expect: str | None = BOOL) -> Node:
    """Parse and type-check ``text``; raise ExprError with a column on any problem."""
    if not isinstance(text, str) or not text.strip():
        raise ExprError("empty expression")
    text = text.strip()
    if len(text.splitlines()) > 1:
        raise ExprError("an expression must be on one line")
    if len(text) > MAX_LENGTH:
        raise ExprError(f"expression is too long ({len(text)} characters; at most {MAX_LENGTH})")
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as exc:
        import keyword

        for match in re.finditer(r"[A-Za-z_][A-Za-z0-9_]*", text):
            if match.group() in scope.params and keyword.iskeyword(match.group()):
                raise ExprError(
                    f"parameter '{match.group()}' is a Python keyword and cannot appear in a rule", match.start()
                ) from None
        raise ExprError(f"syntax error: {exc.msg}", max(0, (exc.offset or 1) - 1)) from None
    except (RecursionError, MemoryError):
        raise ExprError(f"expression is nested too deeply (at most {MAX_DEPTH} levels)") from None
    except ValueError as exc:  # e.g. a NUL character
        raise ExprError(f"syntax error: {exc}") from None
    _check_size(tree)
    node = _Builder(scope).build(tree.body)
    if expect is not None and not _assignable(node.type, expect):
        raise ExprError(f"expression has type {node.type}, expected {expect}", node.col)
    _check_literals(node)
    return node


def _check_size(tree: ast.AST) -> None:
    """Bound the syntax tree (iteratively, so a hostile expression cannot exhaust the stack)."""
    count, stack = 0, [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        count += 1
        if depth > MAX_DEPTH:
            col = getattr(node, "col_offset", 0)
            raise ExprError(f"expression is nested too deeply (at most {MAX_DEPTH} levels)", col)
        if count > MAX_NODES:
            raise ExprError(f"expression is too large (more than {MAX_NODES} syntax nodes)")
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))


def _check_literals(node: Node) -> None:
    """Every number literal (after folding a unary minus) must fit int64 / be finite."""
    for n in walk(node):
        if isinstance(n, Const) and isinstance(n.value, float) and not math.isfinite(n.value):
            raise ExprError("number literal is out of range (it would be infinite)", n.col)
        if isinstance(n, Const) and type(n.value) is int and not INT64_MIN <= n.value <= INT64_MAX:
            raise ExprError(f"integer literal {n.value} does not fit int64", n.col)


def walk(node: Node):
    """Every node of a (size-checked) tree, parents first."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        for value in vars(n).values():
            if isinstance(value, Node):
                stack.append(value)
            elif isinstance(value, tuple):
                stack.extend(item for item in value if isinstance(item, Node))


def _assignable(actual: str, expected: str) -> bool:
    if actual == expected:
        return True
    if expected == FLOAT and actual in (INT, BOOL):
        return True
    if expected == INT and actual == BOOL:
        return True
    if expected == "num" and actual in NUMERIC:
        return True
    if expected == "list" and actual in ELEMENTS:
        return True
    return False


def _numeric_result(a: str, b: str) -> str:
    return FLOAT if FLOAT in (a, b) else INT


class _Builder:
    def __init__(self, scope: Scope):
        self.scope = scope

    def build(self, n: ast.AST) -> Node:
        method = getattr(self, "_" + type(n).__name__, None)
        col = getattr(n, "col_offset", 0)
        if method is None:
            raise ExprError(f"unsupported syntax: {type(n).__name__}", col)
        return method(n, col)

    # -- leaves
    def _Constant(self, n: ast.Constant, col: int) -> Node:
        v = n.value
        if isinstance(v, bool):
            return Const(v, type=BOOL, col=col)
        if isinstance(v, int):
            return Const(v, type=INT, col=col)
        if isinstance(v, float):
            return Const(v, type=FLOAT, col=col)
        if isinstance(v, str):
            # String literals name products: product == "910b", product in ["910", "310p"].
            if v in self.scope.products:
                return ProductTag(v, type=PRODUCT, col=col)
            hint = did_you_mean(v, sorted(self.scope.products))
            raise ExprError(
                f"unsupported literal {_quote(v)}{hint}: a string literal must be a product tag of the "
                "catalogue (dtypes and formats are bare names)",
                col,
            )
        if v is None:
            raise ExprError("None may only appear in 'p is None' or 'p is not None' (or use present(p))", col)
        raise ExprError(f"unsupported literal {v!r} (use bare names for dtypes and formats)", col)

    def _Name(self, n: ast.Name, col: int) -> Node:
        ident = n.id
        if ident in self.scope.variables:
            return Name(ident, "var", type=self.scope.variables[ident], col=col)
        if ident in self.scope.params:
            return Name(ident, "param", type=self.scope.params[ident], col=col)
        if ident == "product":
            return Name(ident, "product", type=PRODUCT, col=col)
        if ident in ("true", "false"):
            return Const(ident == "true", type=BOOL, col=col)
        if ident in CONSTANTS:
            return Symbol("const", ident, type=INT, col=col)
        if ident in self.scope.dtypes:
            return Symbol("dtype", ident, type=DTYPE, col=col)
        if ident in self.scope.formats:
            return Symbol("format", ident, type=FORMAT, col=col)
        known = [*self.scope.params, *self.scope.variables, *self.scope.dtypes, *self.scope.formats, *CONSTANTS]
        raise ExprError(f"unknown name '{ident}'{did_you_mean(ident, known)}", col)

    # -- structure
    def _Attribute(self, n: ast.Attribute, col: int) -> Node:
        obj = self.build(n.value)
        attrs = ATTRIBUTES.get(obj.type)
        if attrs is None:
            raise ExprError(f"'{n.attr}': a value of type {obj.type} has no attributes", col)
        if n.attr not in attrs:
            raise ExprError(
                f"{obj.type} has no attribute '{n.attr}'{did_you_mean(n.attr, attrs)}; "
                f"known: {', '.join(sorted(attrs))}",
                col,
            )
        return Attr(obj, n.attr, type=attrs[n.attr], col=col)

    def _Subscript(self, n: ast.Subscript, col: int) -> Node:
        obj = self.build(n.value)
        if obj.type not in LISTS:
            raise ExprError(f"cannot index a value of type {obj.type}", col)
        if isinstance(n.slice, ast.Slice):
            if n.slice.step is not None:
                raise ExprError("slice steps are not supported", col)
            lower = self._int(n.slice.lower) if n.slice.lower else None
            upper = self._int(n.slice.upper) if n.slice.upper else None
            return Slice(obj, lower, upper, type=obj.type, col=col)
        return Index(obj, self._int(n.slice), type=LISTS[obj.type], col=col)

    def _int(self, n: ast.AST) -> Node:
        node = self.build(n)
        if node.type not in (INT, BOOL):
            raise ExprError(f"index must be an int, got {node.type}", node.col)
        return node

    def _UnaryOp(self, n: ast.UnaryOp, col: int) -> Node:
        operand = self.build(n.operand)
        if isinstance(n.op, ast.Not):
            self._expect(operand, BOOL, "operand of 'not'")
            return Unary("not", operand, type=BOOL, col=col)
        if isinstance(n.op, (ast.USub, ast.UAdd)):
            self._expect(operand, "num", "operand of unary minus")
            if isinstance(n.op, ast.UAdd):
                return operand
            if isinstance(operand, Const):
                return Const(-operand.value, type=operand.type, col=col)
            return Unary("-", operand, type=operand.type, col=col)
        raise ExprError("unsupported unary operator", col)

    def _BinOp(self, n: ast.BinOp, col: int) -> Node:
        op = _BINOPS.get(type(n.op))
        if op is None:
            raise ExprError(f"unsupported operator {type(n.op).__name__}", col)
        left, right = self.build(n.left), self.build(n.right)
        if op == "+" and left.type in LISTS and left.type == right.type:
            return Binary(op, left, right, type=left.type, col=col)
        self._expect(left, "num", f"left operand of '{op}'")
        self._expect(right, "num", f"right operand of '{op}'")
        if op == "/":
            result = FLOAT
        elif op in ("//", "%"):
            result = _numeric_result(left.type, right.type)
        else:
            result = _numeric_result(left.type, right.type)
        return Binary(op, left, right, type=result, col=col)

    def _BoolOp(self, n: ast.BoolOp, col: int) -> Node:
        values = tuple(self.build(v) for v in n.values)
        for v in values:
            self._expect(v, BOOL, "operand of and/or")
        return BoolOp("and" if isinstance(n.op, ast.And) else "or", values, type=BOOL, col=col)

    def _Compare(self, n: ast.Compare, col: int) -> Node:
        if any(isinstance(op, (ast.Is, ast.IsNot)) for op in n.ops):
            return self._null_test(n, col)
        operands = (self.build(n.left), *(self.build(c) for c in n.comparators))
        ops = []
        for i, op_node in enumerate(n.ops):
            op = _CMPOPS.get(type(op_node))
            if op is None:
                raise ExprError(f"unsupported comparison {type(op_node).__name__}", col)
            left, right = operands[i], operands[i + 1]
            if op in ("in", "not in"):
                if right.type not in ELEMENTS:
                    raise ExprError(f"right side of '{op}' must be a list, got {right.type}", right.col)
                element = ELEMENTS[right.type]
                if not (_comparable(left.type, element)):
                    raise ExprError(f"cannot test a {left.type} for membership in a list of {element}", col)
            elif op in ("==", "!="):
                if not _comparable(left.type, right.type):
                    raise ExprError(f"cannot compare {left.type} with {right.type}", col)
            else:
                for side in (left, right):
                    self._expect(side, "num", f"operand of '{op}'")
            ops.append(op)
        return Compare(tuple(ops), operands, type=BOOL, col=col)

    def _null_test(self, n: ast.Compare, col: int) -> Node:
        """``p is None`` / ``p is not None``: one comparison of a parameter with None."""
        if len(n.ops) != 1:
            raise ExprError("'is' / 'is not' cannot be chained; write 'p is None' or 'p is not None'", col)
        right = n.comparators[0]
        if not (isinstance(right, ast.Constant) and right.value is None):
            raise ExprError("'is' / 'is not' only compare a parameter with None", right.col_offset)
        return self._nullable(n.left, isinstance(n.ops[0], ast.Is), col)

    def _nullable(self, operand: ast.AST, is_null: bool, col: int) -> Node:
        what = "p is None" if is_null else "present(p)"
        if not isinstance(operand, ast.Name):
            raise ExprError(f"{what}: p must be a parameter name", operand.col_offset)
        name = operand.id
        if name in self.scope.variables or name not in self.scope.params:
            known = list(self.scope.params)
            raise ExprError(f"{what}: '{name}' is not a parameter{did_you_mean(name, known)}", operand.col_offset)
        kind = self.scope.params[name]
        if kind not in (TENSOR, SCALAR, *LISTS):
            raise ExprError(f"'{name}' is a plain C value ({kind}); it is never null", operand.col_offset)
        return NullTest(name, is_null, type=BOOL, col=col)

    def _IfExp(self, n: ast.IfExp, col: int) -> Node:
        test = self.build(n.test)
        self._expect(test, BOOL, "condition")
        body, orelse = self.build(n.body), self.build(n.orelse)
        if body.type == orelse.type:
            result = body.type
        elif body.type in NUMERIC and orelse.type in NUMERIC:
            result = _numeric_result(body.type, orelse.type)
        else:
            raise ExprError(f"branches have different types ({body.type}, {orelse.type})", col)
        return IfExp(test, body, orelse, type=result, col=col)

    def _List(self, n: ast.List, col: int) -> Node:
        items = tuple(self.build(e) for e in n.elts)
        types = {i.type for i in items}
        if not items:
            return ListLit((), type=INTS, col=col)
        if types <= {INT, BOOL} and INT in types or types == {INT}:
            list_type = INTS
        elif types == {BOOL}:
            list_type = BOOLS
        elif types <= {INT, FLOAT, BOOL}:
            list_type = FLOATS
        elif len(types) == 1 and types <= {DTYPE, FORMAT, PRODUCT}:
            list_type = types.pop() + "[]"
        else:
            raise ExprError(f"list items must share one type, got {', '.join(sorted(types))}", col)
        return ListLit(items, type=list_type, col=col)

    _Tuple = _List

    def _Call(self, n: ast.Call, col: int) -> Node:
        if not isinstance(n.func, ast.Name):
            raise ExprError("only plain function calls are supported", col)
        name = n.func.id
        if n.keywords:
            raise ExprError(f"{name}(): keyword arguments are not supported", col)
        if name in REDUCTIONS:
            return self._reduction(name, n, col)
        if name == "present":
            if len(n.args) != 1:
                raise ExprError("present() takes one parameter name", col)
            return self._nullable(n.args[0], False, col)
        if name == "range":
            raise ExprError("range() may only appear as what a comprehension or all/any/sum iterates over", col)
        if name not in FUNCTIONS:
            names = function_names()
            raise ExprError(f"unknown function '{name}'{did_you_mean(name, names)}; functions: {', '.join(names)}", col)
        params, result = FUNCTIONS[name]
        args = tuple(self.build(a) for a in n.args)
        if len(args) != len(params):
            raise ExprError(f"{name}() takes {len(params)} argument(s), got {len(args)}", col)
        for i, (arg, expected) in enumerate(zip(args, params)):
            if not _assignable(arg.type, expected):
                raise ExprError(f"{name}() argument {i + 1} must be {expected}, got {arg.type}", arg.col)
        if result == "num":
            result = FLOAT if any(a.type == FLOAT for a in args) else INT
        if name == "expand":
            count = constant(args[1])
            if count is not None and count > MAX_ITEMS:
                raise ExprError(f"expand() may build more than {MAX_ITEMS} items", args[1].col)
        return Call(name, args, type=result, col=col)

    def _reduction(self, func: str, n: ast.Call, col: int) -> Node:
        """``all any sum prod min max`` of one list or generator; ``min``/``max`` of two numbers too."""
        if func in ("min", "max") and len(n.args) == 2:
            args = tuple(self.build(a) for a in n.args)
            for i, arg in enumerate(args):
                if not _assignable(arg.type, "num"):
                    raise ExprError(f"{func}() argument {i + 1} must be num, got {arg.type}", arg.col)
            return Call(func, args, type=_numeric_result(args[0].type, args[1].type), col=col)
        if len(n.args) != 1:
            forms = "one list or generator, or two numbers" if func in ("min", "max") else "one list or generator"
            raise ExprError(f"{func}() takes {forms}", col)
        arg = n.args[0]
        if isinstance(arg, ast.GeneratorExp):
            elt, var, iterable, cond = self._comprehension(func, arg, col)
            # The original quantifier form (its renderings unchanged) for what it always did: no
            # filter, over ints or bools, and (sum) int items. Everything else is a reduction of a
            # comprehension (float sums through rt.float_sum, items of any type in C++).
            plain = cond is None and iterable.type in ("range", INTS, BOOLS)
            if func in ("all", "any", "sum") and plain and not (func == "sum" and elt.type == FLOAT):
                self._reduced(func, elt.type, elt.col)
                result = BOOL if func != "sum" else (INT if elt.type == BOOL else elt.type)
                return Quant(func, elt, var, iterable, type=result, col=col)
            node = Comp(elt, var, iterable, cond, type=self._list_of(elt), col=elt.col)
        else:
            node = self.build(arg)
            if node.type not in ELEMENTS:
                raise ExprError(f"{func}() needs a list or a generator, got {node.type}", node.col)
        element = ELEMENTS[node.type]
        return Call(func, (node,), type=self._reduced(func, element, node.col), col=col)

    def _reduced(self, func: str, element: str, col: int) -> str:
        """The type of ``func`` over a list of ``element`` (an error where it does not apply)."""
        if func in ("all", "any"):
            if element != BOOL:
                raise ExprError(f"{func}() needs bool items, got {element}", col)
            return BOOL
        if element not in NUMERIC:
            raise ExprError(f"{func}() needs numeric items, got {element}", col)
        if func in ("sum", "prod"):
            return FLOAT if element == FLOAT else INT
        return element

    def _list_of(self, elt: Node) -> str:
        if elt.type not in LIST_OF:
            raise ExprError(
                f"a comprehension builds a list of numbers, bools, dtypes, formats or products, not {elt.type}", elt.col
            )
        return LIST_OF[elt.type]

    def _ListComp(self, n: ast.ListComp, col: int) -> Node:
        elt, var, iterable, cond = self._comprehension("list comprehension", n, col)
        return Comp(elt, var, iterable, cond, type=self._list_of(elt), col=col)

    def _GeneratorExp(self, n: ast.GeneratorExp, col: int) -> Node:
        raise ExprError(
            f"a generator may only be the argument of {', '.join(REDUCTIONS)}; write [e for v in xs] for a list", col
        )

    def _comprehension(self, what: str, gen: ast.GeneratorExp | ast.ListComp, col: int):
        """(elt, var, iterable, cond) of ``e for v in xs [if c]``, type-checked with ``v`` in scope."""
        if len(gen.generators) != 1:
            raise ExprError(f"{what}: only one 'for' clause is supported", col)
        comp = gen.generators[0]
        if comp.is_async or not isinstance(comp.target, ast.Name):
            raise ExprError(f"{what}: use the form 'expr for name in list [if condition]'", col)
        if len(comp.ifs) > 1:
            raise ExprError(f"{what}: use one 'if' (join conditions with 'and')", comp.ifs[1].col_offset)
        var = comp.target.id
        if self.scope.variables:
            # One level only: nested loops multiply the work a validator may be asked to do.
            raise ExprError(f"{what}: quantifiers and comprehensions cannot be nested", col)
        self._check_var(var, comp.target.col_offset)
        iterable = self._iterable(comp.iter)
        element = INT if isinstance(iterable, Range) else ELEMENTS[iterable.type]
        inner = _Builder(self.scope.with_var(var, element))
        elt = inner.build(gen.elt)
        cond = None
        if comp.ifs:
            cond = inner.build(comp.ifs[0])
            inner._expect(cond, BOOL, f"{what}: the 'if' condition")
        return elt, var, iterable, cond

    def _check_var(self, var: str, col: int) -> None:
        """A loop variable must be a fresh ASCII name that hides nothing and every target accepts."""
        scope = self.scope
        if not _ASCII_NAME.match(var):
            raise ExprError(f"loop variable '{var}' must be an ASCII name", col)
        what = None
        if var in scope.params:
            what = "a parameter"
        elif var in scope.variables:
            what = "an enclosing loop variable"
        elif var in scope.dtypes or var in scope.formats or var in CONSTANTS:
            what = "a dtype, format or constant name"
        elif var in ("product", "true", "false"):
            what = "a name of the rule language"
        elif var in function_names():
            what = "a function of the rule language"
        elif var in CPP_RESERVED:
            what = "a C++ keyword or a name the C++ checks use"
        if what is not None:
            raise ExprError(f"loop variable '{var}' shadows {what}; choose another name", col)

    def _iterable(self, n: ast.AST) -> Node:
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "range":
            if n.keywords:
                raise ExprError("range(): keyword arguments are not supported", n.col_offset)
            args = [self._int(a) for a in n.args]
            if len(args) == 1:
                node = Range(Const(0, type=INT), args[0], type="range", col=n.col_offset)
            elif len(args) == 2:
                node = Range(args[0], args[1], type="range", col=n.col_offset)
            else:
                raise ExprError("range() takes one or two arguments", n.col_offset)
            lo, hi = constant(node.start), constant(node.stop)
            if (hi is not None and (hi - (lo if lo is not None else 0) > MAX_ITEMS)) or (
                lo is not None and hi is None and lo < -MAX_ITEMS
            ):
                raise ExprError(
                    f"range() may span more than {MAX_ITEMS} items; rules iterate over short lists", n.col_offset
                )
            return node
        node = self.build(n)
        if node.type not in ELEMENTS:
            raise ExprError(f"cannot iterate over a value of type {node.type}", node.col)
        return node

    def _expect(self, node: Node, expected: str, what: str) -> None:
        if not _assignable(node.type, expected):
            raise ExprError(f"{what} must be {expected}, got {node.type}", node.col)


def _comparable(a: str, b: str) -> bool:
    if a == b:
        return True
    if a in NUMERIC and b in NUMERIC:
        return True
    if a in LISTS and b in LISTS:  # lists of numbers compare item by item
        return True
    return False


def names_used(node: Node) -> set[str]:
    """Parameters an expression reads. A check that uses a nullable parameter is skipped when that
    parameter is null (emitters and lint guard it); a parameter that is only tested for null
    (``present(p)``, ``p is None``: see :func:`names_tested`) is not a use."""
    return {n.id for n in walk(node) if isinstance(n, Name) and n.kind == "param"}


def names_tested(node: Node) -> set[str]:
    """Parameters an expression tests for null (``present(p)``, ``p is None``, ``p is not None``)."""
    return {n.param for n in walk(node) if isinstance(n, NullTest)}


def names_mentioned(node: Node) -> set[str]:
    """Every parameter an expression names: used or tested for null."""
    return names_used(node) | names_tested(node)


# ---------------------------------------------------------------------------------------------
# Rendering

_PREC = {"or": 1, "and": 2, "not": 3, "cmp": 4, "+": 5, "-": 5, "*": 6, "/": 6, "//": 6, "%": 6, "neg": 7}


class PythonRenderer:
    """Render as a Python expression over the validator's locals.

    ``names`` maps parameter names to local variable names. Tensors are ``TensorDesc`` objects
    (``.shape`` tuple, ``.dtype``/``.format`` names), scalars ``Scalar``, lists tuples; helper
    functions come from the runtime module imported as ``rt``.
    """

    def __init__(self, names: dict[str, str], runtime: str = "rt", taken=frozenset(), shadowed=frozenset()):
        self.names, self.rt, self.shadowed = names, runtime, frozenset(shadowed)
        # Loop variables are renamed (a trailing "_" at a time) away from every name the
        # surrounding code may use: parameter locals, the runtime module, ``taken``, builtins and
        # keywords, and the variables of enclosing quantifiers.
        self.taken = set(taken) | set(names.values()) | {runtime, "product"}
        self.vars: dict[str, str] = {}

    def render(self, n: Node, parent: int = 0) -> str:
        return getattr(self, "r_" + type(n).__name__)(n, parent)

    def r_Const(self, n: Const, parent: int) -> str:
        return repr(n.value)

    def r_Symbol(self, n: Symbol, parent: int) -> str:
        return str(CONSTANTS[n.name]) if n.kind == "const" else f'"{n.name}"'

    def r_Name(self, n: Name, parent: int) -> str:
        if n.kind == "param":
            return self.names[n.id]
        if n.kind == "var":
            return self.vars.get(n.id, n.id)
        return "product"

    def r_Attr(self, n: Attr, parent: int) -> str:
        return f"{self.render(n.obj, 9)}.{n.attr}"

    def r_Index(self, n: Index, parent: int) -> str:
        return f"{self.render(n.obj, 9)}[{self.render(n.index)}]"

    def r_Slice(self, n: Slice, parent: int) -> str:
        lower = self.render(n.lower) if n.lower else ""
        upper = self.render(n.upper) if n.upper else ""
        return f"{self.render(n.obj, 9)}[{lower}:{upper}]"

    def r_Unary(self, n: Unary, parent: int) -> str:
        if n.op == "not":
            return _wrap(f"not {self.render(n.operand, 3)}", 3, parent)
        return _wrap(f"-{self.render(n.operand, 7)}", 7, parent)

    def r_Binary(self, n: Binary, parent: int) -> str:
        prec = _PREC[n.op]
        return _wrap(f"{self.render(n.left, prec)} {n.op} {self.render(n.right, prec + 1)}", prec, parent)

    def r_Compare(self, n: Compare, parent: int) -> str:
        parts = [self.render(n.operands[0], 5)]
        for op, right in zip(n.ops, n.operands[1:]):
            parts += [op, self.render(right, 5)]
        return _wrap(" ".join(parts), 4, parent)

    def r_BoolOp(self, n: BoolOp, parent: int) -> str:
        prec = _PREC[n.op]
        return _wrap(f" {n.op} ".join(self.render(v, prec + 1) for v in n.values), prec, parent)

    def r_IfExp(self, n: IfExp, parent: int) -> str:
        text = f"{self.render(n.body, 1)} if {self.render(n.test, 1)} else {self.render(n.orelse, 1)}"
        return _wrap(text, 0, parent)

    def r_ListLit(self, n: ListLit, parent: int) -> str:
        items = ", ".join(self.render(i) for i in n.items)
        return f"({items},)" if len(n.items) == 1 else f"({items})"

    def r_Call(self, n: Call, parent: int) -> str:
        if n.func in REDUCTIONS and len(n.args) == 1 and isinstance(n.args[0], Comp):  # a reduction of a generator
            args = self._generator(n.args[0])
        else:
            args = ", ".join(self.render(a) for a in n.args)
        if n.func == "sum" and n.type == FLOAT:
            return f"{self.rt}.float_sum({args})"  # the same additions on every Python version
        if n.func in ("len", "abs", "min", "max", "all", "any", "sum"):
            return f"{self._builtin(n.func)}({args})"
        return f"{self.rt}.{n.func}({args})"

    def r_Comp(self, n: Comp, parent: int) -> str:
        return f"{self._builtin('tuple')}({self._generator(n)})"

    def _generator(self, n: Comp) -> str:
        """``elt for var in iterable [if cond]``, the loop variable renamed like a quantifier's."""
        iterable = self.render(n.iterable, 1)
        var = _fresh(n.var, self.taken | set(self.vars.values()))
        outer = self.vars.get(n.var)
        self.vars[n.var] = var
        try:
            text = f"{self.render(n.elt, 1)} for {var} in {iterable}"
            if n.cond is not None:
                text += f" if {self.render(n.cond, 1)}"
        finally:
            if outer is None:
                del self.vars[n.var]
            else:
                self.vars[n.var] = outer
        return text

    def r_NullTest(self, n: NullTest, parent: int) -> str:
        return _wrap(f"{self.names[n.param]} is {'None' if n.is_null else 'not None'}", 4, parent)

    def r_ProductTag(self, n: ProductTag, parent: int) -> str:
        from generator.escape.python import pyrepr

        return pyrepr(n.tag)

    def _builtin(self, name: str) -> str:
        """A builtin, through the ``builtins`` module where the module hides it (``shadowed``)."""
        return f"builtins.{name}" if name in self.shadowed else name

    def _bound_test(self, n: Quant) -> str | None:
        """``all(v >= 1 for v in xs)`` as ``min(xs, default=1) >= 1``, ``all(v != 0 ...)`` as
        ``0 not in xs`` and the like (the same verdict on ints, without a Python-level loop);
        None for any other quantifier. Its precedence is a comparison's."""
        parts = _bound_parts(n)
        if parts is None:
            return None
        op, c = parts
        xs = self.render(n.iterable, 5)
        if op in ("==", "!="):
            if (n.func, op) == ("all", "!=") or (n.func, op) == ("any", "=="):
                return f"{c} {'not in' if n.func == 'all' else 'in'} {xs}"
            return None
        func, shift = (_ALL_BOUNDS if n.func == "all" else _ANY_BOUNDS)[op]
        return f"{self._builtin(func)}({self.render(n.iterable)}, default={c + shift}) {op} {c}"

    def r_Range(self, n: Range, parent: int) -> str:
        if is_small(n.start) and is_small(n.stop):
            return _range_text(self, n)
        # A bound read from the arguments (say a shape entry): the runtime refuses a long range.
        return f"{self.rt}.bounded_range({self.render(n.start)}, {self.render(n.stop)})"

    def r_Quant(self, n: Quant, parent: int) -> str:
        bound = self._bound_test(n)
        if bound is not None:
            return _wrap(bound, 4, parent)
        iterable = self.render(n.iterable, 1)  # a conditional expression needs parentheses there
        var = _fresh(n.var, self.taken | set(self.vars.values()))
        outer = self.vars.get(n.var)
        self.vars[n.var] = var
        try:
            elt = self.render(n.elt)
        finally:
            if outer is None:
                del self.vars[n.var]
            else:
                self.vars[n.var] = outer
        return f"{self._builtin(n.func)}({elt} for {var} in {iterable})"


# all/any of ``v OP c`` over a list of ints, as one builtin call instead of a generator (validators
# run these at every call): op -> (builtin, default - c, the test on its result).
_ALL_BOUNDS = {">=": ("min", 0), ">": ("min", 1), "<=": ("max", 0), "<": ("max", -1)}
_ANY_BOUNDS = {">=": ("max", -1), ">": ("max", 0), "<=": ("min", 1), "<": ("min", 0)}


def _bound_parts(n: Quant):
    """(op, c) when ``n`` is ``all``/``any`` of ``v OP c`` over an int list (``c`` an int literal)."""
    elt = n.elt
    if n.func not in ("all", "any") or n.iterable.type != INTS or not isinstance(elt, Compare):
        return None
    if len(elt.ops) != 1:
        return None
    left, right = elt.operands
    if not (isinstance(left, Name) and left.kind == "var" and left.id == n.var):
        return None
    if not (isinstance(right, Const) and type(right.value) is int):
        return None
    return elt.ops[0], right.value


_NEGATED_OPS = {"<": ">=", "<=": ">", ">": "<=", ">=": "<", "==": "!=", "!=": "=="}


def negated_quantifier(n: Node) -> Quant | None:
    """``not all(v OP c for v in xs)`` as ``any(v NOT-OP c for v in xs)`` (and ``any`` as ``all``) for an
    int list, the quantifiers that render as one builtin call (on ints each comparison's negation is
    its opposite); None for any other node."""
    if not isinstance(n, Quant) or _bound_parts(n) is None:
        return None
    elt = n.elt
    negated = dataclasses.replace(elt, ops=(_NEGATED_OPS[elt.ops[0]],))
    return dataclasses.replace(n, func="any" if n.func == "all" else "all", elt=negated)


def _range_text(renderer: PythonRenderer, n: Range) -> str:
    name = renderer._builtin("range")
    if isinstance(n.start, Const) and n.start.value == 0:
        return f"{name}({renderer.render(n.stop)})"
    return f"{name}({renderer.render(n.start)}, {renderer.render(n.stop)})"


def is_small(n: Node) -> bool:
    """True when an int expression is bounded by the size of the arguments or by a small constant
    (a length, a rank, a literal up to MAX_ITEMS; min, max, if, + and - of such): a range up to it
    costs no more than the arguments themselves, so it needs no run-time bound."""
    if isinstance(n, Const):
        return isinstance(n.value, int) and abs(n.value) <= MAX_ITEMS
    if isinstance(n, Call) and n.func == "len":
        return True
    if isinstance(n, Attr) and n.attr == "rank":
        return True
    if isinstance(n, Call) and n.func in ("min", "max"):
        return all(is_small(a) for a in n.args)
    if isinstance(n, IfExp):
        return is_small(n.body) and is_small(n.orelse)
    if isinstance(n, Binary) and n.op in ("+", "-"):
        return is_small(n.left) and is_small(n.right)
    if isinstance(n, Unary) and n.op == "-":
        return is_small(n.operand)
    return False


def _fresh(name: str, taken) -> str:
    """``name`` or ``name_``, ``name__``, ... avoiding ``taken``, Python keywords and builtins."""
    import builtins
    import keyword

    while name in taken or keyword.iskeyword(name) or hasattr(builtins, name):
        name += "_"
    return name


def _wrap(text: str, prec: int, parent: int) -> str:
    return f"({text})" if prec < parent else text


# C++ item types of the expression types a list can hold, and the helpers of the reductions
# (opgen/rule_functions.h).
_C_ELEMENT = {
    INT: "int64_t",
    BOOL: "bool",
    FLOAT: "double",
    DTYPE: "aclDataType",
    FORMAT: "aclFormat",
    PRODUCT: "std::string",
}
_C_REDUCTIONS = {"all": "AllOf", "any": "AnyOf", "sum": "SumOf", "prod": "ProdOf", "min": "MinOf", "max": "MaxOf"}


class CRenderer(PythonRenderer):
    """Render as a C++17 expression for the host runtime's CheckParams units (``opgen/checks.h``).

    The result has the semantics of the Python rendering: integer arithmetic is checked (``opgen::Add``,
    ``Sub``, ``Mul``, ``Neg`` throw instead of overflowing), ``//`` and ``%`` floor, ``/`` divides as
    floats, indices may be negative, and every error Python raises while evaluating (index out of range,
    division by zero, no promotion) is an ``opgen::EvaluationError`` with Python's message.
    ``names`` maps parameters to their C++ names (default: the doc names); loop variables become
    ``<var_prefix><name>``. Dtype and format names are data (``opgen::DtypeNamed("FLOAT16")``): no
    catalogue text becomes an identifier.
    """

    def __init__(self, param_types: dict[str, str], names: dict[str, str] | None = None, var_prefix: str = "q_"):
        super().__init__(dict(names) if names is not None else {p: p for p in param_types})
        self.param_types, self.var_prefix = param_types, var_prefix

    def r_Const(self, n: Const, parent: int) -> str:
        if isinstance(n.value, bool):
            return "true" if n.value else "false"
        if isinstance(n.value, int):
            if not -(2**63) <= n.value < 2**63:
                raise ValueError(f"the integer {n.value} does not fit int64_t")
            if n.value == -(2**63):
                return "(-INT64_C(9223372036854775807) - 1)"
            return f"INT64_C({n.value})" if abs(n.value) > 2**31 - 1 else str(n.value)
        value = float(n.value)
        if value != value:
            return "std::numeric_limits<double>::quiet_NaN()"
        if value in (float("inf"), float("-inf")):
            return ("" if value > 0 else "-") + "std::numeric_limits<double>::infinity()"
        return repr(value)

    def r_Symbol(self, n: Symbol, parent: int) -> str:
        from generator.escape.cpp import string_literal

        if n.kind == "const":
            return {"INT32_MAX": "INT32_MAX", "INT64_MAX": "INT64_MAX"}[n.name]
        return f"opgen::{'DtypeNamed' if n.kind == 'dtype' else 'FormatNamed'}({string_literal(n.name)})"

    def r_Name(self, n: Name, parent: int) -> str:
        if n.kind == "param":
            name = self.names.get(n.id, n.id)
            if self.param_types.get(n.id) == "uint64_t":  # rules compute in int64 (no unsigned mixing)
                return f"static_cast<int64_t>({name})"
            return {INTS: f"opgen::Ints({name})", BOOLS: f"opgen::Bools({name})", FLOATS: f"opgen::Floats({name})"}.get(
                n.type, name
            )
        return "opgen::CurrentProduct()" if n.kind == "product" else self.var_prefix + n.id

    def r_Attr(self, n: Attr, parent: int) -> str:
        accessor = {
            "shape": "Shape",
            "rank": "Rank",
            "dtype": "DataType",
            "format": "Format",
            "numel": "Numel",
            "empty": "IsEmpty",
            "value": "ScalarValue",
        }[n.attr]
        return f"opgen::{accessor}({self.render(n.obj)})"

    def r_Index(self, n: Index, parent: int) -> str:
        return f"opgen::At({self.render(n.obj)}, {self.render(n.index)})"

    def r_Slice(self, n: Slice, parent: int) -> str:
        lower = self.render(n.lower) if n.lower else "0"
        upper = self.render(n.upper) if n.upper else "INT64_MAX"
        return f"opgen::SliceOf({self.render(n.obj)}, {lower}, {upper})"

    def r_Unary(self, n: Unary, parent: int) -> str:
        if n.op == "not":
            return _wrap(f"!{self.render(n.operand, 7)}", 7, parent)
        if n.type == FLOAT:
            return _wrap(f"-{self.render(n.operand, 7)}", 7, parent)
        return f"opgen::Neg({self.render(n.operand)})"

    def r_Binary(self, n: Binary, parent: int) -> str:
        left, right = self.render(n.left), self.render(n.right)
        if n.op == "+" and n.type in LISTS:
            return f"opgen::Concat({left}, {right})"
        helper = {"//": "FloorDiv", "%": "FloorMod", "/": "TrueDiv"}.get(n.op)
        if helper is None and n.type != FLOAT:
            helper = {"+": "Add", "-": "Sub", "*": "Mul"}[n.op]
        if helper is not None:
            return f"opgen::{helper}({left}, {right})"
        prec = _PREC[n.op]
        text = f"{self.render(n.left, prec)} {n.op} {self.render(n.right, prec + 1)}"
        return _wrap(text, prec, parent)

    def r_Compare(self, n: Compare, parent: int) -> str:
        terms = []
        for op, left, right in zip(n.ops, n.operands, n.operands[1:]):
            if op in ("in", "not in"):
                term = f"opgen::Contains({self.render(right)}, {self.render(left)})"
                terms.append(f"!{term}" if op == "not in" else term)
            elif op in ("==", "!=") and left.type in LISTS and right.type in LISTS:
                term = f"opgen::ListEq({self.render(left)}, {self.render(right)})"
                terms.append(f"!{term}" if op == "!=" else term)
            else:
                terms.append(f"{self.render(left, 5)} {op} {self.render(right, 5)}")
        text = " && ".join(terms)
        return _wrap(text, 4 if len(terms) == 1 else 2, parent)

    def r_BoolOp(self, n: BoolOp, parent: int) -> str:
        op, prec = ("&&", 2) if n.op == "and" else ("||", 1)
        # Operands bind tighter than either operator, so '&&' inside '||' is parenthesised (-Wparentheses).
        return _wrap(f" {op} ".join(self.render(v, 3) for v in n.values), prec, parent)

    def r_IfExp(self, n: IfExp, parent: int) -> str:
        return f"({self.render(n.test, 1)} ? {self.render(n.body, 1)} : {self.render(n.orelse, 1)})"

    def r_ListLit(self, n: ListLit, parent: int) -> str:
        element = {INTS: "int64_t", BOOLS: "bool", FLOATS: "double", "dtype[]": "aclDataType", "format[]": "aclFormat"}
        items = ", ".join(self.render(i) for i in n.items)
        return f"std::vector<{element.get(n.type, 'std::string')}>{{{items}}}"

    def r_Call(self, n: Call, parent: int) -> str:
        reduction = _C_REDUCTIONS.get(n.func) if len(n.args) == 1 else None
        if reduction is not None and not (
            n.func == "prod" and n.args[0].type == INTS and not isinstance(n.args[0], Comp)
        ):
            arg = n.args[0]
            if isinstance(arg, Comp) and n.func in ("all", "any"):
                # Lazy like Python's all()/any() of a generator: items after the deciding one are not
                # evaluated (so they cannot fail the rule).
                lambdas = [self._c_lambda(arg, part) for part in (arg.cond, arg.elt) if part is not None]
                return f"opgen::{reduction}({self.render(arg.iterable)}, {', '.join(lambdas)})"
            return f"opgen::{reduction}({self.render(arg)})"
        args = ", ".join(self.render(a) for a in n.args)
        name = "".join(part.capitalize() for part in n.func.split("_"))
        return f"opgen::{name}({args})"

    def r_Comp(self, n: Comp, parent: int) -> str:
        result = _C_ELEMENT[n.elt.type]
        if n.cond is None:
            return f"opgen::MapList<{result}>({self.render(n.iterable)}, {self._c_lambda(n, n.elt)})"
        cond, elt = self._c_lambda(n, n.cond), self._c_lambda(n, n.elt)
        return f"opgen::FilterMap<{result}>({self.render(n.iterable)}, {cond}, {elt})"

    def _c_lambda(self, n: Comp, body: Node) -> str:
        """``[&](T v) { return body; }`` over the items of ``n.iterable`` (C++11: explicit item type)."""
        element = _C_ELEMENT[INT if n.iterable.type == "range" else ELEMENTS[n.iterable.type]]
        var = getattr(self, "var_prefix", "") + n.var  # the name r_Name gives the loop variable
        used = any(isinstance(x, Name) and x.kind == "var" and x.id == n.var for x in walk(body))
        parameter = f"{element} {var}" if used else element  # unnamed: no unused-parameter warning
        return f"[&]({parameter}) {{ return {self.render(body)}; }}"

    def r_NullTest(self, n: NullTest, parent: int) -> str:
        name = self.names.get(n.param, n.param)
        return _wrap(f"{name} {'==' if n.is_null else '!='} nullptr", 4, parent)

    def r_ProductTag(self, n: ProductTag, parent: int) -> str:
        # Catalogue tags are a closed pattern (model.ProductTag); check again before it becomes code.
        if not re.fullmatch(r"[0-9a-z_]{1,32}", n.tag):
            raise ValueError(f"not a product tag: {n.tag!r}")
        return f'std::string("{n.tag}")'

    def r_Range(self, n: Range, parent: int) -> str:
        return f"opgen::Range({self.render(n.start)}, {self.render(n.stop)})"

    def r_Quant(self, n: Quant, parent: int) -> str:
        element = {"range": "int64_t", INTS: "int64_t", BOOLS: "bool", FLOATS: "double"}[n.iterable.type]
        func = {"all": "All", "any": "Any", "sum": "Sum"}[n.func]
        lam = f"[&]({element} {self.var_prefix}{n.var}) {{ return {self.render(n.elt)}; }}"
        return f"opgen::{func}({self.render(n.iterable)}, {lam})"


class DocRenderer(PythonRenderer):
    """Render as compact, language-neutral math-like text for the docs (inside backticks)."""

    def __init__(self):
        super().__init__({})

    def r_Symbol(self, n: Symbol, parent: int) -> str:
        return n.name

    def r_Name(self, n: Name, parent: int) -> str:
        return n.id

    def r_ListLit(self, n: ListLit, parent: int) -> str:
        return "[" + ", ".join(self.render(i) for i in n.items) + "]"

    def r_Attr(self, n: Attr, parent: int) -> str:
        return f"{self.render(n.obj, 9)}.{n.attr}"

    def r_Call(self, n: Call, parent: int) -> str:
        if n.func in REDUCTIONS and len(n.args) == 1 and isinstance(n.args[0], Comp):
            return f"{n.func}({self._generator(n.args[0])})"
        return f"{n.func}({', '.join(self.render(a) for a in n.args)})"

    def r_Range(self, n: Range, parent: int) -> str:
        return _range_text(self, n)

    def r_Quant(self, n: Quant, parent: int) -> str:
        return f"{n.func}({self.render(n.elt)} for {n.var} in {self.render(n.iterable, 1)})"

    def r_Comp(self, n: Comp, parent: int) -> str:
        return f"[{self._generator(n)}]"

    def _generator(self, n: Comp) -> str:
        text = f"{self.render(n.elt, 1)} for {n.var} in {self.render(n.iterable, 1)}"
        return text if n.cond is None else f"{text} if {self.render(n.cond, 1)}"

    def r_NullTest(self, n: NullTest, parent: int) -> str:
        return _wrap(f"{n.param} is {'null' if n.is_null else 'not null'}", 4, parent)


def to_python(node: Node, names: dict[str, str], runtime: str = "rt", taken=frozenset(), shadowed=frozenset()) -> str:
    """Python source of ``node``: parameters as ``names[param]``, helpers as ``runtime.f``; loop
    variables renamed away from ``taken`` (and every other name in reach); builtins in ``shadowed``
    reached as ``builtins.<name>``."""
    return PythonRenderer(names, runtime, taken, shadowed).render(node)


def to_c(node: Node, param_types: dict[str, str], names: dict[str, str] | None = None) -> str:
    return CRenderer(param_types, names).render(node)


def to_doc(node: Node) -> str:
    return DocRenderer().render(node)


# ---------------------------------------------------------------------------------------------
# Evaluation (lint: constant folding, and the spec's example against its own checks)


class NotConstant(Exception):
    """Raised by :func:`constant` machinery when an expression reads an argument."""


class Evaluator:
    """Evaluate a checked node on concrete values, with the generated Python validator's semantics.

    ``params`` maps parameter names to what the validator sees after normalisation: objects with
    the tensor attributes (``shape`` tuple, ``rank``, ``dtype`` and ``format`` names, ``numel``,
    ``empty``) or scalar attributes (``value``, ``dtype``), tuples for arrays, plain values, None.
    ``params=None`` folds constants (a parameter or ``product`` raises :class:`NotConstant`).
    Errors are those the validator would meet (``generator.runtime.errors.EVALUATION_ERRORS``).
    """

    def __init__(self, params: dict | None = None, product: str | None = None, private=frozenset()):
        self.params, self.product, self.private = params, product, frozenset(private)
        self.vars: dict[str, object] = {}

    def eval(self, n: Node):
        return getattr(self, "e_" + type(n).__name__)(n)

    def e_Const(self, n: Const):
        return n.value

    def e_Symbol(self, n: Symbol):
        return CONSTANTS[n.name] if n.kind == "const" else n.name

    def e_Name(self, n: Name):
        if n.kind == "var":
            return self.vars[n.id]
        if self.params is None:
            raise NotConstant(n.id)
        return self.params[n.id] if n.kind == "param" else self.product

    def e_Attr(self, n: Attr):
        return getattr(self.eval(n.obj), n.attr)

    def e_Index(self, n: Index):
        return self.eval(n.obj)[self.eval(n.index)]

    def e_Slice(self, n: Slice):
        lower = self.eval(n.lower) if n.lower else None
        upper = self.eval(n.upper) if n.upper else None
        return self.eval(n.obj)[lower:upper]

    def e_Unary(self, n: Unary):
        value = self.eval(n.operand)
        return (not value) if n.op == "not" else -value

    def e_Binary(self, n: Binary):
        a, b = self.eval(n.left), self.eval(n.right)
        op = n.op
        if op == "+":
            return a + b
        if op == "-":
            return a - b
        if op == "*":
            return a * b
        if op == "/":
            return a / b
        if op == "//":
            return a // b
        return a % b

    def e_Compare(self, n: Compare):
        left = self.eval(n.operands[0])
        for op, right_node in zip(n.ops, n.operands[1:]):
            right = self.eval(right_node)
            ok = {
                "==": lambda a, b: a == b,
                "!=": lambda a, b: a != b,
                "<": lambda a, b: a < b,
                "<=": lambda a, b: a <= b,
                ">": lambda a, b: a > b,
                ">=": lambda a, b: a >= b,
                "in": lambda a, b: a in b,
                "not in": lambda a, b: a not in b,
            }[op](left, right)
            if not ok:
                return False
            left = right
        return True

    def e_BoolOp(self, n: BoolOp):
        if n.op == "and":
            result = True
            for v in n.values:
                result = self.eval(v)
                if not result:
                    return result
            return result
        result = False
        for v in n.values:
            result = self.eval(v)
            if result:
                return result
        return result

    def e_IfExp(self, n: IfExp):
        return self.eval(n.body) if self.eval(n.test) else self.eval(n.orelse)

    def e_ListLit(self, n: ListLit):
        return tuple(self.eval(i) for i in n.items)

    def e_Call(self, n: Call):
        builtin = {"len": len, "abs": abs, "min": min, "max": max, "all": all, "any": any, "sum": sum}
        if n.func == "sum" and n.type == FLOAT:
            builtin["sum"] = rules_module().float_sum
        if n.func in REDUCTIONS and len(n.args) == 1 and isinstance(n.args[0], Comp):
            # A reduction of a generator: lazy, so all()/any() stop at the deciding item as in Python.
            func = builtin.get(n.func) or getattr(rules_module(), n.func)
            items = self._items(n.args[0])
            try:
                return func(items)
            finally:
                items.close()
        args = [self.eval(a) for a in n.args]
        if n.func in builtin:
            return builtin[n.func](*args)
        if n.func == "is_private":
            return args[0] in self.private
        return getattr(rules_module(), n.func)(*args)

    def e_Comp(self, n: Comp):
        items = self._items(n)
        try:
            return tuple(items)
        finally:
            items.close()

    def _items(self, n: Comp):
        """The items of a comprehension, one at a time (the loop variable bound while computing each)."""
        iterable = self.eval(n.iterable)
        outer = self.vars.get(n.var, _UNSET)
        try:
            for item in iterable:
                self.vars[n.var] = item
                if n.cond is None or self.eval(n.cond):
                    yield self.eval(n.elt)
        finally:
            if outer is _UNSET:
                self.vars.pop(n.var, None)
            else:
                self.vars[n.var] = outer

    def e_NullTest(self, n: NullTest):
        if self.params is None:
            raise NotConstant(n.param)
        return (self.params[n.param] is None) == n.is_null

    def e_ProductTag(self, n: ProductTag):
        return n.tag

    def e_Range(self, n: Range):
        start, stop = self.eval(n.start), self.eval(n.stop)
        if not (is_small(n.start) and is_small(n.stop)) and stop - start > MAX_ITEMS:
            raise ValueError(f"a rule may not iterate over more than {MAX_ITEMS} items")
        return range(start, stop)

    def e_Quant(self, n: Quant):
        items = self.eval(n.iterable)
        outer = self.vars.get(n.var, _UNSET)

        def values():
            for item in items:
                self.vars[n.var] = item
                yield self.eval(n.elt)

        try:
            return {"all": all, "any": any, "sum": sum}[n.func](values())
        finally:
            if outer is _UNSET:
                self.vars.pop(n.var, None)
            else:
                self.vars[n.var] = outer


_UNSET = object()


@cache
def rules_module():
    """``generator/runtime/rules.py``, the functions validators call, without importing the runtime
    package (NumPy and the backends): lint stays light. The functions are pure, so a private copy
    of the module behaves exactly like the one validators use."""
    import importlib.util
    import sys
    from pathlib import Path

    loaded = sys.modules.get("generator.runtime.rules")
    if loaded is not None:
        return loaded
    path = Path(__file__).resolve().parent / "runtime" / "rules.py"
    spec = importlib.util.spec_from_file_location("_opgen_lint_rules", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def evaluate(node: Node, params: dict, product: str, private=frozenset()):
    """The value of ``node`` for these (normalised) arguments; see :class:`Evaluator`."""
    return Evaluator(params, product, private).eval(node)


def constant(node: Node):
    """The value of an int expression that reads no argument, or None (not constant, or fails)."""
    try:
        value = Evaluator().eval(node)
    except NotConstant:
        return None
    except (ArithmeticError, ValueError, TypeError, IndexError, KeyError, AttributeError):
        return None
    return value if isinstance(value, int) else None
