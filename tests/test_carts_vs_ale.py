"""Bank-switched cartridges against ale-py live: RAM and screen identical after every frame.

Three kinds of case:

* ALE's own games, one or two per scheme it uses (F8, F8SC, F6, F6SC, E0, FE, DPC), two consoles
  in a batch, each against its own ALE, random actions held 1-8 frames, resets at random and at
  game over (as tests/test_console_vs_ale.py does for 2K/4K).
* ALE's multi-mode bank-switched games whose mode selection cule_py.modes does not have yet: their
  image with one padding byte changed (so ALE no longer knows it by md5) under River Raid's file
  name and settings, which select no mode. The game runs unchanged; only the reset sequence is
  River Raid's.
* Our own cartridges (tests/cart_programs.py) for every scheme, F4, F4SC, FA, E7, 3F and UA
  included, which no ALE game uses: loaded into ALE under River Raid's file name, where ALE's
  auto-detection picks the scheme from size and signatures as it would for any ROM.
"""

from __future__ import annotations

import numpy as np
import pytest

ale_py = pytest.importorskip("ale_py")

from cart_programs import BUILDERS  # noqa: E402

from cule_py import roms  # noqa: E402
from cule_py.console import ConsoleBatch  # noqa: E402
from cule_py.kernels import cart  # noqa: E402

ENV_SEED = 777
SETTINGS = "riverraid"      # one mode, no starting actions; its game over needs RAM $C0 to move


def ale_for(path):
    ale_py.ALEInterface.setLoggerMode(ale_py.LoggerMode.Error)
    ale = ale_py.ALEInterface()
    ale.setFloat("repeat_action_probability", 0.0)
    ale.setInt("random_seed", ENV_SEED)
    ale.loadROM(str(path))
    return ale


def check(consoles, ales, where):
    screens = consoles.screen()
    for env, ale in enumerate(ales):
        ram = ale.getRAM()
        assert np.array_equal(consoles.ram[env], ram), (
            f"{consoles.rom.scheme} console {env} {where}: RAM differs at "
            f"{[hex(0x80 + b) for b in np.nonzero(consoles.ram[env] != ram)[0]]}")
        screen = ale.getScreen()
        assert screens[env].shape == screen.shape, f"{where}: screen {screens[env].shape}"
        assert np.array_equal(screens[env], screen), (
            f"{consoles.rom.scheme} console {env} {where}: "
            f"{np.count_nonzero(screens[env] != screen)} pixels differ")


def play(consoles, ales, frames, seed, reset_chance=0.003):
    """Both consoles and their ALEs: the same random actions, compared after every frame."""
    check(consoles, ales, "after loadROM")
    for ale in ales:
        ale.reset_game()
    consoles.reset()
    check(consoles, ales, "after reset_game")
    rng = np.random.default_rng(seed)
    actions = np.array([int(a) for a in consoles.game.minimal_actions])
    n = consoles.num_envs
    current = np.zeros(n, np.int64)
    held = np.zeros(n, np.int64)
    for frame in range(1, frames + 1):
        for env in range(n):
            if held[env] == 0:
                current[env] = actions[rng.integers(len(actions))]
                held[env] = rng.integers(1, 9)
            held[env] -= 1
        consoles.act(current)
        for env, ale in enumerate(ales):
            ale.act(int(current[env]))
        check(consoles, ales, f"frame {frame}")
        resetting = np.array([ale.game_over() or rng.random() < reset_chance for ale in ales])
        if resetting.any():
            for env in np.nonzero(resetting)[0]:
                ales[env].reset_game()
                held[env] = 0
            consoles.reset(resetting)
            check(consoles, ales, f"reset of {np.nonzero(resetting)[0]} after frame {frame}")


# ---- ALE's games -----------------------------------------------------------------------------

GAMES = ["kung_fu_master", "elevator_action", "road_runner", "darkchambers", "montezuma_revenge",
         "robotank", "pitfall2"]


def test_every_ale_scheme_is_covered():
    from cule_py import games
    schemes = {games.get_game(g).scheme for g in GAMES}
    assert schemes == set(roms.ALE_GAME_SCHEMES) - {"2K", "4K"}


@pytest.mark.parametrize("game", GAMES)
def test_ale_games(game):
    consoles = ConsoleBatch(game, 2, env_seed=ENV_SEED)
    ales = [ale_for(consoles.rom.path) for _ in range(2)]
    play(consoles, ales, 500, seed=sum(map(ord, game)), reset_chance=0.004)


def _padding_changed(data: bytes) -> bytes:
    """The image with one byte changed in its longest run of one value (padding, in practice),
    away from the first 256 bytes of each 4K bank (a Superchip image's uniform RAM shadow, which
    ALE's auto-detection looks at)."""
    best, best_len = 0, 0
    for bank in range(0, len(data), 4096):
        start = bank + 256
        for i in range(start + 1, min(bank + 4096, len(data)) + 1):
            if i == min(bank + 4096, len(data)) or data[i] != data[start]:
                if i - start > best_len:
                    best, best_len = start, i - start
                start = i
    image = bytearray(data)
    image[best + best_len // 2] ^= 0x01
    assert roms.detect_scheme(bytes(image)) == roms.detect_scheme(data)
    return bytes(image)


@pytest.mark.parametrize("game", ["ms_pacman", "jamesbond", "klax"])
def test_ale_game_images_under_river_raid(game, tmp_path):
    image = _padding_changed(roms.load_rom(game).data)
    path = tmp_path / f"{SETTINGS}.bin"
    path.write_bytes(image)
    rom = roms.load_rom(path, settings=SETTINGS)
    assert rom.scheme == games_scheme(game)
    consoles = ConsoleBatch(rom, 1, env_seed=ENV_SEED)
    play(consoles, [ale_for(path)], 400, seed=len(game))


def games_scheme(game):
    from cule_py import games
    return games.get_game(game).scheme


# ---- our own cartridges --------------------------------------------------------------------------

@pytest.mark.parametrize("scheme", sorted(BUILDERS))
def test_own_cartridges(scheme, tmp_path):
    image = BUILDERS[scheme]()
    assert roms.detect_scheme(image) == scheme
    path = tmp_path / f"{SETTINGS}.bin"
    path.write_bytes(image)
    rom = roms.load_rom(path, settings=SETTINGS)
    consoles = ConsoleBatch(rom, 2, env_seed=ENV_SEED)
    assert consoles.cart_ram.shape == (2, cart.ram_bytes(cart.SCHEME_IDS[scheme]))
    ales = [ale_for(path) for _ in range(2)]
    play(consoles, ales, 250, seed=len(image), reset_chance=0.01)
    # The programs ran: frames counted, results stored, a picture drawn.
    assert consoles.ram[:, 0x30].min() > 0
    assert len(np.unique(consoles.ram[0, :0x30])) > 8
    assert len(np.unique(consoles.screen()[0])) > 4


def test_unimplemented_scheme_is_refused(tmp_path):
    image = bytearray(BUILDERS["F8"]())
    image[0x100:0x104] = b"\x85\x3e\xa9\x00"          # STA $3E; LDA #0: ALE calls it 3E
    path = tmp_path / "own.bin"
    path.write_bytes(bytes(image))
    rom = roms.load_rom(path, settings=SETTINGS)
    assert rom.scheme == "3E"
    with pytest.raises(NotImplementedError, match="scheme 3E"):
        ConsoleBatch(rom, 1)
