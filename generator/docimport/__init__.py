"""``opgen import-doc``: turn an aclnn doc (current Markdown, English twin, old plain-text seed, or
one of our generated pages) into spec data, as a person would transcribe it.

Public API (also what ``opgen diff`` / ``opgen sync`` build on)::

    from generator.docimport import import_doc, read_doc, write_spec
    result = import_doc("aclnnEluBackward.md", catalog)    # DocImport
    result.specs          # [ImportedSpec(name, snake, data, coverage, messages)], one per API
    result.specs[0].data  # plain dicts/lists in the model's key order (OpSpec.model_validate-able)
    result.messages       # [Message(file, line, level, message)]: located remarks, DOC:LINE
    result.usable         # False when nothing usable was found
    result.facts          # DocFacts: what the doc says, before mapping (products, params, rows...)
    write_spec(result.specs[0], out_dir)                   # DIR/<snake>.yaml in the house style

Doc text is untrusted: it only ever becomes YAML data. Nothing here raises on a malformed doc;
problems become messages, and whatever could be read is still returned.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from generator.docimport.build import Coverage, ImportedSpec, build_spec
from generator.docimport.context import Context
from generator.docimport.facts import DocFacts, Message
from generator.docimport.markdown import read_markdown
from generator.docimport.seed import read_seed
from generator.docimport.source import decode, read
from generator.docimport.yamlout import dump_spec

__all__ = [
    "Context",
    "Coverage",
    "DocFacts",
    "DocImport",
    "ImportedSpec",
    "Message",
    "dump_spec",
    "english_twin",
    "import_doc",
    "read_doc",
    "write_spec",
]


@dataclass
class DocImport:
    path: str
    facts: DocFacts
    en_facts: DocFacts | None = None
    specs: list[ImportedSpec] = field(default_factory=list)
    messages: list[Message] = field(default_factory=list)

    @property
    def usable(self) -> bool:
        return bool(self.specs)


def _context(catalog) -> Context:
    return catalog if isinstance(catalog, Context) else Context(catalog)


def read_doc(path: str | Path, catalog, text: str | None = None, lang: str | None = None) -> DocFacts:
    """The facts of one doc file (or of ``text``, reported under ``path``)."""
    ctx = _context(catalog)
    name = str(path)
    remark = None
    if text is None:
        try:
            raw = Path(path).read_bytes()
        except OSError as exc:
            facts = DocFacts(name, lang or "zh", "empty")
            facts.warn(0, f"cannot read the doc: {exc.strerror}", "error")
            return facts
        text, remark = decode(raw)
    src = read(name, text)
    if lang is None:
        lang = "en" if name.endswith("_en.md") or _mostly_english(text) else "zh"
    is_markdown = any(h.level <= 2 for h in src.headings) or "<table" in text
    facts = read_markdown(src, ctx, lang) if is_markdown else read_seed(src, ctx)
    if remark:
        facts.warn(1, remark)
    if not facts.apis and not facts.products:
        facts.format = "empty"
    return facts


def _mostly_english(text: str) -> bool:
    han = len(re.findall(r"[\u4e00-\u9fff]", text))
    return han < len(text) / 200


def english_twin(path: str | Path) -> Path | None:
    """``X_en.md`` beside ``X.md``, if it exists."""
    p = Path(path)
    if p.name.endswith("_en.md"):
        return None
    twin = p.with_name(p.stem + "_en" + p.suffix)
    return twin if twin.is_file() else None


def import_doc(
    path: str | Path,
    catalog,
    *,
    en: str | Path | None = None,
    text: str | None = None,
    en_text: str | None = None,
    source_name: str | None = None,
) -> DocImport:
    """Import one doc (and its English twin: ``en``, or ``X_en.md`` beside it) into spec data."""
    ctx = _context(catalog)
    facts = read_doc(path, ctx, text)
    en_path = en if en is not None else (english_twin(path) if text is None else None)
    en_facts = None
    if en_path is not None or en_text is not None:
        en_facts = read_doc(en_path or f"{path}_en", ctx, en_text, lang="en")
    if facts.lang == "en" and en_facts is None:
        facts.warn(1, "the doc is in English and no Chinese doc was given: its text is used for zh too", "note")
    result = DocImport(str(path), facts, en_facts)
    result.messages += facts.messages
    if en_facts is not None:
        result.messages += en_facts.messages
    if facts.format == "empty" or not facts.apis:
        result.messages.append(
            Message(str(path), 1, "error", "nothing usable found (no prototype, no parameter table)")
        )
        return result
    for api in facts.apis:
        if not (api.prototype or api.rows):
            result.messages.append(Message(str(path), api.line, "error", f"{api.name}: no prototype and no parameters"))
            continue
        try:
            spec = build_spec(facts, api, ctx, en_facts, source_name)
        except Exception as exc:  # noqa: BLE001 - an importer bug must not lose the other APIs
            result.messages.append(Message(str(path), api.line, "error", f"{api.name}: import failed: {exc!r}"))
            continue
        result.specs.append(spec)
        result.messages += spec.messages
    if not result.specs:
        result.messages.append(Message(str(path), 1, "error", "nothing usable found"))
    return result


def write_spec(spec: ImportedSpec, out_dir: str | Path, *, overwrite: bool = True) -> Path:
    """Write ``out_dir/<snake>.yaml``; with ``overwrite=False`` an existing file raises FileExistsError."""
    out = Path(out_dir) / f"{spec.snake}.yaml"
    if out.exists() and not overwrite:
        raise FileExistsError(str(out))
    text = dump_spec(spec.data)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(out)
    return out
