"""Every reference kernel against PyTorch CPU (one thread each), every size and product path, one run.

python -m benchmarks.bench_kernels [--repeats 5] [--ops EluBackward,...] [--sizes small,realistic]
                                   [--paths default,...] [--json results.json]

Benchmark modules are discovered in ``benchmarks/kernels/*.py`` (see ``benchmarks/_harness.py`` for
the module contract and how time and memory are measured). Per case the table shows the median time
of each side, the ratio numpy/torch (fastest repeats) and the peak extra memory of each
side. Flags: ``SLOW`` when the ratio is above 1 at a realistic or large size or above 2 at any size,
``MEM`` when the kernel needs more memory than torch (with 1 MiB of slack).
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys

from benchmarks._harness import check_module, discover, measure


def flags(result: dict) -> str:
    if "error" in result:
        return "ERROR " + result["error"][:60]
    out = []
    ratio = result["ratio"]
    if ratio > 2 or (ratio > 1 and result["size"] != "small"):
        out.append("SLOW")
    if result["numpy_mib"] > result["torch_mib"] + 1:
        out.append("MEM")
    return " ".join(out)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=50, help="at most this many timed repeats per side")
    parser.add_argument("--ops", help="comma-separated op names (default: every benchmark module)")
    parser.add_argument("--sizes", help="comma-separated sizes (default: all)")
    parser.add_argument("--paths", help="comma-separated product paths (default: all)")
    parser.add_argument("--json", help="also write the results to this file")
    args = parser.parse_args(argv)
    wanted_ops = set(args.ops.split(",")) if args.ops else None
    wanted_sizes = set(args.sizes.split(",")) if args.sizes else None
    wanted_paths = set(args.paths.split(",")) if args.paths else None
    header = (
        f"{'op':28s} {'path':16s} {'size':9s} {'numpy ms':>9s} {'torch ms':>9s} {'ratio':>6s} "
        f"{'np MiB':>7s} {'th MiB':>7s}  flags / title"
    )
    print(header)
    results, bad = [], 0
    for module_name in discover():
        module = importlib.import_module(module_name)
        problems = check_module(module)
        if problems:
            print(f"{module_name}: {'; '.join(problems)}")
            bad += 1
            continue
        if wanted_ops and module.OP not in wanted_ops:
            continue
        for index, case in enumerate(module.CASES):
            if (wanted_sizes and case["size"] not in wanted_sizes) or (
                wanted_paths and case["path"] not in wanted_paths
            ):
                continue
            r = measure(module_name, index, args.repeats)
            results.append(r)
            if "error" in r:
                print(f"{r['op'][:28]:28s} {r['path'][:16]:16s} {r['size']:9s} {flags(r)}")
                bad += 1
                continue
            print(
                f"{r['op'][:28]:28s} {r['path'][:16]:16s} {r['size']:9s} {r['numpy_s'] * 1e3:9.2f} "
                f"{r['torch_s'] * 1e3:9.2f} {r['ratio']:6.2f} {r['numpy_mib']:7.1f} {r['torch_mib']:7.1f}  "
                f"{flags(r) or '-'}  {r['title']}",
                flush=True,
            )
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(results, f, indent=1)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
