"""Shared fixtures for the kernel-vs-PyTorch tests."""

from __future__ import annotations

import numpy as np
import pytest

from generator.kernels._common import BFLOAT16

torch = pytest.importorskip("torch")

# Tolerances per dtype (rtol, atol) for results computed in float32 and rounded to the dtype.
TOLERANCES = {
    np.dtype(np.float32): (1e-5, 1e-5),
    np.dtype(np.float16): (1e-3, 1e-3),
    BFLOAT16: (8e-3, 8e-3),
}
DTYPES = [np.dtype(np.float32), np.dtype(np.float16), BFLOAT16]
DTYPE_IDS = ["float32", "float16", "bfloat16"]


def to_torch(array: np.ndarray) -> torch.Tensor:
    """NumPy (incl. bfloat16) -> torch tensor with the same dtype."""
    if np.dtype(array.dtype) == BFLOAT16:
        return torch.from_numpy(np.ascontiguousarray(array).view(np.int16)).view(torch.bfloat16)
    return torch.from_numpy(np.ascontiguousarray(array))


def from_torch(tensor: torch.Tensor) -> np.ndarray:
    """torch tensor (incl. bfloat16) -> NumPy array with the same dtype."""
    tensor = tensor.detach().contiguous()
    if tensor.dtype == torch.bfloat16:
        return tensor.float().numpy().astype(BFLOAT16)
    return tensor.numpy()


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(1234)
