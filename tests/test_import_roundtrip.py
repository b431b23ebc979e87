"""Round trip: importing each generated doc page (zh + its en twin) gives back the doc-owned facts of
the spec it was generated from: products, parameters with C types and roles, dtype tables per
product, formats, ranks, and the status code of every documented error text.
"""

from __future__ import annotations

import re

import pytest

from tests.importing import REPO, context

DOCS = REPO / "generated" / "docs"


def _specs():
    from generator.loader import load_project

    return load_project(REPO / "specs").ops


def _dtype_table(param, products) -> dict:
    out = {}
    for rule in param.tensor.dtypes:
        for tag in products if rule.products == "all" else rule.products:
            if tag in products:
                out.setdefault(tag, set(rule.dtypes))
    return out


def _error_codes(spec, catalog) -> dict[str, set[int]]:
    """Error text -> the codes a user page lists it under: the rows of its error table (checks CANN
    enforces that no earlier check pre-empts), under the code CANN returns."""
    from generator.emit.docs import user_checks

    out: dict[str, set[int]] = {}
    for check in user_checks(spec):
        out.setdefault(_norm(check.text.zh), set()).add(catalog.status(check.code)[0])
    return out


def _error_rows(doc_facts) -> dict[str, set[int]]:
    """Error text -> codes as the imported doc lists them (its error table, before mapping)."""
    out: dict[str, set[int]] = {}
    for api in doc_facts.apis:
        for row in api.errors:
            out.setdefault(_norm(row.text), set()).add(row.code)
    return out


def _norm(text: str) -> str:
    text = re.sub(r"\\([\\`*_{}\[\]()#+\-.!|<>~])", r"\1", text)  # Markdown escapes
    return re.sub(r"\s+", " ", text).strip()


def facts(spec, catalog, errors=None) -> dict:
    """The doc-owned facts of a spec (what a doc page states)."""
    return {
        "products": list(spec.products),
        "params": [(p.name, p.ctype, p.role) for p in spec.params],
        "dtypes": {p.name: _dtype_table(p, spec.products) for p in spec.params if p.tensor},
        "formats": {p.name: sorted(p.tensor.formats) for p in spec.params if p.tensor},
        "ranks": {
            p.name: (p.tensor.rank.min, p.tensor.rank.max) if p.tensor.rank else None for p in spec.params if p.tensor
        },
        "errors": errors if errors is not None else _error_codes(spec, catalog),
    }


@pytest.mark.parametrize("info", _specs(), ids=lambda i: i.spec.op)
def test_generated_page_round_trip(info):
    from generator.docimport import import_doc
    from generator.model import OpSpec

    page = DOCS / "zh" / f"{info.spec.name}.md"
    twin = DOCS / "en" / f"{info.spec.name}.md"
    result = import_doc(page, context(), en=twin)
    assert [m for m in result.messages if m.level == "error"] == []
    [imported] = [s for s in result.specs if s.name == info.spec.name]
    mine = OpSpec.model_validate(imported.data)
    catalog = context().catalog
    want, got = facts(info.spec, catalog), facts(mine, catalog, _error_rows(result.facts))
    for key in want:
        assert got[key] == want[key], key
