"""``opgen generate``: render every spec into ``generated/``, deterministically and atomically.

Emitters return ``{relative path: text}``; this module compares the whole set with what is on
disk, writes only what changed (each file atomically), removes files no spec produces any more,
and with ``--check`` writes nothing and lists every stale, missing or extra file.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined

from generator.diagnostics import display_path
from generator.escape.python import FILTERS as PYTHON_FILTERS
from generator.escape.python import pyrepr, pytuple  # noqa: F401 (re-exported)
from generator.loader import Project, load_project
from generator.writer import write_if_changed

REPO = Path(__file__).resolve().parent.parent
TEMPLATES = REPO / "templates"
IGNORED_PARTS = {"__pycache__", ".pytest_cache", ".ruff_cache"}


def environment() -> Environment:
    env = Environment(
        loader=FileSystemLoader(str(TEMPLATES)),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )
    env.filters.update(PYTHON_FILTERS)
    return env


def render_all(project: Project, only: str | None = None) -> dict[str, str]:
    """Every generated file: relative path -> content."""
    from generator.emit import cpp, docs

    env = environment()
    files: dict[str, str] = {}
    if only in (None, "python"):
        files.update(python_files(project, env))
    cpp_files = cpp.files(project, env) if only in (None, "cpp", "docs") else {}
    if only in (None, "cpp"):
        files.update(cpp_files)
    if only in (None, "docs"):
        files.update(docs.files(project, env, cpp_files))
    return files


def python_files(project: Project, env: Environment) -> dict[str, str]:
    from generator.emit import python as py
    from generator.schema import schema_files

    files = {f"schema/{name}": text for name, text in schema_files().items()}
    op_template = env.get_template("python/op.py.j2")
    ops = []
    for info in project.ops:
        context = py.op_context(info, project.catalog)
        files[f"aclnn/ops/{info.spec.snake}.py"] = op_template.render(**context)
        files[f"aclnn/specs/{info.spec.snake}.json"] = py.spec_json(info)
        ops.append({"snake": info.spec.snake, "op": info.spec.op})
    files["aclnn/__init__.py"] = env.get_template("python/init.py.j2").render(ops=ops)
    files["aclnn/ops/__init__.py"] = env.get_template("python/ops_init.py.j2").render(ops=ops)
    files["aclnn/catalog.json"] = json.dumps(py.catalog_context(project), ensure_ascii=False, indent=1) + "\n"
    return format_python(files)


RUFF_ARGS = ("format", "--isolated", "--line-length", "120", "--target-version", "py310", "--quiet", "--no-cache")


def format_python(files: dict[str, str]) -> dict[str, str]:
    """Format every ``.py`` output with ruff in one batch (the templates lay code out; ruff wraps it)."""
    import shutil
    import subprocess
    import tempfile

    python = {rel: text for rel, text in files.items() if rel.endswith(".py")}
    if not python:
        return files
    ruff = shutil.which("ruff") or str(Path(sys.executable).parent / "ruff")
    with tempfile.TemporaryDirectory(prefix="opgen-fmt-") as tmp:
        root = Path(tmp)
        for rel, text in python.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text, encoding="utf-8")
        try:
            proc = subprocess.run([ruff, *RUFF_ARGS, str(root)], capture_output=True, text=True)
        except OSError as exc:
            raise RuntimeError(
                f"cannot run ruff to format generated Python ({exc}); install aclnn-opgen's dependencies"
            ) from None
        if proc.returncode != 0:
            raise RuntimeError(f"ruff could not format generated Python (a template bug):\n{proc.stderr}")
        return {**files, **{rel: (root / rel).read_text(encoding="utf-8") for rel in python}}


def _managed(out: Path, only: str | None) -> set[str]:
    """Files currently under ``out`` that generation owns (for removal of stale ones)."""
    if not out.is_dir():
        return set()
    prefixes = {
        None: ("",),
        "docs": ("docs/",),
        "python": ("aclnn/", "schema/"),
        "cpp": ("aclnnop/", "samples/", "include/"),
    }[only]
    found = set()
    for path in out.rglob("*"):
        if path.is_file() and not IGNORED_PARTS.intersection(path.parts) and not path.name.endswith(".egg-info"):
            rel = path.relative_to(out).as_posix()
            if rel.startswith(prefixes) and ".egg-info" not in rel and rel != MANIFEST:
                found.add(rel)
    return found


MANIFEST = ".opgen-manifest.json"  # git-ignored: lets a no-op rerun skip loading and rendering


def _input_key(specs: Path, only: str | None) -> str:
    """Hash of everything the output depends on: specs, catalogues, templates and generator code."""
    import hashlib

    digest = hashlib.sha256(str(only).encode())
    roots = [(specs, "*.yaml"), (TEMPLATES, "*.j2"), (Path(__file__).resolve().parent, "*.py")]
    for root, pattern in roots:
        for path in sorted(root.rglob(pattern)):
            if IGNORED_PARTS.intersection(path.parts):
                continue
            digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def _stamp(path: Path) -> list[int]:
    st = path.stat()
    return [st.st_size, st.st_mtime_ns]


def _manifest_fresh(out: Path, key: str, only: str | None) -> bool:
    try:
        manifest = json.loads((out / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    if manifest.get("key") != key:
        return False
    files = manifest.get("files", {})
    try:
        if any(_stamp(out / rel) != stamp for rel, stamp in files.items()):
            return False
    except OSError:
        return False
    return set(files) == _managed(out, only)


def run_generate(specs: Path, out: Path, *, check: bool = False, only: str | None = None, verbose: bool = False) -> int:
    """Generate (or with ``check`` compare) every output; 0 when done / up to date, 1 when stale."""
    import gc

    # A batch job that builds many small, acyclic objects: the cyclic collector only costs time
    # here (about a quarter of a large catalogue's render).
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _run_generate(specs, out, check=check, only=only, verbose=verbose)
    finally:
        if enabled:
            gc.enable()


def _run_generate(specs: Path, out: Path, *, check: bool, only: str | None, verbose: bool) -> int:
    start = time.perf_counter()
    key = _input_key(specs, only)
    if not check and _manifest_fresh(out, key, only):
        print(f"opgen generate: up to date (inputs unchanged), {time.perf_counter() - start:.2f} s")
        return 0
    project = load_project(specs)
    files = render_all(project, only)
    existing = _managed(out, only)
    stale, missing = [], []
    for rel, text in sorted(files.items()):
        path = out / rel
        if rel not in existing:
            missing.append(rel)
        elif path.read_bytes() != text.encode("utf-8"):
            stale.append(rel)
    extra = sorted(existing - set(files))
    if check:
        for label, items in (("stale", stale), ("missing", missing), ("extra", extra)):
            for rel in items:
                print(f"{label}: {display_path(out / rel)}", file=sys.stderr)
        if stale or missing or extra:
            print(
                f"opgen generate --check: {len(stale) + len(missing) + len(extra)} file(s) out of date; "
                "run 'opgen generate'",
                file=sys.stderr,
            )
            return 1
        print(f"opgen generate --check: {len(files)} file(s) up to date")
        return 0
    for rel in stale + missing:
        write_if_changed(out / rel, files[rel])
        if verbose:
            print(f"wrote {display_path(out / rel)}")
    for rel in extra:
        (out / rel).unlink()
        if verbose:
            print(f"removed {display_path(out / rel)}")
    _prune_empty_dirs(out)
    manifest = {"key": key, "files": {rel: _stamp(out / rel) for rel in sorted(files)}}
    write_if_changed(out / MANIFEST, json.dumps(manifest, indent=0, sort_keys=True) + "\n")
    elapsed = time.perf_counter() - start
    print(
        f"opgen generate: {len(project.ops)} op(s), {len(files)} file(s): "
        f"{len(stale) + len(missing)} written, {len(extra)} removed, {elapsed:.2f} s"
    )
    return 0


def _prune_empty_dirs(out: Path) -> None:
    for path in sorted(out.rglob("*"), key=lambda p: len(p.parts), reverse=True):
        if path.is_dir() and not any(path.iterdir()) and not IGNORED_PARTS.intersection(path.parts):
            path.rmdir()
