"""Measure each reference kernel against PyTorch CPU, case by case: time ratio and peak memory.

Benchmark module contract (``benchmarks/kernels/<snake>.py``, discovered automatically)::

    OP = "EluBackward"
    CASES = [
        dict(size="small" | "realistic" | "large", path="default" or a product-path label ("910 bit-mask"),
             title="...", setup=callable() -> state dict, numpy=callable(state), torch=callable(state)),
        ...
    ]

Every case runs in a fresh child process with one thread for both sides (``torch.set_num_threads(1)``,
``OPENBLAS_NUM_THREADS=1`` and friends, ``NUMBA_NUM_THREADS=1``). After one warm-up call per side
(imports, JIT compilation, caches) the two sides are timed alternately, up to ``repeats`` times or
about one second per side (tiny calls in batches of >= 1 ms); each side's time is its fastest repeat
(the best estimate of its own cost on a shared, noisy machine) and the ratio is numpy/torch of those. Peak memory is
then measured per side in the same child: big allocations are forced to ``mmap`` (so freed memory
goes back to the system), retained free memory is released (``malloc_trim``, and the result blocks
the kernels keep for reuse: ``_accel.release_recycled``), the peak-RSS counter is reset
(``/proc/self/clear_refs``) and the call's peak resident size above the baseline is reported (outputs
included, inputs not).
"""

from __future__ import annotations

import ctypes
import gc
import importlib
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KERNELS = ROOT / "benchmarks" / "kernels"
SIZES = ("small", "realistic", "large")
SINGLE_THREAD = {
    "OMP_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "NUMBA_NUM_THREADS": "1",
}


def discover() -> list[str]:
    """Module names of every benchmark module in ``benchmarks/kernels`` (new ops are picked up)."""
    return [f"benchmarks.kernels.{p.stem}" for p in sorted(KERNELS.glob("*.py")) if not p.stem.startswith("_")]


def check_module(module) -> list[str]:
    """Problems with a benchmark module's contract (empty when it is fine)."""
    problems = []
    if not isinstance(getattr(module, "OP", None), str):
        problems.append("OP is missing or not a string")
    cases = getattr(module, "CASES", None)
    if not isinstance(cases, list) or not cases:
        return [*problems, "CASES is missing or empty"]
    for i, case in enumerate(cases):
        missing = {"size", "path", "title", "setup", "numpy", "torch"} - set(case)
        if missing:
            problems.append(f"case {i}: missing {sorted(missing)}")
        elif case["size"] not in SIZES:
            problems.append(f"case {i}: size {case['size']!r} is not one of {SIZES}")
    by_path: dict = {}
    for case in cases:
        by_path.setdefault(case.get("path"), set()).add(case.get("size"))
    for path, sizes in by_path.items():
        if not set(SIZES) <= sizes:
            problems.append(f"path {path!r}: the cases do not cover the three sizes {SIZES}")
    return problems


def _status_kib(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def _reset_peak() -> int:
    """Reset the peak-RSS counter; return the current RSS in KiB. Freed memory kept for reuse is released
    first (glibc's heap by ``malloc_trim``, the kernels' recycled result blocks by ``release_recycled``), so
    that a call's figure includes the result it allocates, as it would in a process that had not run it yet."""
    gc.collect()
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except OSError:
        pass
    from generator.kernels import _accel

    _accel.release_recycled()
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        pass
    return _status_kib("VmRSS")


def _peak_mib(fn, state) -> float:
    baseline = _reset_peak()
    result = fn(state)
    peak = _status_kib("VmHWM")
    del result
    return max(0, peak - baseline) / 1024


def _child(module_name: str, index: int, repeats: int) -> dict:
    import torch

    torch.set_num_threads(1)
    case = importlib.import_module(module_name).CASES[index]
    state = case["setup"]()
    sides = {"numpy": case["numpy"], "torch": case["torch"]}
    first = {}
    for side, fn in sides.items():  # warm-up: imports, JIT compilation, caches
        start = time.perf_counter()
        fn(state)
        first[side] = time.perf_counter() - start
    second = {}
    for side, fn in sides.items():  # calibration: the first call also paid for imports and compilation
        start = time.perf_counter()
        fn(state)
        second[side] = time.perf_counter() - start
    # Repeat until each side has run ~1 s (at least 5, at most ``repeats`` times; at least 3 for slow
    # cases), batching tiny calls so that one timing covers >= 1 ms.
    per_call = max(max(second.values()), 1e-6)
    batch = max(1, int(1e-3 / per_call))
    repeats = max(3 if per_call > 0.5 else 5, min(repeats, int(1.0 / (per_call * batch))))
    times = {"numpy": [], "torch": []}
    for _ in range(repeats):
        for side, fn in sides.items():
            start = time.perf_counter()
            for _ in range(batch):
                fn(state)
            times[side].append((time.perf_counter() - start) / batch)
    # Memory: big allocations through mmap so that what one call frees is not counted for the next.
    try:
        libc = ctypes.CDLL("libc.so.6")
        libc.mallopt(-3, 64 * 1024)  # M_MMAP_THRESHOLD
        libc.mallopt(-1, 64 * 1024)  # M_TRIM_THRESHOLD
    except OSError:
        pass
    memory = {side: _peak_mib(fn, state) for side, fn in sides.items()}
    # The machine is shared: the fastest repeat is the best estimate of a side's own cost.
    return {
        "numpy_s": min(times["numpy"]),
        "torch_s": min(times["torch"]),
        "ratio": min(times["numpy"]) / min(times["torch"]),
        "median_ratio": statistics.median(a / b for a, b in zip(times["numpy"], times["torch"])),
        "numpy_mib": memory["numpy"],
        "torch_mib": memory["torch"],
        "first_numpy_s": first["numpy"],
        "repeats": repeats,
        "batch": batch,
    }


def measure(module_name: str, index: int, repeats: int = 5) -> dict:
    """Run one case of one benchmark module in a child process; return its figures."""
    module = importlib.import_module(module_name)
    case = module.CASES[index]
    env = {**os.environ, **SINGLE_THREAD}
    proc = subprocess.run(
        [sys.executable, "-m", "benchmarks._harness", module_name, str(index), str(repeats)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
    )
    result = {"op": module.OP, "size": case["size"], "path": case["path"], "title": case["title"]}
    if proc.returncode != 0:
        result["error"] = (proc.stderr.strip().splitlines() or ["child failed"])[-1]
        return result
    result.update(json.loads(proc.stdout.strip().splitlines()[-1]))
    return result


def to_torch(array):
    """NumPy (incl. ml_dtypes bfloat16) -> torch tensor with the same dtype, sharing memory where possible."""
    import numpy as np
    import torch

    if array.dtype.name == "bfloat16":
        return torch.from_numpy(np.ascontiguousarray(array).view(np.int16)).view(torch.bfloat16)
    return torch.from_numpy(np.ascontiguousarray(array))


if __name__ == "__main__":
    print(json.dumps(_child(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))))
