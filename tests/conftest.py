import pathlib

import pytest

import cule_py

REPO = pathlib.Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"


# Markers of two test files that were being rewritten when the markers were added: move them
# into those files (`pytestmark`, per-test marks), then delete this table and the hook below.
# Per file: the markers of every test, and those of tests whose name starts with a prefix.
_MARKS_BY_FILE = {
    "test_agent_step_cuda_compile.py": (("cuda", "slow"), {}),
    "test_gpu_model.py": (("cuda",), {"test_console_kernels_within_their_caps": ("slow",),
                                     "test_trace_of_the_decoded_core": ("slow",)}),
}


@pytest.hookimpl(tryfirst=True)     # before -m deselects by marker
def pytest_collection_modifyitems(config, items):
    for item in items:
        every, by_name = _MARKS_BY_FILE.get(item.path.name, ((), {}))
        names = list(every)
        for prefix, marks in by_name.items():
            if item.name.startswith(prefix):
                names += marks
        for name in names:
            item.add_marker(name)


def pytest_report_header(config):
    where = pathlib.Path(cule_py.__file__).resolve().parent
    kind = "source tree" if where.parent == REPO else "installed package"
    return f"cule_py imported from {where} ({kind})"


@pytest.fixture(scope="session")
def shared_testdata():
    path = SHARED / "testdata"
    if not path.is_dir():
        pytest.skip(f"{path} is absent: the 6502 test suites ship beside the project checkout, "
                    f"not with it")
    return path
