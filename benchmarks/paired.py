"""A game's row from paired rounds: cule_py's figure and the reference's, one of each a round."""

from __future__ import annotations

import numpy as np


def paired_row(game: str, ours: list[float], theirs: list[float], ours_key: str,
               theirs_key: str) -> dict:
    """Medians of both sides and of the rounds' ratios, with the ratios' range."""
    ratios = [o / t for o, t in zip(ours, theirs)]
    return {"game": game, ours_key: float(np.median(ours)), theirs_key: float(np.median(theirs)),
            "ratio": float(np.median(ratios)), "ratio_min": min(ratios),
            "ratio_max": max(ratios), "rounds": len(ratios)}


def table_line(row: dict, ours_key: str, theirs_key: str) -> str:
    """The row as a markdown table line: game, both sides, median ratio [range]."""
    return (f"| {row['game']} | {row[ours_key]:,.0f} | {row[theirs_key]:,.0f} | "
            f"{row['ratio']:.2f} [{row['ratio_min']:.2f}, {row['ratio_max']:.2f}] |")
