"""MaxPool2dWithIndicesBackward benchmark: ResNet stem max pool (kernel 3, stride 2, padding 1), float32, int32 indices."""

from __future__ import annotations

import numpy as np

from generator.kernels.max_pool2d_with_indices_backward import max_pool2d_with_indices_backward

OP = "MaxPool2dWithIndicesBackward"
_SIZES = {"small": (2, 64, 56, 56), "realistic": (32, 64, 112, 112), "large": (32, 64, 224, 224)}
_ATTRS = ([3, 3], [2, 2], [1, 1], [1, 1], False)


def _setup(shape):
    def setup():
        import torch

        rng = np.random.default_rng(0)
        x = rng.standard_normal(shape, dtype=np.float32)
        x_t = torch.from_numpy(x)
        kernel, stride, padding, dilation, ceil_mode = _ATTRS
        _, idx_t = torch.nn.functional.max_pool2d(
            x_t, kernel, stride, padding, dilation, ceil_mode=ceil_mode, return_indices=True
        )
        g = rng.standard_normal(tuple(idx_t.shape), dtype=np.float32)
        return {
            "x": x,
            "g": g,
            "idx": idx_t.numpy().astype(np.int32),
            "x_t": x_t,
            "g_t": torch.from_numpy(g),
            "idx_t": idx_t,
        }

    return setup


def _numpy(s):
    return max_pool2d_with_indices_backward(s["g"], s["x"], s["idx"], *_ATTRS)


def _torch(s):
    import torch

    torch.set_num_threads(1)
    kernel, stride, padding, dilation, ceil_mode = _ATTRS
    return torch.ops.aten.max_pool2d_with_indices_backward(
        s["g_t"], s["x_t"], kernel, stride, padding, dilation, ceil_mode, s["idx_t"]
    )


CASES = [
    dict(
        size=size,
        path="default",
        title=f"MaxPool2dWithIndicesBackward {shape} float32, kernel 3 stride 2 padding 1, int32 indices",
        setup=_setup(shape),
        numpy=_numpy,
        torch=_torch,
    )
    for size, shape in _SIZES.items()
]
