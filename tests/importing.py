"""Shared helpers of the import tests: where the doc corpus is, and importing it into specs trees."""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
if not SHARED.is_dir():  # CI runs in a fresh clone with shared/ beside it
    SHARED = Path("/work/shared")
CORPUS = SHARED / "corpus"
CURRENT = CORPUS / "aclnn-docs"
RELEASES = CORPUS / "aclnn-docs-releases"
HISTORY = CORPUS / "aclnn-docs-history"
SEEDS = SHARED / "seeds"
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "import"


def need(path: Path) -> Path:
    if not path.exists():
        pytest.skip(f"{path} not available")
    return path


@cache
def catalog():
    from generator.loader import load_catalog

    return load_catalog(REPO / "specs")


@cache
def context():
    from generator.docimport import Context

    return Context(catalog())


def corpus_groups() -> dict[str, list[Path]]:
    """Docs grouped so that every group has one doc per operator (a specs tree per group)."""
    groups: dict[str, list[Path]] = {}
    if CURRENT.is_dir():
        groups["current"] = sorted(CURRENT.glob("aclnn*.md"))
    for release in sorted(RELEASES.glob("*")) if RELEASES.is_dir() else []:
        if release.is_dir():
            groups[f"release-{release.name}"] = sorted(
                p for p in release.glob("aclnn*.md") if not p.stem.endswith("_en")
            )
            english = sorted(release.glob("aclnn*_en.md"))
            if english:
                groups[f"release-{release.name}-en"] = english
    if HISTORY.is_dir():
        for path in sorted(HISTORY.glob("aclnn*.v*.md")):
            version = path.stem.rsplit(".", 1)[-1]
            groups.setdefault(f"history-{version}", []).append(path)
    if SEEDS.is_dir():
        groups["seeds"] = sorted(SEEDS.glob("*.txt"))
    return groups


@dataclass
class Tree:
    name: str
    specs: Path
    docs: list[Path] = field(default_factory=list)
    results: dict[str, object] = field(default_factory=dict)  # doc path -> DocImport


def import_tree(name: str, docs: list[Path], root: Path) -> Tree:
    """Import ``docs`` into ``root/<name>/specs`` (with a copy of the catalogue)."""
    from generator.docimport import import_doc, write_spec

    specs = root / name / "specs"
    shutil.copytree(REPO / "specs" / "catalog", specs / "catalog")
    tree = Tree(name, specs, docs)
    for doc in docs:
        result = import_doc(doc, context())
        tree.results[str(doc)] = result
        for spec in result.specs:
            write_spec(spec, specs)
    return tree
