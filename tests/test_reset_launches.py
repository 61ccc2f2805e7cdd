"""benchmarks.reset_launches' predictions run from the model inputs kept in benchmarks/results
(warp files and step profiles of 2026-11-28, reset counts of the CPU backend): `step`, the step
alone by batch, and `model`, the step with its reset launches, agree where they overlap."""

from __future__ import annotations

import argparse
import pathlib
import re

from benchmarks import reset_launches as R

RESULTS = pathlib.Path(__file__).resolve().parents[1] / "benchmarks" / "results"
INPUTS = RESULTS / "2026-11-28-state-tiles-s29" / "attention"
COUNTS = RESULTS / "2026-11-28-reset-lanes-s30" / "counts-named-writer"


def _rows(text: str) -> list[list[str]]:
    return [[cell.strip() for cell in line.strip("|").split("|")]
            for line in text.splitlines() if line.startswith("| ") and "---" not in line][1:]


def test_step_and_model_predict_the_same_step_alone(capsys):
    R.step(argparse.Namespace(warp=INPUTS, profile=INPUTS, batches=[16384]))
    step_rows = _rows(capsys.readouterr().out)
    alone = dict(zip(R.GAMES, step_rows[0][2:7]))
    assert step_rows[0][:2] == ["255 registers", "16,384"]
    R.model(argparse.Namespace(counts=COUNTS, warp=INPUTS, profile=INPUTS, launches=40,
                               configs=[(16384, 255)], seed=0, warm_table=False))
    model_rows = {row[1]: row for row in _rows(capsys.readouterr().out)}
    assert set(R.GAMES) <= set(model_rows)
    for game in R.GAMES:
        no_resets, with_resets = model_rows[game][-1].split(" -> ")
        assert f"{no_resets} M" == alone[game], game
        fastest = max(float(x) for x in re.findall(r"[\d.]+", with_resets))
        assert 0 < fastest <= float(no_resets), (game, "resets cannot speed the step up")


def test_capped_steps_take_the_scaled_frame():
    """A capped step's frame is its loop's static SASS over the uncapped one's: slower per
    console at the same occupancy, as the model prices it."""
    base = R.step_frames_per_s("pong", INPUTS, INPUTS, 16384, 255, 1.0)
    scaled = R.step_frames_per_s("pong", INPUTS, INPUTS, 16384, 255,
                                 R.STEP_VARIANTS["capped at 64"][1])
    assert scaled < base
