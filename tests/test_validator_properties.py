"""Robustness: random, hostile arguments to every validator either pass or raise AclnnError."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import aclnn
from generator.loader import load_project

PROJECT = load_project(Path(__file__).resolve().parents[1] / "specs")
OPS = [info.spec for info in PROJECT.ops]
DTYPES = [d.name for d in PROJECT.catalog.dtypes.dtypes] + ["ACL_FLOAT16", "float32", "NOT_A_DTYPE"]
FORMATS = [f.name for f in PROJECT.catalog.formats.formats] + ["BOGUS"]
PRODUCTS = [p.tag for p in PROJECT.catalog.products.products] + ["Atlas A2", "nonsense", 910, None]

dims = st.one_of(st.integers(-2, 4), st.sampled_from([0, 1, 2**31, 2**63 - 1, 2**64]))
shapes = st.lists(dims, min_size=0, max_size=9)
tensor_descs = st.builds(
    lambda shape, dtype, fmt: ("desc", shape, dtype, fmt), shapes, st.sampled_from(DTYPES), st.sampled_from(FORMATS)
)
arrays = st.builds(
    lambda shape, dtype: np.zeros(shape, dtype=dtype),
    st.lists(st.integers(0, 3), min_size=0, max_size=5),
    st.sampled_from([np.float32, np.float16, np.int32, np.int64, np.int8, np.bool_, np.complex64, np.uint16]),
)
numbers = st.one_of(
    st.integers(-(2**70), 2**70), st.floats(allow_nan=True, allow_infinity=True), st.booleans(), st.complex_numbers()
)
scalars = st.builds(lambda v, d: ("scalar", v, d), numbers, st.sampled_from(DTYPES))
int_lists = st.lists(st.one_of(st.integers(-(2**65), 2**65), st.booleans(), st.floats()), max_size=6)
junk = st.one_of(st.none(), st.text(max_size=5), st.just(object()), st.just([[1, 2]]), st.just({"a": 1}))
values = st.one_of(tensor_descs, arrays, scalars, numbers, int_lists, junk, st.lists(st.booleans(), max_size=4))


def _materialise(value):
    """Build descriptors lazily so a constructor's AclnnError is part of the call under test."""
    if isinstance(value, tuple) and value and value[0] == "desc":
        return aclnn.TensorDesc(value[1], value[2], value[3])
    if isinstance(value, tuple) and value and value[0] == "scalar":
        return aclnn.Scalar(value[1], value[2])
    return value


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    op=st.sampled_from(OPS),
    product=st.sampled_from(PRODUCTS),
    data=st.data(),
)
def test_random_arguments_pass_or_raise_aclnn_error(op, product, data):
    params = {}
    for p in op.params:
        if data.draw(st.booleans(), label=f"{p.name} given"):
            params[p.name] = data.draw(values, label=p.name)
    try:
        materialised = {k: _materialise(v) for k, v in params.items()}
        aclnn.validate(op.op, product=product, **materialised)
    except aclnn.AclnnError as err:
        assert isinstance(err.code, int) and err.name.startswith("ACLNN_") and err.message


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(op=st.sampled_from(OPS), data=st.data())
def test_mutated_examples_pass_or_raise_aclnn_error(op, data):
    """Start from the valid example and corrupt one or two parameters (closer to the checks)."""
    from generator.runtime.examples import arguments

    params = arguments(op, op.example, with_data=False)
    for _ in range(data.draw(st.integers(1, 2))):
        name = data.draw(st.sampled_from([p.name for p in op.params]))
        params[name] = data.draw(values, label=name)
    try:
        aclnn.validate(op.op, product=op.example.product, **{k: _materialise(v) for k, v in params.items()})
    except aclnn.AclnnError as err:
        assert err.code in {s.value for s in PROJECT.catalog.status_codes.status_codes}


# ---------------------------------------------------------------------------------------------
# Lint's in-process evaluator (generator.evaluate) must reach the generated validator's verdict.

from generator.evaluate import Rejected, SpecEvaluator  # noqa: E402
from generator.model import ExampleScalar, ExampleTensor  # noqa: E402
from generator.runtime.examples import arguments as example_arguments  # noqa: E402

INFOS = {info.spec.op: info for info in PROJECT.ops}
PRIVATE = [f.name for f in PROJECT.catalog.formats.formats if f.private]


def _evaluator(info):
    return SpecEvaluator(info.spec, info.exprs, PROJECT.catalog.product_tags, PRIVATE)


def _validator_verdict(spec, overrides, product):
    """(check id or None, normalisation refused?) from the generated validator."""
    try:
        args = example_arguments(spec, spec.example, overrides, with_data=False)
    except (ValueError, IndexError, KeyError, TypeError, AttributeError):  # a mask the helper cannot encode
        assume(False)
    try:
        aclnn.validate(spec.op, product=product, **args)
    except aclnn.AclnnError as err:
        return err.check, err.check is None
    return None, False


def _lint_verdict(info, overrides, product):
    evaluator = _evaluator(info)
    try:
        values = evaluator.arguments(info.spec.example, overrides, product)
    except Rejected:
        return None, True
    verdict = evaluator.first_failure(values, product)
    return (verdict.check_id if verdict else None), False


CASES = [
    (info, check, which)
    for info in PROJECT.ops
    for check in info.spec.checks
    if check.cases is not None
    for which in ("trigger", "boundary")
]


def test_lint_evaluator_agrees_on_every_check_case():
    assert len(CASES) > 100
    for info, check, which in CASES:
        spec = info.spec
        overrides = getattr(check.cases, which)
        product = check.cases.product or spec.example.product
        if which == "boundary" and check.kind == "product_supported":
            product = spec.example.product
        assert _lint_verdict(info, overrides, product) == _validator_verdict(spec, overrides, product), (
            spec.op,
            check.id,
            which,
        )


def _example_values(info, data):
    """Hypothesis overrides closer to real arguments than `values` (so the checks are reached)."""
    dtypes = sorted(PROJECT.catalog.dtype_names)
    formats = sorted(PROJECT.catalog.format_names)
    tensor = st.builds(
        lambda shape, dtype, fmt: ExampleTensor(shape=shape, dtype=dtype, format=fmt),
        st.lists(st.integers(0, 4), max_size=6),
        st.sampled_from(dtypes),
        st.sampled_from(formats),
    )
    scalar = st.builds(
        lambda v, d: ExampleScalar(value=v, dtype=d),
        st.one_of(st.integers(-3, 3), st.floats(-3, 3), st.booleans()),
        st.sampled_from(dtypes),
    )
    plain = st.one_of(
        st.booleans(), st.integers(-(2**40), 2**40), st.floats(-5, 5), st.lists(st.integers(-2, 4), max_size=6)
    )
    overrides = {}
    for _ in range(data.draw(st.integers(1, 3))):
        p = data.draw(st.sampled_from(info.spec.params))
        overrides[p.name] = data.draw(st.one_of(st.none(), tensor, scalar, plain), label=p.name)
    return overrides


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(op=st.sampled_from(sorted(INFOS)), product=st.sampled_from(sorted(PROJECT.catalog.product_tags)), data=st.data())
def test_lint_evaluator_agrees_on_mutated_examples(op, product, data):
    info = INFOS[op]
    overrides = _example_values(info, data)
    try:
        expected = _validator_verdict(info.spec, overrides, product)
    except aclnn.AclnnError:  # a descriptor the runtime refuses to build (e.g. a dtype without NumPy type)
        return
    assert _lint_verdict(info, overrides, product) == expected
