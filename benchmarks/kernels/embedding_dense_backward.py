"""EmbeddingDenseBackward benchmark: token embeddings (vocabulary 32000, width 1024), int64 indices."""

from __future__ import annotations

import numpy as np

from benchmarks.kernels._activation_cases import case, normal, single_thread, to_torch
from generator.kernels.embedding_dense_backward import embedding_dense_backward

OP = "EmbeddingDenseBackward"
_VOCAB, _DIM = 32000, 1024
_TOKENS = {"small": (1, 64), "realistic": (8, 512), "large": (32, 512)}  # (batch, sequence)

# label: (grad dtype, padding_idx, scale_grad_by_freq, product)
_PATHS = {
    "default (910/A2/A3, float32)": ("float32", 0, False, "910b"),
    "scale_grad_by_freq": ("float32", 0, True, "910b"),
    "910/A2/A3 float16 -> float32": ("float16", 0, False, "910b"),
    "950 bfloat16": ("bfloat16", 0, False, "950"),
}


def _setup(tokens, dtype, padding_idx, scale, product):
    rng = np.random.default_rng(0)
    # Zipf-like token ids: frequent tokens repeat, as in text
    idx = np.minimum(rng.zipf(1.2, tokens), _VOCAB - 1).astype(np.int64)
    grad = normal(tokens + (_DIM,), dtype, 1)
    return {
        "grad": grad,
        "idx": idx,
        "tg": to_torch(grad),
        "ti": to_torch(idx),
        "pad": padding_idx,
        "scale": scale,
        "product": product,
    }


def _numpy(state):
    return embedding_dense_backward(
        state["grad"], state["idx"], _VOCAB, state["pad"], state["scale"], product=state["product"]
    )


def _torch(state):
    torch = single_thread()
    return torch.ops.aten.embedding_dense_backward(state["tg"], state["ti"], _VOCAB, state["pad"], state["scale"])


CASES = [
    case(
        size,
        label,
        f"{OP} {label}, {tokens[0]}x{tokens[1]} tokens, {_VOCAB}x{_DIM}",
        lambda tokens=tokens, spec=spec: _setup(tokens, *spec),
        _numpy,
        _torch,
    )
    for size, tokens in _TOKENS.items()
    for label, spec in _PATHS.items()
]
