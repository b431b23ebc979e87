"""Binding rules: the format rule of ``format_supported``, kernel format arguments, and signatures where an
output comes before an input in the C prototype."""

from __future__ import annotations

import inspect
import re
import sys
import types
from pathlib import Path

import numpy as np
import pytest

import aclnn
from generator.cli import main
from generator.deep import render_module
from generator.evaluate import SpecEvaluator, TensorValue
from generator.loader import load_project
from generator.model import RANK_FORMATS, TensorSpec
from generator.runtime.values import default_format
from tests.hostile.trees import spec_tree

LOCATED = re.compile(r"^(?P<file>[^:]+\.yaml):(?P<line>\d+):(?P<col>\d+):(?: (?P<path>[^ ]+):)? (?P<msg>.+)$")


def _param(data: dict, name: str) -> dict:
    return next(p for p in data["params"] if p["name"] == name)


def _load(tmp_path: Path, mutate):
    project = load_project(spec_tree(tmp_path, mutate=mutate))
    return project, project.ops[0], render_module(project.ops[0], project)


# ---------------------------------------------------------------------------------------------
# The format rule


def test_rank_formats_follow_the_binding():
    """The model's table is the runtime's inference (torch_npu's): a drift guard."""
    assert {rank: default_format(rank) for rank in range(65) if default_format(rank) != "ND"} == RANK_FORMATS


@pytest.mark.parametrize(
    ("formats", "fmt", "rank", "accepted"),
    [
        (["ND"], "ND", 4, True),
        (["ND"], "NCL", 3, True),
        (["ND"], "NCHW", 4, True),
        (["ND"], "NCDHW", 5, True),
        (["ND"], "NCHW", 3, False),  # not the format of its rank
        (["ND"], "NHWC", 4, False),  # a layout the doc does not list
        (["ND"], "NDHWC", 5, False),
        (["ND"], "NC1HWC0", 5, False),
        (["ND"], "NC", 2, False),  # 2-D arrays get ND
        (["NCHW", "NHWC"], "ND", 4, False),  # an explicit list is exact
        (["NCHW", "NHWC"], "NHWC", 4, True),
        (["NCHW", "NHWC"], "NCL", 3, False),
        (["NCHW", "ND"], "NCDHW", 5, True),
    ],
)
def test_accepts_format(formats, fmt, rank, accepted):
    tensor = TensorSpec(dtypes=[{"dtypes": ["FLOAT"]}], formats=formats)
    assert tensor.accepts_format(fmt, rank) is accepted


def _format_check(formats: list[str], check_formats: list[str] | None = None):
    """elu with gradOutput's formats set to ``formats`` and a format_supported (or format_in) check on it."""

    def mutate(data):
        _param(data, "gradOutput")["tensor"]["formats"] = formats
        check = {
            "id": "format-supported",
            "kind": "format_supported" if check_formats is None else "format_in",
            "code": "ACLNN_ERR_PARAM_INVALID",
            "params": ["gradOutput"],
            "text": {"zh": "gradOutput的数据格式不在支持的范围之内。", "en": "gradOutput's format is not supported."},
            "cases": {"trigger": {"gradOutput": {"shape": [2, 2], "dtype": "FLOAT", "format": "NC1HWC0"}}},
        }
        if check_formats is not None:
            check["formats"] = check_formats
        data["checks"].insert(1, check)
        if "ND" not in formats:  # a 4-D NCHW example
            for where, name in (("inputs", "gradOutput"), ("inputs", "selfOrResult"), ("expected", "gradInput")):
                data["example"][where][name].update(shape=[1, 1, 2, 2], format="NCHW")

    return mutate


def _call(module, g, product="910b"):
    """Validate elu with gradOutput = g (selfOrResult and gradInput ND descriptors of g's shape)."""
    shape = g.shape
    other = aclnn.TensorDesc(shape, "FLOAT")
    module.validate(g, 1.0, 1.0, 1.0, False, other, other, product=product)


def _verdict(module, g) -> str | None:
    try:
        _call(module, g)
    except aclnn.AclnnError as exc:
        return exc.check
    return None


def test_nd_accepts_every_numpy_array(tmp_path):
    """formats: [ND] (a doc's column) never rejects a NumPy array, whatever format its rank implies."""
    _, _, module = _load(tmp_path, _format_check(["ND"]))
    for rank in range(0, 9):
        assert _verdict(module, np.zeros((1,) * rank, np.float32)) is None, rank


def test_nd_with_explicit_descriptors(tmp_path):
    _, info, module = _load(tmp_path, _format_check(["ND"]))
    desc = aclnn.TensorDesc
    assert _verdict(module, desc((2, 3, 4), "FLOAT", "ND")) is None
    assert _verdict(module, desc((2, 3, 4), "FLOAT", "NCL")) is None
    assert _verdict(module, desc((2, 3, 4, 5), "FLOAT", "NCHW")) is None
    assert _verdict(module, desc((2, 3, 4, 5, 6), "FLOAT", "NCDHW")) is None
    assert _verdict(module, desc((2, 3, 4), "FLOAT", "NCHW")) == "format-supported"  # NCHW is 4-D
    assert _verdict(module, desc((2, 3, 4, 5), "FLOAT", "NHWC")) == "format-supported"
    assert _verdict(module, desc((2, 3, 4, 5), "FLOAT", "HWCN")) == "format-supported"
    assert _verdict(module, desc((2, 3, 4, 5, 6), "FLOAT", "NC1HWC0")) == "format-supported"
    with pytest.raises(aclnn.AclnnError) as err:
        _call(module, desc((2, 3, 4, 5), "FLOAT", "NHWC"))
    assert "ND also accepts the format of the tensor's rank" in err.value.message and "NHWC" in err.value.message


def test_explicit_layouts_are_exact(tmp_path):
    """A spec that really requires NCHW or NHWC (the code tests them): ND and other ranks' formats fail."""
    _, _, module = _load(tmp_path, _format_check(["NCHW", "NHWC"]))
    desc = aclnn.TensorDesc
    assert _verdict(module, np.zeros((1, 2, 3, 4), np.float32)) is None  # an array: NCHW
    assert _verdict(module, desc((1, 2, 3, 4), "FLOAT", "NHWC")) is None
    assert _verdict(module, desc((1, 2, 3, 4), "FLOAT", "ND")) == "format-supported"
    assert _verdict(module, np.zeros((1, 2, 3), np.float32)) == "format-supported"  # NCL


def test_format_in_stays_exact(tmp_path):
    """format_in is the code's own comparison: [ND] there means ND only."""
    _, _, module = _load(tmp_path, _format_check(["ND"], check_formats=["ND"]))
    assert _verdict(module, aclnn.TensorDesc((1, 2, 3, 4), "FLOAT", "ND")) is None
    assert _verdict(module, np.zeros((1, 2, 3, 4), np.float32)) == "format-supported"


@pytest.mark.parametrize("formats", [["ND"], ["NCHW", "NHWC"], ["NCL", "ND"]])
def test_lint_evaluator_agrees_with_the_validator(tmp_path, formats):
    project, info, module = _load(tmp_path, _format_check(formats))
    private = [f.name for f in project.catalog.formats.formats if f.private]
    evaluator = SpecEvaluator(info.spec, info.exprs, project.catalog.product_tags, private)
    values = evaluator.arguments(info.spec.example)
    for fmt in [f.name for f in project.catalog.formats.formats]:
        for rank in (2, 3, 4, 5):
            shape = (1,) * rank
            values.update(
                gradOutput=TensorValue(shape, "FLOAT", fmt),
                selfOrResult=TensorValue(shape, "FLOAT", "ND"),
                gradInput=TensorValue(shape, "FLOAT", "ND"),
            )
            verdict = evaluator.first_failure(values, "910b")
            expected = _verdict(module, aclnn.TensorDesc(shape, "FLOAT", fmt))
            assert (verdict.check_id if verdict else None) == expected, (fmt, rank)


# ---------------------------------------------------------------------------------------------
# Kernel format arguments


def test_kernel_formats_lint_errors(tmp_path, capsys):
    def mutate(data):
        data["kernel"]["formats"] = {
            "data_format": "gradOutptu",
            "alpha_format": "alpha",
            "grad_output": "gradOutput",
            "product": "gradOutput",
            "lambda": "gradOutput",
        }

    assert main(["lint", str(spec_tree(tmp_path, mutate=mutate))]) == 1
    lines = [line for line in capsys.readouterr().err.splitlines() if not line.startswith("opgen lint")]
    found = {m["path"]: m["msg"] for m in map(LOCATED.match, lines)}
    assert "unknown parameter 'gradOutptu' (did you mean gradOutput?)" in found["kernel.formats.data_format"]
    assert "'alpha' is const aclScalar*, not a tensor" in found["kernel.formats.alpha_format"]
    assert "already the kernel keyword of parameter 'gradOutput'" in found["kernel.formats.grad_output"]
    assert "'product' is the kernel keyword of 'product_aware'" in found["kernel.formats.product"]
    assert "'lambda' is a Python keyword" in found["kernel.formats.lambda"]


def test_kernel_gets_the_tensor_format(tmp_path, monkeypatch):
    """``kernel: {formats: {data_format: selfOrResult}}``: NHWC descriptors reach the kernel as 'NHWC'."""
    seen = []

    def kernel(grad_output, alpha, scale, input_scale, is_result, self_or_result, *, data_format):
        seen.append(data_format)
        return np.asarray(grad_output)

    fake = types.ModuleType("generator.kernels.binding_rules_fmt")
    fake.kernel = kernel
    monkeypatch.setitem(sys.modules, fake.__name__, fake)

    def mutate(data):
        data["kernel"] = {
            "module": "binding_rules_fmt",
            "function": "kernel",
            "formats": {"data_format": "selfOrResult"},
        }
        _param(data, "selfOrResult")["tensor"]["formats"] = ["ND", "NHWC"]

    _, _, module = _load(tmp_path, mutate)
    op = module.elu_backward
    x = np.ones((1, 2, 3, 4), np.float32)
    op(x, 1.0, 1.0, 1.0, False, x)
    op(x, 1.0, 1.0, 1.0, False, aclnn.TensorDesc(x.shape, "FLOAT", "NHWC", data=x))
    op(np.ones(3, np.float32), 1.0, 1.0, 1.0, False, np.ones(3, np.float32))
    assert seen == ["NCHW", "NHWC", "ND"]


# ---------------------------------------------------------------------------------------------
# An output before an input in the C signature


def _output_first(data):
    """gradInput moved before selfOrResult (the C signature then interleaves an output and an input)."""
    params = data["params"]
    grad_input = params.pop(next(i for i, p in enumerate(params) if p["name"] == "gradInput"))
    params.insert(next(i for i, p in enumerate(params) if p["name"] == "selfOrResult"), grad_input)


def test_output_before_input_generates_valid_python(tmp_path, capsys):
    _, info, module = _load(tmp_path, _output_first)
    names = list(inspect.signature(module.validate).parameters)
    assert names == [
        "grad_output",
        "alpha",
        "scale",
        "input_scale",
        "is_result",
        "grad_input",
        "self_or_result",
        "product",
    ]
    g = np.array([[-2, -1], [0, 1]], np.float32)
    module.validate(g, 1.0, 1.0, 1.0, True, self_or_result=g)  # gradInput left out: inferred
    with pytest.raises(aclnn.AclnnError) as err:
        module.validate(g, 1.0, 1.0, 1.0, True, None, g)  # an output passed as None is a null pointer
    assert err.value.code == 161001
    out = module.elu_backward(g, 1.0, 1.0, 1.0, True, self_or_result=g)
    np.testing.assert_allclose(out, [[2.0, 0.0], [0.0, 1.0]])
    with pytest.raises(TypeError, match="validate\\(\\) missing required argument: 'self_or_result'"):
        module.validate(g, 1.0, 1.0, 1.0, True)
    with pytest.raises(TypeError, match="elu_backward\\(\\) missing required argument: 'self_or_result'"):
        module.elu_backward(g, 1.0, 1.0, 1.0, True)
    with pytest.raises(aclnn.AclnnError) as err:
        module.validate(g, 1.0, 1.0, 1.0, True, self_or_result=None)  # an input passed as None: a null pointer
    assert err.value.code == 161001
    assert main(["lint", "--deep", str(tmp_path / "specs")]) == 0, capsys.readouterr().err
