"""``opgen lint --deep``: the repository's specs pass; every way a spec can fail to work is reported,
located (FILE:LINE:COL: field.path: message) and says what happened instead, with exit status 1."""

from __future__ import annotations

import re
import sys
import types
from pathlib import Path

import numpy as np
import pytest

from generator.cli import main
from tests.hostile.trees import spec_tree

REPO = Path(__file__).resolve().parents[1]
LOCATED = re.compile(r"^(?P<file>[^:]+\.yaml):(?P<line>\d+):(?P<col>\d+):(?: (?P<path>[^ ]+):)? (?P<msg>.+)$")
ELU_KEYWORDS = ("grad_output", "alpha", "scale", "input_scale", "is_result", "self_or_result")


def _deep(capsys, specs: Path) -> tuple[int, str, list[re.Match]]:
    code = main(["lint", "--deep", str(specs)])
    captured = capsys.readouterr()
    errors = [line for line in captured.err.splitlines() if not line.startswith("opgen lint")]
    matches = [LOCATED.match(line) for line in errors]
    assert all(matches), errors  # every problem is located
    return code, captured.out, matches


def _one(matches: list[re.Match], path: str) -> re.Match:
    found = [m for m in matches if (m["path"] or "") == path]
    assert len(found) == 1, [m.string for m in matches]
    assert int(found[0]["line"]) > 0
    return found[0]


@pytest.fixture
def fake_kernel(monkeypatch):
    """Register ``generator.kernels.<name>`` as an in-memory module holding the given functions."""

    def make(name: str, **functions) -> types.ModuleType:
        module = types.ModuleType(f"generator.kernels.{name}")
        for key, func in functions.items():
            setattr(module, key, func)
        monkeypatch.setitem(sys.modules, module.__name__, module)
        return module

    return make


def _set_kernel(module: str, function: str, **extra):
    def mutate(data):
        data["kernel"] = {"module": module, "function": function, **extra}

    return mutate


def _check(data: dict, check_id: str) -> dict:
    return next(c for c in data["checks"] if c["id"] == check_id)


# ---------------------------------------------------------------------------------------------
# The repository


def test_repository_specs_pass_deep_lint(capsys):
    """What CI runs: every spec's kernel, example and check cases work."""
    code, out, errors = _deep(capsys, REPO / "specs")
    assert code == 0 and not errors
    from generator.loader import load_project

    for info in load_project(REPO / "specs").ops:
        lines = [line for line in out.splitlines() if f": {info.spec.name}: " in line]
        text = "\n".join(lines)
        if info.spec.kernel is None:
            assert "no kernel: the run step is skipped" in text
        else:
            assert "takes the binding's keywords" in text
            assert "runs and matches" in text
        enforced = sum(1 for c in info.spec.checks if c.enforced)
        assert f"{enforced} trigger case(s) fail with exactly their check, {enforced} boundary case(s) pass" in text


# ---------------------------------------------------------------------------------------------
# Kernel contract


def test_missing_kernel_module(tmp_path, capsys):
    code, _, errors = _deep(capsys, spec_tree(tmp_path, mutate=_set_kernel("no_such_kernel", "elu_backward")))
    assert code == 1
    assert "no kernel module 'generator.kernels.no_such_kernel'" in _one(errors, "kernel.module")["msg"]


def test_missing_kernel_function_suggests_a_name(tmp_path, capsys):
    code, _, errors = _deep(capsys, spec_tree(tmp_path, mutate=_set_kernel("elu_backward", "elu_backwards")))
    assert code == 1
    msg = _one(errors, "kernel.function")["msg"]
    assert "has no function 'elu_backwards' (did you mean elu_backward?)" in msg


def test_kernel_keyword_mismatch_names_both_sides(tmp_path, capsys, fake_kernel):
    def kernel(grad_out, alpha, scale, input_scale, is_result, self_or_result):
        return grad_out

    fake_kernel("deep_fake_names", kernel=kernel)
    code, out, errors = _deep(capsys, spec_tree(tmp_path, mutate=_set_kernel("deep_fake_names", "kernel")))
    assert code == 1
    passed = _one(errors, "params[0].name")["msg"]
    assert "the binding passes grad_output= (parameter 'gradOutput')" in passed
    assert "has no parameter 'grad_output' (did you mean grad_out?)" in passed
    required = _one(errors, "kernel.function")["msg"]
    assert "requires 'grad_out', which the binding never passes (did you mean grad_output?)" in required
    assert "not run (the kernel does not match the binding)" in out


def test_product_aware_and_format_keywords_are_checked(tmp_path, capsys, fake_kernel):
    def kernel(grad_output, alpha, scale, input_scale, is_result, self_or_result):
        return grad_output

    fake_kernel("deep_fake_extra", kernel=kernel)
    mutate = _set_kernel("deep_fake_extra", "kernel", product_aware=True, formats={"data_format": "gradOutput"})
    code, _, errors = _deep(capsys, spec_tree(tmp_path, mutate=mutate))
    assert code == 1
    assert "passes product= (product_aware)" in _one(errors, "kernel.product_aware")["msg"]
    assert "passes data_format= (the format of 'gradOutput')" in _one(errors, "kernel.formats.data_format")["msg"]


def test_cost_contract_is_checked(tmp_path, capsys, fake_kernel):
    def kernel(grad_output, alpha, scale, input_scale, is_result, self_or_result):
        return grad_output

    def cost(grad_output, alpha):
        raise AssertionError("not called")

    fake_kernel("deep_fake_cost", kernel=kernel, cost=cost)
    code, _, errors = _deep(capsys, spec_tree(tmp_path, mutate=_set_kernel("deep_fake_cost", "kernel")))
    assert code == 1
    assert "cost contract: the binding passes scale=" in _one(errors, "params[2].name")["msg"]


def test_a_kernel_that_crashes_is_located_in_its_source(tmp_path, capsys, fake_kernel):
    source = "def kernel(**kwargs):\n    raise TypeError('unsupported operand')\n"
    namespace: dict = {}
    exec(compile(source, str(REPO / "generator" / "kernels" / "deep_fake_crash.py"), "exec"), namespace)
    fake_kernel("deep_fake_crash", kernel=namespace["kernel"])
    code, _, errors = _deep(capsys, spec_tree(tmp_path, mutate=_set_kernel("deep_fake_crash", "kernel")))
    assert code == 1
    msg = _one(errors, "kernel.function")["msg"]
    assert "running the example raised TypeError: unsupported operand" in msg
    assert "deep_fake_crash.py:2 in kernel" in msg


def test_kernel_refusal_is_reported_at_the_example(tmp_path, capsys, fake_kernel):
    def kernel(**kwargs):
        raise ValueError("indices outside the window")

    fake_kernel("deep_fake_refuse", kernel=kernel)
    code, _, errors = _deep(capsys, spec_tree(tmp_path, mutate=_set_kernel("deep_fake_refuse", "kernel")))
    assert code == 1
    msg = _one(errors, "example")["msg"]
    assert "running the example failed" in msg and "561000" in msg and "indices outside the window" in msg


def test_kernel_receives_the_contract_and_format_keywords(tmp_path, capsys, fake_kernel):
    seen = {}

    def kernel(grad_output, alpha, scale, input_scale, is_result, self_or_result, *, product, data_format=None):
        seen.update(
            keys=(grad_output, alpha, scale, input_scale, is_result, self_or_result), product=product, fmt=data_format
        )
        from generator.kernels.elu_backward import elu_backward

        return elu_backward(grad_output, alpha, scale, input_scale, is_result, self_or_result)

    fake_kernel("deep_fake_ok", kernel=kernel)
    mutate = _set_kernel("deep_fake_ok", "kernel", product_aware=True, formats={"data_format": "selfOrResult"})
    code, out, errors = _deep(capsys, spec_tree(tmp_path, mutate=mutate))
    assert code == 0 and not errors, out
    assert seen["product"] == "910b" and seen["fmt"] == "ND"
    assert isinstance(seen["keys"][0], np.ndarray) and seen["keys"][1:5] == (1.0, 1.0, 1.0, True)
    assert "(grad_output, alpha, scale, input_scale, is_result, self_or_result, product, data_format)" in out


# ---------------------------------------------------------------------------------------------
# Example


def test_expected_mismatch_names_the_worst_element(tmp_path, capsys):
    def mutate(data):
        data["example"]["expected"]["gradInput"]["data"][2] = 0.5

    code, _, errors = _deep(capsys, spec_tree(tmp_path, mutate=mutate))
    assert code == 1
    msg = _one(errors, "example.expected.gradInput")["msg"]
    assert "1 of 4 values differ beyond rtol=1e-05, atol=1e-05; worst at index [1, 0]: got 0.0, expected 0.5" in msg


def test_expected_shape_and_dtype_mismatch(tmp_path, capsys):
    def mutate(data):
        data["example"]["expected"]["gradInput"].update(dtype="FLOAT16")

    code, _, errors = _deep(capsys, spec_tree(tmp_path, mutate=mutate))
    assert code == 1
    assert "gradInput comes back as FLOAT, expected FLOAT16" in _one(errors, "example.expected.gradInput.dtype")["msg"]

    def mutate_shape(data):
        data["example"]["expected"]["gradInput"].update(shape=[4], data=[2.0, 0.0, 0.0, 1.0])

    code, _, errors = _deep(capsys, spec_tree(tmp_path / "b", mutate=mutate_shape))
    assert code == 1
    assert "gradInput has shape [2, 2], expected [4]" in _one(errors, "example.expected.gradInput")["msg"]


def test_no_expected_output_with_a_kernel(tmp_path, capsys):
    def mutate(data):
        data["example"]["expected"] = {}

    code, _, errors = _deep(capsys, spec_tree(tmp_path, mutate=mutate))
    assert code == 1
    assert "records no 'expected' outputs" in _one(errors, "example")["msg"]


def test_spec_without_kernel_skips_the_run(tmp_path, capsys):
    def mutate(data):
        del data["kernel"]

    code, out, errors = _deep(capsys, spec_tree(tmp_path, mutate=mutate))
    assert code == 0 and not errors
    assert "no kernel: the run step is skipped" in out
    assert "9 trigger case(s) fail with exactly their check" in out


# ---------------------------------------------------------------------------------------------
# Check cases


def test_trigger_caught_by_another_check(tmp_path, capsys):
    def mutate(data):
        _check(data, "alpha-non-negative")["cases"]["trigger"] = {"alpha": None}

    code, _, errors = _deep(capsys, spec_tree(tmp_path, mutate=mutate))
    assert code == 1
    msg = _one(errors, "checks[7].cases.trigger")["msg"]
    assert "fails 'null-pointers' (161001) instead of 'alpha-non-negative' (161002) on product 910b" in msg
    assert "alpha: None" in msg  # the values the firing check saw


def test_trigger_that_passes(tmp_path, capsys):
    def mutate(data):
        _check(data, "alpha-non-negative")["cases"]["trigger"] = {"alpha": {"value": 0.5, "dtype": "FLOAT"}}

    code, _, errors = _deep(capsys, spec_tree(tmp_path, mutate=mutate))
    assert code == 1
    msg = _one(errors, "checks[7].cases.trigger")["msg"]
    assert "passes every check on product 910b; 'alpha-non-negative' (161002) should reject it" in msg


def test_boundary_that_fails(tmp_path, capsys):
    def mutate(data):
        cases = _check(data, "alpha-non-negative")["cases"]
        cases["boundary"] = {"alpha": {"value": -2.0, "dtype": "FLOAT"}, "isResult": True}

    code, _, errors = _deep(capsys, spec_tree(tmp_path, mutate=mutate))
    assert code == 1
    msg = _one(errors, "checks[7].cases.boundary")["msg"]
    assert "should pass on product 910b but fails check 'alpha-non-negative' (161002)" in msg
    assert "-2.0" in msg


def test_check_without_cases(tmp_path, capsys):
    def mutate(data):
        del _check(data, "shape-same")["cases"]

    code, _, errors = _deep(capsys, spec_tree(tmp_path, mutate=mutate))
    assert code == 1
    assert "check 'shape-same' has no cases" in _one(errors, "checks[5]")["msg"]


def test_example_rejected_by_validator_is_reported(tmp_path, capsys, fake_kernel):
    """An example the arrays path rejects (formats inferred from the rank) while descriptors pass."""

    def mutate(data):
        for name in ("gradOutput", "selfOrResult"):
            data["example"]["inputs"][name].update(shape=[1, 2, 2], data=[-2, -1, 0, 1])
        data["example"]["expected"]["gradInput"].update(shape=[1, 2, 2])
        for c in data["checks"]:
            c.get("cases", {}).get("boundary", {}).clear()
        data["checks"].insert(
            1,
            {
                "id": "nd-only",
                "kind": "format_in",
                "code": "ACLNN_ERR_PARAM_INVALID",
                "params": ["gradOutput"],
                "formats": ["ND"],
                "text": {"zh": "格式", "en": "format"},
                "cases": {"trigger": {"gradOutput": {"shape": [1, 2, 2], "dtype": "FLOAT", "format": "NCL"}}},
            },
        )

    code, _, errors = _deep(capsys, spec_tree(tmp_path, mutate=mutate))
    assert code == 1
    msg = _one(errors, "example")["msg"]
    assert "as NumPy arrays (formats inferred from the rank) fails on product 910b: check 'nd-only'" in msg


def test_unsupported_product_must_be_refused(tmp_path, capsys):
    def mutate(data):
        _check(data, "product-supported")["enforced"] = False  # nothing refuses 310b any more

    code, _, errors = _deep(capsys, spec_tree(tmp_path, mutate=mutate))
    assert code == 1
    msg = _one(errors, "products")["msg"]
    assert "on product 310b, which the op does not support, the example should be refused with 161002 or 561103" in msg
    assert msg.endswith("it passes")
