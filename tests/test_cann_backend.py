"""``backend="cann"`` end to end against the opgen host runtime (generator/hostrt).

The ctypes backend loads the toolkit's libascendcl/libnnopbase/libopapi from ASCEND_TOOLKIT_HOME, builds
every argument from the spec's C signature, runs both phases on a stream and copies the outputs back.
The host runtime runs the spec's C++ checks in phase 1 and, at synchronisation, computes through a ctypes
callback with the NumPy reference kernel. Every op gives the same results as ``backend="numpy"``, also
for strided (non-contiguous) inputs; errors surface with their code and message; nothing leaks.
"""

from __future__ import annotations

import ctypes

import numpy as np
import pytest

import aclnn
from generator.hostrt import find_compiler
from generator.runtime import cann
from generator.runtime.examples import arguments
from tests.hostrt_support import libraries, project, toolkit

pytestmark = pytest.mark.skipif(find_compiler() is None, reason="no C++ compiler")
OPS = [info.spec for info in project().ops]


@pytest.fixture
def home(monkeypatch):
    tk = toolkit()
    monkeypatch.setenv("ASCEND_TOOLKIT_HOME", str(tk.home))
    monkeypatch.setattr(cann.Cann, "_instance", None)
    return tk


def _live(kind: str | None = None) -> int:
    fn = next(lib.opgen_hostrt_live for lib in libraries(str(toolkit().home)) if hasattr(lib, "opgen_hostrt_live"))
    fn.restype = ctypes.c_long
    return fn(kind.encode() if kind else None)


def _inputs(spec, product):
    args = arguments(spec, spec.example)
    outputs = {p.name for p in spec.outputs}
    return {k: v for k, v in args.items() if k not in outputs}


def _strided(array: np.ndarray) -> np.ndarray:
    """The same values in a non-contiguous view (every other element of a wider buffer)."""
    wide = np.zeros(array.shape[:-1] + (array.shape[-1] * 2 + 1,), dtype=array.dtype) if array.ndim else None
    if wide is None:
        return array
    wide[..., 1::2] = array
    view = wide[..., 1::2]
    assert not view.flags.c_contiguous or array.size <= 1
    return view


def _assert_same(got: dict, want: dict):
    assert set(got) == set(want)
    for name in want:
        if want[name] is None:
            assert got[name] is None, name
            continue
        assert got[name].dtype == want[name].dtype, name
        np.testing.assert_array_equal(got[name], want[name], err_msg=name)


@pytest.mark.parametrize("spec", OPS, ids=[s.op for s in OPS])
def test_every_op_on_cann_equals_numpy(spec, home, monkeypatch):
    product = spec.example.product
    monkeypatch.setenv("OPGEN_PRODUCT", product)
    before = (_live(), _live("device"))
    inputs = _inputs(spec, product)
    want = aclnn.run(spec.op, product=product, **inputs)
    got = aclnn.run(spec.op, product=product, backend="cann", **inputs)
    _assert_same(got, want)
    # strided inputs (where the op accepts them) give the same results
    strided = {}
    for p in spec.inputs:
        value = inputs.get(p.name)
        ok = p.tensor is not None and p.tensor.non_contiguous and isinstance(value, np.ndarray) and value.ndim
        strided[p.name] = _strided(value) if ok else value
    got = aclnn.run(spec.op, product=product, backend="cann", **strided)
    _assert_same(got, want)
    assert (_live(), _live("device")) == before, "a handle or a device buffer was not released"


def test_every_product_of_an_op_runs(home, monkeypatch):
    """EluBackward on each of its products: the host runtime checks with the product it emulates."""
    spec = aclnn.spec("EluBackward")
    x = np.linspace(-2, 2, 12, dtype=np.float32).reshape(3, 4)
    g = np.linspace(1, 2, 12, dtype=np.float32).reshape(3, 4)
    for product in spec.products:
        monkeypatch.setenv("OPGEN_PRODUCT", product)
        for is_result in (False, True):
            got = aclnn.elu_backward(g, 1.5, 1.0507, 0.8, is_result, x, product=product, backend="cann")
            want = aclnn.elu_backward(g, 1.5, 1.0507, 0.8, is_result, x, product=product)
            np.testing.assert_array_equal(got, want)


def test_cpp_check_failures_surface_with_code_and_message(home, monkeypatch):
    """Phase 1 in C++ rejects what the Python validator rejects, with the same message."""
    import ml_dtypes

    monkeypatch.setenv("OPGEN_PRODUCT", "310p")  # no BFLOAT16 there
    g = np.ones((2, 2), ml_dtypes.bfloat16)
    with pytest.raises(aclnn.AclnnError) as python:
        aclnn.validate("EluBackward", product="310p", gradOutput=g, alpha=1.0, scale=1.0, inputScale=1.0,
                       isResult=False, selfOrResult=g)  # fmt: skip
    signature = (
        ("gradOutput", "const aclTensor*", aclnn.TensorDesc((2, 2), "BFLOAT16", data=g)),
        ("alpha", "const aclScalar*", aclnn.Scalar(1.0, "FLOAT")),
        ("scale", "const aclScalar*", aclnn.Scalar(1.0, "FLOAT")),
        ("inputScale", "const aclScalar*", aclnn.Scalar(1.0, "FLOAT")),
        ("isResult", "bool", False),
        ("selfOrResult", "const aclTensor*", aclnn.TensorDesc((2, 2), "BFLOAT16", data=g)),
        ("gradInput", "aclTensor*", aclnn.TensorDesc((2, 2), "BFLOAT16")),
    )
    with pytest.raises(aclnn.AclnnError) as native:
        cann.run("EluBackward", signature, (aclnn.TensorDesc((2, 2), "BFLOAT16"),))
    assert native.value.code == python.value.code == 161002
    assert native.value.message == f"aclnnEluBackwardGetWorkspaceSize: {python.value.message}"


def test_kernel_refusal_surfaces_at_synchronisation(home, monkeypatch):
    monkeypatch.setenv("OPGEN_PRODUCT", "910b")
    x = np.random.default_rng(0).random((1, 1, 4, 4, 4), dtype=np.float32)
    go = np.ones((1, 1, 2, 2, 2), np.float32)
    idx = np.full((1, 1, 2, 2, 2), 1000, np.int32)
    with pytest.raises(aclnn.AclnnError) as info:
        aclnn.max_pool3d_with_argmax_backward(go, x, idx, [2], [2], [0], [1], False, backend="cann")
    assert info.value.code == 561000 and "indices" in info.value.message


def test_missing_toolkit_is_a_clear_error(monkeypatch):
    monkeypatch.delenv("ASCEND_TOOLKIT_HOME", raising=False)
    monkeypatch.setattr(cann.Cann, "_instance", None)
    x = np.ones((2, 2), np.float32)
    with pytest.raises(aclnn.AclnnError, match="ASCEND_TOOLKIT_HOME") as info:
        aclnn.elu_backward(x, 1.0, 1.0, 1.0, False, x, backend="cann")
    assert info.value.code == 361001


def test_unknown_backend():
    x = np.ones((2, 2), np.float32)
    with pytest.raises(aclnn.AclnnError, match="unknown backend"):
        aclnn.elu_backward(x, 1.0, 1.0, 1.0, False, x, backend="tpu")


# ---------------------------------------------------------------------------------------------
# The ACL calls themselves (ctypes against the host runtime)


class Acl:
    def __init__(self):
        self.libs = libraries(str(toolkit().home))

    def __getattr__(self, name):
        for lib in self.libs:
            fn = getattr(lib, name, None)
            if fn is not None:
                fn.restype = ctypes.c_void_p if name.startswith("aclCreate") else ctypes.c_int
                return fn
        raise AttributeError(name)

    def message(self) -> str:
        fn = self.aclGetRecentErrMsg
        fn.restype = ctypes.c_char_p
        text = fn()
        return text.decode() if text else ""


@pytest.fixture
def acl(home):
    cann.Cann.get()  # aclInit, device and stream of this process
    return Acl()


def _malloc(acl, nbytes) -> ctypes.c_void_p:
    ptr = ctypes.c_void_p()
    assert acl.aclrtMalloc(ctypes.byref(ptr), ctypes.c_size_t(nbytes), 0) == 0, acl.message()
    return ptr


def test_create_tensor_with_strides_offset_and_storage(acl, monkeypatch):
    """A (6, 5) view with strides (10, 1) and offset 22 of a 10x10 buffer (the doc's example), as input."""
    monkeypatch.setenv("OPGEN_PRODUCT", "910b")
    base = np.arange(100, dtype=np.float32).reshape(10, 10) / 50 - 1
    view = base[2:8, 2:7]
    device = _malloc(acl, base.nbytes)
    out_device = _malloc(acl, view.nbytes)
    try:
        assert acl.aclrtMemcpy(device, ctypes.c_size_t(base.nbytes), base.ctypes.data_as(ctypes.c_void_p),
                               ctypes.c_size_t(base.nbytes), 1) == 0  # fmt: skip
        i64 = ctypes.c_int64 * 2
        storage = (ctypes.c_int64 * 1)(100)
        view_handle = acl.aclCreateTensor(i64(6, 5), ctypes.c_uint64(2), 0, i64(10, 1), ctypes.c_int64(22), 2,
                                          storage, ctypes.c_uint64(1), device)  # fmt: skip
        out_handle = acl.aclCreateTensor(i64(6, 5), ctypes.c_uint64(2), 0, i64(5, 1), ctypes.c_int64(0), 2,
                                         i64(6, 5), ctypes.c_uint64(2), out_device)  # fmt: skip
        one = ctypes.c_float(1.0)
        scalar = acl.aclCreateScalar(ctypes.byref(one), 0)
        size, executor = ctypes.c_uint64(), ctypes.c_void_p()
        status = acl.aclnnEluBackwardGetWorkspaceSize(
            ctypes.c_void_p(view_handle), ctypes.c_void_p(scalar), ctypes.c_void_p(scalar), ctypes.c_void_p(scalar),
            ctypes.c_bool(False), ctypes.c_void_p(view_handle), ctypes.c_void_p(out_handle), ctypes.byref(size),
            ctypes.byref(executor),
        )  # fmt: skip
        assert status == 0, acl.message()
        workspace = _malloc(acl, size.value)
        stream = cann.Cann.get().stream
        assert acl.aclnnEluBackward(workspace, size, executor, stream) == 0, acl.message()
        assert acl.aclrtSynchronizeStream(stream) == 0, acl.message()
        got = np.empty((6, 5), np.float32)
        assert acl.aclrtMemcpy(got.ctypes.data_as(ctypes.c_void_p), ctypes.c_size_t(got.nbytes), out_device,
                               ctypes.c_size_t(got.nbytes), 2) == 0  # fmt: skip
        np.testing.assert_array_equal(got, aclnn.elu_backward(view, 1.0, 1.0, 1.0, False, view))
        for handle, destroy in ((view_handle, "aclDestroyTensor"), (out_handle, "aclDestroyTensor"),
                                (scalar, "aclDestroyScalar")):  # fmt: skip
            assert getattr(acl, destroy)(ctypes.c_void_p(handle)) == 0
        assert acl.aclrtFree(workspace) == 0
    finally:
        acl.aclrtFree(device)
        acl.aclrtFree(out_device)


def test_view_beyond_its_storage_is_refused(acl, monkeypatch):
    monkeypatch.setenv("OPGEN_PRODUCT", "910b")
    device = _malloc(acl, 16)
    try:
        i64 = ctypes.c_int64 * 2
        storage = (ctypes.c_int64 * 1)(4)
        t = acl.aclCreateTensor(i64(2, 2), ctypes.c_uint64(2), 0, i64(2, 1), ctypes.c_int64(1), 2, storage,
                                ctypes.c_uint64(1), device)  # fmt: skip
        one = ctypes.c_float(1.0)
        s = acl.aclCreateScalar(ctypes.byref(one), 0)
        size, executor = ctypes.c_uint64(), ctypes.c_void_p()
        args = [ctypes.c_void_p(t), ctypes.c_void_p(s), ctypes.c_void_p(s), ctypes.c_void_p(s), ctypes.c_bool(False),
                ctypes.c_void_p(t), ctypes.c_void_p(t), ctypes.byref(size), ctypes.byref(executor)]  # fmt: skip
        assert acl.aclnnEluBackwardGetWorkspaceSize(*args) == 0
        workspace = _malloc(acl, size.value)
        stream = cann.Cann.get().stream
        assert acl.aclnnEluBackward(workspace, size, executor, stream) == 0
        assert acl.aclrtSynchronizeStream(stream) != 0
        assert "is not live device memory" in acl.message() or "exceeds its storage" in acl.message()
        acl.aclDestroyTensor(ctypes.c_void_p(t))
        acl.aclDestroyScalar(ctypes.c_void_p(s))
        acl.aclrtFree(workspace)
    finally:
        acl.aclrtFree(device)


def test_memcpy_kinds_and_misuse(acl):
    device = _malloc(acl, 64)
    other = _malloc(acl, 64)
    host = (ctypes.c_uint8 * 64)(*range(64))
    back = (ctypes.c_uint8 * 64)()
    try:
        n = ctypes.c_size_t(64)
        assert acl.aclrtMemcpy(device, n, host, n, 1) == 0  # host -> device
        assert acl.aclrtMemcpy(other, n, device, n, 3) == 0  # device -> device
        assert acl.aclrtMemcpy(back, n, other, n, 4) == 0  # default (inferred)
        assert bytes(back) == bytes(range(64))
        hh = (ctypes.c_uint8 * 64)()
        assert acl.aclrtMemcpy(hh, n, host, n, 0) == 0 and bytes(hh) == bytes(range(64))  # host -> host
        assert acl.aclrtMemcpy(device, n, host, n, 2) != 0 and "copy kind" in acl.message()  # wrong kind
        assert acl.aclrtMemcpy(device, ctypes.c_size_t(8), host, n, 1) != 0 and "destMax" in acl.message()
        assert acl.aclrtMemcpy(device, ctypes.c_size_t(128), host, ctypes.c_size_t(128), 1) != 0  # past the end
        assert acl.aclrtFree(host) != 0 and "not the start of live device memory" in acl.message()
        assert acl.aclrtMemset(device, n, 7, n) == 0
    finally:
        assert acl.aclrtFree(device) == 0
        assert acl.aclrtFree(other) == 0
    assert acl.aclrtFree(device) != 0  # double free is an error, not a crash


def test_handles_are_registered_and_destroyed_once(acl):
    before = _live()
    values = (ctypes.c_int64 * 3)(1, 2, 3)
    ints = acl.aclCreateIntArray(values, ctypes.c_uint64(3))
    bools = acl.aclCreateBoolArray((ctypes.c_bool * 2)(True, False), ctypes.c_uint64(2))
    floats = acl.aclCreateFloatArray((ctypes.c_float * 2)(0.5, 1.5), ctypes.c_uint64(2))
    i64 = ctypes.c_int64 * 1
    tensors = [acl.aclCreateTensor(i64(2), ctypes.c_uint64(1), 0, i64(1), ctypes.c_int64(0), 2, i64(2),
                                   ctypes.c_uint64(1), None) for _ in range(2)]  # fmt: skip
    listed = (ctypes.c_void_p * 2)(*tensors)
    tensor_list = acl.aclCreateTensorList(listed, ctypes.c_uint64(2))
    assert all((ints, bools, floats, tensor_list, *tensors))
    assert _live() == before + 6
    assert acl.aclDestroyTensorList(ctypes.c_void_p(tensor_list)) == 0  # destroys its tensors too
    assert _live() == before + 3
    assert acl.aclDestroyTensor(ctypes.c_void_p(tensors[0])) != 0  # already destroyed by the list
    for destroy, handle in (("aclDestroyIntArray", ints), ("aclDestroyBoolArray", bools),
                            ("aclDestroyFloatArray", floats)):  # fmt: skip
        assert getattr(acl, destroy)(ctypes.c_void_p(handle)) == 0
        assert getattr(acl, destroy)(ctypes.c_void_p(handle)) != 0
    assert _live() == before
    assert acl.aclCreateScalar(None, 0) is None and "value is null" in acl.message()


def test_runtime_calls_report_misuse(acl):
    stream = ctypes.c_void_p()
    assert acl.aclrtCreateStream(ctypes.byref(stream)) == 0
    assert acl.aclrtSynchronizeStream(stream) == 0
    assert acl.aclrtDestroyStream(stream) == 0
    assert acl.aclrtDestroyStream(stream) != 0 and "not a live stream" in acl.message()
    assert acl.aclInit(None) == 100002  # ACL_ERROR_REPEAT_INITIALIZE: the backend initialised it
    assert acl.aclrtSetDevice(ctypes.c_int32(7)) == 200002  # ACL_ERROR_INVALID_DEVICE
    count = ctypes.c_uint32()
    assert acl.aclrtGetDeviceCount(ctypes.byref(count)) == 0 and count.value == 1
    context = ctypes.c_void_p()
    assert acl.aclrtCreateContext(ctypes.byref(context), ctypes.c_int32(0)) == 0
    current = ctypes.c_void_p()
    assert acl.aclrtGetCurrentContext(ctypes.byref(current)) == 0 and current.value == context.value
    assert acl.aclrtDestroyContext(context) == 0
    soc = acl.aclrtGetSocName
    soc.restype = ctypes.c_char_p
    assert soc().startswith(b"ASCEND")
