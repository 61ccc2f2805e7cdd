"""cule_py matches ALE frame for frame; that claim is validated against one ale-py release."""

from __future__ import annotations

import warnings
from importlib import metadata

#: The ale-py release the exactness tests were validated against.
ALE_PY_VALIDATED = "0.12.1"


def check_ale_py_version() -> str | None:
    """Warn if the installed ale-py is not the validated one; return the installed version."""
    try:
        installed = metadata.version("ale-py")
    except metadata.PackageNotFoundError:
        return None
    if installed != ALE_PY_VALIDATED:
        warnings.warn(
            f"cule_py is validated against ale-py {ALE_PY_VALIDATED}, but ale-py {installed} is "
            f"installed; ROM tables and exactness against it are unverified "
            f"(pip install ale-py=={ALE_PY_VALIDATED})", RuntimeWarning, stacklevel=3)
    return installed
