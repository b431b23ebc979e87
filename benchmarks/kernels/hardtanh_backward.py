"""HardtanhBackward benchmark (min -1, max 1)."""

from __future__ import annotations

from benchmarks.kernels._activation_cases import binary_cases, normal, same, single_thread
from generator.kernels.hardtanh_backward import hardtanh_backward

OP = "HardtanhBackward"


def _numpy(state):
    return hardtanh_backward(state["a"], state["b"], -1.0, 1.0)


def _torch(state):
    torch = single_thread()
    return torch.ops.aten.hardtanh_backward(state["ta"], state["tb"], -1.0, 1.0)


CASES = binary_cases(
    OP,
    lambda shape, dtype, seed: normal(shape, dtype, seed, 1.5),
    _numpy,
    _torch,
    {
        "default": ("float32", "float32", same),
        "float16": ("float16", "float16", same),
        "bfloat16": ("bfloat16", "bfloat16", same),
    },
)
