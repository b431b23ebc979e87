"""Spec data -> YAML text in the house style of ``specs/*.yaml``.

The schema comment line first; block style for the document, flow style for short leaves (product
lists, dtype rules, ranks, parameter lists of checks, example values, ``infer``), the model's key
order, literal blocks for multi-line text, no line folding. Strings are written plain only when a
plain scalar cannot be read as anything else; otherwise double-quoted with every character that
is not plainly printable escaped. The text is read back with the loader's strict YAML reader and
must give back exactly the data, or this raises (a writer bug, never silently wrong output).
"""

from __future__ import annotations

import json
import re

SCHEMA_LINE = "# yaml-language-server: $schema=../generated/schema/opspec.schema.json"

# Keys whose value is written in flow style ({...} / [...]) when it is short.
_FLOW_KEYS = {"products", "formats", "rank", "params", "dtypes", "lengths", "infer", "kernel", "scalar", "array"}
_FLOW_KEYS |= {"trigger", "boundary", "tolerance"}
_FLOW_ITEM_PARENTS = {"dtypes"}  # lists of small mappings: one flow mapping per item
_FLOW_VALUE_PARENTS = {"inputs", "expected"}  # example values: one flow value per key
_MAX_FLOW = 118
_RESERVED = {"true", "false", "null", "yes", "no", "on", "off", "y", "n", "~", ""}
_PRINTABLE = re.compile(r"[^\x20-\x7e\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_NUMBERISH = re.compile(
    r"[-+]?(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|nan)|0[xob][0-9a-f_]+|[0-9:]+",
    re.I,
)


def _plain_ok(text: str, flow: bool) -> bool:
    if text.lower() in _RESERVED or text != text.strip() or _PRINTABLE.search(text) or "\ufeff" in text:
        return False
    if _NUMBERISH.fullmatch(text):
        return False
    if text[0] in "-?:,[]{}#&*!|>'\"%@`" or ": " in text or " #" in text or text.endswith(":"):
        return False
    if flow and re.search(r"[,\[\]{}]", text):
        return False
    return True


def _quoted(text: str) -> str:
    body = json.dumps(text, ensure_ascii=False)[1:-1]
    body = _PRINTABLE.sub(lambda m: f"\\u{ord(m.group(0)):04x}" if ord(m.group(0)) <= 0xFFFF else m.group(0), body)
    body = body.replace("\ufeff", "\\ufeff")
    return f'"{body}"'


def _scalar(value, flow: bool = False) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if value != value:
            return ".nan"
        if value in (float("inf"), float("-inf")):
            return ".inf" if value > 0 else "-.inf"
        text = repr(value)
        return text if ("." in text or "e" in text or "n" in text) else text + ".0"
    text = str(value)
    if re.fullmatch(r"[0-9][0-9_]*", text) and text.isascii():
        return f'"{text}"'
    return text if _plain_ok(text, flow) else _quoted(text)


def _flow(value) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_key(k)}: {_flow(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_flow(v) for v in value) + "]"
    return _scalar(value, flow=True)


def _key(key) -> str:
    text = str(key)
    return text if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", text) and text.lower() not in _RESERVED else _quoted(text)


def _multiline(value) -> bool:
    if isinstance(value, str):
        return "\n" in value
    if isinstance(value, dict):
        return any(_multiline(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(_multiline(v) for v in value)
    return False


def _use_flow(value, key, parent, indent: int = 0) -> bool:
    if not isinstance(value, (dict, list, tuple)):
        return False
    if parent not in _FLOW_VALUE_PARENTS and parent not in _FLOW_ITEM_PARENTS and key not in _FLOW_KEYS:
        return bool(isinstance(value, (list, tuple)) and not value)
    if _multiline(value):
        return False
    if isinstance(value, (list, tuple)) and not value:
        return True
    text = _flow(value)
    if parent in _FLOW_VALUE_PARENTS:
        return len(text) <= 400
    if len(text) + indent + len(str(key or "")) > _MAX_FLOW:
        return False
    if parent in _FLOW_ITEM_PARENTS:
        return True
    if key in _FLOW_KEYS:
        return not (isinstance(value, (list, tuple)) and any(isinstance(v, dict) for v in value) and key != "dtypes")
    return False


def _literal(text: str) -> bool:
    lines = text.split("\n")
    if _PRINTABLE.sub("", text.replace("\n", "")) != text.replace("\n", "") or "\t" in text or "\r" in text:
        return False
    if lines[0].startswith(" ") or not lines[0].strip():
        return False
    if any(line != line.rstrip() for line in lines):
        return False
    body = text[:-1] if text.endswith("\n") else text
    return "\n\n\n" not in text and not body.endswith("\n")


def _emit_value(key, value, indent: int, parent, out: list[str], prefix: str) -> None:
    """Append ``prefix`` (``key:`` or ``-``) and ``value`` at ``indent``."""
    pad = " " * indent
    if isinstance(value, str) and "\n" in value and _literal(value):
        chomp = "" if value.endswith("\n") else "-"
        out.append(f"{pad}{prefix} |{chomp}")
        for line in (value[:-1] if value.endswith("\n") else value).split("\n"):
            out.append(f"{pad}  {line}" if line else "")
        return
    if not isinstance(value, (dict, list, tuple)):
        out.append(f"{pad}{prefix} {_scalar(value)}")
        return
    if _use_flow(value, key, parent, indent):
        out.append(f"{pad}{prefix} {_flow(value)}")
        return
    if isinstance(value, dict):
        if not value:
            out.append(f"{pad}{prefix} {{}}")
            return
        out.append(f"{pad}{prefix}")
        _emit_mapping(value, indent + 2, key, out)
        return
    out.append(f"{pad}{prefix}")
    for item in value:
        _emit_item(item, indent + 2, key, out)


def _emit_mapping(mapping: dict, indent: int, parent, out: list[str]) -> None:
    for k, v in mapping.items():
        _emit_value(k, v, indent, parent, out, f"{_key(k)}:")


def _emit_item(item, indent: int, parent, out: list[str]) -> None:
    pad = " " * indent
    if isinstance(item, dict) and item and not _use_flow(item, None, parent):
        first = True
        for k, v in item.items():
            if first:
                lines: list[str] = []
                _emit_value(k, v, indent + 2, None, lines, f"{_key(k)}:")
                lines[0] = f"{pad}- " + lines[0].lstrip()
                out.extend(lines)
                first = False
            else:
                _emit_value(k, v, indent + 2, None, out, f"{_key(k)}:")
        return
    _emit_value(None, item, indent, parent, out, "-")


def dump_spec(data: dict) -> str:
    """The YAML text of one spec (schema comment line included); verified to read back as ``data``."""
    out = [SCHEMA_LINE]
    _emit_mapping(data, 0, None, out)
    text = "\n".join(out) + "\n"
    try:
        back = _read_back(text)
    except Exception as exc:  # pragma: no cover - a writer bug
        raise RuntimeError(f"the YAML writer produced text that does not parse ({exc})") from None
    if back != _normal(data):  # pragma: no cover - a writer bug
        raise RuntimeError("the YAML writer changed the data (round trip failed)")
    return text


def _read_back(text: str):
    """The data the loader reads from ``text`` (the loader's strict resolver; positions not needed)."""
    import yaml

    from generator import yamlio

    loader = getattr(yamlio, "_StrictLoader", None)
    if loader is None:  # pragma: no cover - the loader's internals changed: use its public reader
        return yamlio.load_yaml(text).data
    return yaml.load(text, Loader=loader)  # noqa: S506 - a safe loader with a restricted resolver


def _normal(value):
    """``value`` as the strict loader gives it back (tuples as lists)."""
    if isinstance(value, dict):
        return {k: _normal(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_normal(v) for v in value]
    return value
