"""Compile-check generated C++ aclnn call samples without an Ascend device.

Samples are checked with ``<cxx> -std=c++17 -Wall -Wextra -Werror -fsyntax-only``: full syntax and semantic
analysis (overload resolution, template instantiation, type checks), no code generation and no linking, so
the CANN libraries are never needed.

Header search order:

* ``ASCEND_TOOLKIT_HOME`` set: the real CANN headers in ``$ASCEND_TOOLKIT_HOME/include`` first, then the
  generated tree (so ``aclnnop/aclnn_<op>.h`` resolves to the generated header unless the install ships it);
* otherwise: the minimal stand-in headers in :data:`INCLUDE_DIR` (``acl/acl.h``, ``aclnn/aclnn_base.h`` ...),
  then the generated tree.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

INCLUDE_DIR: Path = Path(__file__).resolve().parent / "include"
"""Directory holding the minimal stand-in ACL/aclnn host headers."""

CXX_FLAGS: tuple[str, ...] = ("-std=c++17", "-Wall", "-Wextra", "-Werror", "-fsyntax-only")
"""Flags passed to the compiler for every sample (before the ``-I`` options)."""

DEFAULT_TIMEOUT: float = 120.0
"""Seconds one compiler run may take before it is killed and reported as a failure."""

_CANDIDATES: tuple[str, ...] = ("c++", "g++", "clang++")


def find_compiler() -> str | None:
    """Return the C++ compiler command to use, or ``None`` when there is none.

    ``$CXX`` wins when set and non-empty (it may carry a launcher or arguments, e.g. ``"ccache g++"``);
    otherwise the first of ``c++``, ``g++``, ``clang++`` found on ``PATH``.
    """
    cxx = os.environ.get("CXX", "").strip()
    if cxx:
        return cxx
    for name in _CANDIDATES:
        found = shutil.which(name)
        if found:
            return found
    return None


def include_dirs(generated_root: Path) -> list[Path]:
    """Return the ``-I`` directories for compiling samples, in search order.

    ``generated_root`` is the directory that contains the generated ``aclnnop/`` headers.
    """
    toolkit = os.environ.get("ASCEND_TOOLKIT_HOME", "").strip()
    if toolkit:
        return [Path(toolkit) / "include", Path(generated_root)]
    return [INCLUDE_DIR, Path(generated_root)]


@dataclass
class CompileResult:
    """Outcome of compile-checking one sample."""

    path: Path
    """The sample source file."""
    ok: bool
    """True when the compiler exited with status 0 (no errors, no warnings under ``-Werror``)."""
    output: str
    """Compiler diagnostics (stderr then stdout), or a description of why the compiler could not run."""


class CompilerNotFoundError(RuntimeError):
    """Raised when no C++ compiler is available."""


def compile_command(path: Path, generated_root: Path, compiler: str) -> list[str]:
    """Return the argument vector that compile-checks ``path``."""
    includes = [f"-I{d}" for d in include_dirs(generated_root)]
    return [*shlex.split(compiler), *CXX_FLAGS, *includes, str(path)]


def compile_sample(
    path: Path,
    generated_root: Path,
    *,
    compiler: str | None = None,
    timeout: float = DEFAULT_TIMEOUT,
) -> CompileResult:
    """Compile-check one C++ sample (syntax and semantics, no linking).

    ``compiler`` defaults to :func:`find_compiler`; :class:`CompilerNotFoundError` is raised when there is
    none. A compiler that cannot be started or that exceeds ``timeout`` seconds yields ``ok=False``.
    """
    cxx = compiler if compiler is not None else find_compiler()
    if cxx is None:
        raise CompilerNotFoundError("no C++ compiler found (set CXX or install c++/g++/clang++)")
    cmd = compile_command(Path(path), generated_root, cxx)
    try:
        proc = subprocess.run(
            cmd,
            capture_output=True,
            text=True,
            errors="replace",
            timeout=timeout,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        return CompileResult(Path(path), False, f"timed out after {timeout:g}s: {shlex.join(cmd)}")
    except OSError as exc:
        return CompileResult(Path(path), False, f"could not run {shlex.join(cmd)}: {exc}")
    output = (proc.stderr + proc.stdout).strip()
    return CompileResult(Path(path), proc.returncode == 0, output)


def compile_samples(
    paths: Iterable[Path],
    generated_root: Path,
    *,
    jobs: int = 2,
    compiler: str | None = None,
    timeout: float = DEFAULT_TIMEOUT,
) -> list[CompileResult]:
    """Compile-check several samples in parallel; results are in the order of ``paths``.

    ``jobs`` is the number of compilers run at once (at least 1).
    """
    items: Sequence[Path] = [Path(p) for p in paths]
    if not items:
        return []
    cxx = compiler if compiler is not None else find_compiler()
    if cxx is None:
        raise CompilerNotFoundError("no C++ compiler found (set CXX or install c++/g++/clang++)")
    workers = max(1, min(jobs, len(items)))
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(lambda p: compile_sample(p, generated_root, compiler=cxx, timeout=timeout), items))
