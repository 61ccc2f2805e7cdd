"""The GPU's scheduled console loop (kernels/gpu/warp_schedule.py) run on the CPU, a warp of 32
lanes.

numba's CUDA simulator has no warp operations, so it runs console.run_instructions' free loop
and never the GPU's scheduled one. Here the scheduled loop itself, the Python source the GPU
compiles, runs as 32 Python threads, one console each, that meet at every warp minimum (a
barrier; the minimum is then taken over all 32 values, as redux.sync or the butterfly does).
Each console's frame must equal the CPU backend's frame from the same state: the schedule may
change only the order in which lanes step, never a console's results, and the loop must run
every lane to its frame's end before the warp leaves it.
"""

import threading
import types as pytypes

import numpy as np
import pytest

from cule_py.kernels.frame_loop import console as C
from cule_py.kernels import layout as L
from cule_py.kernels.gpu import warp_schedule as W

LANES = 32


class _Warp:
    """32 threads' rendezvous for the warp minimum, and the count of scheduled steps."""

    def __init__(self):
        self.values = np.zeros(LANES, np.int64)
        self.barrier = threading.Barrier(LANES, timeout=120)
        self.lane = threading.local()
        self.rounds = 0
        self.lanes_stepped = 0

    def minimum(self, value):
        lane = self.lane.index
        self.values[lane] = int(value)
        self.barrier.wait()
        lowest = np.int32(self.values.min())
        if lane == 0:
            self.rounds += 1
            self.lanes_stepped += int((self.values == lowest).sum()) if lowest != W.FINISHED else 0
        self.barrier.wait()             # nobody writes the next value before all have read
        return lowest


def _scheduled_frames(rom, scheme, ram, st, fb, monkeypatch):
    """One frame of every console through the GPU's scheduled loop; returns the warp."""
    warp = _Warp()
    scheduled_loop = W._run_instructions_cuda(*[None] * 13)   # the overload's Python function
    monkeypatch.setattr(W, "cuda", pytypes.SimpleNamespace(activemask=lambda: W.ALL_LANES))
    monkeypatch.setattr(W, "warp_minimum", warp.minimum)
    monkeypatch.setattr(C, "run_instructions", scheduled_loop)
    errors = []

    def lane(index):
        warp.lane.index = index
        try:
            with np.errstate(over="ignore"):        # (per thread) numpy scalars wrap as int32s
                C.run_frame(rom, scheme, ram, st, fb, index)
        except BaseException as error:      # a lane that fails must not hang the others
            errors.append(error)
            warp.barrier.abort()

    threads = [threading.Thread(target=lane, args=(i,)) for i in range(LANES)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    return warp


@pytest.mark.slow
def test_scheduled_warp_frame_equals_the_cpu(monkeypatch):
    from cule_py.batch import ConsoleBatch
    from cule_py.kernels.ale import environment as env_kernel

    # decorrelated as tools/gpu_line_profile.py's warp model is: 300 frames of random actions
    batch = ConsoleBatch("space_invaders", LANES, env_seed=3, repeat_action_probability=0.25)
    actions = np.array(batch.game.minimal_actions)
    rng = np.random.default_rng(3)
    for _ in range(300):
        batch.act(actions[rng.integers(0, len(actions), LANES)])
    rom, scheme = batch.rom_bytes, int(batch.scheme)
    ram, st, fb = batch.ram.copy(), batch.state.copy(), batch.frame_buffers.copy()
    st[:, L.GPU_SCHEDULE] = W.SCANLINE
    assert len({bytes(row) for row in ram}) > LANES // 2

    warp = _scheduled_frames(rom, scheme, ram, st, fb, monkeypatch)

    batch._drive(env_kernel.OP_FRAMES, batch._all, batch.difficulty, frames=1)
    st[:, L.GPU_SCHEDULE] = batch.state[:, L.GPU_SCHEDULE]
    np.testing.assert_array_equal(ram, batch.ram)
    np.testing.assert_array_equal(st, batch.state)
    np.testing.assert_array_equal(fb, batch.frame_buffers)
    # The schedule ran lanes together (a round per lane-instruction would be the free loop's
    # worst case) and stopped once every lane had finished, not before.
    instructions = warp.lanes_stepped
    print(f"{warp.rounds} rounds, {instructions} lane-instructions")
    assert warp.rounds < instructions / 2, (warp.rounds, instructions)
