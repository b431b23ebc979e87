"""Python-target helpers: every spec or catalogue string reaches generated Python through these.

Spec, doc and catalogue text is untrusted data. In a generated module it may only appear

* as a string literal (:func:`pystr`, :func:`pyrepr`, :func:`pytuple`; Jinja filters ``pyrepr``
  and ``pytuple``): a double-quoted literal (ruff's style) that denotes exactly the text, with
  quotes, backslashes, line breaks and every non-printable character (NUL, controls, U+2028,
  bidi overrides, lone surrogates, ...) written as escapes;
* inside a docstring (:func:`docstring`; filter ``pydoc``): backslashes are doubled, quote runs
  and edge quotes are escaped so the text can never close the ``\"\"\"`` literal, non-printable
  characters become escapes, line breaks become real newlines (optionally wrapped and indented);
* inside a ``#`` comment (:func:`comment`; filter ``pycomment``): every line break starts a new
  comment line, non-printable characters are shown as escapes, formatter pragmas are defused.

Normal prose (CJK included) is left as it is, so generated code stays readable.

Identifiers are never escaped: the Python name of a parameter comes from :func:`python_local`
(collision-free by construction, see :data:`GENERATED_NAMES`), and names that cannot be made safe
(an op whose snake name is a Python keyword or shadows a name the ``aclnn`` package exports) are
lint errors (see :func:`snake_problem`).
"""

from __future__ import annotations

import keyword
import re
import textwrap

# ---------------------------------------------------------------------------------------------
# String literals

_SIMPLE_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape_char(ch: str) -> str:
    """A Python escape sequence for one character (lower-case hex, as ``repr`` writes it)."""
    code = ord(ch)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def _printable(text: str) -> str:
    """``text`` with every non-printable character written as an escape (backslashes untouched)."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else _escape_char(ch) for ch in text)


def pystr(text: str) -> str:
    """A double-quoted Python string literal that denotes exactly ``text``."""
    if text.isprintable() and '"' not in text and "\\" not in text:
        return f'"{text}"'
    out = []
    for ch in text:
        simple = _SIMPLE_ESCAPES.get(ch)
        if simple is not None:
            out.append(simple)
        elif ch.isprintable():
            out.append(ch)
        else:
            out.append(_escape_char(ch))
    return '"' + "".join(out) + '"'


def pyrepr(value) -> str:
    """A Python literal in ruff's preferred style (double quotes) for str/number/bool/None/list/dict."""
    if isinstance(value, str):
        return pystr(value)
    if isinstance(value, (list, tuple)):
        return pytuple(value)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{pyrepr(k)}: {pyrepr(v)}" for k, v in value.items()) + "}"
    if value is None or isinstance(value, bool):
        return repr(value)
    if isinstance(value, int):
        return repr(value)
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise ValueError(f"{value!r} has no Python literal")  # lint rejects non-finite numbers
        return repr(value)
    raise TypeError(f"cannot render {type(value).__name__} as a Python literal")


def pytuple(values) -> str:
    """A tuple literal (``("a",)`` for one item)."""
    items = [pyrepr(v) for v in values]
    if len(items) == 1:
        return f"({items[0]},)"
    return "(" + ", ".join(items) + ")"


# ---------------------------------------------------------------------------------------------
# Docstrings and comments


def _lines(text: str, width: int | None) -> list[str]:
    """Split at every Unicode line break, then wrap each line like Jinja's ``wordwrap``; no line
    keeps trailing spaces (linters reject them; the text loses nothing but layout)."""
    lines = [line.rstrip(" ") for line in str(text).splitlines()] or [""]
    if not width:
        return lines
    out: list[str] = []
    for line in lines:
        if len(line) <= width and line.isprintable():  # fits, no whitespace but spaces (none trailing):
            out.append(line)  # wrap would return it as it is
            continue
        wrapped = textwrap.wrap(line, width=width, expand_tabs=False, replace_whitespace=False, break_long_words=True)
        out.extend(wrapped or [""])
    return out


def _doc_line(line: str, first: bool, last: bool) -> str:
    if '"' not in line and "\\" not in line and line.isprintable():
        return line  # the common case: nothing to escape
    return _escaped_doc_line(line, first, last)


def _escaped_doc_line(line: str, first: bool, last: bool) -> str:
    out = []
    end = len(line) - 1
    for i, ch in enumerate(line):
        if ch == "\\":
            out.append("\\\\")
        elif ch == '"':
            edge = (first and i == 0) or (last and i == end)
            run = (i > 0 and line[i - 1] == '"') or (i < end and line[i + 1] == '"')
            out.append('\\"' if edge or run else ch)
        elif ch.isprintable():
            out.append(ch)
        else:
            out.append(_escape_char(ch))
    return "".join(out)


def docstring(text: str, width: int | None = None, indent: str = "") -> str:
    """``text`` as the content of a ``\"\"\"`` docstring (a normal, non-raw literal).

    Wrapped to ``width`` (like Jinja's ``wordwrap``), continuation lines prefixed by ``indent``.
    Backslashes are doubled, a quote next to another quote or at either end is escaped and
    non-printable characters become escapes, so the text can neither end the literal nor form an
    escape sequence, whatever surrounds it.
    """
    lines = _lines(text, width)
    last = len(lines) - 1
    return ("\n" + indent).join(_doc_line(line, i == 0, i == last) for i, line in enumerate(lines))


# ruff/black treat a comment that is exactly one of these as a formatter directive.
_PRAGMA = re.compile(r"^\s*(?:fmt\s*:\s*(?:off|on|skip)|yapf\s*:\s*(?:disable|enable))\s*$", re.IGNORECASE)


def comment(text: str, width: int | None = None, prefix: str = "") -> str:
    """``text`` as the body of a ``#`` comment; each further line starts with ``prefix`` (say ``"    # "``).

    Line breaks of any kind (``\\r``, U+2028, ...) start a new comment line through ``prefix``;
    other non-printable characters are shown as escapes.
    """
    lines = []
    for line in _lines(text, width):
        line = _printable(line)
        if _PRAGMA.match(line):
            line = f"({line.strip()})"
        lines.append(line)
    return ("\n" + prefix).join(lines)


# ---------------------------------------------------------------------------------------------
# Identifiers

# Names a generated op module defines or uses inside its functions (templates/python/op.py.j2 and
# the check blocks of generator/emit/python.py). A parameter whose Python name would be one of
# these, a keyword or a builtin gets a trailing underscore.
GENERATED_NAMES = frozenset(
    {
        "annotations",
        "builtins",
        "NamedTuple",
        "TYPE_CHECKING",
        "np",
        "rt",
        "OP",
        "PRODUCTS",
        "MISSING",
        "CHECKS",
        "DTYPES",
        "FORMATS",
        "RANKS",
        "RANK_FORMATS",
        "PARAMS",
        "OUTPUTS",
        "validate",
        "_normalize",
        "_check",
        "product",
        "backend",
        "check",
        "name",
        "arg",
        "args",
        "result",
        "exc",
    }
)
# Builtins a generated op module calls by name (rule rendering and templates). A parameter may not
# take these names (it gets a trailing underscore); an op named after one (aclnnAbs) makes its
# module reach the builtin as ``builtins.abs``.
USED_BUILTINS = frozenset({"abs", "all", "any", "len", "list", "max", "min", "range", "sum", "tuple"})
# Builtins the package's __init__ calls by name; no op may be named after one.
INIT_BUILTINS = frozenset({"dict", "frozenset", "getattr", "isinstance", "list", "str", "tuple", "type", "zip"})

# Names the generated ``aclnn`` package defines at its top level (templates/python/init.py.j2);
# the per-op functions are imported there under the op's snake name, so a snake name must differ.
PACKAGE_NAMES = frozenset(
    {
        "annotations",
        "json",
        "cache",
        "resources",
        "CATALOG",
        "_signature",
        "AclnnError",
        "Scalar",
        "TensorDesc",
        "ops",
        "run",
        "spec",
        "validate",
        "_rt",
        "_OPS",
        "_BY_NAME",
        "_module",
        "_arguments",
        "_spec",
        "supports",
    }
)


def _snake_case(name: str) -> str:
    from generator.model import snake_case

    return snake_case(name)


def python_local(doc_name: str) -> str:
    """The Python name of a parameter: ``snake_case(doc_name)``, plus ``_`` when that is taken.

    Taken: keywords, :data:`USED_BUILTINS` and :data:`GENERATED_NAMES`, so a parameter never hides
    a name the generated code relies on. Two parameters may still map to one name (``gradOutput``
    and ``grad_output``); lint reports that (it cannot be fixed without renaming a documented
    keyword argument).
    """
    name = _snake_case(doc_name)
    if keyword.iskeyword(name) or name in USED_BUILTINS or name in GENERATED_NAMES:
        name += "_"
    return identifier(name)


def snake_problem(snake: str) -> str | None:
    """Why ``snake`` cannot name an op's module and function in the ``aclnn`` package (or None)."""
    if keyword.iskeyword(snake) or keyword.issoftkeyword(snake):
        return f"'{snake}' is a Python keyword"
    if snake in PACKAGE_NAMES or snake in GENERATED_NAMES or snake in INIT_BUILTINS:
        return f"'{snake}' is already a name of the generated aclnn package or its op modules"
    return None


_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def identifier(name: str) -> str:
    """``name`` if it is a plain ASCII Python identifier and not a keyword; ValueError otherwise."""
    if not _IDENTIFIER.match(name) or keyword.iskeyword(name):
        raise ValueError(f"{name!r} is not usable as a Python identifier")
    return name


# Jinja filters (registered by generator.generate.environment).
FILTERS = {
    "pyrepr": pyrepr,
    "pytuple": pytuple,
    "pydoc": docstring,
    "pycomment": comment,
    "pyident": identifier,
}
