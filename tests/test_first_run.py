"""A first run that talks: the compile notice, and the portable kernel cache that spares the
compile (cule_py/_jit_cache.py, cule_py/precompile.py). Each case compiles the smallest cached
kernel (mt19937.seed_generators, seconds) in child processes with their own cache folders."""

import os
import pickle
import subprocess
import sys

import numba
import pytest

from cule_py import _jit_cache

PROBE = """
import numpy as np
from cule_py import _jit_cache
from cule_py.kernels.ale import mt19937
seeded = _jit_cache.seed_from_portable(*[__import__("pathlib").Path(p) for p in {source!r}])
mt = np.zeros((2, mt19937.MT_WORDS + 1), np.uint32)
mt19937.seed_generators(mt, np.array([5, 7], np.uint32), np.ones(2, np.bool_))
hits = sum(mt19937.seed_generators.stats.cache_hits.values())
print(len(seeded), hits, int(mt[:, :-1].astype(np.uint64).sum()))
"""


def run_probe(cache, source=(), **env_extra):
    env = dict(os.environ, CULE_PY_CACHE_DIR=str(cache), **env_extra)
    for name in ("CULE_PY_NO_CACHE", "CULE_PY_COMPILE_NOTICE", "NUMBA_CPU_NAME",
                 "NUMBA_CPU_FEATURES"):
        if name not in env_extra:
            env.pop(name, None)
    out = subprocess.run([sys.executable, "-c", PROBE.format(source=[str(s) for s in source])],
                         env=env, capture_output=True, text=True, check=True)
    seeded, hits, digest = map(int, out.stdout.split())
    return seeded, hits, digest, out.stderr


def test_notice_on_compile_only(tmp_path):
    """A cold cache names the kernel, the expected time and the folder, once; a warm one is
    silent."""
    _, hits, digest, err = run_probe(tmp_path)
    notices = [line for line in err.splitlines() if "compiling the CPU kernel" in line]
    assert len(notices) == 1, err
    assert "seed_generators" in notices[0] and str(tmp_path) in notices[0], notices[0]
    assert hits == 0
    _, hits, again, err = run_probe(tmp_path)
    assert hits == 1 and again == digest
    assert "compiling" not in err, err


def test_portable_cache_seeds_an_empty_cache(tmp_path, monkeypatch):
    """Kernels compiled for the generic CPU load on this one after seeding (no compile, a cache
    hit, the same result); a portable index of other sources is never used."""
    portable = tmp_path / "portable"
    _, _, digest, _ = run_probe(portable, NUMBA_CPU_NAME="generic", NUMBA_CPU_FEATURES="")
    source = portable / _jit_cache.cache_root().name
    assert source.is_dir()

    seeded, hits, got, err = run_probe(tmp_path / "user", [source])
    assert seeded == 1 and hits == 1 and got == digest, err
    assert "compiling" not in err, err
    assert (tmp_path / "user" / source.name / _jit_cache.SEEDED_MARK).exists()

    for index in source.rglob("*.nbi"):     # the same files, under another source stamp
        with open(index, "rb") as f:
            version = pickle.load(f)
            _, overloads = pickle.loads(f.read())
        index.write_bytes(pickle.dumps(version) + pickle.dumps(("stale", overloads)))
    monkeypatch.setenv("CULE_PY_CACHE_DIR", str(tmp_path / "other"))
    assert _jit_cache.seed_from_portable(source) == []
    assert not (tmp_path / "other").exists()


def test_notice_ignores_other_code(capsys):
    """Only cule_py's kernels are announced, not a user's own numba functions."""
    @numba.njit
    def twice(x):
        return 2 * x

    assert twice(21) == 42
    assert "cule_py" not in capsys.readouterr().err


def test_forget_seeded_without_seed(tmp_path, monkeypatch):
    monkeypatch.setenv("CULE_PY_CACHE_DIR", str(tmp_path))
    assert _jit_cache.forget_seeded() == 0


@pytest.mark.parametrize("seconds, text", [(20, "20 s"), (300, "5 min")])
def test_minutes(seconds, text):
    assert _jit_cache._minutes(seconds) == text
