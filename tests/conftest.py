import pathlib

import pytest

import cule_py

REPO = pathlib.Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"


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
