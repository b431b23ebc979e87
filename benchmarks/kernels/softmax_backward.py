"""SoftmaxBackward benchmark: softmax over the last axis (rows of 1024) and over the first axis."""

from __future__ import annotations

import numpy as np

from benchmarks.kernels._activation_cases import SHAPES, case, dtype_of, normal, single_thread, to_torch
from generator.kernels.softmax_backward import softmax_backward

OP = "SoftmaxBackward"

_PATHS = {"default": ("float32", -1), "dim 0": ("float32", 0), "float16": ("float16", -1), "bfloat16": ("bfloat16", -1)}


def _setup(shape, dtype, dim):
    logits = normal(shape, np.float32, 1)
    logits -= logits.max(axis=dim, keepdims=True)
    y = np.exp(logits)
    y /= y.sum(axis=dim, keepdims=True)
    y = y.astype(dtype_of(dtype))
    g = normal(shape, dtype, 2)
    return {"a": g, "b": y, "ta": to_torch(g), "tb": to_torch(y), "dim": dim}


def _numpy(state):
    return softmax_backward(state["a"], state["b"], state["dim"])


def _torch(state):
    torch = single_thread()
    return torch.ops.aten._softmax_backward_data(state["ta"], state["tb"], state["dim"], state["ta"].dtype)


CASES = [
    case(
        size,
        label,
        f"{OP} {label}, {'x'.join(map(str, shape))}",
        lambda shape=shape, dtype=dtype, dim=dim: _setup(shape, dtype, dim),
        _numpy,
        _torch,
    )
    for size, shape in SHAPES.items()
    for label, (dtype, dim) in _PATHS.items()
]
