"""Second reading of specs/adaptive_avg_pool2d_backward.yaml against aclnn_adaptive_avg_pool2d_backward.cpp.

Written from the op_api code, not from the spec. CANN's decision procedure, per product:

1. CheckNotNull: gradOutput, self, out (161001).
2. CheckInputDims: gradOutput and self have the same rank (161002); the dims are never negative.
3. CheckInputOutputShape: out is 3-D or 4-D, out has self's rank, then for every dim but the last two
   out[i] == self[i] and gradOutput[i] == self[i] (161002). out's H and W are not compared here.
4. CheckDtypeValid: gradOutput, then self in the list picked by SocVersion (ASCEND910B..ASCEND910E, i.e.
   910b, 910_93, 950: FLOAT, FLOAT16, BFLOAT16; else FLOAT, FLOAT16), then gradOutput == self (161002).
   out's dtype is not checked.
5. CheckFormat: gradOutput and self share a storage format, gradOutput not private (161002). out's format
   is not checked.
6. Empty self or gradOutput: success, before anything below.
7. Building the computation (DoAdapativeAvgPool2DBackward): gradOutput H == W == 1 takes Fill + Mul + l0 Cast
   to out's dtype + ViewCopy on every product; otherwise 950 runs AdaptiveAvgPool2dGrad + ViewCopy, the
   910B..910E SocVersions (A2/A3) run AdaptiveAvgPool3dGrad, reshape the result to out's shape and then
   ViewCopy, and the rest (910, 310p, 310b) assist matrices + BatchMatMul + ViewCopy. Failures here are
   561103 (modelled by the spec; not verifiable without a device).
"""

from __future__ import annotations

import pytest

import aclnn
from tests.specs.verdicts import status

OP = "AdaptiveAvgPool2dBackward"
ALL = ["950", "910_93", "910b", "310b", "310p", "910"]
BF16 = ["950", "910_93", "910b"]
SUPPORTED = ["950", "910_93", "910b", "310p", "910"]
A2A3 = ["910_93", "910b"]


def t(shape, dtype="FLOAT", fmt=None):
    fmt = fmt or {3: "NCL", 4: "NCHW"}.get(len(shape), "ND")
    return aclnn.TensorDesc(shape, dtype, fmt)


def args(grad=(2, 3, 2, 2), x=(2, 3, 5, 4), dtype="FLOAT", **over):
    values = dict(gradOutput=t(grad, dtype), self=t(x, dtype), out=t(x, dtype))
    values.update(over)
    return values


def code(product="910b", **kwargs):
    return status(OP, product, **kwargs)


# ---------------------------------------------------------------- 1. null pointers come first


@pytest.mark.parametrize("product", ALL)
@pytest.mark.parametrize("name", ["gradOutput", "self", "out"])
def test_null_pointer_beats_every_other_error(product, name):
    """CheckNotNull runs first on every product, even with a bad dtype and mismatched ranks elsewhere."""
    bad = args(grad=(3, 2, 2), dtype="INT32")
    bad[name] = None
    assert code(product, **bad) == 161001


# ---------------------------------------------------------------- 2./3. ranks and leading dims


@pytest.mark.parametrize(
    "grad, x, out",
    [
        ((3, 2, 2), (2, 3, 5, 4), (2, 3, 5, 4)),  # gradOutput 3-D, self 4-D
        ((2, 3, 2, 2), (3, 5, 4), (3, 5, 4)),  # gradOutput 4-D, self 3-D
        ((1, 2, 3, 2, 2), (1, 2, 3, 5, 4), (1, 2, 3, 5, 4)),  # 5-D everywhere
        ((2, 2), (5, 4), (5, 4)),  # 2-D everywhere
        ((), (), ()),  # 0-d everywhere
        ((2, 3, 2, 2), (2, 3, 5, 4), (3, 5, 4)),  # out 3-D, inputs 4-D
        ((3, 2, 2), (3, 5, 4), (1, 3, 5, 4)),  # out 4-D, inputs 3-D
        ((3, 2, 2), (3, 5, 4), (1, 1, 3, 5, 4)),  # out 5-D
        ((2, 3, 2, 2), (2, 3, 5, 4), (2, 4, 5, 4)),  # out C differs
        ((2, 3, 2, 2), (2, 3, 5, 4), (1, 3, 5, 4)),  # out N differs
        ((2, 4, 2, 2), (2, 3, 5, 4), (2, 3, 5, 4)),  # gradOutput C differs
        ((1, 3, 2, 2), (2, 3, 5, 4), (2, 3, 5, 4)),  # gradOutput N differs
        ((4, 2, 2), (3, 5, 4), (3, 5, 4)),  # 3-D: gradOutput C differs
        ((0, 3, 2, 2), (2, 3, 5, 4), (2, 3, 5, 4)),  # an empty gradOutput with the wrong N still fails
    ],
)
@pytest.mark.parametrize("product", ["910b", "950", "910", "310b"])
def test_rank_and_leading_dims(product, grad, x, out):
    assert code(product, gradOutput=t(grad), self=t(x), out=t(out)) == 161002


@pytest.mark.parametrize("product", SUPPORTED)
@pytest.mark.parametrize("hw", [(1, 2), (5, 4), (9, 11), (7, 1), (20, 20)])
def test_pooled_size_is_free(product, hw):
    """gradOutput's H and W are never compared with anything (adaptive pooling can up- or down-sample)."""
    assert code(product, **args(grad=(2, 3) + hw)) == 0
    assert code(product, **args(grad=(3,) + hw, x=(3, 5, 4))) == 0


def test_rank_checks_run_before_check_keys():
    # both wrong: rank mismatch reported (161002), and not a null/other code
    assert code("910", **args(grad=(3, 2, 2), dtype="BFLOAT16")) == 161002
    # out with a wrong leading dim and every dtype wrong: still 161002
    assert code(**args(dtype="INT64", out=t((2, 4, 5, 4), "STRING"))) == 161002


# ---------------------------------------------------------------- 4. dtypes


@pytest.mark.parametrize("product", ALL)
def test_dtype_lists_by_soc_version(product):
    for dtype in ("FLOAT", "FLOAT16"):
        expected = 561103 if product == "310b" else 0
        assert code(product, **args(dtype=dtype)) == expected, dtype
    expected = 0 if product in BF16 else 161002
    assert code(product, **args(dtype="BFLOAT16")) == expected
    for dtype in ("DOUBLE", "INT32", "INT64", "INT8", "UINT8", "BOOL", "COMPLEX64", "FLOAT8_E4M3FN"):
        assert code(product, **args(dtype=dtype)) == 161002, dtype


@pytest.mark.parametrize("product", ALL)
def test_grad_output_and_self_dtypes_must_match(product):
    assert code(product, gradOutput=t((2, 3, 2, 2), "FLOAT16"), self=t((2, 3, 5, 4)), out=t((2, 3, 5, 4))) == 161002
    assert code(product, gradOutput=t((2, 3, 2, 2)), self=t((2, 3, 5, 4), "FLOAT16"), out=t((2, 3, 5, 4))) == 161002


def test_out_dtype_is_not_a_parameter_check():
    """An odd out dtype is fine whenever the computation is not built (empty input)."""
    for dtype in ("INT32", "DOUBLE", "BOOL", "BFLOAT16", "STRING"):
        assert code("910", **args(grad=(0, 3, 2, 2), x=(0, 3, 5, 4), out=t((0, 3, 5, 4), dtype))) == 0, dtype


# ---------------------------------------------------------------- 5. formats


@pytest.mark.parametrize("product", ["950", "910b", "910"])
def test_formats(product):
    # different formats
    assert code(product, **args(gradOutput=t((2, 3, 2, 2), fmt="ND"))) == 161002
    assert code(product, **args(self=t((2, 3, 5, 4), fmt="NHWC"))) == 161002
    # any shared public format, even one the doc does not list
    for fmt in ("ND", "NHWC", "HWCN", "NCL", "NCDHW"):
        assert code(product, **args(gradOutput=t((2, 3, 2, 2), fmt=fmt), self=t((2, 3, 5, 4), fmt=fmt))) == 0, fmt
    # a shared private format
    for fmt in ("NC1HWC0", "FRACTAL_Z", "FRACTAL_NZ"):
        both = args(gradOutput=t((2, 3, 2, 2), fmt=fmt), self=t((2, 3, 5, 4), fmt=fmt))
        assert code(product, **both) == 161002, fmt
    # out's format is never looked at
    for fmt in ("ND", "NHWC", "NC1HWC0"):
        assert code(product, **args(out=t((2, 3, 5, 4), fmt=fmt))) == 0, fmt


def test_format_checks_come_before_the_empty_return():
    assert code(**args(grad=(0, 3, 2, 2), x=(0, 3, 5, 4), gradOutput=t((0, 3, 2, 2), fmt="ND"))) == 161002


# ---------------------------------------------------------------- 6. empty tensors


@pytest.mark.parametrize("product", ALL)
@pytest.mark.parametrize(
    "grad, x",
    [((0, 3, 2, 2), (0, 3, 5, 4)), ((2, 3, 0, 2), (2, 3, 5, 4)), ((2, 3, 2, 2), (2, 3, 0, 4)), ((3, 2, 0), (3, 5, 4))],
)
def test_empty_returns_success_after_the_parameter_checks(product, grad, x):
    values = dict(gradOutput=t(grad), self=t(x), out=t(x))
    assert code(product, **values) == 0
    # ... skipping everything that would fail while building the computation
    assert code(product, **{**values, "out": t(x[:-2] + (x[-1], x[-2] + 1), "INT32")}) == 0
    # ... but not the dtype checks
    assert code(product, **{**values, "gradOutput": t(grad, "DOUBLE")}) == 161002


def test_empty_bf16_on_a_product_without_bf16():
    assert code("910", **args(grad=(0, 3, 2, 2), x=(0, 3, 5, 4), dtype="BFLOAT16")) == 161002
    assert code("910b", **args(grad=(0, 3, 2, 2), x=(0, 3, 5, 4), dtype="BFLOAT16")) == 0


# ---------------------------------------------------------------- 7. building the computation (561103)


@pytest.mark.parametrize("product", ALL)
def test_out_h_w_with_another_number_of_elements_fail_deep(product):
    for hw in ((5, 5), (4, 4), (6, 4), (0, 4)):
        assert code(product, **args(out=t((2, 3) + hw))) == 561103, hw
        assert code(product, **args(grad=(2, 3, 1, 1), out=t((2, 3) + hw))) == 561103, hw


@pytest.mark.parametrize("product", ALL)
def test_out_h_w_swapped(product):
    """out 4x5 for self 5x4: A2/A3 reshape the result to out's shape (same element count) before the copy,
    so the first phase succeeds there; every other path copies a self-shaped result into out."""
    swapped = args(out=t((2, 3, 4, 5)))
    assert code(product, **swapped) == (0 if product in A2A3 else 561103)
    # the global path (gradOutput 1x1) copies a self-shaped result on every product
    assert code(product, **{**swapped, "gradOutput": t((2, 3, 1, 1))}) == 561103


def test_a2_a3_reshaped_result_runs():
    np = pytest.importorskip("numpy")
    x = np.arange(2 * 3 * 5 * 4, dtype=np.float32).reshape(2, 3, 5, 4)
    g = np.ones((2, 3, 2, 2), np.float32)
    out = np.zeros((2, 3, 4, 5), np.float32)
    got = aclnn.run(OP, product="910b", gradOutput=g, self=x, out=out)["out"]
    ref = aclnn.run(OP, product="910b", gradOutput=g, self=x)["out"]
    np.testing.assert_array_equal(got.reshape(-1), ref.reshape(-1))


@pytest.mark.parametrize("product", SUPPORTED)
def test_out_dtype(product):
    # non-global: the result keeps self's dtype and is view-copied as is
    for dtype in ("FLOAT16", "DOUBLE", "INT32"):
        assert code(product, **args(out=t((2, 3, 5, 4), dtype))) == 561103, dtype
    # global (gradOutput 1x1): the l0 Cast converts to out's dtype, integers and BOOL included
    for dtype in ("FLOAT16", "BFLOAT16", "DOUBLE", "INT32", "INT8", "BOOL", "COMPLEX64"):
        assert code(product, **args(grad=(2, 3, 1, 1), out=t((2, 3, 5, 4), dtype))) == 0, dtype
    for dtype in ("STRING", "HIFLOAT8"):
        assert code(product, **args(grad=(2, 3, 1, 1), out=t((2, 3, 5, 4), dtype))) == 561103, dtype
    # only H == W == 1 is the global path
    assert code(product, **args(grad=(2, 3, 1, 2), out=t((2, 3, 5, 4), "INT32"))) == 561103


def test_310b_passes_every_parameter_check_and_fails_deep():
    assert code("310b", **args()) == 561103
    assert code("310b", **args(grad=(3, 1, 1), x=(3, 5, 4))) == 561103
    assert code("310b", **args(dtype="BFLOAT16")) == 161002
    assert code("310b", **args(x=(2, 3, 0, 4))) == 0
