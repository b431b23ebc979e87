"""JSON Schemas of the spec formats (for editors, via the yaml-language-server comment)."""

from __future__ import annotations

import json
from pathlib import Path

from generator.model import DtypeCatalog, FormatCatalog, HeaderCatalog, OpSpec, ProductCatalog, StatusCatalog

SCHEMAS = {
    "opspec.schema.json": (OpSpec, "aclnn operator spec"),
    "catalog-products.schema.json": (ProductCatalog, "aclnn-opgen product catalogue"),
    "catalog-dtypes.schema.json": (DtypeCatalog, "aclnn-opgen dtype catalogue"),
    "catalog-formats.schema.json": (FormatCatalog, "aclnn-opgen format catalogue"),
    "catalog-status-codes.schema.json": (StatusCatalog, "aclnn-opgen status-code catalogue"),
    "catalog-headers.schema.json": (HeaderCatalog, "aclnn-opgen aclnnop header catalogue"),
}


def schema_files() -> dict[str, str]:
    """File name -> JSON text, deterministic."""
    out = {}
    for name, (model, title) in SCHEMAS.items():
        schema = model.model_json_schema()
        schema["title"] = title
        schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
        out[name] = json.dumps(schema, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    return out


def write_schemas(folder: Path) -> list[Path]:
    from generator.writer import write_if_changed

    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, text in schema_files().items():
        write_if_changed(folder / name, text)
        paths.append(folder / name)
    return paths
