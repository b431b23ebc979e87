"""MultiScaleDeformableAttentionGrad against autograd of the grid_sample composition (mmcv's PyTorch path).

Deformable-DETR geometry: 4 levels (strides 8..64 of an ~800x1066 image at the realistic size), 8 heads,
32 channels per head, 4 points. Two product paths: the DETR decoder (300 queries) and the encoder (one
query per key)."""

from __future__ import annotations

import numpy as np

OP = "MultiScaleDeformableAttentionGrad"
_FULL = ((100, 134), (50, 67), (25, 34), (13, 17))  # strides 8..64 of an ~800x1066 image
_HALF = ((50, 67), (25, 34), (13, 17), (7, 9))
_TINY = ((32, 32), (16, 16), (8, 8), (4, 4))
# (levels, batch, queries) per path and size; the encoder has one query per key (queries=None)
_GEOMETRY = {
    "DETR decoder": {"small": (_TINY, 1, 100), "realistic": (_FULL, 2, 300), "large": (_FULL, 4, 900)},
    "encoder": {"small": (_TINY, 1, None), "realistic": (_HALF, 1, None), "large": (_FULL, 1, None)},
}
NH, NP, C = 8, 4, 32


def _case(size: str, path: str) -> dict:
    shapes, bs, nq = _GEOMETRY[path][size]
    num_keys = sum(h * w for h, w in shapes)
    nq = nq or num_keys
    levels = len(shapes)

    def setup() -> dict:
        rng = np.random.default_rng(0)
        sizes = [h * w for h, w in shapes]
        return {
            "value": rng.standard_normal((bs, num_keys, NH, C), dtype=np.float32),
            "spatial_shape": np.array(shapes, np.int64),
            "level_start_index": np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64),
            # mostly inside [0, 1], about 10 % of the coordinates outside (zero padding / dropped samples)
            "location": rng.uniform(-0.05, 1.05, (bs, nq, NH, levels, NP, 2)).astype(np.float32),
            "attn_weight": rng.uniform(0.0, 1.0, (bs, nq, NH, levels, NP)).astype(np.float32),
            "grad_output": rng.standard_normal((bs, nq, NH * C), dtype=np.float32),
        }

    def numpy(state: dict):
        from generator.kernels.multi_scale_deformable_attention_grad import multi_scale_deformable_attention_grad

        return multi_scale_deformable_attention_grad(**state)

    def torch(state: dict):
        import torch

        shapes_ = [tuple(int(v) for v in row) for row in state["spatial_shape"]]
        value = torch.from_numpy(state["value"]).requires_grad_()
        location = torch.from_numpy(state["location"]).requires_grad_()
        attn_weight = torch.from_numpy(state["attn_weight"]).requires_grad_()
        out = torch_forward(value, shapes_, location, attn_weight)
        out.backward(torch.from_numpy(state["grad_output"]))
        return value.grad, location.grad, attn_weight.grad

    title = f"bs={bs} nq={nq} keys={num_keys} nh={NH} L={levels} P={NP} C={C} float32"
    return dict(size=size, path=path, title=title, setup=setup, numpy=numpy, torch=torch)


def torch_forward(value, shapes, location, attn_weight):
    """mmcv ``multi_scale_deformable_attn_pytorch``: grid_sample per level, weighted sum."""
    import torch
    import torch.nn.functional as F

    bs, _, nh, channels = value.shape
    _, nq, _, levels, points, _ = location.shape
    value_list = value.split([h * w for h, w in shapes], dim=1)
    grids = 2 * location - 1
    sampled = []
    for level, (h, w) in enumerate(shapes):
        v = value_list[level].flatten(2).transpose(1, 2).reshape(bs * nh, channels, h, w)
        grid = grids[:, :, :, level].transpose(1, 2).flatten(0, 1)  # (bs*nh, nq, P, 2), (x, y)
        sampled.append(F.grid_sample(v, grid, mode="bilinear", padding_mode="zeros", align_corners=False))
    weights = attn_weight.transpose(1, 2).reshape(bs * nh, 1, nq, levels * points)
    out = (torch.stack(sampled, dim=-2).flatten(-2) * weights).sum(-1)
    return out.view(bs, nh * channels, nq).transpose(1, 2).contiguous()


CASES = [_case(size, path) for path, sizes in _GEOMETRY.items() for size in sizes]
