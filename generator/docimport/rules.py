"""Error-table sentences -> checks of the closed vocabulary.

One row of a doc's error table ("参数gradOutput、selfOrResult的数据类型不一致。") becomes one or
more check drafts: ``当…时`` / ``…时，…`` clauses become ``when``, compound sentences are split,
"但对<product>无此校验" restricts ``products``. Each part is matched against a small set of
sentence shapes (null pointer, dtype / format / shape / rank / length / value rules, broadcasting,
platform support); a part that matches none is kept verbatim as an unenforced ``expr: "true"``
check with a review marker. Every expression is parsed and type-checked with the spec's own
parameters before it is used; one that does not check is kept for review too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from generator import expr as ex
from generator.docimport.text import strip_markdown

PLACEHOLDER = "true"  # the rule of a check kept for review (unenforced; docs show its text)


@dataclass
class ParamInfo:
    name: str
    type: str  # expression type: tensor, scalar, int[], bool[], float[], bool, int, float
    role: str
    rank: tuple[int, int] | None = None
    has_dtypes: bool = False
    scalar_dtypes: bool = False
    nullable: bool = False


@dataclass
class Draft:
    kind: str
    text: str
    code: int | None
    params: list[str] | None = None
    dtypes: list[str] | None = None
    to: str | None = None
    formats: list[str] | None = None
    rank: tuple[int, int] | None = None
    lengths: list[int] | None = None
    expr: str | None = None
    products: list[str] | None = None
    when: str | None = None
    enforced: bool = True
    documented: bool = True
    review: str | None = None
    note: str | None = None
    line: int = 0
    mapped: bool = True
    nullable: list[str] = field(default_factory=list)  # params the sentence says may be null


class Mapper:
    """Maps the sentences of one API's error table, knowing its parameters and the catalogue."""

    def __init__(self, params: list[ParamInfo], vocab, matcher, products: list[str]):
        self.params = {p.name: p for p in params}
        self.order = [p.name for p in params]
        self.vocab = vocab
        self.matcher = matcher
        self.products = products
        self.scope = ex.Scope(
            {p.name: p.type for p in params}, frozenset(vocab.dtype_names), frozenset(vocab.format_names)
        )

    # --- helpers --------------------------------------------------------------------------

    def valid(self, text: str) -> bool:
        try:
            ex.parse(text, self.scope, ex.BOOL)
            return True
        except ex.ExprError:
            return False

    def names(self, text: str) -> list[str]:
        """Parameter names mentioned in ``text`` (in order, once each)."""
        found: list[str] = []
        if re.search(r"输入(?:或|和|与|、)输出|输入输出", text):
            return [n for n in self.order if self.params[n].type == ex.TENSOR or "*" in n]
        for word in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text):
            if word in self.params and word not in found:
                found.append(word)
        return found

    def tensors(self, names: list[str]) -> list[str]:
        return [n for n in names if self.params[n].type == ex.TENSOR]

    # --- entry point ----------------------------------------------------------------------

    def map_row(self, text: str, code: int | None, line: int) -> list[Draft]:
        original = text.strip()
        norm = _normalize(original)
        products = None
        m = re.search(r"[,，]?\s*但?(?:对|在)(.+?)(?:上)?(?:无此校验|不做此校验|不校验)\s*$", norm)
        if m:
            tags, _ = self.matcher.tags_in(m.group(1))
            if tags:
                products = [t for t in self.products if t not in tags]
                norm = norm[: m.start()].strip()
        drafts = self._clause(norm, original, code, line)
        for d in drafts:
            d.line = line
            if products is not None:
                d.products = products
        return drafts

    def _clause(self, norm: str, original: str, code, line) -> list[Draft]:
        when, body = self._condition(norm)
        if when is False:
            # "输出中包含偏差的梯度时，传入的gradBias是空指针": a null output is wrong only when it is computed.
            drafts = self._null(re.sub(r"时$", "", body.strip().strip("。.")), original, code)
            outputs = [p for d in drafts or [] for p in d.params or [] if self.params[p].role == "output"]
            if drafts and len(drafts) == 1 and len(outputs) == 1 and re.search(r"输出|计算|求解", norm):
                cond = self._mask_condition(outputs[0])
                if cond is not None:
                    drafts[0].when = cond
                    drafts[0].review = f"condition '{cond}' read from the output mask; check it"
                    return drafts
            return [self.unmapped(original, code, "the condition of this rule is not a clear comparison")]
        drafts = self._body(body, original, code)
        if drafts is None:
            parts = _split(body)
            if len(parts) > 1:
                drafts = []
                for part in parts:
                    mapped = self._body(part, original, code)
                    if mapped is None:
                        drafts.append(self.unmapped(original, code))
                    else:
                        drafts += mapped
            else:
                drafts = [self.unmapped(original, code)]
        for d in drafts:
            if when and d.mapped:
                d.when = when if d.when is None else f"({when}) and ({d.when})"
                if not self.valid(d.when):
                    d.when = None
                    d.enforced = False
                    d.review = "the condition of this rule did not type-check; check it"
        return drafts

    def unmapped(self, text: str, code, why: str | None = None) -> Draft:
        return Draft(
            "expr",
            text,
            code,
            expr=PLACEHOLDER,
            enforced=False,
            mapped=False,
            review=why or "not mapped to a rule: write the rule (kind or expr) or drop the check",
        )

    def _condition(self, norm: str):
        """(when expression or None, body); when is False when a condition is present but unreadable."""
        patterns = (
            r"^当(?P<c>.+?)时[,，](?P<b>.+)$",
            r"^当(?P<c>[^,，]+?)[,，](?P<b>.+?)时?$",
            r"^(?P<c>[^,，]+?)时[,，](?P<b>.+)$",
            r"^(?P<c>[A-Za-z_][A-Za-z0-9_\[\]]*\s*(?:为|是|==?)\s*(?:true|false|True|False|TRUE|FALSE))\s*(?:且|并且|,|，)(?P<b>.+)$",
        )
        for pattern in patterns:
            m = re.match(pattern, norm)
            if m:
                cond = self._predicate(m.group("c"))
                body = m.group("b").strip()
                if cond is None:
                    if re.search(r"非空|不为空|不是空指针", m.group("c")):
                        return None, body
                    return False, body
                return cond, body
        return None, norm

    def _predicate(self, text: str) -> str | None:
        t = text.strip()
        m = re.fullmatch(
            r"([A-Za-z_][A-Za-z0-9_]*)(\[\d+\])?\s*(?:为|是|==?|等于)\s*(true|True|TRUE|false|False|FALSE)", t
        )
        if m and m.group(1) in self.params:
            target = m.group(1) + (m.group(2) or "")
            value = m.group(3).lower() == "true"
            out = target if value else f"not {target}"
            return out if self.valid(out) else None
        m = re.fullmatch(r"([A-Za-z_][A-Za-z0-9_]*)(\[\d+\])?\s*(?:为|是|==?|等于)\s*(-?\d+)", t)
        if m and m.group(1) in self.params:
            out = f"{m.group(1)}{m.group(2) or ''} == {m.group(3)}"
            return out if self.valid(out) else None
        return None

    # --- sentence shapes ------------------------------------------------------------------

    def _body(self, body: str, text: str, code) -> list[Draft] | None:
        b = body.strip().strip("。.;；,， ")
        b = re.sub(r"时$", "", b).strip()
        for shape in (
            self._null,
            self._empty,
            self._platform,
            self._dtype,
            self._format,
            self._broadcast,
            self._shape,
            self._rank,
            self._length,
            self._values,
            self._scalar_value,
            self._range,
        ):
            drafts = shape(b, text, code)
            if drafts is not None:
                return drafts
        return None

    def _null(self, b, text, code):
        m = re.fullmatch(r"(?P<s>.+?)(?:指针)?\s*(?:存在|是|为|有)?\s*(?:空指针|nullptr|null)", b)
        if not m:
            return None
        subject = m.group("s")
        names = self.names(subject)
        pointer = [n for n in names if self.params[n].type not in (ex.BOOL, ex.INT, ex.FLOAT)]
        if not pointer:
            return None
        drafts = []
        solved = re.findall(r"求解\s*([A-Za-z_][A-Za-z0-9_]*)", subject)
        plain = [n for n in pointer if n not in solved]
        if plain:
            drafts.append(Draft("not_null", text, code, params=plain))
        for name in [n for n in pointer if n in solved]:
            when = self._mask_condition(name)
            d = Draft("not_null", text, code, params=[name], when=when)
            if when is None:
                d.enforced = False
                d.review = f"the doc requires {name} only when it is computed; write the condition"
            else:
                d.review = f"condition '{when}' inferred from 求解{name} and the output mask; check it"
            drafts.append(d)
        return drafts

    def _mask_condition(self, output: str) -> str | None:
        masks = [n for n in self.order if self.params[n].type == ex.BOOLS]
        outputs = [n for n in self.order if self.params[n].role == "output" and self.params[n].type == ex.TENSOR]
        if len(masks) == 1 and output in outputs:
            cond = f"{masks[0]}[{outputs.index(output)}]"
            return cond if self.valid(cond) else None
        return None

    def _empty(self, b, text, code):
        m = re.fullmatch(r"(?P<s>.+?)\s*(?:为|是)\s*空\s*tensor", b, re.I)
        if not m:
            return None
        names = self.tensors(self.names(m.group("s")))
        if not names:
            return None
        expr = " and ".join(f"not {n}.empty" for n in names)
        return [Draft("expr", text, code, expr=expr)] if self.valid(expr) else None

    def _platform(self, b, text, code):
        if re.search(
            r"(平台|处理器|芯片|产品|硬件|soc).{0,6}不支持|不支持.{0,4}(当前)?(平台|处理器|芯片|产品)", b, re.I
        ):
            return [Draft("product_supported", text, code)]
        return None

    def _dtype(self, b, text, code):
        m = re.search(r"数据类型|(?<![A-Za-z0-9_])dtype(?![A-Za-z0-9_])", b, re.I)
        if not m:
            return None
        subject, pred = b[: m.start()], b[m.end() :]
        names = self.names(subject)
        if not pred.strip() and re.search(r"不是支持的|不支持的|非法的?$", subject):
            return self._supported(names, text, code) if names else None
        # Several attributes at once: "数据类型和数据格式不在支持的范围之内", "数据类型/数据格式…", "数据类型、数据格式和shape…"
        attrs = re.match(r"^\s*(?:(?:和|与|、|/|或|及)\s*(数据格式|shape|维度))+", pred)
        extra: list[str] = []
        if attrs:
            extra = re.findall(r"数据格式|shape|维度", attrs.group(0))
            pred = pred[attrs.end() :]
        if not names:
            names = self.names(pred)
            if not names:
                return None
        drafts = self._dtype_pred(names, pred, text, code, subject)
        if drafts is None:
            return None
        for attr in extra:
            more = self._format_pred(names, "不在支持的范围之内", text, code) if attr == "数据格式" else None
            if attr in ("shape", "维度") and re.search(r"不在支持|不支持|不满足", pred):
                ranked = [n for n in self.tensors(names) if self.params[n].rank]
                if ranked:
                    more = [Draft("rank_supported", text, code, params=ranked)]
                else:
                    more = [self.unmapped(text, code, "the doc says the shape is unsupported but gives no rank")]
            if more is None:
                return None
            drafts += more
        return drafts

    def _dtype_pred(self, names, pred, text, code, subject):
        p = pred.strip()
        if re.match(
            r"^(?:的)?\s*(?:不在|不属于)?\s*(?:支持的?)?(?:范围|列表)(?:之)?内|^不在支持|^不支持|^不是支持|^不符合要求|^非法",
            p,
        ) or re.search(r"不是支持的数据类型|(?:不在|不属于|不满足)(?:所)?支持的?(?:范围|列表|数据类型)", p):
            return self._supported(names, text, code)
        if re.match(r"^\s*(?:不一致|不相同|不同|不相等)", p) or re.search(r"^[^不]*?(?:不一致|不相同|不同)\s*$", p):
            others = self.names(p)
            group = names + [n for n in others if n not in names]
            return self._same(group, "dtype_same", text, code)
        m = re.search(r"不(?:可|能)(?:被)?转换为\s*([A-Za-z0-9_]+)", p)
        if m:
            target = m.group(1)
            to = self.vocab.dtype(target) or (target if target in self.params else None)
            if to is None:
                return None
            usable = [n for n in names if self.params[n].type in (ex.TENSOR, ex.SCALAR)]
            return [Draft("dtype_castable", text, code, params=usable, to=to)] if usable else None
        m = re.search(r"不是\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:推导之后)?可转换的", p)
        if m and m.group(1) in self.params and names:
            return [Draft("dtype_castable", text, code, params=[m.group(1)], to=names[0])]
        if re.search(r"推导|promote", p, re.I):
            return self._promotable(names, text, code)
        if re.search(r"(?:和|与)\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:的数据类型)?\s*(?:不一致|不同|不相同)", p):
            others = self.names(p)
            return self._same(others + [n for n in names if n not in others], "dtype_same", text, code)
        return None

    def _supported(self, names, text, code):
        drafts = []
        tensors = [n for n in self.tensors(names) if self.params[n].has_dtypes]
        if tensors:
            drafts.append(Draft("dtype_supported", text, code, params=tensors))
        for n in names:
            p = self.params[n]
            if p.type == ex.SCALAR and p.scalar_dtypes:
                drafts.append(Draft("dtype_supported_scalar", text, code, params=[n]))
        return drafts or None

    def _same(self, names, kind, text, code):
        usable = [
            n
            for n in names
            if self.params[n].type in ((ex.TENSOR,) if kind != "dtype_same" else (ex.TENSOR, ex.SCALAR))
        ]
        if len(usable) < 2:
            return None
        return [Draft(kind, text, code, params=usable)]

    def _promotable(self, names, text, code):
        inputs = [n for n in self.tensors(names) if self.params[n].role != "output"]
        outputs = [n for n in self.tensors(names) if self.params[n].role == "output"]
        if len(inputs) < 2:
            return None
        parts = [f"promotable({inputs[0]}.dtype, {inputs[1]}.dtype)"]
        promoted = f"promote({inputs[0]}.dtype, {inputs[1]}.dtype)"
        for other in inputs[2:]:
            parts.append(f"promotable({promoted}, {other}.dtype)")
            promoted = f"promote({promoted}, {other}.dtype)"
        for out in outputs:
            parts.append(f"castable({promoted}, {out}.dtype)")
        expr = " and ".join(parts)
        if not self.valid(expr):
            return None
        return [
            Draft(
                "expr",
                text,
                code,
                expr=expr,
                review="read as: the inputs' dtypes promote (互推导关系) and the result converts to the outputs",
            )
        ]

    def _format(self, b, text, code):
        m = re.search(r"数据格式|(?<![A-Za-z0-9_])format(?![A-Za-z0-9_])", b, re.I)
        if not m:
            return None
        names = self.names(b[: m.start()]) or self.names(b[m.end() :])
        if not names:
            return None
        return self._format_pred(names, b[m.end() :], text, code)

    def _format_pred(self, names, pred, text, code):
        tensors = self.tensors(names)
        if not tensors:
            return None
        p = pred.strip()
        if re.search(r"不在支持|不支持|不是支持|不符合", p):
            return [Draft("format_supported", text, code, params=tensors)]
        if re.search(r"不一致|不相同|不同", p):
            others = self.tensors(self.names(p))
            return self._same(tensors + [n for n in others if n not in tensors], "format_same", text, code)
        if re.search(r"私有格式|private", p, re.I):
            return [Draft("format_not_private", text, code, params=tensors)]
        return None

    def _broadcast(self, b, text, code):
        if not re.search(r"broadcast|广播", b, re.I):
            return None
        m = re.search(r"^(?P<s>.+?)(?:做)?\s*broadcast后的shape与(?P<o>.+?)的shape不一致$", b, re.I)
        if m:
            return self._broadcast_result(
                self.tensors(self.names(m.group("s"))), self.tensors(self.names(m.group("o"))), text, code
            )
        m = re.search(r"^(?P<o>.+?)的shape与(?P<s>.+?)的(?:broadcast|广播)结果不一致$", b, re.I)
        if m:
            return self._broadcast_result(
                self.tensors(self.names(m.group("s"))), self.tensors(self.names(m.group("o"))), text, code
            )
        m = re.search(r"(?:不满足|无法|不能|不可|不支持)", b)
        if not m:
            return None
        names = self.tensors(self.names(b))
        if len(names) < 2:
            return None
        parts = [_broadcastable(self, names[i], names[j]) for i in range(len(names)) for j in range(i + 1, len(names))]
        expr = " and ".join(parts)
        if not self.valid(expr):
            return None
        return [Draft("expr", text, code, expr=expr)]

    def _broadcast_result(self, sources, outputs, text, code):
        if len(sources) < 2 or not outputs:
            return None
        parts = [_broadcast_equal(self, out, sources) for out in outputs]
        expr = " and ".join(parts)
        if not self.valid(expr):
            return None
        return [Draft("expr", text, code, expr=expr)]

    def _shape(self, b, text, code):
        m = re.search(r"(?<![A-Za-z0-9_])shape(?![A-Za-z0-9_])", b, re.I)
        if not m:
            return None
        subject, pred = b[: m.start()], b[m.end() :]
        names = self.tensors(self.names(subject))
        p = pred.strip()
        rank = re.search(
            r"(?:维度|dim|的维度|的长度)?\s*(?:大于|超过|>)\s*(\d+)\s*维?(?:或者?\s*小于\s*(\d+)\s*维?)?$", p
        )
        if names and rank and not re.search(r"乘积|长度与", p):
            high = int(rank.group(1))
            low = int(rank.group(2)) if rank.group(2) else 0
            return [Draft("rank_in", text, code, params=names, rank=(low, high))]
        m2 = re.match(r"^\s*(?:的)?\s*(?:不一致|不相同|不同|不相等)\s*$", p)
        if names and m2:
            return self._same(names, "shape_same", text, code)
        m2 = re.match(
            r"^\s*(?:的)?\s*(?:与|和)\s*(?P<o>[A-Za-z_][A-Za-z0-9_]*)\s*的?\s*shape\s*(?:不一致|不相同|不同|不相等)\s*$",
            p,
        )
        if names and m2 and m2.group("o") in self.params:
            return self._same(names + [m2.group("o")], "shape_same", text, code)
        m2 = re.match(
            r"^\s*(?:的)?\s*(?:不一致|不相同|不同|不相等)\s*[,，]?\s*(?:或者?|或)\s*(?:shape的)?(?:维度|dim)\s*(?:大于|超过)\s*(\d+)\s*维?(?:或者?\s*小于\s*(\d+)\s*维?)?$",
            p,
        )
        if names and m2:
            drafts = self._same(names, "shape_same", text, code) or []
            low = int(m2.group(2)) if m2.group(2) else 0
            drafts.append(Draft("rank_in", text, code, params=names, rank=(low, int(m2.group(1)))))
            return drafts
        if names and re.search(r"不在支持的?范围", p):
            ranked = [n for n in names if self.params[n].rank]
            if ranked:
                return [Draft("rank_supported", text, code, params=ranked)]
        return None

    def _rank(self, b, text, code):
        m = re.search(r"(?:的)?\s*(?:维度|(?<![A-Za-z0-9_])(?:dim|rank)(?![A-Za-z0-9_]))", b, re.I)
        if not m:
            return None
        subject, pred = b[: m.start()], b[m.end() :]
        names = self.names(subject)
        tensors = self.tensors(names)
        p = pred.strip()
        if tensors and re.fullmatch(r"(?:数)?\s*(?:不一致|不相同|不同|不相等)", p) and len(tensors) >= 2:
            expr = " and ".join(f"{tensors[0]}.rank == {n}.rank" for n in tensors[1:])
            return [Draft("expr", text, code, expr=expr)] if self.valid(expr) else None
        if names and re.fullmatch(r"(?:数)?\s*不在支持(?:的)?范围(?:之)?内", p):
            ranked = [n for n in tensors if self.params[n].rank]
            if ranked and len(ranked) == len(names):
                return [Draft("rank_supported", text, code, params=ranked)]
            return None
        m2 = re.fullmatch(r"(?:数)?\s*(?:大于|超过|>)\s*(\d+)\s*维?(?:或者?\s*小于\s*(\d+)\s*维?)?", p)
        if tensors and m2:
            low = int(m2.group(2)) if m2.group(2) else 0
            return [Draft("rank_in", text, code, params=tensors, rank=(low, int(m2.group(1))))]
        m2 = re.fullmatch(r"(?:数)?\s*(?:不等于|不为|不是)\s*([\d、,，或和\s]+)", p)
        if tensors and m2:
            values = sorted({int(v) for v in re.findall(r"\d+", m2.group(1))})
            if values and values == list(range(values[0], values[-1] + 1)):
                return [Draft("rank_in", text, code, params=tensors, rank=(values[0], values[-1]))]
            expr = " and ".join(f"{n}.rank in {values}" for n in tensors)
            return [Draft("expr", text, code, expr=expr)] if self.valid(expr) else None
        m2 = re.fullmatch(r"(?:数)?\s*小于\s*(\d+)\s*维?", p)
        if m2 and names:
            limit = int(m2.group(1))
            parts = []
            for n in names:
                t = self.params[n].type
                if t == ex.TENSOR:
                    parts.append(f"{n}.rank >= {limit}")
                elif t in ex.LISTS:
                    parts.append(f"len({n}) >= {limit}")
            expr = " and ".join(parts)
            return [Draft("expr", text, code, expr=expr)] if parts and self.valid(expr) else None
        m2 = re.fullmatch(r"(?:数)?\s*小于\s*([A-Za-z_][A-Za-z0-9_]*)\s*的维度", p)
        if m2 and names and m2.group(1) in self.params:
            other = m2.group(1)
            left = f"{names[0]}.rank" if self.params[names[0]].type == ex.TENSOR else f"len({names[0]})"
            right = f"{other}.rank" if self.params[other].type == ex.TENSOR else f"len({other})"
            expr = f"{left} >= {right}"
            return [Draft("expr", text, code, expr=expr)] if self.valid(expr) else None
        return None

    def _length(self, b, text, code):
        m = re.search(
            r"(?:的)?\s*(?:长度|元素个数|大小|(?<![A-Za-z0-9_])size(?![A-Za-z0-9_]))\s*(?:仅支持|只能为)?", b, re.I
        )
        if not m:
            return None
        names = [n for n in self.names(b[: m.start()]) if self.params[n].type in ex.LISTS]
        if not names:
            return None
        p = b[m.end() :].strip()
        m2 = re.fullmatch(r"(?:不等于|不为|不是|不在)\s*([\d、,，或和者及\s]+?)(?:之中|中)?", p)
        if m2:
            values = sorted({int(v) for v in re.findall(r"\d+", m2.group(1))})
            if values:
                return [Draft("length_in", text, code, params=names, lengths=values)]
        m2 = re.fullmatch(r"(?:大于|超过)\s*(\d+)", p)
        if m2:
            expr = " and ".join(f"len({n}) <= {m2.group(1)}" for n in names)
            return [Draft("expr", text, code, expr=expr)] if self.valid(expr) else None
        m2 = re.fullmatch(r"(?:小于)\s*(\d+)", p)
        if m2:
            expr = " and ".join(f"len({n}) >= {m2.group(1)}" for n in names)
            return [Draft("expr", text, code, expr=expr)] if self.valid(expr) else None
        return None

    def _values(self, b, text, code):
        """Rules on every element of an int array ("kernelSize中存在小于等于0的数值")."""
        m = re.match(r"^(?P<s>.+?)(?:中|的)(?:的)?(?:元素)?(?:数值|值|元素)?(?:中)?\s*(?P<p>.+)$", b)
        if not m:
            return None
        names = [n for n in self.names(m.group("s")) if self.params[n].type in (ex.INTS, ex.FLOATS)]
        if not names or len(names) != len(self.names(m.group("s"))):
            return None
        p = m.group("p").strip()
        p = re.sub(r"^(?:的)?(?:元素)?(?:数值|值)(?:中)?", "", p).strip()
        cond = _element_condition(p)
        if cond is not None:
            expr = " and ".join(f"all({cond.format(v='v')} for v in {n})" for n in names)
            return [Draft("expr", text, code, expr=expr)] if self.valid(expr) else None
        # "存在小于0或者大于kernelSize/2的数值": one rule per alternative.
        m = re.fullmatch(r"存在(.+?)(?:的)?(?:数值|值|元素)?", p)
        if not m or len(names) != 1:
            return None
        drafts = []
        for alt in re.split(r"或者|或", m.group(1)):
            alt = alt.strip().rstrip("的")
            single = _element_condition("存在" + alt)
            if single is not None:
                expr = f"all({single.format(v='v')} for v in {names[0]})"
            else:
                expr = self._pairwise(names[0], alt)
            if expr is None or not self.valid(expr):
                drafts.append(self.unmapped(text, code))
                continue
            d = Draft("expr", text, code, expr=expr)
            if single is None:
                d.review = "compared element by element over the shorter of the two lists; check it"
            drafts.append(d)
        return drafts if any(d.mapped for d in drafts) else None

    def _pairwise(self, name: str, alt: str) -> str | None:
        """``大于kernelSize/2`` -> every element of ``name`` at most the same element of kernelSize / 2."""
        m = re.fullmatch(r"(大于|小于|大于等于|小于等于)\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:(/|\*)\s*(\d+))?", alt)
        if not m or m.group(2) not in self.params or self.params[m.group(2)].type not in (ex.INTS, ex.FLOATS):
            return None
        ok = {"大于": "<=", "小于": ">=", "大于等于": "<", "小于等于": ">"}[m.group(1)]
        other = f"{m.group(2)}[i]" + (f" {m.group(3)} {m.group(4)}" if m.group(3) else "")
        return f"all({name}[i] {ok} {other} for i in range(min(len({name}), len({m.group(2)}))))"

    def _scalar_value(self, b, text, code):
        """Rules on one scalar or plain value ("negativeSlope是负数", "alpha小于0")."""
        m = re.match(r"^(?P<n>[A-Za-z_][A-Za-z0-9_]*)\s*(?:的值|值|的取值|取值)?\s*(?P<p>.+)$", b)
        if not m or m.group("n") not in self.params:
            return None
        p = self.params[m.group("n")]
        if p.type not in (ex.SCALAR, ex.INT, ex.FLOAT):
            return None
        value = f"{p.name}.value" if p.type == ex.SCALAR else p.name
        pred = m.group("p").strip()
        fail = _failure_condition(pred)
        if fail is None:
            return None
        expr = f"not ({fail.format(v=value)})"
        return [Draft("expr", text, code, expr=expr)] if self.valid(expr) else None

    def _range(self, b, text, code):
        name = r"^(?P<n>[A-Za-z_][A-Za-z0-9_]*)\s*(?:的)?(?:值|取值|数值)?\s*"
        m = re.match(
            name + r"(?:不在|超出|超过)\s*(?:取值)?(?:范围)?\s*"
            r"(?:(?P<lo>-?\d+)\s*(?:~|～|-|到|至)\s*(?P<hi>-?\d+)|[\[［](?P<lo2>-?\d+)\s*[,，]\s*(?P<hi2>-?\d+)\s*(?P<close>[\]］)）]))"
            r"\s*(?:的)?(?:范围)?(?:之)?(?:内|中)?$",
            b,
        )
        if m and m.group("n") in self.params:
            p = self.params[m.group("n")]
            if p.type not in (ex.INT, ex.FLOAT, ex.SCALAR):
                return None
            value = f"{p.name}.value" if p.type == ex.SCALAR else p.name
            lo, hi = m.group("lo") or m.group("lo2"), m.group("hi") or m.group("hi2")
            op = "<" if m.group("close") in (")", "）") else "<="
            expr = f"{lo} <= {value} {op} {hi}"
            return [Draft("expr", text, code, expr=expr)] if self.valid(expr) else None
        m = re.match(
            name
            + r"(?:不是|不为|不等于|不在)\s*(?P<vals>-?\d+(?:\s*(?:、|,|，|或者|或|和)\s*-?\d+)+)\s*(?:中的(?:一个|任意一个)|之一|中)?$",
            b,
        )
        if m and m.group("n") in self.params and self.params[m.group("n")].type == ex.INT:
            values = sorted({int(v) for v in re.findall(r"-?\d+", m.group("vals"))})
            expr = f"{m.group('n')} in {values}"
            return [Draft("expr", text, code, expr=expr)] if self.valid(expr) else None
        m = re.match(
            r"^(?P<n>[A-Za-z_][A-Za-z0-9_]*)\s*(?:的)?(?:值|取值)?\s*(?:不在|超出|超过)\s*(?P<t>[A-Za-z_][A-Za-z0-9_]*)\s*(?:的)?维度(?:的)?范围(?:之)?内?$",
            b,
        )
        if m and m.group("n") in self.params and m.group("t") in self.params:
            n, t = m.group("n"), m.group("t")
            if self.params[n].type == ex.INT and self.params[t].type == ex.TENSOR:
                expr = f"-max({t}.rank, 1) <= {n} < max({t}.rank, 1)"
                if self.valid(expr):
                    return [
                        Draft(
                            "expr",
                            text,
                            code,
                            expr=expr,
                            review=f"read as PyTorch's dimension range for {t} (a 0-d tensor counts as 1-d); check it",
                        )
                    ]
        return None


# --- helpers ------------------------------------------------------------------------------


def _normalize(text: str) -> str:
    t = strip_markdown(text)
    t = t.replace("（", "(").replace("）", ")").replace("：", ":").replace("；", ";")
    t = re.sub(r"\s+", " ", t).strip()
    t = re.sub(r"^(?:\d+\s*[.、)]\s*)", "", t)
    t = re.sub(r"(?:传入的|输入的|参数|属性)\s*(?=[A-Za-z_`(])", "", t)
    t = re.sub(r"\(非空时\)", "", t)
    t = t.strip().rstrip("。.;").strip()
    return t


def _split(body: str) -> list[str]:
    """Independent parts of a compound sentence ("A，或B"; "A；B"; "A，B" with a subject each)."""
    parts = [p.strip() for p in re.split(r"\s*[,，;；]\s*(?:或者|或|并且|且|以及|另外)?\s*", body) if p.strip()]
    if len(parts) > 1:
        return parts
    parts = [p.strip() for p in re.split(r"\s*(?:，|,)?(?:或者|或)\s*(?=[A-Za-z_])", body) if p.strip()]
    return parts


def _has_subject(part: str, mapper: Mapper) -> bool:
    return bool(mapper.names(part))


def _element_condition(p: str) -> str | None:
    """A condition every element must meet, from the failure the doc describes."""
    p = re.sub(r"(?:的)?(?:数值|值)+$", "", p.strip())
    table = (
        (r"存在小于等于\s*0\s*的?(?:数值|值|元素)?", "{v} > 0"),
        (r"存在小于\s*0\s*的?(?:数值|值|元素)?", "{v} >= 0"),
        (r"存在小于\s*1\s*的?(?:数值|值|元素)?", "{v} >= 1"),
        (r"存在负数", "{v} >= 0"),
        (r"不等于\s*1", "{v} == 1"),
        (r"不为\s*1", "{v} == 1"),
        (r"必须大于\s*0", "{v} > 0"),
    )
    for pattern, cond in table:
        if re.fullmatch(pattern + r"\s*(?:的?(?:数值|值|元素))?", p):
            return cond
    return None


def _failure_condition(p: str) -> str | None:
    """The condition (on ``{v}``) under which the doc says the call fails."""
    p = p.strip().rstrip("。.")
    table = (
        (r"(?:是|为)?负数|小于\s*0(?:\.0)?", "{v} < 0"),
        (r"小于等于\s*0(?:\.0)?|不是正数|不大于\s*0", "{v} <= 0"),
        (r"(?:等于|为)\s*0(?:\.0)?", "{v} == 0"),
        (r"大于\s*(-?\d+(?:\.\d+)?)", "{v} > \\1"),
        (r"小于\s*(-?\d+(?:\.\d+)?)", "{v} < \\1"),
    )
    for pattern, cond in table:
        m = re.fullmatch(pattern, p)
        if m:
            return m.expand(cond.replace("{v}", "\x00")).replace("\x00", "{v}")
    return None


def _dim(name: str, i: str) -> str:
    return f"({name}.shape[-1 - {i}] if {i} < {name}.rank else 1)"


def _broadcastable(mapper: Mapper, a: str, b: str) -> str:
    direct = f"broadcastable({a}.shape, {b}.shape)"
    if "broadcastable" in ex.FUNCTIONS and mapper.valid(direct):
        return direct
    i = "i"
    return (
        f"all({a}.shape[-1 - {i}] == {b}.shape[-1 - {i}] or {a}.shape[-1 - {i}] == 1 or {b}.shape[-1 - {i}] == 1 "
        f"for {i} in range(min({a}.rank, {b}.rank)))"
    )


def _broadcast_equal(mapper: Mapper, out: str, sources: list[str]) -> str:
    if "broadcast_shape" in ex.FUNCTIONS:
        shape = f"{sources[0]}.shape"
        for s in sources[1:]:
            shape = f"broadcast_shape({shape}, {s}.shape)"
        direct = f"{out}.shape == {shape}"
        if mapper.valid(direct):
            return direct
    a, b = sources[0], sources[1]
    i = "i"
    rank = f"{out}.rank == max({a}.rank, {b}.rank)"
    dims = f"all({out}.shape[-1 - {i}] == ({_dim(a, i)} if {_dim(b, i)} == 1 else {_dim(b, i)}) for {i} in range({out}.rank))"
    return f"{rank} and {dims}"


# --- rules stated in the parameter table ----------------------------------------------------

_CONDITIONAL = re.compile(r"如果|当|若|对于|场景|时[，,]|时$|除|否则|可以为|可以是|可为|建议|默认")


def usage_rules(mapper: Mapper, name: str, usage: str, code) -> list[Draft]:
    """Rules a parameter's usage cell states outright ("长度仅支持1、2", "数值必须大于0", "取值范围为[1,65535]").

    Sentences with a condition ("当…时", "对于一维卷积") or a permission ("可以为") are left as prose.
    """
    p = mapper.params.get(name)
    if p is None or not usage:
        return []
    drafts: list[Draft] = []
    for sentence in re.split(r"[。；;]", strip_markdown(usage)):
        for clause in re.split(
            r"[，,](?=\s*(?:数值|值|元素|长度|取值|数组长度|shape|数据类型|数据格式|dtype))", sentence
        ):
            s = clause.strip()
            if not s or _CONDITIONAL.search(s):
                continue
            drafts += _usage_clause(mapper, p, s, code)
    return drafts


_SAME_AS = re.compile(
    r"^(?P<what>数据类型|dtype|shape|数据格式)(?:和数据格式|和shape)?\s*(?:需要|必须|应)?\s*(?:与|和|同)\s*"
    r"(?P<other>[A-Za-z_][A-Za-z0-9_]*)\s*(?:的(?:数据类型|shape|数据格式))?\s*(?:保持)?\s*(?:一致|相同)"
)


def _usage_clause(mapper: Mapper, p: ParamInfo, s: str, code) -> list[Draft]:
    text = s
    m = _SAME_AS.match(s.strip())
    if m and m.group("other") in mapper.params and m.group("other") != p.name:
        other = mapper.params[m.group("other")]
        kind = {"数据类型": "dtype_same", "dtype": "dtype_same", "shape": "shape_same", "数据格式": "format_same"}[
            m.group("what")
        ]
        allowed = (ex.TENSOR, ex.SCALAR) if kind == "dtype_same" else (ex.TENSOR,)
        if p.type in allowed and other.type in allowed:
            return [Draft(kind, text, code, params=[other.name, p.name])]
        return []
    if p.type in ex.LISTS:
        m = re.search(
            r"(?:数组)?长度\s*(?:为|是|等于|必须为|必须是)\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:的)?维度\s*(?:减|-)\s*(\d+)$",
            s,
        )
        if m and m.group(1) in mapper.params and mapper.params[m.group(1)].type == ex.TENSOR:
            expr = f"len({p.name}) == {m.group(1)}.rank - {m.group(2)}"
            return [Draft("expr", text, code, expr=expr)] if mapper.valid(expr) else []
        m = re.search(
            r"(?:数组)?(?:长度|size)\s*(?:仅支持|只支持|支持|固定为|必须为|必须是|为|是|等于)\s*(.+)$", s, re.I
        )
        if m:
            body = re.sub(r"[（(][^()（）]*[)）]", "", m.group(1))
            if re.fullmatch(r"[\d\s、,，或和者及]+", body):
                values = sorted({int(v) for v in re.findall(r"\d+", body)})
                if values:
                    return [Draft("length_in", text, code, params=[p.name], lengths=values)]
            return []
        if p.type in (ex.INTS, ex.FLOATS):
            m = re.search(
                r"(?:数值|值|元素值|元素|每个元素)\s*(?:都)?\s*(必须大于等于|大于等于|不能小于|不小于|必须大于|大于|仅支持|只支持|必须为|必须是)\s*(-?\d+)\s*$",
                s,
            )
            if m:
                op = {
                    "必须大于等于": ">=",
                    "大于等于": ">=",
                    "不能小于": ">=",
                    "不小于": ">=",
                    "必须大于": ">",
                    "大于": ">",
                }.get(m.group(1), "==")
                expr = f"all(v {op} {m.group(2)} for v in {p.name})"
                if mapper.valid(expr):
                    return [Draft("expr", text, code, expr=expr)]
        return []
    value = f"{p.name}.value" if p.type == ex.SCALAR else p.name
    if p.type not in (ex.INT, ex.FLOAT, ex.SCALAR):
        return []
    m = re.search(
        r"(?:取值范围|支持范围|范围)\s*(?:为|是)?\s*\[\s*(-?\d+(?:\.\d+)?)\s*[,，]\s*(-?\d+(?:\.\d+)?)\s*([\])])", s
    )
    if m:
        high_op = "<=" if m.group(3) == "]" else "<"
        expr = f"{m.group(1)} <= {value} {high_op} {m.group(2)}"
        return [Draft("expr", text, code, expr=expr)] if mapper.valid(expr) else []
    if p.type == ex.INT:
        listed = re.findall(r"(?:^|[|｜、,，]|支持)\s*(-?\d+)\s*[（(:：]", s)
        if len(listed) >= 2 and re.search(r"支持|枚举", s):
            values = sorted({int(v) for v in listed})
            expr = f"{p.name} in {values}"
            return [Draft("expr", text, code, expr=expr)] if mapper.valid(expr) else []
    m = re.search(r"(?:数值|值|取值)?\s*(必须大于等于|大于等于|不能小于|必须大于|大于)\s*(-?\d+(?:\.\d+)?)\s*$", s)
    if m and (s.startswith(("数值", "值", "取值")) or p.type != ex.SCALAR):
        op = {"必须大于等于": ">=", "大于等于": ">=", "不能小于": ">=", "必须大于": ">", "大于": ">"}[m.group(1)]
        expr = f"{value} {op} {m.group(2)}"
        return [Draft("expr", text, code, expr=expr)] if mapper.valid(expr) else []
    return []


def enum_values(usage: str) -> list[int]:
    """The values of an enumeration listed as ``0：KEEP_DTYPE…1：…`` in a usage cell."""
    found = re.findall(r"(?:^|[。；;，,\s]|枚举值如下[：:])\s*(\d+)\s*[：:]\s*[A-Z][A-Z0-9_]+", usage)
    values = sorted({int(v) for v in found})
    return values if len(values) >= 2 and values == list(range(values[0], values[-1] + 1)) else []
