"""C/C++ emitter: ``aclnnop/aclnn_<op>.h`` headers and ``samples/<snake>.cpp`` call samples.

``files(project, env)`` renders ``templates/cpp/header.h.j2`` and ``templates/cpp/sample.cpp.j2`` for every op.
The contexts are plain data built here from the spec and the catalogues: C types and names come from the
spec's parameters, host element types (``c_host``), ``ACL_*`` dtype and format enumerators from the
catalogues, the values from the spec's ``example``. Nothing is specific to one operator; the only op-related
code is the ``mask_from_argmax`` encoding, whose layout comes from the op's reference kernel module
(``mask_layout``/``mask_shape``) and whose C++ builder is one template per layout (``cpp/mask_<layout>.j2``).
"""

from __future__ import annotations

import importlib
import inspect
import math
import textwrap
from dataclasses import dataclass, field
from types import SimpleNamespace

from generator import expr as ex
from generator.loader import Catalog, OpInfo, Project, expr_type
from generator.model import TENSOR_CTYPES, ExampleScalar, ExampleTensor, Param

ARRAY_CTYPES = {
    "const aclIntArray*": ("IntArray", "int64_t"),
    "const aclBoolArray*": ("BoolArray", "bool"),
    "const aclFloatArray*": ("FloatArray", "float"),
}
PLAIN_CTYPES = ("bool", "int", "int8_t", "int32_t", "int64_t", "uint64_t", "float", "double")

# Host types whose values need a conversion helper (the host vector holds the bit pattern).
FLOAT_BITS = {"FLOAT16": "FloatToHalf", "BFLOAT16": "FloatToBf16"}
FLOAT_FROM_BITS = {"FLOAT16": "HalfToFloat", "BFLOAT16": "Bf16ToFloat"}

# One C++ builder per mask layout of generator.kernels.<module>.mask_layout: the template, the function
# and the arguments it takes after (argmax, maskShape), named as in the kernel's encode_mask.
MASK_BUILDERS = {
    "v1_bitmask": ("cpp/mask_v1_bitmask.j2", "BuildBitMask", ("self_shape", "kernel_size", "stride", "padding", "ceil_mode")),
    "a2_int32": ("cpp/mask_a2_int32.j2", "BuildArgmaxMask", ()),
}

# Locals and helpers the sample defines itself; a parameter (or a name derived from one) must not clash.
RESERVED = frozenset(
    {
        "acl",
        "workspace",
        "workspaceSize",
        "executor",
        "main",
        "i",
        "AclRuntime",
        "DeviceTensor",
        "CreateAclTensor",
        "CopyToHost",
        "MallocDevice",
        "GetShapeSize",
    }
)


class SampleError(ValueError):
    """The spec's example cannot be turned into a C++ sample (the message says what is missing)."""


def files(project: Project, env) -> dict[str, str]:
    header = env.get_template("cpp/header.h.j2")
    sample = env.get_template("cpp/sample.cpp.j2")
    out: dict[str, str] = {}
    for info in project.ops:
        spec = info.spec
        out[spec.header] = header.render(**header_context(info, project.catalog))
        context = sample_context(info, project.catalog)
        context["mask_helpers"] = [env.get_template(t).render() for t in context["mask_templates"]]
        out[f"samples/{spec.snake}.cpp"] = sample.render(**context)
    return out


# ---------------------------------------------------------------------------------------------
# Header


def _text(text) -> str:
    if text is None:
        return ""
    return " ".join((text.en or text.zh).split())


def _comment_safe(text: str) -> str:
    return text.replace("*/", "* /")


def _wrap(text: str, width: int = 100, indent: str = "") -> list[str]:
    return textwrap.wrap(text, width, subsequent_indent=indent, break_long_words=False, break_on_hyphens=False) or [""]


def _dtype_doc(p: Param, products: list[str]) -> str:
    groups = []
    for rule in p.tensor.dtypes:
        tags = products if rule.products == "all" else rule.products
        groups.append(f"{', '.join(rule.dtypes)} ({', '.join(tags)})")
    return "; ".join(groups)


def _param_doc(p: Param, products: list[str]) -> str:
    parts = [_text(p.description)]
    if p.tensor is not None:
        parts.append(f"Dtypes: {_dtype_doc(p, products)}. Formats: {', '.join(p.tensor.formats)}.")
        if p.tensor.rank is not None:
            rank = p.tensor.rank
            parts.append(f"Rank: {rank.min}." if rank.min == rank.max else f"Rank: {rank.min}-{rank.max}.")
    if p.array is not None:
        lengths = f", length {' or '.join(str(n) for n in p.array.lengths)}" if p.array.lengths else ""
        parts.append(f"Elements: {p.array.element}{lengths}.")
    if p.nullable:
        parts.append("May be nullptr.")
    return _comment_safe(" ".join(part for part in parts if part))


def header_context(info: OpInfo, catalog: Catalog) -> dict:
    spec = info.spec
    guard = "OP_API_INC_" + spec.header.rsplit("/", 1)[-1].replace(".", "_").upper() + "_"
    params = []
    for p in spec.params:
        direction = "out" if p.role == "output" else "in"
        lines = _wrap(f"@param [{direction}] {p.name}: {_param_doc(p, spec.products)}", 104, "    ")
        params.append({"name": p.name, "ctype": p.ctype, "doc": lines})
    return {
        "source": info.path.name,
        "guard": guard,
        "name": spec.name,
        "summary": _wrap(_comment_safe(_text(spec.summary)), 104),
        "products": ", ".join(f"{catalog.product(t).en} ({t})" for t in spec.products),
        "params": params,
        "stream_ctype": spec.stream_ctype,
    }


# ---------------------------------------------------------------------------------------------
# Sample: values


def _num(value, host: str) -> str:
    """A C++ literal of ``value`` for a host element type."""
    if host == "bool":
        return "true" if value else "false"
    if host in ("float", "double"):
        value = float(value)
        if math.isnan(value):
            return "NAN"
        if math.isinf(value):
            return "INFINITY" if value > 0 else "-INFINITY"
        text = repr(value)
        return text + ("f" if host == "float" else "")
    if isinstance(value, float) and not value.is_integer():
        raise SampleError(f"{value!r} is not an integer, but the host type is {host}")
    number = int(value)
    if host in ("int64_t", "uint64_t") and not -(2**31) <= number < 2**31:
        return f"{'INT64_C' if host == 'int64_t' else 'UINT64_C'}({number})"
    return str(number)


def _brace(values, host: str) -> str:
    return "{" + ", ".join(_num(v, host) for v in values) + "}"


def _short(value) -> str:
    """A compact number for comments (2.0 -> 2)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return repr(value)


@dataclass
class HostType:
    """How a dtype lives in host memory: the vector element type and the float<->bits helpers."""

    dtype: str
    acl: str
    host: str  # c_host
    to_bits: str | None = None  # FloatToHalf / FloatToBf16: values are written as floats and converted
    from_bits: str | None = None


def _host_type(catalog: Catalog, dtype: str, what: str) -> HostType:
    entry = catalog.dtype(dtype)
    if entry.c_host is None:
        raise SampleError(f"{what}: dtype {dtype} has no host C type (c_host) in the catalogue")
    if entry.c_host == "uint8_t" and entry.kind == "float8":
        raise SampleError(f"{what}: the sample cannot encode {dtype} values")
    return HostType(dtype, entry.acl, entry.c_host, FLOAT_BITS.get(dtype), FLOAT_FROM_BITS.get(dtype))


@dataclass
class Features:
    """What the sample uses, so that it defines only the helpers it needs."""

    handles: list[str] = field(default_factory=list)  # Tensor, Scalar, IntArray, BoolArray, FloatArray
    to_bits: set[str] = field(default_factory=set)
    from_bits: set[str] = field(default_factory=set)
    bool_tensor: bool = False
    std_array: bool = False
    cmath: bool = False
    shape_size: bool = False

    def handle(self, kind: str) -> None:
        if kind not in self.handles:
            self.handles.append(kind)


# ---------------------------------------------------------------------------------------------
# Sample: output inference (only for outputs the example's ``expected`` does not describe)


def _eval_namespace(info: OpInfo) -> tuple[dict, dict[str, str]]:
    from generator.runtime import rules

    names, scope = {}, {"rt": rules, "product": info.spec.example.product}
    for p in info.spec.params:
        local = f"p_{p.name}"
        names[p.name] = local
        value = info.spec.example.inputs.get(p.name)
        if isinstance(value, ExampleTensor):
            shape = tuple(value.shape)
            value = SimpleNamespace(
                shape=shape,
                dtype=value.dtype,
                format=value.format,
                rank=len(shape),
                numel=rules.prod(shape),
                empty=0 in shape,
            )
        elif isinstance(value, ExampleScalar):
            value = SimpleNamespace(value=value.value, dtype=value.dtype)
        elif isinstance(value, list):
            value = tuple(value)
        scope[local] = value
    return scope, names


def _evaluate(info: OpInfo, path: tuple, what: str):
    node = info.exprs[path]
    scope, names = _eval_namespace(info)
    try:
        return eval(ex.to_python(node, names), scope)  # noqa: S307 - our own parsed, type-checked expression
    except Exception as exc:
        raise SampleError(
            f"{what}: cannot evaluate '{ex.to_doc(node)}' on the example ({exc}); give it under example.expected"
        ) from None


def _default_format(p: Param, rank: int) -> str:
    from generator.runtime.values import default_format

    formats = p.tensor.formats
    if "ND" in formats:
        return "ND"
    preferred = default_format(rank)
    return preferred if preferred in formats else formats[0]


def _tensor_format(p: Param, value: ExampleTensor) -> str:
    """The example's format when written, otherwise ND or the rank's usual format the parameter accepts."""
    return value.format if "format" in value.model_fields_set else _default_format(p, len(value.shape))


def _output(info: OpInfo, index: int, p: Param) -> tuple[list[int], str, str] | None:
    """(shape, dtype, format) of an output, or None when the example passes nullptr for it."""
    spec = info.spec
    expected = spec.example.expected.get(p.name)
    if expected is not None:
        return list(expected.shape), expected.dtype, _tensor_format(p, expected)
    base = ("params", index, "infer")
    if p.infer.when and p.nullable and not _evaluate(info, base + ("when",), f"{p.name}.infer.when"):
        return None
    shape = [int(v) for v in _evaluate(info, base + ("shape",), f"{p.name}.infer.shape")]
    dtype = str(_evaluate(info, base + ("dtype",), f"{p.name}.infer.dtype"))
    if p.infer.format:
        fmt = str(_evaluate(info, base + ("format",), f"{p.name}.infer.format"))
    else:
        fmt = _default_format(p, len(shape))
    return shape, dtype, fmt


# ---------------------------------------------------------------------------------------------
# Sample: the mask_from_argmax encoding


def _kernel_module(info: OpInfo, what: str):
    if info.spec.kernel is None:
        raise SampleError(f"{what}: mask_from_argmax needs the op's reference kernel (spec.kernel) for its layout")
    return importlib.import_module(f"generator.kernels.{info.spec.kernel.module}")


def _kernel_arg(info: OpInfo, name: str, what: str):
    """The example value of a kernel-function argument (``kernel_size`` -> kernelSize, ``self_shape``...)."""
    from generator.model import snake_case

    example = info.spec.example
    if name == "product":
        return example.product
    by_snake = {snake_case(p.name): p.name for p in info.spec.params}
    if name.endswith("_shape") and name[: -len("_shape")] in by_snake:
        value = example.inputs.get(by_snake[name[: -len("_shape")]])
        if isinstance(value, ExampleTensor):
            return tuple(value.shape)
    elif name in by_snake:
        value = example.inputs.get(by_snake[name])
        return tuple(value) if isinstance(value, list) else value
    raise SampleError(f"{what}: no example value for the mask argument '{name}'")


def _cpp_arg(info: OpInfo, name: str) -> str:
    """The sample local holding a kernel-function argument."""
    from generator.model import snake_case

    by_snake = {snake_case(p.name): p for p in info.spec.params}
    if name.endswith("_shape"):
        return f"{by_snake[name[: -len('_shape')]].name}Shape"
    p = by_snake[name]
    return f"{p.name}Values" if p.ctype in ARRAY_CTYPES else p.name


def _call(func, info: OpInfo, what: str, **fixed):
    params = inspect.signature(func).parameters
    kwargs = {n: fixed[n] if n in fixed else _kernel_arg(info, n, what) for n in params if n not in fixed or True}
    return func(**kwargs)


def _mask(info: OpInfo, p: Param, value: ExampleTensor) -> dict:
    what = f"example.inputs.{p.name}"
    module = _kernel_module(info, what)
    layout = _call(module.mask_layout, info, what)
    if layout not in MASK_BUILDERS:
        raise SampleError(f"{what}: no C++ builder for the mask layout '{layout}'")
    needed = _call(module.mask_shape, info, what)
    if math.prod(value.shape) < math.prod(needed):
        raise SampleError(f"{what}: shape {value.shape} is smaller than the mask layout needs ({list(needed)})")
    template, function, args = MASK_BUILDERS[layout]
    call_args = [f"{p.name}Argmax", f"{p.name}Shape", *(_cpp_arg(info, a) for a in args)]
    product = info.spec.example.product
    return {
        "template": template,
        "layout": layout,
        "argmax": value.mask_from_argmax,
        "call": f"{function}({', '.join(call_args)})",
        "product": product,
    }


# ---------------------------------------------------------------------------------------------
# Sample: context


def _tensor_item(catalog: Catalog, features: Features, p: Param, value: ExampleTensor | None, shape, dtype, fmt):
    ht = _host_type(catalog, dtype, p.name)
    features.handle("Tensor")
    if ht.host == "bool":
        features.bool_tensor = True
    item = {
        "kind": "tensor",
        "name": p.name,
        "role": p.role,
        "shape": "{" + ", ".join(str(int(d)) for d in shape) + "}",
        "shape_text": "[" + ", ".join(str(int(d)) for d in shape) + "]",
        "dtype": dtype,
        "acl_dtype": ht.acl,
        "acl_format": catalog.format(fmt).acl,
        "format": fmt,
        "host": ht.host,
        "from_bits": ht.from_bits,
        "init": None,  # "= {...}" or "(GetShapeSize(xShape), v)"
        "mask": None,
        "note": "",
    }
    element_host = "float" if ht.to_bits else ht.host

    def element(v) -> str:
        literal = _num(v, element_host)
        if literal in ("NAN", "INFINITY", "-INFINITY"):
            features.cmath = True
        return f"{ht.to_bits}({literal})" if ht.to_bits else literal

    if ht.to_bits:
        features.to_bits.add(ht.dtype)
    if value is not None and value.mask_from_argmax is not None:
        item["mask"] = True  # filled in by the caller
    elif value is not None and value.data is not None:
        if ht.to_bits:
            item["init"] = f" = {ht.to_bits.replace('FloatTo', 'To')}({_brace(value.data, 'float')})"
        else:
            item["init"] = f" = {_brace(value.data, ht.host)}"
            if any(isinstance(v, float) and not math.isfinite(v) for v in value.data):
                features.cmath = True
    else:
        fill = value.fill if value is not None and value.fill is not None else 0
        features.shape_size = True
        item["init"] = f"(GetShapeSize({p.name}Shape), {element(fill)})"
        if value is not None and value.fill is None and p.role != "output":
            item["note"] = " (no data in the spec's example: zeros)"
    if ht.to_bits and item["init"] and item["init"].startswith(" = To"):
        features.to_bits.add(ht.dtype + "[]")
    return item


def _expected_comment(info: OpInfo, name: str) -> list[str]:
    example = info.spec.example
    expected = example.expected.get(name)
    if expected is None:
        return []
    tol = example.tolerance
    head = f"expected (rtol {tol.rtol:g}, atol {tol.atol:g}): "
    if expected.data is not None:
        text = head + ", ".join(_short(v) for v in expected.data)
    elif expected.fill is not None:
        text = head + f"every element {_short(expected.fill)}"
    else:
        return []
    return _wrap(text, 100, "    ")


def _print_spec(catalog: Catalog, item: dict) -> tuple[str, str]:
    """printf conversion and the expression printing element ``i`` of an output's host vector."""
    value = f"{item['name']}HostData[i]"
    entry = catalog.dtype(item["dtype"])
    if item["from_bits"]:
        return "%f", f"{item['from_bits']}({value})"
    if item["host"] in ("float", "double"):
        return "%f", value
    if item["host"] == "bool":
        return "%d", f"static_cast<int>({value})"
    if entry.bytes == 8:
        return ("%llu", f"static_cast<unsigned long long>({value})") if entry.kind == "uint" else (
            "%lld",
            f"static_cast<long long>({value})",
        )
    if entry.kind == "uint" and entry.bytes == 4:
        return "%u", f"static_cast<unsigned>({value})"
    return "%d", f"static_cast<int>({value})"


def sample_context(info: OpInfo, catalog: Catalog) -> dict:
    spec = info.spec
    example = spec.example
    features = Features()
    items: list[dict] = []
    masks: list[dict] = []
    for index, p in enumerate(spec.params):
        what = f"{spec.name} example, parameter {p.name}"
        value = example.inputs.get(p.name)
        kind = expr_type(p)
        if p.role == "output":
            out = _output(info, index, p)
            if out is None:
                items.append({"kind": "null", "name": p.name, "ctype": p.ctype, "role": p.role})
                continue
            item = _tensor_item(catalog, features, p, None, *out)
            item["expected"] = _expected_comment(info, p.name)
            item["printf"], item["print_value"] = _print_spec(catalog, item)
            items.append(item)
        elif value is None:
            if not p.nullable:
                raise SampleError(f"{what}: no value in the example")
            items.append({"kind": "null", "name": p.name, "ctype": p.ctype, "role": p.role})
        elif kind == ex.TENSOR:
            item = _tensor_item(catalog, features, p, value, value.shape, value.dtype, _tensor_format(p, value))
            if value.mask_from_argmax is not None:
                mask = _mask(info, p, value)
                item["mask"] = mask
                masks.append(mask)
            items.append(item)
        elif kind == ex.SCALAR:
            ht = _host_type(catalog, value.dtype, p.name)
            features.handle("Scalar")
            literal = _num(value.value, "float" if ht.to_bits else ht.host)
            if ht.to_bits:
                features.to_bits.add(ht.dtype)
                literal = f"{ht.to_bits}({literal})"
            items.append(
                {"kind": "scalar", "name": p.name, "host": ht.host, "value": literal, "acl_dtype": ht.acl, "dtype": ht.dtype}
            )
        elif p.ctype in ARRAY_CTYPES:
            handle, element = ARRAY_CTYPES[p.ctype]
            features.handle(handle)
            values = list(value)
            if handle == "BoolArray":
                features.std_array = True
                container = f"std::array<bool, {len(values)}>"
            else:
                container = f"std::vector<{element}>"
            items.append(
                {
                    "kind": "array",
                    "name": p.name,
                    "handle": handle,
                    "container": container,
                    "values": _brace(values, element),
                }
            )
        elif p.ctype in PLAIN_CTYPES:
            items.append({"kind": "plain", "name": p.name, "ctype": p.ctype, "value": _num(value, p.ctype)})
        else:
            raise SampleError(f"{what}: the sample cannot build a {p.ctype} from the example")

    _check_names(spec)
    has_outputs = [i for i in items if i["kind"] == "tensor" and i["role"] == "output"]
    product = catalog.product(example.product)
    includes = ["<cstdint>", "<cstdio>", "<memory>", "<vector>"]
    if features.std_array:
        includes.insert(0, "<array>")
    if features.cmath or any(d == "FLOAT16" for d in _from_bits(items)):
        includes.insert(includes.index("<cstdint>"), "<cmath>")
    if features.to_bits or any(i.get("from_bits") == "Bf16ToFloat" for i in has_outputs):
        includes.insert(includes.index("<cstdio>") + 1, "<cstring>")
    return {
        "source": info.path.name,
        "name": spec.name,
        "op": spec.op,
        "header": spec.header,
        "summary": _wrap(_comment_safe(_text(spec.summary)), 104),
        "product_tag": example.product,
        "product_name": product.en,
        "example_text": _wrap(_comment_safe(_text(example.text)), 104) if example.text else [],
        "includes": includes,
        "features": {
            "handles": features.handles,
            "half_to": "FLOAT16" in features.to_bits,
            "half_to_list": "FLOAT16[]" in features.to_bits,
            "bf16_to": "BFLOAT16" in features.to_bits,
            "bf16_to_list": "BFLOAT16[]" in features.to_bits,
            "half_from": "FLOAT16" in _from_bits(items),
            "bf16_from": "BFLOAT16" in _from_bits(items),
            "bool_tensor": features.bool_tensor,
            "shape_size": features.shape_size or bool(masks),
        },
        "items": items,
        "masks": masks,
        "mask_templates": sorted({m["template"] for m in masks}),
        "outputs": has_outputs,
        "args": [p.name for p in spec.params],
        "arg_exprs": [_arg_expr(item) for item in items],
    }


def _from_bits(items: list[dict]) -> set[str]:
    return {i["dtype"] for i in items if i["kind"] == "tensor" and i["role"] == "output" and i["from_bits"]}


def _arg_expr(item: dict) -> str:
    if item["kind"] == "tensor":
        return f"{item['name']}.tensor.get()"
    if item["kind"] in ("scalar", "array"):
        return f"{item['name']}.get()"
    return item["name"]


def _check_names(spec) -> None:
    used: dict[str, str] = {}
    for p in spec.params:
        for local in (p.name, f"{p.name}Shape", f"{p.name}HostData", f"{p.name}Value", f"{p.name}Values", f"{p.name}Argmax"):
            if local in RESERVED or local in used:
                other = used.get(local, "the sample itself")
                raise SampleError(f"{spec.name}: the sample local '{local}' for parameter {p.name} clashes with {other}")
            used[local] = f"parameter {p.name}"


__all__ = ["SampleError", "files", "header_context", "sample_context", "TENSOR_CTYPES"]
