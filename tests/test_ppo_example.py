"""examples/ppo_atari.py, a CPU smoke run on both backends: it runs, its losses stay finite, the
network's parameters move, episodes reach the CSV, and, the env being exact, cule_py's run is
the same run as ale-py's (same episodes, same losses)."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch", reason="the PPO example needs PyTorch (CI installs the CPU wheel)")

# Two training runs in child processes; the ale-py run must be the same run as cule_py's.
pytestmark = [pytest.mark.slow, pytest.mark.live_ale]

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "ppo_atari.py"
# 4 envs x 32 steps x 4 iterations = 512 agent steps = 2048 frames; 400-frame episodes end some.
ARGS = ["--env-id", "ALE/Breakout-v5", "--num-envs", "4", "--num-steps", "32",
        "--total-timesteps", "512", "--max-episode-frames", "400", "--device", "cpu",
        "--torch-threads", "1", "--seed", "3"]


def _run(backend: str, tmp: Path) -> tuple[dict, list[list[str]]]:
    out = tmp / backend
    cmd = [sys.executable, str(EXAMPLE), *ARGS, "--backend", backend,
           "--csv", str(out / "episodes.csv"), "--summary-json", str(out / "summary.json")]
    out.mkdir()
    env = dict(os.environ)
    # the cule_py under test, wherever pytest imports it from (source tree or installed)
    import cule_py
    env["PYTHONPATH"] = os.pathsep.join([str(Path(cule_py.__file__).parents[1]),
                                         env.get("PYTHONPATH", "")])
    # (a generous timeout: run alone on a cold numba cache, the agent kernels compile first)
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=1200, env=env, cwd=tmp)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    summary = json.loads((out / "summary.json").read_text())
    with open(out / "episodes.csv") as f:
        rows = list(csv.reader(f))
    return summary, rows


def test_ppo_example_trains_on_both_backends(tmp_path):
    ours, our_rows = _run("cule_py", tmp_path)
    assert ours["global_step"] == 512 and ours["iterations"] == 4
    assert ours["losses_finite"] and ours["param_change_l2"] > 1e-3
    assert ours["episodes"] >= 4 and len(our_rows) == ours["episodes"] + 1
    assert our_rows[0] == ["global_step", "env", "episode_return", "episode_length", "seconds"]
    theirs, their_rows = _run("ale_py", tmp_path)
    # exact env: the same observations give the same actions, episodes and updates
    assert [r[:4] for r in our_rows] == [r[:4] for r in their_rows]
    assert ours["losses"] == theirs["losses"]
    assert ours["param_change_l2"] == theirs["param_change_l2"]
