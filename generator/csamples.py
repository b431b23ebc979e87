"""Build and run the generated C++ call samples.

A sample is compiled as C++11 with ``-Wall -Wextra -Werror`` and linked like a CANN program
(``-lopapi -lnnopbase -lascendcl``) against a toolkit:

* ``ASCEND_TOOLKIT_HOME`` set: the real CANN install (its ``include/`` first, then the generated tree for
  headers it lacks; its ``lib64/``), unchanged;
* otherwise: the opgen host runtime (:mod:`generator.hostrt`), built from the generated tree on first use
  and cached.

Running a sample sets ``OPGEN_PRODUCT`` to the product it is written for (``samples/index.json``) and
``OPGEN_HOSTRT_CHECK_LEAKS=1``; a sample exits 0 only when its outputs match the spec's expected values.
Executables are cached by content hash (source, toolkit, flags, compiler) under
``$OPGEN_CACHE_DIR/samples``. Everything runs in parallel (``jobs``).
"""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import shutil
import subprocess
import tempfile
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from generator import hostrt

INCLUDE_DIR: Path = hostrt.PUBLIC_INCLUDE
"""The host runtime's public ACL/aclnn headers (CANN's names and signatures)."""

WARNINGS: tuple[str, ...] = ("-Wall", "-Wextra", "-Werror")
STANDARDS: tuple[str, ...] = ("c++11", "c++14", "c++17")
LIBS: tuple[str, ...] = ("-lopapi", "-lnnopbase", "-lascendcl")
DEFAULT_TIMEOUT: float = 300.0
"""Seconds one compiler or sample run may take before it is killed and reported as a failure."""

# LeakSanitizer: the embedded interpreter and NumPy keep memory until the process ends, by design.
LSAN_SUPPRESSIONS = "leak:libpython\nleak:_multiarray_umath\nleak:site-packages\nleak:libopenblas\nleak:lib-dynload\n"


class CompilerNotFoundError(RuntimeError):
    """Raised when no C++ compiler is available."""


find_compiler = hostrt.find_compiler


@dataclass
class CompileResult:
    """Outcome of compiling one sample."""

    path: Path
    ok: bool
    output: str
    """Compiler diagnostics, or why the compiler could not run."""
    executable: Path | None = None


@dataclass
class RunResult:
    """Outcome of building and running one sample."""

    path: Path
    product: str
    compiled: CompileResult
    returncode: int | None = None
    stdout: str = ""
    stderr: str = ""
    env: dict[str, str] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.compiled.ok and self.returncode == 0


@dataclass(frozen=True)
class Target:
    """What samples compile and link against: include folders, library folder, run environment."""

    includes: tuple[Path, ...]
    lib64: Path
    env: tuple[tuple[str, str], ...]
    sanitize: bool = False
    label: str = ""

    def run_env(self, product: str | None, **extra: str) -> dict[str, str]:
        env = dict(os.environ)
        env.update(self.env)
        if product is not None:
            env["OPGEN_PRODUCT"] = product
        env.update(extra)
        return env


def target(generated_root: Path, *, sanitize: bool = False, jobs: int = 2) -> Target:
    """The real CANN install named by ASCEND_TOOLKIT_HOME, or the host runtime built for ``generated_root``."""
    home = os.environ.get("ASCEND_TOOLKIT_HOME", "").strip()
    if home and not (Path(home) / "lib64" / "opgen_python.path").is_file():
        return Target((Path(home) / "include", Path(generated_root)), Path(home) / "lib64", (), False, home)
    toolkit = hostrt.build(Path(generated_root), sanitize=sanitize, jobs=jobs)
    env = {
        "ASCEND_TOOLKIT_HOME": str(toolkit.home),
        "LD_LIBRARY_PATH": os.pathsep.join(filter(None, [str(toolkit.lib64), os.environ.get("LD_LIBRARY_PATH")])),
        "OPGEN_HOSTRT_CHECK_LEAKS": "1",
        "OPGEN_HOSTRT_PYTHONPATH": hostrt.python_path(Path(generated_root)),
    }
    if sanitize:
        suppressions = toolkit.home / "lsan.supp"
        if not suppressions.is_file():
            suppressions.write_text(LSAN_SUPPRESSIONS, encoding="utf-8")
        env["ASAN_OPTIONS"] = "detect_leaks=1:abort_on_error=0:exitcode=86"
        env["LSAN_OPTIONS"] = f"suppressions={suppressions}:print_suppressions=0"
        env["UBSAN_OPTIONS"] = "print_stacktrace=1:halt_on_error=1:exitcode=87"
        # The sanitizers check the C/C++ side. The kernels' compiled (numba/LLVM) helpers keep JIT code
        # and caches that LeakSanitizer cannot attribute to a library, so sanitized runs use the NumPy
        # reference paths (same results; generator.kernels._accel).
        env["ACLNN_KERNELS"] = "numpy"
    return Target((toolkit.include,), toolkit.lib64, tuple(env.items()), sanitize, str(toolkit.home))


def compile_command(path: Path, tgt: Target, compiler: str, output: Path | None, std: str = "c++11") -> list[str]:
    """The command that builds ``path`` (``output`` None: syntax and semantics only, no linking)."""
    cmd = [*shlex.split(compiler), f"-std={std}", *WARNINGS]
    if tgt.sanitize:
        cmd += list(hostrt.SANITIZE_FLAGS)
    cmd += [f"-I{d}" for d in tgt.includes]
    if output is None:
        return [*cmd, "-fsyntax-only", str(path)]
    return [*cmd, "-g", str(path), f"-L{tgt.lib64}", *LIBS, f"-Wl,-rpath,{tgt.lib64}", "-o", str(output)]


def _cache() -> Path:
    return hostrt.cache_dir().parent / "samples"


def _run(cmd: list[str], timeout: float, env: dict | None = None) -> tuple[int | None, str, str]:
    try:
        proc = subprocess.run(
            cmd,
            capture_output=True,
            text=True,
            errors="replace",
            timeout=timeout,
            check=False,
            stdin=subprocess.DEVNULL,
            env=env,
        )
    except subprocess.TimeoutExpired:
        return None, "", f"timed out after {timeout:g}s: {shlex.join(cmd)}"
    except OSError as exc:
        return None, "", f"could not run {shlex.join(cmd)}: {exc}"
    return proc.returncode, proc.stdout, proc.stderr


def compile_sample(
    path: Path,
    tgt: Target,
    *,
    std: str = "c++11",
    link: bool = True,
    compiler: str | None = None,
    timeout: float = DEFAULT_TIMEOUT,
) -> CompileResult:
    """Compile one sample (``link=False``: syntax and semantics only). Executables are cached."""
    cxx = compiler if compiler is not None else find_compiler()
    if cxx is None:
        raise CompilerNotFoundError("no C++ compiler found (set CXX or install c++/g++/clang++)")
    path = Path(path)
    if not link:
        code, out, err = _run(compile_command(path, tgt, cxx, None, std), timeout)
        return CompileResult(path, code == 0, (err + out).strip())
    key = hashlib.sha256(
        "\0".join(
            [
                path.read_text(encoding="utf-8", errors="replace"),
                tgt.label,
                std,
                str(tgt.sanitize),
                cxx,
                *map(str, tgt.includes),
            ]
        ).encode("utf-8", "surrogateescape")  # fmt: skip
    ).hexdigest()[:24]
    folder = _cache()
    folder.mkdir(parents=True, exist_ok=True)
    exe = folder / f"{path.stem}-{key}"
    if exe.is_file():
        return CompileResult(path, True, "", exe)
    fd, temp = tempfile.mkstemp(dir=folder, prefix=f".{path.stem}-")
    os.close(fd)
    try:
        code, out, err = _run(compile_command(path, tgt, cxx, Path(temp), std), timeout)
        if code != 0:
            return CompileResult(path, False, (err + out).strip())
        os.replace(temp, exe)
    finally:
        Path(temp).unlink(missing_ok=True)
    return CompileResult(path, True, (err + out).strip(), exe)


def compile_samples(
    paths: Iterable[Path],
    tgt: Target,
    *,
    std: str = "c++11",
    link: bool = True,
    jobs: int = 2,
    compiler: str | None = None,
    timeout: float = DEFAULT_TIMEOUT,
) -> list[CompileResult]:
    """Compile several samples in parallel; results are in the order of ``paths``."""
    items: Sequence[Path] = [Path(p) for p in paths]
    if not items:
        return []
    cxx = compiler if compiler is not None else find_compiler()
    if cxx is None:
        raise CompilerNotFoundError("no C++ compiler found (set CXX or install c++/g++/clang++)")
    with ThreadPoolExecutor(max_workers=max(1, min(jobs, len(items)))) as pool:
        return list(
            pool.map(lambda p: compile_sample(p, tgt, std=std, link=link, compiler=cxx, timeout=timeout), items)
        )


def sample_products(generated_root: Path) -> dict[str, str]:
    """Sample path (relative to ``generated_root``) -> the product it runs on (``samples/index.json``)."""
    index = Path(generated_root) / "samples" / "index.json"
    if not index.is_file():
        return {}
    return {s["path"]: s["run_product"] for s in json.loads(index.read_text(encoding="utf-8"))["samples"]}


def run_executable(exe: Path, tgt: Target, product: str | None, *, timeout: float = DEFAULT_TIMEOUT,
                   **extra_env: str) -> tuple[int | None, str, str]:  # fmt: skip
    """Run a built sample in ``tgt``'s environment; (returncode, stdout, stderr)."""
    with tempfile.TemporaryDirectory(prefix="opgen-sample-") as cwd:
        env = tgt.run_env(product, **extra_env)
        try:
            proc = subprocess.run(
                [str(exe)], capture_output=True, text=True, errors="replace", timeout=timeout, cwd=cwd, env=env,
                stdin=subprocess.DEVNULL, check=False,
            )  # fmt: skip
        except subprocess.TimeoutExpired:
            return None, "", f"timed out after {timeout:g}s"
        return proc.returncode, proc.stdout, proc.stderr


def build_and_run(
    generated_root: Path,
    paths: Iterable[Path] | None = None,
    *,
    sanitize: bool = False,
    jobs: int = 2,
    timeout: float = DEFAULT_TIMEOUT,
) -> list[RunResult]:
    """Compile every sample (default: all of ``samples/index.json``) as C++11 and run it."""
    root = Path(generated_root).resolve()
    products = sample_products(root)
    items = [Path(p) for p in paths] if paths is not None else [root / rel for rel in products]
    tgt = target(root, sanitize=sanitize, jobs=jobs)
    compiled = compile_samples(items, tgt, jobs=jobs, timeout=timeout)

    def run_one(result: CompileResult) -> RunResult:
        rel = result.path.resolve().relative_to(root).as_posix() if result.path.is_absolute() else str(result.path)
        product = products.get(rel)
        if not result.ok or result.executable is None:
            return RunResult(result.path, product or "", result)
        code, out, err = run_executable(result.executable, tgt, product, timeout=timeout)
        return RunResult(result.path, product or "", result, code, out, err)

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        return list(pool.map(run_one, compiled))


def clean_cache() -> None:
    """Remove cached sample executables."""
    shutil.rmtree(_cache(), ignore_errors=True)


def syntax_target(generated_root: Path) -> Target:
    """Headers only (no libraries): the real install's when ASCEND_TOOLKIT_HOME is set, else the host
    runtime's public headers; the generated tree supplies the aclnnop headers."""
    home = os.environ.get("ASCEND_TOOLKIT_HOME", "").strip()
    first = Path(home) / "include" if home else INCLUDE_DIR
    return Target((first, Path(generated_root)), Path(generated_root), (), False, "syntax")


def command(out: Path, *, run: bool = False, jobs: int = 2, sanitize: bool = False, echo=print) -> int:
    """``opgen samples``: compile every sample as C++11, C++14 and C++17 (-Wall -Wextra -Werror);
    with ``run``, also link each against the toolkit and run it. Returns the exit status."""
    from generator.diagnostics import display_path

    root = Path(out)
    samples = sorted((root / "samples").rglob("*.cpp"))
    if not samples:
        echo(f"opgen samples: no samples under {display_path(root / 'samples')}; run 'opgen generate' first")
        return 1
    failed = 0
    syntax = syntax_target(root)
    for std in STANDARDS:
        for result in compile_samples(samples, syntax, std=std, link=False, jobs=jobs):
            if not result.ok:
                failed += 1
                echo(f"FAIL {display_path(result.path)} (-std={std})\n{result.output.rstrip()}")
    echo(f"opgen samples: {len(samples)} sample(s) compiled as {', '.join(STANDARDS)}, {failed} failure(s)")
    if not run:
        return 1 if failed else 0
    try:
        results = build_and_run(root, samples, sanitize=sanitize, jobs=jobs)
    except hostrt.HostRuntimeError as exc:
        echo(f"opgen samples: cannot build the host runtime: {exc}")
        return 1
    for r in results:
        status = "ok  " if r.ok else "FAIL"
        echo(f"{status} {display_path(r.path)} (product {r.product or '?'}, exit {r.returncode})")
        if not r.ok:
            failed += 1
            echo((r.compiled.output if not r.compiled.ok else r.stdout[-4000:] + r.stderr[-4000:]).rstrip())
    ran = sum(r.ok for r in results)
    echo(f"opgen samples: {ran} of {len(results)} sample(s) built and ran with the expected results")
    return 1 if failed else 0
