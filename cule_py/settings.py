"""Every `CULE_PY_*` environment variable, in one table: what it changes, its values, where it is
read. None changes a result: they choose where kernels are cached, what is printed, and how the
GPU's kernels are laid out (the GPU ones await a GPU measurement that decides them; the CPU
backend ignores them).

docs/settings.md is `page()`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass


@dataclass(frozen=True)
class Setting:
    """One environment variable: its name, default, allowed values (None: any text) and use."""

    name: str
    default: str | None
    choices: tuple[str, ...] | None
    use: str
    audience: str = "users"

    def value(self) -> str | None:
        """The variable's value, checked (ValueError naming the allowed values), else the
        default."""
        value = os.environ.get(self.name, self.default)
        if value is not None and self.choices is not None and value not in self.choices:
            raise ValueError(f"{self.name}={value!r}: use one of {', '.join(self.choices)}")
        return value

    def is_set(self) -> bool:
        """Whether the variable is set to something non-empty."""
        return bool(os.environ.get(self.name))


CACHE_DIR = Setting(
    "CULE_PY_CACHE_DIR", None, None,
    "Where compiled kernels are cached (else $NUMBA_CACHE_DIR/cule_py, else ~/.cache/cule_py).")
NO_CACHE = Setting(
    "CULE_PY_NO_CACHE", None, None,
    "Set (to anything): compile in memory only, every process.")
COMPILE_NOTICE = Setting(
    "CULE_PY_COMPILE_NOTICE", "1", ("1", "0"),
    "0: no notice on stderr when a kernel compiles (and no line a minute while it does).")
CPU_CORE = Setting(
    "CULE_PY_CPU_CORE", "fast", ("fast", "decoded"),
    "decoded: the CPU backend runs the GPU's 6507 path (slower), to check the GPU's code for "
    "exactness without a GPU. Cached under its own fingerprint.", "developers")
PORTABLE_CACHE = Setting(
    "CULE_PY_PORTABLE_CACHE", None, ("1",),
    "1 when building a wheel: the wheel carries the CPU kernels compiled for a generic x86-64 "
    "(setup.py).", "packagers")
GPU_DRAW_AT_WSYNC = Setting(
    "CULE_PY_GPU_DRAW_AT_WSYNC", "1", ("1", "0"),
    "1: the GPU's 6507 draws the picture up to each WSYNC, so a warp draws one line together.",
    "developers")
GPU_RESET_BLOCKS = Setting(
    "CULE_PY_GPU_RESET_BLOCKS", "own", ("own", "shared"),
    "own: NextStep's autoreset launch gets blocks that need a whole SM where the step leaves "
    "one empty; shared: the step's block size.", "developers")
GPU_STEP_REGISTERS = Setting(
    "CULE_PY_GPU_STEP_REGISTERS", "255", ("255", "128", "64"),
    "Registers a thread of the GPU's agent step kernel (128 and 64: more warps resident, with "
    "spills).", "developers")
THREADS_PER_BLOCK = Setting(
    "CULE_PY_THREADS_PER_BLOCK", "128", None,
    "Threads per block of the GPU's launches.", "developers")
RUNTIME_KEY = Setting(
    "CULE_PY_RUNTIME_KEY", None, None,
    "On a GPU machine, the CUDA version (e.g. 13.5) that keys the GPU kernels' cache "
    "(tools/device_site, tools/gpu_precompile.py).", "the GPU runbook")
EXACTNESS_SLOTS = Setting(
    "CULE_PY_EXACTNESS_SLOTS", None, None,
    "Jobs at a time in the GPU runbook's exactness stage (default: the scale's).",
    "the GPU runbook")
EXACTNESS_STREAMS = Setting(
    "CULE_PY_EXACTNESS_STREAMS", "non_blocking", ("non_blocking", "null"),
    "null: every job of the exactness stage on the legacy default stream.", "the GPU runbook")

SETTINGS = (CACHE_DIR, NO_CACHE, COMPILE_NOTICE, CPU_CORE, PORTABLE_CACHE, GPU_DRAW_AT_WSYNC,
            GPU_RESET_BLOCKS, GPU_STEP_REGISTERS, THREADS_PER_BLOCK, RUNTIME_KEY, EXACTNESS_SLOTS,
            EXACTNESS_STREAMS)


def table() -> str:
    """The settings as a markdown table."""
    rows = ["| variable | default | values | for | what it changes |", "|---|---|---|---|---|"]
    for s in SETTINGS:
        values = ", ".join(s.choices) if s.choices else "any"
        rows.append(f"| `{s.name}` | {s.default or 'unset'} | {values} | {s.audience} | "
                    f"{s.use} |")
    return "\n".join(rows)


def page() -> str:
    """docs/settings.md: the table with a heading."""
    return ("# Environment variables\n\nEvery `CULE_PY_*` variable cule_py and its tools read "
            "(`cule_py/settings.py`; this page is `cule_py.settings.page()`). None changes a "
            "result.\n\n" + table() + "\n")
