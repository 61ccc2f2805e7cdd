"""benchmarks/cpu_scaling.py puts cule_py beside ale-py and EnvPool: EnvPool's env must mean what
AGENT_SETTINGS means on the other two sides, and the benchmark must run end to end and print a
row per side and ratio (the `bench` extra; skipped without EnvPool)."""

from __future__ import annotations

import json
import sys

import pytest

from cule_py import steady_state as ss

envpool = pytest.importorskip("envpool", reason="EnvPool comes with the bench extra")


def test_envpool_side_has_the_v5_settings():
    env = ss.EnvPoolVectorEnv("space_invaders", 2, threads=1)
    try:
        c = env._env.spec.config
        s = ss.AGENT_SETTINGS
        assert c.task == "space_invaders"
        assert (c.frame_skip, c.repeat_action_probability, c.noop_max, c.stack_num) == \
            (s["frameskip"], s["repeat_action_probability"], s["noop_max"], s["stack_num"])
        assert (c.img_height, c.img_width, c.gray_scale) == (84, 84, True)
        assert c.reward_clip and c.use_fire_reset and not c.episodic_life
        assert c.max_episode_steps * c.frame_skip == s["max_num_frames_per_episode"]
        assert not c.full_action_space
        obs, _ = env.reset()
        assert obs.shape == (2, 4, 84, 84)
        with pytest.raises(ValueError, match="resets every env at once"):
            env.reset(options={"reset_mask": [True, False]})
    finally:
        env.close()


@pytest.mark.slow
def test_the_benchmark_runs_every_side(tmp_path, monkeypatch, capsys):
    from benchmarks import cpu_scaling

    out = tmp_path / "scaling.json"
    monkeypatch.setattr(sys, "argv", [
        "cpu_scaling", "--games", "pong", "--threads", "1", "--envs-per-thread", "2",
        "--rounds", "2", "--warmup", "20", "--window-steps", "5", "--windows", "1",
        "--json", str(out)])
    cpu_scaling.main()
    printed = capsys.readouterr().out
    for row in ("| pong | cule_py |", "| pong | ale-py |", "| pong | EnvPool |",
                "| pong | cule_py / ale-py |", "| pong | cule_py / EnvPool |"):
        assert row in printed
    runs = json.loads(out.read_text())["games"][0]["runs"]
    assert sorted(r["side"] for r in runs) == ["ale_py", "cule_py", "envpool"]
    assert all(len(r["rounds"]) == 2 for r in runs)
