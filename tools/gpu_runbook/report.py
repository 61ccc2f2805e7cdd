"""A results folder as markdown, ready for benchmarks/RESULTS.md: the machine and commit, the
kernel cache, memory per console, exactness, throughput with ratios against ale-py measured in
the same run, the Nsight Compute metrics per kernel and range, and the PPO run."""

from __future__ import annotations

import csv
import json
import pathlib
import re

from .common import read_records
from .ncu_profile import METRICS, WHY_METRICS

# Launched by the agent step beside the kernels a profiled range names.
HELPER_KERNELS = ("resetting_lanes_cuda",)


def _fmt(value, digits: int = 0) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, float) and digits:
        return f"{value:,.{digits}f}"
    if isinstance(value, (int, float)):
        return f"{value:,.0f}"
    return str(value)


def preflight_section(results: pathlib.Path) -> list[str]:
    path = results / "preflight.json"
    if not path.exists():
        return ["## Preflight", "", "not run", ""]
    report = json.loads(path.read_text())
    m = report["machine"]
    lines = ["## Preflight", "",
             f"Machine: {m.get('gpu') or 'no GPU'} ({m.get('gpu_memory_gib', '?')} GiB), "
             f"{m.get('cpu_count')} CPU cores ({m.get('cpu')}); Python {m.get('python')}, "
             f"numpy {m.get('numpy')}, numba {m.get('numba')}, numba-cuda {m.get('numba_cuda')}, "
             f"cupy {m.get('cupy')}, ale-py {m.get('ale_py')}, torch {m.get('torch')}; "
             f"commit {m.get('commit')}.", ""]
    if "kernel_cache" in report:
        lines += ["| kernel | from cache | load s | registers | local bytes |", "|---|---|---|---|---|"]
        for k in report["kernel_cache"].values():
            lines.append(f"| {k['kernel']} | {'yes' if k['hit'] else 'NO'} | {k['load_s']} | "
                         f"{k.get('registers', 'n/a')} | {k.get('local_bytes', 'n/a')} |")
        lines.append("")
    memory = report.get("memory", {})
    if "agent_step_env" in memory:
        lines.append(f"Memory per console: agent-step env "
                     f"{_fmt(memory['agent_step_env']['bytes_per_console'])} B, raw emulator "
                     f"{_fmt(memory['emulator']['bytes_per_console'])} B; largest agent batch in "
                     f"90% of free GPU memory: {_fmt(memory.get('largest_agent_batch'))}.")
        lines.append("")
    return lines


def exactness_section(results: pathlib.Path) -> list[str]:
    lines = ["## Exactness (GPU against the CPU backend)", ""]
    path = results / "exactness_compare.csv"
    if not path.exists():
        return lines + ["not compared yet (`python -m tools.gpu_runbook compare`)", ""]
    with open(path) as f:
        rows = list(csv.DictReader(f))
    by = {}
    for r in rows:
        by.setdefault((r.get("mode"), r.get("result")), []).append(r)
    lines += ["| mode | result | games |", "|---|---|---|"]
    for (mode, result), group in sorted(by.items(), key=lambda kv: str(kv[0])):
        names = ", ".join(sorted(g["game"] for g in group)) if result != "EXACT" else ""
        lines.append(f"| {mode} | {result} | {len(group)} {names} |")
    return lines + [""]


def _what(record: dict) -> str:
    """The kind of measurement, with its warp schedule where the GPU ran one other than free and
    the step kernel's register budget where it was not the default."""
    schedule = record.get("schedule", "free")
    kind = record["kind"] if schedule == "free" else f"{record['kind']} ({schedule})"
    registers = record.get("registers", 255)
    kind = kind if registers == 255 else f"{kind}, {registers} registers"
    # (records written before 2026-11-28 name no WSYNC rule: theirs was not to draw there)
    if record.get("draw_at_wsync", 0) == 0 and record["kind"] != "ale_vector":
        kind = f"{kind}, WSYNC undrawn"
    # (before 2026-11-28 the autoreset launch took the step's block size: shared)
    if record["kind"] == "agent" and record.get("reset_blocks", "shared") != "own":
        kind = f"{kind}, reset blocks shared"
    return kind


def throughput_section(results: pathlib.Path) -> list[str]:
    records = [r for r in read_records(results / "throughput.jsonl")]
    if not records:
        return ["## Throughput", "", "not run", ""]
    ale = {r["game"]: r for r in records if r["kind"] == "ale_vector" and "error" not in r}
    lines = ["## Throughput (steady state)", "",
             "| what | game | consoles | frames/s | agent steps/s | episode ends/step | "
             "reset share | distinct RAM | warm-up steps (target) | vs ale-py all cores |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    runners = [r for r in records if r["kind"] == "env_runner"]
    records = [r for r in records if r["kind"] != "env_runner"]
    for r in records:
        if "error" in r:
            lines.append(f"| {_what(r)} | {r['game']} | {r['consoles']} | ERROR: "
                         f"{r['error'][:80]} | | | | | | |")
            continue
        fps = r.get("frames_per_s")
        base = ale.get(r["game"], {}).get("frames_per_s")
        ratio = f"{fps / base:.2f}" if base and r["kind"] != "ale_vector" and fps else ""
        unit = " frames" if r["kind"] == "raw" else ""
        warm = f"{r.get('warmup_steps')}{unit} ({r.get('warmup_target')})"
        share = r.get("reset_share")
        lines.append(
            f"| {_what(r)} | {r['game']} | {r['consoles']:,} | {_fmt(fps)} | "
            f"{_fmt(r.get('agent_steps_per_s'))} | "
            f"{_fmt(r.get('episode_ends_per_step'), 3)} | "
            f"{f'{share:.1%}' if isinstance(share, float) else 'n/a'} | "
            f"{_fmt(r.get('distinct_ram'))} | {warm} | {ratio} |")
    return lines + [""] + env_runner_lines(runners)


def env_runner_lines(records: list[dict]) -> list[str]:
    """The env runner's device path (CuleEnvRunner's loop without Ray) per sampler."""
    if not records:
        return []
    ale = {r["game"]: r for r in records if r.get("sampler") == "ale" and "error" not in r}
    lines = ["### RLlib env runner's device path, without Ray", "",
             "| sampler | game | consoles | agent steps/s | vs ale | episode ends/step | "
             "policy | env step | host copy | spans | host copy per rollout |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in records:
        if "error" in r:
            lines.append(f"| {r.get('sampler')} | {r['game']} | {r['consoles']} | ERROR: "
                         f"{r['error'][:80]} | | | | | | | |")
            continue
        base = ale.get(r["game"], {}).get("env_steps_per_s")
        ratio = f"{r['env_steps_per_s'] / base:.2f}" if base and r["sampler"] != "ale" else ""
        share = r.get("breakdown_share", {})
        copy = (f"{r['host_copy_bytes'] / 1e9:.2f} GB at {r['host_copy_gb_per_s']} GB/s"
                if r.get("host_copy_gb_per_s") else "none")
        lines.append(
            f"| {r['sampler']} | {r['game']} | {r['consoles']:,} | "
            f"{_fmt(r['env_steps_per_s'])} | {ratio} | "
            f"{_fmt(r.get('episode_ends_per_step'), 3)} | "
            + " | ".join(f"{share.get(k, 0):.0%}" for k in ("inference", "env", "host_copy",
                                                              "spans"))
            + f" | {copy} |")
    return lines + [""]


def profile_section(results: pathlib.Path) -> list[str]:
    """Every ncu_metrics*.csv with its profile_order*.json (the default batch sizes, and calls
    that profiled others)."""
    head = ["## Profile (Nsight Compute)", ""]
    paths = sorted(results.glob("ncu_metrics*.csv"))
    if not paths:
        return head + ["no metrics (no GPU or not run)", ""]
    lines = []
    for path in paths:
        order_path = results / path.name.replace("ncu_metrics", "profile_order").replace(
            ".csv", ".json")
        lines += _profile_table(path, order_path)
    return head + (lines or ["no kernel rows in ncu_metrics.csv", ""])


def _profile_table(path: pathlib.Path, order_path: pathlib.Path) -> list[str]:
    text = path.read_text().splitlines()
    start = next((i for i, line in enumerate(text) if '"Kernel Name"' in line), None)
    if start is None:
        return []
    rows = list(csv.DictReader(text[start:]))
    rows = [r for r in rows if r.get("ID", "").strip().isdigit()]   # drop the units row
    order = json.loads(order_path.read_text()) if order_path.exists() else []
    ranges = ranges_of_rows([kernel_name(r) for r in rows], order)
    # `--page raw` prints every device and launch attribute too: keep the metrics asked for.
    names = [m for m in METRICS if rows and m in rows[0]]
    lines = [f"`{path.name}`:", "",
             "| range | consoles | kernel | " + " | ".join(names) + " |",
             "|---|---|---|" + "---|" * len(names)]
    for i, r in enumerate(rows):
        where, consoles = ranges[i] if i < len(ranges) else ("?", "?")
        kernel = kernel_name(r)
        lines.append(f"| {where} | {consoles} | {kernel} | "
                     + " | ".join(r.get(n, "") for n in names) + " |")
    lines.append("")
    why = [m for m in WHY_METRICS if rows and m in rows[0]]
    if why:
        stalls = [m for m in why if "_stalled_" in m]
        spaces = [(space, op) for space in ("global", "local") for op in ("ld", "st")
                  if f"l1tex__t_sectors_pipe_lsu_mem_{space}_op_{op}.sum" in why]
        lines += ["Stalls per issued instruction, and sectors per request:", "",
                  "| range | consoles | kernel | "
                  + " | ".join(m.split("_stalled_")[1].split("_per_")[0] for m in stalls)
                  + "".join(f" | sectors/request {space} {op}" for space, op in spaces) + " |",
                  "|---|---|---|" + "---|" * (len(stalls) + len(spaces))]
        for i, r in enumerate(rows):
            where, consoles = ranges[i] if i < len(ranges) else ("?", "?")
            cells = [r.get(m, "") for m in stalls]
            for space, op in spaces:
                sectors = _number(r.get(f"l1tex__t_sectors_pipe_lsu_mem_{space}_op_{op}.sum"))
                requests = _number(r.get(f"l1tex__t_requests_pipe_lsu_mem_{space}_op_{op}.sum"))
                cells.append(f"{sectors / requests:.2f}" if sectors is not None and requests
                             else "")
            lines.append(f"| {where} | {consoles} | {kernel_name(r)} | " + " | ".join(cells)
                         + " |")
        lines.append("")
    return lines


def ranges_of_rows(kernels: list[str], order: list[dict]) -> list[tuple]:
    """The (range, consoles) of each profiled launch, by kernel name: a range holds the kernels
    profile_order names, each launched once. A helper launch (the agent step's
    resetting_lanes_cuda, before its reset) belongs to the range of the launch after it, so a
    launch that a range did not list shifts no later row."""
    out: list = [None] * len(kernels)
    at, seen = 0, set()
    for i, kernel in enumerate(kernels):
        if kernel in HELPER_KERNELS:
            continue
        while at < len(order) and (kernel in seen or kernel not in order[at]["kernels"]):
            at, seen = at + 1, set()
        seen.add(kernel)
        out[i] = (order[at]["range"], order[at]["consoles"]) if at < len(order) else ("?", "?")
    for i in reversed(range(len(kernels))):
        if out[i] is None:
            out[i] = out[i + 1] if i + 1 < len(kernels) else ("?", "?")
    return out


def _number(text):
    try:
        return float(str(text).replace(",", ""))
    except ValueError:
        return None


def kernel_name(row: dict) -> str:
    full = row.get("Kernel Name", "")
    kernel = re.match(r"(?:[\w:]*::)?(\w+)\[", full)          # with or without its module
    return kernel.group(1) if kernel else full.split("(")[0][:40]


def training_section(results: pathlib.Path) -> list[str]:
    records = read_records(results / "training.jsonl")
    if not records:
        return ["## PPO on Pong", "", "not run", ""]
    r = records[-1]
    s = r.get("summary") or {}
    return ["## PPO on Pong", "",
            f"Return code {r.get('returncode')}, {r.get('seconds')} s (budget {r.get('budget_s')} "
            f"s); agent steps {_fmt(s.get('global_step'))}, episodes {s.get('episodes')}, mean "
            f"return of the last 100 {s.get('mean_return_last_100')}; reached "
            f"{json.dumps(s.get('reached'))}. Command: `{' '.join(r.get('command', []))}`.", ""]


def cpu_scaling_section(results: pathlib.Path) -> list[str]:
    from .cpu_scaling import summary

    table = summary(results)
    return ["## The CPU backend over the machine's cores", "", table or "not run", ""]


def markdown(results: pathlib.Path) -> str:
    parts = [f"# GPU runbook results ({results})", ""]
    for section in (preflight_section, exactness_section, throughput_section, profile_section,
                    training_section, cpu_scaling_section):
        parts += section(results)
    return "\n".join(parts)
