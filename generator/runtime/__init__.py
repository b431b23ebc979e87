"""Hand-written runtime support for the generated ``aclnn`` package.

The generated validators and bindings import this module as ``rt``. It holds what is not
per-operator: the error type, tensor/scalar descriptors and argument normalisation, the dtype
conversion and promotion rules, shape helpers used by rule expressions, and check failure
reporting. The catalogue tables themselves are generated (``aclnn/_catalog.py``) and passed in
through :func:`install_catalog` so that this module holds no copy of them.
"""

from generator.runtime.backend import (
    INFER_ERRORS,
    MISSING,
    execute,
    limits,
    output_desc,
    tensor_data,
    tensor_list_data,
)
from generator.runtime.errors import EVALUATION_ERRORS, AclnnError, CheckInfo, fail
from generator.runtime.rules import (
    bounded_range,
    broadcast_shape,
    broadcastable,
    castable,
    ceil_div,
    conv_out,
    expand,
    f32,
    float_sum,
    is_private,
    or_default,
    pool_out,
    prod,
    promotable,
    promote,
)
from generator.runtime.values import (
    Scalar,
    TensorDesc,
    as_bool,
    as_bool_array,
    as_float,
    as_float_array,
    as_int,
    as_int_array,
    as_scalar,
    as_tensor,
    as_tensor_list,
    as_text,
    install_catalog,
    normalize_dtype,
    normalize_product,
    numpy_dtype,
)

__all__ = [
    "MISSING",
    "execute",
    "INFER_ERRORS",
    "limits",
    "output_desc",
    "tensor_data",
    "tensor_list_data",
    "EVALUATION_ERRORS",
    "AclnnError",
    "CheckInfo",
    "Scalar",
    "TensorDesc",
    "as_bool",
    "as_bool_array",
    "as_float",
    "as_float_array",
    "as_int",
    "as_int_array",
    "as_scalar",
    "as_tensor",
    "bounded_range",
    "as_tensor_list",
    "as_text",
    "broadcast_shape",
    "broadcastable",
    "castable",
    "ceil_div",
    "conv_out",
    "expand",
    "f32",
    "fail",
    "float_sum",
    "install_catalog",
    "is_private",
    "normalize_dtype",
    "normalize_product",
    "numpy_dtype",
    "or_default",
    "pool_out",
    "prod",
    "promotable",
    "promote",
]
