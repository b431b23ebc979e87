"""The CANN backend: runs an aclnn operator through the CANN libraries with ctypes.

Everything is derived from the spec's C signature: each argument is built with the public host API
(``aclCreateTensor`` over device memory filled by ``aclrtMemcpy``, with the array's own strides for a
non-contiguous input; ``aclCreateScalar``; ``aclCreateIntArray``/``BoolArray``/``FloatArray``;
``aclCreateTensorList``; plain C values; ``const char*`` strings), then the two phases run on a stream,
the outputs are copied back and every handle and buffer is released, also on failure.

The libraries are looked up in ``$ASCEND_TOOLKIT_HOME/lib64`` (``libascendcl.so`` for the runtime,
``libnnopbase.so`` for the handle constructors, ``libopapi.so`` for the operators): a CANN install, or
the opgen host runtime (``generator.hostrt``), which has the same layout. Without them every call raises
AclnnError(361001) saying so. The device is ``ASCEND_DEVICE_ID`` (default 0). With the host runtime the
product is the one it emulates (``OPGEN_PRODUCT``), as the hardware decides it on a real install.

This module also holds the host runtime's second phase, :func:`hostrt_compute`: the runtime hands it the
JSON request a first phase recorded (through a ctypes callback here, or from the embedded interpreter of a
sample), and it computes the outputs with the op's NumPy reference kernel, in place in device memory.
"""

from __future__ import annotations

import ctypes
import json
import os
from contextlib import ExitStack, nullcontext
from pathlib import Path

import numpy as np

from generator.runtime.errors import AclnnError
from generator.runtime.values import Scalar, TensorDesc, acl_dtype_value, acl_format_value, numpy_dtype

LIBRARIES = ("libopapi.so", "libnnopbase.so", "libascendcl.so")
MEMCPY_HOST_TO_DEVICE, MEMCPY_DEVICE_TO_HOST = 1, 2
MALLOC_HUGE_FIRST = 0
ACL_ERROR_REPEAT_INITIALIZE = 100002
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
_ARRAY_CTYPES = {"const aclIntArray*": "Int", "const aclBoolArray*": "Bool", "const aclFloatArray*": "Float"}
_COMPUTE = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_char_p)


def _runtime_error(message: str) -> AclnnError:
    return AclnnError(361001, "ACLNN_ERR_RUNTIME_ERROR", message)


class Cann:
    """The loaded libraries plus one initialised device and stream (created on first use)."""

    _instance: Cann | None = None

    def __init__(self, home: str):
        folder = Path(home) / "lib64"
        self.home = home
        self.libs = []
        for name in reversed(LIBRARIES):  # dependencies first
            path = folder / name
            if path.is_file():
                try:
                    self.libs.insert(0, ctypes.CDLL(str(path), mode=ctypes.RTLD_GLOBAL))
                except OSError as exc:
                    raise _runtime_error(f"cannot load {path}: {exc}") from None
        if not self.libs:
            raise _runtime_error(f"no CANN library ({', '.join(LIBRARIES)}) in {folder}")
        self._callback = None
        register = self._optional("opgen_hostrt_set_compute")
        if register is not None:  # the opgen host runtime: compute in this interpreter
            self._callback = _COMPUTE(self._compute)
            register.restype = None
            register(self._callback)
        self.stream = ctypes.c_void_p()
        status = self.function("aclInit")(None)
        if status not in (0, ACL_ERROR_REPEAT_INITIALIZE):  # this process may have initialised ACL already
            raise _runtime_error(f"aclInit failed with {status}: {self.recent_error()}")
        self._call("aclrtSetDevice", ctypes.c_int32(int(os.environ.get("ASCEND_DEVICE_ID", "0"))))
        self._call("aclrtCreateStream", ctypes.byref(self.stream))

    @classmethod
    def get(cls) -> Cann:
        home = os.environ.get("ASCEND_TOOLKIT_HOME", "").strip()
        if not home:
            raise _runtime_error("backend 'cann' needs a CANN toolkit: set ASCEND_TOOLKIT_HOME")
        if cls._instance is None or cls._instance.home != home:
            cls._instance = cls(home)
        return cls._instance

    def _optional(self, name: str):
        for lib in self.libs:
            fn = getattr(lib, name, None)
            if fn is not None:
                return fn
        return None

    def function(self, name: str, restype=ctypes.c_int):
        fn = self._optional(name)
        if fn is None:
            raise AclnnError(561003, "ACLNN_ERR_INNER_FIND_KERNEL_ERROR", f"{name} is not in the CANN libraries")
        fn.restype = restype
        return fn

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

    def _compute(self, request: bytes) -> int:
        """The host runtime's compute callback (see :func:`hostrt_compute`)."""
        try:
            code, message = hostrt_compute(request.decode("utf-8"))
        except BaseException as exc:  # noqa: BLE001 - nothing may escape a ctypes callback
            code, message = 561000, f"opgen host runtime: the compute step failed: {type(exc).__name__}: {exc}"
        if code != 0:
            setter = self.function("opgen_hostrt_set_error", None)
            setter(message.encode("utf-8", "replace"))
        return code

    # -- handles -------------------------------------------------------------------------------

    def device_buffer(self, stack: ExitStack, nbytes: int) -> ctypes.c_void_p:
        ptr = ctypes.c_void_p()
        if nbytes:
            self._call("aclrtMalloc", ctypes.byref(ptr), ctypes.c_size_t(nbytes), ctypes.c_int(MALLOC_HUGE_FIRST))
            stack.callback(self.function("aclrtFree"), ptr)
        return ptr

    def tensor(
        self, stack: ExitStack, desc: TensorDesc, host: np.ndarray | None, *, destroy: bool = True
    ) -> tuple[ctypes.c_void_p, ctypes.c_void_p]:
        """An aclTensor over fresh device memory (filled from ``host`` when given).

        A strided input keeps its layout: the device gets the bytes its view spans and the tensor gets the
        view's strides over a storage of that many elements.
        """
        itemsize = numpy_dtype(desc.dtype).itemsize
        strides, storage, raw = self._layout(desc, host, itemsize)
        device = self.device_buffer(stack, storage * itemsize)
        if raw is not None and raw.nbytes:
            self._call(
                "aclrtMemcpy", device, ctypes.c_size_t(raw.nbytes), raw.ctypes.data_as(ctypes.c_void_p),
                ctypes.c_size_t(raw.nbytes), ctypes.c_int(MEMCPY_HOST_TO_DEVICE),
            )  # fmt: skip
        rank = desc.rank
        shape = (ctypes.c_int64 * max(1, rank))(*desc.shape)
        c_strides = (ctypes.c_int64 * max(1, rank))(*strides)
        c_storage = (ctypes.c_int64 * 1)(storage)
        create = self.function("aclCreateTensor", ctypes.c_void_p)
        handle = create(
            shape, ctypes.c_uint64(rank), ctypes.c_int(acl_dtype_value(desc.dtype)), c_strides, ctypes.c_int64(0),
            ctypes.c_int(acl_format_value(desc.format)), c_storage, ctypes.c_uint64(1), device,
        )  # fmt: skip
        if not handle:
            raise _runtime_error(f"aclCreateTensor failed: {self.recent_error()}")
        if destroy:
            stack.callback(self.function("aclDestroyTensor"), ctypes.c_void_p(handle))
        return ctypes.c_void_p(handle), device

    @staticmethod
    def _layout(desc: TensorDesc, host: np.ndarray | None, itemsize: int):
        """(element strides, storage elements, bytes to copy or None) of a tensor."""
        contiguous = [1] * desc.rank
        for i in range(desc.rank - 2, -1, -1):
            contiguous[i] = contiguous[i + 1] * max(1, desc.shape[i + 1])
        count = int(np.prod(desc.shape, dtype=np.int64)) if desc.rank else 1
        if host is None:
            return contiguous, count, None
        data = np.asarray(host, dtype=numpy_dtype(desc.dtype))
        steps = [s // itemsize for s in data.strides]
        if count == 0:
            return contiguous, 0, None
        if data.flags.c_contiguous or any(s < 0 or s % itemsize for s in data.strides):
            return contiguous, count, np.ascontiguousarray(data)
        span = 1 + sum((d - 1) * s for d, s in zip(data.shape, steps))
        raw = np.lib.stride_tricks.as_strided(data, shape=(span,), strides=(itemsize,)).copy()
        return steps, span, raw

    def scalar(self, stack: ExitStack, value: Scalar) -> ctypes.c_void_p:
        ctype = _SCALAR_CTYPES.get(value.dtype)
        if ctype is None and value.dtype in ("COMPLEX64", "COMPLEX128"):
            part = ctypes.c_float if value.dtype == "COMPLEX64" else ctypes.c_double
            number = complex(value.value)
            host = (part * 2)(number.real, number.imag)
        elif ctype is None:
            raise AclnnError(
                161002, "ACLNN_ERR_PARAM_INVALID", f"aclScalar of dtype {value.dtype} is not supported here"
            )
        elif value.dtype in ("FLOAT16", "BFLOAT16"):
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

    def tensor_list(self, stack: ExitStack, items) -> ctypes.c_void_p:
        """An aclTensorList of input tensors; the list owns them (aclDestroyTensorList destroys them)."""
        handles = []
        with ExitStack() as pending:  # destroys the tensors if the list cannot be created
            for item in items:
                if item is None:
                    handles.append(None)
                    continue
                handle, _ = self.tensor(stack, item, item.data, destroy=False)  # memory: on `stack`
                pending.callback(self.function("aclDestroyTensor"), handle)
                handles.append(handle.value)
            array = (ctypes.c_void_p * max(1, len(handles)))(*handles)
            handle = self.function("aclCreateTensorList", ctypes.c_void_p)(array, ctypes.c_uint64(len(handles)))
            if not handle:
                raise _runtime_error(f"aclCreateTensorList failed: {self.recent_error()}")
            pending.pop_all()  # the list owns the tensors now
        stack.callback(self.function("aclDestroyTensorList"), ctypes.c_void_p(handle))
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
            elif ctype in _ARRAY_CTYPES:
                args.append(cann.array(stack, value, _ARRAY_CTYPES[ctype]))
            elif ctype == "const aclTensorList*":
                args.append(cann.tensor_list(stack, value))
            elif ctype in ("const char*", "char*"):
                text = ctypes.create_string_buffer(str(value).encode("utf-8"))
                stack.enter_context(nullcontext(text))
                args.append(ctypes.cast(text, ctypes.c_void_p))
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
        status = cann.function("aclrtSynchronizeStream")(cann.stream)
        if status != 0:
            raise AclnnError(status, status_name(status), f"aclnn{op}: {cann.recent_error()}")
        names = [name for name, ctype, _ in signature if ctype == "aclTensor*"]
        return [
            None if desc is None else cann.copy_back(devices[name], desc)
            for name, desc in zip(names, outputs, strict=True)
        ]


# ---------------------------------------------------------------------------------------------
# The host runtime's second phase


def _device_array(tensor: dict) -> np.ndarray:
    """A NumPy view of an aclTensor's device memory (the host runtime's device memory is host memory)."""
    dtype = numpy_dtype(tensor["dtype"])
    shape = tuple(tensor["shape"])
    if 0 in shape:
        return np.empty(shape, dtype)
    if not tensor["data"]:
        raise AclnnError(161002, "ACLNN_ERR_PARAM_INVALID", "a non-empty tensor has no data address")
    storage = int(np.prod(tensor["storage"], dtype=np.int64)) if tensor["storage"] else 1
    reach = tensor["offset"] + sum((d - 1) * max(s, 0) for d, s in zip(shape, tensor["strides"]))
    start = tensor["offset"] + sum((d - 1) * min(s, 0) for d, s in zip(shape, tensor["strides"]))
    if start < 0 or reach >= storage:
        raise AclnnError(
            161002,
            "ACLNN_ERR_PARAM_INVALID",
            f"the view (shape {list(shape)}, strides {tensor['strides']}, offset {tensor['offset']}) "
            f"exceeds its storage of {storage} element(s)",
        )
    buffer = (ctypes.c_char * (storage * dtype.itemsize)).from_address(tensor["data"])
    return np.ndarray(
        shape,
        dtype,
        buffer=buffer,
        offset=tensor["offset"] * dtype.itemsize,
        strides=[s * dtype.itemsize for s in tensor["strides"]],
    )


def _desc(tensor: dict | None) -> TensorDesc | None:
    if tensor is None:
        return None
    array = _device_array(tensor)
    return TensorDesc(tensor["shape"], tensor["dtype"], tensor["format"], tensor["strides"], data=array)


def _argument(arg: dict):
    kind = arg["kind"]
    if kind == "null":
        return None
    if kind == "tensor":
        return _desc(arg["tensor"])
    if kind == "tensors":
        return [_desc(item) for item in arg["tensors"]]
    if kind == "scalar":
        raw = bytes.fromhex(arg["bytes"])
        dtype = numpy_dtype(arg["dtype"])
        value = np.frombuffer(raw[: dtype.itemsize], dtype=dtype)[0].item()
        return Scalar(value, arg["dtype"])
    if kind in ("ints", "bools"):
        return list(arg["values"])
    if kind == "floats":
        return np.frombuffer(bytes.fromhex(arg["bytes"]), dtype="<f4").tolist()
    if kind == "float":
        return float(np.frombuffer(bytes.fromhex(arg["bytes"]), dtype="<f8")[0])
    if kind == "string":
        return bytes.fromhex(arg["bytes"]).decode("utf-8", "replace")
    return arg["value"]  # bool, int


def hostrt_compute(request: str) -> tuple[int, str]:
    """Compute one launched executor of the host runtime: ``(status, message)``.

    ``request`` is the JSON a first phase recorded: the op, the product the runtime emulates and every
    argument (tensors as views of device memory). The op's binding runs with ``backend="numpy"``: the
    Python validator, then the reference kernel, whose results land in each output's device memory.
    """
    import importlib

    import aclnn  # noqa: F401 - installs the catalogue tables

    op = "?"
    try:
        data = json.loads(request)
        op = data["op"]
        module = importlib.import_module(f"aclnn.ops.{data['snake']}")
        params = {arg["name"]: _argument(arg) for arg in data["args"]}
        binding = getattr(module, data["snake"])
        binding(*(params[name] for name in module.PARAMS), product=data["product"], backend="numpy")
    except AclnnError as exc:
        return exc.code, exc.message
    except Exception as exc:  # noqa: BLE001 - a kernel bug becomes an error status, not a crash
        return 561000, f"aclnn{op}: the reference computation failed: {type(exc).__name__}: {exc}"
    return 0, ""
