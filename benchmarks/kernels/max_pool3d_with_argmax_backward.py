"""MaxPool3dWithArgmaxBackward against ``max_pool3d_with_indices_backward``: three sizes, plus
overlapping windows (stride 1) where several outputs scatter into one input."""

from __future__ import annotations

import numpy as np

OP = "MaxPool3dWithArgmaxBackward"


def _case(size: str, path: str, shape, attrs) -> dict:
    def setup() -> dict:
        import torch

        rng = np.random.default_rng(0)
        x = rng.standard_normal(shape, dtype=np.float32)
        kernel, stride, padding, dilation, ceil_mode = attrs
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

    def numpy(state):
        from generator.kernels.max_pool3d_with_argmax_backward import max_pool3d_with_argmax_backward

        return max_pool3d_with_argmax_backward(state["grad"], state["x"], state["indices"], *attrs)

    def torch(state):
        import torch

        kernel, stride, padding, dilation, ceil_mode = attrs
        return torch.ops.aten.max_pool3d_with_indices_backward(
            state["grad_t"], state["x_t"], kernel, stride, padding, dilation, ceil_mode, state["idx_t"]
        )

    k, s, p = attrs[0][0], attrs[1][0], attrs[2][0]
    title = f"self {shape} float32, kernel {k} stride {s} padding {p}"
    return dict(size=size, path=path, title=title, setup=setup, numpy=numpy, torch=torch)


_K3S2 = ([3, 3, 3], [2, 2, 2], [1, 1, 1], [1, 1, 1], False)
_K3S1 = ([3, 3, 3], [1, 1, 1], [1, 1, 1], [1, 1, 1], False)
CASES = [
    _case("small", "default", (1, 8, 8, 16, 16), _K3S2),
    _case("realistic", "default", (4, 32, 16, 56, 56), _K3S2),
    _case("large", "default", (8, 64, 16, 56, 56), _K3S2),
    _case("small", "overlapping", (1, 8, 8, 16, 16), _K3S1),
    _case("realistic", "overlapping", (2, 32, 16, 56, 56), _K3S1),
    _case("large", "overlapping", (4, 64, 16, 56, 56), _K3S1),
]
