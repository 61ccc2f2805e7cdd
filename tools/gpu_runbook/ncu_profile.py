"""Stage 3a: Nsight Compute metrics of one launch of each hot kernel, decorrelated and identical
consoles, at 16,384 and 65,536 consoles: the figures the offline GPU model is fitted to (issue
"GPU throughput, step 1"). Without a GPU (the dry run) the profiled program runs alone at tiny
sizes, so that its code is exercised, and no metrics are claimed."""

from __future__ import annotations

import pathlib
import shutil
import subprocess
import time

from .common import Deadline, Log, append_record, python, python_env

METRICS = (
    "smsp__thread_inst_executed_per_inst_executed.ratio",   # active threads per warp instruction
    "smsp__inst_executed.sum",                              # warp instructions
    "smsp__thread_inst_executed.sum",                       # thread instructions
    "smsp__issue_active.avg.pct_of_peak_sustained_active",  # issue slots used
    "sm__warps_active.avg.pct_of_peak_sustained_active",    # achieved occupancy
    "launch__registers_per_thread",
    "launch__occupancy_limit_registers",
    "launch__grid_size",
    "gpu__time_duration.sum",
)
# Why a warp does not issue, and how scattered its memory accesses are (2026-11-27): Pong's
# decorrelated agent step under scanline (0.48 M frames/s, H200) and identical consoles' raw
# frames (2.28 M, H100, older kernels) are ~5x apart, far more than the trace model's 28.5 of
# 32 lanes a step explains. Stalls per issued instruction by reason, and sectors per request (1 for a
# warp's 32 bytes in one sector, up to 32 when every lane's byte has its own: the frame
# buffers' pixel stores at different x, the RAM's indexed accesses; local memory: the spills).
WHY_METRICS = tuple(
    f"smsp__average_warps_issue_stalled_{reason}_per_issue_active.ratio"
    for reason in ("long_scoreboard", "short_scoreboard", "wait", "lg_throttle", "mio_throttle",
                   "branch_resolving", "no_instruction", "math_pipe_throttle", "not_selected",
                   "selected", "barrier", "drain")) + tuple(
    f"l1tex__t_{what}_pipe_lsu_mem_{space}_op_{op}.sum"
    for space in ("global", "local") for op in ("ld", "st") for what in ("sectors", "requests"))
KERNELS = ("drive_cuda", "agent_step_cuda", "agent_step_cuda_capped", "agent_step_cuda_lean",
           "agent_observe_cuda", "agent_reset_cuda", "resetting_lanes_cuda")
TARGET = "tools.gpu_runbook.profile_target"     # run with -m, tools found on python_env()'s path


def run_stage(results: pathlib.Path, *, device: str, scale: str, time_limit: float,
              log: Log, consoles: list[int] | None = None, agent: bool = True) -> dict:
    """`consoles`: batch sizes other than the default ones (their files get the sizes in their
    names, so that a later call adds to the default profile instead of overwriting it);
    `agent` False: the raw and identical ranges only (no agent-step warm-up)."""
    deadline = Deadline(time_limit)
    default = ["4"] if scale == "tiny" else ["16384", "65536"]
    sizes = default if consoles is None else [str(c) for c in consoles]
    suffix = "" if sizes == default else "_" + "_".join(sizes)
    warmup = "8" if scale == "tiny" else "300"
    order = results / f"profile_order{suffix}.json"
    target = [python(), "-m", TARGET, "--device", device, "--consoles", *sizes,
              "--warmup-frames", warmup, "--order", str(order),
              "--time-limit", str(max(10.0, deadline.left() - 10.0))]
    if not agent:
        target.append("--no-agent")
    ncu = shutil.which("ncu")
    if device != "cpu" and ncu is None:
        for candidate in sorted(pathlib.Path("/opt/nvidia").glob("nsight-compute/*/ncu")):
            ncu = str(candidate)
    record = {"stage": "profile", "device": device, "consoles": sizes, "agent": agent}
    if device == "cpu" or ncu is None:
        command = target
        record["ncu"] = None
    else:
        report = results / f"ncu_metrics{suffix}.csv"
        def ncu_command(metrics):
            return [ncu, "--profile-from-start", "off", "-k", f"regex:{'|'.join(KERNELS)}",
                    "--metrics", ",".join(metrics),
                    "--csv", "--page", "raw", "--log-file", str(report), *target]

        command = ncu_command(METRICS + WHY_METRICS)
        record["ncu"] = ncu
        record["report"] = report.name
    t0 = time.perf_counter()
    _run(command, record, deadline, log)
    if record["ncu"] and record["returncode"] != 0 and "metric" in record["output_tail"].lower():
        # a metric this ncu does not know fails the whole run: the base metrics alone once more
        record["why_metrics_failed"] = record["output_tail"][-800:]
        _run(ncu_command(METRICS), record, deadline, log)
    record["seconds"] = round(time.perf_counter() - t0, 1)
    append_record(results / "profile.jsonl", record)
    log(f"profile: return code {record['returncode']} after {record['seconds']} s")
    log(record["output_tail"][-1500:])
    return record


def _run(command, record: dict, deadline: Deadline, log) -> None:
    log("profile:", " ".join(command))
    try:
        proc = subprocess.run(command, env=python_env(), capture_output=True, text=True,
                              timeout=max(10.0, deadline.left()))
        record["returncode"] = proc.returncode
        record["output_tail"] = (proc.stdout + proc.stderr)[-3000:]
    except subprocess.TimeoutExpired as err:
        record["returncode"] = None
        record["error"] = "timed out"
        record["output_tail"] = str(err.stdout or "")[-3000:]
