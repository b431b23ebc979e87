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

from generator.diagnostics import SpecError, display_path


def _catalog_dir(folder: Path, default: Path) -> Path:
    for candidate in [folder, *folder.resolve().parents]:
        if (candidate / "catalog").is_dir():
            return candidate
    return default


def run(args, default_specs: Path) -> int:
    """Run the subcommand (``args``: docs, out, en, quiet as parsed by ``generator.cli``)."""
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


def run_diff(args, default_specs: Path) -> int:
    """``opgen diff OLD NEW [--format text|markdown|json]``: exit 1 on a breaking change, 2 when an
    input cannot be read."""
    from generator.docimport import Context
    from generator.docimport.diff import Change, OpDiff, diff_views, report
    from generator.docimport.inputs import load_side
    from generator.loader import load_catalog

    try:
        ctx = Context(load_catalog(default_specs))
    except SpecError as exc:
        for d in exc.diagnostics:
            print(d, file=sys.stderr)
        return 2
    old = load_side(args.old, ctx, default_specs)
    new = load_side(args.new, ctx, default_specs)
    problems = old.problems + new.problems
    for p in problems:
        print(p, file=sys.stderr)
    missing = [side for side in (old, new) if not side.path.exists()]
    if missing or (not old.views and not new.views):
        print(f"opgen diff: no spec or doc read from {(missing or [old])[0].label}", file=sys.stderr)
        return 2
    pairs: list[tuple[str, object, object]] = []
    if not args.old.is_dir() and not args.new.is_dir() and len(old.views) == 1 and len(new.views) == 1:
        [(name_a, a)] = old.views.items()
        [(name_b, b)] = new.views.items()
        pairs.append((name_b if name_a == name_b else f"{name_a} -> {name_b}", a, b))
    else:
        for name in sorted(set(old.views) | set(new.views)):
            pairs.append((name, old.views.get(name), new.views.get(name)))
    diffs = []
    for name, a, b in pairs:
        d = OpDiff(name, a.source if a else "", b.source if b else "")
        if a is None:
            d.changes.append(Change("op", "added", name, None, name, False, 0, f"operator added: {name}"))
        elif b is None:
            d.changes.append(Change("op", "removed", name, name, None, True, 0, f"operator removed: {name}"))
        else:
            d.changes = diff_views(a, b, ctx.catalog)
        diffs.append(d)
    sys.stdout.write(report(diffs, args.format, old.label, new.label))
    return 1 if any(d.breaking for d in diffs) else 0


def run_sync(args, default_specs: Path) -> int:
    """``opgen sync SPEC DOC [--en DOC] [--base DOC] [--dry-run]``: print what was applied and what
    was marked for review; exit 1 when the spec or the doc cannot be used (nothing written)."""
    from generator.docimport import Context
    from generator.docimport.inputs import catalog_dir
    from generator.docimport.sync import SyncError, sync, write
    from generator.loader import load_catalog

    try:
        ctx = Context(load_catalog(catalog_dir(args.spec, default_specs)))
        result = sync(args.spec, args.doc, ctx, en=args.en, base=args.base)
    except SpecError as exc:
        for d in exc.diagnostics:
            print(d, file=sys.stderr)
        return 1
    except SyncError as exc:
        for p in exc.problems:
            print(p, file=sys.stderr)
        print(f"opgen sync: {display_path(args.spec)} not changed", file=sys.stderr)
        return 1
    print(f"{display_path(args.spec)} <- {display_path(args.doc)} (changes since: {result.base})")
    from generator.escape.markdown import clean

    for action in result.actions:
        print(f"  {action.status:<8} {clean(action.message)}")
    applied, marked, already = result.count("applied"), result.count("review"), result.count("already")
    if not result.actions:
        print("  nothing to apply: the spec is in step with the doc")
    verb = "would be written" if args.dry_run else "written"
    state = f"{display_path(args.spec)} {verb}" if result.changed else f"{display_path(args.spec)} unchanged"
    print(
        f"opgen sync: {applied} applied, {marked} review marker(s), {already} already in the spec; {state}"
        + (" (dry run: nothing written)" if args.dry_run else "")
    )
    if not args.dry_run:
        write(result)
    return 0
