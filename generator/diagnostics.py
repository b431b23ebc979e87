"""Located diagnostics: every user-facing spec error is ``FILE:LINE:COL: field.path: message``."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, order=True)
class Diagnostic:
    """One problem in one spec file. ``line``/``col`` are 1-based (0 when unknown)."""

    file: str
    line: int
    col: int
    path: str
    message: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}:{self.col}"
        field = f" {self.path}:" if self.path else ""
        return f"{where}:{field} {self.message}"


class SpecError(Exception):
    """Raised when one or more spec files are invalid; carries every diagnostic found."""

    def __init__(self, diagnostics: list[Diagnostic]):
        self.diagnostics = sorted(set(diagnostics))
        super().__init__("\n".join(str(d) for d in self.diagnostics))


def did_you_mean(word: str, choices) -> str:
    """Return ' (did you mean X?)' for the closest choice, or ''."""
    match = difflib.get_close_matches(str(word), [str(c) for c in choices], n=1, cutoff=0.6)
    if not match:
        lowered = {str(c).lower(): str(c) for c in choices}
        if str(word).lower() in lowered:
            match = [lowered[str(word).lower()]]
    return f" (did you mean {match[0]}?)" if match else ""


def display_path(path: Path) -> str:
    """Path relative to the working directory when possible (shorter, clickable messages)."""
    try:
        # The folder is resolved, not the file: a link is shown as itself (and a link loop cannot fail here).
        return str((path.absolute().parent.resolve() / path.name).relative_to(Path.cwd().resolve()))
    except (ValueError, OSError, RuntimeError):
        return str(path)
