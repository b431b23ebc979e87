"""AvgPool2dBackward benchmark: CNN average pools (float32, NCHW) on each product path."""

from __future__ import annotations

import numpy as np

from generator.kernels.avg_pool2d_backward import avg_pool2d_backward

OP = "AvgPool2dBackward"
# path label -> (product, kernel, stride, padding, ceil_mode, count_include_pad, shapes per size)
_PATHS = {
    # Inception-style 3x3/1 pool, count_include_pad false: AvgPool3DGrad on A2/A3 (PyTorch semantics)
    "910b direct": ("910b", [3, 3], [1, 1], [1, 1], False, False, {
        "small": (4, 64, 35, 35), "realistic": (32, 192, 35, 35), "large": (64, 288, 35, 35)}),
    # DenseNet transition 2x2/2 pool, count_include_pad true: the cube path on A2/A3
    "910b cube": ("910b", [2, 2], [2, 2], [0, 0], False, True, {
        "small": (4, 128, 28, 28), "realistic": (32, 128, 56, 56), "large": (64, 256, 56, 56)}),
    # 3x3/2 ceil-mode pool with count_include_pad on 910 (uniform kH*kW divisor)
    "910 cube": ("910", [3, 3], [2, 2], [1, 1], True, True, {
        "small": (4, 64, 28, 28), "realistic": (32, 64, 56, 56), "large": (32, 256, 56, 56)}),
    # global average pooling (kernel == H x W, H, W >= 10): the division path on every product
    "global": ("950", [14, 14], [14, 14], [0, 0], False, True, {
        "small": (8, 256, 14, 14), "realistic": (64, 1024, 14, 14), "large": (128, 2048, 14, 14)}),
}  # fmt: skip


def _setup(shape, kernel, stride, padding, ceil_mode, cip):
    def setup():
        import torch

        rng = np.random.default_rng(0)
        x = rng.standard_normal(shape, dtype=np.float32)
        out = torch.nn.functional.avg_pool2d(torch.from_numpy(x), kernel, stride, padding, ceil_mode, cip)
        g = rng.standard_normal(tuple(out.shape), dtype=np.float32)
        return {"x": x, "g": g, "x_t": torch.from_numpy(x), "g_t": torch.from_numpy(g)}

    return setup


def _numpy(product, kernel, stride, padding, ceil_mode, cip):
    cube = 1 if product == "910" else 0  # the 910 cube has no FLOAT32: ALLOW_FP32_DOWN_PRECISION, as the doc advises

    def run(s):
        return avg_pool2d_backward(s["g"], s["x"], kernel, stride, padding, ceil_mode, cip, 0, cube, product=product)

    return run


def _torch(product, kernel, stride, padding, ceil_mode, cip):
    # the 910 path divides ceil windows by the full kernel: PyTorch's divisor_override gives the same result
    divisor = kernel[0] * kernel[1] if product == "910" and cip else None

    def run(s):
        import torch

        torch.set_num_threads(1)
        return torch.ops.aten.avg_pool2d_backward(s["g_t"], s["x_t"], kernel, stride, padding, ceil_mode, cip, divisor)

    return run


CASES = [
    dict(
        size=size,
        path=path,
        title=f"AvgPool2dBackward {shape} float32, kernel {kernel} stride {stride} padding {padding}, "
        f"ceil {ceil_mode}, count_include_pad {cip}, product {product}",
        setup=_setup(shape, kernel, stride, padding, ceil_mode, cip),
        numpy=_numpy(product, kernel, stride, padding, ceil_mode, cip),
        torch=_torch(product, kernel, stride, padding, ceil_mode, cip),
    )
    for path, (product, kernel, stride, padding, ceil_mode, cip, shapes) in _PATHS.items()
    for size, shape in shapes.items()
]
