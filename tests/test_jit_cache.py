"""The numba on-disk cache never serves machine code compiled from older kernel sources."""

import os
import pathlib
import shutil
import subprocess
import sys

import pytest

import cule_py
from cule_py import _jit_cache

PROBE = """
import numpy as np
from cule_py.kernels.cpu import flat_bus
memory = np.zeros((1, 65536), np.uint8)
memory[0, 0x200:0x203] = [0xE8, 0xE8, 0x02]          # INX, INX, JAM
registers = np.array([[0x200, 0xFF, 0, 0, 0, 0x20]], np.int32)
cycles = np.zeros(1, np.int64); halted = np.zeros(1, np.bool_)
flat_bus.run_nmos_cpu(memory, registers, 10, cycles, halted)
print(int(registers[0, 3]))
"""


def test_locator_is_installed():
    assert _jit_cache.CACHE_ENABLED or os.environ.get("CULE_PY_NO_CACHE")


def test_fingerprint_covers_every_kernel_file(tmp_path):
    kernels = tmp_path / "kernels"
    shutil.copytree(_jit_cache.KERNEL_DIR, kernels, ignore=shutil.ignore_patterns("__pycache__"))
    original = _jit_cache.source_fingerprint(kernels)
    assert original == _jit_cache.source_fingerprint(_jit_cache.KERNEL_DIR)
    edited = 0
    for path in sorted(kernels.rglob("*.py")):
        text = path.read_text()
        path.write_text(text + "\n# edited\n")
        assert _jit_cache.source_fingerprint(kernels) != original, path.relative_to(kernels)
        path.write_text(text)
        edited += 1
    assert edited > 40 and (kernels / "tia" / "tia.py").is_file()     # the folders' files too
    assert _jit_cache.source_fingerprint(kernels) == original


def test_decoded_cpu_core_has_its_own_fingerprint(monkeypatch):
    """CULE_PY_CPU_CORE=decoded compiles other machine code from the same sources: it must never
    load the fast path's cache entries, nor they its."""
    fast = _jit_cache.source_fingerprint()
    monkeypatch.setenv("CULE_PY_CPU_CORE", "decoded")
    assert _jit_cache.cpu_core() == "decoded"
    assert _jit_cache.source_fingerprint() != fast
    monkeypatch.setenv("CULE_PY_CPU_CORE", "fast")
    assert _jit_cache.source_fingerprint() == fast
    monkeypatch.setenv("CULE_PY_CPU_CORE", "decode")
    with pytest.raises(ValueError, match="CULE_PY_CPU_CORE=.decode.: use one of fast, decoded"):
        _jit_cache.cpu_core()


def run_probe(package_root: pathlib.Path, cache: pathlib.Path) -> int:
    env = dict(os.environ, CULE_PY_CACHE_DIR=str(cache), PYTHONPATH=str(package_root))
    env.pop("CULE_PY_NO_CACHE", None)
    out = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True,
                         check=True, cwd=package_root)
    return int(out.stdout.strip().splitlines()[-1])


@pytest.mark.slow           # three child processes, two of them compiling: about a minute
def test_helper_edit_recompiles(tmp_path):
    """Edit a helper in cpu6507.py (not the file of the cached entry point): the next process must
    run the edited code, not machine code cached from the old source."""
    root = tmp_path / "src"
    shutil.copytree(pathlib.Path(cule_py.__file__).parent, root / "cule_py",
                    ignore=shutil.ignore_patterns("__pycache__"))
    cache = tmp_path / "cache"
    assert run_probe(root, cache) == 2
    cached = list(cache.rglob("*.nbi"))
    assert cached, "the first run should have written the on-disk cache"
    assert run_probe(root, cache) == 2                    # served from the cache

    core = root / "cule_py" / "kernels" / "cpu" / "cpu6507.py"
    text = core.read_text()
    edited = text.replace("x = u8(x + 1)", "x = u8(x + 3)")
    assert edited != text
    core.write_text(edited)
    assert run_probe(root, cache) == 6
