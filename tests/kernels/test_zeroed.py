"""``_accel.zeroed``: zero-filled results, recycled from 32 MiB on (see the comment above it in ``_accel.py``).

A recycled block must come back all zeros whatever the previous result's owner wrote into it, must not be
reused while any view of the previous result is alive, and the kept blocks must stay within the bound. The
thresholds are lowered with ``monkeypatch`` (they are read at each call) so that most tests stay small; one test
uses the real ones at the NLLLossBackward benchmark's large size.
"""

from __future__ import annotations

import gc
import mmap
import threading

import numpy as np
import pytest

from benchmarks._harness import _status_kib
from generator.kernels import _accel
from generator.kernels._common import BFLOAT16
from generator.kernels.nll_loss_backward import nll_loss_backward

MIB = 1 << 20
pytestmark = pytest.mark.skipif(not hasattr(mmap, "MADV_HUGEPAGE"), reason="np.zeros everywhere without madvise")


@pytest.fixture(autouse=True)
def _empty_pool(monkeypatch):
    _accel.release_recycled()
    yield
    gc.collect()
    _accel.release_recycled()


@pytest.fixture
def small(monkeypatch):
    """Recycle from 2 MiB on, keep at most 8 MiB."""
    monkeypatch.setattr(_accel, "RECYCLE_FROM", 2 * MIB)
    monkeypatch.setattr(_accel, "RECYCLE_KEEP", 8 * MIB)


def _kept() -> list[int]:
    return [span for span, _ in _accel._recycled]


@pytest.mark.parametrize("dtype", [np.float32, np.float16, BFLOAT16, np.int64, np.bool_], ids=str)
@pytest.mark.parametrize("shape", [(3, 5), (1000, 1025), (2, 3, 699_051), (1_234_567,), ()], ids=str)
def test_like_np_zeros(small, shape, dtype):
    out = _accel.zeroed(shape, dtype)
    expected = np.zeros(shape, dtype)
    assert out.shape == expected.shape and out.dtype == expected.dtype
    assert out.flags.c_contiguous and out.flags.writeable and out.flags.aligned
    assert not out.reshape(-1).view(np.uint8).any()
    out[...] = 1  # the whole block is writeable
    assert out.all()


def test_big_block_on_huge_page_boundary(small):
    out = _accel.zeroed((1024, 1024), np.float32)  # 4 MiB
    assert out.ctypes.data % (2 * MIB) == 0
    assert not out.flags.owndata  # a recycled block (np.zeros would own its data)


def test_freed_block_comes_back_zeroed(small):
    first = _accel.zeroed((1000, 1000), np.float32)  # 3.8 MiB: one 4 MiB block
    address = first.ctypes.data
    first[...] = np.nan
    del first
    gc.collect()
    assert _kept() == [4 * MIB]
    second = _accel.zeroed((500, 1000), np.float64)  # same span, other dtype and shape
    assert second.ctypes.data == address  # reused ...
    assert _kept() == []
    assert not second.view(np.uint8).any()  # ... and cleared


def test_other_span_takes_fresh_memory(small):
    first = _accel.zeroed((1000, 1000), np.float32)  # 4 MiB span
    del first
    second = _accel.zeroed((1000, 1500), np.float32)  # 6 MiB span
    assert _kept() == [4 * MIB]
    assert not second.any()


def test_views_keep_the_block(small):
    first = _accel.zeroed((1000, 1000), np.float32)
    first[...] = 7
    view = first[10:20].T
    del first
    gc.collect()
    assert _kept() == []  # still in use through the view
    other = _accel.zeroed((1000, 1000), np.float32)
    assert other.ctypes.data != view.base.ctypes.data
    assert not other.any() and (view == 7).all()  # neither result disturbs the other
    del view
    gc.collect()
    assert _kept() == [4 * MIB]


def test_kept_blocks_are_bounded(small):
    results = [_accel.zeroed((1000, 1000), np.float32) for _ in range(3)]  # 3 x 4 MiB
    del results
    gc.collect()
    assert _kept() == [4 * MIB, 4 * MIB]  # 8 MiB at most
    assert _accel.release_recycled() == 8 * MIB and _kept() == []


def test_blocks_larger_than_the_bound_are_not_kept(small):
    out = _accel.zeroed((3000, 1000), np.float32)  # 12 MiB > 8 MiB
    out[...] = 1
    del out
    gc.collect()
    assert _kept() == []


def test_resident_memory_is_the_result():
    """Fresh memory with the real thresholds: only the whole 2 MiB pages the result fills are advised for huge
    pages, so a result ending 0.25 MiB into a huge page costs no more resident memory than its bytes (advising
    the last, partial page too would fault in 1.75 MiB more)."""
    nbytes = (34 << 20) + (1 << 18)
    before = _status_kib("VmRSS")
    out = _accel.zeroed((nbytes // 4,), np.float32)
    out[...] = 1.0
    grown = (_status_kib("VmRSS") - before) * 1024
    assert nbytes <= grown < nbytes + MIB


def test_below_the_threshold_np_zeros(small):
    out = _accel.zeroed((100, 1000), np.float32)
    assert out.flags.owndata


def test_nll_loss_backward_large_result_reused():
    """The benchmark's large float16 -> float32 case (62.5 MiB result) with the real thresholds: a result the
    caller overwrote and dropped is recycled for the next call, which must again be zero off the targets."""
    rng = np.random.default_rng(5)
    rows, classes = 16384, 1000
    self = np.zeros((rows, classes), np.float16)
    target = rng.integers(0, classes, rows)
    target[::7] = -100
    weight = rng.uniform(0.5, 2.0, classes).astype(np.float16)
    args = (np.asarray(1.5, np.float16), self, target, weight, 2, -100, np.asarray(3.0, np.float16))
    first = nll_loss_backward(*args, product="910b")
    assert first.dtype == np.float32 and not first.flags.owndata
    address = first.ctypes.data
    first[...] = np.inf
    del first
    gc.collect()
    second = nll_loss_backward(*args, product="910b")
    assert second.ctypes.data == address
    expected = np.zeros((rows, classes), np.float32)
    kept = target != -100
    expected[np.nonzero(kept)[0], target[kept]] = -(weight[target[kept]].astype(np.float32) * np.float32(1.5))
    np.testing.assert_array_equal(second, expected)


def test_finalizer_inside_the_locked_section_does_not_deadlock(small):
    """A result freed while its thread holds the pool's lock (a garbage collection of reference cycles can start
    inside a locked section and finalise a result there) gives its block back instead of waiting forever."""
    done = []

    def free_while_locked():
        a = _accel.zeroed((4 * MIB // 4,), np.float32)
        with _accel._recycle_lock:
            del a  # the last reference: the finalizer runs now, in this thread, under the lock
        done.append(_kept())

    worker = threading.Thread(target=free_while_locked, daemon=True)
    worker.start()
    worker.join(timeout=10)
    assert not worker.is_alive(), "the finalizer deadlocked on the pool's lock"
    assert done == [[4 * MIB]]
