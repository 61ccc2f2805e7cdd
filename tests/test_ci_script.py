"""The CI script's exit: a green run must exit 0 (.ci/run's EXIT trap runs under set -e)."""

import re
import subprocess
import time
from pathlib import Path

CI_SCRIPT = Path(__file__).resolve().parents[1] / ".ci" / "run"


def _exit_trap() -> str:
    match = re.search(r"^trap '(.*)' EXIT$", CI_SCRIPT.read_text(), re.MULTILINE)
    assert match, ".ci/run has no EXIT trap on one line"
    return match.group(1)


def _run_with_trap(body: str, tmp_path: Path) -> subprocess.CompletedProcess:
    script = (f"set -euo pipefail\nci_tmp={tmp_path / 'ci'}\nmkdir -p \"$ci_tmp\"\n"
              f"background=\"\"\ntrap '{_exit_trap()}' EXIT\n{body}\n")
    return subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=30)


def test_exit_trap_keeps_a_green_run_green_after_the_background_stage_ended(tmp_path):
    # The Python 3.13 stage runs in the background and has ended by the time the script does:
    # the trap's kill then fails, which under set -e once turned a green run into exit 1.
    done = _run_with_trap("true & pid=$!\nbackground=\"$background $pid\"\nwait \"$pid\"\n"
                          "echo finished", tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "finished"
    assert not (tmp_path / "ci").exists(), "the trap must remove the run's temporary folder"


def test_exit_trap_keeps_a_failing_runs_exit_status(tmp_path):
    failed = _run_with_trap("sleep 30 & background=\"$background $!\"\nexit 3", tmp_path)
    assert failed.returncode == 3
    assert not (tmp_path / "ci").exists()


def test_exit_trap_stops_every_background_stage(tmp_path):
    # Two stages in the background (the Python 3.13 stage, the RL libraries' install): one has
    # ended, the other is still running when a failure ends the script; the trap stops it.
    marker = tmp_path / "still running"
    body = (f"true & background=\"$background $!\"\n"
            f"(sleep 3; touch '{marker}') & background=\"$background $!\"\n"
            f"sleep 0.5\nexit 4")
    failed = _run_with_trap(body, tmp_path)
    assert failed.returncode == 4
    time.sleep(4)
    assert not marker.exists(), "the trap left a background stage running"
