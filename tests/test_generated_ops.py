"""The generated ``aclnn`` package, driven by every spec: examples, and each check's test cases.

For every spec: its example validates and runs, and matches the recorded expected outputs; every
enforced check has a case that fails with exactly that check (its id and status code) and a
boundary case that is accepted.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import aclnn
from generator.loader import load_project
from generator.runtime.examples import arguments

REPO = Path(__file__).resolve().parents[1]
PROJECT = load_project(REPO / "specs")
OPS = [info.spec for info in PROJECT.ops]
CHECKS = [(spec, check) for spec in OPS for check in spec.checks if check.enforced]


def _id(item) -> str:
    spec, check = item
    return f"{spec.op}:{check.id}"


@pytest.mark.parametrize("spec", OPS, ids=[s.op for s in OPS])
def test_example_validates(spec):
    args = arguments(spec, spec.example, with_data=False)
    aclnn.validate(spec.op, product=spec.example.product, **args)


@pytest.mark.parametrize("spec", OPS, ids=[s.op for s in OPS])
def test_example_runs_and_matches_expected(spec):
    args = arguments(spec, spec.example)
    outputs = {p.name for p in spec.outputs}
    result = aclnn.run(spec.op, product=spec.example.product, **{k: v for k, v in args.items() if k not in outputs})
    assert set(result) == outputs
    assert spec.example.expected, f"{spec.name}: the example records no expected output"
    for name, expected in spec.example.expected.items():
        got = result[name]
        assert got is not None, name
        assert list(got.shape) == expected.shape
        assert str(aclnn.CATALOG and expected.dtype) in {d["name"] for d in aclnn.CATALOG["dtypes"]}
        want = np.asarray(expected.data if expected.data is not None else np.full(expected.shape, expected.fill))
        tol = spec.example.tolerance
        np.testing.assert_allclose(
            got.astype(np.float64), want.reshape(expected.shape), rtol=tol.rtol, atol=tol.atol, err_msg=name
        )


@pytest.mark.parametrize("item", CHECKS, ids=[_id(c) for c in CHECKS])
def test_check_has_cases(item):
    spec, check = item
    assert check.cases is not None, f"{spec.name}: check '{check.id}' has no test cases"


def _product(spec, check):
    return check.cases.product or spec.example.product


@pytest.mark.parametrize("item", CHECKS, ids=[_id(c) for c in CHECKS])
def test_check_trigger_fails_with_its_code(item):
    spec, check = item
    if check.cases is None:
        pytest.skip("no cases (reported by test_check_has_cases)")
    args = arguments(spec, spec.example, check.cases.trigger, with_data=False)
    with pytest.raises(aclnn.AclnnError) as info:
        aclnn.validate(spec.op, product=_product(spec, check), **args)
    code = PROJECT.catalog.status(check.code)[0]
    expected_id = check.cases.shadowed_by or check.id
    assert (info.value.check, info.value.code) == (expected_id, code), info.value.message
    assert check.params is None or any(p in info.value.message for p in check.params)


@pytest.mark.parametrize("item", CHECKS, ids=[_id(c) for c in CHECKS])
def test_check_boundary_passes(item):
    spec, check = item
    if check.cases is None:
        pytest.skip("no cases (reported by test_check_has_cases)")
    args = arguments(spec, spec.example, check.cases.boundary, with_data=False)
    product = spec.example.product if check.kind == "product_supported" else _product(spec, check)
    aclnn.validate(spec.op, product=product, **args)


@pytest.mark.parametrize("spec", OPS, ids=[s.op for s in OPS])
def test_unsupported_product_fails(spec):
    unsupported = [p.tag for p in PROJECT.catalog.products.products if p.tag not in spec.products]
    if not unsupported:
        pytest.skip("supported everywhere")
    args = arguments(spec, spec.example, with_data=False)
    with pytest.raises(aclnn.AclnnError) as info:
        aclnn.validate(spec.op, product=unsupported[0], **args)
    # 161002 (an early rejection) or the code of the spec's own product check (a kernel missing at launch)
    product_codes = {PROJECT.catalog.status(c.code)[0] for c in spec.checks if c.kind == "product_supported"}
    assert info.value.code in {161002} | product_codes


def test_generic_api_surface():
    assert set(aclnn.ops()) == {s.op for s in OPS}
    for spec in OPS:
        assert aclnn.spec(spec.op) == spec
        assert aclnn.spec(spec.name) == spec
    with pytest.raises(aclnn.AclnnError, match="unknown operator"):
        aclnn.validate("NoSuchOp")
    with pytest.raises(aclnn.AclnnError, match="unknown parameter"):
        aclnn.validate("EluBackward", gradOutptu=None)


def test_product_names_and_dtype_spellings():
    g = np.ones((2, 2), np.float32)
    for product in (
        "910b",
        "Atlas A2 训练系列产品/Atlas A2 推理系列产品",
        "Atlas A2训练系列产品/Atlas 800I A2推理产品",
        "A2",
    ):
        aclnn.validate(
            "EluBackward",
            product=product,
            gradOutput=g,
            alpha=1.0,
            scale=1.0,
            inputScale=1.0,
            isResult=False,
            selfOrResult=g,
        )
    for dtype in ("ACL_FLOAT16", "FLOAT16", np.float16, "fp16"):
        d = aclnn.TensorDesc((2, 2), dtype)
        assert d.dtype == "FLOAT16"
        aclnn.validate(
            "EluBackward",
            gradOutput=d,
            alpha=aclnn.Scalar(1, "INT32"),
            scale=1.0,
            inputScale=1.0,
            isResult=False,
            selfOrResult=d,
        )
    with pytest.raises(aclnn.AclnnError, match="unknown product"):
        aclnn.validate("EluBackward", product="Ascend 9000")


def test_binding_outputs_given_and_inferred():
    x = np.linspace(-2, 2, 12, dtype=np.float32).reshape(3, 4)
    g = np.ones_like(x)
    out = np.empty((3, 4), np.float16)
    result = aclnn.elu_backward(g, 1.0, 1.0, 1.0, False, x, out)
    assert result is out and out.dtype == np.float16
    inferred = aclnn.elu_backward(g, 1.0, 1.0, 1.0, False, x)
    np.testing.assert_allclose(out.astype(np.float32), inferred, rtol=1e-3, atol=1e-3)
    # explicit null output through the generic API is a null pointer
    with pytest.raises(aclnn.AclnnError) as info:
        aclnn.validate(
            "EluBackward",
            gradOutput=g,
            alpha=1.0,
            scale=1.0,
            inputScale=1.0,
            isResult=False,
            selfOrResult=x,
            gradInput=None,
        )
    assert info.value.code == 161001


def test_error_message_names_parameter_rule_and_values():
    g = np.ones((2, 2), np.float32)
    with pytest.raises(aclnn.AclnnError) as info:
        aclnn.validate(
            "EluBackward", gradOutput=g, alpha=-2.0, scale=1.0, inputScale=1.0, isResult=True, selfOrResult=g
        )
    err = info.value
    assert err.code == 161002 and err.name == "ACLNN_ERR_PARAM_INVALID"
    assert "alpha" in err.message and "alpha.value < 0" in err.message and "-2.0" in err.message
    # CANN tests alpha < 0, so a NaN alpha passes (as on the device)
    aclnn.validate(
        "EluBackward", gradOutput=g, alpha=float("nan"), scale=1.0, inputScale=1.0, isResult=True, selfOrResult=g
    )


def test_kernel_refusal_is_an_aclnn_error():
    """Indices outside the input (undefined on the device) are refused by the reference kernel."""
    x = np.random.default_rng(0).random((1, 1, 4, 4, 4), dtype=np.float32)
    go = np.ones((1, 1, 2, 2, 2), np.float32)
    idx = np.full((1, 1, 2, 2, 2), 1000, np.int32)
    with pytest.raises(aclnn.AclnnError) as info:
        aclnn.max_pool3d_with_argmax_backward(go, x, idx, [2], [2], [0], [1], False)
    assert info.value.code == 561000 and "indices" in info.value.message
