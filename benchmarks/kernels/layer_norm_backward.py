"""LayerNormBackward benchmark: (batch*seq, hidden) transformer shapes, all three outputs; float32, and the
half types (A2/A3/950) at every size (float32 statistics and weight, as the op casts them)."""

from __future__ import annotations

import numpy as np

from generator.kernels.layer_norm_backward import layer_norm_backward

OP = "LayerNormBackward"
_SIZES = {"small": (128, 256), "realistic": (4096, 1024), "large": (16384, 4096)}  # (rows, hidden)
_MASK = [True, True, True]


def _setup(rows: int, hidden: int, dtype: str = "float32"):
    def setup():
        from benchmarks._harness import to_torch
        from generator.kernels._common import BFLOAT16

        np_dtype = BFLOAT16 if dtype == "bfloat16" else np.dtype(dtype)
        rng = np.random.default_rng(0)
        x = rng.standard_normal((rows, hidden), dtype=np.float32)
        g = rng.standard_normal((rows, hidden), dtype=np.float32)
        w = rng.standard_normal(hidden, dtype=np.float32)
        b = np.zeros(hidden, np.float32)
        mean = x.mean(axis=1, keepdims=True)
        rstd = (1.0 / np.sqrt(x.var(axis=1, keepdims=True) + 1e-5)).astype(np.float32)
        x, g = x.astype(np_dtype), g.astype(np_dtype)
        state = {"g": g, "x": x, "w": w, "b": b, "mean": mean, "rstd": rstd, "norm": [hidden]}
        state["t"] = {k: to_torch(v) for k, v in state.items() if isinstance(v, np.ndarray)}
        if dtype != "float32":  # torch wants weight, bias, mean and rstd in the input's dtype
            for k in ("w", "b", "mean", "rstd"):
                state["t"][k] = state["t"][k].to(state["t"]["x"].dtype)
        return state

    return setup


def _numpy(state):
    return layer_norm_backward(
        state["g"], state["x"], state["norm"], state["mean"], state["rstd"], state["w"], None, _MASK
    )


def _torch(state):
    import torch

    torch.set_num_threads(1)
    t = state["t"]
    return torch.ops.aten.native_layer_norm_backward(
        t["g"], t["x"], state["norm"], t["mean"], t["rstd"], t["w"], t["b"], _MASK
    )


CASES = [
    dict(
        size=size,
        path="default",
        title=f"LayerNormBackward ({rows}, {hidden}) float32, normalized_shape [{hidden}], mask [1,1,1]",
        setup=_setup(rows, hidden),
        numpy=_numpy,
        torch=_torch,
    )
    for size, (rows, hidden) in _SIZES.items()
] + [
    dict(
        size=size,
        path=dtype,
        title=f"LayerNormBackward ({rows}, {hidden}) {dtype}, float32 mean/rstd/weight, mask [1,1,1]",
        setup=_setup(rows, hidden, dtype),
        numpy=_numpy,
        torch=_torch,
    )
    for size, (rows, hidden) in _SIZES.items()
    for dtype in ("float16", "bfloat16")
]
