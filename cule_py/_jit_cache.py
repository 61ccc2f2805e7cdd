"""A numba on-disk cache that can never serve machine code compiled from older kernel sources.

numba keys its cache on the file that defines the jitted entry point only, so an edit to a helper
in another file would load stale machine code. Every kernel entry point in `cule_py.kernels` is
cached instead under a fingerprint of *all* kernel sources (plus the numba version): any edit to
any kernel file gives a new fingerprint, a new directory and a fresh compile.

The cache lives in `$CULE_PY_CACHE_DIR`, else `$NUMBA_CACHE_DIR/cule_py`, else
`~/.cache/cule_py`. Set `CULE_PY_NO_CACHE=1` to compile in memory only. `CULE_PY_CPU_CORE=decoded` (the GPU's 6507
path on the CPU backend) has its own fingerprint.

Two things make a cold cache bearable for a new user:
* a one-line notice on stderr when a kernel is about to compile (a cache hit says nothing),
  naming it, the time it took on a 2-core machine and the cache folder, then a line a minute
  while it compiles (`CULE_PY_COMPILE_NOTICE=0` silences both);
* a portable cache shipped inside the package (`cule_py/_portable_cache`, built by
  `python -m cule_py.precompile --portable`) seeds an empty cache folder of the same fingerprint.
"""

from __future__ import annotations

import hashlib
import os
import pathlib
import pickle
import shutil
import sys
import threading
import time
import uuid

import numba

from . import settings

KERNEL_DIR = pathlib.Path(__file__).resolve().parent / "kernels"


CPU_CORES = settings.CPU_CORE.choices


def cpu_core() -> str:
    """Which 6507 the CPU backend compiles: "fast" (console_fast_path, the default) or "decoded"
    (`CULE_PY_CPU_CORE=decoded`: the decoded core, the code path the GPU runs, so that the GPU's
    path can be checked for exactness on a machine without one; slower)."""
    return settings.CPU_CORE.value()


def source_fingerprint(kernel_dir: pathlib.Path = KERNEL_DIR) -> str:
    """sha256 over every kernel source file (path and bytes), the numba version, the CPU core
    choice (the two cores compile to different machine code from the same sources) and the
    package's name: numba's cache index names each function by its module, so a copy imported
    under another name (tools/ab_builds.py's cule_0, cule_1) would find the other's index and
    fail to unpickle it rather than miss. numba's CUDA simulator changes no CPU kernel, so a
    process running it shares the cache."""
    digest = hashlib.sha256(numba.__version__.encode())
    digest.update(__name__.partition(".")[0].encode())
    if cpu_core() != "fast":
        digest.update(cpu_core().encode())
    for path in sorted(kernel_dir.rglob("*.py")):
        digest.update(str(path.relative_to(kernel_dir)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


FINGERPRINT = source_fingerprint()


def cache_root() -> pathlib.Path:
    if settings.CACHE_DIR.is_set():
        base = pathlib.Path(settings.CACHE_DIR.value())
    elif os.environ.get("NUMBA_CACHE_DIR"):
        base = pathlib.Path(os.environ["NUMBA_CACHE_DIR"]) / "cule_py"
    else:
        base = pathlib.Path.home() / ".cache" / "cule_py"
    return base / f"numba-{FINGERPRINT[:20]}"


def _make_locator(base_class):
    class KernelSourceLocator(base_class):
        """Places cule_py kernels under the all-sources fingerprint."""

        kernel_dir = KERNEL_DIR

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
    if settings.NO_CACHE.is_set():
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
        # One locator per copy of the kernels (tools/ab_builds.py imports several builds).
        if not any(getattr(c, "kernel_dir", None) == KERNEL_DIR for c in classes):
            classes.insert(0, _make_locator(base))
        installed = True
    return installed


#: Whether cule_py kernels may use numba's on-disk cache (only with the safe locator in place).
CACHE_ENABLED = _install()


def in_cache(py_func, signature) -> bool:
    """Whether the kernel cache holds `py_func` (a CPU kernel's Python function) compiled for
    `signature` (the argument types, as numba's dispatcher keys them) on this machine."""
    if not CACHE_ENABLED:
        return False
    try:
        from numba.core.caching import FunctionCache
        from numba.core.registry import cpu_target

        cache = FunctionCache(py_func)
        index = cache._cache_file._load_index()
        return cache._index_key(signature, cpu_target.target_context.codegen()) in index
    except Exception:  # noqa: BLE001 - numba changed its cache's layout: assume a compile
        return False


# --- the compile notice ----------------------------------------------------------------------

#: Seconds each CPU kernel took to compile cold on the 2-core development VM (AMD EPYC, numba
#: 0.68.1, Python 3.11; tools/compile_profile.py, docs/performance-log.md "Compile time"),
#: beside the console compiling in a second process (kernels/frame_loop/cpu_console.py). A
#: kernel not listed takes a few seconds.
EXPECTED_SECONDS = {"drive": 12, "agent_step_cpu": 10, "agent_reset_cpu": 17,
                    "agent_observe_cpu": 5, "direct_tails_due": 1}

_announced: set[str] = set()


def _minutes(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 90 else f"{seconds / 60:.0f} min"


def expected(name: str) -> str:
    """What a kernel's compile is expected to take, in words."""
    seconds = EXPECTED_SECONDS.get(name)
    return (f"about {_minutes(seconds)} on a 2-core x86-64 machine" if seconds
            else "a few seconds")


class _CompileNotice:
    """Says on stderr which cule_py kernel compiles, for how long, where it will be cached, and
    what it took.

    numba fires "numba:compile" only after a cache miss, so a cache hit costs nothing here, and
    the dispatch of an already compiled kernel never reaches this class."""

    def __init__(self):
        self.depth = 0              # helpers compile inside their kernel: announce the outer one
        self.stop: threading.Event | None = None
        self.started = 0.0
        self.name = ""

    def on_start(self, event) -> None:
        dispatcher = _cule_dispatcher(event)
        if dispatcher is None:
            return
        self.depth += 1
        name = dispatcher.py_func.__qualname__
        if self.depth > 1 or name in _announced:
            return
        _announced.add(name)
        where = (f"cached in {cache_root()}" if CACHE_ENABLED and
                 getattr(getattr(dispatcher, "_cache", None), "cache_path", None)
                 else "not cached")
        _say(f"compiling the CPU kernel {name} ({expected(name)}, once: {where})")
        self.name, self.started = name, time.monotonic()
        self.stop = threading.Event()
        threading.Thread(target=_heartbeat, args=(name, self.stop), daemon=True).start()

    def on_end(self, event) -> None:
        if _cule_dispatcher(event) is None:
            return
        self.depth -= 1
        if self.depth == 0 and self.stop is not None:
            self.stop.set()
            self.stop = None
            _say(f"{self.name} compiled in {_minutes(time.monotonic() - self.started)}")


def _cule_dispatcher(event):
    """The dispatcher of a cule_py kernel that an event is about, else None."""
    data = event.data if isinstance(event.data, dict) else {}
    dispatcher = data.get("dispatcher")
    module = getattr(getattr(dispatcher, "py_func", None), "__module__", None) or ""
    return dispatcher if module.startswith("cule_py.kernels") else None


def _say(line: str) -> None:
    print(f"cule_py: {line}", file=sys.stderr, flush=True)


def _heartbeat(name: str, stop: threading.Event, every: float = 30.0) -> None:
    # LLVM runs through ctypes, which releases the GIL: this thread gets to print meanwhile.
    start = time.monotonic()
    while not stop.wait(every):
        _say(f"still compiling {name}: {_minutes(time.monotonic() - start)} so far")


def _install_notice() -> None:
    if settings.COMPILE_NOTICE.value() == "0":
        return
    from numba.core import event

    # CPU kernels only: numba-cuda's CUDA dispatcher fires no compile event (0.30.4).
    event.register("numba:compile", type("CompileNotice", (_CompileNotice, event.Listener), {})())


_install_notice()


# --- the portable cache ----------------------------------------------------------------------

#: Where a wheel built with CULE_PY_PORTABLE_CACHE=1 carries kernels compiled for the generic CPU.
PORTABLE_DIR = pathlib.Path(__file__).resolve().parent / "_portable_cache"
#: Written into a cache folder seeded from PORTABLE_DIR: the files that came from there.
SEEDED_MARK = "SEEDED_FROM_PORTABLE"


def _host_magic_tuple() -> tuple:
    from numba.core.registry import cpu_target

    return cpu_target.target_context.codegen().magic_tuple()


def seed_from_portable(source: pathlib.Path | None = None) -> list[pathlib.Path]:
    """Copy the packaged portable kernels into an empty cache folder of the same fingerprint.

    numba keys every cached overload on (signature, (triple, cpu name, cpu features), bytecode
    hashes) and finds nothing when the cpu part differs. Code compiled for the generic CPU (the
    architecture's baseline instruction set) runs on every CPU of that triple, so the index is
    re-keyed to this host's cpu name and features; the triple, the signature, the bytecode
    hashes, the fingerprint (the index's source stamp) and numba's version (the index's header)
    must all match already. A kernel already in the cache folder (native code) is left alone.
    Returns the index files written."""
    source = source or PORTABLE_DIR / cache_root().name
    if not CACHE_ENABLED or not source.is_dir():
        return []
    target_root = cache_root()
    missing = [p for p in sorted(source.rglob("*.nbi"))
               if not (target_root / p.relative_to(source)).exists()]
    if not missing:
        return []
    host = _host_magic_tuple()
    from numba.core.serialize import dumps

    written = []
    for index in missing:
        with open(index, "rb") as f:
            version = pickle.load(f)
            stamp, overloads = pickle.loads(f.read())
        if version != numba.__version__ or stamp != FINGERPRINT:
            continue
        rekeyed = {}
        for (sig, magic, hashes), name in overloads.items():
            if magic[0] == host[0] and magic[1] == "generic" and not magic[2]:
                rekeyed[(sig, host, hashes)] = name
        if not rekeyed:
            continue
        folder = target_root / index.parent.relative_to(source)
        folder.mkdir(parents=True, exist_ok=True)
        for name in rekeyed.values():
            _atomic_copy(index.parent / name, folder / name)
        payload = pickle.dumps(version, protocol=-1) + dumps((stamp, rekeyed))
        _atomic_write(folder / index.name, payload)
        written.append(folder / index.name)
    if written:
        with open(target_root / SEEDED_MARK, "a") as f:
            f.writelines(f"{p.relative_to(target_root)}\n" for p in written)
    return written


def forget_seeded() -> int:
    """Delete the index files seed_from_portable wrote here, so that the next call compiles
    native code for this CPU (python -m cule_py.precompile). Returns how many."""
    mark = cache_root() / SEEDED_MARK
    if not mark.exists():
        return 0
    count = 0
    for line in mark.read_text().split():
        path = cache_root() / line
        if path.exists():
            path.unlink()
            count += 1
    mark.unlink()
    return count


def _atomic_write(path: pathlib.Path, data: bytes) -> None:
    # Another process may load the same cache at the same moment: it sees the old file or the
    # new one, never half of one.
    tmp = path.with_name(f"{path.name}.tmp.{uuid.uuid4().hex[:12]}")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def _atomic_copy(src: pathlib.Path, dst: pathlib.Path) -> None:
    tmp = dst.with_name(f"{dst.name}.tmp.{uuid.uuid4().hex[:12]}")
    shutil.copyfile(src, tmp)
    os.replace(tmp, dst)


def _seed_quietly() -> None:
    try:
        written = seed_from_portable()
    except Exception as err:  # noqa: BLE001 - a broken seed only costs a compile
        _say(f"the packaged kernel cache was not used ({type(err).__name__}: {err})")
        return
    if written:
        _say(f"{len(written)} kernels seeded into {cache_root()} from the packaged portable "
             f"cache (generic CPU code; `python -m cule_py.precompile` compiles native code)")


_seed_quietly()
