"""EluBackward benchmark: 16M float32 elements, isResult = false (the exp branch, as in every ATK case)."""

from __future__ import annotations

import numpy as np

from generator.kernels.elu_backward import elu_backward

TITLE = "EluBackward, 16M float32 (isResult=false, alpha=1.0, scale=1.0507, inputScale=1.0)"
_ARGS = (1.0, 1.0507, 1.0, False)


def setup():
    rng = np.random.default_rng(0)
    n = 16 << 20
    grad = rng.standard_normal(n, dtype=np.float32)
    x = rng.standard_normal(n, dtype=np.float32)
    import torch

    return {"grad": grad, "x": x, "grad_t": torch.from_numpy(grad), "x_t": torch.from_numpy(x)}


def run_numpy(state):
    alpha, scale, input_scale, is_result = _ARGS
    return elu_backward(state["grad"], alpha, scale, input_scale, is_result, state["x"])


def run_torch(state):
    import torch

    alpha, scale, input_scale, is_result = _ARGS
    return torch.ops.aten.elu_backward(state["grad_t"], alpha, scale, input_scale, is_result, state["x_t"])
