"""Content tests for specs/max_pool3d_with_argmax_backward.yaml (aclnnMaxPool3dWithArgmaxBackward)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from generator.loader import load_project

project = load_project(Path(__file__).resolve().parents[2] / "specs")
spec = project.op("aclnnMaxPool3dWithArgmaxBackward").spec
CHECKS = {c.id: c for c in spec.checks}
PARAM_INVALID, PARAM_NULLPTR = 161002, 161001


def code(check) -> int:
    return project.catalog.status(check.code)[0]


def dtype_table(name: str) -> dict[str, set[str]]:
    table: dict[str, set[str]] = {}
    for rule in spec.param(name).tensor.dtypes:
        for tag in spec.products if rule.products == "all" else rule.products:
            table.setdefault(tag, set()).update(rule.dtypes)
    return table


def evaluate(expr: str, **names) -> bool:
    """Evaluate a rule expression as Python (the language is a Python subset)."""
    env = {
        "INT32_MAX": 2**31 - 1,
        "expand": lambda xs, n: list(xs) * n if len(xs) == 1 else list(xs),
        "all": all,
        "range": range,
        "len": len,
    }
    # one globals dict: generator expressions do not see eval() locals
    return bool(eval(expr, {"__builtins__": {}, **env, **names}))  # noqa: S307 - trusted spec text


def test_products_follow_current_doc():
    assert spec.products == ["950", "910_93", "910b"]


def test_signature_order_and_ctypes():
    assert [(p.name, p.ctype, p.role) for p in spec.params] == [
        ("gradOutput", "const aclTensor*", "input"),
        ("self", "const aclTensor*", "input"),
        ("indices", "const aclTensor*", "input"),
        ("kernelSize", "const aclIntArray*", "attribute"),
        ("stride", "const aclIntArray*", "attribute"),
        ("padding", "const aclIntArray*", "attribute"),
        ("dilation", "const aclIntArray*", "attribute"),
        ("ceilMode", "bool", "attribute"),
        ("gradInput", "aclTensor*", "output"),
    ]


def test_check_order_matches_code_order():
    assert [c.id for c in spec.checks] == [
        "null-pointers",
        "product-supported",
        "self-dtype",
        "indices-dtype",
        "grad-output-dtype-same",
        "grad-input-dtype-same",
        "format-same",
        "format-not-private",
        "rank",
        "kernel-size-length",
        "kernel-size-positive",
        "stride-length",
        "stride-positive",
        "padding-length",
        "padding-range",
        "dilation-length",
        "dilation-positive",
        "dilation-one",
        "spatial-size-int32",
        "indices-shape",
        "grad-input-shape",
    ]


def test_null_check_covers_all_eight_pointers():
    check = CHECKS["null-pointers"]
    assert code(check) == PARAM_NULLPTR
    assert check.params == ["gradOutput", "self", "indices", "kernelSize", "stride", "padding", "dilation", "gradInput"]
    assert check.note is not None  # the doc names only self and indices


def test_every_other_check_returns_param_invalid():
    for check in spec.checks[1:]:
        assert code(check) == PARAM_INVALID, check.id
        assert check.doc_code is None, check.id


@pytest.mark.parametrize("name", ["gradOutput", "self", "gradInput"])
def test_float_dtypes_per_product(name):
    assert dtype_table(name) == {tag: {"FLOAT", "FLOAT16", "BFLOAT16"} for tag in ("950", "910_93", "910b")}


def test_indices_dtypes_per_product():
    assert dtype_table("indices") == {"950": {"INT32", "INT64"}, "910_93": {"INT32"}, "910b": {"INT32"}}


def test_tensor_ranks_formats_and_empty_flag():
    for name in ("gradOutput", "self", "indices", "gradInput"):
        tensor = spec.param(name).tensor
        assert (tensor.rank.min, tensor.rank.max) == (4, 5), name
        assert tensor.formats == ["ND"], name
        assert tensor.non_contiguous is True, name
        assert tensor.empty is False, name  # doc: 不支持空进空出 (the code returns success: see constraints)


def test_array_lengths():
    lengths = {p.name: p.array.lengths for p in spec.params if p.array}
    assert lengths == {"kernelSize": [1, 3], "stride": [0, 1, 3], "padding": [1, 3], "dilation": [1, 3]}
    for cid, param, allowed in [
        ("kernel-size-length", "kernelSize", [1, 3]),
        ("stride-length", "stride", [0, 1, 3]),
        ("padding-length", "padding", [1, 3]),
        ("dilation-length", "dilation", [1, 3]),
    ]:
        assert CHECKS[cid].kind == "length_in" and CHECKS[cid].params == [param] and CHECKS[cid].lengths == allowed


def test_stride_default_is_kernel_size():
    (default,) = spec.defaults
    assert (default.param, default.when, default.value) == ("stride", "len(stride) == 0", "kernelSize")


def test_dilation_code_rule_enforced_doc_rule_not():
    positive, one = CHECKS["dilation-positive"], CHECKS["dilation-one"]
    assert positive.enforced and not positive.documented
    assert not one.enforced and one.documented and one.note is not None
    assert evaluate(positive.expr, dilation=[2, 1, 3])
    assert not evaluate(positive.expr, dilation=[1, 0, 1])
    assert not evaluate(one.expr, dilation=[2])
    assert evaluate(one.expr, dilation=[1, 1, 1])


def test_padding_range_is_per_axis_half_kernel():
    expr = CHECKS["padding-range"].expr
    assert evaluate(expr, padding=[1], kernelSize=[3])
    assert evaluate(expr, padding=[1, 0, 2], kernelSize=[2, 1, 5])
    assert not evaluate(expr, padding=[2], kernelSize=[3])  # 3 // 2 == 1
    assert not evaluate(expr, padding=[0, 1, 0], kernelSize=[2, 1, 2])
    assert not evaluate(expr, padding=[-1], kernelSize=[3])


def test_positive_value_checks():
    assert not evaluate(CHECKS["kernel-size-positive"].expr, kernelSize=[2, 0, 2])
    assert evaluate(CHECKS["stride-positive"].expr, stride=[])  # empty stride = kernelSize
    assert not evaluate(CHECKS["stride-positive"].expr, stride=[-1])


def test_int32_volume_limit_only_off_950():
    check = CHECKS["spatial-size-int32"]
    assert check.products == ["910_93", "910b"]
    ok = SimpleNamespace(shape=[1, 1, 1024, 1024, 2047])
    too_big = SimpleNamespace(shape=[1, 1024, 1024, 2048])
    assert evaluate(check.expr, self=ok)
    assert not evaluate(check.expr, self=too_big)


def test_shape_and_dtype_same_checks():
    assert CHECKS["indices-shape"].kind == "shape_same" and set(CHECKS["indices-shape"].params) == {
        "gradOutput",
        "indices",
    }
    assert CHECKS["grad-input-shape"].kind == "shape_same" and set(CHECKS["grad-input-shape"].params) == {
        "self",
        "gradInput",
    }
    assert CHECKS["grad-output-dtype-same"].params == ["self", "gradOutput"]
    assert CHECKS["grad-input-dtype-same"].params == ["self", "gradInput"]
    assert set(CHECKS["format-same"].params) == {"self", "gradOutput", "gradInput"}
    assert CHECKS["product-supported"].kind == "product_supported"


def test_doc_issues_cover_seed_defects():
    ids = {d.id for d in spec.doc_issues}
    for wanted in (
        "seed-error-table-lost",
        "seed-ceil-mode-average",
        "seed-undefined-links",
        "seed-katex-duplication",
        "doc-empty-tensor",
        "doc-dilation-only-one",
    ):
        assert wanted in ids
    ceil = next(d for d in spec.doc_issues if d.id == "seed-ceil-mode-average")
    assert "平均池化" in ceil.text.zh


def test_output_inferred_from_self():
    out = spec.param("gradInput")
    assert (out.infer.shape, out.infer.dtype) == ("self.shape", "self.dtype")


def test_example_is_the_doc_sample():
    ex = spec.example
    assert ex.product == "910b"
    assert ex.inputs["indices"].dtype == "INT32" and ex.inputs["indices"].data == [6]
    self_data = ex.inputs["self"].data
    assert int(np.argmax(self_data)) == 6  # flat d*H*W + h*W + w of the window maximum (d=1, h=1, w=0)
    assert ex.inputs["kernelSize"] == [2, 2, 2] and ex.inputs["stride"] == [2, 2, 2]
    assert ex.expected["gradInput"].data == [0.0] * 6 + [0.4757, 0.0]


def test_example_expected_matches_scatter_add():
    ex = spec.example
    grad = np.asarray(ex.inputs["gradOutput"].data, dtype=np.float32)
    idx = np.asarray(ex.inputs["indices"].data, dtype=np.int64)
    out = np.zeros(8, dtype=np.float32)
    np.add.at(out, idx, grad)
    np.testing.assert_allclose(out, ex.expected["gradInput"].data, rtol=1e-6)
    assert ex.expected["gradInput"].shape == ex.inputs["self"].shape


def test_example_expected_matches_reference_kernel():
    kernels = pytest.importorskip("generator.kernels.max_pool3d_with_argmax_backward")
    assert spec.kernel.module == "max_pool3d_with_argmax_backward" and not spec.kernel.product_aware
    ex = spec.example

    def arr(t, dt):
        return np.asarray(t.data, dtype=dt).reshape(t.shape)

    result = getattr(kernels, spec.kernel.function)(
        arr(ex.inputs["gradOutput"], np.float32),
        arr(ex.inputs["self"], np.float32),
        arr(ex.inputs["indices"], np.int32),
        ex.inputs["kernelSize"],
        ex.inputs["stride"],
        ex.inputs["padding"],
        ex.inputs["dilation"],
        ex.inputs["ceilMode"],
    )
    np.testing.assert_allclose(result, arr(ex.expected["gradInput"], np.float32), rtol=1e-6, atol=1e-6)
