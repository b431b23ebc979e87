"""Generated Python names are collision-free (issue 9, item 6 and the minor runtime items).

Parameters named like the validator's own locals, the runtime module or builtins (``check``,
``rt``, ``name``, ``arg``, ``result``, ``len``), loop variables named like the runtime module or a
parameter's Python name (``for rt in``, ``for grad_output in``), and an op named after a builtin
(``aclnnAbs``) all compile to validators that return exactly the spec's verdicts: every check's
trigger fails with that check, every boundary passes, and the example runs. Rules whose bound comes
from the arguments (``range(x.shape[0])``, ``expand([1], n)``) fail their check instead of hanging.
"""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import aclnn
from generator.escape.python import python_local
from generator.generate import render_all
from generator.loader import load_project
from tests.hostile.trees import REPO

ELU = (REPO / "specs" / "elu_backward.yaml").read_text(encoding="utf-8")
RENAMES = {
    "gradOutput": "len",
    "alpha": "check",
    "scale": "rt",
    "inputScale": "name",
    "isResult": "op",  # the first (positional-only) argument of aclnn.validate/run
    "selfOrResult": "arg",
    "gradInput": "result",
}

EXTRA_CHECKS = """\
  - id: q-rt
    kind: expr
    code: ACLNN_ERR_PARAM_INVALID
    expr: all(castable(gradOutput.dtype, FLOAT) and rt >= 0 for rt in [0, 1])
    text: {zh: 循环变量rt。, en: A loop variable named rt.}
    cases:
      trigger: {gradOutput: {shape: [2, 2], dtype: COMPLEX64}}
  - id: q-grad-output
    kind: expr
    code: ACLNN_ERR_PARAM_INVALID
    expr: all(grad_output <= gradOutput.rank for grad_output in [0, 1])
    text: {zh: 循环变量grad_output。, en: A loop variable named like gradOutput's Python name.}
    cases:
      trigger: {gradOutput: {shape: [], dtype: FLOAT}}
  - id: builtins
    kind: expr
    code: ACLNN_ERR_PARAM_INVALID
    expr: >-
      abs(alpha.value) < 100 and len(gradOutput.shape) < 100 and sum(d for d in gradOutput.shape) >= 0
      and max(1, 2) == 2 and min(1, 2) == 1 and any(d >= 0 for d in gradOutput.shape)
    text: {zh: 内置函数。, en: Builtins in an op named like one.}
    cases:
      trigger: {alpha: {value: 200.0, dtype: FLOAT}}
  - id: long-range
    kind: expr
    code: ACLNN_ERR_PARAM_INVALID
    expr: all(i >= 0 for i in range(gradOutput.shape[0]))
    text: {zh: 长循环。, en: A range bounded by an argument.}
    cases:
      trigger: {gradOutput: {shape: [4097, 2], dtype: FLOAT}}
      boundary: {gradOutput: {shape: [4096, 2], dtype: FLOAT}, selfOrResult: {shape: [4096, 2], dtype: FLOAT}}
  - id: long-expand
    kind: expr
    code: ACLNN_ERR_PARAM_INVALID
    expr: len(expand([1], gradOutput.shape[-1])) >= 0
    text: {zh: 长展开。, en: An expansion bounded by an argument.}
    cases:
      trigger: {gradOutput: {shape: [2, 10000000000000], dtype: FLOAT}}
"""

CHECK_SCRIPT = r"""
import inspect, sys, time
out = sys.argv[1]
sys.path.insert(0, out)
import aclnn
assert aclnn.__file__.startswith(out), aclnn.__file__
from generator.runtime.examples import arguments

for op in aclnn.ops():
    spec = aclnn.spec(op)
    aclnn.validate(op, product=spec.example.product, **arguments(spec, spec.example, with_data=False))
    outputs = {p.name for p in spec.outputs}
    args = arguments(spec, spec.example)
    try:
        aclnn.run(op, product=spec.example.product, **{k: v for k, v in args.items() if k not in outputs})
    except aclnn.AclnnError as err:
        assert spec.kernel is None and err.code == 561003, err
    for check in spec.checks:
        if not check.enforced or check.cases is None:
            continue
        product = check.cases.product or spec.example.product
        try:
            aclnn.validate(op, product=product, **arguments(spec, spec.example, check.cases.trigger, with_data=False))
        except aclnn.AclnnError as err:
            assert err.check == (check.cases.shadowed_by or check.id), (op, check.id, err)
        else:
            raise AssertionError(f"{op}: trigger of {check.id} passed")
        if check.kind != "product_supported":
            aclnn.validate(op, product=product, **arguments(spec, spec.example, check.cases.boundary, with_data=False))

# Huge bounds read from the arguments fail their check at once (no hang, no allocation).
spec = aclnn.spec("Abs")
for shape, check in (([2**62, 2], "long-range"), ([2, 2**62], "long-expand")):
    start = time.perf_counter()
    try:
        aclnn.validate("Abs", gradOutput=aclnn.TensorDesc(shape, "FLOAT"), alpha=1.0, scale=1.0, inputScale=1.0,
                       isResult=True, selfOrResult=aclnn.TensorDesc(shape, "FLOAT"))
    except aclnn.AclnnError as err:
        assert err.check == check, err
        assert "cannot be evaluated" in err.message, err.message
    assert time.perf_counter() - start < 5

names = list(inspect.signature(aclnn.elu_backward).parameters)
assert names == ["len_", "check_", "rt_", "name_", "op", "arg_", "result_", "product", "backend"], names
print("OK")
"""


def _rename(text: str) -> str:
    # The renamed op has no kernel (the ELU kernel takes the ELU names); run raises 561003.
    text = text.replace("kernel: {module: elu_backward, function: elu_backward}\n", "")
    for old, new in RENAMES.items():
        text = re.sub(rf"\b{old}\b(?!-)", new, text)
    return text


def _abs_op() -> str:
    text = ELU.replace("name: aclnnEluBackward", "name: aclnnAbs").replace("snake: elu_backward", "snake: abs")
    text = text.replace("header: aclnnop/aclnn_elu_backward.h", "header: aclnnop/aclnn_abs.h")
    marker = "  - id: dtype-same\n"
    assert text.count(marker) == 1
    return text.replace(marker, EXTRA_CHECKS + marker)


@pytest.fixture(scope="module")
def package(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("names")
    specs = root / "specs"
    shutil.copytree(REPO / "specs" / "catalog", specs / "catalog")
    (specs / "elu_backward.yaml").write_text(_rename(ELU), encoding="utf-8")
    (specs / "abs.yaml").write_text(_abs_op(), encoding="utf-8")
    files = render_all(load_project(specs), only="python")
    out = root / "out"
    for rel, text in files.items():
        (out / rel).parent.mkdir(parents=True, exist_ok=True)
        (out / rel).write_text(text, encoding="utf-8")
    return out


def test_colliding_names_compile_to_correct_validators(package):
    proc = subprocess.run(
        [sys.executable, "-c", CHECK_SCRIPT, str(package)], capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0 and proc.stdout.strip().endswith("OK"), proc.stderr[-4000:]


def test_renamed_locals_are_readable(package):
    abs_module = (package / "aclnn" / "ops" / "abs.py").read_text(encoding="utf-8")
    assert "import builtins  # the op function below hides abs" in abs_module
    assert "builtins.abs(alpha.value)" in abs_module and " len(grad_output.shape)" in abs_module
    assert "for rt_ in (0, 1)" in abs_module and "rt.castable(grad_output.dtype" in abs_module
    assert "for grad_output_ in (0, 1)" in abs_module
    assert "rt.bounded_range(0, grad_output.shape[0])" in abs_module
    elu = (package / "aclnn" / "ops" / "elu_backward.py").read_text(encoding="utf-8")
    assert "def validate(\n    len_,\n    check_,\n    rt_," in elu


def test_spec_of_a_non_string_is_an_aclnn_error():
    for bad in ({}, [], None, 3):
        with pytest.raises(aclnn.AclnnError, match="operator name must be a string"):
            aclnn.spec(bad)
        with pytest.raises(aclnn.AclnnError, match="operator name must be a string"):
            aclnn.validate(bad)
    assert aclnn.spec("EluBackward") is aclnn.spec("aclnnEluBackward")


def test_op_is_positional_only_in_the_generic_api():
    """A parameter named like the generic API's first argument cannot collide with it."""
    with pytest.raises(aclnn.AclnnError, match="unknown parameter"):
        aclnn.validate("EluBackward", op="x")


def _bound_and_loaded(tree: ast.AST) -> tuple[set[str], set[str]]:
    bound, loaded = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (loaded if isinstance(node.ctx, ast.Load) else bound).add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.alias):
            bound.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
    return bound, loaded


def test_reserved_name_lists_cover_the_generated_code():
    """GENERATED_NAMES / USED_BUILTINS / PACKAGE_NAMES / INIT_BUILTINS list every name the templates
    use, so the renaming and the snake check stay complete when a template changes."""
    import builtins

    from generator.escape.python import GENERATED_NAMES, INIT_BUILTINS, PACKAGE_NAMES, USED_BUILTINS

    project = load_project(REPO / "specs")
    generated = REPO / "generated" / "aclnn"
    for info in project.ops:
        tree = ast.parse((generated / "ops" / f"{info.spec.snake}.py").read_text(encoding="utf-8"))
        bound, loaded = _bound_and_loaded(tree)
        params = {python_local(p.name) for p in info.spec.params}
        own = bound - params - {info.spec.snake, f"{info.spec.op}Result"}
        loops = {n.target.id for n in ast.walk(tree) if isinstance(n, ast.comprehension)}
        # Conditions shared by several checks (emit.python._shared_conditions): named away from every
        # parameter local and reserved name when they are chosen.
        shared = {n for n in own if re.fullmatch(r"when_[0-9]+_*", n)}
        assert not shared & (params | GENERATED_NAMES | USED_BUILTINS), info.spec.op
        assert own - loops - shared - GENERATED_NAMES == set(), info.spec.op
        used_builtins = {n for n in loaded if hasattr(builtins, n)} - bound
        assert used_builtins <= USED_BUILTINS | {"None", "True", "False"}, used_builtins
    tree = ast.parse((generated / "__init__.py").read_text(encoding="utf-8"))
    bound, loaded = _bound_and_loaded(tree)
    snakes = {info.spec.snake for info in project.ops}
    assert (
        bound
        - snakes
        - {
            "op",
            "params",
            "name",
            "module",
            "missing_output",
            "unknown",
            "expected",
            "key",
            "known",
            "args",
            "result",
            "values",
            "product",
            "backend",
            "snake",
            "text",
            "OpSpec",
            "generator",
            "__all__",
            "aclnn",
            "support",
            "dtype",
            "param",
            "order",
            "get",
            "output",
        }
        <= PACKAGE_NAMES
    )
    assert {n for n in loaded if hasattr(builtins, n)} - bound <= INIT_BUILTINS
