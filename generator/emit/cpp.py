"""C/C++ emitter: aclnnop headers, call samples and the host runtime's operator units.

``files(project, env)`` returns every C/C++ output:

* ``aclnnop/<header>.h``: one per header file named by the specs, as CANN ships it (file name, include
  guard, includes, ``ACLNN_API``); a header shared by several specs declares all of them, in the order of
  ``specs/catalog/headers.yaml``, which also names the APIs CANN's header declares that have no spec
  (listed in a comment, not declared). ``aclnnop/aclnn_util.h`` defines ``ACLNN_API``.
* ``samples/<lang>/<snake>.cpp`` (``lang``: ``en``, ``zh``): a C++11 call sample per language, with
  comments in that language. When the example's data layout depends on the product (an input given as
  ``mask_from_argmax``), one sample per layout: the one for the example's product keeps the plain name,
  the others are ``<snake>_<tag>.cpp`` (``tag``: the first product of the group, which they run on).
  ``samples/index.json`` lists every sample: path, op, language, products, the product it runs on.
  :func:`sample_index` reads it back (the docs emitter embeds samples per page language).
* ``hostrt/<snake>.cpp``: the op in the host runtime (CheckParams and both phases; see
  :mod:`generator.emit.cpp_checks` and ``generator/hostrt``).
* ``include/opgen/catalog.h``: the catalogues as C++ data for the host runtime.

Contexts are plain data built from the model and the catalogues. Every spec or catalogue string reaches
C++ through :mod:`generator.escape.cpp` (comments, string literals, identifiers); the templates use the
``cpp_comment`` / ``cpp_string`` filters. A spec whose example cannot be turned into a sample raises
:class:`SampleError` naming the parameter.
"""

from __future__ import annotations

import importlib
import inspect
import json
import math
from types import SimpleNamespace

from generator import expr as ex
from generator.diagnostics import SpecError
from generator.emit import cpp_checks
from generator.escape.cpp import comment, comment_lines, identifiers, string_literal
from generator.int_ranges import C_INT_RANGES
from generator.loader import Catalog, OpInfo, Project, expr_type
from generator.model import ExampleScalar, ExampleTensor, OpSpec, Param, Text, snake_case

WIDTH = 120  # the samples' and headers' line length
LANGS = ("en", "zh")

ARRAY_CTYPES = {  # ctype -> (handle name, host element type)
    "const aclIntArray*": ("IntArray", "int64_t"),
    "const aclBoolArray*": ("BoolArray", "bool"),
    "const aclFloatArray*": ("FloatArray", "float"),
}
INT_RANGES = {**C_INT_RANGES, "int64_t": (-(2**63) + 1, 2**63 - 1)}  # -2**63 has no literal spelling
PLAIN_CTYPES = ("bool", "int", "int8_t", "int32_t", "int64_t", "uint64_t", "float", "double")

# Dtypes whose host vectors hold bit patterns (c_host uint16_t): written as floats through a converter,
# read back through the reverse one.
TO_BITS = {"FLOAT16": "FloatToHalf", "BFLOAT16": "FloatToBf16"}
FROM_BITS = {"FLOAT16": "HalfToFloat", "BFLOAT16": "Bf16ToFloat"}

# The C++ builder of each mask layout returned by the kernel module's mask_layout(): its template, its
# function and the arguments it takes after (argmax, maskShape), named as in the kernel's encode_mask.
MASK_BUILDERS = {
    "v1_bitmask": (
        "cpp/mask_v1_bitmask.j2",
        "BuildBitMask",
        ("self_shape", "kernel_size", "stride", "padding", "ceil_mode"),
    ),
    "a2_int32": ("cpp/mask_a2_int32.j2", "BuildArgmaxMask", ()),
}

# Names the sample defines itself; no parameter (nor a local derived from one) may use them.
SAMPLE_NAMES = frozenset(
    "acl workspace workspaceSize executor main i AclSession DeviceTensor DeviceMemory Handle CreateAclTensor "
    "CopyToHost GetShapeSize FloatBits ShiftRoundEven FloatToHalf FloatToBf16 HalfToFloat Bf16ToFloat ToBits "
    "ToDouble Compare Print ReportFailure RunsOnTargetProduct AxisValue PoolOut BuildBitMask BuildArgmaxMask "
    "mismatches CHECK_ACL CHECK_CREATED".split()
)
# The locals a sample derives from a parameter name.
DERIVED = ("Shape", "HostData", "Value", "Values", "Argmax", "Expected", "Items", "Item")
RESERVED = SAMPLE_NAMES | cpp_checks.UNIT_LOCALS


class SampleError(ValueError):
    """The spec's example cannot be turned into a C++ sample; the message names what is missing.

    ``path`` is the spec field at fault (``("example", "inputs", "x")``); :func:`files` turns the error
    into a located :class:`~generator.diagnostics.SpecError`."""

    def __init__(self, message: str, path: tuple = ("example",)):
        super().__init__(message)
        self.path = path


def _located(info: OpInfo, exc: SampleError):
    from generator.diagnostics import Diagnostic, SpecError, display_path

    line, col = info.located.locate(exc.path) if info.located is not None else (0, 0)
    dotted = ".".join(str(p) for p in exc.path)
    return SpecError([Diagnostic(display_path(info.path), line, col, dotted, f"cannot build the C++ sample: {exc}")])


# ---------------------------------------------------------------------------------------------
# Words of the samples, per language (trusted template text)

PHRASES = {
    "en": {
        "title": "Call sample for {name}.",
        "product": "Product: {products}.",
        "products": "Products: {products}.",
        "layout": (
            "The data layout of {params} depends on the product: this sample is for the products above; {others}."
        ),
        "other_sample": "{file} is the sample for {products}",
        "example": "Example: {text}",
        "intro": (
            "The sample runs the two phases of {name} on the example of its spec: it initialises ACL, copies the "
            "inputs to the device, calls {name}GetWorkspaceSize (phase 1), allocates the workspace, calls {name} "
            "(phase 2), waits for the stream, copies the outputs back, prints them and compares them with the "
            "expected values. It returns 0 when every output matches, 1 when one does not or when a call fails "
            "(it then prints aclGetRecentErrMsg()). Every resource has an owner that releases it, also on an "
            "early return."
        ),
        "build": "Build (C++11 or later) and run:",
        "report": "Prints the failed call, its status code and ACL's most recent error message.",
        "no_memory": "An empty tensor needs no device memory.",
        "check_acl": "Leaves main with 1 when `call` fails; the owners declared so far release what they hold.",
        "check_created": "Leaves main with 1 when an aclCreate* call returned nullptr.",
        "handle": "Owns an aclCreate* handle and destroys it with the matching aclDestroy* call.",
        "memory": "Owns device memory and frees it with aclrtFree.",
        "session": "ACL, one device and one stream; released in reverse order when it goes out of scope.",
        "device_tensor": "An aclTensor and the device memory it describes (the tensor is released first).",
        "create": (
            "Copies `hostData` to new device memory and describes it as a contiguous aclTensor of `shape` "
            "(row-major strides, in elements: stride[last] = 1, stride[i] = shape[i + 1] * stride[i + 1])."
        ),
        "create_bool": "std::vector<bool> packs its bits: a BOOL tensor holds one byte per element.",
        "copy": "Copies a tensor's device memory back into `hostData` (sized to the tensor's element count).",
        "copy_bool": "std::vector<bool> packs its bits: copy through one byte per element.",
        "shape_size": "Number of elements of a tensor of this shape.",
        "float_bits": "The bits of a float (IEEE 754 binary32).",
        "shift": "Shifts `bits` right by `shift` (1 to 31) bits, rounding to nearest, ties to even.",
        "to_half": "float -> FLOAT16 (IEEE 754 binary16) bits, rounding to nearest even; too large: infinity.",
        "to_bf16": "float -> BFLOAT16 bits (the upper 16 bits of the float), rounding to nearest even.",
        "to_bits": "The bit patterns of `values` for a FLOAT16 or BFLOAT16 tensor.",
        "half_from": "FLOAT16 bits -> float (exact).",
        "bf16_from": "BFLOAT16 bits -> float (exact: they are the upper 16 bits of the float).",
        "to_double": "An output's values as double, for printing and comparing.",
        "compare": (
            "Prints an output next to its expected values and returns how many differ: |actual - expected| must "
            "be at most atol + rtol * |expected| (NaN matches NaN)."
        ),
        "print": "Prints an output that has no expected values.",
        "soc": (
            "The sample's data layout is product-specific: it checks the product first. aclrtGetSocName() "
            'returns names such as "Ascend910B1"; the longest matching SoC version names the product.'
        ),
        "step_init": "1. Initialise ACL, device 0 and a stream. `acl` is declared first, so it is released last.",
        "step_soc": "The data layout below is product-specific: stop on another product.",
        "step_host": "2. The example's values on the host (outputs: zero-filled buffers of the output shape).",
        "step_handles": "3. The aclnn arguments.",
        "step_phase1": "4. Phase 1: check the arguments, get the workspace size and the executor.",
        "step_phase2": "5. Phase 2 on the stream, with device workspace if phase 1 asked for some; then wait for it.",
        "step_outputs": "6. Copy the outputs back, print them and compare them with the expected values.",
        "tensor": "{name}: {dtype}, shape {shape}, format {format}",
        "tensor_output": "{name} (output): {dtype}, shape {shape}, format {format}",
        "zeros": " (the spec's example gives no data: zeros)",
        "mask_data": " (data built below from argmax values)",
        "scalar": "{name}: {dtype} scalar",
        "null_optional": "optional; not used by this example",
        "null_output": "not requested by this example",
        "expected": "expected values (rtol {rtol}, atol {atol})",
        "mask": (
            "{name}: the mask the forward op writes on {product} ({label}, see {function}) for these argmax "
            "values: the flat index h * W + w of each output element's window maximum."
        ),
        "mask_v1": "bit-mask layout",
        "mask_a2": "int32 argmax layout",
        "failed": "FAILED: %d value(s) differ from the expected result\\n",
        "passed": "OK: every output matches its expected values\\n",
        "enum": "{value} = {name}",
        "list_owns": "the list owns its tensors now: aclDestroyTensorList destroys them",
    },
    "zh": {
        "title": "{name}的调用示例。",
        "product": "产品：{products}。",
        "products": "产品：{products}。",
        "layout": "{params}的数据布局与产品相关：本示例用于上述产品；{others}。",
        "other_sample": "{products}请使用{file}",
        "example": "示例：{text}",
        "intro": (
            "本示例用规格中的示例运行{name}的两段式接口：初始化ACL，把输入复制到device，调用{name}GetWorkspaceSize"
            "（第一段），申请workspace，调用{name}（第二段），等待stream完成，把输出复制回host，打印并与期望值比较。"
            "全部输出一致时返回0；有输出不一致或接口调用失败时返回1（失败时打印aclGetRecentErrMsg()）。"
            "每个资源都由一个对象持有并负责释放，提前返回时也会释放。"
        ),
        "build": "编译（C++11及以上）并运行：",
        "report": "打印失败的调用、其返回码以及ACL最近一次的错误信息。",
        "no_memory": "空Tensor不需要申请device内存。",
        "check_acl": "`call`失败时以1退出main；此前声明的对象会释放各自持有的资源。",
        "check_created": "aclCreate*返回nullptr时以1退出main。",
        "handle": "持有aclCreate*创建的句柄，并用对应的aclDestroy*销毁。",
        "memory": "持有device内存，并用aclrtFree释放。",
        "session": "ACL、一个device和一个stream；对象析构时按相反顺序释放。",
        "device_tensor": "aclTensor及其描述的device内存（先释放tensor）。",
        "create": (
            "把`hostData`复制到新申请的device内存，并描述为形状为`shape`的连续aclTensor"
            "（按行优先计算以元素为单位的stride：stride[last] = 1，stride[i] = shape[i + 1] * stride[i + 1]）。"
        ),
        "create_bool": "std::vector<bool>按位存储：BOOL类型的tensor每个元素占一个字节。",
        "copy": "把tensor的device内存复制回`hostData`（其大小为tensor的元素个数）。",
        "copy_bool": "std::vector<bool>按位存储：按每个元素一个字节复制。",
        "shape_size": "该形状的tensor的元素个数。",
        "float_bits": "float的二进制位（IEEE 754 binary32）。",
        "shift": "把`bits`右移`shift`（1到31）位，舍入到最近，平局取偶。",
        "to_half": "float -> FLOAT16（IEEE 754 binary16）位模式，舍入到最近偶数；超出范围时为无穷大。",
        "to_bf16": "float -> BFLOAT16位模式（float的高16位），舍入到最近偶数。",
        "to_bits": "FLOAT16或BFLOAT16 tensor的`values`的位模式。",
        "half_from": "FLOAT16位模式 -> float（精确）。",
        "bf16_from": "BFLOAT16位模式 -> float（精确：即float的高16位）。",
        "to_double": "把输出转为double，用于打印和比较。",
        "compare": "打印输出及其期望值，返回不一致的个数：|实际值 - 期望值|不得大于atol + rtol * |期望值|（NaN与NaN一致）。",
        "print": "打印没有期望值的输出。",
        "soc": (
            '本示例的数据布局与产品相关，因此先检查产品。aclrtGetSocName()返回形如"Ascend910B1"的名称，'
            "以最长匹配的SoC版本确定产品。"
        ),
        "step_init": "1. 初始化ACL、device 0和一个stream。`acl`最先声明，因此最后释放。",
        "step_soc": "下面的数据布局与产品相关：在其他产品上停止运行。",
        "step_host": "2. host侧的示例数据（输出为按输出形状填零的缓冲区）。",
        "step_handles": "3. aclnn接口的参数。",
        "step_phase1": "4. 第一段接口：检查参数，获取workspace大小和executor。",
        "step_phase2": "5. 在stream上调用第二段接口（第一段要求时先申请device上的workspace），然后等待其完成。",
        "step_outputs": "6. 把输出复制回host，打印并与期望值比较。",
        "tensor": "{name}：{dtype}，形状{shape}，格式{format}",
        "tensor_output": "{name}（输出）：{dtype}，形状{shape}，格式{format}",
        "zeros": "（规格的示例未给出数据：全零）",
        "mask_data": "（数据在下方由argmax构造）",
        "scalar": "{name}：{dtype}标量",
        "null_optional": "可选参数，本示例不使用",
        "null_output": "本示例不需要该输出",
        "expected": "期望值（rtol {rtol}，atol {atol}）",
        "mask": (
            "{name}：正向算子在{product}上为这些argmax写出的掩码（{label}，见{function}）；argmax为每个输出元素"
            "的窗口最大值的扁平下标h * W + w。"
        ),
        "mask_v1": "位掩码布局",
        "mask_a2": "int32 argmax布局",
        "failed": "FAILED: %d value(s) differ from the expected result\\n",
        "passed": "OK: every output matches its expected values\\n",
        "enum": "{value} = {name}",
        "list_owns": "tensor列表现在持有其中的tensor：aclDestroyTensorList会销毁它们",
    },
}


def _install_filters(env) -> None:
    env.filters.setdefault("cpp_comment", comment)
    env.filters.setdefault("cpp_string", string_literal)


def files(project: Project, env) -> dict[str, str]:
    _install_filters(env)
    catalog = project.catalog
    out: dict[str, str] = {}
    index: list[dict] = []
    headers: list[dict] = []
    errors = []
    for info in project.ops:
        try:
            own, entries = op_files(info, catalog, env)
        except SpecError as exc:
            errors += exc.diagnostics
            continue
        out.update(own)
        index += entries
        headers.append(header_row(info, catalog))
    if errors:
        raise SpecError(errors)
    out.update(aggregate_files(env, catalog, headers, index))
    return out


def op_files(
    info: OpInfo, catalog: Catalog, env, names: dict[str, str] | None = None, view=None
) -> tuple[dict[str, str], list[dict]]:
    """One op's own files (its host-runtime unit and its samples) and its entries of the sample index.

    Raises a located :class:`SpecError` when the example cannot become a sample."""
    _install_filters(env)
    spec = info.spec
    names = cpp_names(spec) if names is None else names
    out = {
        f"hostrt/{spec.snake}.cpp": env.get_template("cpp/hostrt_op.cpp.j2").render(
            **cpp_checks.unit_context(info, catalog, names, view)
        )
    }
    try:
        samples = _samples(info, catalog, names, env)
    except SampleError as exc:
        raise _located(info, exc) from None
    sample = env.get_template("cpp/sample.cpp.j2")
    index = []
    for entry, contexts in samples.items():
        for lang, context in contexts.items():
            path = f"samples/{lang}/{entry.file}"
            out[path] = sample.render(**context)
            index.append(
                {
                    "path": path,
                    "op": spec.name,
                    "lang": lang,
                    "products": list(entry.products),
                    "run_product": entry.run_product,
                }
            )
    return out, index


def header_row(info: OpInfo, catalog: Catalog, names: dict[str, str] | None = None) -> dict:
    """What the header that declares the op needs from it (plain JSON data)."""
    spec = info.spec
    names = cpp_names(spec) if names is None else names
    return {
        "file": spec.header,
        "name": spec.name,
        "source": f"specs/{info.path.name}",
        "api": _api_context(info, catalog, names),
    }


def aggregate_files(env, catalog: Catalog, headers: list[dict], index: list[dict]) -> dict[str, str]:
    """The C/C++ files that are not one op's: the headers (from the ops' ``header_row``\\ s), the
    sample index (from their entries, in op order), ``aclnn_util.h`` and the catalogue header."""
    _install_filters(env)
    out = header_files(env, catalog, headers)
    out.update(catalog_files(env, catalog))
    out["samples/index.json"] = sample_index_text(index)
    return out


def header_files(env, catalog: Catalog, headers: list[dict]) -> dict[str, str]:
    """``aclnnop/<file>.h`` for every file named by the ``header_row``\\ s."""
    _install_filters(env)
    header = env.get_template("cpp/header.h.j2")
    return {path: header.render(**context) for path, context in header_contexts(catalog, headers).items()}


def catalog_files(env, catalog: Catalog) -> dict[str, str]:
    """The files made from the catalogue alone: ``aclnnop/aclnn_util.h``, ``include/opgen/catalog.h``."""
    _install_filters(env)
    return {
        "aclnnop/aclnn_util.h": env.get_template("cpp/aclnn_util.h.j2").render(),
        "include/opgen/catalog.h": env.get_template("cpp/opgen_catalog.h.j2").render(**catalog_context(catalog)),
    }


def sample_index_text(index: list[dict]) -> str:
    """``samples/index.json`` from the ops' sample entries (in op order)."""
    return json.dumps({"samples": index}, ensure_ascii=False, indent=1) + "\n"


def sample_index(rendered: dict[str, str]) -> list[dict]:
    """The samples of a rendering (``files()`` output or a generated tree read as text), from
    ``samples/index.json``: dicts with ``path``, ``op``, ``lang``, ``products``, ``run_product``."""
    text = rendered.get("samples/index.json")
    return json.loads(text)["samples"] if text else []


def op_samples(rendered: dict[str, str], op: str, lang: str) -> list[dict]:
    """The samples of one op (its aclnn name) in one language, the example's product first: the index
    entries plus ``text``, the sample's source (what a doc page embeds, one per product data layout)."""
    return [
        {**entry, "text": rendered[entry["path"]]}
        for entry in sample_index(rendered)
        if entry["op"] == op and entry["lang"] == lang
    ]


def cpp_names(spec: OpSpec) -> dict[str, str]:
    """The C++ name of every parameter (headers, samples and host-runtime units agree)."""
    return identifiers([p.name for p in spec.params], RESERVED, DERIVED)


# ---------------------------------------------------------------------------------------------
# Text helpers


def _pick(text: Text | None, lang: str) -> str:
    """The text in ``lang`` (English falls back to Chinese), whitespace folded."""
    if text is None:
        return ""
    chosen = text.zh if lang == "zh" else (text.en or text.zh)
    return " ".join(chosen.split())


def _lines(text: str, width: int, indent: str = "") -> list[str]:
    """Comment-safe lines of ``text`` wrapped at ``width``."""
    return comment_lines(text, width, indent)


def _wrapped(prefix: str, tokens: list[str], suffix: str, width: int) -> list[str]:
    """``prefix`` + the comma-separated ``tokens`` + ``suffix``, wrapped at ``width`` with continuation
    lines aligned after ``prefix``."""
    pad = " " * len(prefix)
    lines, current = [], prefix
    for n, token in enumerate(tokens):
        piece = token + (", " if n < len(tokens) - 1 else suffix)
        if len(current) + len(piece.rstrip()) > width and current.strip() != prefix.strip():
            lines.append(current.rstrip())
            current = pad
        current += piece
    if not tokens:
        current += suffix
    lines.append(current)
    return lines


def _call_lines(head: str, args: list[str], tail: str, width: int) -> list[str]:
    """``head(arg, arg, ...)tail`` wrapped at ``width``."""
    return _wrapped(head + "(", args, ")" + tail, width)


# ---------------------------------------------------------------------------------------------
# Headers


def _param_doc(p: Param, products: list[str]) -> str:
    parts = [_pick(p.description, "en")]
    if p.tensor is not None:
        groups = []
        for rule in p.tensor.dtypes:
            tags = products if rule.products == "all" else rule.products
            groups.append(f"{', '.join(rule.dtypes)} on {', '.join(tags)}")
        parts.append(f"Dtypes: {'; '.join(groups)}. Formats: {', '.join(p.tensor.formats)}.")
        if p.tensor.rank is not None:
            low, high = p.tensor.rank.min, p.tensor.rank.max
            parts.append(f"Rank: {low}." if low == high else f"Rank: {low} to {high}.")
    if p.array is not None:
        parts.append(f"Elements: {p.array.element}{_lengths(p.array.lengths)}.")
    if p.value is not None and p.value.enum:
        parts.append("Values: " + ", ".join(f"{e.value} = {e.name}" for e in p.value.enum) + ".")
    elif p.value is not None and p.value.range:
        parts.append(f"Range: {p.value.range[0]} to {p.value.range[1]}.")
    if p.nullable:
        parts.append("May be nullptr.")
    return " ".join(part for part in parts if part)


def _lengths(lengths: list[int] | None) -> str:
    if not lengths:
        return ""
    words = [str(n) for n in lengths]
    return ", length " + (words[0] if len(words) == 1 else f"{', '.join(words[:-1])} or {words[-1]}")


def _api_context(info: OpInfo, catalog: Catalog, names: dict[str, str]) -> dict:
    spec = info.spec
    params = []
    for p in spec.params:
        direction = "out" if p.role == "output" else "in"
        doc = f"@param [{direction}] {p.name}: {_param_doc(p, spec.products)}"
        params.append({"doc": _lines(doc, WIDTH - 3, "    ")})
    phase1_args = [f"{p.ctype} {names[p.name]}" for p in spec.params]
    phase1_args += ["uint64_t* workspaceSize", "aclOpExecutor** executor"]
    phase2_args = [
        "void* workspace",
        "uint64_t workspaceSize",
        "aclOpExecutor* executor",
        f"{spec.stream_ctype} stream",
    ]
    products = ", ".join(f"{catalog.product(t).en} ({t})" for t in spec.products)
    return {
        "name": spec.name,
        "brief": _lines(
            f"@brief {spec.name}, first phase: checks the arguments, computes the size of the device workspace "
            f"and builds the executor that {spec.name} runs. {_pick(spec.summary, 'en')}",
            WIDTH - 3,
        ),
        "products": _lines(f"Products: {products}.", WIDTH - 3),
        "params": params,
        "phase1": _call_lines(f"ACLNN_API aclnnStatus {spec.name}GetWorkspaceSize", phase1_args, ";", WIDTH),
        "phase2": _call_lines(f"ACLNN_API aclnnStatus {spec.name}", phase2_args, ";", WIDTH),
    }


def header_contexts(catalog: Catalog, headers: list[dict]) -> dict[str, dict]:
    """One context per header file: the ``header_row``\\ s that name it, in the catalogue's declaration order."""
    by_file: dict[str, list[dict]] = {}
    for row in headers:
        by_file.setdefault(row["file"], []).append(row)
    entries = {entry.file: entry for entry in catalog.headers.headers}
    out = {}
    for file, rows in sorted(by_file.items()):
        entry = entries.get(file)
        order = list(entry.apis) if entry else []
        rows = sorted(rows, key=lambda r: (order.index(r["name"]) if r["name"] in order else len(order), r["name"]))
        specced = {r["name"] for r in rows}
        stem = file.rsplit("/", 1)[-1].removesuffix(".h")
        out[file] = {
            "sources": ", ".join(r["source"] for r in rows),
            "guard": entry.guard if entry else f"OP_API_INC_LEVEL2_{stem.upper()}_H_",
            "system_includes": list(entry.system_includes) if entry else [],
            "apis": [r["api"] for r in rows],
            "unspecified": [api for api in order if api not in specced],
        }
    return out


# ---------------------------------------------------------------------------------------------
# Catalogue header


def catalog_context(catalog: Catalog) -> dict:
    from generator.runtime import rules

    dtypes = catalog.dtypes.dtypes
    names = [d.name for d in dtypes]
    castable = [
        f"{{{a.value}, {b.value}}},  // {a.name} -> {b.name}"
        for a in dtypes
        for b in dtypes
        if rules.castable(a.name, b.name)
    ]
    promotion = []
    for a in dtypes:
        for b in dtypes:
            result = rules.PROMOTION.get((a.name, b.name))
            if result is not None and result in names:
                value = dtypes[names.index(result)].value
                promotion.append(f"{{{a.value}, {b.value}, {value}}},  // {a.name} x {b.name} -> {result}")
    spellings = {}
    for p in catalog.products.products:
        for text in (p.tag, p.zh, p.en, p.soc, *p.aliases):
            key = "".join(str(text).split()).lower().rstrip("。.")
            spellings.setdefault(key, p.tag)
    return {
        "dtypes": dtypes,
        "formats": catalog.formats.formats,
        "products": catalog.products.products,
        "product_spellings": sorted(spellings.items()),
        "castable": [comment(row) for row in castable] or ["{-1, -1},  // (none)"],
        "promotion": [comment(row) for row in promotion] or ["{-1, -1, -1},  // (none)"],
    }


# ---------------------------------------------------------------------------------------------
# Samples: literals


def _literal(value, host: str) -> str:
    """A C++ literal of ``value`` for a host element type."""
    if host == "bool":
        return "true" if value else "false"
    if host in ("float", "double"):
        value = float(value)
        if math.isnan(value):
            return "NAN"
        if math.isinf(value):
            return "INFINITY" if value > 0 else "-INFINITY"
        if host == "float" and abs(value) > 3.4028234663852886e38:
            raise SampleError(f"{value!r} does not fit the host type float")
        return repr(value) + ("f" if host == "float" else "")
    if isinstance(value, float) and not value.is_integer():
        raise SampleError(f"{value!r} is not an integer, but the host type is {host}")
    number = int(value)
    low, high = INT_RANGES[host]
    if not low <= number <= high:
        raise SampleError(f"{number} does not fit the host type {host}")
    if host in ("int64_t", "uint64_t") and not -(2**31) <= number < 2**31:
        return f"{'INT64_C' if host == 'int64_t' else 'UINT64_C'}({number})"
    if host == "uint32_t" and number >= 2**31:
        return f"{number}u"
    return str(number)


def _double(value) -> str:
    """A double literal for an expected value."""
    value = float(value)
    if math.isnan(value):
        return "NAN"
    if math.isinf(value):
        return "INFINITY" if value > 0 else "-INFINITY"
    return repr(value)


def _shape(shape) -> tuple[str, str]:
    dims = ", ".join(str(int(d)) for d in shape)
    return "{" + dims + "}", "[" + dims + "]"


# ---------------------------------------------------------------------------------------------
# Samples: the output tensors the example does not describe (evaluated from ``infer``)


def _example_scope(info: OpInfo) -> tuple[dict, dict[str, str]]:
    from generator.runtime import rules

    names = {p.name: f"p_{i}" for i, p in enumerate(info.spec.params)}
    scope: dict = {"rt": rules, "product": info.spec.example.product}
    for p in info.spec.params:
        value = info.spec.example.inputs.get(p.name)
        if isinstance(value, ExampleTensor):
            shape = tuple(value.shape)
            value = SimpleNamespace(
                shape=shape,
                dtype=value.dtype,
                format=value.format,
                rank=len(shape),
                numel=math.prod(shape),
                empty=0 in shape,
            )
        elif isinstance(value, ExampleScalar):
            value = SimpleNamespace(value=value.value, dtype=value.dtype)
        elif isinstance(value, list):
            value = tuple(value)
        scope[names[p.name]] = value
    return scope, names


def _evaluate(info: OpInfo, path: tuple, what: str):
    node = info.exprs[path]
    scope, names = _example_scope(info)
    try:
        return eval(ex.to_python(node, names), scope)  # our own parsed and type-checked expression
    except Exception as exc:
        raise SampleError(
            f"{info.spec.name}: cannot evaluate {what} '{ex.to_doc(node)}' on the example ({exc}); "
            "describe the output under example.expected"
        ) from None


def _default_format(p: Param, rank: int, *, nd_first: bool) -> str:
    """A format the parameter accepts: ND (when ``nd_first``) or torch_npu's format for the rank, else the first."""
    from generator.runtime.values import default_format

    for candidate in ("ND", default_format(rank)) if nd_first else (default_format(rank), "ND"):
        if candidate in p.tensor.formats:
            return candidate
    return p.tensor.formats[0]


def _format_of(p: Param, value: ExampleTensor) -> str:
    """The example's format; when it is not written, the model's ND if the parameter accepts it."""
    return value.format if "format" in value.model_fields_set else _default_format(p, len(value.shape), nd_first=True)


def _output(info: OpInfo, index: int, p: Param) -> tuple[list[int], str, str] | None:
    """(shape, dtype, format) of an output; None when the example does not request it (nullptr)."""
    expected = info.spec.example.expected.get(p.name)
    if expected is not None:
        return list(expected.shape), expected.dtype, _format_of(p, expected)
    base = ("params", index, "infer")
    if p.infer.when and p.nullable and not _evaluate(info, base + ("when",), f"{p.name}.infer.when"):
        return None
    shape = [int(v) for v in _evaluate(info, base + ("shape",), f"{p.name}.infer.shape")]
    dtype = str(_evaluate(info, base + ("dtype",), f"{p.name}.infer.dtype"))
    if p.infer.format:
        return shape, dtype, str(_evaluate(info, base + ("format",), f"{p.name}.infer.format"))
    return shape, dtype, _default_format(p, len(shape), nd_first=False)  # OutputInfer's documented default


# ---------------------------------------------------------------------------------------------
# Samples: per-product data layouts (an example tensor given as mask_from_argmax)


def _kernel_value(info: OpInfo, name: str, what: str, product: str):
    """The example's value for an argument of a kernel function (``product``, ``kernel_size``, ``self_shape``)."""
    example = info.spec.example
    if name == "product":
        return product
    by_snake = {snake_case(p.name): p.name for p in info.spec.params}
    stem = name.removesuffix("_shape")
    if name.endswith("_shape") and isinstance(example.inputs.get(by_snake.get(stem, "")), ExampleTensor):
        return tuple(example.inputs[by_snake[stem]].shape)
    if name in by_snake and by_snake[name] in example.inputs:
        value = example.inputs[by_snake[name]]
        return tuple(value) if isinstance(value, list) else value
    raise SampleError(f"{what}: the example has no value for the mask argument '{name}'")


def _call_kernel(func, info: OpInfo, what: str, product: str):
    args = {name: _kernel_value(info, name, what, product) for name in inspect.signature(func).parameters}
    try:
        return func(**args)
    except (TypeError, ValueError) as exc:
        raise SampleError(f"{what}: {func.__name__} rejects the example ({exc})") from None


def _mask_module(info: OpInfo, what: str):
    if info.spec.kernel is None:
        raise SampleError(f"{what}: mask_from_argmax needs the op's reference kernel (spec.kernel) for the layout")
    module = importlib.import_module(f"generator.kernels.{info.spec.kernel.module}")
    if not hasattr(module, "mask_layout") or not hasattr(module, "mask_shape"):
        raise SampleError(f"{what}: kernel module {module.__name__} defines no mask_layout/mask_shape")
    return module


def _layouts(info: OpInfo, product: str) -> tuple:
    """The data layout of every product-dependent example input on ``product`` (empty: none)."""
    layouts = []
    for p in info.spec.params:
        value = info.spec.example.inputs.get(p.name)
        if isinstance(value, ExampleTensor) and value.mask_from_argmax is not None:
            what = f"{info.spec.name} example.inputs.{p.name}"
            layout = _call_kernel(_mask_module(info, what).mask_layout, info, what, product)
            if layout not in MASK_BUILDERS:
                raise SampleError(f"{what}: no C++ builder for the mask layout '{layout}'")
            layouts.append((p.name, layout))
    return tuple(layouts)


class _SampleEntry(SimpleNamespace):
    """One sample of an op: its file name, the products it is for and the product it runs on."""

    def __hash__(self):
        return hash(self.file)


def _groups(info: OpInfo) -> list[_SampleEntry]:
    """Products grouped by data layout; the example's group first (plain file name)."""
    spec = info.spec
    example = spec.example.product
    by_layout: dict[tuple, list[str]] = {}
    for tag in spec.products:
        by_layout.setdefault(_layouts(info, tag), []).append(tag)
    groups = []
    for layout, tags in by_layout.items():
        run = example if example in tags else tags[0]
        suffix = "" if example in tags else f"_{run}"
        groups.append(
            _SampleEntry(file=f"{spec.snake}{suffix}.cpp", products=tuple(tags), run_product=run, layout=layout)
        )
    return sorted(groups, key=lambda g: g.file != f"{spec.snake}.cpp")


def _mask(info: OpInfo, p: Param, value: ExampleTensor, product: str, lang: str, catalog: Catalog) -> dict:
    what = f"{info.spec.name} example.inputs.{p.name}"
    module = _mask_module(info, what)
    layout = _call_kernel(module.mask_layout, info, what, product)
    needed = _call_kernel(module.mask_shape, info, what, product)
    if math.prod(value.shape) < math.prod(needed):
        raise SampleError(f"{what}: shape {value.shape} holds fewer bytes than the mask layout needs {list(needed)}")
    template, function, arg_names = MASK_BUILDERS[layout]
    local = cpp_names(info.spec)[p.name]
    args = [f"{local}Argmax", f"{local}Shape", *(_kernel_local(info, a) for a in arg_names)]
    words = PHRASES[lang]
    label = words["mask_v1" if layout == "v1_bitmask" else "mask_a2"]
    product_name = getattr(catalog.product(product), lang)
    text = words["mask"].format(name=p.name, product=product_name, label=label, function=function)
    return {
        "name": p.name,
        "template": template,
        "comment": _lines(text, WIDTH - 7),
        "argmax": _wrapped(
            f"std::vector<int64_t> {local}Argmax = {{",
            [_literal(v, "int64_t") for v in value.mask_from_argmax],
            "};",
            WIDTH - 4,
        ),
        "build": _call_lines(f"std::vector<int8_t> {local}HostData = {function}", args, ";", WIDTH - 4),
    }


def _kernel_local(info: OpInfo, name: str) -> str:
    """The sample local holding the value of a kernel-function argument (C++ names)."""
    names = cpp_names(info.spec)
    by_snake = {snake_case(p.name): p for p in info.spec.params}
    if name.endswith("_shape") and name.removesuffix("_shape") in by_snake:
        return f"{names[by_snake[name.removesuffix('_shape')].name]}Shape"
    p = by_snake[name]
    return f"{names[p.name]}Values" if p.ctype in ARRAY_CTYPES else names[p.name]


# ---------------------------------------------------------------------------------------------
# Samples: context


class _Needs:
    """Which optional helpers and headers the sample uses."""

    def __init__(self):
        self.handles = False
        self.to_bits: set[str] = set()  # FloatToHalf / FloatToBf16
        self.from_bits: set[str] = set()  # HalfToFloat / Bf16ToFloat
        self.bits_list = self.bool_tensor = self.bool_output = self.shape_size = False
        self.cmath = self.compare = self.print = False

    def literal(self, value, host: str) -> str:
        text = _literal(value, host)
        self.cmath |= text in ("NAN", "INFINITY", "-INFINITY")
        return text


def _host(catalog: Catalog, dtype: str, what: str) -> tuple[str, str, str | None]:
    """(c_host, aclDataType value expression, float->bits converter or None) of a dtype."""
    entry = catalog.dtype(dtype)
    if entry.c_host is None or entry.kind in ("float8", "complex", "other"):
        raise SampleError(f"{what}: the sample cannot hold {dtype} values on the host (no c_host / no converter)")
    if entry.c_host == "uint16_t" and entry.kind == "float" and dtype not in TO_BITS:
        raise SampleError(f"{what}: no float conversion helper for {dtype}")
    if entry.kind == "float" and entry.c_host not in ("float", "double", "uint16_t"):
        raise SampleError(f"{what}: {dtype} values cannot be held in {entry.c_host}")
    return entry.c_host, _acl_dtype(catalog, dtype), TO_BITS.get(dtype) if entry.kind == "float" else None


def _enumerators() -> dict[str, dict[str, int]]:
    """The members of the ACL header's aclDataType and aclFormat enums: type -> name -> value."""
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "include" / "acl" / "acl_base.h").read_text(encoding="utf-8")
    out = {}
    for body, kind in re.findall(r"typedef enum \{(.*?)\} (aclDataType|aclFormat);", text, re.S):
        out[kind] = {name: int(value) for name, value in re.findall(r"(ACL_[A-Z0-9_]+) = (-?\d+)", body)}
    return out


_ENUMERATORS = _enumerators()


def _acl_enum(kind: str, name: str, value: int) -> str:
    """The ACL enumerator when the header has it with this value, else the value cast to the enum type."""
    return name if _ENUMERATORS.get(kind, {}).get(name) == value else f"static_cast<{kind}>({value})"


def _acl_dtype(catalog: Catalog, dtype: str) -> str:
    entry = catalog.dtype(dtype)
    return _acl_enum("aclDataType", entry.acl, entry.value)


def _acl_format(catalog: Catalog, fmt: str) -> str:
    entry = catalog.format(fmt)
    return _acl_enum("aclFormat", entry.acl, entry.value)


def _tensor(
    catalog: Catalog, needs: _Needs, p: Param, local: str, value: ExampleTensor | None, shape, dtype: str, fmt: str,
    words: dict,
) -> dict:  # fmt: skip
    what = f"parameter {p.name}"
    host, acl, to_bits = _host(catalog, dtype, what)
    shape_init, shape_text = _shape(shape)
    needs.bool_tensor |= host == "bool"
    mask = value is not None and value.mask_from_argmax is not None
    key = "tensor_output" if p.role == "output" else "tensor"
    note = ""
    element = "float" if to_bits else host
    if to_bits:
        needs.to_bits.add(to_bits)
    decl = f"std::vector<{host}> {local}HostData"
    if mask:
        data = []  # built after the values the mask builder needs
        note = words["mask_data"]
    elif value is not None and value.data is not None:
        literals = [needs.literal(v, element) for v in value.data]
        if to_bits:
            needs.bits_list = True
            data = _wrapped(f"{decl} = ToBits({{", literals, f"}}, {to_bits});", WIDTH - 4)
        else:
            data = _wrapped(f"{decl} = {{", literals, "};", WIDTH - 4)
    else:
        fill = value.fill if value is not None and value.fill is not None else 0
        literal = needs.literal(fill, element)
        needs.shape_size = True
        data = [f"{decl}(GetShapeSize({local}Shape), {f'{to_bits}({literal})' if to_bits else literal});"]
        if p.role != "output" and (value is None or value.fill is None):
            note = words["zeros"]
    head = words[key].format(name=p.name, dtype=dtype, shape=shape_text, format=fmt)
    create_args = [f"{local}HostData", f"{local}Shape", acl, _acl_format(catalog, fmt), f"&{local}"]
    return {
        "kind": "tensor",
        "name": p.name,
        "local": local,
        "role": p.role,
        "dtype": dtype,
        "host": host,
        "shape": shape_init,
        "comment": _lines(head + note, WIDTH - 7),
        "data": data,
        "mask": mask,
        "create": _call_lines("CHECK_ACL(CreateAclTensor", create_args, ");", WIDTH - 4),
    }


def _expected(info: OpInfo, catalog: Catalog, needs: _Needs, item: dict, words: dict) -> None:
    """The expected values of an output (a vector of doubles) and how its host data becomes doubles."""
    example = info.spec.example
    expected = example.expected.get(item["name"])
    local = item["local"]
    bits = FROM_BITS.get(item["dtype"]) if catalog.dtype(item["dtype"]).c_host == "uint16_t" else None
    if bits and catalog.dtype(item["dtype"]).kind == "float":
        needs.from_bits.add(bits)
        item["as_double"] = f"ToDouble({local}HostData, {bits})"
    else:
        item["as_double"] = f"ToDouble({local}HostData)"
    item["expected"] = []
    if expected is None or (expected.data is None and expected.fill is None):
        needs.print = True
        return
    needs.compare = True
    tol = example.tolerance
    item["tolerance"] = (_double(tol.rtol), _double(tol.atol))
    item["expected_comment"] = words["expected"].format(rtol=f"{tol.rtol:g}", atol=f"{tol.atol:g}")
    decl = f"std::vector<double> {local}Expected"
    if expected.data is not None:
        values = [_double(v) for v in expected.data]
        needs.cmath |= any(v in ("NAN", "INFINITY", "-INFINITY") for v in values)
        item["expected"] = _wrapped(f"{decl} = {{", values, "};", WIDTH - 4)
    else:
        needs.shape_size = True
        item["expected"] = [f"{decl}(GetShapeSize({local}Shape), {_double(expected.fill)});"]


def _item(info: OpInfo, catalog: Catalog, needs: _Needs, masks: list, entry: _SampleEntry, lang: str, index: int,
          p: Param, local: str, words: dict) -> dict:  # fmt: skip
    """The sample item (template data) of one parameter."""
    spec, example = info.spec, info.spec.example
    what = f"{spec.name} example, parameter {p.name}"
    value = example.inputs.get(p.name)
    kind = expr_type(p)
    if p.role == "output":
        found = _output(info, index, p)
        if found is None:
            return _null(p, local, words["null_output"])
        item = _tensor(catalog, needs, p, local, None, *found, words)
        needs.bool_output |= item["host"] == "bool"
        _expected(info, catalog, needs, item, words)
        return item
    if value is None:
        if not p.nullable:
            raise SampleError(f"{what}: the example gives no value and the parameter is not nullable")
        return _null(p, local, words["null_optional"])
    if p.ctype in ("const aclTensor*", "aclTensor*") and kind == ex.TENSOR:
        if not isinstance(value, ExampleTensor):
            raise SampleError(f"{what}: a tensor needs shape, dtype and data")
        item = _tensor(catalog, needs, p, local, value, value.shape, value.dtype, _format_of(p, value), words)
        if item["mask"]:
            masks.append(_mask(info, p, value, entry.run_product, lang, catalog))
            needs.shape_size = True
        return item
    if p.ctype == "const aclTensorList*":
        if not isinstance(value, list) or not all(isinstance(v, ExampleTensor) for v in value):
            raise SampleError(f"{what}: an aclTensorList needs a list of tensors")
        tensors = []
        for i, tensor in enumerate(value):
            if tensor.mask_from_argmax is not None:
                raise SampleError(f"{what}: a tensor of a list cannot be given as mask_from_argmax")
            part = SimpleNamespace(name=f"{p.name}[{i}]", role="input")
            tensors.append(
                _tensor(
                    catalog, needs, part, f"{local}Item{i}", tensor, tensor.shape, tensor.dtype, tensor.format, words
                )  # fmt: skip
            )
        needs.handles = True
        return {
            "kind": "tensor_list",
            "name": p.name,
            "local": local,
            "tensors": tensors,
            "pointers": _wrapped(
                f"const aclTensor* {local}Items[] = {{",
                [f"{t['local']}.tensor.get()" for t in tensors],
                "};",
                WIDTH - 4,
            )
            if tensors
            else [],
            "create": _call_lines(
                f"Handle<aclTensorList> {local}(aclCreateTensorList",
                [f"{local}Items" if tensors else "nullptr", str(len(tensors))],
                ", aclDestroyTensorList);",
                WIDTH - 4,
            ),
        }
    if p.ctype in ("const char*", "char*"):
        if not isinstance(value, str):
            raise SampleError(f"{what}: a {p.ctype} needs a string")
        return {"kind": "string", "name": p.name, "local": local, "value": string_literal(value)}
    if p.ctype == "const aclScalar*":
        if not isinstance(value, ExampleScalar):
            raise SampleError(f"{what}: an aclScalar needs value and dtype")
        host, acl, to_bits = _host(catalog, value.dtype, what)
        needs.handles = True
        literal = needs.literal(value.value, "float" if to_bits else host)
        if to_bits:
            needs.to_bits.add(to_bits)
            literal = f"{to_bits}({literal})"
        return {
            "kind": "scalar",
            "name": p.name,
            "local": local,
            "host": host,
            "value": literal,
            "acl_dtype": acl,
            "comment": _lines(words["scalar"].format(name=p.name, dtype=value.dtype), WIDTH - 7),
        }
    if p.ctype in ARRAY_CTYPES:
        if not isinstance(value, list) or any(isinstance(v, ExampleTensor) for v in value):
            raise SampleError(f"{what}: an array needs a list of values")
        return _array(needs, p, local, value)
    if p.ctype in PLAIN_CTYPES:
        if isinstance(value, (list, dict, str)) or value is None:
            raise SampleError(f"{what}: a {p.ctype} needs a plain value")
        enum = {e.value: e.name for e in (p.value.enum or [])} if p.value else {}
        note = comment(words["enum"].format(value=value, name=enum[value])) if value in enum else ""
        return {
            "kind": "plain",
            "name": p.name,
            "local": local,
            "ctype": p.ctype,
            "value": needs.literal(value, {"int": "int32_t"}.get(p.ctype, p.ctype)),
            "note": note,
        }
    raise SampleError(f"{what}: the sample cannot build a {p.ctype} from the example")


def _sample_context(info: OpInfo, catalog: Catalog, names: dict[str, str], entry: _SampleEntry, lang: str,
                    others: list[_SampleEntry]) -> dict:  # fmt: skip
    spec, example = info.spec, info.spec.example
    words = PHRASES[lang]
    needs = _Needs()
    items: list[dict] = []
    masks: list[dict] = []
    for index, p in enumerate(spec.params):
        field = ("example", "expected" if p.role == "output" else "inputs", p.name)
        try:
            item = _item(info, catalog, needs, masks, entry, lang, index, p, names[p.name], words)
        except SampleError as exc:
            raise SampleError(str(exc), exc.path if exc.path != ("example",) else field) from None
        items.append(item)

    args = [_argument(item) for item in items] + ["&workspaceSize", "&executor"]
    includes = ["<cstdint>", "<cstdio>", "<memory>", "<vector>"]
    if needs.cmath or needs.compare or "HalfToFloat" in needs.from_bits:
        includes.insert(0, "<cmath>")
    if needs.to_bits or "Bf16ToFloat" in needs.from_bits:
        includes.insert(includes.index("<memory>"), "<cstring>")
    if others:  # the SoC check
        includes = sorted({*includes, "<cctype>", "<string>"}, key=_include_order)
    return {
        "source": info.path.name,
        "name": spec.name,
        "header": spec.header,
        "lang": lang,
        "C": _phrase_lines(lang),
        "T": words,
        "title": _lines(
            words["title"].format(name=spec.name) + ("" if lang == "zh" else " ") + _pick(spec.summary, lang), WIDTH - 3
        ),
        "product_lines": _product_lines(info, catalog, entry, others, lang),
        "example_text": _lines(words["example"].format(text=_pick(example.text, lang)), WIDTH - 3, "  ")
        if example.text
        else [],
        "intro": _lines(words["intro"].format(name=spec.name), WIDTH - 3),
        "build": _build_lines(spec.snake if entry.file == f"{spec.snake}.cpp" else entry.file[:-4], words),
        "includes": includes,
        "features": {
            "handles": needs.handles or any(i["kind"] in ("array", "scalar", "tensor_list") for i in items),
            "bool_tensor": needs.bool_tensor,
            "bool_output": needs.bool_output,
            "shape_size": needs.shape_size,
            "float_bits": bool(needs.to_bits),
            "half_to": "FloatToHalf" in needs.to_bits,
            "bf16_to": "FloatToBf16" in needs.to_bits,
            "to_bits_list": needs.bits_list,
            "half_from": "HalfToFloat" in needs.from_bits,
            "bf16_from": "Bf16ToFloat" in needs.from_bits,
            "compare": needs.compare,
            "print": needs.print,
        },
        "soc_check": _soc_check(catalog, entry, words) if others else None,
        "items": items,
        "masks": masks,
        "mask_templates": sorted({m["template"] for m in masks}),
        "phase1": _call_lines(f"CHECK_ACL({spec.name}GetWorkspaceSize", args, ");", WIDTH - 4),
        "outputs": [i for i in items if i["kind"] == "tensor" and i["role"] == "output"],
    }


_PHRASE_LINES: dict[str, dict[str, list[str]]] = {}


def _phrase_lines(lang: str) -> dict[str, list[str]]:
    """Every phrase of ``lang`` as comment lines (the same for every sample: computed once)."""
    if lang not in _PHRASE_LINES:
        _PHRASE_LINES[lang] = {key: _lines(text, WIDTH - 7) for key, text in PHRASES[lang].items()}
    return _PHRASE_LINES[lang]


def _include_order(name: str) -> tuple:
    return (name != "<array>", name)


def _null(p: Param, local: str, why: str) -> dict:
    return {"kind": "null", "name": p.name, "local": local, "ctype": p.ctype, "why": comment(why)}


def _array(needs: _Needs, p: Param, local: str, value: list) -> dict:
    handle, element = ARRAY_CTYPES[p.ctype]
    values = f"{local}Values"
    literals = [needs.literal(v, element) for v in value]
    if handle == "BoolArray":  # std::vector<bool> has no data(): use a plain array
        if literals:
            data = _wrapped(f"bool {values}[] = {{", literals, "};", WIDTH - 4)
            pointer, size = values, f"sizeof({values}) / sizeof({values}[0])"
        else:
            data, pointer, size = [], "nullptr", "0"
    else:
        data = _wrapped(f"std::vector<{element}> {values} = {{", literals, "};", WIDTH - 4)
        pointer, size = f"{values}.data()", f"{values}.size()"
    create = _call_lines(
        f"Handle<acl{handle}> {local}(aclCreate{handle}",
        [pointer, size],
        f", aclDestroy{handle});",
        WIDTH - 4,
    )
    return {"kind": "array", "name": p.name, "local": local, "data": data, "create": create}


def _argument(item: dict) -> str:
    if item["kind"] == "tensor":
        return f"{item['local']}.tensor.get()"
    if item["kind"] in ("scalar", "array", "tensor_list"):
        return f"{item['local']}.get()"
    return item["local"]


def _product_lines(info: OpInfo, catalog: Catalog, entry: _SampleEntry, others: list, lang: str) -> list[str]:
    words = PHRASES[lang]
    names = [f"{getattr(catalog.product(t), lang)} ({t})" for t in entry.products]
    key = "products" if len(names) > 1 else "product"
    lines = _lines(words[key].format(products=", ".join(names)), WIDTH - 3)
    if others:
        params = ", ".join(name for name, _ in entry.layout)
        refs = "; ".join(words["other_sample"].format(file=o.file, products=", ".join(o.products)) for o in others)
        lines += _lines(words["layout"].format(params=params, others=refs), WIDTH - 3)
    return lines


def _build_lines(stem: str, words: dict) -> list[str]:
    return [
        words["build"],
        f'  g++ -std=c++11 -o {stem} {stem}.cpp -I"$ASCEND_TOOLKIT_HOME/include" -L"$ASCEND_TOOLKIT_HOME/lib64" '
        "-lopapi -lnnopbase -lascendcl",
        f"  ./{stem}",
    ]


def _soc_check(catalog: Catalog, entry: _SampleEntry, words: dict) -> dict:
    products = catalog.products.products
    table = [f"{{{string_literal(p.soc.lower())}, {string_literal(p.tag)}}}" for p in products]
    targets = [string_literal(t) for t in entry.products]
    names = ", ".join(f"{catalog.product(t).en} ({t})" for t in entry.products)
    return {
        "comment": _lines(words["soc"], WIDTH - 3),
        "table": _wrapped("    static const char* const kSocs[][2] = {", table, "};", WIDTH),
        "targets": _wrapped("    static const char* const kTargets[] = {", targets, "};", WIDTH),
        "products": string_literal(names),
    }


def _samples(info: OpInfo, catalog: Catalog, names: dict[str, str], env) -> dict[_SampleEntry, dict[str, dict]]:
    """Every sample of an op: entry -> {lang: template context}."""
    groups = _groups(info)
    out: dict[_SampleEntry, dict[str, dict]] = {}
    for entry in groups:
        others = [g for g in groups if g is not entry]
        out[entry] = {}
        for lang in LANGS:
            context = _sample_context(info, catalog, names, entry, lang, others)
            context["mask_helpers"] = [
                env.get_template(t).render(lang=lang).rstrip("\n") for t in context["mask_templates"]
            ]
            out[entry][lang] = context
    return out


def sample_context(info: OpInfo, catalog: Catalog, lang: str = "en") -> dict:
    """The template context of the op's main sample (the example's product) in ``lang``."""
    groups = _groups(info)
    return _sample_context(info, catalog, cpp_names(info.spec), groups[0], lang, groups[1:])
