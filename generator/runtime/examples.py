"""Turn a spec's example (and a check's test cases) into arguments for the ``aclnn`` functions.

Used by the generated-op tests, the docs (expected output) and the benchmarks. Tensors with
``data``/``fill`` become NumPy arrays; ``mask_from_argmax`` is encoded by the MaxPool2dWithMask
codec for the example's product; tensors without data become data-less ``TensorDesc``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from generator.model import Example, ExampleScalar, ExampleTensor, OpSpec
from generator.runtime.values import Scalar, TensorDesc, default_format, numpy_dtype

if TYPE_CHECKING:
    import numpy as np


def tensor(value: ExampleTensor, inputs: dict, product: str, *, with_data: bool = True):
    if value.mask_from_argmax is not None:
        return _mask(value, inputs, product)
    if not with_data or (value.data is None and value.fill is None):
        return TensorDesc(value.shape, value.dtype, value.format)
    import numpy as np  # only examples with data need NumPy

    dtype = numpy_dtype(value.dtype)
    if value.data is not None:
        array = np.asarray(value.data, dtype=np.float64 if dtype.kind == "V" else None)
        array = array.astype(dtype).reshape(value.shape)
    else:
        array = np.full(value.shape, value.fill, dtype=np.float64).astype(dtype)
    if "format" in value.model_fields_set and value.format != default_format(array.ndim):
        # A format the binding would not infer from the rank (NHWC, ...): the array travels in a descriptor.
        return TensorDesc(value.shape, value.dtype, value.format, data=array)
    return array


def _mask(value: ExampleTensor, inputs: dict, product: str) -> np.ndarray:
    import numpy as np

    from generator.kernels.max_pool2d_with_mask_backward import encode_mask, mask_layout

    self_shape = tuple(inputs["self"].shape)
    kernel, stride, padding = inputs["kernelSize"], inputs["stride"], inputs["padding"]
    pooled = inputs["gradOutput"].shape  # the argmax has one entry per pooled output position
    argmax = np.asarray(value.mask_from_argmax, dtype=np.int64).reshape(pooled)
    layout = mask_layout(product, kernel)
    mask = encode_mask(argmax, self_shape, kernel, stride, padding, inputs["ceilMode"], layout=layout)
    return np.asarray(mask, dtype=np.int8).reshape(value.shape)


def arguments(spec: OpSpec, example: Example, overrides: dict | None = None, *, with_data: bool = True) -> dict:
    """Keyword arguments (docs' parameter names) for ``aclnn.validate``/``aclnn.run``."""
    raw = dict(example.inputs)
    raw.update(overrides or {})
    out: dict = {}
    product = example.product
    # Plain values first (a mask needs the pooling attributes), then tensors.
    for name, value in raw.items():
        if not isinstance(value, ExampleTensor):
            out[name] = _plain(value)
    for name, value in raw.items():
        if isinstance(value, ExampleTensor):
            out[name] = tensor(value, {**out, **raw}, product, with_data=with_data)
    # keep the spec's parameter order
    order = [p.name for p in spec.params]
    return {name: out[name] for name in order if name in out}


def _plain(value):
    if isinstance(value, ExampleScalar):
        return Scalar(value.value, value.dtype)
    if isinstance(value, list):
        return list(value)
    return value
