"""NumPy reference kernel for ``aclnnNLLLossBackward`` (golden: ``torch.ops.aten.nll_loss_backward``).

Conventions
-----------
``nll_loss_backward(grad_output, self, target, weight, reduction, ignore_index, total_weight, *, product=None)``.
``self`` is ``(N, C)`` (or ``(C,)``: one sample without a batch dimension), ``target`` holds N class indices
(``()`` or ``(1,)`` for a 1-D ``self``), ``weight`` is ``(C,)`` and ``total_weight`` one element.  The result
has ``self``'s shape and is zero except, for every sample ``i`` whose target ``t = target[i]`` is not
``ignore_index``::

    out[i, t] = -weight[t] * grad_output[i]                   reduction 0 ('none'; grad_output is (N,))
    out[i, t] = -weight[t] * grad_output / total_weight       reduction 1 ('mean'; grad_output 1 element)
    out[i, t] = -weight[t] * grad_output                      reduction 2 ('sum';  grad_output 1 element)

With a 1-D ``self`` the gradient is always one element and the single target is ``target``'s first element
(the op unsqueezes ``self`` to ``(1, C)``; PyTorch reads ``target[0]`` too).

dtypes (from the op_api code, aclnn_nll_loss_backward.cpp and nll_loss_grad.cpp):

* ``grad_output``, ``self``, ``weight`` and ``total_weight`` share one dtype, FLOAT, FLOAT16 or BFLOAT16
  (BFLOAT16 on A2/A3/950 only); ``target`` is INT64, INT32 or UINT8.  Every product computes in float32
  here (half types widen exactly, the result is rounded once).
* Result dtype, per product: on 950 the op keeps ``self``'s dtype; everywhere else a FLOAT16 ``self`` is cast
  to FLOAT first and the FLOAT result is cast to ``out``'s dtype.  Pass ``product`` (the spec marks the
  kernel ``product_aware``) to get exactly that: float32 for a FLOAT16 ``self`` unless ``product == "950"``,
  ``self``'s dtype otherwise.  The binding casts the result to ``out``'s dtype (any dtype CanCast accepts).
* Empty ``self``: an empty (or all-zero) result without looking at the other inputs, like the op.

Readings chosen where the sources are silent
--------------------------------------------
* A target outside ``[0, C)`` that is not ``ignore_index`` is undefined on the device (PyTorch raises);
  this kernel raises IndexError.  On non-950 products the op casts ``target`` to INT32 first: a 64-bit
  target outside the int32 range would wrap there; this kernel rejects it as out of range instead.
* 'mean' divides by ``total_weight`` as given (IEEE: 0 gives +-inf / NaN where a target is not ignored).
  The caller supplies ``total_weight`` (the forward's sum of ``weight[target]`` over non-ignored samples);
  the kernel does not recompute it.
* ``total_weight`` is ignored for 'none' and 'sum' (the doc: "not processed"), but must be one element.

Speed
-----
The result is allocated zero-filled (``_accel.zeroed``), then one compiled pass over the rows checks the targets
and writes the N values (``_scatter_compiled``, bit-identical to the NumPy reference path: fancy-index
scatter; at 4 x 1000 the NumPy path's dozen calls cost ~13 us, the compiled call ~3 us, PyTorch ~2.5 us).
Past that, the time is the zero fill of the result, nothing else: no pass reads ``self``, the half inputs
are read as their bits and only the N used weights are widened. On 910/A2/A3 a FLOAT16 ``self`` gets a
FLOAT result (CANN's contract), twice PyTorch's float16 bytes (figures: benchmark VM, one core):

* below 32 MiB (4096 x 1000: 16 MB) glibc recycles the block and ``calloc`` clears it in cache with
  ``memset``: 0.129 ms for 16 MB against PyTorch's 0.09-0.10 ms for its 8 MB (its own fill loop), so the
  kernel (0.140 ms) stays 1.3-1.4x PyTorch: the floor for twice the bytes at ``memset`` speed;
* from 32 MiB on (16384 x 1000: 64 MB) glibc maps fresh pages for every call, which the OS zeroes on first
  touch (3.1 ms with transparent huge pages, 24 ms without: ~3-3.5x PyTorch, whose 31.25 MiB float16 result is
  just below the threshold and recycled). ``_accel.zeroed`` recycles such results itself (at most 64 MiB kept,
  glibc's own bound for its heap, given back to the OS on demand with ``MADV_FREE``) on 2 MiB pages; a reused
  block is cleared by ``memset`` at ~80 GB/s: 0.83-0.90 ms per call, 0.7-1.04x PyTorch, steady from the second call
  on whatever the allocator's state (PyTorch's own first calls take 6-13 ms until glibc recycles its block).
  Measured and not adopted: a fresh huge-page block per call (3.1 ms) and NumPy's ``np.zeros`` (3.9 ms, huge
  pages from an unaligned start); a compiled zero fill fused with the scatter (2.7 ms) or ``fill`` on a float32
  view (1.8 ms): ordinary stores read every line before writing it, ``memset`` streams past the cache; ``memset``
  and scatter in chunks of 64-4096 rows (1.2x slower than one ``memset``, then the scatter); changing
  glibc's thresholds (a process-wide side effect; with ``MALLOC_MMAP_THRESHOLD_=268435456`` the same call is
  ~1.0 ms).
"""

from __future__ import annotations

import numpy as np

from generator.kernels import _accel
from generator.kernels._accel import as_f32, put
from generator.kernels._common import FLOAT_DTYPES, Cost
from generator.kernels._pointwise import F16, F32, numel, to_dtype

__all__ = ["cost", "nll_loss_backward"]

# Sets: one hashed lookup per test (dtypes hash as they compare).
_TARGET_DTYPES = frozenset((np.dtype(np.int64), np.dtype(np.int32), np.dtype(np.uint8)))
_FLOATS = frozenset(FLOAT_DTYPES)


def _check(grad_output, self, target, weight, reduction, total_weight) -> None:
    same = grad_output.dtype == self.dtype == weight.dtype == total_weight.dtype
    if not (same and self.dtype in _FLOATS):  # (one test in the common case)
        named = (("grad_output", grad_output), ("self", self), ("weight", weight), ("total_weight", total_weight))
        for name, array in named:
            if array.dtype not in FLOAT_DTYPES:
                raise TypeError(f"{name}: dtype {array.dtype} is not one of float32, float16, bfloat16")
        raise TypeError("grad_output, self, weight and total_weight must have the same dtype")
    if target.dtype not in _TARGET_DTYPES:
        raise TypeError(f"target: dtype {target.dtype} is not one of int64, int32, uint8")
    if reduction not in (0, 1, 2):
        raise ValueError(f"reduction must be 0 (none), 1 (mean) or 2 (sum), got {reduction}")
    if self.ndim not in (1, 2):
        raise ValueError(f"self must be 1-D or 2-D, got shape {self.shape}")
    if target.ndim > 1:
        raise ValueError(f"target must be 0-D or 1-D, got shape {target.shape}")
    # CANN compares self's N with target's dimension 0, which a 0-d target reports as 0.
    if self.ndim == 2 and self.shape[0] != (target.shape[0] if target.ndim else 0):
        raise ValueError(f"size mismatch: self {self.shape}, target {target.shape}")
    if self.ndim == 1 and target.ndim == 1 and self.shape[0] != target.shape[0]:
        raise ValueError(f"size mismatch: self {self.shape}, target {target.shape}")
    classes = self.shape[-1]
    if weight.shape != (classes,):
        raise ValueError(f"weight must have shape ({classes},), got {weight.shape}")
    if total_weight.size != 1:
        raise ValueError(f"total_weight must hold one element, got shape {total_weight.shape}")
    if reduction == 0 and self.ndim == 2:
        if grad_output.shape != (self.shape[0],):
            raise ValueError(f"grad_output must have shape ({self.shape[0]},), got {grad_output.shape}")
    elif grad_output.ndim > 1 or grad_output.size != 1:
        raise ValueError(f"grad_output must be a single element, got shape {grad_output.shape}")


def _result_dtype(dtype: np.dtype, product) -> np.dtype:
    if dtype == F16 and str(product) != "950":
        return F32
    return dtype


def nll_loss_backward(
    grad_output, self, target, weight, reduction, ignore_index, total_weight, *, product=None
) -> np.ndarray:
    """Gradient of the negative log-likelihood loss with respect to ``self``; see the module docstring."""
    grad_output, self, target = np.asarray(grad_output), np.asarray(self), np.asarray(target)
    weight, total_weight = np.asarray(weight), np.asarray(total_weight)
    reduction, ignore_index = int(reduction), int(ignore_index)
    _check(grad_output, self, target, weight, reduction, total_weight)
    dtype = _result_dtype(self.dtype, product)
    if self.size == 0:
        return np.zeros(self.shape, dtype)
    classes = self.shape[-1]
    rows = 1 if self.ndim == 1 else self.shape[0]
    # only the N written values are rounded to the result dtype; big results recycled (see the Speed notes)
    big = self.size * dtype.itemsize >= _accel.RECYCLE_FROM
    out = _accel.zeroed(self.shape, dtype) if big else np.zeros(self.shape, dtype)
    if _accel.enabled():  # one compiled pass: at small sizes the NumPy calls' fixed costs are the whole time
        # Arrays made contiguous, aligned and writeable by ``ready`` and flattened by ``ravel`` (a view then), so
        # the dispatcher is called directly (the wrapper's read-only check is not needed); half types as their
        # storage (``_accel.storage``). The loop reads the first ``rows`` targets only.
        ready, bits = _accel.ready, _accel.HALF_STORAGE.get(self.dtype)
        inputs = [ready(weight), ready(grad_output).ravel(), ready(total_weight).ravel()]
        if bits is not None:
            inputs = [a.view(bits) for a in inputs]
        flat_target = ready(target).ravel()
        rows_out = out if self.ndim == 2 else out.reshape(1, classes)
        bits_out = _accel.HALF_STORAGE.get(dtype)
        bad = _scatter_compiled.dispatcher()(
            rows_out if bits_out is None else rows_out.view(bits_out), flat_target, *inputs,
            reduction, ignore_index, reduction == 0 and self.ndim == 2,
        )  # fmt: skip
        if bad >= 0:
            raise IndexError(f"target {int(flat_target[bad])} is out of bounds for {classes} classes")
        return out
    out = out.reshape(rows, classes)
    t = target.reshape(-1)[:rows].astype(np.int64, copy=False)
    rows_kept = (t != ignore_index).nonzero()[0]
    cls = t[rows_kept]
    outside = cls.view(np.uint64) >= classes  # negative classes wrap to huge values
    if np.count_nonzero(outside):
        raise IndexError(f"target {int(cls[outside][0])} is out of bounds for {classes} classes")
    w = weight[cls].astype(F32, copy=False)
    g = grad_output.reshape(-1).astype(F32, copy=False)
    g = g[rows_kept] if (reduction == 0 and self.ndim == 2) else g[0]
    with np.errstate(all="ignore"):
        if reduction == 1:
            g = g / total_weight.reshape(-1)[0].astype(F32)
        values = np.asarray(-(w * g), F32)
    out[rows_kept, cls] = to_dtype(values, dtype)
    return out.reshape(self.shape)


@_accel.jit
def _scatter_compiled(out, target, weight, grad, total, reduction, ignore_index, per_row):
    """The compiled twin of the NumPy scatter above (storages of :func:`_accel.storage`; float32 arithmetic in
    the same order, so the results are bit-identical): ``out[i, t] = -(w[t] * g)`` for every row ``i`` whose
    target ``t`` is not ``ignore_index``. Returns the first row with an out-of-range target, or -1."""
    rows, classes = out.shape
    scalar = as_f32(grad[0])
    if reduction == 1:
        scalar = scalar / as_f32(total[0])
    for i in range(rows):
        cls = np.int64(target[i])
        if cls == ignore_index:
            continue
        if cls < 0 or cls >= classes:
            return i
        g = as_f32(grad[i]) if per_row else scalar
        put(out, (i, cls), -(as_f32(weight[cls]) * g))
    return -1


def cost(grad_output, self, target, weight, reduction, ignore_index, total_weight, *, product=None) -> Cost:
    """A zero-filled result of ``self``'s size plus per-sample index arrays; one pass plus a scatter."""
    n = numel(np.shape(self))
    rows = numel(np.shape(target))
    return Cost(bytes=n * 4 + rows * 48, ops=n + 10 * rows, param="self")
