"""GeluBackward benchmark: tanh-approximation derivative vs torch gelu_backward(approximate="tanh")."""

from __future__ import annotations

from benchmarks.kernels._activation_cases import binary_cases, normal, same, single_thread
from generator.kernels.gelu_backward import gelu_backward

OP = "GeluBackward"


def _numpy(state):
    return gelu_backward(state["a"], state["b"])


def _torch(state):
    torch = single_thread()
    a, b = state["ta"], state["tb"]
    if a.shape != b.shape or a.dtype != b.dtype:  # the op broadcasts and promotes; torch's kernel does not
        dtype = torch.promote_types(a.dtype, b.dtype)
        a, b = torch.broadcast_tensors(a.to(dtype), b.to(dtype))
    return torch.ops.aten.gelu_backward(a, b, approximate="tanh")


CASES = binary_cases(
    OP,
    lambda shape, dtype, seed: normal(shape, dtype, seed, 2.0),
    _numpy,
    _torch,
    {
        "default": ("float32", "float32", same),  # every product runs GeluGrad on equal shapes
        "float16": ("float16", "float16", same),
        "bfloat16": ("bfloat16", "bfloat16", same),
        "broadcast": ("float32", "float32", lambda s: s[-1:]),  # 910/310P/A2/A3 BroadcastTo, 950 in-kernel
    },
)
