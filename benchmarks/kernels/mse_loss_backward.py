"""MseLossBackward benchmark: 'mean' with a one-element gradient, 'none', and a broadcast target."""

from __future__ import annotations

from benchmarks.kernels._activation_cases import SHAPES, case, normal, single_thread, to_torch
from generator.kernels.mse_loss_backward import mse_loss_backward

OP = "MseLossBackward"

# label: (dtype, reduction, grad shape(shape), target shape(shape))
_PATHS = {
    "default (mean)": ("float32", 1, lambda s: (), lambda s: s),
    "none": ("float32", 0, lambda s: s, lambda s: s),
    "broadcast target (sum)": ("float32", 2, lambda s: (), lambda s: s[-1:]),
    "float16 (mean)": ("float16", 1, lambda s: (), lambda s: s),
    "bfloat16 (mean)": ("bfloat16", 1, lambda s: (), lambda s: s),
}


def _setup(shape, dtype, reduction, grad_shape, target_shape):
    g = normal(grad_shape(shape), dtype, 1)
    x = normal(shape, dtype, 2)
    y = normal(target_shape(shape), dtype, 3)
    return {"g": g, "x": x, "y": y, "tg": to_torch(g), "tx": to_torch(x), "ty": to_torch(y), "reduction": reduction}


def _numpy(state):
    return mse_loss_backward(state["g"], state["x"], state["y"], state["reduction"])


def _torch(state):
    torch = single_thread()
    return torch.ops.aten.mse_loss_backward(state["tg"], state["tx"], state["ty"], state["reduction"])


CASES = [
    case(
        size,
        label,
        f"{OP} {label}, {'x'.join(map(str, shape))}",
        lambda shape=shape, spec=spec: _setup(shape, *spec),
        _numpy,
        _torch,
    )
    for size, shape in SHAPES.items()
    for label, spec in _PATHS.items()
]
