"""What ``opgen diff`` / ``opgen sync`` read: specs, docs (imported on the fly) or folders of either.

A folder gives every ``*.yaml`` spec under it (the ``catalog/`` folder aside) and every doc
(``*.md``, ``*.txt``) in it; an English twin ``X_en.md`` is used as ``X.md``'s twin, not as a doc of
its own, unless ``X.md`` is missing. Ops are matched by their aclnn name.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from generator.diagnostics import SpecError, display_path
from generator.docimport.view import View, doc_view, spec_view

DOC_SUFFIXES = (".md", ".txt")


@dataclass
class Side:
    path: Path
    views: dict[str, View] = field(default_factory=dict)  # aclnn name -> view
    problems: list[str] = field(default_factory=list)

    @property
    def label(self) -> str:
        return display_path(self.path)


def catalog_dir(path: Path, default: Path) -> Path:
    """The specs folder (holding ``catalog/``) that governs ``path``; ``default`` otherwise."""
    start = path if path.is_dir() else path.parent
    for candidate in [start, *start.resolve().parents]:
        if (candidate / "catalog").is_dir():
            return candidate
    return default


def files_of(folder: Path) -> list[Path]:
    specs = sorted(p for p in folder.rglob("*.yaml") if "catalog" not in p.relative_to(folder).parts)
    docs = sorted(p for p in folder.iterdir() if p.is_file() and p.suffix in DOC_SUFFIXES)
    names = {p.name for p in docs}
    docs = [p for p in docs if not (p.name.endswith("_en.md") and p.name[: -len("_en.md")] + ".md" in names)]
    docs = [p for p in docs if p.name.lower() not in ("readme.md", "manifest.txt", "changes.md")]
    return specs + docs


def load_side(path: Path, ctx, default_specs: Path, *, twins: bool = False) -> Side:
    """Views of every op in ``path`` (a spec, a doc or a folder). Problems are collected, not raised.
    ``twins``: also read English twins (for their ``en`` texts; diff does not need them)."""
    side = Side(path)
    if not path.exists():
        side.problems.append(f"{display_path(path)}: no such file or directory")
        return side
    for file in files_of(path) if path.is_dir() else [path]:
        for view in read_views(file, ctx, default_specs, side.problems, twins=twins):
            if view.name in side.views:
                other = side.views[view.name].source
                side.problems.append(f"{display_path(file)}: {view.name} is also in {other}; the first is used")
                continue
            side.views[view.name] = view
    return side


def read_views(file: Path, ctx, default_specs: Path, problems: list[str], *, twins: bool = False) -> list[View]:
    if file.suffix in (".yaml", ".yml"):
        spec = read_spec(file, default_specs, problems)
        return [spec_view(spec, ctx.catalog, display_path(file))] if spec is not None else []
    return [v for v, _ in import_views(file, ctx, problems, twins=twins)]


def read_spec(file: Path, default_specs: Path, problems: list[str]):
    """The ``OpSpec`` of a spec file, loaded and cross-checked as ``opgen lint`` does."""
    from generator.loader import load_catalog, load_op

    try:
        catalog = load_catalog(catalog_dir(file, default_specs))
        return load_op(file, catalog).spec
    except SpecError as exc:
        problems += [str(d) for d in exc.diagnostics]
        return None


def import_views(file: Path, ctx, problems: list[str], *, twins: bool = False, en: Path | None = None):
    """``[(view, imported spec)]`` of every API of a doc (its English twin read when ``twins``)."""
    from generator.docimport import import_doc
    from generator.docimport.source import decode

    if twins or en is not None:
        result = import_doc(file, ctx, en=en)
    else:
        try:
            text, _ = decode(file.read_bytes())
        except OSError as exc:
            problems.append(f"{display_path(file)}: cannot read: {exc.strerror}")
            return []
        result = import_doc(file, ctx, text=text)
    for m in result.messages:
        if m.level == "error":
            problems.append(str(m))
    out = []
    for spec in result.specs:
        out.append((doc_view(spec, result.facts, ctx.catalog, result.en_facts, display_path(file)), spec))
    return out
