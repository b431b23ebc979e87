"""How often an *uncurated* import behaves like the curated spec: ``python -m benchmarks.import_agreement``.

For every curated spec in ``specs/`` that names its docs (``sources.doc`` in the corpus,
``sources.seed`` among the seeds), each doc is imported as is and its generated validator is run
on the curated spec's own check cases: every ``cases.trigger`` and ``cases.boundary`` (the
example itself when no boundary is given), applied as overrides of the curated example on the
case's product, exactly as ``tests/test_generated_ops.py`` runs them. A case agrees when both
validators return the same status code (0 = accepted). Prints one line per (op, doc) with the
share, and the total.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def shared_dir() -> Path:
    """The reference material: ``shared/`` beside the repository, else /work/shared."""
    beside = REPO.parent / "shared"
    return beside if beside.is_dir() else Path("/work/shared")


@dataclass
class Case:
    check: str
    which: str  # "trigger" | "boundary"
    product: str
    overrides: dict


@dataclass
class Agreement:
    op: str
    doc: str
    cases: int = 0
    agreed: int = 0
    disagreements: list[tuple[str, int, int]] = field(default_factory=list)  # (case, curated, imported)

    @property
    def share(self) -> float:
        return self.agreed / self.cases if self.cases else 0.0


def cases_of(spec) -> list[Case]:
    """The curated spec's check cases, with the product each runs on (as the generated-op tests do)."""
    out = []
    for check in spec.checks:
        if check.cases is None:
            continue
        product = check.cases.product or spec.example.product
        out.append(Case(check.id, "trigger", product, dict(check.cases.trigger)))
        boundary_product = spec.example.product if check.kind == "product_supported" else product
        out.append(Case(check.id, "boundary", boundary_product, dict(check.cases.boundary)))
    return out


def status(module, product: str, args: dict) -> int:
    """Status code of the first phase: 0 when accepted, the AclnnError code otherwise (-1: crash)."""
    from generator.docimport import validator
    from generator.runtime import AclnnError

    unknown = [name for name in args if name not in module.PARAMS]
    if unknown:
        return -2  # the import does not have these parameters
    try:
        validator.validate(module, product, args)
    except AclnnError as exc:
        return exc.code
    except Exception:  # noqa: BLE001 - a generated validator must not crash; count it as a disagreement
        return -1
    return 0


def measure(project, docs: dict[str, Path]) -> list[Agreement]:
    """Agreement of each imported doc (``docs``: op name -> doc path) with the curated spec."""
    from generator.docimport import Context, import_doc, validator
    from generator.docimport.build import _install_catalog
    from generator.runtime.examples import arguments

    ctx = Context(project.catalog)
    _install_catalog(project.catalog)
    results = []
    for info in project.ops:
        spec = info.spec
        path = docs.get(spec.name)
        if path is None:
            continue
        curated = validator.module_for(info, project.catalog)
        imported = import_doc(path, ctx)
        mine = next((s for s in imported.specs if s.name == spec.name), None)
        result = Agreement(spec.op, path.name)
        module = None
        if mine is not None:
            module = validator.validator_module(mine.data, project.catalog)
        for case in cases_of(spec):
            args = arguments(spec, spec.example, case.overrides, with_data=False)
            want = status(curated, case.product, args)
            got = status(module, case.product, args) if module is not None else -3
            result.cases += 1
            if want == got:
                result.agreed += 1
            else:
                result.disagreements.append((f"{case.check}:{case.which}", want, got))
        results.append(result)
    return results


def corpus_docs(project, kind: str) -> dict[str, Path]:
    """op name -> doc path for ``kind`` "current" (``sources.doc`` in aclnn-docs/) or "seed"."""
    shared = shared_dir()
    out = {}
    for info in project.ops:
        sources = info.spec.sources
        if kind == "current" and sources.doc:
            path = shared / "corpus" / "aclnn-docs" / sources.doc
        elif kind == "seed" and sources.seed:
            path = shared / "seeds" / sources.seed
        else:
            continue
        if path.is_file():
            out[info.spec.name] = path
    return out


def main(argv: list[str] | None = None) -> int:
    from generator.loader import load_project

    verbose = "-v" in (argv or sys.argv[1:])
    project = load_project(REPO / "specs")
    total_cases = total_agreed = 0
    for kind in ("current", "seed"):
        for r in measure(project, corpus_docs(project, kind)):
            total_cases += r.cases
            total_agreed += r.agreed
            print(f"{kind:7} {r.op:36} {r.agreed:3}/{r.cases:<3} {r.share:6.1%}  ({r.doc})")
            if verbose:
                for case, want, got in r.disagreements:
                    print(f"          {case:50} curated {want}, import {got}")
    if total_cases:
        print(f"total   {total_agreed}/{total_cases} = {total_agreed / total_cases:.1%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
