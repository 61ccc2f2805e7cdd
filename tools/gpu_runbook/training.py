"""Stage 3b: examples/ppo_atari.py on ALE/Pong-v5, the env on the GPU (observations stay device
tensors through DLPack), stopped by a wall-clock budget; episode returns against agent steps and
wall time as CSV and PNG, and the time to a mean return of 18 and 20 over 100 episodes.

Hyperparameters for thousands of consoles: the GPU's step takes about as long for 8,192 consoles
as for a few hundred (one warp's latency bounds it), so the batch is made wide, not long:
8,192 envs x 16 steps = 131,072 agent steps per update, 4 minibatches of 32,768 (large enough to
keep an H100 busy, few enough that an update costs about as much as the rollout), 2 epochs (the
data is fresh and plentiful: more epochs would over-fit each batch), learning rate 2.5e-4 without
annealing (the budget, not total-timesteps, ends the run), clip 0.1 and entropy 0.01 as the
Atari baselines. Pong's per-episode length (~1,000 agent steps for a random agent) means the
first returns arrive after ~60 rollouts' worth of steps across all envs at once.
"""

from __future__ import annotations

import json
import pathlib
import subprocess
import time

from .common import REPO, Deadline, Log, append_record, python, python_env

EXAMPLE = REPO / "examples" / "ppo_atari.py"
FULL = ["--num-envs", "8192", "--num-steps", "16", "--num-minibatches", "4",
        "--update-epochs", "2", "--no-anneal-lr", "--total-timesteps", "100000000"]
TINY = ["--num-envs", "4", "--num-steps", "8", "--num-minibatches", "2", "--update-epochs", "1",
        "--total-timesteps", "64", "--torch-threads", "1", "--max-episode-frames", "200"]


def run_stage(results: pathlib.Path, *, device: str, scale: str, time_limit: float,
              log: Log) -> dict:
    deadline = Deadline(time_limit)
    budget = 5.0 if scale == "tiny" else max(30.0, deadline.left() - 45.0)
    summary_path = results / "ppo_pong_summary.json"
    env_device = "cuda" if device != "cpu" else "cpu"
    command = [python(), str(EXAMPLE), "--env-id", "ALE/Pong-v5", "--backend", "cule_py",
               *(TINY if scale == "tiny" else FULL),
               "--device", env_device, "--env-device", env_device,
               "--max-seconds", str(budget), "--seed", "1",
               "--csv", str(results / "ppo_pong.csv"), "--plot", str(results / "ppo_pong.png"),
               "--summary-json", str(summary_path)]
    log("training:", " ".join(command))
    record = {"stage": "training", "device": device, "scale": scale, "budget_s": budget,
              "command": command[1:]}
    t0 = time.perf_counter()
    with open(results / "ppo_pong.log", "w") as out:
        try:
            proc = subprocess.run(command, env=python_env(), stdout=out,
                                  stderr=subprocess.STDOUT, timeout=max(10.0, deadline.left()))
            record["returncode"] = proc.returncode
        except subprocess.TimeoutExpired:
            record["returncode"] = None
            record["error"] = "timed out"
    record["seconds"] = round(time.perf_counter() - t0, 1)
    if summary_path.exists():
        record["summary"] = json.loads(summary_path.read_text())
    append_record(results / "training.jsonl", record)
    log(f"training: return code {record['returncode']} after {record['seconds']} s; "
        f"summary {json.dumps(record.get('summary', {}).get('reached'))}, mean return last 100 "
        f"{record.get('summary', {}).get('mean_return_last_100')}")
    return record
