"""cule_py against ale-py, and where a figure was measured: what the tests, tools and benchmarks
share, in one importable place (`pip install -e .` makes it importable from anywhere).

ALE twins. An ALE twin is an `ale_py.ALEInterface` set up as cule_py sets up a console:
`ale_twin` builds one (random_seed, repeat_action_probability, max_num_frames_per_episode and
frame_skip before loadROM, then setMode / setDifficulty where given), `ale_twins` one per console
of an `AtariEmulator` (console i has random_seed seed + i), `ale_twin_with_log` one with ALE's
load log captured (md5, detected scheme, TV format: what ale-py says about a ROM).

Comparisons. Each returns None where everything agrees, else a description of the first
difference (`check_*` raise AssertionError with it instead):

    emulator_difference(emulator, ales)    AtariEmulator against its twins: RAM, screen, reward,
                                           lives, game over, terminal, truncated, frame counters
    batch_difference(batch, ales)          ConsoleBatch against its twins: RAM and screen
    vector_step_difference(ours, theirs)   one reset() or step() of two vector envs: obs,
                                           rewards, terminated, truncated, info counters
    play_emulator(...), play_batch(...)    random actions held 1-8 frames, resets at game over
                                           and at random, compared after every frame and reset

Stand-in. `install_fake_cupy()` puts numpy dressed as cupy into sys.modules (the GPU backend's
host code under numba's CUDA simulator, or offline CUDA compiles).

Machine. `machine()` describes this machine and the versions in use (a dict), `machine_line()`
in one line, as the benchmarks print it.

The oracle facts that tests derive from ALE's log (tests/ale_oracle.py) and the table that
tools/survey_games.py writes from it are parsed separately on purpose; only the loading is shared.
"""

from __future__ import annotations

import os
import platform
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]      # the checkout, where cule_py is imported from one

# -- ALE twins ------------------------------------------------------------------------------------


def _rom_file(rom) -> str:
    """A path as it is (ALE goes by its file name and md5), a rom id to ale-py's ROM file."""
    from .roms import _looks_like_path, rom_path

    if isinstance(rom, os.PathLike) or (isinstance(rom, str) and _looks_like_path(rom)):
        return os.fspath(rom)
    return str(rom_path(rom))


def ale_twin(rom, seed: int = 0, *, repeat_action_probability: float = 0.0,
             max_num_frames_per_episode: int = 0, frame_skip: int = 1, mode: int | None = None,
             difficulty: int | None = None):
    """A fresh `ale_py.ALEInterface` (settings persist across loadROM, so never reused) with
    `rom` loaded as cule_py loads it: ALE's logger at errors only; random_seed `seed`, the
    sticky probability, the frame budget (0: none) and frame_skip (1: one frame per act, as
    `AtariEmulator.act`) before loadROM, whose own reset_game plays the default mode; then
    setMode / setDifficulty where given (a mode takes effect at the next reset_game, as in
    `AtariEmulator`). `rom`: a rom id ("pong") or the path of a ROM file."""
    import ale_py

    ale_py.ALEInterface.setLoggerMode(ale_py.LoggerMode.Error)
    ale = ale_py.ALEInterface()
    ale.setInt("random_seed", int(seed))
    ale.setFloat("repeat_action_probability", float(repeat_action_probability))
    ale.setInt("max_num_frames_per_episode", int(max_num_frames_per_episode))
    ale.setInt("frame_skip", int(frame_skip))
    ale.loadROM(_rom_file(rom))
    if mode is not None:
        ale.setMode(mode)
    if difficulty is not None:
        ale.setDifficulty(difficulty)
    return ale


def ale_twins(emulator, *, repeat_action_probability: float = 0.0,
              max_num_frames_per_episode: int = 0, mode: int | None = None,
              difficulty: int | None = None) -> list:
    """One ALE twin per console of an `AtariEmulator`, console i's with random_seed seed + i.
    The settings are given again here, not read from the emulator under test."""
    return [ale_twin(emulator._batch.rom.path, emulator.seed + i,
                     repeat_action_probability=repeat_action_probability,
                     max_num_frames_per_episode=max_num_frames_per_episode, mode=mode,
                     difficulty=difficulty) for i in range(emulator.num_envs)]


def ale_twin_with_log(rom, seed: int = 0):
    """(twin, ALE's Info log of its loadROM): md5, detected bank-switching scheme, TV format,
    cart name. The log is captured at the file-descriptor level (ALE's C++ logger writes past
    sys.stdout); the logger is back at errors only afterwards."""
    import ale_py

    sys.stdout.flush()
    sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    with tempfile.TemporaryFile() as sink:
        os.dup2(sink.fileno(), 1)
        os.dup2(sink.fileno(), 2)
        try:
            ale_py.ALEInterface.setLoggerMode(ale_py.LoggerMode.Info)
            ale = ale_py.ALEInterface()
            ale.setInt("random_seed", int(seed))
            ale.setFloat("repeat_action_probability", 0.0)
            ale.loadROM(_rom_file(rom))
        finally:
            ale_py.ALEInterface.setLoggerMode(ale_py.LoggerMode.Error)
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            os.close(saved[0])
            os.close(saved[1])
        sink.seek(0)
        return ale, sink.read().decode("latin-1")


# -- comparisons ----------------------------------------------------------------------------------


def _ram_and_screen(ram, expected_ram, screen, expected_screen) -> list[str]:
    found = []
    bytes_ = np.flatnonzero(np.asarray(ram) != np.asarray(expected_ram))
    if len(bytes_):
        found.append("RAM differs at " + " ".join(f"${0x80 + b:02X}" for b in bytes_[:8])
                     + (" ..." if len(bytes_) > 8 else ""))
    if screen.shape != expected_screen.shape:
        found.append(f"screen shape {screen.shape} vs {expected_screen.shape}")
    elif (pixels := int(np.count_nonzero(screen != expected_screen))):
        found.append(f"{pixels} pixels differ")
    return found


def emulator_difference(emulator, ales, rewards=None, ale_rewards=None) -> str | None:
    """The first console of an `AtariEmulator` that differs from its twin in RAM, screen,
    reward (when given), lives, game over, terminal, truncated or the frame counters."""
    ram, screen = emulator.ram(), emulator.screen()
    lives, over, truncated = emulator.lives(), emulator.game_over(), emulator.truncated()
    terminal = emulator.game_over(with_truncation=False)
    frames, episode = emulator.frame_number(), emulator.episode_frame_number()
    for i, ale in enumerate(ales):
        found = _ram_and_screen(ram[i], ale.getRAM(), screen[i], ale.getScreen())
        if rewards is not None and rewards[i] != ale_rewards[i]:
            found.append(f"reward {rewards[i]} vs {ale_rewards[i]}")
        if lives[i] != ale.lives():
            found.append(f"lives {lives[i]} vs {ale.lives()}")
        if over[i] != ale.game_over():
            found.append(f"game over {over[i]} vs {ale.game_over()}")
        if terminal[i] != ale.game_over(with_truncation=False):
            found.append(f"terminal {terminal[i]} vs {ale.game_over(with_truncation=False)}")
        if truncated[i] != ale.game_truncated():
            found.append(f"truncated {truncated[i]} vs {ale.game_truncated()}")
        if (frames[i], episode[i]) != (ale.getFrameNumber(), ale.getEpisodeFrameNumber()):
            found.append(f"frame counters {frames[i]}, {episode[i]} vs {ale.getFrameNumber()}, "
                         f"{ale.getEpisodeFrameNumber()}")
        if found:
            return f"console {i}: " + "; ".join(found)
    return None


def batch_difference(batch, ales) -> str | None:
    """The first console of a `cule_py.batch.ConsoleBatch` whose RAM or screen differs from its
    twin's."""
    screens = batch.screen()
    for i, ale in enumerate(ales):
        found = _ram_and_screen(batch.ram[i], ale.getRAM(), screens[i], ale.getScreen())
        if found:
            return f"console {i}: " + "; ".join(found)
    return None


def check_emulator(emulator, ales, where: str, rewards=None, ale_rewards=None) -> None:
    """AssertionError naming the game, `where` and the difference, if there is one."""
    diff = emulator_difference(emulator, ales, rewards, ale_rewards)
    if diff:
        raise AssertionError(f"{emulator.game.rom_id} {where}: {diff}")


def check_batch(batch, ales, where: str) -> None:
    diff = batch_difference(batch, ales)
    if diff:
        raise AssertionError(f"{batch.game.rom_id} ({batch.rom.scheme}) {where}: {diff}")


VECTOR_OUTPUTS = ("obs", "rewards", "terminated", "truncated")
VECTOR_INFO = ("env_id", "lives", "frame_number", "episode_frame_number")


MACHINE_PARTS = ("state", "memory", "logic", "frame buffers", "sticky RNG")


def machine_difference(a, b) -> str | None:
    """Where two of our vector envs' consoles differ (state rows, RAM, game logic, both screen
    buffers, the sticky-action RNG; read on the host), or None: for checks that a shortcut (lazy
    drawing, the reset table) leaves every console as the plain path does."""
    for name, x, y in zip(MACHINE_PARTS, _machine(a), _machine(b)):
        bad = np.argwhere(x != y)
        if len(bad):
            return f"{name} differs at {bad[:4].tolist()}"
    return None


def _machine(env) -> tuple:
    b = env._batch
    return tuple(b.host(a) for a in (b.state, b.memory, b.logic, b.frame_buffers, b.env_rng))


def vector_step_difference(ours, theirs, info_keys=VECTOR_INFO) -> str | None:
    """What differs between two vector envs' `reset()` (obs, info) or `step()` (obs, rewards,
    terminated, truncated, info) results: shapes, dtypes and values of the arrays (the first
    differing indices), then the info entries `info_keys` that `theirs` has."""
    for name, a, b in zip(VECTOR_OUTPUTS, ours[:-1], theirs[:-1]):
        a, b = np.asarray(a), np.asarray(b)
        if a.shape != b.shape or a.dtype != b.dtype:
            return f"{name}: {a.shape} {a.dtype} vs {b.shape} {b.dtype}"
        bad = np.argwhere(a != b)
        if len(bad):
            return f"{name} differs at {bad[:4].tolist()}"
    for key in info_keys:
        if key not in theirs[-1]:
            continue
        if key not in ours[-1]:
            return f"info[{key!r}] missing"
        a, b = np.asarray(ours[-1][key]), np.asarray(theirs[-1][key])
        if not np.array_equal(a, b):
            return f"info[{key!r}]: {a.tolist()} vs {b.tolist()}"
    return None


@dataclass
class Played:
    """What `play_emulator` saw: the first difference (None: none), frames per console played,
    consoles reset, total |reward| (a run without rewards or resets shows little)."""

    difference: str | None
    frames: int
    resets: int
    rewards: int


def play_emulator(emulator, ales, frames: int, rng, *, reset_chance: float = 0.002,
                  action_dtype=np.int64) -> Played:
    """Random actions from the minimal set, each held 1-8 frames per console, on an
    `AtariEmulator` and its twins; a console resets at game over and with `reset_chance` per
    frame. Everything is compared after every frame and every reset; the first difference ends
    the run. `rng`: a numpy Generator (the actions and resets)."""
    n = emulator.num_envs
    actions = emulator.minimal_action_set()
    current = np.zeros(n, np.int64)
    held = np.zeros(n, np.int64)
    resets = rewarded = 0
    for frame in range(1, frames + 1):
        fresh = held == 0
        current[fresh] = actions[rng.integers(len(actions), size=int(fresh.sum()))]
        held[fresh] = rng.integers(1, 9, size=int(fresh.sum()))
        held -= 1
        rewards = emulator.act(current.astype(action_dtype))
        ale_rewards = [ale.act(int(current[i])) for i, ale in enumerate(ales)]
        rewarded += int(np.abs(rewards).sum())
        if (diff := emulator_difference(emulator, ales, rewards, ale_rewards)):
            return Played(f"frame {frame}: {diff}", frame, resets, rewarded)
        resetting = emulator.game_over() | (rng.random(n) < reset_chance)
        if resetting.any():
            emulator.reset(resetting)
            for i in np.nonzero(resetting)[0]:
                ales[i].reset_game()
                held[i] = 0
            resets += int(resetting.sum())
            if (diff := emulator_difference(emulator, ales)):
                return Played(f"reset of {np.flatnonzero(resetting).tolist()} after frame "
                              f"{frame}: {diff}", frame, resets, rewarded)
    return Played(None, frames, resets, rewarded)


def play_batch(batch, ales, frames: int, seed: int, *, reset_chance: float = 0.002) -> None:
    """A `ConsoleBatch` and its twins from loadROM: compared, reset_game, compared, then
    `frames` frames of random minimal-set actions held 1-8 frames per console, resets at game
    over and with `reset_chance`, compared after every frame and reset (`check_batch`)."""
    check_batch(batch, ales, "after loadROM")
    for ale in ales:
        ale.reset_game()
    batch.reset()
    check_batch(batch, ales, "after reset_game")
    rng = np.random.default_rng(seed)
    actions = np.array([int(a) for a in batch.game.minimal_actions])
    n = batch.num_envs
    current = np.zeros(n, np.int64)
    held = np.zeros(n, np.int64)
    for frame in range(1, frames + 1):
        for env in range(n):
            if held[env] == 0:
                current[env] = actions[rng.integers(len(actions))]
                held[env] = rng.integers(1, 9)
            held[env] -= 1
        batch.act(current)
        for env, ale in enumerate(ales):
            ale.act(int(current[env]))
        check_batch(batch, ales, f"frame {frame}")
        # ALE's act() emulates nothing once the game is over: reset such a console at once.
        resetting = np.array([ale.game_over() or rng.random() < reset_chance for ale in ales])
        if resetting.any():
            for env in np.nonzero(resetting)[0]:
                ales[env].reset_game()
                held[env] = 0
            batch.reset(resetting)
            check_batch(batch, ales, f"reset of {np.nonzero(resetting)[0]} after frame {frame}")


# -- numpy dressed as cupy ------------------------------------------------------------------------


class _FakeStream:
    """A stream on which everything has already happened (numpy runs at once)."""

    ptr = 0

    def __init__(self, *args, **kwargs):
        pass

    def synchronize(self):
        pass

    def record(self, event=None):
        return event or _FakeEvent()

    def wait_event(self, event):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class _FakeEvent:
    def __init__(self, *args, **kwargs):
        self.done = True

    def record(self, stream=None):
        pass

    def synchronize(self):
        pass


class _FakeDevice:
    def __init__(self, index=0):
        self.id = index

    def use(self):
        pass

    def synchronize(self):
        pass


class _FakeDeviceArray(np.ndarray):
    """What the stand-in's cupy.asarray returns: a numpy array that says it lives on a GPU, so
    that code telling host from device arrays (by the CUDA array interface) takes its device
    path."""

    @property
    def __cuda_array_interface__(self):
        return {"shape": self.shape, "typestr": self.dtype.str, "version": 3,
                "data": (self.ctypes.data, False), "strides": self.strides}

    def get(self):
        return np.array(self)


def _fake_asarray(a, dtype=None):
    return np.asarray(a, dtype).view(_FakeDeviceArray)


def _fake_asnumpy(a, stream=None, order="C", out=None, blocking=True):
    if out is None:
        return np.array(a, order=order)
    out[...] = a
    return out


def install_fake_cupy() -> None:
    """Put numpy dressed as cupy (and cupyx) into sys.modules, for running the GPU backend's host
    code without a GPU: under numba's CUDA simulator (tests/test_gpu_backend_simulated.py), or to
    type the CUDA kernels' launch arguments for an offline compile (tools/gpu_precompile.py).
    Only what cule_py calls is there. cule_py imports cupy only when a GPU batch is made, so
    this may run after `import cule_py`, but before any device="cuda" object exists."""
    import types

    cupy = types.ModuleType("cupy")
    for name in dir(np):
        if not name.startswith("__"):
            setattr(cupy, name, getattr(np, name))
    cupy.asnumpy = _fake_asnumpy
    cupy.asarray = _fake_asarray
    cupy.from_dlpack = np.from_dlpack
    cupy.cuda = types.SimpleNamespace(Stream=_FakeStream, Event=_FakeEvent, Device=_FakeDevice,
                                      get_current_stream=lambda: _FakeStream())
    cupy.__version__ = "fake (numpy)"
    cupyx = types.ModuleType("cupyx")
    cupyx.empty_pinned = lambda shape, dtype=float: np.empty(shape, dtype)
    sys.modules["cupy"] = cupy
    sys.modules["cupyx"] = cupyx


# Source that a child process under the simulator runs first (tests and tools prepend it).
SIMULATOR_WAITS = "from cule_py.testing import install_simulator_waits\ninstall_simulator_waits()\n"


def install_simulator_waits() -> None:
    """Make numba's CUDA simulator wait between its checks on a block's threads.

    The simulator runs each CUDA thread as a Python thread, and its block manager polls them
    in a loop that never sleeps, taking the GIL from the thread that emulates a console. This
    wait costs a thread blocked at syncthreads() under a millisecond and leaves the GIL to the
    emulation (docs/performance-log.md, "2026-11-29 (CI)", has the times). The simulator's
    results are unchanged; syncthreads() and its behaviour on an exception (the other threads
    aborted, the exception raised) are kept.
    Call it in the process that runs the simulator, before the first launch; a numba-cuda whose
    block manager lacks the fields read below keeps its own loop."""
    import time

    from numba.cuda.simulator import kernel as simulated

    manager, thread_type = simulated.BlockManager, simulated.BlockThread
    fields = set(manager.__init__.__code__.co_names) | set(thread_type.__init__.__code__.co_names)
    if getattr(manager.run, "waits", False) or not {
            "_f", "_block_dim", "_debug", "syncthreads_event", "syncthreads_blocked"} <= fields:
        return

    def run(self, grid_point, *args):
        threads = [thread_type(lambda: self._f(*args), self, grid_point, point, self._debug)
                   for point in np.ndindex(*self._block_dim)]
        for thread in threads:
            thread.start()
        live = threads
        while live:
            time.sleep(0.0005)
            failed = next((t for t in live if t.exception), None)
            if failed is not None:
                for thread in threads:
                    thread.abort = True
                    thread.syncthreads_blocked = False
                    thread.syncthreads_event.set()
                raise failed.exception[0].with_traceback(failed.exception[1])
            if all(t.syncthreads_blocked for t in live):      # every thread at syncthreads()
                for thread in live:
                    thread.syncthreads_blocked = False
                    thread.syncthreads_event.set()
            live = [t for t in live if t.is_alive()]
        for thread in threads:
            if thread.exception:
                raise thread.exception[0].with_traceback(thread.exception[1])

    run.waits = True
    manager.run = run


# -- the machine ----------------------------------------------------------------------------------

PACKAGES = ("numpy", "numba", "numba_cuda", "cupy", "ale_py", "gymnasium", "torch")


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def usable_cpus() -> int:
    """CPUs this process may run on (its affinity), where the OS says; else all of them."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:      # macOS, Windows
        return os.cpu_count() or 1


def commit(repo: Path = REPO) -> str | None:
    """The checkout's commit (12 hex digits), read from .git without git (a GPU machine gets
    a copy of the tree, .git included, and may have no git); None outside a checkout."""
    try:
        ref = (repo / ".git" / "HEAD").read_text().strip()
        if ref.startswith("ref: "):
            path = repo / ".git" / ref[5:]
            if path.exists():
                return path.read_text().strip()[:12]
            for line in (repo / ".git" / "packed-refs").read_text().splitlines():
                if line.endswith(ref[5:]):
                    return line.split()[0][:12]
        return ref[:12]
    except OSError:
        return None


def machine(packages=PACKAGES, gpu: bool = False) -> dict:
    """Where a figure was measured: host, CPU model, logical CPUs (all, and usable by this
    process), numba's thread count, OS, Python, the commit, the versions of `packages` (None:
    not installed) and, with `gpu` where one is present, the GPU's name, memory, SMs, compute
    capability and CUDA versions."""
    import numba

    info = {"host": platform.node(), "cpu": _cpu_model(), "arch": platform.machine(),
            "system": platform.system(), "cpu_count": os.cpu_count(),
            "usable_cpus": usable_cpus(), "numba_threads": numba.config.NUMBA_NUM_THREADS,
            "python": platform.python_version(), "commit": commit(), "gpu": None}
    for name in packages:
        try:
            info[name] = getattr(__import__(name), "__version__", "?")
        except Exception:  # noqa: BLE001 - absent (or broken) is an answer too
            info[name] = None
    if gpu:
        from ._device import gpu_available

        if gpu_available():
            import cupy as cp

            props = cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)
            info["gpu"] = props["name"].decode()
            info["gpu_memory_gib"] = round(props["totalGlobalMem"] / 2**30, 1)
            info["sm_count"] = props["multiProcessorCount"]
            info["compute_capability"] = f"{props['major']}.{props['minor']}"
            info["cuda_runtime"] = cp.cuda.runtime.runtimeGetVersion()
            info["cuda_driver"] = cp.cuda.runtime.driverGetVersion()
    return info


def machine_line(threads: int | None = None) -> str:
    """`machine: <CPU>, N logical CPUs (M usable), numba threads T, python X, numba Y`;
    `threads` overrides numba's thread count where a benchmark sets its own."""
    m = machine(packages=("numba",))
    usable = "" if m["usable_cpus"] == m["cpu_count"] else f" ({m['usable_cpus']} usable)"
    return (f"machine: {m['cpu']}, {m['cpu_count']} logical CPUs{usable}, numba threads "
            f"{threads or m['numba_threads']}, python {m['python']}, numba {m['numba']}")
