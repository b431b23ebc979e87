"""Content tests for specs/convolution_backward.yaml (aclnnConvolutionBackward)."""

from __future__ import annotations

import math
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from generator import expr as ex
from generator.loader import load_project

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
        ["dtype-supported", "dtype-950-transposed", "grad-input-dtype-950", "grad-bias-dtype-950"],
        ["fp8-transposed-only", "fp8-all-same", "fp8-grad-weight-float", "fp8-groups-one"],
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
        ["rank-same", "grad-input-shape", "grad-weight-shape", "grad-bias-shape", "stride-length", "padding-length"],
        ["channels-weight-out", "channels-groups", "depthwise-channels"],
        ["spatial-3d"],
        ["empty-bias-sizes-not-null", "empty-bias-sizes-value", "empty-input-n-or-c", "empty-param-lengths"],
        ["conv3d-unsupported"],
    ]
    flat = [i for g in groups for i in g]
    positions = [ids.index(i) for i in flat]
    assert positions == sorted(positions)
    # lengths are checked before anything indexes outputMask
    assert ids.index("output-mask-length") < ids.index("null-grad-input")


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
    for cid in ("grad-input-dtype-950", "grad-weight-dtype-950", "grad-bias-dtype-950", "dtype-950-transposed"):
        assert CHECKS[cid].products == ["950"] and CHECKS[cid].enforced
    assert CHECKS["dtype-950-transposed"].dtypes == ["FLOAT", "FLOAT16", "BFLOAT16", "HIFLOAT8"]
    assert CHECKS["dtype-950-transposed"].when == "transposed"
    for cid in ("grad-input-dtype-doc", "grad-bias-dtype-doc"):
        assert CHECKS[cid].enforced is False
        assert set(CHECKS[cid].products) == ALL_BUT_950


def test_fp8_rules():
    check = CHECKS["fp8-transposed-only"]
    assert check.products == ["950"] and check.kind == "dtype_in"
    assert "HIFLOAT8" not in check.dtypes and "FLOAT8_E4M3FN" not in check.dtypes
    assert check.when == "not (transposed and outputMask[0])"
    assert CHECKS["fp8-grad-weight-float"].dtypes == ["FLOAT"]


def test_per_product_checks():
    assert set(CHECKS["conv3d-unsupported"].products) == {"310p", "910"}
    assert code(CHECKS["conv3d-unsupported"].code) == PARAM_INVALID
    assert set(CHECKS["cube-math-type-fp32"].products) == {"310p", "910"}
    assert set(CHECKS["depthwise-channels"].products) == ALL_BUT_950
    assert set(CHECKS["format-grad-bias"].products) == {"950", "910_93", "910b"}
    assert set(CHECKS["grad-output-weight-not-empty-910"].products) == {"310p", "910"}
    assert CHECKS["grad-output-weight-not-empty-910"].when is None


def test_561103_is_documented_not_enforced():
    inner = [c for c in spec.checks if code(c.code) == INNER_NULLPTR]
    assert {c.id for c in inner} == {"inner-range-a2-a3", "inner-range-950"}
    assert all(not c.enforced for c in inner)
    # it is the last code CANN can return, after every 161002 check
    assert all(INDEX[c.id] > INDEX["conv3d-unsupported"] for c in inner)


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
    assert not holds("empty-param-lengths", dict(empty, outputPadding=(0, 0, 0, 0)))
    # formula one with asymmetric 2-D padding [top, bottom, left, right]: 1 + (2 + 0) >= (3 - 1) * 1 + 1 and
    # 1 + (0 + 2) >= 3 (a symmetric reading of the first two values would give W 1 + 2 * 0 < 3)
    small = dict(empty, input=tensor([0, 2, 1, 1]), weight=tensor([2, 2, 3, 3]), padding=(2, 0, 0, 2))
    assert holds("empty-formula-one", small)
    assert not holds("empty-formula-one", dict(small, padding=(1, 0, 1, 0)))
    # transposed: weight N must equal input C and be > 0
    tr = dict(empty, transposed=True, weight=tensor([2, 1, 1, 1]))
    assert holds("empty-transposed-weight", tr)
    assert not holds("empty-transposed-weight", dict(tr, weight=tensor([3, 1, 1, 1])))
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
