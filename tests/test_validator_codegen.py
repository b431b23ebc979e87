"""The shape of the generated validators (generator.emit.python): straight-line checks, null tests only
where a parameter may still be null, shared conditions computed once only when that cannot change a
verdict, constant membership tests as set literals; and the verdicts stay the lint evaluator's."""

from __future__ import annotations

import numpy as np
import pytest

import aclnn
from generator.deep import render_module
from generator.evaluate import SpecEvaluator
from generator.loader import load_project
from tests.hostile.trees import spec_tree

TEXT = {"zh": "说明。", "en": "Text."}


def _check(check_id: str, when: str | None = None, expr: str = "true", trigger: dict | None = None, **extra) -> dict:
    check = {"id": check_id, "kind": "expr", "code": "ACLNN_ERR_PARAM_INVALID", "expr": expr, "text": TEXT, **extra}
    if when:
        check["when"] = when
    check["cases"] = {"trigger": trigger or {}}
    return check


@pytest.fixture
def codegen(tmp_path):
    """Render elu with extra checks (inserted at ``at``); return (project, info, module, module source)."""
    from generator.emit import python as py
    from generator.generate import environment

    def make(checks, at: int = 1):
        def mutate(data):
            data["checks"][at:at] = checks

        project = load_project(spec_tree(tmp_path, mutate=mutate))
        info = project.ops[0]
        source = environment().get_template("python/op.py.j2").render(**py.op_context(info, project.catalog))
        return project, info, render_module(info, project), source

    return make


def test_checks_are_straight_line(codegen):
    _, _, _, source = codegen([])
    body = source[source.index("def _check(") : source.index("def validate(")]
    assert "for name, arg in" not in body  # no per-call tuples of arguments
    assert 'if not rt.castable(scale.dtype, "FLOAT"):' in body  # proven non-null: no "is not None"


def test_null_tests_stay_where_a_parameter_may_be_null(codegen):
    """After the not-null check a rule reads its parameters directly; before it, it tests them for None."""
    late = _check("late", expr="gradOutput.rank < 9", trigger={"gradOutput": {"shape": [1] * 9, "dtype": "FLOAT"}})
    _, _, _, source = codegen([late])
    assert "if not (len(grad_output.shape) < 9):" in source
    early = _check("early", expr="gradOutput.rank < 9", trigger={"gradOutput": {"shape": [1] * 9, "dtype": "FLOAT"}})
    _, _, module, source = codegen([early], at=0)
    assert "if grad_output is not None and not (len(grad_output.shape) < 9):" in source
    g = np.ones((2, 2), np.float32)
    with pytest.raises(aclnn.AclnnError) as err:
        module.validate(None, 1.0, 1.0, 1.0, True, g)  # the early check skips a null gradOutput
    assert err.value.check == "null-pointers"


def test_shared_infallible_condition_is_computed_once(codegen):
    when = "not gradOutput.empty and selfOrResult.dtype == FLOAT"
    _, _, module, source = codegen(
        [
            _check("first", when=when, expr="isResult or not isResult"),
            _check(
                "second", when=when, expr="scale.dtype != BOOL", trigger={"scale": {"value": True, "dtype": "BOOL"}}
            ),
        ]
    )
    assert source.count('self_or_result.dtype == "FLOAT"') == 1
    assert (
        "when_1 = 0 not in grad_output.shape and self_or_result.dtype == \"FLOAT\"  # the 'when' of 2 checks" in source
    )
    g = np.ones((2, 2), np.float32)
    with pytest.raises(aclnn.AclnnError) as err:
        module.validate(g, 1.0, True, 1.0, True, g)
    assert err.value.check == "second"
    module.validate(np.ones((0, 2), np.float32), 1.0, True, 1.0, True, np.ones((0, 2), np.float32))


@pytest.mark.parametrize(
    "when",
    [
        "alpha.value < 0",  # an ordering comparison may raise (a complex scalar)
        "gradOutput.shape[1] == 2",  # an index may raise
        "prod(gradOutput.shape) > 4",  # a call
    ],
)
def test_fallible_conditions_are_not_hoisted(codegen, when):
    """Evaluated before its first check's own guards, a condition that can raise would blame another check."""
    _, _, module, source = codegen(
        [
            _check("first", when=when, products=["950"]),
            _check("second", when=when),
        ]
    )
    assert "when_1" not in source


def test_hoisting_keeps_the_verdicts_of_the_lint_evaluator(codegen):
    """Random arguments: the generated validator and the in-process evaluator agree check by check."""
    when = "not gradOutput.empty and gradOutput.format in [ND, NCHW]"
    project, info, module, source = codegen(
        [
            _check(
                "a",
                when=when,
                expr="selfOrResult.rank == gradOutput.rank",
                products=["910b"],
                trigger={"selfOrResult": {"shape": [2], "dtype": "FLOAT"}},
            ),
            _check(
                "b",
                when=when,
                expr="gradOutput.dtype != FLOAT16",
                trigger={
                    "gradOutput": {"shape": [2, 2], "dtype": "FLOAT16"},
                    "selfOrResult": {"shape": [2, 2], "dtype": "FLOAT16"},
                },
            ),
        ]
    )
    assert "when_1 =" in source  # computed once, as a set-literal membership test:
    assert source.count('grad_output.format in {"ND", "NCHW"}') == 1
    private = [f.name for f in project.catalog.formats.formats if f.private]
    evaluator = SpecEvaluator(info.spec, info.exprs, project.catalog.product_tags, private)
    rng = np.random.default_rng(0)
    shapes = [(2, 2), (0, 2), (2,), (1, 2, 3, 4)]
    for _ in range(200):
        product = str(rng.choice(["910b", "950", "310p"]))
        g_shape, s_shape = shapes[rng.integers(4)], shapes[rng.integers(4)]
        dtype = str(rng.choice(["FLOAT", "FLOAT16"]))
        fmt = str(rng.choice(["ND", "NCHW", "NHWC"]))
        overrides = {
            "gradOutput": {"shape": list(g_shape), "dtype": dtype, "format": fmt},
            "selfOrResult": {"shape": list(s_shape), "dtype": dtype},
        }
        from generator.model import ExampleTensor

        values = evaluator.arguments(info.spec.example, {k: ExampleTensor(**v) for k, v in overrides.items()}, product)
        verdict = evaluator.first_failure(values, product)
        try:
            module.validate(
                aclnn.TensorDesc(g_shape, dtype, fmt),
                1.0,
                1.0,
                1.0,
                True,
                aclnn.TensorDesc(s_shape, dtype),
                product=product,
            )
            got = None
        except aclnn.AclnnError as exc:
            got = exc.check
        assert got == (verdict.check_id if verdict else None), (product, overrides)


@pytest.mark.parametrize("summary", ["\u2028line separator first", "\nnewline first", 'ends with a quote"', " "])
def test_summary_layout_leaves_no_trailing_whitespace(tmp_path, summary):
    """The op and module docstrings start with 'aclnnXxx: <summary>'; an odd summary breaks no line."""
    from generator.emit import python as py
    from generator.generate import environment

    def mutate(data):
        data["summary"] = {"zh": summary, "en": summary}

    project = load_project(spec_tree(tmp_path, mutate=mutate))
    source = environment().get_template("python/op.py.j2").render(**py.op_context(project.ops[0], project.catalog))
    compile(source, "op.py", "exec")
    assert [line for line in source.splitlines() if line != line.rstrip()] == []
