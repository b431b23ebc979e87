"""A seeded sample of the package fuzzer (``python -m benchmarks.fuzz`` runs 20,000 calls)."""

from __future__ import annotations

import aclnn
from benchmarks import fuzz


def test_fuzz_sample_lets_only_aclnn_errors_escape():
    summary = fuzz.fuzz(1000, seed=20240901, max_seconds=float("inf"))
    assert summary.escapes == []
    assert summary.calls == 1000
    assert set(summary.per_op) == set(aclnn.ops())  # every op, new ones included
    assert summary.outcomes["ok"] > 0 and sum(summary.outcomes.values()) == 1000


def test_fuzz_replay_repeats_one_call():
    first = fuzz.fuzz(1, seed=7, replay=123, max_seconds=float("inf"))
    again = fuzz.fuzz(1, seed=7, replay=123, max_seconds=float("inf"))
    assert first.outcomes == again.outcomes and first.calls == 1


def test_fuzz_main_reports_and_exits_zero(capsys):
    assert fuzz.main(["--calls", "50", "--seed", "3", "--max-seconds", "1e9", "--max-rss-mib", "1e9"]) == 0
    out = capsys.readouterr().out
    assert "calls: 50" in out and "peak RSS" in out and "slowest call" in out and "PASS" in out


def test_fuzz_counts_an_escape_as_a_violation(monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("escaped")

    monkeypatch.setattr(aclnn, "validate", broken)
    summary = fuzz.fuzz(40, seed=1, max_seconds=float("inf"))
    assert any("RuntimeError: escaped" in e for e in summary.escapes)
    assert summary.violations(max_rss_mib=1e9)
