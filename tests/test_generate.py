"""`opgen generate`: deterministic, byte-identical to the committed tree, write-if-changed,
incremental, stale-file removal, and --check."""

from __future__ import annotations

import shutil
from pathlib import Path

from generator.cli import main
from generator.generate import RECORD, render_all
from generator.loader import load_project

REPO = Path(__file__).resolve().parents[1]
GENERATED = REPO / "generated"


def tree(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` except generate's local state (relative path -> bytes)."""
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in folder.rglob("*")
        if p.is_file() and not p.name.startswith(".opgen-") or p.name == RECORD
    }


def test_committed_generated_tree_is_up_to_date(capsys):
    assert main(["generate", "--check"]) == 0, capsys.readouterr().err


def test_render_is_deterministic():
    project = load_project(REPO / "specs")
    assert render_all(project) == render_all(load_project(REPO / "specs"))


def test_generate_is_byte_identical_to_the_committed_tree_and_to_render_all(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["generate", "--out", str(out)]) == 0
    written = tree(out)
    committed = {
        rel: data for rel, data in tree(GENERATED).items() if "__pycache__" not in rel and ".egg-info" not in rel
    }
    assert written == committed
    rendered = render_all(load_project(REPO / "specs"))
    assert {rel: data.decode() for rel, data in written.items() if rel != RECORD} == rendered


def test_generate_check_and_rewrite_cycle(tmp_path, capsys):
    specs = tmp_path / "specs"
    shutil.copytree(REPO / "specs", specs)
    out = tmp_path / "out"
    assert main(["generate", "--specs", str(specs), "--out", str(out)]) == 0
    assert main(["generate", "--check", "--specs", str(specs), "--out", str(out)]) == 0
    # no-op rerun writes no output
    stamps = {p: p.stat().st_mtime_ns for p in out.rglob("*") if p.is_file() and not p.name.startswith(".opgen-")}
    capsys.readouterr()
    assert main(["generate", "--specs", str(specs), "--out", str(out)]) == 0
    assert "up to date" in capsys.readouterr().out
    assert {p: p.stat().st_mtime_ns for p in stamps} == stamps
    # a hand edit is stale; a file generate did not write is foreign
    target = out / "aclnn" / "ops" / "elu_backward.py"
    target.write_text(target.read_text() + "# edited\n")
    (out / "aclnn" / "ops" / "leftover.py").write_text("x = 1\n")
    capsys.readouterr()
    assert main(["generate", "--check", "--specs", str(specs), "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert "stale:" in err and "elu_backward.py" in err and "foreign:" in err and "leftover.py" in err
    # generate restores the edited file, removes a removed spec's files, leaves the foreign one alone
    (specs / "elu_backward.yaml").unlink()
    assert main(["generate", "--specs", str(specs), "--out", str(out)]) == 0
    assert not (out / "aclnn" / "ops" / "elu_backward.py").exists()
    assert not (out / "docs" / "zh" / "aclnnEluBackward.md").exists()
    assert (out / "aclnn" / "ops" / "leftover.py").read_text() == "x = 1\n"
    recorded = (out / RECORD).read_text().splitlines()
    assert not [line for line in recorded if "/elu_backward." in line or "aclnnEluBackward" in line]
    (out / "aclnn" / "ops" / "leftover.py").unlink()
    assert main(["generate", "--check", "--specs", str(specs), "--out", str(out)]) == 0


def test_bad_spec_writes_nothing(tmp_path, capsys):
    specs = tmp_path / "specs"
    shutil.copytree(REPO / "specs", specs)
    bad = specs / "elu_backward.yaml"
    bad.write_text(bad.read_text().replace("kind: not_null", "kind: not_nul", 1))
    out = tmp_path / "out"
    assert main(["generate", "--specs", str(specs), "--out", str(out)]) == 1
    assert "elu_backward.yaml" in capsys.readouterr().err
    assert not out.exists() or not any(out.rglob("*"))


def _executable(path: Path) -> Path:
    path.write_text("#!/bin/sh\nexit 0\n")
    path.chmod(0o755)
    return path


def test_ruff_is_the_one_installed_with_the_interpreter(tmp_path, monkeypatch):
    """The formatter (and so the generator key) does not depend on PATH when the interpreter has its own ruff
    (a version manager's shim first on PATH must not make every run render everything again)."""
    import sys

    from generator import generate

    interpreter = tmp_path / "env" / "bin"
    interpreter.mkdir(parents=True)
    on_path = tmp_path / "shims"
    on_path.mkdir()
    _executable(on_path / "ruff")
    monkeypatch.setenv("PATH", str(on_path))
    monkeypatch.setattr(sys, "executable", str(interpreter / "python"))
    assert generate._ruff() == str(on_path / "ruff")  # no ruff beside the interpreter: PATH's
    _executable(interpreter / "ruff")
    assert generate._ruff() == str(interpreter / "ruff")
    key_own, _ = generate._generator_key(None)
    monkeypatch.setenv("PATH", str(tmp_path))  # another PATH: same ruff, same key
    assert generate._ruff() == str(interpreter / "ruff")
    assert generate._generator_key(None)[0] == key_own
