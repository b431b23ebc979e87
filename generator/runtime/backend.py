"""Output allocation and backend dispatch for the generated bindings."""

from __future__ import annotations

import importlib
from collections.abc import Callable

import numpy as np

from generator.runtime.errors import AclnnError
from generator.runtime.values import TensorDesc, default_format, numpy_dtype


class _Missing:
    """Marks an output the caller did not pass (inferred), as opposed to None (a null pointer)."""

    def __repr__(self) -> str:
        return "MISSING"


MISSING = _Missing()


def output_desc(shape, dtype: str, fmt: str | None = None) -> TensorDesc:
    """Descriptor of an output the binding allocates."""
    shape = tuple(shape)
    for d in shape:  # the common case (sizes), fast: a plain loop, no generator
        if type(d) is not int or d < 0:
            return TensorDesc(shape, dtype, fmt or default_format(len(shape)))
    desc = object.__new__(TensorDesc)  # TensorDesc.trusted, inlined (once per inferred output per call)
    desc.__dict__.update(shape=shape, dtype=dtype, format=fmt or default_format(len(shape)), strides=None, data=None)
    return desc


def infer_output(make: Callable[[], TensorDesc | None]) -> TensorDesc | None:
    """Infer an output descriptor; when the inputs are too broken to infer one, leave it null (the
    checks then report the inputs' problem, which CANN checks first)."""
    try:
        return make()
    except (AclnnError, AttributeError, TypeError, ValueError, IndexError, KeyError, OverflowError):
        return None


def tensor_data(desc: TensorDesc | None, name: str) -> np.ndarray | None:
    """The NumPy array behind a tensor argument; a data-less TensorDesc cannot be computed on."""
    if desc is None:
        return None
    if desc.data is None:
        raise AclnnError(
            161002, "ACLNN_ERR_PARAM_INVALID", f"{name}: a TensorDesc without data can be validated but not run"
        )
    return desc.data


_KERNELS: dict[str, Callable] = {}


def _kernel(ref: str) -> Callable:
    if ref not in _KERNELS:
        module, function = ref.split(":")
        _KERNELS[ref] = getattr(importlib.import_module(f"generator.kernels.{module}"), function)
    return _KERNELS[ref]


def execute(
    op: str, backend: str, kernel: str, kwargs: dict, outputs: tuple, signature: tuple = ()
) -> list[np.ndarray | None]:
    """Run ``op`` on ``backend`` and return one array per output (None for outputs not produced).

    ``kwargs`` are the reference kernel's arguments; ``signature`` is every C argument as
    (doc name, C type, normalised value), for the CANN backend. Results are cast to each output
    descriptor's dtype; an output passed as an array is filled in place and returned.
    """
    if backend == "numpy":
        try:
            result = _kernel(kernel)(**kwargs)
        except (ValueError, IndexError) as exc:
            # Inputs the first phase accepts but whose result CANN leaves undefined (say an index
            # outside its pooling window): the reference refuses rather than invent a value.
            raise AclnnError(
                561000, "ACLNN_ERR_INNER", f"aclnn{op}: the reference kernel rejected the inputs: {exc}"
            ) from None
    elif backend == "cann":
        from generator.runtime import cann

        result = cann.run(op, signature, outputs)
    else:
        raise AclnnError(161002, "ACLNN_ERR_PARAM_INVALID", f"unknown backend {backend!r}; use 'numpy' or 'cann'")
    results = list(result) if isinstance(result, (tuple, list)) else [result]
    out: list[np.ndarray | None] = []
    for desc, value in zip(outputs, results):
        if desc is None or value is None:
            out.append(None)
            continue
        value = np.asarray(value).astype(numpy_dtype(desc.dtype), copy=False)
        if desc.data is not None:
            np.copyto(desc.data, value.reshape(desc.data.shape), casting="unsafe")
            out.append(desc.data)
        else:
            out.append(value.reshape(desc.shape))
    return out
