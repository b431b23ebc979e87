"""Tests for the C++ emitter (generator/emit/cpp.py): aclnnop headers and call samples.

Everything is rendered in memory from specs/ (``render_all(project, only="cpp")``), never read from generated/.

* Every sample compile-checks warning-free (``-Wall -Wextra -Werror -fsyntax-only``) against the stand-in
  headers; all samples are compiled in one parallel ``compile_samples`` batch.
* A small parser reads each sample and checks what the compiler cannot: every host vector handed to the
  tensor helper has the element type the catalogue gives for the tensor's dtype (``c_host``), every
  aclCreate* handle and every aclrtMalloc block is released (RAII owner or explicit call), and the phase-1
  call passes the header's parameters in order. Mutated samples prove each check can fail.
* The header declares both phases with the spec's C types and names, in order.
* The float16/bfloat16 converters and the MaxPool2dWithMask mask builders are compiled, run and compared with
  NumPy / the reference kernel's codec (skipped without a C++ compiler).
"""

from __future__ import annotations

import os
import re
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from generator.csamples import compile_sample, compile_samples, find_compiler
from generator.emit import cpp
from generator.generate import environment, render_all
from generator.kernels import max_pool2d_with_mask_backward as mp2d
from generator.loader import OpInfo, Project, load_project

ROOT = Path(__file__).resolve().parent.parent
PROJECT = load_project(ROOT / "specs")
OPS = [info.spec.name for info in PROJECT.ops]
CXX = find_compiler()
needs_cxx = pytest.mark.skipif(CXX is None, reason="no C++ compiler (set CXX or install g++/clang++)")


@pytest.fixture(scope="module")
def rendered() -> dict[str, str]:
    return render_all(PROJECT, only="cpp")


def _info(name: str) -> OpInfo:
    return PROJECT.op(name)


def _sample_path(info: OpInfo) -> str:
    return f"samples/{info.spec.snake}.cpp"


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def _render_variant(info: OpInfo, **example_updates) -> dict[str, str]:
    """Header and sample of ``info`` with its example changed (model_copy: no re-validation needed)."""
    spec = info.spec.model_copy(update={"example": info.spec.example.model_copy(update=example_updates)})
    variant = OpInfo(spec, info.path, info.exprs, info.located)
    return cpp.files(Project(PROJECT.root, PROJECT.catalog, [variant]), environment())


# ---------------------------------------------------------------------------------------------
# A parser for the generated samples


def split_args(text: str) -> list[str]:
    """Split a C++ argument list at top-level commas."""
    args, depth, current = [], 0, ""
    for ch in text:
        if ch in "([{<" and not (ch == "<" and current.rstrip().endswith(("<", " "))):
            depth += ch in "([{"
        if ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            args.append(current.strip())
            current = ""
        else:
            current += ch
    if current.strip():
        args.append(current.strip())
    return args


def call_args(text: str, start: int) -> tuple[list[str], int]:
    """Arguments of the call whose '(' is at ``start``, and the index after its ')'."""
    depth = 0
    for i in range(start, len(text)):
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        if depth == 0:
            return split_args(text[start + 1 : i]), i + 1
    raise ValueError("unbalanced parentheses")


def leading_name(arg: str) -> str:
    """``gradOutput.tensor.get()`` -> ``gradOutput``; ``&workspaceSize`` -> ``workspaceSize``."""
    match = re.match(r"&?\s*([A-Za-z_]\w*)", arg)
    return match.group(1) if match else arg


def strip_comments(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


@dataclass
class Sample:
    text: str
    problems: list[str] = field(default_factory=list)

    def __post_init__(self):
        self.code = strip_comments(self.text)
        # using Alias = std::unique_ptr<Pointee, Deleter<release>>;
        self.owners = {
            m.group(1): (m.group(2), m.group(3))
            for m in re.finditer(
                r"using\s+(\w+)\s*=\s*std::unique_ptr<\s*(\w+)\s*,\s*\w+\s*<\s*(\w+)\s*>\s*>", self.code
            )
        }
        # host containers: std::vector<T> name ... / std::array<T, N> name ... -> element type T
        self.containers: dict[str, str] = {}
        for m in re.finditer(r"std::vector<\s*([\w:]+)\s*>\s+(\w+)\s*[=({;]", self.code):
            self.containers[m.group(2)] = m.group(1)
        for m in re.finditer(r"std::array<\s*([\w:]+)\s*,\s*\d+\s*>\s+(\w+)\s*[=({;]", self.code):
            self.containers[m.group(2)] = m.group(1)

    def declared_type(self, name: str) -> str | None:
        """The type a variable, parameter or member ``name`` is declared with (``DevicePtr*`` -> DevicePtr)."""
        m = re.search(rf"\b([A-Za-z_]\w*)\s*\*?\s+{re.escape(name)}\s*[;,)(=]", self.code)
        return m.group(1) if m else None

    def function_around(self, index: int) -> tuple[str, str]:
        """(name, parameter list) of the function definition enclosing ``index`` (a column-0 definition)."""
        defs = list(re.finditer(r"^[A-Za-z_][\w:<>,\s*&]*?\b(\w+)\(([^;{]*?)\)\s*\{", self.code[:index], re.M))
        return defs[-1].group(1), defs[-1].group(2)

    def calls(self, name: str) -> list[list[str]]:
        """Argument lists of the calls of ``name`` (definitions start at column 0 and are skipped)."""
        out = []
        for m in re.finditer(rf"(?<![\w.>]){re.escape(name)}\s*\(", self.code):
            line = self.code[self.code.rfind("\n", 0, m.start()) + 1 : m.start()]
            if line[:1].isalpha() and "=" not in line:
                continue  # a function definition, not a call
            out.append(call_args(self.code, m.end() - 1)[0])
        return out


def check_tensor_dtypes(sample: Sample, catalog) -> list[str]:
    """Every host vector fed to the function wrapping aclCreateTensor has the dtype's c_host element type."""
    problems = []
    by_acl = {d.acl: d for d in catalog.dtypes.dtypes}
    sites = [m.start() for m in re.finditer(r"\baclCreateTensor\s*\(", sample.code)]
    if not sites:
        return ["no aclCreateTensor call"]
    for site in sites:
        helper, params = sample.function_around(site)
        if helper == "main":  # a direct call: nothing ties a host vector to it
            continue
        params = split_args(params)
        host_pos = next(i for i, p in enumerate(params) if "std::vector" in p)
        dtype_pos = next(i for i, p in enumerate(params) if p.startswith("aclDataType"))
        calls = [c for c in sample.calls(helper) if len(c) > max(host_pos, dtype_pos)]
        if not calls:
            problems.append(f"{helper} (which calls aclCreateTensor) is never called")
        for args in calls:
            host, acl = args[host_pos], args[dtype_pos]
            if acl not in by_acl:
                continue  # a forwarding call inside an overload (dataType passed through)
            element = sample.containers.get(host)
            wanted = by_acl[acl].c_host
            if element != wanted:
                problems.append(f"{host}: host element type {element} for {acl} (catalogue c_host: {wanted})")
    return problems


def _owner_of(sample: Sample, code: str, start: int) -> tuple[str | None, str | None]:
    """(owner type, variable) of the handle created by the call at ``start``: ``Alias var(call`` or ``x.reset(call``."""
    before = code[:start]
    m = re.search(r"\b(\w+)\s*\*?\s+(\w+)\s*[({]\s*$", before)
    if m:
        return m.group(1), m.group(2)
    m = re.search(r"(\w+)\s*(?:\.|->)\s*reset\s*\(\s*$", before)
    if m:
        return sample.declared_type(m.group(1)), m.group(1)
    m = re.search(r"\b(\w+)\s*=\s*$", before)
    if m:
        return sample.declared_type(m.group(1)), m.group(1)
    return None, None


def check_releases(sample: Sample) -> list[str]:
    """Every aclCreate* handle and every aclrtMalloc block is released: RAII owner or explicit call."""
    problems, code = [], sample.code
    for m in re.finditer(r"\baclCreate(\w+)\s*\(", code):
        kind = m.group(1)
        owner, var = _owner_of(sample, code, m.start())
        pointee, release = sample.owners.get(owner or "", (None, None))
        if pointee == f"acl{kind}" and release == f"aclDestroy{kind}":
            continue
        if var and re.search(rf"\baclDestroy{kind}\s*\(\s*{re.escape(var)}\s*\)", code):
            continue
        problems.append(f"aclCreate{kind} at offset {m.start()} ({var}) is never destroyed")
    for m in re.finditer(r"\baclrtMalloc\s*\(\s*&?\s*(\w+)", code):
        var = m.group(1)
        freed = re.search(rf"\baclrtFree\s*\(\s*{re.escape(var)}\s*\)", code)
        for reset in re.finditer(rf"(\w+)\s*(?:\.|->)\s*reset\s*\(\s*{re.escape(var)}\s*\)", code):
            if sample.owners.get(sample.declared_type(reset.group(1)) or "", (None, None))[1] == "aclrtFree":
                freed = True
        if not freed:
            problems.append(f"aclrtMalloc into {var} is never freed")
    return problems


def header_decls(header: str, name: str) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(phase-1 params, phase-2 params) of the header as (C type, name) pairs."""

    def params(func: str) -> list[tuple[str, str]]:
        code = strip_comments(header)
        m = re.search(rf"aclnnStatus\s+{func}\s*\(", code)
        assert m, f"{func} is not declared"
        out = []
        for arg in call_args(code, m.end() - 1)[0]:
            pm = re.match(r"(.*?)\s*\b(\w+)$", " ".join(arg.split()))
            ctype = re.sub(r"\s*\*", "*", pm.group(1))
            out.append((ctype, pm.group(2)))
        return out

    return params(f"{name}GetWorkspaceSize"), params(name)


def check_phase_call(sample: Sample, header: str, name: str) -> list[str]:
    """The phase-1 call passes the header's parameters in order (by the locals' names)."""
    phase1, phase2 = header_decls(header, name)
    calls = sample.calls(f"{name}GetWorkspaceSize")
    if len(calls) != 1:
        return [f"expected one {name}GetWorkspaceSize call, found {len(calls)}"]
    got = [leading_name(a) for a in calls[0]]
    want = [n for _, n in phase1]
    problems = [] if got == want else [f"phase-1 arguments {got} != header parameters {want}"]
    second = sample.calls(name)
    if len(second) != 1 or len(second[0]) != len(phase2):
        problems.append(f"expected one {name} call with {len(phase2)} arguments")
    return problems


def sample_problems(text: str, header: str, name: str) -> list[str]:
    sample = Sample(text)
    return (
        check_tensor_dtypes(sample, PROJECT.catalog) + check_releases(sample) + check_phase_call(sample, header, name)
    )


# ---------------------------------------------------------------------------------------------
# Rendering


def test_every_op_has_header_and_sample(rendered):
    expected = {info.spec.header for info in PROJECT.ops} | {_sample_path(info) for info in PROJECT.ops}
    assert set(rendered) == expected | {"include/opgen/catalog.h"}


def test_rendering_is_deterministic(rendered):
    assert render_all(PROJECT, only="cpp") == rendered


@pytest.mark.parametrize("name", OPS)
def test_header_declares_both_phases(rendered, name):
    info = _info(name)
    spec = info.spec
    header = rendered[spec.header]
    assert header.startswith(f"// @generated by opgen from specs/{info.path.name}; do not edit.\n")
    guard = re.search(r"#ifndef (\w+)\n#define \1\n", header)
    assert guard and header.rstrip().endswith(f"#endif  // {guard.group(1)}")
    assert '#include "aclnn/aclnn_base.h"' in header
    assert '#ifdef __cplusplus\nextern "C" {\n#endif' in header
    assert "ACLNN_API" not in header
    phase1, phase2 = header_decls(header, spec.name)
    assert phase1 == [(p.ctype, p.name) for p in spec.params] + [
        ("uint64_t*", "workspaceSize"),
        ("aclOpExecutor**", "executor"),
    ]
    assert phase2 == [
        ("void*", "workspace"),
        ("uint64_t", "workspaceSize"),
        ("aclOpExecutor*", "executor"),
        (spec.stream_ctype, "stream"),
    ]
    for p in spec.params:  # a doc comment for every parameter
        assert re.search(rf"@param \[(in|out)\] {p.name}: \S", header), p.name


@pytest.mark.parametrize("name", OPS)
def test_sample_passes_the_parser(rendered, name):
    spec = _info(name).spec
    assert sample_problems(rendered[_sample_path(_info(name))], rendered[spec.header], spec.name) == []


@pytest.mark.parametrize("name", OPS)
def test_sample_content(rendered, name):
    info = _info(name)
    spec, example = info.spec, info.spec.example
    text = rendered[_sample_path(info)]
    assert text.startswith(f"// @generated by opgen from specs/{info.path.name}; do not edit.\n")
    product = PROJECT.catalog.product(example.product)
    assert f'Target product: {product.en} (product "{product.tag}")' in text
    for include in ("<cstdint>", "<cstdio>", "<vector>", '"acl/acl.h"', f'"{spec.header}"'):
        assert f"#include {include}" in text
    assert all(len(line) <= 120 for line in text.splitlines())
    for name_, expected in example.expected.items():  # the expected values are shown next to the print
        if expected.data is not None:
            shown = re.search(rf"// expected [^\n]*((?:\n\s*//[^\n]*)*)\n\s*for [^\n]*{name_}HostData", text)
            assert shown, name_
    for p in spec.params:
        if example.inputs.get(p.name, 0) is None:
            assert re.search(rf"\b{p.name} = nullptr;", text)


# ---------------------------------------------------------------------------------------------
# The parser catches mistakes


def _mutants(rendered):
    msda = _info("MultiScaleDeformableAttentionGrad")
    elu = _info("EluBackward")
    mp = _info("MaxPool2dWithMaskBackward")
    msda_text, elu_text, mp_text = (rendered[_sample_path(i)] for i in (msda, elu, mp))
    yield (
        "float vector for an INT32 tensor",
        msda,
        msda_text.replace("std::vector<int32_t> spatialShapeHostData", "std::vector<float> spatialShapeHostData"),
    )
    yield "wrong ACL dtype", elu, elu_text.replace("gradOutputShape, ACL_FLOAT,", "gradOutputShape, ACL_FLOAT16,")
    yield (
        "scalar without owner",
        elu,
        elu_text.replace("ScalarPtr alpha(", "aclScalar* alpha(").replace("alpha.get()", "alpha"),
    )
    yield "array without owner", mp, mp_text.replace("IntArrayPtr stride(", "aclIntArray* stride(")
    yield "device memory not freed", elu, elu_text.replace("Releaser<aclrtFree>", "Releaser<aclrtMemset>")
    yield (
        "wrong deleter",
        elu,
        elu_text.replace(
            "std::unique_ptr<aclScalar, Releaser<aclDestroyScalar>>",
            "std::unique_ptr<aclScalar, Releaser<aclDestroyTensor>>",
        ),
    )
    yield "arguments swapped", elu, elu_text.replace("alpha.get(), scale.get()", "scale.get(), alpha.get()")


def test_parser_catches_mutations(rendered):
    seen = 0
    for label, info, text in _mutants(rendered):
        assert text != rendered[_sample_path(info)], f"mutation '{label}' did not apply"
        problems = sample_problems(text, rendered[info.spec.header], info.spec.name)
        assert problems, f"the parser missed: {label}"
        seen += 1
    assert seen == 7


def test_explicit_destroy_is_accepted():
    text = """
aclTensor* CreateT(const std::vector<float>& hostData, aclDataType dataType) {
    return aclCreateTensor(nullptr, 0, dataType, nullptr, 0, ACL_FORMAT_ND, nullptr, 0, nullptr);
}
int main() {
    std::vector<float> xHostData = {1.0f};
    aclTensor* x = CreateT(xHostData, ACL_FLOAT);
    aclScalar* s = aclCreateScalar(nullptr, ACL_FLOAT);
    void* mem = nullptr;
    aclrtMalloc(&mem, 4, ACL_MEM_MALLOC_HUGE_FIRST);
    aclDestroyScalar(s);
    aclrtFree(mem);
}
"""
    sample = Sample(text)
    assert check_tensor_dtypes(sample, PROJECT.catalog) == []
    problems = check_releases(sample)  # only the tensor (returned, never destroyed) is reported
    assert len(problems) == 1 and problems[0].startswith("aclCreateTensor "), problems


# ---------------------------------------------------------------------------------------------
# Compiling


@pytest.fixture(scope="module")
def compiled(rendered, tmp_path_factory):
    if CXX is None:
        pytest.skip("no C++ compiler")
    root = tmp_path_factory.mktemp("cpp")
    _write(root, rendered)
    paths = [root / _sample_path(info) for info in PROJECT.ops]
    start = time.perf_counter()
    results = compile_samples(paths, root, jobs=max(2, min(len(paths), os.cpu_count() or 2)))
    return {info.spec.name: r for info, r in zip(PROJECT.ops, results, strict=True)}, time.perf_counter() - start


@needs_cxx
@pytest.mark.parametrize("name", OPS)
def test_sample_compiles_warning_free(compiled, name):
    result = compiled[0][name]
    assert result.ok, result.output


@needs_cxx
def test_parallel_compile_is_quick(compiled):
    assert compiled[1] < 15, f"compiling {len(OPS)} samples took {compiled[1]:.1f} s"


@needs_cxx
def test_compiler_rejects_a_warning(rendered, tmp_path):
    info = _info("EluBackward")
    files = dict(rendered)
    files[_sample_path(info)] = files[_sample_path(info)].replace(
        "    return 0;\n}", "    int unused = 0;\n    return 0;\n}"
    )
    _write(tmp_path, files)
    assert not compile_sample(tmp_path / _sample_path(info), tmp_path).ok


def _dtype_variants():
    """Every catalogue dtype a sample can hold on the host, through EluBackward's example."""
    for d in PROJECT.catalog.dtypes.dtypes:
        if d.c_host is not None and d.kind != "float8":
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
        expected = {"gradInput": ExampleTensor(shape=[2, 2], dtype=dtype, data=data)}
        files = _render_variant(info, inputs=inputs, expected=expected)
        texts[dtype] = files.pop(_sample_path(info))
        paths.append(tmp_path / f"samples/{info.spec.snake}_{dtype.lower()}.cpp")
        _write(tmp_path, {**files, paths[-1].relative_to(tmp_path).as_posix(): texts[dtype]})
        assert sample_problems(texts[dtype], files[info.spec.header], info.spec.name) == [], dtype
    results = compile_samples(paths, tmp_path, jobs=os.cpu_count() or 2)
    failed = {p.name: r.output for p, r in zip(paths, results, strict=True) if not r.ok}
    assert not failed
    assert (
        "std::vector<uint16_t> gradOutputHostData = ToBits({0.0f, 1.0f, 2.0f, 3.0f}, FloatToHalf);" in texts["FLOAT16"]
    )
    assert "uint16_t alphaValue = FloatToBf16(1.0f);" in texts["BFLOAT16"]
    assert "std::vector<bool> gradInputHostData" in texts["BOOL"]


@needs_cxx
def test_null_input_and_unrequested_output(tmp_path):
    """A None input and an output whose infer.when is false are passed as nullptr; an output missing from
    expected is allocated from its infer expressions."""
    info = _info("ConvolutionBackward")
    example = info.spec.example
    inputs = dict(example.inputs, biasSizes=None, outputMask=[True, True, False])
    files = _render_variant(info, inputs=inputs, expected={"gradInput": example.expected["gradInput"]})
    text = files[_sample_path(info)]
    assert "const aclIntArray* biasSizes = nullptr;" in text
    assert "aclTensor* gradBias = nullptr;" in text
    assert "std::array<bool, 3> outputMaskValues = {true, true, false};" in text
    # gradWeight: infer shape weight.shape, dtype from weight; NCHW is torch_npu's format for a 4-D tensor
    assert "std::vector<int64_t> gradWeightShape = {2, 2, 1, 1};" in text
    assert "CreateAclTensor(gradWeightHostData, gradWeightShape, ACL_FLOAT, ACL_FORMAT_NCHW, &gradWeight)" in text
    assert "CopyToHost(gradBias" not in text
    assert sample_problems(text, files[info.spec.header], info.spec.name) == []
    _write(tmp_path, files)
    result = compile_sample(tmp_path / _sample_path(info), tmp_path)
    assert result.ok, result.output


def test_out_of_range_example_value_is_reported():
    from generator.model import ExampleTensor

    info = _info("EluBackward")
    tensor = ExampleTensor(shape=[2], dtype="UINT8", data=[-1, 2])
    with pytest.raises(cpp.SampleError, match="does not fit the host type uint8_t"):
        _render_variant(info, inputs=dict(info.spec.example.inputs, gradOutput=tensor))


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
        [*CXX.split(), "-std=c++17", "-O1", "-Wall", "-Wextra", "-Werror", str(src), "-o", str(exe)],
        capture_output=True,
        text=True,
    )
    assert build.returncode == 0, build.stderr
    run = subprocess.run([str(exe)], input=stdin, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    return run.stdout


def _float_samples() -> np.ndarray:
    rng = np.random.default_rng(7)
    special = [
        0.0,
        -0.0,
        1.0,
        -2.5,
        65504.0,
        65519.99,
        65520.0,
        65536.0,
        1e9,
        2.0**-14,
        2.0**-24,
        2.0**-25,
        np.nextafter(np.float32(2.0**-25), np.float32(1)),
        3 * 2.0**-26,
        2.0**-26,
        1e-45,
        3.0e38,
        np.inf,
        -np.inf,
    ]
    bits = np.concatenate(
        [
            np.array(special, dtype=np.float32).view(np.uint32),
            rng.integers(0, 2**32, 20000, dtype=np.uint64).astype(np.uint32),
        ]
    )
    # plenty of values near the fp16 range and at rounding ties
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
        files = _render_variant(info, inputs=inputs, expected={"gradInput": tensor})
        texts[dtype] = files[_sample_path(info)]
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
def test_mask_builders_match_the_kernel_codec(tmp_path):
    """BuildBitMask / BuildArgmaxMask encode the argmax as the reference kernel's encode_mask does."""
    info = _info("MaxPool2dWithMaskBackward")
    v1 = _render_variant(info)[_sample_path(info)]
    assert info.spec.example.product == "910" and "BuildBitMask(" in v1 and "BuildArgmaxMask" not in v1
    a2 = _render_variant(info, product="910b")[_sample_path(info)]
    assert "BuildArgmaxMask(indicesArgmax, indicesShape);" in a2 and "BuildBitMask" not in a2
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
        # the int32 layout is only used (and only fits) for kernels other than 1x1
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
        # bit mask: decodes to the same argmax, and equals the codec on the bits the backward reads
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


def test_example_mask_routes_the_gradient_to_the_expected_cells():
    """The sample's mask (as the C++ builder lays it out) gives the spec's expected gradInput in the kernel."""
    info = _info("MaxPool2dWithMaskBackward")
    example = info.spec.example
    inputs = example.inputs
    shape, kernel, stride, padding = inputs["self"].shape, inputs["kernelSize"], inputs["stride"], inputs["padding"]
    argmax = np.array(inputs["indices"].mask_from_argmax).reshape(inputs["gradOutput"].shape)
    layout = mp2d.mask_layout(example.product, kernel)
    mask = mp2d.encode_mask(argmax, shape, kernel, stride, padding, inputs["ceilMode"], layout=layout)
    grad = mp2d.max_pool2d_with_mask_backward(
        np.array(inputs["gradOutput"].data, dtype=np.float32).reshape(inputs["gradOutput"].shape),
        np.array(inputs["self"].data, dtype=np.float32).reshape(shape),
        mask,
        kernel,
        stride,
        padding,
        inputs["dilation"],
        inputs["ceilMode"],
        product=example.product,
    )
    want = np.array(example.expected["gradInput"].data, dtype=np.float32).reshape(shape)
    np.testing.assert_allclose(grad, want, rtol=example.tolerance.rtol, atol=example.tolerance.atol)
