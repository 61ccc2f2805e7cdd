"""Device strings ("cpu", "cuda", "cuda:N"), the checks that turn a missing GPU into a clear error,
the GPU backend's arrays and launches (GpuArrays), and CallClock, which times calls on either device."""

from __future__ import annotations

import importlib.util
import time
from dataclasses import dataclass

import numpy as np

from . import settings
from ._simulator import simulator_enabled


@dataclass(frozen=True)
class Device:
    kind: str            # "cpu" or "cuda"
    index: int | None    # GPU ordinal for "cuda"


def parse_device(device: str) -> Device:
    if not isinstance(device, str):
        raise TypeError(f"device must be a string such as 'cpu' or 'cuda:0', got {type(device).__name__}")
    if device == "cpu":
        return Device("cpu", None)
    if device == "cuda":
        return Device("cuda", 0)
    if device.startswith("cuda:") and device[5:].isdigit():
        return Device("cuda", int(device[5:]))
    raise ValueError(f"unknown device {device!r}; use 'cpu', 'cuda' or 'cuda:N'")


def gpu_available() -> bool:
    """A real GPU that numba can use, and cupy for its arrays (the simulator is no GPU)."""
    if simulator_enabled() or importlib.util.find_spec("cupy") is None:
        return False
    try:
        from numba import cuda

        return bool(cuda.is_available())
    except Exception:        # noqa: BLE001 - a broken driver install counts as no GPU
        return False


def require_cuda(index: int):
    """Return numba.cuda with GPU `index` selected, or raise an error that names the way out."""
    from numba import cuda

    if not cuda.is_available():
        raise RuntimeError(
            "device='cuda' needs an NVIDIA GPU with its driver, and numba found none "
            "(numba.cuda.is_available() is False). Use device='cpu', which runs the same emulator "
            "on the CPU cores.")
    if not simulator_enabled():
        count = len(cuda.gpus)
        if index >= count:
            raise RuntimeError(f"device='cuda:{index}' asked for, but only {count} GPU(s) are visible")
        if cuda.get_current_device().id != index:
            cuda.select_device(index)
    return cuda


def require_cupy():
    try:
        import cupy
    except ImportError as err:  # pragma: no cover - depends on the installation
        raise RuntimeError(
            "GPU arrays need cupy: install the 'cuda' extra (pip install 'cule_py[cuda]', CUDA 13) "
            "or cupy-cuda12x for CUDA 12") from err
    return cupy


class DeferredRangeCheck:
    """Range checks of action arrays that live on the GPU, without a host sync per call.

    Reading an array's min and max would make the host wait for the GPU at every step. Instead
    `note` ORs "some value was out of range" into a sticky flag on the GPU and queues an async
    copy of it into pinned host memory; `raise_if_seen` (run at the start of every call, and by
    `note` itself) raises once that copy has landed and shows the flag set. So a bad array is
    reported by the call after the one that received it at the latest (by that one when the GPU
    has caught up); the consoles played the ids clipped into range in the meantime."""

    def __init__(self, cupy):
        import cupyx

        self._cupy = cupy
        self._flag = cupy.zeros(1, np.bool_)
        self._seen = cupyx.empty_pinned(1, np.bool_)
        self._seen[0] = False
        self._event = None
        self._what = ""

    def note(self, bad, what: str) -> None:
        self.raise_if_seen()
        cp = self._cupy
        stream = cp.cuda.get_current_stream()
        cp.logical_or(self._flag, bad.any(keepdims=True), out=self._flag)
        cp.asnumpy(self._flag, stream=stream, out=self._seen, blocking=False)
        self._event = cp.cuda.Event(block=False, disable_timing=True)
        self._event.record(stream)
        self._what = what

    def raise_if_seen(self, wait: bool = False) -> None:
        if self._event is None:
            return
        if wait:
            self._event.synchronize()
        elif not self._event.done:
            return
        if self._seen[0]:
            self._flag[:] = False
            self._seen[0] = False
            self._event = None
            raise ValueError(f"{self._what}: an action array on the GPU held values out of range "
                             f"(checked on the GPU without a host sync, so reported one call "
                             f"late at most; the consoles played them clipped into range). "
                             f"Reset the affected consoles and check the policy's outputs.")


class StateTiles:
    """The GPU's console state rows, stored in tiles of 32 consoles (`tiles[block, FIELD, lane]`,
    kernels/gpu/state_tiles.py), read and written by the host as the CPU's `state[console, FIELD]`.

    Indexing takes `[rows]` or `[rows, fields]`: rows a console index, a slice, integer indices
    or a boolean mask (host or device), fields an int or a slice. A read returns a copy, a write
    goes to the tiles. The kernels take `tiles` (GpuArrays.launch passes it)."""

    def __init__(self, xp, tiles, consoles: int):
        from .kernels.gpu.state_tiles import TILE

        self.xp = xp
        self.tile = TILE
        self.tiles = tiles
        self.shape = (consoles, tiles.shape[1])
        self.ndim = 2
        self.dtype = np.dtype(np.int32)

    def rows(self):
        """A (consoles, FIELDS) copy of every row."""
        from .kernels.gpu.state_tiles import from_tiles

        return from_tiles(self.tiles, self.shape[0])

    def copy(self):
        return self.rows()

    def get(self):
        """numpy copy (cupy's name for it)."""
        rows = self.rows()
        return rows.get() if hasattr(rows, "get") else rows

    def __array__(self, dtype=None, copy=None):
        rows = self.get()
        return rows if dtype is None else rows.astype(dtype)

    def __len__(self) -> int:
        return self.shape[0]

    @property
    def nbytes(self) -> int:
        """GPU memory held (the last tile's padding included): tools/gpu_runbook's memory count."""
        return int(self.tiles.nbytes)

    def _where(self, key):
        rows, fields = key if isinstance(key, tuple) else (key, slice(None))
        if isinstance(rows, (int, np.integer)):
            if not -self.shape[0] <= rows < self.shape[0]:
                raise IndexError(f"console {rows} out of range for {self.shape[0]} consoles")
            index = int(rows) % self.shape[0]
            return index // self.tile, fields, index % self.tile
        if isinstance(rows, slice):
            index = self.xp.arange(self.shape[0])[rows]
        else:
            on_host = isinstance(rows, np.ndarray)
            array = rows if on_host else self.xp.asarray(rows)
            if array.dtype == np.bool_:
                if array.shape != (self.shape[0],):
                    raise IndexError(f"boolean console mask of shape {array.shape}, expected "
                                     f"({self.shape[0]},)")
                array = np.flatnonzero(array) if on_host else self.xp.flatnonzero(array)
            elif on_host and array.size and not (
                    -self.shape[0] <= array.min() and array.max() < self.shape[0]):
                raise IndexError(f"console indices out of range for {self.shape[0]} consoles")
            # (device indices are not range-checked: that would make the host wait for the GPU)
            index = self.xp.asarray(array) % self.shape[0]
        return index // self.tile, fields, index % self.tile

    def __getitem__(self, key):
        return self.tiles[self._where(key)]

    def __setitem__(self, key, value) -> None:
        self.tiles[self._where(key)] = value


# An SM allocates registers to a warp 8 a thread at a time, and takes a block only when all of
# the block's registers are free.
REGISTER_UNIT = 8


def allocated_registers(threads: int, registers: int) -> int:
    """Registers an SM sets aside for a block of `threads` threads at `registers` a thread."""
    warps = -(-threads // 32)
    return warps * 32 * (-(-registers // REGISTER_UNIT) * REGISTER_UNIT)


def own_sm_threads(consoles: int, step_threads: int, step_registers: int,
                   kernel_registers: int, kernel_max_threads: int, sms: int,
                   sm_registers: int) -> int | None:
    """Threads a block for a kernel launched beside the agent step (one thread a console,
    `step_threads` a block), sized so that the block holds more registers than an SM has beside
    one of the step's blocks: it can then only run on an SM the step leaves empty, never on a
    scheduler beside a step warp. None where the step's grid leaves no SM empty or the kernel
    uses too few registers for such a block."""
    if -(-consoles // step_threads) >= sms:
        return None
    threads = kernel_max_threads // 32 * 32
    if threads == 0 or (allocated_registers(threads, kernel_registers)
                        + allocated_registers(step_threads, step_registers) <= sm_registers):
        return None
    return threads


class GpuArrays:
    """What a batch on device="cuda[:N]" needs: cupy, field-major arrays, cached GPU copies of
    small host tables, and kernel launches on the caller's current cupy stream."""

    def __init__(self, index: int):
        self.cuda = require_cuda(index)
        self.cupy = require_cupy()
        self.cupy.cuda.Device(index).use()
        self.index = index
        self.threads_per_block = int(settings.THREADS_PER_BLOCK.value())
        self.range_check = DeferredRangeCheck(self.cupy)
        self._constants: dict[int, tuple] = {}
        self._views: dict[int, tuple] = {}

    def field_major(self, shape, dtype):
        """zeros(shape) whose first index (the console) is fastest in memory: a warp's threads
        reading one field of their consoles touch consecutive addresses."""
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        memory = self.cupy.zeros(shape[1:] + shape[:1], dtype)
        return self.cupy.moveaxis(memory, -1, 0)

    def state_tiles(self, consoles: int, fields: int) -> StateTiles:
        """Zeroed console state rows in tiles of 32 consoles (StateTiles)."""
        return StateTiles(self.cupy, self.tiles((consoles, fields), np.int32), consoles)

    def tiles(self, shape, dtype):
        """A zeroed per-console array of `shape` (consoles first) in tiles of 32 consoles,
        (blocks, ..., 32), for the kernels alone (kernels/gpu/state_tiles.py): the host cannot index
        it as (consoles, ...)."""
        from .kernels.gpu.state_tiles import TILE, tile_count

        return self.cupy.zeros((tile_count(shape[0]),) + tuple(shape[1:]) + (TILE,), dtype)

    @staticmethod
    def is_device_array(x) -> bool:
        return hasattr(x, "__cuda_array_interface__")

    def as_cupy(self, x):
        """A cupy view of a GPU array (cupy, torch, anything with DLPack / the CUDA array
        interface), without copying; DLPack's stream exchange orders it after the producer's
        work on the GPU instead of making the host wait."""
        cp = self.cupy
        if isinstance(x, cp.ndarray):
            return x
        if hasattr(x, "__dlpack__"):
            return cp.from_dlpack(x)
        return cp.asarray(x)

    def checked_device_ints(self, values, shape, limit: int, what: str):
        """`values` (on the GPU) as int32 ids in 0..limit-1; dtype and shape checked here, the
        range on the GPU (see DeferredRangeCheck)."""
        array = self.as_cupy(values)
        if array.dtype.kind not in "iu":
            raise TypeError(f"{what}: actions must be integers (any int dtype), got dtype "
                            f"{array.dtype}")
        if array.shape != tuple(shape):
            raise ValueError(f"{what}: actions must have shape {tuple(shape)}, got {array.shape}")
        cp = self.cupy
        bad = (array < 0) | (array >= limit) if array.dtype.kind == "i" else (array >= limit)
        self.range_check.note(bad, what)
        return cp.clip(array, 0, limit - 1).astype(np.int32)

    def constant(self, host: np.ndarray):
        """A GPU copy of a small host table, uploaded again only when its contents change (an
        upload from pageable memory waits for the GPU; steady-state steps upload nothing)."""
        key = id(host)
        data = host.tobytes()
        hit = self._constants.get(key)
        if hit is not None and hit[0] is host and hit[1] == data:
            return hit[2]
        if len(self._constants) > 64:
            self._constants.clear()
        device = self.cupy.asarray(host)
        self._constants[key] = (host, data, device)
        return device

    def _numba_view(self, array):
        """numba's view of a cupy array, made once per array (sync=False: the launch is ordered
        on the stream, the host never waits)."""
        if simulator_enabled():
            # Tests: numpy stands in for cupy; the simulator's device-array wrapper takes the
            # strided (field-major) views without copying them.
            from numba.cuda.simulator.cudadrv.devicearray import FakeCUDAArray

            return FakeCUDAArray(array)
        key = id(array)
        hit = self._views.get(key)
        if hit is not None and hit[0] is array:
            return hit[1]
        if len(self._views) > 256:
            self._views.clear()
        view = self.cuda.as_cuda_array(array, sync=False)
        self._views[key] = (array, view)
        return view

    def _kernel_argument(self, value):
        """One array or scalar of a launch as the kernel takes it: tiles for StateTiles, numba's
        view of a cupy array."""
        if isinstance(value, StateTiles):
            value = value.tiles
        return self._numba_view(value) if isinstance(value, self.cupy.ndarray) else value

    def stream(self):
        if simulator_enabled():
            return 0
        return self.cuda.external_stream(self.cupy.cuda.get_current_stream().ptr)

    def launch(self, kernel, consoles: int, *args, threads_per_block: int | None = None) -> None:
        """kernel[blocks, threads_per_block, the current cupy stream](*args), one thread per
        console (`threads_per_block`: this launch's, else the batch's)."""
        self.range_check.raise_if_seen()
        converted = tuple_map(self._kernel_argument, args)
        tpb = threads_per_block or self.threads_per_block
        kernel[(consoles + tpb - 1) // tpb, tpb, self.stream()](*converted)

    def device_limits(self) -> tuple[int, int] | None:
        """(SMs, registers an SM) of this GPU; None under the simulator."""
        if simulator_enabled():
            return None
        attributes = self.cupy.cuda.Device(self.index).attributes
        return (int(attributes["MultiProcessorCount"]),
                int(attributes["MaxRegistersPerMultiprocessor"]))

    @staticmethod
    def kernel_limits(kernel) -> tuple[int, int] | None:
        """(registers a thread, most threads a block) of `kernel` as compiled for this GPU;
        None before its first launch, or under the simulator."""
        overloads = None if simulator_enabled() else getattr(kernel, "overloads", None)
        if not overloads:
            return None
        compiled = next(iter(overloads.values()))
        return int(compiled.regs_per_thread), int(compiled.max_threads_per_block)


def tuple_map(function, value):
    """`value` with `function` applied to every leaf, the namedtuples (and tuples) of a kernel's
    arguments (kernels/structs.py) rebuilt around the results."""
    if isinstance(value, tuple):
        items = [tuple_map(function, item) for item in value]
        return type(value)(*items) if hasattr(value, "_fields") else tuple(items)
    return function(value)


class CallClock:
    """Seconds spent inside some calls (cule_py.steady_state's reset share). Without cupy:
    perf_counter around each call (the CPU backend's kernels run synchronously). With cupy: a pair
    of CUDA events around each call on the current stream, read only in `take`, after the caller
    has synchronized, so timing never makes the host wait for the GPU."""

    def __init__(self, cupy=None):
        self._cupy = cupy
        self._seconds = 0.0
        self._events: list[tuple] = []

    def time(self, call, *args) -> None:
        if self._cupy is None:
            start = time.perf_counter()
            call(*args)
            self._seconds += time.perf_counter() - start
            return
        start, stop = self._cupy.cuda.Event(), self._cupy.cuda.Event()
        start.record()
        call(*args)
        stop.record()
        self._events.append((start, stop))

    def take(self) -> float:
        """The seconds summed since the last take (waits for the recorded events), then zero."""
        for start, stop in self._events:
            stop.synchronize()
            self._seconds += self._cupy.cuda.get_elapsed_time(start, stop) / 1000.0
        self._events.clear()
        seconds, self._seconds = self._seconds, 0.0
        return seconds

