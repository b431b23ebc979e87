"""Content tests for specs/convolution_backward.yaml (aclnnConvolutionBackward)."""

from __future__ import annotations

import math
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from generator import expr as ex
from generator.loader import load_project
from tests.specs.verdicts import verdict

project = load_project(Path(__file__).resolve().parents[2] / "specs")
info = project.op("aclnnConvolutionBackward")
spec = info.spec
CHECKS = {c.id: c for c in spec.checks}
INDEX = {c.id: i for i, c in enumerate(spec.checks)}
PARAM_NULLPTR, PARAM_INVALID, INNER_NULLPTR = 161001, 161002, 561103
ALL_BUT_950 = {"910_93", "910b", "310p", "910"}


def code(ref) -> int:
    return project.catalog.status(ref)[0]


def dtype_table(name: str) -> dict[str, set[str]]:
    table: dict[str, set[str]] = {}
    for rule in spec.param(name).tensor.dtypes:
        for tag in spec.products if rule.products == "all" else rule.products:
            table.setdefault(tag, set()).update(rule.dtypes)
    return table


# ---------------------------------------------------------------------------------------------
# A tiny evaluator: render the loader's parsed expressions with the project's Python renderer.


def _promote(a: str, b: str) -> str:
    floats = {"FLOAT", "FLOAT16", "BFLOAT16"}
    if a not in floats or b not in floats:
        raise ValueError(f"no promotion for {a}, {b} in this test helper")
    return a if a == b else "FLOAT"


RT = SimpleNamespace(
    conv_out=lambda i, k, s, p, d: (i + 2 * p - d * (k - 1) - 1) // s + 1,
    promote=_promote,
)


def tensor(shape, dtype="FLOAT", fmt=None):
    shape = tuple(shape)
    fmt = fmt or {1: "ND", 3: "NCL", 4: "NCHW", 5: "NCDHW"}.get(len(shape), "ND")
    return SimpleNamespace(
        shape=shape, rank=len(shape), dtype=dtype, format=fmt, numel=math.prod(shape), empty=0 in shape
    )


def conv2d_values(**over):
    """The doc sample's arguments (2-D, 1x1 kernel), with overrides."""
    values = dict(
        gradOutput=tensor([2, 2, 7, 7]),
        input=tensor([2, 2, 7, 7]),
        weight=tensor([2, 2, 1, 1]),
        biasSizes=(2,),
        stride=(1, 1),
        padding=(0, 0),
        dilation=(1, 1),
        transposed=False,
        outputPadding=(0, 0),
        groups=1,
        outputMask=(True, True, True),
        cubeMathType=1,
        gradInput=tensor([2, 2, 7, 7]),
        gradWeight=tensor([2, 2, 1, 1]),
        gradBias=tensor([2]),
    )
    values.update(over)
    return values


def _eval(path: tuple, values: dict):
    node = info.exprs[path]
    code_text = ex.to_python(node, {p.name: p.name for p in spec.params})
    return eval(
        code_text,
        {
            "__builtins__": {"len": len, "all": all, "any": any, "range": range, "min": min, "max": max},
            "rt": RT,
            **values,
        },
    )  # noqa: S307


def applies(check_id: str, values: dict) -> bool:
    i = INDEX[check_id]
    return spec.checks[i].when is None or bool(_eval(("checks", i, "when"), values))


def holds(check_id: str, values: dict) -> bool:
    """True if the expr check passes (or does not apply) for these argument values."""
    i = INDEX[check_id]
    assert spec.checks[i].kind == "expr", check_id
    if not applies(check_id, values):
        return True
    try:
        return bool(_eval(("checks", i, "expr"), values))
    except (IndexError, ZeroDivisionError, ValueError):
        return False  # the validator treats an evaluation error as a failed check


# ---------------------------------------------------------------------------------------------
# Signature, products, parameters


def test_products_and_stream():
    assert spec.products == ["950", "910_93", "910b", "310p", "910"]
    assert "310b" not in spec.products
    assert spec.stream_ctype == "const aclrtStream"
    assert spec.header == "aclnnop/aclnn_convolution_backward.h"


def test_signature_order_and_ctypes():
    assert [(p.name, p.ctype, p.role) for p in spec.params] == [
        ("gradOutput", "const aclTensor*", "input"),
        ("input", "const aclTensor*", "input"),
        ("weight", "const aclTensor*", "input"),
        ("biasSizes", "const aclIntArray*", "attribute"),
        ("stride", "const aclIntArray*", "attribute"),
        ("padding", "const aclIntArray*", "attribute"),
        ("dilation", "const aclIntArray*", "attribute"),
        ("transposed", "bool", "attribute"),
        ("outputPadding", "const aclIntArray*", "attribute"),
        ("groups", "int", "attribute"),
        ("outputMask", "const aclBoolArray*", "attribute"),
        ("cubeMathType", "int8_t", "attribute"),
        ("gradInput", "aclTensor*", "output"),
        ("gradWeight", "aclTensor*", "output"),
        ("gradBias", "aclTensor*", "output"),
    ]


def test_nullability():
    nullable = {p.name for p in spec.params if p.nullable}
    assert nullable == {"biasSizes", "gradInput", "gradWeight", "gradBias"}


def test_outputs_infer_when_mask():
    assert spec.param("gradInput").infer.when == "outputMask[0]"
    assert spec.param("gradWeight").infer.when == "outputMask[1]"
    assert spec.param("gradBias").infer.when == "outputMask[2]"
    assert spec.param("gradInput").infer.shape == "input.shape"
    assert spec.param("gradBias").infer.shape == "[gradOutput.shape[1]]"
    assert spec.param("gradBias").infer.dtype == "gradOutput.dtype"


@pytest.mark.parametrize("name", ["gradOutput", "input", "weight", "gradInput", "gradWeight", "gradBias"])
def test_dtype_tables_per_product(name):
    table = dtype_table(name)
    assert table["910"] == table["310p"] == {"FLOAT", "FLOAT16"}
    assert table["910b"] == table["910_93"] == {"FLOAT", "FLOAT16", "BFLOAT16"}
    # not a supported product, but the code gives it the FP32-capable cube list (no product check)
    assert table["310b"] == {"FLOAT", "FLOAT16", "BFLOAT16"}
    assert table["950"] == {"FLOAT", "FLOAT16", "BFLOAT16", "HIFLOAT8", "FLOAT8_E4M3FN"}


def test_formats_and_ranks():
    for name in ("gradOutput", "input", "weight", "gradInput", "gradWeight"):
        t = spec.param(name).tensor
        assert set(t.formats) == {"NCL", "NCHW", "NCDHW", "ND"}
        assert (t.rank.min, t.rank.max) == (3, 5)
    bias = spec.param("gradBias").tensor
    assert bias.formats == ["ND"] and (bias.rank.min, bias.rank.max) == (1, 1)
    assert all(spec.param(n).tensor.non_contiguous for n in ("gradOutput", "input", "weight"))
    assert not any(spec.param(n).tensor.non_contiguous for n in ("gradInput", "gradWeight", "gradBias"))


def test_array_lengths_and_values():
    assert spec.param("biasSizes").array.lengths == [1]
    assert spec.param("stride").array.lengths == [1, 2, 3]
    assert spec.param("padding").array.lengths == [1, 2, 3, 4]
    assert spec.param("dilation").array.lengths == [1, 2, 3]
    assert spec.param("outputMask").array.element == "BOOL"
    assert spec.param("outputMask").array.lengths == [3]
    assert spec.param("groups").value.range == (1, 65535)
    enum = spec.param("cubeMathType").value.enum
    assert [(e.value, e.name) for e in enum] == [
        (0, "KEEP_DTYPE"),
        (1, "ALLOW_FP32_DOWN_PRECISION"),
        (2, "USE_FP16"),
        (3, "USE_HF32"),
    ]


# ---------------------------------------------------------------------------------------------
# Checks: order and codes


def test_check_order_follows_code():
    ids = [c.id for c in spec.checks]
    groups = [
        ["null-pointers", "output-mask-length", "null-grad-input", "null-grad-weight", "null-grad-bias"],
        # one tensor after the other: list (and 950's transposed list), then the 950 equality
        [
            "dtype-supported",
            "dtype-950-transposed",
            "dtype-supported-grad-input",
            "grad-input-dtype-950",
            "dtype-supported-grad-weight",
            "dtype-950-transposed-grad-weight",
            "grad-weight-dtype-950",
            "dtype-supported-grad-bias",
            "grad-bias-dtype-950",
        ],
        # outputMask[0] block, then outputMask[1] block (outputPadding before groups)
        [
            "fp8-transposed-only",
            "fp8-all-same",
            "fp8-grad-weight-float",
            "fp8-no-e4m3fn-grad-weight",
            "fp8-output-padding-zero",
            "fp8-groups-one",
        ],
        [
            "format-grad-output",
            "format-input",
            "format-weight",
            "format-grad-input",
            "format-grad-weight",
            "format-grad-bias",
        ],
        ["stride-positive", "padding-non-negative", "dilation-positive", "output-padding-zero", "groups-positive"],
        ["cube-math-type-range", "cube-math-type-fp32"],
        [
            "rank-same",
            "grad-output-weight-not-empty",
            "grad-input-shape",
            "grad-weight-shape",
            "grad-bias-shape",
            "stride-length",
            "dilation-length",
            "padding-length",
            "output-padding-length",
        ],
        ["channels-weight-out", "channels-groups", "depthwise-channels"],
        ["spatial-3d"],
        [
            "empty-bias-sizes-not-null",
            "empty-bias-sizes-value",
            "empty-input-n-or-c",
            "empty-param-lengths",
            "empty-weight-groups",
            "empty-channels-groups",
            "empty-transposed-weight",
            "empty-formula-one",
        ],
        ["conv3d-unsupported", "conv3d-dw-groups-fp16-math", "conv3d-dw-groups-half", "product-supported"],
    ]
    flat = [i for g in groups for i in g]
    positions = [ids.index(i) for i in flat]
    assert positions == sorted(positions)
    # lengths are checked before anything indexes outputMask
    assert ids.index("output-mask-length") < ids.index("null-grad-input")
    # each "-910" twin sits right after its A2/A3/950 original (one of the two applies to any product)
    for twin in (i for i in ids if i.endswith("-910")):
        original = twin.removesuffix("-910")
        assert ids.index(twin) == ids.index(original) + 1, twin


def test_null_checks():
    null = CHECKS["null-pointers"]
    assert code(null.code) == PARAM_NULLPTR
    assert null.params == [
        "gradOutput",
        "input",
        "weight",
        "stride",
        "padding",
        "dilation",
        "outputPadding",
        "outputMask",
    ]
    assert "biasSizes" not in null.params
    for i, name in enumerate(("gradInput", "gradWeight", "gradBias")):
        check = CHECKS[f"null-{name[0:4].lower()}-{name[4:].lower()}"]
        assert check.kind == "not_null" and check.params == [name]
        assert check.when == f"outputMask[{i}]"
        assert code(check.code) == PARAM_NULLPTR


def test_output_mask_length_is_nullptr_code():
    check = CHECKS["output-mask-length"]
    assert check.kind == "length_in" and check.lengths == [3]
    assert code(check.code) == PARAM_NULLPTR
    assert check.documented is False


def test_bias_sizes_null_deviation():
    doc_claim = CHECKS["null-bias-sizes"]
    assert doc_claim.enforced is False and code(doc_claim.code) == PARAM_NULLPTR
    empty = CHECKS["empty-bias-sizes-not-null"]
    assert empty.enforced and empty.kind == "not_null" and empty.params == ["biasSizes"]
    assert code(empty.code) == PARAM_INVALID
    assert code(empty.doc_code) == PARAM_NULLPTR
    assert "outputMask[2]" in empty.when and "empty" in empty.when


def test_950_only_output_dtype_rules():
    for cid in (
        "grad-input-dtype-950",
        "grad-weight-dtype-950",
        "grad-bias-dtype-950",
        "dtype-950-transposed",
        "dtype-950-transposed-grad-weight",
    ):
        assert CHECKS[cid].products == ["950"] and CHECKS[cid].enforced
    for cid in ("dtype-950-transposed", "dtype-950-transposed-grad-weight"):
        assert CHECKS[cid].dtypes == ["FLOAT", "FLOAT16", "BFLOAT16", "HIFLOAT8"]
        assert CHECKS[cid].when == "transposed"
    for cid in ("grad-input-dtype-doc", "grad-bias-dtype-doc"):
        assert CHECKS[cid].enforced is False
        assert set(CHECKS[cid].products) == ALL_BUT_950


def test_fp8_rules():
    fp8 = [c for c in spec.checks if c.id.startswith("fp8-")]
    assert all(c.products == ["950"] and c.enforced and code(c.code) == PARAM_INVALID for c in fp8)
    intercept = CHECKS["fp8-transposed-only"]
    assert intercept.when == "(outputMask[0] or outputMask[1]) and not (transposed and outputMask[0])"
    # it names gradInput and gradWeight, so a null one skips it (the code tests both pointers)
    assert "gradInput.dtype" in intercept.expr and "gradWeight.dtype" in intercept.expr
    assert CHECKS["fp8-all-same"].when == "outputMask[0]"
    for cid in ("fp8-grad-weight-float", "fp8-no-e4m3fn-grad-weight"):
        assert CHECKS[cid].when == "outputMask[1]"
    assert CHECKS["fp8-output-padding-zero"].when.startswith("outputMask[1] and transposed and ")
    assert CHECKS["fp8-groups-one"].when.startswith("outputMask[1] and ")


NOT_2201_NOR_950 = {"310b", "310p", "910"}


def test_per_product_checks():
    assert set(CHECKS["conv3d-unsupported"].products) == NOT_2201_NOR_950
    assert code(CHECKS["conv3d-unsupported"].code) == PARAM_INVALID
    assert set(CHECKS["cube-math-type-fp32"].products) == {"310p", "910"}  # 310B's cube does FP32
    assert set(CHECKS["depthwise-channels"].products) == {"910_93", "910b"}
    assert set(CHECKS["depthwise-channels-910"].products) == NOT_2201_NOR_950
    assert set(CHECKS["format-grad-bias"].products) == {"950", "910_93", "910b"}
    assert set(CHECKS["grad-output-weight-not-empty-910"].products) == NOT_2201_NOR_950
    assert CHECKS["grad-output-weight-not-empty-910"].when is None
    for cid in ("conv3d-dw-groups-fp16-math", "conv3d-dw-groups-half"):
        assert set(CHECKS[cid].products) == {"910_93", "910b"} and CHECKS[cid].documented is False
    # the shape checks: skipped for empty input/weight only on A2/A3/950; their twins never skip
    twins = [c for c in spec.checks if c.id.endswith("-910")]
    assert len(twins) == 13
    for twin in twins:
        assert set(twin.products) == NOT_2201_NOR_950, twin.id
        assert twin.when is None or "empty" not in twin.when, twin.id
        original = CHECKS[twin.id.removesuffix("-910")]
        assert set(original.products) <= {"950", "910_93", "910b"}, original.id
        assert "not input.empty and not weight.empty" in original.when, original.id
        assert (original.kind, original.expr, original.params) == (twin.kind, twin.expr, twin.params)


def test_561103_is_last():
    inner = [c for c in spec.checks if code(c.code) == INNER_NULLPTR]
    assert {c.id for c in inner} == {"product-supported", "inner-range-a2-a3", "inner-range-950"}
    assert [c.id for c in inner if c.enforced] == ["product-supported"]
    # it is the last code CANN can return, after every 161002 check
    assert all(INDEX[c.id] > INDEX["conv3d-dw-groups-half"] for c in inner)
    product = CHECKS["product-supported"]
    assert product.kind == "product_supported" and product.documented is False
    assert all(f"not {n}.empty" in product.when for n in ("input", "weight", "gradOutput"))


def test_unenforced_doc_rules_have_notes():
    for check in spec.checks:
        if not check.enforced or not check.documented or check.doc_code is not None:
            assert check.note is not None and check.note.en, check.id


# ---------------------------------------------------------------------------------------------
# Behaviour of the rule expressions


def enforced_expr_failures(values: dict, product: str) -> list[str]:
    failed = []
    for check in spec.checks:
        if check.kind != "expr" or not check.enforced:
            continue
        if check.products is not None and product not in check.products:
            continue
        if not holds(check.id, values):
            failed.append(check.id)
    return failed


@pytest.mark.parametrize("product", ["950", "910_93", "910b", "310p", "910"])
def test_doc_sample_passes_every_expression(product):
    assert enforced_expr_failures(conv2d_values(), product) == []


def test_format_by_rank():
    assert holds("format-input", conv2d_values(input=tensor([1, 2, 5], fmt="ND")))
    assert holds("format-input", conv2d_values(input=tensor([1, 2, 5], fmt="NCL")))
    assert not holds("format-input", conv2d_values(input=tensor([1, 2, 5, 5], fmt="ND")))
    assert not holds("format-input", conv2d_values(input=tensor([1, 2, 5, 5], fmt="NHWC")))
    assert not holds("format-input", conv2d_values(input=tensor([1, 2, 5, 5, 5, 5], fmt="ND")))


def test_padding_length_four_only_in_2d():
    assert holds("padding-length", conv2d_values(padding=(0, 0, 1, 1)))
    three_d = dict(input=tensor([1, 2, 4, 4, 4]), weight=tensor([2, 2, 1, 1, 1]), gradOutput=tensor([1, 2, 4, 4, 4]))
    assert holds("padding-length", conv2d_values(padding=(0, 0, 0), **three_d))
    assert not holds("padding-length", conv2d_values(padding=(0, 0, 0, 0), **three_d))


def test_output_padding_rules():
    assert not holds("output-padding-zero", conv2d_values(outputPadding=(0, 1)))
    assert holds("output-padding-zero", conv2d_values(outputPadding=(0, 1), transposed=True))
    three_d = dict(input=tensor([1, 2, 4, 4, 4]), transposed=True)
    assert not holds(
        "output-padding-less-than-stride", conv2d_values(stride=(1, 1, 1), outputPadding=(0, 0, 1), **three_d)
    )
    assert holds("output-padding-less-than-stride", conv2d_values(stride=(2, 2, 2), outputPadding=(1, 1, 1), **three_d))
    # not enforced in 2-D
    assert not applies(
        "output-padding-less-than-stride", conv2d_values(stride=(1, 1), outputPadding=(1, 1), transposed=True)
    )


def test_cube_math_type_uses_promoted_dtype():
    f16 = dict(gradOutput=tensor([2, 2, 7, 7], "FLOAT16"), input=tensor([2, 2, 7, 7], "FLOAT16"))
    assert not holds("cube-math-type-fp32", conv2d_values(cubeMathType=0, weight=tensor([2, 2, 1, 1], "FLOAT"), **f16))
    assert holds("cube-math-type-fp32", conv2d_values(cubeMathType=0, weight=tensor([2, 2, 1, 1], "FLOAT16"), **f16))
    assert not holds("cube-math-type-fp32", conv2d_values(cubeMathType=3))
    assert holds("cube-math-type-fp32", conv2d_values(cubeMathType=1))
    assert not holds("cube-math-type-range", conv2d_values(cubeMathType=4))
    assert not holds("cube-math-type-range", conv2d_values(cubeMathType=-1))


def test_channels_and_groups_transposed_swap():
    # transposed: weight [Cin, Cout/groups, k]; input C = 4, gradOutput C = 6, groups 2 -> weight [4, 3, 1, 1]
    values = conv2d_values(
        transposed=True,
        groups=2,
        input=tensor([1, 4, 5, 5]),
        gradOutput=tensor([1, 6, 5, 5]),
        weight=tensor([4, 3, 1, 1]),
    )
    assert holds("channels-weight-out", values) and holds("channels-groups", values)
    values["weight"] = tensor([6, 2, 1, 1])  # the non-transposed layout
    assert not holds("channels-weight-out", values)
    plain = conv2d_values(
        groups=2, input=tensor([1, 4, 5, 5]), gradOutput=tensor([1, 6, 5, 5]), weight=tensor([6, 2, 1, 1])
    )
    assert holds("channels-weight-out", plain) and holds("channels-groups", plain)
    plain["groups"] = 3
    assert not holds("channels-groups", plain)


def _conv3d(transposed: bool, in_size, k, s, p, d, op=(0, 0, 0)):
    if transposed:
        out = [(i - 1) * ss - 2 * pp + dd * (kk - 1) + o + 1 for i, kk, ss, pp, dd, o in zip(in_size, k, s, p, d, op)]
        weight = tensor([2, 3, *k])
    else:
        out = [(i + 2 * pp - dd * (kk - 1) - 1) // ss + 1 for i, kk, ss, pp, dd in zip(in_size, k, s, p, d)]
        weight = tensor([3, 2, *k])
    return conv2d_values(
        transposed=transposed,
        input=tensor([1, 2, *in_size]),
        gradOutput=tensor([1, 3, *out]),
        weight=weight,
        stride=tuple(s),
        padding=tuple(p),
        dilation=tuple(d),
        outputPadding=tuple(op),
        gradInput=tensor([1, 2, *in_size]),
        gradWeight=weight,
        gradBias=tensor([3]),
    )


def test_spatial_3d_relation():
    ok = _conv3d(False, (5, 7, 9), (2, 3, 3), (1, 2, 2), (0, 1, 1), (1, 1, 2))
    assert holds("spatial-3d", ok)
    bad = dict(ok, gradOutput=tensor([1, 3, *(v + 1 for v in ok["gradOutput"].shape[2:])]))
    assert not holds("spatial-3d", bad)
    # the padded input is smaller than the dilated kernel
    small = _conv3d(False, (2, 7, 9), (3, 3, 3), (1, 1, 1), (0, 0, 0), (1, 1, 1))
    small["gradOutput"] = tensor([1, 3, 1, 5, 7])
    assert not holds("spatial-3d", small)
    # transposed: roles swapped; valid with outputPadding < stride
    tr = _conv3d(True, (3, 4, 5), (3, 3, 3), (2, 2, 2), (1, 1, 1), (1, 1, 1), op=(1, 0, 1))
    assert holds("spatial-3d", tr)
    assert holds("channels-weight-out", tr) and holds("channels-groups", tr)


def test_conv3d_rejected_on_910_and_310p_only():
    three_d = _conv3d(False, (4, 4, 4), (1, 1, 1), (1, 1, 1), (0, 0, 0), (1, 1, 1))
    assert enforced_expr_failures(three_d, "910") == ["conv3d-unsupported"]
    assert enforced_expr_failures(three_d, "310p") == ["conv3d-unsupported"]
    assert enforced_expr_failures(three_d, "910b") == []
    # the empty-tensor path skips it
    empty = dict(three_d, input=tensor([0, 2, 4, 4, 4]), gradOutput=tensor([0, 3, 4, 4, 4]))
    assert holds("conv3d-unsupported", empty)


def test_empty_path_rules():
    empty = conv2d_values(input=tensor([0, 2, 7, 7]), gradOutput=tensor([0, 2, 7, 7]), gradInput=tensor([0, 2, 7, 7]))
    assert not applies("rank-same", empty)  # steps 8-10 are skipped
    for cid in (
        "empty-bias-sizes-value",
        "empty-input-n-or-c",
        "empty-param-lengths",
        "empty-channels-groups",
        "empty-formula-one",
    ):
        assert applies(cid, empty) and holds(cid, empty), cid
    assert not holds("empty-bias-sizes-value", dict(empty, biasSizes=(3,)))
    assert not holds("empty-bias-sizes-value", dict(empty, biasSizes=(2, 2)))
    # issue 11: the bias size is compared with gradOutput's C, not weight.shape[0] (the doc's reading)
    other_c = dict(empty, gradOutput=tensor([0, 3, 7, 7]))
    assert not holds("empty-bias-sizes-value", dict(other_c, biasSizes=(2,)))  # == weight.shape[0]
    assert holds("empty-bias-sizes-value", dict(other_c, biasSizes=(3,)))
    # transposed: weight.shape[1] * groups
    assert holds("empty-bias-sizes-value", dict(empty, transposed=True, weight=tensor([2, 3, 1, 1]), biasSizes=(3,)))
    # issue 11: a 4-value outputPadding is accepted in 2-D, as padding is; not in 3-D
    assert holds("empty-param-lengths", dict(empty, outputPadding=(0, 0, 0, 0)))
    assert not holds("empty-param-lengths", dict(empty, outputPadding=(0, 0, 0)))
    three_d = dict(empty, input=tensor([0, 2, 4, 4, 4]), stride=(1, 1, 1), padding=(0, 0, 0), dilation=(1, 1, 1))
    assert holds("empty-param-lengths", dict(three_d, outputPadding=(0, 0, 0)))
    assert not holds("empty-param-lengths", dict(three_d, outputPadding=(0, 0, 0, 0)))
    # issue 11: formula one takes padding[i] * 2 per spatial axis, also for 4-value 2-D padding
    # [top, bottom, left, right]: H reads top, W reads bottom (not the two sides added)
    small = dict(empty, input=tensor([0, 2, 1, 1]), weight=tensor([2, 2, 3, 3]))
    assert holds("empty-formula-one", dict(small, padding=(1, 1, 0, 0)))  # H: 1 + 2 >= 3, W: 1 + 2 >= 3
    assert not holds("empty-formula-one", dict(small, padding=(2, 0, 0, 2)))  # W: 1 + 0 < 3
    assert not holds("empty-formula-one", dict(small, padding=(0, 0)))
    assert holds("empty-formula-one", dict(small, padding=(1, 1)))
    # transposed: weight N must equal input C and be > 0
    tr = dict(empty, transposed=True, weight=tensor([2, 1, 1, 1]))
    assert holds("empty-transposed-weight", tr)
    assert not holds("empty-transposed-weight", dict(tr, weight=tensor([3, 1, 1, 1])))
    # channels/groups: transposed compares gradOutput's C; an input with N = 0 is exempt when transposed
    assert not holds("empty-channels-groups", dict(empty, weight=tensor([2, 1, 1, 1])))
    tr_w = dict(empty, transposed=True, input=tensor([2, 2, 7, 7]), weight=tensor([2, 1, 0, 1]))
    assert not holds("empty-channels-groups", dict(tr_w, gradOutput=tensor([2, 3, 7, 7])))
    assert holds("empty-channels-groups", dict(tr_w, gradOutput=tensor([2, 1, 7, 7])))
    assert not applies("empty-channels-groups", dict(tr_w, input=tensor([0, 2, 7, 7])))
    # on 910/310p an empty weight or gradOutput is rejected regardless of the empty path
    assert not holds("grad-output-weight-not-empty-910", dict(empty, weight=tensor([2, 2, 0, 1])))


def test_inner_ranges_a2_a3():
    ok = conv2d_values(transposed=False)
    assert holds("inner-range-a2-a3", ok)
    assert not holds("inner-range-a2-a3", dict(ok, dilation=(1, 256)))
    assert not holds("inner-range-a2-a3", dict(ok, weight=tensor([2, 2, 256, 1]), gradWeight=tensor([2, 2, 256, 1])))
    three_d = _conv3d(False, (4, 64, 64), (1, 1, 1), (100, 64, 1), (300, 0, 0), (1, 1, 1))
    assert not holds("inner-range-a2-a3", three_d)  # strideH 64 > 63 (strideD / paddingD are unbounded)
    assert holds("inner-range-a2-a3", dict(three_d, stride=(100, 63, 1)))


# ---------------------------------------------------------------------------------------------
# Example


def test_example_is_the_doc_sample():
    example = spec.example
    assert example.product == "910b"
    inputs = example.inputs
    assert inputs["gradOutput"].shape == [2, 2, 7, 7] and inputs["gradOutput"].format == "NCHW"
    assert inputs["weight"].shape == [2, 2, 1, 1]
    assert inputs["outputMask"] == [True, True, True]
    assert inputs["cubeMathType"] == 1 and inputs["transposed"] is False and inputs["groups"] == 1
    assert set(example.expected) == {"gradInput", "gradWeight", "gradBias"}
    assert example.expected["gradBias"].format == "ND"


def _example_array(value) -> np.ndarray:
    if value.data is not None:
        return np.asarray(value.data, np.float32).reshape(value.shape)
    return np.full(value.shape, value.fill, np.float32)


def test_example_expected_matches_torch():
    torch = pytest.importorskip("torch")
    ins = spec.example.inputs
    result = torch.ops.aten.convolution_backward(
        torch.from_numpy(_example_array(ins["gradOutput"])),
        torch.from_numpy(_example_array(ins["input"])),
        torch.from_numpy(_example_array(ins["weight"])),
        ins["biasSizes"],
        ins["stride"],
        ins["padding"],
        ins["dilation"],
        ins["transposed"],
        ins["outputPadding"],
        ins["groups"],
        ins["outputMask"],
    )
    for name, got in zip(("gradInput", "gradWeight", "gradBias"), result):
        expected = spec.example.expected[name]
        assert list(got.shape) == expected.shape
        np.testing.assert_allclose(got.numpy(), _example_array(expected), rtol=1e-6)


def test_example_expected_matches_reference_kernel():
    import importlib

    try:
        module = importlib.import_module(f"generator.kernels.{spec.kernel.module}")
    except ImportError:
        pytest.skip("reference kernel not available")
    kernel = getattr(module, spec.kernel.function)
    ins = spec.example.inputs
    result = kernel(
        _example_array(ins["gradOutput"]),
        _example_array(ins["input"]),
        _example_array(ins["weight"]),
        ins["biasSizes"],
        ins["stride"],
        ins["padding"],
        ins["dilation"],
        ins["transposed"],
        ins["outputPadding"],
        ins["groups"],
        ins["outputMask"],
        ins["cubeMathType"],
    )
    for name, got in zip(("gradInput", "gradWeight", "gradBias"), result):
        np.testing.assert_allclose(got, _example_array(spec.example.expected[name]), rtol=1e-6)


# ---------------------------------------------------------------------------------------------
# Issue 11 (cases written from the C++), through the generated validator


def _desc(shape, dtype="FLOAT"):
    import aclnn

    fmt = {1: "ND", 3: "NCL", 4: "NCHW", 5: "NCDHW"}.get(len(shape), "ND")
    return aclnn.TensorDesc(tuple(shape), dtype, fmt)


def conv_args(dtype="FLOAT", **over):
    """The doc sample (2-D, 1x1 kernel) as validator arguments; outputs inferred unless given."""
    args = dict(
        gradOutput=_desc([2, 2, 7, 7], dtype),
        input=_desc([2, 2, 7, 7], dtype),
        weight=_desc([2, 2, 1, 1], dtype),
        biasSizes=[2],
        stride=[1, 1],
        padding=[0, 0],
        dilation=[1, 1],
        transposed=False,
        outputPadding=[0, 0],
        groups=1,
        outputMask=[True, True, True],
        cubeMathType=1,
    )
    args.update(over)
    return args


def conv3d_args(dtype="FLOAT", groups=2, **over):
    """A valid 3-D convolution (1x1x1 kernel) with groups input channels."""
    args = conv_args(
        dtype,
        gradOutput=_desc([2, 2, 5, 5, 5], dtype),
        input=_desc([2, 2, 5, 5, 5], dtype),
        weight=_desc([2, 2 // groups, 1, 1, 1], dtype),
        stride=[1, 1, 1],
        padding=[0, 0, 0],
        dilation=[1, 1, 1],
        outputPadding=[0, 0, 0],
        groups=groups,
    )
    args.update(over)
    return args


def failure(product="910b", **args):

    return verdict(spec.op, product, **args)


@pytest.mark.parametrize("product", ["910b", "910_93"])
def test_conv3d_grouped_weight_gradient_rules_on_a2_a3(product):
    """CheckSupportedForConv3dBackpropFilter: groups > 1, outputMask[1], FLOAT gradWeight."""
    assert failure(product, **conv3d_args()) is None
    assert failure(product, **conv3d_args(cubeMathType=2)) == ("conv3d-dw-groups-fp16-math", PARAM_INVALID)
    f32_grad_weight = dict(gradWeight=_desc([2, 1, 1, 1, 1], "FLOAT"))
    for half in ("FLOAT16", "BFLOAT16"):
        assert failure(product, **conv3d_args(half, **f32_grad_weight)) == ("conv3d-dw-groups-half", PARAM_INVALID)
        assert failure(product, **conv3d_args(half)) is None  # gradWeight in the input dtype
    # a FLOAT operand promotes the computation to FLOAT
    mixed = conv3d_args("FLOAT16", weight=_desc([2, 1, 1, 1, 1], "FLOAT"), **f32_grad_weight)
    assert failure(product, **mixed) is None
    # not when groups == 1, not without the weight gradient, not in 2-D
    assert failure(product, **conv3d_args(groups=1, cubeMathType=2)) is None
    no_dw = conv3d_args(cubeMathType=2, outputMask=[True, False, True], gradWeight=None)
    assert failure(product, **no_dw) is None
    grouped_2d = conv_args(groups=2, weight=_desc([2, 1, 1, 1]), cubeMathType=2)
    assert failure(product, **grouped_2d) is None


def test_conv3d_grouped_weight_gradient_rules_not_on_950_and_910():
    assert failure("950", **conv3d_args(cubeMathType=2)) is None
    assert failure("910", **conv3d_args(cubeMathType=2)) == ("conv3d-unsupported", PARAM_INVALID)


def _hif8(**over):
    values = dict(
        gradOutput=_desc([2, 2, 7, 7], "HIFLOAT8"),
        input=_desc([2, 2, 7, 7], "HIFLOAT8"),
        weight=_desc([2, 2, 1, 1], "HIFLOAT8"),
    )
    values.update(over)
    return conv_args(**values)


def test_950_8bit_rules():
    """InterceptConvFor8bit and the 8-bit dtype/parameter rules apply only under the code's conditions."""
    assert failure("950", **_hif8(transposed=True)) is None  # gradWeight inferred FLOAT
    # not transposed: rejected only when gradInput and gradWeight are both given
    assert failure("950", **_hif8()) == ("fp8-transposed-only", PARAM_INVALID)
    only_dx = dict(outputMask=[True, False, False], gradWeight=None, gradBias=None)
    assert failure("950", **_hif8(**only_dx)) is None
    only_dw = dict(outputMask=[False, True, False], gradInput=None, gradBias=None)
    assert failure("950", **_hif8(**only_dw)) is None
    assert failure("950", **_hif8(gradWeight=_desc([2, 2, 1, 1], "HIFLOAT8"), **only_dw)) == (
        "fp8-grad-weight-float",
        PARAM_INVALID,
    )
    # transposed without outputMask[0] is intercepted when both outputs are given ...
    no_dx = dict(transposed=True, outputMask=[False, True, True], gradInput=_desc([2, 2, 7, 7], "HIFLOAT8"))
    assert failure("950", **_hif8(**no_dx)) == ("fp8-transposed-only", PARAM_INVALID)
    # ... and passes when gradInput is null
    assert failure("950", **_hif8(**dict(no_dx, gradInput=None))) is None
    # FLOAT8_E4M3FN: never with the weight gradient; without it (and not transposed) it passes
    e4m3 = {n: _desc(s, "FLOAT8_E4M3FN") for n, s in (("gradOutput", [2, 2, 7, 7]), ("input", [2, 2, 7, 7]))}
    e4m3["weight"] = _desc([2, 2, 1, 1], "FLOAT8_E4M3FN")
    assert failure("950", **conv_args(**e4m3, **only_dw)) == ("fp8-no-e4m3fn-grad-weight", PARAM_INVALID)
    assert failure("950", **conv_args(**e4m3, **only_dx)) is None
    assert failure("950", **conv_args(**e4m3, transposed=True)) == ("dtype-950-transposed", PARAM_INVALID)
    # mixed 8-bit and float with gradInput computed
    assert failure("950", **_hif8(transposed=True, gradOutput=_desc([2, 2, 7, 7], "FLOAT"))) == (
        "fp8-all-same",
        PARAM_INVALID,
    )
    # gradWeight must be FLOAT, groups 1 and outputPadding 0 only when outputMask[1] is true
    no_dw_tr = dict(transposed=True, outputMask=[True, False, True])
    assert failure("950", **_hif8(gradWeight=_desc([2, 2, 1, 1], "HIFLOAT8"), **no_dw_tr)) is None
    assert failure("950", **_hif8(gradWeight=_desc([2, 2, 1, 1], "FLOAT8_E4M3FN"), **no_dw_tr)) == (
        "dtype-950-transposed-grad-weight",
        PARAM_INVALID,
    )
    assert failure("950", **_hif8(outputPadding=[0, 1], **no_dw_tr)) is None
    assert failure("950", **_hif8(outputPadding=[0, 1], transposed=True)) == ("fp8-output-padding-zero", PARAM_INVALID)
    grouped = dict(groups=2, weight=_desc([2, 1, 1, 1], "HIFLOAT8"))
    assert failure("950", **_hif8(**grouped, **no_dw_tr)) is None
    assert failure("950", **_hif8(**grouped, transposed=True)) == ("fp8-groups-one", PARAM_INVALID)


EMPTY_INPUT = dict(input=_desc([0, 2, 7, 7]))


@pytest.mark.parametrize(
    "over, check_id",
    [
        (dict(gradOutput=_desc([2, 2, 7])), "rank-same-910"),
        (dict(gradInput=_desc([0, 2, 7, 6])), "grad-input-shape-910"),
        (dict(gradWeight=_desc([2, 2, 1, 2])), "grad-weight-shape-910"),
        (dict(gradBias=_desc([3])), "grad-bias-shape-910"),
        (dict(stride=[1]), "stride-length-910"),
        (dict(dilation=[1, 1, 1]), "dilation-length-910"),
        (dict(padding=[0]), "padding-length-910"),
        (dict(outputPadding=[0]), "output-padding-length-910"),
        (dict(weight=_desc([3, 2, 1, 1]), biasSizes=[2]), "channels-weight-out-910"),
        (dict(input=_desc([2, 0, 7, 7])), "channels-groups-910"),
        (dict(input=_desc([0, 4, 7, 7]), weight=_desc([2, 1, 1, 1]), groups=4), "depthwise-channels-910"),
    ],
)
def test_shape_checks_run_for_empty_input_on_310b_310p_910(over, check_id):
    args = conv_args(**{**EMPTY_INPUT, **over})
    for product in ("910", "310p", "310b"):
        assert failure(product, **args) == (check_id, PARAM_INVALID), product
    # Atlas A2/A3 and 950 skip steps 8-10 for an empty input (the empty path has its own rules)
    a2 = failure("910b", **args)
    assert a2 is None or not a2[0].endswith("-910"), a2


def test_empty_input_on_910_passes_and_3d_is_checked():
    assert failure("910", **conv_args(**EMPTY_INPUT)) is None
    empty3d = conv3d_args(groups=1, input=_desc([0, 2, 5, 5, 5]))
    assert failure("910", **empty3d) is None  # the empty path returns before the 3-D rejection
    bad = dict(empty3d, gradOutput=_desc([2, 2, 4, 5, 5]))
    assert failure("910", **bad) == ("spatial-3d-910", PARAM_INVALID)
    assert failure("910b", **bad) is None


def test_empty_path_through_the_validator():
    empty = dict(input=_desc([0, 2, 7, 7]), gradOutput=_desc([0, 3, 7, 7]))
    # the bias size is gradOutput's C (3), not weight.shape[0] (2)
    assert failure("910b", **conv_args(**empty, biasSizes=[2])) == ("empty-bias-sizes-value", PARAM_INVALID)
    assert failure("910b", **conv_args(**empty, biasSizes=[3])) is None
    # 4-value outputPadding accepted in 2-D
    assert failure("910b", **conv_args(**EMPTY_INPUT, outputPadding=[0, 0, 0, 0])) is None
    # formula one reads padding[i] * 2
    small = dict(input=_desc([0, 2, 1, 1]), weight=_desc([2, 2, 3, 3]))
    assert failure("910b", **conv_args(**small, padding=[1, 1, 0, 0])) is None
    assert failure("910b", **conv_args(**small, padding=[2, 0, 0, 2])) == ("empty-formula-one", PARAM_INVALID)


def test_310b_takes_the_910_branches_and_fails_last():
    assert failure("310b", **conv_args()) == ("product-supported", INNER_NULLPTR)
    assert failure("310b", **conv_args("BFLOAT16")) == ("product-supported", INNER_NULLPTR)
    assert failure("310b", **conv_args(cubeMathType=0)) == ("product-supported", INNER_NULLPTR)  # FP32 cube
    assert failure("910", **conv_args(cubeMathType=0)) == ("cube-math-type-fp32", PARAM_INVALID)
    assert failure("310b", **conv3d_args(groups=1)) == ("conv3d-unsupported", PARAM_INVALID)
    assert failure("310b", **conv_args(**EMPTY_INPUT)) is None
    for product in spec.products:
        assert failure(product, **conv_args(cubeMathType=2)) is None


def test_empty_path_runs_like_cann():
    """What the validator accepts on the empty path runs: zero-filled gradWeight/gradBias (length biasSizes[0])."""
    import aclnn

    f = np.float32
    args = dict(
        gradOutput=np.ones((0, 3, 7, 7), f),
        input=np.ones((0, 2, 7, 7), f),
        weight=np.ones((2, 2, 1, 1), f),
        biasSizes=[3],
        stride=[1, 1],
        padding=[0, 0, 0, 0],
        dilation=[1, 1],
        transposed=False,
        outputPadding=[0, 0, 0, 0],
        groups=1,
        outputMask=[True, True, True],
        cubeMathType=1,
    )
    result = aclnn.run(spec.op, product="910b", **args)
    assert result["gradInput"].shape == (0, 2, 7, 7)
    assert result["gradWeight"].shape == (2, 2, 1, 1) and not result["gradWeight"].any()
    assert result["gradBias"].shape == (3,) and not result["gradBias"].any()
    # on 910 an empty input with a non-empty gradOutput also takes the empty path: gradBias is 0, not a sum
    on_910 = dict(args, gradOutput=np.ones((2, 2, 7, 7), f), biasSizes=[2], padding=[0, 0], outputPadding=[0, 0])
    result = aclnn.run(spec.op, product="910", **on_910)
    assert result["gradBias"].shape == (2,) and not result["gradBias"].any()
