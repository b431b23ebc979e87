"""The host runtime's generated C++ checks agree with the generated Python validators.

One shared table drives both sides: for every spec, its example, every check's trigger and boundary case,
and 1,000 seeded random mutations of them (tests/hostrt_support.py: argument_sets). Each argument set
goes through the Python validator (``aclnn.ops.<op>.validate``) and, through ctypes, through
``aclnn<Op>GetWorkspaceSize`` of the host runtime (CheckParams rendered to C++ from the same spec).
Both must return the same status code, and a failure the same message (``aclGetRecentErrMsg()`` equals
the AclnnError's message).
"""

from __future__ import annotations

import importlib
from collections import Counter

import pytest

from generator.hostrt import find_compiler
from generator.runtime.errors import AclnnError
from tests.hostrt_support import PhaseOne, argument_sets, project, toolkit

OPS = project().ops
pytestmark = pytest.mark.skipif(find_compiler() is None, reason="no C++ compiler")
RANDOM_SETS = 1000


def python_result(info, product: str, values: dict) -> tuple[int, str]:
    module = importlib.import_module(f"aclnn.ops.{info.spec.snake}")
    try:
        module.validate(*(values.get(name) for name in module.PARAMS), product=product)
    except AclnnError as exc:
        return exc.code, exc.message
    return 0, ""


def _same(python: tuple[int, str], cpp: tuple[int, str]) -> bool:
    return python == cpp


@pytest.fixture(scope="module")
def phase_one() -> PhaseOne:
    return PhaseOne(str(toolkit().home))


@pytest.mark.parametrize("info", OPS, ids=[i.spec.op for i in OPS])
def test_cpp_checks_agree_with_the_python_validator(info, phase_one, monkeypatch):
    monkeypatch.setenv("OPGEN_PRODUCT", "910b")
    sets = argument_sets(info, RANDOM_SETS)
    assert len(sets) >= RANDOM_SETS
    outcomes: Counter = Counter()
    mismatches = []
    for product, values in sets:
        python = python_result(info, product, values)
        cpp = phase_one.call(info, product, values)
        outcomes[python[0]] += 1
        if not _same(python, cpp):
            mismatches.append((product, values, python, cpp))
    detail = "\n\n".join(f"product {p}, {v}\n  python: {py}\n  c++:    {c}" for p, v, py, c in mismatches[:3])
    assert not mismatches, f"{len(mismatches)} of {len(sets)} argument sets differ:\n{detail}"
    # The table reaches both outcomes and more than one check.
    assert outcomes[0] > 0 and sum(n for code, n in outcomes.items() if code) > 0, outcomes


@pytest.mark.parametrize("info", OPS, ids=[i.spec.op for i in OPS])
def test_every_check_case_fails_in_cpp_with_its_check(info, phase_one, monkeypatch):
    """The trigger of every enforced check fails in C++ with that check's id in the message."""
    spec = info.spec
    monkeypatch.setenv("OPGEN_PRODUCT", "910b")
    from tests.hostrt_support import base_sets

    sets = base_sets(info)[1:]
    cases = [c for c in spec.checks if c.cases is not None]
    assert len(sets) == 2 * len(cases)
    for check, (product, values) in zip(cases, sets[0::2]):
        code, message = phase_one.call(info, product, values)
        expected = check.cases.shadowed_by or check.id
        if not check.enforced:
            continue
        assert code == project().catalog.status(check.code)[0], (check.id, message)
        assert f"check '{expected}' failed" in message, message
