"""Benchmarks for the generator and the validators (one run, figures printed as a table).

    python -m benchmarks.bench_generate [--copies 1000]

* ``aclnn.validate`` median time per operator on its spec example (descriptors, no data);
* ``opgen generate`` for the repo's specs: full render into an empty folder, and a no-op rerun;
* a synthetic catalogue of N specs (copies of the repo's specs under new names): full render,
  and a no-op rerun.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import re
import shutil
import statistics
import tempfile
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


def _timed_generate(specs: Path, out: Path) -> float:
    from generator.generate import run_generate

    start = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):
        assert run_generate(specs, out) == 0
    return time.perf_counter() - start


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
        text = text.replace(f"header: aclnnop/aclnn_{snake}.h", f"header: aclnnop/aclnn_{new_snake}.h")
        (specs / f"{new_snake}.yaml").write_text(text, encoding="utf-8")
    return specs


def bench_generate(copies: int) -> dict[str, float]:
    out = {}
    with tempfile.TemporaryDirectory(prefix="opgen-bench-") as tmp:
        tmp = Path(tmp)
        fulls = []
        for i in range(3):
            fulls.append(_timed_generate(REPO / "specs", tmp / f"repo{i}"))
        out["repo specs: full render (s)"] = statistics.median(fulls)
        out["repo specs: no-op rerun (s)"] = _timed_generate(REPO / "specs", tmp / "repo0")
        specs = synthetic_specs(tmp, copies)
        out[f"{copies} specs: full render (s)"] = _timed_generate(specs, tmp / "big")
        out[f"{copies} specs: no-op rerun (s)"] = _timed_generate(specs, tmp / "big")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--copies", type=int, default=1000)
    args = parser.parse_args()
    print("aclnn.validate median per call (target < 30 us):")
    for op, us in bench_validate().items():
        print(f"  {op:40s} {us:8.1f} us")
    print("opgen generate (targets: 5 ops < 1 s; 1000 specs < 3 s full, < 0.5 s no-op):")
    for label, seconds in bench_generate(args.copies).items():
        print(f"  {label:40s} {seconds:8.2f} s")


if __name__ == "__main__":
    main()
