"""``generator.escape.python``: literals denote exactly the text; docstrings and comments stay inert."""

from __future__ import annotations

import ast
import io
import tokenize
import warnings

from hypothesis import given, settings
from hypothesis import strategies as st

from generator.escape.python import comment, docstring, pyrepr, pystr, python_local, snake_problem
from tests.hostile.strings import HOSTILE, hostile_text

TEXTS = st.one_of(hostile_text(), st.sampled_from(HOSTILE), st.text(alphabet='"\\\n\r\x00 ab\u2028', max_size=12))


def _compile(source: str) -> ast.Module:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # invalid escape sequences are warnings
        compile(source, "<generated>", "exec", dont_inherit=True)
    return ast.parse(source)


@settings(max_examples=400, deadline=None)
@given(TEXTS)
def test_string_literal_denotes_exactly_the_text(text):
    literal = pystr(text)
    assert literal.startswith('"') and literal.endswith('"')
    assert literal.isprintable() or all(c.isprintable() for c in literal)
    tree = _compile(f"x = {literal}\n")
    assert ast.literal_eval(tree.body[0].value) == text
    assert "\n" not in literal and "\r" not in literal


@settings(max_examples=400, deadline=None)
@given(TEXTS, st.sampled_from([None, 20, 96]), st.sampled_from(["", "    "]))
def test_docstring_cannot_end_the_literal_and_keeps_the_words(text, width, indent):
    body = docstring(text, width, indent)
    for before, after in (("", ""), ("x", "x"), ("aclnnOp: ", "\n\n``validate``")):  # template contexts
        tree = _compile(f'def f():\n    """{before}{body}{after}"""\n')
        assert len(tree.body) == 1 and len(tree.body[0].body) == 1
        value = ast.get_docstring(tree.body[0], clean=False)
        assert "".join(value.split()) == "".join((before + text + after).split())
    assert all(c.isprintable() or c == "\n" for c in body)
    if width is None:
        tree = _compile(f'"""{body}"""\n')
        expected = "\n".join(line.rstrip(" ") for line in text.splitlines()) if text.splitlines() else ""
        assert ast.literal_eval(tree.body[0].value) == expected.replace("\n", "\n" + indent)


@settings(max_examples=400, deadline=None)
@given(TEXTS, st.sampled_from([None, 30]))
def test_comment_stays_a_comment(text, width):
    body = comment(text, width, "    # ")
    source = f"def f():\n    # {body}\n    return 1\n"
    tree = _compile(source)
    assert len(tree.body[0].body) == 1  # nothing but the return
    kinds = {tok.type for tok in tokenize.generate_tokens(io.StringIO(source).readline)}
    assert tokenize.STRING not in kinds
    for line in body.split("\n    # "):
        assert line.strip().lower() not in ("fmt: off", "fmt: skip", "yapf: disable")


def test_normal_prose_is_untouched():
    text = "The dtypes of gradOutput and self differ (α ≥ 0; 数据类型不一致)."
    assert pystr(text) == f'"{text}"'
    assert docstring(text) == text
    assert comment(text) == text
    assert docstring('He said "hi".') == 'He said "hi".'


def test_pyrepr_refuses_non_finite_numbers():
    import pytest

    for bad in (float("nan"), float("inf"), -float("inf")):
        with pytest.raises(ValueError):
            pyrepr(bad)
    assert pyrepr(("a", 1, 1.5, None, True)) == '("a", 1, 1.5, None, True)'
    assert pyrepr(("a",)) == '("a",)'


def test_python_locals():
    assert python_local("gradOutput") == "grad_output"
    assert python_local("self") == "self"
    assert python_local("input") == "input"  # a builtin the generated code never calls keeps its name
    for name, local in (
        ("check", "check_"),
        ("rt", "rt_"),
        ("len", "len_"),
        ("lambda", "lambda_"),
        ("product", "product_"),
    ):
        assert python_local(name) == local
    assert snake_problem("class") and snake_problem("validate") and snake_problem("zip")
    assert snake_problem("abs") is None and snake_problem("elu_backward") is None
