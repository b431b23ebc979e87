"""SiluBackward benchmark, including 950's mixed-precision path (FLOAT16 gradient, FLOAT input)."""

from __future__ import annotations

from benchmarks.kernels._activation_cases import binary_cases, normal, same, single_thread
from generator.kernels.silu_backward import silu_backward

OP = "SiluBackward"


def _numpy(state):
    return silu_backward(state["a"], state["b"])


def _torch(state):
    torch = single_thread()
    a, b = state["ta"], state["tb"]
    if a.dtype != b.dtype:  # torch's kernel needs one dtype; the op writes FLOAT
        a, b = a.float(), b.float()
    return torch.ops.aten.silu_backward(a, b)


CASES = binary_cases(
    OP,
    lambda shape, dtype, seed: normal(shape, dtype, seed, 3.0),
    _numpy,
    _torch,
    {
        "default": ("float32", "float32", same),
        "float16": ("float16", "float16", same),
        "bfloat16": ("bfloat16", "bfloat16", same),
        "950 mixed precision": ("float16", "float32", same),
    },
)
