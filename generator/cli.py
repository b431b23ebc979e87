"""The ``opgen`` command line: lint, schema, generate, docs, daemon, matrix, samples, import-doc, diff, sync."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from generator.diagnostics import Diagnostic, SpecError, display_path

REPO = Path(__file__).resolve().parent.parent
DEFAULT_SPECS = REPO / "specs"
DEFAULT_OUT = REPO / "generated"


def _catalog_dir_for(path: Path) -> Path:
    """The specs directory (holding catalog/) that governs ``path``; the repo's by default."""
    for candidate in [path, *path.resolve().parents]:
        if (candidate / "catalog").is_dir():
            return candidate
    return DEFAULT_SPECS


def _collect(paths: list[Path]) -> tuple[dict[Path, list[Path]], list[Diagnostic]]:
    """Group the op spec files named by ``paths`` (files or folders) by their specs directory."""
    from generator.files import spec_files

    groups: dict[Path, list[Path]] = {}
    diags = []
    for path in paths:
        if path.is_dir():
            root = _catalog_dir_for(path)
            files = [f for f in spec_files(path) if "catalog" not in f.relative_to(path).parts]
            if not files:
                diags.append(Diagnostic(display_path(path), 0, 0, "", "no spec files (*.yaml outside catalog/) here"))
                continue
        else:
            root = _catalog_dir_for(path.parent)
            files = [path]
        groups.setdefault(root, []).extend(files)
    return groups, diags


def cmd_lint(args) -> int:
    from generator.loader import load_project

    diags: list[Diagnostic] = []
    count = reviews = 0
    for path in args.paths:
        if not path.exists() and not path.is_symlink():
            diags.append(Diagnostic(str(path), 0, 0, "", "no such file or directory"))
    groups, diags_collect = _collect([p for p in args.paths if p.exists() or p.is_symlink()])
    diags += diags_collect
    for root, files in groups.items():
        try:
            project = load_project(root, files)
        except SpecError as exc:
            diags += exc.diagnostics
            continue
        count += len(project.ops)
        markers = _review_markers(project)
        reviews += len(markers)
        if args.strict:
            diags += _strict_diagnostics(project) + markers
        if args.deep:
            diags += _deep(project)
    for d in sorted(set(diags)):
        print(d, file=sys.stderr)
    if diags:
        print(f"opgen lint: {len(set(diags))} problem(s)", file=sys.stderr)
        return 1
    pending = f" ({reviews} review marker(s) left; 'opgen lint --strict' lists them)" if reviews else ""
    print(f"opgen lint: {count} spec(s) OK{pending}")
    return 0


def _deep(project) -> list[Diagnostic]:
    """--deep: kernel contract, example run, every check case (generator.deep); notes on stdout."""
    from generator.deep import deep_check

    diags = []
    for report in deep_check(project):
        for note in report.notes:
            print(f"opgen lint --deep: {report.op}: {note}")
        if report.diagnostics:
            print(f"opgen lint --deep: {report.op}: {len(report.diagnostics)} problem(s), listed on stderr")
        diags += report.diagnostics
    return diags


def _review_markers(project) -> list[Diagnostic]:
    """Every ``review:`` marker (left by import-doc / sync on what a person must curate), located."""
    from pydantic import BaseModel

    diags = []
    for info in project.ops:
        file = display_path(info.path)

        def walk(value, path, info=info, file=file):
            if isinstance(value, BaseModel):
                marker = getattr(value, "review", None)
                if isinstance(marker, str) and "review" in type(value).model_fields:
                    line, col = info.located.locate(path + ("review",))
                    dotted = ".".join(str(p) if isinstance(p, str) else f"[{p}]" for p in path + ("review",))
                    diags.append(Diagnostic(file, line, col, dotted.replace(".[", "["), marker))
                for name in type(value).model_fields:
                    if name != "review":
                        walk(getattr(value, name), path + (name,), info, file)
            elif isinstance(value, (list, tuple)):
                for i, item in enumerate(value):
                    walk(item, path + (i,), info, file)
            elif isinstance(value, dict):
                for key, item in value.items():
                    walk(item, path + (key,), info, file)

        walk(info.spec, ())
    return diags


def _strict_diagnostics(project) -> list[Diagnostic]:
    """--strict: every prose field must carry an English text."""
    from pydantic import BaseModel

    from generator.model import Text

    diags = []
    for info in project.ops:
        file = display_path(info.path)

        def walk(value, path, info=info, file=file):
            if isinstance(value, Text):
                if not value.en:
                    line, col = info.located.locate(path)
                    dotted = ".".join(str(p) if isinstance(p, str) else f"[{p}]" for p in path).replace(".[", "[")
                    diags.append(Diagnostic(file, line, col, dotted, "missing English text ('en')"))
                return
            if isinstance(value, BaseModel):
                for name in type(value).model_fields:
                    walk(getattr(value, name), path + (name,), info, file)
            elif isinstance(value, (list, tuple)):
                for i, item in enumerate(value):
                    walk(item, path + (i,), info, file)
            elif isinstance(value, dict):
                for key, item in value.items():
                    walk(item, path + (key,), info, file)

        walk(info.spec, ())
    return diags


def cmd_schema(args) -> int:
    from generator.schema import write_schemas

    out = args.out or DEFAULT_OUT / "schema"
    for path in write_schemas(out):
        print(display_path(path))
    return 0


def cmd_generate(args, only: str | None = None) -> int:
    from generator import daemon

    status = daemon.forward(args.specs, args.out, check=args.check, only=only, verbose=args.verbose)
    if status is not None:  # a running `opgen daemon` did the run
        return status
    from generator.generate import run_generate

    return run_generate(args.specs, args.out, check=args.check, only=only, verbose=args.verbose)


def cmd_daemon(args) -> int:
    """Start, stop or describe the resident renderer (generator/daemon.py)."""
    from generator import daemon

    def described(state: str, info: dict, *extra: str) -> str:
        facts = ", ".join(
            [f"pid {info['pid']}", *extra, f"socket {info['socket']}", f"exits after {info['idle']:g} s idle"]
        )
        return f"opgen daemon: {state} ({facts})"

    try:
        if args.action == "start":
            info = daemon.start(idle=args.idle)
            print(described("already running" if info.get("already") else "started", info))
            return 0
        if args.action == "stop":
            print("opgen daemon: stopped" if daemon.stop() else "opgen daemon: not running")
            return 0
        info = daemon.status()
        if info is None:
            print("opgen daemon: not running")
            return 3
        print(described("running", info, f"{info['requests']} run(s) served"))
        return 0
    except daemon.DaemonError as exc:
        print(f"opgen daemon: {exc}", file=sys.stderr)
        return 1


def cmd_docs(args) -> int:
    return cmd_generate(args, only="docs")


def cmd_matrix(args) -> int:
    """Print the support matrix (op x product x tensor -> dtypes the validators accept)."""
    from generator.emit import matrix
    from generator.generate import environment
    from generator.loader import load_project

    project = load_project(args.specs)
    table = matrix.build(project, environment())
    text = matrix.as_json(project, table) if args.format == "json" else matrix.markdown(project, table)
    sys.stdout.write(text)
    return 0


def cmd_import_doc(args) -> int:
    from generator.docimport.command import run

    return run(args, DEFAULT_SPECS)


def cmd_diff(args) -> int:
    from generator.docimport.command import run_diff

    return run_diff(args, DEFAULT_SPECS)


def cmd_sync(args) -> int:
    from generator.docimport.command import run_sync

    return run_sync(args, DEFAULT_SPECS)


def cmd_samples(args) -> int:
    from generator.csamples import command

    return command(args.out, run=args.run, jobs=args.jobs, sanitize=args.sanitize)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="opgen", description="Spec-driven generator for CANN aclnn operators.")
    sub = parser.add_subparsers(dest="command", required=True)

    lint = sub.add_parser("lint", help="load and cross-check spec files")
    lint.add_argument("paths", nargs="*", type=Path, default=[DEFAULT_SPECS])
    lint.add_argument(
        "--strict",
        action="store_true",
        help="also require English text for every prose field and report every review marker",
    )
    lint.add_argument(
        "--deep",
        action="store_true",
        help="also prove each spec works: kernel signature, example run against 'expected', every check case",
    )
    lint.set_defaults(func=cmd_lint)

    schema = sub.add_parser("schema", help="write the JSON Schema of the spec format")
    schema.add_argument("--out", type=Path, default=None, help="folder (default: generated/schema)")
    schema.set_defaults(func=cmd_schema)

    for name, func, text in (
        ("generate", cmd_generate, "render every spec into generated/"),
        ("docs", cmd_docs, "render only the docs"),
    ):
        p = sub.add_parser(name, help=text)
        p.add_argument("--specs", type=Path, default=DEFAULT_SPECS)
        p.add_argument("--out", type=Path, default=DEFAULT_OUT)
        p.add_argument("--check", action="store_true", help="write nothing; exit 1 if any output is stale")
        p.add_argument("-v", "--verbose", action="store_true")
        p.set_defaults(func=func)

    resident = sub.add_parser(
        "daemon", help="keep a renderer loaded so that generate/docs runs start at once (start, stop, status)"
    )
    resident.add_argument("action", choices=("start", "stop", "status"))
    resident.add_argument(
        "--idle", type=float, metavar="SECONDS", help="start: exit after this long without a run (default 1800)"
    )
    resident.set_defaults(func=cmd_daemon)

    matrix = sub.add_parser("matrix", help="print the support matrix (dtypes per op, product and tensor)")
    matrix.add_argument("--specs", type=Path, default=DEFAULT_SPECS)
    matrix.add_argument("--format", choices=("json", "md"), default="md")
    matrix.set_defaults(func=cmd_matrix)

    imp = sub.add_parser(
        "import-doc", help="import aclnn docs (Markdown, English twins, old plain-text seeds) as specs"
    )
    imp.add_argument("docs", nargs="+", type=Path, metavar="DOC")
    imp.add_argument("--out", type=Path, default=None, help="folder for the specs (default: specs/, never overwritten)")
    imp.add_argument("--en", type=Path, action="append", metavar="DOC", help="English twin of a DOC (once per DOC)")
    imp.add_argument("-q", "--quiet", action="store_true", help="print only errors and the coverage lines")
    imp.set_defaults(func=cmd_import_doc)

    diff = sub.add_parser(
        "diff", help="what changed between two docs or specs (or folders of them): breaking or compatible"
    )
    diff.add_argument("old", type=Path, metavar="OLD", help="a spec, a doc or a folder")
    diff.add_argument("new", type=Path, metavar="NEW", help="a spec, a doc or a folder")
    diff.add_argument("--format", choices=("text", "markdown", "json"), default="text")
    diff.set_defaults(func=cmd_diff)

    sync = sub.add_parser("sync", help="update a curated spec from a new version of its doc")
    sync.add_argument("spec", type=Path, metavar="SPEC")
    sync.add_argument("doc", type=Path, metavar="DOC")
    sync.add_argument("--en", type=Path, default=None, metavar="DOC", help="the doc's English twin")
    sync.add_argument(
        "--base",
        type=Path,
        default=None,
        metavar="DOC",
        help="the doc version the spec was last synced with (default: the copy kept in specs/upstream/)",
    )
    sync.add_argument("--dry-run", action="store_true", help="print the changes; write nothing")
    sync.set_defaults(func=cmd_sync)

    samples = sub.add_parser("samples", help="compile every generated C++ sample; --run: build, run and check them")
    samples.add_argument("--out", type=Path, default=DEFAULT_OUT)
    samples.add_argument(
        "--run", action="store_true", help="link against the host runtime (or ASCEND_TOOLKIT_HOME) and run"
    )
    samples.add_argument("--sanitize", action="store_true", help="with --run: AddressSanitizer and UBSan builds")
    samples.add_argument("-j", "--jobs", type=int, default=2, help="compilers and samples run at once")
    samples.set_defaults(func=cmd_samples)

    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except SpecError as exc:
        for d in exc.diagnostics:
            print(d, file=sys.stderr)
        print(f"opgen {args.command}: {len(exc.diagnostics)} problem(s)", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
