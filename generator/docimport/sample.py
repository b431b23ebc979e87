"""The call sample (C++) of a doc -> the values it passes to ``aclnnXxxGetWorkspaceSize``.

The sample is read, never run: variable definitions (``std::vector<int64_t> selfShape = {2, 2};``,
``std::vector<float> selfHostData(GetShapeSize(selfShape), 1);``, ``float alphaValue = 1.0f;``,
``bool outputMask[3] = {true, true, true};``), the tensors, scalars and arrays built from them
(``CreateAclTensor(data, shape, &addr, aclDataType::ACL_FLOAT, &self[, aclFormat::ACL_FORMAT_NCHW])``,
``aclCreateScalar``, ``aclCreateIntArray``, ``aclCreateBoolArray``) and the arguments of the
first-phase call, matched to the prototype's parameters by position.
"""

from __future__ import annotations

import re

from generator.docimport.facts import SampleFacts, SampleValue
from generator.docimport.text import line_of

_NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?[fFlLuU]*"


def _strip_comments(code: str) -> str:
    code = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), code, flags=re.S)
    return re.sub(r"//[^\n]*", "", code)


def _number(text: str):
    text = text.strip()
    if text in ("true", "false"):
        return text == "true"
    if re.fullmatch(_NUMBER, text):
        body = re.sub(r"[fFlLuU]+$", "", text)
        try:
            return int(body)
        except ValueError:
            try:
                return float(body)
            except ValueError:
                return None
    m = re.fullmatch(r"\(\s*[A-Za-z0-9_]+\s*\)\s*(" + _NUMBER + ")", text)  # (int64_t)3
    if m:
        return _number(m.group(1))
    return None


def _values(body: str) -> list | None:
    items = [i for i in re.split(r",", body) if i.strip()]
    out = []
    for item in items:
        value = _number(item)
        if value is None:
            return None
        out.append(value)
    return out


def _split_args(text: str) -> list[str]:
    args, depth, current = [], 0, ""
    for ch in text:
        if ch in "([{<":
            depth += 1
        elif ch in ")]}>":
            depth -= 1
        if ch == "," and depth == 0:
            args.append(current.strip())
            current = ""
        else:
            current += ch
    if current.strip():
        args.append(current.strip())
    return args


def read_sample(code: str, first_line: int, api: str, params: list[tuple[str, str]], vocab) -> SampleFacts:
    """Values of the first-phase call of ``api``; ``params`` are (name, model ctype) in C order."""
    facts = SampleFacts(first_line, code)
    text = _strip_comments(code)
    vectors: dict[str, list] = {}
    fills: dict[str, tuple[str | None, int | float]] = {}  # data var -> (shape var, fill value)
    plain: dict[str, object] = {}
    for m in re.finditer(
        r"std::(?:vector|array)\s*<\s*([A-Za-z0-9_:]+)\s*(?:,\s*\d+\s*)?>\s+([A-Za-z0-9_]+)\s*=\s*\{([^{}]*)\}", text
    ):
        values = _values(m.group(3))
        if values is not None:
            vectors[m.group(2)] = values
    for m in re.finditer(
        r"std::vector\s*<\s*([A-Za-z0-9_:]+)\s*>\s+([A-Za-z0-9_]+)\s*\(\s*(?:GetShapeSize\s*\(\s*([A-Za-z0-9_]+)\s*\)(?:\s*\*\s*\d+)?|(\d+))\s*(?:,\s*([^()]+?))?\s*\)\s*;",
        text,
    ):
        value = _number(m.group(5)) if m.group(5) else 0
        if value is not None:
            fills[m.group(2)] = (m.group(3), value)
    for m in re.finditer(
        r"\b(bool|int|int8_t|int16_t|int32_t|int64_t|float|double|uint8_t)\s+([A-Za-z0-9_]+)\s*\[\s*\d*\s*\]\s*=\s*\{([^{}]*)\}",
        text,
    ):
        values = _values(m.group(3))
        if values is not None:
            vectors[m.group(2)] = values
    for m in re.finditer(
        r"\b(?:const\s+)?(bool|int|int8_t|int16_t|int32_t|int64_t|uint64_t|float|double)\s+([A-Za-z0-9_]+)\s*=\s*([^;,(){}]+);",
        text,
    ):
        value = _number(m.group(3))
        if value is not None:
            plain[m.group(2)] = value
    # Format the tensor helper writes when none is passed.
    helper_format = None
    helper = re.search(r"aclCreateTensor\s*\(([^;]*)\)", text)
    if helper:
        fm = re.search(r"ACL_FORMAT_([A-Z0-9_]+)", helper.group(1))
        helper_format = vocab.format(fm.group(1)) if fm else None
    tensors: dict[str, SampleValue] = {}
    for m in re.finditer(r"\bCreateAclTensor[A-Za-z0-9_]*\s*\(", text):
        args = _split_args(_balanced(text, m.end() - 1))
        names = [re.sub(r"[&*\s]", "", a) for a in args]
        dtype_arg = next((a for a in args if "ACL_" in a and "FORMAT" not in a), None)
        format_arg = next((a for a in args if "ACL_FORMAT_" in a), None)
        target = next(
            (n for a, n in zip(args, names) if a.strip().startswith("&") and "DeviceAddr" not in a and "Addr" not in a),
            None,
        )
        if target is None and len(names) >= 5:
            target = names[4]
        if target is None:
            continue
        shape_var = names[1] if len(names) >= 2 and names[1] in vectors else None
        if shape_var is None:
            shape_var = next((n for n in names if n in vectors and ("shape" in n.lower() or "size" in n.lower())), None)
        data_var = names[0] if names else None
        value = SampleValue("tensor")
        if shape_var is not None:
            value.shape = [int(v) for v in vectors[shape_var] if isinstance(v, (int, float))]
        if dtype_arg:
            dm = re.search(r"ACL_([A-Z0-9_]+)", dtype_arg)
            value.dtype = vocab.dtype(dm.group(1)) if dm else None
        fmt = None
        if format_arg:
            fm = re.search(r"ACL_FORMAT_([A-Z0-9_]+)", format_arg)
            fmt = vocab.format(fm.group(1)) if fm else None
        value.format = fmt or helper_format
        if data_var in vectors:
            value.data = list(vectors[data_var])
        elif data_var in fills:
            value.fill = fills[data_var][1]
        tensors[target] = value
    scalars: dict[str, SampleValue] = {}
    for m in re.finditer(
        r"([A-Za-z0-9_]+)\s*(?:=|\()\s*aclCreateScalar\s*\(\s*&?\s*([A-Za-z0-9_]+)\s*,\s*(?:aclDataType::)?ACL_([A-Z0-9_]+)\s*\)",
        text,
    ):
        value = plain.get(m.group(2))
        scalars[m.group(1)] = SampleValue("scalar", dtype=vocab.dtype(m.group(3)), value=value)
    arrays: dict[str, SampleValue] = {}
    for m in re.finditer(
        r"([A-Za-z0-9_]+)\s*(?:=|\()\s*aclCreate(?:Int|Bool|Float)Array\s*\(\s*&?\(?\s*([A-Za-z0-9_]+)"
        r"(?:\.data\(\)|\s*\[\s*0\s*\]\s*\))?\s*,\s*([A-Za-z0-9_]+(?:\.size\(\))?)\s*\)",
        text,
    ):
        source, count = m.group(2), m.group(3)
        values = vectors.get(source)
        if values is None:
            continue
        n = _number(count)
        if isinstance(n, int) and not isinstance(n, bool) and 0 <= n <= len(values):
            values = values[:n]
        arrays[m.group(1)] = SampleValue("list", value=list(values))
    # The first-phase call.
    call = None
    for m in re.finditer(rf"\b{re.escape(api)}GetWorkspaceSize\s*\(", text):
        before = text[max(0, m.start() - 40) : m.start()]
        if re.search(r"aclnnStatus\s*$", before):
            continue  # a declaration
        call = m
        break
    if call is None:
        return facts
    facts.call_found = True
    facts.line = first_line + line_of(text, call.start()) - 1
    args = _split_args(_balanced(text, call.end() - 1))
    for (name, ctype), arg in zip(params, args):
        var = re.sub(r"^\(.*?\)\s*", "", arg.strip()).lstrip("&*").strip()
        if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*(?:\(\))?)+", var):
            var = var.split(".")[0]  # handle.get(), device.tensor.get()
        if var in ("nullptr", "NULL", "0") and "*" in ctype:
            facts.values[name] = SampleValue("null")
        elif var in tensors:
            facts.values[name] = tensors[var]
        elif var in scalars:
            facts.values[name] = scalars[var]
        elif var in arrays:
            facts.values[name] = arrays[var]
        elif var in plain:
            facts.values[name] = SampleValue("plain", value=plain[var])
        elif _number(var) is not None:
            facts.values[name] = SampleValue("plain", value=_number(var))
    return facts


def _balanced(text: str, open_index: int) -> str:
    """The text inside the parenthesis at ``open_index`` (up to its matching close)."""
    depth = 0
    for i in range(open_index, len(text)):
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
            if depth == 0:
                return text[open_index + 1 : i]
    return text[open_index + 1 :]
