"""NLLLossBackward benchmark: (N, C) scores with C = 1000 classes, 10% of the targets ignored."""

from __future__ import annotations

import numpy as np

from benchmarks.kernels._activation_cases import case, dtype_of, normal, single_thread, to_torch
from generator.kernels.nll_loss_backward import nll_loss_backward

OP = "NLLLossBackward"
_SHAPES = {"small": (4, 1000), "realistic": (4096, 1000), "large": (16384, 1000)}
_IGNORE = -100

# label: (dtype, reduction, product)
_PATHS = {
    "default (mean)": ("float32", 1, "910b"),
    "none": ("float32", 0, "910b"),
    "sum": ("float32", 2, "910b"),
    "910/A2/A3 float16 -> float32": ("float16", 1, "910b"),
    "950 float16": ("float16", 1, "950"),
    "bfloat16": ("bfloat16", 1, "910b"),
}


def _setup(shape, dtype, reduction, product):
    rng = np.random.default_rng(0)
    n, c = shape
    x = normal(shape, dtype, 1)
    target = rng.integers(0, c, n)
    target[rng.random(n) < 0.1] = _IGNORE
    weight = rng.uniform(0.5, 2.0, c).astype(np.float32)
    total = np.asarray(weight[target[target != _IGNORE]].sum(), np.float32).astype(dtype_of(dtype))
    weight = weight.astype(dtype_of(dtype))
    g = normal((n,) if reduction == 0 else (), dtype, 2)
    state = {"g": g, "x": x, "t": target, "w": weight, "tw": total, "reduction": reduction, "product": product}
    state.update({f"T{k}": to_torch(np.asarray(state[k])) for k in ("g", "x", "t", "w", "tw")})
    return state


def _numpy(state):
    return nll_loss_backward(
        state["g"],
        state["x"],
        state["t"],
        state["w"],
        state["reduction"],
        _IGNORE,
        state["tw"],
        product=state["product"],
    )


def _torch(state):
    torch = single_thread()
    return torch.ops.aten.nll_loss_backward(
        state["Tg"], state["Tx"], state["Tt"], state["Tw"], state["reduction"], _IGNORE, state["Ttw"]
    )


CASES = [
    case(
        size,
        label,
        f"{OP} {label}, {shape[0]}x{shape[1]}",
        lambda shape=shape, spec=spec: _setup(shape, *spec),
        _numpy,
        _torch,
    )
    for size, shape in _SHAPES.items()
    for label, spec in _PATHS.items()
]
