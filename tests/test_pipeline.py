"""The generate pipeline under hostile and careless use (issue 9 items 3, 9, 10, 11 and the file-level
minor items): ownership of the output folder, tampered state, concurrent runs, locking, staging,
worker processes, symbolic links and odd files in the specs folder."""

from __future__ import annotations

import fcntl
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from generator.cli import main
from generator.generate import RECORD, ROWS, STATE, render_all
from generator.loader import load_project

REPO = Path(__file__).resolve().parents[1]


def small_specs(root: Path, *snakes: str) -> Path:
    """A specs folder with the catalogue and the given ops (default: EluBackward, the smallest)."""
    specs = root / "specs"
    shutil.copytree(REPO / "specs" / "catalog", specs / "catalog")
    for snake in snakes or ("elu_backward",):
        shutil.copy(REPO / "specs" / f"{snake}.yaml", specs / f"{snake}.yaml")
    return specs


def generate(specs: Path, out: Path, *extra: str) -> int:
    return main(["generate", "--specs", str(specs), "--out", str(out), *extra])


def snapshot(folder: Path) -> dict[str, tuple]:
    """Every entry under ``folder`` (links not followed) with its content and modification time."""
    found = {}
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder).as_posix()
        if path.is_symlink():
            found[rel] = ("link", os.readlink(path))
        elif path.is_file():
            found[rel] = (path.read_bytes(), path.stat().st_mtime_ns)
        else:
            found[rel] = ("dir",)
    return found


def outputs(out: Path) -> dict[str, str]:
    return {
        p.relative_to(out).as_posix(): p.read_text(encoding="utf-8")
        for p in out.rglob("*")
        if p.is_file() and not p.name.startswith(".opgen-")
    }


# ---------------------------------------------------------------------------------------------
# Ownership: generate deletes only what its record says it wrote


def fake_clone(root: Path) -> Path:
    clone = root / "clone"
    (clone / ".git" / "objects").mkdir(parents=True)
    (clone / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    shutil.copytree(REPO / "specs", clone / "specs")
    (clone / "README.md").write_text("# my project\n")
    (clone / "docs").mkdir()
    (clone / "docs" / "README.md").write_text("hand-written docs\n")
    return clone


def test_out_pointing_at_a_clone_is_refused_and_nothing_is_touched(tmp_path, capsys):
    clone = fake_clone(tmp_path)
    before = snapshot(clone)
    assert generate(clone / "specs", clone) == 1
    err = capsys.readouterr().err
    assert "not written by opgen generate" in err and ".git" in err and "Nothing was written" in err
    assert "Traceback" not in err
    assert snapshot(clone) == before


def test_a_folder_of_foreign_files_is_refused_after_rendering(tmp_path, capsys):
    specs = small_specs(tmp_path)
    out = tmp_path / "out"
    (out / "notes").mkdir(parents=True)
    (out / "notes" / "todo.txt").write_text("keep me\n")
    (out / "docs").mkdir()
    (out / "docs" / "README.md").write_text("mine\n")
    before = snapshot(out)
    assert generate(specs, out) == 1
    err = capsys.readouterr().err
    assert "not written by opgen generate" in err and "notes/todo.txt" in err
    assert snapshot(out) == before


def test_a_checkout_of_the_output_without_record_is_recognised(tmp_path, capsys):
    specs = small_specs(tmp_path)
    out = tmp_path / "out"
    assert generate(specs, out) == 0
    (out / RECORD).unlink()
    (out / STATE).unlink()
    (out / ROWS).unlink()
    before = snapshot(out)
    assert generate(specs, out) == 0  # identical files only: adopted, nothing rewritten
    assert "0 written" in capsys.readouterr().out
    assert (out / RECORD).exists()
    assert {rel: v for rel, v in snapshot(out).items() if not rel.startswith(".opgen-")} == {
        rel: v for rel, v in before.items()
    }
    # one file differs: it could be anybody's, so the folder is refused
    (out / RECORD).unlink()
    page = out / "docs" / "en" / "aclnnEluBackward.md"
    page.write_text("somebody's page\n")
    assert generate(specs, out) == 1
    assert "docs/en/aclnnEluBackward.md" in capsys.readouterr().err
    assert page.read_text() == "somebody's page\n"


def test_in_its_folder_generate_writes_its_paths_and_leaves_other_files(tmp_path, capsys):
    specs = small_specs(tmp_path)
    out = tmp_path / "out"
    assert generate(specs, out) == 0
    shutil.copy(REPO / "specs" / "max_pool3d_with_argmax_backward.yaml", specs)
    stale = out / "samples" / "en" / "max_pool3d_with_argmax_backward.cpp"  # e.g. left by a merge
    stale.write_text("// an older sample\n")
    mine = out / "samples" / "notes.txt"
    mine.write_text("keep\n")
    assert generate(specs, out) == 0
    assert stale.read_text() != "// an older sample\n"
    assert "max_pool3d_with_argmax_backward.cpp" in (out / RECORD).read_text()
    (specs / "max_pool3d_with_argmax_backward.yaml").unlink()
    assert generate(specs, out) == 0
    assert not stale.exists() and mine.read_text() == "keep\n"


def test_hostile_record_entries_are_never_deleted(tmp_path, capsys):
    specs = small_specs(tmp_path)
    out = tmp_path / "work" / "out"
    assert generate(specs, out) == 0
    victim = tmp_path / "work" / "precious.txt"
    victim.write_text("keep\n")
    (out / ".git").mkdir()
    (out / ".git" / "config").write_text("[core]\n")
    (out / "docs" / "mine.md").write_text("hand-written\n")
    record = (out / RECORD).read_text()
    record += "../precious.txt\n/etc/hostname\n.git/config\ndocs/../../precious.txt\n"
    (out / RECORD).write_text(record)
    assert generate(specs, out) == 0
    assert victim.read_text() == "keep\n"
    assert (out / ".git" / "config").exists()
    assert (out / "docs" / "mine.md").exists()
    assert "precious" not in (out / RECORD).read_text()


def test_record_with_merge_conflict_markers_is_read_as_both_sides(tmp_path, capsys):
    specs = small_specs(tmp_path, "elu_backward", "max_pool3d_with_argmax_backward")
    out = tmp_path / "out"
    assert generate(specs, out) == 0
    lines = (out / RECORD).read_text().splitlines()
    conflicted = "\n".join([lines[0], "<<<<<<< HEAD", *lines[1:10], "=======", *lines[10:], ">>>>>>> other", ""])
    (out / RECORD).write_text(conflicted)
    (specs / "max_pool3d_with_argmax_backward.yaml").unlink()
    assert generate(specs, out) == 0
    assert not (out / "samples" / "en" / "max_pool3d_with_argmax_backward.cpp").exists()
    assert "<<<<<<<" not in (out / RECORD).read_text()
    assert main(["generate", "--check", "--specs", str(specs), "--out", str(out)]) == 0


def test_legacy_manifest_is_adopted(tmp_path, capsys):
    specs = small_specs(tmp_path, "elu_backward", "max_pool3d_with_argmax_backward")
    out = tmp_path / "out"
    assert generate(specs, out) == 0
    files = sorted((out / RECORD).read_text().splitlines()[1:])
    for name in (RECORD, STATE, ROWS):
        (out / name).unlink()
    (out / ".opgen-manifest.json").write_text(json.dumps({"key": "x", "files": {f: [1, 2] for f in files}}))
    (specs / "max_pool3d_with_argmax_backward.yaml").unlink()
    assert generate(specs, out) == 0
    assert not (out / "samples" / "en" / "max_pool3d_with_argmax_backward.cpp").exists()
    assert not (out / ".opgen-manifest.json").exists()
    assert (out / RECORD).exists()


def test_no_writing_through_a_symlinked_folder(tmp_path, capsys):
    specs = small_specs(tmp_path)
    out = tmp_path / "out"
    assert generate(specs, out) == 0
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    shutil.rmtree(out / "samples")
    (out / "samples").symlink_to(elsewhere, target_is_directory=True)
    assert generate(specs, out) == 1
    assert "not a plain folder" in capsys.readouterr().err
    assert not any(elsewhere.iterdir())


def test_out_that_is_a_file_is_refused(tmp_path, capsys):
    specs = small_specs(tmp_path)
    target = tmp_path / "file"
    target.write_text("x")
    assert generate(specs, target) == 1
    assert "is not a folder" in capsys.readouterr().err
    assert target.read_text() == "x"


# ---------------------------------------------------------------------------------------------
# Freshness: content, not size and mtime; state verified, never trusted blindly


def test_same_size_edit_with_restored_mtime_is_detected(tmp_path, capsys):
    specs = small_specs(tmp_path)
    out = tmp_path / "out"
    assert generate(specs, out) == 0
    assert generate(specs, out) == 0  # records trusted stamps
    target = out / "aclnn" / "ops" / "elu_backward.py"
    original = target.read_bytes()
    st = target.stat()
    tampered = original.replace(b"ACLNN_ERR_PARAM_NULLPTR", b"ACLNN_ERR_PARAM_NULLPTX", 1)
    assert tampered != original and len(tampered) == len(original)
    target.write_bytes(tampered)
    os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert target.stat().st_size == st.st_size and target.stat().st_mtime_ns == st.st_mtime_ns
    capsys.readouterr()
    assert generate(specs, out) == 0
    assert "1 written" in capsys.readouterr().out
    assert target.read_bytes() == original


def test_hand_edited_state_is_ignored(tmp_path, capsys):
    specs = small_specs(tmp_path)
    out = tmp_path / "out"
    assert generate(specs, out) == 0
    target = out / "docs" / "en" / "aclnnEluBackward.md"
    original = target.read_bytes()
    target.write_bytes(b"hand edit\n")
    # Make the state claim the edited page is what generate wrote (without knowing the seal).
    seal, _, body = (out / STATE).read_bytes().partition(b"\n")
    state = json.loads(body)
    import hashlib

    files = state["ops"]["elu_backward.yaml"]["files"]
    st = target.stat()
    digest = hashlib.sha256(b"hand edit\n").hexdigest()
    files["docs/en/aclnnEluBackward.md"] = f"{st.st_size}:{st.st_mtime_ns}:{st.st_ctime_ns}:{st.st_ino}:{digest}"
    (out / STATE).write_bytes(seal + b"\n" + json.dumps(state).encode())
    capsys.readouterr()
    assert generate(specs, out) == 0
    assert target.read_bytes() == original


def test_damaged_state_and_rows_files_only_cost_time(tmp_path, capsys):
    specs = small_specs(tmp_path, "elu_backward", "max_pool3d_with_argmax_backward")
    out = tmp_path / "out"
    assert generate(specs, out) == 0
    expected = outputs(out)
    (out / ROWS).write_bytes(b"garbage")
    page = specs / "elu_backward.yaml"
    page.write_text(page.read_text().replace("Backward of the ELU activation", "Backward of ELU", 1))
    capsys.readouterr()
    assert generate(specs, out) == 0
    assert "(2 rendered)" in capsys.readouterr().out  # the rows were lost: both ops rendered again
    (out / STATE).write_bytes(b"\x00" * 10)
    assert generate(specs, out) == 0
    assert outputs(out) != expected
    assert outputs(out) == render_all(load_project(specs))


def test_one_edit_renders_one_op_and_matches_a_full_render(tmp_path, capsys):
    specs = small_specs(
        tmp_path, "elu_backward", "max_pool3d_with_argmax_backward", "multi_scale_deformable_attention_grad"
    )
    out = tmp_path / "out"
    assert generate(specs, out) == 0
    spec = specs / "max_pool3d_with_argmax_backward.yaml"
    text = spec.read_text()
    assert "summary:\n  zh: " in text
    spec.write_text(text.replace("summary:\n  zh: ", "summary:\n  zh: 修改：", 1))
    capsys.readouterr()
    assert generate(specs, out, "-v") == 0
    printed = capsys.readouterr().out
    assert "(1 rendered)" in printed and "docs/README.md" in printed
    assert "elu_backward" not in printed
    assert main(["generate", "--check", "--specs", str(specs), "--out", str(out)]) == 0


def _row_sections(out: Path) -> dict[str, bytes]:
    """Each aggregate's lines of the rows file (one line per op's part), as they stand in the file."""
    sections: dict[str, list[bytes]] = {}
    for line in (out / ROWS).read_bytes().splitlines():
        sections.setdefault(json.loads(line.split(b"\t")[0]), []).append(line)
    return {unit: b"\n".join(lines) for unit, lines in sections.items()}


def test_rows_file_is_read_and_rewritten_per_aggregate(tmp_path, capsys):
    specs = small_specs(tmp_path, "elu_backward", "max_pool3d_with_argmax_backward")
    out = tmp_path / "out"
    assert generate(specs, out) == 0
    before = _row_sections(out)
    assert {"python", "samples", "docs-index", "docs-matrix"} <= set(before)
    assert any(unit.startswith("header:") for unit in before)
    spec = specs / "max_pool3d_with_argmax_backward.yaml"
    spec.write_text(spec.read_text().replace("summary:\n  zh: ", "summary:\n  zh: 修改：", 1))
    assert generate(specs, out) == 0
    after = _row_sections(out)
    assert after["docs-index"] != before["docs-index"] and after["docs-matrix"] != before["docs-matrix"]
    assert after["python"] == before["python"] and after["samples"] == before["samples"]  # not rewritten
    # one line per op's part: the edited op's line is new, the other op's line is copied as it was
    old_lines, new_lines = set(before["docs-matrix"].split(b"\n")), set(after["docs-matrix"].split(b"\n"))
    assert len(old_lines) == len(new_lines) == 2 and len(old_lines & new_lines) == 1
    # A damaged section costs the ops whose parts it held a rendering, when that aggregate is needed.
    (out / ROWS).write_bytes((out / ROWS).read_bytes().replace(after["docs-matrix"], b'"docs-matrix"\tx\t{}'))
    spec.write_text(spec.read_text().replace("修改：", "再改：", 1))
    capsys.readouterr()
    assert generate(specs, out) == 0
    assert "(2 rendered)" in capsys.readouterr().out
    assert outputs(out) == render_all(load_project(specs))
    assert _row_sections(out)["docs-matrix"] != b'"docs-matrix"\tx\t{}'


def test_pages_follow_the_ops_they_mention_as_ops_come_and_go(tmp_path, capsys):
    specs = small_specs(tmp_path, "elu_backward", "max_pool3d_with_argmax_backward", "convolution_backward")
    elu = specs / "elu_backward.yaml"
    text = elu.read_text()
    assert "description:\n  zh: " in text
    elu.write_text(
        text.replace("description:\n  zh: ", "description:\n  zh: 另见aclnnMaxPool3dWithArgmaxBackward。", 1)
    )
    out = tmp_path / "out"
    page = out / "docs" / "zh" / "aclnnEluBackward.md"
    link = "[aclnnMaxPool3dWithArgmaxBackward](aclnnMaxPool3dWithArgmaxBackward.md)"
    assert generate(specs, out) == 0
    assert link in page.read_text()
    # the op goes: the page that mentions it is rendered again (the link goes), the others are kept
    moved = tmp_path / "max_pool3d_with_argmax_backward.yaml"
    (specs / moved.name).rename(moved)
    capsys.readouterr()
    assert generate(specs, out) == 0
    assert "(1 rendered)" in capsys.readouterr().out
    assert link not in page.read_text() and "aclnnMaxPool3dWithArgmaxBackward" in page.read_text()
    assert outputs(out) == render_all(load_project(specs))
    # it comes back: rendered with it, the mentioning page links it again
    moved.rename(specs / moved.name)
    assert generate(specs, out) == 0
    assert "(2 rendered)" in capsys.readouterr().out
    assert link in page.read_text()
    assert outputs(out) == render_all(load_project(specs))
    # a name written so that generate cannot guess it before loading: still settled before writing
    spec = specs / moved.name
    spec.write_text(
        spec.read_text().replace(
            "name: aclnnMaxPool3dWithArgmaxBackward\n", 'name: "aclnnMaxPool3dWith\\x41rgmaxBackward"\n'
        )
    )
    assert generate(specs, tmp_path / "cold") == 0
    assert outputs(tmp_path / "cold") == render_all(load_project(specs)) == outputs(out)
    assert link in (tmp_path / "cold" / "docs" / "zh" / "aclnnEluBackward.md").read_text()


def test_up_to_date_run_imports_neither_pydantic_nor_jinja(tmp_path):
    specs = small_specs(tmp_path)
    out = tmp_path / "out"
    assert generate(specs, out) == 0
    code = (
        "import sys\nfrom generator.cli import main\n"
        f"assert main(['generate', '--specs', {str(specs)!r}, '--out', {str(out)!r}]) == 0\n"
        "print(sorted(m for m in ('pydantic', 'jinja2', 'yaml', 'numpy', 'generator.model') if m in sys.modules))\n"
    )
    for _ in range(2):  # the first run may refresh the stamps of files written a moment ago
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO)
        assert proc.returncode == 0, proc.stderr
    assert "up to date" in proc.stdout
    assert proc.stdout.strip().endswith("[]"), proc.stdout


def test_an_edit_renders_without_importing_numpy(tmp_path):
    """The support matrix runs the validators on descriptors: an op whose example has no data is
    rendered (validators included) without NumPy, which only arrays need."""
    specs = small_specs(tmp_path, "elu_backward", "batch_norm_backward")
    out = tmp_path / "out"
    assert generate(specs, out) == 0
    spec = specs / "batch_norm_backward.yaml"
    spec.write_text(spec.read_text().replace("\nsummary:\n  zh: ", "\nsummary:\n  zh: 批量", 1))
    code = (
        "import sys\nfrom generator.cli import main\n"
        f"assert main(['generate', '--specs', {str(specs)!r}, '--out', {str(out)!r}]) == 0\n"
        "print(sorted(m for m in ('numpy', 'ml_dtypes') if m in sys.modules))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO)
    assert proc.returncode == 0, proc.stderr
    assert "(1 rendered)" in proc.stdout
    assert proc.stdout.strip().endswith("[]"), proc.stdout
    assert outputs(out) == render_all(load_project(specs))


def test_no_parse_cache_is_written(tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    monkeypatch.setenv("OPGEN_CACHE_DIR", str(cache))
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    load_project(small_specs(tmp_path))
    assert not cache.exists()


# ---------------------------------------------------------------------------------------------
# Concurrency, locking, atomicity, worker processes


def test_concurrent_generates_into_one_folder_all_succeed(tmp_path):
    specs = small_specs(tmp_path, "elu_backward", "max_pool3d_with_argmax_backward")
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "generator.cli", "generate", "--specs", str(specs), "--out", str(out)]
    procs = [subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(4)]
    results = [p.communicate(timeout=600) + (p.returncode,) for p in procs]
    for _, stderr, code in results:
        assert code == 0, stderr
        assert "Traceback" not in stderr
    assert sorted("up to date" in stdout for stdout, _, _ in results) == [False, True, True, True]
    assert not [p for p in out.iterdir() if p.name.startswith(".opgen-tmp-")]
    assert main(["generate", "--check", "--specs", str(specs), "--out", str(out)]) == 0


def test_a_held_lock_times_out_cleanly(tmp_path, monkeypatch, capsys):
    specs = small_specs(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    fd = os.open(out, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        monkeypatch.setenv("OPGEN_LOCK_TIMEOUT", "0.3")
        assert generate(specs, out) == 1
    finally:
        os.close(fd)
    err = capsys.readouterr().err
    assert "another opgen run" in err
    assert not any(out.iterdir())


def test_a_failing_run_changes_nothing(tmp_path, capsys):
    specs = small_specs(tmp_path, "elu_backward", "max_pool3d_with_argmax_backward")
    out = tmp_path / "out"
    assert generate(specs, out) == 0
    before = snapshot(out)
    good = specs / "elu_backward.yaml"
    good.write_text(good.read_text().replace("Backward of the ELU activation", "Changed", 1))
    bad = specs / "max_pool3d_with_argmax_backward.yaml"
    bad.write_text(bad.read_text().replace("kind: not_null", "kind: not_nul", 1))
    assert generate(specs, out) == 1
    assert "max_pool3d_with_argmax_backward.yaml" in capsys.readouterr().err
    assert snapshot(out) == before


def test_worker_processes_give_the_same_output(tmp_path, monkeypatch, capsys):
    from benchmarks.bench_generate import synthetic_specs

    specs = synthetic_specs(tmp_path, 30)
    monkeypatch.setenv("OPGEN_JOBS", "2")
    assert generate(specs, tmp_path / "two") == 0
    monkeypatch.setenv("OPGEN_JOBS", "1")
    assert generate(specs, tmp_path / "one") == 0
    assert outputs(tmp_path / "two") == outputs(tmp_path / "one")
    # an error found in a worker is reported with its location, and nothing is written
    bad = sorted(specs.glob("*_copy*.yaml"))[11]
    assert "kind: not_null" in bad.read_text()
    bad.write_text(bad.read_text().replace("kind: not_null", "kind: not_nul", 1))
    monkeypatch.setenv("OPGEN_JOBS", "2")
    capsys.readouterr()
    assert generate(specs, tmp_path / "three") == 1
    assert f"{bad.name}:" in capsys.readouterr().err
    assert not (tmp_path / "three").exists()


# ---------------------------------------------------------------------------------------------
# Odd files in the specs folder: one located error, non-zero exit, no traceback


def lint_and_generate(specs: Path, out: Path, capsys) -> tuple[str, str]:
    assert main(["lint", str(specs)]) == 1
    lint = capsys.readouterr().err
    assert generate(specs, out) == 1
    gen = capsys.readouterr().err
    assert "Traceback" not in lint + gen
    assert not out.exists()
    return lint, gen


def test_symlink_loop(tmp_path, capsys):
    specs = small_specs(tmp_path)
    (specs / "loop_a.yaml").symlink_to("loop_b.yaml")
    (specs / "loop_b.yaml").symlink_to("loop_a.yaml")
    lint, gen = lint_and_generate(specs, tmp_path / "out", capsys)
    for text in (lint, gen):
        assert "loop_a.yaml:0:0: symbolic link loop" in text


def test_dangling_symlink(tmp_path, capsys):
    specs = small_specs(tmp_path)
    (specs / "gone.yaml").symlink_to("nowhere.yaml")
    lint, gen = lint_and_generate(specs, tmp_path / "out", capsys)
    for text in (lint, gen):
        assert "gone.yaml:0:0: broken symbolic link" in text


def test_folder_named_like_a_spec(tmp_path, capsys):
    specs = small_specs(tmp_path)
    (specs / "x.yaml").mkdir()
    lint, gen = lint_and_generate(specs, tmp_path / "out", capsys)
    for text in (lint, gen):
        assert "x.yaml:0:0: is a folder, not a YAML file" in text


def test_symlinked_spec_from_outside_the_tree(tmp_path, capsys):
    specs = small_specs(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    shutil.copy(REPO / "specs" / "max_pool3d_with_argmax_backward.yaml", outside)
    (specs / "max_pool3d_with_argmax_backward.yaml").symlink_to(outside / "max_pool3d_with_argmax_backward.yaml")
    lint, gen = lint_and_generate(specs, tmp_path / "out", capsys)
    for text in (lint, gen):
        assert "max_pool3d_with_argmax_backward.yaml:0:0: symbolic link to a file outside the specs folder" in text


def test_symlinked_catalogue_from_outside_the_tree(tmp_path, capsys):
    specs = small_specs(tmp_path)
    outside = tmp_path / "dtypes.yaml"
    shutil.move(specs / "catalog" / "dtypes.yaml", outside)
    (specs / "catalog" / "dtypes.yaml").symlink_to(outside)
    lint, gen = lint_and_generate(specs, tmp_path / "out", capsys)
    assert "dtypes.yaml:0:0: symbolic link to a file outside the specs folder" in gen


def test_catalogue_without_any_op(tmp_path, capsys):
    specs = small_specs(tmp_path)
    (specs / "elu_backward.yaml").unlink()
    lint, gen = lint_and_generate(specs, tmp_path / "out", capsys)
    assert "no spec files" in lint
    assert "no operator specs" in gen


def test_empty_specs_folder(tmp_path, capsys):
    specs = tmp_path / "specs"
    specs.mkdir()
    lint, gen = lint_and_generate(specs, tmp_path / "out", capsys)
    assert "no spec files" in lint
    assert "catalogue file is missing" in gen


def test_byte_order_mark_is_a_precise_error(tmp_path, capsys):
    specs = small_specs(tmp_path)
    spec = specs / "elu_backward.yaml"
    spec.write_bytes(b"\xef\xbb\xbf" + spec.read_bytes())
    lint, gen = lint_and_generate(specs, tmp_path / "out", capsys)
    for text in (lint, gen):
        assert "elu_backward.yaml:1:1: the file starts with a byte-order mark" in text
        assert "schema" not in text


def test_invalid_utf8_is_located(tmp_path, capsys):
    specs = small_specs(tmp_path)
    spec = specs / "elu_backward.yaml"
    data = spec.read_bytes()
    index = data.index(b"\nsnake:") + 1
    spec.write_bytes(data[:index] + b"s\xffnake" + data[index + 5 :])
    line = data[:index].count(b"\n") + 1
    lint, _ = lint_and_generate(specs, tmp_path / "out", capsys)
    assert f"elu_backward.yaml:{line}:2: file is not valid UTF-8" in lint


def test_two_specs_with_one_header_share_it_and_edits_keep_it_whole(tmp_path, capsys):
    specs = small_specs(tmp_path, "elu_backward", "max_pool3d_with_argmax_backward", "convolution_backward")
    headers = specs / "catalog" / "headers.yaml"
    text = headers.read_text()
    text = "\n".join(line for line in text.splitlines() if "aclnn_max_pool3d_with_argmax_backward.h" not in line)
    headers.write_text(
        text.replace("apis: [aclnnEluBackward]", "apis: [aclnnEluBackward, aclnnMaxPool3dWithArgmaxBackward]")
    )
    spec = specs / "max_pool3d_with_argmax_backward.yaml"
    old = "header: aclnnop/aclnn_max_pool3d_with_argmax_backward.h"
    spec.write_text(spec.read_text().replace(old, "header: aclnnop/aclnn_elu_backward.h"))
    out = tmp_path / "out"
    assert main(["lint", str(specs)]) == 0
    assert generate(specs, out) == 0
    shared = (out / "aclnnop" / "aclnn_elu_backward.h").read_text()
    assert (
        "aclnnEluBackwardGetWorkspaceSize(" in shared and "aclnnMaxPool3dWithArgmaxBackwardGetWorkspaceSize(" in shared
    )
    assert not (out / "aclnnop" / "aclnn_max_pool3d_with_argmax_backward.h").exists()
    # an edit of one of them renders that op and the shared header again, not the other op
    spec.write_text(
        spec.read_text().replace("    Backward of the max pooling", "    Edited. Backward of the max pooling", 1)
    )
    capsys.readouterr()
    assert generate(specs, out, "-v") == 0
    printed = capsys.readouterr().out
    assert "(1 rendered)" in printed and "aclnn_elu_backward.h" in printed
    assert "Edited" in (out / "aclnnop" / "aclnn_elu_backward.h").read_text()
    assert outputs(out) == render_all(load_project(specs))
    # the op leaves the header: the header keeps the other, the op gets its own again
    headers.write_text(headers.read_text().replace(", aclnnMaxPool3dWithArgmaxBackward]", "]"))
    spec.write_text(spec.read_text().replace("header: aclnnop/aclnn_elu_backward.h", old))
    assert generate(specs, out) == 0
    assert "aclnnMaxPool3dWithArgmaxBackward" not in (out / "aclnnop" / "aclnn_elu_backward.h").read_text()
    assert (out / "aclnnop" / "aclnn_max_pool3d_with_argmax_backward.h").exists()
    assert outputs(out) == render_all(load_project(specs))


def test_bookkeeping_files_are_not_outputs(tmp_path):
    specs = small_specs(tmp_path)
    out = tmp_path / "out"
    assert generate(specs, out) == 0
    record = (out / RECORD).read_text()
    assert STATE not in record and ROWS not in record and RECORD not in record.splitlines()[1:]


# ---------------------------------------------------------------------------------------------
# The output check of an edit run, in a forked child while the render's modules load


def _edited_and_damaged(tmp_path: Path) -> tuple[Path, Path]:
    """Two ops rendered, then one spec edited (a render is coming) and the other op's page hand-edited."""
    specs = small_specs(tmp_path, "elu_backward", "gelu_backward")
    out = tmp_path / "out"
    assert generate(specs, out) == 0
    spec = specs / "elu_backward.yaml"
    spec.write_text(spec.read_text().replace("Backward of the ELU activation", "Backward of ELU", 1))
    (out / "docs" / "en" / "aclnnGeluBackward.md").write_bytes(b"hand edit\n")
    return specs, out


def _counted_forks(monkeypatch) -> list:
    """Check aside from the first op on, as in a fresh process; the forks made, listed."""
    from generator import generate as gen

    monkeypatch.setattr(gen, "VERIFY_ASIDE_FROM", 1)
    monkeypatch.setattr(gen, "_rendering_loaded", lambda: False)
    forks = []
    real_fork = os.fork
    monkeypatch.setattr(os, "fork", lambda: forks.append(1) or real_fork())
    return forks


def test_files_checked_aside_are_judged_as_in_process(tmp_path, monkeypatch, capsys):
    from generator import generate as gen

    specs = small_specs(tmp_path, "elu_backward", "max_pool3d_with_argmax_backward", "gelu_backward")
    # aside while the modules load (a fresh process), aside while the edited op renders (a daemon), here
    ways = {"loading": (1, False), "rendering": (1, True), "here": (10**9, True)}
    outs = {way: tmp_path / way for way in ways}
    for out in outs.values():
        assert generate(specs, out) == 0
        assert generate(specs, out) == 0  # records trusted stamps
    spec = specs / "elu_backward.yaml"  # an edit: a render is coming, the check goes aside
    spec.write_text(spec.read_text().replace("Backward of the ELU activation", "Backward of ELU", 1))
    for out in outs.values():
        damaged = out / "docs" / "en" / "aclnnGeluBackward.md"  # another op's page, edited by hand
        damaged.write_bytes(damaged.read_bytes() + b"hand edit\n")
        touched = out / "aclnn" / "ops" / "max_pool3d_with_argmax_backward.py"  # same bytes, new stamp
        touched.write_bytes(touched.read_bytes())
    forks = _counted_forks(monkeypatch)
    printed = {}
    for way, (threshold, loaded) in ways.items():
        monkeypatch.setattr(gen, "VERIFY_ASIDE_FROM", threshold)
        monkeypatch.setattr(gen, "_rendering_loaded", lambda loaded=loaded: loaded)
        capsys.readouterr()
        assert generate(specs, outs[way]) == 0
        printed[way] = capsys.readouterr().out
    assert len(forks) == 2  # "here" forks nothing
    # elu (edited) and gelu (damaged) rendered again, max_pool3d kept with its new stamp
    counts = {
        way: re.search(r"\((\d+) rendered\), (\d+) file\(s\): (\d+) written", text).groups()
        for way, text in printed.items()
    }
    assert len(set(counts.values())) == 1 and counts["here"][0] == "2", counts
    expected = render_all(load_project(specs))
    for out in outs.values():
        assert outputs(out) == expected
        # the new stamp was recorded: the next run hashes nothing and is up to date
        state = json.loads((out / STATE).read_bytes().partition(b"\n")[2])
        entry = state["ops"]["max_pool3d_with_argmax_backward.yaml"]["files"]
        st = (out / "aclnn" / "ops" / "max_pool3d_with_argmax_backward.py").stat()
        assert entry["aclnn/ops/max_pool3d_with_argmax_backward.py"].startswith(f"{st.st_size}:{st.st_mtime_ns}:")
        assert generate(specs, out) == 0
        assert "up to date" in capsys.readouterr().out


def test_a_failing_check_aside_falls_back_to_checking_here(tmp_path, monkeypatch, capsys):
    from generator import generate as gen

    specs, out = _edited_and_damaged(tmp_path)
    parent = os.getpid()
    real_verify = gen._Run._verify

    def verify(self, files, trust):
        if os.getpid() != parent:
            raise OSError("the child fails")
        return real_verify(self, files, trust)

    monkeypatch.setattr(gen._Run, "_verify", verify)
    forks = _counted_forks(monkeypatch)
    capsys.readouterr()
    assert generate(specs, out) == 0
    assert forks == [1]  # the child ran, failed, and the files were checked here
    assert "(2 rendered)" in capsys.readouterr().out
    assert outputs(out) == render_all(load_project(specs))


def test_no_check_aside_beside_other_threads(tmp_path, monkeypatch, capsys):
    import threading

    specs, out = _edited_and_damaged(tmp_path)
    forks = _counted_forks(monkeypatch)
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        capsys.readouterr()
        assert generate(specs, out) == 0
    finally:
        stop.set()
        other.join()
    assert forks == []  # a fork beside another thread could inherit a lock held forever
    assert "(2 rendered)" in capsys.readouterr().out
    assert outputs(out) == render_all(load_project(specs))
