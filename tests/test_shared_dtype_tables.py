"""Shared dtype tables: ``tensor.dtypes: {same_as: <tensor>}`` and ``{table: <name>}`` (``dtype_tables``).

The loader resolves them, so every emitter (validators, docs, C++ samples, ``aclnn.spec``) sees the full
table; broken references are located lint errors.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from generator.cli import main
from generator.emit import python as py
from generator.loader import load_project
from generator.model import DtypesFrom, OpSpec
from tests.hostile.trees import read_spec, spec_tree

LOCATED = re.compile(r"^(?P<file>[^:]+\.yaml):(?P<line>\d+):(?P<col>\d+):(?: (?P<path>[^ ]+):)? (?P<msg>.+)$")
FLOATS = [
    {"products": ["950", "910_93", "910b"], "dtypes": ["FLOAT", "FLOAT16", "BFLOAT16"]},
    {"products": ["310b", "310p", "910"], "dtypes": ["FLOAT", "FLOAT16"]},
]


def _param(data: dict, name: str) -> dict:
    return next(p for p in data["params"] if p["name"] == name)


def _shared(data: dict) -> None:
    """selfOrResult takes gradOutput's table; gradOutput and gradInput the named table 'floating'."""
    data["dtype_tables"] = {"floating": FLOATS}
    _param(data, "gradOutput")["tensor"]["dtypes"] = {"table": "floating"}
    _param(data, "selfOrResult")["tensor"]["dtypes"] = {"same_as": "gradOutput"}
    _param(data, "gradInput")["tensor"]["dtypes"] = {"same_as": "selfOrResult"}  # a chain


def test_shared_tables_resolve_to_the_full_table(tmp_path):
    project = load_project(spec_tree(tmp_path, mutate=_shared))
    spec = project.ops[0].spec
    original = OpSpec.model_validate(read_spec("elu_backward"))
    for name in ("gradOutput", "selfOrResult", "gradInput"):
        rules = spec.param(name).tensor.dtypes
        assert isinstance(rules, list) and rules == original.param(name).tensor.dtypes
        assert spec.param(name).tensor.dtype_rules == rules


def test_emitters_see_the_same_output_as_with_written_tables(tmp_path):
    """The generated module, C++ header and spec JSON equal those of the spec with every table written out."""
    from generator.emit import cpp

    shared = load_project(spec_tree(tmp_path / "shared", mutate=_shared))
    plain = load_project(spec_tree(tmp_path / "plain"))
    catalog = plain.catalog
    a, b = py.op_context(shared.ops[0], catalog), py.op_context(plain.ops[0], catalog)
    assert a["dtypes"] == b["dtypes"] and a["params"] == b["params"]
    names = {info.spec.name: cpp.cpp_names(info.spec) for info in plain.ops}

    def headers(project):
        return cpp.header_contexts(catalog, [cpp.header_row(i, catalog, names[i.spec.name]) for i in project.ops])

    assert headers(shared) == headers(plain)
    shared_json = json.loads(py.spec_json(shared.ops[0]))
    plain_json = json.loads(py.spec_json(plain.ops[0]))
    assert shared_json.pop("dtype_tables") == {"floating": FLOATS}
    plain_json.pop("dtype_tables")
    assert shared_json == plain_json  # aclnn.spec() holds full tables


def test_shared_spec_passes_deep_lint(tmp_path, capsys):
    assert main(["lint", "--deep", str(spec_tree(tmp_path, mutate=_shared))]) == 0
    assert "runs and matches" in capsys.readouterr().out


def test_unresolved_model_says_so():
    data = read_spec("elu_backward")
    _shared(data)
    spec = OpSpec.model_validate(data)  # the raw model keeps the references
    tensor = spec.param("selfOrResult").tensor
    assert tensor.dtypes == DtypesFrom(same_as="gradOutput")
    with pytest.raises(ValueError, match="not been resolved"):
        _ = tensor.dtype_rules
    written = OpSpec.model_validate(read_spec("elu_backward")).param("gradOutput").tensor.dtypes
    assert spec.resolved().param("gradInput").tensor.dtypes == written


def test_schema_offers_both_forms():
    schema = json.loads((Path(__file__).resolve().parents[1] / "generated/schema/opspec.schema.json").read_text())
    assert "DtypesFrom" in schema["$defs"] and "dtype_tables" in schema["properties"]


def _lint_errors(capsys, specs: Path) -> list[re.Match]:
    assert main(["lint", str(specs)]) == 1
    lines = [line for line in capsys.readouterr().err.splitlines() if not line.startswith("opgen lint")]
    matches = [LOCATED.match(line) for line in lines]
    assert all(matches) and matches, lines
    return matches


@pytest.mark.parametrize(
    ("ref", "path", "message"),
    [
        (
            {"table": "floatng"},
            "params[0].tensor.dtypes.table",
            "unknown dtype table 'floatng' (did you mean floating?)",
        ),
        ({"same_as": "gradOutptu"}, "params[0].tensor.dtypes.same_as", "unknown parameter 'gradOutptu'"),
        ({"same_as": "alpha"}, "params[0].tensor.dtypes.same_as", "'alpha' is const aclScalar*, not a tensor"),
        ({"same_as": "gradOutput"}, "params[0].tensor.dtypes.same_as", "cannot take its dtypes from itself"),
        ({"same_as": "gradInput"}, "params[0].tensor.dtypes.same_as", "form a cycle: gradOutput -> gradInput"),
        ({"same_as": "gradInput", "table": "floating"}, "params[0].tensor.dtypes", "exactly one of 'same_as'"),
        ({}, "params[0].tensor.dtypes", "exactly one of 'same_as'"),
        (
            {"same_as": "gradInput", "tabel": "x"},
            "params[0].tensor.dtypes.tabel",
            "unknown key 'tabel' (did you mean table?)",
        ),
        (
            "gradInput",
            "params[0].tensor.dtypes",
            "a dtype table is a list of {products, dtypes} rules, {same_as: <tensor>}",
        ),
    ],
)
def test_broken_references_are_located(tmp_path, capsys, ref, path, message):
    def mutate(data):
        data["dtype_tables"] = {"floating": FLOATS}
        _param(data, "gradOutput")["tensor"]["dtypes"] = ref
        _param(data, "gradInput")["tensor"]["dtypes"] = {"same_as": "gradOutput"}

    errors = _lint_errors(capsys, spec_tree(tmp_path, mutate=mutate))
    assert any(m["path"] == path and message in m["msg"] for m in errors), [m.string for m in errors]


def test_named_table_entries_are_checked(tmp_path, capsys):
    def mutate(data):
        data["dtype_tables"] = {"floating": [{"products": ["910b"], "dtypes": ["FLAOT"]}]}
        _param(data, "gradOutput")["tensor"]["dtypes"] = {"table": "floating"}

    errors = _lint_errors(capsys, spec_tree(tmp_path, mutate=mutate))
    paths = {m["path"]: m["msg"] for m in errors}
    assert "unknown dtype 'FLAOT' (did you mean FLOAT?)" in paths["dtype_tables.floating[0].dtypes[0]"]
    assert "no dtypes given for supported product(s) 950, 910_93, 310p, 910" in paths["dtype_tables.floating"]
