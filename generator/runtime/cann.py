"""The CANN backend: runs an aclnn operator through the real libraries with ctypes.

Everything is derived from the spec's C signature: each argument is built with the public host API
(``aclCreateTensor`` over device memory filled by ``aclrtMemcpy``, ``aclCreateScalar``,
``aclCreateIntArray``, ``aclCreateBoolArray``, plain C values), then the two phases run on a
stream, the outputs are copied back and every handle and buffer is released, also on failure.

The libraries are looked up in ``$ASCEND_TOOLKIT_HOME/lib64`` (``libascendcl.so`` for the
runtime, ``libnnopbase.so`` for the handle constructors, ``libopapi.so`` for the operators);
without them every call raises AclnnError(361001) saying so.
"""

from __future__ import annotations

import ctypes
import os
from contextlib import ExitStack, nullcontext
from pathlib import Path

import numpy as np

from generator.runtime.errors import AclnnError
from generator.runtime.values import Scalar, TensorDesc, acl_dtype_value, acl_format_value, numpy_dtype

LIBRARIES = ("libopapi.so", "libnnopbase.so", "libascendcl.so")
MEMCPY_HOST_TO_DEVICE, MEMCPY_DEVICE_TO_HOST = 1, 2
MALLOC_HUGE_FIRST = 0
_SCALAR_CTYPES = {
    "FLOAT": ctypes.c_float,
    "DOUBLE": ctypes.c_double,
    "FLOAT16": ctypes.c_uint16,
    "BFLOAT16": ctypes.c_uint16,
    "INT8": ctypes.c_int8,
    "UINT8": ctypes.c_uint8,
    "INT16": ctypes.c_int16,
    "UINT16": ctypes.c_uint16,
    "INT32": ctypes.c_int32,
    "UINT32": ctypes.c_uint32,
    "INT64": ctypes.c_int64,
    "UINT64": ctypes.c_uint64,
    "BOOL": ctypes.c_bool,
}
_PLAIN_CTYPES = {
    "bool": ctypes.c_bool,
    "int": ctypes.c_int,
    "int8_t": ctypes.c_int8,
    "int32_t": ctypes.c_int32,
    "int64_t": ctypes.c_int64,
    "uint64_t": ctypes.c_uint64,
    "float": ctypes.c_float,
    "double": ctypes.c_double,
}


def _runtime_error(message: str) -> AclnnError:
    return AclnnError(361001, "ACLNN_ERR_RUNTIME_ERROR", message)


class Cann:
    """The loaded libraries plus one initialised device and stream (created on first use)."""

    _instance: Cann | None = None

    def __init__(self, home: str):
        folder = Path(home) / "lib64"
        self.libs = []
        for name in LIBRARIES:
            path = folder / name
            if path.is_file():
                try:
                    self.libs.append(ctypes.CDLL(str(path), mode=ctypes.RTLD_GLOBAL))
                except OSError as exc:
                    raise _runtime_error(f"cannot load {path}: {exc}") from None
        if not self.libs:
            raise _runtime_error(f"no CANN library ({', '.join(LIBRARIES)}) in {folder}")
        self.stream = ctypes.c_void_p()
        self._call("aclInit", None)
        self._call("aclrtSetDevice", ctypes.c_int32(int(os.environ.get("ASCEND_DEVICE_ID", "0"))))
        self._call("aclrtCreateStream", ctypes.byref(self.stream))

    @classmethod
    def get(cls) -> Cann:
        home = os.environ.get("ASCEND_TOOLKIT_HOME", "").strip()
        if not home:
            raise _runtime_error("backend 'cann' needs a CANN toolkit: set ASCEND_TOOLKIT_HOME")
        if cls._instance is None or cls._instance.home != home:
            instance = cls(home)
            instance.home = home
            cls._instance = instance
        return cls._instance

    def function(self, name: str, restype=ctypes.c_int):
        for lib in self.libs:
            fn = getattr(lib, name, None)
            if fn is not None:
                fn.restype = restype
                return fn
        raise AclnnError(561003, "ACLNN_ERR_INNER_FIND_KERNEL_ERROR", f"{name} is not in the CANN libraries")

    def _call(self, name: str, *args) -> None:
        status = self.function(name)(*args)
        if status != 0:
            raise _runtime_error(f"{name} failed with {status}: {self.recent_error()}")

    def recent_error(self) -> str:
        try:
            text = self.function("aclGetRecentErrMsg", ctypes.c_char_p)()
        except AclnnError:
            return ""
        return text.decode("utf-8", "replace") if text else ""

    # -- handles -------------------------------------------------------------------------------

    def device_buffer(self, stack: ExitStack, nbytes: int) -> ctypes.c_void_p:
        ptr = ctypes.c_void_p()
        if nbytes:
            self._call("aclrtMalloc", ctypes.byref(ptr), ctypes.c_size_t(nbytes), ctypes.c_int(MALLOC_HUGE_FIRST))
            stack.callback(self.function("aclrtFree"), ptr)
        return ptr

    def tensor(
        self, stack: ExitStack, desc: TensorDesc, host: np.ndarray | None
    ) -> tuple[ctypes.c_void_p, ctypes.c_void_p]:
        """An aclTensor over fresh device memory (filled from ``host`` when given)."""
        shape = (ctypes.c_int64 * max(1, desc.rank))(*desc.shape)
        strides = [1] * desc.rank
        for i in range(desc.rank - 2, -1, -1):
            strides[i] = strides[i + 1] * max(1, desc.shape[i + 1])
        c_strides = (ctypes.c_int64 * max(1, desc.rank))(*strides)
        nbytes = desc.numel * numpy_dtype(desc.dtype).itemsize
        device = self.device_buffer(stack, nbytes)
        if host is not None and nbytes:
            data = np.ascontiguousarray(host)
            self._call(
                "aclrtMemcpy", device, ctypes.c_size_t(nbytes), data.ctypes.data_as(ctypes.c_void_p),
                ctypes.c_size_t(nbytes), ctypes.c_int(MEMCPY_HOST_TO_DEVICE),
            )  # fmt: skip
        create = self.function("aclCreateTensor", ctypes.c_void_p)
        handle = create(
            shape, ctypes.c_uint64(desc.rank), ctypes.c_int(acl_dtype_value(desc.dtype)), c_strides,
            ctypes.c_int64(0), ctypes.c_int(acl_format_value(desc.format)), shape, ctypes.c_uint64(desc.rank), device,
        )  # fmt: skip
        if not handle:
            raise _runtime_error(f"aclCreateTensor failed: {self.recent_error()}")
        stack.callback(self.function("aclDestroyTensor"), ctypes.c_void_p(handle))
        return ctypes.c_void_p(handle), device

    def scalar(self, stack: ExitStack, value: Scalar) -> ctypes.c_void_p:
        ctype = _SCALAR_CTYPES.get(value.dtype)
        if ctype is None:
            raise AclnnError(
                161002, "ACLNN_ERR_PARAM_INVALID", f"aclScalar of dtype {value.dtype} is not supported here"
            )
        if value.dtype in ("FLOAT16", "BFLOAT16"):
            raw = np.array(value.value, dtype=numpy_dtype(value.dtype)).view(np.uint16).item()
            host = ctype(raw)
        else:
            host = ctype(value.value)
        stack.enter_context(nullcontext(host))  # keeps the host buffer alive until the call ends
        handle = self.function("aclCreateScalar", ctypes.c_void_p)(
            ctypes.byref(host), ctypes.c_int(acl_dtype_value(value.dtype))
        )
        if not handle:
            raise _runtime_error(f"aclCreateScalar failed: {self.recent_error()}")
        stack.callback(self.function("aclDestroyScalar"), ctypes.c_void_p(handle))
        return ctypes.c_void_p(handle)

    def array(self, stack: ExitStack, values: tuple, kind: str) -> ctypes.c_void_p:
        element = {"Int": ctypes.c_int64, "Bool": ctypes.c_bool, "Float": ctypes.c_float}[kind]
        host = (element * max(1, len(values)))(*values)
        stack.enter_context(nullcontext(host))  # keeps the host buffer alive until the call ends
        handle = self.function(f"aclCreate{kind}Array", ctypes.c_void_p)(host, ctypes.c_uint64(len(values)))
        if not handle:
            raise _runtime_error(f"aclCreate{kind}Array failed: {self.recent_error()}")
        stack.callback(self.function(f"aclDestroy{kind}Array"), ctypes.c_void_p(handle))
        return ctypes.c_void_p(handle)

    def copy_back(self, device: ctypes.c_void_p, desc: TensorDesc) -> np.ndarray:
        out = np.empty(desc.shape, dtype=numpy_dtype(desc.dtype))
        if out.nbytes:
            self._call(
                "aclrtMemcpy", out.ctypes.data_as(ctypes.c_void_p), ctypes.c_size_t(out.nbytes), device,
                ctypes.c_size_t(out.nbytes), ctypes.c_int(MEMCPY_DEVICE_TO_HOST),
            )  # fmt: skip
        return out


def run(op: str, signature: tuple, outputs: tuple) -> list[np.ndarray | None]:
    """Execute ``aclnn<op>`` with the arguments of ``signature``: (name, C type, value) in C order.

    Tensor values are TensorDesc (with data for inputs); outputs are the descriptors of ``outputs``.
    Returns one array per output (None for null outputs).
    """
    from generator.runtime.values import status_name

    cann = Cann.get()
    with ExitStack() as stack:
        args, devices = [], {}
        for name, ctype, value in signature:
            if value is None:
                args.append(ctypes.c_void_p(None) if ctype.endswith("*") else _PLAIN_CTYPES[ctype](0))
            elif ctype in ("const aclTensor*", "aclTensor*"):
                handle, device = cann.tensor(stack, value, value.data if ctype.startswith("const") else None)
                devices[name] = device
                args.append(handle)
            elif ctype == "const aclScalar*":
                args.append(cann.scalar(stack, value))
            elif ctype in ("const aclIntArray*", "const aclBoolArray*", "const aclFloatArray*"):
                args.append(cann.array(stack, value, ctype[len("const acl") : -len("Array*")]))
            elif ctype in _PLAIN_CTYPES:
                args.append(_PLAIN_CTYPES[ctype](value))
            else:
                raise AclnnError(
                    161002, "ACLNN_ERR_PARAM_INVALID", f"{name}: C type {ctype} is not supported by ctypes"
                )
        workspace_size, executor = ctypes.c_uint64(0), ctypes.c_void_p()
        status = cann.function(f"aclnn{op}GetWorkspaceSize")(
            *args, ctypes.byref(workspace_size), ctypes.byref(executor)
        )
        if status != 0:
            raise AclnnError(status, status_name(status), f"aclnn{op}GetWorkspaceSize: {cann.recent_error()}")
        workspace = cann.device_buffer(stack, workspace_size.value)
        status = cann.function(f"aclnn{op}")(workspace, workspace_size, executor, cann.stream)
        if status != 0:
            raise AclnnError(status, status_name(status), f"aclnn{op}: {cann.recent_error()}")
        cann._call("aclrtSynchronizeStream", cann.stream)
        names = [name for name, ctype, _ in signature if ctype == "aclTensor*"]
        return [
            None if desc is None else cann.copy_back(devices[name], desc)
            for name, desc in zip(names, outputs, strict=True)
        ]
