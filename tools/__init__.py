"""cule_py's development tools: exactness sweeps, profilers, the offline GPU model and the GPU
runbook. Not part of the installed package. Run from the repository root, `python -m tools.NAME`;
the tools import each other as `tools.NAME`."""

from __future__ import annotations

import pathlib

_FOLDER = pathlib.Path(__file__).resolve().parent


def child_prelude() -> str:
    """Python source that makes `tools` importable in a `python -c` child process: the package
    is registered under its name from this folder, not found through the repository root on
    sys.path, where the checkout's cule_py would shadow the one the parent imports (an installed
    copy under test)."""
    return ("import importlib.util as _util, sys as _sys\n"
            f"_spec = _util.spec_from_file_location('tools', {str(_FOLDER / '__init__.py')!r}, "
            f"submodule_search_locations=[{str(_FOLDER)!r}])\n"
            "_sys.modules['tools'] = _util.module_from_spec(_spec)\n"
            "_spec.loader.exec_module(_sys.modules['tools'])\n")
