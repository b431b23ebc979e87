"""NumPy reference kernel for ``aclnnMaxPool2dWithIndicesBackward`` (golden: ``aten.max_pool2d_with_indices_backward``).

Formula
-------
``gradInput = zeros_like(self)``; for every pooled position ``(n, c, ho, wo)``:
``gradInput[n, c].flat[indices[n, c, ho, wo]] += gradOutput[n, c, ho, wo]`` -- overlapping windows
accumulate.  ``indices`` holds, per output, the flat position ``h*W + w`` of the window maximum inside the
UNPADDED ``H x W`` plane of its ``(n, c)`` (PyTorch's ``return_indices`` convention, which CANN's
MaxPool2dWithIndices forward writes as well).

Conventions (op_api ``aclnn_max_pool2d_with_indices_backward.cpp``)
-------------------------------------------------------------------
* ``self`` is 4-D ``(N, C, H, W)`` or 3-D ``(C, H, W)`` (``N = 1``); ``grad_output`` and ``indices`` have the
  pooled shape ``(N, C, Ho, Wo)``.  ``kernel_size``/``padding``/``dilation`` have 1 or 2 values, ``stride``
  0, 1 or 2 (empty = ``kernel_size``); kernel, stride, dilation > 0, ``0 <= padding <= kernel_size // 2`` and
  ``padding <= ((kernel_size - 1) * dilation + 1) // 2``; ``C``, ``H``, ``W`` non-zero; ``Ho``/``Wo`` follow the
  shared pooled-size rule (floor/ceil with the "last window must start inside" correction) and must be
  positive.  Violations raise ``ValueError`` (the op rejects them with 161002).
* The computation is the same on every product, so the kernel is not product-aware; the per-product limits
  are first-phase checks: A2/A3 accept only FLOAT ``self``, INT32 indices and dilation 1 (their dtype list
  also names INT8 for the shared mask path); 950 accepts FLOAT/FLOAT16/BFLOAT16, INT32/INT64 indices, any
  dilation > 0 and the NHWC format.
* Indices: int32 and int64 are accepted.  INT8 indices (which the A2/A3 dtype check lets through for this
  entry point, with the shape of ``grad_output``) have no defined meaning as flat positions: rejected with
  ``ValueError``.  Indices outside ``[0, H*W)`` are undefined on the device: ``ValueError``.  In-range indices
  outside their window are scattered where they point (neither the device nor PyTorch checks).
* Formats: the kernel cannot see tensor formats; the spec passes ``self``'s format as ``data_format``
  (keyword-only): ``"NHWC"`` selects channels-last tensors ``(N, H, W, C)`` / ``(H, W, C)`` (the op's shape
  checks read them that way on every product), any other format (or None) is channels-first, as in the op.
  Indices are ``h*W + w`` per ``(n, c)`` plane either way (reading: PyTorch's channels-last convention).
* Sums are formed in float64 (``np.bincount``) and rounded once to the dtype of ``self``.
* Empty tensors: only a zero batch ``N`` can pass the op's checks; it returns correctly shaped zeros (the op
  returns without computing, and the result is empty anyway).

Implementation: the scatter is the blocked per-plane ``np.bincount`` shared with the 3-D kernel.
"""

from __future__ import annotations

import numpy as np

from generator.kernels._common import Cost, check_float, from_compute, normalize_pair, to_compute
from generator.kernels.max_pool3d_with_argmax_backward import check_pool_params, pooled_shape, scatter_add_planes

__all__ = ["cost", "max_pool2d_with_indices_backward"]

_INDEX_DTYPES = (np.dtype(np.int32), np.dtype(np.int64))


def _params(kernel_size, stride, padding, dilation):
    kernel = normalize_pair(kernel_size, "kernel_size")
    stride_ = normalize_pair(stride, "stride", default=kernel)
    pad = normalize_pair(padding, "padding")
    dil = normalize_pair(dilation, "dilation")
    check_pool_params(kernel, stride_, pad, dil)
    for p, k, d in zip(pad, kernel, dil, strict=True):
        if p > ((k - 1) * d + 1) // 2:
            raise ValueError(f"padding {pad} exceeds half of the effective kernel size for {kernel}, dilation {dil}")
    return kernel, stride_, pad, dil


def _channels_first(array: np.ndarray, channels_last: bool) -> np.ndarray:
    return np.moveaxis(array, -1, -3) if channels_last else array


def max_pool2d_with_indices_backward(
    grad_output, self, indices, kernel_size, stride, padding, dilation, ceil_mode, *, data_format=None
) -> np.ndarray:
    """Scatter-add ``grad_output`` to the flat positions in ``indices``; returns an array like ``self``."""
    grad_output = np.asarray(grad_output)
    self = np.asarray(self)
    indices = np.asarray(indices)
    check_float("self", self)
    check_float("grad_output", grad_output)
    if grad_output.dtype != self.dtype:
        raise TypeError(f"grad_output dtype {grad_output.dtype} differs from self dtype {self.dtype}")
    if indices.dtype == np.dtype(np.int8):
        raise ValueError("INT8 indices are not flat positions (only the mask entry point defines INT8)")
    if indices.dtype not in _INDEX_DTYPES:
        raise TypeError(f"indices dtype must be int32 or int64, got {indices.dtype}")
    # the op reads C from the last dimension for NHWC and from dimension -3 for every other public format
    channels_last = data_format is not None and str(data_format).upper() == "NHWC"
    kernel, stride_, pad, dil = _params(kernel_size, stride, padding, dilation)
    if self.ndim not in (3, 4):
        raise ValueError(f"self must be 3-D (C,H,W) or 4-D (N,C,H,W), got shape {self.shape}")
    x = _channels_first(self, channels_last)
    lead, (h, w) = x.shape[:-2], x.shape[-2:]
    n, c = (1, lead[0]) if len(lead) == 1 else lead
    if c == 0 or h == 0 or w == 0:
        raise ValueError(f"C, H and W of self must be non-zero, got {self.shape}")
    ho, wo = pooled_shape((h, w), kernel, stride_, pad, dil, ceil_mode)
    expected = lead + (ho, wo)
    if channels_last:
        expected = expected[:-3] + (ho, wo, c)
    if grad_output.shape != expected:
        raise ValueError(f"grad_output shape {grad_output.shape} != pooled shape {expected}")
    if indices.shape != grad_output.shape:
        raise ValueError(f"indices shape {indices.shape} != grad_output shape {grad_output.shape}")
    if n == 0:
        return np.zeros(self.shape, dtype=self.dtype)
    g = to_compute(_channels_first(grad_output, channels_last)).reshape(n * c, ho * wo)
    idx = np.ascontiguousarray(_channels_first(indices, channels_last)).reshape(n * c, ho * wo)
    grad_input = scatter_add_planes(g, idx, h * w).reshape(x.shape)
    if channels_last:
        grad_input = np.ascontiguousarray(np.moveaxis(grad_input, -3, -1))
    return from_compute(grad_input, self.dtype)


def cost(grad_output, self, indices, kernel_size, stride, padding, dilation, ceil_mode, *, data_format=None) -> Cost:
    """float32 result, float32 gradient copy, int64 flat indices and a float64 bincount block per call."""
    out = 1
    for v in self.shape:
        out *= int(v)
    pooled = 1
    for v in grad_output.shape:
        pooled *= int(v)
    return Cost(bytes=4 * out + 12 * pooled + 8 * (1 << 17), ops=out + 3 * pooled, param="self")
