"""Device strings ("cpu", "cuda", "cuda:N") and the checks that turn a missing GPU into a clear error."""

from __future__ import annotations

import os
from dataclasses import dataclass


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


def simulator_enabled() -> bool:
    return os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0")


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
