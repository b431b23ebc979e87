"""The kernel benchmark modules follow the contract that ``python -m benchmarks.bench_kernels`` relies on."""

from __future__ import annotations

import importlib
import types

import pytest

from benchmarks import _harness

MODULES = _harness.discover()


def test_every_kernel_module_has_a_benchmark_module():
    kernels = {p.stem for p in (_harness.ROOT / "generator" / "kernels").glob("*.py") if not p.stem.startswith("_")}
    benchmarked = {name.rsplit(".", 1)[-1] for name in MODULES}
    assert kernels <= benchmarked | {"__init__"}


@pytest.mark.parametrize("name", MODULES)
def test_module_contract(name):
    module = importlib.import_module(name)
    assert _harness.check_module(module) == []
    assert {case["path"] for case in module.CASES}  # at least the default path


def test_contract_problems_are_reported():
    bad = types.SimpleNamespace(OP=3, CASES=[{"size": "huge", "path": "default"}])
    problems = _harness.check_module(bad)
    assert any("OP" in p for p in problems) and any("missing" in p for p in problems)
    partial = types.SimpleNamespace(
        OP="X", CASES=[dict(size="small", path="default", title="", setup=dict, numpy=len, torch=len)]
    )
    assert any("three sizes" in p for p in _harness.check_module(partial))
    # every product path needs the three sizes, not just the module as a whole
    full = [dict(size=s, path="default", title="", setup=dict, numpy=len, torch=len) for s in _harness.SIZES]
    half = [dict(size=s, path="float16", title="", setup=dict, numpy=len, torch=len) for s in ("realistic", "large")]
    assert _harness.check_module(types.SimpleNamespace(OP="X", CASES=full)) == []
    problems = _harness.check_module(types.SimpleNamespace(OP="X", CASES=full + half))
    assert len(problems) == 1 and "'float16'" in problems[0] and "three sizes" in problems[0]
