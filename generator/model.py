"""The typed spec model (pydantic v2, ``extra="forbid"``): catalogues and operator specs.

Files are parsed once into these models; every emitter (validators, bindings, headers, samples,
docs) reads the models, never the YAML. Cross-references (dtype, product, format and status-code
names, parameter names inside rules) are checked by :mod:`generator.loader`, which knows the
catalogues and reports every problem with a file position.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal, Union

from pydantic import BaseModel, BeforeValidator, ConfigDict, Discriminator, Field, Tag, field_validator, model_validator

IDENTIFIER = r"^[A-Za-z_][A-Za-z0-9_]*$"
SLUG = r"^[a-z0-9][a-z0-9_-]*$"


def _tag(value: object) -> object:
    """Product tags such as 910 or 950 may be written unquoted; keep them as text."""
    return str(value) if isinstance(value, int) and not isinstance(value, bool) else value


Identifier = Annotated[str, Field(pattern=IDENTIFIER, max_length=64)]
ProductTag = Annotated[str, BeforeValidator(_tag), Field(pattern=r"^[0-9a-z_]+$", max_length=32)]
DtypeName = Annotated[str, Field(pattern=r"^[A-Z][A-Z0-9_]*$", max_length=32)]
FormatName = Annotated[str, Field(pattern=r"^[A-Z][A-Z0-9_]*$", max_length=32)]
# A path inside the upstream ops repository (letters, digits, _ . & - and /; no segment starts with ".").
UpstreamPath = Annotated[
    str, Field(pattern=r"^[A-Za-z0-9_&-][A-Za-z0-9_.&-]*(/[A-Za-z0-9_&-][A-Za-z0-9_.&-]*)*$", max_length=300)
]
# Numbers in examples and tolerances: finite (JSON, C++ literals and NumPy all need real values).
Finite = Annotated[float, Field(allow_inf_nan=False)]
# An integer in an example: it must fit a 64-bit C integer (signed or unsigned).
Int64 = Annotated[int, Field(ge=-(2**63), le=2**64 - 1)]
# A dimension of an example tensor: a non-negative int64.
Dim = Annotated[int, Field(ge=0, le=2**63 - 1)]
# Elements an example tensor may hold: examples run in tests, docs and C++ samples.
MAX_EXAMPLE_ELEMENTS = 1 << 20
StatusRef = Union[Annotated[int, Field(ge=0)], Annotated[str, Field(pattern=r"^ACLNN_[A-Z_]+$")]]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


# ---------------------------------------------------------------------------------------------
# Catalogues (specs/catalog/*.yaml)


class Product(Strict):
    tag: ProductTag
    zh: str
    en: str
    soc: str = Field(pattern=r"^[A-Za-z0-9_]+$", max_length=64)  # SocVersion (ASCEND910B)
    arch: str = Field(pattern=r"^[A-Za-z0-9_]+$", max_length=64)  # NpuArch (DAV_2201)
    aliases: list[str] = []


NumpyName = Literal[
    "bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
    "float16", "float32", "float64", "complex64", "complex128",
    "bfloat16", "float8_e5m2", "float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e8m0fnu",
    "float8_e3m4", "float8_e4m3", "float4_e2m1fn", "float6_e2m3fn", "float6_e3m2fn", "int4", "uint4", "int2",
    "uint2", "int1", "uint1",
]  # fmt: skip
# The C host element types a sample may hold a dtype's values in (catalogue ``c_host``).
CHost = Literal[
    "bool", "float", "double", "int8_t", "uint8_t", "int16_t", "uint16_t", "int32_t", "uint32_t", "int64_t", "uint64_t"
]  # fmt: skip


class Dtype(Strict):
    name: DtypeName
    acl: str = Field(pattern=r"^ACL_[A-Z0-9_]+$")
    value: int
    bytes: int = Field(ge=0)
    kind: Literal["float", "int", "uint", "bool", "complex", "float8", "other"]
    numpy: NumpyName | None  # the NumPy / ml_dtypes type name, resolved when the aclnn package loads
    c_host: CHost | None  # the C++ host element type a sample uses
    aliases: list[str] = []


class Format(Strict):
    name: FormatName
    acl: str = Field(pattern=r"^ACL_[A-Z0-9_]+$")
    value: int
    private: bool
    rank: int | None


class StatusCode(Strict):
    name: str = Field(pattern=r"^ACLNN_[A-Z_]+$")
    value: int
    zh: str
    en: str


class HeaderEntry(Strict):
    """A public aclnnop header as CANN ships it: its include guard, the standard headers it includes and
    every API it declares (specs/catalog/headers.yaml). APIs with a spec are declared from their spec;
    the others are named in a comment (generator.emit.cpp)."""

    file: str = Field(pattern=r"^aclnnop/aclnn_[a-z0-9_]+\.h$", max_length=96)
    guard: str = Field(pattern=r"^OP_API_INC_[A-Za-z0-9_]+_H_$", max_length=96)
    system_includes: list[Literal["array", "cstdint", "string", "vector"]] = []
    apis: list[Annotated[str, Field(pattern=r"^aclnn[A-Z][A-Za-z0-9]*$", max_length=96)]] = Field(min_length=1)


class HeaderCatalog(Strict):
    headers: list[HeaderEntry] = []


class ProductCatalog(Strict):
    products: list[Product]


class DtypeCatalog(Strict):
    dtypes: list[Dtype]


class FormatCatalog(Strict):
    formats: list[Format]


class StatusCatalog(Strict):
    status_codes: list[StatusCode]


# ---------------------------------------------------------------------------------------------
# Operator specs


# A review marker: set by `opgen import-doc` (and later `opgen sync`) on anything a person must
# curate (a doc sentence kept verbatim, a guessed rule, a conflict). `opgen lint` accepts it;
# `opgen lint --strict` reports each one as FILE:LINE:COL. Remove it once the item is curated.
Review = Annotated[str, Field(min_length=1, max_length=4000)]


class Text(Strict):
    """Prose in both languages. ``en`` may be missing (``opgen lint --strict`` reports it)."""

    zh: str = Field(min_length=1)
    en: str | None = None


TENSOR_CTYPES = ("const aclTensor*", "aclTensor*")
CTYPES = (
    "const aclTensor*",
    "aclTensor*",
    "const aclScalar*",
    "const aclIntArray*",
    "const aclBoolArray*",
    "const aclFloatArray*",
    "const aclTensorList*",
    "bool",
    "int",
    "int8_t",
    "int32_t",
    "int64_t",
    "uint64_t",
    "float",
    "double",
    "char*",
    "const char*",
)
CType = Literal[CTYPES]  # type: ignore[valid-type]
# Values a plain C integer parameter holds (other integer C types: int64_t's range).


class DtypeRule(Strict):
    """Dtypes a parameter accepts on a group of products (``products: all`` = every product)."""

    products: Literal["all"] | list[ProductTag] = "all"
    dtypes: list[DtypeName] = Field(min_length=1)


class RankRange(Strict):
    min: int = Field(ge=0, le=64)
    max: int = Field(ge=0, le=64)

    @model_validator(mode="after")
    def _ordered(self) -> RankRange:
        if self.min > self.max:
            raise ValueError(f"min ({self.min}) is greater than max ({self.max})")
        return self


DtypeTable = Annotated[list[DtypeRule], Field(min_length=1)]


class DtypesFrom(Strict):
    """A dtype table written once and shared: another tensor's (``{same_as: gradOutput}``) or a named
    spec-level table (``{table: floating}``, see ``OpSpec.dtype_tables``).

    The loader resolves every reference, so emitters (and ``aclnn.spec()``) always see the full table.
    """

    same_as: Identifier | None = None
    table: Identifier | None = None

    @model_validator(mode="after")
    def _one(self) -> DtypesFrom:
        if (self.same_as is None) == (self.table is None):
            raise ValueError("give exactly one of 'same_as' (a tensor parameter) and 'table' (a dtype_tables name)")
        return self


def _dtypes_kind(value: object) -> str:
    return "ref" if isinstance(value, (dict, DtypesFrom)) else "rules"


def _dtypes_form(value: object) -> object:
    if isinstance(value, (list, tuple, dict, DtypesFrom)):
        return value
    raise ValueError(
        "a dtype table is a list of {products, dtypes} rules, {same_as: <tensor>} (another tensor's table) "
        "or {table: <name>} (a dtype_tables entry)"
    )


# The format the binding gives a NumPy array of each rank (torch_npu's choice, as
# ``generator.runtime.values.default_format``); every other rank gets ND.
RANK_FORMATS = {3: "NCL", 4: "NCHW", 5: "NCDHW"}


class TensorSpec(Strict):
    """A tensor parameter: dtypes per product, formats (the doc's 数据格式 column), rank range, ...

    ``dtypes`` is a list of per-product rules, or a reference to a table written once
    (:class:`DtypesFrom`). ``formats`` follows the docs' meaning: ``ND`` stands for any plain layout,
    so a list holding ND also accepts the format the binding infers from a tensor's rank (NCL for 3-D,
    NCHW for 4-D, NCDHW for 5-D, see :func:`accepts_format`); layouts such as NHWC, NDHWC or HWCN pass
    only when listed.
    """

    dtypes: Annotated[
        Annotated[DtypeTable, Tag("rules")] | Annotated[DtypesFrom, Tag("ref")],
        Discriminator(_dtypes_kind),
        BeforeValidator(_dtypes_form),
    ]
    formats: list[FormatName] = Field(min_length=1)
    rank: RankRange | None = None
    shape: Text | None = None
    non_contiguous: bool = True
    empty: bool = True

    @property
    def dtype_rules(self) -> list[DtypeRule]:
        """The per-product rules (after the loader resolved a shared table)."""
        if isinstance(self.dtypes, DtypesFrom):
            raise ValueError(
                "the dtype table is a reference that has not been resolved (load the spec with the loader)"
            )
        return self.dtypes

    def accepts_format(self, fmt: str, rank: int) -> bool:
        """The ``format_supported`` rule: ``fmt`` is listed, or ND is listed and ``fmt`` is the format
        the binding infers for a tensor of this rank (an ordinary NumPy array always passes ``[ND]``)."""
        return fmt in self.formats or ("ND" in self.formats and RANK_FORMATS.get(rank) == fmt)


class ArraySpec(Strict):
    element: Literal["INT64", "BOOL", "FLOAT"]
    lengths: list[int] | None = None


class ScalarSpec(Strict):
    castable_to: DtypeName | None = None
    dtypes: list[DtypeRule] | None = None


class EnumValue(Strict):
    value: int
    name: Identifier
    description: Text


class ValueSpec(Strict):
    enum: list[EnumValue] | None = None
    range: tuple[int, int] | None = None


class OutputInfer(Strict):
    """How a binding allocates an output: expressions over the inputs."""

    shape: str
    dtype: str
    format: str | None = None  # default: the torch_npu choice for the rank (NCL/NCHW/NCDHW/ND)
    when: str | None = None  # outputs that are only produced when this holds (e.g. outputMask[0])


class Param(Strict):
    name: Identifier
    ctype: CType
    role: Literal["input", "output", "attribute"]
    nullable: bool = False
    description: Text
    usage: Text | None = None
    tensor: TensorSpec | None = None
    array: ArraySpec | None = None
    scalar: ScalarSpec | None = None
    value: ValueSpec | None = None
    infer: OutputInfer | None = None
    review: Review | None = None

    @model_validator(mode="after")
    def _consistent(self) -> Param:
        is_tensor = self.ctype in TENSOR_CTYPES
        if self.role == "output" and self.ctype != "aclTensor*":
            raise ValueError(f"an output must have C type 'aclTensor*', not '{self.ctype}'")
        if self.role != "output" and self.ctype == "aclTensor*":
            raise ValueError(f"C type 'aclTensor*' (non-const) is for outputs; role is '{self.role}'")
        if self.role == "input" and not (is_tensor or self.ctype == "const aclTensorList*"):
            raise ValueError(f"role 'input' is for tensors; a '{self.ctype}' parameter is an 'attribute'")
        if is_tensor != (self.tensor is not None):
            raise ValueError("a tensor parameter needs a 'tensor' block" if is_tensor else "only tensors have 'tensor'")
        is_array = self.ctype in ("const aclIntArray*", "const aclBoolArray*", "const aclFloatArray*")
        if is_array != (self.array is not None):
            raise ValueError("an array parameter needs an 'array' block" if is_array else "only arrays have 'array'")
        if (self.ctype == "const aclScalar*") != (self.scalar is not None):
            raise ValueError(
                "an aclScalar parameter needs a 'scalar' block"
                if self.scalar is None
                else "only aclScalar has 'scalar'"
            )
        if self.value is not None and self.ctype not in (
            "bool",
            "int",
            "int8_t",
            "int32_t",
            "int64_t",
            "double",
            "float",
        ):
            raise ValueError(f"'value' applies to plain C values, not '{self.ctype}'")
        if self.infer is not None and self.role != "output":
            raise ValueError("'infer' applies to outputs only")
        if self.role == "output" and self.infer is None:
            raise ValueError("an output needs 'infer' (its shape and dtype)")
        if is_array and self.array is not None:
            expected = {"const aclIntArray*": "INT64", "const aclBoolArray*": "BOOL", "const aclFloatArray*": "FLOAT"}
            if self.array.element != expected[self.ctype]:
                raise ValueError(f"array element of '{self.ctype}' is {expected[self.ctype]}, not {self.array.element}")
        return self


CHECK_KINDS = (
    "not_null",
    "product_supported",
    "dtype_supported",
    "dtype_in",
    "dtype_same",
    "dtype_castable",
    "format_supported",
    "format_in",
    "format_same",
    "format_not_private",
    "rank_supported",
    "rank_in",
    "shape_same",
    "length_in",
    "expr",
)
CheckKind = Literal[CHECK_KINDS]  # type: ignore[valid-type]

# Which fields each kind needs ("params" lists the parameters the rule is about).
KIND_FIELDS: dict[str, tuple[str, ...]] = {
    "not_null": ("params",),
    "product_supported": (),
    "dtype_supported": ("params",),
    "dtype_in": ("params", "dtypes"),
    "dtype_same": ("params",),
    "dtype_castable": ("params", "to"),
    "format_supported": ("params",),
    "format_in": ("params", "formats"),
    "format_same": ("params",),
    "format_not_private": ("params",),
    "rank_supported": ("params",),
    "rank_in": ("params", "rank"),
    "shape_same": ("params",),
    "length_in": ("params", "lengths"),
    "expr": ("expr",),
}
OPTIONAL_FIELDS = ("params", "dtypes", "to", "formats", "rank", "lengths", "expr")


class CheckCases(Strict):
    """Inputs that exercise one check, as overrides of the example's inputs (tensors need no data).

    ``trigger`` must fail with exactly this check; ``boundary`` (default: the example itself) is
    the closest input that passes. ``product`` replaces the example's product for both (for a
    ``product_supported`` check, only for the trigger). ``shadowed_by`` names an earlier check that
    CANN runs with the same code and that always catches this check's violations first (a dead
    check kept for fidelity); its trigger then fails there.
    """

    product: ProductTag | None = None
    shadowed_by: str | None = Field(default=None, pattern=SLUG)
    trigger: dict[str, ExampleValue]
    boundary: dict[str, ExampleValue] = {}


class Check(Strict):
    """One first-phase check: the rule, its status code and the doc's words for its failure.

    Checks run in list order (CANN's order); the first failing one decides the status code.
    Kinds (``params`` names the parameters a kind is about):

    * ``not_null``: each parameter is non-null.
    * ``product_supported``: the chosen product is one of the op's ``products``. Validators run an
      implicit one first (161002) unless the spec places this check itself.
    * ``dtype_supported``: each tensor's dtype is in its own per-product ``tensor.dtypes`` table.
    * ``dtype_in`` (``dtypes``): each dtype is in the given list.
    * ``dtype_same``: every dtype equals the first parameter's.
    * ``dtype_castable`` (``to``: a parameter or a dtype name): each dtype converts to ``to``.
    * ``format_supported`` / ``format_in`` (``formats``) / ``format_same`` / ``format_not_private``.
    * ``rank_supported`` (the tensor's ``rank`` range) / ``rank_in`` (``rank``).
    * ``shape_same``: every shape equals the first parameter's.
    * ``length_in`` (``lengths``): each array's length is one of the given lengths.
    * ``expr``: the expression holds.

    ``products`` restricts a check to some products and ``when`` to inputs where an expression
    holds. A null (nullable) parameter skips the checks that mention it. ``enforced: false``
    records a rule the doc states but CANN's code does not check: docs show it, validators skip it.
    ``doc_code`` records the code the doc claims when CANN returns ``code`` instead. ``review`` (also
    on the spec, parameters, constraints and the example) says what a person must still curate.
    """

    id: str = Field(pattern=SLUG, max_length=64)
    kind: CheckKind
    code: StatusRef
    params: list[Identifier] | None = None
    dtypes: list[DtypeName] | None = None
    to: str | None = Field(default=None, pattern=IDENTIFIER)
    formats: list[FormatName] | None = None
    rank: RankRange | None = None
    lengths: list[int] | None = None
    expr: str | None = None
    products: list[ProductTag] | None = None
    when: str | None = None
    text: Text
    documented: bool = True
    enforced: bool = True
    doc_code: StatusRef | None = None
    note: Text | None = None
    cases: CheckCases | None = None
    review: Review | None = None

    @model_validator(mode="after")
    def _fields_match_kind(self) -> Check:
        needed = KIND_FIELDS[self.kind]
        for name in needed:
            if getattr(self, name) is None:
                raise ValueError(f"a '{self.kind}' check needs '{name}'")
        for name in OPTIONAL_FIELDS:
            if name not in needed and getattr(self, name) is not None:
                raise ValueError(f"'{name}' does not apply to a '{self.kind}' check")
        if self.params is not None and not self.params:
            raise ValueError("'params' must name at least one parameter")
        if self.kind in ("dtype_same", "format_same", "shape_same") and len(self.params or []) < 2:
            raise ValueError(f"a '{self.kind}' check compares at least two parameters")
        return self


class Constraint(Strict):
    text: Text
    products: list[ProductTag] | None = None
    review: Review | None = None


class DocIssue(Strict):
    """A defect or contradiction in the source docs, and the reading this spec uses."""

    id: str = Field(pattern=SLUG, max_length=64)
    source: Literal["seed", "doc", "code", "sample"]
    text: Text
    resolution: Text


class Default(Strict):
    param: Identifier
    when: str
    value: str
    text: Text


class ExampleTensor(Strict):
    shape: list[Dim] = Field(max_length=64)
    dtype: DtypeName
    format: FormatName = "ND"
    data: list[Int64 | Finite | bool] | None = None
    fill: Int64 | Finite | None = None
    mask_from_argmax: list[Int64] | None = None  # flat h*W+w per output position, encoded for the product

    @property
    def numel(self) -> int:
        count = 1
        for dim in self.shape:
            count *= dim
        return count

    @model_validator(mode="after")
    def _one_source(self) -> ExampleTensor:
        sources = [s for s in (self.data, self.fill, self.mask_from_argmax) if s is not None]
        if len(sources) > 1:
            raise ValueError("give at most one of 'data', 'fill', 'mask_from_argmax'")
        count = self.numel
        if sources and count > MAX_EXAMPLE_ELEMENTS:
            raise ValueError(
                f"shape {self.shape} holds {count} elements; an example holds at most {MAX_EXAMPLE_ELEMENTS}"
            )
        if self.data is not None and len(self.data) != count:
            raise ValueError(f"'data' has {len(self.data)} values but shape {self.shape} holds {count}")
        return self


class ExampleScalar(Strict):
    value: Int64 | Finite | bool
    dtype: DtypeName


def _example_kind(value: object) -> str:
    if isinstance(value, (ExampleTensor, ExampleScalar)):
        return type(value).__name__
    if isinstance(value, dict):
        return "ExampleTensor" if "shape" in value else "ExampleScalar"
    if isinstance(value, list):
        tensors = value and all(isinstance(v, (dict, ExampleTensor)) for v in value)
        return "ExampleTensorList" if tensors else "ExampleList"
    if isinstance(value, str):
        return "ExampleString"
    return "ExampleNone" if value is None else "ExamplePlain"


# An example input: a tensor, an aclScalar, an int/bool list, a list of tensors (aclTensorList), a string
# (const char*), a plain value, or null.
ExampleValue = Annotated[
    Annotated[ExampleTensor, Tag("ExampleTensor")]
    | Annotated[ExampleScalar, Tag("ExampleScalar")]
    | Annotated[list[bool | Int64 | Finite], Tag("ExampleList")]
    | Annotated[list[ExampleTensor], Tag("ExampleTensorList")]
    | Annotated[str, Field(max_length=4096), Tag("ExampleString")]
    | Annotated[bool | Int64 | Finite, Tag("ExamplePlain")]
    | Annotated[None, Tag("ExampleNone")],
    Discriminator(_example_kind),
]


class Tolerance(Strict):
    rtol: Finite = Field(default=1e-5, ge=0)
    atol: Finite = Field(default=1e-5, ge=0)


class Example(Strict):
    product: ProductTag
    text: Text | None = None
    inputs: dict[str, ExampleValue]
    expected: dict[str, ExampleTensor] = {}
    tolerance: Tolerance = Tolerance()
    review: Review | None = None


class Kernel(Strict):
    """The NumPy reference kernel: ``generator.kernels.<module>.<function>``.

    The binding calls it with one keyword per non-output parameter (``snake_case(name)``, in C-signature
    order), plus ``product=<tag>`` when ``product_aware``, plus one keyword per entry of ``formats``: the
    format name of the named tensor (``{data_format: input}`` passes ``data_format="NHWC"`` for an NHWC
    input; None when that tensor is null).
    """

    module: str = Field(pattern=r"^[a-z_][a-z0-9_]*$")
    function: str = Field(pattern=r"^[a-z_][a-z0-9_]*$")
    product_aware: bool = False
    formats: dict[Annotated[str, Field(pattern=r"^[a-z_][a-z0-9_]*$", max_length=64)], Identifier] = {}


class Sources(Strict):
    """Where the spec comes from. ``code`` and ``links`` are for the docs' links to upstream.

    ``code``: the operator's source folder in the upstream ops repository (``activation/elu_grad_v2``),
    linked as the page's source. ``links``: upstream doc paths (relative to the repository root) of
    other operators the prose names (``aclnnElu: activation/elu/docs/aclnnElu.md``); a name that is an
    operator of this project links to its generated page instead.
    """

    seed: str | None = None
    doc: str | None = None
    code: str | None = Field(default=None, pattern=r"^[a-z0-9_]+(/[a-z0-9_]+)*$", max_length=200)
    links: dict[Annotated[str, Field(pattern=r"^aclnn[A-Z][A-Za-z0-9]*$")], UpstreamPath] = {}


class OpSpec(Strict):
    name: str = Field(pattern=r"^aclnn[A-Z][A-Za-z0-9]*$")
    snake: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    header: str = Field(pattern=r"^aclnnop/aclnn_[a-z0-9_]+\.h$")
    summary: Text
    description: Text
    formula: str | None = None
    sources: Sources = Sources()
    products: list[ProductTag] = Field(min_length=1)
    deterministic: Text | None = None
    stream_ctype: Literal["aclrtStream", "const aclrtStream"] = "aclrtStream"
    # Named dtype tables that several tensors share (``tensor.dtypes: {table: <name>}``).
    dtype_tables: dict[Identifier, DtypeTable] = {}
    params: list[Param] = Field(min_length=1)
    defaults: list[Default] = []
    checks: list[Check] = Field(min_length=1)
    constraints: list[Constraint] = []
    precision: list[Text] = []
    doc_issues: list[DocIssue] = []
    kernel: Kernel | None = None
    example: Example
    review: Review | None = None

    @field_validator("params")
    @classmethod
    def _unique_params(cls, params: list[Param]) -> list[Param]:
        seen: set[str] = set()
        for p in params:
            if p.name in seen:
                raise ValueError(f"duplicate parameter '{p.name}'")
            seen.add(p.name)
        return params

    def dtype_source(self, param: Param) -> list[DtypeRule]:
        """The dtype rules of a tensor parameter, following ``same_as`` / ``table`` references.

        Raises KeyError (unknown parameter or table, or a parameter without a tensor block) or
        ValueError (a cycle of ``same_as``); the loader reports both with their position first.
        """
        seen: list[str] = []
        tensor = param.tensor
        while isinstance(tensor.dtypes, DtypesFrom):
            ref = tensor.dtypes
            if ref.table is not None:
                return self.dtype_tables[ref.table]
            if ref.same_as in seen or ref.same_as == param.name:
                raise ValueError(f"'same_as' references form a cycle: {' -> '.join([param.name, *seen, ref.same_as])}")
            seen.append(ref.same_as)
            tensor = self.param(ref.same_as).tensor
            if tensor is None:
                raise KeyError(ref.same_as)
        return tensor.dtypes

    def resolved(self) -> OpSpec:
        """This spec with every shared dtype table written out in each tensor that uses it."""
        if not any(p.tensor and isinstance(p.tensor.dtypes, DtypesFrom) for p in self.params):
            return self
        params = [
            p.model_copy(update={"tensor": p.tensor.model_copy(update={"dtypes": self.dtype_source(p)})})
            if p.tensor and isinstance(p.tensor.dtypes, DtypesFrom)
            else p
            for p in self.params
        ]
        return self.model_copy(update={"params": params})

    @property
    def op(self) -> str:
        """The name without the ``aclnn`` prefix (``EluBackward``)."""
        return self.name[len("aclnn") :]

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)

    @property
    def inputs(self) -> list[Param]:
        return [p for p in self.params if p.role != "output"]

    @property
    def outputs(self) -> list[Param]:
        return [p for p in self.params if p.role == "output"]


def snake_case(name: str) -> str:
    """``gradOutput`` -> ``grad_output``; ``selfOrResult`` -> ``self_or_result``."""
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()


CheckCases.model_rebuild()
Check.model_rebuild()
OpSpec.model_rebuild()
