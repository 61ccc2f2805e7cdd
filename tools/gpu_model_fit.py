"""The offline GPU model against every GPU figure recorded, its error, and a refit (issue 56).

    python -m tools.gpu_model_fit [--md OUT] [--json OUT] [--draws 5]

Six GPU runs were lent between 2026-11-22 and 2026-11-27. This reads what they recorded from
the files they left (benchmarks/results/gpu_fps.jsonl, benchmarks/results/2026-11-23-h100/,
2026-11-26-h100-runbook/, 2026-11-27-h200-s21/, 2026-11-27-h200-s23/: JSON lines, Nsight
Compute's CSV and text, the runbook's logs) and, for the one run that left no files (the H200
of 2026-11-26), from benchmarks/RESULTS.md: TEXT_FIGURES names each such figure by the
section and the words around it, and the number is read from that line.

Each figure is paired with the model's figure for the same kernels and workload: the
prediction written down before that run where there is one (PREDICTIONS: read from
RESULTS.md the same way; a range counts as its geometric centre unless the text gives a
centre), otherwise what the frozen calibration (gpu_model.FROZEN) gives on a committed trace
of those kernels (tools/gpu_model_calibration*.json: JSON counts, nothing compiles). Where
neither exists the row says so. Figures that the frozen calibration was fitted to are marked
"fitted" and left out of the error statistics, as `gpu_model.calibrate` leaves them out.

Then a refit over the frames/s figures whose model inputs exist offline (Pong's raw frames on
2ee2133 and e9853a1, whose trace counts are committed): least squares in log space of
  s  a factor on the cycles a warp instruction takes at one warp a scheduler (FROZEN's 6.4),
  e  the exponent of the issue rate's growth with warps a scheduler, ipc(k) = ipc(1) k^e,
and, for comparison, s with a factor d on decorrelated launches only; each checked by leaving
one run out (fit on the others, predict it). Last, what the model leaves out, priced from the
ncu records: the issue rate, the latency of one warp a scheduler, the warps a scheduler, spill
reloads, and the slowest warp of the batch against the model's sampled one.

Light: plain Python and numpy, about half a minute on one core (the 65,536-console launches
are simulated warp by warp, gpu_model.launch_seconds).
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import io
import json
import math
import pathlib
import re
import sys

import numpy as np

from tools import gpu_model as G
from tools.gpu_runbook import report

REPO = pathlib.Path(__file__).resolve().parents[1]

BENCH = REPO / "benchmarks"
RESULTS_DIR = BENCH / "results"
RESULTS_MD = BENCH / "RESULTS.md"


def _rel(path: pathlib.Path) -> str:
    return str(path.relative_to(REPO))


def _num(text: str) -> float:
    return float(text.replace(",", "").replace("~", "").strip())


# ---------------------------------------------------------------------------------------------
# The runs
# ---------------------------------------------------------------------------------------------
# Commits as the runs' records name them: gpu_fps.jsonl of 2026-11-22 was committed with
# 1b45ebc, whose parent holds the kernels it ran (before outlining, ae2011b, and the object
# blocks, ab4eb87); the others from RESULTS.md's sections and the runbook's preflight.
RUNS = {
    "11-22 H100": {"gpu": "H100 80GB HBM3", "commit": "b0b9885"},
    "11-23 H100": {"gpu": "H100 80GB HBM3", "commit": "2ee2133"},
    "11-26 H200": {"gpu": "H200", "commit": "043f3b3"},
    "11-26 H100": {"gpu": "H100 80GB HBM3", "commit": "e9853a1"},
    "11-27 H200 a": {"gpu": "H200", "commit": "db4f153"},
    "11-27 H200 b": {"gpu": "H200", "commit": "9ade5a7"},
    "11-30 H200": {"gpu": "H200", "commit": "1ac43ab"},
}
# The SM clock a figure ran at. The harness runs at the boost clock (both cards: 1,980 MHz,
# nvidia_smi.csv of 2026-11-27); Nsight Compute locks it to base, which its text report of
# 2026-11-23 records (SM Frequency 1.59 GHz) and the CSV of 2026-11-26 does not.
BOOST_HZ = G.H100["clock_ghz"] * 1e9
NCU_BASE_HZ = 1.59e9


@dataclasses.dataclass
class Figure:
    run: str
    game: str
    consoles: int | None
    step: str                   # raw, agent, env runner
    state: str                  # decorrelated, identical, ...; the agent step: resets or not
    figure: str                 # what was measured
    kind: str                   # frames/s, ratio, count
    measured: float
    source: str                 # file:line
    model: float | None = None
    low: float | None = None
    high: float | None = None
    basis: str = "none"         # written, frozen, fitted, bound, differs, none
    model_source: str = "no model input offline"
    fit: dict | None = None     # counts, consoles, identical, clock_hz: the refit's input

    @property
    def ratio(self) -> float | None:
        return self.model / self.measured if self.model and self.measured else None

    @property
    def workload(self) -> str:
        n = f"{self.consoles:,}" if self.consoles else "-"
        return f"{self.game} {n} {self.step}, {self.state}"

    def predicted(self, model: float, source: str, low=None, high=None,
                  basis: str = "written") -> "Figure":
        self.model, self.low, self.high, self.basis, self.model_source = (
            model, low, high, basis, source)
        return self


# ---------------------------------------------------------------------------------------------
# Reading the records
# ---------------------------------------------------------------------------------------------
def jsonl(path: pathlib.Path) -> list[tuple[int, dict]]:
    return [(i + 1, json.loads(line)) for i, line in enumerate(path.read_text().splitlines())
            if line.strip()]


def ncu_csv(path: pathlib.Path) -> list[dict]:
    """Nsight Compute's `--csv --page raw` log: one dict per launch, numbers as floats where
    they parse, its line in the file, and its range and consoles from profile_order*.json,
    paired as the runbook's report pairs them (by kernel name)."""
    text = path.read_text().splitlines()
    start = next(i for i, line in enumerate(text) if '"Kernel Name"' in line)
    rows = list(csv.DictReader(io.StringIO("\n".join(text[start:]))))
    order_path = path.with_name(path.name.replace("ncu_metrics", "profile_order")
                                .replace(".csv", ".json"))
    order = json.loads(order_path.read_text())
    launches = [(i, row) for i, row in enumerate(rows) if row.get("ID", "").strip().isdigit()]
    names = [report.kernel_name(row) for _, row in launches]   # (the units row left out)
    ranges = report.ranges_of_rows(names, order)
    out = []
    for k, (i, row) in enumerate(launches):
        parsed = {}
        for key, value in row.items():
            try:
                parsed[key] = _num(value)
            except (ValueError, AttributeError):
                parsed[key] = value
        parsed["kernel"] = names[k]
        parsed["range"], consoles = ranges[k]
        parsed["consoles"] = int(consoles)
        parsed["line"] = start + 2 + i                       # header is line start + 1
        out.append(parsed)
    return out


def ncu_text(path: pathlib.Path) -> dict:
    """Nsight Compute's text report: {metric name: (value, line)} from its sections' rows
    ("name  unit  value", unit optional)."""
    out = {}
    row = re.compile(r"^\s+(\S.*?)\s{2,}(?:\S+\s+)?([\d,]+(?:\.\d+)?)$")
    for i, line in enumerate(path.read_text().splitlines()):
        if m := row.match(line.rstrip()):
            out.setdefault(m[1], (_num(m[2]), i + 1))
    return out


_MEASURE = re.compile(r"measure (\w+) (\w+) x(\d+) on cuda \((?:(\w+) schedule, )?budget")
_FPS = re.compile(r"-> ([\d,]+) frames/s, episode ends/step ([\d.]+)")
_RUNNER = re.compile(r"-> env runner \(cule\): ([\d,]+) agent steps/s")


def runbook_log(path: pathlib.Path) -> list[dict]:
    """The throughput stage's results as its log prints them: kind, game, consoles, schedule
    (free where the log names none: the default before the schedules existed), the figure and
    its line."""
    out, current = [], None
    for i, line in enumerate(path.read_text().splitlines()):
        if m := _MEASURE.search(line):
            current = {"kind": m[1], "game": m[2], "consoles": int(m[3]),
                       "schedule": m[4] or "free"}
        elif current and (m := _FPS.search(line)) and current["kind"] == "agent":
            out.append({**current, "frames_per_s": _num(m[1]),
                        "episode_ends_per_step": float(m[2]), "line": i + 1})
        elif current and (m := _RUNNER.search(line)):
            out.append({**current, "agent_steps_per_s": _num(m[1]), "line": i + 1})
    return out


class Markdown:
    """A markdown file read by `## ` section: a quote is found by a pattern inside the section
    whose heading holds a fragment, so that the line it cites is where the words are today."""

    def __init__(self, path: pathlib.Path):
        self.path, self.lines = path, path.read_text().splitlines()
        self.starts = [i for i, line in enumerate(self.lines) if line.startswith("## ")]

    def quote(self, heading: str, pattern: str) -> tuple[re.Match, str]:
        for k, first in enumerate(self.starts):
            if heading in self.lines[first]:
                end = self.starts[k + 1] if k + 1 < len(self.starts) else len(self.lines)
                text = "\n".join(self.lines[first:end])
                m = re.search(pattern, text, re.S)
                if not m:
                    raise LookupError(f"{_rel(self.path)}: {pattern!r} not in '{heading}'")
                line = first + 1 + text[:m.start()].count("\n")
                return m, f"{_rel(self.path)}:{line}"
        raise LookupError(f"{_rel(self.path)}: no section '{heading}'")


# Section headings of RESULTS.md (fragments) for the quotes below.
H_1122 = "2026-11-22: NVIDIA H100"
H_1123 = "2026-11-23: NVIDIA H100"
H_1126_H200 = "the GPU runbook's first run on a GPU (H200)"
H_1126_H100 = "the GPU runbook's second run (H100)"
H_SCHEDULES = "the warp schedules, predicted for the next GPU run"
H_TABLE = "resets from a table of seen states (CPU measured; GPU predicted)"
H_FINISH = "reset_game's finish in the table, tail entries by origin"
H_OWN_SMS = "the autoreset launch on SMs of its own"

# Figures that exist only as text (the 2026-11-26 H200 run brought no files back):
# (game, step, state, pattern whose group 1 is the figure), all at 16,384 consoles.
TEXT_FIGURES = [
    ("pong", "raw", "decorrelated (300 frames)",
     r"\| cule_py raw `act\(\)` \| Pong \| ([\d,]+) \|"),
    ("pong", "agent", "no reset yet", r"\| cule_py agent step \| Pong \| ([\d,]+) \|"),
    ("breakout", "agent", "resets", r"\| cule_py agent step \| Breakout \| (~[\d,]+) \|"),
]


# ---------------------------------------------------------------------------------------------
# The model offline: the frozen calibration on committed trace counts
# ---------------------------------------------------------------------------------------------
_COUNTS: dict = {}


def counts(key: str) -> dict:
    if key not in _COUNTS:
        _COUNTS[key] = G.load_counts(G.CALIBRATION_FILES[key])
    return _COUNTS[key]


def lockstep(key: str) -> dict:
    return G.lockstep_model(counts(key), G.FROZEN["weights"])


def model_fps(fit: dict, exponent: float | None = None, draws: int = 5) -> float:
    """Frames/s of one raw act() launch by the frozen calibration, at `exponent` if given;
    a cycles-per-instruction factor s divides it exactly (see `refit`)."""
    f = G.FROZEN
    return G.predict_fps(counts(fit["counts"]), f["weights"], fit["consoles"],
                         identical=fit["identical"], ipc_one_warp=f["ipc_one_warp"],
                         ipc_exponent=f["ipc_exponent"] if exponent is None else exponent,
                         clock_hz=fit["clock_hz"], draws=draws)


def resident(consoles: int) -> float:
    """Warps a scheduler at 255 registers and 128 threads a block, as the model places them."""
    return G.occupancy(255, 128, consoles)["resident_warps_per_scheduler"]


def charged_ipc(k: float) -> float:
    return min(1.0, G.FROZEN["ipc_one_warp"] * k ** G.FROZEN["ipc_exponent"])


FROZEN_SOURCE = "frozen calibration on tools/{file} (computed here)"


def frozen_source(key: str) -> str:
    return FROZEN_SOURCE.format(file=G.CALIBRATION_FILES[key].name)


# ---------------------------------------------------------------------------------------------
# The figures of each run
# ---------------------------------------------------------------------------------------------
def gpu_fps_figures(run: str, path: pathlib.Path, doc: Markdown) -> list[Figure]:
    """benchmarks/gpu_fps.py's records: raw, identical and agent frames/s per game and batch."""
    out = []
    not_decorrelated = {}
    if run == "11-23 H100":
        # RESULTS.md: 20 random frames left three games' consoles nearly identical.
        _, where = doc.quote(H_1123, r"space invaders, Ms\. Pac-Man and Seaquest gave .*?"
                                     r"\*\*these three\s+are not decorrelated figures\*\*")
        not_decorrelated = dict.fromkeys(("space_invaders", "ms_pacman", "seaquest"), where)
    for line, r in jsonl(path):
        if r["kind"] == "ale_vector" or r.get("fps") is None:
            continue                                  # the CPU baseline; out-of-memory runs
        state = {"raw": "decorrelated", "identical": "identical"}.get(r["kind"],
                                                                      "random actions")
        if r["kind"] == "raw":
            state = f"decorrelated ({r['warmup']} frames)"
            if r["game"] in not_decorrelated:
                state = f"not decorrelated ({not_decorrelated[r['game']]})"
        step = "agent" if r["kind"] == "agent" else "raw"
        out.append(Figure(run, r["game"], r["consoles"], step, state, "frames/s", "frames/s",
                          r["fps"], f"{_rel(path)}:{line}"))
    return out


def run_1122(doc: Markdown) -> list[Figure]:
    out = gpu_fps_figures("11-22 H100", RESULTS_DIR / "gpu_fps.jsonl", doc)
    for f in out:
        f.model_source = ("no model input offline: kernels before outlining and object blocks, "
                          "no trace of them")
    return out


def run_1123(doc: Markdown) -> list[Figure]:
    folder = RESULTS_DIR / "2026-11-23-h100"
    out = gpu_fps_figures("11-23 H100", folder / "gpu_fps.jsonl", doc)
    for f in out:
        if f.game == "pong" and f.step == "raw":
            f.fit = {"counts": "2ee2133", "consoles": f.consoles,
                     "identical": f.state == "identical", "clock_hz": BOOST_HZ}
        elif f.step == "raw":
            f.model_source = "no model input offline: no trace of 2ee2133 for this game"
        else:
            f.model_source = "no model input offline: the model has no agent step"
    # Nsight Compute on one launch of drive_cuda, Pong, 4,096 consoles after 20 frames.
    path = folder / "ncu_drive_pong_4096.txt"
    ncu = ncu_text(path)
    src = lambda name: f"{_rel(path)}:{ncu[name][1]}"   # noqa: E731
    n = int(ncu["Threads"][0])
    clock = ncu["SM Frequency"][0] * 1e9
    seconds = ncu["Duration"][0] / 1e3
    state = "decorrelated (20 frames)"
    out.append(Figure("11-23 H100", "pong", n, "raw", state,
                      f"frames/s, ncu launch at {clock / 1e9:.2f} GHz", "frames/s",
                      n / seconds, src("Duration"),
                      fit={"counts": "2ee2133", "consoles": n, "identical": False,
                           "clock_hz": clock}))
    model = lockstep("2ee2133")
    fitted = "fitted to this figure (gpu_model.CALIBRATION)"
    # (quantity, ncu metric, its scale, the calibration's figure): the counts it was fitted to.
    for quantity, metric, scale, value in (
            ("warp instructions per console-frame", "Executed Instructions", 1 / n,
             model["warp_instructions_per_console_frame"]),
            ("active threads per warp instruction", "Avg. Active Threads Per Warp", 1,
             model["active_threads_per_warp_instruction"]),
            ("cycles per issued warp instruction", "Warp Cycles Per Issued Instruction", 1,
             1 / G.FROZEN["ipc_one_warp"])):
        out.append(Figure("11-23 H100", "pong", n, "raw", state, quantity, "count",
                          ncu[metric][0] * scale, src(metric))
                   .predicted(value, fitted, basis="fitted"))
    out.append(Figure("11-23 H100", "pong", n, "raw", state, "warps active a scheduler",
                      "count", ncu["Achieved Active Warps Per SM"][0] / 4,
                      src("Achieved Active Warps Per SM"))
               .predicted(resident(n), "gpu_model.occupancy (computed here)", basis="frozen"))
    return out


def run_1126_h200(doc: Markdown) -> list[Figure]:
    out = []
    for game, step, state, pattern in TEXT_FIGURES:
        m, where = doc.quote(H_1126_H200, pattern)
        out.append(Figure("11-26 H200", game, 16384, step, state, "frames/s", "frames/s",
                          _num(m[1]), where))
    raw, pong, breakout = out
    m, where = doc.quote(H_1126_H200, r"raw Pong ([\d.]+) M frames/s \(model range\s+"
                                      r"([\d.]+)-([\d.]+)\)")
    raw.predicted(float(m[1]) * 1e6, f"written before the run, {where}",
                  float(m[2]) * 1e6, float(m[3]) * 1e6)
    # The refit's input: drive_cuda's emulation is the same at e9853a1 (the H100 run's
    # prediction says so, and only CPU code changed between them), whose trace is committed.
    _, why = doc.quote(H_1126_H100, r"\(drive kernel's emulation unchanged\)")
    raw.fit = {"counts": "e9853a1", "consoles": 16384, "identical": False,
               "clock_hz": BOOST_HZ, "why": why}
    m, where = doc.quote(H_1126_H200, r"the v5 agent step in emulated frames/s of the\s+same "
                                      r"order as raw")
    for f in (pong, breakout):
        f.model_source = f"no numeric prediction ('of the same order as raw', {where})"
    return out


def run_1126_h100(doc: Markdown) -> list[Figure]:
    folder = RESULTS_DIR / "2026-11-26-h100-runbook"
    run = "11-26 H100"
    model = lockstep("e9853a1")
    out = []
    w = lambda pattern: doc.quote(H_1126_H100, pattern)   # noqa: E731
    launches = ncu_csv(folder / "ncu_metrics.csv") + ncu_csv(folder / "ncu_metrics_65536.csv")
    for r in launches:
        path = folder / ("ncu_metrics.csv" if r["consoles"] == 16384 else
                         "ncu_metrics_65536.csv")
        src = f"{_rel(path)}:{r['line']}"
        n = r["consoles"]
        seconds = r["gpu__time_duration.sum"] * 1e-9
        lanes = r["smsp__thread_inst_executed_per_inst_executed.ratio"]
        warps = r["sm__warps_active.avg.pct_of_peak_sustained_active"] * 64 / 100 / 4
        issue = r["smsp__issue_active.avg.pct_of_peak_sustained_active"] / 100
        base = dict(run=run, game="pong", consoles=n, source=src)
        if r["kernel"] == "agent_reset_cuda":
            continue            # the profiled step reset no console: an empty launch
        if r["kernel"] == "agent_step_cuda":
            none = "no model input offline: the model has no agent step"
            out += [Figure(**base, step="agent", state="no reset yet (300 frames)",
                           figure="frames/s, ncu launch (4 frames)", kind="frames/s",
                           measured=4 * n / seconds, model_source=none),
                    Figure(**base, step="agent", state="no reset yet (300 frames)",
                           figure="active threads per warp instruction", kind="count",
                           measured=lanes, model_source=none),
                    Figure(**base, step="agent", state="no reset yet (300 frames)",
                           figure="thread instructions per console-step", kind="count",
                           measured=r["smsp__thread_inst_executed.sum"] / n,
                           model_source=none)]
            continue
        identical = r["range"] == "identical"
        state = "identical" if identical else "decorrelated (300 frames)"
        fit = {"counts": "e9853a1", "consoles": n, "identical": identical,
               "clock_hz": NCU_BASE_HZ}
        fps = Figure(**base, step="raw", state=state, figure="frames/s, ncu launch at "
                     f"{NCU_BASE_HZ / 1e9:.2f} GHz (base, assumed)", kind="frames/s",
                     measured=n / seconds, fit=fit)
        out.append(fps)
        if n == 65536 and not identical:
            m, where = w(r"one frame ([\d.]+)-([\d.]+) s \(")
            lo, hi = n / float(m[2]), n / float(m[1])
            fps.predicted(math.sqrt(lo * hi), f"written before the call, {where}", lo, hi)
        elif n == 65536:
            m, where = w(r"identical ([\d.]+)-([\d.]+) ms a frame")
            lo, hi = n / float(m[2]) * 1e3, n / float(m[1]) * 1e3
            fps.predicted(math.sqrt(lo * hi), f"written before the call, {where}", lo, hi)
        if not identical:
            out.append(Figure(**base, step="raw", state=state,
                              figure="warp instructions per console-frame", kind="count",
                              measured=r["smsp__inst_executed.sum"] / n)
                       .predicted(model["warp_instructions_per_console_frame"],
                                  frozen_source("e9853a1"), basis="frozen"))
            lanes_row = Figure(**base, step="raw", state=state,
                               figure="active threads per warp instruction", kind="count",
                               measured=lanes)
            if n == 16384:
                m, where = w(r"active threads per warp instruction (\d+)-(\d+) decorrelated "
                             r"\(the frozen model: ([\d.]+);")
                lanes_row.predicted(float(m[3]), f"written before the run, {where}",
                                    float(m[1]), float(m[2]))
            else:
                m, where = w(r"decorrelated Pong active threads ~([\d.]+) as at 16,384")
                lanes_row.predicted(float(m[1]), f"written before the call, {where}")
            out.append(lanes_row)
        elif n == 16384:
            m, where = w(r"identical consoles above (\d+);")
            out.append(Figure(**base, step="raw", state=state,
                              figure="active threads per warp instruction", kind="count",
                              measured=lanes)
                       .predicted(float(m[1]), f"written before the run: above, {where}",
                                  low=float(m[1]), basis="bound"))
        if n == 16384:
            out.append(Figure(**base, step="raw", state=state,
                              figure="thread instructions per console-frame", kind="count",
                              measured=r["smsp__thread_inst_executed.sum"] / n)
                       .predicted(model["thread_instructions_per_console_frame"],
                                  frozen_source("e9853a1"), basis="frozen"))
        warps_row = Figure(**base, step="raw", state=state, figure="warps active a scheduler",
                           kind="count", measured=warps)
        if n == 16384:
            m, where = w(r"achieved occupancy about (one) warp\s+per scheduler")
            warps_row.predicted(1.0, f"written before the run, {where}")
        else:
            m, where = w(r"warps\s+active ~\d+-\d+% \((\d+) warps per scheduler\)")
            warps_row.predicted(float(m[1]), f"written before the call, {where}")
        out.append(warps_row)
        out.append(Figure(**base, step="raw", state=state,
                          figure="issue-active share of a scheduler's cycles", kind="count",
                          measured=issue)
                   .predicted(charged_ipc(resident(n)),
                              "the frozen calibration's ipc(k) at the model's warps a "
                              "scheduler (computed here)", basis="frozen"))
    # The throughput stage (stage2.log: its throughput.jsonl did not come back).
    path = folder / "stage2.log"
    for r in runbook_log(path):
        state = "resets" if r["episode_ends_per_step"] else "no reset yet"
        f = Figure(run, r["game"], r["consoles"], "agent", f"{state}, {r['schedule']}",
                   "frames/s", "frames/s", r["frames_per_s"], f"{_rel(path)}:{r['line']}")
        name = {"pong": "Pong", "breakout": "Breakout"}[r["game"]]
        m, where = w(rf"{name} ([\d.]+)-([\d.]+) M (frames/s|with)")
        lo, hi = float(m[1]) * 1e6, float(m[2]) * 1e6
        out.append(f.predicted(math.sqrt(lo * hi), f"written before the run, {where}", lo, hi))
    return out


def throughput_figures(run: str, folder: pathlib.Path, logs: list[str]) -> list[Figure]:
    """The runbook's throughput.jsonl, then what only its logs hold (a second call's
    measurements, the env runner): agent frames/s per game and schedule."""
    out, seen = [], set()
    path = folder / "throughput.jsonl"
    for line, r in jsonl(path):
        if r["kind"] != "agent" or r["device"] != "cuda":
            continue
        seen.add((r["game"], r["consoles"], r["schedule"]))
        state = "resets" if r["episode_ends_per_step"] else "no reset yet"
        out.append(Figure(run, r["game"], r["consoles"], "agent", f"{state}, {r['schedule']}",
                          "frames/s", "frames/s", r["frames_per_s"], f"{_rel(path)}:{line}"))
    for name in logs:
        path = folder / name
        for r in runbook_log(path):
            key = (r["game"], r["consoles"], r["schedule"])
            if key in seen:
                continue
            seen.add(key)
            if r["kind"] == "env_runner":
                out.append(Figure(run, r["game"], r["consoles"], "env runner",
                                  f"no reset yet, {r['schedule']}", "agent steps/s",
                                  "frames/s", r["agent_steps_per_s"],
                                  f"{_rel(path)}:{r['line']}"))
                continue
            state = "resets" if r["episode_ends_per_step"] else "no reset yet"
            out.append(Figure(run, r["game"], r["consoles"], "agent",
                              f"{state}, {r['schedule']}", "frames/s", "frames/s",
                              r["frames_per_s"], f"{_rel(path)}:{r['line']}"))
    for f in out:
        f.model_source = "no model input offline: the model has no agent step"
    return out


def _find(figures, game, schedule) -> Figure:
    return next(f for f in figures if f.game == game and f.step == "agent"
                and f.state.endswith(schedule))


def run_1127_a(doc: Markdown, earlier: list[Figure]) -> list[Figure]:
    run = "11-27 H200 a"
    out = throughput_figures(run, RESULTS_DIR / "2026-11-27-h200-s21", ["runbook_call2.log"])
    # The reset table's prediction: Breakout's frames/s, Pong unchanged (from the H100's).
    m, where = doc.quote(H_TABLE, r"Breakout \*\*(\d+)-(\d+) k\s+frames/s\*\* at 16,384")
    lo, hi = float(m[1]) * 1e3, float(m[2]) * 1e3
    _find(out, "breakout", "free").predicted(math.sqrt(lo * hi),
                                             f"written before the run, {where}", lo, hi)
    m, where = doc.quote(H_TABLE, r"Pong unchanged within\s+noise")
    before = _find(earlier, "pong", "free")
    _find(out, "pong", "free").predicted(
        before.measured, f"written before the run ('unchanged', {where}): the H100's "
                         f"{before.measured:,.0f} ({before.source})")
    # The schedules' predictions, as ratios of scanline to free.
    for game, name in (("pong", "Pong"), ("breakout", "Breakout")):
        free, scan = _find(out, game, "free"), _find(out, game, "scanline")
        ratio = Figure(run, game, 16384, "agent", "scanline against free",
                       "frames/s scanline / free", "ratio", scan.measured / free.measured,
                       f"{scan.source}, {free.source.split('/')[-1]}")
        m, where = doc.quote(H_SCHEDULES, rf"\| agent step {name} \| [\d,]+ \| ([^|]+) \|")
        if r := re.match(r"([\d.]+)-([\d.]+)x free", m[1].strip()):
            lo, hi = float(r[1]), float(r[2])
            ratio.predicted(math.sqrt(lo * hi), f"written before the run, {where}", lo, hi)
        elif m[1].strip().startswith("about free"):
            ratio.predicted(1.0, f"written before the run ('about free'), {where}")
        out.append(ratio)
    return out


def run_1127_b(doc: Markdown) -> list[Figure]:
    run = "11-27 H200 b"
    out = throughput_figures(run, RESULTS_DIR / "2026-11-27-h200-s23",
                             ["runbook_call1.log", "runbook_call2.log"])
    m, where = doc.quote(H_FINISH, r"Breakout at 16,384 under\s+scanline [\d.]+-[\d.]+ s a "
                                   r"step, ([\d.]+)-([\d.]+) M frames/s")
    lo, hi = float(m[1]) * 1e6, float(m[2]) * 1e6
    _find(out, "breakout", "scanline").predicted(math.sqrt(lo * hi),
                                                 f"written before the run, {where}", lo, hi)
    m, where = doc.quote(H_FINISH, r"Pong in steady state: .{0,80}?~([\d.]+)-([\d.]+)\s+M")
    lo, hi = float(m[1]) * 1e6, float(m[2]) * 1e6
    pong = _find(out, "pong", "scanline")
    pong.predicted(math.sqrt(lo * hi), f"written before the run for Pong in steady state "
                   f"({where}); measured before any episode ended", lo, hi, basis="differs")
    return out


def run_1130(doc: Markdown) -> list[Figure]:
    """The first run of nine changes predicted since 9ade5a7: the five games at 16,384 and
    Seaquest at 131,072, each against the figure written before it (RESULTS.md, 2026-11-28,
    the autoreset launch on SMs of its own)."""
    run = "11-30 H200"
    out = throughput_figures(run, RESULTS_DIR / "2026-11-30-h200", [])
    names = {"pong": "Pong", "breakout": "Breakout", "space_invaders": "Space Invaders",
             "ms_pacman": r"Ms\. Pac-Man", "seaquest": "Seaquest"}
    written = {}
    for f in out:
        if f.consoles == 16384:
            m, where = doc.quote(H_OWN_SMS, rf"16,384 consoles with resets.*?{names[f.game]} "
                                            r"\*{0,2}([\d.]+)")
            written[f.game] = float(m[1]) * 1e6
            f.predicted(written[f.game], f"written before the run, {where}")
        elif f.game == "seaquest" and f.consoles == 131072:
            m, where = doc.quote(H_OWN_SMS, r"Seaquest\s+at 131,072 with the 64-register step "
                                            r"([\d.]+)-([\d.]+) M")
            lo, hi = float(m[1]) * 1e6, float(m[2]) * 1e6
            f.predicted(math.sqrt(lo * hi), f"written before the run, {where}", lo, hi)
        # Written for steady state with resets; measured before any episode ended there.
        if f.state.startswith("no reset yet") and f.model:
            f.basis = "differs"
            f.model_source += "; measured before any episode ended"
    agent = [f for f in out if f.consoles == 16384 and f.game in names]
    if len(agent) == len(names):
        m, where = doc.quote(H_OWN_SMS, r"\*\*median ([\d.]+) M\*\*")
        out.append(Figure(run, "median of 5", 16384, "agent", "resets in 4 of 5 games, scanline",
                          "frames/s, median of the five games", "frames/s",
                          float(np.median([f.measured for f in agent])),
                          ", ".join(f.source.split("/")[-1] for f in agent))
                   .predicted(float(m[1]) * 1e6, f"written before the run, {where}",
                              basis="summary"))
    return out


def collect() -> list[Figure]:
    doc = Markdown(RESULTS_MD)
    figures = run_1122(doc) + run_1123(doc) + run_1126_h200(doc)
    h100 = run_1126_h100(doc)
    figures += h100 + run_1127_a(doc, h100) + run_1127_b(doc) + run_1130(doc)
    return figures


def fill_frozen(figures: list[Figure], draws: int) -> None:
    """The frozen calibration's frames/s for figures with trace counts and no written
    prediction; every fit input also keeps the frozen figure for the refit."""
    for f in figures:
        if f.fit:
            f.fit["frozen"] = model_fps(f.fit, draws=draws)
            if f.model is None:
                fitted = (f.fit["counts"] == "2ee2133" and not f.fit["identical"]
                          and f.consoles == 65536)
                f.predicted(f.fit["frozen"],
                            "fitted to this figure (gpu_model.CALIBRATION)" if fitted else
                            frozen_source(f.fit["counts"]),
                            basis="fitted" if fitted else "frozen")


# ---------------------------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------------------------
SCORED = ("written", "frozen")     # fitted, bound and mismatched workloads are left out


def error(ratio: float) -> float:
    """A miss as a factor >= 1, either way."""
    return math.exp(abs(math.log(ratio)))


def summary(ratios) -> dict:
    ratios = [r for r in ratios if r]
    if not ratios:
        return {"n": 0}
    errors = [error(r) for r in ratios]
    worst = max(ratios, key=error)
    return {"n": len(ratios), "median_ratio": float(np.median(ratios)),
            "median_error": float(np.median(errors)), "worst_ratio": worst,
            "worst_error": error(worst),
            "rms_error": math.exp(math.sqrt(np.mean(np.log(ratios) ** 2)))}


def summary_text(s: dict) -> str:
    if not s["n"]:
        return "no pairs"
    return (f"{s['n']} pairs: median model/measured {s['median_ratio']:.2f}, median error "
            f"x/÷ {s['median_error']:.2f}, worst {s['worst_ratio']:.2f} "
            f"(x/÷ {s['worst_error']:.2f}), rms x/÷ {s['rms_error']:.2f}")


# ---------------------------------------------------------------------------------------------
# The refit
# ---------------------------------------------------------------------------------------------
E_GRID = np.round(np.arange(0.0, 1.21, 0.1), 2)


def depends_on_exponent(fit: dict) -> bool:
    """Only launches that hold more than one warp a scheduler: ipc(1) = ipc_one_warp."""
    return resident(fit["consoles"]) > 1


def _fit_e(pairs, grid) -> float:
    """The exponent e minimising the squared log misses, s free: for each e of the grid s is
    the geometric mean miss; e refined by a parabola through the best grid point and its
    neighbours. Without a pair that holds two warps a scheduler e is not seen: FROZEN's."""
    if not any(depends_on_exponent(p.fit) for p in pairs):
        return G.FROZEN["ipc_exponent"]
    measured = np.log([p.measured for p in pairs])

    def sse(i):
        logs = np.log([grid[p.source][i] if depends_on_exponent(p.fit) else p.fit["frozen"]
                       for p in pairs]) - measured
        return float(((logs - logs.mean()) ** 2).sum())

    costs = np.array([sse(i) for i in range(len(E_GRID))])
    i = int(np.argmin(costs))
    e = float(E_GRID[i])
    if 0 < i < len(E_GRID) - 1:
        a, b, c = costs[i - 1:i + 2]
        step = E_GRID[1] - E_GRID[0]
        if a + c - 2 * b > 0:
            e += step * 0.5 * (a - c) / (a + c - 2 * b)
    return e


def _log_s(pairs, values) -> float:
    return float(np.mean([math.log(v / p.measured) for p, v in zip(pairs, values)]))


def refit(figures: list[Figure], draws: int) -> dict:
    pairs = [f for f in figures if f.fit and f.kind == "frames/s"]
    for p in pairs:
        assert p.fit.get("frozen"), p
    # The exponent's grid, one draw a point: only where more than one warp shares a scheduler.
    grid = {p.source: [model_fps(p.fit, e, draws=1) for e in E_GRID]
            for p in pairs if depends_on_exponent(p.fit)}
    runs = sorted({p.run for p in pairs}, key=list(RUNS).index)
    exact: dict = {}

    def at(p, e):
        """The frozen model at exponent e, with the draws of the table (cached)."""
        if not depends_on_exponent(p.fit) or e == G.FROZEN["ipc_exponent"]:
            return p.fit["frozen"]
        key = (p.source, round(e, 4))
        if key not in exact:
            exact[key] = model_fps(p.fit, e, draws=draws)
        return exact[key]

    def fit(variant, train):
        # The model's frames/s divide by s (and by d on decorrelated launches): s is the
        # geometric mean of model / measured, the least-squares solution in log space.
        if variant == "s":
            e = G.FROZEN["ipc_exponent"]
            return {"s": math.exp(_log_s(train, [p.fit["frozen"] for p in train])), "e": e}
        if variant == "s, e":
            e = _fit_e(train, grid)
            return {"s": math.exp(_log_s(train, [at(p, e) for p in train])), "e": e}
        # s and a factor d on decorrelated launches: linear least squares in log space.
        x = np.array([[1.0, 0.0 if p.fit["identical"] else 1.0] for p in train])
        y = np.array([math.log(p.fit["frozen"] / p.measured) for p in train])
        if len(set(x[:, 1])) < 2:
            return {"s": math.exp(y.mean()), "d": 1.0, "e": G.FROZEN["ipc_exponent"]}
        (a, b), *_ = np.linalg.lstsq(x, y, rcond=None)
        return {"s": math.exp(a), "d": math.exp(b), "e": G.FROZEN["ipc_exponent"]}

    def predict(params, p):
        factor = params["s"] * (params.get("d", 1.0) if not p.fit["identical"] else 1.0)
        # Dividing frames/s by the factor is the same as dividing ipc(k) by it only below
        # launch_seconds' cap of one instruction a cycle.
        assert (G.FROZEN["ipc_one_warp"] / factor * resident(p.consoles) ** params["e"]) < 1
        return at(p, params["e"]) / factor

    out = {"variants": {}}
    for variant in ("s", "s, e", "s, d"):
        params = fit(variant, pairs)
        loo = {}
        for run in runs:
            train = [p for p in pairs if p.run != run]
            held = fit(variant, train)
            for p in pairs:
                if p.run == run:
                    loo[p.source] = predict(held, p)
            out["variants"].setdefault(variant, {}).setdefault("folds", {})[run] = held
        in_sample = {p.source: predict(params, p) for p in pairs}
        out["variants"][variant].update({
            "params": params,
            "in_sample": summary([in_sample[p.source] / p.measured for p in pairs]),
            "leave_one_run_out": summary([loo[p.source] / p.measured for p in pairs]),
            "model": in_sample, "loo": loo})
    out["pairs"] = pairs
    out["frozen"] = summary([p.fit["frozen"] / p.measured for p in pairs])
    out["runs"] = runs
    return out


# ---------------------------------------------------------------------------------------------
# What the model leaves out, priced from the ncu records
# ---------------------------------------------------------------------------------------------
def prices(figures: list[Figure]) -> dict:
    """Per ncu launch at one warp a scheduler, the model's frames/s error split into three
    factors whose product is the model / measured ratio of the table:
      issue:   measured cycles a warp instruction on the busiest scheduler / the 6.4 charged
               (the model's frames/s too high by this where > 1),
      slowest: (measured slowest warp / mean warp) / (the model's slowest / mean),
      count:   measured mean warp instructions / the model's mean.
    The model's slowest warp is what its launch time implies (one warp a scheduler, one wave:
    the launch lasts as long as its slowest warp at ipc(1)). Where ncu gave no per-scheduler
    maximum (the 2026-11-23 text report), the slowest warp is taken to have issued at the
    warps' mean cycles per issued instruction (derived, marked so)."""
    cpi_charged = 1 / G.FROZEN["ipc_one_warp"]
    rows = []
    folder = RESULTS_DIR / "2026-11-26-h100-runbook"
    launches = ncu_csv(folder / "ncu_metrics.csv") + ncu_csv(folder / "ncu_metrics_65536.csv")
    one_warp = {}
    for r in launches:
        n, kernel = r["consoles"], r["kernel"]
        if kernel == "agent_reset_cuda":
            continue
        cycles = r["gpu__time_duration.sum"] * 1e-9 * NCU_BASE_HZ
        warps = math.ceil(n / 32)
        i_max = r["smsp__inst_executed.max"]
        i_mean = r["smsp__inst_executed.sum"] / warps
        cpi = cycles / i_max
        k = r["sm__warps_active.avg.pct_of_peak_sustained_active"] * 64 / 100 / 4
        row = {"launch": f"{r['range']} {n:,} ({kernel}, e9853a1)", "warps": k,
               "warps_model": resident(n), "cpi": cpi,
               "cpi_charged": cpi_charged / resident(n) ** G.FROZEN["ipc_exponent"],
               "issue_active": r["smsp__issue_active.avg.pct_of_peak_sustained_active"] / 100,
               "spread": i_max / i_mean if resident(n) <= 1 else None}
        if resident(n) <= 1:
            one_warp[r["range"]] = cpi
        else:
            # The issue rate's growth from one warp a scheduler to this launch's, as an
            # exponent like the model's e (the busiest scheduler's cycles a warp instruction).
            row["exponent"] = math.log(one_warp[r["range"]] / cpi) / math.log(k)
        fig = next((f for f in figures if f.run == "11-26 H100" and f.consoles == n
                    and f.fit and f.fit["identical"] == (r["range"] == "identical")
                    and f.kind == "frames/s"), None)
        if fig and resident(n) <= 1 and kernel == "drive_cuda":
            model = lockstep("e9853a1")
            model_seconds = n / fig.fit["frozen"]
            m_max = model_seconds * fig.fit["clock_hz"] / cpi_charged
            m_mean = (model["thread_instructions_per_console_frame"] if fig.fit["identical"]
                      else model["warp_instructions_per_console_frame"] * 32)
            row.update(spread_model=m_max / m_mean, count=i_mean / m_mean,
                       table=fig.fit["frozen"] / fig.measured)
        rows.append(row)
    # 2026-11-23: the text report's warp cycles per issued instruction, and spills.
    path = RESULTS_DIR / "2026-11-23-h100" / "ncu_drive_pong_4096.txt"
    ncu = ncu_text(path)
    n = int(ncu["Threads"][0])
    fig = next(f for f in figures if f.run == "11-23 H100" and f.fit
               and f.fit["clock_hz"] != BOOST_HZ)
    cpi = ncu["Warp Cycles Per Issued Instruction"][0]
    i_mean = ncu["Executed Instructions"][0] / (n // 32)
    i_max = ncu["Elapsed Cycles"][0] / cpi                  # derived, see the docstring
    model = lockstep("2ee2133")
    m_max = n / fig.fit["frozen"] * fig.fit["clock_hz"] / cpi_charged
    m_mean = model["warp_instructions_per_console_frame"] * 32
    rows.insert(0, {"launch": f"raw {n:,} (drive_cuda, 2ee2133)", "derived": True,
                    "warps": ncu["Achieved Active Warps Per SM"][0] / 4, "warps_model": 1.0,
                    "cpi": cpi, "cpi_charged": cpi_charged, "spread": i_max / i_mean,
                    "spread_model": m_max / m_mean, "count": i_mean / m_mean,
                    "table": fig.fit["frozen"] / fig.measured,
                    "issue_active": ncu["Issued Warp Per Scheduler"][0]})
    spills = ncu["Local Memory Spilling Requests"]
    spill = {"requests": spills[0], "source": f"{_rel(path)}:{spills[1]}",
             "instructions": ncu["Executed Instructions"][0],
             "share": spills[0] / ncu["Executed Instructions"][0],
             "l1_hit": ncu["L1/TEX Hit Rate"][0], "cpi": cpi}
    return {"launches": rows, "spill": spill}


# ---------------------------------------------------------------------------------------------
# Markdown
# ---------------------------------------------------------------------------------------------
def _fmt(value: float | None, kind: str) -> str:
    if value is None:
        return "-"
    if abs(value) >= 1e6:
        return f"{value / 1e6:.2f} M"
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    if abs(value) < 1:
        return f"{value:.3f}"
    return f"{value:.2f}"


def _model_cell(f: Figure) -> str:
    if f.model is None:
        return "-"
    text = _fmt(f.model, f.kind)
    if f.basis == "bound":
        return f"> {_fmt(f.low, f.kind)}"
    if f.low is not None and f.high is not None:
        text += f" ({_fmt(f.low, f.kind)}-{_fmt(f.high, f.kind)})"
    return text


def _in_range(f: Figure) -> str:
    if f.basis == "bound":
        return "yes" if f.measured > f.low else "no"
    if f.low is None or f.high is None:
        return ""
    return "yes" if f.low <= f.measured <= f.high else "no"


BASIS = {"written": "predicted before the run", "frozen": "frozen model",
         "fitted": "fitted (not scored)", "bound": "bound (not scored)",
         "differs": "other workload (not scored)",
         "summary": "median of scored rows (not scored again)", "none": "-"}


def figures_markdown(figures: list[Figure]) -> list[str]:
    lines = ["| # | run | GPU | commit | workload | figure | measured | model | model / measured "
             "| in range | model's basis | measured in | model from |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for i, f in enumerate(figures, 1):
        run = RUNS[f.run]
        ratio = f"{f.ratio:.2f}" if f.ratio and f.basis != "bound" else "-"
        lines.append(f"| {i} | {f.run} | {run['gpu']} | {run['commit']} | {f.workload} | "
                     f"{f.figure} | {_fmt(f.measured, f.kind)} | {_model_cell(f)} | {ratio} | "
                     f"{_in_range(f)} | {BASIS[f.basis]} | {f.source} | {f.model_source} |")
    return lines


def errors_markdown(figures: list[Figure]) -> list[str]:
    scored = [f for f in figures if f.basis in SCORED and f.ratio]
    lines = ["| figures | pairs | median model / measured | median error | worst model / "
             "measured | worst error |", "|---|---|---|---|---|---|"]
    groups = [("frames/s (written predictions and the frozen model)",
               [f for f in scored if f.kind == "frames/s"]),
              ("frames/s, written before the run only",
               [f for f in scored if f.kind == "frames/s" and f.basis == "written"]),
              ("frames/s, the frozen model computed here only",
               [f for f in scored if f.kind == "frames/s" and f.basis == "frozen"]),
              # The headline's workload, which the rows above dilute with raw frames.
              ("frames/s, the agent step with resets (all written before the run)",
               [f for f in scored if f.kind == "frames/s" and f.step == "agent"
                and "resets" in f.state]),
              ("ratios of frames/s (scanline / free)", [f for f in scored if f.kind == "ratio"]),
              ("counts (instructions, lanes, warps, issue share)",
               [f for f in scored if f.kind == "count"]),
              ("all scored", scored)]
    for name, rows in groups:
        s = summary([f.ratio for f in rows])
        if s["n"]:
            lines.append(f"| {name} | {s['n']} | {s['median_ratio']:.2f} | x/÷ "
                         f"{s['median_error']:.2f} | {s['worst_ratio']:.2f} | x/÷ "
                         f"{s['worst_error']:.2f} |")
    total = len(figures)
    paired = sum(1 for f in figures if f.model is not None)
    lines += ["", f"{total} figures recorded, {paired} with a model figure, "
              f"{len(scored)} scored (written predictions and the frozen model's figures; "
              f"fitted figures, bounds and other workloads are not)."]
    return lines


def refit_markdown(fit: dict) -> list[str]:
    pairs = fit["pairs"]
    v = fit["variants"]
    lines = ["Pairs: the frames/s figures whose model inputs exist offline (runs "
             + ", ".join(fit["runs"]) + "). Frozen: FROZEN as committed "
             f"(6.4 cycles a warp instruction at one warp a scheduler, e = "
             f"{G.FROZEN['ipc_exponent']:.2f})."]
    for p in pairs:
        if p.fit.get("why"):
            lines.append(f"{p.run}'s pair runs on the trace of {p.fit['counts']}: drive_cuda's "
                         f"emulation is the same there ({p.fit['why']}).")
    lines += ["",
              "| run | workload | figure | measured | frozen | ratio | refit s | ratio | "
              "refit s, e | ratio | refit s, d | ratio | run left out: s | run left out: s, e "
              "| run left out: s, d |",
              "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for p in pairs:
        cells = [f"{p.run}", p.workload, p.figure, _fmt(p.measured, "frames/s"),
                 _fmt(p.fit["frozen"], "frames/s"), f"{p.fit['frozen'] / p.measured:.2f}"]
        for name in ("s", "s, e", "s, d"):
            value = v[name]["model"][p.source]
            cells += [_fmt(value, "frames/s"), f"{value / p.measured:.2f}"]
        for name in ("s", "s, e", "s, d"):
            cells.append(f"{v[name]['loo'][p.source] / p.measured:.2f}")
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", "| model | parameters (all pairs) | in sample | leave one run out |",
              "|---|---|---|---|",
              f"| frozen | s = 1, e = {G.FROZEN['ipc_exponent']:.2f} | "
              f"{summary_text(fit['frozen'])} | - |"]
    for name in ("s", "s, e", "s, d"):
        p = v[name]["params"]
        text = f"s = {p['s']:.3f} ({6.4 * p['s']:.2f} cycles at one warp), e = {p['e']:.2f}"
        if "d" in p:
            text += f", d = {p['d']:.3f}"
        folds = "; ".join(f"without {run}: s = {q['s']:.3f}, e = {q['e']:.2f}"
                          + (f", d = {q['d']:.3f}" if "d" in q else "")
                          for run, q in v[name]["folds"].items())
        lines.append(f"| refit {name} | {text} | {summary_text(v[name]['in_sample'])} | "
                     f"{summary_text(v[name]['leave_one_run_out'])} ({folds}) |")
    return lines


def prices_markdown(pr: dict) -> list[str]:
    lines = ["| launch | warps a scheduler: measured (model) | cycles a warp instruction, busiest "
             "scheduler: measured (charged) | issue-active share | slowest / mean warp: measured "
             "(model) | issue factor | slowest-warp factor | instruction factor | product | "
             "model / measured in the table | issue-rate exponent from one warp |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in pr["launches"]:
        issue = r["cpi"] / r["cpi_charged"]
        spread = (f"{r['spread']:.2f} ({r['spread_model']:.2f})"
                  + (" derived" if r.get("derived") else "")) if r.get("spread_model") else (
            f"{r['spread']:.2f}" if r.get("spread") else "-")
        slowest = r["spread"] / r["spread_model"] if r.get("spread_model") else None
        count = r.get("count")
        product = issue * slowest * count if slowest and count else None
        lines.append(
            f"| {r['launch']} | {r['warps']:.2f} ({r['warps_model']:g}) | {r['cpi']:.2f} "
            f"({r['cpi_charged']:.2f}) | {r['issue_active']:.3f} | {spread} | {issue:.2f} | "
            + (f"{slowest:.2f}" if slowest else "-") + " | "
            + (f"{count:.2f}" if count else "-") + " | "
            + (f"{product:.2f}" if product else "-") + " | "
            + (f"{r['table']:.2f}" if r.get("table") else "-") + " | "
            + (f"{r['exponent']:.2f}" if r.get("exponent") is not None else "-") + " |")
    s = pr["spill"]
    lines += ["", f"Spill reloads ({s['source']}): {s['requests']:,.0f} local-memory spilling "
              f"requests in a launch of {s['instructions']:,.0f} warp instructions, "
              f"{s['share']:.2%} of them (L1 hit rate {s['l1_hit']:.1f}%); the warps averaged "
              f"{s['cpi']:.2f} cycles an issued instruction. A request that holds a lone warp "
              "for L cycles instead of that average adds share x (L - average) / average to "
              "the launch: " + ", ".join(
                  f"{s['share'] * (L - s['cpi']) / s['cpi']:.1%} at L = {L}"
                  for L in (20, 30, 40)) + " (L is not recorded; stores, also counted, "
              "rarely stall, so these are upper bounds for those L)."]
    return lines


def markdown(figures, fit, pr) -> str:
    lines = ["## Every recorded GPU figure against the model", ""]
    lines += figures_markdown(figures)
    lines += ["", "## The model's error, before any refit", ""]
    lines += errors_markdown(figures)
    lines += ["", "## Refit, with each run left out in turn", ""]
    lines += refit_markdown(fit)
    lines += ["", "## What the model leaves out, priced from the ncu records", ""]
    lines += prices_markdown(pr)
    return "\n".join(lines) + "\n"


def as_json(figures, fit, pr) -> dict:
    rows = []
    for f in figures:
        row = dataclasses.asdict(f)
        row["ratio"] = f.ratio
        rows.append(row)
    variants = {name: {k: v for k, v in val.items() if k not in ("model", "loo")}
                for name, val in fit["variants"].items()}
    return {"figures": rows, "errors": {
                "frames_per_s": summary([f.ratio for f in figures
                                         if f.basis in SCORED and f.kind == "frames/s"]),
                "all": summary([f.ratio for f in figures if f.basis in SCORED])},
            "refit": {"frozen": fit["frozen"], "variants": variants,
                      "pairs": [p.source for p in fit["pairs"]]},
            "prices": pr}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--draws", type=int, default=5,
                        help="launches drawn per model figure (gpu_model.predict_fps)")
    parser.add_argument("--md", help="write the markdown here too")
    parser.add_argument("--json", help="write the figures, errors and refit as JSON")
    args = parser.parse_args(argv)
    figures = collect()
    fill_frozen(figures, args.draws)
    fit = refit(figures, args.draws)
    pr = prices(figures)
    text = markdown(figures, fit, pr)
    print(text, end="")
    if args.md:
        pathlib.Path(args.md).write_text(text)
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(as_json(figures, fit, pr), indent=1,
                                                      default=float) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
