"""Test support for the host runtime: one built toolkit per session and a ctypes driver of phase 1.

``toolkit()`` builds (or reuses, by content hash) the host runtime for the repository's ``generated/``
tree. :class:`PhaseOne` calls an operator's ``aclnn<Op>GetWorkspaceSize`` in the host runtime with
arguments given as runtime values (``TensorDesc``, ``Scalar``, lists, plain values, None) and returns
the status code and ``aclGetRecentErrMsg()``, releasing every handle and the executor afterwards.
:func:`argument_sets` is the seeded table of argument sets that drives both the Python validators and
the C++ checks.
"""

from __future__ import annotations

import ctypes
import math
import os
import random
from functools import cache
from pathlib import Path

import numpy as np

import aclnn  # noqa: F401 - installs the catalogue tables the runtime values use
from generator import expr as ex
from generator import hostrt
from generator.loader import OpInfo, Project, load_project
from generator.runtime import rules
from generator.runtime.examples import arguments
from generator.runtime.values import Scalar, TensorDesc, acl_dtype_value, acl_format_value, numpy_dtype

REPO = Path(__file__).resolve().parents[1]
GENERATED = REPO / "generated"


@cache
def project() -> Project:
    return load_project(REPO / "specs")


@cache
def toolkit(sanitize: bool = False) -> hostrt.Toolkit:
    return hostrt.build(GENERATED, sanitize=sanitize)


@cache
def libraries(home: str) -> list[ctypes.CDLL]:
    folder = Path(home) / "lib64"
    return [ctypes.CDLL(str(folder / name), mode=ctypes.RTLD_GLOBAL) for name in reversed(hostrt.LIBRARIES)]


_PLAIN = {
    "bool": ctypes.c_bool,
    "int": ctypes.c_int,
    "int8_t": ctypes.c_int8,
    "int32_t": ctypes.c_int32,
    "int64_t": ctypes.c_int64,
    "uint64_t": ctypes.c_uint64,
    "float": ctypes.c_float,
    "double": ctypes.c_double,
}


class PhaseOne:
    """Calls ``aclnn<Op>GetWorkspaceSize`` of the host runtime through ctypes."""

    def __init__(self, home: str):
        self.libs = libraries(home)

    def fn(self, name: str, restype=ctypes.c_int):
        for lib in self.libs:
            f = getattr(lib, name, None)
            if f is not None:
                f.restype = restype
                return f
        raise AttributeError(name)

    def message(self) -> str:
        text = self.fn("aclGetRecentErrMsg", ctypes.c_char_p)()
        return text.decode("utf-8", "replace") if text else ""

    def _tensor(self, desc: TensorDesc, keep: list, release: list) -> int:
        rank = len(desc.shape)
        shape = (ctypes.c_int64 * max(1, rank))(*desc.shape)
        strides = [1] * rank
        for i in range(rank - 2, -1, -1):
            strides[i] = strides[i + 1] * max(1, desc.shape[i + 1])
        c_strides = (ctypes.c_int64 * max(1, rank))(*strides)
        keep += [shape, c_strides]
        handle = self.fn("aclCreateTensor", ctypes.c_void_p)(
            shape, ctypes.c_uint64(rank), ctypes.c_int(acl_dtype_value(desc.dtype)), c_strides, ctypes.c_int64(0),
            ctypes.c_int(acl_format_value(desc.format)), shape, ctypes.c_uint64(rank), ctypes.c_void_p(None),
        )  # fmt: skip
        assert handle, self.message()
        return handle

    def _scalar(self, value: Scalar, keep: list) -> int:
        dtype = numpy_dtype(value.dtype)
        raw = np.array(value.value, dtype=dtype).tobytes()
        buffer = ctypes.create_string_buffer(raw, max(16, len(raw)))
        keep.append(buffer)
        handle = self.fn("aclCreateScalar", ctypes.c_void_p)(buffer, ctypes.c_int(acl_dtype_value(value.dtype)))
        assert handle, self.message()
        return handle

    def call(self, info: OpInfo, product: str, values: dict) -> tuple[int, str]:
        """(status, message) of phase 1 on ``values`` (doc name -> runtime value; missing = null)."""
        os.environ["OPGEN_PRODUCT"] = product
        keep: list = []
        release: list = []  # (destroy function name, handle)
        args = []
        for p in info.spec.params:
            value = values.get(p.name)
            if value is None:
                args.append(ctypes.c_void_p(None) if p.ctype.endswith("*") else _PLAIN[p.ctype](0))
            elif p.ctype in ("const aclTensor*", "aclTensor*"):
                handle = self._tensor(value, keep, release)
                release.append(("aclDestroyTensor", handle))
                args.append(ctypes.c_void_p(handle))
            elif p.ctype == "const aclScalar*":
                handle = self._scalar(value, keep)
                release.append(("aclDestroyScalar", handle))
                args.append(ctypes.c_void_p(handle))
            elif p.ctype in ("const aclIntArray*", "const aclBoolArray*", "const aclFloatArray*"):
                kind, element = {
                    "const aclIntArray*": ("Int", ctypes.c_int64),
                    "const aclBoolArray*": ("Bool", ctypes.c_bool),
                    "const aclFloatArray*": ("Float", ctypes.c_float),
                }[p.ctype]
                array = (element * max(1, len(value)))(*value)
                keep.append(array)
                handle = self.fn(f"aclCreate{kind}Array", ctypes.c_void_p)(array, ctypes.c_uint64(len(value)))
                assert handle, self.message()
                release.append((f"aclDestroy{kind}Array", handle))
                args.append(ctypes.c_void_p(handle))
            elif p.ctype == "const aclTensorList*":
                handles = [self._tensor(item, keep, release) if item is not None else None for item in value]
                array = (ctypes.c_void_p * max(1, len(handles)))(*handles)
                keep.append(array)
                handle = self.fn("aclCreateTensorList", ctypes.c_void_p)(array, ctypes.c_uint64(len(handles)))
                release.append(("aclDestroyTensorList", handle))
                args.append(ctypes.c_void_p(handle))
            elif p.ctype in ("const char*", "char*"):
                text = ctypes.create_string_buffer(str(value).encode("utf-8"))
                keep.append(text)
                args.append(ctypes.cast(text, ctypes.c_void_p))
            else:
                args.append(_PLAIN[p.ctype](value))
        size, executor = ctypes.c_uint64(0), ctypes.c_void_p()
        try:
            code = self.fn(f"{info.spec.name}GetWorkspaceSize")(*args, ctypes.byref(size), ctypes.byref(executor))
            message = self.message() if code != 0 else ""
            if code == 0:
                assert self.fn("aclDestroyAclOpExecutor")(executor) == 0
        finally:
            for name, handle in reversed(release):
                self.fn(name)(ctypes.c_void_p(handle))
        return code, message


# ---------------------------------------------------------------------------------------------
# The shared table of argument sets


SCALAR_DTYPES = ("FLOAT", "FLOAT16", "BFLOAT16", "DOUBLE", "INT8", "INT16", "INT32", "INT64", "UINT8", "BOOL")
SCALAR_VALUES = (-2.0, -1.0, -0.5, -0.001, 0.0, 0.001, 0.5, 1.0, 1.5, 2.0, 3.0, 100.0, float("inf"), float("nan"))


def _scalar(value, dtype: str) -> Scalar:
    """A Scalar whose value the dtype represents exactly (both sides then see the same number)."""
    np_dtype = numpy_dtype(dtype)
    kind = np.dtype(np_dtype).kind
    if kind == "b":
        return Scalar(bool(value), dtype)
    if kind in "iu":
        info = np.iinfo(np_dtype)
        number = 0 if not math.isfinite(value) else int(value)
        return Scalar(int(min(max(number, info.min), info.max)), dtype)
    with np.errstate(over="ignore"):
        return Scalar(float(np.array(value, dtype=np_dtype).astype(np.float64)), dtype)


def _desc_of(value) -> TensorDesc | None:
    if value is None or isinstance(value, TensorDesc):
        return value
    array = np.asarray(value)
    from generator.runtime.values import as_tensor

    desc = as_tensor("x", array)
    return TensorDesc(desc.shape, desc.dtype, desc.format)


def base_sets(info: OpInfo) -> list[tuple[str, dict]]:
    """(product, values) of the example and of every check's trigger and boundary.

    Outputs the case does not set are inferred from its inputs (as the validators do); scalars hold
    values their dtype represents exactly, as a C caller's aclScalar does.
    """
    spec = info.spec
    cases = [(spec.example.product, {})]
    for check in spec.checks:
        if check.cases is None:
            continue
        product = check.cases.product or spec.example.product
        cases.append((product, check.cases.trigger))
        boundary = spec.example.product if check.kind == "product_supported" else product
        cases.append((boundary, check.cases.boundary))
    sets = []
    for product, overrides in cases:
        values = arguments(spec, spec.example, overrides, with_data=False)
        for name, value in list(values.items()):
            if isinstance(value, np.ndarray):
                values[name] = _desc_of(value)
            elif isinstance(value, Scalar) and value.dtype in SCALAR_DTYPES:
                values[name] = _scalar(value.value, value.dtype)
        for name in overrides:
            if overrides[name] is None:
                values[name] = None
        _infer_outputs(info, product, values, keep=set(overrides))
        sets.append((product, values))
    return sets


def _infer_outputs(info: OpInfo, product: str, values: dict, keep: set = frozenset()) -> None:
    """Recompute the outputs (except those in ``keep``) from the inputs, as a caller would allocate them."""
    spec = info.spec
    names = {p.name: f"p{i}" for i, p in enumerate(spec.params)}
    scope = {"rt": rules, "product": product, **{names[k]: (tuple(v) if isinstance(v, list) else v)
                                                  for k, v in values.items()}}  # fmt: skip
    for i, p in enumerate(spec.params):
        if p.role != "output" or p.name in keep:
            continue
        path = ("params", i, "infer")
        try:
            if p.infer.when and not eval(ex.to_python(info.exprs[path + ("when",)], names), scope):  # noqa: S307
                values[p.name] = None
                continue
            shape = tuple(int(d) for d in eval(ex.to_python(info.exprs[path + ("shape",)], names), scope))  # noqa: S307
            dtype = eval(ex.to_python(info.exprs[path + ("dtype",)], names), scope)  # noqa: S307
            fmt = (
                eval(ex.to_python(info.exprs[path + ("format",)], names), scope)  # noqa: S307
                if p.infer.format
                else {3: "NCL", 4: "NCHW", 5: "NCDHW"}.get(len(shape), "ND")
            )
            values[p.name] = TensorDesc(shape, dtype, fmt)
        except Exception:  # noqa: BLE001 - broken inputs: keep the previous output
            continue


def _mutate(rng: random.Random, info: OpInfo, values: dict, catalog) -> None:
    spec = info.spec
    p = rng.choice(spec.params)
    value = values.get(p.name)
    dtypes = [d.name for d in catalog.dtypes.dtypes]
    formats = [f.name for f in catalog.formats.formats]
    if p.ctype.endswith("*") and rng.random() < 0.08:
        values[p.name] = None
        return
    if p.ctype in ("const aclTensor*", "aclTensor*"):
        desc = value if isinstance(value, TensorDesc) else TensorDesc((2, 2), "FLOAT", "ND")
        shape, dtype, fmt = list(desc.shape), desc.dtype, desc.format
        choice = rng.random()
        if choice < 0.3:
            dtype = rng.choice(dtypes)
            if rng.random() < 0.5:  # a supported one, for the deeper checks
                rule = rng.choice(p.tensor.dtypes)
                dtype = rng.choice(rule.dtypes)
        elif choice < 0.45:
            fmt = rng.choice(formats + list(p.tensor.formats) * 3)
        elif choice < 0.75 and shape:
            i = rng.randrange(len(shape))
            shape[i] = max(0, rng.choice([shape[i] - 1, shape[i] + 1, 0, 1, rng.randint(0, 9)]))
        elif choice < 0.9:
            if shape and rng.random() < 0.5:
                shape.pop(rng.randrange(len(shape)))
            elif len(shape) < 9:
                shape.insert(rng.randrange(len(shape) + 1), rng.randint(1, 4))
        else:
            shape = [rng.randint(0, 5) for _ in range(rng.randint(0, 6))]
        values[p.name] = TensorDesc(tuple(shape), dtype, fmt)
    elif p.ctype == "const aclScalar*":
        old = value if isinstance(value, Scalar) else Scalar(1.0, "FLOAT")
        dtype = rng.choice(SCALAR_DTYPES) if rng.random() < 0.4 else old.dtype
        number = rng.choice(SCALAR_VALUES) if rng.random() < 0.8 else float(old.value)
        if dtype not in SCALAR_DTYPES:
            dtype = "FLOAT"
        values[p.name] = _scalar(number, dtype)
    elif p.ctype in ("const aclIntArray*", "const aclFloatArray*"):
        items = list(value) if isinstance(value, (list, tuple)) else [1, 1]
        choice = rng.random()
        if choice < 0.4 and items:
            i = rng.randrange(len(items))
            items[i] = rng.choice([items[i] - 1, items[i] + 1, 0, -1, rng.randint(-3, 9)])
        elif choice < 0.6 and items:
            items.pop()
        elif choice < 0.8:
            items.append(rng.randint(0, 4))
        else:
            items = [rng.randint(-1, 5) for _ in range(rng.randint(0, 5))]
        if p.ctype == "const aclFloatArray*":
            items = [float(np.float32(v)) for v in items]
        values[p.name] = items
    elif p.ctype == "const aclBoolArray*":
        items = list(value) if isinstance(value, (list, tuple)) else [True]
        if items and rng.random() < 0.6:
            i = rng.randrange(len(items))
            items[i] = not items[i]
        elif rng.random() < 0.5 and items:
            items.pop()
        else:
            items.append(rng.random() < 0.5)
        values[p.name] = items
    elif p.ctype == "bool":
        values[p.name] = not bool(value)
    elif p.ctype in ("int", "int8_t", "int32_t", "int64_t", "uint64_t"):
        low, high = {"int8_t": (-128, 127), "uint64_t": (0, 2**20)}.get(p.ctype, (-(2**31), 2**31 - 1))
        number = int(value) if isinstance(value, int) else 0
        candidates = [number - 1, number + 1, 0, 1, 2, -1, rng.randint(-3, 8)]
        if p.value is not None and p.value.enum:
            candidates += [e.value for e in p.value.enum]
        values[p.name] = min(max(rng.choice(candidates), low), high)
    elif p.ctype in ("float", "double"):
        number = rng.choice(SCALAR_VALUES)
        values[p.name] = float(np.float32(number)) if p.ctype == "float" else number


def argument_sets(info: OpInfo, count: int = 1000, seed: int = 20260101) -> list[tuple[str, dict]]:
    """The check cases of ``info`` plus ``count`` seeded random mutations of them: (product, values)."""
    catalog = project().catalog
    rng = random.Random(f"{seed}:{info.spec.name}")
    bases = base_sets(info)
    out = list(bases)
    tags = [p.tag for p in catalog.products.products]
    for _ in range(count):
        product, values = rng.choice(bases)
        values = dict(values)
        for _ in range(rng.choice([1, 1, 2, 3])):
            _mutate(rng, info, values, catalog)
        if rng.random() < 0.7:
            _infer_outputs(info, product, values)
        if rng.random() < 0.25:
            product = rng.choice(tags)
        out.append((product, values))
    return out
