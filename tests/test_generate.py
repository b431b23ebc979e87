"""`opgen generate`: deterministic, atomic, write-if-changed, stale-file removal, and --check."""

from __future__ import annotations

import shutil
from pathlib import Path

from generator.cli import main
from generator.generate import render_all
from generator.loader import load_project

REPO = Path(__file__).resolve().parents[1]


def test_committed_generated_tree_is_up_to_date(capsys):
    assert main(["generate", "--check"]) == 0, capsys.readouterr().err


def test_render_is_deterministic():
    project = load_project(REPO / "specs")
    assert render_all(project) == render_all(load_project(REPO / "specs"))


def test_generate_check_and_rewrite_cycle(tmp_path, capsys):
    specs = tmp_path / "specs"
    shutil.copytree(REPO / "specs", specs)
    out = tmp_path / "out"
    assert main(["generate", "--specs", str(specs), "--out", str(out)]) == 0
    assert main(["generate", "--check", "--specs", str(specs), "--out", str(out)]) == 0
    # no-op rerun writes nothing
    stamps = {p: p.stat().st_mtime_ns for p in out.rglob("*") if p.is_file()}
    capsys.readouterr()
    assert main(["generate", "--specs", str(specs), "--out", str(out)]) == 0
    assert {p: p.stat().st_mtime_ns for p in out.rglob("*") if p.is_file()} == stamps
    # a hand edit is stale; an extra file is reported; a removed spec's files are removed
    target = out / "aclnn" / "ops" / "elu_backward.py"
    target.write_text(target.read_text() + "# edited\n")
    (out / "aclnn" / "ops" / "leftover.py").write_text("x = 1\n")
    capsys.readouterr()
    assert main(["generate", "--check", "--specs", str(specs), "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert "stale:" in err and "elu_backward.py" in err and "extra:" in err and "leftover.py" in err
    (specs / "elu_backward.yaml").unlink()
    assert main(["generate", "--specs", str(specs), "--out", str(out)]) == 0
    assert not (out / "aclnn" / "ops" / "elu_backward.py").exists()
    assert not (out / "aclnn" / "ops" / "leftover.py").exists()
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
