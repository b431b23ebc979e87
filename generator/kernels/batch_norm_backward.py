"""NumPy reference kernel for ``aclnnBatchNormBackward`` (golden: ``torch.ops.aten.native_batch_norm_backward``).

Formula
-------
Per channel ``c`` (axis 1, or the last axis for NHWC/NDHWC on 950), with ``m`` the number of elements of
one channel (all other axes), ``g = gradOut``, ``w`` the weight (ones when null):

* ``training`` true -- statistics ``mu = saveMean`` (zeros when null), ``invstd = saveInvstd`` (ones when
  null), used as given (``eps`` does not enter)::

      gradInput  = w*invstd * (g - sum(g)/m - (x - mu) * invstd^2 * sum(g*(x - mu))/m)
      gradWeight = sum(g * (x - mu)) * invstd
      gradBias   = sum(g)

* ``training`` false -- running statistics ``mu = runningMean`` (zeros when null), ``var = runningVar`` (ones
  when null), ``invstd = 1/sqrt(var + eps)``::

      gradInput  = g * w * invstd;   gradWeight = sum(g * (x - mu)) * invstd;   gradBias = sum(g)

``output_mask`` (three bools: gradInput, gradWeight, gradBias) selects the outputs; unrequested ones are
``None``.  The null-tensor defaults are the ones the op fills in (FillScalar 0 / 1).

Readings chosen where the sources are silent or disagree
---------------------------------------------------------
* ``saveInvstd`` is the inverse standard deviation ``1/sqrt(var + eps)``, used as given in training (``eps``
  does not enter).  Evidence for: the parameter table, the parameter's name, PyTorch's
  ``native_batch_norm_backward`` (whose ``save_invstd`` torch_npu passes through unchanged, so CPU and NPU
  results must agree on it).  Evidence against: the doc's training formula writes ``sqrt(saveVar + eps)``,
  its sample names the tensor ``sVar``, and on A2/A3/910 the op_api feeds the same device input with
  ``saveInvstd`` in training and ``runningVar`` in eval (plus ``eps`` in both).  Not verifiable without a
  device; the spec (doc issue ``saveinvstd-reading``) records the same reading.
* ``eps`` is a C ``double`` but the op passes it to the device as ``float``: it is rounded to float32 here.
* dtypes: ``grad_out``/``input`` share float32/float16/bfloat16; weight and statistics may be float32 or the
  input's dtype (950) -- every value is converted to float32 and the arithmetic is float32 with per-channel
  sums accumulated in float64, rounded once.  ``gradInput`` comes back in the input's dtype.
  ``gradWeight``/``gradBias`` come back in float32 (the A2/A3/910 update-grad kernel and the 950 eval path
  produce float32 and the op casts to the output tensors) -- except on product ``"950"`` in training, where
  the fused kernel writes them in the weight's dtype (float32 when ``grad_out`` is float32 or the weight is
  null) before the op's cast: they are then rounded to that dtype and returned in it.
* Channel axis: 1 for every rank 2-8 (the op views 6-8-D input as ``(N, C, D, H, W*...)``), except on
  ``product="950"`` with ``data_format`` (keyword-only: ``input``'s format name) ``"NHWC"`` or ``"NDHWC"``,
  where it is the last axis.  Every other format (NC, NCL, NCHW, NCDHW, ND, HWCN, ...) is read channels-first,
  and so are NHWC/NDHWC on the other products: their op_api always takes dimension 1 as the channel.
* Empty tensors: the op returns right after its null checks when ``input`` or ``grad_out`` is empty, before
  looking at anything else (``output_mask`` may then be null or short: missing entries count as false).  An
  empty gradInput is well defined, but a non-empty one (``grad_out`` empty, ``input`` not) and
  ``gradWeight``/``gradBias`` with ``C > 0`` elements would be left unwritten: requesting them raises
  ``ValueError``.
* In inference the saved statistics are not read, whatever their shape (A2/A3/910 do not check them).
* ``output_mask`` must have 3 entries (A2/A3/910 only check ``>= 1`` and then read entries 1 and 2 anyway).
* Non-finite values and negative variances propagate through IEEE arithmetic (NaN), as on any device.

Implementation: the input is viewed as rows of one channel each (``(N*C, S)``, channels-last input is
moved to channels-first first) and processed in cache-sized blocks of rows (a loop over blocks, never over
elements).  Pass 1 forms ``x - mu`` in the block and reduces ``sum(g)`` and ``sum(g*(x-mu))`` per row
(``einsum``), folding rows into channels with ``bincount``; pass 2 writes
``gradInput = A*g - B*(x - mu) + C0`` with per-channel coefficients.  Eval mode needs pass 1 only for
gradWeight/gradBias and one multiply for gradInput.
"""

from __future__ import annotations

import numpy as np

from generator.kernels import _accel
from generator.kernels._accel import as_f32, put
from generator.kernels._common import FLOAT_DTYPES, Cost

__all__ = ["batch_norm_backward", "cost"]

_BLOCK = 1 << 17  # elements per block (512 KiB per float32 temporary)
_F32 = np.dtype(np.float32)
_CHANNELS_LAST = {"NHWC", "NDHWC"}


def _mask(output_mask) -> tuple[bool, bool, bool]:
    values = [bool(v) for v in output_mask]
    # CANN reads the first three entries (only 950's op_api refuses a longer mask; its validator does).
    if len(values) < 3:
        raise ValueError(f"output_mask must have at least 3 entries, got {len(values)}")
    return values[0], values[1], values[2]


def _vector(name: str, array, channels: int, default: float, *, allow_empty: bool = False) -> np.ndarray:
    """A per-channel float32 vector (``default`` when null); must be 1-D with ``channels`` elements."""
    if array is None:
        return np.full(channels, default, dtype=_F32)
    array = np.asarray(array)
    if np.dtype(array.dtype) not in FLOAT_DTYPES:
        raise TypeError(f"{name}: dtype {array.dtype} is not one of float32, float16, bfloat16")
    if array.ndim != 1 or (array.shape[0] != channels and not (allow_empty and array.shape[0] == 0)):
        raise ValueError(f"{name} must be 1-D with {channels} elements (the channel count), got {array.shape}")
    return array.astype(_F32)


def _channels_last(data_format, product) -> bool:
    """Only 950's op_api reads the channel from the last axis (NHWC / NDHWC); the others use dimension 1."""
    return _is_950(product) and data_format is not None and str(data_format).upper() in _CHANNELS_LAST


def _is_950(product) -> bool:
    return str(product).strip().lower() in {"950", "ascend950"}


def _empty_result(x_in: np.ndarray, output_mask, data_format, product):
    """The op returns right after its null checks when input or gradOut is empty: nothing else is checked
    (outputMask may be null or short, dtypes and shapes are not compared) and no output is written.  An
    output that is empty anyway is well defined; one with elements would keep undefined contents."""
    mask = [bool(v) for v in (output_mask if output_mask is not None else ())][:3]
    want_dx, want_dw, want_db = mask + [False] * (3 - len(mask))
    dx = None
    if want_dx:
        if x_in.size:
            raise ValueError("empty gradOut: the op leaves gradInput unwritten (undefined contents)")
        dx = np.zeros(x_in.shape, x_in.dtype)
    if not (want_dw or want_db):
        return dx, None, None
    channels_last = _channels_last(data_format, product)
    if x_in.ndim < 2 or x_in.shape[x_in.ndim - 1 if channels_last else 1] != 0:
        raise ValueError("empty input: the op leaves gradWeight/gradBias unwritten (undefined contents)")
    empty = np.zeros(0, _F32)
    return dx, (empty if want_dw else None), (empty.copy() if want_db else None)


def _weight_grad_dtype(product, training: bool, grad_dtype: np.dtype, weight) -> np.dtype:
    """Dtype in which the device writes gradWeight/gradBias (before the op's cast to the output tensors)."""
    if not _is_950(product) or not training or weight is None:
        return _F32
    if grad_dtype == _F32:
        return _F32
    return np.dtype(np.asarray(weight).dtype)


def batch_norm_backward(
    grad_out,
    input,  # noqa: A002  (the doc's parameter name)
    weight,
    running_mean,
    running_var,
    save_mean,
    save_invstd,
    training,
    eps,
    output_mask,
    *,
    product="910b",
    data_format=None,
):
    """Gradients of BatchNorm -> ``(gradInput | None, gradWeight | None, gradBias | None)``."""
    grad_out = np.asarray(grad_out)
    x_in = np.asarray(input)
    if x_in.size == 0 or grad_out.size == 0:
        return _empty_result(x_in, output_mask, data_format, product)
    for name, arr in (("grad_out", grad_out), ("input", x_in)):
        if np.dtype(arr.dtype) not in FLOAT_DTYPES:
            raise TypeError(f"{name}: dtype {arr.dtype} is not one of float32, float16, bfloat16")
    if grad_out.dtype != x_in.dtype:
        raise TypeError(f"grad_out dtype {grad_out.dtype} differs from input dtype {x_in.dtype}")
    if grad_out.shape != x_in.shape:
        raise ValueError(f"shape mismatch: grad_out {grad_out.shape} vs input {x_in.shape}")
    if not 2 <= x_in.ndim <= 8:
        raise ValueError(f"input must have 2 to 8 dims, got {x_in.ndim}")
    channels_last = _channels_last(data_format, product)
    want_dx, want_dw, want_db = _mask(output_mask)
    training = bool(training)
    c_axis = x_in.ndim - 1 if channels_last else 1
    channels = int(x_in.shape[c_axis])

    w = _vector("weight", weight, channels, 1.0)
    if training:
        mu = _vector("save_mean", save_mean, channels, 0.0)
        invstd = _vector("save_invstd", save_invstd, channels, 1.0)
        _vector("running_mean", running_mean, channels, 0.0)  # shape/dtype checks only
        _vector("running_var", running_var, channels, 1.0)
    else:
        mu = _vector("running_mean", running_mean, channels, 0.0)
        var = _vector("running_var", running_var, channels, 1.0)
        # the saved statistics are not read in inference (any shape; on 950 the op checks (C) or (0))
        with np.errstate(invalid="ignore", divide="ignore"):
            invstd = (1.0 / np.sqrt(var + np.float32(eps))).astype(_F32)
    wg_dtype = _weight_grad_dtype(product, training, np.dtype(grad_out.dtype), weight)

    if not (want_dx or want_dw or want_db):
        return None, None, None

    fast = _compiled(grad_out, x_in, channels_last, w, mu, invstd, training, want_dx, want_dw, want_db, wg_dtype)
    if fast is not None:
        return fast
    # Channels-first rows: (N*C, S), row r belongs to channel r % C.
    if channels_last:
        g4 = np.moveaxis(grad_out, -1, 1)
        x4 = np.moveaxis(x_in, -1, 1)
    else:
        g4, x4 = grad_out, x_in
    n = int(g4.shape[0])
    s = g4.size // (n * channels)
    g = np.ascontiguousarray(g4, dtype=_F32).reshape(n * channels, s)
    x = np.ascontiguousarray(x4, dtype=_F32).reshape(n * channels, s)
    total_rows = n * channels
    rows = max(1, min(total_rows, _BLOCK // max(s, 1)))
    xc = np.empty((rows, s), dtype=_F32)
    row_channel = np.arange(total_rows, dtype=np.int64) % channels
    mu_rows = mu[:, None]

    sum_g = np.zeros(channels, np.float64)
    sum_gx = np.zeros(channels, np.float64)
    need_sums = want_dw or want_db or (want_dx and training)
    with np.errstate(all="ignore"):
        if need_sums:
            for r0 in range(0, total_rows, rows):
                r1 = min(total_rows, r0 + rows)
                ch = row_channel[r0:r1]
                xcb = xc[: r1 - r0]
                np.subtract(x[r0:r1], mu_rows[ch], out=xcb)
                sum_g += np.bincount(ch, weights=g[r0:r1].sum(axis=1), minlength=channels)
                sum_gx += np.bincount(ch, weights=np.einsum("ij,ij->i", g[r0:r1], xcb), minlength=channels)
        count = n * s
        dx = None
        if want_dx:
            out = np.empty((total_rows, s), dtype=x_in.dtype)
            scale = (w * invstd).astype(_F32)  # A: coefficient of g
            if training:
                mean_g = sum_g / count
                mean_gx = sum_gx / count
                coef_x = (scale.astype(np.float64) * invstd * invstd * mean_gx).astype(_F32)  # B
                const = (-scale.astype(np.float64) * mean_g).astype(_F32)  # C0
            t = np.empty((rows, s), dtype=_F32)
            for r0 in range(0, total_rows, rows):
                r1 = min(total_rows, r0 + rows)
                ch = row_channel[r0:r1]
                tb = t[: r1 - r0]
                np.multiply(g[r0:r1], scale[ch][:, None], out=tb)
                if training:
                    xcb = xc[: r1 - r0]
                    np.subtract(x[r0:r1], mu_rows[ch], out=xcb)
                    np.multiply(xcb, coef_x[ch][:, None], out=xcb)
                    np.subtract(tb, xcb, out=tb)
                    np.add(tb, const[ch][:, None], out=tb)
                out[r0:r1] = tb  # rounds to the input dtype once
            out = out.reshape(g4.shape)
            dx = np.ascontiguousarray(np.moveaxis(out, 1, -1)) if channels_last else out
        dw = (sum_gx * invstd).astype(_F32).astype(wg_dtype) if want_dw else None
        db = sum_g.astype(_F32).astype(wg_dtype) if want_db else None
    return dx, dw, db


def _compiled(grad_out, x_in, channels_last, w, mu, invstd, training, want_dx, want_dw, want_db, wg_dtype):
    """The same two passes compiled (``_accel``): no float32 copies of half inputs, no temporaries; per-channel
    sums in float64 (``sum(g * (x - mu))`` of the float32 products), ``gradInput`` with the NumPy path's
    float32 operations in the same order.  None when the call does not qualify (Numba off, channels-last)."""
    if not _accel.enabled() or channels_last:
        return None
    # A strided, unaligned or read-only view (the CANN backend's device memory) is copied, so the result
    # does not depend on how the same values are laid out.
    grad_out, x_in = _accel.ready(grad_out), _accel.ready(x_in)
    n, channels = int(x_in.shape[0]), int(x_in.shape[1])
    s = x_in.size // (n * channels)
    g, x = _accel.storage(grad_out.reshape(-1)), _accel.storage(x_in.reshape(-1))
    sum_g = np.zeros(channels, np.float64)
    sum_gx = np.zeros(channels, np.float64)
    with np.errstate(all="ignore"):
        if want_dw or want_db or (want_dx and training):
            _sums_compiled(g, x, mu, n, channels, s, sum_g, sum_gx)
        dx = None
        if want_dx:
            scale = (w * invstd).astype(_F32)
            coef_x = np.zeros(channels, _F32)
            const = np.zeros(channels, _F32)
            if training:  # the NumPy path's coefficients
                count = n * s
                coef_x = (scale.astype(np.float64) * invstd * invstd * (sum_gx / count)).astype(_F32)
                const = (-scale.astype(np.float64) * (sum_g / count)).astype(_F32)
            dx = np.empty(x_in.shape, x_in.dtype)
            _dx_compiled(g, x, mu, scale, coef_x, const, n, channels, s, training, _accel.storage(dx.reshape(-1)))
        dw = (sum_gx * invstd).astype(_F32).astype(wg_dtype) if want_dw else None
        db = sum_g.astype(_F32).astype(wg_dtype) if want_db else None
    return dx, dw, db


@_accel.jit(fastmath={"reassoc"})
def _sums_compiled(g, x, mu, n, channels, s, sum_g, sum_gx):
    """``sum_g[c] += sum(g)``, ``sum_gx[c] += sum(g * (x - mu[c]))`` over rows ``(b, c)`` of ``s`` elements
    (float64 sums in any order: ``reassoc`` lets them vectorise; the float32 terms are exact as in NumPy)."""
    for b in range(n):
        for c in range(channels):
            base = (b * channels + c) * s
            m = mu[c]
            acc_g = 0.0
            acc_gx = 0.0
            for j in range(s):
                gv = as_f32(g[base + j])
                acc_g += np.float64(gv)
                acc_gx += np.float64(gv * (as_f32(x[base + j]) - m))
            sum_g[c] += acc_g
            sum_gx[c] += acc_gx


@_accel.jit
def _dx_compiled(g, x, mu, scale, coef_x, const, n, channels, s, training, out):
    """``gradInput = (g*A - (x - mu)*B) + C0`` (training) or ``g*A`` (eval), float32, rounded once."""
    for b in range(n):
        for c in range(channels):
            base = (b * channels + c) * s
            a, m, cb, c0 = scale[c], mu[c], coef_x[c], const[c]
            if training:
                for j in range(s):
                    put(out, base + j, (as_f32(g[base + j]) * a - (as_f32(x[base + j]) - m) * cb) + c0)
            else:
                for j in range(s):
                    put(out, base + j, as_f32(g[base + j]) * a)


def cost(
    grad_out,
    input,  # noqa: A002
    weight,
    running_mean,
    running_var,
    save_mean,
    save_invstd,
    training,
    eps,
    output_mask,
    *,
    product="910b",
    data_format=None,
) -> Cost:
    """Float32 copies of grad_out and input, the output, block temporaries and a channel index per row."""
    shape = [int(v) for v in input.shape]
    size = 1
    for v in shape:
        size *= v
    rows = shape[0] * max(shape[1], shape[-1]) if len(shape) > 1 else 1
    return Cost(bytes=3 * 4 * size + 3 * 4 * _BLOCK + 8 * rows + 64, ops=10 * size, param="input")
