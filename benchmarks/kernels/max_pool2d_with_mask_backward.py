"""MaxPool2dWithMaskBackward benchmark: N=16, C=64, 112x112, kernel 3, stride 2, float32, product 910b."""

from __future__ import annotations

import numpy as np

from generator.kernels.max_pool2d_with_mask_backward import (
    encode_mask,
    max_pool2d_with_mask_backward,
)

TITLE = "MaxPool2dWithMaskBackward, (16,64,112,112) float32, kernel 3 stride 2, product 910b (INT32 mask layout)"
_ATTRS = ([3, 3], [2, 2], [0, 0], [1, 1], False)


def setup():
    import torch

    rng = np.random.default_rng(0)
    x = rng.standard_normal((16, 64, 112, 112), dtype=np.float32)
    kernel, stride, padding, dilation, ceil_mode = _ATTRS
    x_t = torch.from_numpy(x)
    _, idx_t = torch.nn.functional.max_pool2d(
        x_t, kernel, stride, padding, dilation, ceil_mode=ceil_mode, return_indices=True
    )
    mask = encode_mask(idx_t.numpy(), x.shape, kernel, stride, padding, ceil_mode, layout="a2_int32")
    grad = rng.standard_normal(tuple(idx_t.shape), dtype=np.float32)
    return {"x": x, "grad": grad, "mask": mask, "x_t": x_t, "grad_t": torch.from_numpy(grad), "idx_t": idx_t}


def run_numpy(state):
    return max_pool2d_with_mask_backward(state["grad"], state["x"], state["mask"], *_ATTRS, product="910b")


def run_torch(state):
    import torch

    kernel, stride, padding, dilation, ceil_mode = _ATTRS
    return torch.ops.aten.max_pool2d_with_indices_backward(
        state["grad_t"], state["x_t"], kernel, stride, padding, dilation, ceil_mode, state["idx_t"]
    )
