"""Time ``opgen import-doc`` on the 20 current corpus docs: ``python -m benchmarks.bench_import``.

Runs the whole import (read, map, self-check against the spec's own validator, write the YAML) in
one process, ``--repeat`` times after one warm-up, and prints each run and the median. The figure
the README quotes (budget: under 2 s) is this median on the shared 2-core machine.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.import_agreement import REPO, shared_dir


def run_once(docs: list[Path], out: Path) -> float:
    from generator.docimport import Context, import_doc, write_spec
    from generator.loader import load_catalog

    start = time.perf_counter()
    ctx = Context(load_catalog(REPO / "specs"))
    for doc in docs:
        for spec in import_doc(doc, ctx).specs:
            write_spec(spec, out)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    docs = sorted((shared_dir() / "corpus" / "aclnn-docs").glob("aclnn*.md"))
    if not docs:
        print("no corpus docs found", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        run_once(docs, Path(tmp))  # warm-up: imports, template compilation
        times = [run_once(docs, Path(tmp)) for _ in range(args.repeat)]
    for i, t in enumerate(times, 1):
        print(f"run {i}: {len(docs)} docs in {t:.2f} s")
    print(f"median: {statistics.median(times):.2f} s for {len(docs)} docs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
