"""Docs emitter: user pages (zh, en), maintainers' pages, the index, the support matrix and the site.

User pages (``docs/<lang>/aclnn<Op>.md``) follow the upstream aclnn layout (ops-nn ``docs/aclnn*.md``):
product list in npu comment blocks, description and formula, the two prototypes, the first-phase
parameter table and error table (one ``rowspan`` group per status code CANN returns), the
second-phase table, constraints (per-product ones as upstream's constraint table) and the generated
call sample. They carry only what changes how the operator is called.

Maintainers' pages (``docs/<lang>/maintainers/aclnn<Op>.md``) carry the provenance: sources, every
check in CANN's order with its flags and notes, the deviations between the docs and CANN's code,
unverified readings and the defects of the source documents with their resolutions.

What goes where is derived from the spec, no field marks it: ``doc_issues`` and check ``note``\\ s are
maintainers' material; a check CANN does not enforce (``enforced: false``) or that an earlier check
always pre-empts (``cases.shadowed_by``) is no row of the user's error table; a check whose code
differs from the doc's (``doc_code``) gets a user-facing footnote (what CANN returns), since that
changes how a caller handles the error.

Every spec or catalogue string reaches a page through :mod:`generator.escape.markdown`; templates
only lay the escaped pieces out. ``flavour="site"`` renders the same pages for the static site
(links to ``.html``, formulas as MathML); :mod:`generator.emit.site` turns them into HTML.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from generator.emit.view import OpView
from generator.escape import markdown as esc
from generator.loader import Catalog, OpInfo, Project
from generator.model import Check, Constraint, OpSpec, Param, Text

LANGS = ("zh", "en")

# Upstream context pages (two-phase API, return codes, ...) are not generated here: link them absolutely.
UPSTREAM = "https://gitcode.com/cann/ops-nn/blob/master/"
UPSTREAM_TREE = "https://gitcode.com/cann/ops-nn/tree/master/"
CONTEXT_URL = UPSTREAM + "docs/zh/context/"
SUPPORT_URL = "https://www.hiascend.com/support"

# The npu="..." keys upstream docs use in their product comment blocks (catalogue tag -> key).
NPU_KEYS = {"910_93": "A3"}

# Plain C values: the data type column shows the matching aclDataType name.
PLAIN_DTYPES = {
    "bool": "BOOL",
    "int": "INT32",
    "int8_t": "INT8",
    "int32_t": "INT32",
    "int64_t": "INT64",
    "uint64_t": "UINT64",
    "float": "FLOAT",
    "double": "DOUBLE",
}

# Terms of the prose that upstream links to a context page (first occurrence per field).
GLOSSARY = {
    "zh": {
        "互转换关系": CONTEXT_URL + "conversion_relationship.md",
        "互推导关系": CONTEXT_URL + "deduction_relationship.md",
        "broadcast关系": CONTEXT_URL + "broadcast_relationship.md",
        "非连续的Tensor": CONTEXT_URL + "non_contiguous_tensor.md",
        "获取技术支持": SUPPORT_URL,
    },
    "en": {
        "conversion rules": CONTEXT_URL + "conversion_relationship.md",
        "promotion rules": CONTEXT_URL + "deduction_relationship.md",
        "broadcast rules": CONTEXT_URL + "broadcast_relationship.md",
        "non-contiguous tensors": CONTEXT_URL + "non_contiguous_tensor.md",
        "contact technical support": SUPPORT_URL,
    },
}
# "see the constraints" in a parameter row links to the section (upstream does so in zh).
CONSTRAINTS_REF = {"zh": ("约束说明", "#约束说明"), "en": ("the constraints", "#constraints")}

LABELS: dict[str, dict[str, str]] = {
    "zh": {
        "lang_switch": "English",
        "index": "算子文档索引",
        "matrix": "支持矩阵",
        "source": "📄 查看源码",
        "products": "产品支持情况",
        "supported": "支持",
        "unsupported": "不支持",
        "function": "功能说明",
        "function_item": "接口功能",
        "formula_item": "计算公式",
        "prototype": "函数原型",
        "params": "参数说明",
        "returns": "返回值",
        "constraints": "约束说明",
        "determinism": "确定性计算",
        "precision": "精度说明",
        "example": "调用示例",
        "no_constraints": "无。",
        "col_name": "参数名",
        "col_io": "输入/输出",
        "col_desc": "描述",
        "col_usage": "使用说明",
        "col_dtype": "数据类型",
        "col_format": "数据格式",
        "col_shape": "维度(shape)",
        "col_noncontig": "非连续Tensor",
        "col_ret": "返回值",
        "col_code": "错误码",
        "col_topic": "约束类型",
        "other_topic": "其他约束",
        "input": "输入",
        "output": "输出",
        "ws_size_desc": "返回需要在Device侧申请的workspace大小。",
        "executor_desc": "返回op执行器，包含了算子计算流程。",
        "workspace_desc": "在Device侧申请的workspace内存地址。",
        "executor2_desc": "op执行器，包含了算子计算流程。",
        "stream_desc": "指定执行任务的Stream。",
        "status_line": "aclnnStatus：返回状态码，具体参见[aclnn返回码]({url}aclnn_return_code.md)。",
        "first_phase_errors": "第一段接口完成入参校验，出现以下场景时报错：",
        "code_note": "上游文档将此情形列为{doc}（{doc_name}），CANN实际返回{code}（{name}）。",
        "sample_intro": "示例代码如下，仅供参考，具体编译和执行过程请参考[编译与运行样例]({url}compile_and_run_sample.md)。",
        "sample_file": "该示例由生成器根据规格生成，对应文件{paths}。",
        "sample_for": "适用于{products}（数据布局与产品相关）：",
        "path_sep": "、",
        "scenario": "示例场景（{product}）：",
        "expected": "期望输出（容差：rtol={rtol}，atol={atol}）：",
        "fill": "全部{count}个元素均为{value}",
        "enum_intro": "支持的枚举值如下：",
        "range": "取值范围为[{lo}, {hi}]。",
        "no_empty": "不支持空Tensor。",
        "castable": "可转换为{dtype}的数据类型",
        # maintainers' page
        "m_title": "{name}：维护者说明",
        "m_intro": "本页记录规格的来源与整理过程，供规格维护者使用；算子的使用说明见[{name}]({page})。",
        "m_sources": "来源",
        "m_spec": "规格文件",
        "m_seed": "种子文档",
        "m_doc": "上游文档",
        "m_code": "CANN源码",
        "m_kernel": "参考实现",
        "m_deviations": "文档与代码的差异",
        "m_deviations_intro": "以下检查与文档所述不同（以CANN代码为准）：",
        "m_unverified": "未确认的解读",
        "m_checks": "全部参数校验（按CANN执行顺序）",
        "m_issues": "源文档勘误",
        "m_resolution": "处理",
        "m_none": "无。",
        "col_no": "序号",
        "col_check": "检查",
        "col_rule": "规则",
        "col_flags": "标记",
        "col_remark": "备注",
        "col_source": "来源",
        "col_issue": "问题",
        "flag_undocumented": "文档未列出",
        "flag_unenforced": "CANN不校验",
        "flag_shadowed": "被{check}先行拦截",
        "flag_doc_code": "文档错误码{doc}",
        "products_col": "产品",
        "all_products": "全部",
    },
    "en": {
        "lang_switch": "中文",
        "index": "Operator index",
        "matrix": "Support matrix",
        "source": "📄 Source code",
        "products": "Supported Products",
        "supported": "supported",
        "unsupported": "not supported",
        "function": "Function Description",
        "function_item": "Function",
        "formula_item": "Formula",
        "prototype": "Function Prototype",
        "params": "Parameters",
        "returns": "Returns",
        "constraints": "Constraints",
        "determinism": "Determinism",
        "precision": "Precision",
        "example": "Example",
        "no_constraints": "None.",
        "col_name": "Parameter",
        "col_io": "Input/Output",
        "col_desc": "Description",
        "col_usage": "Usage",
        "col_dtype": "Data Type",
        "col_format": "Data Format",
        "col_shape": "Dimensions (shape)",
        "col_noncontig": "Non-contiguous Tensor",
        "col_ret": "Return Value",
        "col_code": "Error Code",
        "col_topic": "Constraint",
        "other_topic": "Other",
        "input": "Input",
        "output": "Output",
        "ws_size_desc": "Returns the size of the workspace to allocate on the device.",
        "executor_desc": "Returns the op executor, which holds the computation.",
        "workspace_desc": "Address of the workspace allocated on the device.",
        "executor2_desc": "The op executor, which holds the computation.",
        "stream_desc": "The stream that runs the task.",
        "status_line": "aclnnStatus: the status code; see [aclnn return codes]({url}aclnn_return_code.md) (Chinese).",
        "first_phase_errors": "The first phase validates the arguments and fails in these cases:",
        "code_note": "Upstream docs list this case under {doc} ({doc_name}); CANN returns {code} ({name}).",
        "sample_intro": (
            "The sample below is for reference only; to build and run it, see "
            "[Compile and run samples]({url}compile_and_run_sample.md) (Chinese)."
        ),
        "sample_file": "The sample is generated from the spec as {paths}.",
        "sample_for": "For {products} (the data layout depends on the product):",
        "path_sep": ", ",
        "scenario": "Scenario ({product}): ",
        "expected": "Expected output (tolerance: rtol={rtol}, atol={atol}):",
        "fill": "all {count} elements are {value}",
        "enum_intro": "Supported values:",
        "range": "Valid range: [{lo}, {hi}].",
        "no_empty": "Empty tensors are not supported.",
        "castable": "any dtype convertible to {dtype}",
        "m_title": "{name}: maintainer notes",
        "m_intro": "How the spec was consolidated, for the spec's maintainers; how to call the operator is on [{name}]({page}).",
        "m_sources": "Sources",
        "m_spec": "Spec file",
        "m_seed": "Seed doc",
        "m_doc": "Upstream doc",
        "m_code": "CANN source",
        "m_kernel": "Reference kernel",
        "m_deviations": "Deviations between the docs and the code",
        "m_deviations_intro": "These checks differ from what the docs say (the CANN code is authoritative):",
        "m_unverified": "Unverified readings",
        "m_checks": "All parameter checks (in CANN's order)",
        "m_issues": "Defects of the source documents",
        "m_resolution": "Resolution",
        "m_none": "None.",
        "col_no": "No.",
        "col_check": "Check",
        "col_rule": "Rule",
        "col_flags": "Flags",
        "col_remark": "Remarks",
        "col_source": "Source",
        "col_issue": "Issue",
        "flag_undocumented": "not in the doc",
        "flag_unenforced": "not checked by CANN",
        "flag_shadowed": "pre-empted by {check}",
        "flag_doc_code": "doc code {doc}",
        "products_col": "Products",
        "all_products": "all",
    },
}
SOURCES = {
    "zh": {"seed": "种子文档", "doc": "当前文档", "code": "代码", "sample": "调用示例"},
    "en": {"seed": "seed doc", "doc": "current doc", "code": "code", "sample": "sample"},
}
SEP = {"zh": "、", "en": ", "}
COLON = {"zh": "：", "en": ": "}
# Words that mark a note as an unverified reading (listed separately on the maintainers' page).
UNVERIFIED = re.compile(r"未确认|未验证|not verified|unverified", re.I)


# ---------------------------------------------------------------------------------------------
# Text helpers


def pick(text: Text | None, lang: str) -> str:
    """The text in ``lang`` (one line); a missing English text falls back to the Chinese one, marked "(zh)"."""
    if text is None:
        return ""
    if lang == "zh" or text.en:
        return esc.clean(text.zh if lang == "zh" else text.en)
    return esc.clean(text.zh) + " (zh)"


_OPENERS, _CLOSERS = "（([“‘【", "）)]”’】"
_ABBREVIATIONS = ("e.g.", "i.e.", "etc.", "vs.", "cf.")


_SENTENCE_MARKS = re.compile(r"[（(\[“‘【）)\]”’】。]|[.!?](?= )")  # brackets, and the possible sentence ends


def sentences(text: str) -> list[str]:
    """Split prose into sentences at top-level '。' (and '. ' before a capital), as upstream's <li> items."""
    out, start, depth = [], 0, 0
    for match in _SENTENCE_MARKS.finditer(text):
        ch, i = match.group(), match.start()
        if ch in _OPENERS:
            depth += 1
        elif ch in _CLOSERS:
            depth = max(0, depth - 1)
        elif depth == 0:
            end = ch == "。"
            if ch != "。" and text[i + 2 : i + 3].isupper():  # ". " before a capital
                end = not text[start : i + 1].rstrip().endswith(_ABBREVIATIONS)
            if end:
                out.append(text[start : i + 1].strip())
                start = i + 1
    if text[start:].strip():
        out.append(text[start:].strip())
    return out


def cell(items: list[str]) -> str:
    """Already-escaped items as one table cell: a single item as is, several as <ul><li>, none as '-'."""
    items = [i for i in items if i]
    if not items:
        return "-"
    if len(items) == 1:
        return items[0]
    return "<ul>" + "".join(f"<li>{i}</li>" for i in items) + "</ul>"


def _squash(text: str) -> str:
    return "".join(text.split()).lower()


_ACLNN_NAME = re.compile(r"(?<![A-Za-z0-9])aclnn[A-Z][A-Za-z0-9]*(?![A-Za-z0-9])")


_TOKEN = re.compile(r"aclnn[A-Za-z0-9]*")  # every place an operator name could start (a superset)


class Linker:
    """Links the first occurrence of known terms and operator names inside already-escaped text.

    ``names`` are the operators of the project (their pages are linked); an operator name of the
    spec's ``sources.links`` that is not one of them links upstream. Only the names the text
    contains can be linked: every ``aclnn...`` token seen is added to ``mentions`` (when given), so
    the pages of an op depend on the set of operator names only through ``mentions & names``.
    """

    def __init__(self, names, spec: OpSpec, lang: str, prefix: str, ext: str, mentions: set[str] | None = None):
        self.lang, self.spec, self.prefix, self.ext = lang, spec, prefix, ext
        self.names = names
        self.mentions = mentions
        self.glossary: dict[str, str] = dict(GLOSSARY[lang])
        # (operators linked here, extra terms) -> (targets, words, pattern): most texts of a page link the
        # same terms, so the alternation is built once per set
        self._patterns: dict[tuple, tuple] = {}

    def __call__(self, escaped: str, html: bool, extra: dict[str, str] | None = None) -> str:
        tokens = set(_TOKEN.findall(escaped))
        if self.mentions is not None:
            self.mentions.update(tokens)
        ops = frozenset(t for t in tokens if t in self.names)  # the only operator pages that could be linked here
        linked = (ops, tuple(extra.items()) if extra else ())
        found = self._patterns.get(linked)
        if found is None:
            found = self._patterns[linked] = self._pattern(ops, extra)
        targets, words, pattern = found
        if pattern is None:
            return escaped
        done: set[str] = set()

        def replace(match: re.Match) -> str:
            text = match.group(0)
            key = next(w for w in words if esc.html_text(w) == text)
            if key in done:
                return text
            done.add(key)
            href = esc.url(targets[key])
            if html:
                return f'<a href="{esc.html_attr(href)}">{text}</a>'
            return f"[{text}]({href})"

        # never inside a tag or an existing link
        parts = re.split(r"(<a\b.*?</a>|<[^>]*>|\[[^\]]*\]\([^)]*\))", escaped)
        return "".join(part if i % 2 else pattern.sub(replace, part) for i, part in enumerate(parts))

    def _pattern(self, ops: frozenset, extra: dict[str, str] | None) -> tuple:
        """The link targets of a text mentioning the operators ``ops``, its words (longest first) and their
        pattern (None when nothing can be linked)."""
        spec = self.spec
        targets = dict(self.glossary)
        for name in sorted(ops | set(spec.sources.links)):
            if name == spec.name:
                continue
            if name in ops:
                targets[name] = f"{self.prefix}{name}{self.ext}"
            else:
                targets[name] = UPSTREAM + spec.sources.links[name]
        targets.update(extra or {})
        if not targets:
            return targets, [], None
        words = sorted(targets, key=len, reverse=True)
        pattern = re.compile(
            "|".join(
                rf"(?<![A-Za-z0-9]){re.escape(w)}(?![A-Za-z0-9])"
                if w.startswith("aclnn")
                else re.escape(esc.html_text(w))
                for w in words
            )
        )
        return targets, words, pattern


# ---------------------------------------------------------------------------------------------
# Constraint topics


_TOPIC_ZH = re.compile(r"^(?P<label>[^：:。，,；;（(]{1,24}?)[：:]\s*")
_TOPIC_EN = re.compile(r"^(?P<label>[A-Za-z][^:。.;,(]{0,39}):\s+")


def topic(text: str, lang: str) -> tuple[str | None, str]:
    """Split a leading topic label ("空Tensor约束：" / "Empty tensors: ") from a constraint text."""
    match = (_TOPIC_ZH if lang == "zh" else _TOPIC_EN).match(text)
    if not match or not match.group(0).strip() or len(text) <= len(match.group(0)):
        return None, text
    return match.group("label").strip(), text[match.end() :]


# ---------------------------------------------------------------------------------------------
# Per-op user page


@dataclass
class _Row:
    """One description row of the error table (checks with the same text share it)."""

    text: str
    checks: list[Check] = field(default_factory=list)
    products: set[str] | None = field(default_factory=set)  # None: every product


@dataclass(frozen=True)
class _ParamCells:
    """What of a parameter's row is the same in both flavours: the cells before and after the linked
    ones, the texts to link (its description, its usage sentences, with the link extras) and the
    usage notes that follow those sentences."""

    head: dict
    description: str
    usage_sentences: list[str]
    extra: dict | None
    usage_notes: list[str]
    tail: dict


class _Page:
    """One op's user page in one language and flavour.

    ``shared``: a dict given to the pages of both flavours of one op, which then compute once what
    is the same in both (see :meth:`once`): everything but the links (to ``.md`` or ``.html``
    pages) and the formulas."""

    def __init__(self, info: OpInfo, catalog: Catalog, names, lang: str, samples: list[dict] | None,
                 flavour: str = "md", mentions: set[str] | None = None, view: OpView | None = None,
                 shared: dict | None = None):  # fmt: skip
        self.info, self.spec, self.catalog, self.lang = info, info.spec, catalog, lang
        self.shared = shared if shared is not None else {}
        self.view = view if view is not None else OpView(info)
        self.L = LABELS[lang]
        self.samples = samples  # generator.emit.cpp.op_samples: one per product data layout
        self.flavour = flavour
        self.ext = ".html" if flavour == "site" else ".md"
        self.link = Linker(names, self.spec, lang, "", self.ext, mentions)
        self._npu_id = 0

    def once(self, key, compute):
        """``compute()``, or what it gave the other flavour's page: only for results that neither
        link (:class:`Linker` depends on the flavour) nor number anything (``npu``)."""
        key = (self.lang, key)
        if key not in self.shared:
            self.shared[key] = compute()
        return self.shared[key]

    # -- shared bits

    def product_name(self, tag: str) -> str:
        product = self.catalog.product(tag)
        return product.zh if self.lang == "zh" else product.en

    def ordered(self, tags) -> list[str]:
        return [t for t in self.catalog.product_tags if t in set(tags)]

    def terms(self, tags) -> str:
        """Product names as upstream writes them: <term>A</term>、<term>B</term>."""
        return SEP[self.lang].join(esc.term(self.product_name(t)) for t in self.ordered(tags))

    def prefix(self, tags, text: str = "") -> str:
        """'<term>A</term>、<term>B</term>：' for a product-restricted statement.

        Empty when the statement covers every product of the op, or when ``text`` already starts with the
        name of one of the products (e.g. "Atlas 训练系列产品：当输入数据是FLOAT类型时…").
        """
        if tags is None or set(self.spec.products) <= set(tags):
            return ""
        head = _squash(text)
        for tag in tags:
            product = self.catalog.product(tag)
            names = [product.zh, product.en, *(a for a in product.aliases if len(a) >= 6)]
            if any(head.startswith(_squash(name)) for name in names):
                return ""
        return self.terms(tags) + COLON[self.lang]

    def npu(self, tags) -> tuple[str, str]:
        """Opening and closing npu comment lines for a product-specific block."""
        self._npu_id += 1
        keys = ",".join(NPU_KEYS.get(t, t) for t in self.ordered(tags))
        return f'<!-- npu="{keys}" id{self._npu_id} -->', f"<!-- end id{self._npu_id} -->"

    def status(self, ref) -> tuple[int, str]:
        return self.catalog.status(ref)

    def html_prose(self, text: str, extra=None) -> list[str]:
        """Prose as escaped, linked sentences for a table cell."""
        return [self.link(esc.html_text(s), True, extra) for s in sentences(text)] if text else []

    def md_prose(self, text: str) -> str:
        return self.link(esc.md_inline(text), False)

    # -- sections

    def products(self) -> list[dict]:
        rows = []
        for product in self.catalog.products.products:
            start, end = self.npu([product.tag])
            supported = product.tag in self.spec.products
            rows.append(
                {
                    "start": start,
                    "end": end,
                    "name": esc.html_md(self.product_name(product.tag)),
                    "value": self.L["supported"] if supported else self.L["unsupported"],
                }
            )
        return rows

    def formulas(self) -> list[str]:
        if not self.spec.formula:
            return []
        lines = [line.strip() for line in self.spec.formula.strip().splitlines() if line.strip()]
        if self.flavour == "site":
            return [self.view.mathml(line) for line in lines]
        return [esc.formula_md(line) for line in lines]

    def prototypes(self) -> tuple[list[str], list[str]]:
        spec = self.spec
        first = [(p.ctype, p.name) for p in spec.params] + [
            ("uint64_t*", "workspaceSize"),
            ("aclOpExecutor**", "executor"),
        ]
        second = [
            ("void*", "workspace"),
            ("uint64_t", "workspaceSize"),
            ("aclOpExecutor*", "executor"),
            (spec.stream_ctype, "stream"),
        ]
        return _prototype(f"{spec.name}GetWorkspaceSize", first), _prototype(spec.name, second)

    def param_rows(self) -> list[dict]:
        rows = [self.param_row(p) for p in self.spec.params]
        L = self.L
        for name, desc in (
            ("workspaceSize（uint64_t*）", L["ws_size_desc"]),
            ("executor（aclOpExecutor**）", L["executor_desc"]),
        ):
            if self.lang == "en":
                name = name.replace("（", " (").replace("）", ")")
            rows.append(
                {"name": name, "io": L["output"], "desc": esc.html_text(desc), **dict.fromkeys(_DASH_COLUMNS, "-")}
            )
        return rows

    def param_row(self, p: Param) -> dict:
        cells = self.once(("param", p.name), lambda: self._param_cells(p))
        usage = [self.link(esc.html_text(s), True, cells.extra) for s in cells.usage_sentences] + cells.usage_notes
        return {**cells.head, "desc": cell(self.html_prose(cells.description)), "usage": cell(usage), **cells.tail}

    def _param_cells(self, p: Param) -> _ParamCells:
        lang, L = self.lang, self.L
        ctype = p.ctype.replace("const ", "")
        name = f"{p.name}（{ctype}）" if lang == "zh" else f"{p.name} ({ctype})"
        ref_word, ref_target = CONSTRAINTS_REF[lang]
        extra = {ref_word: ref_target} if self.spec.constraints else None
        description = pick(p.description, lang)
        usage_text = pick(p.usage, lang)
        seen = {_squash(s) for s in sentences(description)}
        usage_sentences = [s for s in sentences(usage_text) if _squash(s) not in seen]
        usage = []
        for default in self.spec.defaults:
            text = pick(default.text, lang)
            if default.param == p.name and _squash(text) not in _squash(usage_text):
                usage.append(esc.html_text(text))
        if p.value and p.value.enum:
            if lang == "zh":
                values = "".join(
                    f"<li>{v.value}：{esc.html_text(v.name)}，{esc.html_text(pick(v.description, lang))}</li>"
                    for v in p.value.enum
                )
            else:
                values = "".join(
                    f"<li>{v.value} ({esc.html_text(v.name)}): {esc.html_text(pick(v.description, lang))}</li>"
                    for v in p.value.enum
                )
            usage.append(f"{esc.html_text(L['enum_intro'])}<ul>{values}</ul>")
        if p.value and p.value.range and str(p.value.range[1]) not in usage_text:
            usage.append(esc.html_text(L["range"].format(lo=p.value.range[0], hi=p.value.range[1])))
        if p.tensor and not p.tensor.empty and "空Tensor" not in usage_text.replace("空tensor", "空Tensor"):
            usage.append(esc.html_text(L["no_empty"]))
        dtype, fmt, shape, noncontig = "-", "-", "-", "-"
        if p.tensor:
            dtype = self.rules_cell(p.tensor.dtypes)
            fmt = esc.html_text(SEP[lang].join(p.tensor.formats))
            shape_items = []
            if p.tensor.rank:
                lo, hi = p.tensor.rank.min, p.tensor.rank.max
                shape_items.append(str(lo) if lo == hi else f"{lo}-{hi}")
            if p.tensor.shape:
                shape_items.append(esc.html_text(pick(p.tensor.shape, lang)))
            shape = "<br>".join(shape_items) or "-"
            noncontig = "√" if p.tensor.non_contiguous else "×"
        elif p.array:
            dtype = esc.html_text(p.array.element)
        elif p.scalar:
            if p.scalar.dtypes:
                dtype = self.rules_cell(p.scalar.dtypes)
            elif p.scalar.castable_to:
                dtype = esc.html_text(L["castable"].format(dtype=p.scalar.castable_to))
        elif p.ctype in PLAIN_DTYPES:
            dtype = PLAIN_DTYPES[p.ctype]
        return _ParamCells(
            head={"name": esc.html_text(name), "io": L["output"] if p.role == "output" else L["input"]},
            description=description,
            usage_sentences=usage_sentences,
            extra=extra,
            usage_notes=usage,
            tail={"dtype": dtype, "format": fmt, "shape": shape, "noncontig": noncontig},
        )

    def rules_cell(self, rules) -> str:
        """Dtype list; spelled out per product group when the groups differ."""
        groups = [(self.spec.products if r.products == "all" else r.products, r.dtypes) for r in rules]
        if len({tuple(d) for _, d in groups}) == 1:
            return esc.html_text(SEP[self.lang].join(groups[0][1]))
        return "<br>".join(
            self.terms(tags) + COLON[self.lang] + esc.html_text(SEP[self.lang].join(d)) for tags, d in groups
        )

    def error_groups(self) -> tuple[list[dict], list[str]]:
        """The error table: what CANN returns, one group per status code; and the footnotes on it.

        Rows are the checks CANN runs (``enforced``) and that can fail on their own (not pre-empted by an
        earlier check, ``cases.shadowed_by``). Within a code: checks with the same text share a row;
        conditions for every product come first, then one row per group of products (their conditions
        as a list); texts that only differ in a trailing parenthesis ("X的shape不符合约束（...）") share a
        row with the details as a list, as upstream groups them. A check whose code differs from the
        doc's gets a footnote.
        """
        spec, lang = self.spec, self.lang
        groups: dict[int, dict] = {}
        for check in user_checks(spec):
            value, name = self.status(check.code)
            group = groups.setdefault(value, {"value": value, "name": name, "rows": {}})
            text = pick(check.text, lang)
            row = group["rows"].setdefault(text, _Row(text))
            row.checks.append(check)
            if check.products is None or row.products is None:
                row.products = None
            else:
                row.products |= set(check.products)
        notes: list[str] = []

        def item(row: _Row) -> str:
            markers = []
            for check in row.checks:
                note = self.code_note(check)
                if note:
                    if note not in notes:
                        notes.append(note)
                    markers.append(f"<sup>{notes.index(note) + 1}</sup>")
            return esc.html_text(row.text) + "".join(dict.fromkeys(markers))

        result = []
        for value in sorted(groups):
            group = groups[value]
            partitions: dict[frozenset | None, list[_Row]] = {}
            for row in group["rows"].values():
                covers_all = row.products is None or set(spec.products) <= row.products
                key = None if covers_all else frozenset(row.products)
                partitions.setdefault(key, []).append(row)
            out_rows = []
            for key, rows in sorted(partitions.items(), key=lambda kv: kv[0] is not None):
                merged = self.merge_heads(rows, item)
                if key is None:
                    out_rows += merged
                else:
                    head = self.terms(key) + COLON[lang]
                    out_rows.append(head + (merged[0] if len(merged) == 1 else cell(merged)))
            result.append({"value": value, "name": esc.html_text(group["name"]), "rows": out_rows})
        return result, [self.md_prose(n) for n in notes]

    def merge_heads(self, rows: list[_Row], item) -> list[str]:
        """Rows whose texts share the words before a trailing parenthesis become one row with a list."""
        opener, closer = ("（", "）") if self.lang == "zh" else (" (", ")")
        heads: dict[str, list[tuple[str, _Row]]] = {}
        order: list[str] = []
        for row in rows:
            text = row.text.rstrip("。.")
            key = row.text
            if text.endswith(closer) and opener in text:
                key = text[: text.index(opener)]
            if key not in heads:
                order.append(key)
            heads.setdefault(key, []).append((text, row))
        out = []
        for key in order:
            members = heads[key]
            if len(members) == 1:
                out.append(item(members[0][1]))
                continue
            details = []
            for text, row in members:
                detail = _Row(text[text.index(opener) + len(opener) : -len(closer)], row.checks)
                details.append(item(detail))
            out.append(esc.html_text(key) + COLON[self.lang] + cell(details))
        return out

    def code_note(self, check: Check) -> str:
        if check.doc_code is None:
            return ""
        code, name = self.status(check.code)
        doc, doc_name = self.status(check.doc_code)
        if doc == code:
            return ""
        return self.L["code_note"].format(doc=doc, doc_name=doc_name, code=code, name=name)

    def constraints(self) -> dict:
        """Per-product constraints as upstream's table (one row per topic), general ones as a list."""
        spec, lang = self.spec, self.lang
        specific: list[Constraint] = []
        general: list[str] = []
        seen: set[str] = set()
        for constraint in spec.constraints:
            text = pick(constraint.text, lang)
            if _squash(text) in seen:
                continue
            seen.add(_squash(text))
            if constraint.products is not None and not set(spec.products) <= set(constraint.products):
                specific.append(constraint)
            else:
                general.append(self.md_prose(text))
        table = self.constraint_table(specific) if specific else None
        return {"table": table, "general": general}

    def constraint_table(self, specific: list[Constraint]) -> dict:
        lang = self.lang
        members = {t: frozenset(i for i, c in enumerate(specific) if t in c.products) for t in self.spec.products}
        columns: list[tuple[list[str], frozenset]] = []
        for tag in self.ordered(self.spec.products):
            if not members[tag]:
                continue
            for tags, key in columns:
                if key == members[tag]:
                    tags.append(tag)
                    break
            else:
                columns.append(([tag], members[tag]))
        topics: dict[str, list[tuple[int, str]]] = {}
        for i, constraint in enumerate(specific):
            label, body = topic(pick(constraint.text, lang), lang)
            topics.setdefault(label or self.L["other_topic"], []).append((i, body))
        other = topics.pop(self.L["other_topic"], None)
        if other:
            topics[self.L["other_topic"]] = other
        rows = []
        for label, items in topics.items():
            cells = []
            for _, key in columns:
                texts = [self.link(esc.html_text(body), True) for i, body in items if i in key]
                cells.append(cell(texts))
            merged: list[dict] = []
            for content in cells:
                if merged and merged[-1]["text"] == content:
                    merged[-1]["span"] += 1
                else:
                    merged.append({"text": content, "span": 1})
            rows.append({"label": esc.html_text(label), "cells": merged})
        heads = []
        for tags, _ in columns:
            start, end = self.npu(tags)
            heads.append({"start": start, "end": end, "text": self.terms(tags)})
        return {"heads": heads, "rows": rows}

    def example(self) -> dict:
        spec, lang, L = self.spec, self.lang, self.L
        example = spec.example
        scenario = L["scenario"].format(product=esc.term(self.product_name(example.product)))
        expected_lines = []
        for name, tensor in example.expected.items():
            kind = self.catalog.dtype(tensor.dtype).kind
            shape = "[" + ", ".join(str(d) for d in tensor.shape) + "]"
            head = (
                f"{name}（shape {shape}，{tensor.dtype}）："
                if lang == "zh"
                else f"{name} (shape {shape}, {tensor.dtype}):"
            )
            expected_lines.append(head)
            count = 1
            for dim in tensor.shape:
                count *= dim
            if tensor.data is not None:
                values = [_number(v, kind) for v in tensor.data]
                for start in range(0, len(values), 8):
                    chunk = ", ".join(values[start : start + 8])
                    opener = "[" if start == 0 else " "
                    closer = "]" if start + 8 >= len(values) else ","
                    expected_lines.append(f"{opener}{chunk}{closer}")
                if not values:
                    expected_lines.append("[]")
            elif tensor.fill is not None:
                expected_lines.append(L["fill"].format(count=count, value=_number(tensor.fill, kind)))
        tol = example.tolerance
        expected = "\n".join(esc.clean(line) for line in expected_lines)
        return {
            "intro": L["sample_intro"].format(url=CONTEXT_URL),
            "file_line": L["sample_file"].format(paths=L["path_sep"].join(f"`{s['path']}`" for s in self.samples)),
            "scenario": scenario + esc.md_inline(pick(example.text, lang)) if example.text else "",
            "samples": [
                {
                    "heading": L["sample_for"].format(products=self.terms(s["products"]))
                    if len(self.samples) > 1
                    else "",
                    "code": _without_stamp(s["text"]).rstrip("\n"),
                    "fence": esc.fence(s["text"]),
                }
                for s in self.samples
            ],
            "expected_title": L["expected"].format(rtol=tol.rtol, atol=tol.atol),
            "expected": expected,
            "expected_fence": esc.fence(expected),
        }

    def context(self) -> dict:
        spec, lang, L = self.spec, self.lang, self.L
        first, second = self.once("prototypes", self.prototypes)
        errors, notes = self.error_groups()
        other = "en" if lang == "zh" else "zh"
        source = ""
        if spec.sources.code:
            source = f"[{L['source']}]({esc.url(UPSTREAM_TREE + spec.sources.code)})"
        return {
            "L": L,
            "lang": lang,
            "site": self.flavour == "site",
            "name": spec.name,
            "source": source,
            "nav": {
                "other": f"../{other}/{spec.name}{self.ext}",
                "other_label": L["lang_switch"],
                "index": f"../README{self.ext}" if self.ext == ".md" else "../index.html",
                "matrix": f"../support_matrix{self.ext}#{_anchor(spec.name)}",
            },
            "products": self.products(),
            "description": self.md_prose(pick(spec.description, lang)),
            "formulas": self.formulas(),
            "two_phase": _two_phase(spec.name, lang),
            "proto_first": first,
            "proto_second": second,
            "param_rows": self.param_rows(),
            "status_line": L["status_line"].format(url=CONTEXT_URL),
            "errors": errors,
            "notes": notes,
            "second_rows": [
                {"name": "workspace", "io": L["input"], "desc": esc.html_text(L["workspace_desc"])},
                {"name": "workspaceSize", "io": L["input"], "desc": esc.html_text(_ws_size_second(spec.name, lang))},
                {"name": "executor", "io": L["input"], "desc": esc.html_text(L["executor2_desc"])},
                {"name": "stream", "io": L["input"], "desc": esc.html_text(L["stream_desc"])},
            ],
            "deterministic": self.md_prose(pick(spec.deterministic, lang)) if spec.deterministic else "",
            "constraints": self.constraints(),
            "precision": [self.md_prose(pick(t, lang)) for t in spec.precision],
            "example": self.once("example", self.example),
        }


def _anchor(text: str) -> str:
    from generator.emit.matrix import anchor

    return anchor(text)


def user_checks(spec: OpSpec) -> list[Check]:
    """The checks that are rows of a user page's error table: enforced, and able to fail on their own."""
    return [c for c in spec.checks if c.enforced and not (c.cases and c.cases.shadowed_by)]


_DASH_COLUMNS = ("usage", "dtype", "format", "shape", "noncontig")


def _prototype(name: str, params: list[tuple[str, str]]) -> list[str]:
    width = max(len(ctype) for ctype, _ in params)
    lines = [f"aclnnStatus {name}("]
    for i, (ctype, pname) in enumerate(params):
        lines.append(f"  {ctype.ljust(width)} {pname}{',' if i < len(params) - 1 else ')'}")
    return lines


def _two_phase(name: str, lang: str) -> str:
    if lang == "zh":
        return (
            f"每个算子分为[两段式接口]({CONTEXT_URL}two_phase_api.md)，必须先调用“{name}GetWorkspaceSize”接口获取计算所需"
            f"workspace大小以及包含了算子计算流程的执行器，再调用“{name}”接口执行计算。"
        )
    return (
        f"Each operator has a [two-phase interface]({CONTEXT_URL}two_phase_api.md) (Chinese): first call "
        f'"{name}GetWorkspaceSize" to get the workspace size and an executor that holds the computation, then call '
        f'"{name}" to run it.'
    )


def _ws_size_second(name: str, lang: str) -> str:
    if lang == "zh":
        return f"在Device侧申请的workspace大小，由第一段接口{name}GetWorkspaceSize获取。"
    return f"Size of the workspace allocated on the device, as returned by the first phase {name}GetWorkspaceSize."


def _number(value, kind: str) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if kind in ("float", "float8", "complex"):
        return repr(float(value))
    return str(value)


# ---------------------------------------------------------------------------------------------
# Per-op maintainers' page


class _MaintainerPage(_Page):
    def flags(self, check: Check) -> list[str]:
        L, flags = self.L, []
        if not check.documented:
            flags.append(L["flag_undocumented"])
        if not check.enforced:
            flags.append(L["flag_unenforced"])
        if check.cases and check.cases.shadowed_by:
            flags.append(L["flag_shadowed"].format(check=check.cases.shadowed_by))
        if check.doc_code is not None and self.status(check.doc_code)[0] != self.status(check.code)[0]:
            flags.append(L["flag_doc_code"].format(doc=self.status(check.doc_code)[0]))
        return flags

    def check_rows(self, only_deviations: bool = False) -> list[dict]:
        rows = []
        for index, check in enumerate(self.spec.checks):
            flags = self.flags(check)
            if only_deviations and not flags:
                continue
            code, name = self.status(check.code)
            products = (
                self.terms(check.products) if check.products is not None else esc.html_text(self.L["all_products"])
            )
            rows.append(
                {
                    "number": index + 1,
                    "id": esc.code_html(check.id),
                    "code": f"{code}<br>{esc.html_text(name)}",
                    "products": products,
                    "text": esc.html_text(pick(check.text, self.lang)),
                    "rule": esc.code_html(self.view.rule_doc(index, check)),
                    "flags": "<br>".join(esc.html_text(f) for f in flags) or "-",
                    "remark": esc.html_text(pick(check.note, self.lang)) if check.note else "-",
                }
            )
        return rows

    def unverified(self) -> list[str]:
        items = []
        for check in self.spec.checks:
            if check.note and (UNVERIFIED.search(check.note.zh) or UNVERIFIED.search(check.note.en or "")):
                items.append(f"`{check.id}`{COLON[self.lang]}" + esc.md_inline(pick(check.note, self.lang)))
        for issue in self.spec.doc_issues:
            texts = (issue.text.zh, issue.text.en or "", issue.resolution.zh, issue.resolution.en or "")
            if any(UNVERIFIED.search(t) for t in texts):
                items.append(f"`{issue.id}`{COLON[self.lang]}" + esc.md_inline(pick(issue.text, self.lang)))
        return items

    def sources(self) -> list[str]:
        spec, L, lang = self.spec, self.L, self.lang
        items = [f"{L['m_spec']}{COLON[lang]}`specs/{spec.snake}.yaml`"]
        if spec.sources.seed:
            items.append(f"{L['m_seed']}{COLON[lang]}" + esc.md_inline(spec.sources.seed))
        if spec.sources.doc:
            doc = esc.md_inline(spec.sources.doc)
            if spec.sources.code:
                doc = f"[{doc}]({esc.url(UPSTREAM + spec.sources.code + '/docs/' + spec.sources.doc)})"
            items.append(f"{L['m_doc']}{COLON[lang]}{doc}")
        if spec.sources.code:
            items.append(
                f"{L['m_code']}{COLON[lang]}[{esc.md_inline(spec.sources.code)}]"
                f"({esc.url(UPSTREAM_TREE + spec.sources.code)})"
            )
        for name, path in spec.sources.links.items():
            items.append(f"{esc.md_inline(name)}{COLON[lang]}[{esc.md_inline(path)}]({esc.url(UPSTREAM + path)})")
        if spec.kernel:
            items.append(f"{L['m_kernel']}{COLON[lang]}`generator/kernels/{spec.kernel.module}.py`")
        return items

    def issues(self) -> list[dict]:
        return [
            {
                "id": esc.code_html(issue.id),
                "source": esc.html_text(SOURCES[self.lang][issue.source]),
                "text": esc.html_text(pick(issue.text, self.lang)),
                "resolution": esc.html_text(pick(issue.resolution, self.lang)),
            }
            for issue in self.spec.doc_issues
        ]

    def context(self) -> dict:
        spec, lang, L = self.spec, self.lang, self.L
        other = "en" if lang == "zh" else "zh"
        return {
            **self.once("maintainers", self.body),
            "intro": L["m_intro"].format(name=spec.name, page=f"../{spec.name}{self.ext}"),
            "nav": {
                "other": f"../../{other}/maintainers/{spec.name}{self.ext}",
                "other_label": L["lang_switch"],
                "index": f"../../README{self.ext}" if self.ext == ".md" else "../../index.html",
            },
        }

    def body(self) -> dict:
        """Everything but the links to other pages: the same in both flavours (no text of it is linked)."""
        spec, L = self.spec, self.L
        return {
            "L": L,
            "lang": self.lang,
            "name": spec.name,
            "title": L["m_title"].format(name=spec.name),
            "sources": self.sources(),
            "deviations": self.check_rows(only_deviations=True),
            "unverified": self.unverified(),
            "checks": self.check_rows(),
            "issues": self.issues(),
        }


# ---------------------------------------------------------------------------------------------
# Index


def index_row(info: OpInfo, catalog: Catalog, env) -> dict:
    """One op's entry of the index (plain data; the page paths are added per flavour), with its
    row of the site's index as HTML (``site``): a table row renders alike alone and among others."""
    spec = info.spec
    row = {
        "page": spec.name,
        "name": esc.md_cell(spec.name),
        "summary_zh": esc.md_cell(pick(spec.summary, "zh")),
        "summary_en": esc.md_cell(pick(spec.summary, "en")),
        "products": "<br>".join(esc.md_cell(catalog.product(t).zh) for t in catalog.product_tags if t in spec.products),
    }
    row["site"] = _site_index_parts(env, [row])[1]
    return row


def _site_index_parts(env, rows: list[dict]) -> tuple[str, str, str]:
    """The site's index page body as (before the table body, the table body rows, after it)."""
    from generator.emit import site

    html = site.to_html(index_page(env, rows, "site"))
    head, _, rest = html.partition("<tbody>\n")
    body, _, tail = rest.partition("</tbody>\n")
    return head + "<tbody>\n", body, "</tbody>\n" + tail


def _index_context(rows: list[dict], ext: str = ".md") -> dict:
    ops = []
    for row in rows:
        page = row["page"]
        ops.append(
            {
                "name": row["name"],
                "zh": f"zh/{page}{ext}",
                "en": f"en/{page}{ext}",
                "maintainers_zh": f"zh/maintainers/{page}{ext}",
                "maintainers_en": f"en/maintainers/{page}{ext}",
                "summary_zh": row["summary_zh"],
                "summary_en": row["summary_en"],
                "products": row["products"],
            }
        )
    return {"ops": ops, "ext": ext, "matrix": f"support_matrix{ext}"}


# ---------------------------------------------------------------------------------------------


def _samples(project: Project, env) -> dict[str, str]:
    """The generated C++ call samples (and their index), as the C++ emitter renders them."""
    from generator.emit import cpp

    return {rel: text for rel, text in cpp.files(project, env).items() if rel.startswith("samples/")}


def _without_stamp(sample: str) -> str:
    """The sample without its leading "// @generated ..." provenance comment (and the blank comment after it)."""
    lines = sample.splitlines(keepends=True)
    while lines and lines[0].startswith("// @generated"):
        lines.pop(0)
        while lines and lines[0].strip() == "//":
            lines.pop(0)
    return "".join(lines)


def op_pages(info: OpInfo, catalog: Catalog, names, env, samples: dict[str, list[dict]], flavour: str = "md",
             mentions: set[str] | None = None, view: OpView | None = None,
             shared: dict | None = None) -> dict[str, str]:  # fmt: skip
    """One op's user and maintainers' pages (Markdown) in one flavour, by path under ``docs/``.

    ``names``: the operator names of the project (pages link to the ones the text mentions);
    ``samples``: language -> the op's samples (``cpp.op_samples``); ``mentions`` collects every
    operator name the pages could link (see :class:`Linker`); ``shared``: one dict for the calls of
    one op's two flavours, which then compute once what is the same in both (see :meth:`_Page.once`)."""
    op_template = env.get_template("docs/op.md.j2")
    maintainer_template = env.get_template("docs/maintainers.md.j2")
    out: dict[str, str] = {}
    name = info.spec.name
    view = view if view is not None else OpView(info)
    for lang in LANGS:
        page = _Page(info, catalog, names, lang, samples.get(lang, []), flavour, mentions, view, shared)
        out[f"{lang}/{name}.md"] = op_template.render(**page.context())
        maintainers = _MaintainerPage(info, catalog, names, lang, None, flavour, mentions, view, shared)
        out[f"{lang}/maintainers/{name}.md"] = maintainer_template.render(**maintainers.context())
    return out


def op_files(info: OpInfo, catalog: Catalog, names, env, samples: dict[str, list[dict]],
             mentions: set[str] | None = None, view: OpView | None = None) -> dict[str, str]:  # fmt: skip
    """One op's docs files: its pages (``docs/<lang>/...``) and their site versions (``docs/site/``)."""
    from generator.emit import site

    view = view if view is not None else OpView(info)
    shared: dict = {}  # what the two flavours' pages have in common, computed once
    pages = op_pages(info, catalog, names, env, samples, "md", mentions, view, shared)
    out = {f"docs/{rel}": text for rel, text in pages.items()}
    for rel, text in op_pages(info, catalog, names, env, samples, "site", mentions, view, shared).items():
        target, html = site.page(env, rel, text)
        out[f"docs/site/{target}"] = html
    return out


def index_page(env, rows: list[dict], flavour: str = "md") -> str:
    """The index (``README.md``) in one flavour from the ops' ``index_row``\\ s, in op order."""
    ext = ".html" if flavour == "site" else ".md"
    return env.get_template("docs/index.md.j2").render(**_index_context(rows, ext))


def aggregate_files(env, catalog: Catalog, index_rows: list[dict], matrix_views: list[dict]) -> dict[str, str]:
    """The docs files that are not one op's: index, support matrix and site assets."""
    out = index_files(env, index_rows)
    out.update(matrix_files(env, catalog, matrix_views))
    out.update(asset_files(env))
    return out


def index_files(env, rows: list[dict]) -> dict[str, str]:
    """``docs/README.md`` and the site's index page from the ops' ``index_row``\\ s (in op order).

    The site page is the Markdown index rendered to HTML; its table rows are the ops' own ``site``
    rows (the same HTML: the Markdown renderer parses each table row on its own)."""
    from generator.emit import site

    if not rows:
        target, html = site.page(env, "README.md", index_page(env, rows, "site"))
        return {"docs/README.md": index_page(env, rows), f"docs/site/{target}": html}
    head, _, tail = _site_index_parts(env, rows[:1])
    body = head + "".join(row["site"] for row in rows) + tail
    html = site.page_html(env, "README.md", body, title=site.markdown_title(index_page(env, rows[:1], "site")))
    return {"docs/README.md": index_page(env, rows), f"docs/site/{html[0]}": html[1]}


def matrix_files(env, catalog: Catalog, views: list[dict]) -> dict[str, str]:
    """The support matrix (Markdown and site page) from the ops' ``matrix_view``\\ s (in op order)."""
    from generator.emit import matrix, site

    return {
        "docs/support_matrix.md": matrix.markdown_from(catalog, [view["md"] for view in views]),
        "docs/site/support_matrix.html": site.matrix_page(env, catalog, [view["site"] for view in views]),
    }


def matrix_view(env, catalog: Catalog, row: dict) -> dict:
    """What the support matrix files need from one op, given its ``matrix.row``."""
    from generator.emit import matrix

    return {"md": matrix.md_view(catalog, row), "site": matrix.site_view(env, catalog, row)}


def asset_files(env) -> dict[str, str]:
    """The site's style sheet and script."""
    from generator.emit import site

    return {f"docs/site/{rel}": text for rel, text in site.asset_files(env).items()}


def files(project: Project, env, cpp_files: dict[str, str] | None = None) -> dict[str, str]:
    """Every docs file: pages (``docs/<lang>/...``), index, support matrix and the site (``docs/site/``).

    ``cpp_files`` is the C++ emitter's output when the caller already has it (saves rendering twice).
    """
    from generator.emit import cpp, matrix

    samples = _samples(project, env) if cpp_files is None else cpp_files
    catalog = project.catalog
    names = frozenset(info.spec.name for info in project.ops)
    out: dict[str, str] = {}
    for info in project.ops:
        own = {lang: cpp.op_samples(samples, info.spec.name, lang) for lang in LANGS}
        out.update(op_files(info, catalog, names, env, own))
    table = matrix.build(project, env)
    index = [index_row(info, catalog, env) for info in project.ops]
    views = [matrix_view(env, catalog, row) for row in matrix.rows(project, table)]
    out.update(aggregate_files(env, catalog, index, views))
    return dict(sorted(out.items()))
