"""``opgen generate``: render every spec into an output folder, incrementally and atomically,
deleting nothing it did not write.

Rendering is split in two: each op's own files (``render_op``: its Python module and JSON model,
host-runtime unit, C++ samples, zh/en user and maintainers' pages and their site versions) depend
only on its spec, the catalogue, the generator and which of the operator names its pages mention
are ops of the project; the aggregate units (``render_unit``: package ``__init__``, each shared
header, the sample index, docs index, support matrix, files of the catalogue or the generator
alone) are rendered from small per-op rows (``render_op`` returns them). ``render_all`` renders
everything this way in one process: the reference every incremental run must reproduce.

Ownership. The output folder holds ``.opgen-files``, the committed record of every file generate
wrote there. Generate writes into a folder only if it is missing or empty, holds that record (or
the ``.opgen-manifest.json`` of older versions), or holds nothing but files identical to what it
is about to write (a checkout of its own output); any other folder is refused before anything is
written. In its folder it writes its own paths and deletes only files of the record that no spec
produces any more; other files are left alone (``--check`` lists them as foreign).

Incremental runs. ``.opgen-state.json`` (local, git-ignored, sealed with a hash of its content)
records, per op, the hash of its inputs (spec bytes, catalogue, templates, generator code and the
versions of the libraries that shape the output), the operator names its pages mention (and which
were ops) and the files it produced with their content hashes and stat stamps; per aggregate unit,
the hash of the rows it reads. A rerun re-renders only ops whose inputs or outputs changed or whose
pages mention an op that came or went, plus the units whose rows changed; an up-to-date run reads
no YAML and imports neither pydantic nor Jinja. A damaged or hand-edited state is ignored
(everything is rendered and compared).

Writes. Files are rendered into a staging folder inside the output folder and moved into place
(one atomic rename each) only when every spec loaded and rendered without error; a run that fails
changes nothing. Runs on one folder are serialised by a lock on it (``OPGEN_LOCK_TIMEOUT``
seconds, default 600). Large renders use one worker process per core (``OPGEN_JOBS`` caps it).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
import time
from pathlib import Path

from generator import files as fs
from generator.diagnostics import Diagnostic, SpecError, display_path

REPO = Path(__file__).resolve().parent.parent
TEMPLATES = REPO / "templates"
GENERATOR = Path(__file__).resolve().parent

RECORD = ".opgen-files"
STATE = ".opgen-state.json"
ROWS = ".opgen-rows.json"
LEGACY_MANIFEST = ".opgen-manifest.json"
STAGING_PREFIX = ".opgen-tmp-"
STAGING_MARK = ".opgen-staging"
BOOKKEEPING = frozenset({RECORD, STATE, ROWS, LEGACY_MANIFEST})
IGNORED_PARTS = frozenset({"__pycache__", ".pytest_cache", ".ruff_cache"})
STATE_FORMAT = "opgen-state-7"
RECORD_HEADER = "# Written by 'opgen generate': the files it owns in this folder (it replaces or deletes only these)."
DOMAINS = {
    None: ("",),
    "docs": ("docs/",),
    "python": ("aclnn/", "schema/"),
    "cpp": ("aclnnop/", "samples/", "include/"),
}
AGGREGATE = "<aggregate>"
MIN_OPS_PER_JOB = 12


class GenerateError(Exception):
    """Generate refuses to proceed (ownership, unsafe output paths, lock); the message says why."""


# ---------------------------------------------------------------------------------------------
# Jinja environment and literal helpers


_DICT_ATTRS = frozenset(dir(dict))


def environment():
    """The Jinja environment of every template (strict undefined, no autoescape: emitters escape).

    One exact shortcut: ``x.key`` on a plain dict reads the item directly (Jinja tries the
    attribute first, which fails for every key that is not a dict method: same result).
    """
    from jinja2 import Environment, FileSystemLoader, StrictUndefined

    from generator.escape.cpp import comment as cpp_comment
    from generator.escape.cpp import string_literal as cpp_string
    from generator.escape.python import FILTERS

    class _Environment(Environment):
        def getattr(self, obj, attribute):
            if type(obj) is dict and attribute not in _DICT_ATTRS:
                try:
                    return obj[attribute]
                except KeyError:
                    pass
            return Environment.getattr(self, obj, attribute)

    env = _Environment(
        loader=FileSystemLoader(str(TEMPLATES)),
        bytecode_cache=_template_cache(),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )
    env.filters.update(FILTERS)
    env.filters.update(cpp_comment=cpp_comment, cpp_string=cpp_string)
    return env


def _template_cache():
    """Compiled templates kept in ``templates/__pycache__`` beside the sources, as Python keeps
    compiled modules in ``generator/__pycache__`` (same trust: the generator's own folder). Jinja
    recompiles a template whose source changed; a folder that cannot be written means no cache."""
    from jinja2 import FileSystemBytecodeCache

    class _Cache(FileSystemBytecodeCache):
        def load_bytecode(self, bucket) -> None:
            try:
                super().load_bytecode(bucket)
            except (OSError, EOFError, ValueError):  # unreadable or truncated: compile again
                bucket.reset()

        def dump_bytecode(self, bucket) -> None:
            try:
                super().dump_bytecode(bucket)
            except OSError:
                pass

    folder = TEMPLATES / "__pycache__"
    try:
        folder.mkdir(exist_ok=True)
    except OSError:
        return None
    return _Cache(str(folder), "%s.jinja.cache")


# ---------------------------------------------------------------------------------------------
# Rendering: one op, the aggregates, everything


LANGS = ("en", "zh")  # the samples' languages (the C++ emitter's order)


def render_op(info, catalog, env, names, only: str | None = None) -> tuple[dict[str, str], dict, set[str]]:
    """One op's own files (relative path -> text; Python not yet formatted), its rows (what the
    aggregate files need from it, plain JSON data) and the operator names its pages could link.

    ``names`` are the operator names of the project: a page links the ones it mentions, so the
    result depends on ``names`` only through ``mentions & names``. The support matrix row runs the
    op's validator: the catalogue must be installed in the runtime (``matrix.catalog_installed``).
    """
    from generator.emit import cpp, docs, matrix
    from generator.emit import python as py
    from generator.emit.view import OpView

    spec = info.spec
    snake = spec.snake
    view = OpView(info)  # rule texts and formulas, computed once for every view of the op
    out: dict[str, str] = {}
    rows: dict = {"ident": {"name": spec.name, "snake": snake}}
    mentions: set[str] = set()
    source = None
    if only in (None, "python", "docs"):
        # One rendering of the module: the package's file and the validator the matrix runs.
        source = env.get_template("python/op.py.j2").render(**py.op_context(info, catalog))
    if only in (None, "python"):
        out[f"aclnn/ops/{snake}.py"] = source
        out[f"aclnn/specs/{snake}.json"] = py.spec_json(info)
        rows["python"] = {"snake": snake, "op": spec.op}
    if only in (None, "cpp", "docs"):
        cpp_names = cpp.cpp_names(spec)
        cpp_files, entries = cpp.op_files(info, catalog, env, cpp_names, view)
        if only in (None, "cpp"):
            out.update(cpp_files)
            rows["samples"] = entries
            rows["header"] = cpp.header_row(info, catalog, cpp_names)
    if only in (None, "docs"):
        samples = {lang: [{**e, "text": cpp_files[e["path"]]} for e in entries if e["lang"] == lang] for lang in LANGS}
        out.update(docs.op_files(info, catalog, names, env, samples, mentions, view))
        rows["index"] = docs.index_row(info, catalog, env)
        module = matrix.validator_module(info, catalog, env, source)
        rows["matrix"] = docs.matrix_view(env, catalog, matrix.row(info, matrix.op_table(info, catalog, module)))
    return out, rows, mentions


# Aggregate units: files rendered from the catalogue, the generator and a part of every op's rows.
# unit -> (domain, the rows part it reads or None). A "header:<file>" unit per header file reads the
# "header" rows of the ops declared in that file.
UNITS = {
    "python": ("python", "python"),
    "python-catalog": ("python", None),
    "cpp-catalog": ("cpp", None),
    "samples": ("cpp", "samples"),
    "docs-index": ("docs", "index"),
    "docs-matrix": ("docs", "matrix"),
    "docs-assets": ("docs", None),
}
HEADER_UNIT = "header:"


def unit_domain(unit: str) -> str:
    return "cpp" if unit.startswith(HEADER_UNIT) else UNITS[unit][0]


def op_parts(rows: dict) -> dict:
    """The parts of an op's rows by the aggregate unit that reads them."""
    parts = {unit: rows[part] for unit, (_, part) in UNITS.items() if part is not None and part in rows}
    if "header" in rows:
        parts[HEADER_UNIT + rows["header"]["file"]] = rows["header"]
    return parts


def units_of(parts_units, only: str | None) -> list[str]:
    """Every aggregate unit of a project whose ops contribute ``parts_units``, for ``only``."""
    units = {u for u, (_, part) in UNITS.items() if part is None} | set(parts_units)
    return sorted(u for u in units if only in (None, unit_domain(u)))


def render_unit(unit: str, parts: list, catalog, env) -> dict[str, str]:
    """The files of one aggregate unit from its parts of the ops' rows, in op-name order."""
    from generator.emit import cpp, docs

    if unit.startswith(HEADER_UNIT):
        return cpp.header_files(env, catalog, parts)
    if unit == "python":
        return {
            "aclnn/__init__.py": env.get_template("python/init.py.j2").render(ops=parts),
            "aclnn/ops/__init__.py": env.get_template("python/ops_init.py.j2").render(ops=parts),
        }
    if unit == "python-catalog":
        from generator.emit import python as py
        from generator.loader import Project
        from generator.schema import schema_files

        out = {f"schema/{name}": text for name, text in schema_files().items()}
        context = py.catalog_context(Project(REPO, catalog, []))
        out["aclnn/catalog.json"] = json.dumps(context, ensure_ascii=False, indent=1) + "\n"
        return out
    if unit == "cpp-catalog":
        return cpp.catalog_files(env, catalog)
    if unit == "samples":
        return {"samples/index.json": cpp.sample_index_text([entry for entries in parts for entry in entries])}
    if unit == "docs-index":
        return docs.index_files(env, parts)
    if unit == "docs-matrix":
        return docs.matrix_files(env, catalog, parts)
    if unit == "docs-assets":
        return docs.asset_files(env)
    raise KeyError(unit)  # pragma: no cover


def render_all(project, only: str | None = None) -> dict[str, str]:
    """Every generated file of ``project`` in memory: relative path -> content (formatted).

    The reference rendering: ``opgen generate`` (incremental, in worker processes) writes exactly
    these files."""
    from generator.emit import matrix

    env = environment()
    catalog = project.catalog
    names = frozenset(info.spec.name for info in project.ops)
    out: dict[str, str] = {}
    parts: dict[str, list] = {}
    errors = []
    with matrix.catalog_installed(catalog):
        for info in project.ops:
            try:
                files, rows, _ = render_op(info, catalog, env, names, only)
            except SpecError as exc:
                errors += exc.diagnostics
                continue
            out.update(files)
            for unit, part in op_parts(rows).items():
                parts.setdefault(unit, []).append(part)
    if errors:
        raise SpecError(errors)
    for unit in units_of(parts, only):
        out.update(render_unit(unit, parts.get(unit, []), catalog, env))
    return format_python(out)


RUFF_ARGS = ("format", "--isolated", "--line-length", "120", "--target-version", "py310", "--quiet", "--no-cache")


def _ruff() -> str:
    """The ruff that formats generated Python: the one installed with this interpreter's packages (the pinned
    dependency; also the same file however the interpreter was started, e.g. through a version manager's
    shim, so that the generator key does not change with ``PATH``), else the first on ``PATH``."""
    own = Path(sys.executable).parent / ("ruff.exe" if os.name == "nt" else "ruff")
    if own.is_file() and os.access(own, os.X_OK):
        return str(own)
    return shutil.which("ruff") or str(own)


def run_ruff(paths: list[Path]) -> None:
    """Format ``paths`` in place with ruff, in one call (the templates lay code out; ruff wraps it)."""
    import subprocess

    if not paths:
        return
    try:
        proc = subprocess.run([_ruff(), *RUFF_ARGS, *map(str, paths)], capture_output=True, text=True)
    except OSError as exc:
        raise RuntimeError(
            f"cannot run ruff to format generated Python ({exc}); install aclnn-opgen's dependencies"
        ) from None
    if proc.returncode != 0:
        raise RuntimeError(f"ruff could not format generated Python (a template bug):\n{proc.stderr}")


def format_python(files: dict[str, str]) -> dict[str, str]:
    """``files`` with every ``.py`` output formatted by ruff."""
    import tempfile

    python = [rel for rel in files if rel.endswith(".py")]
    if not python:
        return files
    with tempfile.TemporaryDirectory(prefix="opgen-fmt-") as tmp:
        root = Path(tmp)
        for rel in python:
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(files[rel], encoding="utf-8")
        run_ruff([root / rel for rel in python])
        return {**files, **{rel: (root / rel).read_text(encoding="utf-8") for rel in python}}


# ---------------------------------------------------------------------------------------------
# Inputs and their hashes (standard library only: an up-to-date run stops here)


def _generator_key(only: str | None, known: dict | None = None, trust_before: int = 0) -> tuple[str, dict]:
    """Hash of what shapes every output besides the specs: generator code, templates, the
    versions of the libraries involved, and the ``only`` selection; and the fingerprints of the
    generator's files (``known``: those of the last run, whose unchanged files are not read again)."""
    import hashlib
    import importlib.util

    known = known or {}
    files: dict[str, str] = {}
    digest = hashlib.sha256(f"{STATE_FORMAT}\0{only}\0{sys.version}\0".encode())
    for root in (GENERATOR, TEMPLATES):
        for folder, dirs, names in os.walk(root):
            dirs[:] = sorted(d for d in dirs if d not in IGNORED_PARTS)
            for name in sorted(names):  # every file: code, templates, site assets, vendored data
                if name.endswith((".pyc", ".pyo")):
                    continue
                path = os.path.join(folder, name)
                rel = os.path.relpath(path, REPO).replace(os.sep, "/")
                found = fs.fingerprint(path, known.get(rel), trust_before)
                files[rel] = found if found is not None else "-"
                digest.update(f"{rel}\0{fs.digest(files[rel])}\0".encode())
    for name in (
        "jinja2",
        "markupsafe",
        "pydantic",
        "pydantic_core",
        "yaml",
        "numpy",
        "ml_dtypes",
        "markdown_it",
        "mdurl",
    ):
        spec = importlib.util.find_spec(name)
        origin = spec.origin if spec is not None else None
        digest.update(f"{name}={_file_stamp(origin)}\0".encode())
    digest.update(f"ruff={_file_stamp(_ruff())}\0".encode())
    return digest.hexdigest(), files


def _file_stamp(path: str | None) -> str:
    if not path:
        return "-"
    try:
        st = os.stat(path)
    except OSError:
        return "-"
    return f"{path}:{st.st_size}:{st.st_mtime_ns}"


class _Inputs:
    """The spec and catalogue files with their content hashes (hashing only what changed)."""

    def __init__(self, specs: Path, known: dict, trust_before: int):
        self.specs = specs
        self.entries: dict[str, list] = {}
        self.problems: list[str] = []
        root = str(specs) + os.sep
        self.spec_rels = fs.spec_rels(specs)
        catalog_rels = [f"catalog/{p.name}" for p in fs.catalog_files(specs)]
        real_root = os.path.realpath(specs) + os.sep
        for rel in self.spec_rels + catalog_rels:
            path = root + rel
            entry = fs.fingerprint(path, known.get(rel), trust_before, follow=True)
            if entry is None or (os.path.islink(path) and not os.path.realpath(path).startswith(real_root)):
                self.problems.append(rel)  # the loader reports it, with its location
                continue
            self.entries[rel] = entry
        catalog = "".join(
            f"{rel}\0{fs.digest(self.entries[rel]) if rel in self.entries else '-'}\0" for rel in catalog_rels
        )
        self.catalog_key = fs.sha256(catalog.encode())

    def op_key(self, generator_key: str, rel: str) -> str:
        digest = fs.digest(self.entries[rel]) if rel in self.entries else "-"
        return fs.sha256(f"{generator_key}\0{self.catalog_key}\0{rel}\0{digest}".encode())


# ---------------------------------------------------------------------------------------------
# State (local cache) and ownership record


def _read_sealed(path: Path) -> tuple[dict, int] | None:
    """A JSON object written by ``_write_sealed`` and the file's modification time; None when the
    file is missing, damaged or edited by hand (its seal, a hash of the content, no longer matches)."""
    try:
        with open(path, "rb") as handle:
            raw = handle.read()
            mtime = os.fstat(handle.fileno()).st_mtime_ns
    except OSError:
        return None
    seal, _, body = raw.partition(b"\n")
    if fs.sha256(body).encode() != seal:
        return None
    try:
        data = fs.load_json(body)
    except ValueError:
        return None
    if not isinstance(data, dict) or data.get("format") != STATE_FORMAT:
        return None
    return data, mtime


def _write_sealed(path: Path, data: dict) -> None:
    from generator.writer import write_bytes

    body = fs.dump_json({**data, "format": STATE_FORMAT})  # key order is data
    write_bytes(path, fs.sha256(body).encode() + b"\n" + body)


def rows_hash(rows) -> str:
    return fs.sha256(fs.dump_json(rows, sort_keys=True))


def _valid_rel(rel: str) -> bool:
    """A clean relative path inside the folder: no empty, ``.`` or ``..`` part, nothing under a
    ``.git`` folder, not one of generate's own bookkeeping names."""
    if not rel or rel.startswith(("/", ".opgen")) or "\\" in rel or "\0" in rel:
        return False
    return all(part not in ("", ".", "..", ".git") for part in rel.split("/"))


def _read_record(out: Path) -> str | None:
    """The text of ``out``'s ownership record (None when there is none)."""
    try:
        return (out / RECORD).read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise GenerateError(f"{display_path(out / RECORD)}: cannot read the ownership record ({exc})") from None


def _parse_record(text: str) -> set[str]:
    """The files a record says generate wrote. Git conflict markers are skipped, so a record
    merged with conflicts lists both sides; paths that could leave the folder are ignored."""
    owned = set()
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith(("#", "<<<<<<<", "=======", ">>>>>>>", "|||||||")):
            continue
        if _valid_rel(line):
            owned.add(line)
    return owned


def _read_legacy_manifest(out: Path) -> set[str] | None:
    try:
        manifest = json.loads((out / LEGACY_MANIFEST).read_text(encoding="utf-8"))
        files = manifest["files"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return {rel for rel in files if isinstance(rel, str) and _valid_rel(rel)} if isinstance(files, dict) else None


def record_text(owned) -> str:
    return RECORD_HEADER + "\n" + "".join(f"{rel}\n" for rel in sorted(owned))


def _walk_out(out: Path) -> list[str]:
    """Every file under ``out`` (relative), without following links, skipping caches and
    generate's own bookkeeping (record, state, lock-free staging folders)."""
    found = []
    for folder, dirs, names in os.walk(out):
        here = Path(folder)
        rel_dir = "" if here == out else here.relative_to(out).as_posix() + "/"
        keep = []
        for d in dirs:
            if d in IGNORED_PARTS or d.endswith(".egg-info"):
                continue
            if not rel_dir and d.startswith(STAGING_PREFIX) and (here / d / STAGING_MARK).exists():
                continue
            if (here / d).is_symlink():
                found.append(rel_dir + d)  # a link to a folder is a foreign entry, never followed
                continue
            keep.append(d)
        dirs[:] = keep
        for name in names:
            if not rel_dir and name in BOOKKEEPING:
                continue
            found.append(rel_dir + name)
    return found


# ---------------------------------------------------------------------------------------------
# Locking


class _Lock:
    """An advisory lock on the output folder (flock on the folder itself: no lock file)."""

    def __init__(self, out: Path, shared: bool):
        self.out, self.shared, self.fd = out, shared, None

    def __enter__(self):
        import fcntl

        self.fd = os.open(self.out, os.O_RDONLY | os.O_DIRECTORY)
        mode = (fcntl.LOCK_SH if self.shared else fcntl.LOCK_EX) | fcntl.LOCK_NB
        timeout = float(os.environ.get("OPGEN_LOCK_TIMEOUT", "600"))
        deadline, told = time.monotonic() + timeout, False
        while True:
            try:
                fcntl.flock(self.fd, mode)
                return self
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    os.close(self.fd)
                    raise GenerateError(
                        f"{display_path(self.out)}: another opgen run still holds the folder after {timeout:g} s"
                    ) from None
                if not told:
                    print(f"opgen: waiting for another opgen run on {display_path(self.out)}", file=sys.stderr)
                    told = True
                time.sleep(0.05)

    def __exit__(self, *exc):
        os.close(self.fd)  # closing the descriptor releases the lock


# ---------------------------------------------------------------------------------------------
# Rendering into a staging folder (in this process or in worker processes)

_WORKER: dict = {}


VERIFY_ASIDE_FROM = 200  # ops whose files a forked child checks while the render's modules load (fewer: here)
GC_EVERY = 16  # ops rendered between two collections of reference cycles (the collector is off)


def _render_into(stage: Path, paths: list[tuple[str, str]], names: frozenset, format_now: bool) -> dict:
    """Load and render ``paths`` ((spec rel, op key) pairs) into ``stage``, one op at a time, with
    ``names`` as the project's operator names. Returns per-op results ({rel: {"key", "files": {out
    rel: sha256 or None until formatted}, "rows", "raw", "reused", "mentions", "links"}}), the
    diagnostics (plain tuples) and the Python files left to format."""
    import gc

    from generator.loader import _contained, load_op

    catalog, env, specs, only = _WORKER["catalog"], _WORKER["env"], _WORKER["specs"], _WORKER["only"]
    results, diags, python = {}, [], []
    for n, (rel, key) in enumerate(paths, 1):
        path = specs / rel
        try:
            _contained(path, specs)
            info = load_op(path, catalog)
            if diags:
                continue  # keep loading to report every problem; rendering is wasted now
            files, rows, mentions = render_op(info, catalog, env, names, only)
        except SpecError as exc:
            diags += exc.diagnostics
            continue
        raw: dict[str, str] = {}
        reused: list[str] = []
        hashes = _stage(stage, files, python, raw, reused)
        results[rel] = {
            "key": key,
            "files": hashes,
            "rows": rows,
            "raw": raw,
            "reused": reused,
            "mentions": sorted(mentions),
            "links": sorted(mentions & names),
        }
        del info, files
        if n % GC_EVERY == 0 and not gc.isenabled():
            gc.collect()  # pydantic and the emitters leave cycles; without this memory grows per op
    if format_now and not diags:
        _format_staged(stage, python, results.values())
        python = []
    return {"results": results, "diags": _plain(diags), "python": python}


def _plain(diags: list[Diagnostic]) -> list[tuple]:
    return [tuple(d.__dict__.values()) for d in diags]


def _stage(
    stage: Path, files: dict[str, str], python: list[str], raw: dict[str, str], reused: list[str]
) -> dict[str, str | None]:
    """Write ``files`` into ``stage``; return their content hashes (None for Python, known once
    ruff has formatted it). A Python file whose unformatted text is what produced the intact file
    on disk last time is not staged at all: formatting it again would give that file."""
    from generator.writer import write_new

    reuse = _WORKER.get("reuse")
    hashes: dict[str, str | None] = {}
    for rel, text in files.items():
        if not _valid_rel(rel):
            raise GenerateError(f"refusing to write outside the output folder: {rel!r}")
        data = text.encode("utf-8")
        if rel.endswith(".py"):
            raw[rel] = digest = fs.sha256(data)
            known = reuse.get(rel) if reuse is not None else None
            if known is not None and known[0] == digest:
                hashes[rel] = known[1]
                reused.append(rel)
                continue
            python.append(rel)
            hashes[rel] = None
        else:
            hashes[rel] = fs.sha256(data)
        write_new(staged_path(stage, rel), data)
    return hashes


def staged_path(stage: Path, rel: str) -> Path:
    """Where output ``rel`` is staged: flat, one name per output (``%`` and ``/`` percent-encoded; a hash
    for a name too long), so that staging creates no folders (a ``mkdir`` costs up to a millisecond here)."""
    name = rel.replace("%", "%25").replace("/", "%2F")
    if len(name) > 200:
        name = fs.sha256(rel.encode()) + os.path.splitext(rel)[1][:16]
    return stage / name


def _format_staged(stage: Path, python: list[str], results) -> None:
    run_ruff([staged_path(stage, rel) for rel in python])
    formatted = {rel: fs.sha256(staged_path(stage, rel).read_bytes()) for rel in python}
    for result in results:
        for rel in result["files"]:
            if rel in formatted:
                result["files"][rel] = formatted[rel]


def _jobs(count: int) -> int:
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        cores = os.cpu_count() or 1
    limit = os.environ.get("OPGEN_JOBS")
    if limit:
        try:
            cores = max(1, min(cores, int(limit)))
        except ValueError:
            raise GenerateError(f"OPGEN_JOBS must be a number of processes, got {limit!r}") from None
    return max(1, min(cores, count // MIN_OPS_PER_JOB))


def _rendering_loaded() -> bool:
    """Whether what rendering needs is loaded already (a daemon, a second run in one process)."""
    return "generator.emit.site" in sys.modules


def _preload() -> None:
    """Import what rendering needs (see ``_Run._verify_aside``)."""
    import jinja2  # noqa: F401
    import markdown_it  # noqa: F401

    import generator.evaluate  # noqa: F401
    import generator.runtime.examples  # noqa: F401
    import generator.vendor.latex2mathml.converter  # noqa: F401
    import generator.writer  # noqa: F401
    from generator.emit import cpp, docs, matrix, python, site  # noqa: F401


def _work(args) -> dict:
    import gc

    gc.disable()
    return _render_into(*args, format_now=True)


def _render_ops(stage: Path, todo: list[tuple[str, str]], names: frozenset) -> tuple[dict, list[Diagnostic], list[str]]:
    """Render ``todo`` into ``stage`` with ``names`` as the project's operator names (in worker
    processes when there are many); workers format their own Python, the rest is returned."""
    import multiprocessing

    jobs = _jobs(len(todo))
    if jobs > 1 and "fork" in multiprocessing.get_all_start_methods():
        # Import the emitters and compile every template once, here: the workers inherit them.
        from generator.emit import cpp, docs, matrix, python, site  # noqa: F401

        env = _WORKER["env"]
        for name in env.list_templates(extensions=["j2"]):
            env.get_template(name)
        chunks = [todo[i :: jobs * 2] for i in range(jobs * 2)]
        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            parts = pool.map(_work, [(stage, chunk, names) for chunk in chunks if chunk], chunksize=1)
    else:
        parts = [_render_into(stage, todo, names, format_now=False)]
    results, diags, python = {}, [], []
    for part in parts:
        results.update(part["results"])
        diags += [Diagnostic(*d) for d in part["diags"]]
        python += part["python"]
    return results, diags, python


_NAME_LINE = re.compile(rb"^name:[ \t]*(aclnn[A-Za-z0-9]+)[ \t]*(?:#.*)?$", re.M)


def predicted_name(data: bytes) -> str | None:
    """The operator name a spec file most likely declares (a plain ``name: aclnnXxx`` line); a
    guess, checked once the spec is loaded."""
    found = _NAME_LINE.search(data)
    return found.group(1).decode() if found else None


# ---------------------------------------------------------------------------------------------
# The run


def run_generate(specs: Path, out: Path, *, check: bool = False, only: str | None = None, verbose: bool = False) -> int:
    """Generate (or with ``check`` compare) every output; 0 when done / up to date, 1 when stale."""
    import gc

    # A batch job that builds many small, acyclic objects: the cyclic collector only costs time.
    enabled = gc.isenabled()
    gc.disable()
    try:
        if check:
            return _run_check(Path(os.path.abspath(specs)), Path(os.path.abspath(out)), only)
        return _Run(Path(os.path.abspath(specs)), Path(os.path.abspath(out)), only, verbose).run()
    except GenerateError as exc:
        print(f"opgen generate: {exc}", file=sys.stderr)
        return 1
    finally:
        if enabled:
            gc.enable()


class _Run:
    def __init__(self, specs: Path, out: Path, only: str | None, verbose: bool):
        self.specs, self.out, self.only, self.verbose = specs, out, only, verbose
        self.root = str(out) + os.sep
        self.domain = DOMAINS[only]
        self.start = time.perf_counter()
        self.changed_stamps = False
        self.state: dict = {}
        self.trust = 0
        self.fd: int | None = None
        self.generator_files: dict[str, str] = {}

    def run(self) -> int:
        out = self.out
        created = False
        if not out.exists():
            if out.is_symlink():
                raise GenerateError(f"--out {display_path(out)} is a broken symbolic link, not a folder")
            try:
                out.mkdir(parents=True)
                created = True
            except FileExistsError:  # another run created it a moment ago: it is locked below
                pass
        if not out.is_dir():
            raise GenerateError(f"--out {display_path(out)} is not a folder")
        try:
            with _Lock(out, shared=False) as lock:
                self.fd = lock.fd  # the output folder: files are looked at relative to it
                return self._locked()
        except BaseException:
            if created:
                try:
                    out.rmdir()  # leave no trace of a run that failed
                except OSError:
                    pass
            raise

    # -- ownership ---------------------------------------------------------------------------

    def _owned(self, record: str | None) -> set[str] | None:
        """The files generate owns here; None when it has no record and must recognise its files."""
        owned = _parse_record(record) if record is not None else None
        if owned is None:
            owned = _read_legacy_manifest(self.out)
        if owned is None:
            present = _walk_out(self.out)
            if not present:
                return set()
            hidden = [rel for rel in present if rel.startswith(".") or not _valid_rel(rel)]
            if hidden:  # e.g. .git: certainly not a folder generate wrote (it writes no such name)
                raise self._foreign(hidden)
        return owned

    def _foreign(self, rels: list[str]) -> GenerateError:
        return GenerateError(
            f"--out {display_path(self.out)} is not empty and was not written by opgen generate "
            f"(it has no {RECORD} record and holds files it would not write: {_shown(rels)}). "
            "Nothing was written or deleted: choose an empty or new folder, or remove these files."
        )

    # -- main --------------------------------------------------------------------------------

    def _locked(self) -> int:
        record = _read_record(self.out)
        owned = self._owned(record) if record is None else None  # a record is parsed when needed
        loaded = _read_sealed(self.out / STATE) if self.only is None else None
        state, trust = loaded if loaded else ({}, 0)
        known = state.get("generator_files") if isinstance(state.get("generator_files"), dict) else None
        generator_key, self.generator_files = _generator_key(self.only, known, trust)
        self.changed_stamps = known != self.generator_files  # then the state is saved even when up to date
        if state.get("generator") != generator_key or state.get("specs") != str(self.specs):
            state = {}
        self.state, self.trust = state, trust
        inputs = _Inputs(self.specs, state.get("inputs", {}), trust)
        keys = {rel: inputs.op_key(generator_key, rel) for rel in inputs.spec_rels}

        # Ops whose inputs are unchanged and whose files are intact keep them.
        known_ops = state.get("ops", {})
        same = [rel for rel in inputs.spec_rels if rel in known_ops and known_ops[rel]["key"] == keys[rel]]
        pending = None
        if len(same) < len(inputs.spec_rels) and len(same) >= VERIFY_ASIDE_FROM:
            # Something will be rendered: a child process checks the other ops' files (stat calls, which
            # wait on the kernel rather than the interpreter) meanwhile. In a fresh process the modules
            # rendering needs load meanwhile; where they are loaded (a daemon), the edited ops render
            # meanwhile, and an op whose files the child finds damaged is rendered after them.
            verified = self._verify_aside(known_ops, same, trust)
            if _rendering_loaded():
                pending = verified
                checked = {rel: known_ops[rel]["files"] for rel in same}
            else:
                try:
                    _preload()
                finally:
                    checked = verified()  # (also when loading fails: no child is left behind)
        else:
            checked = {rel: self._verify(known_ops[rel]["files"], trust) for rel in same}
        kept: dict[str, dict] = {}
        todo = []
        for rel in inputs.spec_rels:
            files = checked.get(rel)
            if files is None:
                todo.append(rel)
            else:
                kept[rel] = {**known_ops[rel], "files": files}
        if inputs.problems or not inputs.spec_rels:
            todo, kept = list(inputs.spec_rels), {}  # the loader reports what is wrong, with locations
        if not todo:  # the set of ops may still have shrunk: pages that linked a removed op change
            names = frozenset(op["ident"]["name"] for op in kept.values())
            todo = _relinked(kept, names)
            kept = {rel: op for rel, op in kept.items() if rel not in todo}
        units = units_of({u for op in kept.values() for u in op["parts"]}, self.only)
        aggregates = self._kept_aggregates(generator_key, inputs, kept, units) if not todo else {}
        if len(aggregates) == len(units) and record is not None:
            produced = {f: fs.digest(e) for op in kept.values() for f, e in op["files"].items()}
            produced.update({f: fs.digest(e) for agg in aggregates.values() for f, e in agg["files"].items()})
            if record == record_text(produced):  # owns exactly what is produced: nothing to delete
                if self.changed_stamps:  # remember the new stamps: the next run hashes nothing
                    self._save_state(generator_key, inputs, kept, aggregates)
                elapsed = time.perf_counter() - self.start
                print(f"opgen generate: up to date ({len(kept)} op(s)), {elapsed:.2f} s")
                return 0
        # With a record, its text goes to the commit, which parses it only when it lists other files
        # than the ones produced (a large catalogue's record has one line per file).
        try:
            return self._render(
                record if record is not None else owned, generator_key, inputs, keys, todo, kept, pending
            )
        finally:
            if pending is not None:
                pending()  # joined (a no-op when _render has): no child is left behind

    def _kept_aggregates(self, generator_key: str, inputs: _Inputs, ops: dict, units: list[str]) -> dict[str, dict]:
        """The aggregate units whose inputs (the ops' rows) are unchanged and whose files are intact."""
        kept = {}
        known = self.state.get("aggregate", {})
        keys = _aggregate_keys(generator_key, inputs, ops, units)
        for unit in units:
            entry = known.get(unit)
            if entry is not None and entry["key"] == keys[unit]:
                files = self._verify(entry["files"], self.trust)
                if files is not None:
                    kept[unit] = {**entry, "files": files}
        return kept

    def _verify_aside(self, ops: dict, rels: list[str], trust: int):
        """Start :meth:`_verify` of ``rels``' files in a forked child; return the function that waits for
        it: {rel: fresh fingerprints or None}, as ``_verify`` gives them (in-process where fork is not
        available or the child fails; later calls return the same answer)."""

        def here() -> dict:
            return {rel: self._verify(ops[rel]["files"], trust) for rel in rels}

        threading = sys.modules.get("threading")  # (not imported: no other Python thread)
        if not hasattr(os, "fork") or (threading is not None and threading.active_count() > 1):
            checked = here()  # no fork beside other threads (a lock one of them holds stays held in the child)
            return lambda: checked
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: answer, then leave without running any of the parent's cleanup
            code = 1
            try:
                os.close(read_end)
                changed = {}
                for rel in rels:
                    files = ops[rel]["files"]
                    found = self._verify(files, trust)
                    if found is not files:
                        changed[rel] = found
                with os.fdopen(write_end, "wb") as pipe:
                    pipe.write(json.dumps(changed).encode())
                code = 0
            finally:
                os._exit(code)
        os.close(write_end)

        answer: list[dict] = []

        def wait() -> dict:
            if answer:
                return answer[0]
            with os.fdopen(read_end, "rb") as pipe:
                data = pipe.read()
            _, status = os.waitpid(pid, 0)
            if status != 0:
                answer.append(here())
                return answer[0]
            changed = json.loads(data)
            if any(files is not None for files in changed.values()):
                self.changed_stamps = True  # as _verify notes it in-process
            answer.append({rel: changed[rel] if rel in changed else ops[rel]["files"] for rel in rels})
            return answer[0]

        return wait

    def _verify(self, files: dict, trust: int) -> dict | None:
        """Fresh fingerprints of ``files`` ({relative path: fingerprint}) when every one is on
        disk with the recorded content; None otherwise."""
        fingerprint, fd, stat = fs.fingerprint, self.fd, os.stat
        fresh = None  # a copy of ``files`` once one fingerprint differs
        for rel, known in files.items():
            try:  # the common case first: the recorded stamp, recorded after the file last changed
                st = stat(rel, dir_fd=fd, follow_symlinks=False)
            except (OSError, ValueError):
                return None
            if (
                st.st_ctime_ns < trust
                and st.st_mode & 0o170000 == 0o100000
                and known.startswith(f"{st.st_size}:{st.st_mtime_ns}:{st.st_ctime_ns}:{st.st_ino}:")
                and len(known) == known.rfind(":") + 1 + fs.DIGEST
            ):
                continue
            entry = fingerprint(rel, known, trust, dir_fd=fd)
            if entry is None or entry[-fs.DIGEST :] != known[-fs.DIGEST :]:
                return None
            if entry is not known:
                self.changed_stamps = True
                fresh = dict(files) if fresh is None else fresh
                fresh[rel] = entry
        return files if fresh is None else fresh

    def _render(self, owned, generator_key, inputs, keys, todo, kept, pending=None) -> int:
        from generator.emit import matrix
        from generator.loader import load_catalog, load_project

        catalog = load_catalog(self.specs)
        if not inputs.spec_rels:
            load_project(self.specs)  # raises: no op spec in the folder
        env = environment()
        _WORKER.update(catalog=catalog, env=env, specs=self.specs, only=self.only, reuse=_Reuse(self))
        stage = Path(_mkstage(self.out))
        try:
            with matrix.catalog_installed(catalog):  # the matrix runs validators (workers inherit it)
                predicted = self._predicted_names(keys, todo, kept)
                results, python = self._render_ops(stage, keys, todo, predicted)
                for rel in results:
                    kept.pop(rel, None)
                if pending is not None:  # the files of the ops kept so far, checked aside meanwhile
                    damaged = []
                    for rel, files in pending().items():
                        if rel not in kept:
                            continue  # (rendered already)
                        if files is None:
                            damaged.append(rel)
                            del kept[rel]
                        else:
                            kept[rel]["files"] = files
                    if damaged:  # their names are the recorded ones: the prediction holds
                        more, more_python = self._render_ops(stage, keys, damaged, predicted)
                        python += more_python
                        results.update(more)
                # The names are settled now: the pages of an op rendered with a wrong guess, and of a
                # kept op that mentions an op that came or went, are rendered again.
                every = {
                    **{rel: op["ident"] for rel, op in kept.items()},
                    **{r: x["rows"]["ident"] for r, x in results.items()},
                }
                if _collisions(sorted(every.values(), key=lambda ident: ident["name"])):
                    load_project(self.specs)  # reports the duplicates with their positions
                    raise GenerateError("two specs share a name or snake name")  # pragma: no cover
                names = frozenset(ident["name"] for ident in every.values())
                again = sorted(
                    rel for rel, x in results.items() if sorted(names.intersection(x["mentions"])) != x["links"]
                )
                again += _relinked(kept, names)
                if again:
                    more, more_python = self._render_ops(stage, keys, again, names)
                    python = list(dict.fromkeys(python + more_python))  # a file staged twice is formatted once
                    for rel in more:
                        kept.pop(rel, None)
                    results.update(more)
                ops = {**kept, **{rel: _op_entry(result) for rel, result in results.items()}}
                parts_units = {u for op in ops.values() for u in op["parts"]}
                units = units_of(parts_units, self.only)
                aggregates = self._kept_aggregates(generator_key, inputs, ops, units) if self.only is None else {}
                missing = [u for u in units if u not in aggregates]
                fresh = {rel: op_parts(result["rows"]) for rel, result in results.items()}
                needed = {u for u in missing if u in parts_units}
                sections: dict[str, dict] = {}
                rows_lines = None
                if kept and needed:
                    # These units need every op's part: kept ops' come from the rows file; an op
                    # whose part is lost is rendered again.
                    sections, rows_lines = _read_rows(self.out, needed)
                    lost = sorted(
                        rel
                        for rel, op in kept.items()
                        if any(h not in sections.get(u, ()) for u, h in op["parts"].items() if u in needed)
                    )
                    if lost:
                        more, more_python = self._render_ops(stage, keys, lost, names)
                        python += more_python
                        for rel, result in more.items():
                            del kept[rel]
                            results[rel], ops[rel] = result, _op_entry(result)
                            fresh[rel] = op_parts(result["rows"])
                by_unit: dict[str, list] = {u: [] for u in missing}
                for rel in sorted(ops, key=lambda rel: ops[rel]["ident"]["name"]):
                    if rel in fresh:
                        for u, part in fresh[rel].items():
                            if u in by_unit:
                                by_unit[u].append(part)
                    else:
                        for u, h in ops[rel]["parts"].items():
                            if u in by_unit:
                                by_unit[u].append(sections[u][h])
                fresh_aggregates = {}
                for unit in missing:
                    raw: dict[str, str] = {}
                    reused: list[str] = []
                    files = _stage(stage, render_unit(unit, by_unit[unit], catalog, env), python, raw, reused)
                    fresh_aggregates[unit] = {"files": files, "raw": raw, "reused": reused}
            if python:
                _format_staged(stage, python, [*fresh_aggregates.values(), *results.values()])
            produced: dict[str, str] = {}
            owner: dict[str, str] = {}

            def claim(files: dict, who: str) -> None:
                for f, digest in files.items():
                    if f in produced:
                        raise GenerateError(f"{f} would be written for both {owner[f]} and {who}")
                    produced[f], owner[f] = fs.digest(digest), who

            for rel, op in kept.items():
                claim(op["files"], rel)
            for rel, result in results.items():
                claim(result["files"], rel)
            for unit, agg in [*aggregates.items(), *fresh_aggregates.items()]:
                claim(agg["files"], f"{AGGREGATE} {unit}")
            staged = {f for new in [*results.values(), *fresh_aggregates.values()] for f in new["files"]}
            staged -= {f for new in [*results.values(), *fresh_aggregates.values()] for f in new["reused"]}
            changes, removed = self._commit(stage, owned, produced, staged)
        finally:
            shutil.rmtree(stage, ignore_errors=True)
        if self.only is None:
            stamp = fs.stamped
            for rel, result in results.items():
                ops[rel]["files"] = {f: stamp(self.root + f, digest) for f, digest in result["files"].items()}
            for op in kept.values():  # damaged files written again get new stamps
                op["files"] = {
                    f: stamp(self.root + f, fs.digest(e)) if f in changes else e for f, e in op["files"].items()
                }
            keys = _aggregate_keys(generator_key, inputs, ops, fresh_aggregates)
            for unit, agg in fresh_aggregates.items():
                files = {f: stamp(self.root + f, digest) for f, digest in agg["files"].items()}
                aggregates[unit] = {"key": keys[unit], "files": files, "raw": agg["raw"]}
            known = self.state.get("ops", {})
            changed = {
                u
                for rel in results
                for u, h in ops[rel]["parts"].items()
                if known.get(rel, {}).get("parts", {}).get(u) != h
            }
            if changed:
                _write_rows(self.out, ops, fresh, sections, changed, set(parts_units), rows_lines)
            self._save_state(generator_key, inputs, ops, aggregates)
        elapsed = time.perf_counter() - self.start
        print(
            f"opgen generate: {len(ops)} op(s) ({len(results)} rendered), {len(produced)} file(s): "
            f"{len(changes)} written, {removed} removed, {elapsed:.2f} s"
        )
        return 0

    def _render_ops(
        self, stage: Path, keys: dict[str, str], todo: list[str], names: frozenset
    ) -> tuple[dict, list[str]]:
        results, diags, python = _render_ops(stage, [(rel, keys[rel]) for rel in sorted(todo)], names)
        if diags:
            raise SpecError(diags)
        return results, python

    def _predicted_names(self, keys: dict[str, str], todo: list[str], kept: dict[str, dict]) -> frozenset:
        """The operator names of the project before the specs to render are loaded: the kept ops'
        names, the recorded name of an unchanged spec, else the ``name:`` line of the file."""
        names = {op["ident"]["name"] for op in kept.values()}
        known = self.state.get("ops", {})
        for rel in todo:
            entry = known.get(rel)
            if entry is not None and entry["key"] == keys[rel]:
                names.add(entry["ident"]["name"])
                continue
            try:
                with open(self.specs / rel, "rb") as handle:
                    name = predicted_name(handle.read())
            except OSError:
                continue
            if name is not None:
                names.add(name)
        return frozenset(names)

    def reusable(self) -> dict[str, tuple[str, dict]]:
        """{output rel: (hash of its unformatted text, its fingerprint)} of every Python output of
        the last run (they are checked on disk only when looked up: see ``_Reuse``)."""
        found = {}
        entries = [*self.state.get("ops", {}).values(), *self.state.get("aggregate", {}).values()]
        for entry in entries:
            for rel, raw in entry.get("raw", {}).items():
                known = entry["files"].get(rel)
                if known is not None:
                    found[rel] = (raw, known)
        return found

    def _commit(
        self, stage: Path, owned: set[str] | str | None, produced: dict[str, str], staged: set[str]
    ) -> tuple[set[str], int]:
        """Move the staged files that differ from what is on disk into place, delete owned files
        no longer produced, update the record. ``owned``: the files the record lists, or the record's
        text, or None when the folder has no record: then it refuses (changing nothing) unless every
        file there is one it writes, with the same content."""
        from generator.writer import write_if_changed

        out, root = self.out, self.root
        changes, strangers = [], []
        for rel in sorted(staged):
            current = fs.fingerprint(root + rel, None, 0)
            if current is not None and fs.digest(current) == produced[rel]:
                continue  # already there, byte for byte
            if owned is None and os.path.lexists(root + rel):
                strangers.append(rel)  # no record, and a file that is not what generate would write
            self._check_parents(rel)
            changes.append(rel)
        if owned is None:
            # No record: the folder is recognised only if it holds nothing but our files, unchanged.
            strangers += [rel for rel in _walk_out(out) if rel not in produced]
            if strangers:
                raise self._foreign(strangers)
            owned = set()
        for rel in changes:
            target = out / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(staged_path(stage, rel), target)
            if self.verbose:
                print(f"wrote {display_path(target)}")
        removed = 0
        # A record listing exactly the files produced needs no deletion and no update.
        if not (isinstance(owned, str) and self.only is None and owned == record_text(produced)):
            owned = _parse_record(owned) if isinstance(owned, str) else owned
            removed = sum(
                self._remove(rel) for rel in sorted(owned) if rel.startswith(self.domain) and rel not in produced
            )
            kept = {rel for rel in owned if not rel.startswith(self.domain)} | set(produced)
            write_if_changed(out / RECORD, record_text(kept))
        if os.path.lexists(out / LEGACY_MANIFEST):
            (out / LEGACY_MANIFEST).unlink()
        return set(changes), removed

    def _check_parents(self, rel: str) -> None:
        """Refuse to write through a symbolic link or over a folder inside the output folder."""
        path = self.out
        for part in rel.split("/")[:-1]:
            path = path / part
            if path.is_symlink() or (path.exists() and not path.is_dir()):
                raise GenerateError(f"{display_path(path)} is not a plain folder; refusing to write {rel} through it")
        target = self.out / rel
        if target.is_dir() and not target.is_symlink():
            raise GenerateError(f"{display_path(target)} is a folder; refusing to replace it with a file")

    def _remove(self, rel: str) -> bool:
        """Delete one owned file no spec produces any more (never a folder, never through a link)."""
        path = self.out / rel
        real_out = os.path.realpath(self.out)
        if os.path.commonpath([real_out, os.path.realpath(path.parent)]) != real_out:
            print(f"opgen generate: not removing {rel}: it lies outside the output folder", file=sys.stderr)
            return False
        try:
            if path.is_dir() and not path.is_symlink():
                return False
            path.unlink()
        except FileNotFoundError:
            return False
        if self.verbose:
            print(f"removed {display_path(path)}")
        parent = path.parent
        while parent != self.out:
            try:
                parent.rmdir()  # only when empty
            except OSError:
                break
            parent = parent.parent
        return True

    def _save_state(self, generator_key: str, inputs: _Inputs, ops: dict, aggregate: dict) -> None:
        state = {
            "generator": generator_key,
            "generator_files": self.generator_files,
            "specs": str(self.specs),
            "inputs": inputs.entries,
            "ops": ops,
            "aggregate": aggregate,
        }
        _write_sealed(self.out / STATE, state)


def _aggregate_keys(generator_key: str, inputs: _Inputs, ops: dict[str, dict], units) -> dict[str, str]:
    """What each aggregate unit's files depend on: generator, catalogue, the ops' rows for it."""
    parts: dict[str, list[str]] = {unit: [] for unit in units}
    for op in ops.values():
        for unit, digest in op["parts"].items():
            if unit in parts:
                parts[unit].append(digest)
    head = f"{generator_key}\0{inputs.catalog_key}\0"
    return {unit: fs.sha256(f"{head}{unit}\0{','.join(sorted(found))}".encode()) for unit, found in parts.items()}


def _read_rows(out: Path, units) -> tuple[dict[str, dict], list[bytes] | None]:
    """{unit: {part hash: part}} of ``units`` from the rows file (a damaged line is left out: the op
    whose part it held is rendered again when that aggregate is needed), and the file's lines (None
    when it cannot be read), which :func:`_write_rows` reuses instead of reading the file again.

    The rows file has one line per part of an aggregate unit: the unit's name (JSON), a tab, the
    part's hash, a tab, the hash of the part's text, a tab, the part (JSON). A run reads only the
    lines of the units it renders again and writes again only the parts that changed."""
    wanted = {json.dumps(u).encode(): u for u in units}
    found: dict[str, dict] = {}
    try:
        lines = (out / ROWS).read_bytes().split(b"\n")
    except OSError:
        return found, None
    for line in lines:
        fields = line.split(b"\t", 3)
        if len(fields) != 4 or fields[0] not in wanted:
            continue
        name, part_hash, seal, body = fields
        if fs.sha256(body).encode() != seal:
            continue
        try:
            part = fs.load_json(body, many=True)
        except ValueError:
            continue
        found.setdefault(wanted[name], {})[part_hash.decode("ascii", "replace")] = part
    return found, lines


def _row_line(unit_name: bytes, part_hash: str, part) -> bytes:
    body = fs.dump_json(part)
    return b"\t".join((unit_name, part_hash.encode(), fs.sha256(body).encode(), body))


def _write_rows(
    out: Path, ops: dict, fresh: dict, sections: dict, changed: set[str], units: set[str], lines: list[bytes] | None
) -> None:
    """Write the rows of the current ``units``: for the ``changed`` ones every op's part (fresh parts
    serialised, kept ones, read from ``sections`` this run, copied as they were written), the others'
    lines as they are; lines of other units are dropped. ``lines``: the file's lines as
    :func:`_read_rows` read them this run (under the same lock), else None: the file is read here."""
    from generator.writer import write_bytes

    names = {u: json.dumps(u).encode() for u in units}
    by_name = {name: u for u, name in names.items()}
    kept: dict[str, list[bytes]] = {}
    old_parts: dict[tuple[str, bytes], bytes] = {}
    if lines is None:
        try:
            lines = (out / ROWS).read_bytes().split(b"\n")
        except OSError:
            lines = []
    for line in lines:
        fields = line.split(b"\t", 2)
        unit = by_name.get(fields[0]) if len(fields) == 3 else None
        if unit is None:
            continue
        if unit in changed:
            old_parts[(unit, fields[1])] = line
        else:
            kept.setdefault(unit, []).append(line)
    for unit in changed & units:
        lines: dict[str, bytes] = {}
        for rel, op in ops.items():
            h = op["parts"].get(unit)
            if h is None or h in lines:
                continue
            if rel in fresh:
                lines[h] = _row_line(names[unit], h, fresh[rel][unit])
            elif h in sections.get(unit, {}):  # read (and its seal checked) this run: its line as written
                lines[h] = old_parts.get((unit, h.encode())) or _row_line(names[unit], h, sections[unit][h])
        kept[unit] = list(lines.values())
    write_bytes(out / ROWS, b"".join(line + b"\n" for u in sorted(kept) for line in kept[u]))


def _relinked(ops: dict[str, dict], names: frozenset) -> list[str]:
    """The ops whose pages mention an operator name whose presence in the project changed."""
    return sorted(rel for rel, op in ops.items() if sorted(names.intersection(op["mentions"])) != op["links"])


def _op_entry(result: dict) -> dict:
    """The state entry of an op just rendered (its files are stamped after the commit)."""
    rows = result["rows"]
    return {
        "key": result["key"],
        "parts": {unit: rows_hash(part) for unit, part in op_parts(rows).items()},
        "raw": result["raw"],
        "ident": rows["ident"],
        "mentions": result["mentions"],
        "links": result["links"],
    }


def _collisions(idents: list[dict]) -> bool:
    seen = set()
    for ident in idents:
        for attr, value in ident.items():
            if (attr, value) in seen:
                return True
            seen.add((attr, value))
    return False


class _Reuse:
    """Python outputs still on disk as ruff formatted them from a known unformatted text:
    ``get(rel)`` -> (hash of that text, hash of the file) or None."""

    def __init__(self, run: _Run):
        self.known = run.reusable()
        self.root, self.trust = run.root, run.trust

    def get(self, rel: str):
        entry = self.known.get(rel)
        if entry is None:
            return None
        raw, known = entry
        found = fs.fingerprint(self.root + rel, known, self.trust)
        return (raw, fs.digest(known)) if found is not None and fs.digest(found) == fs.digest(known) else None


def _shown(rels: list[str]) -> str:
    rels = sorted(rels)
    return ", ".join(rels[:5]) + (f" and {len(rels) - 5} more" if len(rels) > 5 else "")


def _mkstage(out: Path) -> str:
    import tempfile

    stage = tempfile.mkdtemp(prefix=STAGING_PREFIX, dir=out)
    Path(stage, STAGING_MARK).write_text("opgen generate staging folder\n", encoding="utf-8")
    return stage


# ---------------------------------------------------------------------------------------------
# --check


def _run_check(specs: Path, out: Path, only: str | None) -> int:
    """Render everything (no state is trusted) and compare with ``out``; write nothing."""
    from generator.loader import load_project

    files = render_all(load_project(specs), only)
    domain = DOMAINS[only]
    problems: list[tuple[str, str]] = []

    def compare():
        present = set(_walk_out(out)) if out.is_dir() else set()
        record = _read_record(out) if out.is_dir() else None
        owned = _parse_record(record) if record is not None else (_read_legacy_manifest(out) or set())
        for rel, text in sorted(files.items()):
            if rel not in present:
                problems.append(("missing", rel))
            elif (out / rel).read_bytes() != text.encode("utf-8"):
                problems.append(("stale", rel))
        for rel in sorted(present - set(files)):
            if rel.startswith(domain):
                problems.append(("extra" if rel in owned else "foreign", rel))
        if only is None:
            try:
                record = (out / RECORD).read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                record = None
            if record != record_text(files):
                problems.append(("stale" if record is not None else "missing", RECORD))

    if out.is_dir():
        with _Lock(out, shared=True):
            compare()
    else:
        compare()
    notes = {"extra": "no spec produces it any more", "foreign": "not written by opgen generate"}
    for label, rel in problems:
        note = f" ({notes[label]})" if label in notes else ""
        print(f"{label}: {display_path(out / rel)}{note}", file=sys.stderr)
    if problems:
        print(f"opgen generate --check: {len(problems)} file(s) out of date; run 'opgen generate'", file=sys.stderr)
        return 1
    print(f"opgen generate --check: {len(files)} file(s) up to date")
    return 0
