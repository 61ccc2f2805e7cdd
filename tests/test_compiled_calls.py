"""CompiledCalls (cule_py/_threads.py) calls a kernel's compiled function without typing its
arguments: the owners must pass the first call's types every time. These tests run the owners
through what changes their arguments (modes, difficulties, masks from the user, states put back,
resets inside steps) and type every call as the dispatcher would."""

import numpy as np
import pytest

from cule_py import AtariEmulator
from cule_py._threads import CompiledCalls
from cule_py.vector import AtariVectorEnv

pytestmark = pytest.mark.usefixtures("checked_calls")


@pytest.fixture
def checked_calls(monkeypatch):
    """Every CompiledCalls call checks its arguments' types against the signature its entry
    was resolved for; returns the kernels called through an entry."""
    checked = set()
    entry = CompiledCalls.entry
    on_threads = CompiledCalls.on_threads

    def check(calls, kernel, args):
        if kernel in calls.signatures:
            assert tuple(kernel.typeof_pyval(a) for a in args) == calls.signatures[kernel], \
                kernel.py_func.__name__
            checked.add(kernel.py_func.__name__)

    def checked_entry(self, kernel, args):
        check(self, kernel, args)
        return entry(self, kernel, args)

    def checked_on_threads(self, count, kernel, args):
        check(self, kernel, (*args, np.zeros(2, np.int64)))
        return on_threads(self, count, kernel, args)

    monkeypatch.setattr(CompiledCalls, "entry", checked_entry)
    monkeypatch.setattr(CompiledCalls, "on_threads", checked_on_threads)
    return checked


def test_emulator_calls_keep_their_types(checked_calls):
    emulator = AtariEmulator("breakout", 4, seed=3, repeat_action_probability=0.25)
    rng = np.random.default_rng(0)
    legal = emulator.minimal_action_set()
    every_other = np.ones(8, np.bool_)[::2]          # a mask that is not C-contiguous
    every_other[1] = False
    for step in range(40):
        emulator.game_over()
        emulator.lives()
        emulator.act(rng.choice(legal, 4).astype(np.uint8), frames=1 + step % 3)
        if step == 10:
            emulator.reset(every_other)
        if step == 15:
            emulator.set_difficulty(1)
            emulator.set_mode(emulator.game.modes[-1])
        if step == 20:
            saved = emulator.clone_state()
        if step == 30:
            emulator.restore_state(saved, mask=every_other)
            emulator.power_cycle(every_other)
    assert {"drive", "games_over", "lives_and_flags"} <= checked_calls


def test_vector_env_calls_keep_their_types(checked_calls):
    env = AtariVectorEnv("breakout", 4, num_threads=2)
    rng = np.random.default_rng(1)
    env.reset(seed=5)
    every_other = np.ones(8, np.bool_)[::2]
    every_other[2] = False
    resets = 0
    for step in range(300):
        _, _, terminated, truncated, _ = env.step(rng.integers(4, size=4))
        resets += int((terminated | truncated).sum())
        if step == 50:
            env.reset(options={"reset_mask": every_other})
    env.close()
    assert resets > 0, "no episode ended: the autoreset launches went untested"
    assert {"agent_step_cpu", "agent_reset_cpu"} <= checked_calls
