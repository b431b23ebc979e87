"""EluBackward against ``torch.ops.aten.elu_backward``: three sizes, both branches, the half types."""

from __future__ import annotations

import numpy as np

OP = "EluBackward"
_SELU = (1.6732632, 1.0507010, 1.0)  # alpha, scale, input_scale (SELU, the usual non-trivial case)


def _case(size: str, path: str, n: int, is_result: bool = False, dtype: str = "float32") -> dict:
    def setup() -> dict:
        from benchmarks._harness import to_torch
        from generator.kernels._common import BFLOAT16

        rng = np.random.default_rng(0)
        np_dtype = BFLOAT16 if dtype == "bfloat16" else np.dtype(dtype)
        grad = rng.standard_normal(n, dtype=np.float32).astype(np_dtype)
        x = rng.standard_normal(n, dtype=np.float32).astype(np_dtype)
        if is_result:  # x is the forward output: > -alpha*scale
            x = np.maximum(x.astype(np.float32), -1.7).astype(np_dtype)
        return {"grad": grad, "x": x, "grad_t": to_torch(grad), "x_t": to_torch(x)}

    def numpy(state):
        from generator.kernels.elu_backward import elu_backward

        return elu_backward(state["grad"], *_SELU, is_result, state["x"])

    def torch(state):
        import torch

        return torch.ops.aten.elu_backward(state["grad_t"], *_SELU, is_result, state["x_t"])

    title = f"{n} elements {dtype}, isResult={str(is_result).lower()}, SELU constants"
    return dict(size=size, path=path, title=title, setup=setup, numpy=numpy, torch=torch)


CASES = [
    _case("small", "default", 4096),
    _case("realistic", "default", 64 * 128 * 128),
    _case("large", "default", 16 << 20),
    _case("small", "isResult", 4096, is_result=True),
    _case("realistic", "isResult", 64 * 128 * 128, is_result=True),
    _case("large", "isResult", 16 << 20, is_result=True),
    _case("small", "float16", 4096, dtype="float16"),
    _case("small", "bfloat16", 4096, dtype="bfloat16"),
    _case("realistic", "float16", 64 * 128 * 128, dtype="float16"),
    _case("realistic", "bfloat16", 64 * 128 * 128, dtype="bfloat16"),
    _case("large", "float16", 16 << 20, dtype="float16"),
    _case("large", "bfloat16", 16 << 20, dtype="bfloat16"),
]
