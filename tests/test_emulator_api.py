"""`AtariEmulator` on its own: snapshots replay, batch invariance, the environment RNG, and the
errors bad input gets. (Exactness against ale-py is tests/test_emulator_vs_ale.py.)"""

import numpy as np
import pytest

from cule_py import AtariEmulator, EmulatorState
from cule_py.kernels.ale import mt19937
from cule_py.testing import ale_twin


def observe(emulator):
    return (emulator.ram(), emulator.screen(), emulator.lives(), emulator.game_over(),
            emulator.frame_number(), emulator.episode_frame_number())


def assert_same(a, b, where):
    for x, y, name in zip(a, b, ("ram", "screen", "lives", "game_over", "frames", "episode")):
        assert np.array_equal(x, y), f"{where}: {name} differs"


def run(emulator, actions, reset_every=0):
    """Play `actions` (frames, num_envs); reset consoles whose game is over; record everything."""
    record = []
    for t, row in enumerate(actions):
        rewards = emulator.act(row)
        record.append((rewards, *observe(emulator)))
        over = emulator.game_over()
        if reset_every and t % reset_every == reset_every - 1:
            over[::2] = True
        if over.any():
            emulator.reset(over)
    return record


def test_clone_restore_replays_exactly():
    """Sticky actions (RNG in the state), resets, both screen buffers: a restored batch replays
    the same frames, rewards and flags as the run it was cloned from."""
    emulator = AtariEmulator("breakout", 4, seed=3, repeat_action_probability=0.25)
    rng = np.random.default_rng(0)
    run(emulator, rng.integers(0, 4, size=(200, 4)))
    snapshot = emulator.clone_state()
    actions = rng.integers(0, 4, size=(300, 4))
    first = run(emulator, actions, reset_every=97)
    emulator.restore_state(snapshot)
    second = run(emulator, actions, reset_every=97)
    for t, (a, b) in enumerate(zip(first, second)):
        assert np.array_equal(a[0], b[0]), f"frame {t}: rewards differ"
        assert_same(a[1:], b[1:], f"frame {t}")


def test_restore_by_mask_touches_only_those_consoles():
    emulator = AtariEmulator("seaquest", 3, seed=1, repeat_action_probability=0.25)
    snapshot = emulator.clone_state(np.array([True, False, True]))
    rng = np.random.default_rng(1)
    run(emulator, rng.integers(0, 18, size=(60, 3)))
    before = observe(emulator)
    emulator.restore_state(snapshot, np.array([False, False, True]))
    after = observe(emulator)
    fresh = AtariEmulator("seaquest", 3, seed=1, repeat_action_probability=0.25)
    assert_same([x[:2] for x in after], [x[:2] for x in before], "untouched consoles")
    assert_same([x[2:] for x in after], [x[2:] for x in observe(fresh)], "restored console")
    with pytest.raises(ValueError, match="not in this state"):
        emulator.restore_state(snapshot, np.array([True, True, False]))
    with pytest.raises(TypeError):
        emulator.restore_state({"ram": 0})
    with pytest.raises(ValueError, match="another game"):
        AtariEmulator("boxing", 3).restore_state(snapshot)
    assert isinstance(snapshot, EmulatorState)


def test_batch_invariance():
    """Console i of a batch runs exactly as a batch of one with seed + i, whatever its
    neighbours play or how many there are."""
    n, seed = 5, 40
    batch = AtariEmulator("pong", n, seed=seed, repeat_action_probability=0.25)
    rng = np.random.default_rng(2)
    actions = rng.integers(0, 6, size=(250, n))
    record = run(batch, actions)
    for i in (0, 3):
        alone = AtariEmulator("pong", 1, seed=seed + i, repeat_action_probability=0.25)
        mine = run(alone, actions[:, i:i + 1])
        for t, (a, b) in enumerate(zip(record, mine)):
            assert a[0][i] == b[0][0], f"console {i} frame {t}: reward"
            assert_same([x[i:i + 1] for x in a[1:]], b[1:], f"console {i} frame {t}")
    # Different neighbours: console 0 with other consoles playing other actions.
    other = AtariEmulator("pong", 3, seed=seed, repeat_action_probability=0.25)
    mixed = actions[:, :3].copy()
    mixed[:, 1:] = rng.integers(0, 6, size=(250, 2))
    for t, (a, b) in enumerate(zip(record, run(other, mixed))):
        assert_same([x[:1] for x in a[1:]], [x[:1] for x in b[1:]], f"neighbours, frame {t}")


def test_environment_rng_is_std_mt19937():
    """mt19937 seeded as std::mt19937(seed) (numpy's legacy RandomState seeds the same way)."""
    seeds = np.array([0, 1, 5489, 2**31, 2**32 - 1], np.int64)
    state = np.zeros((len(seeds), mt19937.MT_COLUMNS), np.int64)
    mask = np.ones(len(seeds), np.bool_)
    mt19937.seed_generators(state, seeds, mask)
    out = np.zeros(len(seeds), np.int64)
    draws = []
    for _ in range(1300):                       # past two twists
        mt19937.draw(state, mask, out)
        draws.append(out.copy())
    draws = np.array(draws)
    for k, seed in enumerate(seeds):
        expected = np.random.RandomState(seed)._bit_generator.random_raw(1300)
        assert np.array_equal(draws[:, k], expected.astype(np.int64)), f"seed {seed}"
    # std::mt19937's default seed 5489: its 10000th output is 4123659995 (C++ standard).
    generator = np.zeros((1, mt19937.MT_COLUMNS), np.int64)
    mt19937.seed_generators(generator, np.array([5489]), np.ones(1, np.bool_))
    one = np.zeros(1, np.int64)
    for _ in range(10000):
        mt19937.draw(generator, np.ones(1, np.bool_), one)
    assert one[0] == 4123659995


def test_peeked_draws_are_the_next_draws():
    """mt_peek(k) is what the k-th next draw will be, up to MT_PEEK_LIMIT into a twist, and -1
    past it (the reset table's tail keys itself on peeked sticky draws)."""
    from numba import njit

    @njit
    def peek_then_draw(state, skip, ahead, peeked, drawn):
        for _ in range(skip):
            mt19937.mt_next(state, 0)
        for k in range(ahead):
            peeked[k] = mt19937.mt_peek(state, 0, k)
        for k in range(ahead):
            drawn[k] = mt19937.mt_next(state, 0)

    reference = np.random.RandomState(77)._bit_generator.random_raw(2000).astype(np.int64)
    for skip in (0, 1, 400, 623, 624, 625, 1000, 1247, 1248):
        state = np.zeros((1, mt19937.MT_COLUMNS), np.int64)
        mt19937.seed_generators(state, np.array([77]), np.ones(1, np.bool_))
        index = mt19937.MT_WORDS if skip == 0 else (skip - 1) % mt19937.MT_WORDS + 1
        ahead = mt19937.MT_WORDS - index + mt19937.MT_PEEK_LIMIT   # the last word it can see
        peeked, drawn = np.zeros(ahead + 1, np.int64), np.zeros(ahead + 1, np.int64)
        peek_then_draw(state, skip, ahead + 1, peeked, drawn)
        assert np.array_equal(drawn, reference[skip:skip + ahead + 1]), f"after {skip} draws"
        assert np.array_equal(peeked[:ahead], drawn[:ahead]), f"after {skip} draws"
        assert peeked[ahead] == -1, f"after {skip} draws"


def test_views_are_fresh_contiguous_arrays():
    emulator = AtariEmulator("adventure", 2, seed=0)        # PAL: 250 lines
    for array, shape, dtype in (
            (emulator.ram(), (2, 128), np.uint8), (emulator.screen(), (2, 250, 160), np.uint8),
            (emulator.screen_rgb(), (2, 250, 160, 3), np.uint8),
            (emulator.screen_grayscale(), (2, 250, 160), np.uint8),
            (emulator.lives(), (2,), np.int32), (emulator.game_over(), (2,), np.bool_),
            (emulator.truncated(), (2,), np.bool_), (emulator.frame_number(), (2,), np.int64),
            (emulator.episode_frame_number(), (2,), np.int64)):
        assert array.shape == shape and array.dtype == dtype and array.flags.c_contiguous
    ram = emulator.ram()
    ram[:] = 0
    assert emulator.ram().any(), "ram() must be a copy"
    assert emulator.minimal_action_set().tolist() == [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
                                                      12, 13, 14, 15, 16, 17]
    assert emulator.legal_action_set().tolist() == list(range(18))
    assert AtariEmulator("pong", 1).minimal_action_set().tolist() == [0, 1, 3, 4, 11, 12]


@pytest.mark.live_ale
@pytest.mark.parametrize("game", ["skiing", "pong"])
def test_action_sets_equal_ales(game):
    """getMinimalActionSet / getLegalActionSet of ale-py itself (skiing's legal set is 9)."""
    ale = ale_twin(game, seed=0)
    emulator = AtariEmulator(game, 1, seed=0)
    assert emulator.minimal_action_set().tolist() == [a.value for a in ale.getMinimalActionSet()]
    assert emulator.legal_action_set().tolist() == [a.value for a in ale.getLegalActionSet()]


@pytest.fixture(scope="module")
def pong():
    return AtariEmulator("pong", 2, seed=0)


@pytest.mark.parametrize("actions,error,match", [
    (np.array([0.0, 1.0]), TypeError, "integer"),
    (np.array([True, False]), TypeError, "integer"),
    (np.array([0, 1, 2]), ValueError, r"shape \(2,\)"),
    (np.array([[0, 1]]), ValueError, r"shape \(2,\)"),
    (np.array([0, 18]), ValueError, r"0\.\.17, got \[18\]"),
    (np.array([-1, 0]), ValueError, r"0\.\.17, got \[-1\]"),
    (np.array([40, 0]), ValueError, r"0\.\.17"),
    ([0, "1"], TypeError, "integer"),
    (np.array([2 ** 63 + 1, 0], np.uint64), ValueError, r"0\.\.17, got \[9223372036854775809\]"),
    (np.array([0, -128], np.int8), ValueError, r"0\.\.17, got \[-128\]"),
])
def test_bad_actions_are_refused(pong, actions, error, match):
    ram, frames = pong.ram(), pong.frame_number()
    with pytest.raises(error, match=match):
        pong.act(actions)
    assert np.array_equal(pong.ram(), ram) and np.array_equal(pong.frame_number(), frames)


def test_checked_actions_names_the_ids_as_given(pong):
    """The host-action check the GPU backend uses names a too-large uint64 id as given, not as
    it wraps in int64."""
    with pytest.raises(ValueError, match=r"got \[9223372036854775809\]"):
        pong._batch.checked_actions(np.array([2 ** 63 + 1, 0], np.uint64))


def test_bad_settings_are_refused(tmp_path):
    with pytest.raises(Exception, match="no_such_game|not a game|unknown"):
        AtariEmulator("no_such_game", 1)
    junk = tmp_path / "junk.bin"
    junk.write_bytes(b"\x00" * 1000)
    with pytest.raises(Exception, match="size"):
        AtariEmulator(junk, 1)
    with pytest.raises(ValueError, match="mode 3 is not one of"):
        AtariEmulator("pong", 1, mode=3)
    with pytest.raises(ValueError, match="difficulty 9 is not one of"):
        AtariEmulator("pong", 1, difficulty=9)
    with pytest.raises(ValueError, match="repeat_action_probability"):
        AtariEmulator("pong", 1, repeat_action_probability=1.5)
    with pytest.raises(ValueError, match="num_envs"):
        AtariEmulator("pong", 0)
    with pytest.raises(ValueError, match="random_seed"):
        AtariEmulator("pong", 2, seed=2**32 - 1)
    with pytest.raises(ValueError, match="mask"):
        AtariEmulator("pong", 2).reset(np.array([1, 0]))
    with pytest.raises(ValueError, match="unknown device"):
        AtariEmulator("pong", 1, device="tpu")
    # Without a GPU: an error naming device='cpu' (with one, device="cuda" runs).
    from numba import cuda

    if not cuda.is_available():
        with pytest.raises(RuntimeError, match="device='cpu'"):
            AtariEmulator("pong", 1, device="cuda")


def test_unknown_roms_run_only_on_request(tmp_path):
    """A ROM that is none of ALE's games: an error naming the way out, or, with
    allow_unknown=True, run with default settings and no game logic; a known game's file name
    with other contents needs settings=."""
    from cule_py.roms import UnknownRomError, RomMismatchError, load_rom

    image = bytearray(load_rom("pong").data)
    image[0x7F0] ^= 0xFF                      # an unused byte: another md5, the same program
    path = tmp_path / "my_game.bin"
    path.write_bytes(bytes(image))
    with pytest.raises(UnknownRomError, match="allow_unknown=True"):
        AtariEmulator(path, 1)
    emulator = AtariEmulator(path, 2, seed=0, allow_unknown=True)
    assert emulator.game.rom_id == "unknown" and emulator.legal_action_set().size == 18
    rewards = [emulator.act(np.array([3, 4])) for _ in range(30)]
    assert not np.any(rewards) and not emulator.game_over().any()
    assert emulator.screen().shape == (2, 210, 160)
    renamed = tmp_path / "pong.bin"
    renamed.write_bytes(bytes(image))
    with pytest.raises(RomMismatchError):
        AtariEmulator(renamed, 1)
    with_settings = AtariEmulator(renamed, 1, seed=0, settings="pong")
    assert with_settings.game.rom_id == "pong"


@pytest.mark.live_ale
@pytest.mark.parametrize("game", ["breakout", "adventure"])     # NTSC, PAL (250 lines)
def test_screen_rgb_equals_ales_into_out_too(game):
    """screen_rgb() and screen_rgb(out) give ale-py's getScreenRGB for every console, frame by
    frame; a wrong `out` is refused, never resized or written partly."""
    emulator = AtariEmulator(game, 3, seed=5)
    twins = [ale_twin(game, 5 + i) for i in range(3)]
    emulator.reset()
    for ale in twins:
        ale.reset_game()
    height = emulator.screen().shape[1]
    out = np.empty((3, height, 160, 3), np.uint8)
    rng = np.random.default_rng(2)
    legal = emulator.minimal_action_set()
    for frame in range(120):
        actions = legal[rng.integers(len(legal), size=3)]
        emulator.act(actions)
        for ale, a in zip(twins, actions):
            ale.act(int(a))
        expected = np.stack([ale.getScreenRGB() for ale in twins])
        assert np.array_equal(emulator.screen_rgb(), expected), f"{game} frame {frame}"
        assert emulator.screen_rgb(out) is out
        assert np.array_equal(out, expected), f"{game} frame {frame}: into out"
    for bad in (np.empty((3, height, 160, 3), np.int32), np.empty((2, height, 160, 3), np.uint8),
                np.empty((3, height, 160, 4), np.uint8)[..., :3]):
        with pytest.raises(ValueError, match="out must be"):
            emulator.screen_rgb(bad)


def test_act_frames_equals_that_many_acts():
    """act(frames=k) is k act() calls with the same arguments: same rewards (summed), RAM,
    screens, frame counters and sticky-action draws, paddle strength included."""
    one = AtariEmulator("breakout", 3, seed=4, repeat_action_probability=0.25)
    many = AtariEmulator("breakout", 3, seed=4, repeat_action_probability=0.25)
    rng = np.random.default_rng(5)
    for _ in range(40):
        actions = rng.integers(0, 18, size=3)
        strength = rng.random(3).astype(np.float32)
        frames = int(rng.integers(1, 6))
        summed = sum(one.act(actions, paddle_strength=strength) for _ in range(frames))
        assert np.array_equal(many.act(actions, paddle_strength=strength, frames=frames), summed)
        assert np.array_equal(one.ram(), many.ram())
        assert np.array_equal(one.screen(), many.screen())
        assert np.array_equal(one.frame_number(), many.frame_number())
    for bad in (0, -1, 1.5, True):
        with pytest.raises(ValueError, match="frames must be an int >= 1"):
            many.act(np.zeros(3, np.int64), frames=bad)
