"""Dtype, format and C-type words of a doc, resolved against the catalogue.

``Vocab`` is built once per catalogue: ``dtype("FLOAT32")`` -> ``"FLOAT"`` (names and aliases,
any case), ``format("nchw")`` -> ``"NCHW"``, ``dtype_list("FLOAT、FLOAT16、BFLOAT16")`` -> the
names plus the words it did not recognise.
"""

from __future__ import annotations

import re

from generator.docimport.text import strip_tags

_LIST_SEP = re.compile(r"\s*(?:、|,|，|;|；|/|\band\b|\bor\b|和|或|及|以及)\s*")


class Vocab:
    def __init__(self, catalog):
        self.catalog = catalog
        self._dtypes: dict[str, str] = {}
        for d in catalog.dtypes.dtypes:
            for spelling in (d.name, d.acl, d.acl.removeprefix("ACL_"), *d.aliases):
                self._dtypes.setdefault(spelling.upper(), d.name)
        self._formats: dict[str, str] = {}
        for f in catalog.formats.formats:
            for spelling in (f.name, f.acl, f.acl.removeprefix("ACL_FORMAT_"), f.acl.removeprefix("ACL_")):
                self._formats.setdefault(spelling.upper(), f.name)
        self.dtype_names = [d.name for d in catalog.dtypes.dtypes]
        self.format_names = [f.name for f in catalog.formats.formats]

    def dtype(self, word: str) -> str | None:
        return self._dtypes.get(word.strip().strip("`*").upper())

    def format(self, word: str) -> str | None:
        return self._formats.get(word.strip().strip("`*").upper())

    def dtype_kind(self, name: str) -> str:
        return self.catalog.dtype(name).kind

    def _items(self, text: str) -> list[str]:
        text = strip_tags(text).replace("`", "")
        text = re.sub(r"[。.]\s*$", "", text.strip())
        return [item.strip() for item in _LIST_SEP.split(text) if item and item.strip()]

    def dtype_list(self, text: str) -> tuple[list[str], list[str]]:
        """(dtype names, unrecognised items) of a list such as ``FLOAT32、FLOAT16、BFLOAT16``."""
        names, unknown = [], []
        for item in self._items(text):
            name = self.dtype(item)
            if name is None:
                unknown.append(item)
            elif name not in names:
                names.append(name)
        return names, unknown

    def format_list(self, text: str) -> tuple[list[str], list[str]]:
        names, unknown = [], []
        for item in self._items(text):
            name = self.format(item)
            if name is None:
                unknown.append(item)
            elif name not in names:
                names.append(name)
        return names, unknown

    def dtype_run(self, text: str) -> list[str]:
        """The dtype names at the start of ``text`` (stops at the first word that is not one)."""
        return _run(text, self.dtype)

    def format_run(self, text: str) -> list[str]:
        """The format names at the start of ``text``."""
        return _run(text, self.format)


_SEPARATOR = re.compile(r"(?:\s|、|,|，|/|和|或者|或|及|以及|与|`|\*|\band\b|\bor\b)+")
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_]*")


def _run(text: str, lookup) -> list[str]:
    names: list[str] = []
    pos = 0
    while pos < len(text):
        sep = _SEPARATOR.match(text, pos)
        if sep and sep.end() > pos:
            pos = sep.end()
            continue
        word = _WORD.match(text, pos)
        if not word:
            break
        name = lookup(word.group(0))
        if name is None:
            break
        if name not in names:
            names.append(name)
        pos = word.end()
    return names


# C types of the first-phase signature, as the model spells them.
_CTYPE_FIX = {
    "aclTensor*": "aclTensor*",
    "const aclTensor*": "const aclTensor*",
    "aclScalar*": "const aclScalar*",
    "const aclScalar*": "const aclScalar*",
    "aclIntArray*": "const aclIntArray*",
    "const aclIntArray*": "const aclIntArray*",
    "aclBoolArray*": "const aclBoolArray*",
    "const aclBoolArray*": "const aclBoolArray*",
    "aclFloatArray*": "const aclFloatArray*",
    "const aclFloatArray*": "const aclFloatArray*",
    "aclTensorList*": "const aclTensorList*",
    "const aclTensorList*": "const aclTensorList*",
    "bool": "bool",
    "const bool": "bool",
    "int": "int",
    "int8_t": "int8_t",
    "int32_t": "int32_t",
    "int64_t": "int64_t",
    "uint64_t": "uint64_t",
    "float": "float",
    "double": "double",
    "char*": "char*",
    "const char*": "const char*",
}


def normalize_ctype(raw: str) -> str:
    """``const aclTensor  *`` -> ``const aclTensor*`` (spacing only; no meaning changed)."""
    text = re.sub(r"\s+", " ", raw.replace("*", " * ")).strip()
    text = re.sub(r"\s*\*\s*", "*", text)
    text = text.replace("* *", "**")
    return text.strip()


def model_ctype(raw: str, role: str | None) -> tuple[str | None, str | None]:
    """(the model's C type, remark) for a doc C type; None when it has no counterpart.

    Outputs are ``aclTensor*``; an input tensor written without ``const`` becomes
    ``const aclTensor*`` (the table cells drop the const); ``const bool*`` (a seed typo) -> bool.
    """
    ctype = normalize_ctype(raw)
    base = ctype.replace("const ", "")
    if base in ("aclTensor", "aclTensor*"):
        if role == "output":
            return "aclTensor*", None if ctype == "aclTensor*" else f"C type '{ctype}' read as aclTensor*"
        return "const aclTensor*", None if ctype == "const aclTensor*" or ctype == "aclTensor*" else (
            f"C type '{ctype}' read as const aclTensor*"
        )
    if base in ("bool*",):
        return "bool", f"C type '{ctype}' read as bool"
    if ctype in _CTYPE_FIX:
        return _CTYPE_FIX[ctype], None
    if base in _CTYPE_FIX:
        return _CTYPE_FIX[base], None
    if base.rstrip("*") in ("aclScalar", "aclIntArray", "aclBoolArray", "aclFloatArray", "aclTensorList"):
        return _CTYPE_FIX[base.rstrip("*") + "*"], f"C type '{ctype}' read as {_CTYPE_FIX[base.rstrip('*') + '*']}"
    return None, f"C type '{ctype}' has no counterpart in the spec model"
