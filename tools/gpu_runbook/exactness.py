"""Runbook stage "exactness with resets" (issue 23, point 2): the GPU backend against the CPU
backend over many frames, forced resets and episodic life included, in the time a lent GPU gives.

Two modes, each game one *job* (a spec, saved with its results so that the other side replays it):

* emulator: every supported game (sorted rom ids of cule_py.games.GAMES whose scheme is in
  kernels.cartridges.cart.SCHEME_IDS and whose rom id is in kernels.ale.game_logic.IMPLEMENTED; 104
  today) on `cule_py.AtariEmulator`, sticky actions 0.25, random legal actions held 1-8 frames (the
  schedule of tools/gpu_check.py), full scale 64 consoles x 200 frames. After every frame each
  console folds five values into running digests d <- d * M + v (mod 2**64): the hash of its RAM,
  the hash of its screen, its reward, lives and game-over flag. Resets: every `reset_every`
  frames the consoles at game over, and at host-chosen frames (a seeded RNG both sides share,
  about one frame in a hundred) a host-chosen eighth of the consoles, whatever their state.
* vector: ten games (VECTOR_GAMES: 2K, 4K, F8, E0, DPC and F8SC schemes) on
  `cule_py.vector.AtariVectorEnv(autoreset_mode="Disabled" or, every other game, "NextStep",
  episodic_life=True, repeat_action_probability=0.25)`, v5 defaults otherwise (frameskip 4, noop starts, fire reset,
  84x84 grayscale stack of 4), random actions, full scale 256 consoles x 200 agent steps (800
  frames). Each step folds the hash of the observation, reward, terminated, truncated and lives;
  every `reset_every` steps (staggered across games by `reset_offset`) the env is reset with
  options={"reset_mask": terminated or truncated since the last reset, or forced (a host-chosen
  sixteenth of the consoles)}, and the observation the reset returns is folded too (reward,
  terminated, truncated 0). Breakout runs three times: the second and third jobs launch the step
  kernel capped at 128 and at 64 registers (`step_registers`, CULE_PY_GPU_STEP_REGISTERS; full
  scale only).

Every `checkpoint_every` units (100 frames: 100 emulator frames or 25 agent steps) the (5,
consoles) running digests, the reset count and the distinct RAM (observation) hashes of that
frame are copied back. `run_stage` writes one JSON line per job to
results_dir/exactness_<cuda|cpu>.jsonl as soon as the job ends (status complete, partial: the time
limit came first, error, or not_reached); `compare` replays every job on the CPU backend for the
units the device side completed and writes results_dir/exactness_compare.csv.

Why the old digest mode of tools/gpu_check.py crawled on the H100 (100+ games: 1-34 frames each
in 535 s; Boxing alone: not 200 frames in 370 s, where the per-game trace path ran 250 frames of
256 consoles in 3-25 s), read from the code; no GPU was at hand to measure, and the cause is not
established:

* One host thread and one stream per game. numba-cuda loads a kernel's module into the context
  lazily and unguarded (codegen.CUDACodeLibrary.get_cufunc): two threads launching first raced
  ("key already in dictionary"). 100+ threads share one GIL for every launch and cupy call.
* 100+ streams on CUDA_DEVICE_MAX_CONNECTIONS hardware queues (8 unless set): streams sharing a
  queue serialise behind each other's 50-100 ms drive launches, so "concurrent" games ran largely
  one after another, each frame's ~20 small kernels waiting behind other games' frames.
* No bound on run-ahead and nothing read back before the end: the host queued every frame at
  once (its deadline measured the host, not the GPU), so a time limit could not cut the GPU work
  short, and a command stopped at its limit kept nothing: "did not finish" could not say how far
  the GPU had got.
* Not explained by the code: one game alone (Boxing) at > 1.85 s a frame, against ~0.1 s a frame
  in the trace path (main thread, legacy default stream, a host sync every frame). The per-frame
  work is the same in both (no per-frame uploads, compiles or Python-int folding; hashes over
  C-contiguous copies); what differs is the worker thread and the non-blocking stream.

What this stage does instead:

1. ONE host thread issues the units, jobs interleaved round-robin (one unit per job per pass),
   at most `slots` (32) at a time, each slot with its own non-blocking cupy stream (cule_py
   launches on cupy's current stream, which is per host thread), reused by the slot's next job.
   Job starts, which wait for their own construction, run in START_THREADS threads beside it
   (on the GPU; see run_jobs). CUDA_DEVICE_MAX_CONNECTIONS is set to 32 when
   this module is imported; it counts only if no CUDA context exists yet, so the runbook should
   export it before Python starts (device.sh). CULE_PY_EXACTNESS_STREAMS=null puts every job on
   the legacy default stream instead (the trace path's arrangement, serial on the GPU), and
   CULE_PY_EXACTNESS_SLOTS changes `slots`: knobs for the next session if this arrangement is
   slow too. Every row has the job's GPU seconds per unit (timing events between checkpoints).
2. No host sync after a job's start in the emulator mode. `AtariEmulator.reset` reads the
   system-RNG positions and the mode-selection flags back (ConsoleBatch._reset_game), so each call
   would wait for its game's stream and then for its reset_game kernel (70+ frames, ~0.5 s on the
   H100): resets of many games one after another. GpuBackend.reset_emulator instead makes
   exactly the kernel call `reset` makes (drive_cuda, OP_RESET_GAME, the same arguments) with the
   mask computed on the device (game over | a row of the forced-reset schedule, uploaded once
   with the action schedule), the mode-selection flag cleared on the device, and the system-RNG
   table grown at the job's start for every reset its schedule can make. The CPU side calls the
   public `AtariEmulator.reset`, so `compare` also checks the two reset paths against each other.
3. Vector resets through the public API, on a cadence. AtariVectorEnv.reset syncs whatever the
   mask (a device mask is read to the host; after the reset kernel `_resume_short_resets`, the
   system-RNG headroom and the mode check read state back: the host waits for the reset kernel).
   So each game resets every `reset_every` = 50 steps (staggered across the ten games by
   `reset_offset`), with a host mask: the consoles terminated or truncated since its last reset
   (accumulated on the device, copied into pinned memory asynchronously) or forced. The reset is
   issued only once that game's stream has drained (the scheduler feeds the other jobs
   meanwhile), so the host waits about one reset kernel per call, ~100 calls at full scale, while
   the other streams work off what is queued on them.
4. Bounded run-ahead and a landing record: every unit records an event, a job has at most
   `ahead` units in flight (24 frames, 6 steps: ~1-2 s of GPU work, enough to cover the host's
   waits in job starts and vector resets), checkpoints come back by asynchronous copies into
   pinned memory, and a row reports what has landed. When no job can issue, the host polls the
   oldest event in flight, never past the stop time.

What can still be slow on the GPU: the emulation itself (one divergent warp ~50-100 ms a frame on
the kernels measured so far: a 64-console game's 500 frames take 25-50 s however few its consoles);
job starts (AtariEmulator / AtariVectorEnv construction syncs: power-on's 60 frames and a
reset_game, ~1-2 s of host wait per job, 114 jobs); vector resets (above); reset_game kernels in the
emulator mode (~14 launches a job, ~5 forced; ~0.5 s of GPU each that resets a console, beside other
streams); cupy's first-use compiles on a cold cupy cache (~20 small kernels, once). Estimate at
50-100 ms a warp-frame, if the 32 queues run side by side: emulator 104 jobs x (25-50 s of frames +
~5 s of resets) over 22 slots ~ 150-270 s, and the host issuing ~52,000 frames (~0.5-1 ms each) plus
~104 starts (~1-2 s each) ~ 130-260 s beside it; vector 10 jobs x 500 steps (~0.2-0.4 s each) + ~10
resets ~ 110-210 s, all ten at once from the start. About 200-300 s in all; with 8 queues (the
variable not taking effect) the emulator mode would take ~2.5x longer and end in partial and
not_reached rows, which the next command resumes. One game after another would be ~70 minutes.
Measured on an H200 (2026-11-26, 500 frames / steps a job): emulator jobs 52-134 s for 500
frames (0.1-0.27 s a frame, 32 jobs at a time), the vector jobs 900-1,100 of their 2,000 frames
in 190 s; 44 of 114 jobs reached in 200 s. Hence 200 frames / 200 steps a job since.

Both sides run the same job code (EmulatorJob, VectorJob) through a backend: CpuBackend (numpy,
no streams, events that are always done) or GpuBackend (cupy, one stream per slot, events, pinned
copies, the device reset). `compare` with device="cpu" results is the dry run of the plumbing.
The CPU side on the 2-core development VM (idle): Pong at 64 consoles x 500 frames 2.6 s, Breakout's
vector job 15 s per 100 of its 500 steps, so a full compare takes roughly 20-30 minutes (it keeps
rows whose device row has not changed, so it can be stopped and run again). The tiny scale: 5-12 s
for run_stage and as much for compare, kernels cached.

    python -m tools.gpu_runbook.exactness run --device cuda --scale full --time-limit 450 DIR
    python -m tools.gpu_runbook.exactness compare DIR
"""

from __future__ import annotations

import collections
import concurrent.futures
import contextlib
import csv
import dataclasses
import hashlib
import json
import os
import pathlib
import sys
import time
import zlib

os.environ.setdefault("CUDA_DEVICE_MAX_CONNECTIONS", "32")

import numpy as np  # noqa: E402

from cule_py import settings  # noqa: E402

from .common import environment  # noqa: E402
from .digests import Hasher, action_schedule, as_u64, decode_u64, encode_u64, fold  # noqa: E402

MODES = ("emulator", "vector")
FIELDS = {"emulator": ("ram", "screen", "reward", "lives", "game_over"),
          "vector": ("obs", "reward", "terminated", "truncated", "lives")}
VECTOR_GAMES = ("pong", "breakout", "space_invaders", "ms_pacman", "seaquest", "boxing",
                "montezuma_revenge", "pitfall2", "riverraid", "elevator_action")
SEED = 11
RESULT_FILES = {"cuda": "exactness_cuda.jsonl", "cpu": "exactness_cpu.jsonl"}
COMPARE_CSV = "exactness_compare.csv"
CSV_FIELDS = ["game", "mode", "consoles", "frames", "frames_target", "result",
              "first_bad_checkpoint", "first_bad_frame", "fields", "consoles_differing",
              "resets", "distinct_ram_last", "device_status", "device_seconds", "cpu_seconds",
              "note", "key"]

# units: emulator frames or agent steps; checkpoint_every, reset_every in units; ahead: units a
# job may have in flight on the GPU.
SCALES = {
    "full": {
        # Sized for 240 s (15 minutes of device time per session): a 64-console job ran 0.1-0.25 s
        # a frame on the H200, 32 jobs at a time; 500 frames per game reached 44 of 114 jobs.
        "emulator": dict(games=None, consoles=64, units=200, checkpoint_every=50,
                         reset_every=50, force_rate=0.01, force_fraction=1 / 8, ahead=24),
        "vector": dict(games=VECTOR_GAMES, consoles=256, units=200, checkpoint_every=25,
                       reset_every=50, force_rate=0.0, force_fraction=1 / 16, ahead=6),
        "slots": 32,
    },
    "tiny": {
        "emulator": dict(games=("boxing", "montezuma_revenge", "pitfall2"), consoles=4,
                         units=30, checkpoint_every=10, reset_every=10, force_rate=0.15,
                         force_fraction=1 / 2, ahead=4),
        "vector": dict(games=("breakout", "elevator_action"), consoles=4, units=12,
                       checkpoint_every=3, reset_every=4, force_rate=0.0, force_fraction=1 / 2,
                       ahead=2),
        "slots": 4,
    },
}


def supported_games() -> list[str]:
    from cule_py.games import GAMES
    from cule_py.kernels.cartridges import cart
    from cule_py.kernels.ale import game_logic

    return sorted(g.rom_id for g in GAMES.values()
                  if g.scheme in cart.SCHEME_IDS and g.rom_id in game_logic.IMPLEMENTED)


# -- what a job is ---------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class Spec:
    """Everything that determines a job's digests (saved in its row; the CPU side rebuilds the
    job from it). Units are emulator frames (mode emulator) or agent steps (mode vector)."""

    mode: str
    game: str
    consoles: int
    units: int
    checkpoint_every: int
    reset_every: int
    reset_offset: int = 0
    force_rate: float = 0.0          # emulator: chance that a frame is a forced-reset frame
    force_fraction: float = 0.0      # share of the consoles a forced reset takes
    seed: int = SEED
    repeat_action_probability: float = 0.25
    ahead: int = 4                   # GPU run-ahead (units in flight); no effect on the digests
    autoreset: str = "Disabled"      # vector: the env's autoreset_mode
    # vector, GPU side: the step kernel's register budget (CULE_PY_GPU_STEP_REGISTERS; 128 is
    # agent_step_cuda_capped, 64 agent_step_cuda_lean). The same code, so the digests must not
    # move.
    step_registers: int = 255

    @property
    def frames_per_unit(self) -> int:
        return 4 if self.mode == "vector" else 1

    @property
    def checkpoints(self) -> int:
        return self.units // self.checkpoint_every + 1

    def key(self) -> tuple:
        budget = () if self.step_registers == 255 else (self.step_registers,)
        return (self.mode, self.game, self.consoles, self.units) + budget

    @classmethod
    def from_dict(cls, d: dict) -> "Spec":
        names = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in d.items() if k in names})


def stage_specs(scale: str) -> list[Spec]:
    """The jobs of a scale: the vector games first (the longest jobs), then the emulator games."""
    config = SCALES[scale]
    specs = []
    for mode in ("vector", "emulator"):
        c = dict(config[mode])
        games = list(c.pop("games") or supported_games())
        for i, game in enumerate(games):
            offset = (i * c["reset_every"]) // len(games) if mode == "vector" else 0
            # Every other vector game autoresets NextStep: on the GPU its resets run on a
            # second stream beside the step (AtariVectorEnv._step_beside_resets).
            extra = {"autoreset": "NextStep" if i % 2 else "Disabled"} if mode == "vector" else {}
            specs.append(Spec(mode=mode, game=game, reset_offset=offset, **c, **extra))
        if mode == "vector" and scale != "tiny":
            # the step kernel capped at 128 and at 64 registers, on Breakout's job (not in the
            # dry run: the CPU has no register budget to check)
            jobs = specs[-len(games):]
            twin = next((j for j in jobs if j.game == "breakout"), jobs[0])
            for registers in (128, 64):
                specs.append(dataclasses.replace(twin, step_registers=registers))
    for s in specs:
        assert s.units % s.checkpoint_every == 0, s
    return specs


def _rng(spec: Spec, stream: int) -> np.random.Generator:
    return np.random.default_rng([spec.seed, zlib.crc32(spec.game.encode()),
                                  MODES.index(spec.mode), stream])


def reset_schedule(spec: Spec) -> tuple[np.ndarray, np.ndarray]:
    """(points, forced): points[u] (units + 1 bools) says a reset call follows unit u; forced[u]
    (units + 1, consoles) the consoles reset then whatever their state. Drawn from the spec alone
    (a run stopped early replays as a prefix)."""
    rng = _rng(spec, 1)
    n, units = spec.consoles, spec.units
    k = max(1, round(spec.force_fraction * n))
    forced = np.zeros((units + 1, n), np.bool_)
    points = np.zeros(units + 1, np.bool_)
    for u in range(1, units):
        if spec.mode == "emulator":
            event = rng.random() < spec.force_rate
            points[u] = event or u % spec.reset_every == 0
        else:
            event = points[u] = u >= spec.reset_offset and \
                (u - spec.reset_offset) % spec.reset_every == 0
        if event:
            forced[u, rng.choice(n, k, replace=False)] = True
    return points, forced


# -- backends --------------------------------------------------------------------------------------
class _DoneEvent:
    """The CPU backend's event: done at once; its time is the host clock's."""

    done = True

    def __init__(self):
        self.time = time.perf_counter()

    def synchronize(self):
        pass


class CpuBackend:
    """numpy, device="cpu" consoles, everything synchronous."""

    name = "cpu"
    emulator_device = "cpu"
    xp = np

    def __init__(self, slots: int = 4):
        self.hasher = Hasher()
        self.slots = slots

    def stream(self, slot: int):
        return None

    def on(self, stream):
        return contextlib.nullcontext()

    def hash_rows(self, rows):
        return self.hasher.cpu(rows)

    def host_buffer(self, shape, dtype):
        return np.zeros(shape, dtype)

    def copy_to_host(self, src, dst, stream) -> None:
        dst[...] = src

    def record(self, stream, timing: bool = False):
        return _DoneEvent()

    def elapsed(self, start, stop) -> float:
        return stop.time - start.time

    def prepare_emulator(self, emulator, resets: int) -> None:
        pass

    def reset_emulator(self, emulator, mask) -> None:
        """The public API: ALE's reset_game where `mask` is true."""
        if mask.any():
            emulator.reset(mask)


class GpuBackend:
    """cupy arrays, device="cuda" consoles (or `emulator_device`, for tests with a stand-in cupy),
    one non-blocking stream per slot, events and pinned copies; the host never waits after a
    job's start except for vector resets (see the module doc)."""

    name = "cuda"

    def __init__(self, slots: int = 32, cupy=None, emulator_device: str = "cuda",
                 streams: str = "non_blocking"):
        if cupy is None:
            import cupy
        import cupyx

        if streams not in ("non_blocking", "null"):
            raise ValueError(f"streams must be 'non_blocking' or 'null', got {streams!r}")
        self.cp = self.xp = cupy
        self._cupyx = cupyx
        self.emulator_device = emulator_device
        self.slots = slots
        self.stream_kind = streams      # "null": every job on the legacy default stream (the
        #                                 arrangement of gpu_check's trace path; a fallback)
        self.hasher = Hasher()
        # The reduction built and the weights uploaded once, on the default stream, and waited
        # for, before any other stream reads them.
        self.hasher.gpu(cupy.zeros((1, 1), cupy.uint8))
        cupy.cuda.Device().synchronize()
        self._streams: dict[int, object] = {}

    def stream(self, slot: int):
        if self.stream_kind == "null":
            return self.cp.cuda.Stream.null
        if slot not in self._streams:
            self._streams[slot] = self.cp.cuda.Stream(non_blocking=True)
        return self._streams[slot]

    def on(self, stream):
        return stream          # cupy's current stream inside `with`; cule_py launches on it

    def hash_rows(self, rows):
        return self.hasher.gpu(rows)

    def host_buffer(self, shape, dtype):
        buffer = self._cupyx.empty_pinned(shape, dtype)
        buffer[...] = 0
        return buffer

    def copy_to_host(self, src, dst, stream) -> None:
        self.cp.asnumpy(src, stream=stream, out=dst, blocking=False)

    def record(self, stream, timing: bool = False):
        event = self.cp.cuda.Event(block=False, disable_timing=not timing)
        event.record(stream)
        return event

    def elapsed(self, start, stop) -> float:
        return self.cp.cuda.get_elapsed_time(start, stop) / 1000.0

    def prepare_emulator(self, emulator, resets: int) -> None:
        """The shared system-RNG table long enough for `resets` more resets of every console
        (each System reset draws 1 + cartridge-RAM bytes), so that resets never need the host to
        look (ConsoleBatch._ensure_system_rng; one sync here, at the job's start)."""
        b = emulator._batch
        b._ensure_system_rng(b._all, extra=(resets + 1) * (1 + b.cart_ram.shape[1]))

    def reset_emulator(self, emulator, mask) -> None:
        """`emulator.reset(mask)` without a host sync, `mask` on the device: the same steps as
        batch.ConsoleBatch._reset_game (mode selection and the mode parameter, the
        mode-selection flag cleared on the reset consoles, drive_cuda's OP_RESET_GAME with the
        same arguments) except that the mask stays on the device and nothing is read back (the
        system-RNG table was grown by prepare_emulator; a failed mode selection shows in the
        digests)."""
        from cule_py import modes as game_modes
        from cule_py.kernels.ale import environment as env_kernel
        from cule_py.kernels import layout as L

        xp = self.xp
        b = emulator._batch
        mask = xp.ascontiguousarray(mask, dtype=xp.bool_)
        b._selection = game_modes.selection(b.game, b.mode)
        b._params[env_kernel.P_MODE] = b.mode
        b.state[:, L.ENV_SELECT_FAILED] = xp.where(mask, 0, b.state[:, L.ENV_SELECT_FAILED])
        args = b.drive_args(env_kernel.OP_RESET_GAME, b._all, b.difficulty)
        self._launch_drive(b, args[:-1] + (mask,))

    def _launch_drive(self, batch, args) -> None:
        from cule_py.kernels.ale import environment as env_kernel

        batch.gpu.launch(env_kernel.drive_cuda, batch.num_envs, *args)


# -- jobs ------------------------------------------------------------------------------------------
class Job:
    """One game of one mode on a backend: `start` builds it (and folds unit 0), each `enqueue`
    issues one unit (a frame, an agent step, or a vector reset) without waiting, `poll` learns
    what has finished from events."""

    def __init__(self, spec: Spec, backend, slot: int = 0):
        self.spec = spec
        self.backend = backend
        self.slot = slot
        self.stream = backend.stream(slot)
        self.unit = 0                      # units issued
        self.done_unit = -1                # last unit known finished
        self.events = collections.deque()  # (seq, unit, event) not known finished
        self.ck_events: dict[int, object] = {}
        self.host_seconds = 0.0            # host time inside start / enqueue (waits included)
        self.start_seconds = 0.0
        self.started_at = None
        self.error = None
        self._seq = 0

    # bookkeeping
    def _allocate(self, n: int) -> None:
        b, s = self.backend, self.spec
        xp = b.xp
        self.running = xp.zeros((5, n), xp.uint64)
        self.ck_host = b.host_buffer((s.checkpoints, 5, n), np.uint64)
        self.ram_host = b.host_buffer((s.checkpoints, n), np.uint64)
        self.resets_host = b.host_buffer((s.checkpoints, 1), np.int64)

    def _checkpoint(self, values, resets) -> None:
        """After folding unit u = k * checkpoint_every: the running digests, the reset count and
        the first value row (RAM or observation hashes) go back asynchronously."""
        b, k = self.backend, self.unit // self.spec.checkpoint_every
        b.copy_to_host(self.running, self.ck_host[k], self.stream)
        b.copy_to_host(values[0], self.ram_host[k], self.stream)
        if isinstance(resets, int):
            self.resets_host[k, 0] = resets
        else:
            b.copy_to_host(resets, self.resets_host[k], self.stream)

    def _mark(self, seq: int) -> None:
        """An event after everything issued for the current unit."""
        s = self.spec
        checkpoint = self.unit % s.checkpoint_every == 0
        event = self.backend.record(self.stream, timing=checkpoint)
        if checkpoint:
            self.ck_events.setdefault(self.unit // s.checkpoint_every, event)
        self.events.append((seq, self.unit, event))

    def poll(self) -> None:
        while self.events and self.events[0][2].done:
            self.done_unit = self.events.popleft()[1]

    def in_flight(self) -> int:
        self.poll()
        return len(self.events)

    def ready(self) -> bool:
        return True

    @property
    def issued_all(self) -> bool:
        return self.unit >= self.spec.units

    def landed(self) -> int:
        """Checkpoints whose copies have landed."""
        if self.done_unit < 0:
            return 0
        return min(self.spec.checkpoints, self.done_unit // self.spec.checkpoint_every + 1)

    def row(self, status: str, device: str, run_id: str) -> dict:
        s = self.spec
        k = self.landed()
        units_done = (k - 1) * s.checkpoint_every if k else 0
        if status == "complete" and units_done < s.units:
            status = "partial"
        ck = np.array(self.ck_host[:k]) if k else np.zeros((0, 5, s.consoles), np.uint64)
        device_seconds = None
        if k >= 2 and 0 in self.ck_events and (k - 1) in self.ck_events:
            device_seconds = round(
                self.backend.elapsed(self.ck_events[0], self.ck_events[k - 1]), 3)
        row = {
            "stage": "exactness", "mode": s.mode, "game": s.game, "device": device,
            "status": status, "run_id": run_id, "spec": dataclasses.asdict(s),
            "consoles": s.consoles, "units_done": units_done,
            "frames_done": units_done * s.frames_per_unit,
            "frames_target": s.units * s.frames_per_unit,
            "checkpoint_shape": list(ck.shape), "checkpoints": encode_u64(ck),
            "resets": [int(v) for v in np.array(self.resets_host[:k, 0])] if k else [],
            "distinct_ram": [len(np.unique(np.array(r))) for r in self.ram_host[:k]] if k else [],
            "seconds_start": round(self.start_seconds, 3),
            "seconds_host": round(self.host_seconds, 3),
            "seconds_wall": round(time.perf_counter() - self.started_at, 3)
            if self.started_at else 0.0,
            "device_seconds": device_seconds,
            "device_ms_per_unit": round(1000 * device_seconds / units_done, 2)
            if device_seconds and units_done else None,
        }
        if self.error:
            row["error"] = self.error
        return row


class EmulatorJob(Job):
    def start(self, seq: int) -> None:
        import cule_py

        b, s = self.backend, self.spec
        xp = b.xp
        t = time.perf_counter()
        self.started_at = t
        with b.on(self.stream):
            self.emu = cule_py.AtariEmulator(
                s.game, s.consoles, device=b.emulator_device, seed=s.seed,
                repeat_action_probability=s.repeat_action_probability)
            points, forced = reset_schedule(s)
            b.prepare_emulator(self.emu, int(points.sum()))
            self.points = points
            self.actions = xp.asarray(action_schedule(self.emu.legal_action_set(), s.consoles,
                                                      s.units, s.seed))
            self.forced = xp.asarray(forced)
            self.resets = xp.zeros(1, xp.int64)
            self._allocate(s.consoles)
            values, _ = self._values(xp.zeros(s.consoles, xp.int32))
            fold(self.running, values)
            self._checkpoint(values, self.resets)
            self._mark(seq)
        self.start_seconds = time.perf_counter() - t
        self.host_seconds += self.start_seconds

    def _values(self, rewards):
        e, h, xp = self.emu, self.backend.hash_rows, self.backend.xp
        over = e.game_over()
        values = xp.stack([h(e.ram()), h(e.screen()), as_u64(rewards, xp),
                           as_u64(e.lives(), xp), as_u64(over, xp)])
        return values, over

    def enqueue(self, seq: int) -> None:
        b, s = self.backend, self.spec
        t = time.perf_counter()
        u = self.unit + 1
        with b.on(self.stream):
            rewards = self.emu.act(self.actions[u - 1])
            values, over = self._values(rewards)
            fold(self.running, values)
            self.unit = u
            if u % s.checkpoint_every == 0:
                self._checkpoint(values, self.resets)
            if self.points[u]:
                mask = (over | self.forced[u]) if u % s.reset_every == 0 else self.forced[u]
                b.reset_emulator(self.emu, mask)
                self.resets += mask.sum()
            self._mark(seq)
        self.host_seconds += time.perf_counter() - t


class VectorJob(Job):
    def start(self, seq: int) -> None:
        from cule_py.vector import AtariVectorEnv

        b, s = self.backend, self.spec
        xp = b.xp
        t = time.perf_counter()
        self.started_at = t
        with b.on(self.stream), environment("CULE_PY_GPU_STEP_REGISTERS",
                                                 str(s.step_registers)):
            self.env = AtariVectorEnv(
                s.game, s.consoles, device=b.emulator_device, autoreset_mode=s.autoreset,
                episodic_life=True, repeat_action_probability=s.repeat_action_probability,
                seed=s.seed)
            obs, info = self.env.reset(seed=s.seed)
            self.points, self.forced = reset_schedule(s)
            actions = _rng(s, 2).integers(0, self.env.single_action_space.n,
                                          (s.units, s.consoles)).astype(np.int32)
            self.actions = xp.asarray(actions)
            self.pending = xp.zeros(s.consoles, xp.bool_)
            self.pending_host = b.host_buffer(s.consoles, np.bool_)
            self.resets = 0
            self.reset_due = False
            self._zeros = xp.zeros(s.consoles, xp.uint64)
            self._allocate(s.consoles)
            values = self._reset_values(obs, info)
            fold(self.running, values)
            self._checkpoint(values, self.resets)
            self._mark(seq)
        self.start_seconds = time.perf_counter() - t
        self.host_seconds += self.start_seconds

    def _reset_values(self, obs, info):
        xp, z = self.backend.xp, self._zeros
        return xp.stack([self.backend.hash_rows(obs), z, z, z, as_u64(info["lives"], xp)])

    def ready(self) -> bool:
        # A reset waits until this job's stream has drained: the flags it needs have landed and
        # the syncs inside AtariVectorEnv.reset wait for nothing but the reset itself.
        return not self.reset_due or self.in_flight() == 0

    @property
    def issued_all(self) -> bool:
        return self.unit >= self.spec.units and not self.reset_due

    def enqueue(self, seq: int) -> None:
        b, s = self.backend, self.spec
        xp = b.xp
        t = time.perf_counter()
        with b.on(self.stream):
            if self.reset_due:
                mask = np.array(self.pending_host, np.bool_) | self.forced[self.unit]
                if mask.any():
                    obs, info = self.env.reset(options={"reset_mask": mask})
                    fold(self.running, self._reset_values(obs, info))
                    self.pending &= ~xp.asarray(mask)
                    self.resets += int(mask.sum())
                self.reset_due = False
            else:
                u = self.unit + 1
                obs, rewards, terminated, truncated, info = self.env.step(self.actions[u - 1])
                values = xp.stack([self.backend.hash_rows(obs), as_u64(rewards, xp),
                                   as_u64(terminated, xp), as_u64(truncated, xp),
                                   as_u64(info["lives"], xp)])
                fold(self.running, values)
                self.pending |= terminated | truncated
                self.unit = u
                if u % s.checkpoint_every == 0:
                    self._checkpoint(values, self.resets)
                if self.points[u]:
                    b.copy_to_host(self.pending, self.pending_host, self.stream)
                    self.reset_due = True
            self._mark(seq)
        self.host_seconds += time.perf_counter() - t


def make_job(spec: Spec, backend, slot: int = 0) -> Job:
    return (VectorJob if spec.mode == "vector" else EmulatorJob)(spec, backend, slot)


def replay(spec: Spec, backend, units: int) -> Job:
    """A job run to `units` units at once (the CPU side of `compare`)."""
    job = make_job(spec, backend)
    job.start(0)
    while job.unit < units:          # (a vector reset due after the last unit is not needed)
        job.enqueue(0)
    job.poll()
    return job


# -- the scheduler ---------------------------------------------------------------------------------
# Job starts run in this many host threads beside the issuing loop: a start waits for its own
# construction (power-on and reset_game, a lone warp's frames on the GPU), and one after another
# on the issuing thread the starts took half of the stage's host time (benchmarks/RESULTS.md,
# 2026-11-30).
START_THREADS = 4


def run_jobs(specs: list[Spec], backend, *, time_limit: float, on_row, log=print,
             device: str = "", run_id: str = "", progress_every: float = 20.0,
             start_threads: int = START_THREADS) -> dict:
    """Every spec as a job, at most backend.slots at a time, round-robin one unit per job per
    pass; units are issued from ONE host thread. A job with `ahead` units in flight waits; when
    no job can issue, the host waits for the oldest event in flight. New jobs start in up to
    `start_threads` threads beside it (0: on the issuing thread, one per pass), each on its own
    stream; the first job of each mode starts on the issuing thread, so that its kernels load
    once, and a start that fails in a thread sends the later ones back to the issuing thread.
    `time_limit` seconds after the call: nothing more is issued or started, in-flight work is
    given a short drain, and every unfinished job gets a row with the checkpoints that have
    landed (status partial), every job never started a not_reached row."""
    t0 = time.perf_counter()
    deadline = t0 + time_limit
    stop_margin = min(10.0, 0.02 * time_limit)
    start_margin = min(30.0, 0.05 * time_limit)
    pending = collections.deque(specs)
    active: list[Job] = []
    free_slots = list(range(backend.slots))
    counts = collections.Counter()
    seq = 0
    waited, waits = 0.0, 0
    totals = {"host": 0.0, "start": 0.0}     # host seconds inside jobs (issuing, cule_py's syncs)
    next_report = t0 + progress_every
    errors_in_a_row = 0
    starting: dict = {}                     # job -> the Future of its start in a thread
    started_modes: set = set()
    threads = concurrent.futures.ThreadPoolExecutor(start_threads) if start_threads else None

    def finish(job: Job, status: str) -> None:
        nonlocal errors_in_a_row
        row = job.row(status, device, run_id)
        totals["host"] += job.host_seconds
        totals["start"] += job.start_seconds
        counts[row["status"]] += 1
        errors_in_a_row = errors_in_a_row + 1 if row["status"] == "error" else 0
        on_row(row)
        log(f"  {row['mode']} {row['game']}: {row['status']}, {row['consoles']} consoles x "
            f"{row['frames_done']}/{row['frames_target']} frames, {sum(row['resets'][-1:])} "
            f"resets, {row['seconds_wall']} s (device {row['device_seconds']} s, host "
            f"{row['seconds_host']} s)" + (f" ERROR {row['error']}" if "error" in row else ""))
        active.remove(job)
        free_slots.append(job.slot)

    def fail(job: Job, err: BaseException) -> None:
        job.error = f"{type(err).__name__}: {err}"[:500]
        job.poll()
        finish(job, "error")

    def can_start(now: float) -> bool:
        return bool(pending and free_slots and deadline - now > start_margin
                    and len(starting) < max(1, start_threads))

    while pending or active:
        now = time.perf_counter()
        if now >= deadline - stop_margin or errors_in_a_row >= 3:
            break
        if now >= next_report:
            next_report = now + progress_every
            log(f"  [{now - t0:.0f} s] {len(active)} running, {len(pending)} waiting, "
                f"{dict(counts)} done; host waits {waited:.1f} s; "
                + ", ".join(f"{j.spec.game}:{j.done_unit}/{j.spec.units}" for j in active[:12]))
        for job, future in list(starting.items()):
            if future.done():
                del starting[job]
                if future.exception() is not None:
                    fail(job, future.exception())
                    if threads is not None:
                        log("  a start failed in a thread: later jobs start on this one")
                        threads.shutdown(wait=False)
                        threads = None
        if can_start(now):
            spec = pending.popleft()
            job = make_job(spec, backend, free_slots.pop(0))
            active.append(job)
            seq += 1
            if threads is not None and spec.mode in started_modes:
                starting[job] = threads.submit(job.start, seq)
            else:
                try:
                    job.start(seq)
                    started_modes.add(spec.mode)
                except Exception as err:     # noqa: BLE001 - recorded, the others go on
                    fail(job, err)
        progressed = False
        for job in list(active):
            if job in starting:
                continue
            job.poll()
            if job.issued_all:
                if not job.events:
                    finish(job, "complete")
                continue
            if job.in_flight() < job.spec.ahead and job.ready():
                seq += 1
                try:
                    job.enqueue(seq)
                    progressed = True
                except Exception as err:     # noqa: BLE001
                    fail(job, err)
        if not progressed and not can_start(now):
            waiting = [j.events[0] for j in active if j.events]
            if not waiting and starting:
                concurrent.futures.wait(list(starting.values()), timeout=0.05,
                                        return_when=concurrent.futures.FIRST_COMPLETED)
            elif waiting:
                # The oldest unit in flight, looked at every 0.5 ms (never past the stop time:
                # a pathologically slow GPU must not hold the host beyond the limit).
                event = min(waiting, key=lambda e: e[0])[2]
                t = time.perf_counter()
                waits += 1
                while not event.done and time.perf_counter() < deadline - stop_margin:
                    time.sleep(0.0005)
                waited += time.perf_counter() - t
            elif active:
                for job in list(active):
                    fail(job, RuntimeError("scheduler stalled: nothing in flight, nothing ready"))
            else:
                break
    # Time is up (or too many errors): the starts under way end (no new one began within
    # start_margin of the deadline), a short drain, then what has landed.
    for job, future in starting.items():
        if future.exception() is not None:
            fail(job, future.exception())
    if threads is not None:
        threads.shutdown(wait=True)
    drain_until = min(deadline, time.perf_counter() + 5.0)
    while any(j.in_flight() for j in active) and time.perf_counter() < drain_until:
        time.sleep(0.005)
    for job in list(active):
        job.poll()
        if job.issued_all and not job.events:
            finish(job, "complete")
        else:
            finish(job, "partial")
    not_reached = [s for s in pending]
    for s in not_reached:
        on_row({"stage": "exactness", "mode": s.mode, "game": s.game, "device": device,
                "status": "not_reached", "run_id": run_id, "spec": dataclasses.asdict(s),
                "consoles": s.consoles, "units_done": 0, "frames_done": 0,
                "frames_target": s.units * s.frames_per_unit, "checkpoint_shape": [0, 5,
                                                                                  s.consoles],
                "checkpoints": "", "resets": [], "distinct_ram": []})
        counts["not_reached"] += 1
    return {"counts": dict(counts), "not_reached": [f"{s.mode}:{s.game}" for s in not_reached],
            "host_wait_seconds": round(waited, 2), "host_waits": waits,
            "host_in_jobs_seconds": round(totals["host"], 2),
            "host_in_starts_seconds": round(totals["start"], 2),
            "seconds": round(time.perf_counter() - t0, 2)}


# -- the stage -------------------------------------------------------------------------------------
def read_rows(path: pathlib.Path) -> list[dict]:
    if not path.exists():
        return []
    rows = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line:
                try:
                    rows.append(json.loads(line))
                except json.JSONDecodeError:
                    pass            # a line cut short by a killed run
    return rows


def _appender(path: pathlib.Path):
    def on_row(row: dict) -> None:
        with open(path, "a") as f:
            f.write(json.dumps(row) + "\n")
            f.flush()
            os.fsync(f.fileno())
    return on_row


def _finished(rows: list[dict]) -> set:
    """Spec keys that need no new run: a complete row, or error rows from two different runs (a
    single error may be a context another job broke, so it is tried again once)."""
    done, errors = set(), collections.defaultdict(set)
    for r in rows:
        key = Spec.from_dict(r["spec"]).key()
        if r["status"] == "complete":
            done.add(key)
        elif r["status"] == "error":
            errors[key].add(r.get("run_id"))
    return done | {k for k, runs in errors.items() if len(runs) >= 2}


def run_stage(results_dir: pathlib.Path, *, device: str, scale: str, time_limit: float,
              log=print, backend=None, specs: list[Spec] | None = None) -> dict:
    """The device side of the stage (see the module doc): every job of `scale` not already
    finished in results_dir/exactness_<cuda|cpu>.jsonl, rows appended as jobs end; stops issuing
    work `time_limit` seconds after the call. Returns a summary (counts by status, jobs not
    reached, jobs skipped as already done, seconds, host seconds spent waiting for the GPU).
    `backend` / `specs` override the defaults (tests)."""
    results_dir = pathlib.Path(results_dir)
    results_dir.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    kind = "cpu" if device == "cpu" else "cuda"
    path = results_dir / RESULT_FILES[kind]
    specs = stage_specs(scale) if specs is None else specs
    done = _finished(read_rows(path))
    todo = [s for s in specs if s.key() not in done]
    skipped = [f"{s.mode}:{s.game}" for s in specs if s.key() in done]
    summary = {"stage": "exactness", "device": device, "scale": scale, "file": str(path),
               "jobs": len(specs), "skipped": skipped,
               "cuda_device_max_connections": os.environ.get("CUDA_DEVICE_MAX_CONNECTIONS")}
    log(f"exactness ({device}, {scale}): {len(todo)} jobs to run, {len(skipped)} already done, "
        f"time limit {time_limit:.0f} s -> {path}")
    if backend is None:
        # Knobs for a later GPU session, without code changes: CULE_PY_EXACTNESS_SLOTS (jobs at
        # a time), CULE_PY_EXACTNESS_STREAMS=null (all jobs on the legacy default stream).
        slots = int(settings.EXACTNESS_SLOTS.value() or SCALES[scale]["slots"])
        streams = settings.EXACTNESS_STREAMS.value()
        summary.update(slots=slots, streams=streams if kind == "cuda" else None)
        try:
            backend = CpuBackend(slots) if kind == "cpu" else GpuBackend(slots, streams=streams)
        except Exception as err:     # noqa: BLE001 - the runbook goes on to its next stage
            summary["error"] = f"{type(err).__name__}: {err}"[:500]
            log(f"exactness: no backend: {summary['error']}")
            return summary
    run_id = f"{time.strftime('%Y%m%dT%H%M%S')}-{os.getpid()}"
    left = max(0.0, time_limit - (time.perf_counter() - start))
    # Starts in threads only where the consoles are on the GPU: there a start waits for its
    # own stream. The CPU's starts are work, on cule_py's one pool of CPU threads.
    threaded = isinstance(backend, GpuBackend) and backend.emulator_device == "cuda"
    result = run_jobs(todo, backend, time_limit=left, on_row=_appender(path), log=log,
                      device=device, run_id=run_id,
                      start_threads=START_THREADS if threaded else 0)
    summary.update(result)
    summary["seconds"] = round(time.perf_counter() - start, 2)
    log(f"exactness ({device}): {result['counts']} in {summary['seconds']} s; not reached: "
        f"{len(result['not_reached'])}; host: {result['host_in_jobs_seconds']} s in jobs "
        f"({result['host_in_starts_seconds']} s in starts), {result['host_wait_seconds']} s "
        f"waiting for the device")
    return summary


# -- the comparison on the development machine -----------------------------------------------------
def checkpoints_of(row: dict) -> np.ndarray:
    return decode_u64(row["checkpoints"], row["checkpoint_shape"]) if row["checkpoints"] else \
        np.zeros((0, 5, row["consoles"]), np.uint64)


def set_checkpoints(row: dict, checkpoints: np.ndarray) -> None:
    row["checkpoints"] = encode_u64(checkpoints)
    row["checkpoint_shape"] = list(checkpoints.shape)


def _row_key(row: dict) -> str:
    h = hashlib.sha1()
    for part in (row["status"], row["mode"], row["game"], str(row["units_done"]),
                 json.dumps(row["spec"], sort_keys=True), row["checkpoints"],
                 json.dumps(row.get("resets"))):
        h.update(part.encode())
    return h.hexdigest()[:16]


def _best_rows(rows: list[dict]) -> list[dict]:
    """Per spec: the complete row, else the row with the most units done (the latest of equals)."""
    best: dict[tuple, dict] = {}
    rank = {"complete": 3, "partial": 2, "error": 1, "not_reached": 0}
    for r in rows:
        key = Spec.from_dict(r["spec"]).key()
        score = (rank.get(r["status"], 0) == 3, r.get("units_done", 0), rank.get(r["status"], 0))
        if key not in best or score >= best[key][0]:
            best[key] = (score, r)
    return [r for _, r in sorted(best.values(), key=lambda v: (v[1]["mode"], v[1]["game"]))]


def compare_row(row: dict, backend) -> dict:
    """The CPU side of one device row, and the comparison."""
    spec = Spec.from_dict(row["spec"])
    device_ck = checkpoints_of(row)
    out = {"game": spec.game, "mode": spec.mode, "consoles": spec.consoles,
           "frames": row["frames_done"], "frames_target": row["frames_target"],
           "device_status": row["status"], "device_seconds": row.get("device_seconds"),
           "first_bad_checkpoint": "", "first_bad_frame": "", "fields": "",
           "consoles_differing": "", "resets": "", "distinct_ram_last": "", "cpu_seconds": "",
           "note": row.get("error", "") or (
               f"step kernel at {spec.step_registers} registers"
               if spec.step_registers != 255 else ""), "key": _row_key(row)}
    if len(device_ck) == 0:
        out["result"] = "ERROR" if row["status"] == "error" else "INCOMPLETE"
        return out
    units = row["units_done"]
    t = time.perf_counter()
    try:
        job = replay(spec, backend, units)
    except Exception as err:     # noqa: BLE001
        out["result"] = "ERROR"
        out["note"] = f"CPU side: {type(err).__name__}: {err}"[:300]
        return out
    out["cpu_seconds"] = round(time.perf_counter() - t, 2)
    k = units // spec.checkpoint_every + 1
    cpu_ck = np.array(job.ck_host[:k])
    cpu_resets = [int(v) for v in np.array(job.resets_host[:k, 0])]
    out["resets"] = cpu_resets[-1]
    out["distinct_ram_last"] = len(np.unique(np.array(job.ram_host[k - 1])))
    if cpu_ck.shape != device_ck.shape:
        out["result"] = "DIFFERENT"
        out["note"] = f"shapes differ: device {device_ck.shape}, cpu {cpu_ck.shape}"
        return out
    differ = cpu_ck != device_ck                              # (k, 5, consoles)
    bad = np.nonzero(differ.any(axis=(1, 2)))[0]
    if bad.size:
        c = int(bad[0])
        out["result"] = "DIFFERENT"
        out["first_bad_checkpoint"] = c
        out["first_bad_frame"] = c * spec.checkpoint_every * spec.frames_per_unit
        out["fields"] = "+".join(n for n, d in zip(FIELDS[spec.mode], differ[c].any(axis=1))
                                 if d)
        consoles = np.nonzero(differ[c].any(axis=0))[0]
        out["consoles_differing"] = " ".join(str(i) for i in consoles[:16]) + \
            (f" (+{len(consoles) - 16})" if len(consoles) > 16 else "")
        span = spec.checkpoint_every * spec.frames_per_unit
        first = out["first_bad_frame"]
        out["note"] = _join(out["note"], f"first differs in frames ({first - span}, {first}]")
    elif list(row.get("resets", [])) != cpu_resets:
        out["result"] = "DIFFERENT"
        out["fields"] = "resets"
    else:
        out["result"] = {"complete": "EXACT", "error": "ERROR"}.get(row["status"], "INCOMPLETE")
        if row["status"] != "complete":
            out["note"] = _join(out["note"], f"identical for the {row['frames_done']} frames "
                                             f"the device did ({row['status']})")
    return out


def _join(*parts: str) -> str:
    return "; ".join(p for p in parts if p)


def compare(results_dir: pathlib.Path, *, log=print, device_file: str | None = None) -> dict:
    """The CPU side of every job in the device results (exactness_cuda.jsonl, else
    exactness_cpu.jsonl, or `device_file`), the same specs and seeds, for the units the device
    completed; results_dir/exactness_compare.csv rewritten after each job (rows whose device
    row is unchanged since an earlier compare are kept, not run again). Returns counts by result
    (EXACT, DIFFERENT, INCOMPLETE, ERROR) and the CSV's path."""
    results_dir = pathlib.Path(results_dir)
    if device_file:
        path = pathlib.Path(device_file)
    else:
        candidates = [results_dir / RESULT_FILES[k] for k in ("cuda", "cpu")]
        path = next((c for c in candidates if c.exists()), candidates[0])
    csv_path = results_dir / COMPARE_CSV
    earlier = {}
    if csv_path.exists():
        with open(csv_path) as f:
            earlier = {r["key"]: r for r in csv.DictReader(f)}
    rows = _best_rows(read_rows(path))
    log(f"exactness compare: {len(rows)} jobs from {path}")
    backend = CpuBackend(1)
    results = []
    for row in rows:
        key = _row_key(row)
        if key in earlier:
            results.append(earlier[key])
            continue
        result = compare_row(row, backend)
        results.append(result)
        log(f"  {result['mode']} {result['game']}: {result['result']} ({result['frames']} "
            f"frames x {result['consoles']} consoles, cpu {result['cpu_seconds']} s)"
            + (f" checkpoint {result['first_bad_checkpoint']} {result['fields']}"
               if result["result"] == "DIFFERENT" else "")
            + (f" {result['note']}" if result["note"] else ""))
        _write_csv(csv_path, results)
    _write_csv(csv_path, results)
    counts = collections.Counter(r["result"] for r in results)
    summary = {k: counts.get(k, 0) for k in ("EXACT", "DIFFERENT", "INCOMPLETE", "ERROR")}
    summary.update(csv=str(csv_path), jobs=len(results), source=str(path))
    log(f"exactness compare: {summary}")
    return summary


def _write_csv(path: pathlib.Path, rows: list[dict]) -> None:
    tmp = path.with_suffix(".csv.tmp")
    with open(tmp, "w", newline="") as f:
        writer = csv.DictWriter(f, CSV_FIELDS, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    os.replace(tmp, path)


def main(argv=None) -> int:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="the device side")
    run.add_argument("results_dir")
    run.add_argument("--device", default="cuda")
    run.add_argument("--scale", choices=sorted(SCALES), default="full")
    run.add_argument("--time-limit", type=float, default=450.0)
    cmp_ = sub.add_parser("compare", help="the CPU side here, and the comparison")
    cmp_.add_argument("results_dir")
    cmp_.add_argument("--device-file")
    args = parser.parse_args(argv)
    if args.command == "run":
        summary = run_stage(pathlib.Path(args.results_dir), device=args.device,
                            scale=args.scale, time_limit=args.time_limit)
        print(json.dumps(summary, indent=1))
        return 0 if "error" not in summary else 1
    summary = compare(pathlib.Path(args.results_dir), device_file=args.device_file)
    return 0 if summary["DIFFERENT"] == 0 and summary["ERROR"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
