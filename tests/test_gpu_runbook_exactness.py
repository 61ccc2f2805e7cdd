"""tools/gpu_runbook/exactness.py, the runbook's "exactness with resets" stage, at its tiny scale
on the CPU: the device side (run_stage) and the CPU side (compare) agree, a changed value is found
at its checkpoint, a run stopped early compares as a prefix, finished jobs are not run again, and
the GPU backend's host code (streams, events that finish late, pinned copies that land only with
their event, the device-side reset) gives the CPU's digests with numpy standing in for cupy.

What the stand-in cannot show: cupy's own stream ordering and its kernels (the ReductionKernel is
replaced by its numpy formula), real numba-cuda launches, and anything about speed. The device
reset on a real device="cuda" batch (drive_cuda under numba's CUDA simulator) is checked by the
last test (about 2 minutes, most of it the simulated power-on)."""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess
import sys
import time
import types

import numpy as np
import pytest

from cule_py.testing import SIMULATOR_WAITS
from tools.gpu_runbook import digests, exactness

TESTS = pathlib.Path(__file__).resolve().parent


@pytest.fixture(scope="module", autouse=True)
def one_numba_thread():
    # Results do not depend on the thread count; on a loaded 2-core machine a second thread's
    # wake-ups made every 4-console launch ~25x slower.
    import numba

    previous = numba.get_num_threads()
    numba.set_num_threads(1)
    yield
    numba.set_num_threads(previous)


@pytest.fixture(scope="module")
def stage_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("exactness")
    summary = exactness.run_stage(d, device="cpu", scale="tiny", time_limit=300, log=print)
    assert summary["counts"] == {"complete": 5}, summary
    return d


@pytest.fixture(scope="module")
def compared(stage_dir):
    return exactness.compare(stage_dir, log=print)


def _rows(path):
    return [json.loads(line) for line in pathlib.Path(path).read_text().splitlines() if line]


def _write(path, rows):
    pathlib.Path(path).write_text("".join(json.dumps(r) + "\n" for r in rows))


def _copy(stage_dir, tmp_path):
    for name in ("exactness_cpu.jsonl", "exactness_compare.csv"):
        shutil.copy(stage_dir / name, tmp_path / name)
    return tmp_path


def test_run_then_compare_is_exact(stage_dir, compared):
    assert compared["EXACT"] == 5 and compared["DIFFERENT"] == compared["ERROR"] == 0
    rows = _rows(stage_dir / "exactness_cpu.jsonl")
    assert {(r["mode"], r["game"]) for r in rows} == {
        ("emulator", "boxing"), ("emulator", "montezuma_revenge"), ("emulator", "pitfall2"),
        ("vector", "breakout"), ("vector", "elevator_action")}
    for r in rows:
        assert r["checkpoint_shape"] == [r["spec"]["units"] // r["spec"]["checkpoint_every"] + 1,
                                         5, 4]
        assert r["resets"][-1] > 0            # forced resets happened inside every job
    text = (stage_dir / "exactness_compare.csv").read_text()
    assert text.count(",EXACT,") == 5


def test_changed_checkpoint_value_is_found(stage_dir, compared, tmp_path):
    d = _copy(stage_dir, tmp_path)
    rows = _rows(d / "exactness_cpu.jsonl")
    row = next(r for r in rows if r["game"] == "montezuma_revenge")
    ck = exactness.checkpoints_of(row).copy()
    ck[2, 1, 3] ^= np.uint64(1 << 40)          # checkpoint 2, screen, console 3
    exactness.set_checkpoints(row, ck)
    _write(d / "exactness_cpu.jsonl", rows)
    out = exactness.compare(d, log=print)
    assert out["DIFFERENT"] == 1 and out["EXACT"] == 4
    bad = [line for line in (d / "exactness_compare.csv").read_text().splitlines()
           if ",DIFFERENT," in line]
    assert len(bad) == 1
    fields = dict(zip(exactness.CSV_FIELDS, bad[0].split(",")))
    assert fields["game"] == "montezuma_revenge"
    assert fields["first_bad_checkpoint"] == "2" and fields["first_bad_frame"] == "20"
    assert fields["fields"] == "screen" and fields["consoles_differing"] == "3"


def test_vector_field_and_reset_count_changes_are_found(stage_dir, compared, tmp_path):
    d = _copy(stage_dir, tmp_path)
    rows = _rows(d / "exactness_cpu.jsonl")
    row = next(r for r in rows if r["game"] == "breakout")
    ck = exactness.checkpoints_of(row).copy()
    ck[1, 2, 0] += np.uint64(1)                # checkpoint 1, terminated, console 0
    exactness.set_checkpoints(row, ck)
    other = next(r for r in rows if r["game"] == "pitfall2")
    other["resets"][-1] += 1
    _write(d / "exactness_cpu.jsonl", rows)
    out = exactness.compare(d, log=print)
    assert out["DIFFERENT"] == 2
    lines = {line.split(",")[0]: dict(zip(exactness.CSV_FIELDS, line.split(",")))
             for line in (d / "exactness_compare.csv").read_text().splitlines()[1:]}
    assert lines["breakout"]["fields"] == "terminated"
    assert lines["breakout"]["first_bad_checkpoint"] == "1"
    assert lines["pitfall2"]["fields"] == "resets"


def test_partial_run_compares_as_a_prefix(stage_dir, tmp_path):
    rows = _rows(stage_dir / "exactness_cpu.jsonl")
    row = next(r for r in rows if r["game"] == "elevator_action")
    ck = exactness.checkpoints_of(row)[:3]
    exactness.set_checkpoints(row, ck)
    row.update(status="partial", units_done=6, frames_done=24, resets=row["resets"][:3])
    _write(tmp_path / "exactness_cuda.jsonl", [row])
    out = exactness.compare(tmp_path, log=print)
    assert out["INCOMPLETE"] == 1 and out["DIFFERENT"] == 0, out
    assert "identical for the 24 frames" in (tmp_path / "exactness_compare.csv").read_text()


def test_resume_skips_finished_jobs(stage_dir):
    before = (stage_dir / "exactness_cpu.jsonl").read_text()
    summary = exactness.run_stage(stage_dir, device="cpu", scale="tiny", time_limit=300)
    assert len(summary["skipped"]) == 5 and summary["counts"] == {}
    assert (stage_dir / "exactness_cpu.jsonl").read_text() == before


def test_time_limit_records_jobs_not_reached(tmp_path):
    summary = exactness.run_stage(tmp_path, device="cpu", scale="tiny", time_limit=0)
    assert summary["counts"] == {"not_reached": 5} and len(summary["not_reached"]) == 5
    rows = _rows(tmp_path / "exactness_cpu.jsonl")
    assert {r["status"] for r in rows} == {"not_reached"}
    assert exactness.compare(tmp_path, log=print)["INCOMPLETE"] == 5
    # not_reached rows do not count as done: the next run takes them up
    assert exactness._finished(rows) == set()


def test_digest_formula_equals_plain_python():
    rng = np.random.default_rng(5)
    steps = rng.integers(0, 256, (7, 3, 50), dtype=np.uint8)     # 7 steps, 3 consoles, 50 bytes
    hasher = digests.Hasher(64)
    running = np.zeros(3, np.uint64)
    for step in steps:
        digests.fold(running, hasher.cpu(step))
    weights = [int(w) for w in hasher.weights[:50]]
    assert [int(v) for v in running] == digests.reference_digest(steps.tolist(), weights)
    # signed values enter as two's complement
    assert digests.as_u64(np.array([-1, 2], np.int32), np).tolist() == [2**64 - 1, 2]
    a = np.array([[1, 2**63 + 5]], np.uint64)
    assert digests.decode_u64(digests.encode_u64(a), a.shape).tolist() == a.tolist()


def test_reset_schedule_forces_resets_and_staggers_vector_games():
    spec = exactness.stage_specs("full")[-1]
    points, forced = exactness.reset_schedule(spec)
    assert points.shape == (spec.units + 1,) and forced.shape == (spec.units + 1, spec.consoles)
    assert not points[0] and not points[-1]
    assert points[spec.reset_every] and forced.any(axis=1).sum() >= 2
    assert set(np.nonzero(forced.any(axis=1))[0]) <= set(np.nonzero(points)[0])
    vector = [s for s in exactness.stage_specs("full") if s.mode == "vector"]
    games = [s for s in vector if s.step_registers == 255]
    assert len(games) == 10 and len({s.reset_offset for s in games}) == 10
    # and Breakout again through the step kernel capped at 128 and at 64 registers, each a job
    # of its own (the same digests expected)
    capped = [s for s in vector if s.step_registers != 255]
    assert [(s.game, s.step_registers) for s in capped] == [("breakout", 128), ("breakout", 64)]
    twin = next(s for s in games if s.game == "breakout")
    assert len({c.key() for c in capped} | {twin.key()}) == 3
    assert all(c.autoreset == twin.autoreset for c in capped)
    assert exactness.Spec.from_dict(dict(capped[0].__dict__)) == capped[0]


# -- the GPU backend's host code with numpy standing in for cupy -----------------------------------
class _Stream:
    stack: list = []

    def __init__(self, non_blocking=False):
        self.pending = []

    def __enter__(self):
        _Stream.stack.append(self)
        return self

    def __exit__(self, *exc):
        _Stream.stack.pop()

    def synchronize(self):
        pass


_NULL = _Stream()


def _current():
    return _Stream.stack[-1] if _Stream.stack else _NULL


class _Event:
    """Finishes on its third look (or when waited for); only then do the copies issued before it
    on its stream land in their pinned buffers, as on a GPU that lags behind the host."""

    def __init__(self, block=False, disable_timing=False):
        self.copies, self.looks, self.finished = [], 0, False

    def record(self, stream=None):
        s = stream or _current()
        self.copies, s.pending = s.pending, []

    @property
    def done(self):
        self.looks += 1
        if self.looks >= 3:
            self._finish()
        return self.finished

    def synchronize(self):
        self._finish()

    def _finish(self):
        if not self.finished:
            for out, value in self.copies:
                out[...] = value
            self.finished = True


def _asnumpy(a, stream=None, order="C", out=None, blocking=True):
    if out is None or blocking:
        value = np.array(a, order=order)
        if out is None:
            return value
        out[...] = value
        return out
    (stream or _current()).pending.append((out, np.array(a)))   # the value in stream order
    return out


class _Reduction:
    def __init__(self, *args):
        pass

    def __call__(self, x, w, axis):
        return (np.asarray(x).astype(np.uint64) * np.asarray(w)).sum(axis=axis,
                                                                      dtype=np.uint64)


@pytest.fixture
def fake_cupy(monkeypatch):
    monkeypatch.setitem(sys.modules, "cupy", sys.modules.get("cupy"))
    monkeypatch.setitem(sys.modules, "cupyx", sys.modules.get("cupyx"))
    from cule_py.testing import install_fake_cupy

    install_fake_cupy()
    cp = sys.modules["cupy"]
    cp.asnumpy = _asnumpy
    cp.ReductionKernel = _Reduction
    cp.cuda = types.SimpleNamespace(
        Stream=_Stream, Event=_Event, Device=cp.cuda.Device, get_current_stream=_current,
        get_elapsed_time=lambda start, stop: 0.0)
    return cp


def test_gpu_backend_host_code_with_a_stand_in_cupy(fake_cupy, tmp_path):
    launches = []

    class Backend(exactness.GpuBackend):
        def _launch_drive(self, batch, args):
            # drive_cuda's arguments, run by the CPU entry (numpy arrays, not the stand-in's)
            from cule_py._threads import run_on_threads
            from cule_py.kernels.ale import environment as env_kernel

            launches.append(int(np.asarray(args[-1]).sum()))
            run_on_threads(1, env_kernel.drive,
                           [np.asarray(a) if isinstance(a, np.ndarray) else a for a in args])

    backend = Backend(slots=2, cupy=fake_cupy, emulator_device="cpu")
    # Long enough for flag-driven resets: a Breakout game over by frame ~800 (random play), and
    # episodic-life terminations within 120 agent steps.
    specs = [exactness.Spec(mode="emulator", game="breakout", consoles=4, units=900,
                            checkpoint_every=100, reset_every=50, force_rate=0.004,
                            force_fraction=1 / 4, ahead=5),
             exactness.Spec(mode="vector", game="breakout", consoles=4, units=120,
                            checkpoint_every=10, reset_every=7, reset_offset=3,
                            force_fraction=1 / 4, ahead=3)]
    summary = exactness.run_stage(tmp_path, device="cuda", scale="tiny", time_limit=300,
                                  backend=backend, specs=specs)
    assert summary["counts"] == {"complete": 2}, summary
    assert launches and sum(launches) > 0           # the device-side reset ran, and reset
    assert summary["host_waits"] > 0                 # the host waited for lagging events
    for row in _rows(tmp_path / "exactness_cuda.jsonl"):
        points, forced = exactness.reset_schedule(exactness.Spec.from_dict(row["spec"]))
        assert row["resets"][-1] > forced[points].sum(), row["mode"]   # flags reset some too
    out = exactness.compare(tmp_path, log=print)     # the CPU backend, AtariEmulator.reset
    assert out["EXACT"] == 2 and out["source"].endswith("exactness_cuda.jsonl"), out


SIMULATED = """
import sys, types
from cule_py.testing import install_fake_cupy
install_fake_cupy()
import numpy as np
from numba import cuda
assert cuda.to_device.__module__.startswith("numba.cuda.simulator")
import test_gpu_runbook_exactness as T
cp = sys.modules["cupy"]
cp.asnumpy, cp.ReductionKernel = T._asnumpy, T._Reduction
cp.cuda = types.SimpleNamespace(Stream=T._Stream, Event=T._Event, Device=cp.cuda.Device,
                                get_current_stream=T._current, get_elapsed_time=lambda a, b: 0.0)
from tools.gpu_runbook import exactness
spec = exactness.Spec(mode="emulator", game="pong", consoles=2, units=2, checkpoint_every=1,
                      reset_every=1, force_rate=1.0, force_fraction=0.5, ahead=2)
gpu = exactness.replay(spec, exactness.GpuBackend(slots=1, cupy=cp, emulator_device="cuda"), 2)
assert gpu.emu._batch.gpu is not None
while gpu.events:
    gpu.events[0][2].synchronize()
    gpu.poll()
cpu = exactness.replay(spec, exactness.CpuBackend(1), 2)
assert np.array(gpu.resets_host).ravel().tolist() == [0, 0, 1]
assert np.array_equal(np.array(gpu.ck_host), np.array(cpu.ck_host))
print("device reset ok", flush=True)
"""


@pytest.mark.cuda
@pytest.mark.slow
def test_device_reset_under_the_cuda_simulator():
    """GpuBackend.reset_emulator on a real device="cuda" batch (GpuArrays, field-major state,
    drive_cuda launched by numba's CUDA simulator with the device mask) against
    AtariEmulator.reset on the CPU: 2 Pong consoles, a frame, console 1 reset, a frame (132 s on
    the 2-core development VM, most of it the simulated power-on)."""
    # The checkout's cule_py and tools (the repository root), and this module (tests/).
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1")
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(TESTS.parent), str(TESTS), env.get("PYTHONPATH")) if p)
    proc = subprocess.run([sys.executable, "-c", SIMULATOR_WAITS + SIMULATED], env=env,
                          capture_output=True, text=True, timeout=1500)
    assert proc.returncode == 0, f"{proc.stdout}\n{proc.stderr}"
    assert "device reset ok" in proc.stdout


class _StandInJob:
    """What run_jobs asks of a job, with a start that takes a while (as a GPU start waits for
    its construction's kernels) and units that are done at once."""

    def __init__(self, spec, backend, slot=0, fail_start=False):
        self.spec, self.slot, self.fail_start = spec, slot, fail_start
        self.unit = self.done_unit = 0
        self.events = []
        self.host_seconds = self.start_seconds = 0.0
        self.start_thread = None

    def start(self, seq):
        import threading

        self.start_thread = threading.current_thread().name
        time.sleep(0.05)
        if self.fail_start:
            raise RuntimeError("start failed")

    def poll(self):
        self.done_unit = self.unit

    @property
    def issued_all(self):
        return self.unit >= self.spec.units

    def in_flight(self):
        return 0

    def ready(self):
        return True

    def enqueue(self, seq):
        self.unit += 1

    def row(self, status, device, run_id):
        return {"mode": self.spec.mode, "game": self.spec.game, "status": status,
                "consoles": 1, "frames_done": self.unit, "frames_target": self.spec.units,
                "resets": [], "seconds_wall": 0, "device_seconds": 0, "seconds_host": 0}


def test_job_starts_run_in_threads_beside_the_issuing_one(monkeypatch):
    """The first job of each mode starts on the issuing thread, the others in start threads,
    up to start_threads at once; every job ends complete, and a start that fails in a thread is
    an error row after which the remaining jobs start on the issuing thread."""
    import threading

    made = []

    def make_job(spec, backend, slot=0):
        made.append(_StandInJob(spec, backend, slot, fail_start=spec.game == "fails"))
        return made[-1]

    monkeypatch.setattr(exactness, "make_job", make_job)
    backend = type("Slots", (), {"slots": 8})()
    games = ["a", "b", "c", "d", "e", "f"]
    specs = [exactness.Spec(mode=mode, game=g, consoles=1, units=3, checkpoint_every=1,
                            reset_every=50)
             for mode in ("vector", "emulator") for g in games]
    rows = []
    out = exactness.run_jobs(specs, backend, time_limit=60, on_row=rows.append, log=print,
                             start_threads=3)
    assert out["counts"] == {"complete": len(specs)}
    main = threading.current_thread().name
    by_mode = {m: [j for j in made if j.spec.mode == m] for m in ("vector", "emulator")}
    for jobs in by_mode.values():
        assert jobs[0].start_thread == main
        assert all(j.start_thread != main for j in jobs[1:])

    made.clear()
    rows.clear()
    specs = [exactness.Spec(mode="emulator", game=g, consoles=1, units=3, checkpoint_every=1,
                            reset_every=50)
             for g in ("a", "fails", "b", "c", "d")]
    out = exactness.run_jobs(specs, backend, time_limit=60, on_row=rows.append, log=print,
                             start_threads=2)
    assert out["counts"] == {"complete": 4, "error": 1}
    # starts made once the failure was seen run on the issuing thread
    after = made[[j.spec.game for j in made].index("fails") + 1:]
    assert any(j.start_thread == main for j in after)
