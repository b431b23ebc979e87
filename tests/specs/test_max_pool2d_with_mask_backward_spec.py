"""Content tests for specs/max_pool2d_with_mask_backward.yaml (facts 5.1)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from generator import expr as ex
from generator.loader import load_project

project = load_project(Path(__file__).resolve().parents[2] / "specs")
info = project.op("aclnnMaxPool2dWithMaskBackward")
spec = info.spec

PARAM_INVALID, NULLPTR = 161002, 161001

# Facts 5.1 (e): entry checks, then CheckParams (nulls, dtypes, formats, attributes, shapes).
EXPECTED_ORDER = [
    "product-950",
    "entry-null",
    "kernel-size-length",
    "null-pointers",
    "self-dtype-supported",
    "grad-output-dtype-same",
    "grad-input-dtype-same",
    "indices-dtype",
    "format-same",
    "format-not-private",
    "format-nchw",
    "rank",
    "stride-length",
    "padding-length",
    "dilation-length",
    "kernel-size-positive",
    "stride-positive",
    "padding-range",
    "dilation-one",
    "grad-input-shape",
    "self-chw-nonzero",
    "padding-dilated-kernel",
    "output-size-positive",
    "grad-output-shape",
    "grad-output-indices-shape",
]


def check(check_id: str):
    return next(c for c in spec.checks if c.id == check_id)


def code(ref) -> int:
    return project.catalog.status(ref)[0]


# ---------------------------------------------------------------------------------------------
# A tiny evaluator for the expr checks (the generated validators are not available here).


def _pool_out(size, k, s, p, d, ceil):
    num = size + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil else 0)
    out = num // s + 1
    if ceil and (out - 1) * s >= size + p:
        out -= 1
    return out


RT = SimpleNamespace(
    pool_out=_pool_out,
    expand=lambda xs, n: tuple(xs) * n if len(xs) == 1 else tuple(xs),
    or_default=lambda a, b: tuple(a) if len(a) else tuple(b),
    ceil_div=lambda a, b: -(-a // b),
)


def tensor(shape, dtype="FLOAT", fmt="NCHW"):
    shape = tuple(shape)
    return SimpleNamespace(
        shape=shape, rank=len(shape), dtype=dtype, format=fmt, numel=int(np.prod(shape)), empty=0 in shape
    )


def evaluate(check_id: str, **values) -> bool:
    index = next(i for i, c in enumerate(spec.checks) if c.id == check_id)
    node = info.exprs[("checks", index, "expr")]
    names = {p.name: f"v_{p.name}" for p in spec.params}
    env = {"rt": RT, **{f"v_{k}": v for k, v in values.items()}}  # one namespace: generators see it
    return bool(eval(ex.to_python(node, names), env))  # noqa: S307 - rendered from the spec


def sample_inputs(**overrides):
    values = dict(
        gradOutput=tensor([1, 1, 2, 1]),
        self=tensor([1, 1, 4, 3]),
        indices=tensor([1, 1, 4, 64], "INT8"),
        kernelSize=[2, 2],
        stride=[2, 2],
        padding=[0, 0],
        dilation=[1, 1],
        ceilMode=False,
        gradInput=tensor([1, 1, 4, 3]),
    )
    values.update(overrides)
    return values


# ---------------------------------------------------------------------------------------------


def test_identity_and_products():
    assert spec.snake == "max_pool2d_with_mask_backward"
    assert spec.header == "aclnnop/aclnn_max_pool2d_with_indices_backward.h"
    assert spec.products == ["910_93", "910b", "910"]
    assert [p.name for p in spec.params] == [
        "gradOutput",
        "self",
        "indices",
        "kernelSize",
        "stride",
        "padding",
        "dilation",
        "ceilMode",
        "gradInput",
    ]
    assert spec.param("ceilMode").ctype == "bool"


def test_check_order_follows_code():
    assert [c.id for c in spec.checks] == EXPECTED_ORDER


def test_950_rejected_first_with_161002():
    first = spec.checks[0]
    assert first.kind == "product_supported"
    assert first.products == ["950"]
    assert code(first.code) == PARAM_INVALID
    assert "950" not in spec.products


def test_entry_null_checks_before_kernel_length():
    entry = check("entry-null")
    assert entry.params == ["kernelSize", "self", "gradOutput"]
    assert code(entry.code) == NULLPTR
    full = check("null-pointers")
    assert set(full.params) == {p.name for p in spec.params if p.ctype != "bool"}
    assert code(full.code) == NULLPTR


def test_kernel_size_length_returns_161001_doc_says_161002():
    c = check("kernel-size-length")
    assert c.kind == "length_in" and c.lengths == [1, 2]
    assert code(c.code) == NULLPTR
    assert code(c.doc_code) == PARAM_INVALID
    # every other check returns 161002 except the null checks
    others = [c for c in spec.checks if c.id not in ("entry-null", "null-pointers", "kernel-size-length")]
    assert all(code(c.code) == PARAM_INVALID for c in others)


def test_dtype_tables_per_product():
    for name in ("gradOutput", "self", "gradInput"):
        rules = {tuple(r.products): r.dtypes for r in spec.param(name).tensor.dtypes}
        assert set(rules[("910_93", "910b")]) == {"FLOAT", "FLOAT16", "BFLOAT16"}
        assert set(rules[("910",)]) == {"FLOAT", "FLOAT16"}
    indices = spec.param("indices").tensor
    assert [(r.products, r.dtypes) for r in indices.dtypes] == [("all", ["INT8"])]
    assert indices.non_contiguous is False
    assert check("indices-dtype").dtypes == ["INT8"]


def test_unenforced_doc_rules():
    unenforced = {c.id for c in spec.checks if not c.enforced}
    assert unenforced == {"grad-output-indices-shape", "format-nchw"}
    assert check("grad-output-indices-shape").params == ["gradOutput", "indices"]
    assert check("grad-output-indices-shape").note is not None


def test_undocumented_code_checks():
    undocumented = {c.id for c in spec.checks if not c.documented}
    assert {"product-950", "rank", "self-chw-nonzero", "output-size-positive", "grad-output-shape"} <= undocumented
    assert check("rank").rank.min == 3 and check("rank").rank.max == 4


def test_padding_bound_is_half_kernel():
    assert "// 2" in check("padding-range").expr
    assert evaluate("padding-range", **sample_inputs(padding=[1, 1]))
    assert evaluate("padding-range", **sample_inputs(padding=[1]))
    # allowed by the current doc (<= kernelSize) but rejected by the code (<= kernelSize/2)
    assert not evaluate("padding-range", **sample_inputs(padding=[2, 0]))
    assert not evaluate("padding-range", **sample_inputs(padding=[0, -1]))
    assert {"padding-bound"} <= {d.id for d in spec.doc_issues}


def test_grad_output_shape_is_pooled_shape():
    assert evaluate("grad-output-shape", **sample_inputs())
    assert evaluate("output-size-positive", **sample_inputs())
    # empty stride defaults to kernelSize; length-1 lists expand
    assert evaluate("grad-output-shape", **sample_inputs(stride=[], kernelSize=[2], padding=[0], dilation=[1]))
    # ceil mode: W = 3, k = 2, s = 2 -> Wout = 2
    assert not evaluate("grad-output-shape", **sample_inputs(ceilMode=True))
    assert evaluate("grad-output-shape", **sample_inputs(ceilMode=True, gradOutput=tensor([1, 1, 2, 2])))
    # 3-D (C, H, W)
    assert evaluate("grad-output-shape", **sample_inputs(self=tensor([1, 4, 3]), gradOutput=tensor([1, 2, 1])))
    # gradOutput shaped like indices (the doc's rule) fails
    assert not evaluate("grad-output-shape", **sample_inputs(gradOutput=tensor([1, 1, 4, 64])))
    # window larger than the input -> no output
    assert not evaluate("output-size-positive", **sample_inputs(kernelSize=[5, 5], stride=[1, 1]))


def test_nhwc_reads_c_from_the_last_dim():
    """Issue 11: NHWC passes the format checks; the shape check then reads H, W, C as N, H, W, C."""
    nhwc = dict(self=tensor([1, 4, 3, 1], fmt="NHWC"), gradInput=tensor([1, 4, 3, 1], fmt="NHWC"))
    assert evaluate("grad-output-shape", **sample_inputs(gradOutput=tensor([1, 2, 1, 1], fmt="NHWC"), **nhwc))
    assert evaluate("output-size-positive", **sample_inputs(gradOutput=tensor([1, 2, 1, 1], fmt="NHWC"), **nhwc))
    # the NCHW reading of the same pooled output is rejected
    assert not evaluate("grad-output-shape", **sample_inputs(gradOutput=tensor([1, 1, 2, 1], fmt="NHWC"), **nhwc))
    # 3-D NHWC: (H, W, C)
    three = dict(self=tensor([4, 3, 5], fmt="NHWC"), gradInput=tensor([4, 3, 5], fmt="NHWC"))
    assert evaluate("grad-output-shape", **sample_inputs(gradOutput=tensor([2, 1, 5], fmt="NHWC"), **three))
    assert not evaluate("grad-output-shape", **sample_inputs(gradOutput=tensor([5, 2, 1], fmt="NHWC"), **three))
    # H and W come from the NHWC positions: H = 1 with a 2x2 window and stride 1 gives no output
    thin = dict(self=tensor([1, 1, 3, 2], fmt="NHWC"), gradInput=tensor([1, 1, 3, 2], fmt="NHWC"))
    assert not evaluate("output-size-positive", **sample_inputs(stride=[1, 1], **thin))
    assert evaluate("output-size-positive", **sample_inputs(stride=[1, 1], self=tensor([1, 2, 3, 1], fmt="NHWC")))


def test_nhwc_through_the_generated_validator():
    import aclnn

    def desc(shape, dtype="FLOAT", fmt="NHWC"):
        return aclnn.TensorDesc(shape, dtype, fmt)

    args = dict(
        gradOutput=desc((1, 2, 1, 1)),
        self=desc((1, 4, 3, 1)),
        indices=desc((1, 1, 4, 64), "INT8", "NCHW"),
        kernelSize=[2, 2],
        stride=[2, 2],
        padding=[0, 0],
        dilation=[1, 1],
        ceilMode=False,
    )
    for product in spec.products:
        aclnn.validate(spec.op, product=product, **args)
        with pytest.raises(aclnn.AclnnError) as err:
            aclnn.validate(spec.op, product=product, **dict(args, gradOutput=desc((1, 1, 2, 1))))
        assert (err.value.check, err.value.code) == ("grad-output-shape", PARAM_INVALID)
    # the formats must still agree
    with pytest.raises(aclnn.AclnnError) as err:
        aclnn.validate(spec.op, product="910b", **dict(args, gradOutput=desc((1, 2, 1, 1), fmt="NCHW")))
    assert err.value.check == "format-same"


def test_other_expr_checks():
    ok = sample_inputs()
    for cid in (
        "kernel-size-positive",
        "stride-positive",
        "dilation-one",
        "self-chw-nonzero",
        "padding-dilated-kernel",
    ):
        assert evaluate(cid, **ok), cid
    assert evaluate("stride-positive", **sample_inputs(stride=[]))
    assert not evaluate("kernel-size-positive", **sample_inputs(kernelSize=[2, 0]))
    assert not evaluate("stride-positive", **sample_inputs(stride=[-1]))
    assert not evaluate("dilation-one", **sample_inputs(dilation=[1, 2]))
    assert evaluate("self-chw-nonzero", **sample_inputs(self=tensor([0, 1, 4, 3])))  # N = 0 is fine
    assert not evaluate("self-chw-nonzero", **sample_inputs(self=tensor([1, 0, 4, 3])))


def test_stride_default():
    (default,) = spec.defaults
    assert (default.param, default.when, default.value) == ("stride", "len(stride) == 0", "kernelSize")


def test_mask_layout_recorded_per_product():
    by_product = {}
    for c in spec.constraints:
        for tag in c.products or []:
            by_product.setdefault(tag, []).append(c.text.en)
    assert any("INT32" in t for t in by_product["910b"]) and any("INT32" in t for t in by_product["910_93"])
    assert any("bit mask" in t and "1x1" in t for t in by_product["910b"])
    assert any("bit mask" in t and "uint16" in t for t in by_product["910"])
    assert not any("INT32" in t for t in by_product["910"])
    usage = spec.param("indices").usage.en
    assert "INT32" in usage and "uint16" in usage


def test_kernel_is_product_aware():
    assert spec.kernel.module == "max_pool2d_with_mask_backward"
    assert spec.kernel.function == "max_pool2d_with_mask_backward"
    assert spec.kernel.product_aware is True


def test_example_is_the_bit_mask_sample():
    example = spec.example
    assert example.product == "910"
    indices = example.inputs["indices"]
    assert indices.shape == [1, 1, 4, 64] and indices.dtype == "INT8"
    assert indices.mask_from_argmax == [0, 6]
    assert example.inputs["gradOutput"].shape == [1, 1, 2, 1]
    assert example.expected["gradInput"].data == [0.4757, 0, 0, 0, 0, 0, 0.1726, 0, 0, 0, 0, 0]
    assert "sample-mask-layout" in {d.id for d in spec.doc_issues}


def test_example_expected_matches_kernel():
    kernel = pytest.importorskip("generator.kernels.max_pool2d_with_mask_backward")
    ex_ = spec.example
    inputs = ex_.inputs

    def arr(t):
        return np.array(t.data, dtype=np.float32).reshape(t.shape)

    grad, x = arr(inputs["gradOutput"]), arr(inputs["self"])
    attrs = (inputs["kernelSize"], inputs["stride"], inputs["padding"])
    argmax = np.array(inputs["indices"].mask_from_argmax).reshape(inputs["gradOutput"].shape)
    layout = kernel.mask_layout(ex_.product, inputs["kernelSize"])
    assert layout == "v1_bitmask"
    mask = kernel.encode_mask(argmax, x.shape, *attrs, inputs["ceilMode"], layout=layout)
    assert list(mask.shape) == inputs["indices"].shape
    got = kernel.max_pool2d_with_mask_backward(
        grad, x, mask, *attrs, inputs["dilation"], inputs["ceilMode"], product=ex_.product
    )
    want = arr(ex_.expected["gradInput"])
    np.testing.assert_allclose(got, want, rtol=ex_.tolerance.rtol, atol=ex_.tolerance.atol)
    # The seed's literal mask (first 32 bytes = -1) gives the same result under the bit-mask layout ...
    seed = np.zeros(256, dtype=np.int8)
    seed[:32] = -1
    seed = seed.reshape(inputs["indices"].shape)
    got_seed = kernel.max_pool2d_with_mask_backward(
        grad, x, seed, *attrs, inputs["dilation"], inputs["ceilMode"], product="910"
    )
    np.testing.assert_allclose(got_seed, want, rtol=ex_.tolerance.rtol, atol=ex_.tolerance.atol)
    # ... and the argmax [0, 6] is also the true window maximum of self.
    _, forward_mask = kernel.max_pool2d_with_mask(x, *attrs, inputs["dilation"], inputs["ceilMode"], product="910")
    decoded = kernel.decode_mask(forward_mask, x.shape, *attrs, inputs["ceilMode"], layout=layout)
    assert decoded.reshape(-1).tolist() == inputs["indices"].mask_from_argmax
