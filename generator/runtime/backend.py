"""Output allocation, resource limits and backend dispatch for the generated bindings.

Resource limits of the NumPy backend
------------------------------------
Small arguments can imply enormous work (a 2-element ``spatialShape`` naming a 2**31-wide feature map,
a 7x7 convolution with a padding of 8000). Before a reference kernel runs, :func:`execute` estimates
what the call would take and refuses it with ``AclnnError(561000)`` naming the parameter responsible
when the estimate is above a limit:

* memory: peak bytes the call allocates (outputs and temporaries; the caller's own arrays are not
  counted), at most ``ACLNN_MAX_BYTES`` (default :data:`DEFAULT_MAX_BYTES`, 512 MiB);
* work: elementary operations (see :class:`generator.kernels._common.Cost`, about one nanosecond of
  single-threaded work each), at most ``ACLNN_MAX_OPS`` (default :data:`DEFAULT_MAX_OPS`, 10**9, i.e.
  about one second).

Both environment variables are read at every call; they take an integer (``1e9``, ``1_000_000`` and,
for bytes, a ``K``/``M``/``G``/``T`` binary suffix such as ``2G`` are accepted), and ``0``, ``none``
or ``unlimited`` switch the limit off. The estimate comes from the kernel module's ``cost(**kwargs)``
when it has one, otherwise from the sizes of the inputs and outputs (:func:`generic_cost`); the
outputs alone must always fit the memory limit.
"""

from __future__ import annotations

import importlib
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from types import ModuleType
from typing import TYPE_CHECKING

from generator.runtime.errors import AclnnError, show
from generator.runtime.values import TensorDesc, default_format, numpy_dtype, numpy_tables

if TYPE_CHECKING:
    import numpy as np

DEFAULT_MAX_BYTES = 512 * 2**20
DEFAULT_MAX_OPS = 10**9
ENV_MAX_BYTES = "ACLNN_MAX_BYTES"
ENV_MAX_OPS = "ACLNN_MAX_OPS"

_INNER = (561000, "ACLNN_ERR_INNER")
_PARAM_INVALID = (161002, "ACLNN_ERR_PARAM_INVALID")


class _Missing:
    """Marks an output the caller did not pass (inferred), as opposed to None (a null pointer)."""

    def __repr__(self) -> str:
        return "MISSING"


MISSING = _Missing()


def output_desc(shape, dtype: str, fmt: str | None = None) -> TensorDesc:
    """Descriptor of an output the binding allocates."""
    shape = tuple(shape)
    if len(shape) > 64:
        return TensorDesc(shape, dtype, fmt or default_format(len(shape)))
    for d in shape:  # the common case (sizes), fast: a plain loop, no generator
        if type(d) is not int or d < 0:
            return TensorDesc(shape, dtype, fmt or default_format(len(shape)))
    desc = object.__new__(TensorDesc)  # TensorDesc.trusted, inlined (once per inferred output per call)
    fields = desc.__dict__  # item assignments: faster than dict.update(**kwargs) on this hot path
    fields["shape"], fields["dtype"], fields["format"] = shape, dtype, fmt or default_format(len(shape))
    fields["strides"] = fields["data"] = None
    return desc


# What inferring an output from broken inputs can raise: generated validators then leave the output
# null (the checks report the inputs' problem, which CANN checks first).
INFER_ERRORS = (AclnnError, AttributeError, TypeError, ValueError, IndexError, KeyError, OverflowError)


def tensor_data(desc: TensorDesc | None, name: str) -> np.ndarray | None:
    """The NumPy array behind a tensor argument; a data-less TensorDesc cannot be computed on."""
    if desc is None:
        return None
    if desc.data is None:
        raise AclnnError(*_PARAM_INVALID, f"{name}: a TensorDesc without data can be validated but not run")
    import numpy as np  # loaded already: the data is an array

    data = desc.data
    return data if type(data) is np.ndarray else np.asarray(data)  # subclasses (np.matrix, ...) as plain arrays


def tensor_list_data(descs: tuple | None, name: str) -> list | None:
    """The NumPy arrays behind an aclTensorList argument (None for a null list or a null entry)."""
    if descs is None:
        return None
    return [tensor_data(desc, f"{name}[{i}]") for i, desc in enumerate(descs)]


# ---------------------------------------------------------------------------------------------
# Limits


@dataclass(frozen=True)
class Limits:
    """The limits in force for one call (None: no limit)."""

    bytes: int | None
    ops: int | None


_SUFFIX = {"": 1, "k": 2**10, "m": 2**20, "g": 2**30, "t": 2**40}
_LIMIT_TEXT = re.compile(r"(\d[\d_]*(?:\.\d+)?(?:e\d{1,3})?)\s*([kmgt]?)(?:i?b)?")


def _limit(variable: str, default: int, *, suffixes: bool) -> int | None:
    text = os.environ.get(variable)
    if text is None or not text.strip():
        return default
    key = text.strip().lower()
    if key in ("0", "none", "unlimited", "inf", "off"):
        return None
    match = _LIMIT_TEXT.fullmatch(key)
    if match is None or (match.group(2) and not suffixes):
        raise AclnnError(
            *_PARAM_INVALID,
            f"environment variable {variable}={show(text)} is not a limit: use an integer such as 1e9"
            + (" or 512M" if suffixes else "")
            + ", or 0 for no limit",
        )
    value = int(Decimal(match.group(1).replace("_", "")))
    return value * _SUFFIX[match.group(2)] or None


def limits() -> Limits:
    """The limits in force now (``ACLNN_MAX_BYTES`` / ``ACLNN_MAX_OPS`` or the defaults)."""
    return Limits(
        _limit(ENV_MAX_BYTES, DEFAULT_MAX_BYTES, suffixes=True), _limit(ENV_MAX_OPS, DEFAULT_MAX_OPS, suffixes=False)
    )


def _human(n: int) -> str:
    if n >= _UNBOUNDED:
        return "an unbounded amount"
    for unit, size in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size:
            value = n / size if n < 2**1000 else float("inf")
            return f"{value:.3g} {unit}" if value < 1e6 else f"{show(n)} bytes"
    return f"{n} bytes"


def _itemsize(dtype: str) -> int:
    np_dtype = numpy_tables().numpy_by_dtype.get(dtype)
    return np_dtype.itemsize if np_dtype is not None else 8


def _numel(shape) -> int:
    result = 1
    for d in shape:
        result *= int(d)
    return result


def generic_cost(kwargs: dict, outputs: tuple, names: dict[str, str], out_names: list[str]):
    """Estimate for a kernel without ``cost``: float32 copies of the inputs, float32 results and their
    cast, about 16 element passes over everything. Names the largest output (else the largest input)."""
    import numpy as np

    from generator.kernels._common import Cost

    inputs = [(names.get(k, k), v.size) for k, v in kwargs.items() if isinstance(v, np.ndarray)]
    outs = [(name, _numel(d.shape)) for name, d in zip(out_names, outputs) if d is not None]
    in_elems = sum(n for _, n in inputs)
    out_elems = sum(n for _, n in outs)
    driver = max(outs or inputs or [("the call", 0)], key=lambda item: item[1])[0]
    return Cost(bytes=4 * in_elems + 12 * out_elems, ops=16 * (in_elems + out_elems), param=driver)


# ---------------------------------------------------------------------------------------------
# Kernels


_MODULES: dict[str, ModuleType] = {}


def _module(ref: str) -> tuple[ModuleType, Callable]:
    module_name, function = ref.split(":")
    if module_name not in _MODULES:
        _MODULES[module_name] = importlib.import_module(f"generator.kernels.{module_name}")
    module = _MODULES[module_name]
    return module, getattr(module, function)


def _kernel(ref: str) -> Callable:
    return _module(ref)[1]


def _squash(name: str) -> str:
    return name.replace("_", "").lower()


def _doc_names(kwargs: dict, signature: tuple) -> dict[str, str]:
    """Kernel keyword (``grad_output``, ``class_``) -> the parameter's doc name (``gradOutput``, ``class``)."""
    by_squashed: dict[str, str] = {}
    for doc, _, _ in signature:
        by_squashed.setdefault(_squash(doc), doc)
    out = {}
    for key in kwargs:
        doc = by_squashed.get(_squash(key))
        if doc is not None:
            out[key] = doc
    return out


def _user_words(text: str, names: dict[str, str]) -> str:
    """Replace kernel keywords by the user's parameter names in a kernel's message."""
    renames = {k: v for k, v in names.items() if k != v}
    if not renames:
        return text
    pattern = re.compile(
        r"(?<![A-Za-z0-9_])(" + "|".join(map(re.escape, sorted(renames, key=len, reverse=True))) + r")(?![A-Za-z0-9_])"
    )
    return pattern.sub(lambda m: renames[m.group(1)], text)


def _output_names(outputs: tuple, signature: tuple) -> list[str]:
    names = []
    for i, desc in enumerate(outputs):
        name = f"output {i}"
        for doc, _, value in signature:
            if value is desc and desc is not None:
                name = doc  # the last match: outputs follow their inputs in C signatures
        names.append(name)
    return names


def _refuse(op: str, message: str) -> AclnnError:
    return AclnnError(*_INNER, f"aclnn{op}: the reference kernel refuses this call: {message}")


def _enforce_limits(op: str, module: ModuleType, kwargs: dict, outputs: tuple, names, out_names) -> None:
    """Estimate the call's cost and raise AclnnError(561000) above the limits (see the module docstring)."""
    limit = limits()
    if limit.bytes is None and limit.ops is None:
        return
    cost_fn = getattr(module, "cost", None)
    if cost_fn is None:
        cost = generic_cost(kwargs, outputs, names, out_names)
    else:
        try:
            cost = cost_fn(**kwargs)
        except (ValueError, IndexError) as exc:  # the kernel would refuse these inputs anyway
            raise _refuse(op, _user_words(str(exc), names)) from None
        except Exception as exc:  # a cost function must not fail; refuse rather than run blind
            raise _refuse(
                op, f"its cost could not be estimated ({type(exc).__name__}: {_user_words(str(exc), names)})"
            ) from None
    param = names.get(cost.param, cost.param)
    nbytes, ops = _count(cost.bytes), _count(cost.ops)
    bytes_param = param
    # The outputs alone must fit, whatever the kernel's own estimate says.
    sized = [(name, _numel(d.shape) * _itemsize(d.dtype)) for name, d in zip(out_names, outputs) if d is not None]
    out_bytes = sum(size for _, size in sized)
    if out_bytes > nbytes:
        nbytes, bytes_param = out_bytes, max(sized, key=lambda item: item[1])[0]
    if limit.bytes is not None and nbytes > limit.bytes:
        raise _refuse(
            op,
            f"{bytes_param} implies about {_human(nbytes)} of memory, above the limit of {_human(limit.bytes)} "
            f"(environment variable {ENV_MAX_BYTES}; 0 means no limit)",
        )
    if limit.ops is not None and ops > limit.ops:
        raise _refuse(
            op,
            f"{param} implies about {_amount(ops)} operations (about {_seconds(ops)}), above the limit of "
            f"{show(limit.ops)} (environment variable {ENV_MAX_OPS}; 0 means no limit)",
        )


_UNBOUNDED = 2**256  # an infinite or undefined estimate


def _count(value) -> int:
    """A cost figure as an int; an infinite or undefined estimate counts as too much."""
    try:
        return min(max(0, int(value)), _UNBOUNDED)
    except (OverflowError, ValueError, TypeError):
        return _UNBOUNDED


def _amount(ops: int) -> str:
    return "an unbounded number of" if ops >= _UNBOUNDED else f"{ops:.3g}" if ops >= 10**6 else str(ops)


def _seconds(ops: int) -> str:
    return f"{ops / 1e9:.3g} s" if ops < _UNBOUNDED else "forever"


def _check_outputs(outputs: tuple, out_names: list[str]) -> None:
    for name, desc in zip(out_names, outputs):
        if desc is not None and desc.data is not None and not desc.data.flags.writeable:
            raise AclnnError(*_PARAM_INVALID, f"{name}: the output array is read-only")


def execute(
    op: str, backend: str, kernel: str, kwargs: dict, outputs: tuple, signature: tuple = ()
) -> list[np.ndarray | None]:
    """Run ``op`` on ``backend`` and return one array per output (None for outputs not produced).

    ``kwargs`` are the reference kernel's arguments; ``signature`` is every C argument as
    (doc name, C type, normalised value), for the CANN backend and for error messages. Results are
    cast to each output descriptor's dtype; an output passed as an array is filled in place and
    returned. The NumPy backend first enforces the resource limits (see the module docstring).
    """
    import numpy as np

    out_names = _output_names(outputs, signature)
    _check_outputs(outputs, out_names)
    if backend == "numpy":
        names = _doc_names(kwargs, signature)
        module, function = _module(kernel)
        _enforce_limits(op, module, kwargs, outputs, names, out_names)
        try:
            result = function(**kwargs)
        except (ValueError, IndexError) as exc:
            # Inputs the first phase accepts but whose result CANN leaves undefined (say an index
            # outside its pooling window): the reference refuses rather than invent a value.
            raise AclnnError(
                *_INNER, f"aclnn{op}: the reference kernel rejected the inputs: {_user_words(str(exc), names)}"
            ) from None
        except Exception as exc:  # anything else is a kernel limitation, reported as CANN would: inner error
            raise AclnnError(
                *_INNER,
                f"aclnn{op}: the reference kernel failed on these inputs: {type(exc).__name__}: "
                f"{_user_words(str(exc), names)}",
            ) from exc  # the kernel's own exception stays the cause (opgen lint --deep locates it)
    elif backend == "cann":
        from generator.runtime import cann

        result = cann.run(op, signature, outputs)
    else:
        raise AclnnError(*_PARAM_INVALID, f"unknown backend {show(backend)}; use 'numpy' or 'cann'")
    results = list(result) if isinstance(result, (tuple, list)) else [result]
    out: list[np.ndarray | None] = []
    for name, desc, value in zip(out_names, outputs, results):
        if desc is None or value is None:
            out.append(None)
            continue
        with np.errstate(all="ignore"):  # NaN/inf cast to an integer output: as CANN's Cast, unspecified
            value = np.asarray(value).astype(numpy_dtype(desc.dtype), copy=False)
        if value.size != _numel(desc.shape):
            raise AclnnError(
                *_PARAM_INVALID,
                f"aclnn{op}: {name} has shape {list(desc.shape)} but the result has shape {list(value.shape)}",
            )
        if desc.data is not None:
            with np.errstate(all="ignore"):
                np.copyto(desc.data, value.reshape(desc.data.shape), casting="unsafe")
            out.append(desc.data)
        else:
            out.append(value.reshape(desc.shape))
    return out
