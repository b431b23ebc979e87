"""C++ escaping: how untrusted text (specs, docs, catalogues) reaches generated C and C++ files.

Every string from a spec or a catalogue that lands in a header, a sample or a host-runtime unit goes
through one of these functions (the C++ templates use them as the Jinja filters ``cpp_comment`` and
``cpp_string``; the C++ emitter calls them for wrapped comment blocks):

* :func:`comment` / :func:`comment_lines`: prose inside ``// ...`` or ``/* ... */`` comments. The text
  stays on its lines (line breaks of every kind become spaces), cannot open or close a block comment
  (``/*``, ``*/``), cannot splice the next line into the comment (a line never ends with a backslash,
  not even through the C++11 trigraph ``??/``), and holds no control, bidirectional-override or other
  invisible formatting character (GCC's ``-Wbidi-chars``; "Trojan Source").
* :func:`string_literal`: a narrow string literal ``"..."`` whose value is the UTF-8 encoding of the
  text. Quotes, backslashes, question marks (trigraphs) and every control or invisible character are
  escaped (octal escapes, which take at most three digits, so no following character is swallowed);
  printable non-ASCII characters (Chinese prose) stay readable.

Lone surrogates, which cannot be encoded, become U+FFFD in both contexts.
"""

from __future__ import annotations

import re
import unicodedata

REPLACEMENT = "\ufffd"

# Characters that end a line for a compiler or an editor.
_LINE_BREAKS = "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"
# A trigraph (C++11/14 with -std=c++NN replaces these in phase 1; ??/ is a backslash).
_TRIGRAPH = re.compile(r"\?\?(?=[=/'()!<>-])")
_TRAILING_BACKSLASH = re.compile(r"\\+\s*$")


def _hidden(ch: str) -> bool:
    """Control characters (Cc), format characters (Cf: bidi overrides, zero-width marks, BOM),
    surrogates (Cs), private-use and unassigned code points: nothing a reader can see."""
    return unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn")


def clean(text: str) -> str:
    """``text`` with lone surrogates replaced by U+FFFD (everything else unchanged)."""
    return text.encode("utf-8", "surrogatepass").decode("utf-8", "replace") if _has_surrogate(text) else text


def _has_surrogate(text: str) -> bool:
    return any("\ud800" <= ch <= "\udfff" for ch in text)


def comment(text: str) -> str:
    """``text`` as one line that is safe inside a ``//`` or ``/* */`` comment."""
    text = str(text)
    if text.isascii() and text.isprintable():  # no line break, tab or hidden character to replace
        line = text
    else:
        out = []
        for ch in clean(text):
            if ch in _LINE_BREAKS or ch == "\t":
                out.append(" ")
            elif _hidden(ch):
                out.append(REPLACEMENT)
            else:
                out.append(ch)
        line = "".join(out)
    line = line.replace("/*", "/ *").replace("*/", "* /")
    line = _TRIGRAPH.sub("? ?", line)
    return _end_safely(line)


def _end_safely(line: str) -> str:
    """No line splice: a line may not end with a backslash (trailing blanks do not help)."""
    line = line.rstrip()
    if _TRAILING_BACKSLASH.search(line):
        line += "."
    return line


def _width(text: str) -> int:
    """Display columns of ``text`` (wide and full-width characters count two)."""
    if text.isascii():
        return len(text)
    return sum(2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1 for ch in text)


def _tokens(text: str) -> list[str]:
    """Words (with their following space) and single wide characters: the places a line may break."""
    tokens, current = [], ""
    for ch in text:
        if unicodedata.east_asian_width(ch) in ("W", "F"):
            if current:
                tokens.append(current)
            tokens.append(ch)
            current = ""
        else:
            current += ch
            if ch == " ":
                tokens.append(current)
                current = ""
    if current:
        tokens.append(current)
    return tokens


def comment_lines(text: str, width: int, indent: str = "") -> list[str]:
    """``text`` (whitespace folded) wrapped at ``width`` columns into comment-safe lines; continuation
    lines start with ``indent``. Lines break at spaces and between wide (CJK) characters; long words are
    not broken."""
    folded = " ".join(comment(text).split())
    if not folded:
        return []
    if folded.isascii() and indent.isascii():
        lines = _ascii_lines(folded, width, indent)
    else:
        lines = _wide_lines(folded, width, indent)
    # A line may now end with a backslash that was followed by more text: that would splice.
    return [_end_safely(line) for line in lines]


def _ascii_lines(folded: str, width: int, indent: str) -> list[str]:
    """:func:`comment_lines`' wrapping of ASCII text (one column per character, breaks at spaces):
    the same lines as :func:`_wide_lines`, without a per-character loop."""
    lines, current = [], ""
    words = folded.split(" ")
    last = len(words) - 1
    for i, word in enumerate(words):
        if current.strip():
            stripped = current.rstrip()
            if len(stripped) + len(word) > width:
                lines.append(stripped)
                current = indent
        current += word if i == last else word + " "
    if current.strip():
        lines.append(current.rstrip())
    return lines


def _wide_lines(folded: str, width: int, indent: str) -> list[str]:
    """:func:`comment_lines`' wrapping of text with wide characters (two columns; a line may break
    between them)."""
    lines, current, columns = [], "", 0  # columns: _width(current), kept as tokens are added
    for token in _tokens(folded):
        if current.strip():
            stripped = current.rstrip()
            if columns - _width(current[len(stripped) :]) + _width(token.rstrip()) > width:
                lines.append(stripped)
                current, columns = indent, _width(indent)
        current += token
        columns += _width(token)
    if current.strip():
        lines.append(current.rstrip())
    return lines


_SIMPLE_ESCAPES = {"\\": "\\\\", '"': '\\"', "?": "\\?", "\n": "\\n", "\t": "\\t", "\r": "\\r"}


def string_literal(text: str) -> str:
    """``text`` as a C/C++ narrow string literal (with the quotes)."""
    text = str(text)
    if text.isascii() and text.isprintable():  # only backslash, quote and question mark are escaped
        return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("?", "\\?") + '"'
    out = ['"']
    for ch in clean(str(text)):
        if ch in _SIMPLE_ESCAPES:
            out.append(_SIMPLE_ESCAPES[ch])
        elif ch in _LINE_BREAKS or _hidden(ch) or not ch.isprintable():
            out.extend(f"\\{byte:03o}" for byte in ch.encode("utf-8"))
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


# ---------------------------------------------------------------------------------------------
# Identifiers

CPP_KEYWORDS = frozenset(
    """alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t char16_t char32_t class
    compl concept const consteval constexpr constinit const_cast continue co_await co_return co_yield decltype
    default delete do double dynamic_cast else enum explicit export extern false float for friend goto if inline
    int long mutable namespace new noexcept not not_eq nullptr operator or or_eq private protected public register
    reinterpret_cast requires return short signed sizeof static static_assert static_cast struct switch template
    this thread_local throw true try typedef typeid typename union unsigned using virtual void volatile wchar_t
    while xor xor_eq final override import module restrict _Bool _Complex _Imaginary""".split()
)
# Names the C and C++ headers that samples include may define as macros or use at global scope.
CPP_MACRO_NAMES = frozenset(
    """NULL EOF errno assert stdin stdout stderr offsetof va_arg va_start va_end setjmp linux unix i386 main
    signal raise exit abort free malloc calloc realloc memcpy memset printf puts std posix""".split()
)


def safe_identifier(name: str) -> bool:
    """True when ``name`` (already an ASCII identifier) can be a C++ local or parameter name as is:
    not a keyword, not reserved (``__x``, ``_X``), not a likely macro (all capitals) nor a name the
    C library may define as one."""
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        return False
    if name in CPP_KEYWORDS or name in CPP_MACRO_NAMES:
        return False
    if "__" in name or re.match(r"_[A-Z]", name) or name.startswith("_"):
        return False
    return not re.fullmatch(r"[A-Z][A-Z0-9_]*", name)


def identifiers(names: list[str], reserved: frozenset[str] | set[str], derived: tuple[str, ...] = ()) -> dict[str, str]:
    """Collision-proof C++ names for spec names (parameters), in order.

    A name is kept when it is a safe identifier (:func:`safe_identifier`), does not start with ``q_``
    (rule loop variables), and neither it nor any of its ``derived`` forms (``name + suffix``: the locals
    a sample builds from it) collides with ``reserved`` or with an earlier name and its forms. An unsafe
    name becomes ``arg_<name>``; a colliding one gets a number (``x2``, ``x3``, ...).
    """
    taken = set(reserved)
    out: dict[str, str] = {}
    for name in names:
        base = name
        if not safe_identifier(base) or base.startswith("q_"):
            stem = re.sub(r"[^A-Za-z0-9]+", "_", name).strip("_") or "param"
            base = "arg_" + stem
        candidate, n = base, 1
        while not safe_identifier(candidate) or any(candidate + s in taken for s in ("", *derived)):
            n += 1
            candidate = f"{base}{n}"
        out[name] = candidate
        taken.update(candidate + s for s in ("", *derived))
    return out
