"""Hostile spec and catalogue text never becomes C++ code.

Every prose field of a spec (each ``{zh, en}`` text, the formula) and every free catalogue string
(product names, SoC names and aliases, status-code texts, dtype aliases) is filled with the fixed hostile
strings of tests/hostile/strings.py and with arbitrary Unicode (hypothesis, seeded). Each variant is either
rejected by the loader with a located error (FILE:LINE:COL) or rendered; the rendered headers, samples
(en and zh), host-runtime units and catalogue header then

* compile with -Wall -Wextra -Werror (samples as C++11, whose trigraphs turn ``??/`` into a backslash),
* and carry exactly the tokens of the clean rendering: the preprocessed token stream of every file
  (comments removed, line splices and trigraphs applied by the compiler itself, string literals and
  numbers reduced to their kind: __LINE__ follows the comments) equals the clean one, so no hostile text produced a declaration, a statement or a macro.

Parameter names that are valid identifiers but C++ keywords, macros or library names (``NULL``,
``stdout``, ``main``, ``errno``) are renamed in the C++ outputs; such a spec builds, runs and checks its
results through the host runtime.
"""

from __future__ import annotations

import re
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generator.csamples import INCLUDE_DIR, build_and_run, find_compiler
from generator.diagnostics import SpecError
from generator.generate import render_all
from generator.hostrt import INTERNAL_INCLUDE
from generator.loader import load_project
from tests.hostile.strings import HOSTILE, hostile_text
from tests.hostile.trees import spec_tree

CXX = find_compiler()
pytestmark = pytest.mark.skipif(CXX is None, reason="no C++ compiler")
OPS = ("max_pool2d_with_mask_backward", "convolution_backward")


def _texts(data, path=()):
    """Paths of every prose value: the zh/en strings of text objects, and the formula."""
    if isinstance(data, dict):
        if "zh" in data and isinstance(data["zh"], str) and set(data) <= {"zh", "en"}:
            yield path
            return
        for key, value in data.items():
            if key == "formula" and isinstance(value, str):
                yield (*path, key)
            else:
                yield from _texts(value, (*path, key))
    elif isinstance(data, list):
        for i, value in enumerate(data):
            yield from _texts(value, (*path, i))


def _set(data, path, value):
    for key in path[:-1]:
        data = data[key]
    if isinstance(data[path[-1]], dict):
        data[path[-1]] = {"zh": value, "en": value}
    else:
        data[path[-1]] = value


def _fill(strings):
    """A mutator putting strings[i % len] into the i-th prose field."""

    def mutate(data):
        for i, path in enumerate(list(_texts(data))):
            _set(data, path, strings[i % len(strings)])

    return mutate


def _fill_catalog(strings):
    def mutate(name, data):
        k = 0
        for item in data.get({"products": "products", "status_codes": "status_codes", "dtypes": "dtypes"}.get(name, ""),
                             []):  # fmt: skip
            for key in ("zh", "en"):  # soc is an identifier-like pattern: hostile text there is a lint error
                if key in item:
                    item[key] = strings[k % len(strings)]
                    k += 1
            if name in ("products", "dtypes"):
                item["aliases"] = [*item.get("aliases", []), strings[k % len(strings)]]
                k += 1

    return mutate


def _render(root: Path, snake: str, mutate=None, mutate_catalog=None) -> dict[str, str] | None:
    """The C++ rendering of a mutated tree; None when the loader rejects it (with a located error)."""
    specs = spec_tree(root, snake, mutate, mutate_catalog)
    try:
        project = load_project(specs)
    except SpecError as exc:
        for d in exc.diagnostics:
            assert d.file and d.line > 0 and d.col > 0, str(d)
        return None
    return render_all(project, only="cpp")


_TOKEN = re.compile(
    r'(?P<str>(?:u8|[uUL])?"(?:[^"\\\n]|\\.)*")|(?P<chr>\'(?:[^\'\\\n]|\\.)*\')|(?P<num>\.?\d[\w.]*)'
    r"|(?P<id>[A-Za-z_]\w*)|(?P<op>::|->|<<=|>>=|<<|>>|\+\+|--|&&|\|\||[-+*/%=!<>&|^]=|\S)"
)


def _tokens(preprocessed: str, source: Path) -> list[str]:
    """The tokens of ``source`` itself in ``g++ -E`` output (string literals as one token each)."""
    own, keep = [], False
    for line in preprocessed.splitlines():
        marker = re.match(r'# \d+ "(.*)"', line)
        if marker:
            keep = Path(marker.group(1)).name == source.name
            continue
        if keep:
            own.append(line)
    out = []
    for m in _TOKEN.finditer("\n".join(own)):
        kind = m.lastgroup
        # numbers as one kind: __LINE__ differs with the number of comment lines (a number cannot be
        # injected alone: the text would need to end a comment or a literal, which changes the tokens)
        out.append({"str": '"STR"', "num": "NUM"}.get(kind, m.group(0)))
    return out


def _compile(root: Path, rel: str, *, std: str) -> list[str]:
    """Compile ``rel`` under ``root`` (-Werror, syntax only) and return its preprocessed tokens."""
    includes = [f"-I{INCLUDE_DIR}", f"-I{INTERNAL_INCLUDE}", f"-I{root / 'include'}", f"-I{root}"]
    path = root / rel
    if rel.endswith(".h"):  # a header: through a one-line translation unit
        path = root / (rel.replace("/", "_") + ".cpp")
        path.write_text(f'#include "{rel}"\n', encoding="utf-8")
    base = [*CXX.split(), f"-std={std}", "-Wall", "-Wextra", "-Werror", *includes]
    check = subprocess.run([*base, "-fsyntax-only", str(path)], capture_output=True, text=True)
    assert check.returncode == 0, f"{rel}:\n{check.stderr[:3000]}"
    if rel.endswith(".h"):
        source = root / rel
        pre = subprocess.run([*base, "-E", str(path)], capture_output=True, text=True, errors="replace").stdout
        return _tokens(pre, source)
    pre = subprocess.run([*base, "-E", str(path)], capture_output=True, text=True, errors="replace")
    assert pre.returncode == 0, pre.stderr
    return _tokens(pre.stdout, path)


def _cpp_files(files: dict[str, str]) -> list[tuple[str, str]]:
    """(path, standard) of every C/C++ output to compile."""
    out = []
    for rel in sorted(files):
        if rel.startswith("samples/") and rel.endswith(".cpp"):
            out.append((rel, "c++11"))
        elif rel.startswith(("hostrt/", "include/opgen/")):
            out.append((rel, "c++17"))
        elif rel.startswith("aclnnop/"):
            out.append((rel, "c++11"))
    return out


@pytest.fixture(scope="module")
def clean(tmp_path_factory) -> dict[str, dict[str, list[str]]]:
    """Tokens of the clean rendering of each op."""
    out = {}
    for snake in OPS:
        root = tmp_path_factory.mktemp(f"clean-{snake}")
        files = _render(root / "tree", snake)
        gen = root / "gen"
        for rel, text in files.items():
            (gen / rel).parent.mkdir(parents=True, exist_ok=True)
            (gen / rel).write_text(text, encoding="utf-8")
        out[snake] = _compile_all(gen, files)
    return out


def _compile_all(gen: Path, files: dict[str, str]) -> dict[str, list[str]]:
    items = _cpp_files(files)
    with ThreadPoolExecutor(max_workers=2) as pool:
        tokens = list(pool.map(lambda item: _compile(gen, item[0], std=item[1]), items))
    return {rel: t for (rel, _), t in zip(items, tokens, strict=True)}


def _check_variant(tmp_path: Path, snake: str, clean_tokens: dict, mutate=None, mutate_catalog=None) -> bool:
    files = _render(tmp_path / "tree", snake, mutate, mutate_catalog)
    if files is None:
        return False
    gen = tmp_path / "gen"
    for rel, text in files.items():
        (gen / rel).parent.mkdir(parents=True, exist_ok=True)
        (gen / rel).write_text(text, encoding="utf-8")
    assert {rel for rel, _ in _cpp_files(files)} == set(clean_tokens)
    for rel, tokens in _compile_all(gen, files).items():
        assert tokens == clean_tokens[rel], f"{rel}: the hostile text changed the code"
    return True


def _accepted_hostile() -> list[str]:
    """The fixed hostile strings; the ones YAML itself cannot hold (lone surrogates) are rejected with a
    located error and tested in test_unloadable_text_is_a_located_error."""
    return [h for h in HOSTILE if not any("\ud800" <= ch <= "\udfff" for ch in h)]


@pytest.mark.parametrize(("snake", "shift"), [(OPS[0], 0), (OPS[0], 13), (OPS[1], 7)])
def test_hostile_prose_stays_comment_or_string(tmp_path, clean, snake, shift):
    """Each fixed hostile string lands in many fields; the shifts vary which string meets which field."""
    strings = _accepted_hostile()
    strings = strings[shift:] + strings[:shift]
    assert _check_variant(tmp_path, snake, clean[snake], mutate=_fill(strings))


def _benign(strings: list[str]) -> list[str]:
    """Plain stand-ins for ``strings`` that collide exactly where they do as product spellings (the
    catalogue header lists each distinct spelling once)."""
    keys: list[str] = []
    out = []
    for text in strings:
        key = "".join(text.split()).lower().rstrip("。.")
        if key not in keys:
            keys.append(key)
        out.append(f"text{keys.index(key)}")
    return out


def _catalog_baseline(tmp_path: Path, snake: str, strings: list[str]) -> dict[str, list[str]]:
    files = _render(tmp_path / "baseline", snake, mutate_catalog=_fill_catalog(_benign(strings)))
    gen = tmp_path / "baseline-gen"
    for rel, text in files.items():
        (gen / rel).parent.mkdir(parents=True, exist_ok=True)
        (gen / rel).write_text(text, encoding="utf-8")
    return _compile_all(gen, files)


def test_hostile_catalogue_text_stays_comment_or_string(tmp_path):
    snake = "max_pool2d_with_mask_backward"
    strings = _accepted_hostile()
    baseline = _catalog_baseline(tmp_path, snake, strings)
    assert _check_variant(tmp_path, snake, baseline, mutate_catalog=_fill_catalog(strings))


def test_unloadable_text_is_a_located_error(tmp_path):
    surrogates = [h for h in HOSTILE if any("\ud800" <= ch <= "\udfff" for ch in h)]
    assert surrogates
    for i, text in enumerate(surrogates):
        assert _render(tmp_path / str(i), "elu_backward", _fill([text])) is None


@settings(max_examples=3, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(st.lists(hostile_text(), min_size=5, max_size=12))
def test_arbitrary_unicode_stays_comment_or_string(tmp_path_factory, clean, strings):
    tmp_path = tmp_path_factory.mktemp("unicode")
    snake = "max_pool2d_with_mask_backward"
    _check_variant(tmp_path, snake, clean[snake], mutate=_fill(strings))  # or a located rejection
    catalog = tmp_path_factory.mktemp("unicode-catalog")
    if _render(catalog / "probe", snake, mutate_catalog=_fill_catalog(strings)) is not None:
        baseline = _catalog_baseline(catalog, snake, strings)
        assert _check_variant(catalog, snake, baseline, mutate_catalog=_fill_catalog(strings))


def _rename(data, names: dict[str, str]):
    """Rename parameters (keys, and whole words of every string but ids and prose)."""
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, names)) + r")\b")
    if isinstance(data, dict):
        return {names.get(k, k): v if k in ("id", "zh", "en", "shadowed_by") else _rename(v, names)
                for k, v in data.items()}  # fmt: skip
    if isinstance(data, list):
        return [_rename(v, names) for v in data]
    if isinstance(data, str):
        return pattern.sub(lambda m: names[m.group(1)], data)
    return data


def _renamed_tree(tmp_path: Path, names: dict[str, str]) -> tuple[Path, dict[str, str]]:
    def mutate(data):
        renamed = _rename(data, names)
        data.clear()
        data.update(renamed)

    project = load_project(spec_tree(tmp_path, "elu_backward", mutate))
    files = render_all(project)
    gen = tmp_path / "gen"
    for rel, text in files.items():
        (gen / rel).parent.mkdir(parents=True, exist_ok=True)
        (gen / rel).write_text(text, encoding="utf-8")
    return gen, files


def test_parameter_names_that_collide_with_cpp_are_renamed(tmp_path):
    names = {"gradOutput": "errno", "alpha": "NULL", "selfOrResult": "main", "gradInput": "stdout", "scale": "std"}
    gen, files = _renamed_tree(tmp_path, names)
    header = files["aclnnop/aclnn_elu_backward.h"]
    assert "const aclTensor* arg_errno" in header and "aclTensor* arg_stdout" in header
    assert "const aclScalar* arg_NULL" in header and "const aclScalar* arg_std" in header
    _compile_all(gen, files)
    unit = files["hostrt/elu_backward.cpp"]
    assert 'opgen::Seen("NULL", arg_NULL)' in unit  # messages keep the doc names


def test_a_renamed_parameter_builds_runs_and_checks(tmp_path):
    """Inputs are the reference kernel's keywords (snake_case of the doc name), so rename an output."""
    gen, files = _renamed_tree(tmp_path, {"gradInput": "stdout"})
    assert "aclTensor* arg_stdout" in files["aclnnop/aclnn_elu_backward.h"]
    results = build_and_run(gen, [gen / "samples/en/elu_backward.cpp"])
    assert results[0].ok, results[0].compiled.output + results[0].stdout + results[0].stderr
    assert "stdout[0] = 2 (expected 2)" in results[0].stdout


@pytest.mark.parametrize("c_host", ["float; int injected", "std::string", "", "int"])
def test_a_bad_c_host_is_a_located_error(tmp_path, c_host):
    """The catalogue's c_host (the sample's host element type) is a closed set of C types."""

    def mutate(name, data):
        if name == "dtypes":
            data["dtypes"][0]["c_host"] = c_host

    specs = spec_tree(tmp_path, "elu_backward", mutate_catalog=mutate)
    with pytest.raises(SpecError) as error:
        load_project(specs)
    (diag,) = error.value.diagnostics
    assert diag.file.endswith("dtypes.yaml") and diag.line > 0 and diag.col > 0 and "c_host" in diag.path
