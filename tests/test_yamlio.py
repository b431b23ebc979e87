"""The spec YAML reader: same data as PyYAML's node-based reading under the strict core schema,
positions on demand, and one located error, at once, for inputs that would exhaust the machine."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generator.cli import main
from generator.yamlio import MAX_DEPTH, MAX_INT_DIGITS, MAX_NODES, YamlSyntaxError, load_yaml
from tests.hostile.trees import SCHEMA_LINE

REPO = Path(__file__).resolve().parents[1]
YAML_FILES = sorted((REPO / "specs").rglob("*.yaml"))


# A reference reader: PyYAML's libyaml composer and its constructor (node graph, positions from marks),
# with the same strict core schema. The production reader builds from events instead.
class _Reference(yaml.CSafeLoader):
    pass


_Reference.yaml_implicit_resolvers = {}
_Reference.add_implicit_resolver("tag:yaml.org,2002:bool", re.compile(r"^(?:true|false)$"), list("tf"))
_Reference.add_implicit_resolver("tag:yaml.org,2002:null", re.compile(r"^(?:~|null|)$"), ["~", "n", ""])
_Reference.add_implicit_resolver("tag:yaml.org,2002:int", re.compile(r"^[-+]?[0-9]+$"), list("-+0123456789"))
_Reference.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^(?:[-+]?(?:[0-9]+\.[0-9]*|\.[0-9]+|[0-9]+)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf)|\.(?:nan|NaN))$"),
    list("-+0123456789."),
)
_Reference.add_constructor("tag:yaml.org,2002:int", lambda loader, node: int(loader.construct_scalar(node), 10))


def reference(text: str):
    loader = _Reference(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return {}, {(): (1, 1)}
        positions: dict = {}
        return convert(node, (), positions, loader), positions
    finally:
        loader.dispose()


def convert(node, path, positions, loader):
    positions[path] = (node.start_mark.line + 1, node.start_mark.column + 1)
    if isinstance(node, yaml.MappingNode):
        result = {}
        for key_node, value_node in node.value:
            key = key_node.value
            result[key] = convert(value_node, path + (key,), positions, loader)
            positions[path + (key,)] = (key_node.start_mark.line + 1, key_node.start_mark.column + 1)
        return result
    if isinstance(node, yaml.SequenceNode):
        return [convert(item, path + (i,), positions, loader) for i, item in enumerate(node.value)]
    return loader.construct_object(node)


def same(a, b) -> bool:
    """Equal with types (1, 1.0 and True differ) and NaN equal to itself."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return (math.isnan(a) and math.isnan(b)) or a == b
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    return a == b


@pytest.mark.parametrize("path", YAML_FILES, ids=lambda p: p.name)
def test_repo_specs_read_as_pyyaml_reads_them(path):
    text = path.read_text(encoding="utf-8")
    data, positions = reference(text)
    located = load_yaml(text)
    assert same(located.data, data)
    assert located.positions == positions  # computed on demand
    assert load_yaml(text, positions=True).positions == positions


scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=30),
    st.sampled_from(["910_93", "no", "yes", "~", "null", "010", "0x1F", "1_000", "1e3", ".inf", "-.Inf", "+5", "True"]),
)
documents = st.dictionaries(
    st.text(max_size=12),
    st.recursive(
        scalars,
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
        max_leaves=25,
    ),
    max_size=6,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents, st.sampled_from([None, True, False]), st.sampled_from([None, "'", '"', "|"]), st.integers(20, 120))
def test_any_dumped_document_reads_as_pyyaml_reads_it(data, flow, style, width):
    try:
        text = yaml.safe_dump(data, default_flow_style=flow, default_style=style, width=width, allow_unicode=True)
    except yaml.YAMLError:
        return
    try:
        expected, positions = reference(text)
    except (yaml.YAMLError, ValueError):
        with pytest.raises(YamlSyntaxError):
            load_yaml(text)
        return
    located = load_yaml(text)
    assert same(located.data, expected)
    assert located.positions == positions


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_mangled_specs_read_as_pyyaml_reads_them_or_fail_with_a_position(data):
    text = YAML_FILES[1].read_text(encoding="utf-8")[:2500]
    for _ in range(data.draw(st.integers(1, 3))):
        at = data.draw(st.integers(0, len(text)))
        cut = data.draw(st.integers(0, 5))
        insert = data.draw(
            st.sampled_from(
                [
                    "",
                    " ",
                    "\n",
                    "- ",
                    ": ",
                    "[",
                    "]",
                    "{",
                    "}",
                    "&a ",
                    "*a",
                    "!!str ",
                    "'",
                    '"',
                    "#",
                    "\t",
                    "? ",
                    "---\n",
                    "%YAML 1.1\n",
                    "\\",
                ]
            )
        )
        text = text[:at] + insert + text[at + cut :]
    try:
        expected, positions = reference(text)
    except (yaml.YAMLError, ValueError, TypeError):
        with pytest.raises(YamlSyntaxError) as info:
            load_yaml(text)
        assert info.value.line >= 1 and info.value.col >= 1
        return
    try:
        located = load_yaml(text)
    except YamlSyntaxError:
        # Stricter than PyYAML only where specs must be: aliases/anchors on keys, core tags only.
        assert re.search(r"[&*!]", text)
        return
    assert same(located.data, expected)


# ---------------------------------------------------------------------------------------------
# Resource exhaustion: one located error, before any real work


def alias_bomb(levels: int = 9) -> str:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x]"]
    for i in range(1, levels):
        lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]")
    return "\n".join(lines) + "\n"


HOSTILE = {
    "alias bomb": (alias_bomb(), "expands to more than", None),
    "recursive alias": ("x: &a [*a]\n", "recursive alias", (1, 8)),
    "recursive alias in a mapping": ("x: &a {y: *a}\n", "recursive alias", (1, 11)),
    "flow nesting": (
        "x: " + "[" * 10_000 + "]" * 10_000 + "\n",
        f"nesting deeper than {MAX_DEPTH}",
        (1, 3 + MAX_DEPTH),  # the root mapping is the first level
    ),
    "block nesting": (
        "".join("  " * i + f"k{i}:\n" for i in range(2000)) + "  " * 2000 + "v\n",
        "nesting deeper",
        (MAX_DEPTH + 1, None),
    ),
    "huge integer": ("x: " + "9" * 5000 + "\n", f"integer with 5000 digits (at most {MAX_INT_DIGITS})", (1, 4)),
    "huge negative integer": ("x: [1, -" + "1" * 4400 + "]\n", "integer with 4400 digits", (1, 8)),
    "undefined alias": ("x: *nope\n", "undefined alias", (1, 4)),
    "duplicate anchor": ("a: &x 1\nb: &x 2\n", "defined twice", (2, 4)),
    "duplicate key": ("a: 1\nb: 2\na: 3\n", "duplicate key 'a'", (3, 1)),
    "two documents": ("a: 1\n---\nb: 2\n", "single document", (2, 1)),
    "unsupported tag": ("a: !!python/object:os.system x\n", "unsupported tag", (1, 4)),
    "timestamp tag": ("a: !!timestamp 2001-01-01\n", "unsupported tag '!!timestamp'", (1, 4)),
    "alias as key": ("a: &k x\n*k : y\n", "mapping keys must be plain scalars", (2, 1)),
    "sequence as key": ("? [a]\n: b\n", "mapping keys must be plain scalars", (1, 3)),
    "wide flat document": ("x: [" + "1," * (MAX_NODES + 10) + "]\n", "more than", None),
}


@pytest.mark.parametrize("name", HOSTILE)
def test_hostile_yaml_is_one_located_error(name):
    text, message, where = HOSTILE[name]
    with pytest.raises(YamlSyntaxError) as info:
        load_yaml(text)
    assert message in info.value.message
    if where is not None:
        line, col = where
        assert info.value.line == line
        if col is not None:
            assert info.value.col == col


def test_aliases_within_the_budget_still_work():
    located = load_yaml("a: &x [1, 2]\nb: *x\nc: &s text\nd: *s\n")
    assert located.data == {"a": [1, 2], "b": [1, 2], "c": "text", "d": "text"}
    assert located.positions[("b",)] == (2, 1)


def test_core_schema():
    data = load_yaml(
        "a: [910_93, no, yes, True, ~, null, '', 010, -7, +5, 1e3, .5, .inf, -.Inf, 0x1F, 1:20, '1']\n"
        "b: !!str 5\nc: !!int '12'\nd: !!float 2\n910: key\n"
    ).data
    assert same(
        data["a"],
        [
            "910_93",
            "no",
            "yes",
            "True",
            None,
            None,
            "",
            10,
            -7,
            5,
            1000.0,
            0.5,
            math.inf,
            -math.inf,
            "0x1F",
            "1:20",
            "1",
        ],
    )
    assert same([data["b"], data["c"], data["d"], data["910"]], ["5", 12, 2.0, "key"])
    with pytest.raises(YamlSyntaxError, match="not a valid !!int"):
        load_yaml("x: !!int abc\n")


@pytest.mark.parametrize("name", ["alias bomb", "block nesting", "huge integer"])
def test_hostile_spec_files_get_located_lint_errors(tmp_path, capsys, name):
    specs = tmp_path / "specs"
    (specs / "catalog").mkdir(parents=True)
    for path in (REPO / "specs" / "catalog").glob("*.yaml"):
        (specs / "catalog" / path.name).write_bytes(path.read_bytes())
    (specs / "elu_backward.yaml").write_text(SCHEMA_LINE + HOSTILE[name][0], encoding="utf-8")
    assert main(["lint", str(specs)]) == 1
    err = capsys.readouterr().err
    assert re.search(r"elu_backward\.yaml:\d+:\d+: ", err), err
    assert HOSTILE[name][1] in err and "Traceback" not in err
    assert main(["generate", "--specs", str(specs), "--out", str(tmp_path / "out")]) == 1
    assert HOSTILE[name][1] in capsys.readouterr().err
