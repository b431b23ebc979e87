"""The generated Python (validators, bindings) is linter-clean and formatted, as the project rules require."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def _ruff() -> list[str]:
    from generator.generate import _ruff as generator_ruff

    exe = generator_ruff()  # the ruff that formatted the files (the pinned one beside the interpreter)
    if not Path(exe).exists():
        pytest.skip("ruff is not installed")
    return [exe]


@pytest.mark.parametrize("command", [["check"], ["format", "--check"]], ids=["check", "format"])
def test_generated_python_passes_ruff(command):
    result = subprocess.run(
        _ruff() + command + ["--no-cache", str(REPO / "generated")],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
