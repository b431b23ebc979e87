"""BatchNormBackward benchmark: ResNet-50 feature maps (NCHW float32), training and eval, all three outputs."""

from __future__ import annotations

import numpy as np

from generator.kernels.batch_norm_backward import batch_norm_backward

OP = "BatchNormBackward"
_SIZES = {"small": (8, 64, 28, 28), "realistic": (32, 64, 56, 56), "large": (32, 256, 56, 56)}
_MASK = [True, True, True]


def _setup(shape):
    def setup():
        import torch

        rng = np.random.default_rng(0)
        c = shape[1]
        x = rng.standard_normal(shape, dtype=np.float32)
        g = rng.standard_normal(shape, dtype=np.float32)
        axes = (0, 2, 3)
        state = {
            "g": g,
            "x": x,
            "w": rng.standard_normal(c, dtype=np.float32),
            "rm": rng.standard_normal(c, dtype=np.float32),
            "rv": rng.uniform(0.5, 2, c).astype(np.float32),
            "sm": x.mean(axis=axes),
            "si": (1 / np.sqrt(x.var(axis=axes) + 1e-5)).astype(np.float32),
        }
        state["t"] = {k: torch.from_numpy(v) for k, v in state.items()}
        return state

    return setup


def _numpy(training):
    def run(s):
        return batch_norm_backward(s["g"], s["x"], s["w"], s["rm"], s["rv"], s["sm"], s["si"], training, 1e-5, _MASK)

    return run


def _torch(training):
    def run(s):
        import torch

        torch.set_num_threads(1)
        t = s["t"]
        return torch.ops.aten.native_batch_norm_backward(
            t["g"], t["x"], t["w"], t["rm"], t["rv"], t["sm"], t["si"], training, 1e-5, _MASK
        )

    return run


CASES = [
    dict(
        size=size,
        path="training" if training else "eval",
        title=f"BatchNormBackward {shape} NCHW float32, {'training' if training else 'eval'}, mask [1,1,1]",
        setup=_setup(shape),
        numpy=_numpy(training),
        torch=_torch(training),
    )
    for size, shape in _SIZES.items()
    for training in (True, False)
]
