"""LeakyReluBackward benchmark (negative slope 0.01), including the AI CPU DOUBLE path."""

from __future__ import annotations

from benchmarks.kernels._activation_cases import binary_cases, normal, same, single_thread
from generator.kernels.leaky_relu_backward import leaky_relu_backward

OP = "LeakyReluBackward"


def _numpy(state):
    return leaky_relu_backward(state["a"], state["b"], 0.01, False)


def _torch(state):
    torch = single_thread()
    return torch.ops.aten.leaky_relu_backward(state["ta"], state["tb"], 0.01, False)


CASES = binary_cases(
    OP,
    normal,
    _numpy,
    _torch,
    {
        "default": ("float32", "float32", same),
        "float16": ("float16", "float16", same),
        "bfloat16": ("bfloat16", "bfloat16", same),
        "float64 (AI CPU)": ("float64", "float64", same),
    },
)
