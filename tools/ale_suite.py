"""ale-py's own Python test suite, run against cule_py: the drop-in check users care about.

    python -m tools.ale_suite ALE_SOURCE [--files test_atari_env.py test_atari_vector_env.py]
        [--json out.json] [-- more pytest arguments, e.g. -k clone]

ALE_SOURCE is a checkout of the Arcade-Learning-Environment repository at the release of the
installed ale-py (`git checkout v0.12.1`; its tests are not in the wheel, and they are GPL, so
they are not part of cule_py). The suite runs twice, each in its own pytest process: once as it
is (ale-py's own result), once with `ale_py.env.AtariEnv` and `ale_py.vector_env.AtariVectorEnv`
replaced by cule_py's classes before the test modules import them; gymnasium's `ALE/...` ids
then build cule_py's envs too, as their entry points name those attributes. Nothing else
changes. The report lists every case that passes with ale-py and fails with cule_py.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

SUBSTITUTE = '''
import ale_py.env, ale_py.vector_env
import cule_py
ale_py.env.AtariEnv = cule_py.AtariEnv
ale_py.vector_env.AtariVectorEnv = cule_py.AtariVectorEnv
'''


def run_suite(source: pathlib.Path, files: list[str], cule: bool, extra: list[str]) -> dict:
    """{test id: "passed" | "failed" | "skipped"} of one pytest run over a copy of the suite."""
    with tempfile.TemporaryDirectory() as work:
        work = pathlib.Path(work)
        tests = work / "tests" / "python"
        shutil.copytree(source / "tests" / "python", tests)
        resources = source / "tests" / "resources"
        if resources.is_dir():
            shutil.copytree(resources, work / "tests" / "resources")
        if cule:
            conftest = tests / "conftest.py"
            conftest.write_text(SUBSTITUTE + (conftest.read_text() if conftest.exists() else ""))
        report = work / "report.xml"
        subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                        f"--junitxml={report}", *files, *extra], cwd=tests)
        outcomes = {}
        for case in ET.parse(report).getroot().iter("testcase"):
            name = f"{case.get('classname')}::{case.get('name')}"
            if case.find("failure") is not None or case.find("error") is not None:
                outcomes[name] = "failed"
            elif case.find("skipped") is not None:
                outcomes[name] = "skipped"
            else:
                outcomes[name] = "passed"
        return outcomes


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.ale_suite", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("source", type=pathlib.Path,
                        help="a checkout of the Arcade-Learning-Environment repository at the "
                             "installed ale-py's release")
    parser.add_argument("--files", nargs="+",
                        default=["test_atari_env.py", "test_atari_vector_env.py"])
    parser.add_argument("--json", type=pathlib.Path, help="write both runs' outcomes here")
    args, extra = parser.parse_known_args(argv)
    extra = [a for a in extra if a != "--"]          # what follows -- goes to pytest
    theirs = run_suite(args.source, args.files, False, extra)
    ours = run_suite(args.source, args.files, True, extra)
    lost = sorted(name for name, outcome in theirs.items()
                  if outcome == "passed" and ours.get(name) != "passed")
    for file in args.files:
        stem = file.removesuffix(".py")
        names = [n for n in theirs if n.split("::")[0].split(".")[0] == stem]
        passed_ale = sum(theirs[n] == "passed" for n in names)
        passed_cule = sum(ours.get(n) == "passed" for n in names if theirs[n] == "passed")
        print(f"{file}: {len(names)} cases; ale-py passes {passed_ale}; cule_py passes "
              f"{passed_cule} of those")
    for name in lost:
        print(f"  fails with cule_py: {name}")
    if args.json:
        args.json.write_text(json.dumps({"ale_py": theirs, "cule_py": ours, "lost": lost},
                                        indent=1))
    return 1 if lost else 0


if __name__ == "__main__":
    sys.exit(main())
