"""A plain-Python model of one AtariVectorEnv sub-environment on top of ale_py.ALEInterface,
written from the documented behaviour and checked against AtariVectorEnv itself
(tests/test_agent_step_vs_ale.py). It pins down the semantics cule_py's agent step reproduces, at
ALE's speed, so that long sweeps (tools/agent_step_sweep.py) can run without the vector env's
threads, and so that each rule is written down once in readable form.
"""

from __future__ import annotations

import numpy as np

from cule_py.area_resize import resize_area
from cule_py.testing import ale_twin

FIRE = 1


def noop_count(mt, noop_max: int) -> int:
    """std::uniform_int_distribution<int>(0, noop_max - 1)(mt19937) as libstdc++ computes it
    (Lemire's multiply-and-reject for a 32-bit generator). `mt` is numpy's MT19937 bit generator,
    seeded as std::mt19937(seed)."""
    n = max(noop_max, 1)
    x = int(mt.random_raw())
    product = x * n
    if (product & 0xFFFFFFFF) < n:
        threshold = ((1 << 32) - n) % n
        while (product & 0xFFFFFFFF) < threshold:
            product = int(mt.random_raw()) * n
    return product >> 32


class SubEnv:
    def __init__(self, game, seed, *, max_num_frames_per_episode=108000,
                 repeat_action_probability=0.0, full_action_space=False, img_height=84,
                 img_width=84, grayscale=True, stack_num=4, frameskip=4, maxpool=True,
                 noop_max=30, episodic_life=False, life_loss_info=False, reward_clipping=True,
                 use_fire_reset=True):
        self.ale = ale_twin(game, seed, repeat_action_probability=repeat_action_probability)
        self.mt = np.random.RandomState(seed)._bit_generator
        self.actions = (self.ale.getLegalActionSet() if full_action_space
                        else self.ale.getMinimalActionSet())
        self.fire = use_fire_reset and any(a.value == FIRE for a in self.actions)
        self.kw = dict(max_frames=max_num_frames_per_episode, h=img_height, w=img_width,
                       gray=grayscale, stack=stack_num, skip=frameskip, maxpool=maxpool,
                       noop_max=noop_max, episodic=episodic_life, life_info=life_loss_info,
                       clip=reward_clipping)
        k = self.kw
        shape = (k["h"], k["w"]) if k["gray"] else (k["h"], k["w"], 3)
        self.stack = np.zeros((k["stack"], *shape), np.uint8)
        self.raw = [None, None]
        self.needs_reset = False

    def _screen(self):
        return self.ale.getScreenGrayscale() if self.kw["gray"] else self.ale.getScreenRGB()

    def _push(self):
        frame = self.raw[0]
        if self.kw["maxpool"]:
            frame = self.raw[0] = np.maximum(self.raw[0], self.raw[1])
        small = resize_area(frame, self.kw["h"], self.kw["w"])
        self.stack = np.concatenate([self.stack[1:], small[None]])

    def reset(self):
        ale = self.ale
        ale.reset_game()
        if self.fire:
            ale.act(self.actions[0].__class__(FIRE))
        noops = noop_count(self.mt, self.kw["noop_max"]) - int(self.fire)
        while noops > 0:
            ale.act(self.actions[0].__class__(0))
            if ale.game_over():
                ale.reset_game()
            noops -= 1
        self.stack[:] = 0
        self.raw[0] = self._screen()
        self.raw[1] = np.zeros_like(self.raw[0])
        self._push()
        self.elapsed = 0
        self.lives = ale.lives()
        self.needs_reset = False
        return self.stack.copy()

    def step(self, action):
        """One agent step: (obs, reward, terminated, truncated, lives). Frames are grabbed only
        while the step goes on: the frame that ends it is never looked at, and raw[0] then still
        holds the previous step's pooled frame (the max-pool is written into raw[0] in place)."""
        ale, k = self.ale, self.kw
        a = self.actions[action]
        reward = 0
        life_lost = False
        for i in range(k["skip"]):
            reward += ale.act(a)
            self.elapsed += 1
            lives = ale.lives()
            life_lost = life_lost or 0 < lives < self.lives
            self.lives = lives
            if ale.game_over() or self.elapsed >= k["max_frames"] or (k["episodic"] and life_lost):
                break
            if i == k["skip"] - 2:
                self.raw[1] = self._screen()
            elif i == k["skip"] - 1:
                self.raw[0] = self._screen()
        self._push()
        if k["clip"]:
            reward = int(np.sign(reward))
        game_over = ale.game_over()
        terminated = game_over or ((k["life_info"] or k["episodic"]) and life_lost)
        truncated = self.elapsed >= k["max_frames"] and not terminated
        self.needs_reset = (game_over or self.elapsed >= k["max_frames"]
                            or (k["episodic"] and life_lost))
        return self.stack.copy(), reward, terminated, truncated, ale.lives()
