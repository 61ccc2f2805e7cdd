"""Gymnasium environments on cule_py consoles: drop-in counterparts of ale-py's.

    envs = cule_py.make_vec("ALE/Pong-v5", num_envs=8)         # as gymnasium.make_vec("ALE/Pong-v5", 8)
    env = cule_py.make("ALE/Pong-v5")                          # as gymnasium.make("ALE/Pong-v5")
    envs = gymnasium.make_vec("cule_py/Pong-v5", num_envs=8)   # the registered ids, after import cule_py

`make_vec` builds `cule_py.vector.AtariVectorEnv` (ale-py's AtariVectorEnv semantics, exact) and,
for `array_type="torch"`, wraps it so every array comes back as a torch tensor sharing the
env's memory. `AtariEnv` is ale-py's single `AtariEnv` (raw screens, frameskip, sticky actions,
`unwrapped.ale`) on one console. docs/gymnasium.md lists the ids, the argument mapping and every
known deviation from ale-py.
"""

from __future__ import annotations

import difflib
import importlib.util
import operator
import os
import re
import sys
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from gymnasium.vector import VectorEnv, VectorWrapper

from . import continuous as continuous_
from ._device import gpu_available, parse_device, require_cuda
from .emulator import AtariEmulator, EmulatorState
from .kernels.tia import tia_sound
from .errors import (ActionOutOfRangeError, InvalidArgumentError, InvalidArgumentTypeError,
                     UnknownEnvIdError)
from .games import Action
from .vector import AtariVectorEnv

__all__ = ["AtariEnv", "ALEInterfaceView", "make", "make_vec", "vector_entry_point",
           "VECTOR_ARGUMENTS", "ARRAY_TYPES"]

ARRAY_TYPES = ("numpy", "torch", "cupy", "jax")

# ale-py's AtariVectorEnv keyword names (defaults: AtariVectorEnv's, which equal ale-py's; the
# tests compare both signatures), then cule_py's own extensions.
_ALE_VECTOR_NAMES = ("batch_size", "num_threads", "thread_affinity_offset",
                     "max_num_frames_per_episode", "repeat_action_probability",
                     "full_action_space", "continuous", "continuous_action_threshold",
                     "autoreset_mode", "img_height", "img_width", "grayscale", "stack_num",
                     "frameskip", "maxpool", "noop_max", "episodic_life", "life_loss_info",
                     "reward_clipping", "use_fire_reset")
_OWN_VECTOR_NAMES = ("obs_type", "seed", "lazy_drawing", "episode_statistics", "render_mode",
                     "observation_bands")
#: Every keyword `make_vec` takes besides env_id, num_envs, device and array_type.
VECTOR_ARGUMENTS = _ALE_VECTOR_NAMES + _OWN_VECTOR_NAMES
# Arguments of the single env that the vector env (ale-py's too) has no counterpart for.
_SINGLE_ONLY = ("mode", "difficulty", "sound_obs")
_GYM_ID = re.compile(r"^(?:[\w:-]+/)?[\w:.-]+-v\d+$")


# -- ids ---------------------------------------------------------------------------------------
def _atari_spec(env_id: str) -> gymnasium.envs.registration.EnvSpec | None:
    """The registered spec of an ALE id ("ALE/Pong-v5", "PongNoFrameskip-v4") or of its
    cule_py twin ("cule_py/Pong-v5"); None for anything else."""
    from . import registration

    registration.register_envs()            # ale-py's ids and ours, once
    spec = gymnasium.envs.registry.get(env_id)
    if spec is None or spec.entry_point not in (registration.ALE_ENTRY_POINT,
                                                registration.ENTRY_POINT):
        return None
    return spec


def _unknown_id(env_id: str) -> UnknownEnvIdError:
    from . import registration

    known = registration.atari_ids()
    close = difflib.get_close_matches(env_id, known, n=3, cutoff=0.6)
    hint = f" Did you mean {', '.join(repr(c) for c in close)}?" if close else ""
    return UnknownEnvIdError(
        f"{env_id!r} is not a registered Atari env id.{hint} Use an ALE id such as "
        f"'ALE/Pong-v5' or 'PongNoFrameskip-v4', its cule_py twin 'cule_py/Pong-v5', or a rom "
        f"id such as 'pong' (cule_py.games.game_names()).")


def _resolve(env_id) -> tuple[str, dict, str | None]:
    """(game, the spec's registered kwargs without game, the spec's id or None for a ROM id)."""
    if not isinstance(env_id, str):
        raise TypeError(f"env_id must be a string such as 'ALE/Pong-v5' or 'pong', got "
                        f"{type(env_id).__name__}")
    spec = _atari_spec(env_id)
    if spec is not None:
        kwargs = dict(spec.kwargs)
        return kwargs.pop("game"), kwargs, spec.id
    if (_GYM_ID.match(env_id) or "/" in env_id) and not os.path.exists(env_id):
        raise _unknown_id(env_id)
    return env_id, {}, None


# -- devices and array types --------------------------------------------------------------------
_gpu_available = gpu_available


def _resolve_device(device: str | None) -> str:
    """The device string: None picks the GPU where there is one."""
    if device is None:
        return "cuda" if _gpu_available() else "cpu"
    where = parse_device(device)
    if where.kind == "cuda":
        require_cuda(where.index)           # no GPU: an error that names device="cpu"
    return device


def _resolve_array_type(array_type: str | None, device: str) -> str:
    on_gpu = device != "cpu"
    if array_type is None:
        # CPU: numpy (the env's own arrays). GPU: cupy, the env's own device arrays; torch users
        # pass array_type="torch" and get the same memory through DLPack.
        return "cupy" if on_gpu else "numpy"
    if array_type not in ARRAY_TYPES:
        raise ValueError(f"array_type must be one of {ARRAY_TYPES} or None, got {array_type!r}")
    if array_type == "cupy" and not on_gpu:
        raise ValueError("array_type='cupy' returns GPU arrays, but this env runs on the CPU "
                         "(device='cpu'); use array_type='numpy' or 'torch' (CPU tensors, no copy)")
    if array_type == "torch" and importlib.util.find_spec("torch") is None:
        raise ImportError("array_type='torch' needs PyTorch: pip install torch")
    if array_type == "jax" and importlib.util.find_spec("jax") is None:
        raise gymnasium.error.DependencyNotInstalled(
            "array_type='jax' needs JAX: pip install 'cule_py[jax]' (or jax[cuda13] for the GPU)")
    return array_type


def _host(value) -> np.ndarray:
    """A numpy array of a host or cupy array (masks and seeds: small, and reset waits anyway)."""
    return value.get() if hasattr(value, "__cuda_array_interface__") else np.asarray(value)


class ArrayTypeWrapper(VectorWrapper):
    """Returns the env's arrays (observations, rewards, flags and info arrays) as torch tensors,
    cupy arrays or jax arrays without copying them where they already live: `torch.from_numpy`
    on the CPU, DLPack from device arrays on the GPU (jax on the CPU copies host arrays that do
    not meet XLA's alignment). Takes actions as numpy arrays, lists, torch tensors or jax arrays
    (on the GPU through DLPack, no copy)."""

    def __init__(self, env: VectorEnv, array_type: str):
        super().__init__(env)
        self.array_type = array_type
        self._torch = self._jax = None
        if array_type == "torch":
            import torch
            self._torch = torch
        elif array_type == "jax":
            import jax
            self._jax = jax

    def _out(self, value):
        if isinstance(value, dict):
            return {k: self._out(v) for k, v in value.items()}
        if not hasattr(value, "__array__") and not hasattr(value, "__dlpack__"):
            return value
        if self.array_type == "torch":
            if isinstance(value, np.ndarray):
                return self._torch.from_numpy(value)     # shares the (fresh) host array
            return self._torch.from_dlpack(value)        # device arrays: shared, no copy
        if self.array_type == "jax":
            return self._jax.dlpack.from_dlpack(value)
        if self.array_type == "numpy":
            return value if isinstance(value, np.ndarray) else value.get()
        return value                                     # cupy: the env's device arrays

    def _in(self, value):
        # torch and jax actions are welcome whatever the array type; if torch (jax) was never
        # imported, the value cannot be a tensor (a jax array).
        torch = self._torch or sys.modules.get("torch")
        on_gpu = getattr(self.env.unwrapped, "device", "cpu") != "cpu"
        if torch is not None and isinstance(value, torch.Tensor):
            value = value.detach()
            if value.device.type == "cpu":
                return value.numpy()
            if on_gpu:
                import cupy
                return cupy.from_dlpack(value)
            return value.cpu().numpy()
        jax = self._jax or sys.modules.get("jax")
        if jax is not None and isinstance(value, jax.Array):
            if on_gpu and next(iter(value.devices())).platform == "gpu":
                import cupy
                return cupy.from_dlpack(value)
            return np.asarray(value)
        return value

    def reset(self, *, seed=None, options=None):
        if options and options.get("reset_mask") is not None:
            options = {**options, "reset_mask": _host(self._in(options["reset_mask"]))}
        if seed is not None and not isinstance(seed, (int, np.integer)):
            seed = _host(self._in(seed))
        obs, info = self.env.reset(seed=seed, options=options)
        return self._out(obs), self._out(info)

    def step(self, actions):
        return self._out_all(self.env.step(self._in(actions)))

    def send(self, actions) -> None:
        """AtariVectorEnv.send with actions of any accepted array type."""
        self.env.send(self._in(actions))

    def recv(self):
        """AtariVectorEnv.recv, its arrays as `array_type`."""
        return self._out_all(self.env.recv())

    def _out_all(self, results):
        obs, rewards, terminated, truncated, info = results
        return (self._out(obs), self._out(rewards), self._out(terminated),
                self._out(truncated), self._out(info))

    @property
    def batch_size(self) -> int:
        return self.env.batch_size

    @property
    def autoreset_mode(self):
        """The env's AutoresetMode (TorchRL's GymWrapper reads it from the env it wraps)."""
        return self.env.autoreset_mode


# -- the vector env -----------------------------------------------------------------------------
def _build_vector(game: str, num_envs, device: str | None, array_type: str | None,
                  kwargs: dict[str, Any]) -> VectorEnv:
    if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
        raise ValueError(f"num_envs must be a positive int, got {num_envs!r}")
    num_envs = int(num_envs)
    kwargs = dict(kwargs)
    for name in list(kwargs):
        if name in VECTOR_ARGUMENTS:
            continue
        if name in _SINGLE_ONLY:
            raise TypeError(f"{name!r} is an argument of the single env (cule_py.make or "
                            f"gymnasium.make); the vector env has none, as ale-py's "
                            f"AtariVectorEnv")
        if name == "max_episode_steps":
            raise TypeError("max_episode_steps is not an AtariVectorEnv argument: the vector env "
                            "truncates at max_num_frames_per_episode emulated frames (frameskip "
                            "frames per step)")
        close = difflib.get_close_matches(name, VECTOR_ARGUMENTS, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise TypeError(f"unknown vector env argument {name!r}{hint}; the arguments are "
                        f"{', '.join(VECTOR_ARGUMENTS)}")
    where = _resolve_device(device)
    kind = _resolve_array_type(array_type, where)      # bad combinations fail before building
    env: VectorEnv = AtariVectorEnv(game, num_envs, device=where, **kwargs)
    if kind == "numpy" and where == "cpu":
        return env
    return ArrayTypeWrapper(env, kind)


def make_vec(env_id: str, num_envs: int, device: str | None = None,
             array_type: str | None = None, **kwargs: Any) -> VectorEnv:
    """`num_envs` consoles of one game behind ale-py's AtariVectorEnv semantics.

    env_id: an ALE id ("ALE/Pong-v5", "PongNoFrameskip-v4"; the arguments ale-py registers
        for it, read from Gymnasium's registry), its twin ("cule_py/Pong-v5"), or a rom id
        ("pong"; AtariVectorEnv's defaults). kwargs override either (names: VECTOR_ARGUMENTS).
    device: None (the GPU where there is one, else the CPU), "cpu", "cuda" or "cuda:N".
    array_type: None (numpy on the CPU, cupy on the GPU), "numpy", "torch", "cupy" or "jax".

    `cule_py.make_vec("ALE/Pong-v5", n)` equals
    `gymnasium.make_vec("ALE/Pong-v5", n, vectorization_mode="vector_entry_point")` step for step.
    """
    game, registered, _ = _resolve(env_id)
    return _build_vector(game, num_envs, device, array_type, {**registered, **kwargs})


def vector_entry_point(num_envs: int = 1, *, game: str, device: str | None = None,
                       array_type: str | None = None, **kwargs: Any) -> VectorEnv:
    """The `vector_entry_point` of the registered cule_py ids (gymnasium.make_vec passes the
    id's registered kwargs, game included, and the caller's)."""
    return _build_vector(game, num_envs, device, array_type, kwargs)


# -- the single env -----------------------------------------------------------------------------
def _into(value: np.ndarray, out: np.ndarray | None):
    """`value`, or None after copying it into `out` (which must have its shape)."""
    if out is None:
        return value
    if out.shape != value.shape:
        raise ValueError(f"the array to fill must have shape {value.shape}, got {out.shape}")
    out[...] = value
    return None


class ALEInterfaceView:
    """What code built on `env.unwrapped.ale` reaches for, on the env's one console, with
    ALEInterface's method names: lives, game_over, act, screens, RAM, frame counters."""

    def __init__(self, env: AtariEnv):
        self._env = env

    @property
    def _emu(self) -> AtariEmulator:
        return self._env.emulator

    def act(self, action, paddle_strength: float = 1.0) -> int:
        """One frame with ALE action id `action` (0..17, or an ale_py.Action) and, in paddle
        games, the paddle turned int(23000 * |paddle_strength|) units; the reward."""
        action = int(getattr(action, "value", action))     # ale_py.Action has no __int__
        if not 0 <= action < 18:
            raise ValueError(f"ALE action ids are 0..17, got {action}")
        return int(self._emu.act(np.array([action], np.int64), paddle_strength=[paddle_strength])[0])

    def reset_game(self) -> None:
        self._emu.reset()

    def lives(self) -> int:
        return int(self._emu.lives()[0])

    def game_over(self, with_truncation: bool = True) -> bool:
        return bool(self._emu.game_over(with_truncation)[0])

    def game_truncated(self) -> bool:
        return bool(self._emu.truncated()[0])

    def getFrameNumber(self) -> int:
        return int(self._emu.frame_number()[0])

    def getEpisodeFrameNumber(self) -> int:
        return int(self._emu.episode_frame_number()[0])

    # As ALEInterface's, each read also fills a given array instead (gymnasium's
    # AtariPreprocessing reads the screen into its own buffers so).
    def getScreen(self, screen_data: np.ndarray | None = None):
        return _into(self._emu.screen()[0], screen_data)

    def getScreenRGB(self, screen_data: np.ndarray | None = None):
        return _into(self._emu.screen_rgb()[0], screen_data)

    def getScreenGrayscale(self, screen_data: np.ndarray | None = None):
        return _into(self._emu.screen_grayscale()[0], screen_data)

    def getAudio(self, audio: np.ndarray | None = None):
        """The last act frame's 512 sound samples (an env made with sound_obs=True)."""
        return _into(self._emu.sound()[0], audio)

    def getScreenDims(self) -> tuple[int, int]:
        return tuple(self._emu.screen().shape[1:3])

    def getRAM(self, ram: np.ndarray | None = None):
        return _into(self._emu.ram()[0], ram)

    def getRAMSize(self) -> int:
        return 128

    def getMinimalActionSet(self) -> list:
        """ale_py.Action values, as ALEInterface's (so comparisons with ale_py.Action hold)."""
        import ale_py
        return [ale_py.Action(int(a)) for a in self._emu.minimal_action_set()]

    def getLegalActionSet(self) -> list:
        import ale_py
        return [ale_py.Action(int(a)) for a in self._emu.game.legal_actions]

    def cloneState(self, include_rng: bool = False) -> EmulatorState:
        """The console's state, as ALE's: with the sticky actions' RNG only if include_rng."""
        return self._emu.clone_state(include_rng=include_rng, as_ale=True)

    def restoreState(self, state: EmulatorState) -> None:
        """As ALE's: the RNG where the state holds it; the screen and the last action played
        stay the env's."""
        self._emu.restore_state(state, as_ale=True)

    def cloneSystemState(self) -> EmulatorState:
        """ale-py's older name for cloneState(include_rng=True)."""
        return self._emu.clone_state(include_rng=True, as_ale=True)

    def restoreSystemState(self, state: EmulatorState) -> None:
        self._emu.restore_state(state, as_ale=True)


class AtariEnv(gymnasium.Env):
    """ale-py's `AtariEnv` on one cule_py console: the same arguments (defaults from Machado et
    al. 2018 as ale-py's: frameskip 4, sticky actions 0.25, raw 210x160 RGB screens), the same
    seeding (reset(seed) reseeds and reloads the ROM), observations, rewards, flags and info.

    continuous=True: actions are float32 (radius, theta, fire), as ale-py's (cule_py/continuous.py).
    sound_obs=True: observations are {"image": ..., "sound": 512 uint8 samples of the step's
    last frame}, as ale-py's. Not supported (a clear error): render_mode="human".
    """

    metadata = {"render_modes": ["rgb_array"], "render_fps": 30}

    def __init__(self, game: str, mode: int | None = None, difficulty: int | None = None,
                 obs_type: str = "rgb", frameskip: int | tuple[int, int] = 4,
                 repeat_action_probability: float = 0.25, full_action_space: bool = False,
                 continuous: bool = False, continuous_action_threshold: float = 0.5,
                 max_num_frames_per_episode: int | None = None, render_mode: str | None = None,
                 sound_obs: bool = False):
        if obs_type not in ("rgb", "grayscale", "ram"):
            raise InvalidArgumentError(f"obs_type must be 'rgb', 'grayscale' or 'ram', got "
                                       f"{obs_type!r}")
        self._frameskip = self._check_frameskip(frameskip)
        if render_mode not in (None, "rgb_array"):
            raise InvalidArgumentError(f"render_mode={render_mode!r} is not supported: cule_py renders "
                             f"render_mode='rgb_array' (no window, no sound) or None")
        if not 0.0 <= float(repeat_action_probability) <= 1.0:
            raise ValueError(f"repeat_action_probability must be in [0, 1], got "
                             f"{repeat_action_probability}")
        self._game = game
        self._mode, self._difficulty = mode, difficulty
        self._obs_type = obs_type
        self.sound_obs = bool(sound_obs)
        self._sticky = float(repeat_action_probability)
        # ALE's max_num_frames_per_episode defaults to 0: no truncation.
        self._max_frames = 0 if max_num_frames_per_episode is None else int(max_num_frames_per_episode)
        self.render_mode = render_mode
        self.emulator: AtariEmulator
        self.seed_game()
        self.load_game()
        self.continuous = bool(continuous)
        self.continuous_action_threshold = float(continuous_action_threshold)
        ids = (self.emulator.game.legal_actions if full_action_space or continuous
               else self.emulator.minimal_action_set())
        self._action_set = np.array([int(a) for a in ids], np.int64)
        self.action_space = (continuous_.action_space() if continuous
                             else spaces.Discrete(len(self._action_set)))
        height = self.emulator.screen().shape[1]
        shape = {"ram": (128,), "grayscale": (height, 160), "rgb": (height, 160, 3)}[obs_type]
        self.observation_space = spaces.Box(0, 255, shape, np.uint8)
        if self.sound_obs:
            self.observation_space = spaces.Dict(
                image=self.observation_space,
                sound=spaces.Box(0, 255, (tia_sound.SAMPLES_PER_FRAME,), np.uint8))
        self.ale = ALEInterfaceView(self)

    @staticmethod
    def _check_frameskip(frameskip):
        if isinstance(frameskip, (int, np.integer)) and not isinstance(frameskip, bool):
            if frameskip <= 0:
                raise InvalidArgumentError(f"frameskip must be positive, got {frameskip}")
            return int(frameskip)
        if isinstance(frameskip, (tuple, list)) and len(frameskip) == 2 and all(
                isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in frameskip):
            lo, hi = (int(v) for v in frameskip)
            if not 0 < lo < hi:
                raise InvalidArgumentError(f"a stochastic frameskip (lo, hi) needs 0 < lo < hi, "
                                           f"got {tuple(frameskip)}")
            return (lo, hi)
        raise InvalidArgumentTypeError(f"frameskip must be a positive int or a (lo, hi) pair of "
                                       f"ints, got {frameskip!r}")

    # -- seeding as ale-py's AtariEnv --------------------------------------------------------------
    def seed_game(self, seed: int | None = None) -> tuple[np.uint32, np.uint32]:
        """Two words from SeedSequence(seed): the first seeds np_random (stochastic frameskip),
        the second ALE's random_seed (sticky actions), as ale-py."""
        np_seed, ale_seed = np.random.SeedSequence(seed).generate_state(n_words=2)
        self._np_random, _ = seeding.np_random(int(np_seed))
        # ale-py passes np.int32(ale_seed) to setInt: ALE's mt19937 takes it back as this
        # uint32 (one value, -1 as int32, makes ALE seed from the clock instead; see the docs).
        self._ale_seed = int(ale_seed)
        return np_seed, ale_seed

    def load_game(self) -> None:
        """ALE's loadROM with the current random_seed, then setMode / setDifficulty."""
        self.emulator = AtariEmulator(self._game, 1, seed=self._ale_seed,
                                      repeat_action_probability=self._sticky,
                                      mode=self._mode, difficulty=self._difficulty,
                                      max_num_frames_per_episode=self._max_frames,
                                      sound=self.sound_obs)

    # -- the gymnasium API ---------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed, options=options)
        seeded_with = None
        if seed is not None:
            seeded_with = self.seed_game(seed)
            self.load_game()
        self.emulator.reset()
        info = self._get_info()
        if seeded_with is not None:
            info["seeds"] = seeded_with
        return self._get_obs(), info

    def step(self, action):
        if self.continuous:
            return self._play(*self._continuous_action(action))
        if isinstance(action, (bool, np.bool_)):
            raise TypeError("action must be an integer index into the action set, got a bool")
        try:
            index = operator.index(action)
        except TypeError:
            raise TypeError(f"action must be an integer index into the action set "
                            f"(0..{len(self._action_set) - 1}), got {action!r}") from None
        if not 0 <= index < len(self._action_set):
            raise ActionOutOfRangeError(f"action {index} is outside the action set 0.."
                             f"{len(self._action_set) - 1} ({self.get_action_meanings()})")
        return self._play(self._action_set[index:index + 1], None)

    def _continuous_action(self, action):
        """(ALE id, paddle strength) of a continuous action, as ale-py's AtariEnv.step."""
        action = continuous_.checked_actions(action, None)
        ale_id = continuous_.joystick_actions(action[None], self.continuous_action_threshold)
        return ale_id, action[None, 0]

    def _play(self, ale_action: np.ndarray, strength) -> tuple:
        if isinstance(self._frameskip, int):
            frameskip = self._frameskip
        else:
            frameskip = self.np_random.integers(*self._frameskip)
        # ale-py's loop of `frameskip` act() calls, in one launch
        reward = float(self.emulator.act(ale_action, paddle_strength=strength,
                                         frames=frameskip)[0])
        lives, terminal, truncated = self.emulator.flags()
        return (self._get_obs(), reward, bool(terminal[0]), bool(truncated[0]),
                self._get_info(int(lives[0])))

    def render(self) -> np.ndarray:
        if self.render_mode != "rgb_array":
            raise InvalidArgumentError(f"render() needs render_mode='rgb_array' at construction "
                                       f"(this env has render_mode={self.render_mode!r})")
        return self.emulator.screen_rgb()[0]

    def _get_obs(self):
        if self._obs_type == "ram":
            image = self.emulator.ram()[0]
        elif self._obs_type == "rgb":
            image = self.emulator.screen_rgb()[0]
        else:
            image = self.emulator.screen_grayscale()[0]
        if self.sound_obs:
            return {"image": image, "sound": self.emulator.sound()[0]}
        return image

    def _get_info(self, lives: int | None = None) -> dict[str, int]:
        if lives is None:
            lives = int(self.emulator.lives()[0])
        return {"lives": lives,
                "episode_frame_number": int(self.emulator.episode_frame_number()[0]),
                "frame_number": int(self.emulator.frame_number()[0])}

    def get_action_meanings(self) -> list[str]:
        return [Action(int(a)).name for a in self._action_set]

    def get_keys_to_action(self) -> dict[tuple[str, ...], int]:
        """The keyboard for human play, as ale-py maps it (gymnasium.utils.play.play reads it):
        w, s, a, d for up, down, left, right, space for fire, e for no-op; each key tuple
        (vertical, horizontal, fire, in that order) gives the action's index in the action
        set."""
        if self.continuous:
            raise AttributeError("`get_keys_to_action` can't be provided for this Atari "
                                 "environment as `continuous=True`. Make it with "
                                 "continuous=False to play it with the keyboard.")
        keys = {}
        for index, name in enumerate(self.get_action_meanings()):
            pressed = tuple(key for part, key in (("UP", "w"), ("DOWN", "s"), ("LEFT", "a"),
                                                  ("RIGHT", "d"), ("FIRE", " "))
                            if part in name)
            keys[pressed or ("e",)] = index
        return keys

    def clone_state(self, include_rng: bool = False) -> EmulatorState:
        """The console's state, as ale-py's: with the sticky actions' RNG only if include_rng
        (give True to reproduce a run exactly)."""
        return self.emulator.clone_state(include_rng=include_rng, as_ale=True)

    def restore_state(self, state: EmulatorState) -> None:
        """As ale-py's: the RNG where the state holds it; the screen and the last action played
        stay the env's."""
        self.emulator.restore_state(state, as_ale=True)


def make(env_id: str, **kwargs: Any) -> gymnasium.Env:
    """A single env: for an ALE id, `gymnasium.make` of its cule_py twin (the same wrappers as
    `gymnasium.make("ALE/...")`); for a rom id, `AtariEnv(game, **kwargs)` with ale-py's
    AtariEnv defaults."""
    game, _, spec_id = _resolve(env_id)
    if spec_id is None:
        return AtariEnv(game, **kwargs)
    from .registration import twin_id
    return gymnasium.make(twin_id(spec_id), **kwargs)

