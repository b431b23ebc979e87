"""Benchmarks for the generator and the validators (one run, figures printed as a table).

    python -m benchmarks.bench_generate [--copies 1000] [--repeat 3] [--skip-validate] [--compare REV ...]

* ``aclnn.validate`` median time per operator on its spec example (descriptors, no data);
* ``opgen generate`` on a synthetic catalogue of N specs (the repo's five specs copied under new
  names, each keeping its kernel), every run a fresh ``opgen`` process, so the figures include Python
  start-up:

  - **cold**: an empty output folder and no cache of any kind (``OPGEN_NO_CACHE=1`` and an empty
    ``OPGEN_CACHE_DIR`` too, for versions that had a parse cache; compiled templates removed);
    Python's own bytecode of the generator is present, as after ``pip install`` (each variant's
    tree is byte-compiled once; ``PYTHONDONTWRITEBYTECODE`` is cleared for the runs, otherwise
    every process would compile the generator's modules again);
  - **one-edit**: one spec changed, then ``opgen generate`` on the rendered folder: its Chinese
    summary (the op's files plus the index and the support matrix) or its description (the op's
    files only);
  - **no-op**: ``opgen generate`` again with nothing changed;
  - the same one-edit and no-op runs **through a daemon** (``opgen daemon start`` first, with a private
    socket folder; the ``opgen generate`` process hands its run to it), for variants that have one;
  - **peak memory** of the cold run: the largest resident set of one process (``ru_maxrss``) and
    the sampled sum of the proportional set sizes (PSS) of the process and its workers (shared
    pages counted once).

Medians of ``--repeat`` runs; the machine is shared, so read the CPU figures and the ratios rather
than single wall times. ``--compare REV`` (repeatable) runs the generator of git revision REV too, on
copies of that revision's own specs, interleaved with this tree's, for before/after figures measured
under the same load.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import timeit
from pathlib import Path
from subprocess import PIPE

REPO = Path(__file__).resolve().parent.parent


def bench_validate() -> dict[str, float]:
    import aclnn
    from generator.loader import load_project
    from generator.runtime.examples import arguments

    results = {}
    for info in load_project(REPO / "specs").ops:
        spec = info.spec
        args = arguments(spec, spec.example, with_data=False)
        product = spec.example.product

        def call(spec=spec, args=args, product=product):
            aclnn.validate(spec.op, product=product, **args)

        call()
        runs = timeit.repeat(call, number=200, repeat=7)
        results[spec.op] = statistics.median(runs) / 200 * 1e6
    return results


def synthetic_specs(folder: Path, copies: int, source: Path = REPO / "specs") -> Path:
    """``copies`` specs made from the ones in ``source`` (the repo's by default), renamed (aclnnXxx ->
    aclnnXxxCopyN, files and headers to match)."""
    specs = folder / "specs"
    shutil.copytree(source / "catalog", specs / "catalog")
    sources = sorted(source.glob("*.yaml"))
    for i in range(copies):
        src = sources[i % len(sources)]
        text = src.read_text(encoding="utf-8")
        name = re.search(r"^name: aclnn(\w+)$", text, re.M).group(1)
        snake = re.search(r"^snake: (\w+)$", text, re.M).group(1)
        new_name, new_snake = f"{name}Copy{i:04d}", f"{snake}_copy{i:04d}"
        text = text.replace(f"name: aclnn{name}\n", f"name: aclnn{new_name}\n")
        text = text.replace(f"snake: {snake}\n", f"snake: {new_snake}\n")
        text = re.sub(r"^header: aclnnop/aclnn_(\w+)\.h$", rf"header: aclnnop/aclnn_\1_copy{i:04d}.h", text, flags=re.M)
        (specs / f"{new_snake}.yaml").write_text(text, encoding="utf-8")
    return specs


def edit_one_spec(specs: Path, round_: int, field: str = "summary") -> Path:
    """Change one spec's Chinese ``summary`` (shown in the index and the matrix too) or
    ``description`` (the op's own files only), a different spec each round; return its path."""
    files = sorted(p for p in specs.glob("*.yaml"))
    path = files[(round_ * 337 + (field == "description") * 101) % len(files)]
    text = path.read_text(encoding="utf-8")
    # the first line of the text (the line after the key when the text is a block scalar)
    pattern = rf"^({field}:\n  zh: (?:[>|]-?\n +)?.*)$"
    new = re.sub(pattern, rf"\1（修改{round_}）", text, count=1, flags=re.M)
    assert new != text, path
    path.write_text(new, encoding="utf-8")
    return path


class Variant:
    """How to run one ``opgen``: this checkout, or the generator of another revision."""

    def __init__(self, label: str, cmd: list[str], cwd: Path, env: dict[str, str] | None = None):
        self.label, self.cmd, self.cwd, self.env = label, cmd, cwd, env or {}
        self.specs = cwd / "specs"  # the specs the synthetic catalogue is made from (the variant's own)

    @classmethod
    def current(cls, folder: Path) -> Variant:
        """A copy of this tree's generator, templates and specs (editing the tree during a run changes nothing)."""
        for name in ("generator", "templates", "specs"):
            shutil.copytree(REPO / name, folder / name, ignore=shutil.ignore_patterns("__pycache__"))
        return cls("this tree", [sys.executable, "-m", "generator.cli"], cwd=folder, env={"PYTHONPATH": str(folder)})

    def install(self) -> None:
        """Byte-compile the variant's generator, as installing a package does."""
        import compileall

        compileall.compile_dir(str(self.cwd / "generator"), quiet=1)

    def clear_template_cache(self) -> None:
        """Remove compiled templates (kept in ``templates/__pycache__`` by newer generators)."""
        shutil.rmtree(self.cwd / "templates" / "__pycache__", ignore_errors=True)

    @classmethod
    def revision(cls, rev: str, folder: Path) -> Variant:
        """The generator, templates and specs of git revision ``rev``, exported into ``folder`` (an older
        generator renders its own revision's specs: the model and the specs change together)."""
        import io
        import tarfile

        archive = subprocess.run(
            ["git", "-C", str(REPO), "archive", "--format=tar", rev, "generator", "templates", "specs"],
            capture_output=True,
            check=True,
        ).stdout
        folder.mkdir(parents=True)
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(folder, filter="data")
        return cls(rev, [sys.executable, "-m", "generator.cli"], cwd=folder, env={"PYTHONPATH": str(folder)})


def _tree_pss(pid: int) -> int:
    """Sum of the PSS (bytes) of ``pid`` and its descendants."""
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        with contextlib.suppress(OSError):
            with open(f"/proc/{p}/smaps_rollup") as handle:
                for line in handle:
                    if line.startswith("Pss:"):
                        total += int(line.split()[1]) * 1024
                        break
        with contextlib.suppress(OSError):
            for task in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{task}/children") as handle:
                    todo += [int(c) for c in handle.read().split()]
    return total


def run_opgen(
    variant: Variant, specs: Path, out: Path, env: dict[str, str], *, sample: bool = False
) -> tuple[float, float, int, int]:
    """One ``opgen generate`` process: (wall seconds, CPU seconds of it and its workers,
    ru_maxrss bytes, sampled peak PSS bytes of it and its workers)."""
    cmd = [*variant.cmd, "generate", "--specs", str(specs), "--out", str(out)]
    start = time.perf_counter()
    proc = subprocess.Popen(
        cmd, env={**env, **variant.env}, cwd=variant.cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    peak = [0]
    done = threading.Event()

    def sampler():
        while not done.wait(0.02):
            peak[0] = max(peak[0], _tree_pss(proc.pid))

    thread = threading.Thread(target=sampler, daemon=True) if sample else None
    if thread:
        thread.start()
    err = proc.stderr.read().decode(errors="replace")
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    done.set()
    if thread:
        thread.join()
    proc.returncode = os.waitstatus_to_exitcode(status)
    proc.stderr.close()
    if proc.returncode != 0:
        raise SystemExit(f"{variant.label}: opgen generate failed ({proc.returncode}):\n{err}")
    return elapsed, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024, peak[0]


def _fmt(values: list[float], digits: int) -> str:
    return f"{statistics.median(values):.{digits}f}   [{', '.join(f'{v:.{digits}f}' for v in values)}]"


def bench_generate(copies: int, repeat: int, variants: list[Variant]) -> dict[str, dict[str, str]]:
    """Per variant: cold, one-edit and no-op figures for ``copies`` specs (runs interleaved)."""
    with tempfile.TemporaryDirectory(prefix="opgen-bench-") as tmp:
        tmp = Path(tmp)
        base = {k: v for k, v in os.environ.items() if not k.startswith("OPGEN_") and k != "PYTHONDONTWRITEBYTECODE"}
        for variant in variants:
            variant.install()
        specs = {v.label: synthetic_specs(tmp / f"v{i}", copies, v.specs) for i, v in enumerate(variants)}
        figures: dict[str, dict[str, list]] = {v.label: {} for v in variants}

        def add(variant, name, value):
            figures[variant.label].setdefault(name, []).append(value)

        for i in range(repeat):
            for n, variant in enumerate(variants):
                env = {**base, "OPGEN_NO_CACHE": "1", "OPGEN_CACHE_DIR": str(tmp / f"cache-cold{n}-{i}")}
                variant.clear_template_cache()
                wall, cpu, rss, pss = run_opgen(variant, specs[variant.label], tmp / f"cold{n}-{i}", env, sample=True)
                add(variant, "cold", wall)
                add(variant, "cold cpu", cpu)
                add(variant, "rss", rss)
                add(variant, "pss", pss)
        for n, variant in enumerate(variants):
            env = {**base, "OPGEN_CACHE_DIR": str(tmp / f"cache{n}")}
            out, folder = tmp / f"cold{n}-0", specs[variant.label]
            run_opgen(variant, folder, out, env)  # settle: warm caches, refresh recent stamps
            for _ in range(max(repeat, 5)):
                add(variant, "no-op", run_opgen(variant, folder, out, env)[0])
            for i in range(repeat):
                edit_one_spec(folder, i, "summary")
                add(variant, "summary", run_opgen(variant, folder, out, env)[0])
                edit_one_spec(folder, i, "description")
                add(variant, "description", run_opgen(variant, folder, out, env)[0])
            if not (variant.cwd / "generator" / "daemon.py").exists():
                continue
            sockets = tmp / f"sockets{n}"
            sockets.mkdir(mode=0o700)
            denv = {**env, "OPGEN_DAEMON_DIR": str(sockets)}
            daemon = [*variant.cmd, "daemon"]
            subprocess.run([*daemon, "start"], env={**denv, **variant.env}, cwd=variant.cwd, check=True, stdout=PIPE)
            try:
                run_opgen(variant, folder, out, denv)  # settle
                for _ in range(max(repeat, 5)):
                    add(variant, "daemon no-op", run_opgen(variant, folder, out, denv)[0])
                for i in range(repeat, 2 * repeat):
                    edit_one_spec(folder, i, "summary")
                    add(variant, "daemon summary", run_opgen(variant, folder, out, denv)[0])
                    edit_one_spec(folder, i, "description")
                    add(variant, "daemon description", run_opgen(variant, folder, out, denv)[0])
            finally:
                subprocess.run([*daemon, "stop"], env={**denv, **variant.env}, cwd=variant.cwd, stdout=PIPE)
        results = {}
        for variant in variants:
            f = figures[variant.label]
            results[variant.label] = {
                "cold (s)": _fmt(f["cold"], 2),
                "cold CPU, all processes (s)": _fmt(f["cold cpu"], 2),
                "cold CPU per op (ms)": f"{statistics.median(f['cold cpu']) / copies * 1000:.1f}",
                "one-edit, summary (s)": _fmt(f["summary"], 3),
                "one-edit, description (s)": _fmt(f["description"], 3),
                "no-op (s)": _fmt(f["no-op"], 3),
                **{
                    f"through the daemon: {name} (s)": _fmt(f[f"daemon {key}"], 3)
                    for name, key in (
                        ("one-edit, summary", "summary"),
                        ("one-edit, description", "description"),
                        ("no-op", "no-op"),
                    )
                    if f"daemon {key}" in f
                },
                "cold peak RSS, one process (MiB)": f"{max(f['rss']) / 2**20:.0f}",
                "cold peak PSS, all processes (MiB)": f"{max(f['pss']) / 2**20:.0f}",
            }
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--copies", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--skip-validate", action="store_true")
    parser.add_argument(
        "--compare",
        metavar="REV",
        action="append",
        default=[],
        help="also run the generator of git revision REV on its own specs, interleaved (before/after); repeatable",
    )
    args = parser.parse_args()
    if not args.skip_validate:
        print("aclnn.validate median per call:")
        for op, us in bench_validate().items():
            print(f"  {op:40s} {us:8.1f} us")
    with tempfile.TemporaryDirectory(prefix="opgen-bench-rev-") as tmp:
        variants = [Variant.revision(rev, Path(tmp) / f"rev{i}") for i, rev in enumerate(args.compare)]
        variants.append(Variant.current(Path(tmp) / "current"))
        results = bench_generate(args.copies, args.repeat, variants)
    print(
        f"opgen generate, {args.copies} specs, median of {args.repeat} (goals: cold < 3 s, one-edit < 0.3 s, "
        "no-op < 0.2 s, peak memory < 1 GiB):"
    )
    labels = list(results)
    rows = list(dict.fromkeys(row for label in reversed(labels) for row in results[label]))  # this tree's first
    width = max(len(label) for label in labels) + 2
    print(f"  {'':50s}" + "".join(f"{label:>{width}s}" for label in labels))
    for row in rows:
        cells = (results[label].get(row, "-").split()[0] for label in labels)
        print(f"  {row:50s}" + "".join(f"{cell:>{width}s}" for cell in cells))
    print("  runs:")
    for label in labels:
        for row in results[label]:
            print(f"    {label}: {row}: {results[label][row]}")


if __name__ == "__main__":
    main()
