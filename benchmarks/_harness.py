"""Measure a NumPy kernel against PyTorch in one run: median wall time and peak extra memory.

A benchmark module (``benchmarks/kernels/<snake>.py``) defines::

    TITLE = "EluBackward, 16M float32"
    def setup() -> object: ...           # build inputs (not measured)
    def run_numpy(state) -> object: ...  # our reference kernel
    def run_torch(state) -> object: ...  # the PyTorch CPU equivalent

Each side runs in a fresh child process so that peak memory (VmHWM minus the resident size after
``setup``) is not polluted by the other side.
"""

from __future__ import annotations

import importlib
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _status_kib(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def _child(module_name: str, side: str, repeats: int) -> dict:
    module = importlib.import_module(module_name)
    state = module.setup()
    fn = getattr(module, f"run_{side}")
    if side == "torch":
        import torch

        torch.set_num_threads(max(1, torch.get_num_threads()))
    fn(state)  # warm-up (imports, caches)
    try:
        Path("/proc/self/clear_refs").write_text("5")  # reset VmHWM to the current RSS
    except OSError:
        pass
    baseline = _status_kib("VmRSS")
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn(state)
        times.append(time.perf_counter() - start)
    peak = _status_kib("VmHWM")
    return {"median_s": statistics.median(times), "peak_extra_mib": max(0, peak - baseline) / 1024}


def measure(module_name: str, repeats: int = 5) -> dict:
    """Run both sides of one benchmark module; return times, ratio and peak memory."""
    result = {"module": module_name, "title": importlib.import_module(module_name).TITLE}
    for side in ("numpy", "torch"):
        out = subprocess.run(
            [sys.executable, "-m", "benchmarks._harness", module_name, side, str(repeats)],
            cwd=ROOT,
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        result[side] = json.loads(out.strip().splitlines()[-1])
    result["ratio"] = result["numpy"]["median_s"] / result["torch"]["median_s"]
    return result


if __name__ == "__main__":
    print(json.dumps(_child(sys.argv[1], sys.argv[2], int(sys.argv[3]))))
