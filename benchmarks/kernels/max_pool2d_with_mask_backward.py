"""MaxPool2dWithMaskBackward against ``max_pool2d_with_indices_backward``: the A2/A3 INT32-argmax mask and
the 910 bit-mask layout, three sizes each (kernel 3, stride 2, padding 1: the ResNet stem pooling)."""

from __future__ import annotations

import numpy as np

OP = "MaxPool2dWithMaskBackward"
_ATTRS = ([3, 3], [2, 2], [1, 1], [1, 1], False)
_SHAPES = {"small": (2, 16, 28, 28), "realistic": (16, 64, 112, 112), "large": (32, 64, 112, 112)}
_PATHS = {"A2 int32-mask": ("910b", "a2_int32"), "910 bit-mask": ("910", "v1_bitmask")}


def _case(size: str, path: str) -> dict:
    shape = _SHAPES[size]
    product, layout = _PATHS[path]

    def setup() -> dict:
        import torch

        from generator.kernels.max_pool2d_with_mask_backward import encode_mask

        rng = np.random.default_rng(0)
        x = rng.standard_normal(shape, dtype=np.float32)
        kernel, stride, padding, dilation, ceil_mode = _ATTRS
        x_t = torch.from_numpy(x)
        _, idx_t = torch.nn.functional.max_pool2d(
            x_t, kernel, stride, padding, dilation, ceil_mode=ceil_mode, return_indices=True
        )
        mask = encode_mask(idx_t.numpy(), x.shape, kernel, stride, padding, ceil_mode, layout=layout)
        grad = rng.standard_normal(tuple(idx_t.shape), dtype=np.float32)
        return {"x": x, "grad": grad, "mask": mask, "x_t": x_t, "grad_t": torch.from_numpy(grad), "idx_t": idx_t}

    def numpy(state):
        from generator.kernels.max_pool2d_with_mask_backward import max_pool2d_with_mask_backward

        return max_pool2d_with_mask_backward(state["grad"], state["x"], state["mask"], *_ATTRS, product=product)

    def torch(state):
        import torch

        kernel, stride, padding, dilation, ceil_mode = _ATTRS
        return torch.ops.aten.max_pool2d_with_indices_backward(
            state["grad_t"], state["x_t"], kernel, stride, padding, dilation, ceil_mode, state["idx_t"]
        )

    title = f"self {shape} float32, kernel 3 stride 2 padding 1, product {product}"
    return dict(size=size, path=path, title=title, setup=setup, numpy=numpy, torch=torch)


CASES = [_case(size, path) for path in _PATHS for size in _SHAPES]
