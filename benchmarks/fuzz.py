"""Seeded fuzzer of the generated ``aclnn`` package: only AclnnError may escape, fast, in bounded memory.

python -m benchmarks.fuzz [--calls 20000] [--seed 0] [--max-seconds 1.0] [--max-rss-mib 1024]
                          [--ops EluBackward,...] [--replay N] [--verbose]

Every operator in ``aclnn.ops()`` (new ones are picked up automatically) is called through
``aclnn.validate``, ``aclnn.run`` and its own function (``aclnn.<snake>``, positional or keyword
arguments) with arguments built from the spec's example and check cases, then mutated: random and
hostile values of every kind (wrong types, huge, negative and odd shapes, NaN/inf scalars, huge
integers, wrong dtypes, None, nested junk, endless generators and huge ranges, read-only,
non-contiguous, Fortran-ordered and zero-stride arrays, TensorDesc without data, tiny tensors with
attributes that imply huge work, unknown parameters and products). Call ``i`` uses its own RNG seeded
with ``(seed, i)``, so ``--replay i`` repeats exactly one call.

Violations (exit status 1): any exception other than AclnnError, a call slower than --max-seconds,
a process peak RSS above --max-rss-mib. The summary prints the number of calls, outcomes by type
(AclnnError by status code), warnings, the slowest call and the peak RSS.
"""

from __future__ import annotations

import argparse
import collections
import decimal
import fractions
import inspect
import math
import random
import resource
import sys
import time
import traceback
import warnings
from dataclasses import dataclass, field

import ml_dtypes
import numpy as np

import aclnn
from aclnn.ops import OPS
from generator.runtime import examples

ENTRIES = ("validate", "run", "function", "function_kw")
DTYPES = [
    np.float32,
    np.float16,
    ml_dtypes.bfloat16,
    np.float64,
    np.int8,
    np.uint8,
    np.int16,
    np.int32,
    np.int64,
    np.uint64,
    np.bool_,
    np.complex64,
]
ODD_DTYPES = [np.dtype(object), np.dtype("U3"), np.dtype([("a", "<f4")]), np.dtype(">f4"), np.dtype("M8[s]")]
DTYPE_NAMES = ["FLOAT", "FLOAT16", "BFLOAT16", "DOUBLE", "INT8", "INT32", "INT64", "UINT8", "BOOL", "COMPLEX64",
               "float32", "aclFloat16", "ACL_FLOAT", "fp32", "NOPE", "", 7, None, np.float32]  # fmt: skip
FORMATS = ["ND", "NCHW", "NHWC", "NCDHW", "NCL", "FRACTAL_NZ", "NC1HWC0", "ACL_FORMAT_ND", "nd", "BOGUS", 2, None]
HUGE_INTS = [2**31 - 1, 2**31, 2**32, 2**62, 2**63 - 1, 2**63, 2**64, -(2**63), -(2**63) - 1, 10**30, 10**400]
MAX_FUZZ_ELEMENTS = 1 << 16  # arrays the fuzzer itself allocates stay small


@dataclass
class Summary:
    calls: int = 0
    outcomes: collections.Counter = field(default_factory=collections.Counter)
    warnings: collections.Counter = field(default_factory=collections.Counter)
    escapes: list = field(default_factory=list)
    slow: list = field(default_factory=list)
    slowest: tuple = (0.0, None, "")
    per_op: collections.Counter = field(default_factory=collections.Counter)
    compiling: list = field(default_factory=list)
    warm_up_s: float = 0.0

    @property
    def peak_rss_mib(self) -> float:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

    def violations(self, max_rss_mib: float) -> list[str]:
        found = [f"escape: {e}" for e in self.escapes]
        found += [f"slow: {s}" for s in self.slow]
        if self.peak_rss_mib > max_rss_mib:
            found.append(f"peak RSS {self.peak_rss_mib:.0f} MiB > {max_rss_mib:.0f} MiB")
        return found

    def report(self) -> str:
        lines = [f"calls: {self.calls}", "outcomes:"]
        for key, count in sorted(self.outcomes.items(), key=lambda kv: -kv[1]):
            lines.append(f"  {count:7d}  {key}")
        if self.warnings:
            lines.append("warnings (not violations):")
            for key, count in sorted(self.warnings.items(), key=lambda kv: -kv[1]):
                lines.append(f"  {count:7d}  {key}")
        seconds, index, what = self.slowest
        lines.append(f"warm-up (examples, imports, JIT compilation; untimed): {self.warm_up_s:.1f} s")
        lines.append(f"slowest call: {seconds * 1000:.1f} ms (call {index}: {what})")
        for what in self.compiling:
            lines.append(f"slow while compiling new code (one-time, cached on disk; not a violation): {what}")
        lines.append(f"peak RSS: {self.peak_rss_mib:.0f} MiB")
        lines.append("calls per op: " + ", ".join(f"{op} {n}" for op, n in sorted(self.per_op.items())))
        return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# Value generators


def _kind(param) -> str:
    ctype = param.ctype
    if ctype in ("const aclTensor*", "aclTensor*"):
        return "tensor"
    return {
        "const aclScalar*": "scalar",
        "const aclIntArray*": "ints",
        "const aclBoolArray*": "bools",
        "const aclFloatArray*": "floats",
        "const aclTensorList*": "tensors",
        "bool": "bool",
        "float": "float",
        "double": "float",
        "char*": "text",
        "const char*": "text",
    }.get(ctype, "int")


def _small_shape(r: random.Random, rank: int | None = None) -> tuple[int, ...]:
    rank = r.choice([0, 1, 2, 3, 4, 4, 5, 6]) if rank is None else rank
    shape = [r.choice([0, 1, 1, 2, 3, 4, 5, 7, 8, 16]) for _ in range(rank)]
    while math.prod(shape) > MAX_FUZZ_ELEMENTS:
        shape[shape.index(max(shape))] //= 2
    return tuple(shape)


def _array(r: random.Random, rng: np.random.Generator, shape, dtype) -> np.ndarray:
    dtype = np.dtype(dtype)
    size = math.prod(shape)
    if dtype.kind in "fcV" or dtype == np.dtype(ml_dtypes.bfloat16):
        values = rng.standard_normal(size) * r.choice([1.0, 1e-3, 1e4])
        special = r.random()
        if special < 0.1 and size:
            values[rng.integers(0, size, max(1, size // 8))] = r.choice([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e38])
        with np.errstate(over="ignore"):
            return values.astype(dtype).reshape(shape)
    if dtype.kind == "b":
        return rng.integers(0, 2, size).astype(bool).reshape(shape)
    info = np.iinfo(dtype)
    low, high = r.choice([(0, 4), (-3, 8), (info.min, info.max), (-1, 1)])
    return rng.integers(max(low, info.min), min(high, info.max), size, endpoint=True, dtype=dtype).reshape(shape)


def _odd_layout(r: random.Random, array: np.ndarray) -> np.ndarray:
    """The same values (or a same-shaped view) with an unusual memory layout."""
    choice = r.randrange(6)
    if choice == 0 and array.ndim:  # non-contiguous: every other element of a bigger buffer
        big = np.repeat(array, 2, axis=-1)
        return big[..., ::2]
    if choice == 1:
        return np.asfortranarray(array)
    if choice == 2:
        view = array.view()
        view.flags.writeable = False
        return view
    if choice == 3 and array.size:  # zero strides: one value broadcast to the shape
        return np.broadcast_to(array.reshape(-1)[:1].reshape((1,) * array.ndim), array.shape)
    if choice == 4 and array.ndim >= 2:  # a transposed view of the transposed array: same shape, C order lost
        return np.ascontiguousarray(np.swapaxes(array, -1, -2)).swapaxes(-1, -2)
    return array


def _hostile_tensor(r: random.Random, rng: np.random.Generator, like=None):
    choice = r.randrange(14)
    if choice == 0:
        return None
    if choice == 1:  # data-less descriptor, possibly huge
        rank = r.choice([0, 1, 2, 3, 4, 5, 6, 9])
        shape = [r.choice([0, 1, 2, 7, 2**20, 2**31, 2**62]) for _ in range(rank)]
        return aclnn.TensorDesc(shape, r.choice(["FLOAT", "FLOAT16", "INT64", "BFLOAT16", "BOOL"]))
    if choice == 2:  # a zero-stride array claiming a huge size without memory
        shape = like.shape if isinstance(like, np.ndarray) and r.random() < 0.5 else _small_shape(r)
        factor = r.choice([1, 1000, 10**6])
        grown = list(shape)
        for i, d in enumerate(grown):
            if d and math.prod(g for g in grown if g) * factor < 2**40:
                grown[i] = d * factor
        shape = tuple(grown)
        dtype = like.dtype if isinstance(like, np.ndarray) and r.random() < 0.7 else np.float32
        return np.broadcast_to(np.zeros((), dtype), shape)
    if choice == 3:
        return r.choice([[1.0, 2.0], 3.5, "tensor", b"\x00", {"shape": [2]}, (np.zeros(2),), object()])
    if choice == 4:
        return np.zeros(_small_shape(r), r.choice(ODD_DTYPES))
    if choice == 5:  # a shape-mutated variant of the example tensor, same dtype
        if like is not None and isinstance(like, np.ndarray):
            shape = list(like.shape)
            if shape and r.random() < 0.7:
                i = r.randrange(len(shape))
                shape[i] = r.choice([0, 1, 2, shape[i] + 1, shape[i] * 2, max(0, shape[i] - 1)])
            elif r.random() < 0.5:
                shape.append(r.choice([1, 2]))
            elif shape:
                shape.pop()
            while math.prod(shape) > MAX_FUZZ_ELEMENTS:
                shape[shape.index(max(shape))] //= 2
            return _array(r, rng, tuple(shape), like.dtype)
    if choice == 6 and like is not None and isinstance(like, np.ndarray):  # other dtype, same shape
        return _array(r, rng, like.shape, r.choice(DTYPES))
    if choice == 7 and like is not None and isinstance(like, np.ndarray):
        return _odd_layout(r, like)
    if choice == 8:
        return aclnn.TensorDesc(_small_shape(r), r.choice(["FLOAT", "FLOAT16", "INT32", "INT8"]),
                                r.choice(["ND", "NCHW", "NC1HWC0", "FRACTAL_NZ"]))  # fmt: skip
    if choice == 9:  # an ndarray subclass
        return np.ma.masked_array(_array(r, rng, _small_shape(r, 2), np.float32))
    if choice == 10 and like is not None and isinstance(like, np.ndarray):  # same shape, hostile values
        out = like.copy()
        if out.size and out.dtype.kind in "iu":
            info = np.iinfo(out.dtype)
            out.reshape(-1)[rng.integers(0, out.size)] = r.choice([info.max, info.min, -1, 0])
        elif out.size and out.dtype.kind in "fV":
            out.reshape(-1)[rng.integers(0, out.size)] = r.choice([np.nan, np.inf, -np.inf])
        return out
    return _array(r, rng, _small_shape(r), r.choice(DTYPES))


def _endless():
    while True:
        yield 1


def _hostile_ints(r: random.Random, like=None):
    choice = r.randrange(16)
    n = len(like) if isinstance(like, (list, tuple)) and like else r.choice([1, 2, 3])
    if choice == 0:
        return None
    if choice == 1:
        return range(r.choice([10**18, 10**19, 2**63]))
    if choice == 2:
        return _endless()
    if choice == 3:
        return (v for v in [r.choice([1, 2, 3]) for _ in range(n)])  # a finite generator: must be read once
    if choice == 4:
        return [r.choice(HUGE_INTS) for _ in range(n)]
    if choice == 5:
        return [r.choice([-1, 0, -(2**40)]) for _ in range(n)]
    if choice == 6:
        return r.choice([[1.5, 2], [True, False], ["1"], [[1, 2]], [None], "12", b"12", 3, 2.0, {1: 2}, {1, 2}])
    if choice == 7:
        return np.array([r.randint(-2, 9) for _ in range(n)], dtype=r.choice([np.int64, np.int32, np.float32]))
    if choice == 8:
        return np.zeros((2, 2), np.int64)
    if choice == 9:
        return list(range(r.choice([0, 5, 4097, 100000])))
    if choice == 10 and isinstance(like, (list, tuple)) and like:  # attribute values implying huge work
        return [int(v) * r.choice([100, 1000, 8000]) if r.random() < 0.7 else int(v) for v in like]
    if choice == 11 and isinstance(like, (list, tuple)) and like:
        return [r.choice([int(v), int(v) + 1, max(0, int(v) - 1), 2 * int(v) + 1, 8000]) for v in like]
    if choice == 12:
        return [r.randint(0, 8000) for _ in range(r.choice([n, n + 1, 4]))]
    if choice == 13:
        return tuple(np.int64(r.randint(-3, 9)) for _ in range(n))
    return [r.randint(-2, 9) for _ in range(r.choice([0, 1, 2, 3, 4, 6]))]


def _hostile_bools(r: random.Random, like=None):
    n = len(like) if isinstance(like, (list, tuple)) and like else 3
    return r.choice(
        [
            None,
            [r.random() < 0.5 for _ in range(n)],
            [True] * r.choice([0, 1, 2, 4, 5000]),
            [1, 0, 1],
            [np.bool_(True)] * n,
            np.array([True, False, True]),
            (b for b in [True, False, True]),
            _endless(),
            range(10**18),
            "TTT",
            True,
            [None, True],
        ]
    )


def _hostile_number(r: random.Random):
    return r.choice(
        [
            None,
            float("nan"),
            float("inf"),
            -float("inf"),
            -0.0,
            0.0,
            1e308,
            -1e-310,
            1.0,
            -1.0,
            0.5,
            2,
            -3,
            True,
            False,
            10**30,
            2**63,
            -(2**63),
            fractions.Fraction(10**400),
            fractions.Fraction(1, 3),
            decimal.Decimal("1.5"),
            decimal.Decimal("NaN"),
            1 + 2j,
            np.float16(65504),
            np.float32("nan"),
            np.int64(-1),
            np.uint64(2**64 - 1),
            "1.0",
            [1.0],
            object(),
        ]
    )


def _hostile_scalar(r: random.Random):
    if r.random() < 0.5:
        return _hostile_number(r)
    value = r.choice([1.0, -1.0, 0.0, float("nan"), float("inf"), 10**30, 2**64 - 1, True, 1j, 7])
    dtype = r.choice(DTYPE_NAMES)
    return ("Scalar", value, dtype)


def _hostile_int(r: random.Random):
    return r.choice([None, 0, 1, -1, 7, 127, 128, -129, 2**31, -(2**31) - 1, 2**63, 10**400, True, 1.0, "1",
                     np.int8(3), np.int64(2**40), [1], float("nan")])  # fmt: skip


def _hostile_bool(r: random.Random):
    return r.choice([True, False, None, 0, 1, np.bool_(True), "True", 1.0, [True]])


def _hostile_value(r: random.Random, rng: np.random.Generator, kind: str, like=None):
    if kind == "tensor":
        return _hostile_tensor(r, rng, like)
    if kind == "tensors":
        return r.choice([None, [], [np.zeros(2, np.float32)] * 3, [None, 1], _endless(), range(10**18), "x"])
    if kind == "ints":
        return _hostile_ints(r, like)
    if kind == "floats":
        return r.choice([None, [1.0, float("nan")], range(10**18), _endless(), [10**400], ["x"], [1.5] * 5000])
    if kind == "bools":
        return _hostile_bools(r, like)
    if kind == "scalar":
        return _hostile_scalar(r)
    if kind == "float":
        return _hostile_number(r)
    if kind == "bool":
        return _hostile_bool(r)
    if kind == "text":
        return r.choice([None, "", "x" * 10000, "\x00", 3, b"abc"])
    return _hostile_int(r)


def _materialise(value):
    """Hostile Scalars are described as tuples so that building them happens inside the guarded call."""
    if isinstance(value, tuple) and len(value) == 3 and value[0] == "Scalar":
        return aclnn.Scalar(value[1], value[2])
    return value


# ---------------------------------------------------------------------------------------------
# Per-op plans


class OpPlan:
    """What the fuzzer knows about one op: parameter kinds and a few valid argument sets."""

    def __init__(self, op: str):
        self.op = op
        self.spec = aclnn.spec(op)
        self.module = OPS[op]
        self.snake = self.module.__name__.rsplit(".", 1)[-1]
        self.function = getattr(aclnn, self.snake)
        self.kinds = {p.name: _kind(p) for p in self.spec.params}
        self.outputs = [p.name for p in self.spec.params if p.role == "output"]
        self.products = list(self.module.PRODUCTS)
        self.keywords = list(inspect.signature(self.function).parameters)
        self.bases = []  # (product, kwargs-builder) pairs
        self.bases.append((self.spec.example.product, None))
        for check in self.spec.checks:
            cases = getattr(check, "cases", None)
            if cases is None:
                continue
            if cases.boundary:  # triggers fail by design; boundaries are accepted inputs
                self.bases.append((cases.product or self.spec.example.product, cases.boundary))
        self.bases += [(self.spec.example.product, None)] * len(self.bases)  # the example half of the time

    def base_arguments(self, r: random.Random) -> tuple[str, dict]:
        product, overrides = r.choice(self.bases)
        try:
            return product, examples.arguments(self.spec, self.spec.example, overrides)
        except Exception:  # a case the example builder cannot realise with data: use the example
            return self.spec.example.product, examples.arguments(self.spec, self.spec.example)


def _benign(r: random.Random, rng: np.random.Generator, kind: str, value):
    """A value the validator should still accept but that stresses the kernel: odd memory layouts,
    special float values, attributes scaled up (work grows while the tensors stay small)."""
    if kind == "tensor" and isinstance(value, np.ndarray):
        if value.dtype.kind in "iu" and value.size and r.random() < 0.5:  # sizes/offsets held in a tensor
            out = value.copy().reshape(-1)
            info = np.iinfo(out.dtype)
            for _ in range(r.choice([1, 2])):
                out[rng.integers(0, out.size)] = min(info.max, r.choice([0, 1, 2**16, 2**26, 2**31 - 1, info.max, -1]))
            return out.reshape(value.shape)
        if r.random() < 0.6:
            return _odd_layout(r, value)
        out = value.copy()
        if out.size and out.dtype.kind in "fV":
            out.reshape(-1)[rng.integers(0, out.size, max(1, out.size // 4))] = r.choice([np.nan, np.inf, -np.inf, 0.0])
        return out
    if kind == "ints" and isinstance(value, (list, tuple)) and value:
        return [int(v) * r.choice([1, 2, 3, 100, 8000]) if r.random() < 0.5 else int(v) for v in value]
    if kind == "scalar":
        return r.choice([float("nan"), float("inf"), -0.0, 1e-45, 3.4e38, 0.5])
    return value


def _build_call(plan: OpPlan, r: random.Random, rng: np.random.Generator):
    product, kwargs = plan.base_arguments(r)
    mode = r.random()
    names = [p.name for p in plan.spec.params]
    if mode < 0.1:  # everything random
        kwargs = {name: _hostile_value(r, rng, plan.kinds[name]) for name in names if r.random() < 0.9}
    elif mode < 0.45:  # valid-looking: stress the kernels
        for name in r.sample(names, k=min(len(names), r.choice([0, 1, 2, 3]))):
            if name in kwargs:
                kwargs[name] = _benign(r, rng, plan.kinds[name], kwargs[name])
    else:
        for name in r.sample(names, k=min(len(names), r.choice([1, 1, 1, 2, 3]))):
            kwargs[name] = _hostile_value(r, rng, plan.kinds[name], kwargs.get(name))
    if r.random() < 0.1:  # pass outputs explicitly
        for name in plan.outputs:
            kwargs[name] = _hostile_tensor(r, rng)
    if r.random() < 0.03:
        kwargs[r.choice(["bogus", "grad_output", "", "gradoutput"])] = 1
    if r.random() < 0.05:
        product = r.choice(["910", "910b", "910_93", "310p", "310b", "950", "Atlas A2", "nope", 910, None, 10**5000])
    elif r.random() < 0.3:
        product = r.choice(plan.products)
    entry = r.choice(ENTRIES)
    backend = "numpy" if r.random() < 0.99 else r.choice(["cann", "torch", None, 3])
    return entry, product, backend, kwargs


def _invoke(plan: OpPlan, entry: str, product, backend, kwargs: dict):
    kwargs = {k: _materialise(v) for k, v in kwargs.items()}
    if entry == "validate":
        return aclnn.validate(plan.op, product=product, **kwargs)
    if entry == "run":
        return aclnn.run(plan.op, product=product, backend=backend, **kwargs)
    params = plan.module.PARAMS
    if entry == "function":
        args = [kwargs.get(name) for name in params]
        return plan.function(*args, product=product, backend=backend)
    by_snake = dict(zip(plan.keywords, params))  # positional parameters first, in PARAMS order
    call = {snake: kwargs.get(doc) for snake, doc in by_snake.items() if doc in kwargs or doc not in plan.outputs}
    return plan.function(**call, product=product, backend=backend)


def _describe(value) -> str:
    if isinstance(value, np.ndarray):
        flags = "" if value.flags.c_contiguous else " non-contiguous"
        flags += "" if value.flags.writeable else " read-only"
        return f"array{value.shape} {value.dtype}{flags}"
    text = (
        repr(value) if not (isinstance(value, int) and value.bit_length() > 200) else f"<int {value.bit_length()} bits>"
    )
    return text if len(text) < 60 else text[:57] + "..."


def _call_text(plan: OpPlan, entry, product, backend, kwargs) -> str:
    args = ", ".join(f"{k}={_describe(v)}" for k, v in kwargs.items())
    return f"{plan.op}.{entry}(product={_describe(product)}, backend={backend!r}, {args})"


class _CompileCounter:
    """Counts Numba compilations (JIT compilation is a one-time cost per machine: results are cached on
    disk); a slow call that compiled code is reported apart, not as a violation."""

    def __init__(self):
        self.count = 0
        try:
            from numba.core import event
        except ImportError:
            return
        counter = self

        class _Listener(event.Listener):
            def on_start(self, ev):
                counter.count += 1

            def on_end(self, ev):
                pass

        self._listener, self._event = _Listener(), event
        event.register("numba:compile", self._listener)

    def close(self):
        if hasattr(self, "_listener"):
            self._event.unregister("numba:compile", self._listener)


def warm_up(plans) -> float:
    """Run every op's example and check-case boundaries once, untimed (imports, JIT compilation)."""
    start = time.perf_counter()
    for plan in plans:
        for product, overrides in plan.bases:
            try:
                kwargs = examples.arguments(plan.spec, plan.spec.example, overrides)
                aclnn.run(plan.op, product=product, **kwargs)
            except Exception:
                pass
    return time.perf_counter() - start


def fuzz(calls: int, seed: int = 0, *, ops=None, max_seconds: float = 1.0, replay=None, verbose=False) -> Summary:
    """Run ``calls`` fuzzed calls and return the summary (see the module docstring)."""
    names = list(ops or aclnn.ops())
    plans = [OpPlan(op) for op in names]
    summary = Summary()
    compiles = _CompileCounter()
    summary.warm_up_s = warm_up(plans)
    indices = [replay] if replay is not None else range(calls)
    for i in indices:
        r = random.Random(f"{seed}:{i}")
        rng = np.random.default_rng([seed, i])
        plan = plans[i % len(plans)]
        try:
            entry, product, backend, kwargs = _build_call(plan, r, rng)
        except Exception as exc:  # the fuzzer's own bug: report it, do not count it as a call
            frame = traceback.extract_tb(exc.__traceback__)[-1]
            summary.escapes.append(f"call {i}: the fuzzer failed to build arguments: {exc!r} at line {frame.lineno}")
            continue
        text = None
        compiled_before = compiles.count
        start = time.perf_counter()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                _invoke(plan, entry, product, backend, kwargs)
                outcome = "ok"
            except aclnn.AclnnError as exc:
                outcome = f"AclnnError {exc.code} {exc.name}"
                if verbose:
                    print(f"call {i}: {exc}"[:300])
            except BaseException as exc:  # noqa: B036  (everything else is a violation, even KeyboardInterrupt)
                if isinstance(exc, KeyboardInterrupt):
                    raise
                outcome = f"ESCAPE {type(exc).__name__}"
                text = _call_text(plan, entry, product, backend, kwargs)
                frame = traceback.extract_tb(exc.__traceback__)[-1]
                summary.escapes.append(
                    f"call {i}: {type(exc).__name__}: {str(exc)[:200]} at {frame.filename}:{frame.lineno}\n    {text}"
                )
        elapsed = time.perf_counter() - start
        for w in caught:
            summary.warnings[f"{w.category.__name__}: {str(w.message)[:60]}"] += 1
        summary.calls += 1
        summary.per_op[plan.op] += 1
        summary.outcomes[outcome] += 1
        if elapsed > summary.slowest[0]:
            summary.slowest = (elapsed, i, text or _call_text(plan, entry, product, backend, kwargs))
        if elapsed > max_seconds:
            what = f"call {i}: {elapsed:.2f} s: {text or _call_text(plan, entry, product, backend, kwargs)}"
            if compiles.count > compiled_before:
                summary.compiling.append(what)
            else:
                summary.slow.append(what)
    compiles.close()
    return summary


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-seconds", type=float, default=1.0, help="slowest call allowed (default 1.0)")
    parser.add_argument("--max-rss-mib", type=float, default=1024.0, help="peak RSS allowed (default 1024)")
    parser.add_argument("--ops", help="comma-separated op names (default: every op in aclnn.ops())")
    parser.add_argument("--replay", type=int, help="run only call number N (same seed), verbosely")
    parser.add_argument("--verbose", action="store_true", help="print every AclnnError")
    args = parser.parse_args(argv)
    ops = args.ops.split(",") if args.ops else None
    start = time.perf_counter()
    summary = fuzz(args.calls, args.seed, ops=ops, max_seconds=args.max_seconds, replay=args.replay,
                   verbose=args.verbose or args.replay is not None)  # fmt: skip
    print(summary.report())
    print(f"wall time: {time.perf_counter() - start:.1f} s")
    problems = summary.violations(args.max_rss_mib)
    for problem in problems:
        print("VIOLATION", problem)
    print("FAIL" if problems else "PASS", f"({len(problems)} violation(s))")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
