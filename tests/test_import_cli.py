"""``opgen import-doc`` and the review markers it leaves: writing, refusing, exit codes, lint."""

from __future__ import annotations

import re
import shutil

import pytest

from generator.cli import main
from tests.importing import CURRENT, FIXTURES, REPO, need


def _run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _tree(tmp_path):
    specs = tmp_path / "specs"
    shutil.copytree(REPO / "specs" / "catalog", specs / "catalog")
    return specs


def test_writes_one_spec_per_api_with_a_coverage_line(tmp_path, capsys):
    out_dir = tmp_path / "out"
    doc = FIXTURES / "aclnnLeakyRelu&aclnnInplaceLeakyRelu.md"
    code, out, err = _run(capsys, "import-doc", str(doc), "--out", str(out_dir))
    assert code == 0, err
    assert sorted(p.name for p in out_dir.glob("*.yaml")) == ["inplace_leaky_relu.yaml", "leaky_relu.yaml"]
    lines = [ln for ln in out.splitlines() if "->" in ln]
    assert len(lines) == 2
    assert all(
        re.search(r"params \d+/\d+, products \d+ listed .*error rows \d+/\d+ mapped to rules", ln) for ln in lines
    )
    text = (out_dir / "leaky_relu.yaml").read_text(encoding="utf-8")
    assert text.startswith(
        "# yaml-language-server: $schema=../generated/schema/opspec.schema.json\nname: aclnnLeakyRelu\n"
    )
    keys = [ln.split(":")[0] for ln in text.splitlines() if re.match(r"^[a-z_]+:", ln)]
    assert keys == [
        "name",
        "snake",
        "header",
        "summary",
        "description",
        "formula",
        "sources",
        "products",
        "deterministic",
        "params",
        "checks",
        "example",
    ]
    assert "        - {products: [" in text  # dtype rules in flow style, as in specs/*.yaml


def test_rerun_into_an_out_folder_overwrites(tmp_path, capsys):
    doc = need(CURRENT / "aclnnSiluBackward.md")
    for _ in range(2):
        code, _, err = _run(capsys, "import-doc", str(doc), "--out", str(tmp_path / "out"))
        assert code == 0, err


def test_refuses_to_overwrite_a_spec_in_a_specs_tree(tmp_path, capsys):
    specs = _tree(tmp_path)
    doc = need(CURRENT / "aclnnSiluBackward.md")
    code, _, err = _run(capsys, "import-doc", str(doc), "--out", str(specs))
    assert code == 0, err
    before = (specs / "silu_backward.yaml").read_bytes()
    code, _, err = _run(capsys, "import-doc", str(doc), "--out", str(specs))
    assert code == 1
    assert "not overwritten" in err and "opgen sync" in err
    assert (specs / "silu_backward.yaml").read_bytes() == before


def test_default_output_is_specs_and_never_overwrites(capsys):
    """Without --out the repository's specs/ is the target: an existing spec is refused, untouched."""
    spec = REPO / "specs" / "elu_backward.yaml"
    before = spec.read_bytes()
    code, _, err = _run(capsys, "import-doc", str(need(CURRENT / "aclnnEluBackward.md")))
    assert code == 1 and "not overwritten" in err
    assert spec.read_bytes() == before


def test_nothing_usable_exits_1_with_a_located_message(tmp_path, capsys):
    doc = tmp_path / "aclnnNothing.md"
    doc.write_text("\ufeff# aclnnNothing\n\n本文档内容正按全新接口模板整改中。\n", encoding="utf-8")
    code, out, err = _run(capsys, "import-doc", str(doc), "--out", str(tmp_path / "out"))
    assert code == 1
    assert re.search(r"aclnnNothing\.md:1: error: ", err)
    assert not list((tmp_path / "out").glob("*.yaml")) if (tmp_path / "out").exists() else True


def test_en_option_pairs_with_docs(tmp_path, capsys):
    from tests.importing import RELEASES

    zh, en = need(RELEASES / "8.5.0" / "aclnnSiluBackward.md"), need(RELEASES / "8.5.0" / "aclnnSiluBackward_en.md")
    code, _, err = _run(capsys, "import-doc", str(zh), "--en", str(en), "--out", str(tmp_path))
    assert code == 0, err
    assert "\n  en: " in (tmp_path / "silu_backward.yaml").read_text(encoding="utf-8")
    code, _, err = _run(capsys, "import-doc", str(zh), str(zh), "--en", str(en), "--out", str(tmp_path))
    assert code == 2 and "--en given 1 time(s) for 2 doc(s)" in err


def test_lint_accepts_review_markers_and_strict_lists_them(tmp_path, capsys):
    specs = _tree(tmp_path)
    code, _, err = _run(capsys, "import-doc", str(need(CURRENT / "aclnnAvgPool2dBackward.md")), "--out", str(specs))
    assert code == 0, err
    path = specs / "avg_pool2d_backward.yaml"
    lines = path.read_text(encoding="utf-8").splitlines()
    code, out, err = _run(capsys, "lint", str(specs))
    assert code == 0 and "review marker(s) left" in out
    code, out, err = _run(capsys, "lint", "--strict", str(specs))
    assert code == 1
    reported = [ln for ln in err.splitlines() if ".review: " in ln]
    assert reported and len(reported) == sum(1 for ln in lines if ln.lstrip().startswith("review:"))
    for entry in reported:
        m = re.match(r"(.+):(\d+):(\d+): (\S+)\.review: (.+)$", entry)
        assert m, entry
        assert m.group(1).endswith("avg_pool2d_backward.yaml")
        line, col = int(m.group(2)), int(m.group(3))
        assert lines[line - 1][col - 1 :].startswith("review:"), entry  # points at the marker itself


def test_an_imported_spec_without_kernel_validates_and_refuses_to_run(tmp_path, capsys):
    """No `kernel:` is valid: the validator works; the numpy backend says no reference kernel exists."""
    import numpy as np

    from generator.docimport import import_doc
    from generator.docimport.validator import validator_module
    from generator.runtime import AclnnError
    from tests.importing import context

    [spec] = import_doc(need(CURRENT / "aclnnSiluBackward.md"), context()).specs
    assert "kernel" not in spec.data
    module = validator_module(spec.data, context().catalog)
    x = np.ones((2, 3), np.float32)
    module.validate(x, x, product="910b")
    with pytest.raises(AclnnError) as caught:
        module.validate(x, x.astype(np.int32), product="910b")
    assert caught.value.code == 161002
    with pytest.raises(AclnnError) as caught:
        module.silu_backward(x, x, product="910b")
    assert caught.value.code == 561003 and "no reference kernel" in caught.value.message
