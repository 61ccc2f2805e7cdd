import importlib.util
import pathlib
import sys

import pytest

import cule_py

REPO = pathlib.Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"


def _import_from_checkout(name: str) -> None:
    """The checkout's package `name` (tools, benchmarks) imported from its folder, so that tests
    import `tools.gpu_model` and the like. Not through the repository root on sys.path: there
    the checkout's cule_py would shadow the installed copy that CI tests."""
    folder = REPO / name
    spec = importlib.util.spec_from_file_location(name, folder / "__init__.py",
                                                  submodule_search_locations=[str(folder)])
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)


for _name in ("tools", "benchmarks"):
    _import_from_checkout(_name)


def pytest_report_header(config):
    where = pathlib.Path(cule_py.__file__).resolve().parent
    kind = "source tree" if where.parent == REPO else "installed package"
    return f"cule_py imported from {where} ({kind})"


# The files that take longest under CI (.ci/run: two pytest-xdist workers, whole files each,
# --no-loadscope-reorder), longest first. Started first, they leave the many short files to even
# out the two workers' ends; xdist's own order would put the files with few tests, which are
# among the longest here, last.
LONGEST_FIRST = (
    "test_agent_step_cuda_compile.py", "test_gpu_backend_simulated.py", "test_gpu_model.py",
    "test_console_fast_path.py", "test_gpu_line_profile.py", "test_game_logic.py",
    "test_warp_schedule.py", "test_emulator_vs_ale.py", "test_gpu_runbook_exactness.py",
    "test_cuda_simulator.py",
)


def pytest_collection_modifyitems(config, items):
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))    # stable: the rest keep
                                                                        # their order


@pytest.fixture(scope="session")
def shared_testdata():
    path = SHARED / "testdata"
    if not path.is_dir():
        pytest.skip(f"{path} is absent: the 6502 test suites ship beside the project checkout, "
                    f"not with it")
    return path
