"""The GPU runbook: what a lent GPU has to show, run unattended in two commands.

    python -m tools.gpu_runbook prepare                # here: kernels precompiled, wheels (once)
    bash tools/gpu_runbook/device.sh 2                 # there, the first call (9.6 min): the
                                                       # kernel cache checked, then throughput:
                                                       # the five games' headline, the best batch
    bash tools/gpu_runbook/device.sh 1                 # there, the second call at once (3 min):
                                                       # exactness (or stage 2 again, for the
                                                       # best batch: benchmarks/README.md)
    bash tools/gpu_runbook/device.sh 4                 # there, if 3 minutes are left: the CPU
                                                       # backend over the machine's cores
    python -m tools.gpu_runbook compare --results DIR  # here: the CPU side of the exactness check
    python -m tools.gpu_runbook report --results DIR   # here: a markdown summary for RESULTS.md
    python -m tools.gpu_runbook dry-run --results DIR  # anywhere: all of it on the CPU, tiny sizes

Each stage writes its records as it goes (JSON lines in the results folder) and skips what is
already there, so a command cut short is resumed by running it again. benchmarks/README.md has
the whole procedure, the expected durations and what to carry.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys
import time

from .common import RESULTS, Log, gpu_present

# Seconds per stage on the GPU machine: a session is lent 15 minutes of device time in all, a
# machine's start included. Throughput comes first, as its own call: the headline's five games,
# warmed up past most of their episodes, then the best batch if time is left. The second call,
# made at once while the machine is warm, resumes stage 2 for the best batch if the first did
# not reach it (`device.sh 2 --time-limit 220`), else runs exactness (`device.sh 1`); the profile
# only on request. benchmarks/README.md has the timings these limits come from.
STAGE_LIMITS = {2: 560.0, 1: 170.0, 3: 60.0, 4: 150.0}
# Stage 3 runs PPO after the profile only when given at least this long (--time-limit).
TRAINING_FROM_S = 250.0
STAGES = {1: "preflight and exactness", 2: "throughput", 3: "profile and training",
          4: "CPU scaling"}


def run_stage(stage: int, results: pathlib.Path, *, device: str, scale: str,
              time_limit: float, allow_compile: bool = False,
              profile_consoles: list[int] | None = None, profile_agent: bool = True) -> int:
    from . import cpu_scaling, exactness, ncu_profile, preflight, throughput, training

    results.mkdir(parents=True, exist_ok=True)
    log = Log(results, "runbook", prefix=f"stage {stage}")
    start = time.monotonic()

    def left() -> float:
        return time_limit - (time.monotonic() - start)

    log(f"stage {stage} ({STAGES[stage]}) on {device}, scale {scale}, limit {time_limit:.0f} s")
    if stage in (1, 2, 3) and not _kernels_checked(results, device):
        # Whichever GPU stage runs first checks the carried kernel cache (~17 s on the H200).
        report = preflight.run(results, device=device, log=log)
        if device != "cpu" and not report.get("all_kernels_cached") and not allow_compile:
            log("STOP: a kernel is not in the carried cache; it would compile here for minutes. "
                "Run `python -m tools.gpu_runbook prepare` on the development machine with the "
                "GPU machine's versions (preflight.json lists them), or pass --allow-compile.")
            return 2
    if stage == 1:
        exactness.run_stage(results, device=device, scale=scale, time_limit=left() - 10,
                            log=log)
    elif stage == 2:
        throughput.run_stage(results, device=device, scale=scale, time_limit=left() - 10,
                             log=log)
    elif stage == 4:
        code = cpu_scaling.run_stage(results, device=device, scale=scale,
                                     time_limit=left() - 10, log=log,
                                     allow_compile=allow_compile)
        if code:
            return code
    else:
        # The profile first (it feeds the GPU model); PPO only with time for it to learn.
        train = (time_limit >= TRAINING_FROM_S or device == "cpu") and profile_consoles is None
        ncu_profile.run_stage(results, device=device, scale=scale,
                              time_limit=left() * (0.5 if train else 1.0) - 5, log=log,
                              consoles=profile_consoles, agent=profile_agent)
        if train:
            training.run_stage(results, device=device, scale=scale, time_limit=left() - 10,
                               log=log)
        elif profile_consoles is None:
            log(f"training skipped: stage 3 has {time_limit:.0f} s, PPO needs "
                f"--time-limit {TRAINING_FROM_S:.0f} or more")
    log(f"stage {stage} done in {time.monotonic() - start:.0f} s")
    return 0


def _kernels_checked(results: pathlib.Path, device: str) -> bool:
    """Whether an earlier stage's preflight in `results` found every kernel in the cache."""
    path = results / "preflight.json"
    if not path.exists():
        return False
    report = json.loads(path.read_text())
    return report.get("device") == device and (device == "cpu"
                                               or bool(report.get("all_kernels_cached")))


def dry_run(results: pathlib.Path) -> int:
    """Every stage on the CPU at tiny sizes, then the comparison and the report: the whole
    runbook's code runs, so that a GPU session does not find a typo."""
    from . import exactness, report

    for stage in (1, 2, 3, 4):
        code = run_stage(stage, results, device="cpu", scale="tiny", time_limit=120.0)
        if code:
            return code
    summary = exactness.compare(results, log=Log(results, "compare"))
    print(summary, flush=True)
    text = report.markdown(results)
    (results / "report.md").write_text(text)
    print(text)
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.gpu_runbook",
                                     description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("prepare", help="development machine: precompile kernels, fetch wheels")
    p.add_argument("--python312", default=None, help="the Python 3.12 interpreter for the venv")
    p.add_argument("--skip-precompile", action="store_true")
    p.add_argument("--skip-wheels", action="store_true")
    p = sub.add_parser("stage", help="run stage 1, 2, 3 or 4 (on the GPU machine: device.sh)")
    p.add_argument("number", type=int, choices=sorted(STAGES))
    p.add_argument("--results", type=pathlib.Path, default=RESULTS)
    p.add_argument("--device", default=None, help="cuda (default when a GPU is there) or cpu")
    p.add_argument("--scale", choices=("full", "tiny"), default="full")
    p.add_argument("--time-limit", type=float, default=None)
    p.add_argument("--allow-compile", action="store_true",
                   help="go on when a kernel is not in the cache (it compiles, for minutes)")
    p.add_argument("--profile-consoles", type=int, nargs="+", default=None,
                   help="stage 3: these batch sizes instead of 16,384 and 65,536 (no PPO)")
    p.add_argument("--profile-no-agent", action="store_true",
                   help="stage 3: raw and identical ranges only")
    p = sub.add_parser("compare", help="development machine: CPU side of the exactness check")
    p.add_argument("--results", type=pathlib.Path, default=RESULTS)
    p = sub.add_parser("report", help="markdown summary of a results folder")
    p.add_argument("--results", type=pathlib.Path, default=RESULTS)
    p = sub.add_parser("dry-run", help="all stages on the CPU at tiny sizes (CI)")
    p.add_argument("--results", type=pathlib.Path, required=True)
    args = parser.parse_args(argv)

    if args.command == "prepare":
        from . import prepare

        return prepare.main(python312=args.python312 or prepare.default_python312(),
                            skip_precompile=args.skip_precompile, skip_wheels=args.skip_wheels)
    if args.command == "stage":
        device = args.device or ("cuda" if gpu_present() else "cpu")
        limit = args.time_limit or STAGE_LIMITS[args.number]
        return run_stage(args.number, args.results, device=device, scale=args.scale,
                         time_limit=limit, allow_compile=args.allow_compile,
                         profile_consoles=args.profile_consoles,
                         profile_agent=not args.profile_no_agent)
    if args.command == "compare":
        from . import exactness

        print(exactness.compare(args.results, log=Log(args.results, "compare")))
        return 0
    if args.command == "report":
        from . import report

        print(report.markdown(args.results))
        return 0
    return dry_run(args.results)


if __name__ == "__main__":
    sys.exit(main())
