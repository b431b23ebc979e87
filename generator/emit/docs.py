"""Docs emitter: per-op pages, index and support matrix."""

from __future__ import annotations


def files(project, env) -> dict[str, str]:
    return {}
