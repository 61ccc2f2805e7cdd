"""The GPU runbook's dry run: every stage on the CPU at tiny sizes, then the comparison and the
report, as CI runs it. A GPU session must not be the first to run this code; what the dry run
cannot show (the CUDA kernels themselves, ncu, cupy streams) is covered by the PTX and
simulator tests and said in benchmarks/README.md."""

from __future__ import annotations

import csv
import importlib.util
import json
import pathlib
import subprocess
import sys

import pytest

REPO = pathlib.Path(__file__).resolve().parents[1]
RUNBOOK = REPO / "tools" / "gpu_runbook"


def _records(path: pathlib.Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@pytest.mark.slow           # every stage in child processes, PPO training included
def test_dry_run_runs_every_stage(tmp_path):
    results = tmp_path / "results"
    # Run as device.sh runs it, from the repository root: the runbook and its child processes
    # import the checkout's cule_py (tools/gpu_runbook/common.py, python_env).
    proc = subprocess.run([sys.executable, "-m", "tools.gpu_runbook", "dry-run", "--results",
                           str(results)], cwd=REPO, capture_output=True, text=True, timeout=1500)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]

    preflight = json.loads((results / "preflight.json").read_text())
    assert preflight["machine"]["cpu_count"] >= 1
    per_console = preflight["memory"]["agent_step_env"]["bytes_per_console"]
    assert per_console > 210 * 160          # at least one frame buffer per console

    with open(results / "exactness_compare.csv") as f:
        compared = list(csv.DictReader(f))
    assert compared and {r["mode"] for r in compared} == {"emulator", "vector"}
    assert all(r["result"] == "EXACT" for r in compared), compared

    throughput = _records(results / "throughput.jsonl")
    assert throughput and not [r for r in throughput if "error" in r]
    runners = [r for r in throughput if r["kind"] == "env_runner"]
    throughput = [r for r in throughput if r["kind"] != "env_runner"]
    if importlib.util.find_spec("torch") is not None:      # the env runner's loop needs torch
        assert {r["sampler"] for r in runners} == {"cule", "ale"}
        for r in runners:
            assert r["env_steps_per_s"] > 0 and r["consoles"] == 4
            assert set(r["breakdown_share"]) == {"inference", "env", "host_copy", "spans"}
    kinds = {(r["kind"], r["game"]) for r in throughput}
    assert {("ale_vector", "pong"), ("agent", "pong"), ("raw", "breakout")} <= kinds
    assert {r["schedule"] for r in throughput if r["kind"] == "agent"} == {"scanline"}
    # drawing at WSYNC on (the default) and off, as the consoles had it
    agents = [r for r in throughput if r["kind"] == "agent"]
    assert {r["draw_at_wsync"] for r in agents} == {0, 1}
    assert all(r["consoles_draw_at_wsync"] == [r["draw_at_wsync"]] for r in agents), agents
    # the autoreset launch's blocks both ways (the CPU backend has no blocks to size)
    assert {r["reset_blocks"] for r in agents} == {"own", "shared"}
    assert all(r["reset_threads_beside_step"] is None for r in agents), agents
    for r in throughput:
        assert r["frames_per_s"] > 0 and len(r["windows"]) == 3
        assert r["episode_ends_per_step"] >= 0
        if r["kind"] != "ale_vector":           # cule_py's RAM is reachable, ale-py's is not
            assert 1 <= r["distinct_ram"] <= r["consoles"]
        if r["kind"] == "agent":                # the table's counters and one launch's latency
            assert set(r["reset_sources"]) >= {"start", "tail", "tail_direct"}
            assert [p["consoles"] for p in r["reset_probe"]] == [1, 2]

    (profile,) = _records(results / "profile.jsonl")
    assert profile["returncode"] == 0 and profile["ncu"] is None, profile
    order = json.loads((results / "profile_order.json").read_text())
    assert [r["range"] for r in order] == ["raw", "identical", "identical_undrawn", "agent_step"]

    (training,) = _records(results / "training.jsonl")
    if importlib.util.find_spec("torch") is not None:      # PPO needs torch (CI installs it)
        assert training["returncode"] == 0, training
        assert training["summary"]["losses_finite"]
    else:
        assert training["returncode"] != 0       # recorded, not hidden

    (scaling,) = _records(results / "cpu_scaling.jsonl")
    assert scaling["game"] == "pong" and scaling["threads"] == [1, 2]
    assert {(r["side"], r["threads"]) for r in scaling["runs"]} == {
        (side, t) for side in ("cule_py", "ale_py") for t in (1, 2)}
    assert all(rnd["agent_steps_per_s"] > 0 for r in scaling["runs"] for rnd in r["rounds"])

    report = (results / "report.md").read_text()
    for heading in ("## Preflight", "## Exactness", "## Throughput", "## PPO on Pong",
                    "## The CPU backend over the machine's cores"):
        assert heading in report
    assert "| pong | cule_py |" in report
    assert ("### RLlib env runner's device path" in report) == bool(runners)


def test_device_script_is_valid_bash_and_returns_each_stage_within_eight_files():
    script = (RUNBOOK / "device.sh").read_text()
    subprocess.run(["bash", "-n", str(RUNBOOK / "device.sh")], check=True)
    for stage in ("1)", "2)", "3)", "4)"):
        line = next(li for li in script.splitlines() if li.strip().startswith(stage))
        assert 1 <= len(line.split('"')[1].split()) <= 8, line
    # one call per stage or two (`device.sh 1 3` on request): the stages of a call share one
    # log, and files that two stages write (the preflight) come back once
    assert "runbook.log" in script and "stage{stage}" not in (RUNBOOK / "__main__.py").read_text()
    files = {stage: set(next(li for li in script.splitlines() if li.strip().startswith(stage))
                        .split('"')[1].split()) for stage in ("1)", "2)", "3)")}
    assert len(files["2)"]) + 1 <= 8
    # (PPO's files appear only when stage 3 is given the time to train: a call of its own)
    call2 = {f for f in files["1)"] | files["3)"] if not f.startswith(("ppo_", "training"))}
    assert len(call2) + 1 <= 8


def test_cpu_scaling_stops_where_the_carried_cpu_kernels_are_missing(tmp_path, monkeypatch):
    """On a GPU machine stage 4 seeds the CPU kernels `prepare` built; without them it stops
    (exit 2) rather than compile for minutes on lent time."""
    from tools.gpu_runbook import common, cpu_scaling

    monkeypatch.setattr(cpu_scaling, "CPU_KERNELS", tmp_path / "absent")
    log = common.Log(tmp_path, "runbook")
    assert cpu_scaling.run_stage(tmp_path, device="cuda", scale="tiny", time_limit=60,
                                 log=log) == 2
    assert "STOP" in (tmp_path / "runbook.log").read_text()
    assert not (tmp_path / cpu_scaling.RECORDS).exists()


def test_report_keeps_the_profiled_metrics_of_an_ncu_raw_page(tmp_path):
    """ncu's `--page raw` CSV (as it came back from the H100): a connection line, the header, a
    units row, and hundreds of device and launch attributes beside the metrics. The report keeps
    the metrics asked for, names each row's range and kernel, and drops the units row."""
    from tools.gpu_runbook import ncu_profile, report
    metrics = ncu_profile.METRICS + ncu_profile.WHY_METRICS
    columns = ["ID", "Kernel Name", "device__attribute_clock_rate", "launch__block_size",
               *metrics]
    kernels = ["drive_cuda[v1,abc](long long, Array<int>)",
               "agent_step::agent_reset_cuda[v1,abc](long long)"]
    with open(tmp_path / "ncu_metrics.csv", "w", newline="") as f:
        f.write("==PROF== Connected to process 661 (/usr/bin/python3.12)\n")
        out = csv.writer(f, quoting=csv.QUOTE_ALL)
        out.writerow(columns)
        out.writerow(["", "", "", "", *["ns" if "duration" in m else "" for m in metrics]])
        for i, kernel in enumerate(kernels):
            # sectors 4,096 per 1,024 requests for every space: 4.00 sectors a request
            out.writerow([str(i), kernel, "1,980,000", "128",
                          *["4,096" if "_sectors_" in m else "1,024" if "_requests_" in m
                            else f"{i + 1}.{j}" for j, m in enumerate(metrics)]])
    (tmp_path / "profile_order.json").write_text(json.dumps([
        {"range": "raw", "kernels": ["drive_cuda"], "consoles": 16384},   # named either way
        {"range": "agent_step", "kernels": ["agent_reset_cuda"], "consoles": 16384}]))
    lines = report.profile_section(tmp_path)
    header = next(line for line in lines if line.startswith("| range"))
    assert "device__attribute_clock_rate" not in header and "launch__block_size" not in header
    assert all(m in header for m in ncu_profile.METRICS)
    first = lines[lines.index(header):]
    first = first[:first.index("")]                          # the first table
    rows = [line for line in first if line.startswith("|") and not line.startswith(("| range",
                                                                                     "|---"))]
    assert len(rows) == 2                                    # the units row is gone
    assert rows[0].startswith("| raw | 16384 | drive_cuda | 1.0 | 1.1 |")
    assert rows[1].startswith("| agent_step | 16384 | agent_reset_cuda | 2.0 |")
    # the stall reasons and the sectors per request, a table of their own
    why = lines[lines.index("Stalls per issued instruction, and sectors per request:"):]
    assert "| range | consoles | kernel | long_scoreboard |" in why[2]
    assert "sectors/request local st" in why[2]
    stall = len(ncu_profile.METRICS)          # the first stall metric's value in row 0
    assert why[4].startswith(f"| raw | 16384 | drive_cuda | 1.{stall} |")
    assert why[4].endswith("| 4.00 | 4.00 | 4.00 | 4.00 |")


def test_precompile_strips_every_cuda_kernel_entry(tmp_path):
    """tools/gpu_precompile.py drops the IR and PTX of every CUDA kernel's cache entry, the
    register-capped variants included: an unstripped one (~23 MB) took the device call past its
    64 MiB (2026-11-28). Each kernel the runbook precompiles must be selected, and no CPU one."""
    from tools import gpu_precompile

    from cule_py.kernels.agent import agent_step as K
    from cule_py.kernels.ale import environment as E

    cuda_kernels = {k.__name__ for k in (
        *K.STEP_KERNELS.values(), K.agent_observe_cuda, K.agent_reset_cuda, K.fill_tails_cuda,
        K.resetting_lanes_cuda, E.drive_cuda, E.lives_and_flags_cuda)}
    assert len(cuda_kernels) == len(gpu_precompile.KERNELS)   # one entry a precompiled kernel
    module_dir = tmp_path / "agent_step"
    module_dir.mkdir()
    for name in cuda_kernels | {"agent_step_cpu", "drive", "seed_generators"}:
        (module_dir / f"agent_step.{name}-agent_step.py312.1.nbc").write_bytes(b"")
    selected = {p.name.split("-", 1)[0].split(".", 1)[1]
                for p in gpu_precompile.cuda_cache_entries(tmp_path)}
    assert selected == cuda_kernels
    assert {"agent_step_cuda_capped", "agent_step_cuda_lean"} <= selected


def test_report_names_the_range_of_each_launch_by_kernel():
    """As on the H200 (2026-11-30): the agent step's range launches resetting_lanes_cuda before
    its reset, a kernel its profile_order does not list; no later launch takes the wrong
    range."""
    from tools.gpu_runbook import report
    order = [{"range": "raw", "kernels": ["drive_cuda"], "consoles": 16384},
             {"range": "identical", "kernels": ["drive_cuda"], "consoles": 16384},
             {"range": "agent_step", "kernels": ["agent_step_cuda", "agent_observe_cuda",
                                                 "agent_reset_cuda"], "consoles": 16384},
             {"range": "raw", "kernels": ["drive_cuda"], "consoles": 65536}]
    launches = ["drive_cuda", "drive_cuda", "resetting_lanes_cuda", "agent_reset_cuda",
                "agent_step_cuda", "agent_observe_cuda", "drive_cuda", "drive_cuda"]
    assert report.ranges_of_rows(launches, order) == [
        ("raw", 16384), ("identical", 16384), ("agent_step", 16384), ("agent_step", 16384),
        ("agent_step", 16384), ("agent_step", 16384), ("raw", 65536), ("?", "?")]
