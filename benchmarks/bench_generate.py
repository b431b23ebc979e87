"""Benchmarks for the generator and the validators (one run, figures printed as a table).

    python -m benchmarks.bench_generate [--copies 1000] [--repeat 3] [--skip-validate]

* ``aclnn.validate`` median time per operator on its spec example (descriptors, no data);
* ``opgen generate`` on a synthetic catalogue of N specs (the repo's five specs copied under new
  names, each keeping its kernel), every run a fresh ``opgen`` process, so the figures include Python
  start-up:

  - **cold**: an empty output folder and no cache of any kind (``OPGEN_NO_CACHE=1`` and an empty
    ``OPGEN_CACHE_DIR`` too, for versions that had a parse cache);
  - **one-edit**: one spec changed, then ``opgen generate`` on the rendered folder: its Chinese
    summary (the op's files plus the index and the support matrix) or its description (the op's
    files only);
  - **no-op**: ``opgen generate`` again with nothing changed;
  - **peak memory** of the cold run: the largest resident set of one process (``ru_maxrss``) and
    the sampled sum of the proportional set sizes (PSS) of the process and its workers (shared
    pages counted once).

Medians of ``--repeat`` runs; the machine is shared, so read the per-op figure and ratios rather
than single numbers.
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


def synthetic_specs(folder: Path, copies: int) -> Path:
    """``copies`` specs made from the repo's, renamed (aclnnXxx -> aclnnXxxCopyN, files to match)."""
    specs = folder / "specs"
    shutil.copytree(REPO / "specs" / "catalog", specs / "catalog")
    sources = sorted((REPO / "specs").glob("*.yaml"))
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


def _opgen() -> list[str]:
    script = Path(sys.executable).parent / "opgen"
    return [str(script)] if script.exists() else [sys.executable, "-m", "generator.cli"]


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


def run_opgen(specs: Path, out: Path, env: dict[str, str], *, sample: bool = False) -> tuple[float, int, int]:
    """One ``opgen generate`` process: (seconds, ru_maxrss bytes, sampled peak tree PSS bytes)."""
    cmd = [*_opgen(), "generate", "--specs", str(specs), "--out", str(out)]
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    peak = [0]
    done = threading.Event()

    def sampler():
        while not done.wait(0.02):
            peak[0] = max(peak[0], _tree_pss(proc.pid))

    thread = threading.Thread(target=sampler, daemon=True) if sample else None
    if thread:
        thread.start()
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    done.set()
    if thread:
        thread.join()
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode(errors="replace")
    proc.stderr.close()
    if proc.returncode != 0:
        raise SystemExit(f"opgen generate failed ({proc.returncode}):\n{err}")
    return elapsed, usage.ru_maxrss * 1024, peak[0]


def bench_generate(copies: int, repeat: int) -> dict[str, str]:
    results: dict[str, str] = {}
    with tempfile.TemporaryDirectory(prefix="opgen-bench-") as tmp:
        tmp = Path(tmp)
        specs = synthetic_specs(tmp, copies)
        base = {k: v for k, v in os.environ.items() if not k.startswith("OPGEN_")}
        colds, maxrss, pss = [], [], []
        for i in range(repeat):
            env = {**base, "OPGEN_NO_CACHE": "1", "OPGEN_CACHE_DIR": str(tmp / f"cache-cold{i}")}
            seconds, rss, tree = run_opgen(specs, tmp / f"cold{i}", env, sample=True)
            colds.append(seconds)
            maxrss.append(rss)
            pss.append(tree)
        env = {**base, "OPGEN_CACHE_DIR": str(tmp / "cache")}
        out = tmp / "cold0"
        noops = [run_opgen(specs, out, env)[0] for _ in range(max(repeat, 5))]
        edits, described = [], []
        for i in range(repeat):
            edit_one_spec(specs, i, "summary")
            edits.append(run_opgen(specs, out, env)[0])
            edit_one_spec(specs, i, "description")
            described.append(run_opgen(specs, out, env)[0])
        cold = statistics.median(colds)
        results["cold (s)"] = f"{cold:.2f}   [{', '.join(f'{s:.2f}' for s in colds)}]"
        results["cold per op (ms)"] = f"{cold / copies * 1000:.2f}"
        results["one-edit, summary (s)"] = f"{statistics.median(edits):.3f}   [{', '.join(f'{s:.3f}' for s in edits)}]"
        results["one-edit, description (s)"] = (
            f"{statistics.median(described):.3f}   [{', '.join(f'{s:.3f}' for s in described)}]"
        )
        results["no-op (s)"] = f"{statistics.median(noops):.3f}   [{', '.join(f'{s:.3f}' for s in noops)}]"
        results["cold peak RSS, one process (MiB)"] = f"{max(maxrss) / 2**20:.0f}"
        results["cold peak PSS, all processes (MiB)"] = f"{max(pss) / 2**20:.0f}"
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--copies", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--skip-validate", action="store_true")
    args = parser.parse_args()
    if not args.skip_validate:
        print("aclnn.validate median per call:")
        for op, us in bench_validate().items():
            print(f"  {op:40s} {us:8.1f} us")
    print(
        f"opgen generate, {args.copies} specs (goals: cold < 3 s, one-edit < 0.3 s, no-op < 0.2 s, "
        f"peak memory < 1 GiB):"
    )
    for label, value in bench_generate(args.copies, args.repeat).items():
        print(f"  {label:40s} {value}")


if __name__ == "__main__":
    main()
