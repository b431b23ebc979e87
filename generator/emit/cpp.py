"""C/C++ emitter: ``aclnnop/aclnn_<op>.h`` headers and ``samples/<snake>.cpp`` call samples.

``files(project, env)`` renders ``templates/cpp/header.h.j2`` and ``templates/cpp/sample.cpp.j2`` for every op.
The contexts are plain data built here from the spec and the catalogues: C types and parameter names from the
spec, host element types (``c_host``) and ``ACL_*`` dtype/format enumerators from the catalogues, values from
the spec's ``example``. Nothing here is specific to one operator. The one op-related piece, the encoding of an
example tensor given as ``mask_from_argmax``, takes its layout from the op's reference kernel module
(``mask_layout``/``mask_shape``, called with the example's values) and renders one C++ builder per layout
(``templates/cpp/mask_<layout>.j2``).

A spec whose example cannot be turned into a sample raises :class:`SampleError` naming the parameter.
"""

from __future__ import annotations

import importlib
import inspect
import math
import textwrap
from types import SimpleNamespace

from generator import expr as ex
from generator.loader import Catalog, OpInfo, Project, expr_type
from generator.model import ExampleScalar, ExampleTensor, Param, Text, snake_case

WIDTH = 120  # the samples' and headers' line length

ARRAY_CTYPES = {  # ctype -> (handle name, host element type)
    "const aclIntArray*": ("IntArray", "int64_t"),
    "const aclBoolArray*": ("BoolArray", "bool"),
    "const aclFloatArray*": ("FloatArray", "float"),
}
INT_RANGES = {
    "int8_t": (-(2**7), 2**7 - 1),
    "uint8_t": (0, 2**8 - 1),
    "int16_t": (-(2**15), 2**15 - 1),
    "uint16_t": (0, 2**16 - 1),
    "int": (-(2**31), 2**31 - 1),
    "int32_t": (-(2**31), 2**31 - 1),
    "uint32_t": (0, 2**32 - 1),
    "int64_t": (-(2**63) + 1, 2**63 - 1),  # -2**63 has no literal spelling
    "uint64_t": (0, 2**64 - 1),
}
PLAIN_CTYPES = ("bool", "int", "int8_t", "int32_t", "int64_t", "uint64_t", "float", "double")

# Dtypes whose host vectors hold bit patterns (c_host uint16_t): written as floats through a converter,
# printed through the reverse one.
TO_BITS = {"FLOAT16": "FloatToHalf", "BFLOAT16": "FloatToBf16"}
FROM_BITS = {"FLOAT16": "HalfToFloat", "BFLOAT16": "Bf16ToFloat"}

# The C++ builder of each mask layout returned by the kernel module's mask_layout(): its template, its
# function and the arguments it takes after (argmax, maskShape), named as in the kernel's encode_mask.
MASK_BUILDERS = {
    "v1_bitmask": (
        "cpp/mask_v1_bitmask.j2",
        "BuildBitMask",
        "bit-mask layout",
        ("self_shape", "kernel_size", "stride", "padding", "ceil_mode"),
    ),
    "a2_int32": ("cpp/mask_a2_int32.j2", "BuildArgmaxMask", "int32 argmax layout", ()),
}

# Names the sample defines itself; no parameter (nor a local derived from one) may use them.
RESERVED = frozenset(
    "acl workspace workspaceSize executor main i AclRuntime DeviceTensor Releaser DevicePtr CreateAclTensor "
    "CopyToHost MallocDevice GetShapeSize FloatBits ShiftRoundEven FloatToHalf FloatToBf16 HalfToFloat "
    "Bf16ToFloat ToBits AxisValue PoolOut BuildBitMask BuildArgmaxMask".split()
)


class SampleError(ValueError):
    """The spec's example cannot be turned into a C++ sample; the message names what is missing."""


def files(project: Project, env) -> dict[str, str]:
    out: dict[str, str] = {}
    for info in project.ops:
        out.update(op_files(info, project.catalog, env))
    out.update(aggregate_files(project.catalog, env))
    return out


def op_files(info: OpInfo, catalog: Catalog, env) -> dict[str, str]:
    """The files of one op (its header and call sample); they depend on nothing but the op and the catalogue."""
    header = env.get_template("cpp/header.h.j2")
    sample = env.get_template("cpp/sample.cpp.j2")
    out = {info.spec.header: header.render(**header_context(info, catalog))}
    context = sample_context(info, catalog)
    context["mask_helpers"] = [env.get_template(t).render().rstrip("\n") for t in context["mask_templates"]]
    out[f"samples/{info.spec.snake}.cpp"] = sample.render(**context)
    return out


def aggregate_files(catalog: Catalog, env) -> dict[str, str]:
    """The files that do not belong to one op (``include/opgen/catalog.h``)."""
    return {
        "include/opgen/catalog.h": env.get_template("cpp/opgen_catalog.h.j2").render(
            dtypes=[d for d in catalog.dtypes.dtypes], formats=[f for f in catalog.formats.formats]
        )
    }


# ---------------------------------------------------------------------------------------------
# Text helpers


def _text(text: Text | None) -> str:
    """English prose (Chinese when there is none yet) on one line, safe inside a C comment."""
    if text is None:
        return ""
    return " ".join((text.en or text.zh).split()).replace("*/", "* /")


def _lines(text: str, width: int, indent: str = "") -> list[str]:
    if not text:
        return []
    return textwrap.wrap(text, width, subsequent_indent=indent, break_long_words=False, break_on_hyphens=False)


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
# Header


def _param_doc(p: Param, products: list[str]) -> str:
    parts = [_text(p.description)]
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


def header_context(info: OpInfo, catalog: Catalog) -> dict:
    spec = info.spec
    guard = "OP_API_INC_" + spec.header.rsplit("/", 1)[-1].replace(".", "_").upper() + "_"
    params = []
    for p in spec.params:
        direction = "out" if p.role == "output" else "in"
        params.append(
            {"doc": _lines(f"@param [{direction}] {p.name}: {_param_doc(p, spec.products)}", WIDTH - 3, "    ")}
        )
    phase1_args = [f"{p.ctype} {p.name}" for p in spec.params] + ["uint64_t* workspaceSize", "aclOpExecutor** executor"]
    phase2_args = [
        "void* workspace",
        "uint64_t workspaceSize",
        "aclOpExecutor* executor",
        f"{spec.stream_ctype} stream",
    ]
    return {
        "source": info.path.name,
        "guard": guard,
        "name": spec.name,
        "brief": _lines(
            f"@brief {spec.name}, first phase: checks the arguments, computes the size of the device workspace "
            f"and builds the executor that {spec.name} runs. {_text(spec.summary)}",
            WIDTH - 3,
        ),
        "products": _lines(
            "Products: " + ", ".join(f"{catalog.product(t).en} ({t})" for t in spec.products) + ".", WIDTH - 3
        ),
        "params": params,
        "phase1": _call_lines(f"aclnnStatus {spec.name}GetWorkspaceSize", phase1_args, ";", WIDTH),
        "phase2": _call_lines(f"aclnnStatus {spec.name}", phase2_args, ";", WIDTH),
    }


# ---------------------------------------------------------------------------------------------
# Sample: literals


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
        return repr(value) + ("f" if host == "float" else "")
    if isinstance(value, float) and not value.is_integer():
        raise SampleError(f"{value!r} is not an integer, but the host type is {host}")
    number = int(value)
    low, high = INT_RANGES[host]
    if not low <= number <= high:
        raise SampleError(f"{number} does not fit the host type {host}")
    if host in ("int64_t", "uint64_t") and not -(2**31) <= number < 2**31:
        return f"{'INT64_C' if host == 'int64_t' else 'UINT64_C'}({number})"
    return str(number)


def _compact(value) -> str:
    """A number for comments (2.0 -> 2)."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value).lower() if isinstance(value, bool) else repr(value)


def _shape(shape) -> tuple[str, str]:
    dims = ", ".join(str(int(d)) for d in shape)
    return "{" + dims + "}", "[" + dims + "]"


# ---------------------------------------------------------------------------------------------
# Sample: the output tensors the example does not describe (evaluated from ``infer``)


def _example_scope(info: OpInfo) -> tuple[dict, dict[str, str]]:
    from generator.runtime import rules

    names = {p.name: f"p_{p.name}" for p in info.spec.params}
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
# Sample: an example tensor given as mask_from_argmax


def _kernel_value(info: OpInfo, name: str, what: str):
    """The example's value for an argument of a kernel function (``product``, ``kernel_size``, ``self_shape``)."""
    example = info.spec.example
    if name == "product":
        return example.product
    by_snake = {snake_case(p.name): p.name for p in info.spec.params}
    stem = name.removesuffix("_shape")
    if name.endswith("_shape") and isinstance(example.inputs.get(by_snake.get(stem, "")), ExampleTensor):
        return tuple(example.inputs[by_snake[stem]].shape)
    if name in by_snake and by_snake[name] in example.inputs:
        value = example.inputs[by_snake[name]]
        return tuple(value) if isinstance(value, list) else value
    raise SampleError(f"{what}: the example has no value for the mask argument '{name}'")


def _kernel_local(info: OpInfo, name: str) -> str:
    """The sample local holding the value of a kernel-function argument."""
    by_snake = {snake_case(p.name): p for p in info.spec.params}
    if name.endswith("_shape") and name.removesuffix("_shape") in by_snake:
        return f"{by_snake[name.removesuffix('_shape')].name}Shape"
    p = by_snake[name]
    return f"{p.name}Values" if p.ctype in ARRAY_CTYPES else p.name


def _call_kernel(func, info: OpInfo, what: str):
    args = {name: _kernel_value(info, name, what) for name in inspect.signature(func).parameters}
    try:
        return func(**args)
    except (TypeError, ValueError) as exc:
        raise SampleError(f"{what}: {func.__name__} rejects the example ({exc})") from None


def _mask(info: OpInfo, p: Param, value: ExampleTensor) -> dict:
    what = f"{info.spec.name} example.inputs.{p.name}"
    if info.spec.kernel is None:
        raise SampleError(f"{what}: mask_from_argmax needs the op's reference kernel (spec.kernel) for the layout")
    module = importlib.import_module(f"generator.kernels.{info.spec.kernel.module}")
    if not hasattr(module, "mask_layout") or not hasattr(module, "mask_shape"):
        raise SampleError(f"{what}: kernel module {module.__name__} defines no mask_layout/mask_shape")
    layout = _call_kernel(module.mask_layout, info, what)
    if layout not in MASK_BUILDERS:
        raise SampleError(f"{what}: no C++ builder for the mask layout '{layout}'")
    needed = _call_kernel(module.mask_shape, info, what)
    if math.prod(value.shape) < math.prod(needed):
        raise SampleError(f"{what}: shape {value.shape} holds fewer bytes than the mask layout needs {list(needed)}")
    template, function, label, arg_names = MASK_BUILDERS[layout]
    args = [f"{p.name}Argmax", f"{p.name}Shape", *(_kernel_local(info, a) for a in arg_names)]
    product = info.spec.example.product
    comment = (
        f'{p.name}: the mask the forward op writes on product "{product}" ({label}, see {function}) for these '
        "argmax values: the flat index h * W + w of each output element's window maximum."
    )
    return {
        "name": p.name,
        "template": template,
        "comment": _lines(comment, WIDTH - 7),
        "data": [
            *_wrapped(
                f"std::vector<int64_t> {p.name}Argmax = {{",
                [_literal(v, "int64_t") for v in value.mask_from_argmax],
                "};",
                WIDTH - 4,
            ),
            *_call_lines(f"std::vector<int8_t> {p.name}HostData = {function}", args, ";", WIDTH - 4),
        ],
    }


# ---------------------------------------------------------------------------------------------
# Sample: context


class _Needs:
    """Which optional helpers and headers the sample uses."""

    def __init__(self):
        self.handles: list[str] = []  # Tensor, Scalar, IntArray, BoolArray, FloatArray (first use order)
        self.to_bits: set[str] = set()  # FloatToHalf / FloatToBf16
        self.from_bits: set[str] = set()  # HalfToFloat / Bf16ToFloat
        self.bits_list = self.bool_tensor = self.bool_output = self.shape_size = False
        self.std_array = self.cmath = False

    def handle(self, name: str) -> None:
        if name not in self.handles:
            self.handles.append(name)

    def literal(self, value, host: str) -> str:
        text = _literal(value, host)
        self.cmath |= text in ("NAN", "INFINITY", "-INFINITY")
        return text


def _host(catalog: Catalog, dtype: str, what: str) -> tuple[str, str, str | None]:
    """(c_host, ACL enumerator, float->bits converter or None) of a dtype."""
    entry = catalog.dtype(dtype)
    if entry.c_host is None or (entry.kind == "float8"):
        raise SampleError(f"{what}: the sample cannot hold {dtype} values on the host (no c_host / no converter)")
    if entry.c_host == "uint16_t" and entry.kind == "float" and dtype not in TO_BITS:
        raise SampleError(f"{what}: no float conversion helper for {dtype}")
    return entry.c_host, entry.acl, TO_BITS.get(dtype) if entry.kind == "float" else None


def _tensor(
    catalog: Catalog, needs: _Needs, p: Param, value: ExampleTensor | None, shape, dtype: str, fmt: str
) -> dict:
    what = f"parameter {p.name}"
    host, acl, to_bits = _host(catalog, dtype, what)
    shape_init, shape_text = _shape(shape)
    needs.handle("Tensor")
    needs.bool_tensor |= host == "bool"
    item = {
        "kind": "tensor",
        "name": p.name,
        "role": p.role,
        "dtype": dtype,
        "host": host,
        "shape": shape_init,
        "shape_text": shape_text,
        "format": fmt,
        "note": "",
        "mask": value is not None and value.mask_from_argmax is not None,
    }
    element = "float" if to_bits else host
    if to_bits:
        needs.to_bits.add(to_bits)
    decl = f"std::vector<{host}> {p.name}HostData"
    if item["mask"]:
        item["data"] = []  # built after the values the mask builder needs
        item["note"] = " (data built below from argmax values)"
    elif value is not None and value.data is not None:
        data = [needs.literal(v, element) for v in value.data]
        if to_bits:
            needs.bits_list = True
            item["data"] = _wrapped(f"{decl} = ToBits({{", data, f"}}, {to_bits});", WIDTH - 4)
        else:
            item["data"] = _wrapped(f"{decl} = {{", data, "};", WIDTH - 4)
    else:
        fill = value.fill if value is not None and value.fill is not None else 0
        literal = needs.literal(fill, element)
        needs.shape_size = True
        item["data"] = [f"{decl}(GetShapeSize({p.name}Shape), {f'{to_bits}({literal})' if to_bits else literal});"]
        if p.role != "output" and (value is None or value.fill is None):
            item["note"] = " (the spec's example gives no data: zeros)"
    create_args = [f"{p.name}HostData", f"{p.name}Shape", acl, catalog.format(fmt).acl, f"&{p.name}"]
    item["create"] = _call_lines("CHECK_ACL(CreateAclTensor", create_args, ");", WIDTH - 4)
    return item


def _expected(info: OpInfo, name: str) -> list[str]:
    example = info.spec.example
    expected = example.expected.get(name)
    if expected is None or (expected.data is None and expected.fill is None):
        return []
    head = f"expected (rtol {example.tolerance.rtol:g}, atol {example.tolerance.atol:g}): "
    if expected.data is not None:
        text = head + ", ".join(_compact(v) for v in expected.data)
    else:
        text = head + f"every element {_compact(expected.fill)}"
    return _lines(text, WIDTH - 7, "    ")


def _printing(catalog: Catalog, needs: _Needs, item: dict) -> None:
    """The printf conversion and the expression printing element ``i`` of an output's host vector."""
    value = f"{item['name']}HostData[i]"
    entry = catalog.dtype(item["dtype"])
    if item["dtype"] in FROM_BITS and entry.c_host == "uint16_t":
        needs.from_bits.add(FROM_BITS[item["dtype"]])
        item["printf"], item["print_value"] = "%f", f"{FROM_BITS[item['dtype']]}({value})"
    elif item["host"] in ("float", "double"):
        item["printf"], item["print_value"] = "%f", value
    elif entry.bytes == 8:
        unsigned = entry.kind == "uint"
        item["printf"] = "%llu" if unsigned else "%lld"
        item["print_value"] = f"static_cast<{'unsigned long long' if unsigned else 'long long'}>({value})"
    elif entry.kind == "uint" and entry.bytes == 4:
        item["printf"], item["print_value"] = "%u", f"static_cast<unsigned>({value})"
    else:
        item["printf"], item["print_value"] = "%d", f"static_cast<int>({value})"


def sample_context(info: OpInfo, catalog: Catalog) -> dict:
    spec, example = info.spec, info.spec.example
    _check_names(spec)
    needs = _Needs()
    items: list[dict] = []
    masks: list[dict] = []
    for index, p in enumerate(spec.params):
        what = f"{spec.name} example, parameter {p.name}"
        value = example.inputs.get(p.name)
        kind = expr_type(p)
        if p.role == "output":
            found = _output(info, index, p)
            if found is None:
                items.append({"kind": "null", "name": p.name, "ctype": p.ctype, "why": "not requested by this example"})
                continue
            item = _tensor(catalog, needs, p, None, *found)
            needs.bool_output |= item["host"] == "bool"
            item["expected"] = _expected(info, p.name)
            _printing(catalog, needs, item)
        elif value is None:
            if not p.nullable:
                raise SampleError(f"{what}: the example gives no value and the parameter is not nullable")
            item = {"kind": "null", "name": p.name, "ctype": p.ctype, "why": "optional; not used by this example"}
        elif kind == ex.TENSOR:
            item = _tensor(catalog, needs, p, value, value.shape, value.dtype, _format_of(p, value))
            if item["mask"]:
                masks.append(_mask(info, p, value))
                needs.shape_size = True
        elif kind == ex.SCALAR:
            host, acl, to_bits = _host(catalog, value.dtype, what)
            needs.handle("Scalar")
            literal = needs.literal(value.value, "float" if to_bits else host)
            if to_bits:
                needs.to_bits.add(to_bits)
                literal = f"{to_bits}({literal})"
            item = {
                "kind": "scalar",
                "name": p.name,
                "host": host,
                "value": literal,
                "acl_dtype": acl,
                "dtype": value.dtype,
            }
        elif p.ctype in ARRAY_CTYPES:
            handle, element = ARRAY_CTYPES[p.ctype]
            needs.handle(handle)
            if handle == "BoolArray":  # std::vector<bool> has no data(): use std::array
                needs.std_array = True
                container = f"std::array<bool, {len(value)}>"
            else:
                container = f"std::vector<{element}>"
            values = f"{p.name}Values"
            create = f"{handle}Ptr {p.name}"
            literals = [needs.literal(v, element) for v in value]
            item = {
                "kind": "array",
                "name": p.name,
                "data": _wrapped(f"{container} {values} = {{", literals, "};", WIDTH - 4),
                "create": _call_lines(
                    f"{create}(aclCreate{handle}", [f"{values}.data()", f"{values}.size()"], ");", WIDTH - 4
                ),
            }
        elif p.ctype in PLAIN_CTYPES:
            names = {e.value: e.name for e in (p.value.enum or [])} if p.value else {}
            note = f"  // {names[value]}" if value in names else ""
            item = {
                "kind": "plain",
                "name": p.name,
                "ctype": p.ctype,
                "value": needs.literal(value, p.ctype),
                "note": note,
            }
        else:
            raise SampleError(f"{what}: the sample cannot build a {p.ctype} from the example")
        items.append(item)

    args = [_argument(item) for item in items] + ["&workspaceSize", "&executor"]
    includes = ["<cstdint>", "<cstdio>", "<memory>", "<vector>"]
    if needs.std_array:
        includes.insert(0, "<array>")
    if needs.cmath or "HalfToFloat" in needs.from_bits:
        includes.insert(includes.index("<cstdint>"), "<cmath>")
    if needs.to_bits or "Bf16ToFloat" in needs.from_bits:
        includes.insert(includes.index("<memory>"), "<cstring>")
    product = catalog.product(example.product)
    return {
        "source": info.path.name,
        "name": spec.name,
        "header": spec.header,
        "summary": _lines(_text(spec.summary), WIDTH - 3),
        "intro": _lines(
            "The sample runs the two-phase aclnn call on the spec's example: initialise ACL, copy the inputs to the "
            f"device, call {spec.name}GetWorkspaceSize (phase 1), allocate the workspace, call {spec.name} "
            "(phase 2), wait for the stream and print the outputs. Every resource is owned by an RAII object, so an "
            "early return on an error releases everything created so far.",
            WIDTH - 3,
        ),
        "product_tag": product.tag,
        "product_name": product.en,
        "example_text": _lines("Example: " + _text(example.text), WIDTH - 3, "  ") if example.text else [],
        "includes": includes,
        "features": {
            "handles": needs.handles,
            "bool_tensor": needs.bool_tensor,
            "bool_output": needs.bool_output,
            "shape_size": needs.shape_size,
            "float_bits": bool(needs.to_bits),
            "half_to": "FloatToHalf" in needs.to_bits,
            "bf16_to": "FloatToBf16" in needs.to_bits,
            "to_bits_list": needs.bits_list,
            "half_from": "HalfToFloat" in needs.from_bits,
            "bf16_from": "Bf16ToFloat" in needs.from_bits,
        },
        "items": items,
        "masks": masks,
        "mask_templates": sorted({m["template"] for m in masks}),
        "phase1": _call_lines(f"CHECK_ACL({spec.name}GetWorkspaceSize", args, ");", WIDTH - 4),
        "outputs": [i for i in items if i["kind"] == "tensor" and i["role"] == "output"],
    }


def _argument(item: dict) -> str:
    if item["kind"] == "tensor":
        return f"{item['name']}.tensor.get()"
    if item["kind"] in ("scalar", "array"):
        return f"{item['name']}.get()"
    return item["name"]


def _check_names(spec) -> None:
    """Every sample local derived from a parameter name must be unique and not one of the sample's own."""
    owner: dict[str, str] = {}
    for p in spec.params:
        for local in (p.name, *(p.name + s for s in ("Shape", "HostData", "Value", "Values", "Argmax"))):
            if local in RESERVED or local in owner:
                clash = owner.get(local, "a name the sample defines itself")
                raise SampleError(f"{spec.name}: the sample local '{local}' of parameter {p.name} clashes with {clash}")
            owner[local] = f"parameter {p.name}"
