"""Hostile prose in every spec and catalogue text field never becomes Python code.

Every prose field of a spec (summary, description, parameter descriptions and usage, tensor shape
notes, enum descriptions, check texts and notes, constraints, precision, doc issues, defaults,
example text, deterministic note, formula, sources) and every catalogue text (product names and
aliases, dtype aliases, status texts) gets hostile text. Either ``opgen lint`` rejects it with a
FILE:LINE:COL diagnostic, or the generated ``aclnn`` package compiles without warnings, passes
ruff, imports in a fresh interpreter without side effects (no sentinel file appears), runs the
example, and carries the texts verbatim (check texts as literals, prose in docstrings).
"""

from __future__ import annotations

import copy
import json
import re
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from generator.diagnostics import SpecError
from generator.generate import render_all
from generator.loader import load_catalog, load_project
from generator.yamlio import load_yaml
from tests.hostile.strings import HOSTILE, hostile_text
from tests.hostile.trees import REPO, SPECS, dump, spec_tree, spec_tree_utf8

SENTINEL = "pwned"
_TOUCH = '__import__("pathlib").Path("pwned").touch()'
# Aimed at the Python contexts a text may land in (docstring, literal, comment), plus formatter
# pragmas and odd line breaks; each would create the sentinel file or break the module.
INJECTIONS: tuple[str, ...] = (
    f'x"""+{_TOUCH}+"""',
    f"x'''+{_TOUCH}+'''",
    f'"\n{_TOUCH}\n"',
    f'"+{_TOUCH}+"',
    f"\\\n{_TOUCH}",
    f"\r{_TOUCH}",
    f"\r\n{_TOUCH} #",
    f"\u2028{_TOUCH}",
    f"\x0c{_TOUCH}",
    f"\x85{_TOUCH}",
    f"\x00{_TOUCH}",
    "fmt: off",
    "yapf: disable",
    "-*- coding: latin-1 -*-",
    "type: ignore",
    'ends with a quote "',
    '"starts with a quote',
    '""',
    '""""""',
    '\\"',
    "a\\",
    "\\\\\\",
    "\t tab \x0b vt \x1c fs",
    "{{ 7 * 7 }}{% raw %}",
    "\\N{BULLET} \\x41 \\u0041 \\",
)
STRINGS = HOSTILE + INJECTIONS
LOCATED = re.compile(r"^.+\.yaml:[1-9]\d*:[1-9]\d*: ")

CHECK_SCRIPT = r"""
import json, sys
out = sys.argv[1]
sys.path.insert(0, out)
import aclnn
assert aclnn.__file__.startswith(out), aclnn.__file__
from generator.runtime.examples import arguments

def squeeze(text):
    return "".join(str(text).split())

for op in aclnn.ops():
    spec = aclnn.spec(op)
    module = aclnn._module(op)
    for check in spec.checks:
        info = module.CHECKS[check.id]
        assert info.text == (check.text.en or check.text.zh), (check.id, info.text)
    doc = squeeze(module.__doc__)
    for text in (spec.summary, spec.description):
        assert squeeze(text.en or text.zh) in doc
    validate_doc = squeeze(module.validate.__doc__)
    for p in spec.params:
        assert squeeze(p.description.en or p.description.zh) in validate_doc, p.name
    aclnn.validate(op, product=spec.example.product, **arguments(spec, spec.example, with_data=False))
    outputs = {p.name for p in spec.outputs}
    args = arguments(spec, spec.example)
    aclnn.run(op, product=spec.example.product, **{k: v for k, v in args.items() if k not in outputs})
print("OK")
"""


# ---------------------------------------------------------------------------------------------
# Where prose lives


def _text(value: str) -> dict:
    return {"zh": value, "en": value}


def _complete(data: dict) -> None:
    """Give the spec every optional prose field, so each one gets hostile text."""
    data["deterministic"] = _text("x")
    data["formula"] = "x"
    data["sources"] = {"seed": "x", "doc": "x"}
    data["precision"] = [_text("x")]
    data.setdefault("constraints", []).append({"text": _text("x"), "products": ["910b"]})
    data.setdefault("doc_issues", []).append(
        {"id": "hostile", "source": "doc", "text": _text("x"), "resolution": _text("x")}
    )
    data["defaults"] = [{"param": "groups", "when": "true", "value": "1", "text": _text("x")}]
    data["example"]["text"] = _text("x")
    for p in data["params"]:
        p.setdefault("usage", _text("x"))
        if "tensor" in p:
            p["tensor"]["shape"] = _text("x")
    for c in data["checks"]:
        c.setdefault("note", _text("x"))


def _spec_slots(data: dict) -> list[tuple[object, object]]:
    """(container, key) of every prose string: both languages of every Text, plus plain prose."""
    slots: list[tuple[object, object]] = [(data, "formula"), (data["sources"], "seed"), (data["sources"], "doc")]

    def walk(value):
        if isinstance(value, dict):
            if "zh" in value and set(value) <= {"zh", "en"}:
                slots.extend((value, lang) for lang in ("zh", "en"))
                return
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(data)
    return slots


def _catalog_slots(name: str, data: dict) -> list[tuple[object, object]]:
    slots = []
    if name == "products":
        for p in data["products"]:
            p["aliases"] = [*p["aliases"], "x"]
            slots += [(p, "zh"), (p, "en"), *((p["aliases"], i) for i in range(len(p["aliases"])))]
    elif name == "dtypes":
        for d in data["dtypes"]:
            d["aliases"] = [*d["aliases"], "x"]
            slots += [(d["aliases"], i) for i in range(len(d["aliases"]))]
    elif name == "status_codes":
        for s in data["status_codes"]:
            slots += [(s, "zh"), (s, "en")]
    return slots


# ---------------------------------------------------------------------------------------------
# One round: fill every slot, then lint, generate, compile, ruff, import, run


def _assert_located(exc: SpecError) -> None:
    assert exc.diagnostics
    for d in exc.diagnostics:
        assert LOCATED.match(str(d)), str(d)


def _round(root: Path, pick) -> str:
    """Fill slot number i with ``pick(i)``; return "rejected" or "generated"."""
    counter = iter(range(10**6))

    def fill(slots):
        for container, key in slots:
            container[key] = pick(next(counter))

    def mutate(data):
        _complete(data)
        fill(_spec_slots(data))

    def mutate_catalog(name, data):
        fill(_catalog_slots(name, data))

    specs = spec_tree_utf8(root, "convolution_backward", mutate, mutate_catalog)
    try:
        project = load_project(specs)
    except SpecError as exc:
        _assert_located(exc)
        return "rejected"
    files = render_all(project, only="python")
    out = root / "out"
    for rel, text in files.items():
        path = out / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        if rel.endswith(".py"):
            with warnings.catch_warnings():
                warnings.simplefilter("error")  # an invalid escape sequence is a warning
                compile(text, str(path), "exec", dont_inherit=True)
    ruff = shutil.which("ruff") or str(Path(sys.executable).parent / "ruff")
    lint = subprocess.run(
        [str(ruff), "check", "--no-cache", "--config", str(REPO / "pyproject.toml"), str(out / "aclnn")],
        capture_output=True,
        text=True,
    )
    assert lint.returncode == 0, lint.stdout + lint.stderr
    before = set(root.iterdir())
    proc = subprocess.run(
        [sys.executable, "-c", CHECK_SCRIPT, str(out)], cwd=root, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0 and proc.stdout.strip().endswith("OK"), proc.stderr[-3000:]
    assert not (root / SENTINEL).exists(), "a spec text ran as code"
    assert set(root.iterdir()) == before
    return "generated"


def _accepted(root: Path) -> list[str]:
    """The hostile strings lint accepts in prose (the others must be rejected with a location)."""
    accepted = []
    for i, text in enumerate(STRINGS):

        def mutate(data, text=text):
            data["summary"]["en"] = text

        specs = spec_tree_utf8(root / f"s{i}", "elu_backward", mutate)
        try:
            load_project(specs)
        except SpecError as exc:
            _assert_located(exc)
            continue
        accepted.append(text)
    return accepted


@pytest.fixture(scope="module")
def accepted(tmp_path_factory) -> list[str]:
    return _accepted(tmp_path_factory.mktemp("accept"))


def test_only_unrepresentable_text_is_rejected(accepted):
    rejected = [s for s in STRINGS if s not in accepted]
    # Lone surrogates cannot be written in a UTF-8 file (the YAML reader refuses their escapes).
    assert all(any(0xD800 <= ord(c) <= 0xDFFF for c in s) for s in rejected), rejected
    assert len(accepted) >= len(STRINGS) - 3


def test_every_hostile_string_in_every_field_at_once(tmp_path, accepted):
    """Every slot holds all accepted hostile strings, joined (in a different order per slot)."""

    def pick(i):
        k = i % len(accepted)
        return "".join(accepted[k:] + accepted[:k])

    assert _round(tmp_path, pick) == "generated"


@pytest.mark.parametrize("shift", range(5))
def test_each_field_alone_with_one_hostile_string(tmp_path, accepted, shift):
    """Single strings, so each sits at the very start and end of its field (edge quotes, backslashes)."""
    assert _round(tmp_path, lambda i: accepted[(i * 7 + shift) % len(accepted)]) == "generated"


def _representable(text: str) -> str:
    """Drop lone surrogates (no UTF-8 file holds them; their rejection is tested above)."""
    return "".join(c for c in text if not 0xD800 <= ord(c) <= 0xDFFF) or "x"


@settings(
    max_examples=4,
    deadline=None,
    phases=(Phase.explicit, Phase.reuse, Phase.generate),  # each example generates a package: no shrinking
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(texts=st.lists(hostile_text().map(_representable), min_size=8, max_size=8))
def test_arbitrary_unicode_in_every_field_is_harmless(tmp_path_factory, texts):
    root = tmp_path_factory.mktemp("hyp")
    assert _round(root, lambda i: texts[i % len(texts)]) == "generated"


def test_catalog_code_fields_reject_hostile_text(tmp_path):
    """Catalogue fields that reach code (tags, names, enumerators, NumPy and C types, SoC names) are
    closed patterns: hostile text there is a located lint error, never generated."""
    fields = [
        ("products", "tag"),
        ("products", "soc"),
        ("products", "arch"),
        ("dtypes", "name"),
        ("dtypes", "acl"),
        ("dtypes", "numpy"),
        ("dtypes", "c_host"),
        ("formats", "name"),
        ("formats", "acl"),
        ("status_codes", "name"),
    ]
    originals = {
        path.stem: load_yaml(path.read_text(encoding="utf-8")).data for path in (SPECS / "catalog").glob("*.yaml")
    }
    strings = [t for t in STRINGS if not any(0xD800 <= ord(c) <= 0xDFFF for c in t)]  # others: see above
    for i, (file, key) in enumerate(fields):
        size = len(originals[file][file])
        for j in range(0, len(strings), size):
            chunk = strings[j : j + size]  # item k of the catalogue gets chunk[k]
            specs = tmp_path / f"{i}-{j}"
            (specs / "catalog").mkdir(parents=True)
            for name, data in originals.items():
                data = copy.deepcopy(data)
                if name == file:
                    for k, text in enumerate(chunk):
                        data[name][k][key] = text
                (specs / "catalog" / f"{name}.yaml").write_text(dump(data), encoding="utf-8")
            with pytest.raises(SpecError) as info:
                load_catalog(specs)
            _assert_located(info.value)
            paths = {d.path for d in info.value.diagnostics if f"catalog/{file}.yaml" in d.file}
            for k, text in enumerate(chunk):
                assert f"{file}[{k}].{key}" in paths, (file, key, text, paths)


def test_spec_json_round_trips_hostile_text(tmp_path, accepted):
    """``aclnn.spec`` data (JSON) carries the text exactly."""
    joined = "".join(accepted)
    specs = spec_tree(tmp_path, "elu_backward", lambda d: d["description"].update(en=joined))
    project = load_project(specs)
    files = render_all(project, only="python")
    data = json.loads(files["aclnn/specs/elu_backward.json"])
    assert data["description"]["en"] == joined
