"""What the GPU exactness checks share (tools/gpu_runbook/exactness.py, tools/gpu_check.py): the row
hash, the running-digest fold, the random action schedule and a compact encoding of uint64 arrays.

* Row hash: h(row) = sum(row[j] * w[j]) mod 2**64 over a row's bytes, with fixed odd 64-bit weights
  w drawn from seed 0x2600. A cupy ReductionKernel on the GPU, a numba loop on the CPU: both exact
  integer arithmetic mod 2**64, so they agree exactly when the bytes do.
* Running digest: d <- d * M + v (mod 2**64, M odd, so no information is folded away at a step),
  on uint64 arrays with numpy or cupy operators (the same formula on both: C unsigned arithmetic
  wraps mod 2**64, and so do numpy's uint64 arrays). Signed values enter as their two's
  complement (int -> int64 -> uint64).
"""

from __future__ import annotations

import base64

import numpy as np
from numba import njit

MULTIPLIER = np.uint64(0x9E3779B97F4A7C15)     # odd: x -> x * M + v loses nothing mod 2**64
HASH_WIDTH = 250 * 160                         # the widest row hashed: a PAL screen


@njit(cache=False)
def row_hashes(data, weights, out):
    # One thread: a few ms even for 256 screens, and no thread wake-ups (which cost milliseconds
    # per call on a loaded machine).
    for i in range(data.shape[0]):
        acc = np.uint64(0)
        for j in range(data.shape[1]):
            acc += np.uint64(data[i, j]) * weights[j]
        out[i] = acc


class Hasher:
    """h(row) = sum(byte * w) mod 2**64 for every row of a (rows, ...) uint8 array."""

    def __init__(self, width: int = HASH_WIDTH):
        self.weights = np.random.default_rng(0x2600).integers(
            0, 2**63, width, dtype=np.uint64) * np.uint64(2) + np.uint64(1)
        self._gpu = None

    def cpu(self, rows: np.ndarray) -> np.ndarray:
        rows = np.ascontiguousarray(rows.reshape(rows.shape[0], -1))
        out = np.zeros(rows.shape[0], np.uint64)
        row_hashes(rows, self.weights[:rows.shape[1]], out)
        return out

    def gpu(self, rows):
        """On cupy's current stream; the first call builds the reduction and uploads the weights
        (make it once, then synchronise, before using several streams)."""
        import cupy as cp

        if self._gpu is None:
            self._gpu = (cp.asarray(self.weights), cp.ReductionKernel(
                "uint8 x, uint64 w", "uint64 y", "(unsigned long long)x * w", "a + b", "y = a",
                "0", "cule_row_hash"))
        weights, kernel = self._gpu
        rows = rows.reshape(rows.shape[0], -1)
        return kernel(rows, weights[:rows.shape[1]][None, :], axis=1)


def as_u64(values, xp):
    """Integers or bools of any dtype as uint64 (signed ones as two's complement)."""
    return values.astype(xp.int64).astype(xp.uint64)


def fold(running, values) -> None:
    """running <- running * M + values, in place (uint64 arrays of one library, same shape)."""
    running *= MULTIPLIER
    running += values


def reference_digest(rows_per_step: list[list[list[int]]], weights: list[int]) -> list[int]:
    """Plain-Python statement of hash + fold, for tests: rows_per_step[t][i] is console i's bytes
    at step t; returns each console's running digest of the row hashes."""
    out = []
    for i in range(len(rows_per_step[0])):
        d = 0
        for step in rows_per_step:
            h = sum(b * w for b, w in zip(step[i], weights)) % 2**64
            d = (d * int(MULTIPLIER) + h) % 2**64
        out.append(d)
    return out


def action_schedule(legal: np.ndarray, consoles: int, frames: int, seed: int) -> np.ndarray:
    """(frames, consoles) int32: random legal actions, each held 1-8 frames (the same on both
    sides: drawn from `seed` alone, independent of what the consoles do; a shorter schedule is a
    prefix of a longer one)."""
    rng = np.random.default_rng(seed)
    legal = np.asarray(legal)
    current = rng.choice(legal, consoles)
    hold = rng.integers(1, 9, consoles)
    schedule = np.empty((frames, consoles), np.int32)
    for frame in range(frames):
        schedule[frame] = current
        hold -= 1
        change = hold <= 0
        current[change] = rng.choice(legal, int(change.sum()))
        hold[change] = rng.integers(1, 9, int(change.sum()))
    return schedule


def encode_u64(array: np.ndarray) -> str:
    """A uint64 array as base64 of its little-endian bytes (shape kept elsewhere)."""
    return base64.b64encode(np.ascontiguousarray(array, "<u8").tobytes()).decode("ascii")


def decode_u64(text: str, shape) -> np.ndarray:
    return np.frombuffer(base64.b64decode(text), "<u8").astype(np.uint64).reshape(shape)
