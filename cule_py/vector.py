"""`AtariVectorEnv`: ale-py's vector environment (ale_py.vector_env.AtariVectorEnv) on cule_py
consoles, with the same constructor arguments, defaults and results.

    env = AtariVectorEnv("breakout", num_envs=8)
    obs, info = env.reset(seed=0)                    # obs (8, 4, 84, 84) uint8
    obs, rewards, terminated, truncated, info = env.step(np.zeros(8, np.int64))

Sub-environment i after `reset(seed=s)` equals AtariVectorEnv's sub-environment i after the same
call (ALE random_seed s + i for sticky actions, the same seed for the noop-start RNG), step for
step: observations, rewards, terminations, truncations, lives and frame counters.

The info dict holds exactly ale-py's keys and dtypes ("env_id", "lives", "frame_number",
"episode_frame_number", int32). Errors are ale-py's exception classes (cule_py/errors.py).

Asynchronous batches as ale-py's (batch_size < num_envs): `step(actions)` or `send(actions)`
then `recv()` step the consoles the last call returned (info["env_id"]) and return the next
batch_size ready ones, first in first out: deterministic on both backends (ale-py returns
whichever of its threads finishes first; each console's trajectory is the same either way). On
the CPU `send` runs the step on a worker thread so the caller's policy can run meanwhile.

`continuous=True` takes float32 (radius, theta, fire) actions as ale-py's (cule_py/continuous.py):
the paddle strength travels in each console's state row (ENV_PADDLE_REQUEST) and is adopted
with the action by the sticky-action draw.

Extensions over ale-py's (not checkable against it): `obs_type="ram"` (the 128 RAM bytes after
each step, stacked), `frameskip=(lo, hi)` (drawn per console and step from [lo, hi), from a
counter-based hash of the console's seed: reproducible and batch-size independent),
`episode_statistics=True` (Gymnasium's RecordEpisodeStatistics keys "episode" {"r", "l", "t"}
and "_episode" after every step, "r" the unclipped score, computed in the kernels: no extra host
work on the GPU), and `render_mode="rgb_array"` (`render()`: each console's last frame, for
gymnasium's vector RecordVideo; `render_frames(consoles)` on the env's device).

A step is one kernel call (cule_py/kernels/agent/agent_step.py) and, when a console resets, a second
one for the resets; a reset is one call. On device="cuda" the step's observations are a third,
a thread per console and band of output rows (`observation_bands`), and the step and reset
launches are always made (the reset kernel returns at once for consoles that do not reset),
on cupy's current stream, and `step`
returns cupy arrays without waiting for the GPU. Steps draw only the frames the observation
needs (`lazy_drawing`, default on; exact, see the kernel's module doc).
"""

from __future__ import annotations

import time
from collections import deque
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from gymnasium.spaces import Box, Discrete
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from . import continuous as continuous_
from . import palette as palette_
from ._device import CallClock, own_sm_threads
from ._threads import CompiledCalls, numba_threads, resolve_threads
from .area_resize import area_table, check_supported, tap_major_table
from .batch import ConsoleBatch, gpu_reset_blocks, gpu_step_registers
from .errors import (InvalidActionError, InvalidActionTypeError, InvalidArgumentError,
                     InvalidArgumentTypeError)
from .games import Action
from .kernels.agent import agent_step as K
from .kernels.cpu_workers import claim_counter
from .kernels import layout as L
from .kernels.ale import mt19937
from .kernels.ale import reset_snapshot
from .kernels.structs import Outputs, ResetTable, Saved, Screen

__all__ = ["AtariVectorEnv", "NEXT_STEP", "SAME_STEP", "DISABLED"]

NEXT_STEP = "NextStep"
SAME_STEP = "SameStep"
DISABLED = "Disabled"

# The GPU's observation launch: bands of output rows a console (84 rows: 7 each). At 16,384
# consoles that is 6,144 warps, ~12 a scheduler on an H100 where the step kernel has one (3 of
# them resident at once at agent_observe_cuda's 144 registers); each band reduces again at most
# one source row that the band above also reads (area resize shares boundary rows).
OBSERVATION_BANDS_GPU = 12


def _autoreset_name(mode) -> str:
    value = getattr(mode, "value", mode)
    aliases = {"nextstep": NEXT_STEP, "next_step": NEXT_STEP, "samestep": SAME_STEP,
               "same_step": SAME_STEP, "disabled": DISABLED}
    key = str(value).lower()
    if key not in aliases:
        raise ValueError(f"autoreset_mode must be NextStep, SameStep or Disabled, got {mode!r}")
    return aliases[key]


def _frameskip_range(frameskip) -> tuple[int, int]:
    """[lo, hi) of the frames per step: an int n gives [n, n+1); a (lo, hi) pair is cule_py's
    extension (ale-py's vector env takes ints only). Errors as ale-py's: gymnasium.error.Error."""
    if isinstance(frameskip, (bool, np.bool_)):
        raise InvalidArgumentTypeError(f"frameskip must be a positive int (or a (lo, hi) pair), "
                                       f"got the bool {frameskip!r}")
    if isinstance(frameskip, (int, np.integer)):
        if frameskip <= 0:
            raise InvalidArgumentError(f"frameskip must be positive, got {frameskip}")
        return int(frameskip), int(frameskip) + 1
    if isinstance(frameskip, (tuple, list)) and len(frameskip) == 2 and all(
            isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in frameskip):
        lo, hi = int(frameskip[0]), int(frameskip[1])
        if not 0 < lo < hi:
            raise InvalidArgumentError(f"a frameskip range (lo, hi) needs 0 < lo < hi, got "
                                       f"{tuple(frameskip)}")
        return lo, hi
    raise InvalidArgumentTypeError(f"frameskip must be a positive int (or a (lo, hi) pair of "
                                   f"ints), got {frameskip!r}")


class VectorALEView:
    """`envs.ale`: what code written against ale-py's ALEVectorInterface calls, on a cule_py
    vector env: reset(env_ids, seeds) (a seed -1 resets without reseeding), send(actions,
    paddle_strengths), recv(), get_action_set(), get_num_envs(), get_observation_shape()."""

    def __init__(self, env: AtariVectorEnv):
        self._env = env

    def get_num_envs(self) -> int:
        return self._env.num_envs

    def get_action_set(self) -> list:
        """ale_py.Action values, as ALEVectorInterface's."""
        import ale_py
        return [ale_py.Action(int(a)) for a in self._env.action_set]

    def get_observation_shape(self) -> tuple:
        return tuple(self._env.single_observation_space.shape)

    def reset(self, reset_indices, reset_seeds):
        """Reset the consoles `reset_indices`, console k with seed reset_seeds[k] (-1: no
        reseeding); the env's (obs, info), as its reset()."""
        env = self._env
        indices = np.asarray(reset_indices, np.int64).reshape(-1)
        seeds = np.asarray(reset_seeds, np.int64).reshape(-1)
        if seeds.shape != indices.shape:
            raise ValueError(f"reset needs one seed per env_id, got {len(seeds)} seeds for "
                             f"{len(indices)} env_ids")
        outside = indices[(indices < 0) | (indices >= env.num_envs)]
        if outside.size:
            raise IndexError(f"reset env_id {outside[0]} is out of range [0, {env.num_envs})")
        ids, counts = np.unique(indices, return_counts=True)
        if (counts > 1).any():
            raise ValueError(f"reset has a duplicate env_id={ids[counts > 1][0]}")
        result = None
        for seeded in (seeds >= 0, seeds < 0):
            if not seeded.any():
                continue
            mask = np.zeros(env.num_envs, np.bool_)
            mask[indices[seeded]] = True
            order = np.argsort(indices[seeded])       # reset() takes seeds in console order
            chosen = seeds[seeded][order] if (seeds[seeded] >= 0).all() else None
            options = None if mask.all() else {"reset_mask": mask}
            result = env.reset(seed=chosen, options=options)
        return result

    def send(self, actions, paddle_strengths=None) -> None:
        """One action (an index into the action set, as ale-py's) per console the last
        reset()/recv() returned."""
        if self._env.continuous:
            raise NotImplementedError("envs.ale.send with continuous actions: call "
                                      "envs.send(actions) with the (radius, theta, fire) rows")
        self._env.send(np.asarray(actions))

    def recv(self):
        return self._env.recv()


class AtariVectorEnv(VectorEnv):
    """`num_envs` copies of one game behind AtariVectorEnv's preprocessing (see module doc); a
    `gymnasium.vector.VectorEnv` (`metadata["autoreset_mode"]` an `AutoresetMode`, as ale-py's).

    Arguments as ale_py.vector_env.AtariVectorEnv (same defaults), plus `obs_type` ("rgb",
    "grayscale" or "ram"; default from `grayscale`), `seed` (the seeds before the first seeded
    reset; None: random, as ale-py's), `device` ("cpu", "cuda" or "cuda:N": cupy arrays),
    `episode_statistics` and `render_mode` (module doc) and
    `lazy_drawing` (False: draw every frame's pixels; results are the same either way).
    observation_bands: 0 makes each observation in the step kernel, B > 0 in a launch of its own
    after it, one thread per console and band of B of the output rows (None: the backend's way,
    0 on the CPU, OBSERVATION_BANDS_GPU on the GPU); results are the same either way.
    num_threads: threads for this env's CPU launches (the caller's and its helpers', each taking the
    next free console), ale-py's rule (0: min(num_envs, numba's thread count)); results do not
    depend on it. thread_affinity_offset is accepted and ignored (no thread is pinned).
    continuous=True takes
    float32 (radius, theta, fire) actions as ale-py's (cule_py/continuous.py).
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": ["rgb_array"],
                "render_fps": 60}

    def __init__(self, game: str, num_envs: int, *, batch_size: int = 0, num_threads: int = 0,
                 thread_affinity_offset: int = -1, max_num_frames_per_episode: int = 108000,
                 repeat_action_probability: float = 0.0, full_action_space: bool = False,
                 continuous: bool = False, continuous_action_threshold: float = 0.5,
                 autoreset_mode=NEXT_STEP, img_height: int = 84, img_width: int = 84,
                 grayscale: bool = True, stack_num: int = 4, frameskip=4, maxpool: bool = True,
                 noop_max: int = 30, episodic_life: bool = False, life_loss_info: bool = False,
                 reward_clipping: bool = True, use_fire_reset: bool = True,
                 obs_type: str | None = None, seed: int | None = None, device: str = "cpu",
                 lazy_drawing: bool = True, episode_statistics: bool = False,
                 render_mode: str | None = None, observation_bands: int | None = None):
        skip_lo, skip_hi = _frameskip_range(frameskip)
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) \
                or num_envs < 1:
            raise ValueError(f"num_envs must be a positive int, got {num_envs!r}")
        if isinstance(batch_size, bool) or not isinstance(batch_size, (int, np.integer)) \
                or not 0 <= batch_size <= num_envs:
            raise ValueError(f"batch_size must be 0 (every console each step) or 1..num_envs "
                             f"({num_envs}), got {batch_size!r}")
        del thread_affinity_offset        # see the class doc
        if observation_bands is not None and (
                isinstance(observation_bands, bool)
                or not isinstance(observation_bands, (int, np.integer)) or observation_bands < 0):
            raise ValueError(f"observation_bands must be None or an int >= 0, got "
                             f"{observation_bands!r}")
        self.continuous = bool(continuous)
        self.continuous_action_threshold = float(continuous_action_threshold)
        if render_mode not in (None, "rgb_array"):
            raise InvalidArgumentError(f"render_mode must be None or 'rgb_array' (frames for "
                                       f"gymnasium's vector RecordVideo), got {render_mode!r}")
        if obs_type is None:
            obs_type = "grayscale" if grayscale else "rgb"
        if obs_type not in ("rgb", "grayscale", "ram"):
            raise InvalidArgumentError(f"obs_type must be 'rgb', 'grayscale' or 'ram', got "
                                       f"{obs_type!r}")
        if stack_num < 1 or noop_max < 0:
            raise ValueError("stack_num must be >= 1 and noop_max >= 0")
        self.render_mode = render_mode
        if render_mode == "rgb_array" and obs_type == "ram":
            lazy_drawing = False        # a RAM step draws no pixels unless told to
        self._autoreset = _autoreset_name(autoreset_mode)
        self.autoreset_mode = AutoresetMode(self._autoreset)
        # render_fps: real time (NTSC: 60 frames a second; each step shows its last frame).
        self.metadata = {"autoreset_mode": self.autoreset_mode, "render_modes": ["rgb_array"],
                         "render_fps": max(1, round(60 / ((skip_lo + skip_hi - 1) / 2)))}
        self.device = device
        self.num_envs = int(num_envs)
        self.batch_size = int(batch_size) or self.num_envs
        self._threads = resolve_threads(num_threads, self.num_envs)
        self._calls = CompiledCalls()           # the CPU kernels, called once a step or more
        self.obs_type = obs_type
        if seed is None:
            seed = int(np.random.SeedSequence().generate_state(1)[0]) & 0x7FFFFFFF
        seeds = (int(seed) + np.arange(self.num_envs)) & 0xFFFFFFFF
        # ale-py's vector env leaves ALE's own truncation off and counts frames itself.
        self._batch = b = ConsoleBatch(game, self.num_envs, env_seed=seeds,
                                       repeat_action_probability=repeat_action_probability,
                                       max_num_frames_per_episode=0, device=device,
                                       power_on=False)
        self.game = b.game
        self.xp = xp = b.xp
        self._gpu = b.gpu
        # (the GPU's step kernel: its register budget, CULE_PY_GPU_STEP_REGISTERS, read here)
        self._step_kernel = None if b.gpu is None else K.STEP_KERNELS[gpu_step_registers()]
        # (and where its autoreset launch runs beside the step, CULE_PY_GPU_RESET_BLOCKS; the
        # block size that keeps it off the step's SMs, once both kernels are compiled: 0 none)
        self._reset_blocks = None if b.gpu is None else gpu_reset_blocks()
        self._own_sm_threads: int | None = None
        # ALE's legal set is 18 actions except where a game makes some illegal (skiing and
        # lost_luggage: 9), and ale-py's full action space is that legal set.
        ids = [int(a) for a in (b.game.legal_actions if full_action_space or continuous
                                else b.game.minimal_actions)]
        self.action_set = np.array(ids, np.int64)
        # Continuous actions become ALE ids (rows by id: an illegal id plays as NOOP, as ALE).
        self._action_rows = (b._act_rows if continuous
                             else b._act_rows[self.action_set]).astype(np.int32)
        n = self.num_envs
        channels = 3 if obs_type == "rgb" else 1
        self._screen_format = (obs_type, channels, img_height, img_width)
        # The screen's height and palette as the game's settings give them; power-on (PAL
        # detection) confirms them, or the screen arrays are made again (_make_screen_arrays).
        self._make_screen_arrays(b.height, b.pal)
        frame_size = 128 if obs_type == "ram" else img_height * img_width * channels
        frame_shape = ((128,) if obs_type == "ram" else (img_height, img_width, 3)
                       if obs_type == "rgb" else (img_height, img_width))
        # Observation bands (C_OBS_BANDS): on the GPU the step kernel cannot make observations
        # (kernels/agent/agent_step.observe_in_step); RAM observations are one band's work.
        bands = (int(observation_bands) if observation_bands is not None
                 else 0 if b.gpu is None else OBSERVATION_BANDS_GPU)
        if b.gpu is not None and bands == 0:
            raise ValueError("observation_bands=0 (observations inside the step kernel) is the "
                             "CPU's way; on the GPU use None or a number of bands >= 1")
        self._observation_bands = bands = min(bands, 1) if obs_type == "ram" else bands
        # two rows of float32 a band (agent_step.observe_rows)
        self._scratch = b.kernel_tiles((n, 2 * max(bands, 1), max(img_width * channels, 1)),
                                       np.float32)
        # Console-major even on the GPU: observations are returned as C-contiguous copies.
        self._obs = xp.zeros((n, stack_num, frame_size), np.uint8)
        self._obs_shape = (n, stack_num, *frame_shape)
        # Outputs.observations: on the CPU, while a step of every console runs, the new array
        # it returns (_step_cpu), else none; the GPU's kernels leave it alone.
        self._no_delivery = self._obs if b.gpu is not None else self._obs[:0]
        self._delivery = self._no_delivery
        self._delivered = None              # the last step's, until recv() returns it
        fire = use_fire_reset and int(Action.FIRE) in ids
        cfg = np.zeros(K.CFG_FIELDS, np.int32)
        cfg[K.C_SKIP_LO], cfg[K.C_SKIP_HI] = skip_lo, skip_hi
        cfg[K.C_MAXPOOL] = int(maxpool)
        cfg[K.C_EPISODIC] = int(episodic_life)
        cfg[K.C_LIFE_INFO] = int(life_loss_info)
        cfg[K.C_CLIP] = int(reward_clipping)
        cfg[K.C_MAX_FRAMES] = int(max_num_frames_per_episode)
        cfg[K.C_FIRE] = int(fire)
        cfg[K.C_NOOP_MAX] = int(noop_max)
        cfg[K.C_OBS] = {"grayscale": K.OBS_GRAY, "rgb": K.OBS_RGB, "ram": K.OBS_RAM}[obs_type]
        cfg[K.C_STACK] = stack_num
        cfg[K.C_SRC_H] = b.height
        cfg[K.C_CHANNELS] = channels
        cfg[K.C_DST_H], cfg[K.C_DST_W] = img_height, img_width
        cfg[K.C_AUTORESET] = {NEXT_STEP: K.AUTORESET_NEXT, SAME_STEP: K.AUTORESET_SAME,
                              DISABLED: K.AUTORESET_DISABLED}[self._autoreset]
        cfg[K.C_LAZY] = int(lazy_drawing)
        cfg[K.C_OBS_BANDS] = bands
        # The most system-RNG draws one step can take (see _resume_short_resets).
        self._draws_per_step = (2 + int(noop_max)) * (1 + b.cart_ram.shape[1])
        self._cfg_host = cfg
        self._cfg = b.to_device(cfg)
        self._action_rows = b.to_device(self._action_rows)
        # The step's snapshot of each console (kernels/agent/agent_step, lazy drawing).
        self._saved = Saved(st=b.zeros(b.state.shape, np.int32),
                            ram=b.zeros(b.memory.shape, np.uint8),
                            logic=b.zeros(b.logic.shape, np.int32))
        self._agent = b.zeros((n, K.AGENT_FIELDS), np.int32)
        # reset_game's input-free frames, played once per distinct state
        # (kernels/ale/reset_snapshot)
        self._reset_table = reset_snapshot.empty_table(
            b.state.shape[1], b.memory.shape[1], b.logic.shape[1], np.int32,
            L.FRAME_BUFFER_SHAPE, self.xp, direct_acts=K.most_tail_acts(fire, noop_max),
            direct_fires=(reset_snapshot.DIRECT_FIRES if b.gpu is not None
                          else reset_snapshot.DIRECT_FIRES_CPU),
            zeros=b.zeros)
        self._noop_mt = b.zeros((n, mt19937.MT_COLUMNS), np.int64)
        self._seed_noop_rng(np.ones(n, np.bool_), seeds)
        self._actions = b.zeros(n, np.int64)
        self._rewards = b.zeros(n, np.int32)
        self._terminated = b.zeros(n, np.bool_)
        self._truncated = b.zeros(n, np.bool_)
        self._lives = b.zeros(n, np.int32)
        self._all = np.ones(n, np.bool_)
        self._env_ids = xp.arange(n, dtype=np.int32)
        # send/recv: the consoles the last reset()/recv() returned (None: all), those stepping,
        # and (batch_size < num_envs) those stepped but not yet returned, first in first out.
        self._returned: np.ndarray | None = None
        self._in_flight = None
        self._ready: deque[int] = deque()
        self._all_ids = np.arange(n)
        self._send_mask = np.zeros(n, np.bool_)
        self._worker: ThreadPoolExecutor | None = None
        self._pending = None
        # SameStep autoreset: each console's last observation before its reset, and whether its
        # last step reset it (ale-py's info["final_obs"]).
        self._same_step = self._autoreset == SAME_STEP
        # NextStep autoreset: the consoles whose last step ended reset in this step instead of
        # stepping, in their own launch; on the GPU on a second stream, beside the step of the
        # others (a reset's 60+ frames held the whole batch after the step: 64% of Breakout's
        # step time on an H200).
        self._next_step = self._autoreset == NEXT_STEP
        self._side_stream = None
        # Who writes a launch's new start entry in the reset table: the first console that
        # misses (the GPU's rule, an atomic there) or a console the host names (the CPU's: its
        # threads have no atomics; benchmarks/reset_launches.py runs the GPU's on one thread).
        self._first_miss_writes = self._gpu is not None
        # GPU: the consoles of a reset launch packed into its first lanes (resetting_lanes_cuda).
        self._reset_lanes = xp.zeros(n, np.int32) if self._gpu is not None else None
        self._reset_count = xp.zeros(1, np.int32) if self._gpu is not None else None
        self._final_obs = xp.zeros(self._obs.shape, np.uint8) if self._same_step else None
        self._was_reset = xp.zeros(n, np.bool_)
        # episode_statistics: when each console's game began (perf_counter seconds).
        self._stats_start = xp.zeros(n, np.float64) if episode_statistics else None
        # GPU: the system-RNG draws the table still holds for certain, counted down by the most
        # a step can take, so that steps need no sync to know the table is long enough.
        self._rng_headroom = 0
        self._started = False
        # Off (None) unless cule_py.steady_state asks: then step times its autoreset launches.
        self._autoreset_clock: CallClock | None = None
        self._setup_spaces()
        # Power on, the kernels compiled first (on the CPU beside the console's compile).
        everyone = np.ones(n, np.bool_)
        b.start(kernels_ahead=[] if b.gpu is not None else [
            (K.agent_step_cpu, (*self._step_args(everyone), claim_counter())),
            (K.agent_reset_cpu, (*self._reset_args(K.OP_AUTORESET, everyone),
                               claim_counter())),
            (reset_snapshot.direct_tails_due, (self._reset_table.meta,))])
        if b.height != int(self._cfg_host[K.C_SRC_H]):
            self._make_screen_arrays(b.height, b.pal)
            self._cfg_host[K.C_SRC_H] = b.height
            self._cfg = b.to_device(self._cfg_host)
        elif obs_type != "ram" and b.pal != self._screen_pal:
            self._make_screen_arrays(b.height, b.pal)

    def _make_screen_arrays(self, src_h: int, pal: bool) -> None:
        """The arrays that depend on the screen's height and TV format: the palette, the two
        raw screens of the max-pool, the area-resize tables."""
        b = self._batch
        obs_type, channels, img_height, img_width = self._screen_format
        n = self.num_envs
        if obs_type == "ram":
            palette = np.zeros((256, 1), np.uint8)
            raw_shape = (n, 2, 1)
            tables = [np.zeros(1, np.int32), np.zeros(1, np.int32), np.zeros(1, np.float32)] * 2
        else:
            check_supported(src_h, 160, img_height, img_width)
            if obs_type == "rgb":
                palette = np.array(palette_.PAL_RGB if pal else palette_.NTSC_RGB, np.uint8)
            else:
                table = palette_.PAL_GRAY if pal else palette_.NTSC_GRAY
                palette = np.array(table, np.uint8).reshape(256, 1)
            raw_shape = (n, 2, src_h * 160 * channels)
            x_table = area_table(160, img_width)
            # The CPU's kernels read it by layer, the GPU's by destination (reduce_row,
            # compare_while_pooling).
            if self._gpu is None:
                x_table = tap_major_table(*x_table)
            tables = [*x_table, *area_table(src_h, img_height)]
        self._screen_pal = pal
        # The pooled screens and the resize's rows: the kernels' alone, in tiles on the GPU.
        self._raw = b.kernel_tiles(raw_shape, np.uint8)
        self._tables = [b.to_device(t) for t in tables]
        self._palette = b.to_device(palette)

    @property
    def ale(self) -> VectorALEView:
        """ale-py's `envs.ale` (its ALEVectorInterface) as far as cule_py has it."""
        return VectorALEView(self)

    def _setup_spaces(self):
        self.single_observation_space = Box(0, 255, self._obs_shape[1:], np.uint8)
        self.single_action_space = (continuous_.action_space() if self.continuous
                                    else Discrete(len(self.action_set)))
        self.observation_space = batch_space(self.single_observation_space, self.batch_size)
        self.action_space = batch_space(self.single_action_space, self.batch_size)

    # -- kernel plumbing ---------------------------------------------------------------------------
    def _screen(self) -> Screen:
        """How the kernels make observations (kernels/structs.Screen)."""
        return Screen(self._palette, self._raw, self._scratch, self._obs, *self._tables)

    def _kernel_outputs(self) -> Outputs:
        """Where the kernels write a step's per-console outputs (kernels/structs.Outputs)."""
        return Outputs(self._rewards, self._terminated, self._truncated, self._lives,
                       self._delivery)

    def _step_args(self, mask) -> tuple:
        """agent_step_cpu / agent_step_cuda's arguments, in order."""
        return (self._batch.console(), self._agent, self._cfg, self._action_rows, self._actions,
                self._screen(), self._kernel_outputs(), self._saved, mask)

    def _observe_args(self, mask) -> tuple:
        """agent_observe_cpu / agent_observe_cuda's arguments, in order."""
        b = self._batch
        return (b.memory, b.frame_buffers, self._screen(), self._cfg, self._agent, mask)

    def _step_kernels(self, mask) -> None:
        """The step launch on the consoles of `mask`, then the observation launch where the
        step leaves its observations to it (observation_bands > 0); no host sync on the GPU."""
        if self._gpu is None:
            self._calls.on_threads(self._threads, K.agent_step_cpu, self._step_args(mask))
            if self._observation_bands:
                with numba_threads(self._threads):
                    K.agent_observe_cpu(*self._observe_args(mask))
            return
        self._gpu.launch(self._step_kernel, self.num_envs, *self._step_args(mask))
        self._gpu.launch(K.agent_observe_cuda, self.num_envs * self._observation_bands,
                         *self._observe_args(mask))

    def _reset_args(self, op, mask) -> tuple:
        """agent_reset_cpu / agent_reset_cuda's arguments, in order."""
        b = self._batch
        return (op, b.console(), b.reset_tables(), self._noop_mt, self._agent, self._cfg,
                self._screen(), self._kernel_outputs(), self._reset_table, mask)

    def _reset_cuda_args(self, op, mask) -> tuple:
        """agent_reset_cuda's arguments: agent_reset_cpu's with the mask replaced by the packed
        lanes that resetting_lanes_cuda writes from it."""
        return (*self._reset_args(op, mask)[:-1], self._reset_lanes, self._reset_count)

    def _fill_args(self) -> tuple:
        """fill_tails_cuda's arguments, in order."""
        return (self._batch.console(), self._cfg, self._reset_table)

    def _launch_reset(self, op, mask, beside_step: bool = False) -> None:
        """`mask`: host bools, or on the GPU also a device array (used as it is). `beside_step`:
        the launch runs on the side stream, beside the step (NextStep)."""
        if self._gpu is not None and not self._gpu.is_device_array(mask):
            mask = self._batch.table(mask)
        reset_snapshot.open_launch(self._reset_table, mask,
                                   self._batch.state[:, L.SYSTEM_RNG_POSITION], self.xp,
                                   first_miss_writes=self._first_miss_writes)
        # The direct tails of start entries readable from now on, played before the resets
        # that may take them. On the CPU, each launch on no more threads than it has items: a
        # helper with nothing to claim still costs its start and join (~5-15 us), and most
        # autoreset launches reset one console and find no tail due.
        if self._gpu is None:
            if self._direct_lanes:
                due = self._calls(reset_snapshot.direct_tails_due, self._reset_table.meta)
                if due:
                    self._calls.on_threads(min(self._threads, due), K.agent_reset_cpu,
                                           self._reset_args(K.OP_FILL_TAILS, mask))
            threads = min(self._threads, max(int(np.count_nonzero(mask)), 1))
            self._calls.on_threads(threads, K.agent_reset_cpu, self._reset_args(op, mask))
        else:
            if self._direct_lanes:
                self._gpu.launch(K.fill_tails_cuda, self._direct_lanes, *self._fill_args())
            # (on the current stream, like the launches: no host sync, the count stays there)
            self._reset_count.fill(0)
            self._gpu.launch(K.resetting_lanes_cuda, self.num_envs, op, self._agent, mask,
                             self._reset_lanes, self._reset_count)
            threads = self._reset_threads_beside_step() if beside_step else None
            self._gpu.launch(K.agent_reset_cuda, self.num_envs, *self._reset_cuda_args(op, mask),
                             threads_per_block=threads)

    def _reset_threads_beside_step(self) -> int | None:
        """The block size of an autoreset launch beside the step: blocks that need a whole SM
        (own_sm_threads) where the step's grid leaves SMs empty and gpu_reset_blocks() is
        `own`, so that its lanes never take issue slots from a step warp; else the batch's
        (None). Decided once both kernels are compiled for this GPU (their registers)."""
        if self._reset_blocks != "own":
            return None
        if self._own_sm_threads is None:
            gpu = self._gpu
            device = gpu.device_limits()
            step = gpu.kernel_limits(self._step_kernel)
            reset = gpu.kernel_limits(K.agent_reset_cuda)
            if device is None or step is None or reset is None:
                return None
            self._own_sm_threads = own_sm_threads(self.num_envs, gpu.threads_per_block,
                                                  step[0], reset[0], reset[1], *device) or 0
        return self._own_sm_threads or None

    @property
    def _reset_table(self) -> ResetTable:
        """The reset_snapshot table (kernels/ale/reset_snapshot.empty_table)."""
        return self._table_arrays

    @_reset_table.setter
    def _reset_table(self, table: ResetTable) -> None:
        self._table_arrays = table
        self._direct_lanes = reset_snapshot.direct_lanes(self._batch.host(table.meta))

    def _run_reset_kernels(self, op, mask) -> None:
        self._launch_reset(op, mask)
        self._resume_short_resets(op)
        failed = self._batch.host(self._batch.state[:, L.ENV_SELECT_FAILED] != 0)
        if failed.any():
            raise RuntimeError(f"{self.game.rom_id}: consoles {np.nonzero(failed)[0].tolist()} "
                               f"never showed mode {self._batch.mode} in reset_game")

    def _resume_short_resets(self, op) -> None:
        """A reset stopped where the shared system-RNG table ran out: grow it, resume."""
        b = self._batch
        short = b.host(self._agent[:, K.A_RNG_SHORT] != 0)
        while short.any():
            b._ensure_system_rng(short)
            self._launch_reset(op, short)
            short = b.host(self._agent[:, K.A_RNG_SHORT] != 0)
        if self._gpu is not None:
            # Room for 4,096 more steps before the next look: a step resets a console at most
            # 2 + noop_max times (a game over among the noops resets again), each reset one
            # System reset drawing 1 + cartridge-RAM bytes.
            b._ensure_system_rng(self._all, extra=self._draws_per_step * 4096)
            top = int(b.host(b.state[:, L.SYSTEM_RNG_POSITION]).max())
            self._rng_headroom = len(b.rng) - top - 1 - b.cart_ram.shape[1]

    def _seed_noop_rng(self, mask, seeds) -> None:
        full = np.zeros(self.num_envs, np.int64)
        full[mask] = seeds
        generators = np.zeros((int(mask.sum()), mt19937.MT_COLUMNS), np.int64)
        mt19937.seed_generators(generators, full[mask], np.ones(len(generators), np.bool_))
        b = self._batch
        where = b.to_device(mask)
        self._noop_mt[b.rows(mask)] = b.to_device(generators)
        self._agent[where, K.A_SKIP_SEED] = b.to_device(
            (full[mask] & 0x7FFFFFFF).astype(np.int32))
        self._agent[where, K.A_STEPS] = 0

    def _reset_envs(self, mask, seeds=None) -> None:
        """AtariVectorEnv's reset of the sub-environments in `mask`: (with seeds: ALE random_seed
        and the noop RNG seeded, the ROM loaded again,) reset_game, fire, noops, first frame."""
        if not mask.any():
            return
        if seeds is not None:
            b = self._batch
            b.env_rng_seed[mask] = seeds
            b.power_on(mask)
            self._seed_noop_rng(mask, seeds)
        self._agent[self._batch.to_device(mask), K.A_REGAME] = 0
        self._run_reset_kernels(K.OP_RESET, mask)

    # -- the gymnasium vector API ----------------------------------------------------------------
    def reset(self, *, seed=None, options=None):
        """(obs, info). seed: an int gives the reset consoles seeds seed, seed+1, ... (in index
        order); an array gives one per reset console. options={"reset_mask": bool[num_envs]}
        resets only those consoles (after a first full reset, and only with batch_size ==
        num_envs, as ale-py). With batch_size < num_envs, every console resets and the first
        batch_size are returned (info["env_id"]); the rest come out of the next recv()s."""
        mask = self._all
        if options and options.get("reset_mask") is not None:
            mask = self._checked_reset_mask(options["reset_mask"])
        count = int(mask.sum())
        seeds = None
        if seed is not None:
            if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
                seeds = int(seed) + np.arange(count, dtype=np.int64)
            else:
                if isinstance(seed, (str, bytes, float, bool)) or seed is Ellipsis:
                    raise TypeError(f"seed must be an int or an array of ints, got "
                                    f"{type(seed).__name__}")
                seeds = np.asarray(seed)
                if seeds.dtype.kind not in "iu":
                    raise TypeError(f"seed must be an int or an array of ints, got dtype "
                                    f"{seeds.dtype}")
                seeds = seeds.astype(np.int64)
                if seeds.shape != (count,):
                    raise ValueError(f"seed must have one entry per sub-environment being "
                                     f"reset, expected shape ({count},), got {seeds.shape}")
            if (seeds < 0).any() or (seeds > 0xFFFFFFFF).any():
                raise ValueError("seeds must be in 0..2**32-1")
        self._finish_send()
        self._reset_envs(mask, seeds)
        self._started = True
        if self._stats_start is not None:
            self._stats_start[self._batch.to_device(mask)] = time.perf_counter()
        if self.batch_size == self.num_envs:
            self._returned = None
            return self._observation(None), self._info(None)
        self._ready = deque(range(self.num_envs))
        return self._pop_ready()

    def _checked_reset_mask(self, mask) -> np.ndarray:
        if self._gpu is not None and self._gpu.is_device_array(mask):
            mask = self.xp.asnumpy(self._gpu.as_cupy(mask))
        mask = np.asarray(mask)
        if mask.dtype != np.bool_:
            raise TypeError(f"reset_mask must be a boolean numpy array, got dtype {mask.dtype}")
        if mask.shape != (self.num_envs,):
            raise ValueError(f"reset_mask must have shape ({self.num_envs},), got {mask.shape}")
        mask = np.ascontiguousarray(mask)       # one type for the kernels (CompiledCalls)
        if not mask.all():
            if self.batch_size != self.num_envs:
                raise ValueError(f"a partial reset (reset_mask) is not supported in async "
                                 f"mode, where batch_size < num_envs (got batch_size="
                                 f"{self.batch_size}, num_envs={self.num_envs}): reset every "
                                 f"console, or make the env with batch_size == num_envs")
            if not self._started:
                raise RuntimeError(f"the first reset() must reset every console (reset_mask "
                                   f"selects {int(mask.sum())} of {self.num_envs})")
        return mask

    def step(self, actions):
        """(obs, rewards int32, terminated, truncated, info) of the consoles the last reset() or
        recv() returned (all of them unless batch_size < num_envs): send(actions), then recv()."""
        self._send(actions, background=False)
        return self.recv()

    def send(self, actions) -> None:
        """Start a step of the consoles the last reset() or recv() returned, one action each in
        info["env_id"] order. On the CPU the step runs on a worker thread (the kernels release
        the GIL) so the caller can compute while it runs; on the GPU it is queued on the stream.
        recv() collects it."""
        self._send(actions, background=True)

    def recv(self):
        """(obs, rewards, terminated, truncated, info) of `batch_size` consoles: all of them, or
        with batch_size < num_envs the first batch_size ready, first in first out (consoles
        stepped by the same send() become ready in index order; info["env_id"] says which).
        Deterministic on both backends."""
        self._finish_send()
        if self.batch_size == self.num_envs:
            return self._outputs(None)
        return self._pop_ready(stepped=True)

    def _send(self, actions, background: bool) -> None:
        if not self._started:
            raise RuntimeError("call reset() before step() or send()")
        if self._in_flight is not None:
            raise RuntimeError("send() was called again before recv(): each send() needs its "
                               "recv()")
        ids = self._returned
        if self._gpu is not None:
            self._send_gpu(actions, ids)
            self._in_flight = ids if ids is not None else self._all_ids
            return
        checked = self._checked_host_actions(actions)
        if self.continuous:
            checked = self._continuous_ids(checked, ids)
        if ids is None:
            self._actions[:] = checked
            mask = self._all
        else:
            self._actions[ids] = checked
            mask = self._send_mask
            mask[:] = False
            mask[ids] = True
        self._in_flight = ids if ids is not None else self._all_ids
        if background:
            if self._worker is None:
                self._worker = ThreadPoolExecutor(1, thread_name_prefix="cule_py-step")
            self._pending = self._worker.submit(self._step_cpu, mask)
        else:
            self._step_cpu(mask)

    def _step_cpu(self, mask) -> None:
        """The step's launches. With every console stepping and observations made in the
        step, its kernels fill the observation array the step returns (`_delivered`)."""
        delivering = mask is self._all and not self._observation_bands
        if delivering:
            self._delivery = np.empty(self._obs.shape, np.uint8)
        try:
            self._step_launches(mask)
        finally:
            if delivering:
                self._delivered, self._delivery = self._delivery, self._no_delivery

    def _step_launches(self, mask) -> None:
        # One step launch over the whole mask: under NextStep the kernel itself leaves the
        # consoles whose last step ended the game to the reset launch (A_RESET_NOW).
        self._step_kernels(mask)
        resets = (self._agent[:, K.A_RESET_NOW] != 0) & mask
        if self._same_step:
            self._was_reset[mask] = resets[mask]
            self._final_obs[resets] = self._obs[resets]
        if resets.any():
            # (the resetting consoles only: the reset table's writer is named among them)
            if self._autoreset_clock is None:
                self._run_reset_kernels(K.OP_AUTORESET, resets)
            else:
                self._autoreset_clock.time(self._run_reset_kernels, K.OP_AUTORESET, resets)

    def _split_next_step(self, mask):
        """NextStep: (stepping, resetting) consoles of `mask` (arrays on the batch's device). The
        resetting ones are those whose last step ended the game; their agent fields are set as
        the step kernel's own NextStep branch sets them (reset due, no game ended in this step),
        so that the reset launch can run apart from the step's, on other consoles."""
        xp = self.xp
        agent = self._agent
        resetting = (agent[:, K.A_NEEDS_RESET] != 0) & mask
        agent[:, K.A_RESET_NOW] = xp.where(resetting, 1, agent[:, K.A_RESET_NOW])
        agent[:, K.A_GAME_ENDED] = xp.where(resetting, 0, agent[:, K.A_GAME_ENDED])
        return mask & ~resetting, resetting

    def _finish_send(self) -> None:
        """Wait for the step in flight (if any) and queue its consoles as ready."""
        pending, self._pending = self._pending, None
        if pending is not None:
            pending.result()                    # re-raises what the worker raised
        if self._in_flight is not None:
            if self.batch_size != self.num_envs:
                self._ready.extend(int(i) for i in self._in_flight)
            self._in_flight = None
            self._returned = None if self.batch_size == self.num_envs else self._returned

    def _pop_ready(self, stepped: bool = False):
        if len(self._ready) < self.batch_size:
            raise RuntimeError(f"recv(): only {len(self._ready)} consoles are ready and none is "
                               f"stepping; call send() with actions for the {self.batch_size} "
                               f"consoles the last recv() returned first")
        ids = np.array([self._ready.popleft() for _ in range(self.batch_size)], np.int64)
        self._returned = ids
        if not stepped:
            return self._observation(ids), self._info(ids)
        return self._outputs(ids)

    def _outputs(self, ids):
        """step()'s five results for consoles `ids` (None: all, in index order)."""
        where = slice(None) if ids is None else self._device_ids(ids)
        rewards = self._rewards[where].copy()
        terminated = self._terminated[where].copy()
        truncated = self._truncated[where].copy()
        if ids is None and self._delivered is not None:
            obs, self._delivered = self._delivered.reshape(self._obs_shape), None
        else:
            obs = self._observation(ids)
        return obs, rewards, terminated, truncated, self._info(ids, stepped=True)

    def _device_ids(self, ids):
        return ids if self._gpu is None else self.xp.asarray(ids)

    def _send_gpu(self, actions, ids) -> None:
        """The step and the autoreset launches, no host sync: actions on the GPU are range-checked
        there (an error surfaces by the next call), host actions here; the system-RNG table's
        length is known good for `_rng_headroom` more draws, looked at again when that runs out."""
        g, b = self._gpu, self._batch
        if self.continuous:
            if g.is_device_array(actions):
                array = g.as_cupy(actions)
                continuous_.check_dtype_and_shape(array.dtype, array.shape, self.batch_size)
            else:
                array = self.xp.asarray(continuous_.checked_actions(actions, self.batch_size))
            checked = self._continuous_ids(array, ids)
        elif g.is_device_array(actions):
            checked = g.checked_device_ints(actions, (self.batch_size,), len(self.action_set),
                                            "step()")
        else:
            checked = self.xp.asarray(self._checked_host_actions(actions))
        if ids is None:
            self._actions[:] = checked
            mask = self._all
        else:
            self._actions[self.xp.asarray(ids)] = checked
            mask = self._send_mask
            mask[:] = False
            mask[ids] = True
        if self._rng_headroom < self._draws_per_step:
            self._resume_short_resets(K.OP_AUTORESET)
        self._rng_headroom -= self._draws_per_step
        device_mask = b.table(mask)
        if self._next_step:
            self._step_beside_resets(device_mask)
            return
        self._step_kernels(device_mask)
        if self._same_step:
            # Whether a console resets is on the GPU: keep every stepped console's observation
            # where it does (one pass over the observations; SameStep only).
            xp = self.xp
            resets = self._agent[:, K.A_RESET_NOW] != 0
            self._was_reset[...] = xp.where(device_mask, resets, self._was_reset)
            self._final_obs[...] = xp.where(resets[:, None, None], self._obs, self._final_obs)
        if self._autoreset_clock is None:
            self._launch_reset(K.OP_AUTORESET, mask)
        else:
            self._autoreset_clock.time(self._launch_reset, K.OP_AUTORESET, mask)

    def _step_beside_resets(self, device_mask) -> None:
        """NextStep on the GPU: the resets of the consoles whose last step ended on a second
        stream, the step of the others on the caller's, joined before anything else on the
        caller's stream. The two launches touch disjoint consoles (their masks); the shared
        tables are only read. A reset's frames no longer wait for the step's, nor the next
        step for the reset's lone lanes, when the GPU has room for both."""
        cp = self._gpu.cupy
        stepping, resetting = self._split_next_step(device_mask)
        main = cp.cuda.get_current_stream()
        if self._side_stream is None:
            self._side_stream = cp.cuda.Stream(non_blocking=True)
        side = self._side_stream
        side.wait_event(main.record())
        with side:
            if self._autoreset_clock is None:
                self._launch_reset(K.OP_AUTORESET, resetting, True)
            else:
                self._autoreset_clock.time(self._launch_reset, K.OP_AUTORESET, resetting, True)
        self._step_kernels(stepping)
        main.wait_event(side.record())

    # -- reset timing for cule_py.steady_state (off unless asked for) ------------------------------
    def _time_autoresets(self, on: bool = True) -> None:
        """Start (on) or stop timing the autoreset launches inside `step`; starting zeroes the
        sum. Off by default: `step` then pays one `is None` test per autoreset launch."""
        self._autoreset_clock = (CallClock(None if self._gpu is None else self._gpu.cupy)
                                 if on else None)

    def _autoreset_seconds(self) -> float:
        """Seconds spent in autoreset launches since timing started or since the last call, then
        zero (on the GPU: synchronize first; this waits for the events recorded)."""
        if self._autoreset_clock is None:
            raise RuntimeError("autoreset timing is off: call _time_autoresets() first")
        return self._autoreset_clock.take()

    def _continuous_ids(self, actions, ids):
        """ALE ids of continuous `actions` (float32 (batch_size, 3), host or device), as
        ale-py's send; their paddle strengths go to the consoles' state for the kernels."""
        xp = np if isinstance(actions, np.ndarray) else self.xp
        rows = None if ids is None else self._device_ids(ids)
        self._batch.set_paddle_deltas(continuous_.paddle_deltas(actions, xp), rows)
        return continuous_.joystick_actions(actions, self.continuous_action_threshold, xp)

    def _checked_host_actions(self, actions) -> np.ndarray:
        if self.continuous:
            return continuous_.checked_actions(actions, self.batch_size)
        actions = np.asarray(actions)
        if actions.dtype.kind not in "iu":
            raise InvalidActionTypeError(
                f"actions must be integer indices into the action set (any int dtype), got "
                f"dtype {actions.dtype}")
        if actions.shape != (self.batch_size,):
            raise InvalidActionError(f"actions must have shape ({self.batch_size},), one per "
                                     f"console returned, got {actions.shape}")
        if actions.size and (actions.min() < 0 or actions.max() >= len(self.action_set)):
            raise InvalidActionError(f"actions must be in 0..{len(self.action_set) - 1} (this "
                                     f"env's action set: {self.get_action_meanings()})")
        return actions

    def _observation(self, ids) -> np.ndarray:
        obs = self._obs.reshape(self._obs_shape)
        return obs.copy() if ids is None else obs[self._device_ids(ids)]

    def _info(self, ids, stepped: bool = False) -> dict:
        """ale-py's info keys and dtypes (int32 arrays): env_id, lives, frame_number,
        episode_frame_number; with episode_statistics, after a step, Gymnasium's "episode" /
        "_episode" as its RecordEpisodeStatistics writes them."""
        st = self._batch.state
        where = slice(None) if ids is None else self._device_ids(ids)
        env_id = (self._env_ids.copy() if ids is None
                  else self.xp.asarray(ids).astype(np.int32))
        info = {"env_id": env_id, "lives": self._lives[where].copy(),
                "frame_number": st[where, L.ENV_FRAME_NUMBER].astype(np.int32),
                "episode_frame_number": st[where, L.ENV_EPISODE_FRAME].astype(np.int32)}
        if stepped and self._same_step:
            # ale-py adds "final_obs" on steps where a console reset (its other rows are
            # whatever its buffer held; here zeros). On the GPU the key is always there: knowing
            # whether any console reset would need a host sync.
            reset = self._was_reset[where]
            if self._gpu is not None or reset.any():
                final = self._final_obs.reshape(self._obs_shape)[where]
                info["final_obs"] = final * reset.reshape((-1,) + (1,) * (final.ndim - 1))
        if stepped and self._stats_start is not None:
            info["episode"], info["_episode"] = self._episode_statistics(where)
        return info

    def _episode_statistics(self, where):
        """({"r", "l", "t"}, ended) for the consoles `where`: the game score (unclipped) and agent
        steps of each game that the last step ended, and seconds since it began; zeros elsewhere.
        Games, not lives: with episodic_life a game's lives are one episode here."""
        xp = self.xp
        ended = self._agent[where, K.A_GAME_ENDED] != 0
        now = time.perf_counter()
        start = self._stats_start[where]
        stats = {"r": xp.where(ended, self._agent[where, K.A_FINAL_RETURN], 0).astype(np.float64),
                 "l": xp.where(ended, self._agent[where, K.A_FINAL_LENGTH], 0).astype(np.int64),
                 "t": xp.where(ended, xp.round(now - start, 6), 0.0)}
        self._stats_start[where] = xp.where(ended, now, start)
        return stats, ended

    def render(self) -> tuple[np.ndarray, ...]:
        """The last frame of every console, a tuple of RGB (height, 160, 3) uint8 numpy arrays,
        as gymnasium's vector envs render (what its vector RecordVideo reads). Needs
        render_mode="rgb_array". `render_frames(consoles)` converts only the consoles asked for
        (on the GPU: without copying the others to the host)."""
        if self.render_mode != "rgb_array":
            raise InvalidArgumentError(f"render() needs render_mode='rgb_array' at construction "
                                       f"(this env has render_mode={self.render_mode!r})")
        frames = self.render_frames()
        frames = frames if isinstance(frames, np.ndarray) else frames.get()
        return tuple(frames)

    def render_frames(self, consoles=None):
        """(k, height, 160, 3) uint8 RGB of the last frame of `consoles` (indices; None: all), on
        the env's device (cupy on the GPU). Works whatever the render_mode, but with obs_type
        "ram" only render_mode="rgb_array" makes the steps draw their frames."""
        b = self._batch
        ids = np.arange(self.num_envs) if consoles is None else np.asarray(consoles, np.int64)
        if ids.ndim != 1 or (ids.size and (ids.min() < 0 or ids.max() >= self.num_envs)):
            raise IndexError(f"consoles must be indices in 0..{self.num_envs - 1}")
        return b.screens_rgb(self._device_ids(ids))

    def get_action_meanings(self) -> list[str]:
        return [Action(int(a)).name for a in self.action_set]

    def close_extras(self, **kwargs) -> None:
        self._finish_send()
        if self._worker is not None:
            self._worker.shutdown()
            self._worker = None

    def __repr__(self) -> str:
        return (f"AtariVectorEnv({self.game.rom_id!r}, num_envs={self.num_envs}, "
                f"obs_type={self.obs_type!r}, autoreset_mode={self._autoreset!r})")
