"""Doc facts -> spec data (plain dicts in the model's key order), one spec per API of the doc.

What the doc says is mapped onto the model: products, the C signature with roles and C types,
descriptions, per-product dtype tables (table cells, then the notes below the table and in
约束说明 that narrow or widen them), formats, ranks, the error table as checks (see
:mod:`.rules`), 约束说明 as constraints, determinism, and the example from the call sample. What
cannot be mapped is kept verbatim with a ``review`` marker. Finally the spec is loaded exactly
as ``opgen lint`` loads it and its example is run through its own generated validator: an
enforced check that rejects the doc's own example is kept, unenforced, for review.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from generator import expr as ex
from generator.docimport.facts import ApiFacts, DocFacts, Message, ParamRow
from generator.docimport.notes import statement_facts
from generator.docimport.rules import PLACEHOLDER, Draft, Mapper, ParamInfo, enum_values, usage_rules
from generator.docimport.shapes import shape_rules, symbolic_shape
from generator.docimport.vocab import model_ctype
from generator.model import TENSOR_CTYPES, snake_case

SKIPPED = {"workspaceSize", "executor"}
PREFERRED_PRODUCT = "910b"  # the product the generated bindings default to
# Architectures without BFLOAT16 (Atlas training / inference series): every doc that lists these
# products says so, and a table that lists BFLOAT16 for "all" products forgets it.
NO_BFLOAT16_ARCHS = frozenset({"DAV_1001", "DAV_2002"})
ARRAY_ELEMENT = {"const aclIntArray*": "INT64", "const aclBoolArray*": "BOOL", "const aclFloatArray*": "FLOAT"}
EXPR_TYPES = {
    "const aclScalar*": ex.SCALAR,
    "const aclIntArray*": ex.INTS,
    "const aclBoolArray*": ex.BOOLS,
    "const aclFloatArray*": ex.FLOATS,
    "bool": ex.BOOL,
    "double": ex.FLOAT,
    "float": ex.FLOAT,
}


@dataclass
class Coverage:
    """What one imported spec took from its doc: mapped to rules vs kept as text for review."""

    params: int = 0
    params_described: int = 0
    products_listed: int = 0
    products_supported: int = 0
    dtype_tables: int = 0
    dtype_tables_from_doc: int = 0
    error_rows: int = 0
    error_rows_mapped: int = 0
    checks: int = 0
    checks_enforced: int = 0
    constraints: int = 0
    reviews: int = 0
    example_from_sample: bool = False

    def line(self) -> str:
        kept = self.error_rows - self.error_rows_mapped
        return (
            f"params {self.params_described}/{self.params}, products {self.products_listed} listed "
            f"({self.products_supported} supported), dtype tables {self.dtype_tables_from_doc}/{self.dtype_tables}, "
            f"error rows {self.error_rows_mapped}/{self.error_rows} mapped to rules ({kept} kept as text), "
            f"example {'from the sample' if self.example_from_sample else 'built from the tables'}, "
            f"{self.reviews} review marker(s)"
        )


@dataclass
class ImportedSpec:
    """One spec imported from a doc: its data (plain YAML-ready dicts), coverage and remarks."""

    name: str
    snake: str
    data: dict
    coverage: Coverage
    messages: list[Message] = field(default_factory=list)


def text(zh: str, en: str | None = None) -> dict:
    out = {"zh": zh}
    if en:
        out["en"] = en
    return out


def op_snake(name: str) -> str:
    return snake_case(name.removeprefix("aclnn"))


# --- parameters -----------------------------------------------------------------------------


@dataclass
class ParamDraft:
    name: str
    ctype: str
    role: str
    row: ParamRow | None
    line: int
    nullable: bool = False
    dtypes: dict[str, list[str]] = field(default_factory=dict)  # product -> dtypes
    dtypes_from_doc: bool = False
    scalar_dtypes: dict[str, list[str]] = field(default_factory=dict)
    castable_to: str | None = None
    formats: list[str] | None = None
    rank: tuple[int, int] | None = None
    lengths: list[int] | None = None
    review: list[str] = field(default_factory=list)
    infer: dict | None = None
    mask_when: str | None = None

    @property
    def is_tensor(self) -> bool:
        return self.ctype in TENSOR_CTYPES

    @property
    def type(self) -> str:
        return ex.TENSOR if self.is_tensor else EXPR_TYPES.get(self.ctype, ex.INT)


class Builder:
    def __init__(self, doc: DocFacts, api: ApiFacts, ctx, en: DocFacts | None):
        self.doc, self.api, self.ctx, self.en = doc, api, ctx, en
        self.en_api = None
        if en is not None:
            self.en_api = next((a for a in en.apis if a.name == api.name), en.apis[0] if len(en.apis) == 1 else None)
        self.messages: list[Message] = []
        self.coverage = Coverage()
        self.products: list[str] = []
        self.params: list[ParamDraft] = []
        self.spec_review: list[str] = []
        self.check_lines: dict[str, int] = {}  # check id -> doc line of its error row
        self.doc_issues: list[dict] = []

    def warn(self, line: int, message: str, level: str = "warning") -> None:
        self.messages.append(Message(self.doc.path, line, level, message))

    def issue(self, ident: str, what: tuple[str, str], resolution: tuple[str, str]) -> None:
        """Record a contradiction of the doc (a ``doc_issues`` entry: what it says, the reading used)."""
        if any(i["id"] == ident[:64] for i in self.doc_issues):
            return
        self.doc_issues.append(
            {
                "id": ident[:64],
                "source": "seed" if self.doc.format == "seed" else "doc",
                "text": text(*what),
                "resolution": text(*resolution),
            }
        )

    # --- products ---------------------------------------------------------------------

    def build_products(self) -> None:
        matcher = self.ctx.matcher
        listed = [p for p in self.doc.products]
        self.coverage.products_listed = len(listed)
        supported = matcher.order(p.tag for p in listed if p.supported)
        if not supported:
            line = listed[0].line if listed else self.doc.title_line
            if listed:
                self.warn(line, "the doc marks every product unsupported; every product it lists is assumed")
                supported = matcher.order(p.tag for p in listed)
            else:
                self.warn(line, "the doc lists no products; every catalogue product is assumed")
                supported = list(matcher.tags)
            self.spec_review.append("products: the doc gives no supported product; the list is assumed")
        self.products = supported
        self.coverage.products_supported = len(supported)

    # --- parameters -------------------------------------------------------------------

    def build_params(self) -> None:
        api = self.api
        rows = {r.name: r for r in api.rows}
        proto = [p for p in (api.prototype.params if api.prototype else []) if p.name not in SKIPPED]
        proto = [p for p in proto if p.ctype not in ("uint64_t*", "aclOpExecutor**")]
        order: list[tuple[str, str | None, int]] = [(p.name, p.ctype, p.line) for p in proto]
        names = [n for n, _, _ in order]
        previous = None
        for row in api.rows:
            if row.name in SKIPPED:
                continue
            if row.name not in names:
                if proto:
                    self.warn(row.line, f"parameter '{row.name}' is in the table but not in the prototype; inserted")
                    self.issue(
                        f"missing-in-prototype-{_slug(row.name)}",
                        (
                            f"参数{row.name}出现在参数说明中，但函数原型中没有。",
                            f"{row.name} is described but missing from the prototype.",
                        ),
                        (
                            f"按参数说明的顺序插入{row.name}（在{previous or '开头'}之后）；请核对真实的函数签名。",
                            f"{row.name} is inserted in the order of the parameter list; check the real signature.",
                        ),
                    )
                index = names.index(previous) + 1 if previous in names else len(names)
                order.insert(index, (row.name, None, row.line))
                names.insert(index, row.name)
            previous = row.name
        for name, proto_ctype, line in order:
            row = rows.get(name)
            role_hint = row.role if row else None
            raw = proto_ctype or (row.ctype if row and row.ctype else None)
            if raw is None:
                self.warn(line, f"parameter '{name}' has no C type (no prototype, none in its table cell); skipped")
                self.spec_review.append(f"params: '{name}' has no C type in the doc and is missing")
                continue
            if raw.replace(" ", "") in ("aclTensor*",) and role_hint is None and proto_ctype:
                role_hint = "output"
            inplace = role_hint == "inout"
            if inplace:
                role_hint = "input"
            ctype, remark = model_ctype(raw, role_hint)
            if ctype is None:
                self.warn(line, f"parameter '{name}': {remark}; skipped")
                self.spec_review.append(f"params: '{name}' ({raw}) has no counterpart in the spec model")
                continue
            if ctype in TENSOR_CTYPES:
                role = "output" if (role_hint == "output" or (role_hint is None and ctype == "aclTensor*")) else "input"
                ctype = "aclTensor*" if role == "output" else "const aclTensor*"
            else:
                role = "input" if ctype == "const aclTensorList*" else "attribute"
            draft = ParamDraft(name, ctype, role, row, line)
            if inplace:
                draft.review.append(
                    "an in-place tensor (输入/输出, written in place): the spec model has no in-place parameter, "
                    "so it is imported as an input"
                )
                remark = None
            if remark:
                self.warn(line, f"parameter '{name}': {remark}", "note")
            if row is None:
                self.warn(line, f"parameter '{name}' is not in the parameter table")
                draft.review.append("not described in the doc's parameter table")
            else:
                self.coverage.params_described += 1
                if proto_ctype and row.ctype:
                    table_ctype, _ = model_ctype(row.ctype, role)
                    if table_ctype and table_ctype != ctype:
                        self.warn(
                            row.line,
                            f"'{name}' is {row.ctype} in the table but {proto_ctype} in the prototype; "
                            "the prototype is used",
                        )
                        self.issue(
                            f"ctype-{_slug(name)}",
                            (
                                f"参数说明把{name}写成{row.ctype}，而函数原型是{proto_ctype}。",
                                f"The parameter list types {name} as {row.ctype}; the prototype says {proto_ctype}.",
                            ),
                            (f"采用函数原型中的{ctype}。", f"The spec uses {ctype}, as in the prototype."),
                        )
            self.params.append(draft)
        self.coverage.params = len(self.params)
        self._nullable()
        self._tables()

    def _nullable(self) -> None:
        texts = " ".join(e.text for e in self.api.errors)
        # "weight，runningMean，saveInvstd非空时…", "gradInput（非空时）": these may be null.
        optional: set[str] = set()
        for m in re.finditer(r"([A-Za-z_][A-Za-z0-9_]*)\s*[（(]\s*非空时\s*[)）]", texts):
            optional.add(m.group(1))  # "gradInput（非空时）": that one parameter
        for m in re.finditer(
            r"((?:[A-Za-z_][A-Za-z0-9_]*\s*(?:、|，|,|和|与|或)\s*)*[A-Za-z_][A-Za-z0-9_]*)\s*非空", texts
        ):
            optional.update(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", m.group(1)))  # "a，b，c非空时": the whole list
        for p in self.params:
            words = ((p.row.description + " " + p.row.usage) if p.row else "").lower()
            if p.name.endswith("Optional") or re.search(
                r"可选|可以为空|可为空|可以是空|可传入空|支持空指针|可以为nullptr|可为nullptr|optional|can be null|may be null",
                words,
            ):
                p.nullable = True
            if p.name in optional:
                p.nullable = True

    def _tables(self) -> None:
        vocab = self.ctx.vocab
        for p in self.params:
            row = p.row
            if row is None:
                continue
            if p.is_tensor or p.ctype == "const aclScalar*":
                table: dict[str, list[str]] = {}
                for tag in self.products:
                    base = row.dtypes.get(tag, row.dtypes.get(None))
                    if base:
                        table[tag] = list(base)
                if table:
                    p.dtypes_from_doc = True
                if p.is_tensor:
                    p.dtypes = table
                else:
                    p.scalar_dtypes = table if row.dtypes else {}
                p.castable_to = row.castable_to or _castable_from(row.usage, vocab)
            for bad in row.unknown_dtypes:
                if bad and bad not in ("-",):
                    self.warn(row.line, f"'{row.name}': unknown dtype '{bad}' (not in the catalogue)")
                    p.review.append(f"the doc's dtype list names '{bad}', which the catalogue does not know")
            p.formats = row.formats
            for bad in row.unknown_formats:
                self.warn(row.line, f"'{row.name}': unknown format '{bad}'")
                p.review.append(f"the doc's format list names '{bad}', which the catalogue does not know")
            p.rank = row.rank
            if p.ctype in ARRAY_ELEMENT:
                p.lengths = _lengths(row.usage + " " + row.description)
        # Notes below the table and statements in 约束说明 that narrow the tables per product.
        facts = list(self.api.dtype_facts)
        names = {p.name for p in self.params}
        for c in self.doc.constraints:
            body = c.text.split("：", 1)[-1] if c.products else c.text
            facts += statement_facts(body, c.products, names, vocab, c.line).dtypes
            facts += _dtype_row_facts(c, vocab)
        for fact in facts:
            self._apply(fact)
        # "与self保持一致": a copy of another parameter's table.
        by_name = {p.name: p for p in self.params}
        for _ in range(3):
            for p in self.params:
                ref = p.row.dtype_same_as if p.row else None
                if ref and ref in by_name and by_name[ref].dtypes and not p.dtypes:
                    p.dtypes = {k: list(v) for k, v in by_name[ref].dtypes.items()}
                    p.dtypes_from_doc = True
        self._no_bfloat16(facts)
        for p in self.params:
            if p.is_tensor:
                self.coverage.dtype_tables += 1
                if p.dtypes_from_doc and p.dtypes:
                    self.coverage.dtype_tables_from_doc += 1

    def _no_bfloat16(self, facts) -> None:
        """Drop BFLOAT16 on products whose architecture has none, unless the doc says it per product."""
        archs = {p.tag: p.arch for p in self.ctx.catalog.products.products}
        explicit = {t for f in facts for t in (f.products or [])}
        for p in self.params:
            if not p.is_tensor or not p.dtypes:
                continue
            stated = set(explicit) | {t for t in (p.row.dtypes if p.row else {}) if t is not None}
            dropped = []
            for tag, dtypes in p.dtypes.items():
                if (
                    archs.get(tag) in NO_BFLOAT16_ARCHS
                    and tag not in stated
                    and "BFLOAT16" in dtypes
                    and len(dtypes) > 1
                ):
                    p.dtypes[tag] = [d for d in dtypes if d != "BFLOAT16"]
                    dropped.append(tag)
            if dropped:
                p.review.append(
                    f"BFLOAT16 dropped on {', '.join(dropped)} (no BFLOAT16 on that hardware; the doc does not say so)"
                )

    def _apply(self, fact) -> None:
        products = fact.products or self.products
        if fact.params is not None:
            targets = [p for p in self.params if p.name in fact.params]
        else:
            targets = []
            for p in self.params:
                table = p.dtypes if p.is_tensor else p.scalar_dtypes
                listed = {d for v in table.values() for d in v}
                if not listed:
                    continue
                if fact.negative and listed & set(fact.dtypes):
                    targets.append(p)
                elif not fact.negative and listed & set(fact.dtypes):
                    targets.append(p)
        for p in targets:
            table = p.dtypes if p.is_tensor else p.scalar_dtypes
            if not p.is_tensor and p.ctype != "const aclScalar*":
                continue
            for tag in products:
                if tag not in self.products:
                    continue
                if fact.negative:
                    current = table.get(tag)
                    if current is None:
                        continue
                    narrowed = [d for d in current if d not in fact.dtypes]
                    if narrowed:
                        table[tag] = narrowed
                    else:
                        self.warn(fact.line, f"'{fact.text[:60]}' leaves {p.name} no dtype on {tag}; ignored")
                else:
                    table[tag] = list(fact.dtypes)
            if p.is_tensor:
                p.dtypes = table
                p.dtypes_from_doc = True
            else:
                p.scalar_dtypes = table

    # --- checks -----------------------------------------------------------------------

    def build_checks(self) -> list[dict]:
        infos = [
            ParamInfo(
                p.name,
                p.type,
                p.role,
                rank=p.rank,
                has_dtypes=bool(p.dtypes),
                scalar_dtypes=bool(p.scalar_dtypes),
                nullable=p.nullable,
            )
            for p in self.params
        ]
        mapper = Mapper(infos, self.ctx.vocab, self.ctx.matcher, self.products)
        en_rows = self.en_api.errors if self.en_api else []
        drafts: list[tuple[Draft, str | None]] = []
        rows = self.api.errors
        self.coverage.error_rows = len(rows)
        for index, row in enumerate(rows):
            code = row.code
            en_text = en_rows[index].text if index < len(en_rows) and len(en_rows) == len(rows) else None
            mapped = mapper.map_row(row.text, code, row.line)
            if row.products:
                for d in mapped:
                    d.products = [t for t in (d.products or self.products) if t in row.products] or list(row.products)
            if all(d.mapped for d in mapped):
                self.coverage.error_rows_mapped += 1
            else:
                self.warn(row.line, f"error row kept as text for review: {row.text[:80]}", "note")
            for d in mapped:
                if code is None:
                    d.review = (d.review + "; " if d.review else "") + "the row has no status code; 161002 assumed"
                drafts.append((d, en_text if d.text == row.text else None))
        drafts = self._shape_rules(drafts, mapper)
        drafts += self._usage_rules(drafts, mapper)
        # Conditional outputs ("求解gradInput时", "outputMask[0]为true…") may be null otherwise.
        for d, _ in drafts:
            if d.kind == "not_null" and d.when and d.params:
                for p in self.params:
                    if p.name in d.params:
                        p.nullable = True
                        p.mask_when = p.mask_when or d.when
        drafts = self._general_null_check(drafts)
        if not self.api.error_table_found:
            drafts += self._no_error_table()
        checks = []
        for d, en_text in drafts:
            checks += self._check_dicts(d, en_text)
        used: set[str] = set()
        for c in checks:
            base, qualifier = c.pop("_id")
            candidates = [base] + ([f"{base}-{qualifier}"] if qualifier else [])
            chosen = next((x[:64] for x in candidates if x[:64] not in used), None)
            n = 2
            while chosen is None:
                candidate = f"{candidates[-1][:60]}-{n}"
                chosen = candidate if candidate not in used else None
                n += 1
            used.add(chosen)
            c["id"] = chosen
            self.check_lines[chosen] = c.pop("_line") or self.api.line
        return checks

    def _shape_rules(self, drafts, mapper: Mapper):
        """A row such as "不满足接口约束说明章节" / "shape不符合约束" becomes the rules of the named shapes."""
        shapes = {}
        for p in self.params:
            if p.is_tensor and p.row is not None:
                dims = symbolic_shape(p.row.shape_text)
                if dims is not None:
                    shapes[p.name] = dims
        if not shapes:
            return drafts
        constraints = [c.text for c in self.doc.constraints if not c.products]
        rules = [r for r in shape_rules(shapes, constraints) if r.kind != "expr" or mapper.valid(r.expr)]
        if not rules:
            return drafts
        out, used = [], False
        for d, en in drafts:
            if not used and not d.mapped and re.search(r"shape|约束|维度|形状", d.text, re.I):
                used = True
                for r in rules:
                    new = Draft(r.kind, d.text, d.code, params=r.params, rank=r.rank, expr=r.expr, line=d.line)
                    new.review = (
                        "derived from the named shapes of the parameter table"
                        if r.source == "shape"
                        else "derived from 约束说明 and the named shapes of the parameter table"
                    )
                    out.append((new, en))
                self.coverage.error_rows_mapped += 1
                continue
            out.append((d, en))
        return out

    def _usage_rules(self, drafts, mapper: Mapper):
        """Rules the parameter table states outright that the error table does not list."""
        code = self.ctx.status_by_name.get("ACLNN_ERR_PARAM_INVALID")
        seen = {_draft_key(d) for d, _ in drafts}
        out = []
        for p in self.params:
            if p.row is None:
                continue
            stated = p.row.usage + ("。" + p.row.description if p.row.inline else "")
            found = usage_rules(mapper, p.name, stated, code)
            if p.type == ex.INT:
                values = enum_values(p.row.usage + "。" + p.row.description)
                if values and mapper.valid(f"{p.name} in {values}"):
                    found.append(Draft("expr", p.row.usage or p.row.description, code, expr=f"{p.name} in {values}"))
            for d in found:
                key = _draft_key(d)
                if key in seen or _covered(d, drafts + out):
                    continue
                seen.add(key)
                d.text = f"{p.name}：{d.text}" if p.name not in d.text else d.text
                d.review = "stated in the parameter table, not in the error table: check CANN enforces it, and its code"
                out.append((d, None))
        return out

    def _general_null_check(self, drafts):
        """Every required pointer the doc's null rows leave out: CANN checks them all first (161001)."""
        listed = {n for d, _ in drafts if d.kind == "not_null" for n in (d.params or [])}
        has_null_row = any(d.kind == "not_null" for d, _ in drafts)
        missing = [
            p.name
            for p in self.params
            if p.type not in (ex.BOOL, ex.INT, ex.FLOAT) and not p.nullable and p.name not in listed
        ]
        if not missing or not has_null_row:
            return drafts
        names = "、".join(missing)
        d = Draft(
            "not_null",
            f"参数{names}是空指针。",
            self.ctx.status_by_name.get("ACLNN_ERR_PARAM_NULLPTR"),
            params=missing,
            documented=False,
            review="the doc's null-pointer row leaves these required pointers out; CANN checks every required pointer",
        )
        last_null = max(i for i, (x, _) in enumerate(drafts) if x.kind == "not_null")
        en = f"{', '.join(missing)} is a null pointer."
        return drafts[: last_null + 1] + [(d, en)] + drafts[last_null + 1 :]

    def _no_error_table(self):
        """A doc without an error table (lost in rendering): the two rules every aclnn op has."""
        self.warn(self.api.line, "no error table found; null-pointer and dtype checks assumed (for review)")
        out = []
        pointers = [p.name for p in self.params if p.type not in (ex.BOOL, ex.INT, ex.FLOAT) and not p.nullable]
        if pointers:
            out.append(
                (
                    Draft(
                        "not_null",
                        f"参数{'、'.join(pointers)}是空指针。",
                        self.ctx.status_by_name.get("ACLNN_ERR_PARAM_NULLPTR"),
                        params=pointers,
                        documented=False,
                        review="the doc has no error table; assumed from the parameter table",
                    ),
                    f"{', '.join(pointers)} is a null pointer.",
                )
            )
        tensors = [p.name for p in self.params if p.is_tensor and p.dtypes and p.role != "output"]
        if tensors:
            out.append(
                (
                    Draft(
                        "dtype_supported",
                        f"参数{'、'.join(tensors)}的数据类型不在支持的范围之内。",
                        self.ctx.status_by_name.get("ACLNN_ERR_PARAM_INVALID"),
                        params=tensors,
                        documented=False,
                        review="the doc has no error table; assumed from the parameter table",
                    ),
                    f"The dtype of {', '.join(tensors)} is not supported.",
                )
            )
        if not out:
            out.append(
                (
                    Draft(
                        "expr",
                        "文档没有列出错误码。",
                        self.ctx.status_by_name.get("ACLNN_ERR_PARAM_INVALID"),
                        expr=PLACEHOLDER,
                        enforced=False,
                        documented=False,
                        review="the doc has no error table: write the checks",
                    ),
                    None,
                )
            )
        return out

    def _check_dicts(self, d: Draft, en_text: str | None) -> list[dict]:
        code = d.code if d.code is not None else self.ctx.status_by_name.get("ACLNN_ERR_PARAM_INVALID")
        code_name = self.ctx.status_by_value.get(code, code)
        if d.kind == "dtype_supported_scalar":
            out = []
            p = next(x for x in self.params if x.name == d.params[0])
            for group, dtypes in _groups(p.scalar_dtypes, self.products):
                c = Draft("dtype_in", d.text, code, params=d.params, dtypes=dtypes, products=group, line=d.line)
                c.when, c.review = d.when, d.review
                out += self._check_dicts(c, en_text)
            return out
        check: dict = {"id": "", "_id": _check_id(d), "_line": d.line, "kind": d.kind, "code": code_name}
        if d.params:
            check["params"] = list(d.params)
        if d.dtypes:
            check["dtypes"] = list(d.dtypes)
        if d.to:
            check["to"] = d.to
        if d.formats:
            check["formats"] = list(d.formats)
        if d.rank is not None:
            check["rank"] = {"min": d.rank[0], "max": d.rank[1]}
        if d.lengths is not None:
            check["lengths"] = list(d.lengths)
        if d.expr is not None:
            check["expr"] = d.expr
        if d.products is not None and set(d.products) != set(self.products):
            check["products"] = [t for t in self.products if t in d.products] or list(self.products)
        if d.when:
            check["when"] = d.when
        check["text"] = text(_text(d.text), en_text)
        if not d.documented:
            check["documented"] = False
        if not d.enforced:
            check["enforced"] = False
        if d.review:
            check["review"] = d.review
        return [check]

    # --- outputs ----------------------------------------------------------------------

    def build_infer(self, sample) -> None:
        values = sample.values if sample is not None else {}
        inputs = [p for p in self.params if p.is_tensor and p.role != "output"]
        by_name = {p.name: p for p in inputs}
        for p in self.params:
            if p.role != "output":
                continue
            review = []
            source = None
            usage = (p.row.usage + " " + p.row.description) if p.row else ""
            m = re.search(r"shape(?:和数据格式)?\s*(?:需要)?\s*(?:与|和|同)\s*`?([A-Za-z_][A-Za-z0-9_]*)`?", usage)
            ref = m.group(1) if m and m.group(1) in by_name else None
            out_shape = values[p.name].shape if p.name in values and values[p.name].kind == "tensor" else None
            partners = _partners(p.name, [q.name for q in inputs])
            candidates = ([ref] if ref else []) + partners + [q.name for q in inputs]
            if out_shape is not None:
                same = [
                    c for c in candidates if c in values and values[c].kind == "tensor" and values[c].shape == out_shape
                ]
                out_dtype = values[p.name].dtype
                typed = [c for c in same if values[c].dtype == out_dtype]  # same shape and dtype first
                source = (typed or same or [None])[0]
            else:
                source = candidates[0] if candidates else None
            infer: dict = {}
            if source is not None:
                infer["shape"] = f"{source}.shape"
            elif out_shape is not None:
                infer["shape"] = "[" + ", ".join(str(v) for v in out_shape) + "]"
                review.append("infer.shape is the sample's literal shape: write it from the inputs")
            elif inputs:
                infer["shape"] = f"{inputs[0].name}.shape"
                review.append(f"infer.shape guessed from {inputs[0].name}")
            else:
                infer["shape"] = "[1]"
                review.append("infer.shape unknown: write it")
            dtype_source = source or (inputs[0].name if inputs else None)
            ok_dtypes = {d for v in p.dtypes.values() for d in v}
            src_dtypes = (
                {d for v in by_name[dtype_source].dtypes.values() for d in v} if dtype_source in by_name else set()
            )
            if dtype_source and (not ok_dtypes or src_dtypes <= ok_dtypes or not src_dtypes):
                infer["dtype"] = f"{dtype_source}.dtype"
            else:
                sample_dtype = values[p.name].dtype if p.name in values and values[p.name].kind == "tensor" else None
                literal = sample_dtype or (sorted(ok_dtypes)[0] if ok_dtypes else "FLOAT")
                infer["dtype"] = literal
                review.append(f"infer.dtype is {literal}: write it from the inputs")
                if dtype_source and src_dtypes:
                    infer["dtype"] = f"{dtype_source}.dtype"
                    review[-1] = f"infer.dtype follows {dtype_source}, whose dtypes the output does not all list"
            if (
                source is not None
                and p.formats
                and by_name[source].formats
                and set(by_name[source].formats) <= set(p.formats)
            ):
                infer["format"] = f"{source}.format"
            if p.mask_when:
                infer["when"] = p.mask_when
            if source is None and not review:
                review.append("infer guessed")
            p.infer = infer
            p.review += review

    # --- assembly ---------------------------------------------------------------------

    def param_dict(self, p: ParamDraft) -> dict:
        row = p.row
        en_row = None
        if self.en_api is not None:
            en_row = next((r for r in self.en_api.rows if r.name == p.name), None)
        out: dict = {"name": p.name, "ctype": p.ctype, "role": p.role}
        if p.nullable:
            out["nullable"] = True
        description = (row.description if row else "") or (row.usage if row else "") or p.name
        out["description"] = text(
            _text(description), _text(en_row.description) if en_row and en_row.description else None
        )
        if row and row.usage and row.usage != description:
            out["usage"] = text(_text(row.usage), _text(en_row.usage) if en_row and en_row.usage else None)
        if p.is_tensor:
            tensor: dict = {}
            table = p.dtypes
            if not table or any(t not in table for t in self.products):
                fallback = self._fallback_dtypes(p)
                for t in self.products:
                    table.setdefault(t, list(fallback))
                p.review.append("dtypes: the doc gives none for some products; filled in, check them")
            tensor["dtypes"] = [
                {"products": group if group != "all" else "all", "dtypes": dtypes}
                for group, dtypes in _groups(table, self.products)
            ]
            formats = p.formats
            if not formats:
                formats = ["ND"]
                if row is not None:
                    p.review.append("formats: the doc gives none; ND assumed")
            tensor["formats"] = formats
            if p.rank is not None:
                tensor["rank"] = {"min": p.rank[0], "max": p.rank[1]}
            if row and row.shape_text:
                en_shape = en_row.shape_text if en_row and en_row.shape_text else None
                tensor["shape"] = text(_text(row.shape_text), en_shape)
            if row and row.non_contiguous is False:
                tensor["non_contiguous"] = False
            if row and row.empty is False:
                tensor["empty"] = False
            out["tensor"] = tensor
        elif p.ctype in ARRAY_ELEMENT:
            array: dict = {"element": ARRAY_ELEMENT[p.ctype]}
            if p.lengths:
                array["lengths"] = p.lengths
            out["array"] = array
        elif p.ctype == "const aclScalar*":
            scalar: dict = {}
            if p.castable_to:
                scalar["castable_to"] = p.castable_to
            if p.scalar_dtypes:
                scalar["dtypes"] = [
                    {"products": group, "dtypes": dtypes} for group, dtypes in _groups(p.scalar_dtypes, self.products)
                ]
            out["scalar"] = scalar
        if p.role == "output":
            out["infer"] = p.infer or {"shape": "[1]", "dtype": "FLOAT"}
        if p.review:
            out["review"] = "; ".join(dict.fromkeys(p.review))
        return out

    def _fallback_dtypes(self, p: ParamDraft) -> list[str]:
        for q in self.params:
            if q.is_tensor and q.dtypes and q is not p:
                first = next(iter(q.dtypes.values()))
                return list(first)
        return ["FLOAT"]


def _text(value: str) -> str:
    value = value.strip()
    return value if value else "-"


def _castable_from(usage: str, vocab) -> str | None:
    m = re.search(r"可转换为\s*([A-Za-z0-9_]+)", usage)
    return vocab.dtype(m.group(1)) if m else None


def _lengths(text_: str) -> list[int] | None:
    m = re.search(
        r"(?:数组)?长度\s*(?:仅支持|只支持|支持|为|是|等于|必须为|必须是)\s*((?:\d+\s*(?:、|,|，|或者|或|和)?\s*)+)",
        text_,
    )
    if not m:
        return None
    values = sorted({int(v) for v in re.findall(r"\d+", m.group(1))})
    return values or None


def _dtype_row_facts(constraint, vocab):
    """Constraint-table rows such as "dtype约束：不支持HIFLOAT8、FLOAT8_E4M3FN" (for some products)."""
    from generator.docimport.facts import DtypeFact

    head, _, body = constraint.text.partition("：")
    if not constraint.products or not re.search(r"dtype|数据类型", head, re.I):
        return []
    m = re.match(r"^\s*(不支持|仅支持|支持)\s*(.*)$", body)
    if not m:
        return []
    dtypes = vocab.dtype_run(m.group(2))
    if not dtypes:
        return []
    return [DtypeFact(dtypes, constraint.products, None, m.group(1) == "不支持", constraint.line, constraint.text)]


def _groups(table: dict[str, list[str]], products: list[str]):
    """[(products or "all", dtypes)] grouping products with the same dtype list, in product order."""
    groups: list[tuple[list[str], list[str]]] = []
    for tag in products:
        dtypes = table.get(tag)
        if not dtypes:
            continue
        for group, existing in groups:
            if existing == dtypes:
                group.append(tag)
                break
        else:
            groups.append(([tag], list(dtypes)))
    if len(groups) == 1 and len(groups[0][0]) == len(products):
        return [("all", groups[0][1])]
    return groups


def _partners(output: str, inputs: list[str]) -> list[str]:
    """Inputs an output most likely mirrors: gradInput -> input/self, gradWeight -> weight..."""
    base = re.sub(r"Out$", "", output) if output.endswith("Out") and len(output) > 3 else output
    base = re.sub(r"^grad", "", base)
    base = base[:1].lower() + base[1:] if base else base
    names = [base, base + "Optional"]
    if base in ("input", "in", "", "self"):
        names += ["self", "input", "x"]
    if output in ("out", "output", "result", "y"):
        names += ["self", "input", "x", "gradOutput"]
    return [n for n in dict.fromkeys(names) if n in inputs]


def _covered(d: Draft, drafts) -> bool:
    """Whether an equality rule (same dtype/shape/format) is already implied by a check with more params."""
    if d.kind not in ("dtype_same", "shape_same", "format_same"):
        return False
    return any(x.kind == d.kind and not x.when and set(d.params) <= set(x.params or ()) for x, _ in drafts)


def _draft_key(d: Draft) -> tuple:
    return (d.kind, tuple(d.params or ()), tuple(d.lengths or ()), d.expr, d.when)


def _slug(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"-\1", name).lower()


_EXPR_WORDS = {
    "true",
    "false",
    "and",
    "or",
    "not",
    "all",
    "any",
    "for",
    "in",
    "range",
    "len",
    "min",
    "max",
    "if",
    "else",
}
_EXPR_WORDS |= {"v", "i", "shape", "rank", "dtype", "value", "format", "promotable", "promote", "castable", "empty"}


def _check_id(d: Draft) -> tuple[str, str]:
    """(base id, qualifier used when the base is taken) of a check."""
    kind = d.kind.replace("_", "-")
    first = _slug(d.params[0]) if d.params else ""
    if d.kind == "not_null":
        if d.when:
            return f"null-{first}", ""
        return ("null-pointers" if d.documented else "null-pointers-undocumented"), first
    if d.kind == "expr":
        if not d.mapped or d.expr == PLACEHOLDER:
            return "unmapped", ""
        words = [w for w in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", d.expr or "") if w not in _EXPR_WORDS]
        words = [w for w in words if not re.fullmatch(r"[A-Z0-9_]+", w)]
        return ("rule-" + _slug(words[0]) if words else "rule"), (_slug(words[1]) if len(words) > 1 else "")
    return kind, first


# --- example --------------------------------------------------------------------------------


def _default_format(formats: list[str] | None, rank: int) -> str | None:
    from generator.runtime.values import default_format

    if not formats:
        return None
    for candidate in ("ND", default_format(rank)):
        if candidate in formats:
            return candidate
    return formats[0]


def example_value(p: ParamDraft, sample_value, product: str):
    """The example's value of one input: the sample's when it can be read, else a minimal one."""
    from_sample = sample_value is not None
    v = sample_value
    if p.is_tensor:
        if v is not None and v.kind == "null" and p.nullable:
            return None, True
        if v is None or v.kind != "tensor" or not v.shape and v.shape != []:
            from_sample = False
            v = None
        shape = list(v.shape) if v is not None and v.shape is not None else _minimal_shape(p)
        dtypes = p.dtypes.get(product) or next(iter(p.dtypes.values()), ["FLOAT"])
        dtype = v.dtype if v is not None and v.dtype else dtypes[0]
        out: dict = {"shape": shape, "dtype": dtype}
        fmt = v.format if v is not None and v.format else None
        if p.formats and (fmt is None or fmt not in p.formats):
            fmt = _default_format(p.formats, len(shape))
        if fmt and fmt != "ND":
            out["format"] = fmt
        count = 1
        for d in shape:
            count *= d
        if v is not None and v.data is not None and len(v.data) == count and count <= 4096:
            out["data"] = [bool(x) if dtype == "BOOL" else x for x in v.data]
        elif v is not None and v.fill is not None and not isinstance(v.fill, bool):
            out["fill"] = v.fill
        return out, from_sample
    if p.ctype == "const aclScalar*":
        if v is not None and v.kind == "null" and p.nullable:
            return None, True
        value = v.value if v is not None and v.kind == "scalar" and isinstance(v.value, (int, float)) else None
        dtype = v.dtype if v is not None and v.kind == "scalar" and v.dtype else None
        if value is None:
            from_sample = False
            value = 1.0
        if dtype is None:
            dtypes = p.scalar_dtypes.get(product) if p.scalar_dtypes else None
            dtype = p.castable_to or (dtypes[0] if dtypes else "FLOAT")
        return {"value": value, "dtype": dtype}, from_sample
    if p.ctype in ARRAY_ELEMENT:
        if v is not None and v.kind == "null" and p.nullable:
            return None, True
        if v is not None and v.kind == "list" and isinstance(v.value, list):
            values = v.value
            if p.ctype == "const aclBoolArray*":
                return [bool(x) for x in values], from_sample
            if all(isinstance(x, int) and not isinstance(x, bool) for x in values):
                return list(values), from_sample
        n = (p.lengths or [2])[-1] if p.lengths else 2
        return ([True] * n if p.ctype == "const aclBoolArray*" else [1] * n), False
    if p.ctype == "bool":
        if v is not None and v.kind == "plain" and isinstance(v.value, (bool, int)):
            return bool(v.value), from_sample
        return False, False
    if p.ctype in ("double", "float"):
        if v is not None and v.kind == "plain" and isinstance(v.value, (int, float)) and not isinstance(v.value, bool):
            return float(v.value), from_sample
        return 1.0, False
    if v is not None and v.kind == "plain" and isinstance(v.value, (int, bool)):
        return int(v.value), from_sample
    if v is not None and v.kind == "plain" and isinstance(v.value, float) and v.value.is_integer():
        return int(v.value), from_sample
    return 0, False


def _minimal_shape(p: ParamDraft) -> list[int]:
    low, high = p.rank if p.rank else (2, 2)
    rank = min(max(low, 2), high)
    return [2] * rank


# --- one spec -------------------------------------------------------------------------------


def build_spec(
    doc: DocFacts, api: ApiFacts, ctx, en: DocFacts | None = None, source_name: str | None = None
) -> ImportedSpec:
    b = Builder(doc, api, ctx, en)
    b.build_products()
    b.build_params()
    checks = b.build_checks()
    sample = api.sample if api.sample and api.sample.call_found else None
    b.build_infer(sample)
    en_doc = en
    name = api.name
    snake = op_snake(name)
    data: dict = {"name": name, "snake": snake, "header": _header(api, snake)}
    summary = doc.summary or name
    if not doc.summary:
        b.spec_review.append("summary: the doc has no 功能说明; write one")
    data["summary"] = text(_text(summary), en_doc.summary if en_doc and en_doc.summary else None)
    description = doc.description or summary
    data["description"] = text(_text(description), en_doc.description if en_doc and en_doc.description else None)
    if doc.formula:
        data["formula"] = doc.formula + "\n"
    sources = {}
    source = source_name or doc.path.replace("\\", "/").rsplit("/", 1)[-1]
    sources["seed" if doc.format == "seed" else "doc"] = source
    data["sources"] = sources
    data["products"] = list(b.products)
    if doc.deterministic:
        data["deterministic"] = text(
            doc.deterministic, en_doc.deterministic if en_doc and en_doc.deterministic else None
        )
    data["params"] = [b.param_dict(p) for p in b.params]
    data["checks"] = checks
    constraints = _constraints(b, doc, api, en_doc)
    if constraints:
        data["constraints"] = constraints
    if b.doc_issues:
        data["doc_issues"] = b.doc_issues
    data["example"] = _example(b, sample, checks)
    if b.spec_review:
        data["review"] = "; ".join(b.spec_review)
    _self_check(b, data)
    _count(b, data)
    return ImportedSpec(name, snake, data, b.coverage, b.messages)


def _header(api: ApiFacts, snake: str) -> str:
    if api.sample is not None:
        m = re.search(r'#include\s+"(aclnnop/aclnn_[a-z0-9_]+\.h)"', api.sample.code)
        if m:
            return m.group(1)
    return f"aclnnop/aclnn_{snake}.h"


def _constraints(b: Builder, doc: DocFacts, api: ApiFacts, en: DocFacts | None) -> list[dict]:
    out = []
    en_constraints = en.constraints if en is not None and len(en.constraints) == len(doc.constraints) else []
    for i, c in enumerate(doc.constraints):
        item: dict = {"text": text(_text(c.text), en_constraints[i].text if en_constraints else None)}
        products = [t for t in (c.products or []) if t in b.products]
        if c.products and products and set(products) != set(b.products):
            item["products"] = products
        if c.products and not products:
            continue  # only about products the op does not support
        if c.review:
            item["review"] = c.review
        out.append(item)
    en_notes = b.en_api.notes if b.en_api is not None and len(b.en_api.notes) == len(api.notes) else []
    for i, note in enumerate(api.notes):
        if note.mapped:
            continue
        item = {"text": text(_text(note.text), en_notes[i].text if en_notes else None)}
        products = [t for t in (note.products or []) if t in b.products]
        if note.products and not products:
            continue
        if note.products and set(products) != set(b.products):
            item["products"] = products
        item["review"] = "a note below the parameter table: check whether it is a rule (a check) or stays prose"
        out.append(item)
    return out


def _indexed(b: Builder, checks: list[dict]) -> dict[str, int]:
    """For each list parameter, the length the rules need (``outputMask[2]`` needs 3)."""
    texts = [c.get(k, "") for c in checks for k in ("when", "expr")]
    texts += [v for p in b.params if p.infer for v in p.infer.values()]
    need: dict[str, int] = {}
    for text in texts:
        for name, index in re.findall(r"\b([A-Za-z_][A-Za-z0-9_]*)\[(\d+)\]", text or ""):
            need[name] = max(need.get(name, 0), int(index) + 1)
    return need


def _example(b: Builder, sample, checks: list[dict]) -> dict:
    values = sample.values if sample is not None else {}
    product = PREFERRED_PRODUCT if PREFERRED_PRODUCT in b.products else b.products[0]
    inputs: dict = {}
    all_from_sample = sample is not None
    need = _indexed(b, checks)
    for p in b.params:
        if p.role == "output":
            continue
        value, from_sample = example_value(p, values.get(p.name), product)
        if isinstance(value, list) and len(value) < need.get(p.name, 0):
            fill = True if p.ctype == "const aclBoolArray*" else 1
            value = value + [fill] * (need[p.name] - len(value))
            from_sample = False
        all_from_sample = all_from_sample and from_sample
        inputs[p.name] = value
    example: dict = {"product": product, "inputs": inputs}
    b.coverage.example_from_sample = all_from_sample
    if not all_from_sample:
        example["review"] = (
            "built from the parameter tables (the sample could not be read for every input): check the values"
            if sample is not None
            else "built from the parameter tables (the doc has no readable sample): check the values"
        )
    return example


def _self_check(b: Builder, data: dict) -> None:
    """Load the spec as ``opgen lint`` does; run its example through its own validator.

    A check that does not load is replaced by a placeholder kept for review; an enforced check that
    rejects the doc's own example becomes unenforced (for review). The example's product is the first
    (preferred product first) on which the example passes.
    """
    from generator.diagnostics import SpecError
    from generator.docimport import validator
    from generator.runtime import AclnnError
    from generator.runtime.examples import arguments

    ctx = b.ctx
    for _ in range(len(data["checks"]) + 5):
        try:
            info = validator.load_spec(data, ctx.catalog)
        except SpecError as exc:
            if not _repair(b, data, exc.diagnostics):
                for d in exc.diagnostics:
                    b.warn(b.api.line, f"the imported spec does not load: {d.path}: {d.message}", "error")
                return
            continue
        break
    else:
        return
    _install_catalog(ctx.catalog)
    try:
        module = validator.validator_module(data, ctx.catalog)
    except Exception as exc:  # noqa: BLE001 - a generator problem must not lose the import
        b.warn(b.api.line, f"could not build the validator to check the example ({exc}); the example is unchecked")
        data["example"]["review"] = "the example could not be checked against the spec's own validator"
        return
    example = info.spec.example
    args = arguments(info.spec, example, with_data=False)
    order = [example.product] + [t for t in data["products"] if t != example.product]
    failures: dict[str, AclnnError] = {}
    for product in order:
        try:
            validator.validate(module, product, args)
        except AclnnError as exc:
            failures[product] = exc
            continue
        except Exception as exc:  # noqa: BLE001 - a broken example must not crash the import
            failures[product] = AclnnError(161002, "ACLNN_ERR_PARAM_INVALID", str(exc))
            continue
        data["example"]["product"] = product
        return
    # No product accepts the example: demote the checks that reject it, one at a time.
    product = example.product
    data["example"]["product"] = product
    for _ in range(len(data["checks"])):
        exc = failures.get(product)
        if exc is None:
            return
        check = next((c for c in data["checks"] if c["id"] == getattr(exc, "check", None)), None)
        if check is None or not check.get("enforced", True):
            b.warn(_sample_line(b), f"the example does not validate ({exc}); check the example", "warning")
            data["example"]["review"] = f"the example does not validate: {exc}"
            return
        check["enforced"] = False
        note = "rejects the doc's own example, so it is not enforced: check the rule or the example"
        check["review"] = f"{check['review']}; {note}" if check.get("review") else note
        line = b.check_lines.get(check["id"], b.api.line)
        b.warn(line, f"check '{check['id']}' rejects the doc's own example; kept unenforced for review", "note")
        try:
            module = validator.validator_module(data, ctx.catalog)
            validator.validate(module, product, args)
            return
        except AclnnError as again:
            failures[product] = again
        except Exception as again:  # noqa: BLE001
            data["example"]["review"] = f"the example does not validate: {again}"
            return


def _sample_line(b: Builder) -> int:
    return b.api.sample.line if b.api.sample is not None else b.api.line


def _repair(b: Builder, data: dict, diagnostics) -> bool:
    """Replace the checks a load error points at by placeholders for review; False if none."""
    repaired = False
    for d in diagnostics:
        m = re.match(r"checks\[(\d+)\]", d.path)
        if not m:
            continue
        i = int(m.group(1))
        if i >= len(data["checks"]):
            continue
        c = data["checks"][i]
        if c.get("kind") == "expr" and c.get("expr") == PLACEHOLDER and "when" not in c:
            continue
        data["checks"][i] = {
            "id": c["id"],
            "kind": "expr",
            "code": c["code"],
            "expr": PLACEHOLDER,
            "text": c["text"],
            **({"documented": c["documented"]} if "documented" in c else {}),
            "enforced": False,
            "review": f"not mapped ({d.message}): write the rule",
        }
        repaired = True
    return repaired


_INSTALLED: list = [None]


def _install_catalog(catalog) -> None:
    if _INSTALLED[0] is catalog:
        return
    from generator import runtime as rt

    rt.install_catalog(
        [d.model_dump(mode="json") for d in catalog.dtypes.dtypes],
        [f.model_dump(mode="json") for f in catalog.formats.formats],
        [p.model_dump(mode="json") for p in catalog.products.products],
        [s.model_dump(mode="json") for s in catalog.status_codes.status_codes],
    )
    _INSTALLED[0] = catalog


def _count(b: Builder, data: dict) -> None:
    cov = b.coverage
    cov.checks = len(data["checks"])
    cov.checks_enforced = sum(1 for c in data["checks"] if c.get("enforced", True))
    cov.constraints = len(data.get("constraints", []))

    def reviews(value) -> int:
        if isinstance(value, dict):
            return int("review" in value) + sum(reviews(v) for k, v in value.items() if k != "review")
        if isinstance(value, list):
            return sum(reviews(v) for v in value)
        return 0

    cov.reviews = reviews(data)
