"""cule_py.rollout, the env runner's sample loop without Ray (issue 29), live against ale-py: the
same scripted actions through collect_rollout on cule_py's vector env and on ale-py's give the
same rollout, and episode_spans cut both into the same episodes, which a step-by-step tracker of
NextStep autoreset agrees with, across rollout boundaries."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="cule_py.rollout needs PyTorch (an optional extra)")
ale_py = pytest.importorskip("ale_py")

import gymnasium as gym  # noqa: E402

from cule_py import make_vec  # noqa: E402
from cule_py.rollout import as_tensor, collect_rollout, episode_spans  # noqa: E402

CONSOLES, STEPS, ROLLOUTS = 6, 32, 4
# Short, truncated episodes and lost lives (episodic life) inside the rollouts, some on a rollout's last step.
SETTINGS = dict(max_num_frames_per_episode=110, noop_max=4, episodic_life=True)


def _scripted(seed: int, num_actions: int):
    """The same action sequence on both sides, with logits and log-probabilities to carry."""
    rng = np.random.default_rng(seed)

    def policy(obs):
        actions = torch.from_numpy(rng.integers(0, num_actions, obs.shape[0]))
        logits = torch.zeros((obs.shape[0], num_actions))
        return actions, logits, torch.full((obs.shape[0],), -float(np.log(num_actions)))
    return policy


def _rollouts(env, takes_tensors: bool):
    obs, _ = env.reset(seed=11)
    first = as_tensor(obs).clone()
    policy = _scripted(5, int(env.single_action_space.n))
    pending = np.zeros(CONSOLES, bool)
    out = []
    for _ in range(ROLLOUTS):
        timings: dict = {}
        host, first = collect_rollout(env, first, STEPS, policy, env_takes_tensors=takes_tensors,
                                      timings=timings)
        assert set(timings) == {"inference", "env", "host_copy"}
        out.append((host, episode_spans(host["terminated"], host["truncated"], pending)))
    env.close()
    return out


def _tracked(hosts):
    """Episodes as a per-step loop over NextStep autoreset sees them: (console, rollout, begin,
    end, finished, terminated, truncated)."""
    episodes = []
    for n in range(CONSOLES):
        reset_next = False
        for r, host in enumerate(hosts):
            begin = None
            for t in range(STEPS):
                if reset_next:           # the reset step: no episode's
                    reset_next = False
                    continue
                begin = t if begin is None else begin
                term, trunc = bool(host["terminated"][n, t]), bool(host["truncated"][n, t])
                if term or trunc:
                    episodes.append((n, r, begin, t + 1, True, term, trunc and not term))
                    begin, reset_next = None, True
            if begin is not None:
                episodes.append((n, r, begin, STEPS, False, False, False))
    return sorted(episodes)


@pytest.mark.live_ale
def test_rollout_and_spans_equal_ale_py_and_a_per_step_tracker():
    gym.register_envs(ale_py)
    ours = _rollouts(make_vec("ALE/Breakout-v5", CONSOLES, array_type="torch",
                              episode_statistics=True, **SETTINGS), True)
    theirs = _rollouts(gym.make_vec("ALE/Breakout-v5", CONSOLES,
                                    vectorization_mode="vector_entry_point", **SETTINGS), False)
    for (host, spans), (ref, ref_spans) in zip(ours, theirs):
        for key in ("obs", "actions", "rewards", "terminated", "truncated", "logp", "logits"):
            assert np.array_equal(host[key], ref[key]), key
        assert host["obs"].shape == (CONSOLES, STEPS + 1, 4, 84, 84)
        assert spans == ref_spans
        # cule_py's unclipped returns arrive at each episode's last step
        for s in spans:
            if s.finished:
                assert host["score"][s.console, s.end - 1] >= host["rewards"][
                    s.console, s.begin:s.end].sum() - 1e-9
    assert host["has_scores"] and not ref["has_scores"]
    flat = sorted((s.console, r, s.begin, s.end, s.finished, s.terminated, s.truncated)
                  for r, (_, spans) in enumerate(ours) for s in spans)
    assert flat == _tracked([h for h, _ in ours])
    ends = [s for _, spans in ours for s in spans if s.finished]
    assert any(s.truncated for s in ends) and any(s.terminated for s in ends)
    # an episode ending on a rollout's last step makes the next rollout start with its reset
    assert any(s.end == STEPS for s in ends), "none ended on a rollout's last step: other seeds"
