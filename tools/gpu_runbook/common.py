"""What every stage of the runbook shares: the results folder, resumable JSON-lines records, a
deadline, a log that reaches both the terminal and a file. (The machine's description is
cule_py.testing.machine.)"""

from __future__ import annotations

import contextlib
import json
import os
import pathlib
import sys
import time

REPO = pathlib.Path(__file__).resolve().parents[2]
GPURUN = REPO / ".gpurun"              # ignored by git; carried to the GPU machine
CACHE_DIR = GPURUN / "pcache"          # the precompiled CUDA kernels
CPU_KERNELS = GPURUN / "cpu_kernels"   # the CPU kernels for the generic x86-64 (stage 4)
RUNTIME_KEY_FILE = GPURUN / "runtime_key"
WHEELS = REPO / ".whl"                 # wheels of what the GPU machine lacks
RESULTS = GPURUN / "results"


class Deadline:
    """Seconds left of a stage's time limit; work is only started while enough remains, so a
    command ends inside the device call's 10 minutes with its results written."""

    def __init__(self, seconds: float):
        self.start = time.monotonic()
        self.seconds = seconds

    def elapsed(self) -> float:
        return time.monotonic() - self.start

    def left(self) -> float:
        return self.seconds - self.elapsed()

    def allows(self, needed: float) -> bool:
        return self.left() >= needed


class Log:
    """print() that also appends to results/<name>.log: what a stage said survives a killed
    command, since the log file is written as it goes. The stages share one log (a device call
    brings back at most 8 files); `prefix` says which stage a line is from."""

    def __init__(self, results: pathlib.Path, name: str, prefix: str = ""):
        results.mkdir(parents=True, exist_ok=True)
        self.path = results / f"{name}.log"
        self._file = open(self.path, "a", buffering=1)
        self._start = time.monotonic()
        self._prefix = f"{prefix} " if prefix else ""

    def __call__(self, *parts) -> None:
        line = (f"[{self._prefix}{time.monotonic() - self._start:7.1f}s] "
                + " ".join(str(p) for p in parts))
        print(line, flush=True)
        self._file.write(line + "\n")


def append_record(path: pathlib.Path, record: dict) -> None:
    """One JSON object per line, flushed at once (a record is kept even if the stage is killed)."""
    with open(path, "a") as f:
        f.write(json.dumps(record, default=_jsonable) + "\n")


def read_records(path: pathlib.Path) -> list[dict]:
    if not path.exists():
        return []
    records = []
    for line in path.read_text().splitlines():
        line = line.strip()
        if line:
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError:
                continue          # a line cut short when a command was killed
    return records


def _jsonable(value):
    try:
        import numpy as np

        if isinstance(value, np.generic):
            return value.item()
        if isinstance(value, np.ndarray):
            return value.tolist()
    except ImportError:     # pragma: no cover
        pass
    return str(value)


def gpu_present() -> bool:
    from cule_py._device import gpu_available

    return gpu_available()


def python_env() -> dict:
    """os.environ for a child Python that imports this checkout's cule_py (not another copy) and
    its tools."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env["PYTHONUNBUFFERED"] = "1"
    return env


def python() -> str:
    return sys.executable


@contextlib.contextmanager
def environment(name: str, value: str):
    """Environment variable `name` set to `value` inside, as it was after (cule_py reads
    CULE_PY_GPU_DRAW_AT_WSYNC at power-on and CULE_PY_GPU_STEP_REGISTERS when a vector env is
    made)."""
    before = os.environ.get(name)
    os.environ[name] = value
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = before
