"""AdaptiveAvgPool2dBackward benchmark: ResNet global average pooling and a non-dividing adaptive pool, float32."""

from __future__ import annotations

import numpy as np

from generator.kernels.adaptive_avg_pool2d_backward import adaptive_avg_pool2d_backward

OP = "AdaptiveAvgPool2dBackward"
# (size, path, self shape, output size)
_CASES = [
    ("small", "global", (8, 512, 7, 7), (1, 1)),
    ("realistic", "global", (64, 2048, 7, 7), (1, 1)),  # ResNet-50 head
    ("large", "global", (256, 2048, 7, 7), (1, 1)),
    ("small", "windows", (4, 64, 28, 28), (5, 5)),
    ("realistic", "windows", (32, 256, 28, 28), (6, 6)),  # non-dividing (overlapping) windows
    ("large", "windows", (32, 256, 56, 56), (7, 7)),
]


def _setup(shape, out):
    def setup():
        import torch

        rng = np.random.default_rng(0)
        x = rng.standard_normal(shape, dtype=np.float32)
        g = rng.standard_normal(shape[:-2] + out, dtype=np.float32)
        return {"x": x, "g": g, "x_t": torch.from_numpy(x), "g_t": torch.from_numpy(g)}

    return setup


def _numpy(s):
    return adaptive_avg_pool2d_backward(s["g"], s["x"])


def _torch(s):
    import torch

    torch.set_num_threads(1)
    return torch.ops.aten._adaptive_avg_pool2d_backward(s["g_t"], s["x_t"])


CASES = [
    dict(
        size=size,
        path=path,
        title=f"AdaptiveAvgPool2dBackward {shape} -> {out} float32",
        setup=_setup(shape, out),
        numpy=_numpy,
        torch=_torch,
    )
    for size, path, shape, out in _CASES
]
