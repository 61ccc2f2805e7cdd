"""`AtariVectorEnv`: ale-py's vector environment (ale_py.vector_env.AtariVectorEnv) on cule_py
consoles, with the same constructor arguments, defaults and results.

    env = AtariVectorEnv("breakout", num_envs=8)
    obs, info = env.reset(seed=0)                    # obs (8, 4, 84, 84) uint8
    obs, rewards, terminated, truncated, info = env.step(np.zeros(8, np.int64))

Sub-environment i after `reset(seed=s)` equals AtariVectorEnv's sub-environment i after the same
call (ALE random_seed s + i for sticky actions, the same seed for the noop-start RNG), step for
step: observations, rewards, terminations, truncations, lives and frame counters.

Extensions over ale-py's (not checkable against it): `obs_type="ram"` (the 128 RAM bytes after
each step, stacked), `frameskip=(lo, hi)` (drawn per console and step from [lo, hi), from a
counter-based hash of the console's seed: reproducible and batch-size independent), and
per-console statistics of each finished game in `info` ("episode_return": unclipped reward,
"episode_length": agent steps, "episode_ended": which consoles' games the step ended).

A step is one kernel call (cule_py/kernels/agent_step.py) and, when a console resets, a second
one for the resets; a reset is one call. On device="cuda" both are always launched (the reset
kernel returns at once for consoles that do not reset), on cupy's current stream, and `step`
returns cupy arrays without waiting for the GPU (see `step`). Steps draw only the frames the observation needs (`lazy_drawing`,
default on; exact, see the kernel's module doc).
"""

from __future__ import annotations

import numpy as np
from gymnasium.spaces import Box, Discrete
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from . import palette as palette_
from ._device import CallClock
from ._threads import numba_threads, resolve_threads
from .area_resize import area_table, check_supported
from .batch import ConsoleBatch
from .games import Action
from .kernels import agent_step as K
from .kernels import layout as L
from .kernels import mt19937

__all__ = ["AtariVectorEnv", "NEXT_STEP", "SAME_STEP", "DISABLED"]

NEXT_STEP = "NextStep"
SAME_STEP = "SameStep"
DISABLED = "Disabled"


def _autoreset_name(mode) -> str:
    value = getattr(mode, "value", mode)
    aliases = {"nextstep": NEXT_STEP, "next_step": NEXT_STEP, "samestep": SAME_STEP,
               "same_step": SAME_STEP, "disabled": DISABLED}
    key = str(value).lower()
    if key not in aliases:
        raise ValueError(f"autoreset_mode must be NextStep, SameStep or Disabled, got {mode!r}")
    return aliases[key]


class AtariVectorEnv(VectorEnv):
    """`num_envs` copies of one game behind AtariVectorEnv's preprocessing (see module doc); a
    `gymnasium.vector.VectorEnv` (`metadata["autoreset_mode"]` an `AutoresetMode`, as ale-py's).

    Arguments as ale_py.vector_env.AtariVectorEnv (same defaults), plus `obs_type` ("rgb",
    "grayscale" or "ram"; default from `grayscale`), `seed` (the seeds before the first seeded
    reset; None: random, as ale-py's), `device` ("cpu", "cuda" or "cuda:N": cupy arrays) and
    `lazy_drawing` (False: draw every frame's pixels; results are the same either way).
    num_threads: numba threads for this env's launches, ale-py's rule (0: min(num_envs, the
    threads numba has)); results do not depend on it.
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(self, game: str, num_envs: int, *, max_num_frames_per_episode: int = 108000,
                 repeat_action_probability: float = 0.0, full_action_space: bool = False,
                 autoreset_mode=NEXT_STEP, img_height: int = 84, img_width: int = 84,
                 grayscale: bool = True, stack_num: int = 4, frameskip=4, maxpool: bool = True,
                 noop_max: int = 30, episodic_life: bool = False, life_loss_info: bool = False,
                 reward_clipping: bool = True, use_fire_reset: bool = True,
                 obs_type: str | None = None, seed: int | None = None, device: str = "cpu",
                 lazy_drawing: bool = True, num_threads: int = 0):
        if isinstance(frameskip, bool):
            raise TypeError("frameskip must be an int or a (lo, hi) pair")
        if isinstance(frameskip, (int, np.integer)):
            if frameskip <= 0:
                raise ValueError(f"frameskip must be positive, got {frameskip}")
            skip_lo, skip_hi = int(frameskip), int(frameskip) + 1
        else:
            skip_lo, skip_hi = (int(v) for v in frameskip)
            if not 0 < skip_lo < skip_hi:
                raise ValueError(f"frameskip range (lo, hi) needs 0 < lo < hi, got {frameskip}")
        if obs_type is None:
            obs_type = "grayscale" if grayscale else "rgb"
        if obs_type not in ("rgb", "grayscale", "ram"):
            raise ValueError(f"obs_type must be 'rgb', 'grayscale' or 'ram', got {obs_type!r}")
        if stack_num < 1 or noop_max < 0:
            raise ValueError("stack_num must be >= 1 and noop_max >= 0")
        self._autoreset = _autoreset_name(autoreset_mode)
        self.autoreset_mode = AutoresetMode(self._autoreset)
        self.metadata = {"autoreset_mode": self.autoreset_mode}
        self.device = device
        self.num_envs = int(num_envs)
        self._threads = resolve_threads(num_threads, self.num_envs)
        self.obs_type = obs_type
        if seed is None:
            seed = int(np.random.SeedSequence().generate_state(1)[0]) & 0x7FFFFFFF
        seeds = (int(seed) + np.arange(self.num_envs)) & 0xFFFFFFFF
        # ale-py's vector env leaves ALE's own truncation off and counts frames itself.
        self._batch = b = ConsoleBatch(game, self.num_envs, env_seed=seeds,
                                       repeat_action_probability=repeat_action_probability,
                                       max_num_frames_per_episode=0, device=device)
        self.game = b.game
        self.xp = xp = b.xp
        self._gpu = b.gpu
        # ALE's legal set is 18 actions except where a game makes some illegal (skiing and
        # lost_luggage: 9), and ale-py's full action space is that legal set.
        ids = [int(a) for a in (b.game.legal_actions if full_action_space
                                else b.game.minimal_actions)]
        self.action_set = np.array(ids, np.int64)
        self._action_rows = b._act_rows[self.action_set].astype(np.int32)
        n = self.num_envs
        src_h = b.height
        pal = b.pal
        channels = 3 if obs_type == "rgb" else 1
        if obs_type == "ram":
            self._palette = np.zeros((256, 1), np.uint8)
            frame_shape, frame_size = (128,), 128
            raw_shape = (n, 2, 1)
            tables = [np.zeros(1, np.int32), np.zeros(1, np.int32), np.zeros(1, np.float32)] * 2
        else:
            check_supported(src_h, 160, img_height, img_width)
            if obs_type == "rgb":
                self._palette = np.array(palette_.PAL_RGB if pal else palette_.NTSC_RGB, np.uint8)
                frame_shape = (img_height, img_width, 3)
            else:
                table = palette_.PAL_GRAY if pal else palette_.NTSC_GRAY
                self._palette = np.array(table, np.uint8).reshape(256, 1)
                frame_shape = (img_height, img_width)
            frame_size = img_height * img_width * channels
            raw_shape = (n, 2, src_h * 160 * channels)
            tables = [*area_table(160, img_width), *area_table(src_h, img_height)]
        self._raw = b.zeros(raw_shape, np.uint8)
        self._tables = [b.to_device(t) for t in tables]
        self._palette = b.to_device(self._palette)
        self._scratch = b.zeros((n, 2, max(img_width * channels, 1)), np.float32)
        # Console-major even on the GPU: observations are returned as C-contiguous copies.
        self._obs = xp.zeros((n, stack_num, frame_size), np.uint8)
        self._obs_shape = (n, stack_num, *frame_shape)
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
        cfg[K.C_SRC_H] = src_h
        cfg[K.C_CHANNELS] = channels
        cfg[K.C_DST_H], cfg[K.C_DST_W] = img_height, img_width
        cfg[K.C_AUTORESET] = {NEXT_STEP: K.AUTORESET_NEXT, SAME_STEP: K.AUTORESET_SAME,
                              DISABLED: K.AUTORESET_DISABLED}[self._autoreset]
        cfg[K.C_LAZY] = int(lazy_drawing)
        # The most system-RNG draws one step can take (see _resume_short_resets).
        self._draws_per_step = (2 + int(noop_max)) * (1 + b.cart_ram.shape[1])
        self._cfg = b.to_device(cfg)
        self._action_rows = b.to_device(self._action_rows)
        self._saved_state = b.zeros(b.state.shape, np.int32)
        self._saved_memory = b.zeros(b.memory.shape, np.uint8)
        self._saved_logic = b.zeros(b.logic.shape, np.int32)
        self._agent = b.zeros((n, K.AGENT_FIELDS), np.int32)
        self._noop_mt = b.zeros((n, mt19937.MT_COLUMNS), np.int64)
        self._seed_noop_rng(np.ones(n, np.bool_), seeds)
        self._actions = b.zeros(n, np.int64)
        self._rewards = b.zeros(n, np.int32)
        self._terminated = b.zeros(n, np.bool_)
        self._truncated = b.zeros(n, np.bool_)
        self._lives = b.zeros(n, np.int32)
        self._all = np.ones(n, np.bool_)
        self._env_ids = xp.arange(n, dtype=np.int32)
        # GPU: the system-RNG draws the table still holds for certain, counted down by the most
        # a step can take, so that steps need no sync to know the table is long enough.
        self._rng_headroom = 0
        self._started = False
        # Off (None) unless cule_py.steady_state asks: then step times its autoreset launches.
        self._autoreset_clock: CallClock | None = None
        self._setup_spaces()

    def _setup_spaces(self):
        self.single_observation_space = Box(0, 255, self._obs_shape[1:], np.uint8)
        self.single_action_space = Discrete(len(self.action_set))
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)

    # -- kernel plumbing ---------------------------------------------------------------------------
    def _step_args(self, mask) -> tuple:
        """agent_step_cpu / agent_step_cuda's arguments, in order."""
        b = self._batch
        xd, xs, xa, yd, ys, ya = self._tables
        return (b.rom_bytes, b.scheme, b.memory, b.state, b.frame_buffers, b.logic,
                b.table(b._params), b.table(b._inputs(b.difficulty)), b.env_rng,
                b._threshold(), self._agent, self._cfg,
                self._action_rows, self._actions, self._palette, self._raw, xd, xs, xa, yd, ys,
                ya, self._scratch, self._obs, self._rewards, self._terminated, self._truncated,
                self._lives, self._saved_state, self._saved_memory, self._saved_logic, mask)

    def _reset_args(self, op, mask) -> tuple:
        """agent_reset_cpu / agent_reset_cuda's arguments, in order."""
        b = self._batch
        select, shown = b._selection
        xd, xs, xa, yd, ys, ya = self._tables
        return (op, b.rom_bytes, b.scheme, b.memory, b.state, b.frame_buffers, b.logic,
                b.table(b._params), b.table(b._inputs(b.difficulty)), b.env_rng,
                b._threshold(), b.rng, b.table(select), b.table(shown),
                b.table(b._starting), self._agent, self._noop_mt, self._cfg, self._palette,
                self._raw, xd, xs, xa, yd, ys, ya, self._scratch, self._obs, self._rewards,
                self._terminated, self._truncated, self._lives, mask)

    def _run_reset(self, op, mask) -> None:
        with numba_threads(self._threads):
            self._run_reset_kernels(op, mask)

    def _launch_reset(self, op, mask) -> None:
        if self._gpu is None:
            K.agent_reset_cpu(*self._reset_args(op, mask))
        else:
            self._gpu.launch(K.agent_reset_cuda, self.num_envs,
                             *self._reset_args(op, self._batch.table(mask)))

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
        self._run_reset(K.OP_RESET, mask)

    # -- the gymnasium vector API ----------------------------------------------------------------
    def reset(self, *, seed=None, options=None):
        """(obs, info). seed: an int gives the reset consoles seeds seed, seed+1, ... (in index
        order); an array gives one per reset console. options={"reset_mask": bool[num_envs]}
        resets only those consoles."""
        mask = self._all
        if options and options.get("reset_mask") is not None:
            mask = options["reset_mask"]
            if self._gpu is not None and self._gpu.is_device_array(mask):
                mask = self.xp.asnumpy(self._gpu.as_cupy(mask))
            mask = np.asarray(mask)
            if mask.shape != (self.num_envs,) or mask.dtype != np.bool_:
                raise ValueError(f"reset_mask must be {self.num_envs} bools")
        count = int(mask.sum())
        seeds = None
        if seed is not None:
            if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
                seeds = int(seed) + np.arange(count, dtype=np.int64)
            else:
                seeds = np.asarray(seed, np.int64)
                if seeds.shape != (count,):
                    raise ValueError(f"seed must have one entry per reset console ({count}), "
                                     f"got shape {seeds.shape}")
            if (seeds < 0).any() or (seeds > 0xFFFFFFFF).any():
                raise ValueError("seeds must be in 0..2**32-1")
        self._reset_envs(mask, seeds)
        self._started = True
        return self._observation(), self._info()

    def step(self, actions):
        """(obs, rewards int32, terminated, truncated, info), AtariVectorEnv's semantics for the
        autoreset mode."""
        if not self._started:
            raise RuntimeError("call reset() before step()")
        if self._gpu is not None:
            self._step_gpu(actions)
        else:
            self._actions[:] = self._checked_host_actions(actions)
            with numba_threads(self._threads):
                K.agent_step_cpu(*self._step_args(self._all))
                if (self._agent[:, K.A_RESET_NOW] != 0).any():
                    if self._autoreset_clock is None:
                        self._run_reset_kernels(K.OP_AUTORESET, self._all)
                    else:
                        self._autoreset_clock.time(self._run_reset_kernels,
                                                   K.OP_AUTORESET, self._all)
        ended = self._agent[:, K.A_GAME_ENDED] != 0
        rewards = self._rewards.copy()
        terminated = self._terminated.copy()
        truncated = self._truncated.copy()
        stats = (ended, self._agent[:, K.A_FINAL_RETURN].copy(),
                 self._agent[:, K.A_FINAL_LENGTH].copy())
        return self._observation(), rewards, terminated, truncated, self._info(stats)

    def _step_gpu(self, actions) -> None:
        """The step and the autoreset launches, no host sync: actions on the GPU are range-checked
        there (an error surfaces by the next call), host actions here; the system-RNG table's
        length is known good for `_rng_headroom` more draws, looked at again when that runs out."""
        g, b = self._gpu, self._batch
        if g.is_device_array(actions):
            self._actions[:] = g.checked_device_ints(actions, (self.num_envs,),
                                                     len(self.action_set), "step()")
        else:
            self._actions[:] = self.xp.asarray(self._checked_host_actions(actions))
        if self._rng_headroom < self._draws_per_step:
            self._resume_short_resets(K.OP_AUTORESET)
        self._rng_headroom -= self._draws_per_step
        g.launch(K.agent_step_cuda, self.num_envs, *self._step_args(b.table(self._all)))
        if self._autoreset_clock is None:
            self._launch_reset(K.OP_AUTORESET, self._all)
        else:
            self._autoreset_clock.time(self._launch_reset, K.OP_AUTORESET, self._all)

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

    def _checked_host_actions(self, actions) -> np.ndarray:
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,) or actions.dtype.kind not in "iu":
            raise ValueError(f"actions must be {self.num_envs} integer indices into the "
                             f"action set, got shape {actions.shape} dtype {actions.dtype}")
        if actions.size and (actions.min() < 0 or actions.max() >= len(self.action_set)):
            raise ValueError(f"actions must be in 0..{len(self.action_set) - 1}")
        return actions

    def _observation(self) -> np.ndarray:
        return self._obs.reshape(self._obs_shape).copy()

    def _info(self, stats=None) -> dict:
        st = self._batch.state
        xp = self.xp
        lives = self._lives.copy()        # the kernels keep it current: no second pass
        info = {"env_id": self._env_ids.copy(), "lives": lives,
                "frame_number": st[:, L.ENV_FRAME_NUMBER].astype(np.int32),
                "episode_frame_number": st[:, L.ENV_EPISODE_FRAME].astype(np.int32)}
        if stats is not None:
            ended, ret, length = stats
            info["episode_ended"] = ended
            info["episode_return"] = xp.where(ended, ret, 0).astype(np.int32)
            info["episode_length"] = xp.where(ended, length, 0).astype(np.int32)
        return info

    def get_action_meanings(self) -> list[str]:
        return [Action(int(a)).name for a in self.action_set]

    def close_extras(self, **kwargs) -> None:
        pass     # host arrays only: nothing to release

    def __repr__(self) -> str:
        return (f"AtariVectorEnv({self.game.rom_id!r}, num_envs={self.num_envs}, "
                f"obs_type={self.obs_type!r}, autoreset_mode={self._autoreset!r})")
