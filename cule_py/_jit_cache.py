"""A numba on-disk cache that can never serve machine code compiled from older kernel sources.

numba keys its cache on the file that defines the jitted entry point only, so an edit to a helper
in another file would load stale machine code. Every kernel entry point in `cule_py.kernels` is
cached instead under a fingerprint of *all* kernel sources (plus the numba version): any edit to
any kernel file gives a new fingerprint, a new directory and a fresh compile.

The cache lives in `$CULE_PY_CACHE_DIR`, else `$NUMBA_CACHE_DIR/cule_py`, else
`~/.cache/cule_py`. Set `CULE_PY_NO_CACHE=1` to compile in memory only.
"""

from __future__ import annotations

import hashlib
import os
import pathlib

import numba

KERNEL_DIR = pathlib.Path(__file__).resolve().parent / "kernels"


def source_fingerprint(kernel_dir: pathlib.Path = KERNEL_DIR) -> str:
    """sha256 over every kernel source file (path and bytes) and the numba version."""
    digest = hashlib.sha256(numba.__version__.encode())
    for path in sorted(kernel_dir.rglob("*.py")):
        digest.update(str(path.relative_to(kernel_dir)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


FINGERPRINT = source_fingerprint()


def cache_root() -> pathlib.Path:
    if os.environ.get("CULE_PY_CACHE_DIR"):
        base = pathlib.Path(os.environ["CULE_PY_CACHE_DIR"])
    elif os.environ.get("NUMBA_CACHE_DIR"):
        base = pathlib.Path(os.environ["NUMBA_CACHE_DIR"]) / "cule_py"
    else:
        base = pathlib.Path.home() / ".cache" / "cule_py"
    return base / f"numba-{FINGERPRINT[:20]}"


def _make_locator(base_class):
    class KernelSourceLocator(base_class):
        """Places cule_py kernels under the all-sources fingerprint."""

        def __init__(self, py_file):
            self._py_file = py_file
            self._cache_path = str(cache_root() / pathlib.Path(py_file).stem)

        def get_cache_path(self):
            return self._cache_path

        def get_source_stamp(self):
            return FINGERPRINT

        def get_disambiguator(self):
            return pathlib.Path(self._py_file).stem

        @classmethod
        def from_function(cls, py_func, py_file):
            try:
                inside = pathlib.Path(py_file).resolve().is_relative_to(KERNEL_DIR)
            except OSError:
                return None
            if not inside:
                return None
            locator = cls(py_file)
            try:
                locator.ensure_cache_path()
            except OSError:
                return None
            return locator

    return KernelSourceLocator


def _install() -> bool:
    """Put our locator first for numba's CPU cache and numba-cuda's cache. False if impossible."""
    if os.environ.get("CULE_PY_NO_CACHE"):
        return False
    installed = False
    modules = []
    try:
        from numba.core import caching as cpu_caching

        modules.append(cpu_caching)
    except ImportError:
        pass
    try:
        from numba.cuda.core import caching as cuda_caching  # numba-cuda's own copy

        modules.append(cuda_caching)
    except ImportError:
        pass
    for module in modules:
        impl = getattr(module, "CacheImpl", None) or getattr(module, "_CacheImpl", None)
        base = getattr(module, "_CacheLocator", None)
        classes = getattr(impl, "_locator_classes", None)
        if impl is None or base is None or not isinstance(classes, list):
            continue
        if not any(getattr(c, "__name__", "") == "KernelSourceLocator" for c in classes):
            classes.insert(0, _make_locator(base))
        installed = True
    return installed


#: Whether cule_py kernels may use numba's on-disk cache (only with the safe locator in place).
CACHE_ENABLED = _install()
