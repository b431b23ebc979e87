"""Behaviour of specs/max_pool2d_with_indices_backward.yaml, from aclnn_max_pool2d_with_indices_backward.cpp.

aclnnMaxPool2dWithIndicesBackwardGetWorkspaceSize runs CheckParams with the mask flags off: nulls (all 8
pointers), self's dtype list by NpuArch (950: FLOAT16/FLOAT/BFLOAT16; DAV_2201: FLOAT; others: empty),
gradOutput/gradInput == self, indices (950: INT32/INT64; others: INT32/INT8), formats (equal, not private,
3-D/4-D), attribute lengths and values (dilation > 0 on 950, == 1 elsewhere), shapes (NHWC-aware); the
indices shape comparison is computed and discarded. It shares its file and header with
aclnnMaxPool2dWithMaskBackward, whose spec must agree on the shared rules.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import aclnn
from generator.loader import load_project
from tests.specs.verdicts import verdict

project = load_project(Path(__file__).resolve().parents[2] / "specs")
spec = project.op("aclnnMaxPool2dWithIndicesBackward").spec
mask = project.op("aclnnMaxPool2dWithMaskBackward").spec

OP = "MaxPool2dWithIndicesBackward"
CODE_ORDER = [
    "null-pointers",
    "self-dtype-supported",
    "grad-output-dtype-same",
    "grad-input-dtype-same",
    "indices-dtype",
    "indices-dtype-a2",
    "indices-dtype-supported",
    "format-same",
    "format-not-private",
    "format-supported",
    "rank",
    "kernel-size-length",
    "stride-length",
    "padding-length",
    "dilation-length",
    "kernel-size-positive",
    "stride-positive",
    "padding-range",
    "dilation-positive",
    "dilation-one",
    "grad-input-shape",
    "self-chw-nonzero",
    "padding-dilated-kernel",
    "output-size-positive",
    "grad-output-shape",
    "indices-shape",
]


def t(shape, dtype="FLOAT", fmt=None):
    fmt = fmt or {3: "NCL", 4: "NCHW"}.get(len(shape), "ND")
    return aclnn.TensorDesc(shape, dtype, fmt)


def args(x=(2, 3, 6, 5), grad=(2, 3, 3, 2), dtype="FLOAT", index="INT32", fmt=None, **over):
    values = dict(
        gradOutput=t(grad, dtype, fmt),
        self=t(x, dtype, fmt),
        indices=t(grad, index, fmt),
        kernelSize=[2, 2],
        stride=[2, 2],
        padding=[0, 0],
        dilation=[1, 1],
        ceilMode=False,
    )
    values.update(over)
    return values


def failure(product="910b", **kwargs):
    return verdict(OP, product, **kwargs)


def test_check_order_follows_code():
    assert [c.id for c in spec.checks] == CODE_ORDER


def test_shares_the_header_and_rules_with_the_mask_api():
    assert spec.header == mask.header == "aclnnop/aclnn_max_pool2d_with_indices_backward.h"
    assert spec.sources.code == mask.sources.code
    shared = {c.id for c in spec.checks} & {c.id for c in mask.checks}
    assert {"padding-range", "output-size-positive", "grad-output-shape", "self-chw-nonzero"} <= shared
    for cid in shared - {"kernel-size-length"}:  # the mask entry checks the length early, with 161001
        mine = next(c for c in spec.checks if c.id == cid)
        theirs = next(c for c in mask.checks if c.id == cid)
        assert (mine.kind, mine.expr, mine.code) == (theirs.kind, theirs.expr, theirs.code), cid
    assert spec.defaults == mask.defaults


@pytest.mark.parametrize("product", ["910", "310p", "310b"])
def test_unsupported_products_fail_after_the_null_check(product):
    assert failure(product, **args(self=None)) == ("null-pointers", 161001)
    _, code = failure(product, **args())
    assert code == 161002
    _, code = failure(product, **args(kernelSize=[2, 2, 2]))
    assert code == 161002


def test_kernel_size_length_is_161002_unlike_the_mask_entry():
    assert failure(**args(kernelSize=[2, 2, 2])) == ("kernel-size-length", 161002)
    assert failure(**args(kernelSize=[])) == ("kernel-size-length", 161002)
    mask_args = args(index="INT8", indices=t((2, 3, 4, 64), "INT8"), kernelSize=[2, 2, 2])
    with pytest.raises(aclnn.AclnnError) as err:
        aclnn.validate("MaxPool2dWithMaskBackward", product="910b", **mask_args)
    assert err.value.code == 161001


def test_null_pointers():
    for name in ("gradOutput", "self", "indices", "kernelSize", "stride", "padding", "dilation", "gradInput"):
        assert failure(**args(**{name: None})) == ("null-pointers", 161001), name


@pytest.mark.parametrize("product", ["910b", "910_93"])
def test_a2_a3_take_float_only(product):
    assert failure(product, **args()) is None
    for dtype in ("FLOAT16", "BFLOAT16", "DOUBLE"):
        assert failure(product, **args(dtype=dtype)) == ("self-dtype-supported", 161002), dtype
    # INT32 and (shared with the mask API) INT8 indices pass; INT64 does not
    assert failure(product, **args(index="INT8")) is None
    assert failure(product, **args(index="INT64")) == ("indices-dtype-a2", 161002)
    assert failure(product, **args(dilation=[2, 2])) == ("dilation-one", 161002)


def test_950_takes_half_types_int64_indices_and_dilation():
    for dtype in ("FLOAT", "FLOAT16", "BFLOAT16"):
        assert failure("950", **args(dtype=dtype)) is None, dtype
    assert failure("950", **args(dtype="DOUBLE")) == ("self-dtype-supported", 161002)
    assert failure("950", **args(index="INT64")) is None
    assert failure("950", **args(index="INT8")) == ("indices-dtype", 161002)
    # dilation 2: H = (6 - 2 - 1) // 2 + 1 = 2, W = (5 - 2 - 1) // 2 + 1 = 2
    assert failure("950", **args(grad=(2, 3, 2, 2), dilation=[2])) is None
    assert failure("950", **args(dilation=[2])) == ("grad-output-shape", 161002)
    assert failure("950", **args(dilation=[0, 1])) == ("dilation-positive", 161002)


def test_dtype_equalities():
    assert failure(**args(gradOutput=t((2, 3, 3, 2), "FLOAT16"))) == ("grad-output-dtype-same", 161002)
    assert failure(**args(gradInput=t((2, 3, 6, 5), "FLOAT16"))) == ("grad-input-dtype-same", 161002)


def test_formats():
    for fmt in ("ND", "NCHW"):
        assert failure(**args(fmt=fmt)) is None, fmt
    assert failure(**args(gradOutput=t((2, 3, 3, 2), fmt="ND"))) == ("format-same", 161002)
    # indices' format is free but must not be private
    assert failure(**args(indices=t((2, 3, 3, 2), "INT32", "NHWC"))) is None
    assert failure(**args(indices=t((2, 3, 3, 2), "INT32", "NC1HWC0"))) == ("format-not-private", 161002)


@pytest.mark.parametrize("product", ["950", "910b"])
def test_nhwc_shapes_read_c_last(product):
    """(N, H, W, C) = (2, 6, 5, 3): the pooled gradOutput is (2, 3, 2, 3); the NCHW reading is rejected."""
    nhwc = dict(self=t((2, 6, 5, 3), fmt="NHWC"))
    ok = args(fmt="NHWC", grad=(2, 3, 2, 3), **nhwc)
    assert failure(product, **ok) is None
    assert failure(product, **args(fmt="NHWC", grad=(2, 3, 3, 2), **nhwc)) == ("grad-output-shape", 161002)
    # 3-D NHWC (H, W, C)
    assert failure(product, **args(fmt="NHWC", x=(6, 5, 3), grad=(3, 2, 3))) is None


def test_ranks_and_lengths():
    assert failure(**args(x=(6, 5), grad=(3, 2))) == ("rank", 161002)
    assert failure(**args(indices=t((1, 2, 3, 3, 2), "INT32"))) == ("rank", 161002)
    assert failure(**args(x=(3, 6, 5), grad=(3, 3, 2))) is None
    assert failure(**args(stride=[])) is None
    assert failure(**args(stride=[1, 1, 1])) == ("stride-length", 161002)
    assert failure(**args(padding=[])) == ("padding-length", 161002)
    assert failure(**args(dilation=[])) == ("dilation-length", 161002)


def test_attribute_values():
    assert failure(**args(kernelSize=[0])) == ("kernel-size-positive", 161002)
    assert failure(**args(stride=[0])) == ("stride-positive", 161002)
    assert failure(**args(padding=[-1])) == ("padding-range", 161002)
    assert failure(**args(padding=[2], kernelSize=[3])) == ("padding-range", 161002)
    # 3x3 windows, padding 1, stride 2 over 6x5: (6 + 2 - 3) // 2 + 1 = 3, (5 + 2 - 3) // 2 + 1 = 3
    assert failure(**args(kernelSize=[3], padding=[1], grad=(2, 3, 3, 3))) is None


def test_shapes():
    assert failure(**args(gradInput=t((2, 3, 6, 6)))) == ("grad-input-shape", 161002)
    assert failure(**args(x=(2, 0, 6, 5), grad=(2, 0, 3, 2))) == ("self-chw-nonzero", 161002)
    assert failure(**args(x=(0, 3, 6, 5), grad=(0, 3, 3, 2))) is None  # empty batch: success
    assert failure(**args(x=(2, 3, 1, 5), grad=(2, 3, 0, 2))) == ("output-size-positive", 161002)
    # ceil mode keeps the last partial window: 6x5 -> 3x3
    assert failure(**args(ceilMode=True)) == ("grad-output-shape", 161002)
    assert failure(**args(ceilMode=True, grad=(2, 3, 3, 3))) is None
    # the indices shape is never checked
    assert failure(**args(indices=t((1, 1, 1, 1), "INT32"))) is None


def _torch_reference(x, kernel, stride, padding, dilation, ceil, g_seed=3):
    torch = pytest.importorskip("torch")
    xt = torch.from_numpy(x.astype(np.float32))
    out, idx = torch.nn.functional.max_pool2d(xt, kernel, stride, padding, dilation, ceil, True)
    g = np.random.default_rng(g_seed).standard_normal(tuple(out.shape)).astype(np.float32)
    want = torch.ops.aten.max_pool2d_with_indices_backward(
        torch.from_numpy(g), xt, kernel, stride, padding, dilation, ceil, idx
    ).numpy()
    return g, idx.numpy(), want


@pytest.mark.parametrize(
    "product, kernel, stride, padding, dilation, ceil",
    [
        ("910b", [2, 2], [2, 2], [0, 0], [1, 1], False),
        ("910_93", [3, 3], [2, 2], [1, 1], [1, 1], True),
        ("950", [3, 2], [1, 2], [1, 0], [2, 1], False),
        ("950", [2, 2], [1, 1], [1, 1], [1, 1], True),
    ],
)
def test_run_matches_torch(product, kernel, stride, padding, dilation, ceil):
    x = np.random.default_rng(1).standard_normal((2, 3, 9, 7)).astype(np.float32)
    g, idx, want = _torch_reference(x, kernel, stride, padding, dilation, ceil)
    got = aclnn.run(
        OP,
        product=product,
        gradOutput=g,
        self=x,
        indices=idx.astype(np.int32),
        kernelSize=kernel,
        stride=stride,
        padding=padding,
        dilation=dilation,
        ceilMode=ceil,
    )["gradInput"]
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("dtype", [np.float16, "bfloat16"])
def test_half_types_on_950(dtype):
    import ml_dtypes

    dtype = np.dtype(ml_dtypes.bfloat16) if dtype == "bfloat16" else np.dtype(dtype)
    x = np.random.default_rng(2).standard_normal((3, 8, 8)).astype(np.float32)
    g, idx, want = _torch_reference(x, [2, 2], [2, 2], [0, 0], [1, 1], False)
    got = aclnn.max_pool2d_with_indices_backward(
        g.astype(dtype), x.astype(dtype), idx.astype(np.int64), [2, 2], [2, 2], [0, 0], [1, 1], False, product="950"
    )
    assert got.dtype == dtype
    np.testing.assert_allclose(got.astype(np.float32), want.astype(dtype).astype(np.float32), rtol=1e-2, atol=1e-2)


def test_int8_indices_pass_the_first_phase_but_are_not_computed():
    x = np.zeros((1, 1, 4, 4), np.float32)
    g = np.ones((1, 1, 2, 2), np.float32)
    kwargs = dict(gradOutput=g, self=x, kernelSize=[2], stride=[2], padding=[0], dilation=[1], ceilMode=False)
    idx = np.zeros((1, 1, 2, 2), np.int8)
    aclnn.validate(OP, product="910b", indices=idx, **kwargs)
    with pytest.raises(aclnn.AclnnError) as err:
        aclnn.run(OP, product="910b", indices=idx, **kwargs)
    assert err.value.code == 561000


def test_example_matches_torch():
    ex = spec.example
    x = np.array(ex.inputs["self"].data, np.float32).reshape(ex.inputs["self"].shape)
    _, idx, _ = _torch_reference(x, [2, 2], [2, 2], [0, 0], [1, 1], False)
    assert idx.reshape(-1).tolist() == ex.inputs["indices"].data
    torch = pytest.importorskip("torch")
    g = np.array(ex.inputs["gradOutput"].data, np.float32).reshape(ex.inputs["gradOutput"].shape)
    want = torch.ops.aten.max_pool2d_with_indices_backward(
        torch.from_numpy(g), torch.from_numpy(x), [2, 2], [2, 2], [0, 0], [1, 1], False, torch.from_numpy(idx)
    ).numpy()
    np.testing.assert_allclose(ex.expected["gradInput"].data, want.reshape(-1), rtol=1e-6)


@pytest.mark.parametrize("product", ["950", "910b"])
def test_nhwc_runs_channels_last(product):
    """self's format reaches the kernel as data_format: NHWC tensors are (N, H, W, C) end to end."""
    x = np.random.default_rng(6).standard_normal((2, 3, 7, 6)).astype(np.float32)
    g, idx, want = _torch_reference(x, [3, 2], [2, 2], [1, 0], [1, 1], True)

    def nhwc(a, dtype):
        a = np.ascontiguousarray(np.moveaxis(a, 1, -1)).astype(dtype)
        return aclnn.TensorDesc(a.shape, a.dtype, "NHWC", data=a)

    got = aclnn.run(
        OP,
        product=product,
        gradOutput=nhwc(g, np.float32),
        self=nhwc(x, np.float32),
        indices=nhwc(idx, np.int32),
        kernelSize=[3, 2],
        stride=[2, 2],
        padding=[1, 0],
        dilation=[1, 1],
        ceilMode=True,
    )["gradInput"]
    assert got.shape == (2, 7, 6, 3)
    np.testing.assert_allclose(np.moveaxis(got, -1, 1), want, rtol=1e-6, atol=1e-6)
