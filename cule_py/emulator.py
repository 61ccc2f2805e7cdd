"""`AtariEmulator`: a batch of ALE consoles behind one object, console i ≙ one `ALEInterface`.

    emulator = AtariEmulator("breakout", num_envs=8, seed=0)
    rewards = emulator.act(np.zeros(8, np.int64))     # one frame on every console
    frames = emulator.screen()                        # (8, 210, 160) palette indices

Console i corresponds to `ALEInterface()` with `random_seed = seed + i`, the given
`repeat_action_probability`, `max_num_frames_per_episode`, then `loadROM(game)` (whose own
reset_game plays the game's default mode and difficulty), then `setMode(mode)` and
`setDifficulty(difficulty)` where given: as in ALE, a mode takes effect at the next `reset()`,
a difficulty at the next frame. Every method is one call on all consoles (or on those where
`mask` is true); every array returned is a fresh C-contiguous copy: numpy arrays on device="cpu", cupy arrays in GPU memory on
device="cuda" (zero-copy to torch with `torch.from_dlpack`), where `act` never makes the host wait
for the GPU: it launches on cupy's current stream and returns at once.
"""

from __future__ import annotations

import hashlib
import json

import numpy as np

from . import continuous, palette
from ._device import parse_device
from .batch import ConsoleBatch
from .games import Game
from .roms import load_rom
from .kernels import layout as L
from .kernels.tia import tia_sound

__all__ = ["AtariEmulator", "EmulatorState"]


class EmulatorState:
    """A snapshot of some consoles of one `AtariEmulator` (see `clone_state`): every row of
    every array that makes a console, RNGs included, so a restored console replays exactly.

    As ale-py's ALEState: `serialize()` gives bytes and `EmulatorState(those_bytes)` the state
    back; two states are `==` when they hold the same consoles in the same state; pickling
    stores the bytes. A state cloned on the GPU restores on the CPU and the other way round
    (the arrays are the same rows on both; `serialize` copies them to the host)."""

    #: The start of serialize()'s bytes; the digit is the format's version.
    MAGIC = b"cule_py state 1\n"

    def __init__(self, md5, mask=None, arrays=None):
        if isinstance(md5, (bytes, bytearray, memoryview)) and mask is None and arrays is None:
            md5, mask, arrays = _parse_state(bytes(md5))
        if mask is None or arrays is None:
            raise TypeError("EmulatorState(md5, mask, arrays), or EmulatorState(bytes) with "
                            "the bytes of serialize()")
        self.md5 = str(md5)
        self.mask = np.asarray(mask, np.bool_)
        self.arrays = dict(arrays)

    def serialize(self) -> bytes:
        """The state as bytes (host copies of every array), for files and other processes."""
        host = {name: np.ascontiguousarray(_host(array)) for name, array in self.arrays.items()}
        header = {"md5": self.md5, "layout": _layout_digest(),
                  "mask": np.flatnonzero(self.mask).tolist(), "num_envs": len(self.mask),
                  "arrays": [[name, a.dtype.str, list(a.shape)] for name, a in host.items()]}
        head = json.dumps(header).encode()
        return b"".join([self.MAGIC, len(head).to_bytes(4, "little"), head,
                         *(a.tobytes() for a in host.values())])

    def __eq__(self, other) -> bool:
        if not isinstance(other, EmulatorState):
            return NotImplemented
        return (self.md5 == other.md5 and np.array_equal(self.mask, other.mask)
                and self.arrays.keys() == other.arrays.keys()
                and all(np.array_equal(_host(a), _host(other.arrays[name]))
                        for name, a in self.arrays.items()))

    __hash__ = None          # mutable arrays: not a dict key

    def __reduce__(self):
        return EmulatorState, (self.serialize(),)

    def __repr__(self) -> str:
        return (f"EmulatorState(md5={self.md5!r}, consoles={np.flatnonzero(self.mask).tolist()} "
                f"of {len(self.mask)})")


def _host(array) -> np.ndarray:
    return array.get() if hasattr(array, "get") and not isinstance(array, np.ndarray) \
        else np.asarray(array)


def _layout_digest() -> str:
    """Names and values of the state row's fields: a state serialized by a cule_py whose row
    differs is refused, not restored wrongly."""
    fields = sorted((name, value) for name, value in vars(L).items()
                    if name.isupper() and isinstance(value, int) and not isinstance(value, bool))
    return hashlib.sha256(repr(fields).encode()).hexdigest()[:16]


def _parse_state(blob: bytes):
    magic = EmulatorState.MAGIC
    if not blob.startswith(magic):
        raise ValueError("these bytes are not an EmulatorState from EmulatorState.serialize() "
                         "(of this version of cule_py)")
    at = len(magic) + 4
    size = int.from_bytes(blob[len(magic):at], "little")
    header = json.loads(blob[at:at + size])
    if header["layout"] != _layout_digest():
        raise ValueError("this state was serialized by a cule_py whose console state differs "
                         "from this one's: restore it with the version that saved it")
    mask = np.zeros(header["num_envs"], np.bool_)
    mask[header["mask"]] = True
    at += size
    described = [(name, np.dtype(dtype), tuple(shape)) for name, dtype, shape in header["arrays"]]
    expected = at + sum(dtype.itemsize * int(np.prod(shape)) for _, dtype, shape in described)
    if expected != len(blob):
        raise ValueError(f"EmulatorState bytes: {len(blob)} bytes where its header describes "
                         f"{expected} (truncated or corrupt)")
    arrays = {}
    for name, dtype, shape in described:
        array = np.frombuffer(blob, dtype, int(np.prod(shape)), at).reshape(shape)
        arrays[name] = array.copy()
        at += array.nbytes
    return header["md5"], mask, arrays


class AtariEmulator:
    """`num_envs` Atari 2600 consoles running one game, exactly as ale-py runs it.

    game:   an ale-py ROM id ("breakout", also "Breakout") or the path of a ROM file.
    seed:   console i gets ALE's `random_seed` = seed + i (sticky actions draw from it);
            None picks a random base seed (see `.seed`).
    device: "cpu" (numba on all cores) or "cuda" / "cuda:N" (one console per GPU thread; arrays
            are cupy arrays on that GPU; needs cupy, the `cuda` extra).
    repeat_action_probability, mode, difficulty, max_num_frames_per_episode: ALE's settings
            of the same names (0 frames: no truncation).
    settings: for a ROM file ALE does not know by md5, the rom id whose settings to use.
    allow_unknown: run a ROM that is none of ALE's games, with default settings and no reward,
            lives or game over (its scheme is detected from size and signatures).
    sound:  emulate the TIA's audio as ALE's sound_obs does; `sound()` reads it.
    """

    def __init__(self, game, num_envs: int, device: str = "cpu", seed: int | None = None,
                 repeat_action_probability: float = 0.0, mode: int | None = None,
                 difficulty: int | None = None, max_num_frames_per_episode: int = 0,
                 settings: str | None = None, allow_unknown: bool = False, sound: bool = False):
        parse_device(device)               # a bad string fails before the ROM is read
        self.device = device
        if seed is None:
            seed = int(np.random.SeedSequence().generate_state(1)[0])
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
            raise TypeError(f"seed must be an int or None, got {type(seed).__name__}")
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) \
                or num_envs < 1:
            raise ValueError(f"num_envs must be a positive int, got {num_envs!r}")
        if seed < 0 or seed + num_envs - 1 > 0xFFFFFFFF:
            raise ValueError(f"seed + i must fit ALE's random_seed (0..2**32-1) for every "
                             f"console, got seed={seed} with {num_envs} consoles")
        self.seed = int(seed)
        rom = load_rom(game, settings=settings, allow_unknown=allow_unknown)
        self._batch = ConsoleBatch(rom, num_envs, env_seed=self.seed + np.arange(num_envs),
                                   repeat_action_probability=repeat_action_probability,
                                   max_num_frames_per_episode=max_num_frames_per_episode,
                                   device=device, sound=sound)
        self.xp = self._batch.xp
        if mode is not None:
            self._batch.set_mode(mode)
        if difficulty is not None:
            self._batch.set_difficulty(difficulty)

    # -- identity and settings -------------------------------------------------------------------
    @property
    def num_envs(self) -> int:
        return self._batch.num_envs

    @property
    def game(self) -> Game:
        """The game's ALE settings (cule_py.games.Game)."""
        return self._batch.game

    @property
    def mode(self) -> int:
        return self._batch.mode

    @property
    def difficulty(self) -> int:
        return self._batch.difficulty

    def set_mode(self, mode: int) -> None:
        """ALE's setMode: selected at the next `reset()`."""
        self._batch.set_mode(mode)

    def set_difficulty(self, difficulty: int) -> None:
        """ALE's setDifficulty: the switches from the next frame on."""
        self._batch.set_difficulty(difficulty)

    def minimal_action_set(self) -> np.ndarray:
        """ALE's getMinimalActionSet (action ids, int64)."""
        return np.array([int(a) for a in self.game.minimal_actions], np.int64)

    def legal_action_set(self) -> np.ndarray:
        """ALE's getLegalActionSet (action ids, int64): the 18 joystick actions, or fewer where
        ALE restricts the game's set (skiing and lost_luggage: 9)."""
        return np.array([int(a) for a in self.game.legal_actions], np.int64)

    # -- stepping ----------------------------------------------------------------------------------
    def reset(self, mask=None) -> None:
        """ALE's reset_game on every console, or where `mask` (num_envs bools) is true."""
        self._batch.reset(mask)

    def power_cycle(self, mask=None) -> None:
        """A fresh loadROM: power-on state, PAL detection, the environment RNG seeded again,
        the default mode's reset_game; the mode and difficulty set here apply as after
        setMode / setDifficulty (next reset / next frame)."""
        self._batch.power_on(mask)

    def act(self, actions, paddle_strength=None, frames: int = 1) -> np.ndarray:
        """One frame per console: ALE's act(actions[i], paddle_strength[i]). actions: shape
        (num_envs,), any integer dtype, ALE ids 0..17 (an id outside the game's legal set plays
        as NOOP). paddle_strength: None (1.0) or (num_envs,) floats, how hard a paddle game's
        action turns the paddle (ALE: int(23000 * |strength|) units a frame; joystick games
        ignore it). Returns the frames' rewards, (num_envs,) int32. A console whose game is over
        (or truncated) does not move and earns 0 until it is reset. frames: that many act()
        calls with the same arguments in one kernel launch, their rewards summed (a frameskip
        loop's work, with one call's overhead)."""
        if isinstance(frames, bool) or not isinstance(frames, (int, np.integer)) or frames < 1:
            raise ValueError(f"frames must be an int >= 1, got {frames!r}")
        deltas = None
        if paddle_strength is not None:
            strength = np.asarray(paddle_strength, np.float32).reshape(-1)
            if strength.shape != (self.num_envs,) or not np.isfinite(strength).all():
                raise ValueError(f"paddle_strength must be {self.num_envs} finite numbers")
            deltas = continuous.paddle_deltas(strength[:, None])
        return self._batch.act(actions, frames=int(frames), paddle_deltas=deltas)

    # -- observations -----------------------------------------------------------------------------
    def ram(self) -> np.ndarray:
        """(num_envs, 128) uint8: the RIOT RAM, ALE's getRAM."""
        return self.xp.array(self._batch.ram, order="C", copy=True)

    def screen(self) -> np.ndarray:
        """(num_envs, height, 160) uint8 palette indices, ALE's getScreen."""
        return self._batch.screen()

    @property
    def is_pal(self) -> bool:
        return self._batch.pal

    def screen_rgb(self, out=None) -> np.ndarray:
        """(num_envs, height, 160, 3) uint8, ALE's getScreenRGB: a new array, or written into
        `out` (that shape, uint8, C-contiguous, on the emulator's device) and returned."""
        return self._batch.screens_rgb(out=out)

    def screen_grayscale(self) -> np.ndarray:
        """(num_envs, height, 160) uint8, ALE's getScreenGrayscale."""
        if self.xp is np:
            return palette.to_grayscale(self._batch.screen(), self.is_pal)
        table = palette.PAL_GRAY if self.is_pal else palette.NTSC_GRAY
        return self._batch.gpu.constant(np.asarray(table, np.uint8))[self._batch.screen()]

    def lives(self) -> np.ndarray:
        """(num_envs,) int32: ALE's lives()."""
        return self.flags()[0]

    def flags(self) -> tuple:
        """(lives, terminal, truncated) per console in one call: lives(),
        game_over(with_truncation=False) and truncated() together."""
        return self._batch.flags()

    def game_over(self, with_truncation: bool = True) -> np.ndarray:
        """(num_envs,) bool: ALE's game_over(with_truncation)."""
        return self._batch.games_over(with_truncation)

    def truncated(self) -> np.ndarray:
        """(num_envs,) bool: ALE's game_truncated() (the frame budget is spent)."""
        return self.flags()[2]

    def sound(self) -> np.ndarray:
        """(num_envs, 512) uint8: ALE's getAudio() of each console, the sound of its last act
        frame (all zeros before its first); needs sound=True at construction."""
        if not self._batch.sound:
            raise RuntimeError("this emulator runs no sound: make it with sound=True")
        fields = (L.SOUND_LAST_CHANNEL0, L.SOUND_LAST_CHANNEL1, L.SOUND_LAST_REGISTERS0,
                  L.SOUND_LAST_REGISTERS1)
        rows = np.stack([self._batch.host(self._batch.state[:, f]) for f in fields], axis=1)
        out = np.empty((self.num_envs, tia_sound.SAMPLES_PER_FRAME), np.uint8)
        tia_sound.samples_of_last_frame(np.ascontiguousarray(rows[:, :2]),
                                        np.ascontiguousarray(rows[:, 2:]), out)
        return self._batch.to_device(out)

    def frame_number(self) -> np.ndarray:
        """(num_envs,) int64: frames played through act since power-on (ALE's getFrameNumber)."""
        return self._batch.state[:, L.ENV_FRAME_NUMBER].astype(np.int64)

    def episode_frame_number(self) -> np.ndarray:
        """(num_envs,) int64: ALE's getEpisodeFrameNumber."""
        return self._batch.state[:, L.ENV_EPISODE_FRAME].astype(np.int64)

    # -- snapshots --------------------------------------------------------------------------------
    _SNAPSHOT = ("state", "memory", "frame_buffers", "logic", "env_rng")
    # What ALE's environment keeps when a state is restored: the last action and paddle
    # strength, which a sticky action repeats, the sound generator and the last frame's sound
    # belong to it and not to an ALEState (so do the screens, the TIA's output).
    _KEPT_BY_ALE_RESTORE = [L.ENV_STICKY_ACTION, L.ENV_PADDLE_DELTA, L.ENV_PADDLE_REQUEST,
                            *tia_sound.SOUND_FIELDS, L.SOUND_LAST_CHANNEL0,
                            L.SOUND_LAST_CHANNEL1, L.SOUND_LAST_REGISTERS0,
                            L.SOUND_LAST_REGISTERS1]

    def clone_state(self, mask=None, include_rng: bool = True,
                    as_ale: bool = False) -> EmulatorState:
        """Everything of the consoles in `mask` (default all): CPU, TIA, RIOT, cartridge, RAM,
        both screen buffers, game logic, the sticky action, and (include_rng) the position of
        the environment's RNG, which sticky actions draw from. as_ale: what an ALEState holds,
        so that two states compare as ALE's do: no screens, and the environment's last action
        and sound left out (0); such a state restores as restore_state(as_ale=True)."""
        mask = self._batch._mask(mask).copy()
        rows = self._batch.rows(mask)
        arrays = {name: self.xp.ascontiguousarray(getattr(self._batch, name)[rows])
                  for name in self._SNAPSHOT
                  if (include_rng or name != "env_rng") and not (as_ale and
                                                                 name == "frame_buffers")}
        if as_ale:
            arrays["state"][:, self._batch.to_device(np.array(self._KEPT_BY_ALE_RESTORE))] = 0
        return EmulatorState(self._batch.rom.md5, mask, arrays)

    def restore_state(self, state: EmulatorState, mask=None, as_ale: bool = False) -> None:
        """Put back the consoles of `state` (or those of them where `mask` is true); their RNG
        positions too where the state holds them. as_ale: only what ALE's restoreState puts
        back; each console keeps its screens (until its next frame), the action and paddle
        strength it last played, and its sound (registers, generators, last frame's samples)."""
        if not isinstance(state, EmulatorState):
            raise TypeError(f"state must come from clone_state, got {type(state).__name__}")
        if state.md5 != self._batch.rom.md5 or state.mask.shape != (self.num_envs,):
            raise ValueError("this state was cloned from another game or batch size")
        missing = [name for name in self._SNAPSHOT
                   if name not in state.arrays and name not in ("env_rng", "frame_buffers")]
        if missing:
            raise ValueError(f"this state lacks the consoles' {', '.join(missing)}")
        as_ale = as_ale or "frame_buffers" not in state.arrays      # cloned with as_ale
        mask = state.mask if mask is None else self._batch._mask(mask)
        if (mask & ~state.mask).any():
            raise ValueError(f"consoles {np.nonzero(mask & ~state.mask)[0].tolist()} are not "
                             f"in this state")
        picked = np.flatnonzero(mask[state.mask])     # of the snapshot's rows, these
        rows = self._batch.rows(mask)
        for name in self._SNAPSHOT:
            if name not in state.arrays or (as_ale and name == "frame_buffers"):
                continue
            saved = state.arrays[name]
            if self._batch.gpu is not None and not isinstance(saved, np.ndarray):
                saved = saved[self._batch.to_device(picked)]
            else:       # host rows (a CPU state, or one from bytes): moved to this device
                saved = self._batch.to_device(np.ascontiguousarray(_host(saved)[picked]))
            if name == "state" and as_ale:
                fields = self._batch.to_device(np.array(self._KEPT_BY_ALE_RESTORE))
                saved[:, fields] = self._batch.state[rows][:, fields]
            getattr(self._batch, name)[rows] = saved

    def __repr__(self) -> str:
        return (f"AtariEmulator({self.game.rom_id!r}, num_envs={self.num_envs}, "
                f"device={self.device!r}, seed={self.seed})")
