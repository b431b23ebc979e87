"""Shared set-up of the activation / loss backward benchmarks (kernels-a): sizes, inputs, torch tensors.

Sizes (elements of the result): small 4 Ki (call overhead), realistic 4 Mi (a (16, 256, 1024) activation),
large 16 Mi (a (64, 256, 1024) activation).  PyTorch runs single-threaded, like NumPy.
"""

from __future__ import annotations

import numpy as np

SHAPES = {"small": (4, 1024), "realistic": (16, 256, 1024), "large": (64, 256, 1024)}
SIZES = tuple(SHAPES)


def bfloat16():
    import ml_dtypes

    return np.dtype(ml_dtypes.bfloat16)


def dtype_of(name: str) -> np.dtype:
    return bfloat16() if name == "bfloat16" else np.dtype(name)


def normal(shape, dtype, seed: int, scale: float = 1.0) -> np.ndarray:
    """Normal values in ``dtype`` (float32 draws rounded once)."""
    rng = np.random.default_rng(seed)
    values = rng.standard_normal(shape, dtype=np.float32)
    if scale != 1.0:
        values *= np.float32(scale)
    return values.astype(dtype_of(dtype) if isinstance(dtype, str) else dtype)


def to_torch(array: np.ndarray):
    """NumPy -> torch without copying (bfloat16 through an int16 view)."""
    import torch

    if array.dtype == bfloat16():
        return torch.from_numpy(array.view(np.int16)).view(torch.bfloat16)
    return torch.from_numpy(array)


def single_thread():
    import torch

    torch.set_num_threads(1)
    return torch


def case(size: str, path: str, title: str, setup, numpy, torch) -> dict:
    return {"size": size, "path": path, "title": title, "setup": setup, "numpy": numpy, "torch": torch}


def binary_cases(op: str, make, run_numpy, run_torch, paths) -> list[dict]:
    """Cases for a two-tensor op over every size and path.

    ``paths``: ``{label: (grad dtype, input dtype, input shape transform)}``; ``make(shape, dtype, seed)``
    builds one input; ``run_numpy(state)`` / ``run_torch(state)`` use ``state["a"], state["b"]`` (NumPy)
    and ``state["ta"], state["tb"]`` (torch).
    """
    cases = []
    for size, shape in SHAPES.items():
        for label, (dtype_a, dtype_b, shape_b) in paths.items():

            def setup(shape=shape, dtype_a=dtype_a, dtype_b=dtype_b, shape_b=shape_b):
                a = make(shape, dtype_a, 1)
                b = make(shape_b(shape), dtype_b, 2)
                return {"a": a, "b": b, "ta": to_torch(a), "tb": to_torch(b)}

            title = f"{op} {label}, {'x'.join(map(str, shape))}"
            cases.append(case(size, label, title, setup, run_numpy, run_torch))
    return cases


def same(shape):
    return shape
