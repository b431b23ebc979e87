"""C/C++ emitter: aclnnop headers and call samples (filled in by the C++ templates)."""

from __future__ import annotations


def files(project, env) -> dict[str, str]:
    return {}
