"""SigmoidBackward benchmark: AI Core dtypes and the AI CPU ones (DOUBLE, COMPLEX64)."""

from __future__ import annotations

import numpy as np

from benchmarks.kernels._activation_cases import binary_cases, dtype_of, normal, same, single_thread
from generator.kernels.sigmoid_backward import sigmoid_backward

OP = "SigmoidBackward"


def _make(shape, dtype, seed):
    if dtype == "complex64":
        return (normal(shape, np.float32, seed) + 1j * normal(shape, np.float32, seed + 7)).astype(np.complex64)
    y = 1 / (1 + np.exp(-normal(shape, np.float32, seed)))
    return y.astype(dtype_of(dtype))


def _numpy(state):
    return sigmoid_backward(state["a"], state["b"])


def _torch(state):
    torch = single_thread()
    return torch.ops.aten.sigmoid_backward(state["ta"], state["tb"])


CASES = binary_cases(
    OP,
    _make,
    _numpy,
    _torch,
    {
        "default": ("float32", "float32", same),
        "float16": ("float16", "float16", same),
        "bfloat16": ("bfloat16", "bfloat16", same),
        "float64 (AI CPU)": ("float64", "float64", same),
        "complex64 (AI CPU)": ("complex64", "complex64", same),
    },
)
