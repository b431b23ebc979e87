"""Argument descriptors and normalisation: what a validator sees of each C argument.

* tensors: :class:`TensorDesc` (shape, dtype name, format name, strides) built from a NumPy array
  or given directly; a NumPy array's format follows torch_npu's rule (rank 3 -> NCL, 4 -> NCHW,
  5 -> NCDHW, otherwise ND);
* ``aclScalar``: :class:`Scalar` (value, dtype name); a Python bool/int/float becomes a BOOL,
  INT64 or FLOAT scalar;
* int and bool arrays: tuples; plain C values: Python bool/int/float within the C type's range.

Anything that cannot be one of these raises :class:`AclnnError` (161002) naming the parameter.

Normalisation is bounded whatever the caller passes: a sequence argument (a shape, strides, an
aclIntArray or aclBoolArray) is read at most once and never past :data:`MAX_ARRAY_LENGTH` values
(:data:`MAX_RANK` for shapes and strides), so a ``range(10**18)`` or an endless generator is refused
without being materialised; integers must fit int64 and numbers a C double.
"""

from __future__ import annotations

import itertools
import numbers
import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

from generator.int_ranges import C_INT_RANGES
from generator.runtime import rules
from generator.runtime.errors import AclnnError, show

_PARAM_INVALID = (161002, "ACLNN_ERR_PARAM_INVALID")

#: Longest aclIntArray / aclBoolArray accepted (CANN's arrays describe shapes, windows and masks:
#: a handful of values; 4096 leaves room for list-valued attributes without letting rule evaluation
#: or the kernels loop over millions of values).
MAX_ARRAY_LENGTH = 4096
#: Highest tensor rank a TensorDesc accepts (NumPy's own limit; CANN's ops accept at most 8).
MAX_RANK = 64
_INT64 = (-(2**63), 2**63 - 1)


class _Tables:
    dtype_by_spelling: dict[str, str] = {}
    numpy_by_dtype: dict[str, np.dtype] = {}  # built on first use (numpy_tables)
    dtype_by_numpy: dict[np.dtype, str] = {}
    numpy_names: tuple[tuple[str, str], ...] = ()  # (dtype name, NumPy/ml_dtypes name) of the catalogue
    # (NumPy dtype, byte strides) -> (dtype name, element strides) of the arrays seen (bounded):
    # most calls repeat a few layouts.
    array_layouts: dict[tuple, tuple[str, tuple[int, ...] | None]] = {}
    formats: frozenset[str] = frozenset()
    product_by_spelling: dict[str, str] = {}
    product_tags: dict[str, str] = {}
    products: tuple[str, ...] = ()
    dtype_values: dict[str, int] = {}
    format_values: dict[str, int] = {}
    status_names: dict[int, str] = {}


def _key(text: str) -> str:
    return "".join(str(text).split()).lower().rstrip("。.")


def _loaded_numpy():
    """NumPy if something has imported it, else None. Validators check descriptors without NumPy
    (the generator runs them for the support matrix); a NumPy array, scalar or dtype can only
    reach them once NumPy is loaded, so the checks for those need not import it."""
    return sys.modules.get("numpy")


def _is_bool(value: object) -> bool:
    """A Python or NumPy bool."""
    if type(value) is bool:
        return True
    np = _loaded_numpy()
    return np is not None and isinstance(value, np.bool_)


def _is_numpy(value: object, kind: str) -> bool:
    """An instance of NumPy's ``kind`` (``"ndarray"``, ``"generic"``)."""
    np = _loaded_numpy()
    return np is not None and isinstance(value, getattr(np, kind))


def numpy_tables() -> type[_Tables]:
    """The tables with the catalogue's NumPy dtypes filled in (NumPy and ml_dtypes imported here)."""
    if _Tables.numpy_names and not _Tables.numpy_by_dtype:
        import ml_dtypes
        import numpy as np

        to_np, from_np = {}, {}
        for name, numpy_name in _Tables.numpy_names:
            np_dtype = np.dtype(getattr(ml_dtypes, numpy_name, None) or numpy_name)
            to_np[name] = np_dtype
            from_np.setdefault(np_dtype, name)
        _Tables.dtype_by_numpy, _Tables.numpy_by_dtype = from_np, to_np
    return _Tables


def install_catalog(dtypes: list[dict], formats: list[dict], products: list[dict], status_codes=()) -> None:
    """Load the generated catalogue tables (called once by ``aclnn/__init__.py``)."""
    spell = {}
    for d in dtypes:
        for s in (d["name"], d["acl"], *d["aliases"]):
            spell[_key(s)] = d["name"]
    _Tables.dtype_by_spelling = spell
    _Tables.numpy_names = tuple((d["name"], d["numpy"]) for d in dtypes if d["numpy"])
    _Tables.numpy_by_dtype, _Tables.dtype_by_numpy, _Tables.array_layouts = {}, {}, {}
    _Tables.formats = frozenset(f["name"] for f in formats) | frozenset(f["acl"] for f in formats)
    rules.set_private_formats(f["name"] for f in formats if f["private"])
    _Tables.format_by_spelling = {_key(f["acl"]): f["name"] for f in formats} | {
        _key(f["name"]): f["name"] for f in formats
    }
    prods = {}
    for p in products:
        for s in (p["tag"], p["zh"], p["en"], p["soc"], *p["aliases"]):
            prods[_key(s)] = p["tag"]
    _Tables.product_by_spelling, _Tables.products = prods, tuple(p["tag"] for p in products)
    _Tables.product_tags = {p["tag"]: prods[_key(p["tag"])] for p in products}  # a tag as written: no re-keying
    _Tables.dtype_values = {d["name"]: d["value"] for d in dtypes}
    _Tables.format_values = {f["name"]: f["value"] for f in formats}
    _Tables.status_names = {s["value"]: s["name"] for s in status_codes}


def acl_dtype_value(name: str) -> int:
    """The aclDataType enum value of a dtype name."""
    return _Tables.dtype_values[name]


def acl_format_value(name: str) -> int:
    """The aclFormat enum value of a format name."""
    return _Tables.format_values[name]


def status_name(code: int) -> str:
    """The symbolic name of an aclnnStatus value (``ACLNN_ERR_UNKNOWN`` if it is not catalogued)."""
    return _Tables.status_names.get(code, "ACLNN_ERR_UNKNOWN")


def _invalid(message: str) -> AclnnError:
    return AclnnError(*_PARAM_INVALID, message)


def normalize_product(product: object) -> str:
    """A product tag from a tag or any of the product's names (case and spaces ignored)."""
    if type(product) is str and product in _Tables.product_tags:  # the common case, fast
        return _Tables.product_tags[product]
    if isinstance(product, str) or (type(product) is int and abs(product) < 10**12):
        tag = _Tables.product_by_spelling.get(_key(str(product)))
        if tag is not None:
            return tag
    raise _invalid(f"unknown product {show(product)}; known tags: {', '.join(_Tables.products)}")


def normalize_dtype(dtype: object, where: str = "dtype") -> str:
    """A doc dtype name from an aclDataType name, a doc name, or a NumPy dtype."""
    if isinstance(dtype, str):
        name = _Tables.dtype_by_spelling.get(_key(dtype))
        if name is not None:
            return name
        raise _invalid(f"{where}: unknown dtype {show(dtype)}")
    import numpy as np  # a dtype that is not a name: NumPy's spellings (np.float16, "<f4", float)

    try:
        np_dtype = np.dtype(dtype)
    except Exception:  # NumPy raises TypeError, ValueError, KeyError, ... for things that are not dtypes
        raise _invalid(f"{where}: unknown dtype {show(dtype)}") from None
    name = numpy_tables().dtype_by_numpy.get(np_dtype)
    if name is None:
        raise _invalid(f"{where}: NumPy dtype {np_dtype} has no aclDataType")
    return name


def numpy_dtype(name: str) -> np.dtype:
    """The NumPy dtype of a doc dtype name (bfloat16 via ml_dtypes)."""
    try:
        return (_Tables.numpy_by_dtype or numpy_tables().numpy_by_dtype)[name]
    except KeyError:
        raise _invalid(f"dtype {name} has no NumPy equivalent; the NumPy backend cannot compute it") from None


def _normalize_format(fmt: object, where: str) -> str:
    name = _Tables.format_by_spelling.get(_key(fmt)) if isinstance(fmt, str) else None
    if name is None:
        raise _invalid(f"{where}: unknown format {show(fmt)}")
    return name


_RANK_FORMATS = {3: "NCL", 4: "NCHW", 5: "NCDHW"}


def default_format(rank: int) -> str:
    """torch_npu's choice of format for a tensor of this rank."""
    return _RANK_FORMATS.get(rank, "ND")


@dataclass(frozen=True, init=False)
class TensorDesc:
    """Describes an aclTensor without data: shape, dtype, format and (element) strides.

    ``aclnn.TensorDesc((2, 3), "FLOAT16")``; dtype by aclDataType name, doc name or NumPy dtype.
    """

    shape: tuple[int, ...]
    dtype: str
    format: str = "ND"
    strides: tuple[int, ...] | None = None
    data: np.ndarray | None = field(default=None, compare=False, repr=False)

    def __init__(self, shape, dtype, format: str = "ND", strides=None, *, data=None):  # noqa: A002
        shape_t = _int_tuple(shape, "TensorDesc.shape", allow_negative=False, limit=MAX_RANK)
        object.__setattr__(self, "shape", shape_t)
        object.__setattr__(self, "dtype", normalize_dtype(dtype, "TensorDesc.dtype"))
        object.__setattr__(self, "format", _normalize_format(format, "TensorDesc.format"))
        if strides is not None:
            strides = _int_tuple(strides, "TensorDesc.strides", allow_negative=True, limit=MAX_RANK)
            if len(strides) != len(shape_t):
                raise _invalid(f"TensorDesc.strides has {len(strides)} values for rank {len(shape_t)}")
        object.__setattr__(self, "strides", strides)
        if data is not None and not (
            _is_numpy(data, "ndarray")
            and data.shape == shape_t
            and data.dtype == numpy_tables().numpy_by_dtype.get(self.dtype)
        ):
            raise _invalid(f"TensorDesc.data must be a NumPy array of shape {shape_t} and dtype {self.dtype}")
        object.__setattr__(self, "data", data)

    @classmethod
    def trusted(cls, shape: tuple[int, ...], dtype: str, fmt: str, strides=None, data=None) -> TensorDesc:
        """A descriptor from already-normalised parts (output inference, NumPy arrays; no re-validation)."""
        desc = object.__new__(cls)
        desc.__dict__.update(shape=shape, dtype=dtype, format=fmt, strides=strides, data=data)
        return desc

    @property
    def rank(self) -> int:
        return len(self.shape)

    @property
    def numel(self) -> int:
        return rules.prod(self.shape)

    @property
    def empty(self) -> bool:
        return 0 in self.shape


@dataclass(frozen=True, init=False)
class Scalar:
    """An aclScalar: a host value with its dtype (``aclnn.Scalar(1.0, "FLOAT")``)."""

    value: object
    dtype: str

    def __init__(self, value, dtype):
        dtype = normalize_dtype(dtype, "Scalar.dtype")
        number = _number(value, "Scalar.value")
        if isinstance(number, complex) and not dtype.startswith("COMPLEX"):
            raise _invalid(f"Scalar.value {show(number)} is complex but the dtype is {dtype}")
        object.__setattr__(self, "value", stored_value(number, dtype))
        object.__setattr__(self, "dtype", dtype)


def stored_value(number, dtype: str):
    """The value an aclScalar of ``dtype`` holds (:func:`generator.runtime.rules.stored_scalar`)."""
    try:
        return rules.stored_scalar(number, dtype)
    except ValueError as exc:
        raise _invalid(f"Scalar.value {exc}") from None


def _number(value: object, where: str) -> bool | int | float | complex:
    """A host number as a Python bool, int (int64 or uint64 range), float or complex (C doubles)."""
    if _is_numpy(value, "generic"):
        value = value.item()
    try:
        if _is_bool(value):
            return bool(value)
        if isinstance(value, numbers.Integral):
            result = int(value)
            if not -(2**63) <= result < 2**64:
                raise _invalid(f"{where}: integer {show(result)} does not fit in 64 bits")
            return result
        if isinstance(value, numbers.Real):
            return float(value)
        if isinstance(value, numbers.Complex):
            return complex(value)
    except (OverflowError, ValueError, TypeError, ArithmeticError):
        raise _invalid(f"{where}: {show(value)} does not fit a C double") from None
    raise _invalid(f"{where} must be a number, got {type(value).__name__}")


def _bounded(values, where: str, limit: int, what: str) -> list | tuple:
    """Read a sequence argument once, refusing it beyond ``limit`` items without materialising it."""
    if isinstance(values, (list, tuple)):
        if len(values) > limit:
            raise _invalid(f"{where} has {len(values)} values; at most {limit} are accepted")
        return values
    if isinstance(values, (str, bytes, bytearray, dict)) or not hasattr(values, "__iter__"):
        raise _invalid(f"{where} must be a sequence of {what}, got {type(values).__name__}")
    try:
        length = len(values)
    except Exception:  # no __len__ (generators), or a length beyond ssize_t (range(10**19))
        length = None
    if length is not None and length > limit:
        raise _invalid(f"{where} has {show(length)} values; at most {limit} are accepted")
    try:
        items = list(itertools.islice(iter(values), limit + 1))
    except AclnnError:
        raise
    except Exception as exc:  # a user iterable that fails while being read
        raise _invalid(f"{where} could not be read: {type(exc).__name__}: {show(str(exc))}") from None
    if len(items) > limit:
        raise _invalid(f"{where} has more than {limit} values; at most {limit} are accepted")
    return items


def _int_tuple(values, where: str, *, allow_negative: bool, limit: int = MAX_ARRAY_LENGTH) -> tuple[int, ...]:
    values = _bounded(values, where, limit, "integers")
    low, high = _INT64
    if all(type(v) is int and low <= v <= high for v in values):  # the common case, fast
        result = tuple(values)
        if allow_negative or all(v >= 0 for v in result):
            return result
    out = []
    for v in values:
        if _is_bool(v) or not isinstance(v, numbers.Integral):
            raise _invalid(f"{where} must hold integers, got {show(v)}")
        v = int(v)
        if not allow_negative and v < 0:
            raise _invalid(f"{where} has a negative size {v}")
        if not low <= v <= high:
            raise _invalid(f"{where} value {show(v)} does not fit in int64")
        out.append(v)
    return tuple(out)


def _array_layout(name: str, value) -> tuple[str, tuple[int, ...] | None]:
    dtype = numpy_tables().dtype_by_numpy.get(value.dtype) or normalize_dtype(value.dtype, name)
    itemsize = value.itemsize
    strides = tuple(s // itemsize for s in value.strides) if itemsize else None
    layouts = _Tables.array_layouts
    if len(layouts) >= 4096:
        layouts.clear()
    layout = layouts[(value.dtype, value.strides)] = (dtype, strides)
    return layout


def as_tensor(name: str, value: object) -> TensorDesc | None:
    """Normalise a tensor argument: None, a NumPy array or a TensorDesc."""
    if value is None:
        return value
    cls = type(value)
    if cls is TensorDesc:
        return value
    np = sys.modules.get("numpy")  # _loaded_numpy, inlined: an array means NumPy is loaded
    if np is not None and (cls is np.ndarray or isinstance(value, np.ndarray)):
        layout = _Tables.array_layouts.get((value.dtype, value.strides)) or _array_layout(name, value)
        # An array's shape and strides are int tuples already and its dtype is normalised: no re-validation
        # (TensorDesc.trusted, inlined: this runs for every array argument of every call).
        desc = object.__new__(TensorDesc)
        fields = desc.__dict__  # item assignments: faster than dict.update(**kwargs) on this hot path
        shape = fields["shape"] = value.shape
        fields["dtype"], fields["format"] = layout[0], _RANK_FORMATS.get(len(shape), "ND")
        fields["strides"], fields["data"] = layout[1], value
        return desc
    if isinstance(value, TensorDesc):
        return value
    raise _invalid(f"{name}: expected a NumPy array, aclnn.TensorDesc or None, got {type(value).__name__}")


def as_scalar(name: str, value: object) -> Scalar | None:
    """Normalise an aclScalar argument: None, a Scalar, or a Python/NumPy number.

    A bool becomes a BOOL scalar, an integer an INT64 one (it must fit), any other real number a
    FLOAT one (it must fit a C double: ``Fraction(10**400)`` is refused).
    """
    if value is None or isinstance(value, Scalar):
        return value
    if _is_bool(value):
        return Scalar(bool(value), "BOOL")
    if isinstance(value, numbers.Integral):
        number = _number(value, name)
        if number >= 2**63:
            raise _invalid(f"{name}: integer {show(number)} does not fit an INT64 scalar")
        return Scalar(number, "INT64")
    if isinstance(value, numbers.Real):
        return Scalar(_number(value, name), "FLOAT")
    raise _invalid(f"{name}: expected a number or aclnn.Scalar, got {type(value).__name__}")


def _array_items(name: str, value: object):
    if _is_numpy(value, "ndarray"):
        if value.ndim != 1 or value.size > MAX_ARRAY_LENGTH:
            raise _invalid(
                f"{name} must be a 1-D sequence of at most {MAX_ARRAY_LENGTH} values, got an array of shape "
                f"{show(value.shape)}"
            )
        return value.tolist()
    return value


def as_int_array(name: str, value: object) -> tuple[int, ...] | None:
    """Normalise an aclIntArray argument (None or at most MAX_ARRAY_LENGTH int64 values)."""
    if (type(value) is list or type(value) is tuple) and len(value) <= MAX_ARRAY_LENGTH:  # common case, fast
        for v in value:
            if type(v) is not int or not -(2**63) <= v < 2**63:
                break
        else:
            return tuple(value)
    if value is None:
        return None
    return _int_tuple(_array_items(name, value), name, allow_negative=True)


def as_bool_array(name: str, value: object) -> tuple[bool, ...] | None:
    """Normalise an aclBoolArray argument (None or at most MAX_ARRAY_LENGTH bools)."""
    if value is None:
        return None
    if (type(value) is tuple or type(value) is list) and len(value) <= MAX_ARRAY_LENGTH:  # common case, fast
        for v in value:
            if type(v) is not bool:
                break
        else:
            return tuple(value)
    out = []
    for v in _bounded(_array_items(name, value), name, MAX_ARRAY_LENGTH, "bools"):
        if not _is_bool(v):
            raise _invalid(f"{name} must hold bools, got {show(v)}")
        out.append(bool(v))
    return tuple(out)


def as_float_array(name: str, value: object) -> tuple[float, ...] | None:
    """Normalise an aclFloatArray argument (None or at most MAX_ARRAY_LENGTH numbers fitting a C double)."""
    if value is None:
        return None
    out = []
    for v in _bounded(_array_items(name, value), name, MAX_ARRAY_LENGTH, "numbers"):
        out.append(as_float(name, v))
    return tuple(out)


def as_tensor_list(name: str, value: object) -> tuple[TensorDesc | None, ...] | None:
    """Normalise an aclTensorList argument (None or at most MAX_ARRAY_LENGTH tensors, each as ``as_tensor``)."""
    if value is None:
        return None
    if isinstance(value, TensorDesc) or _is_numpy(value, "ndarray"):
        raise _invalid(f"{name} must be a sequence of tensors, got a single {type(value).__name__}")
    items = _bounded(value, name, MAX_ARRAY_LENGTH, "tensors")
    return tuple(as_tensor(f"{name}[{i}]", v) for i, v in enumerate(items))


#: Longest ``char*`` argument accepted.
MAX_TEXT_LENGTH = 4096


def as_text(name: str, value: object) -> str | None:
    """Normalise a ``char*`` argument (None or a str without NUL of at most MAX_TEXT_LENGTH characters)."""
    if value is None:
        return None
    if not isinstance(value, str) or "\0" in value or len(value) > MAX_TEXT_LENGTH:
        raise _invalid(
            f"{name} must be a string without NUL of at most {MAX_TEXT_LENGTH} characters, got {show(value)}"
        )
    return value


def as_int(name: str, value: object, ctype: str = "int") -> int:
    """Normalise a plain C integer argument; it must fit ``ctype``."""
    low, high = C_INT_RANGES.get(ctype, C_INT_RANGES["int64_t"])
    if type(value) is int and low <= value <= high:  # the common case, fast
        return value
    if _is_bool(value) or not isinstance(value, numbers.Integral):
        raise _invalid(f"{name} must be an integer ({ctype}), got {show(value)}")
    if not low <= int(value) <= high:
        raise _invalid(f"{name} = {show(int(value))} does not fit the C type {ctype}")
    return int(value)


def as_bool(name: str, value: object) -> bool:
    """Normalise a plain C bool argument."""
    if type(value) is bool:  # the common case, fast
        return value
    if not _is_bool(value):
        raise _invalid(f"{name} must be a bool, got {show(value)}")
    return bool(value)


def as_float(name: str, value: object) -> float:
    """Normalise a plain C float/double argument (it must fit a C double)."""
    if type(value) is float:  # the common case, fast (every Python float is a C double)
        return value
    if _is_bool(value) or not isinstance(value, numbers.Real):
        raise _invalid(f"{name} must be a number, got {show(value)}")
    try:
        return float(value.item() if _is_numpy(value, "generic") else value)
    except (OverflowError, ValueError, TypeError, ArithmeticError):
        raise _invalid(f"{name}: {show(value)} does not fit a C double") from None
