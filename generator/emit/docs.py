"""Docs emitter: per-op pages (zh and en), the index and the support matrix under ``generated/docs/``.

The pages follow the current upstream aclnn doc layout (ops-nn ``*/docs/aclnn*.md``, cann-facts.md 6.1):
product list in npu comment blocks, description and formula, the two prototypes, the first-phase
parameter table (HTML, eight columns) and error table (one ``rowspan`` group per status code), the
second-phase table, constraints and the generated call sample.

This module turns a spec into display strings (escaped, with the ``<br>`` / ``<ul><li>`` / ``<term>``
markup upstream uses); the templates in ``templates/docs/`` only lay them out. Every text is taken
from the spec: an English page shows a missing ``en`` text as the ``zh`` text marked "(zh)".

Escaping: HTML table cells get ``&`` and ``<`` escaped (markdown is not processed inside an HTML
block); markdown prose additionally escapes the characters markdown would interpret (``*``, `````,
``\\``, ``$``, ``~``, ``|`` and stray ``_``). No text may put a blank line inside an HTML block, so
all whitespace runs are collapsed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from generator.emit.python import rule_doc
from generator.loader import Catalog, OpInfo, Project
from generator.model import TENSOR_CTYPES, Check, OpSpec, Param, Text

LANGS = ("zh", "en")

# Upstream context pages (two-phase API, return codes, ...) are not generated here: link them absolutely.
CONTEXT_URL = "https://gitcode.com/cann/ops-nn/blob/master/docs/zh/context/"

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

LABELS: dict[str, dict[str, str]] = {
    "zh": {
        "lang_switch": "English",
        "index": "算子文档索引",
        "matrix": "支持矩阵",
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
        "doc_issues": "文档勘误",
        "doc_issues_intro": "规格整理自种子文档、当前上游文档与CANN代码，以下为发现的问题及本文档采用的处理：",
        "resolution": "处理",
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
        "col_ret": "返回码",
        "col_code": "错误码",
        "input": "输入",
        "output": "输出",
        "ws_size_desc": "返回需要在Device侧申请的workspace大小。",
        "executor_desc": "返回op执行器，包含了算子计算流程。",
        "workspace_desc": "在Device侧申请的workspace内存地址。",
        "executor2_desc": "op执行器，包含了算子计算流程。",
        "stream_desc": "指定执行任务的Stream。",
        "status_line": "aclnnStatus：返回状态码，具体参见[aclnn返回码]({url}aclnn_return_code.md)。",
        "first_phase_errors": "第一段接口完成入参校验，出现以下场景时报错：",
        "diff_title": "实现差异（以CANN代码为准）：",
        "undocumented_title": "文档未列出、但CANN第一段接口同样会校验的条件：",
        "all_checks": "全部参数校验（按CANN执行顺序，含文档未列出与未执行的规则）",
        "col_no": "序号",
        "col_check": "检查",
        "col_rule": "规则",
        "col_remark": "备注",
        "flag_undocumented": "文档未列出。",
        "flag_unenforced": "CANN不校验（文档规则）。",
        "doc_says": "文档",
        "sample_intro": "示例代码如下，仅供参考，具体编译和执行过程请参考[编译与运行样例]({url}compile_and_run_sample.md)。",
        "sample_file": "该示例由生成器根据规格生成，对应文件`{path}`。",
        "sample_missing": "调用示例由生成器根据规格生成到`{path}`（当前生成结果中尚无该文件）。",
        "scenario": "示例场景（{product}）：",
        "expected": "期望输出（容差：rtol={rtol}，atol={atol}）：",
        "fill": "全部{count}个元素均为{value}",
        "enum_intro": "支持的枚举值如下：",
        "range": "取值范围为[{lo}, {hi}]。",
        "no_empty": "不支持空Tensor。",
        "castable": "可转换为{dtype}的数据类型",
    },
    "en": {
        "lang_switch": "中文",
        "index": "Operator index",
        "matrix": "Support matrix",
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
        "doc_issues": "Doc Issues",
        "doc_issues_intro": (
            "The spec was consolidated from the seed doc, the current upstream doc and the CANN code; these are the "
            "problems found and the reading this page uses:"
        ),
        "resolution": "Resolution",
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
        "col_ret": "Return Code",
        "col_code": "Error Code",
        "input": "Input",
        "output": "Output",
        "ws_size_desc": "Returns the size of the workspace to allocate on the device.",
        "executor_desc": "Returns the op executor, which holds the computation.",
        "workspace_desc": "Address of the workspace allocated on the device.",
        "executor2_desc": "The op executor, which holds the computation.",
        "stream_desc": "The stream that runs the task.",
        "status_line": "aclnnStatus: the status code; see [aclnn return codes]({url}aclnn_return_code.md) (Chinese).",
        "first_phase_errors": "The first phase validates the arguments and fails in these cases:",
        "diff_title": "Implementation differences (the CANN code is authoritative):",
        "undocumented_title": "Conditions the doc does not list but the first phase checks as well:",
        "all_checks": "All parameter checks (in CANN's order, including undocumented and unenforced rules)",
        "col_no": "No.",
        "col_check": "Check",
        "col_rule": "Rule",
        "col_remark": "Remarks",
        "flag_undocumented": "Not in the doc.",
        "flag_unenforced": "Not checked by CANN (doc rule).",
        "doc_says": "doc",
        "sample_intro": (
            "The sample below is for reference only; to build and run it, see "
            "[Compile and run samples]({url}compile_and_run_sample.md) (Chinese)."
        ),
        "sample_file": "The sample is generated from the spec as `{path}`.",
        "sample_missing": "The call sample is generated from the spec to `{path}` (not in the generated set yet).",
        "scenario": "Scenario ({product}): ",
        "expected": "Expected output (tolerance: rtol={rtol}, atol={atol}):",
        "fill": "all {count} elements are {value}",
        "enum_intro": "Supported values:",
        "range": "Valid range: [{lo}, {hi}].",
        "no_empty": "Empty tensors are not supported.",
        "castable": "any dtype convertible to {dtype}",
    },
}
SOURCES = {
    "zh": {"seed": "种子文档", "doc": "当前文档", "code": "代码", "sample": "调用示例"},
    "en": {"seed": "seed doc", "doc": "current doc", "code": "code", "sample": "sample"},
}
SEP = {"zh": "、", "en": ", "}
COLON = {"zh": "：", "en": ": "}


# ---------------------------------------------------------------------------------------------
# Text helpers


def pick(text: Text | None, lang: str) -> str:
    """The text in ``lang``; a missing English text falls back to the Chinese one, marked "(zh)"."""
    if text is None:
        return ""
    if lang == "zh" or text.en:
        return flat(text.zh if lang == "zh" else text.en)
    return flat(text.zh) + " (zh)"


def flat(text: str) -> str:
    """One line: whitespace runs collapsed (no blank line may end an HTML block early)."""
    return " ".join(text.split())


def _squash(text: str) -> str:
    return "".join(text.split()).lower()


def h(text: str) -> str:
    """Escape for HTML text content (markdown is not processed inside HTML blocks)."""
    return flat(text).replace("&", "&amp;").replace("<", "&lt;")


_MD_SPECIAL = re.compile(r"([\\`*~$|])")
_LONE_UNDERSCORE = re.compile(r"(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])")


def md(text: str) -> str:
    """Escape for inline markdown prose: HTML specials plus what markdown would interpret."""
    text = _MD_SPECIAL.sub(r"\\\1", h(text))
    text = _LONE_UNDERSCORE.sub(r"\\_", text)
    return text.replace("](", "\\](").replace("[^", "\\[^")


_OPENERS, _CLOSERS = "（([“‘【", "）)]”’】"
_ABBREVIATIONS = ("e.g.", "i.e.", "etc.", "vs.", "cf.")


def sentences(text: str) -> list[str]:
    """Split prose into sentences at top-level '。' (and '. ' before a capital), as upstream's <li> items."""
    out, buf, depth = [], "", 0
    for i, ch in enumerate(text):
        buf += ch
        if ch in _OPENERS:
            depth += 1
        elif ch in _CLOSERS:
            depth = max(0, depth - 1)
        elif depth == 0:
            end = ch == "。"
            if ch in ".!?" and text[i + 1 : i + 2] == " " and text[i + 2 : i + 3][:1].isupper():
                end = not buf.rstrip().endswith(_ABBREVIATIONS)
            if end:
                out.append(buf.strip())
                buf = ""
    if buf.strip():
        out.append(buf.strip())
    return out


def cell(items: list[str]) -> str:
    """Already-escaped items as one table cell: a single item as is, several as <ul><li>, none as '-'."""
    items = [i for i in items if i]
    if not items:
        return "-"
    if len(items) == 1:
        return items[0]
    return "<ul>" + "".join(f"<li>{i}</li>" for i in items) + "</ul>"


def prose_cell(text: str) -> list[str]:
    return [h(s) for s in sentences(text)] if text else []


def fence(code: str, minimum: int = 3) -> str:
    """A backtick fence longer than any backtick run inside ``code``."""
    runs = [len(m) for m in re.findall(r"`+", code)]
    return "`" * max(minimum, max(runs, default=0) + 1)


# ---------------------------------------------------------------------------------------------
# Per-op page


@dataclass
class _Row:
    """One description row of the error table (checks with the same text share it)."""

    text: str
    checks: list[Check] = field(default_factory=list)
    products: set[str] | None = field(default_factory=set)  # None: every product


class _Page:
    def __init__(self, info: OpInfo, catalog: Catalog, lang: str, sample: str | None):
        self.info, self.spec, self.catalog, self.lang = info, info.spec, catalog, lang
        self.L = LABELS[lang]
        self.sample = sample
        self._npu_id = 0

    # -- shared bits

    def product_name(self, tag: str) -> str:
        product = self.catalog.product(tag)
        return product.zh if self.lang == "zh" else product.en

    def ordered(self, tags) -> list[str]:
        return [t for t in self.catalog.product_tags if t in set(tags)]

    def terms(self, tags) -> str:
        """Product names as upstream writes them: <term>A</term>、<term>B</term>."""
        return SEP[self.lang].join(f"<term>{h(self.product_name(t))}</term>" for t in self.ordered(tags))

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
                    "name": h(self.product_name(product.tag)),
                    "value": self.L["supported"] if supported else self.L["unsupported"],
                }
            )
        return rows

    def formulas(self) -> list[str]:
        if not self.spec.formula:
            return []
        return [line.strip() for line in self.spec.formula.strip().splitlines() if line.strip()]

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
            rows.append({"name": name, "io": L["output"], "desc": h(desc), **dict.fromkeys(_DASH_COLUMNS, "-")})
        return rows

    def param_row(self, p: Param) -> dict:
        lang, L = self.lang, self.L
        ctype = p.ctype.replace("const ", "")
        name = f"{p.name}（{ctype}）" if lang == "zh" else f"{p.name} ({ctype})"
        usage_text = pick(p.usage, lang)
        usage = prose_cell(usage_text)
        for default in self.spec.defaults:
            text = pick(default.text, lang)
            if default.param == p.name and text not in usage_text:
                usage.append(h(text))
        if p.value and p.value.enum:
            if lang == "zh":
                values = "".join(
                    f"<li>{v.value}：{h(v.name)}，{h(pick(v.description, lang))}</li>" for v in p.value.enum
                )
            else:
                values = "".join(
                    f"<li>{v.value} ({h(v.name)}): {h(pick(v.description, lang))}</li>" for v in p.value.enum
                )
            usage.append(f"{h(L['enum_intro'])}<ul>{values}</ul>")
        if p.value and p.value.range and str(p.value.range[1]) not in usage_text:
            usage.append(h(L["range"].format(lo=p.value.range[0], hi=p.value.range[1])))
        if p.tensor and not p.tensor.empty and "空Tensor" not in usage_text.replace("空tensor", "空Tensor"):
            usage.append(h(L["no_empty"]))
        dtype, fmt, shape, noncontig = "-", "-", "-", "-"
        if p.tensor:
            dtype = self.rules_cell(p.tensor.dtypes)
            fmt = SEP[lang].join(p.tensor.formats)
            shape_items = []
            if p.tensor.rank:
                lo, hi = p.tensor.rank.min, p.tensor.rank.max
                shape_items.append(str(lo) if lo == hi else f"{lo}-{hi}")
            if p.tensor.shape:
                shape_items.append(h(pick(p.tensor.shape, lang)))
            shape = "<br>".join(shape_items) or "-"
            noncontig = "√" if p.tensor.non_contiguous else "×"
        elif p.array:
            dtype = p.array.element
        elif p.scalar:
            if p.scalar.dtypes:
                dtype = self.rules_cell(p.scalar.dtypes)
            elif p.scalar.castable_to:
                dtype = h(L["castable"].format(dtype=p.scalar.castable_to))
        elif p.ctype in PLAIN_DTYPES:
            dtype = PLAIN_DTYPES[p.ctype]
        return {
            "name": h(name),
            "io": L["output"] if p.role == "output" else L["input"],
            "desc": cell(prose_cell(pick(p.description, lang))),
            "usage": cell(usage),
            "dtype": dtype,
            "format": fmt,
            "shape": shape,
            "noncontig": noncontig,
        }

    def rules_cell(self, rules) -> str:
        """Dtype list; spelled out per product group when the groups differ."""
        groups = [(self.spec.products if r.products == "all" else r.products, r.dtypes) for r in rules]
        if len({tuple(d) for _, d in groups}) == 1:
            return SEP[self.lang].join(groups[0][1])
        return "<br>".join(self.terms(tags) + COLON[self.lang] + SEP[self.lang].join(d) for tags, d in groups)

    def error_groups(self) -> tuple[list[dict], list[str]]:
        """The error table (documented checks by the code the doc states) and the notes on it."""
        spec, lang = self.spec, self.lang
        groups: dict[int, dict] = {}
        for check in spec.checks:
            if not check.documented:
                continue
            value, name = self.status(check.doc_code if check.doc_code is not None else check.code)
            group = groups.setdefault(value, {"value": value, "name": name, "rows": {}})
            text = pick(check.text, lang)
            row = group["rows"].setdefault(text, _Row(text))
            row.checks.append(check)
            if check.products is None or row.products is None:
                row.products = None
            else:
                row.products |= set(check.products)
        notes: list[str] = []
        result = []
        for value in sorted(groups):
            group = groups[value]
            rows = list(group["rows"].values())
            out_rows = []
            for number, row in enumerate(rows, 1):
                markers = []
                for check in row.checks:
                    note = self.difference(check)
                    if note:
                        notes.append(note)
                        markers.append(f"<sup>{self.note_label(len(notes))}</sup>")
                text = self.prefix(row.products, row.text) + h(row.text)
                numbered = f"{number}. {text}" if len(rows) > 1 else text
                out_rows.append(numbered + "".join(markers))
            result.append({"value": value, "name": group["name"], "rows": out_rows})
        notes = [f"{self.note_label(i)}{COLON[lang]}{note}" for i, note in enumerate(notes, 1)]
        return result, notes

    def note_label(self, number: int) -> str:
        return f"注{number}" if self.lang == "zh" else f"Note {number}"

    def difference(self, check: Check) -> str:
        """A short statement of how CANN differs from the doc for one documented check ('' if it does not)."""
        parts = []
        code, code_name = self.status(check.code)
        if check.doc_code is not None:
            doc, doc_name = self.status(check.doc_code)
            if doc != code:
                parts.append(
                    f"文档列为{doc}（{doc_name}），CANN实际返回{code}（{code_name}）。"
                    if self.lang == "zh"
                    else f"the doc lists {doc} ({doc_name}); CANN returns {code} ({code_name})."
                )
        if not check.enforced:
            parts.append(
                "CANN第一段接口不校验此条件（不会因此报错）。"
                if self.lang == "zh"
                else "CANN's first phase does not check this condition (the call does not fail for it)."
            )
        if not parts:
            return ""
        head = f"检查`{check.id}`：" if self.lang == "zh" else f"Check `{check.id}`: "
        return head + "".join(parts) if self.lang == "zh" else head + " ".join(parts)

    def undocumented(self) -> list[str]:
        items = []
        for check in self.spec.checks:
            if check.documented or not check.enforced:
                continue
            code, name = self.status(check.code)
            text = pick(check.text, self.lang)
            lead = self.prefix(check.products, text) + md(text)
            if self.lang == "zh":
                items.append(f"{code}（{name}）：{lead}（`{check.id}`）")
            else:
                items.append(f"{code} ({name}): {lead} (`{check.id}`)")
        return items

    def all_checks(self) -> list[dict]:
        rows = []
        for index, check in enumerate(self.spec.checks):
            code, name = self.status(check.code)
            code_cell = f"{code}<br>{name}"
            if check.doc_code is not None and self.status(check.doc_code)[0] != code:
                doc, _ = self.status(check.doc_code)
                code_cell += (
                    f"<br>（{self.L['doc_says']}：{doc}）"
                    if self.lang == "zh"
                    else f"<br>({self.L['doc_says']}: {doc})"
                )
            remarks = []
            if not check.documented:
                remarks.append(h(self.L["flag_undocumented"]))
            if not check.enforced:
                remarks.append(h(self.L["flag_unenforced"]))
            if check.note:
                remarks.append(h(pick(check.note, self.lang)))
            rows.append(
                {
                    "number": index + 1,
                    "id": h(check.id),
                    "code": code_cell,
                    "text": self.prefix(check.products, pick(check.text, self.lang)) + h(pick(check.text, self.lang)),
                    "rule": f"<code>{h(rule_doc(self.info, index, check))}</code>",
                    "remark": "<br>".join(remarks) or "-",
                }
            )
        return rows

    def constraints(self) -> list[dict]:
        items = []
        for constraint in self.spec.constraints:
            start = end = ""
            if constraint.products is not None and not set(self.spec.products) <= set(constraint.products):
                start, end = self.npu(constraint.products)
            text = pick(constraint.text, self.lang)
            items.append({"start": start, "end": end, "text": self.prefix(constraint.products, text) + md(text)})
        return items

    def doc_issues(self) -> list[dict]:
        return [
            {
                "id": issue.id,
                "source": SOURCES[self.lang][issue.source],
                "text": md(pick(issue.text, self.lang)),
                "resolution": md(pick(issue.resolution, self.lang)),
            }
            for issue in self.spec.doc_issues
        ]

    def example(self) -> dict:
        spec, lang, L = self.spec, self.lang, self.L
        example = spec.example
        path = f"samples/{spec.snake}.cpp"
        scenario = L["scenario"].format(product=f"<term>{h(self.product_name(example.product))}</term>")
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
        return {
            "path": path,
            "intro": L["sample_intro"].format(url=CONTEXT_URL),
            "file_line": L["sample_file" if self.sample else "sample_missing"].format(path=path),
            "scenario": scenario + md(pick(example.text, lang)) if example.text else "",
            "code": self.sample.rstrip("\n") if self.sample else "",
            "fence": fence(self.sample or ""),
            "expected_title": L["expected"].format(rtol=tol.rtol, atol=tol.atol),
            "expected": "\n".join(expected_lines),
            "expected_fence": fence("\n".join(expected_lines)),
        }

    def context(self) -> dict:
        spec, lang, L = self.spec, self.lang, self.L
        products = self.products()
        first, second = self.prototypes()
        errors, notes = self.error_groups()
        other = "en" if lang == "zh" else "zh"
        return {
            "L": L,
            "lang": lang,
            "name": spec.name,
            "nav": {
                "other": f"../{other}/{spec.name}.md",
                "other_label": L["lang_switch"],
                "index": "../README.md",
                "matrix": "../support_matrix.md",
            },
            "products": products,
            "description": md(pick(spec.description, lang)),
            "formulas": self.formulas(),
            "two_phase": _two_phase(spec.name, lang),
            "proto_first": first,
            "proto_second": second,
            "param_rows": self.param_rows(),
            "status_line": L["status_line"].format(url=CONTEXT_URL),
            "errors": errors,
            "notes": notes,
            "undocumented": self.undocumented(),
            "all_checks": self.all_checks(),
            "second_rows": [
                {"name": "workspace", "io": L["input"], "desc": h(L["workspace_desc"])},
                {"name": "workspaceSize", "io": L["input"], "desc": h(_ws_size_second(spec.name, lang))},
                {"name": "executor", "io": L["input"], "desc": h(L["executor2_desc"])},
                {"name": "stream", "io": L["input"], "desc": h(L["stream_desc"])},
            ],
            "deterministic": md(pick(spec.deterministic, lang)) if spec.deterministic else "",
            "constraints": self.constraints(),
            "precision": [md(pick(t, lang)) for t in spec.precision],
            "doc_issues_intro": L["doc_issues_intro"],
            "doc_issues": self.doc_issues(),
            "example": self.example(),
        }


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
# Index and support matrix


def input_dtypes(spec: OpSpec, tag: str, catalog: Catalog) -> list[str]:
    """Union of the dtypes the op's input tensors accept on ``tag`` (floats first); [] if unsupported."""
    if tag not in spec.products:
        return []
    found: set[str] = set()
    for p in spec.params:
        if p.role != "input" or p.ctype not in TENSOR_CTYPES or p.tensor is None:
            continue
        for rule in p.tensor.dtypes:
            tags = spec.products if rule.products == "all" else rule.products
            if tag in tags:
                found |= set(rule.dtypes)
                break
    ordered = sorted(
        (KIND_ORDER.index(d.kind), i, d.name) for i, d in enumerate(catalog.dtypes.dtypes) if d.name in found
    )
    return [name for _, _, name in ordered]


# Matrix cells list floating-point dtypes first, then integers, each group in catalogue order.
KIND_ORDER = ("float", "float8", "complex", "int", "uint", "bool", "other")


def _index_context(project: Project) -> dict:
    return {"ops": [index_entry(info, project.catalog) for info in project.ops]}


def index_entry(info: OpInfo, catalog: Catalog) -> dict:
    """One op's row of the index (plain data: generate keeps it to re-render the index alone)."""
    spec = info.spec
    return {
        "name": spec.name,
        "zh": f"zh/{spec.name}.md",
        "en": f"en/{spec.name}.md",
        "summary_zh": md(pick(spec.summary, "zh")),  # md() escapes '|' for the table
        "summary_en": md(pick(spec.summary, "en")),
        "products": "<br>".join(h(catalog.product(t).zh) for t in catalog.product_tags if t in spec.products),
    }


def _matrix_context(project: Project) -> dict:
    return _matrix(project.catalog, [matrix_row(info, project.catalog) for info in project.ops])


def _matrix(catalog: Catalog, rows: list[dict]) -> dict:
    products = [{"tag": p.tag, "zh": h(p.zh), "en": h(p.en)} for p in catalog.products.products]
    return {"products": products, "rows": rows}


def matrix_row(info: OpInfo, catalog: Catalog) -> dict:
    """One op's row of the support matrix (plain data, like ``index_entry``)."""
    spec = info.spec
    cells = []
    for p in catalog.products.products:
        dtypes = input_dtypes(spec, p.tag, catalog)
        cells.append({"supported": bool(dtypes), "dtypes": dtypes})
    return {
        "name": spec.name,
        "zh": f"zh/{spec.name}.md",
        "en": f"en/{spec.name}.md",
        "summary": h(pick(spec.summary, "zh")),
        "summary_en": h(pick(spec.summary, "en")),
        "cells": cells,
    }


# ---------------------------------------------------------------------------------------------


def _samples(project: Project, env) -> dict[str, str]:
    """The generated C++ call samples (``samples/<snake>.cpp``), as the C++ emitter renders them."""
    from generator.emit import cpp

    return {rel: text for rel, text in cpp.files(project, env).items() if rel.startswith("samples/")}


def files(project: Project, env, cpp_files: dict[str, str] | None = None) -> dict[str, str]:
    """Every docs file: ``docs/<lang>/aclnn<Op>.md``, ``docs/README.md``, ``docs/support_matrix.{md,html}``.

    ``cpp_files`` is the C++ emitter's output when the caller already has it (saves rendering twice).
    """
    samples = _samples(project, env) if cpp_files is None else cpp_files
    out: dict[str, str] = {}
    for info in project.ops:
        out.update(op_files(info, project.catalog, env, samples.get(f"samples/{info.spec.snake}.cpp")))
    index = [index_entry(info, project.catalog) for info in project.ops]
    rows = [matrix_row(info, project.catalog) for info in project.ops]
    out.update(aggregate_files(index, rows, project.catalog, env))
    return dict(sorted(out.items()))


def op_files(info: OpInfo, catalog: Catalog, env, sample: str | None) -> dict[str, str]:
    """One op's pages (``docs/<lang>/aclnn<Op>.md``), given its C++ sample; nothing else goes in."""
    op_template = env.get_template("docs/op.md.j2")
    out = {}
    for lang in LANGS:
        page = _Page(info, catalog, lang, sample)
        out[f"docs/{lang}/{info.spec.name}.md"] = op_template.render(**page.context())
    return out


def aggregate_files(index: list[dict], rows: list[dict], catalog: Catalog, env) -> dict[str, str]:
    """The index and the support matrix from every op's ``index_entry`` and ``matrix_row``, in op order."""
    out = {"docs/README.md": env.get_template("docs/index.md.j2").render(ops=index)}
    matrix = _matrix(catalog, rows)
    out["docs/support_matrix.md"] = env.get_template("docs/support_matrix.md.j2").render(**matrix)
    out["docs/support_matrix.html"] = env.get_template("docs/support_matrix.html.j2").render(**matrix)
    return out
