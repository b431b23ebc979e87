"""Validator speed: microseconds per ``validate`` call, for every operator of ``specs/``.

    python -m benchmarks.bench_validators [--number 1000] [--repeat 15] [--wall] [--against REF] [--json]

Per operator (every spec is picked up), on the spec's example product:

* ``arrays``: the op module's ``validate`` on the example as NumPy arrays (what a user passes;
  formats inferred from the rank);
* ``descs``: the same with ``aclnn.TensorDesc`` descriptors (no data);
* ``generic``: ``aclnn.validate("<Op>", **kwargs)`` with descriptors (name lookup and keyword mapping
  included);
* ``failing``: the op module's ``validate`` on the trigger case of the last enforced check (the longest
  path to a failure: every earlier check passes), which raises AclnnError.

Each figure is the median over ``--repeat`` runs of ``--number`` calls, in CPU time of this process
(``--wall``: wall-clock time), so that other work on a shared machine inflates it less.

``--against REF`` also loads each op module as generated at git revision ``REF`` (say ``main``) and
times it side by side with the current one, interleaved run by run (both use the current runtime,
so the comparison isolates the generated code).
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import statistics
import subprocess
import sys
import tempfile
import time
import timeit
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


class Timer:
    def __init__(self, number: int, repeat: int, wall: bool):
        self.number, self.repeat = number, repeat
        self.clock = time.perf_counter if wall else time.process_time

    def us(self, *calls) -> list[float]:
        """Median microseconds per call of each callable, measured run by run in turn (interleaved)."""
        for call in calls:
            call()  # warm-up (imports, caches)
        runs: list[list[float]] = [[] for _ in calls]
        for _ in range(self.repeat):
            for i, call in enumerate(calls):
                runs[i].append(timeit.timeit(call, number=self.number, timer=self.clock))
        return [statistics.median(r) / self.number * 1e6 for r in runs]


def _positional(spec, module, kwargs: dict) -> list:
    """The op module's positional arguments (C-signature order); outputs left out are inferred."""
    return [kwargs.get(p.name, module.MISSING if p.role == "output" else None) for p in spec.params]


def _failing_check(spec):
    """The last enforced check that has a trigger case of its own (not shadowed), or None."""
    for check in reversed(spec.checks):
        if check.enforced and check.cases is not None and check.cases.shadowed_by is None:
            return check
    return None


def _raising(module, args: list, product: str, what: str):
    import aclnn

    def call():
        try:
            module.validate(*args, product=product)
        except aclnn.AclnnError:
            return
        raise AssertionError(f"{what} passed")

    return call


def _old_module(ref: str, snake: str, folder: Path):
    """The op module as generated at git revision ``ref`` (None when it did not exist there)."""
    rel = f"generated/aclnn/ops/{snake}.py"
    proc = subprocess.run(["git", "show", f"{ref}:{rel}"], cwd=REPO, capture_output=True, text=True)
    if proc.returncode != 0:
        return None
    path = folder / f"old_{snake}.py"
    path.write_text(proc.stdout, encoding="utf-8")
    loader_spec = importlib.util.spec_from_file_location(f"_bench_old_{snake}", path)
    module = importlib.util.module_from_spec(loader_spec)
    loader_spec.loader.exec_module(module)
    return module


def bench_op(spec, timer: Timer, old=None) -> dict:
    import aclnn
    from generator.runtime.examples import arguments

    module = importlib.import_module(f"aclnn.ops.{spec.snake}")
    product = spec.example.product
    arrays = _positional(spec, module, arguments(spec, spec.example))
    descs_kw = arguments(spec, spec.example, with_data=False)
    descs = _positional(spec, module, descs_kw)
    check = _failing_check(spec)
    cases = {
        "arrays": lambda m: lambda: m.validate(*arrays, product=product),
        "descs": lambda m: lambda: m.validate(*descs, product=product),
    }
    if check is not None:
        failing = _positional(spec, module, arguments(spec, spec.example, check.cases.trigger, with_data=False))
        fail_product = check.cases.product or product
        cases["failing"] = lambda m: _raising(m, failing, fail_product, f"{spec.op}: the trigger of '{check.id}'")
    row: dict = {"op": spec.op}
    for label, make in cases.items():
        if old is not None:
            row[f"{label}_before"], row[label] = timer.us(make(old), make(module))
        else:
            (row[label],) = timer.us(make(module))
    (row["generic"],) = timer.us(lambda: aclnn.validate(spec.op, product=product, **descs_kw))
    if check is not None:
        row["failing_check"] = check.id
    return row


def bench(timer: Timer, against: str | None = None) -> list[dict]:
    from generator.loader import load_project

    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-validators-") as tmp:
        for info in load_project(REPO / "specs").ops:
            old = _old_module(against, info.spec.snake, Path(tmp)) if against else None
            rows.append(bench_op(info.spec, timer, old))
    return rows


def _cell(row: dict, key: str) -> str:
    if key not in row:
        return f"{'-':>15}"
    if f"{key}_before" in row:
        return f"{row[f'{key}_before']:6.2f} -> {row[key]:5.2f}"
    return f"{row[key]:15.2f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--number", type=int, default=1000, help="calls per run")
    parser.add_argument("--repeat", type=int, default=15, help="runs (the median is reported)")
    parser.add_argument("--wall", action="store_true", help="wall-clock time instead of CPU time")
    parser.add_argument("--against", metavar="REF", help="also time the op modules generated at git revision REF")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args(argv)
    rows = bench(Timer(args.number, args.repeat, args.wall), args.against)
    if args.json:
        print(json.dumps(rows, indent=1))
        return 0
    clock = "wall-clock" if args.wall else "CPU"
    print(f"validate(): median {clock} microseconds per call" + (f" ({args.against} -> now)" if args.against else ""))
    print(f"{'op':34} {'arrays':>15} {'descs':>15} {'generic':>15} {'failing':>15}  failing check")
    for r in rows:
        cells = " ".join(_cell(r, k) for k in ("arrays", "descs", "generic", "failing"))
        print(f"{r['op']:34} {cells}  {r.get('failing_check', '')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
