"""markdown-target escaping helpers (see generator.escape)."""

from __future__ import annotations
