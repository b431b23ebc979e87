"""``opgen import-doc DOC... [--out DIR] [--en DOC]``: write one spec per API of each doc.

Prints one coverage line per spec and every located remark (``DOC:LINE: level: message``) on
stderr. Into the specs tree (no ``--out``, or a folder holding ``catalog/``) an existing spec is
never overwritten: updating a curated spec is ``opgen sync``'s job. Exit status 1 when nothing
usable was found in any doc, or when a spec was refused; 0 otherwise.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from generator.diagnostics import display_path


def _catalog_dir(folder: Path, default: Path) -> Path:
    for candidate in [folder, *folder.resolve().parents]:
        if (candidate / "catalog").is_dir():
            return candidate
    return default


def run(args, default_specs: Path) -> int:
    """Run the subcommand (``args``: docs, out, en, quiet as parsed by ``generator.cli``)."""
    from generator.diagnostics import SpecError
    from generator.docimport import import_doc, write_spec
    from generator.loader import load_catalog

    start = time.perf_counter()
    out_dir: Path = args.out if args.out is not None else default_specs
    protected = args.out is None or (out_dir / "catalog").is_dir()
    en_docs = args.en or []
    if en_docs and len(en_docs) != len(args.docs):
        print(f"opgen import-doc: --en given {len(en_docs)} time(s) for {len(args.docs)} doc(s)", file=sys.stderr)
        return 2
    try:
        catalog = load_catalog(_catalog_dir(out_dir, default_specs))
    except SpecError as exc:
        for d in exc.diagnostics:
            print(d, file=sys.stderr)
        return 1
    written = refused = 0
    for index, doc in enumerate(args.docs):
        en = en_docs[index] if en_docs else None
        result = import_doc(doc, catalog, en=en)
        for m in sorted(set(result.messages), key=lambda m: (m.file, m.line)):
            if not args.quiet or m.level == "error":
                print(m, file=sys.stderr)
        for spec in result.specs:
            try:
                path = write_spec(spec, out_dir, overwrite=not protected)
            except FileExistsError:
                target = display_path(out_dir / f"{spec.snake}.yaml")
                print(
                    f"{display_path(doc)}: {spec.name}: {target} exists; not overwritten "
                    "(update a curated spec with 'opgen sync')",
                    file=sys.stderr,
                )
                refused += 1
                continue
            written += 1
            print(f"{display_path(doc)}: {spec.name} -> {display_path(path)}: {spec.coverage.line()}")
        if not result.specs:
            print(f"{display_path(doc)}: nothing usable found", file=sys.stderr)
    elapsed = time.perf_counter() - start
    print(f"opgen import-doc: {written} spec(s) written from {len(args.docs)} doc(s), {elapsed:.2f} s")
    return 1 if written == 0 or refused else 0
