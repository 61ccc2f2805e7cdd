"""cule_py.games against ale-py, live: every game's identity, action sets, modes, screen, controller.

Each check loops over all games and reports every mismatch at once. ale-py is queried through
tests/ale_oracle.py (one loadROM per ROM, shared with test_roms.py).
"""

from __future__ import annotations

import dataclasses

import ale_py
import gymnasium
import pytest
from ale_py import roms

import ale_oracle
from cule_py import games
from cule_py.games import GAMES, MULTIPLAYER_ONLY, Action, MultiplayerRomError, UnknownGameError, get_game


@pytest.fixture(scope="module")
def ale():
    """One loadROM of every ROM ale-py ships: about 25 s, so the tests using it are slow."""
    return ale_oracle.survey()


def mismatches(ale, field, ours, theirs):
    """Lines 'rom_id: ours != ale-py's' for every loadable game where the two disagree."""
    bad = []
    for rom_id, view in ale.items():
        if not view.loadable:
            continue
        mine, real = ours(GAMES[rom_id]), theirs(view)
        if mine != real:
            bad.append(f"{rom_id}: {field} {mine!r} != ale-py {real!r}")
    return bad


@pytest.mark.live_ale
@pytest.mark.slow
def test_games_are_ale_single_player_roms(ale):
    assert set(ale) == set(roms.get_all_rom_ids())
    loadable = {rom_id for rom_id, view in ale.items() if view.loadable}
    assert set(GAMES) == loadable
    assert len(GAMES) == 104
    assert set(MULTIPLAYER_ONLY) == set(ale) - loadable == ale_oracle.MULTIPLAYER


@pytest.mark.live_ale
@pytest.mark.slow
def test_gymnasium_ids(ale):
    gymnasium.register_envs(ale_py)
    registry = gymnasium.registry
    v5 = {spec.kwargs["game"]: env_id for env_id, spec in registry.items()
          if env_id.startswith("ALE/") and env_id.endswith("-v5")}
    assert {g.rom_id: g.env_id for g in GAMES.values()} == v5
    legacy = {g.rom_id for g in GAMES.values() if f"{g.name}NoFrameskip-v4" in registry}
    assert {g.rom_id for g in GAMES.values() if g.legacy_ids} == legacy
    assert len(legacy) == 62


@pytest.mark.live_ale
@pytest.mark.slow
def test_identity_scheme_and_tv_format(ale):
    bad = []
    for field in ("md5", "scheme", "tv_format", "cart_name"):
        bad += mismatches(ale, field, lambda g, f=field: getattr(g, f), lambda v, f=field: getattr(v, f))
    bad += mismatches(ale, "rom_size", lambda g: g.rom_size, lambda v: v.size)
    assert not bad, "\n".join(bad)


def test_action_enum_is_ales():
    assert {a.name: a.value for a in Action if a is not Action.RESET} == \
        {a.name: a.value for a in ale_py.Action.__members__.values()}


@pytest.mark.live_ale
@pytest.mark.slow
def test_action_sets(ale):
    bad = mismatches(ale, "minimal_actions", lambda g: g.minimal_actions, lambda v: v.minimal)
    bad += mismatches(ale, "legal_actions", lambda g: g.legal_actions, lambda v: v.legal)
    assert not bad, "\n".join(bad)


@pytest.mark.live_ale
@pytest.mark.slow
def test_modes_and_difficulties(ale):
    bad = mismatches(ale, "modes", lambda g: g.modes, lambda v: v.modes)
    bad += mismatches(ale, "difficulties", lambda g: g.difficulties, lambda v: v.difficulties)
    bad += mismatches(ale, "default_mode", lambda g: g.default_mode, lambda v: v.default_mode)
    bad += mismatches(ale, "default_difficulty", lambda g: g.default_difficulty,
                      lambda v: v.default_difficulty)
    assert not bad, "\n".join(bad)


@pytest.mark.live_ale
@pytest.mark.slow
def test_screen_height(ale):
    bad = mismatches(ale, "screen", lambda g: (g.height, 160), lambda v: v.screen)
    assert not bad, "\n".join(bad)


@pytest.mark.live_ale
@pytest.mark.slow
def test_controllers_and_paddles(ale):
    # One RIGHT frame turns paddle 0 by -PADDLE_DELTA in a paddle game and nothing otherwise;
    # the serialized state holds the paddle limits ALE uses.
    bad = mismatches(ale, "paddle step", lambda g: -games.PADDLE_DELTA if g.paddles else 0,
                     lambda v: v.paddle_step)
    paddle_view = [(rom_id, v) for rom_id, v in ale.items() if v.loadable and v.paddle_step]
    for rom_id, view in paddle_view:
        paddles = GAMES[rom_id].paddles
        if paddles is None:
            continue
        if (paddles.resistance_min, paddles.resistance_max) != view.paddle_limits:
            bad.append(f"{rom_id}: paddle limits {paddles.resistance_min, paddles.resistance_max} "
                       f"!= ale-py {view.paddle_limits}")
        if paddles.resistance_start != view.paddle_start:
            bad.append(f"{rom_id}: paddle start {paddles.resistance_start} != ale-py {view.paddle_start}")
    assert not bad, "\n".join(bad)
    assert sorted(rom_id for rom_id, _ in paddle_view) == \
        ["backgammon", "blackjack", "breakout", "casino", "kaboom", "pong"]


def test_curated_fields_are_consistent():
    """Fields ale-py does not expose (see tools/survey_games.py) at least obey ALE's rules."""
    for game in GAMES.values():
        assert all(isinstance(a, Action) for a in game.starting_actions), game.rom_id
        # ALE plays starting actions past its legality filter (lost_luggage presses FIRE, which
        # its agent cannot), and RESET appears only there.
        assert set(game.starting_actions) <= set(games.ALL_ACTIONS) | {Action.RESET}, game.rom_id
        assert 0 <= game.ystart < 64 and game.ystart + game.height <= 342, game.rom_id
        if game.tv_format == "PAL":
            assert game.height == 250, game.rom_id   # ALE turns a default 210 into 250 for PAL
        assert game.swap_ports is False or game.controller == "joystick", game.rom_id
    paddles = {g.rom_id: g.paddles for g in GAMES.values() if g.paddles}
    assert [r for r, p in paddles.items() if p.swapped or p.ports != ("left",)] == ["pong"]


def test_get_game_names_and_errors():
    assert get_game("pong") is get_game("Pong") is GAMES["pong"]
    assert get_game("SpaceInvaders") is get_game("space_invaders") is GAMES["space_invaders"]
    assert get_game("TicTacToe3D") is GAMES["tic_tac_toe_3d"]
    for game in GAMES.values():
        assert get_game(game.name) is game
    with pytest.raises(UnknownGameError, match="did you mean 'pong'"):
        get_game("pongg")
    with pytest.raises(MultiplayerRomError, match="multi-agent-only"):
        get_game("combat")
    with pytest.raises(TypeError):
        get_game(3)  # type: ignore[arg-type]


def test_game_records_are_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        GAMES["pong"].height = 1  # type: ignore[misc]
    with pytest.raises(TypeError):
        GAMES["pong_copy"] = GAMES["pong"]  # type: ignore[index]
