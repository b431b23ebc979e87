"""Reference kernel for ``aclnnConvolutionBackward`` (gradients of a 1-D/2-D/3-D, optionally transposed conv).

Contract: ``torch.ops.aten.convolution_backward(grad_output, input, weight, bias_sizes, stride, padding,
dilation, transposed, output_padding, groups, output_mask)``, extended with CANN's asymmetric 2-D padding.

Conventions and readings chosen
-------------------------------
* Layouts: NCL (1-D), NCHW (2-D), NCDHW (3-D). Non-transposed weight ``[Cout, Cin/groups, *k]``; transposed
  weight ``[Cin, Cout/groups, *k]`` (``Cin`` = ``input.shape[1]``, ``Cout`` = ``grad_output.shape[1]``).
* ``stride``, ``dilation`` and ``output_padding``: one value per spatial dim (a single value is broadcast, an
  empty/None ``output_padding`` means zeros). ``padding``: one value per spatial dim (symmetric), or, for 2-D
  only, four values ``[top, bottom, left, right]``. For ``transposed=True`` the asymmetric form is read as
  cropping ``top``/``left`` rows/cols at the start and ``bottom``/``right`` at the end of the full transposed
  output (the natural generalisation of the symmetric crop; PyTorch has no equivalent).
* Shapes are validated: non-transposed ``out = floor((in + lo + hi - d*(k-1) - 1) / s) + 1``, transposed
  ``out = (in - 1)*s - lo - hi + d*(k-1) + output_padding + 1`` must equal the ``grad_output`` spatial size;
  channel/group relations as in the facts (section 5.5 step 9). ``output_padding`` must be all zero when not
  transposed (CANN rejects it); ``output_padding >= stride`` is not rejected (the code only checks it in 3-D).
* ``output_mask = [grad_input, grad_weight, grad_bias]``; masked-off results are ``None`` (CANN leaves them
  unwritten). ``bias_sizes`` is informational only (CANN reads it only in the empty-tensor path); when given,
  it must be ``[grad_output.shape[1]]``. ``grad_bias`` has length ``grad_output.shape[1]`` in both modes.
* Empty tensors: when ``input``, ``weight`` or ``grad_output`` is empty, CANN takes its empty-tensor path (after
  its own checks, which are the validator's): ``grad_weight`` is zero-filled like ``weight``, ``grad_bias`` is
  zero-filled with length ``bias_sizes[0]`` (even when ``grad_output`` holds data, e.g. for an input with zero
  channels), and ``grad_input`` is not written, so it must be empty (``input`` with ``N == 0`` or ``C == 0``;
  a non-empty one raises ``ValueError``). No shape relation is required on that path.
* dtypes: float32, float16 and bfloat16 (ml_dtypes) in any combination. Everything is computed in float32
  (products of float16/bfloat16 values are exact in float32; accumulation is float32 BLAS, like PyTorch's CPU
  path and the float32 ATK golden). ``grad_input`` is returned in ``input.dtype``, ``grad_weight`` in
  ``weight.dtype`` and ``grad_bias`` in ``grad_output.dtype`` (round to nearest even).
* ``cube_math_type`` (0 KEEP_DTYPE, 1 ALLOW_FP32_DOWN_PRECISION, 2 USE_FP16, 3 USE_HF32) is validated (0..3).
  By default the kernel models KEEP_DTYPE for every value (exact float32 products). With
  ``emulate_precision=True`` the *inputs* are rounded first, like the ATK golden for Atlas A2/A3: for modes 1
  and 3 with a float32 promoted dtype, to HFLOAT32 (keep sign, exponent and the upper 11 mantissa bits: add
  ``1 << 11`` to the bit pattern and clear the low 12 bits; ``hf32_drop_bits=13`` gives the 950 golden); for
  mode 2 with a float32 or bfloat16 promoted dtype, to float16 and back. float16 inputs are never changed.
  The promoted dtype is float16 or bfloat16 only when all three inputs share it, float32 otherwise.

Algorithm (NumPy path vectorised: Python loops only over kernel offsets and stride phases)
-----------------------------------------------------------------------------------------
Everything is phrased on an ordinary convolution from an "x side" (zero-padded by ``padding``) to a "y side"
with the weight ``[Cy, Cx/groups, *k]``: non-transposed x = ``input``, y = ``grad_output``; transposed x =
``grad_output``, y = ``input``. The padded x side is split once into its ``prod(stride)`` stride phases and
stored channel-major as ``[phase, Cx, N * prod(Lq) + slack]``; the y side is stored on the same ``[N, *Lq]``
grid as ``[Cy, N * prod(Lq)]`` with zeros outside the valid ``[N, *out]`` box. Kernel offset ``k`` then reads
phase ``(k*d) % s`` at the constant flat shift ``sum(((k*d)//s)_i * grid_stride_i)``: a plain 2-D strided
view with unit inner stride, so each offset costs one BLAS GEMM per group batch over all ``N * spatial``
positions, without any per-offset copy:

* ``grad_weight[k] = Y @ X_k.T`` (both modes),
* non-transposed ``grad_input``: ``X_k += W_k.T @ Y`` (scatter-add of the transposed conv), then crop,
* transposed ``grad_input``: ``Y = sum_k W_k @ X_k`` (ordinary conv), then take the valid box,
* ``grad_bias = sum(grad_output)`` over N and space (pairwise float32 sums; on the compiled grid path, float64
  sums taken while grad_output is copied into its grid, rounded to float32).

Garbage grid positions (beyond the valid box) are multiplied by zeros of the y grid, or discarded. Extra
memory is a few float32 copies of the operands (about ``prod(Lq)/prod(in)`` times input size, i.e. near 1x
for small strides) plus one GEMM result buffer; no im2col. Caveat: non-finite values in ``input`` /
``grad_output`` may leak NaN into more gradient entries than in PyTorch (``0 * inf`` on garbage positions).

Small problems use one stacked GEMM per gradient over all kernel offsets (call overhead dominates there); with
the compiled helpers, on a stack of the x side's values at every kernel offset and valid y position (a compiled
im2col; the non-transposed grad_input is added back by a compiled col2im), without the phase grid.

The grid's rows are padded by ``max(lo, hi)`` (not ``lo + hi``): a read past the end of a row lands in the next
row's leading padding, which holds zeros. With the compiled helpers, strided x sides are split into their
phases and grad_input merged back by compiled copies (one pass over x), and grad_output's channel sums for
grad_bias are taken while it is copied into its grid.

With the compiled helpers (``_accel``, the default; ``ACLNN_KERNELS=numpy`` keeps the GEMMs above as the
reference path) the same grid products run as Numba loops instead of BLAS (OpenBLAS runs its AVX2 kernels on
this AVX-512 machine); with at least 4 channels per group as register tiles of explicit 16-lane vectors
(``_accel.vec_*``) that stay in registers over a whole reduction:

* ``grad_input`` (both modes) as a *gathered* convolution written once per output column: tiles of 12 (or 8)
  output channels x 32 columns summed over every kernel offset and source channel; the non-transposed one reads
  ``gx[m] = sum_k W_k.T @ y[m - shift_k]`` from a y grid led by ``max(shift)`` zero columns (no scatter-add);
* ``grad_weight`` as tiles of 6 output x 4 input channels, one vector of lane partial sums per pair over every
  kernel offset and a block of 1024 columns (the 4 x-rows stay in the L1 cache), summed over the lanes into
  one float32 sum per weight after each block;
* with fewer channels per group, as LLVM-vectorised loops (4 x 4 channel dot products, 4 x 8 gathered rows);
* only the columns from each sample's first to last result position are computed;
* samples are processed in batches whose grid buffers take about 2 MiB (the non-transposed grad_input grid
  overlays the dead x phases), so the extra memory is that plus the results and grad_weight's float32 sums
  (one per weight; below PyTorch's on every benchmark case).

Depthwise convolutions (one input channel per group, channel multiplier <= 4, 1-D/2-D, not transposed) run,
with the compiled helpers, as a direct stencil loop: no temporaries, float64 sums for ``grad_weight``.

Tolerance: float32 results match PyTorch's CPU float32 result to rtol=1e-5 with atol ~1e-5 scaled by the
square root of the reduction length (differences are float32 summation order only); float16/bfloat16
results are the float32 result rounded once to the output dtype (the tests compare against torch's float32
result on the same rounded inputs, with the dtype's rtol and an atol scaled by the reduction length).
"""

from __future__ import annotations

import functools
import itertools
import math
import mmap
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from generator.kernels import _accel
from generator.kernels._accel import (
    put,
    tap_range,
    vec_add_sums4,
    vec_fma,
    vec_fold4,
    vec_keep_last,
    vec_load,
    vec_splat,
    vec_store,
    vec_zero,
)
from generator.kernels._common import (
    MACS_PER_OP,
    OPS_PER_STEP,
    Cost,
    check_float,
    from_compute,
    int_values,
    numel,
    to_compute,
)

_F32 = np.dtype(np.float32)
_F16 = np.dtype(np.float16)

__all__ = ["convolution_backward", "cost", "round_hf32"]


def round_hf32(array: np.ndarray, drop_bits: int = 12) -> np.ndarray:
    """Round float32 values to HFLOAT32 as the ATK golden does (round half away from zero at the kept LSB).

    ``drop_bits=12`` (Atlas A2/A3 golden) keeps 11 mantissa bits, ``13`` (950 golden) keeps 10. inf/NaN are
    preserved; values that round past the float32 range become inf.
    """
    bits = np.ascontiguousarray(array, dtype=_F32).view(np.uint32)
    half = np.uint32(1 << (drop_bits - 1))
    mask = np.uint32((0xFFFFFFFF << drop_bits) & 0xFFFFFFFF)
    rounded = (bits + half) & mask
    finite = (bits & np.uint32(0x7F800000)) != np.uint32(0x7F800000)
    return np.where(finite, rounded, bits).view(_F32)


def _round_fp16(array: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        return array.astype(_F16).astype(_F32)


def _int_list(values, name: str) -> list[int]:
    if values is None:
        return []
    if isinstance(values, (int, np.integer)):
        return [int(values)]
    return [int(v) for v in values]


def _per_dim(values, name: str, nsp: int, *, minimum: int, allow_empty: bool = False) -> tuple[int, ...]:
    vals = _int_list(values, name)
    if not vals and allow_empty:
        vals = [0]
    if len(vals) == 1:
        vals = vals * nsp
    if len(vals) != nsp:
        raise ValueError(f"{name}: expected {nsp} values (or 1), got {len(vals)}")
    if min(vals) < minimum:  # (nsp >= 1 values)
        raise ValueError(f"{name}: every value must be >= {minimum}, got {vals}")
    return tuple(vals)


def _padding(values, nsp: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    vals = _int_list(values, "padding")
    if nsp == 2 and len(vals) == 4:
        if any(v < 0 for v in vals):
            raise ValueError(f"padding: every value must be >= 0, got {vals}")
        top, bottom, left, right = vals
        return (top, left), (bottom, right)
    sym = _per_dim(vals, "padding", nsp, minimum=0)
    return sym, sym


class _Grid:
    """Common ``[N, *Lq]`` grid of the phase-split padded x side and the y side (see the module docstring)."""

    def __init__(self, n, x_size, y_size, kernel, stride, dilation, pad_lo):
        self.n, self.x_size, self.y_size = n, x_size, y_size
        self.stride, self.pad_lo = stride, pad_lo
        qmax = [((k - 1) * d) // s for k, d, s in zip(kernel, dilation, stride, strict=True)]
        # Row length per dim: the y box and the x positions fit, and a read past a row's end (index o + q for a
        # y position o) lands in the next row's leading padding (its first lo // s indices hold no x value),
        # so the padding between rows is max(lo, hi) rather than lo + hi (2-3% fewer columns for 3x3 kernels)
        self.lq = tuple(
            max(o + q - lo // s, -(-(lo + xs) // s), o, 1)
            for o, q, lo, xs, s in zip(y_size, qmax, pad_lo, x_size, stride, strict=True)
        )
        cell = math.prod(self.lq)
        self.cell = cell
        self.cols = n * cell
        grid_strides = [math.prod(self.lq[i + 1 :]) for i in range(len(self.lq))]
        self.grid_strides = grid_strides
        self.offsets = []  # (phase index, flat shift) per kernel offset, in weight (C-order) order
        for kidx in itertools.product(*(range(k) for k in kernel)):
            pos = [ki * d for ki, d in zip(kidx, dilation, strict=True)]
            phase = 0
            for p, s in zip(pos, stride, strict=True):  # C-order index of the phase (p % s per dim)
                phase = phase * s + p % s
            shift = sum((p // s) * g for p, s, g in zip(pos, stride, grid_strides, strict=True))
            self.offsets.append((phase, shift))
        self.total = self.cols + max(shift for _, shift in self.offsets)
        self.phases = math.prod(stride)
        self.slices = list(self._phase_slices())
        self.offset_arrays = tuple(np.array(v, np.int64) for v in zip(*self.offsets))  # (phases, shifts)
        self._derived: dict = {}  # per-call values computed once per grid (see ``runs``, ``x_base``)

    @staticmethod
    @functools.lru_cache(maxsize=64)
    def cached(n, x_size, y_size, kernel, stride, dilation, pad_lo) -> _Grid:
        """The grid of a geometry, shared by calls with the same shapes (it holds no data)."""
        return _Grid(n, x_size, y_size, kernel, stride, dilation, pad_lo)

    def _grid_view(self, rows2d: np.ndarray) -> np.ndarray:
        """``[C, >= cols]`` -> writable view ``[C, N, *Lq]`` of its first ``cols`` columns."""
        # (the method, not np.reshape(copy=False): a third of a tiny call's time went to that wrapper; splitting
        # the contiguous column axis never needs a copy, so this is always a view)
        return rows2d[:, : self.cols].reshape(rows2d.shape[0], self.n, *self.lq)

    def _phase_slices(self):
        """Yield (phase index, x-side slices, grid slices) for every stride phase holding x positions."""
        per_dim = []
        for s, lo, xs in zip(self.stride, self.pad_lo, self.x_size, strict=True):
            dim = []
            for r in range(s):
                i0 = (r - lo) % s
                cnt = len(range(i0, xs, s))
                q0 = (lo + i0) // s
                dim.append((slice(i0, xs, s), slice(q0, q0 + cnt), cnt))
            per_dim.append(dim)
        for phase, combo in enumerate(itertools.product(*per_dim)):
            if all(cnt > 0 for _, _, cnt in combo):
                yield phase, tuple(c[0] for c in combo), tuple(c[1] for c in combo)

    def x_to_phases(self, x: np.ndarray, buf: np.ndarray | None = None, sums: np.ndarray | None = None) -> np.ndarray:
        """``[N, C, *x_size]`` -> zero-padded, phase-split ``[phases, C, total]`` (written into ``buf`` when
        given: zeros, or a buffer this grid filled before, whose padding is still zero). ``sums`` (compiled
        helpers only: float64 ``[C]``): each channel's values are added to it on the way."""
        buf = np.zeros((self.phases, x.shape[1], self.total), _F32) if buf is None else buf
        if sums is not None or (self.phases > 1 and _accel.enabled()):  # one pass (NumPy reads x once per phase)
            x5 = _accel.ready(x, _F32).reshape(self._as_3d(x.shape))
            _split_phases(x5, buf, _NO_SUMS if sums is None else sums, 0, *self._geometry_3d())
            return buf
        perm = (1, 0, *range(2, x.ndim))
        for phase, xsl, gsl in self.slices:
            self._grid_view(buf[phase])[(slice(None), slice(None), *gsl)] = x[
                (slice(None), slice(None), *xsl)
            ].transpose(perm)
        return buf

    def clear_padding(self, buf: np.ndarray) -> None:
        """Zero every element of a ``[phases, C, total]`` buffer that :meth:`x_to_phases` does not write (the
        padding and garbage positions of each phase, the phases without x positions, the slack columns)."""
        boxes = {phase: gsl for phase, _, gsl in self.slices}
        for phase in range(self.phases):
            if phase not in boxes:
                buf[phase] = 0.0
                continue
            buf[phase, :, self.cols :] = 0.0
            view = self._grid_view(buf[phase])  # [C, N, *Lq]: zero the slabs around the box, one per side
            for dim, box in enumerate(boxes[phase]):
                before = (slice(None),) * (2 + dim)
                view[(*before, slice(0, box.start))] = 0.0
                view[(*before, slice(box.stop, None))] = 0.0

    def phases_to_x(self, buf: np.ndarray, dtype: np.dtype, out: np.ndarray | None = None) -> np.ndarray:
        """Inverse of :meth:`x_to_phases` (crops the padding), cast to ``dtype`` (into ``out`` when given)."""
        shape = (self.n, buf.shape[1], *self.x_size)
        out = np.empty(shape, dtype) if out is None else out
        if self.phases > 1 and _accel.enabled() and out.flags.c_contiguous:
            _merge_phases(buf, _accel.storage(out).reshape(self._as_3d(out.shape)), *self._geometry_3d())
            return out
        for phase, xsl, gsl in self.slices:
            view = self._grid_view(buf[phase])[(slice(None), slice(None), *gsl)]
            out[(slice(None), slice(None), *xsl)] = view.transpose(1, 0, *range(2, view.ndim))
        return out

    @staticmethod
    def _as_3d(shape: tuple[int, ...]) -> tuple[int, ...]:
        """``[N, C, *spatial]`` with 1-3 spatial dims as ``[N, C, D, H, W]`` (leading ones)."""
        return (*shape[:2], *(1,) * (5 - len(shape)), *shape[2:])

    def _geometry_3d(self) -> tuple[int, ...]:
        """(Lq, stride, pad_lo) per dim as three D, H, W triples, flattened (size-1 leading dims added)."""
        lead = 3 - len(self.lq)
        return (*(1,) * lead, *self.lq, *(1,) * lead, *self.stride, *(0,) * lead, *self.pad_lo)

    def y_to_grid(
        self, y: np.ndarray, lead: int = 0, buf: np.ndarray | None = None, sums: np.ndarray | None = None
    ) -> np.ndarray:
        """``[N, C, *y_size]`` -> ``[C, lead + cols]`` with zeros outside the valid box (and in the ``lead``
        columns in front of the grid, which the compiled transposed product reads for negative shifts);
        written into ``buf`` when given, summed into ``sums`` when given (as for :meth:`x_to_phases`)."""
        grid = np.zeros((y.shape[1], lead + self.cols), _F32) if buf is None else buf
        if sums is not None:  # the y box is a stride-1 "phase" of the grid, without padding
            ones, nsp = (1,) * (3 - len(self.lq)), len(self.lq)
            geometry = (*ones, *self.lq, *ones, *(1,) * nsp, *(0,) * (3 - nsp), *(0,) * nsp)
            y5 = _accel.ready(y, _F32).reshape(self._as_3d(y.shape))
            _split_phases(y5, grid.reshape(1, *grid.shape), sums, lead, *geometry)
            return grid
        box = tuple(slice(0, o) for o in self.y_size)
        self._grid_view(grid[:, lead:])[(slice(None), slice(None), *box)] = y.transpose(1, 0, *range(2, y.ndim))
        return grid

    def y_runs(self) -> tuple[np.ndarray, int]:
        """:meth:`segments` of the valid y box (computed once per grid)."""
        if "y" not in self._derived:
            self._derived["y"] = self.segments(tuple(slice(0, o) for o in self.y_size))
        return self._derived["y"]

    def x_runs(self) -> list[tuple[int, np.ndarray, np.ndarray, int]]:
        """(phase, indices of its kernel offsets, *:meth:`segments` of its x positions) for every phase holding x
        positions (computed once per grid)."""
        if "x" not in self._derived:
            phases = self.offset_arrays[0]
            self._derived["x"] = [
                (phase, np.flatnonzero(phases == phase), *self.segments(gsl)) for phase, _, gsl in self.slices
            ]
        return self._derived["x"]

    def phases_read(self) -> int:
        """How many phases the kernel offsets read."""
        if "read" not in self._derived:
            self._derived["read"] = len(set(self.offset_arrays[0].tolist()))
        return self._derived["read"]

    def x_base(self, cx: int) -> np.ndarray:
        """Flat index of each kernel offset's first x-side element in the ``[phases, cx, total]`` buffer."""
        key = ("base", cx)
        if key not in self._derived:
            phases, shifts = self.offset_arrays
            self._derived[key] = phases * (cx * self.total) + shifts
        return self._derived[key]

    def segments(self, box: Sequence[slice]) -> tuple[np.ndarray, int]:
        """(starts, length): runs of flat grid columns covering ``box`` in every sample, from its first to its
        last position; one run per sample, or per sample and depth plane in 3-D (skipping the padding planes
        and each plane's last padding rows)."""
        g = self.grid_strides
        inner = box[1:] if len(box) == 3 else box
        first = sum(b.start * s for b, s in zip(inner, g[len(g) - len(inner) :], strict=True))
        last = sum((b.stop - 1) * s for b, s in zip(inner, g[len(g) - len(inner) :], strict=True))
        planes = range(box[0].start, box[0].stop) if len(box) == 3 else range(1)
        starts = [n * self.cell + p * g[0] * (len(box) == 3) + first for n in range(self.n) for p in planes]
        return np.array(starts, np.int64), last - first + 1

    def grid_to_y(self, grid: np.ndarray, dtype: np.dtype, out: np.ndarray | None = None) -> np.ndarray:
        """Inverse of :meth:`y_to_grid`, cast to ``dtype`` (into ``out`` when given)."""
        box = tuple(slice(0, o) for o in self.y_size)
        view = self._grid_view(grid)[(slice(None), slice(None), *box)]
        view = view.transpose(1, 0, *range(2, view.ndim))
        if out is None:
            return view.astype(dtype)
        out[...] = view
        return out


# The phase split and merge of strided grids, compiled: one pass over x (NumPy reads a strided x once per phase;
# its copies took 1.7-3x longer on the stride-2 benchmarks). x as [N, C, D, H, W]; phase and grid column of an
# x element as in ``_Grid._phase_slices``.
@_accel.jit(fastmath={"reassoc"})
def _split_phases(x, buf, sums, lead, lq_d, lq_h, lq_w, s_d, s_h, s_w, p_d, p_h, p_w):
    """``buf[phase, c, lead + n*cell + q] = x[n, c, i]`` for every x element (the padding of ``buf`` is not
    written); with a non-empty ``sums`` (float64 ``[C]``), ``sums[c] += x[n, c, i]`` too (in any order).
    Rows are split into their ``s_w`` phases by one strided loop per phase, or, for ``s_w == 2``, by one loop
    writing both (LLVM vectorises it with shuffles: 2-3x faster than the strided loops)."""
    n_, c_, d_, h_, w_ = x.shape
    cell, total = lq_d * lq_h * lq_w, buf.shape[2]
    xf, bf = x.reshape(-1), buf.reshape(-1)
    u = np.uint64
    src = u(0)
    summing = sums.size > 0
    for n in range(n_):
        for c in range(c_):
            acc = 0.0
            for i in range(d_):
                r_d, q_d = (i + p_d) % s_d, (i + p_d) // s_d
                for j in range(h_):
                    r_h, q_h = (j + p_h) % s_h, (j + p_h) // s_h
                    base = lead + n * cell + (q_d * lq_h + q_h) * lq_w
                    row = ((r_d * s_h + r_h) * s_w * c_ + c) * total + base  # (phase r_w = 0)
                    if summing:
                        for k in range(w_):
                            acc += np.float64(xf[src + u(k)])
                    if s_w == 1:  # one contiguous row
                        dst = u(row + p_w)
                        for k in range(w_):
                            bf[dst + u(k)] = xf[src + u(k)]
                    elif s_w == 2:  # x columns 2k and 2k + 1 go to the phases of p_w and p_w + 1
                        even = u(row + (p_w % 2) * c_ * total + p_w // 2)
                        odd = u(row + ((p_w + 1) % 2) * c_ * total + (p_w + 1) // 2)
                        half = w_ // 2
                        for k in range(half):
                            bf[even + u(k)] = xf[src + u(2 * k)]
                            bf[odd + u(k)] = xf[src + u(2 * k + 1)]
                        if w_ % 2:
                            bf[even + u(half)] = xf[src + u(w_ - 1)]
                    else:
                        for r_w in range(s_w):
                            first = (r_w - p_w) % s_w  # first x column of this phase
                            count = (w_ - first + s_w - 1) // s_w
                            dst = u(row + r_w * c_ * total + (first + p_w) // s_w)
                            start = src + u(first)
                            for k in range(count):
                                bf[dst + u(k)] = xf[start + u(k) * u(s_w)]
                    src += u(w_)
            if summing:
                sums[c] += acc


@_accel.jit
def _merge_phases(buf, out, lq_d, lq_h, lq_w, s_d, s_h, s_w, p_d, p_h, p_w):
    """``out[n, c, i] = buf[phase, c, n*cell + q]`` for every x element: the inverse of :func:`_split_phases`
    (crops the padding), rounded to ``out``'s storage (``_accel.put``); same loops."""
    n_, c_, d_, h_, w_ = out.shape
    cell, total = lq_d * lq_h * lq_w, buf.shape[2]
    of, bf = out.reshape(-1), buf.reshape(-1)
    u = np.uint64
    dst = u(0)
    for n in range(n_):
        for c in range(c_):
            for i in range(d_):
                r_d, q_d = (i + p_d) % s_d, (i + p_d) // s_d
                for j in range(h_):
                    r_h, q_h = (j + p_h) % s_h, (j + p_h) // s_h
                    base = n * cell + (q_d * lq_h + q_h) * lq_w
                    row = ((r_d * s_h + r_h) * s_w * c_ + c) * total + base
                    if s_w == 1:
                        first = u(row + p_w)
                        for k in range(w_):
                            put(of, dst + u(k), bf[first + u(k)])
                    elif s_w == 2:
                        even = u(row + (p_w % 2) * c_ * total + p_w // 2)
                        odd = u(row + ((p_w + 1) % 2) * c_ * total + (p_w + 1) // 2)
                        half = w_ // 2
                        for k in range(half):
                            put(of, dst + u(2 * k), bf[even + u(k)])
                            put(of, dst + u(2 * k + 1), bf[odd + u(k)])
                        if w_ % 2:
                            put(of, dst + u(w_ - 1), bf[even + u(half)])
                    else:
                        for r_w in range(s_w):
                            first = (r_w - p_w) % s_w
                            count = (w_ - first + s_w - 1) // s_w
                            src = u(row + r_w * c_ * total + (first + p_w) // s_w)
                            start = dst + u(first)
                            for k in range(count):
                                put(of, start + u(k) * u(s_w), bf[src + u(k)])
                    dst += u(w_)


_NO_SUMS = np.zeros(0, np.float64)  # (for :func:`_split_phases`: no sums wanted)


# Small problems: one GEMM over all kernel offsets instead of one per offset (call overhead dominates there);
# it stacks the offsets' operands, so it is used only while that stack stays below this many floats.
_STACKED_MAX_FLOATS = 1 << 18
# Columns per GEMM in the per-offset loops: bounds the temporary product, keeps the GEMMs large.
_CHUNK = 1 << 13


def _stack_offsets(grid: _Grid, xbuf, groups) -> np.ndarray:
    """``[groups, taps, Cx/g, cols]``: the x-side view of every kernel offset, copied side by side."""
    cxg, taps = xbuf.shape[1] // groups, len(grid.offsets)
    stack = np.empty((groups, taps, cxg, grid.cols), _F32)
    if _accel.enabled():  # one compiled copy instead of a Python loop over the offsets
        _stack_compiled(xbuf, stack, *grid.offset_arrays)
        return stack
    for kk, (phase, shift) in enumerate(grid.offsets):
        stack[:, kk] = xbuf[phase].reshape(groups, cxg, grid.total)[:, :, shift : shift + grid.cols]
    return stack


@_accel.jit
def _stack_compiled(xbuf, stack, phases, shifts):
    groups, taps, cxg, cols = stack.shape
    for g in range(groups):
        for kk in range(taps):
            for ci in range(cxg):
                src = xbuf[phases[kk], g * cxg + ci, shifts[kk] : shifts[kk] + cols]
                dst = stack[g, kk, ci]
                for j in range(cols):
                    dst[j] = src[j]


@_accel.jit
def _unstack_add_compiled(xbuf, stack, phases, shifts):
    """``xbuf[phase_k, c, shift_k + j] += stack[g, k, c', j]`` in increasing ``k`` (as the NumPy loop)."""
    groups, taps, cxg, cols = stack.shape
    for kk in range(taps):
        for g in range(groups):
            for ci in range(cxg):
                dst = xbuf[phases[kk], g * cxg + ci, shifts[kk] : shifts[kk] + cols]
                src = stack[g, kk, ci]
                for j in range(cols):
                    dst[j] += src[j]


def _grad_weight(grid: _Grid, xbuf, ygrid, groups, kernel) -> np.ndarray:
    """``gw[cy, cxg, k] = sum_{n, o} y[n, cy, o] * x_pad[n, g*Cxg + cxg, o*s + k*d]`` -> ``[Cy, Cxg, *k]``."""
    cx, cy = xbuf.shape[1], ygrid.shape[0]
    cxg, cyg = cx // groups, cy // groups
    yg = ygrid.reshape(groups, cyg, grid.cols)
    taps = len(grid.offsets)
    if taps * cx * grid.cols <= _STACKED_MAX_FLOATS:
        stack = _stack_offsets(grid, xbuf, groups)
        res = np.matmul(yg, stack.reshape(groups, taps * cxg, grid.cols).transpose(0, 2, 1))
        return res.reshape(groups, cyg, taps, cxg).transpose(0, 1, 3, 2).reshape(cy, cxg, *kernel)
    out = np.empty((len(grid.offsets), groups, cyg, cxg), _F32)
    for kk, (phase, shift) in enumerate(grid.offsets):
        xv = xbuf[phase].reshape(groups, cxg, grid.total)[:, :, shift : shift + grid.cols]
        np.matmul(yg, xv.transpose(0, 2, 1), out=out[kk])
    return out.transpose(1, 2, 3, 0).reshape(cy, cxg, *kernel)


def _conv_transpose_into_x(grid: _Grid, ygrid, w_k, cx, groups) -> np.ndarray:
    """Scatter-add ``W_k.T @ Y`` per kernel offset into a phase buffer (gradient w.r.t. the x side)."""
    cyg, cxg = w_k.shape[2], w_k.shape[3]
    yg = ygrid.reshape(groups, cyg, grid.cols)
    xbuf = np.zeros((grid.phases, cx, grid.total), _F32)
    taps = len(grid.offsets)
    if taps * cx * grid.cols <= _STACKED_MAX_FLOATS:
        w_all = w_k.transpose(1, 0, 3, 2).reshape(groups, taps * cxg, cyg)  # [g, (k, cxg), cyg]
        stack = np.matmul(w_all, yg).reshape(groups, taps, cxg, grid.cols)
        if _accel.enabled():
            _unstack_add_compiled(xbuf, stack, *grid.offset_arrays)
            return xbuf
        for kk, (phase, shift) in enumerate(grid.offsets):
            xbuf[phase].reshape(groups, cxg, grid.total)[:, :, shift : shift + grid.cols] += stack[:, kk]
        return xbuf
    # The per-offset product goes through a buffer of at most _CHUNK columns (same sums, less memory).
    chunk = min(grid.cols, _CHUNK)
    tmp = np.empty((groups, cxg, chunk), _F32)
    for c0 in range(0, grid.cols, chunk):
        c1 = min(grid.cols, c0 + chunk)
        t = tmp[:, :, : c1 - c0]
        for kk, (phase, shift) in enumerate(grid.offsets):
            np.matmul(w_k[kk].transpose(0, 2, 1), yg[:, :, c0:c1], out=t)
            xbuf[phase].reshape(groups, cxg, grid.total)[:, :, shift + c0 : shift + c1] += t
    return xbuf


def _conv_into_y(grid: _Grid, xbuf, w_k, groups) -> np.ndarray:
    """Ordinary convolution ``Y = sum_k W_k @ X_k`` on the grid (gradient w.r.t. the y side)."""
    cyg, cxg = w_k.shape[2], w_k.shape[3]
    taps = len(grid.offsets)
    if taps * cxg * groups * grid.cols <= _STACKED_MAX_FLOATS:
        stack = _stack_offsets(grid, xbuf, groups)
        w_all = w_k.transpose(1, 2, 0, 3).reshape(groups, cyg, taps * cxg)  # [g, cyg, (k, cxg)]
        return np.matmul(w_all, stack.reshape(groups, taps * cxg, grid.cols)).reshape(groups * cyg, grid.cols)
    acc = np.empty((groups, cyg, grid.cols), _F32)
    chunk = min(grid.cols, _CHUNK)
    tmp = np.empty((groups, cyg, chunk), _F32)
    for c0 in range(0, grid.cols, chunk):
        c1 = min(grid.cols, c0 + chunk)
        t, a = tmp[:, :, : c1 - c0], acc[:, :, c0:c1]
        for kk, (phase, shift) in enumerate(grid.offsets):
            xv = xbuf[phase].reshape(groups, cxg, grid.total)[:, :, shift + c0 : shift + c1]
            if kk == 0:
                np.matmul(w_k[kk], xv, out=a)
            else:
                np.matmul(w_k[kk], xv, out=t)
                a += t
    return acc.reshape(groups * cyg, grid.cols)


# Compiled path (the default when Numba is installed; ``ACLNN_KERNELS=numpy`` selects the GEMMs above as the
# reference), only over the columns of each sample from its first to its last result position (the grid's
# slack between samples is skipped):
#
# * ``_gather_tiled`` (grad_input): 12 x 32 register tiles (24 vector accumulators; 2 vector loads and 12
#   weight broadcasts per 24 multiply-adds), the weights laid out tile by tile;
# * ``_dots_tiled`` (grad_weight): 6 x 4 channel pairs of lane partial sums (24 vector accumulators; 10 vector
#   loads per 24 multiply-adds) over every kernel offset of a block of columns;
# * ``_dots_compiled`` / ``_gather_compiled``: LLVM-vectorised 4 x 4 dot products and 4 x 8 gathered rows in
#   blocks of columns sized to the caches (_cols_block), for groups of 1-3 channels.
#
# Measured on the development machine (AMD Zen 5, one thread, peak 250 GFLOP/s with 512-bit FMAs): the tiles
# reach 200-230 GFLOP/s on 64 channels (the gathered convolution) and 180-215 (the dot products), the
# LLVM-vectorised loops 130-170, OpenBLAS's per-offset GEMMs 55-90 (its Haswell kernels).


# Small problems with the compiled helpers: the stacked GEMMs of the NumPy path above, on the valid columns only
# and without the phase grid: one compiled copy of every kernel offset's x-side values (im2col) and, for the
# non-transposed grad_input, one compiled scatter-add back (col2im), instead of some 20 NumPy steps of phase
# copies and reshapes (small stride-2 benchmark: 49 -> 33 us; PyTorch 32).
def _small_gradients(x_side, y_side, w, geometry, groups, transposed, need_gi, need_gw, dtypes):
    """(grad_input, grad_weight) of a small problem (None where not needed): the stacked GEMMs on an im2col
    stack of the x side, ``[groups, K, Cx/g, N * prod(y_size)]``. Same arguments as :func:`_compiled_gradients`."""
    kernel, stride, dilation, pad_lo = geometry
    n, cx, cy = x_side.shape[0], x_side.shape[1], y_side.shape[1]
    y_size = y_side.shape[2:]
    cxg, cyg, taps = cx // groups, cy // groups, math.prod(kernel)
    cols = n * math.prod(y_size)
    lead = 3 - len(kernel)
    spans = (*(1,) * lead, *kernel, *(1,) * lead, *y_size, *(1,) * lead, *stride)
    spans += (*(1,) * lead, *dilation, *(0,) * lead, *pad_lo)
    x5 = _accel.ready(x_side).reshape(_Grid._as_3d(x_side.shape))
    y = y_side.reshape(n, cy, -1)
    y = y.reshape(cy, cols) if n == 1 else y.transpose(1, 0, 2).reshape(cy, cols)  # [Cy, N * prod(y_size)]
    yg = y.reshape(groups, cyg, cols)
    stack = None
    if need_gw or (need_gi and transposed):
        stack = np.empty((groups, taps, cxg, cols), _F32)
        _im2col(x5, stack, *spans)
    grad_weight = grad_input = None
    if need_gw:  # [g, cyg, (K, cxg)] -> [Cy, Cx/g, *k]
        res = np.matmul(yg, stack.reshape(groups, taps * cxg, cols).transpose(0, 2, 1))
        grad_weight = from_compute(res.reshape(cy, taps, cxg).transpose(0, 2, 1).reshape(cy, cxg, *kernel), dtypes[1])
    if need_gi:
        w_k = w.reshape(groups, cyg, cxg, taps)
        if transposed:  # y = W @ stack: [g, cyg, (K, cxg)] @ [g, (K, cxg), cols]
            w_all = w_k.transpose(0, 1, 3, 2).reshape(groups, cyg, taps * cxg)
            gy = np.matmul(w_all, stack.reshape(groups, taps * cxg, cols)).reshape(cy, n, *y_size)
            grad_input = gy.transpose(1, 0, *range(2, gy.ndim)).astype(dtypes[0])
        else:  # the x side's columns W.T @ y, added back at their positions
            w_all = w_k.transpose(0, 3, 2, 1).reshape(groups, taps * cxg, cyg)
            grads = np.matmul(w_all, yg).reshape(groups, taps, cxg, cols)
            gx = np.zeros(x5.shape, _F32)
            _col2im(grads, gx, *spans)
            grad_input = from_compute(gx.reshape(x_side.shape), dtypes[0])
    return grad_input, grad_weight


@_accel.jit
def _im2col(x, stack, k_d, k_h, k_w, o_d, o_h, o_w, s_d, s_h, s_w, d_d, d_h, d_w, p_d, p_h, p_w):
    """``stack[g, t, c, (n, o)] = x_pad[n, g*Cx/g + c, o*s + k_t*d]`` (zero in the padding) for every kernel
    offset ``t = (k_d, k_h, k_w)`` (C order) and output position ``o`` (x: ``[N, C, D, H, W]``)."""
    n_, c_, x_d, x_h, x_w = x.shape
    groups, cxg = stack.shape[0], stack.shape[2]
    xf, sf = x.reshape(-1), stack.reshape(-1)
    u = np.uint64
    q = u(0)  # flat index in the stack, in its C order
    for g in range(groups):
        for kd in range(k_d):
            for kh in range(k_h):
                for kw in range(k_w):
                    lo, hi = tap_range(o_w, s_w, p_w, kw * d_w, x_w)  # output columns inside the image
                    for ci in range(cxg):
                        for n in range(n_):
                            for od in range(o_d):
                                i = od * s_d + kd * d_d - p_d
                                for oh in range(o_h):
                                    r = oh * s_h + kh * d_h - p_h
                                    if 0 <= i < x_d and 0 <= r < x_h and lo < hi:
                                        for ow in range(lo):
                                            sf[q + u(ow)] = 0.0
                                        src = u(
                                            (((n * c_ + g * cxg + ci) * x_d + i) * x_h + r) * x_w
                                            + lo * s_w
                                            + kw * d_w
                                            - p_w
                                        )
                                        for ow in range(hi - lo):
                                            sf[q + u(lo + ow)] = xf[src + u(ow) * u(s_w)]
                                        for ow in range(hi, o_w):
                                            sf[q + u(ow)] = 0.0
                                    else:
                                        for ow in range(o_w):
                                            sf[q + u(ow)] = 0.0
                                    q += u(o_w)


@_accel.jit
def _col2im(stack, gx, k_d, k_h, k_w, o_d, o_h, o_w, s_d, s_h, s_w, d_d, d_h, d_w, p_d, p_h, p_w):
    """``gx_pad[n, g*Cx/g + c, o*s + k_t*d] += stack[g, t, c, (n, o)]`` inside the image (the adjoint of
    :func:`_im2col`), kernel offsets in increasing ``t``."""
    n_, c_, x_d, x_h, x_w = gx.shape
    groups, cxg = stack.shape[0], stack.shape[2]
    gf, sf = gx.reshape(-1), stack.reshape(-1)
    u = np.uint64
    cols = n_ * o_d * o_h * o_w
    t = 0
    for kd in range(k_d):
        for kh in range(k_h):
            for kw in range(k_w):
                lo, hi = tap_range(o_w, s_w, p_w, kw * d_w, x_w)
                for g in range(groups):
                    for ci in range(cxg):
                        q = u(((g * (k_d * k_h * k_w) + t) * cxg + ci) * cols)
                        for n in range(n_):
                            for od in range(o_d):
                                i = od * s_d + kd * d_d - p_d
                                for oh in range(o_h):
                                    r = oh * s_h + kh * d_h - p_h
                                    if 0 <= i < x_d and 0 <= r < x_h and lo < hi:
                                        dst = u(
                                            (((n * c_ + g * cxg + ci) * x_d + i) * x_h + r) * x_w
                                            + lo * s_w
                                            + kw * d_w
                                            - p_w
                                        )
                                        for ow in range(hi - lo):
                                            gf[dst + u(ow) * u(s_w)] += sf[q + u(lo + ow)]
                                    q += u(o_w)
                t += 1


# Below this many x-side floats over all kernel offsets the stacked GEMMs are faster (the grid path's Python and
# dispatch overhead, some 30 us, dominates tiny problems): :func:`_small_gradients` takes them. (Measured on the
# small benchmarks: 2**14 is the crossover; the small default case, 32,400 floats, took 45 us on the grid path
# and 52 on the stacked GEMMs.)
_COMPILED_MIN_FLOATS = 1 << 14
_CACHE_BYTES = 1 << 20  # the share of the L2 cache the rows of one block of columns may take
# Bounds of the block width (columns); the upper one keeps the 4 output rows of a block in the L1 cache
# (wider blocks measured 1.5x slower on the 3-D case).
_COLS_BLOCK = (256, 1024)


def _cols_block(rows: int, reach: int, cache: int = 0, upper: int = 0) -> int:
    """Columns per block: ``rows`` rows of ``block + reach`` float32 values fit in ``cache`` bytes (default
    ``_CACHE_BYTES``), within ``_COLS_BLOCK`` (its upper bound replaced by ``upper`` when given)."""
    cols = (cache or _CACHE_BYTES) // (4 * max(rows, 1)) - reach
    return min(max(cols, _COLS_BLOCK[0]), upper or _COLS_BLOCK[1]) // 16 * 16


def _compiled_gradients(x_side, y_side, w, geometry, groups, transposed, need_gi, need_gw, dtypes, need_gb=False):
    """(grad_input, grad_weight, bias sums) by the compiled grid products (None where not needed), in batches of
    samples whose grid buffers take at most about ``_BATCH_BYTES``. ``geometry`` = (kernel, stride, dilation,
    pad_lo), ``dtypes`` = (grad_input dtype, grad_weight dtype). The bias sums (``need_gb``: float64 sums of
    grad_output per channel) are taken while grad_output is copied into its grid (None when it is not)."""
    kernel, stride, dilation, pad_lo = geometry
    n, x_size, y_size = x_side.shape[0], tuple(x_side.shape[2:]), tuple(y_side.shape[2:])
    cy, cxg = w.shape[0], w.shape[1]
    cx, cyg, taps = cxg * groups, cy // groups, math.prod(kernel)
    # The weights as the gathered convolution of grad_input reads them, [K, source row in a group, output row]:
    # [K, Cx/g, Cy] for the transposed conv, [K, Cy/g, Cx] for the non-transposed one (its transposed blocks).
    w_pack = None
    if need_gi:
        w_k = w.reshape(groups, cyg, cxg, taps)
        w_pack = np.ascontiguousarray(
            w_k.transpose(3, 2, 0, 1).reshape(taps, cxg, cy)
            if transposed
            else w_k.transpose(3, 1, 0, 2).reshape(taps, cyg, cx)
        )
    batch = max(1, min(n, _BATCH_BYTES // _grid_bytes(_Grid.cached(1, x_size, y_size, *geometry), cx, cy)))
    part = np.zeros((taps, cy, cxg), _F32) if need_gw else None  # grad_weight sums
    grad_input = None
    if need_gi:
        grad_input = _zeroed_block((n, cy, *y_size) if transposed else (n, cx, *x_size), dtypes[0])
    buffers = {}  # the grid buffers of a batch size, reused by the next batch of that size
    packs = {"w": w_pack}  # w_pack as the gathered convolution reads it, per phase, prepared once per call
    copied = need_gw or need_gi  # (grad_output is copied into a grid: as the y side, or as the transposed x side)
    sums = np.zeros(cx if transposed else cy, np.float64) if need_gb and copied else None
    for n0 in range(0, n, batch):
        n1 = min(n, n0 + batch)
        grid = _Grid.cached(n1 - n0, x_size, y_size, *geometry)
        if n1 - n0 not in buffers:
            buffers.clear()
            buffers[n1 - n0] = _grid_buffers(grid, cx, cy, transposed, need_gi, need_gw)
        gi_out = None if grad_input is None else grad_input[n0:n1]
        xy = (x_side[n0:n1], y_side[n0:n1])
        _grid_products(grid, *xy, buffers[n1 - n0], packs, (cx, cy, groups), transposed, part, gi_out, sums)
    grad_weight = None
    if part is not None:
        grad_weight = from_compute(part.transpose(1, 2, 0).reshape(cy, cxg, *kernel), dtypes[1])  # from [K, Cy, Cx/g]
    return grad_input, grad_weight, sums


# Grid buffers of one batch of samples (at least one sample per batch). Measured against 8 MiB: 2 MiB is as fast
# or faster on every benchmark case (transposed realistic 9% faster: the buffers stay in the L2 and L3 caches).
_BATCH_BYTES = 1 << 21


def _grid_bytes(grid: _Grid, cx: int, cy: int) -> int:
    """Bytes of the grid buffers :func:`_grid_products` holds at once (x phases, y grid with its lead,
    grad_input grid)."""
    reach = grid.total - grid.cols
    return 4 * (grid.phases * cx * grid.total + cy * (reach + grid.cols) + max(grid.phases * cx, cy) * grid.cols)


_HUGE_PAGE = 2 << 20  # bytes of a transparent huge page (x86-64, Arm64 with 4 KiB pages)


def _zeroed_block(shape, dtype=_F32) -> np.ndarray:
    """``np.zeros(shape, dtype)``; from 2 MiB on, in fresh anonymous memory advised for transparent huge pages
    (Linux; elsewhere, or if the advice is refused, ``np.zeros``). Between calls glibc often returns freed
    buffers to the OS, and touching them again cost one page fault per 4 KiB: some 1,800 faults and 2.5 ms of
    the 16 ms of the 3-D realistic benchmark when PyTorch runs in between; with huge pages, a few hundred
    (16 -> 13.3 ms). The memory is released when the last array using it is freed (nothing is kept between
    calls)."""
    dtype = np.dtype(dtype)
    nbytes = dtype.itemsize * math.prod(shape) if isinstance(shape, tuple) else dtype.itemsize * shape
    advice = getattr(mmap, "MADV_HUGEPAGE", None)
    if nbytes < _HUGE_PAGE or advice is None:
        return np.zeros(shape, dtype)
    try:
        block = mmap.mmap(-1, nbytes + 2 * _HUGE_PAGE, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
        raw = np.frombuffer(block, np.uint8)  # (anonymous memory is zero-filled; the array keeps it mapped)
        first = -raw.ctypes.data % _HUGE_PAGE  # start on a huge-page boundary
        # huge pages up to the nearest boundary: a last, partial one is used when it is at least half filled
        # (at most 1 MiB of resident memory beyond the block)
        block.madvise(advice, first, (nbytes + _HUGE_PAGE // 2) // _HUGE_PAGE * _HUGE_PAGE)
    except (OSError, ValueError, AttributeError, BufferError):
        return np.zeros(shape, dtype)
    return raw[first : first + nbytes].view(dtype).reshape(shape)


def _grid_buffers(grid: _Grid, cx: int, cy: int, transposed: bool, need_gi: bool, need_gw: bool) -> dict:
    """The grid buffers of :func:`_grid_products` ("x": x phases, "y": y grid with its lead, "out": grad_input
    grid; None where not needed), carved from one zero-filled allocation reused by every batch of the same
    size (separate buffers of a few MiB each made glibc unmap and re-map them at every call: their page
    faults cost ~3 of the ~25 ms of the 3-D benchmark case). The non-transposed grad_input grid overlays
    the x phases, which are dead by then ("overlay": before the next batch, the x phases' padding, which
    :meth:`_Grid.x_to_phases` does not write, is zeroed again by :meth:`_Grid.clear_padding`)."""
    reach = grid.total - grid.cols
    lead = 0 if transposed else reach
    x_shape = (grid.phases, cx, grid.total) if (need_gw or (need_gi and transposed)) else None
    y_shape = (cy, lead + grid.cols) if (need_gw or not transposed) else None
    out_shape = None if not need_gi else ((cy, grid.cols) if transposed else (grid.phases, cx, grid.cols))
    overlay = x_shape is not None and need_gi and not transposed
    shapes = [x_shape, y_shape, None if overlay else out_shape]
    sizes = [0 if shape is None else math.prod(shape) for shape in shapes]
    arena = _zeroed_block(sum(sizes))
    views, start = [], 0
    for shape, size in zip(shapes, sizes, strict=True):
        views.append(None if shape is None else arena[start : start + size].reshape(shape))
        start += size
    if overlay:  # [phases, cx, cols] on the start of the x phases (cols < total)
        views[2] = arena[: math.prod(out_shape)].reshape(out_shape)
    return {"x": views[0], "y": views[1], "out": views[2], "overlay": overlay, "dirty": False}


def _grid_products(grid: _Grid, x_side, y_side, buffers, packs, channels, transposed, gw, gi_out, sums) -> None:
    """One batch: adds its grad_weight terms to ``gw`` (when not None: sums ``[K, Cy, Cx/g]``), writes its
    grad_input into ``gi_out`` (when not None) and adds grad_output's channel sums to ``sums`` (when not None),
    in the ``buffers`` of :func:`_grid_buffers`. ``packs["w"]``: the weights as :func:`_compiled_gradients`
    packs them; the same dict keeps them as :func:`_gather` reads them (:func:`_gather_weights`), per phase,
    for the following batches; ``channels`` = (Cx, Cy, groups)."""
    need_gi = gi_out is not None
    xbuf, ygrid, obuf = buffers["x"], buffers["y"], buffers["out"]
    cx, cy, groups = channels
    cxg, cyg = cx // groups, cy // groups
    phases, shifts = grid.offset_arrays
    y_starts, y_length = grid.y_runs()
    reach = grid.total - grid.cols  # the largest shift
    lead = 0 if transposed else reach  # y columns in front of the grid (non-transposed gi)
    x_base = grid.x_base(cx)
    if ygrid is not None:
        grid.y_to_grid(y_side, lead, ygrid, None if transposed else sums)
    if xbuf is not None:
        if buffers["dirty"]:
            grid.clear_padding(xbuf)
        buffers["dirty"] = buffers["overlay"]
        grid.x_to_phases(x_side, xbuf, sums if transposed else None)
        if gw is not None:
            if _dot_tiles_apply(cxg, cyg):
                quads_outer = _dots_quads_outer(cx * grid.phases_read(), cy)
                _dots_tiled(gw, ygrid.reshape(-1), lead, lead + grid.cols, xbuf.reshape(-1), x_base, grid.total,
                            cxg, cyg, y_starts, y_length, _DOTS_BLOCK, quads_outer)  # fmt: skip
            else:  # (in blocks for 4x the cache share, up to 2048 columns: 4-13% faster than 1x on strided grids)
                block = _cols_block(cy + cx * grid.phases_read(), reach, 4 * _CACHE_BYTES, 2048)
                _dots_compiled(gw, ygrid.reshape(-1), lead, lead + grid.cols, xbuf.reshape(-1), x_base,
                               grid.total, cxg, cyg, y_starts, y_length, block)  # fmt: skip
        if need_gi and transposed:  # y = sum_k W_k @ x_k on the valid y box
            dst = obuf
            if -1 not in packs:
                packs[-1] = _gather_weights(packs["w"], cxg, cyg)
            x_rows = cx * grid.phases_read()
            _gather(dst, xbuf.reshape(-1), x_base, grid.total, packs[-1], cxg, cyg, y_starts, y_length, x_rows, reach)
            grid.grid_to_y(dst, gi_out.dtype, gi_out)
    if need_gi and not transposed:  # x phase grids: gx[m] = sum_k W_k.T @ y[m - shift_k]
        gx = obuf
        for phase, mine, starts, length in grid.x_runs():  # phases without x positions are never read
            if phase not in packs:
                packs[phase] = _gather_weights(packs["w"][mine], cyg, cxg)
            _gather(gx[phase], ygrid.reshape(-1), lead - shifts[mine], lead + grid.cols, packs[phase], cyg, cxg,
                    starts, length, cy, reach)  # fmt: skip
        grid.phases_to_x(gx, gi_out.dtype, gi_out)


# The register tiles below need enough channels per group to amortise their per-tile work (measured: with 2
# channels per group the small grouped benchmark ran 2.7x slower on them, with 4 the realistic one 1.2x faster).
_TILES_MIN_CHANNELS = 4


def _dots_quads_outer(x_rows: int, y_rows: int) -> bool:
    """The loop order of :func:`_dots_tiled`: keep the quads of x-side rows in the cache (and stream the y rows)
    when the x phases read hold more rows than the y side (strided grids: 6-7% faster measured in isolation)."""
    return x_rows > y_rows


def _dot_tiles_apply(cxg: int, cyg: int) -> bool:
    """Whether grad_weight runs as :func:`_dots_tiled` (else :func:`_dots_compiled`)."""
    return min(cxg, cyg) >= _TILES_MIN_CHANNELS


def _gather_weights(wp: np.ndarray, cin_g: int, cout_g: int) -> tuple[np.ndarray, np.ndarray]:
    """``wp`` (``[taps, cin_g, rows]``) as :func:`_gather` reads it: (``wp``, its tile layout) for the register
    tiles, else (``[taps, rows, cin_g]``, unused)."""
    if min(cin_g, cout_g) >= _TILES_MIN_CHANNELS:
        return wp, _tiled_weights(wp, cout_g)
    return np.ascontiguousarray(wp.transpose(0, 2, 1)), wp


def _gather(dst, src, src_base, src_stride, wg, cin_g, cout_g, starts, run, src_rows, reach) -> None:
    """The gathered convolution of :func:`_gather_tiled` (``wg``: the weights by :func:`_gather_weights`), by the
    register tiles when the groups have enough channels, else by :func:`_gather_compiled` (``src_rows``: the
    source rows one column block reads, for its width)."""
    if min(cin_g, cout_g) >= _TILES_MIN_CHANNELS:
        _gather_tiled(dst, src, src_base, src_stride, *wg, cin_g, cout_g, starts, run)
    else:
        _gather_compiled(
            dst, src, src_base, src_stride, wg[0], cin_g, cout_g, starts, run, _cols_block(src_rows, reach)
        )


@_accel.jit(fastmath={"reassoc", "contract"})
def _dots_compiled(out, a, a_base, a_stride, b, b_base, b_stride, cin_g, cout_g, starts, run, cols_block):
    """``out[t, r, c] += sum_j a[a_base + r*a_stride + j] * b[b_base[t] + (g*cin_g + c)*b_stride + j]`` over the
    columns ``j`` of the runs ``[start, start + run)`` (``g = r // cout_g``: the row's group).
    Sums in any order (``reassoc``: one float32 partial sum per vector lane and column block)."""
    taps, rows = out.shape[0], out.shape[1]
    u = np.uint64
    for start in starts:
        for j0 in range(start, start + run, cols_block):
            n = min(cols_block, start + run - j0)
            for t in range(taps):
                r = 0
                while r < rows:
                    g = r // cout_g
                    block = 4 if (r + 4 <= rows and (r + 3) // cout_g == g) else 1
                    base = b_base[t] + g * cin_g * b_stride + j0
                    a0 = u(a_base + r * a_stride + j0)
                    a1, a2, a3 = a0 + u(a_stride), a0 + u(2 * a_stride), a0 + u(3 * a_stride)
                    c = 0
                    while c < cin_g:
                        p0 = u(base + c * b_stride)
                        if block == 4 and c + 4 <= cin_g:
                            p1, p2, p3 = p0 + u(b_stride), p0 + u(2 * b_stride), p0 + u(3 * b_stride)
                            s00 = s01 = s02 = s03 = s10 = s11 = s12 = s13 = np.float32(0.0)
                            s20 = s21 = s22 = s23 = s30 = s31 = s32 = s33 = np.float32(0.0)
                            for j in range(n):
                                jj = u(j)
                                x0, x1, x2, x3 = b[p0 + jj], b[p1 + jj], b[p2 + jj], b[p3 + jj]
                                y0, y1, y2, y3 = a[a0 + jj], a[a1 + jj], a[a2 + jj], a[a3 + jj]
                                s00 += y0 * x0
                                s01 += y0 * x1
                                s02 += y0 * x2
                                s03 += y0 * x3
                                s10 += y1 * x0
                                s11 += y1 * x1
                                s12 += y1 * x2
                                s13 += y1 * x3
                                s20 += y2 * x0
                                s21 += y2 * x1
                                s22 += y2 * x2
                                s23 += y2 * x3
                                s30 += y3 * x0
                                s31 += y3 * x1
                                s32 += y3 * x2
                                s33 += y3 * x3
                            out[t, r, c] += s00
                            out[t, r, c + 1] += s01
                            out[t, r, c + 2] += s02
                            out[t, r, c + 3] += s03
                            out[t, r + 1, c] += s10
                            out[t, r + 1, c + 1] += s11
                            out[t, r + 1, c + 2] += s12
                            out[t, r + 1, c + 3] += s13
                            out[t, r + 2, c] += s20
                            out[t, r + 2, c + 1] += s21
                            out[t, r + 2, c + 2] += s22
                            out[t, r + 2, c + 3] += s23
                            out[t, r + 3, c] += s30
                            out[t, r + 3, c + 1] += s31
                            out[t, r + 3, c + 2] += s32
                            out[t, r + 3, c + 3] += s33
                            c += 4
                        elif c + 4 <= cin_g:  # a single row against 4 source rows
                            p1, p2, p3 = p0 + u(b_stride), p0 + u(2 * b_stride), p0 + u(3 * b_stride)
                            s00 = s01 = s02 = s03 = np.float32(0.0)
                            for j in range(n):
                                jj = u(j)
                                y0 = a[a0 + jj]
                                s00 += y0 * b[p0 + jj]
                                s01 += y0 * b[p1 + jj]
                                s02 += y0 * b[p2 + jj]
                                s03 += y0 * b[p3 + jj]
                            out[t, r, c] += s00
                            out[t, r, c + 1] += s01
                            out[t, r, c + 2] += s02
                            out[t, r, c + 3] += s03
                            c += 4
                        else:  # one source row against the block's rows
                            for i in range(block):
                                ai = a0 + u(i * a_stride)
                                acc = np.float32(0.0)
                                for j in range(n):
                                    acc += a[ai + u(j)] * b[p0 + u(j)]
                                out[t, r + i, c] += acc
                            c += 1
                    r += block


# The blocked loops read best with one line per output row:
# fmt: off
@_accel.jit(fastmath={"contract"})
def _gather_compiled(dst, src, src_base, src_stride, w, cin_g, cout_g, starts, run, cols_block):
    """``dst[r, j] = sum_t sum_c w[t, r, c] * src[src_base[t] + (g*cin_g + c)*src_stride + j]`` for the columns
    ``j`` of the runs ``[start, start + run)`` (other columns are not written; ``g = r // cout_g``).
    Per output column the terms are added in increasing ``t``, then ``c`` in blocks of 8 or 4 (multiply-adds
    fused)."""
    rows, length = dst.shape
    taps = w.shape[0]
    d = dst.reshape(-1)
    u = np.uint64
    for start in starts:
        for j0 in range(start, start + run, cols_block):
            n = min(cols_block, start + run - j0)
            r = 0
            while r < rows:
                g = r // cout_g
                block = 4 if (r + 4 <= rows and (r + 3) // cout_g == g) else 1
                q0 = u(r * length + j0)
                q1, q2, q3 = q0 + u(length), q0 + u(2 * length), q0 + u(3 * length)
                for i in range(block):
                    for j in range(n):
                        d[q0 + u(i * length + j)] = 0.0
                for t in range(taps):
                    base = src_base[t] + g * cin_g * src_stride + j0
                    c = 0
                    while c < cin_g:
                        p0 = u(base + c * src_stride)
                        if block == 4 and c + 8 <= cin_g:
                            p1, p2, p3 = p0 + u(src_stride), p0 + u(2 * src_stride), p0 + u(3 * src_stride)
                            p4, p5, p6, p7 = p0 + u(4 * src_stride), p0 + u(5 * src_stride), p0 + u(6 * src_stride), p0 + u(7 * src_stride)
                            w00, w01, w02, w03, w04, w05, w06, w07 = w[t, r, c : c + 8]
                            w10, w11, w12, w13, w14, w15, w16, w17 = w[t, r + 1, c : c + 8]
                            w20, w21, w22, w23, w24, w25, w26, w27 = w[t, r + 2, c : c + 8]
                            w30, w31, w32, w33, w34, w35, w36, w37 = w[t, r + 3, c : c + 8]
                            for j in range(n):
                                jj = u(j)
                                s0, s1, s2, s3 = src[p0 + jj], src[p1 + jj], src[p2 + jj], src[p3 + jj]
                                s4, s5, s6, s7 = src[p4 + jj], src[p5 + jj], src[p6 + jj], src[p7 + jj]
                                d[q0 + jj] += w00 * s0 + w01 * s1 + w02 * s2 + w03 * s3 + w04 * s4 + w05 * s5 + w06 * s6 + w07 * s7
                                d[q1 + jj] += w10 * s0 + w11 * s1 + w12 * s2 + w13 * s3 + w14 * s4 + w15 * s5 + w16 * s6 + w17 * s7
                                d[q2 + jj] += w20 * s0 + w21 * s1 + w22 * s2 + w23 * s3 + w24 * s4 + w25 * s5 + w26 * s6 + w27 * s7
                                d[q3 + jj] += w30 * s0 + w31 * s1 + w32 * s2 + w33 * s3 + w34 * s4 + w35 * s5 + w36 * s6 + w37 * s7
                            c += 8
                        elif block == 4 and c + 4 <= cin_g:
                            p1, p2, p3 = p0 + u(src_stride), p0 + u(2 * src_stride), p0 + u(3 * src_stride)
                            w00, w01, w02, w03 = w[t, r, c : c + 4]
                            w10, w11, w12, w13 = w[t, r + 1, c : c + 4]
                            w20, w21, w22, w23 = w[t, r + 2, c : c + 4]
                            w30, w31, w32, w33 = w[t, r + 3, c : c + 4]
                            for j in range(n):
                                jj = u(j)
                                s0, s1, s2, s3 = src[p0 + jj], src[p1 + jj], src[p2 + jj], src[p3 + jj]
                                d[q0 + jj] += w00 * s0 + w01 * s1 + w02 * s2 + w03 * s3
                                d[q1 + jj] += w10 * s0 + w11 * s1 + w12 * s2 + w13 * s3
                                d[q2 + jj] += w20 * s0 + w21 * s1 + w22 * s2 + w23 * s3
                                d[q3 + jj] += w30 * s0 + w31 * s1 + w32 * s2 + w33 * s3
                            c += 4
                        elif c + 4 <= cin_g:  # a single output row, 4 source rows
                            p1, p2, p3 = p0 + u(src_stride), p0 + u(2 * src_stride), p0 + u(3 * src_stride)
                            w00, w01, w02, w03 = w[t, r, c : c + 4]
                            for j in range(n):
                                jj = u(j)
                                d[q0 + jj] += w00 * src[p0 + jj] + w01 * src[p1 + jj] + w02 * src[p2 + jj] + w03 * src[p3 + jj]
                            c += 4
                        else:
                            for i in range(block):
                                wv = w[t, r + i, c]
                                qi = q0 + u(i * length)
                                for j in range(n):
                                    d[qi + u(j)] += wv * src[p0 + u(j)]
                            c += 1
                r += block


# fmt: on


# Register-tiled gathered convolution (explicit 16-lane vectors, see ``_accel.vec_*``): a tile of 12 output rows
# x 32 columns (24 vector accumulators) stays in registers over the whole reduction (every kernel offset and
# source row), then is stored once; per reduction step it loads 2 source vectors and 12 weights for 24
# multiply-adds (a third fewer source loads per multiply-add than the 8-row tile: 2-7% faster on the realistic
# cases). Remainder rows use 8-, 4- and 1-row tiles; a run's last tile is moved back to end at the run's end
# (it recomputes a few columns, with the same result); runs shorter than a tile use the scalar loop.
_TILE = 32  # columns per tile (two vectors)
_DOTS_BLOCK = 1024  # columns per block of the grad_weight tiles


@_accel.jit
def _gather_tiled(dst, src, src_base, src_stride, wp, wt, cin_g, cout_g, starts, run):
    """``dst[r, j] = sum_t sum_c wp[t, c, r] * src[src_base[t] + (g*cin_g + c)*src_stride + j]`` for the
    columns ``j`` of the runs ``[start, start + run)`` (other columns are not written; ``g = r // cout_g``).
    Per output column the terms are added in increasing ``t``, then ``c``, each by one fused multiply-add.
    ``wt``: ``wp`` as :func:`_tiled_weights` lays it out for the tiles."""
    rows, length = dst.shape
    taps = src_base.size
    d = dst.reshape(-1)
    w = wp.reshape(-1)
    for start in starts:
        if run < _TILE:
            _gather_columns(d, length, src, src_base, src_stride, w, rows, cin_g, cout_g, start, run)
            continue
        for j0 in range(start, start + run, _TILE):
            j = min(j0, start + run - _TILE)
            r = k = 0
            while r < rows:
                cbase = (r // cout_g) * cin_g * src_stride + j
                block = _gather_rows(r, rows, cout_g)
                if block == 12:
                    _gather_tile12(d, r * length + j, length, src, src_base, cbase, src_stride, wt, k, cin_g)
                elif block == 8:
                    _gather_tile8(d, r * length + j, length, src, src_base, cbase, src_stride, wt, k, cin_g)
                elif block == 4:
                    _gather_tile4(d, r * length + j, length, src, src_base, cbase, src_stride, wt, k, cin_g)
                else:
                    _gather_tile1(d, r * length + j, src, src_base, cbase, src_stride, wt, k, cin_g)
                r += block
                k += taps * cin_g * block


@_accel.jit
def _gather_rows(r, rows, cout_g):
    """Rows of the tile starting at row ``r`` of :func:`_gather_tiled` (12, 8, 4 or 1, within one group)."""
    g = r // cout_g
    if r + 12 <= rows and (r + 11) // cout_g == g:
        return 12
    if r + 8 <= rows and (r + 7) // cout_g == g:
        return 8
    if r + 4 <= rows and (r + 3) // cout_g == g:
        return 4
    return 1


@functools.lru_cache(maxsize=256)
def _row_tiles(rows: int, cout_g: int) -> tuple[tuple[int, int, int], ...]:
    """The row tiles of :func:`_gather_tiled` as runs of equal tiles: (first row, tiles, rows per tile)."""
    runs: list[tuple[int, int, int]] = []
    r = 0
    while r < rows:
        block = _gather_rows.py_func(r, rows, cout_g)
        if runs and runs[-1][2] == block:
            first, count, _ = runs[-1]
            runs[-1] = (first, count + 1, block)
        else:
            runs.append((r, 1, block))
        r += block
    return tuple(runs)


def _tiled_weights(wp: np.ndarray, cout_g: int) -> np.ndarray:
    """``wp`` (``[taps, cin_g, rows]``) laid out tile by tile for :func:`_gather_tiled`: for each tile's rows
    (in order), ``[t, c, tile row]``, so that a tile reads its weights as one contiguous stream (one strided
    copy per run of equal tiles: usually one for the whole array)."""
    taps, cin_g, rows = wp.shape
    out = np.empty(wp.size, _F32)
    k = 0
    for first, count, block in _row_tiles(rows, cout_g):
        size = taps * cin_g * count * block
        part = wp[:, :, first : first + count * block].reshape(taps, cin_g, count, block)
        out[k : k + size].reshape(count, taps, cin_g, block)[...] = part.transpose(2, 0, 1, 3)
        k += size
    return out


# The tiles read best with one line per output row:
# fmt: off
@_accel.jit
def _gather_tile12(d, q, length, src, src_base, cbase, src_stride, w, k, cin_g):
    """12 rows x 32 columns of :func:`_gather_tiled` (24 vector accumulators)."""
    a00 = a01 = a10 = a11 = a20 = a21 = a30 = a31 = vec_zero()
    a40 = a41 = a50 = a51 = a60 = a61 = a70 = a71 = vec_zero()
    a80 = a81 = a90 = a91 = aa0 = aa1 = ab0 = ab1 = vec_zero()
    for t in range(src_base.size):
        p = src_base[t] + cbase
        for _ in range(cin_g):
            s0, s1 = vec_load(src, p), vec_load(src, p + 16)
            w0, w1, w2, w3 = vec_splat(w[k]), vec_splat(w[k + 1]), vec_splat(w[k + 2]), vec_splat(w[k + 3])
            a00, a10, a20, a30 = vec_fma(w0, s0, a00), vec_fma(w1, s0, a10), vec_fma(w2, s0, a20), vec_fma(w3, s0, a30)
            a01, a11, a21, a31 = vec_fma(w0, s1, a01), vec_fma(w1, s1, a11), vec_fma(w2, s1, a21), vec_fma(w3, s1, a31)
            w0, w1, w2, w3 = vec_splat(w[k + 4]), vec_splat(w[k + 5]), vec_splat(w[k + 6]), vec_splat(w[k + 7])
            a40, a50, a60, a70 = vec_fma(w0, s0, a40), vec_fma(w1, s0, a50), vec_fma(w2, s0, a60), vec_fma(w3, s0, a70)
            a41, a51, a61, a71 = vec_fma(w0, s1, a41), vec_fma(w1, s1, a51), vec_fma(w2, s1, a61), vec_fma(w3, s1, a71)
            w0, w1, w2, w3 = vec_splat(w[k + 8]), vec_splat(w[k + 9]), vec_splat(w[k + 10]), vec_splat(w[k + 11])
            a80, a90, aa0, ab0 = vec_fma(w0, s0, a80), vec_fma(w1, s0, a90), vec_fma(w2, s0, aa0), vec_fma(w3, s0, ab0)
            a81, a91, aa1, ab1 = vec_fma(w0, s1, a81), vec_fma(w1, s1, a91), vec_fma(w2, s1, aa1), vec_fma(w3, s1, ab1)
            p += src_stride
            k += 12
    vec_store(d, q, a00), vec_store(d, q + 16, a01)
    vec_store(d, q + length, a10), vec_store(d, q + length + 16, a11)
    vec_store(d, q + 2 * length, a20), vec_store(d, q + 2 * length + 16, a21)
    vec_store(d, q + 3 * length, a30), vec_store(d, q + 3 * length + 16, a31)
    vec_store(d, q + 4 * length, a40), vec_store(d, q + 4 * length + 16, a41)
    vec_store(d, q + 5 * length, a50), vec_store(d, q + 5 * length + 16, a51)
    vec_store(d, q + 6 * length, a60), vec_store(d, q + 6 * length + 16, a61)
    vec_store(d, q + 7 * length, a70), vec_store(d, q + 7 * length + 16, a71)
    vec_store(d, q + 8 * length, a80), vec_store(d, q + 8 * length + 16, a81)
    vec_store(d, q + 9 * length, a90), vec_store(d, q + 9 * length + 16, a91)
    vec_store(d, q + 10 * length, aa0), vec_store(d, q + 10 * length + 16, aa1)
    vec_store(d, q + 11 * length, ab0), vec_store(d, q + 11 * length + 16, ab1)


@_accel.jit
def _gather_tile8(d, q, length, src, src_base, cbase, src_stride, w, k, cin_g):
    """8 rows x 32 columns of :func:`_gather_tiled` (``q``: flat index of the tile's first element in ``d``;
    ``k``: of the tile's weights in ``w``, ``[t, c, row]`` for its rows, see :func:`_tiled_weights`)."""
    a00 = a01 = a10 = a11 = a20 = a21 = a30 = a31 = vec_zero()
    a40 = a41 = a50 = a51 = a60 = a61 = a70 = a71 = vec_zero()
    for t in range(src_base.size):
        p = src_base[t] + cbase
        for _ in range(cin_g):
            w0, w1, w2, w3 = vec_splat(w[k]), vec_splat(w[k + 1]), vec_splat(w[k + 2]), vec_splat(w[k + 3])
            w4, w5, w6, w7 = vec_splat(w[k + 4]), vec_splat(w[k + 5]), vec_splat(w[k + 6]), vec_splat(w[k + 7])
            s = vec_load(src, p)
            a00, a10, a20, a30 = vec_fma(w0, s, a00), vec_fma(w1, s, a10), vec_fma(w2, s, a20), vec_fma(w3, s, a30)
            a40, a50, a60, a70 = vec_fma(w4, s, a40), vec_fma(w5, s, a50), vec_fma(w6, s, a60), vec_fma(w7, s, a70)
            s = vec_load(src, p + 16)
            a01, a11, a21, a31 = vec_fma(w0, s, a01), vec_fma(w1, s, a11), vec_fma(w2, s, a21), vec_fma(w3, s, a31)
            a41, a51, a61, a71 = vec_fma(w4, s, a41), vec_fma(w5, s, a51), vec_fma(w6, s, a61), vec_fma(w7, s, a71)
            p += src_stride
            k += 8
    vec_store(d, q, a00), vec_store(d, q + 16, a01)
    vec_store(d, q + length, a10), vec_store(d, q + length + 16, a11)
    vec_store(d, q + 2 * length, a20), vec_store(d, q + 2 * length + 16, a21)
    vec_store(d, q + 3 * length, a30), vec_store(d, q + 3 * length + 16, a31)
    vec_store(d, q + 4 * length, a40), vec_store(d, q + 4 * length + 16, a41)
    vec_store(d, q + 5 * length, a50), vec_store(d, q + 5 * length + 16, a51)
    vec_store(d, q + 6 * length, a60), vec_store(d, q + 6 * length + 16, a61)
    vec_store(d, q + 7 * length, a70), vec_store(d, q + 7 * length + 16, a71)


@_accel.jit
def _gather_tile4(d, q, length, src, src_base, cbase, src_stride, w, k, cin_g):
    """4 rows x 32 columns of :func:`_gather_tiled`."""
    a00 = a01 = a10 = a11 = a20 = a21 = a30 = a31 = vec_zero()
    for t in range(src_base.size):
        p = src_base[t] + cbase
        for _ in range(cin_g):
            w0, w1, w2, w3 = vec_splat(w[k]), vec_splat(w[k + 1]), vec_splat(w[k + 2]), vec_splat(w[k + 3])
            s = vec_load(src, p)
            a00, a10, a20, a30 = vec_fma(w0, s, a00), vec_fma(w1, s, a10), vec_fma(w2, s, a20), vec_fma(w3, s, a30)
            s = vec_load(src, p + 16)
            a01, a11, a21, a31 = vec_fma(w0, s, a01), vec_fma(w1, s, a11), vec_fma(w2, s, a21), vec_fma(w3, s, a31)
            p += src_stride
            k += 4
    vec_store(d, q, a00), vec_store(d, q + 16, a01)
    vec_store(d, q + length, a10), vec_store(d, q + length + 16, a11)
    vec_store(d, q + 2 * length, a20), vec_store(d, q + 2 * length + 16, a21)
    vec_store(d, q + 3 * length, a30), vec_store(d, q + 3 * length + 16, a31)


@_accel.jit
def _gather_tile1(d, q, src, src_base, cbase, src_stride, w, k, cin_g):
    """1 row x 32 columns of :func:`_gather_tiled`."""
    a0 = a1 = vec_zero()
    for t in range(src_base.size):
        p = src_base[t] + cbase
        for _ in range(cin_g):
            w0 = vec_splat(w[k])
            a0, a1 = vec_fma(w0, vec_load(src, p), a0), vec_fma(w0, vec_load(src, p + 16), a1)
            p += src_stride
            k += 1
    vec_store(d, q, a0), vec_store(d, q + 16, a1)
# fmt: on


@_accel.jit(fastmath={"contract"})
def _gather_columns(d, length, src, src_base, src_stride, w, rows, cin_g, cout_g, start, run):
    """:func:`_gather_tiled` on the columns ``[start, start + run)`` by plain loops (runs shorter than a tile);
    same order of terms, each by one fused multiply-add."""
    for r in range(rows):
        cbase = (r // cout_g) * cin_g * src_stride + start
        q = r * length + start
        for j in range(run):
            d[q + j] = 0.0
        for t in range(src_base.size):
            for c in range(cin_g):
                wv = w[(t * cin_g + c) * rows + r]
                p = src_base[t] + cbase + c * src_stride
                for j in range(run):
                    d[q + j] += wv * src[p + j]


# Register-tiled grad_weight (explicit 16-lane vectors): a tile of 6 (or 4, or 1) a-rows x 4 b-rows keeps one
# vector of lane partial sums per pair in registers over a block of columns (per step: 10 loads for 24
# multiply-adds), then folds each a-row's 4 vectors into one (``vec_fold4``: 4 lanes per pair) and adds the
# pairs' lane sums to ``part`` ([taps, rows, cin_g], ``vec_add_sums4``): 4 bytes per weight, read and written
# once per tile and kernel offset (with 4 lane sums per weight, grad_weight's 4.7 MB of partial sums on the
# stride-2 large benchmark went through the caches once per sample).
@_accel.jit
def _dots_tiled(part, a, a_base, a_stride, b, b_base, b_stride, cin_g, cout_g, starts, run, cols_block, quads_outer):
    """``part[t, r, c] += sum a[a_base + r*a_stride + j] * b[b_base[t] + (g*cin_g + c)*b_stride + j]`` over the
    columns ``j`` of the runs ``[start, start + run)`` (``g = r // cout_g``), in lane sums per block of columns
    (a block's last, partial step counted once: see the tiles). Per run and group, the
    tiles visit the row blocks for each quad of b-rows (``quads_outer``: the b-rows of a quad stay in the cache
    while every a-row streams by) or the quads for each row block (the a-rows stay, the b-rows stream by)."""
    taps, rows = part.shape[0], part.shape[1]
    p = part.reshape(-1)
    t_step, row_step = rows * cin_g, cin_g  # in ``p``: from one kernel offset / a-row to the next
    tiled = 4 * (cin_g // 4) if run >= 16 else 0  # source rows done by the tiles (the rest by the plain loop)
    for start in starts:
        for g in range(rows // cout_g):
            r_end = (g + 1) * cout_g
            if quads_outer:
                for c in range(0, tiled, 4):
                    r = g * cout_g
                    while r < r_end:
                        block = _dots_rows(r_end - r)
                        _dots_span(
                            p,
                            r * cin_g + c,
                            t_step,
                            row_step,
                            a,
                            a_base + r * a_stride,
                            a_stride,
                            b,
                            b_base,
                            (g * cin_g + c) * b_stride,
                            b_stride,
                            start,
                            run,
                            cols_block,
                            block,
                        )
                        r += block
            else:
                r = g * cout_g
                while r < r_end:
                    block = _dots_rows(r_end - r)
                    for c in range(0, tiled, 4):  # the tiles' sums of a (row block, quad) stay in L1
                        _dots_span(
                            p,
                            r * cin_g + c,
                            t_step,
                            row_step,
                            a,
                            a_base + r * a_stride,
                            a_stride,
                            b,
                            b_base,
                            (g * cin_g + c) * b_stride,
                            b_stride,
                            start,
                            run,
                            cols_block,
                            block,
                        )
                    r += block
            for t in range(taps if tiled < cin_g else 0):
                for r in range(g * cout_g, r_end):
                    for c in range(tiled, cin_g):
                        ai, bi = a_base + r * a_stride + start, b_base[t] + (g * cin_g + c) * b_stride + start
                        acc = np.float32(0.0)
                        for j in range(run):
                            acc += a[ai + j] * b[bi + j]
                        p[t * t_step + r * row_step + c] += acc


@_accel.jit
def _dots_rows(left):
    """a-rows of the next :func:`_dots_tiled` tile with ``left`` rows left in the group: 6 at a time, ending on 4
    or 4 + 4 when possible."""
    return 4 if left in (4, 8) else (6 if left >= 6 else (4 if left >= 4 else 1))


@_accel.jit
def _dots_span(p, q, t_step, row_step, a, pa0, a_stride, b, b_base, pb0, b_stride, start, run, cols_block, block):
    """The tiles of :func:`_dots_tiled` for one (row block, quad) over a run, in blocks of columns (a last one
    shorter than a step joins the one before)."""
    j0, end = start, start + run
    while j0 < end:
        n = min(cols_block, end - j0)
        n = end - j0 if end - j0 - n < 16 else n
        pa, pb = pa0 + j0, pb0 + j0
        if block == 6:
            _dots_tile6(p, q, t_step, row_step, a, pa, a_stride, b, b_base, pb, b_stride, n)
        elif block == 4:
            _dots_tile4(p, q, t_step, row_step, a, pa, a_stride, b, b_base, pb, b_stride, n)
        else:
            _dots_tile1(p, q, t_step, row_step, a, pa, a_stride, b, b_base, pb, b_stride, n)
        j0 += n


# fmt: off
@_accel.jit
def _dots_tile6(p, q0, t_step, row_step, a, pa, a_stride, b, b_base, pb0, b_stride, n):
    """6 a-rows x 4 b-rows of :func:`_dots_tiled` (``q0``: flat index of the first pair's sum in ``p``)."""
    steps, tail = n // 16, n % 16
    for t in range(b_base.size):  # every kernel offset: the same b-rows, shifted (they stay in L1)
        pb, q = b_base[t] + pb0, q0 + t * t_step
        s00 = s01 = s02 = s03 = s10 = s11 = s12 = s13 = s20 = s21 = s22 = s23 = vec_zero()
        s30 = s31 = s32 = s33 = s40 = s41 = s42 = s43 = s50 = s51 = s52 = s53 = vec_zero()
        for k in range(steps):
            j = 16 * k
            x0, x1 = vec_load(b, pb + j), vec_load(b, pb + b_stride + j)
            x2, x3 = vec_load(b, pb + 2 * b_stride + j), vec_load(b, pb + 3 * b_stride + j)
            y = vec_load(a, pa + j)
            s00, s01, s02, s03 = vec_fma(y, x0, s00), vec_fma(y, x1, s01), vec_fma(y, x2, s02), vec_fma(y, x3, s03)
            y = vec_load(a, pa + a_stride + j)
            s10, s11, s12, s13 = vec_fma(y, x0, s10), vec_fma(y, x1, s11), vec_fma(y, x2, s12), vec_fma(y, x3, s13)
            y = vec_load(a, pa + 2 * a_stride + j)
            s20, s21, s22, s23 = vec_fma(y, x0, s20), vec_fma(y, x1, s21), vec_fma(y, x2, s22), vec_fma(y, x3, s23)
            y = vec_load(a, pa + 3 * a_stride + j)
            s30, s31, s32, s33 = vec_fma(y, x0, s30), vec_fma(y, x1, s31), vec_fma(y, x2, s32), vec_fma(y, x3, s33)
            y = vec_load(a, pa + 4 * a_stride + j)
            s40, s41, s42, s43 = vec_fma(y, x0, s40), vec_fma(y, x1, s41), vec_fma(y, x2, s42), vec_fma(y, x3, s43)
            y = vec_load(a, pa + 5 * a_stride + j)
            s50, s51, s52, s53 = vec_fma(y, x0, s50), vec_fma(y, x1, s51), vec_fma(y, x2, s52), vec_fma(y, x3, s53)
        if tail and steps:  # the last columns: a step ending at column n, without the lanes summed already
            j = n - 16
            x0, x1 = vec_keep_last(vec_load(b, pb + j), tail), vec_keep_last(vec_load(b, pb + b_stride + j), tail)
            x2 = vec_keep_last(vec_load(b, pb + 2 * b_stride + j), tail)
            x3 = vec_keep_last(vec_load(b, pb + 3 * b_stride + j), tail)
            y = vec_keep_last(vec_load(a, pa + j), tail)
            s00, s01, s02, s03 = vec_fma(y, x0, s00), vec_fma(y, x1, s01), vec_fma(y, x2, s02), vec_fma(y, x3, s03)
            y = vec_keep_last(vec_load(a, pa + a_stride + j), tail)
            s10, s11, s12, s13 = vec_fma(y, x0, s10), vec_fma(y, x1, s11), vec_fma(y, x2, s12), vec_fma(y, x3, s13)
            y = vec_keep_last(vec_load(a, pa + 2 * a_stride + j), tail)
            s20, s21, s22, s23 = vec_fma(y, x0, s20), vec_fma(y, x1, s21), vec_fma(y, x2, s22), vec_fma(y, x3, s23)
            y = vec_keep_last(vec_load(a, pa + 3 * a_stride + j), tail)
            s30, s31, s32, s33 = vec_fma(y, x0, s30), vec_fma(y, x1, s31), vec_fma(y, x2, s32), vec_fma(y, x3, s33)
            y = vec_keep_last(vec_load(a, pa + 4 * a_stride + j), tail)
            s40, s41, s42, s43 = vec_fma(y, x0, s40), vec_fma(y, x1, s41), vec_fma(y, x2, s42), vec_fma(y, x3, s43)
            y = vec_keep_last(vec_load(a, pa + 5 * a_stride + j), tail)
            s50, s51, s52, s53 = vec_fma(y, x0, s50), vec_fma(y, x1, s51), vec_fma(y, x2, s52), vec_fma(y, x3, s53)
        vec_add_sums4(p, q, vec_fold4(s00, s01, s02, s03))
        vec_add_sums4(p, q + row_step, vec_fold4(s10, s11, s12, s13))
        vec_add_sums4(p, q + 2 * row_step, vec_fold4(s20, s21, s22, s23))
        vec_add_sums4(p, q + 3 * row_step, vec_fold4(s30, s31, s32, s33))
        vec_add_sums4(p, q + 4 * row_step, vec_fold4(s40, s41, s42, s43))
        vec_add_sums4(p, q + 5 * row_step, vec_fold4(s50, s51, s52, s53))


@_accel.jit
def _dots_tile4(p, q0, t_step, row_step, a, pa, a_stride, b, b_base, pb0, b_stride, n):
    """4 a-rows x 4 b-rows of :func:`_dots_tiled`."""
    steps, tail = n // 16, n % 16
    for t in range(b_base.size):  # every kernel offset: the same b-rows, shifted (they stay in L1)
        pb, q = b_base[t] + pb0, q0 + t * t_step
        s00 = s01 = s02 = s03 = s10 = s11 = s12 = s13 = s20 = s21 = s22 = s23 = vec_zero()
        s30 = s31 = s32 = s33 = vec_zero()
        for k in range(steps):
            j = 16 * k
            x0, x1 = vec_load(b, pb + j), vec_load(b, pb + b_stride + j)
            x2, x3 = vec_load(b, pb + 2 * b_stride + j), vec_load(b, pb + 3 * b_stride + j)
            y = vec_load(a, pa + j)
            s00, s01, s02, s03 = vec_fma(y, x0, s00), vec_fma(y, x1, s01), vec_fma(y, x2, s02), vec_fma(y, x3, s03)
            y = vec_load(a, pa + a_stride + j)
            s10, s11, s12, s13 = vec_fma(y, x0, s10), vec_fma(y, x1, s11), vec_fma(y, x2, s12), vec_fma(y, x3, s13)
            y = vec_load(a, pa + 2 * a_stride + j)
            s20, s21, s22, s23 = vec_fma(y, x0, s20), vec_fma(y, x1, s21), vec_fma(y, x2, s22), vec_fma(y, x3, s23)
            y = vec_load(a, pa + 3 * a_stride + j)
            s30, s31, s32, s33 = vec_fma(y, x0, s30), vec_fma(y, x1, s31), vec_fma(y, x2, s32), vec_fma(y, x3, s33)
        if tail and steps:  # the last columns: a step ending at column n, without the lanes summed already
            j = n - 16
            x0, x1 = vec_keep_last(vec_load(b, pb + j), tail), vec_keep_last(vec_load(b, pb + b_stride + j), tail)
            x2 = vec_keep_last(vec_load(b, pb + 2 * b_stride + j), tail)
            x3 = vec_keep_last(vec_load(b, pb + 3 * b_stride + j), tail)
            y = vec_keep_last(vec_load(a, pa + j), tail)
            s00, s01, s02, s03 = vec_fma(y, x0, s00), vec_fma(y, x1, s01), vec_fma(y, x2, s02), vec_fma(y, x3, s03)
            y = vec_keep_last(vec_load(a, pa + a_stride + j), tail)
            s10, s11, s12, s13 = vec_fma(y, x0, s10), vec_fma(y, x1, s11), vec_fma(y, x2, s12), vec_fma(y, x3, s13)
            y = vec_keep_last(vec_load(a, pa + 2 * a_stride + j), tail)
            s20, s21, s22, s23 = vec_fma(y, x0, s20), vec_fma(y, x1, s21), vec_fma(y, x2, s22), vec_fma(y, x3, s23)
            y = vec_keep_last(vec_load(a, pa + 3 * a_stride + j), tail)
            s30, s31, s32, s33 = vec_fma(y, x0, s30), vec_fma(y, x1, s31), vec_fma(y, x2, s32), vec_fma(y, x3, s33)
        vec_add_sums4(p, q, vec_fold4(s00, s01, s02, s03))
        vec_add_sums4(p, q + row_step, vec_fold4(s10, s11, s12, s13))
        vec_add_sums4(p, q + 2 * row_step, vec_fold4(s20, s21, s22, s23))
        vec_add_sums4(p, q + 3 * row_step, vec_fold4(s30, s31, s32, s33))


@_accel.jit
def _dots_tile1(p, q0, t_step, row_step, a, pa, a_stride, b, b_base, pb0, b_stride, n):
    """1 a-row x 4 b-rows of :func:`_dots_tiled`."""
    steps, tail = n // 16, n % 16
    for t in range(b_base.size):  # every kernel offset: the same b-rows, shifted (they stay in L1)
        pb, q = b_base[t] + pb0, q0 + t * t_step
        s00 = s01 = s02 = s03 = vec_zero()
        for k in range(steps):
            j = 16 * k
            x0, x1 = vec_load(b, pb + j), vec_load(b, pb + b_stride + j)
            x2, x3 = vec_load(b, pb + 2 * b_stride + j), vec_load(b, pb + 3 * b_stride + j)
            y = vec_load(a, pa + j)
            s00, s01, s02, s03 = vec_fma(y, x0, s00), vec_fma(y, x1, s01), vec_fma(y, x2, s02), vec_fma(y, x3, s03)
        if tail and steps:  # the last columns: a step ending at column n, without the lanes summed already
            j = n - 16
            x0, x1 = vec_keep_last(vec_load(b, pb + j), tail), vec_keep_last(vec_load(b, pb + b_stride + j), tail)
            x2 = vec_keep_last(vec_load(b, pb + 2 * b_stride + j), tail)
            x3 = vec_keep_last(vec_load(b, pb + 3 * b_stride + j), tail)
            y = vec_keep_last(vec_load(a, pa + j), tail)
            s00, s01, s02, s03 = vec_fma(y, x0, s00), vec_fma(y, x1, s01), vec_fma(y, x2, s02), vec_fma(y, x3, s03)
        vec_add_sums4(p, q, vec_fold4(s00, s01, s02, s03))
# fmt: on


def _empty_path(grad_output, input, weight, bias_sizes, output_mask):  # noqa: A002 - the spec's name
    """CANN's empty-tensor result: zero-filled grad_weight and grad_bias, grad_input left unwritten."""
    mask = [bool(m) for m in output_mask]
    if len(mask) != 3:
        raise ValueError(f"output_mask: expected 3 values, got {len(mask)}")
    if mask[0] and input.size:
        raise ValueError(f"grad_input of a non-empty input {input.shape} is not written on the empty-tensor path")
    grad_input = np.zeros(input.shape, input.dtype) if mask[0] else None
    grad_weight = np.zeros(weight.shape, weight.dtype) if mask[1] else None
    grad_bias = None
    if mask[2]:
        sizes = _int_list(bias_sizes, "bias_sizes") if bias_sizes is not None else []
        if len(sizes) != 1 or sizes[0] < 0:
            raise ValueError(f"bias_sizes: the empty-tensor path needs one non-negative value, got {sizes}")
        grad_bias = np.zeros((sizes[0],), grad_output.dtype)
    return grad_input, grad_weight, grad_bias


def cost(
    grad_output,
    input,  # noqa: A002
    weight,
    bias_sizes,
    stride,
    padding,
    dilation,
    transposed,
    output_padding,
    groups,
    output_mask,
    cube_math_type=0,
    *,
    emulate_precision=False,
    hf32_drop_bits=12,
) -> Cost:
    """Memory and work of the grid scheme (see the module docstring), from shapes and attributes only."""
    go, x, w = (tuple(int(d) for d in getattr(a, "shape", ())) for a in (grad_output, input, weight))
    small = Cost(0, 0, "input")
    ndim = len(x)
    if ndim not in (3, 4, 5) or len(go) != ndim or len(w) != ndim:
        return small
    nsp = ndim - 2
    strides, dil = int_values(stride, nsp), int_values(dilation, nsp)
    pads = int_values(padding, 4) if nsp == 2 and padding is not None and len(padding) == 4 else None
    lo = pads[0::2] if pads else int_values(padding, nsp)
    kernel = w[2:]
    if strides is None or dil is None or lo is None or min(strides) < 1 or min(dil) < 1 or min(lo) < 0:
        return small
    if min(kernel) < 1:
        return small
    groups = max(int(groups), 1)
    mask = list(output_mask or ())[:3] + [False] * 3
    x_size, y_size = (go[2:], x[2:]) if transposed else (x[2:], go[2:])
    cx, cy = (go[1], x[1]) if transposed else (x[1], go[1])
    span = [(k - 1) * d for k, d in zip(kernel, dil)]
    lq = [max(o + q // s, -(-(p + xs) // s), 1) for o, q, p, xs, s in zip(y_size, span, lo, x_size, strides)]
    cols = x[0] * numel(lq)
    shift = sum((q // s) * numel(lq[i + 1 :]) for i, (q, s) in enumerate(zip(span, strides)))
    total, phases, taps = cols + shift, numel(strides), numel(kernel)
    inputs = numel(go) + numel(x) + numel(w)
    grads = int(bool(mask[0])) + int(bool(mask[1]))
    # (the compiled path holds at most this much: its grid buffers are per batch of samples, plus a y lead)
    nbytes = 8 * inputs + 8 * phases * cx * total + 12 * cy * cols + 4 * cy * shift + 8 * (cx + cy) * cols * grads
    nbytes += 4 * numel(w) * int(bool(mask[1])) + 12 * numel(w)  # grad_weight's sums, the packed weights
    nbytes += 8 * min(taps * cx * cols, _STACKED_MAX_FLOATS)  # small problems: the stacked offsets, their product
    nbytes += 2 * (_HUGE_PAGE // 2) if nbytes >= _HUGE_PAGE else 0  # huge pages: <= 1 MiB beyond each of 2 blocks
    macs = taps * cy * (cx // groups) * cols
    ops = grads * (macs // MACS_PER_OP + taps * ((cx + cy) * cols + OPS_PER_STEP))
    ops += 2 * (phases * cx * total + cy * cols) + 2 * inputs
    blowup = numel(lq) > 4 * max(numel(x_size), numel(y_size), 1)
    if blowup:
        param = "dilation" if sum(span) > sum(lo) else "padding"
    else:
        param = max((numel(go), "gradOutput"), (numel(x), "input"), (numel(w), "weight"))[1]
    return Cost(nbytes, ops, param)


def convolution_backward(
    grad_output: np.ndarray,
    input: np.ndarray,
    weight: np.ndarray,
    bias_sizes: Sequence[int] | None,
    stride: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
    transposed: bool,
    output_padding: Sequence[int] | None,
    groups: int,
    output_mask: Sequence[bool],
    cube_math_type: int = 0,
    *,
    emulate_precision: bool = False,
    hf32_drop_bits: int = 12,
) -> tuple[np.ndarray | None, np.ndarray | None, np.ndarray | None]:
    """Return ``(grad_input, grad_weight, grad_bias)`` (``None`` where ``output_mask`` is false).

    See the module docstring for conventions, the readings chosen and the precision model.
    """
    for name, arr in (("grad_output", grad_output), ("input", input), ("weight", weight)):
        check_float(name, arr)
    if 0 in (grad_output.size, input.size, weight.size):
        return _empty_path(grad_output, input, weight, bias_sizes, output_mask)
    checked = _check(
        (grad_output.shape, input.shape, weight.shape), bias_sizes, stride, padding, dilation, transposed,
        output_padding, groups, output_mask, cube_math_type,
    )  # fmt: skip
    stride_t, dilation_t, pad_lo, kernel, transposed, groups, mask, cube_math_type, cx, cy, in_size, go_size = checked
    nsp, n, c_in, c_out = input.ndim - 2, input.shape[0], input.shape[1], grad_output.shape[1]

    gy = to_compute(grad_output)
    x = to_compute(input)
    w = to_compute(weight)
    if emulate_precision:
        dtypes = {np.dtype(a.dtype) for a in (grad_output, input, weight)}
        promoted = dtypes.pop() if len(dtypes) == 1 else _F32
        if cube_math_type in (1, 3) and promoted == _F32:
            gy, x, w = (round_hf32(a, hf32_drop_bits) for a in (gy, x, w))
        elif cube_math_type == 2 and promoted != _F16:
            gy, x, w = (_round_fp16(a) for a in (gy, x, w))

    need_gi, need_gw, need_gb = mask
    if _direct_applies(transposed, nsp, groups, c_in, c_out):
        grad_input, grad_weight = _direct_grouped(gy, x, w, groups, stride_t, pad_lo, dilation_t, need_gi, need_gw)
        grad_input = None if grad_input is None else from_compute(grad_input, np.dtype(input.dtype))
        grad_weight = None if grad_weight is None else from_compute(grad_weight, np.dtype(weight.dtype))
        return grad_input, grad_weight, _grad_bias(gy, need_gb, grad_output.dtype)
    x_side, y_side = (gy, x) if transposed else (x, gy)
    x_size, y_size = (go_size, in_size) if transposed else (in_size, go_size)
    grid = _Grid.cached(n, tuple(x_size), tuple(y_size), kernel, stride_t, dilation_t, pad_lo)
    if _accel.enabled() and len(grid.offsets) * cx * grid.cols <= _COMPILED_MIN_FLOATS:
        grad_input, grad_weight = _small_gradients(
            x_side, y_side, w, (kernel, stride_t, dilation_t, pad_lo), groups, transposed, need_gi, need_gw,
            (np.dtype(input.dtype), np.dtype(weight.dtype)),
        )  # fmt: skip
        return grad_input, grad_weight, _grad_bias(gy, need_gb, grad_output.dtype)
    if _accel.enabled():
        grad_input, grad_weight, sums = _compiled_gradients(
            x_side, y_side, w, (kernel, stride_t, dilation_t, pad_lo), groups, transposed, need_gi, need_gw,
            (np.dtype(input.dtype), np.dtype(weight.dtype)), need_gb,
        )  # fmt: skip
        if sums is not None:
            return grad_input, grad_weight, from_compute(sums.astype(_F32), np.dtype(grad_output.dtype))
        return grad_input, grad_weight, _grad_bias(gy, need_gb, grad_output.dtype)
    cxg, cyg = cx // groups, cy // groups

    # Weight per kernel offset: [K, groups, Cy/g, Cx/g], contiguous for BLAS.
    w_k = None
    if need_gi:
        w_k = np.ascontiguousarray(w.reshape(groups, cyg, cxg, math.prod(kernel)).transpose(3, 0, 1, 2))
    # Order the steps so that each buffer is freed as soon as possible (peak memory).
    xbuf = grid.x_to_phases(x_side) if (need_gw or (need_gi and transposed)) else None
    grad_input = grad_weight = None
    if transposed:
        if need_gi:
            grad_input = grid.grid_to_y(_conv_into_y(grid, xbuf, w_k, groups), np.dtype(input.dtype))
        if need_gw:
            ygrid = grid.y_to_grid(y_side)
            grad_weight = from_compute(_grad_weight(grid, xbuf, ygrid, groups, kernel), np.dtype(weight.dtype))
            del ygrid
        del xbuf
    else:
        ygrid = grid.y_to_grid(y_side) if (need_gw or need_gi) else None
        if need_gw:
            grad_weight = from_compute(_grad_weight(grid, xbuf, ygrid, groups, kernel), np.dtype(weight.dtype))
        del xbuf
        if need_gi:
            gxbuf = _conv_transpose_into_x(grid, ygrid, w_k, cx, groups)
            del ygrid
            grad_input = grid.phases_to_x(gxbuf, np.dtype(input.dtype))
            del gxbuf
    return grad_input, grad_weight, _grad_bias(gy, need_gb, grad_output.dtype)


class _Checked(NamedTuple):
    """The attributes of a call, checked against its shapes (see :func:`_check`)."""

    stride: tuple[int, ...]
    dilation: tuple[int, ...]
    pad_lo: tuple[int, ...]
    kernel: tuple[int, ...]
    transposed: bool
    groups: int
    mask: tuple[bool, bool, bool]
    cube_math_type: int
    cx: int  # channels of the x and y sides (see the module docstring)
    cy: int
    in_size: tuple[int, ...]
    go_size: tuple[int, ...]


def _check_attributes(
    go_shape, in_shape, w_shape, bias_sizes, stride, padding, dilation, transposed, output_padding, groups,
    output_mask, cube_math_type,
) -> _Checked:  # fmt: skip
    """Check the attributes against the shapes (ValueError naming the first problem); return them normalised."""
    ndim = len(in_shape)
    if ndim not in (3, 4, 5):
        raise ValueError(f"input: rank must be 3, 4 or 5 (NCL, NCHW, NCDHW), got {ndim}")
    if len(go_shape) != ndim or len(w_shape) != ndim:
        raise ValueError(f"rank mismatch: grad_output {len(go_shape)}, input {ndim}, weight {len(w_shape)}")
    nsp = ndim - 2
    stride_t = _per_dim(stride, "stride", nsp, minimum=1)
    dilation_t = _per_dim(dilation, "dilation", nsp, minimum=1)
    pad_lo, pad_hi = _padding(padding, nsp)
    out_pad = _per_dim(output_padding, "output_padding", nsp, minimum=0, allow_empty=True)
    transposed = bool(transposed)
    groups = int(groups)
    if groups < 1:
        raise ValueError(f"groups must be >= 1, got {groups}")
    mask = [bool(m) for m in output_mask]
    if len(mask) != 3:
        raise ValueError(f"output_mask: expected 3 values, got {len(mask)}")
    cube_math_type = int(cube_math_type)
    if cube_math_type not in (0, 1, 2, 3):
        raise ValueError(f"cube_math_type must be 0..3, got {cube_math_type}")
    if not transposed and any(out_pad):
        raise ValueError(f"output_padding must be all 0 when transposed is false, got {list(out_pad)}")

    n, c_in, *in_size = in_shape
    n_go, c_out, *go_size = go_shape
    kernel = tuple(w_shape[2:])
    if n_go != n:
        raise ValueError(f"grad_output batch {n_go} != input batch {n}")
    if any(k < 1 for k in kernel):
        raise ValueError(f"weight: kernel sizes must be >= 1, got {kernel}")
    # (x side, y side) of the underlying ordinary convolution; weight is [Cy, Cx/groups, *k] in both modes.
    cy, cx = (c_in, c_out) if transposed else (c_out, c_in)
    if w_shape[0] != cy or cx != groups * w_shape[1] or cy % groups:
        raise ValueError(
            f"channels: weight {tuple(w_shape)}, input C {c_in}, grad_output C {c_out}, groups {groups}, "
            f"transposed {transposed} are inconsistent"
        )
    eff = [d * (k - 1) + 1 for d, k in zip(dilation_t, kernel, strict=True)]
    if transposed:
        expected = [
            (i - 1) * s - lo - hi + e + op
            for i, s, lo, hi, e, op in zip(in_size, stride_t, pad_lo, pad_hi, eff, out_pad, strict=True)
        ]
    else:
        if any(i + lo + hi < e for i, lo, hi, e in zip(in_size, pad_lo, pad_hi, eff, strict=True)):
            raise ValueError("padded input is smaller than the dilated kernel")
        expected = [
            (i + lo + hi - e) // s + 1 for i, lo, hi, e, s in zip(in_size, pad_lo, pad_hi, eff, stride_t, strict=True)
        ]
    if list(go_size) != expected:
        raise ValueError(f"grad_output spatial size {tuple(go_size)} != expected {tuple(expected)}")
    if bias_sizes is not None:
        bias_list = _int_list(bias_sizes, "bias_sizes")
        if bias_list and bias_list != [c_out]:
            raise ValueError(f"bias_sizes {bias_list} != [{c_out}]")

    return _Checked(
        stride_t, dilation_t, pad_lo, kernel, transposed, groups, tuple(mask), cube_math_type, cx, cy,
        tuple(in_size), tuple(go_size),
    )  # fmt: skip


_check_cached = functools.lru_cache(maxsize=256)(_check_attributes)


def _frozen(value):
    """A hashable stand-in for an attribute value with the same meaning for :func:`_check_attributes`."""
    kind = type(value)
    if kind is list or kind is tuple:  # (the common case first)
        return tuple(value)
    if value is None or isinstance(value, (int, np.integer, np.bool_)):
        return value
    return tuple(value.tolist() if isinstance(value, np.ndarray) else value)


def _check(shapes, *attributes) -> _Checked:
    """:func:`_check_attributes`, remembered per (shapes, attributes): repeated calls skip the checks (the
    result depends on nothing else; rejected arguments are not remembered and raise every time)."""
    try:
        key = tuple(map(_frozen, attributes))
        return _check_cached(*shapes, *key)
    except TypeError:  # unhashable values: checked without the cache (raising the same errors)
        return _check_attributes(*shapes, *attributes)


def _grad_bias(gy: np.ndarray, needed: bool, dtype) -> np.ndarray | None:
    """``sum(grad_output)`` over N and space (pairwise float32 sums)."""
    if not needed:
        return None
    n, c_out = gy.shape[:2]
    rows = gy.reshape(n, c_out, math.prod(gy.shape[2:]))
    return from_compute(rows[0].sum(axis=1) if n == 1 else rows.sum(axis=2).sum(axis=0), np.dtype(dtype))


# Direct (compiled) path for depthwise convolutions (one input channel per group, a channel multiplier of at
# most _DIRECT_MAX_MULTIPLIER): per-tap GEMMs of 1 x m matrices waste BLAS, while a stencil loop touches each
# operand a few times and needs no temporaries. 1-D and 2-D, not transposed. (With more channels per group the
# per-row loop overhead outgrows the GEMM path, which stays in use there.)
_DIRECT_MAX_MULTIPLIER = 4


def _direct_applies(transposed: bool, nsp: int, groups: int, c_in: int, c_out: int) -> bool:
    if transposed or nsp > 2 or not _accel.enabled():
        return False
    return c_in == groups and c_out // groups <= _DIRECT_MAX_MULTIPLIER and groups > 1


def _direct_grouped(gy, x, w, groups, stride, pad_lo, dilation, need_gi, need_gw):
    """Grouped conv backward by direct loops: returns float32 (grad_input, grad_weight) (None where not needed)."""
    one_d = x.ndim == 3
    if one_d:  # 1-D as 2-D with H = 1
        gy, x, w = gy[:, :, None, :], x[:, :, None, :], w[:, :, None, :]
        stride, pad_lo, dilation = (1, *stride), (0, *pad_lo), (1, *dilation)
    gi = np.zeros(x.shape if need_gi else (0, 0, 0, 0), np.float32)
    gw = np.zeros(w.shape if need_gw else (0, 0, 0, 0), np.float64)
    _direct_grouped_compiled(
        _accel.ready(gy), _accel.ready(x), _accel.ready(w), groups, stride[0], stride[1],
        pad_lo[0], pad_lo[1], dilation[0], dilation[1], need_gi, need_gw, gi, gw,
    )  # fmt: skip
    grad_input = (gi[:, :, 0] if one_d else gi) if need_gi else None
    grad_weight = (gw[:, :, 0] if one_d else gw).astype(np.float32) if need_gw else None
    return grad_input, grad_weight


@_accel.jit(fastmath={"reassoc", "contract"})
def _direct_grouped_compiled(gy, x, w, groups, sh, sw, ph, pw, dh, dw, need_gi, need_gw, gi, gw):
    """``gi[n, cx] += w[cy, cx', kh, kw] * gy[n, cy]`` shifted, ``gw[cy, cx', kh, kw] += sum gy[n, cy] * x[n, cx]``
    shifted (float64 sums, in any order: ``reassoc`` lets them vectorise; no NaN/inf shortcuts).

    Rows are addressed in flat views with unsigned offsets: NumPy-style negative-index wrap-around tests
    on signed indices would keep LLVM from vectorising the row loops."""
    n_, c_in, h, wd = x.shape
    c_out, cxg, kh_, kw_ = w.shape
    oh_, ow_ = gy.shape[2], gy.shape[3]
    cyg = c_out // groups
    gyf, xf = gy.reshape(-1), x.reshape(-1)
    gif = gi.reshape(-1)
    u = np.uint64
    step = u(sw)
    for b in range(n_):
        for cy in range(c_out):
            g = cy // cyg
            for ci in range(cxg):
                cx = g * cxg + ci
                ybase = (b * c_out + cy) * oh_ * ow_
                xbase = (b * c_in + cx) * h * wd
                for kh in range(kh_):
                    # output rows whose input row is inside the image
                    oh_lo = 0
                    while oh_lo < oh_ and oh_lo * sh - ph + kh * dh < 0:
                        oh_lo += 1
                    oh_hi = oh_
                    while oh_hi > oh_lo and (oh_hi - 1) * sh - ph + kh * dh >= h:
                        oh_hi -= 1
                    for kw in range(kw_):
                        wv = w[cy, ci, kh, kw]
                        # output columns whose input column is inside the image
                        lo = 0
                        while lo < ow_ and lo * sw - pw + kw * dw < 0:
                            lo += 1
                        hi = ow_
                        while hi > lo and (hi - 1) * sw - pw + kw * dw >= wd:
                            hi -= 1
                        count = hi - lo
                        first = lo * sw + kw * dw - pw  # input column of output column lo (>= 0)
                        acc = 0.0
                        for oh in range(oh_lo, oh_hi):
                            yb = u(ybase + oh * ow_ + lo)
                            xb = u(xbase + (oh * sh - ph + kh * dh) * wd + first)
                            if need_gi and need_gw and sw == 1:  # the common case, unit stride: vectorises
                                for i in range(count):
                                    gv = gyf[yb + u(i)]
                                    gif[xb + u(i)] += wv * gv
                                    acc += np.float64(gv) * np.float64(xf[xb + u(i)])
                            elif need_gi and need_gw:
                                for i in range(count):
                                    gv = gyf[yb + u(i)]
                                    gif[xb + u(i) * step] += wv * gv
                                    acc += np.float64(gv) * np.float64(xf[xb + u(i) * step])
                            elif need_gi:
                                for i in range(count):
                                    gif[xb + u(i) * step] += wv * gyf[yb + u(i)]
                            elif need_gw:
                                for i in range(count):
                                    acc += np.float64(gyf[yb + u(i)]) * np.float64(xf[xb + u(i) * step])
                        if need_gw:
                            gw[cy, ci, kh, kw] += acc
