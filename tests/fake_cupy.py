"""numpy dressed as cupy, for running the GPU backend's host code under numba's CUDA simulator on a
machine without a GPU (tests/test_gpu_backend_simulated.py). Only what cule_py calls is here;
`install()` must run before cule_py imports cupy."""

from __future__ import annotations

import sys
import types

import numpy as np


class _Stream:
    ptr = 0

    def synchronize(self):
        pass


class _Event:
    def __init__(self, *args, **kwargs):
        self.done = True

    def record(self, stream=None):
        pass

    def synchronize(self):
        pass


class _Device:
    def __init__(self, index=0):
        self.id = index

    def use(self):
        pass

    def synchronize(self):
        pass


class _DeviceArray(np.ndarray):
    """What cupy.asarray returns here: a numpy array that says it lives on a GPU, so that code
    telling host from device arrays (by the CUDA array interface) takes its device path."""

    @property
    def __cuda_array_interface__(self):
        return {"shape": self.shape, "typestr": self.dtype.str, "version": 3,
                "data": (self.ctypes.data, False), "strides": self.strides}

    def get(self):
        return np.array(self)


def _asarray(a, dtype=None):
    return np.asarray(a, dtype).view(_DeviceArray)


def _asnumpy(a, stream=None, order="C", out=None, blocking=True):
    if out is None:
        return np.array(a, order=order)
    out[...] = a
    return out


def install() -> None:
    cupy = types.ModuleType("cupy")
    for name in dir(np):
        if not name.startswith("__"):
            setattr(cupy, name, getattr(np, name))
    cupy.asnumpy = _asnumpy
    cupy.asarray = _asarray
    cupy.from_dlpack = np.from_dlpack
    cupy.cuda = types.SimpleNamespace(Stream=_Stream, Event=_Event, Device=_Device,
                                      get_current_stream=lambda: _Stream())
    cupy.__version__ = "fake (numpy)"
    cupyx = types.ModuleType("cupyx")
    cupyx.empty_pinned = lambda shape, dtype=float: np.empty(shape, dtype)
    sys.modules["cupy"] = cupy
    sys.modules["cupyx"] = cupyx
