"""Throw-away specs trees for hostile-input tests.

``spec_tree(root, "elu_backward", mutate)`` copies the repository's catalogue and one op spec into
``root/specs`` after applying ``mutate(data)`` to the op's parsed YAML (and ``mutate_catalog(name,
data)`` to each catalogue file). Files are written as JSON documents, which YAML reads as flow
style: every string survives exactly (escapes included), so the loader sees the hostile text itself.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

from generator.yamlio import load_yaml

REPO = Path(__file__).resolve().parents[2]
SPECS = REPO / "specs"
SCHEMA_LINE = "# yaml-language-server: $schema=../generated/schema/opspec.schema.json\n"


def read_spec(snake: str) -> dict:
    return load_yaml((SPECS / f"{snake}.yaml").read_text(encoding="utf-8")).data


def dump(data: object) -> str:
    """A YAML document (JSON flow style) holding ``data`` exactly; lone surrogates stay escaped."""
    return json.dumps(data, ensure_ascii=True, indent=1) + "\n"


def spec_tree(
    root: Path,
    snake: str = "elu_backward",
    mutate: Callable[[dict], None] | None = None,
    mutate_catalog: Callable[[str, dict], None] | None = None,
) -> Path:
    """Write ``root/specs`` (catalogue + one mutated op spec); return the specs folder."""
    specs = root / "specs"
    (specs / "catalog").mkdir(parents=True, exist_ok=True)
    for path in sorted((SPECS / "catalog").glob("*.yaml")):
        data = load_yaml(path.read_text(encoding="utf-8")).data
        if mutate_catalog is not None:
            mutate_catalog(path.stem, data)
        (specs / "catalog" / path.name).write_text(dump(data), encoding="utf-8")
    data = read_spec(snake)
    if mutate is not None:
        mutate(data)
    (specs / f"{snake}.yaml").write_text(SCHEMA_LINE + dump(data), encoding="utf-8")
    return specs


# Characters a YAML stream may hold literally (YAML 1.1 "printable"; the BOM excluded).
_YAML_LITERAL = re.compile("[^\t\n\r\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]")


def dump_utf8(data: object) -> str:
    """Like :func:`dump`, but every character a YAML file can hold literally is written as itself
    (astral characters included: YAML readers do not pair surrogate escapes); only the others are
    escaped, so lone surrogates still reach the reader as escapes (and are rejected there)."""
    text = json.dumps(data, ensure_ascii=False, indent=1)
    return _YAML_LITERAL.sub(lambda m: f"\\u{ord(m.group()):04x}", text) + "\n"


def spec_tree_utf8(
    root: Path,
    snake: str = "elu_backward",
    mutate: Callable[[dict], None] | None = None,
    mutate_catalog: Callable[[str, dict], None] | None = None,
) -> Path:
    """:func:`spec_tree`, with every file rewritten by :func:`dump_utf8` (UTF-8 text, as an editor writes it)."""
    specs = spec_tree(root, snake, mutate, mutate_catalog)
    for path in [*sorted((specs / "catalog").glob("*.yaml")), specs / f"{snake}.yaml"]:
        text = path.read_text(encoding="utf-8")
        head = SCHEMA_LINE if text.startswith(SCHEMA_LINE) else ""
        path.write_text(head + dump_utf8(json.loads(text[len(head) :])), encoding="utf-8")
    return specs
