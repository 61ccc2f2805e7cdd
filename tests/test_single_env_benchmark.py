"""benchmarks/single_env.py on a tiny case: both sides play, the rounds alternate their order,
and each row carries what the README quotes (no timing is asserted)."""

from __future__ import annotations

import pytest

pytest.importorskip("ale_py")

from benchmarks import single_env  # noqa: E402


def test_single_env_benchmark_reports_both_sides(monkeypatch):
    monkeypatch.setattr(single_env, "WARMUP_STEPS", 20)
    played = []
    original = single_env.steps_per_second

    def recording(make, env_id, steps, seed):
        played.append((make.__module__.split(".")[0], env_id, seed))
        return original(make, env_id, steps, seed)

    monkeypatch.setattr(single_env, "steps_per_second", recording)
    lines = []
    rows = single_env.benchmark(["Pong"], steps=30, rounds=2, say=lines.append)
    assert [side for side, _, _ in played] == ["cule_py", "gymnasium", "gymnasium", "cule_py"]
    assert {env_id for _, env_id, _ in played} == {"ALE/Pong-v5"}
    (row,) = rows
    assert row["cule_steps_per_s"] > 0 and row["ale_steps_per_s"] > 0
    assert row["ratio_min"] <= row["ratio"] <= row["ratio_max"] and row["rounds"] == 2
    assert lines and lines[0].startswith("| Pong |")
