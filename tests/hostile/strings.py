"""Hostile texts for prose fields and catalogue strings."""

from __future__ import annotations

from hypothesis import strategies as st

# Each of these has broken a target at some point or is a classic injection for one.
HOSTILE: tuple[str, ...] = (
    'x"""+__import__("os").system("touch pwned")+"""',
    "'''; import os; os.system('touch pwned') #",
    '"""',
    "\\",
    "trailing backslash \\",
    "\\xi \\N \\u12 \\U0001",
    "nul \0 byte",
    "line one\nline two\r\nline three\rfour",
    "\u2028line separator\u2029paragraph separator",
    "*/ int injected = 1; /*",
    "/* open comment",
    "// line comment \\\nint injected2 = 1;",
    "#include <cstdlib>\n#define main evil",
    "??/ trigraph ??= ??'",
    "{{ 7 * 7 }} {% if true %}jinja{% endif %} {# c #}",
    "</script><script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    '"><svg onload=alert(1)>',
    "javascript:alert(1)",
    "$(touch pwned) `touch pwned`",
    "$$ \\end{cases} $$ </div>",
    "| a | b |\n|---|---|",
    "[link](javascript:alert(1)) ![img](x)",
    "<!-- comment --> -->",
    "```\ncode fence\n```",
    "\ud800 lone surrogate",
    "\udfff\ud800 reversed surrogates",
    "\x1b[31mred\x1b[0m \x07 bell \x7f del",
    "\ufeff BOM inside",
    "\u202e right-to-left override",
    "%s %d %n {0} {name}",
    "a" * 5000,
)


def hostile_text(min_size: int = 1) -> st.SearchStrategy[str]:
    """Arbitrary Unicode (surrogates included) mixed with the fixed hostile texts."""
    anything = st.text(alphabet=st.characters(codec=None, min_codepoint=0), min_size=min_size, max_size=80)
    pieces = st.lists(st.one_of(anything, st.sampled_from(HOSTILE)), min_size=1, max_size=4)
    return pieces.map("".join).filter(lambda s: len(s) >= min_size)
