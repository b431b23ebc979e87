"""The ctypes CANN backend, end to end against a fake CANN built from tests/fake_cann/fake_cann.c.

The fake implements the runtime and handle API on the host, EluBackward for real and a
ConvolutionBackward whose outputs encode the arguments it received, so these tests prove the
marshalling of every C type the specs use, the two-phase flow, error propagation and cleanup.
"""

from __future__ import annotations

import ctypes
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

import aclnn
from generator.runtime import cann

SOURCE = Path(__file__).resolve().parent / "fake_cann" / "fake_cann.c"


@pytest.fixture(scope="module")
def fake_home(tmp_path_factory):
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler")
    home = tmp_path_factory.mktemp("cann")
    (home / "lib64").mkdir()
    lib = home / "lib64" / "libascendcl.so"
    subprocess.run([cc, "-shared", "-fPIC", "-O1", "-o", str(lib), str(SOURCE), "-lm"], check=True)
    return home


@pytest.fixture
def fake(fake_home, monkeypatch):
    monkeypatch.setenv("ASCEND_TOOLKIT_HOME", str(fake_home))
    monkeypatch.setattr(cann.Cann, "_instance", None)
    lib = ctypes.CDLL(str(fake_home / "lib64" / "libascendcl.so"), mode=ctypes.RTLD_GLOBAL)
    yield lib
    assert lib.fake_live_handles() == 0, "a handle was not destroyed"
    assert lib.fake_live_buffers() == 0, "a device buffer was not freed"


def test_elu_backward_on_cann_matches_numpy(fake):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((3, 5)).astype(np.float32)
    g = rng.standard_normal((3, 5)).astype(np.float32)
    for is_result in (False, True):
        got = aclnn.elu_backward(g, 1.5, 1.0507, 0.8, is_result, x, backend="cann")
        want = aclnn.elu_backward(g, 1.5, 1.0507, 0.8, is_result, x)
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


def test_library_errors_surface_with_their_code(fake):
    x = np.ones((2, 2), np.float16)  # valid for the validator, rejected by the fake library
    with pytest.raises(aclnn.AclnnError) as info:
        aclnn.elu_backward(x, 1.0, 1.0, 1.0, False, x, backend="cann")
    assert info.value.code == 161002 and info.value.name == "ACLNN_ERR_PARAM_INVALID"
    assert "only FLOAT" in info.value.message


def test_every_c_type_is_marshalled(fake):
    go = np.arange(2 * 3 * 4 * 4, dtype=np.float32).reshape(2, 3, 4, 4)
    inp = np.zeros((2, 2, 4, 4), np.float32)
    w = np.zeros((3, 2, 1, 1), np.float32)
    result = aclnn.convolution_backward(
        go, inp, w, [3], [1, 1], [0, 0], [1, 1], False, [0, 0], 1, [True, True, True], 1, backend="cann"
    )
    assert np.all(result.grad_input == 1 * 1000 + 0 + 1 * 10 + 1)  # stride, padding, dilation, groups
    # cubeMathType (int8_t) + transposed (bool) + biasSizes (aclIntArray) + len(outputPadding) + format NCHW (0)
    assert np.all(result.grad_weight == 1 + 0 + 300 + 20000 + 0)
    np.testing.assert_allclose(result.grad_bias, go.sum(axis=(0, 2, 3)))


def test_masked_outputs_are_null_and_biassizes_may_be_null(fake):
    go = np.ones((1, 2, 3, 3), np.float32)
    result = aclnn.convolution_backward(
        go, np.ones((1, 2, 3, 3), np.float32), np.ones((2, 2, 1, 1), np.float32), None, [1, 1], [0, 0], [1, 1],
        False, [0, 0], 1, [False, False, True], 0, backend="cann",
    )  # fmt: skip
    assert result.grad_input is None and result.grad_weight is None
    np.testing.assert_allclose(result.grad_bias, [9.0, 9.0])


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
