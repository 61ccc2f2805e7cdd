"""tools/gpu_check.py's digest mode (what a GPU machine sends back for many games): the CPU side
replays the GPU's action and reset schedule, and a difference in one value of one frame of one
console is found and located. Both sides run on the CPU here; the point is the bookkeeping."""

import numpy as np
import pytest

from tools import gpu_check

CONSOLES, FRAMES, SEED, RESET_EVERY, CHECKPOINT_EVERY = 4, 40, 3, 10, 10


def _save(path, game, r):
    np.savez(path, **{f"{game}/checkpoints": r["checkpoints"],
                      f"{game}/per_frame": r["per_frame"],
                      f"{game}/resets": np.array(r["resets"]),
                      f"{game}/frames_done": np.array(r["frames_done"])},
             meta=np.array([CONSOLES, FRAMES, SEED, RESET_EVERY, CHECKPOINT_EVERY]))


@pytest.fixture(scope="module")
def side():
    hasher = gpu_check.Hasher(250 * 160)
    return gpu_check.digest_side("pong", "cpu", CONSOLES, FRAMES, SEED, hasher, RESET_EVERY,
                                 CHECKPOINT_EVERY)


def test_same_run_compares_exact(side, tmp_path):
    _save(tmp_path / "ok.npz", "pong", side)
    assert gpu_check.compare_digests([str(tmp_path / "ok.npz")], str(tmp_path / "r.csv")) == 0
    assert "EXACT" in (tmp_path / "r.csv").read_text()


@pytest.mark.parametrize("column,name", [(0, "ram"), (1, "screen"), (4, "game_over")])
def test_one_changed_value_is_found_and_located(side, tmp_path, capsys, column, name):
    bad = dict(side, per_frame=side["per_frame"].copy())
    bad["per_frame"][23, column] ^= np.uint64(1)
    _save(tmp_path / "bad.npz", "pong", bad)
    assert gpu_check.compare_digests([str(tmp_path / "bad.npz")], None) == 1
    out = capsys.readouterr().out
    assert "'first_bad_frame': 23" in out and f"'what_differs': '{name}'" in out


def test_changed_console_digest_is_found(side, tmp_path, capsys):
    bad = dict(side, checkpoints=side["checkpoints"].copy())
    bad["checkpoints"][2, 1, 3] ^= np.uint64(1)
    _save(tmp_path / "bad.npz", "pong", bad)
    assert gpu_check.compare_digests([str(tmp_path / "bad.npz")], None) == 1
    assert "checkpoints only" in capsys.readouterr().out


def test_schedule_is_a_prefix_of_a_longer_one():
    legal = np.arange(6)
    short, long = (gpu_check.action_schedule(legal, 5, n, 9) for n in (30, 70))
    assert np.array_equal(short, long[:30])
    assert set(np.unique(long)) <= set(legal)
