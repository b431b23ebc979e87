"""MultiScaleDeformableAttentionGrad: NumPy kernel vs autograd of the grid_sample composition (mmcv)."""

from __future__ import annotations

import numpy as np

from generator.kernels.multi_scale_deformable_attention_grad import multi_scale_deformable_attention_grad

BS, NQ, NH, NP, C = 2, 5000, 8, 4, 32
SHAPES = ((64, 64), (32, 32), (16, 16), (8, 8))
TITLE = f"MultiScaleDeformableAttentionGrad, bs={BS} nq={NQ} nh={NH} L={len(SHAPES)} P={NP} C={C} float32"


def setup() -> dict:
    rng = np.random.default_rng(0)
    levels = len(SHAPES)
    sizes = [h * w for h, w in SHAPES]
    num_keys = sum(sizes)
    return {
        "value": rng.standard_normal((BS, num_keys, NH, C), dtype=np.float32),
        "spatial_shape": np.array(SHAPES, np.int64),
        "level_start_index": np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64),
        # mostly inside [0, 1], about 10 % of the coordinates outside (zero padding / dropped samples)
        "location": rng.uniform(-0.05, 1.05, (BS, NQ, NH, levels, NP, 2)).astype(np.float32),
        "attn_weight": rng.uniform(0.0, 1.0, (BS, NQ, NH, levels, NP)).astype(np.float32),
        "grad_output": rng.standard_normal((BS, NQ, NH * C), dtype=np.float32),
    }


def run_numpy(state: dict):
    return multi_scale_deformable_attention_grad(**state)


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


def run_torch(state: dict):
    import torch

    shapes = [tuple(int(v) for v in row) for row in state["spatial_shape"]]
    value = torch.from_numpy(state["value"]).requires_grad_()
    location = torch.from_numpy(state["location"]).requires_grad_()
    attn_weight = torch.from_numpy(state["attn_weight"]).requires_grad_()
    out = torch_forward(value, shapes, location, attn_weight)
    out.backward(torch.from_numpy(state["grad_output"]))
    return value.grad, location.grad, attn_weight.grad
