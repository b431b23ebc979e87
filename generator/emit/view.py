"""What several views of one op compute alike, computed once per op.

The Python module, the host-runtime unit and the maintainers' pages (zh and en, Markdown and site)
all show each check's rule text; the user pages of both languages show the same formulas as
MathML. An :class:`OpView` made for one op hands each of them out once; emitters take it as an
optional argument (without one they compute as before).
"""

from __future__ import annotations


class OpView:
    def __init__(self, info):
        self.info = info
        self._rules: dict[int, str] = {}
        self._mathml: dict[str, str] = {}

    def rule_doc(self, index: int, check) -> str:
        """``emit.python.rule_doc`` of the op's check ``index``."""
        if index not in self._rules:
            from generator.emit.python import rule_doc

            self._rules[index] = rule_doc(self.info, index, check)
        return self._rules[index]

    def mathml(self, latex: str) -> str:
        """``emit.site.mathml`` of one formula line of the op."""
        if latex not in self._mathml:
            from generator.emit.site import mathml

            self._mathml[latex] = mathml(latex)
        return self._mathml[latex]
