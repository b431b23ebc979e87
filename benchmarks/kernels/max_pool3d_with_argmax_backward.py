"""MaxPool3dWithArgmaxBackward benchmark: N=4, C=32, D=16, H=W=56, kernel 3, stride 2, float32."""

from __future__ import annotations

import numpy as np

from generator.kernels.max_pool3d_with_argmax_backward import (
    max_pool3d_with_argmax_backward,
)

TITLE = "MaxPool3dWithArgmaxBackward, (4,32,16,56,56) float32, kernel 3 stride 2 (indices from torch)"
_ATTRS = ([3, 3, 3], [2, 2, 2], [0, 0, 0], [1, 1, 1], False)


def setup():
    import torch

    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 32, 16, 56, 56), dtype=np.float32)
    kernel, stride, padding, dilation, ceil_mode = _ATTRS
    x_t = torch.from_numpy(x)
    _, idx_t = torch.nn.functional.max_pool3d(
        x_t, kernel, stride, padding, dilation, ceil_mode=ceil_mode, return_indices=True
    )
    grad = rng.standard_normal(tuple(idx_t.shape), dtype=np.float32)
    return {
        "x": x,
        "grad": grad,
        "indices": idx_t.numpy().astype(np.int32),  # the device type (A2/A3: INT32 only)
        "x_t": x_t,
        "grad_t": torch.from_numpy(grad),
        "idx_t": idx_t,
    }


def run_numpy(state):
    return max_pool3d_with_argmax_backward(state["grad"], state["x"], state["indices"], *_ATTRS)


def run_torch(state):
    import torch

    kernel, stride, padding, dilation, ceil_mode = _ATTRS
    return torch.ops.aten.max_pool3d_with_indices_backward(
        state["grad_t"], state["x_t"], kernel, stride, padding, dilation, ceil_mode, state["idx_t"]
    )
