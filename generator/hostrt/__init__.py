"""The opgen host runtime: CANN's ACL/aclnn host API on CPU memory, so samples and the ctypes backend run.

Why it exists: no Ascend device is available to this project, yet samples must build, run and check their
results, and ``backend="cann"`` must be testable. The host runtime implements, with CANN's names, enum
values and signatures (``generator/include``), the subset of the API they use; each operator's first phase
runs the C++ checks generated from its spec and its second phase computes with the spec's NumPy reference
kernel (embedded Python, or a callback from the ctypes backend). See ``opgen/hostrt.h`` for the layout.

Sources: ``generator/hostrt/src/*.cpp`` (hand-written runtime), ``generator/hostrt/include/opgen/hostrt.h``
(internal interface), ``<generated>/hostrt/<op>.cpp`` (one unit per spec), the headers in
``generator/include`` and ``<generated>/{aclnnop,include}``.

:func:`build` compiles them with the system compiler into a folder laid out like a CANN toolkit
(``include/``, ``lib64/libascendcl.so``, ``libnnopbase.so``, ``libopapi.so``, ``libopgen_python.so``),
so ``ASCEND_TOOLKIT_HOME=<folder>`` works for samples and for the ctypes backend exactly as a real
install would. Builds are cached by content hash under ``$OPGEN_CACHE_DIR/hostrt`` (default
``~/.cache/aclnn-opgen/hostrt``): objects per source file, toolkits per complete set of inputs.
"""

from __future__ import annotations

import hashlib
import os
import shlex
import shutil
import subprocess
import sysconfig
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCES = HERE / "src"
INTERNAL_INCLUDE = HERE / "include"
PUBLIC_INCLUDE = HERE.parent / "include"
LIBRARIES = ("libascendcl.so", "libnnopbase.so", "libopapi.so")

CXX_FLAGS = ("-std=c++17", "-O1", "-g", "-fPIC", "-Wall", "-Wextra", "-Werror", "-fvisibility=hidden",
             "-DFUNC_VISIBILITY")  # fmt: skip
SANITIZE_FLAGS = ("-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-fno-omit-frame-pointer")


class HostRuntimeError(RuntimeError):
    """The host runtime cannot be built (no compiler, a compile error, no shared libpython)."""


@dataclass(frozen=True)
class Toolkit:
    """A built host runtime, laid out like ``$ASCEND_TOOLKIT_HOME``."""

    home: Path
    sanitize: bool

    @property
    def include(self) -> Path:
        return self.home / "include"

    @property
    def lib64(self) -> Path:
        return self.home / "lib64"


def cache_dir() -> Path:
    root = os.environ.get("OPGEN_CACHE_DIR", "").strip()
    return (Path(root) if root else Path.home() / ".cache" / "aclnn-opgen") / "hostrt"


def find_compiler() -> str | None:
    """``$CXX`` (may carry arguments), else the first of ``c++``, ``g++``, ``clang++`` on PATH."""
    cxx = os.environ.get("CXX", "").strip()
    if cxx:
        return cxx
    for name in ("c++", "g++", "clang++"):
        found = shutil.which(name)
        if found:
            return found
    return None


def _python() -> dict:
    """How to embed the running interpreter (its headers and shared libpython)."""
    include = sysconfig.get_paths()["include"]
    libdir = sysconfig.get_config_var("LIBDIR") or ""
    version = sysconfig.get_config_var("LDVERSION") or sysconfig.get_config_var("VERSION") or ""
    shared = bool(sysconfig.get_config_var("Py_ENABLE_SHARED"))
    return {"include": include, "libdir": libdir, "lib": f"python{version}", "shared": shared}


def python_path(generated_root: Path) -> str:
    """OPGEN_HOSTRT_PYTHONPATH for samples computing with the ``aclnn`` package of ``generated_root``
    (the toolkit's ``lib64/opgen_python.path`` holds the value for the tree it was built from)."""
    return os.pathsep.join(_python_path(Path(generated_root).resolve()))


def _python_path(generated_root: Path) -> list[str]:
    """The folders the embedded interpreter needs: the generated ``aclnn`` package, ``generator``,
    NumPy and ml_dtypes (whatever site-packages they live in)."""
    import ml_dtypes
    import numpy

    folders = []
    if (generated_root / "aclnn" / "__init__.py").is_file():
        folders.append(generated_root)
    else:
        import aclnn

        folders.append(Path(aclnn.__file__).resolve().parents[1])
    folders.append(HERE.parents[1])  # holds the generator package
    folders += [Path(numpy.__file__).resolve().parents[1], Path(ml_dtypes.__file__).resolve().parents[1]]
    unique: list[str] = []
    for folder in folders:
        if str(folder) not in unique:
            unique.append(str(folder))
    return unique


def _digest(*parts: bytes | str) -> str:
    h = hashlib.sha256()
    for part in parts:
        data = part.encode("utf-8", "surrogateescape") if isinstance(part, str) else part
        h.update(len(data).to_bytes(8, "little"))
        h.update(data)
    return h.hexdigest()[:24]


def _compiler_id(cxx: str) -> str:
    try:
        proc = subprocess.run([*shlex.split(cxx), "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise HostRuntimeError(f"cannot run the C++ compiler {cxx!r}: {exc}") from None
    return cxx + "\n" + proc.stdout


def _files(folder: Path, pattern: str) -> list[Path]:
    return sorted(p for p in folder.rglob(pattern) if p.is_file()) if folder.is_dir() else []


def _header_digest(generated_root: Path) -> str:
    """Every header any unit may include: public and internal ones, the generated aclnnop and catalogue."""
    parts = []
    for folder in (PUBLIC_INCLUDE, INTERNAL_INCLUDE, generated_root / "aclnnop", generated_root / "include"):
        for path in _files(folder, "*.h"):
            parts += [str(path.relative_to(folder)), path.read_bytes()]
    return _digest(*parts)


def _run(cmd: list[str], what: str) -> None:
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, errors="replace", stdin=subprocess.DEVNULL)
    except OSError as exc:
        raise HostRuntimeError(f"{what}: cannot run {cmd[0]}: {exc}") from None
    if proc.returncode != 0:
        raise HostRuntimeError(f"{what} failed:\n$ {shlex.join(cmd)}\n{(proc.stderr + proc.stdout).strip()}")


def _replace(temp: Path, final: Path) -> None:
    """Move a finished file or folder into place; a concurrent builder may have won the race."""
    try:
        os.replace(temp, final)
    except OSError:
        if not final.exists():
            raise
        shutil.rmtree(temp, ignore_errors=True) if temp.is_dir() else temp.unlink(missing_ok=True)


def _write_python_path(path: Path, text: str) -> None:
    """Record the Python folders of the tree last built for (a toolkit is shared by identical trees;
    OPGEN_HOSTRT_PYTHONPATH overrides the file at run time)."""
    if path.is_file() and path.read_text(encoding="utf-8") == text:
        return
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=".path-")
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.replace(temp, path)


def build(generated_root: Path, *, sanitize: bool = False, jobs: int = 2, compiler: str | None = None) -> Toolkit:
    """Build (or reuse) the host runtime for the specs rendered under ``generated_root``.

    ``generated_root`` holds ``aclnnop/``, ``include/opgen/catalog.h``, ``hostrt/*.cpp`` and the ``aclnn``
    package (``opgen generate`` output). ``sanitize`` builds with AddressSanitizer and UBSan (for samples
    built the same way). Raises :class:`HostRuntimeError` when something cannot be built.
    """
    generated_root = Path(generated_root).resolve()
    units = _files(generated_root / "hostrt", "*.cpp")
    if not units:
        raise HostRuntimeError(f"no operator units under {generated_root / 'hostrt'}; run 'opgen generate' first")
    cxx = compiler or find_compiler()
    if cxx is None:
        raise HostRuntimeError("no C++ compiler found (set CXX or install c++/g++/clang++)")
    python = _python()
    flags = [*CXX_FLAGS, *(SANITIZE_FLAGS if sanitize else ())]
    includes = [f"-I{d}" for d in (PUBLIC_INCLUDE, INTERNAL_INCLUDE, generated_root / "include", generated_root)]
    common = _digest(_compiler_id(cxx), " ".join(flags), _header_digest(generated_root), repr(sorted(python.items())))
    python_path = "\n".join(_python_path(generated_root)) + "\n"
    sources = {
        "runtime": [SOURCES / "runtime.cpp"],
        "handles": [SOURCES / "handles.cpp"],
        "python": [SOURCES / "python_bridge.cpp"],
        "units": units,
    }
    all_sources = [p for group in sources.values() for p in group]
    key = _digest(common, *(p.name + "\0" + _digest(p.read_bytes()) for p in all_sources))
    root = cache_dir()
    home = root / (("asan-" if sanitize else "") + key)
    toolkit = Toolkit(home, sanitize)
    if (home / ".complete").is_file():
        _write_python_path(home / "lib64" / "opgen_python.path", python_path)
        return toolkit
    objects_dir = root / "obj"
    objects_dir.mkdir(parents=True, exist_ok=True)

    def compile_one(source: Path) -> Path:
        extra = [f"-I{python['include']}"] if source.name == "python_bridge.cpp" else []
        obj = objects_dir / f"{source.stem}-{_digest(common, source.read_bytes(), ' '.join(extra))}.o"
        if not obj.is_file():
            fd, temp = tempfile.mkstemp(dir=objects_dir, suffix=".o.tmp")
            os.close(fd)
            try:
                _run(
                    [*shlex.split(cxx), *flags, *includes, *extra, "-c", str(source), "-o", temp], f"compiling {source}"
                )
                _replace(Path(temp), obj)
            finally:
                Path(temp).unlink(missing_ok=True)
        return obj

    if not python["shared"]:
        raise HostRuntimeError("this Python has no shared libpython (Py_ENABLE_SHARED=0): samples cannot compute")
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        objects = {name: list(pool.map(compile_one, group)) for name, group in sources.items()}

    staging = Path(tempfile.mkdtemp(dir=root, prefix=".build-"))
    try:
        lib64 = staging / "lib64"
        lib64.mkdir()
        link = [*shlex.split(cxx), *flags, "-shared", "-Wl,--no-undefined", "-Wl,-rpath,$ORIGIN", f"-L{lib64}"]
        _run([*link, *map(str, objects["runtime"]), "-o", str(lib64 / "libascendcl.so"), "-ldl", "-lpthread"],
             "linking libascendcl.so")  # fmt: skip
        _run([*link, *map(str, objects["handles"]), "-o", str(lib64 / "libnnopbase.so"), "-lascendcl"],
             "linking libnnopbase.so")  # fmt: skip
        _run([*link, *map(str, objects["units"]), "-o", str(lib64 / "libopapi.so"), "-lnnopbase", "-lascendcl"],
             "linking libopapi.so")  # fmt: skip
        _run(
            [*link, *map(str, objects["python"]), "-o", str(lib64 / "libopgen_python.so"),
             f"-L{python['libdir']}", f"-Wl,-rpath,{python['libdir']}", f"-l{python['lib']}"],
            "linking libopgen_python.so",
        )  # fmt: skip
        _write_python_path(lib64 / "opgen_python.path", python_path)
        include = staging / "include"
        shutil.copytree(PUBLIC_INCLUDE / "acl", include / "acl")
        shutil.copytree(PUBLIC_INCLUDE / "aclnn", include / "aclnn")
        shutil.copytree(generated_root / "aclnnop", include / "aclnnop")
        (staging / ".complete").write_text(key + "\n", encoding="utf-8")
        _replace(staging, home)
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
    return toolkit
