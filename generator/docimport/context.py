"""What the importer knows besides the doc: the catalogue, and lookups built from it once."""

from __future__ import annotations

from functools import cached_property

from generator.docimport.products import ProductMatcher
from generator.docimport.vocab import Vocab


class Context:
    def __init__(self, catalog):
        self.catalog = catalog

    @cached_property
    def matcher(self) -> ProductMatcher:
        return ProductMatcher(self.catalog.products.products)

    @cached_property
    def vocab(self) -> Vocab:
        return Vocab(self.catalog)

    @cached_property
    def status_by_name(self) -> dict[str, int]:
        return dict(self.catalog.status_by_name)

    @cached_property
    def status_by_value(self) -> dict[int, str]:
        return dict(self.catalog.status_by_value)
