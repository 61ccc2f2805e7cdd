"""device="cuda" end to end on a machine without a GPU: AtariEmulator and AtariVectorEnv built on
the GPU backend's host code (field-major arrays, cached table uploads, launches, the deferred
range check of device actions), with numba's CUDA simulator running the kernels and numpy
standing in for cupy (cule_py.testing.install_fake_cupy), against device="cpu" in the same
child process (three children, run at once: emulator, vector env, asynchronous batches).

What this cannot show: cupy's own behaviour, real launches, speed; the lent-GPU runs do
(tools/gpu_check.py, tools/gpu_runbook). The simulator interprets every emulated instruction
in Python, so the cases are two consoles and a few frames after the power-on and reset sequences.
"""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys
import tempfile
import textwrap

import pytest

import cule_py
from cule_py.testing import SIMULATOR_WAITS

# numba's CUDA simulator in a child process, every emulated instruction in Python: minutes.
pytestmark = [pytest.mark.cuda, pytest.mark.slow]

PRELUDE = textwrap.dedent("""
    from cule_py.testing import install_fake_cupy
    install_fake_cupy()
    import numpy as np
    import cupy
    from numba import cuda
    assert cuda.to_device.__module__.startswith("numba.cuda.simulator")
    import cule_py
    from cule_py.vector import AtariVectorEnv

    def same(a, b, what):
        assert np.array_equal(np.asarray(a), np.asarray(b)), what

""")

# Three children, run at once (the simulator is single-threaded, CI has two cores).
PARTS = {
    "emulator": textwrap.dedent("""
    # AtariEmulator: loadROM, frames with device-array actions and sound, snapshots, a masked
    # reset.
    gpu = cule_py.AtariEmulator("pong", 2, device="cuda", seed=3, repeat_action_probability=0.25,
                                sound=True)
    cpu = cule_py.AtariEmulator("pong", 2, device="cpu", seed=3, repeat_action_probability=0.25,
                                sound=True)
    assert gpu._batch.gpu is not None and cpu._batch.gpu is None
    same(gpu.ram(), cpu.ram(), "ram after loadROM")
    for frame in range(3):
        actions = np.array([frame % 6, 3], np.int64)
        same(gpu.act(cupy.asarray(actions)), cpu.act(actions), f"reward {frame}")
        same(gpu.ram(), cpu.ram(), f"ram {frame}")
        same(gpu.screen(), cpu.screen(), f"screen {frame}")
        same(gpu.screen_grayscale(), cpu.screen_grayscale(), f"grey {frame}")
        same(gpu.lives(), cpu.lives(), f"lives {frame}")
        same(gpu.game_over(), cpu.game_over(), f"game over {frame}")
        same(gpu.frame_number(), cpu.frame_number(), f"frame number {frame}")
        same(gpu.sound(), cpu.sound(), f"sound {frame}")
    snapshot = gpu.clone_state()
    gpu.act(np.array([1, 1]))
    gpu.restore_state(snapshot)
    same(gpu.ram(), cpu.ram(), "ram after restore")
    mask = np.array([True, False])
    gpu.reset(mask)
    cpu.reset(mask)
    same(gpu.ram(), cpu.ram(), "ram after masked reset")
    same(gpu.screen(), cpu.screen(), "screen after masked reset")
    # States cross devices: the GPU's bytes onto a fresh CPU batch, the CPU's state onto the GPU.
    other = cule_py.AtariEmulator("pong", 2, device="cpu", seed=9)
    other.restore_state(cule_py.EmulatorState(gpu.clone_state().serialize()))
    actions = np.array([2, 3], np.int64)
    same(other.act(actions), gpu.act(cupy.asarray(actions)), "reward, the GPU's state on the CPU")
    same(other.ram(), gpu.ram(), "ram, the GPU's state run on on the CPU")
    same(other.screen(), gpu.screen(), "screen, the GPU's state run on on the CPU")
    gpu.restore_state(cpu.clone_state())
    assert gpu.clone_state() == cpu.clone_state(), "the CPU's state on the GPU"
    # An out-of-range id on the device is not read back at once: that call (once the GPU has
    # caught up, always here) or the next one reports it.
    try:
        gpu.act(cupy.asarray(np.array([0, 99])))
        gpu.act(cupy.asarray(np.array([0, 0])))
    except ValueError as err:
        assert "out of range" in str(err), err
    else:
        raise AssertionError("a device action 99 was never reported")
    print("emulator ok", flush=True)
    """),
    "vector": textwrap.dedent("""
    # AtariVectorEnv: seeded reset (power-on, noops, fire), steps, a truncation and NextStep's
    # autoreset beside the step, its blocks sized as for 2 consoles on an H100 (own_sm_threads:
    # the simulator has no SMs or registers to ask).
    from cule_py.kernels.agent import agent_step as K
    kw = dict(repeat_action_probability=0.25, noop_max=3, max_num_frames_per_episode=8)
    g = AtariVectorEnv("pong", 2, device="cuda", **kw)
    c = AtariVectorEnv("pong", 2, device="cpu", **kw)
    g._gpu.device_limits = lambda: (132, 65536)
    g._gpu.kernel_limits = lambda kernel: (255, 256)
    reset_blocks, launch = [], g._gpu.launch
    def recording(kernel, consoles, *args, threads_per_block=None):
        if kernel is K.agent_reset_cuda:
            reset_blocks.append(threads_per_block)
        launch(kernel, consoles, *args, threads_per_block=threads_per_block)
    g._gpu.launch = recording
    og, ig = g.reset(seed=5)
    oc, ic = c.reset(seed=5)
    same(og, oc, "obs after reset")
    truncated = []
    for k in range(3):
        actions = np.array([k % 6, 2], np.int64)
        rg = g.step(cupy.asarray(actions) if k else actions)
        rc = c.step(actions)
        for x, y, what in zip(rg[:4], rc[:4], ("obs", "reward", "terminated", "truncated")):
            same(x, y, f"{what} {k}")
        for key in rc[4]:
            same(rg[4][key], rc[4][key], f"info {key} {k}")
        truncated.append(bool(rc[3].all()))
    assert truncated == [False, True, False], truncated     # step 2: both consoles reset
    # reset(): the batch's blocks; each step's autoreset launch: blocks that need a whole SM
    assert reset_blocks == [None, 256, 256, 256], reset_blocks
    print("vector ok", flush=True)
    """),
    "async": textwrap.dedent("""
    # Asynchronous batches (the GPU's send path with console ids), episode statistics, render;
    # the step kernel capped at 128 registers (the simulator ignores the cap, not the launch).
    import os
    from cule_py.kernels.agent import agent_step as K
    kw = dict(batch_size=1, episode_statistics=True, noop_max=0, render_mode="rgb_array",
              max_num_frames_per_episode=8)
    os.environ["CULE_PY_GPU_STEP_REGISTERS"] = "128"
    g = AtariVectorEnv("pong", 2, device="cuda", **kw)
    assert g._step_kernel is K.agent_step_cuda_capped, g._step_kernel
    c = AtariVectorEnv("pong", 2, device="cpu", **kw)
    og, ig = g.reset(seed=1)
    oc, ic = c.reset(seed=1)
    same(og, oc, "async obs after reset")
    same(ig["env_id"], ic["env_id"], "async env_id after reset")
    for k in range(3):
        rg = g.step(np.array([k % 2], np.int64))
        rc = c.step(np.array([k % 2], np.int64))
        for x, y, what in zip(rg[:4], rc[:4], ("obs", "reward", "terminated", "truncated")):
            same(x, y, f"async {what} {k}")
        for key in ("env_id", "lives", "frame_number", "episode_frame_number", "_episode"):
            same(rg[4][key], rc[4][key], f"async info {key} {k}")
        for key in ("r", "l"):
            same(rg[4]["episode"][key], rc[4]["episode"][key], f"async episode {key} {k}")
    same(g.render_frames([1, 0]), c.render_frames([1, 0]), "render_frames")
    print("async ok", flush=True)
    """),
}


@pytest.mark.skipif(sys.platform == "win32", reason="the child process setup is POSIX-only")
def test_gpu_backend_under_the_simulator_equals_cpu():
    root = str(pathlib.Path(cule_py.__file__).resolve().parents[1])
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    logs = {name: tempfile.TemporaryFile("w+") for name in PARTS}
    children = {name: subprocess.Popen([sys.executable, "-c", SIMULATOR_WAITS + PRELUDE + part],
                                       env=env, stdout=logs[name], stderr=subprocess.STDOUT,
                                       text=True)
                for name, part in PARTS.items()}
    for name, child in children.items():
        child.wait(timeout=1500)
        logs[name].seek(0)
        out = logs[name].read()
        assert child.returncode == 0, f"simulated GPU backend ({name}) failed:\n{out}"
        assert f"{name} ok" in out, out
