"""ConvolutionBackward against ``torch.ops.aten.convolution_backward`` (all three gradients, float32):
ordinary 3x3, stride 2, depthwise, grouped (ResNeXt), transposed (2x upsampling) and 3-D, three sizes each."""

from __future__ import annotations

import numpy as np

OP = "ConvolutionBackward"


def _case(size, path, n, c_in, c_out, spatial, kernel=3, stride=1, padding=1, groups=1, transposed=False):
    nsp = len(spatial)
    output_padding = [stride - 1] * nsp if transposed else [0] * nsp
    if transposed:
        out = [(s - 1) * stride - 2 * padding + kernel + op for s, op in zip(spatial, output_padding)]
        w_shape = (c_in, c_out // groups) + (kernel,) * nsp
    else:
        out = [(s + 2 * padding - kernel) // stride + 1 for s in spatial]
        w_shape = (c_out, c_in // groups) + (kernel,) * nsp
    attrs = dict(  # noqa: C408
        bias_sizes=[c_out],
        stride=[stride] * nsp,
        padding=[padding] * nsp,
        dilation=[1] * nsp,
        transposed=transposed,
        output_padding=output_padding,
        groups=groups,
        output_mask=[True, True, True],
    )

    def setup() -> dict:
        import torch

        rng = np.random.default_rng(0)
        state = {
            "grad_output": rng.standard_normal((n, c_out, *out), dtype=np.float32),
            "input": rng.standard_normal((n, c_in, *spatial), dtype=np.float32),
            "weight": rng.standard_normal(w_shape, dtype=np.float32),
        }
        state["torch"] = tuple(torch.from_numpy(state[k]) for k in ("grad_output", "input", "weight"))
        return state

    def numpy(state):
        from generator.kernels.convolution_backward import convolution_backward

        return convolution_backward(state["grad_output"], state["input"], state["weight"], **attrs)

    def torch(state):
        import torch

        with torch.no_grad():
            return torch.ops.aten.convolution_backward(*state["torch"], *attrs.values())

    shape = "x".join(map(str, spatial))
    kind = "transposed " if transposed else ""
    title = f"{kind}N={n} {c_in}->{c_out} {shape} k{kernel} s{stride} p{padding} groups={groups}"
    return dict(size=size, path=path, title=title, setup=setup, numpy=numpy, torch=torch)


CASES = [
    _case("small", "default", 1, 16, 16, (14, 14)),
    _case("realistic", "default", 8, 64, 64, (56, 56)),
    _case("large", "default", 8, 128, 128, (56, 56)),
    _case("small", "stride-2", 1, 16, 32, (14, 14), stride=2),
    _case("realistic", "stride-2", 8, 64, 128, (56, 56), stride=2),
    _case("large", "stride-2", 8, 128, 256, (56, 56), stride=2),
    _case("small", "depthwise", 1, 32, 32, (28, 28), groups=32),
    _case("realistic", "depthwise", 8, 128, 128, (56, 56), groups=128),
    _case("large", "depthwise", 16, 256, 256, (56, 56), groups=256),
    _case("small", "grouped", 1, 64, 64, (14, 14), groups=32),
    _case("realistic", "grouped", 8, 128, 128, (56, 56), groups=32),
    _case("large", "grouped", 8, 256, 256, (56, 56), groups=32),
    _case("small", "transposed", 1, 32, 16, (7, 7), stride=2, transposed=True),
    _case("realistic", "transposed", 8, 128, 64, (28, 28), stride=2, transposed=True),
    _case("large", "transposed", 8, 256, 128, (56, 56), stride=2, transposed=True),
    _case("small", "3-D", 1, 8, 8, (4, 8, 8)),
    _case("realistic", "3-D", 2, 32, 32, (16, 28, 28)),
    _case("large", "3-D", 2, 32, 32, (16, 56, 56)),
]
