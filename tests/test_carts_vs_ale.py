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

pytest.importorskip("ale_py")

from cart_programs import BUILDERS  # noqa: E402
from marks import slow_except  # noqa: E402

from cule_py import roms  # noqa: E402
from cule_py.batch import ConsoleBatch  # noqa: E402
from cule_py.kernels.cartridges import cart  # noqa: E402
from cule_py.testing import ale_twin, play_batch  # noqa: E402

pytestmark = pytest.mark.live_ale

ENV_SEED = 777
SETTINGS = "riverraid"      # one mode, no starting actions; its game over needs RAM $C0 to move


def ale_for(path):
    return ale_twin(path, ENV_SEED)


# ---- ALE's games -----------------------------------------------------------------------------

GAMES = ["kung_fu_master", "elevator_action", "road_runner", "darkchambers", "montezuma_revenge",
         "robotank", "pitfall2"]


def test_every_ale_scheme_is_covered():
    from cule_py import games
    schemes = {games.get_game(g).scheme for g in GAMES}
    assert schemes == set(roms.ALE_GAME_SCHEMES) - {"2K", "4K"}


@pytest.mark.parametrize("game", slow_except(GAMES, "pitfall2"))
def test_ale_games(game):
    consoles = ConsoleBatch(game, 2, env_seed=ENV_SEED)
    ales = [ale_for(consoles.rom.path) for _ in range(2)]
    play_batch(consoles, ales, 500, seed=sum(map(ord, game)), reset_chance=0.004)


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


@pytest.mark.parametrize("game", slow_except(["ms_pacman", "jamesbond", "klax"], "jamesbond"))
def test_ale_game_images_under_river_raid(game, tmp_path):
    image = _padding_changed(roms.load_rom(game).data)
    path = tmp_path / f"{SETTINGS}.bin"
    path.write_bytes(image)
    rom = roms.load_rom(path, settings=SETTINGS)
    assert rom.scheme == games_scheme(game)
    consoles = ConsoleBatch(rom, 1, env_seed=ENV_SEED)
    play_batch(consoles, [ale_for(path)], 400, seed=len(game), reset_chance=0.003)


def games_scheme(game):
    from cule_py import games
    return games.get_game(game).scheme


# ---- our own cartridges --------------------------------------------------------------------------

@pytest.mark.parametrize("scheme", slow_except(sorted(BUILDERS), "E7"))
def test_own_cartridges(scheme, tmp_path):
    image = BUILDERS[scheme]()
    assert roms.detect_scheme(image) == scheme
    path = tmp_path / f"{SETTINGS}.bin"
    path.write_bytes(image)
    rom = roms.load_rom(path, settings=SETTINGS)
    consoles = ConsoleBatch(rom, 2, env_seed=ENV_SEED)
    assert consoles.cart_ram.shape == (2, cart.ram_bytes(cart.SCHEME_IDS[scheme]))
    ales = [ale_for(path) for _ in range(2)]
    play_batch(consoles, ales, 250, seed=len(image), reset_chance=0.01)
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
