"""Product labels and npu tags of a doc, mapped to the catalogue's product tags.

Everything comes from ``specs/catalog/products.yaml`` (tag, zh/en names, aliases): a label
matches a product when, ignoring case, whitespace, ``<term>`` marks and trailing punctuation,
it equals one of the product's names or aliases, or one of the ``/``-separated parts of them
that no other product shares (``Atlas A3 推理系列产品``), or it contains a distinctive word of a
product (a word of its names that no other product uses: ``950``, ``A3``, ``800I``...).
"""

from __future__ import annotations

import re
from functools import cached_property

from generator.docimport.text import strip_tags


def norm(label: str) -> str:
    """Comparison key of a product label."""
    text = strip_tags(label).replace("[object Object]", "")
    text = re.sub(r"\s+", "", text).lower()
    text = text.rstrip("。.;；,，:：")
    text = text.replace("products", "product")
    return text


def _words(label: str) -> set[str]:
    text = strip_tags(label).lower().replace("products", "product")
    return {w for w in re.findall(r"[a-z0-9_]+", text) if w not in {"atlas", "ascend"}}


class ProductMatcher:
    def __init__(self, products):
        """``products``: the catalogue's Product models (tag, zh, en, aliases), in catalogue order."""
        self.products = list(products)
        self.tags = [p.tag for p in self.products]

    @cached_property
    def _exact(self) -> dict[str, str]:
        table: dict[str, str] = {}
        for p in self.products:
            for name in (p.tag, p.zh, p.en, *p.aliases):
                table.setdefault(norm(name), p.tag)
        return table

    @cached_property
    def _parts(self) -> dict[str, str]:
        """``/``-separated parts of names that belong to one product only."""
        owners: dict[str, set[str]] = {}
        for p in self.products:
            for name in (p.zh, p.en, *p.aliases):
                for part in name.split("/"):
                    key = norm(part)
                    if len(key) >= 2:
                        owners.setdefault(key, set()).add(p.tag)
        return {k: next(iter(v)) for k, v in owners.items() if len(v) == 1}

    @cached_property
    def _distinctive(self) -> list[tuple[str, str]]:
        owners: dict[str, set[str]] = {}
        for p in self.products:
            for name in (p.zh, p.en, *p.aliases):
                for w in _words(name):
                    owners.setdefault(w, set()).add(p.tag)
        return sorted(((w, next(iter(t))) for w, t in owners.items() if len(t) == 1), key=lambda item: -len(item[0]))

    def tag(self, label: str) -> str | None:
        """The product tag a label or npu tag names, or None."""
        key = norm(label)
        if not key:
            return None
        if key in self._exact:
            return self._exact[key]
        parts = [norm(p) for p in re.split(r"/", strip_tags(label))]
        found = {self._parts[p] for p in parts if p in self._parts}
        if len(found) == 1:
            return found.pop()
        words = _words(label)
        hits = {tag for w, tag in self._distinctive if w in words}
        if len(hits) == 1:
            return hits.pop()
        return None

    def split_labels(self, text: str) -> list[str]:
        """The product labels of a text such as ``<term>A</term>、<term>B</term>`` or ``A、B``."""
        terms = re.findall(r"<term>(.*?)</term>", text, re.S)
        if terms:
            return [t.strip() for t in terms]
        cleaned = strip_tags(text.replace("[object Object]", " "))
        return [p.strip() for p in re.split(r"、|，|,|\band\b", cleaned) if p.strip()]

    def tags_in(self, text: str) -> tuple[list[str], list[str]]:
        """(product tags, labels that matched no product) of a product list text."""
        tags, unknown = [], []
        for label in self.split_labels(text):
            tag = self.tag(label)
            if tag is None:
                unknown.append(label)
            elif tag not in tags:
                tags.append(tag)
        return tags, unknown

    def npu_tags(self, attr: str) -> tuple[list[str], list[str]]:
        """Tags of an ``npu="A3,910b"`` attribute (each item a tag or an alias)."""
        tags, unknown = [], []
        for item in re.split(r"[,，\s]+", attr.strip()):
            if not item:
                continue
            tag = self._exact.get(norm(item))
            if tag is None:
                unknown.append(item)
            elif tag not in tags:
                tags.append(tag)
        return tags, unknown

    def order(self, tags) -> list[str]:
        """Tags in catalogue order, without duplicates."""
        wanted = set(tags)
        return [t for t in self.tags if t in wanted]
