"""Throw-away specs trees for hostile-input tests.

``spec_tree(root, "elu_backward", mutate)`` copies the repository's catalogue and one op spec into
``root/specs`` after applying ``mutate(data)`` to the op's parsed YAML (and ``mutate_catalog(name,
data)`` to each catalogue file). Files are written as JSON documents, which YAML reads as flow
style: every string survives exactly (escapes included), so the loader sees the hostile text itself.
"""

from __future__ import annotations

import json
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
