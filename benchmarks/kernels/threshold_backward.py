"""ThresholdBackward benchmark: the ReluGrad path (threshold 0) and the ThresholdGradV2D path."""

from __future__ import annotations

import numpy as np

from benchmarks.kernels._activation_cases import SHAPES, case, normal, single_thread, to_torch
from generator.kernels.threshold_backward import threshold_backward

OP = "ThresholdBackward"

_PATHS = {
    "default (relu, threshold 0)": ("float32", 0.0),
    "threshold 0.5": ("float32", 0.5),
    "float16": ("float16", 0.5),
    "bfloat16": ("bfloat16", 0.5),
    "int32": ("int32", 1.0),
}


def _setup(shape, dtype, threshold):
    if dtype == "int32":
        rng = np.random.default_rng(1)
        a = rng.integers(-100, 100, shape, dtype=np.int32)
        b = rng.integers(-3, 4, shape, dtype=np.int32)
    else:
        a, b = normal(shape, dtype, 1), normal(shape, dtype, 2)
    return {"a": a, "b": b, "ta": to_torch(a), "tb": to_torch(b), "threshold": threshold}


def _numpy(state):
    return threshold_backward(state["a"], state["b"], state["threshold"])


def _torch(state):
    torch = single_thread()
    return torch.ops.aten.threshold_backward(state["ta"], state["tb"], state["threshold"])


CASES = [
    case(
        size,
        label,
        f"{OP} {label}, {'x'.join(map(str, shape))}",
        lambda shape=shape, dtype=dtype, threshold=threshold: _setup(shape, dtype, threshold),
        _numpy,
        _torch,
    )
    for size, shape in SHAPES.items()
    for label, (dtype, threshold) in _PATHS.items()
]
