"""The host runtime's public ACL/aclnn headers (generator/include) and the sample build plumbing.

The headers carry CANN's names, enum values and signatures; every function they declare is defined by
the host runtime's libraries; each compiles alone as C and as C++11. ``csamples`` builds against the
real install when ASCEND_TOOLKIT_HOME names one, and ``opgen samples --run`` builds, runs and checks the
samples of a generated tree end to end.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from generator import cli, csamples
from generator.csamples import INCLUDE_DIR, find_compiler
from tests.hostile.trees import spec_tree
from tests.hostrt_support import toolkit

HEADERS = ("acl/acl.h", "acl/acl_base.h", "acl/acl_rt.h", "aclnn/acl_meta.h", "aclnn/aclnn_base.h")
needs_cxx = pytest.mark.skipif(find_compiler() is None, reason="no C++ compiler")

# Values from cann-facts.md sections 2, 3.1, 3.2 and 4.2; the ACL_ERROR_* codes and the two extra
# aclSysParamOpt members come from the real acl/acl_base_rt.h (CANN ACL 1.17.0, torch_npu 2.14.0 wheel).
EXPECTED_DTYPES = {
    "ACL_DT_UNDEFINED": -1,
    "ACL_FLOAT": 0,
    "ACL_FLOAT16": 1,
    "ACL_INT8": 2,
    "ACL_INT32": 3,
    "ACL_UINT8": 4,
    "ACL_INT16": 6,
    "ACL_UINT16": 7,
    "ACL_UINT32": 8,
    "ACL_INT64": 9,
    "ACL_UINT64": 10,
    "ACL_DOUBLE": 11,
    "ACL_BOOL": 12,
    "ACL_STRING": 13,
    "ACL_COMPLEX64": 16,
    "ACL_COMPLEX128": 17,
    "ACL_BF16": 27,
    "ACL_INT4": 29,
    "ACL_UINT1": 30,
    "ACL_COMPLEX32": 33,
    "ACL_HIFLOAT8": 34,
    "ACL_FLOAT8_E5M2": 35,
    "ACL_FLOAT8_E4M3FN": 36,
    "ACL_FLOAT8_E8M0": 37,
    "ACL_FLOAT6_E3M2": 38,
    "ACL_FLOAT6_E2M3": 39,
    "ACL_FLOAT4_E2M1": 40,
    "ACL_FLOAT4_E1M2": 41,
}
EXPECTED_FORMATS = {
    "ACL_FORMAT_UNDEFINED": -1,
    "ACL_FORMAT_NCHW": 0,
    "ACL_FORMAT_NHWC": 1,
    "ACL_FORMAT_ND": 2,
    "ACL_FORMAT_NC1HWC0": 3,
    "ACL_FORMAT_FRACTAL_Z": 4,
    "ACL_FORMAT_NC1HWC0_C04": 12,
    "ACL_FORMAT_HWCN": 16,
    "ACL_FORMAT_NDHWC": 27,
    "ACL_FORMAT_FRACTAL_NZ": 29,
    "ACL_FORMAT_NCDHW": 30,
    "ACL_FORMAT_NDC1HWC0": 32,
    "ACL_FRACTAL_Z_3D": 33,
    "ACL_FORMAT_NC": 35,
    "ACL_FORMAT_NCL": 47,
    "ACL_FORMAT_FRACTAL_NZ_C0_16": 50,
    "ACL_FORMAT_FRACTAL_NZ_C0_32": 51,
    "ACL_FORMAT_FRACTAL_NZ_C0_2": 52,
    "ACL_FORMAT_FRACTAL_NZ_C0_4": 53,
    "ACL_FORMAT_FRACTAL_NZ_C0_8": 54,
}
EXPECTED_RUNTIME = {
    "ACL_MEMCPY_HOST_TO_HOST": 0,
    "ACL_MEMCPY_HOST_TO_DEVICE": 1,
    "ACL_MEMCPY_DEVICE_TO_HOST": 2,
    "ACL_MEMCPY_DEVICE_TO_DEVICE": 3,
    "ACL_MEMCPY_DEFAULT": 4,
    "ACL_MEM_MALLOC_HUGE_FIRST": 0,
    "ACL_MEM_MALLOC_HUGE_ONLY": 1,
    "ACL_MEM_MALLOC_NORMAL_ONLY": 2,
    "ACL_OPT_DETERMINISTIC": 0,
    "ACL_OPT_ENABLE_DEBUG_KERNEL": 1,
    "ACL_OPT_STRONG_CONSISTENCY": 2,
}
EXPECTED_ACL_ERRORS = {
    "ACL_ERROR_NONE": 0,
    "ACL_SUCCESS": 0,
    "ACL_ERROR_INVALID_PARAM": 100000,
    "ACL_ERROR_UNINITIALIZE": 100001,
    "ACL_ERROR_REPEAT_INITIALIZE": 100002,
    "ACL_ERROR_BAD_ALLOC": 200000,
    "ACL_ERROR_API_NOT_SUPPORT": 200001,
    "ACL_ERROR_INVALID_DEVICE": 200002,
    "ACL_ERROR_INTERNAL_ERROR": 500000,
    "ACL_ERROR_FAILURE": 500001,
    "ACL_ERROR_RT_FAILURE": 500003,
}
EXPECTED_ACLNN_STATUS = {
    "ACLNN_SUCCESS": 0,
    "ACLNN_ERR_PARAM_NULLPTR": 161001,
    "ACLNN_ERR_PARAM_INVALID": 161002,
    "ACLNN_ERR_RUNTIME_ERROR": 361001,
    "ACLNN_ERR_INNER": 561000,
    "ACLNN_ERR_INNER_INFERSHAPE_ERROR": 561001,
    "ACLNN_ERR_INNER_TILING_ERROR": 561002,
    "ACLNN_ERR_INNER_FIND_KERNEL_ERROR": 561003,
    "ACLNN_ERR_INNER_CREATE_EXECUTOR": 561101,
    "ACLNN_ERR_INNER_NOT_TRANS_EXECUTOR": 561102,
    "ACLNN_ERR_INNER_NULLPTR": 561103,
    "ACLNN_ERR_INNER_WRONG_ATTR_INFO_SIZE": 561104,
    "ACLNN_ERR_INNER_KEY_CONFLICT": 561105,
    "ACLNN_ERR_INNER_KEY_CONFILICT": 561105,
    "ACLNN_ERR_INNER_INVALID_IMPL_MODE": 561106,
    "ACLNN_ERR_INNER_OPP_PATH_NOT_FOUND": 561107,
    "ACLNN_ERR_INNER_LOAD_JSON_FAILED": 561108,
    "ACLNN_ERR_INNER_JSON_VALUE_NOT_FOUND": 561109,
    "ACLNN_ERR_INNER_JSON_FORMAT_INVALID": 561110,
    "ACLNN_ERR_INNER_JSON_DTYPE_INVALID": 561111,
    "ACLNN_ERR_INNER_OPP_KERNEL_PKG_NOT_FOUND": 561112,
    "ACLNN_ERR_INNER_OP_FILE_INVALID": 561113,
    "ACLNN_ERR_INNER_ATTR_NUM_OUT_OF_BOUND": 561114,
    "ACLNN_ERR_INNER_ATTR_LEN_NOT_ENOUGH": 561115,
    "ACLNN_ERR_INNER_INPUT_NUM_IN_JSON_TOO_LARGE": 561116,
    "ACLNN_ERR_INNER_INPUT_JSON_IS_NULL": 561117,
    "ACLNN_ERR_INNER_STATIC_WORKSPACE_INVALID": 561118,
    "ACLNN_ERR_INNER_STATIC_BLOCK_DIM_INVALID": 561119,
}


def _parse_values(text: str) -> dict[str, int]:
    """Return ``NAME -> value`` for enum members (``NAME = v``), constants and object-like macros."""
    values: dict[str, int] = {}
    pattern = re.compile(
        r"^\s*(?:#define\s+(?P<macro>ACLN?N?_\w+)\s+|(?:static\s+const\s+int\s+)?(?P<name>ACLN?N?_\w+)\s*=\s*)"
        r"(?P<value>-?(?:0[xX][0-9a-fA-F]+|\d+))\b",
        re.MULTILINE,
    )
    for m in pattern.finditer(text):
        name = m.group("macro") or m.group("name")
        assert name not in values, f"{name} defined twice"
        values[name] = int(m.group("value"), 0)
    return values


def _declared_functions() -> set[str]:
    names = set()
    for rel in HEADERS:
        text = (INCLUDE_DIR / rel).read_text(encoding="utf-8")
        names |= set(re.findall(r"ACL_FUNC_VISIBILITY\s+[\w\s\*]*?\b(acl\w+)\s*\(", text))
    return names


def test_headers_have_guards_and_extern_c() -> None:
    for rel in HEADERS:
        text = (INCLUDE_DIR / rel).read_text(encoding="utf-8")
        assert "host runtime" in text and "ASCEND_TOOLKIT_HOME" in text, rel
        guard = re.search(r"#ifndef (\w+)\s*\n#define \1\b", text)
        assert guard, f"{rel}: no include guard"
        assert '#ifdef __cplusplus\nextern "C" {' in text, rel


def test_enum_and_status_values_match_facts() -> None:
    acl = _parse_values(
        (INCLUDE_DIR / "acl/acl_base.h").read_text(encoding="utf-8")
        + (INCLUDE_DIR / "acl/acl_rt.h").read_text(encoding="utf-8")
    )
    aclnn = _parse_values((INCLUDE_DIR / "aclnn/aclnn_base.h").read_text(encoding="utf-8"))
    assert acl == {**EXPECTED_DTYPES, **EXPECTED_FORMATS, **EXPECTED_RUNTIME, **EXPECTED_ACL_ERRORS}
    assert aclnn == EXPECTED_ACLNN_STATUS


def test_catalogue_values_match_the_header() -> None:
    from tests.hostrt_support import project

    acl = _parse_values((INCLUDE_DIR / "acl/acl_base.h").read_text(encoding="utf-8"))
    catalog = project().catalog
    for d in catalog.dtypes.dtypes:
        assert acl.get(d.acl) == d.value, d.name
    for f in catalog.formats.formats:
        assert acl.get(f.acl) == f.value, f.name
    aclnn = _parse_values((INCLUDE_DIR / "aclnn/aclnn_base.h").read_text(encoding="utf-8"))
    for s in catalog.status_codes.status_codes:
        assert aclnn.get(s.name) == s.value, s.name


@needs_cxx
def test_every_declared_function_is_defined_by_the_host_runtime() -> None:
    declared = _declared_functions()
    assert {"aclInit", "aclFinalize", "aclrtMalloc", "aclrtMemcpy", "aclCreateTensor", "aclDestroyTensorList",
            "aclGetRecentErrMsg", "aclrtSynchronizeStream", "aclrtCreateContext"} <= declared  # fmt: skip
    exported = set()
    for lib in toolkit().lib64.glob("lib*.so"):
        out = subprocess.run(["nm", "-D", "--defined-only", str(lib)], capture_output=True, text=True).stdout
        exported |= {line.split()[-1] for line in out.splitlines() if line.strip()}
    assert declared - exported == set()


@needs_cxx
@pytest.mark.parametrize("language", ["c", "c++"])
def test_each_header_compiles_alone(tmp_path: Path, language: str) -> None:
    compiler = "cc" if language == "c" else find_compiler()
    std = "-std=c99" if language == "c" else "-std=c++11"
    for rel in HEADERS:
        source = tmp_path / ("only.c" if language == "c" else "only.cpp")
        source.write_text(f'#include "{rel}"\nint main(void) {{ return 0; }}\n', encoding="utf-8")
        cmd = [*compiler.split(), std, "-Wall", "-Wextra", "-Werror", "-pedantic", f"-I{INCLUDE_DIR}", "-fsyntax-only",
               str(source)]  # fmt: skip
        proc = subprocess.run(cmd, capture_output=True, text=True)
        assert proc.returncode == 0, (rel, proc.stderr)


def test_real_toolkit_is_used_when_named(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    gen = tmp_path / "gen"
    monkeypatch.delenv("ASCEND_TOOLKIT_HOME", raising=False)
    assert csamples.syntax_target(gen).includes == (INCLUDE_DIR, gen)
    real = tmp_path / "Ascend" / "ascend-toolkit" / "latest"
    (real / "lib64").mkdir(parents=True)
    monkeypatch.setenv("ASCEND_TOOLKIT_HOME", str(real))
    assert csamples.syntax_target(gen).includes == (real / "include", gen)
    target = csamples.target(gen)  # a real install: nothing is built, its libraries are linked
    assert target.includes == (real / "include", gen) and target.lib64 == real / "lib64"
    cmd = csamples.compile_command(Path("s.cpp"), target, "g++", Path("s"))
    assert cmd[:5] == ["g++", "-std=c++11", "-Wall", "-Wextra", "-Werror"]
    assert cmd[-7:-2] == [f"-L{real / 'lib64'}", "-lopapi", "-lnnopbase", "-lascendcl", f"-Wl,-rpath,{real / 'lib64'}"]


def test_find_compiler_honours_cxx(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CXX", "my-cxx --flag")
    assert find_compiler() == "my-cxx --flag"


def test_missing_compiler_reports_failure(tmp_path: Path) -> None:
    sample = tmp_path / "x.cpp"
    sample.write_text("int main() { return 0; }\n", encoding="utf-8")
    result = csamples.compile_sample(sample, csamples.syntax_target(tmp_path), link=False,
                                     compiler=str(tmp_path / "no-such-compiler"))  # fmt: skip
    assert result.ok is False and "could not run" in result.output


@needs_cxx
def test_opgen_samples_run_builds_runs_and_checks(tmp_path: Path, capsys) -> None:
    """`opgen samples --run` on a one-op tree: the host runtime, C++11/14/17 builds, runs, checks."""
    specs = spec_tree(tmp_path, "elu_backward")
    out = tmp_path / "out"
    assert cli.main(["generate", "--specs", str(specs), "--out", str(out)]) == 0
    assert cli.main(["samples", "--run", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "2 sample(s) compiled as c++11, c++14, c++17, 0 failure(s)" in text
    assert "2 of 2 sample(s) built and ran with the expected results" in text
    # a sample whose check fails makes the command fail
    sample = out / "samples" / "en" / "elu_backward.cpp"
    sample.write_text(sample.read_text(encoding="utf-8").replace("{2.0, 0.0, 0.0, 1.0}", "{2.0, 0.0, 0.0, 7.0}"),
                      encoding="utf-8")  # fmt: skip
    assert cli.main(["samples", "--run", "--out", str(out)]) == 1
    assert "<- mismatch" in capsys.readouterr().out


def test_opgen_samples_without_samples_fails(tmp_path: Path, capsys) -> None:
    assert cli.main(["samples", "--out", str(tmp_path)]) == 1
    assert "no samples" in capsys.readouterr().out
