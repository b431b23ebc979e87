"""The C++ emitter's outputs: aclnnop headers as CANN ships them, and call samples that build and run.

Everything is rendered in memory from specs/ (``render_all(project, only="cpp")``) and written to a
temporary tree, never read from generated/ (tests/test_generate.py keeps that tree in sync).

* Headers: CANN's file name, guard and includes, ``ACLNN_API``, both phases of every spec that names the
  header (a shared header declares all of them), the APIs CANN declares there without a spec named in a
  comment.
* Samples: one per language (en, zh: comments only differ) and per product data layout; every sample
  compiles as C++11, C++14 and C++17 with -Wall -Wextra -Werror, links against the host runtime, runs,
  prints its outputs and exits 0 because they match the spec's expected values; a wrong expected value
  makes it exit 1; a failing call prints aclGetRecentErrMsg(); a sample for another product's data layout
  refuses to run.
* AddressSanitizer, UBSan and the host runtime's leak report stay silent on every sample, also when each
  fallible ACL call in turn is made to fail (OPGEN_FAIL_CALL=N; every injection point of every English
  sample: the Chinese ones differ in comments only, which a test proves).
* The float16/bfloat16 converters and the MaxPool2dWithMask mask builders are compiled, run and compared
  with NumPy / the reference kernel's codec.
"""

from __future__ import annotations

import json
import re
import subprocess
import unicodedata
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from generator import csamples
from generator.emit import cpp
from generator.generate import environment, render_all
from generator.kernels import max_pool2d_with_mask_backward as mp2d
from generator.loader import OpInfo, Project, load_project

ROOT = Path(__file__).resolve().parent.parent
PROJECT = load_project(ROOT / "specs")
OPS = [info.spec.name for info in PROJECT.ops]
CXX = csamples.find_compiler()
needs_cxx = pytest.mark.skipif(CXX is None, reason="no C++ compiler (set CXX or install g++/clang++)")


def _info(name: str) -> OpInfo:
    return PROJECT.op(name)


def _write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def _variant(info: OpInfo, **updates) -> OpInfo:
    spec = info.spec.model_copy(update=updates)
    return OpInfo(spec, info.path, info.exprs, info.located)


def _render(*infos: OpInfo) -> dict[str, str]:
    return cpp.files(Project(PROJECT.root, PROJECT.catalog, list(infos)), environment())


def _render_example(info: OpInfo, **example_updates) -> dict[str, str]:
    """Outputs of ``info`` with its example changed (model_copy: no re-validation needed)."""
    return _render(_variant(info, example=info.spec.example.model_copy(update=example_updates)))


def strip_comments(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


@pytest.fixture(scope="module")
def rendered() -> dict[str, str]:
    return render_all(PROJECT, only="cpp")


@pytest.fixture(scope="module")
def tree(rendered, tmp_path_factory) -> Path:
    """The rendered C++ tree plus the aclnn package (the embedded interpreter computes with it)."""
    return _write(tmp_path_factory.mktemp("generated"), render_all(PROJECT))


# ---------------------------------------------------------------------------------------------
# Rendering


def test_every_op_has_a_header_samples_and_a_host_runtime_unit(rendered):
    index = cpp.sample_index(rendered)
    for info in PROJECT.ops:
        spec = info.spec
        assert spec.header in rendered and f"hostrt/{spec.snake}.cpp" in rendered
        mine = [s for s in index if s["op"] == spec.name]
        assert {s["lang"] for s in mine} == {"en", "zh"}
        for entry in mine:
            assert entry["path"] in rendered and entry["run_product"] in entry["products"]
        covered = sorted(t for s in mine if s["lang"] == "en" for t in s["products"])
        assert covered == sorted(spec.products), "every product has exactly one sample"
    assert {rel for rel in rendered if rel.startswith("samples/") and rel.endswith(".cpp")} == {
        s["path"] for s in index
    }


def test_rendering_is_deterministic(rendered):
    assert render_all(PROJECT, only="cpp") == rendered


def _declarations(header: str) -> dict[str, list[tuple[str, str]]]:
    """API -> [(C type, name), ...] of every ``ACLNN_API aclnnStatus`` declaration."""
    code = " ".join(strip_comments(header).split())
    out = {}
    for m in re.finditer(r"ACLNN_API aclnnStatus (\w+)\((.*?)\);", code):
        params = []
        for arg in m.group(2).split(","):
            pm = re.match(r"(.*?)\s*\b(\w+)$", arg.strip())
            params.append((re.sub(r"\s*\*", "*", pm.group(1)), pm.group(2)))
        out[m.group(1)] = params
    return out


@pytest.mark.parametrize("name", OPS)
def test_header_is_as_cann_ships_it(rendered, name):
    spec = _info(name).spec
    header = rendered[spec.header]
    entry = next(e for e in PROJECT.catalog.headers.headers if e.file == spec.header)
    assert header.count(f"#ifndef {entry.guard}\n#define {entry.guard}\n") == 1
    assert header.rstrip().endswith(f"#endif  // {entry.guard}")
    assert '#include "aclnn/aclnn_base.h"\n#include "aclnn_util.h"' in header
    assert 'extern "C" {' in header
    decls = _declarations(header)
    names = cpp.cpp_names(spec)
    assert decls[f"{spec.name}GetWorkspaceSize"] == [
        *((p.ctype, names[p.name]) for p in spec.params),
        ("uint64_t*", "workspaceSize"),
        ("aclOpExecutor**", "executor"),
    ]
    assert decls[spec.name] == [
        ("void*", "workspace"),
        ("uint64_t", "workspaceSize"),
        ("aclOpExecutor*", "executor"),
        (spec.stream_ctype, "stream"),
    ]
    unspecified = [api for api in entry.apis if api not in OPS]
    for api in unspecified:
        assert api in header and f"{api}GetWorkspaceSize" not in decls


def test_a_shared_header_declares_every_spec_that_names_it():
    """aclnn_max_pool2d_with_indices_backward.h holds MaxPool2dWithMaskBackward and, given its spec,
    MaxPool2dWithIndicesBackward, in CANN's order; without that spec it is named in a comment."""
    mask = _info("MaxPool2dWithMaskBackward")
    indices = _variant(mask, name="aclnnMaxPool2dWithIndicesBackward", snake="max_pool2d_with_indices_backward")
    both = _render(indices, mask)
    header = both[mask.spec.header]
    decls = list(_declarations(header))
    assert decls == [
        "aclnnMaxPool2dWithMaskBackwardGetWorkspaceSize",
        "aclnnMaxPool2dWithMaskBackward",
        "aclnnMaxPool2dWithIndicesBackwardGetWorkspaceSize",
        "aclnnMaxPool2dWithIndicesBackward",
    ]
    assert "also declares" not in header
    assert "hostrt/max_pool2d_with_indices_backward.cpp" in both
    alone = _render(mask)[mask.spec.header]
    assert "also declares aclnnMaxPool2dWithIndicesBackward" in alone
    assert "aclnnMaxPool2dWithIndicesBackwardGetWorkspaceSize" not in strip_comments(alone)


def test_a_header_missing_from_the_catalogue_gets_the_default_guard():
    elu = _variant(_info("EluBackward"), header="aclnnop/aclnn_elu_backward_v2.h")
    header = _render(elu)["aclnnop/aclnn_elu_backward_v2.h"]
    assert "#ifndef OP_API_INC_LEVEL2_ACLNN_ELU_BACKWARD_V2_H_" in header


def test_system_includes_come_from_the_catalogue():
    elu = _variant(_info("EluBackward"), header="aclnnop/aclnn_softmax_backward.h")
    header = _render(elu)["aclnnop/aclnn_softmax_backward.h"]
    assert "#include <array>\n" in header and "OP_API_INC_LEVEL2_ACLNN_SOFTMAX_BACKWARD_H_" in header


def _code(text: str) -> list[str]:
    """The non-blank lines of a source without its comments."""
    return [line.rstrip() for line in strip_comments(text).splitlines() if line.strip()]


def _has_cjk(text: str) -> bool:
    return any(unicodedata.east_asian_width(ch) in ("W", "F") for ch in text)


def test_samples_per_language_differ_in_comments_only(rendered):
    for entry in cpp.sample_index(rendered):
        if entry["lang"] != "en":
            continue
        en = rendered[entry["path"]]
        zh = rendered[entry["path"].replace("samples/en/", "samples/zh/")]
        assert _code(en) == _code(zh), entry["path"]
        comments_zh = "".join(re.findall(r"//[^\n]*", zh))
        assert _has_cjk(comments_zh)
        spec = _info(entry["op"]).spec
        if all(t.en for t in (spec.summary, spec.example.text) if t is not None):
            assert not _has_cjk(en), f"{entry['path']}: Chinese text in the English sample"


def test_data_layouts_get_one_sample_per_product_group(rendered):
    entries = {s["path"]: s for s in cpp.sample_index(rendered) if s["lang"] == "en"}
    plain = entries["samples/en/max_pool2d_with_mask_backward.cpp"]
    other = entries["samples/en/max_pool2d_with_mask_backward_910_93.cpp"]
    assert plain["products"] == ["910"] and plain["run_product"] == "910"
    assert other["products"] == ["910_93", "910b"] and other["run_product"] == "910_93"
    assert "BuildBitMask(" in rendered[plain["path"]] and "BuildArgmaxMask(" not in rendered[plain["path"]]
    assert "BuildArgmaxMask(" in rendered[other["path"]] and "BuildBitMask(" not in rendered[other["path"]]
    for path in (plain["path"], other["path"]):
        assert "RunsOnTargetProduct()" in rendered[path]
    assert "RunsOnTargetProduct" not in rendered["samples/en/elu_backward.cpp"]


def test_out_of_range_example_value_is_a_located_error():
    from generator.diagnostics import SpecError
    from generator.model import ExampleTensor

    info = _info("EluBackward")
    tensor = ExampleTensor(shape=[2], dtype="UINT8", data=[-1, 2])
    with pytest.raises(SpecError) as error:
        _render_example(info, inputs=dict(info.spec.example.inputs, gradOutput=tensor))
    (diag,) = error.value.diagnostics
    assert diag.path == "example.inputs.gradOutput" and diag.line > 0 and diag.col > 0
    assert "does not fit the host type uint8_t" in diag.message and diag.file.endswith("elu_backward.yaml")


@needs_cxx
def test_tensor_list_and_string_parameters(tmp_path):
    """A const aclTensorList* (a list of example tensors; the list owns them) and a const char* (an escaped
    string literal) in the header, the host-runtime unit and a sample that compiles."""
    from tests.hostile.trees import spec_tree

    def mutate(data):
        data["params"].insert(
            5,
            {
                "name": "extras",
                "ctype": "const aclTensorList*",
                "role": "input",
                "nullable": True,
                "description": {"zh": "张量列表", "en": "Tensors."},
            },
        )
        data["params"].insert(
            6,
            {
                "name": "mode",
                "ctype": "const char*",
                "role": "attribute",
                "description": {"zh": "模式", "en": "A mode."},
            },
        )
        data["example"]["inputs"]["extras"] = [
            {"shape": [2], "dtype": "FLOAT", "data": [1, 2]},
            {"shape": [1, 2], "dtype": "INT32", "data": [3, 4]},
        ]
        data["example"]["inputs"]["mode"] = 'fast"\\n??/ */'  # fmt: skip

    project = load_project(spec_tree(tmp_path, "elu_backward", mutate))
    files = cpp.files(project, environment())
    header = files["aclnnop/aclnn_elu_backward.h"]
    assert "const aclTensorList* extras, const char* mode" in " ".join(header.split())
    sample = files["samples/en/elu_backward.cpp"]
    assert 'const char* mode = "fast\\"\\\\n\\?\\?/ */";' in sample
    assert "const aclTensor* extrasItems[] = {extrasItem0.tensor.get(), extrasItem1.tensor.get()};" in sample
    assert "Handle<aclTensorList> extras(aclCreateTensorList(extrasItems, 2), aclDestroyTensorList);" in sample
    assert "(void)extrasItem1.tensor.release();" in sample
    assert "std::vector<int32_t> extrasItem1HostData = {3, 4};" in sample
    root = _write(tmp_path / "gen", files)
    target = csamples.syntax_target(root)
    for rel in ("samples/en/elu_backward.cpp", "samples/zh/elu_backward.cpp"):
        result = csamples.compile_sample(root / rel, target, link=False)
        assert result.ok, result.output
    unit = subprocess.run(
        [*CXX.split(), "-std=c++17", "-Wall", "-Wextra", "-Werror", "-fsyntax-only", f"-I{csamples.INCLUDE_DIR}",
         f"-I{csamples.hostrt.INTERNAL_INCLUDE}", f"-I{root / 'include'}", f"-I{root}", str(root / "hostrt/elu_backward.cpp")],
        capture_output=True, text=True,
    )  # fmt: skip
    assert unit.returncode == 0, unit.stderr
    assert 'request.Add("extras", extras);' in files["hostrt/elu_backward.cpp"]


def test_null_input_and_unrequested_output():
    """A None input and an output whose infer.when is false are passed as nullptr; an output missing from
    expected is allocated from its infer expressions and printed (it has no expected values)."""
    info = _info("ConvolutionBackward")
    example = info.spec.example
    inputs = dict(example.inputs, biasSizes=None, outputMask=[True, True, False])
    text = _render_example(info, inputs=inputs, expected={"gradInput": example.expected["gradInput"]})[
        "samples/en/convolution_backward.cpp"
    ]
    assert "const aclIntArray* biasSizes = nullptr;" in text
    assert "aclTensor* gradBias = nullptr;" in text
    assert "bool outputMaskValues[] = {true, true, false};" in text
    assert "std::vector<int64_t> gradWeightShape = {2, 2, 1, 1};" in text
    assert "CopyToHost(gradBias" not in text
    assert 'Print("gradWeight", ToDouble(gradWeightHostData));' in text
    assert 'mismatches += Compare("gradInput"' in text


# ---------------------------------------------------------------------------------------------
# Compiling


@needs_cxx
def test_every_sample_compiles_as_cxx14_and_17(tree):
    """C++11 builds of every sample are linked and run below; the code of zh and en samples is the same
    (test_samples_per_language_differ_in_comments_only), so C++14/17 compile the English ones."""
    samples = sorted((tree / "samples" / "en").glob("*.cpp"))
    target = csamples.syntax_target(tree)
    for std in ("c++14", "c++17"):
        results = csamples.compile_samples(samples, target, std=std, link=False)
        failed = {r.path.name: r.output for r in results if not r.ok}
        assert not failed, (std, failed)


@needs_cxx
def test_the_compiler_rejects_a_warning(tree, tmp_path):
    text = (tree / "samples/en/elu_backward.cpp").read_text(encoding="utf-8")
    broken = tmp_path / "broken.cpp"
    broken.write_text(text.replace("    return 0;\n}", "    int unused = 0;\n    return 0;\n}"), encoding="utf-8")
    assert not csamples.compile_sample(broken, csamples.syntax_target(tree), link=False).ok


def _dtype_variants():
    """Every catalogue dtype a sample can hold on the host, through EluBackward's example."""
    for d in PROJECT.catalog.dtypes.dtypes:
        if d.c_host is not None and d.kind not in ("float8", "complex", "other"):
            yield d.name


@needs_cxx
def test_every_host_dtype_compiles(tmp_path):
    """Inputs, scalars and outputs of every host dtype (incl. BOOL and the 16-bit floats) render and compile."""
    from generator.model import ExampleScalar, ExampleTensor

    info = _info("EluBackward")
    paths, texts = [], {}
    for dtype in _dtype_variants():
        data = [0, 1, 0, 1] if dtype == "BOOL" else [0, 1, 2, 3]
        tensor = ExampleTensor(shape=[2, 2], dtype=dtype, data=data)
        inputs = dict(info.spec.example.inputs, gradOutput=tensor, selfOrResult=tensor)
        inputs["alpha"] = ExampleScalar(value=1, dtype=dtype)
        files = _render_example(info, inputs=inputs, expected={"gradInput": tensor})
        texts[dtype] = files["samples/en/elu_backward.cpp"]
        paths.append(tmp_path / f"{dtype.lower()}/samples/elu_backward.cpp")
        _write(paths[-1].parents[1], {**files, "samples/elu_backward.cpp": texts[dtype]})
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(
            pool.map(lambda p: csamples.compile_sample(p, csamples.syntax_target(p.parents[1]), link=False), paths)
        )
    failed = {p.parent.parent.name: r.output for p, r in zip(paths, results, strict=True) if not r.ok}
    assert not failed
    assert (
        "std::vector<uint16_t> gradOutputHostData = ToBits({0.0f, 1.0f, 2.0f, 3.0f}, FloatToHalf);" in texts["FLOAT16"]
    )
    assert "uint16_t alphaValue = FloatToBf16(1.0f);" in texts["BFLOAT16"]
    assert "std::vector<bool> gradInputHostData" in texts["BOOL"]
    assert "ToDouble(gradInputHostData, Bf16ToFloat)" in texts["BFLOAT16"]


# ---------------------------------------------------------------------------------------------
# Running (the host runtime)


@pytest.fixture(scope="module")
def runs(tree):
    return {r.path.relative_to(tree).as_posix(): r for r in csamples.build_and_run(tree)}


@needs_cxx
def test_every_sample_runs_and_matches_its_expected_values(runs, rendered):
    assert set(runs) == {s["path"] for s in cpp.sample_index(rendered)}
    for path, result in runs.items():
        assert result.ok, f"{path}: exit {result.returncode}\n{result.compiled.output}{result.stdout}{result.stderr}"
        assert "OK: every output matches its expected values" in result.stdout
        assert "<- mismatch" not in result.stdout and result.stderr == ""
        spec = _info(next(s["op"] for s in cpp.sample_index(rendered) if s["path"] == path)).spec
        for name in spec.example.expected:
            assert f"{name}[0] = " in result.stdout


@needs_cxx
def test_a_wrong_result_makes_the_sample_fail(tmp_path):
    info = _info("EluBackward")
    wrong = info.spec.example.expected["gradInput"].model_copy(update={"data": [2.0, 0.0, 0.5, 1.0]})
    files = _render_example(info, expected={"gradInput": wrong})
    root = _write(tmp_path, {**render_all(PROJECT), **files})
    result = csamples.build_and_run(root, [root / "samples/en/elu_backward.cpp"])[0]
    assert result.returncode == 1
    assert "gradInput[2] = 0 (expected 0.5)  <- mismatch" in result.stdout
    assert "FAILED: 1 value(s) differ from the expected result" in result.stdout


@needs_cxx
def test_a_failing_call_prints_the_recent_error_message(tree, runs):
    result = runs["samples/en/elu_backward.cpp"]
    target = csamples.target(tree)
    log = tree / "calls.log"
    code, _, _ = csamples.run_executable(result.compiled.executable, target, "910b", OPGEN_CALL_LOG=str(log))
    calls = log.read_text().split("\n")
    n = next(int(line.split()[0]) for line in calls if line.endswith(" aclnnEluBackwardGetWorkspaceSize"))
    code, out, err = csamples.run_executable(result.compiled.executable, target, "910b", OPGEN_FAIL_CALL=str(n))
    assert code == 1
    assert "aclnnEluBackwardGetWorkspaceSize(" in err and "failed with error 561101" in err
    assert "injected failure of aclnnEluBackwardGetWorkspaceSize" in err  # aclGetRecentErrMsg()


@needs_cxx
def test_a_sample_refuses_a_product_with_another_data_layout(tree, runs):
    target = csamples.target(tree)
    bitmask = runs["samples/en/max_pool2d_with_mask_backward.cpp"].compiled.executable
    code, out, err = csamples.run_executable(bitmask, target, "910b")
    assert code == 1 and "This sample is for Atlas Training Series Product (910); this device is ASCEND910B" in err
    argmax = runs["samples/en/max_pool2d_with_mask_backward_910_93.cpp"].compiled.executable
    for product in ("910b", "910_93"):
        code, out, err = csamples.run_executable(argmax, target, product)
        assert code == 0 and "OK:" in out, err


@needs_cxx
def test_samples_are_clean_under_sanitizers_with_every_call_failing(tree, rendered):
    """ASan + UBSan + the host runtime's leak report, on every English sample, with no failure and with
    each fallible call failing in turn: exit 0, or 1 with the failure reported; never a sanitizer report
    (86, 87) or a leak report (99)."""
    english = [tree / s["path"] for s in cpp.sample_index(rendered) if s["lang"] == "en"]
    products = csamples.sample_products(tree)
    target = csamples.target(tree, sanitize=True)
    built = csamples.compile_samples(english, target)
    jobs = []
    for result in built:
        assert result.ok, result.output
        product = products[result.path.relative_to(tree).as_posix()]
        log = tree / f"{result.path.stem}.calls"
        log.unlink(missing_ok=True)
        code, out, err = csamples.run_executable(result.executable, target, product, OPGEN_CALL_LOG=str(log))
        assert code == 0, f"{result.path.name}: exit {code}\n{out}\n{err}"
        count = len(log.read_text().splitlines())
        jobs += [(result, product, n) for n in range(1, count + 1)]

    def inject(job):
        result, product, n = job
        code, out, err = csamples.run_executable(result.executable, target, product, OPGEN_FAIL_CALL=str(n))
        return result.path.name, n, code, err

    with ThreadPoolExecutor(max_workers=2) as pool:
        outcomes = list(pool.map(inject, jobs))
    bad = [
        (name, n, code, err[-2000:]) for name, n, code, err in outcomes if code != 1 or "injected failure" not in err
    ]
    assert not bad, bad[:3]
    assert len(outcomes) > 10 * len(english)


# ---------------------------------------------------------------------------------------------
# Running the helpers


def extract_function(text: str, name: str) -> str:
    """The definition of a column-0 function ``name`` (with a template line before it, if any)."""
    m = re.search(rf"^(?:template <[^\n]*>\n)?[^\n]*\b{name}\([^)]*\)\n\{{\n.*?^\}}\n", text, re.M | re.S)
    assert m, f"{name} not found"
    return m.group(0)


def run_program(tmp_path: Path, source: str, stdin: str = "") -> str:
    src = tmp_path / "harness.cpp"
    src.write_text(source, encoding="utf-8")
    exe = tmp_path / "harness"
    build = subprocess.run(
        [*CXX.split(), "-std=c++11", "-O1", "-Wall", "-Wextra", "-Werror", str(src), "-o", str(exe)],
        capture_output=True,
        text=True,
    )
    assert build.returncode == 0, build.stderr
    run = subprocess.run([str(exe)], input=stdin, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    return run.stdout


def _float_samples() -> np.ndarray:
    rng = np.random.default_rng(7)
    special = [0.0, -0.0, 1.0, -2.5, 65504.0, 65519.99, 65520.0, 65536.0, 1e9, 2.0**-14, 2.0**-24, 2.0**-25,
               np.nextafter(np.float32(2.0**-25), np.float32(1)), 3 * 2.0**-26, 2.0**-26, 1e-45, 3.0e38, np.inf,
               -np.inf]  # fmt: skip
    bits = np.concatenate(
        [
            np.array(special, dtype=np.float32).view(np.uint32),
            rng.integers(0, 2**32, 20000, dtype=np.uint64).astype(np.uint32),
        ]
    )
    near = (rng.integers(100, 145, 20000).astype(np.uint32) << 23) | rng.integers(0, 2**23, 20000).astype(np.uint32)
    ties = (rng.integers(0x33000000 >> 13, 0x47800000 >> 13, 5000).astype(np.uint32) << 13) | 0x1000
    return np.concatenate([bits, near, ties, ties | 0x80000000])


@needs_cxx
def test_float16_and_bfloat16_helpers(tmp_path):
    """FloatToHalf/FloatToBf16 round to nearest even like NumPy/ml_dtypes; HalfToFloat/Bf16ToFloat are exact."""
    from generator.model import ExampleScalar, ExampleTensor

    info = _info("EluBackward")
    texts = {}
    for dtype in ("FLOAT16", "BFLOAT16"):
        tensor = ExampleTensor(shape=[2], dtype=dtype, data=[1.0, 2.0])
        inputs = dict(info.spec.example.inputs, gradOutput=tensor, selfOrResult=tensor)
        inputs["alpha"] = ExampleScalar(value=1.0, dtype=dtype)
        texts[dtype] = _render_example(info, inputs=inputs, expected={"gradInput": tensor})[
            "samples/en/elu_backward.cpp"
        ]
    parts = [
        extract_function(texts["FLOAT16"], n) for n in ("FloatBits", "ShiftRoundEven", "FloatToHalf", "HalfToFloat")
    ]
    parts += [extract_function(texts["BFLOAT16"], n) for n in ("FloatToBf16", "Bf16ToFloat")]
    harness = "#include <cmath>\n#include <cstdint>\n#include <cstdio>\n#include <cstring>\n\n" + "\n".join(parts)
    harness += """
int main()
{
    unsigned bits = 0;
    while (std::scanf("%u", &bits) == 1) {
        float value = 0.0f;
        std::memcpy(&value, &bits, sizeof(value));
        std::printf("%u %u\\n", FloatToHalf(value), FloatToBf16(value));
    }
    for (unsigned h = 0; h < 65536; ++h) {
        float a = HalfToFloat(static_cast<uint16_t>(h));
        float b = Bf16ToFloat(static_cast<uint16_t>(h));
        std::printf("%u %u\\n", FloatBits(a), FloatBits(b));
    }
    return 0;
}
"""
    samples = _float_samples()
    out = np.array(run_program(tmp_path, harness, "\n".join(str(int(b)) for b in samples)).split(), dtype=np.uint64)
    out = out.reshape(-1, 2).astype(np.uint32)
    values = samples.view(np.float32)
    to_half, to_bf16 = out[: len(samples), 0], out[: len(samples), 1]
    with np.errstate(over="ignore", invalid="ignore"):
        want_half = values.astype(np.float16).view(np.uint16)
        want_bf16 = values.astype(ml_dtypes.bfloat16).view(np.uint16)
    nan = np.isnan(values)
    assert np.array_equal(to_half[~nan], want_half[~nan])
    assert np.array_equal(to_bf16[~nan], want_bf16[~nan])
    assert np.all(np.isnan(to_half[nan].astype(np.uint16).view(np.float16)))
    assert np.all(np.isnan(to_bf16[nan].astype(np.uint16).view(ml_dtypes.bfloat16)))
    back = out[len(samples) :]
    patterns = np.arange(65536, dtype=np.uint16)
    half_exact = patterns.view(np.float16).astype(np.float32)
    bf16_exact = patterns.view(ml_dtypes.bfloat16).astype(np.float32)
    got_half, got_bf16 = back[:, 0].view(np.float32), back[:, 1].view(np.float32)
    assert np.array_equal(got_half, half_exact, equal_nan=True)
    assert np.array_equal(got_bf16, bf16_exact, equal_nan=True)


def _mask_cases():
    rng = np.random.default_rng(3)
    cases = []
    for _ in range(24):
        kh, kw = int(rng.integers(1, 4)), int(rng.integers(1, 4))
        kernel = [kh, kw] if rng.random() < 0.7 else [kh]
        if len(kernel) == 1:
            kw = kh
        stride = [] if rng.random() < 0.2 else [int(rng.integers(1, 3)), int(rng.integers(1, 3))]
        padding = [int(rng.integers(0, kh // 2 + 1)), int(rng.integers(0, kw // 2 + 1))]
        n, c = int(rng.integers(1, 3)), int(rng.integers(1, 35))
        h, w = int(rng.integers(kh, 9)), int(rng.integers(kw, 9))
        shape = (n, c, h, w) if rng.random() < 0.7 else (c, h, w)
        cases.append((shape, kernel, stride, padding, bool(rng.random() < 0.4)))
    cases.append(((1, 1, 4, 3), [2, 2], [2, 2], [0, 0], False))  # the spec example
    return cases


def _cpp_list(values) -> str:
    return "{" + ", ".join(str(int(v)) for v in values) + "}"


@needs_cxx
def test_mask_builders_match_the_kernel_codec(rendered, tmp_path):
    """BuildBitMask / BuildArgmaxMask encode the argmax as the reference kernel's encode_mask does."""
    v1 = rendered["samples/en/max_pool2d_with_mask_backward.cpp"]
    a2 = rendered["samples/en/max_pool2d_with_mask_backward_910_93.cpp"]
    assert "BuildArgmaxMask(indicesArgmax, indicesShape);" in a2
    parts = [extract_function(v1, n) for n in ("GetShapeSize", "AxisValue", "PoolOut", "BuildBitMask")]
    parts.append(extract_function(a2, "BuildArgmaxMask"))
    rng = np.random.default_rng(5)
    calls, expected = [], []
    for shape, kernel, stride, padding, ceil in _mask_cases():
        self_ = rng.standard_normal(shape).astype(np.float32)
        _, mask = mp2d.max_pool2d_with_mask(self_, kernel, stride, padding, [1], ceil, product="910")
        argmax = mp2d.decode_mask(mask, shape, kernel, stride, padding, ceil, layout=mp2d.LAYOUT_V1)
        mshape = mp2d.mask_shape(shape, kernel, stride, padding, [1], ceil)
        args = f"{_cpp_list(argmax.reshape(-1))}, {_cpp_list(mshape)}"
        calls.append(
            f"    Print(BuildBitMask({args}, {_cpp_list(shape)}, {_cpp_list(kernel)}, {_cpp_list(stride)}, "
            f"{_cpp_list(padding)}, {'true' if ceil else 'false'}));"
        )
        one_by_one = mp2d.mask_layout("910b", kernel) == mp2d.LAYOUT_V1
        calls.append("    Print({});" if one_by_one else f"    Print(BuildArgmaxMask({args}));")
        expected.append((shape, kernel, stride, padding, ceil, argmax, mshape))
    harness = "#include <cstddef>\n#include <cstdint>\n#include <cstdio>\n#include <vector>\n\n" + "\n".join(parts)
    harness += (
        """
void Print(const std::vector<int8_t>& mask)
{
    for (int8_t byte : mask) {
        std::printf("%d ", byte);
    }
    std::printf("\\n");
}

int main()
{
"""
        + "\n".join(calls)
        + "\n    return 0;\n}\n"
    )
    lines = run_program(tmp_path, harness).splitlines()
    assert len(lines) == 2 * len(expected)
    for k, (shape, kernel, stride, padding, ceil, argmax, mshape) in enumerate(expected):
        bit = np.array(lines[2 * k].split(), dtype=np.int8).reshape(mshape)
        if mp2d.mask_layout("910b", kernel) == mp2d.LAYOUT_A2:  # int32 layout: byte for byte the codec's
            flat = np.array(lines[2 * k + 1].split(), dtype=np.int8).reshape(mshape)
            a2_mask = mp2d.encode_mask(argmax, shape, kernel, stride, padding, ceil, layout=mp2d.LAYOUT_A2)
            assert np.array_equal(flat, a2_mask)
        assert np.array_equal(
            mp2d.decode_mask(bit, shape, kernel, stride, padding, ceil, layout=mp2d.LAYOUT_V1), argmax
        )
        codec = mp2d.encode_mask(argmax, shape, kernel, stride, padding, ceil, layout=mp2d.LAYOUT_V1)
        c = shape[-3]
        ho, wo = argmax.shape[-2:]
        words_per_row = (-(-ho * wo // 16) + 1) * 16
        blocks, cells = -(-c // 16), mshape[-2]
        n = int(np.prod(shape[:-3])) if len(shape) == 4 else 1
        used = n * blocks * cells * words_per_row
        ours = bit.reshape(-1).view("<u2")[:used].reshape(n, blocks, cells, words_per_row)
        theirs = codec.reshape(-1).view("<u2")[:used].reshape(n, blocks, cells, words_per_row).copy()
        lanes = np.array([(1 << min(16, c - 16 * b)) - 1 for b in range(blocks)], dtype=np.uint16)
        theirs &= lanes[None, :, None, None]
        theirs[..., ho * wo :] = 0
        assert np.array_equal(ours, theirs), (shape, kernel, stride, padding, ceil)
        assert not bit.reshape(-1).view("<u2")[used:].any()


def test_op_samples_for_doc_pages(rendered):
    """What the docs emitter embeds: per op and page language, the example's product first."""
    zh = cpp.op_samples(rendered, "aclnnMaxPool2dWithMaskBackward", "zh")
    assert [s["path"] for s in zh] == [
        "samples/zh/max_pool2d_with_mask_backward.cpp",
        "samples/zh/max_pool2d_with_mask_backward_910_93.cpp",
    ]
    assert zh[0]["products"] == ["910"] and zh[0]["text"] == rendered[zh[0]["path"]]
    assert [s["lang"] for s in cpp.op_samples(rendered, "aclnnEluBackward", "en")] == ["en"]


def test_index_json_is_sorted_and_stable(rendered):
    index = json.loads(rendered["samples/index.json"])["samples"]
    assert [s["path"] for s in index] == [s["path"] for s in cpp.sample_index(rendered)]
