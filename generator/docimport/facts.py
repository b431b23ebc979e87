"""What a doc says, before it becomes a spec: plain records with the doc line of each fact.

Both readers (current Markdown, old plain-text seeds) fill these records; :mod:`.build` turns
them into spec data. ``opgen diff`` / ``opgen sync`` can compare two ``DocFacts`` or the specs
built from them.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, order=True)
class Message:
    """A located remark about a doc: ``FILE:LINE: level: message``."""

    file: str
    line: int
    level: str  # "error" | "warning" | "note"
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.level}: {self.message}"


@dataclass
class ProductFact:
    tag: str
    supported: bool
    label: str
    line: int


@dataclass
class ProtoParam:
    name: str
    ctype: str  # normalised C type as written ("const aclTensor*", "uint64_t*", ...)
    line: int


@dataclass
class Prototype:
    name: str  # the C function name
    params: list[ProtoParam]
    line: int


@dataclass
class DtypeFact:
    """Dtypes a doc statement gives some parameters on some products.

    ``products`` None = every product; ``params`` None = the statement names no parameter;
    ``negative`` = "不支持" (remove these dtypes).
    """

    dtypes: list[str]
    products: list[str] | None
    params: list[str] | None
    negative: bool
    line: int
    text: str


@dataclass
class NoteFact:
    """A statement below a parameter table or in 约束说明 (optionally for some products)."""

    text: str
    products: list[str] | None
    line: int
    mapped: bool = False  # True when every part of it became a dtype/format fact


@dataclass
class ParamRow:
    """One row of the parameter table (or one parameter line of a seed)."""

    name: str
    line: int
    ctype: str | None = None
    role: str | None = None  # "input" | "output" | None (unknown)
    description: str = ""
    usage: str = ""
    dtype_cell: str = ""  # raw HTML / text of the dtype column
    dtypes: dict[str | None, list[str]] = field(default_factory=dict)  # product (None = all) -> dtypes
    dtype_same_as: str | None = None  # "与self保持一致"
    castable_to: str | None = None  # "可转换为FLOAT的数据类型"
    unknown_dtypes: list[str] = field(default_factory=list)
    formats: list[str] | None = None
    unknown_formats: list[str] = field(default_factory=list)
    rank: tuple[int, int] | None = None
    shape_text: str = ""
    non_contiguous: bool | None = None
    empty: bool | None = None
    cells: dict[str, str] = field(default_factory=dict)  # column key -> raw cell
    inline: bool = False  # written as one "name(type, role): text" line (rules sit in the description)


@dataclass
class ErrorRow:
    name: str | None
    code: int | None
    text: str
    line: int
    products: list[str] | None = None  # "<term>P1</term>、<term>P2</term>：text" rows


@dataclass
class ConstraintFact:
    text: str
    products: list[str] | None
    line: int
    review: str | None = None


@dataclass
class SampleValue:
    """A value the sample builds for one argument of the first-phase call."""

    kind: str  # "tensor" | "scalar" | "list" | "plain" | "null"
    shape: list[int] | None = None
    dtype: str | None = None
    format: str | None = None
    data: list | None = None
    fill: float | int | None = None
    value: object = None


@dataclass
class SampleFacts:
    line: int
    code: str
    values: dict[str, SampleValue] = field(default_factory=dict)  # parameter name -> value
    call_found: bool = False


@dataclass
class ApiFacts:
    name: str  # aclnnXxx (phase 2 name)
    line: int
    prototype: Prototype | None = None
    exec_prototype: Prototype | None = None
    rows: list[ParamRow] = field(default_factory=list)
    table_found: bool = False
    dtype_facts: list[DtypeFact] = field(default_factory=list)
    notes: list[NoteFact] = field(default_factory=list)
    errors: list[ErrorRow] = field(default_factory=list)
    error_table_found: bool = False
    sample: SampleFacts | None = None


@dataclass
class DocFacts:
    path: str
    lang: str  # "zh" | "en"
    format: str  # "markdown" | "seed" | "empty"
    title: str = ""
    title_line: int = 1
    products: list[ProductFact] = field(default_factory=list)
    products_found: bool = False
    summary: str = ""
    description: str = ""
    function_line: int = 0
    formula: str = ""
    apis: list[ApiFacts] = field(default_factory=list)
    constraints: list[ConstraintFact] = field(default_factory=list)
    deterministic: str = ""
    deterministic_line: int = 0
    sample: SampleFacts | None = None
    messages: list[Message] = field(default_factory=list)

    def warn(self, line: int, message: str, level: str = "warning") -> None:
        self.messages.append(Message(self.path, line, level, message))
