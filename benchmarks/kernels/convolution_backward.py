"""Benchmark: ConvolutionBackward, N=8, 64->64 channels, 56x56, 3x3, stride 1, padding 1, all grads, float32."""

from __future__ import annotations

import numpy as np

TITLE = "ConvolutionBackward, N=8 64->64 56x56 3x3 s1 p1, all three grads, float32"

_ARGS = dict(  # noqa: C408
    bias_sizes=[64],
    stride=[1, 1],
    padding=[1, 1],
    dilation=[1, 1],
    transposed=False,
    output_padding=[0, 0],
    groups=1,
    output_mask=[True, True, True],
)


def setup() -> dict:
    rng = np.random.default_rng(0)
    return {
        "grad_output": rng.standard_normal((8, 64, 56, 56), dtype=np.float32),
        "input": rng.standard_normal((8, 64, 56, 56), dtype=np.float32),
        "weight": rng.standard_normal((64, 64, 3, 3), dtype=np.float32),
    }


def run_numpy(state: dict) -> object:
    from generator.kernels.convolution_backward import convolution_backward

    return convolution_backward(state["grad_output"], state["input"], state["weight"], **_ARGS)


def run_torch(state: dict) -> object:
    import torch

    if "torch" not in state:
        state["torch"] = tuple(torch.from_numpy(state[k]) for k in ("grad_output", "input", "weight"))
    grad_output, input_, weight = state["torch"]
    a = _ARGS
    with torch.no_grad():
        return torch.ops.aten.convolution_backward(
            grad_output,
            input_,
            weight,
            a["bias_sizes"],
            a["stride"],
            a["padding"],
            a["dilation"],
            a["transposed"],
            a["output_padding"],
            a["groups"],
            a["output_mask"],
        )
