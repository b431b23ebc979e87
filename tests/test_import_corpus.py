"""Every doc of the corpus imports without a crash into specs that ``opgen lint`` accepts and
``opgen generate`` renders, and each doc keeps at least its recorded coverage.

Docs: the 20 current upstream docs, every release version (zh, and the 8.5.0 English twins on
their own), every version in the history and the five seeds. Each group is imported into its own
specs tree (with the catalogue) and loaded as ``opgen lint`` does; every distinct imported spec is
rendered by ``opgen generate``'s renderer (specs are packed into as few trees as the one-name-per-
tree rule allows). Coverage floors live in ``tests/fixtures/import/coverage_floors.json``
(``OPGEN_UPDATE_FLOORS=1`` rewrites them from the current importer: set them at what it achieves).
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest

from tests.importing import FIXTURES, REPO, SHARED, corpus_groups, import_tree

FLOORS = FIXTURES / "coverage_floors.json"
STUBS = {"aclnnEluBackward.v01.md", "aclnnConvolutionBackward.v02.md"}  # "this doc is being rewritten" pages


@pytest.fixture(scope="module")
def trees(tmp_path_factory):
    groups = corpus_groups()
    if not groups:
        pytest.skip("the doc corpus is not available")
    root = tmp_path_factory.mktemp("import-corpus")
    return [import_tree(name, docs, root) for name, docs in groups.items()]


def _key(doc: str) -> str:
    path = Path(doc)
    try:
        return str(path.relative_to(SHARED))
    except ValueError:
        return path.name


def test_every_doc_imports(trees):
    """No crash, no import error, a spec for every API of every doc (the two stub pages excepted)."""
    for tree in trees:
        for doc, result in tree.results.items():
            errors = [m for m in result.messages if m.level == "error"]
            if Path(doc).name in STUBS:
                assert not result.usable and errors, doc  # nothing usable: said so, with a location
                assert all(m.line >= 1 for m in errors)
                continue
            assert result.usable, (doc, [str(e) for e in errors])
            assert not errors, (doc, [str(e) for e in errors])
            assert all(m.line >= 1 for m in result.messages), [str(m) for m in result.messages if m.line < 1]


def test_every_tree_lints(trees):
    from generator.loader import load_project

    for tree in trees:
        project = load_project(tree.specs)  # raises SpecError (located) on any problem
        imported = sum(len(r.specs) for r in tree.results.values())
        assert len(project.ops) == imported, tree.name


def test_every_distinct_spec_renders(trees, tmp_path):
    """All imported specs, deduplicated and packed into trees, render with ``opgen generate``'s renderer."""
    from generator.generate import render_all
    from generator.loader import load_project

    variants: dict[str, list[str]] = {}
    seen: set[tuple[str, str]] = set()
    for tree in trees:
        for path in sorted(tree.specs.glob("*.yaml")):
            text = path.read_text(encoding="utf-8")
            key = (path.name, re.sub(r"(?m)^sources:\n(?:  .*\n)+", "", text))  # same spec from another file
            if key not in seen:
                seen.add(key)
                variants.setdefault(path.name, []).append(text)
    slots = max(len(v) for v in variants.values())
    for slot in range(slots):
        specs = tmp_path / f"slot{slot}" / "specs"
        shutil.copytree(REPO / "specs" / "catalog", specs / "catalog")
        for name, texts in variants.items():
            if slot < len(texts):
                (specs / name).write_text(texts[slot], encoding="utf-8")
        project = load_project(specs)
        files = render_all(project)
        for info in project.ops:
            assert f"aclnn/ops/{info.spec.snake}.py" in files
            assert f"docs/zh/{info.spec.name}.md" in files and f"docs/en/{info.spec.name}.md" in files


def _coverage(trees) -> dict[str, dict]:
    out = {}
    for tree in trees:
        for doc, result in tree.results.items():
            for spec in result.specs:
                c = spec.coverage
                out[f"{_key(doc)}::{spec.name}"] = {
                    "params_described": c.params_described,
                    "products_listed": c.products_listed,
                    "dtype_tables_from_doc": c.dtype_tables_from_doc,
                    "error_rows_mapped": c.error_rows_mapped,
                    "checks_enforced": c.checks_enforced,
                }
    return out


def test_coverage_floors(trees):
    actual = _coverage(trees)
    if os.environ.get("OPGEN_UPDATE_FLOORS"):
        FLOORS.parent.mkdir(parents=True, exist_ok=True)
        FLOORS.write_text(json.dumps(actual, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    floors = json.loads(FLOORS.read_text(encoding="utf-8"))
    missing = sorted(set(floors) - set(actual))
    assert not missing, f"docs no longer imported: {missing}"
    below = [
        f"{key}: {metric} {actual[key][metric]} < {floor}"
        for key, metrics in floors.items()
        for metric, floor in metrics.items()
        if actual[key][metric] < floor
    ]
    assert not below, "coverage dropped:\n" + "\n".join(below)


def test_totals_match_readme(trees):
    """The README's totals are the importer's (keeps the documented figures honest)."""
    from tests.test_import_corpus import totals

    text = (REPO / "README.md").read_text(encoding="utf-8")
    figures = totals(trees)
    assert f"{figures['docs']} docs" in text, figures
    assert f"{figures['rows_mapped']} of {figures['rows']} error rows" in text, figures


def totals(trees) -> dict:
    docs = rows = rows_mapped = params = described = tables = tables_doc = 0
    for tree in trees:
        for result in tree.results.values():
            docs += 1
            for spec in result.specs:
                c = spec.coverage
                rows += c.error_rows
                rows_mapped += c.error_rows_mapped
                params += c.params
                described += c.params_described
                tables += c.dtype_tables
                tables_doc += c.dtype_tables_from_doc
    return {
        "docs": docs,
        "rows": rows,
        "rows_mapped": rows_mapped,
        "params": params,
        "params_described": described,
        "tables": tables,
        "tables_from_doc": tables_doc,
    }
