"""Run the 6507 core on B independent machines, each with a flat 64 KiB memory.

This is how CPU test suites (and outside checks) drive the core with nothing of the 2600 around
it: no mirroring, no devices, every address plain RAM.

    >>> import numpy as np, cule_py.flat6502 as flat
    >>> memory = np.zeros((1, 65536), np.uint8); memory[0, 0x200:0x203] = [0xA9, 0x42, 0xEA]
    >>> registers = np.array([[0x200, 0xFF, 0, 0, 0, 0x20]], np.int32)   # PC S A X Y P
    >>> flat.run(memory, registers, 2)
    array([4])
    >>> int(registers[0, 2])
    66
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from . import _device
from .kernels.cpu import cpu6507

__all__ = ["run", "REGISTER_NAMES", "MODELS"]

REGISTER_NAMES = ("PC", "S", "A", "X", "Y", "P")
MODELS = tuple(cpu6507.MODELS)
_THREADS_PER_BLOCK = 128


def run(memory: Any, registers: Any, instructions: int, model: str = "nmos",
        device: str = "cpu", halted: Any = None) -> Any:
    """Execute `instructions` instructions on each of B machines; return cycles taken per machine.

    memory:       (B, 65536) uint8, C-contiguous; updated in place.
    registers:    (B, 6) int32 rows [PC, S, A, X, Y, P]; updated in place.
    instructions: how many instructions each machine executes (a JAM stops it early).
    model:        "nmos" (real silicon, as the public test suites encode it) or "ale" (ALE's
                  M6502Low, which the 2600 console uses).
    device:       "cpu", or "cuda" / "cuda:N" to run one machine per CUDA thread. On CUDA, cupy
                  (or any __cuda_array_interface__) arrays are used in place; numpy arrays are
                  copied to the GPU and back.
    halted:       optional (B,) bool array, in and out: True for machines stopped by a JAM
                  opcode. Halted machines execute nothing, as the chip does until reset.

    Returns a (B,) int64 array of cycles (a numpy array on the CPU, a cupy array for cupy input).
    """
    model_id = _check_model(model)
    if not isinstance(instructions, numbers.Integral) or isinstance(instructions, bool):
        raise TypeError(f"instructions must be an int, got {type(instructions).__name__}")
    if instructions < 0:
        raise ValueError(f"instructions must be >= 0, got {instructions}")
    target = _device.parse_device(device)
    if target.kind == "cpu":
        return _run_cpu(memory, registers, int(instructions), model_id, halted)
    return _run_cuda(memory, registers, int(instructions), model_id, halted, target.index)


def _check_model(model: str) -> int:
    if model not in cpu6507.MODELS:
        raise ValueError(f"unknown CPU model {model!r}; choose one of {', '.join(MODELS)}")
    return cpu6507.MODELS[model]


def _check_arrays(memory, registers, halted, array_module):
    for name, arr, dtype in (("memory", memory, np.uint8), ("registers", registers, np.int32)):
        if not hasattr(arr, "shape") or not hasattr(arr, "dtype"):
            raise TypeError(f"{name} must be an array, got {type(arr).__name__}")
        if arr.dtype != dtype:
            raise TypeError(f"{name} must have dtype {np.dtype(dtype).name}, got {arr.dtype}")
    if memory.ndim != 2 or memory.shape[1] != 65536:
        raise ValueError(f"memory must have shape (B, 65536), got {tuple(memory.shape)}")
    machines = memory.shape[0]
    if tuple(registers.shape) != (machines, 6):
        raise ValueError(f"registers must have shape ({machines}, 6) for {machines} machines "
                         f"(columns {', '.join(REGISTER_NAMES)}), got {tuple(registers.shape)}")
    for name, arr in (("memory", memory), ("registers", registers)):
        if not arr.flags.c_contiguous:
            raise ValueError(f"{name} must be C-contiguous (it is updated in place); "
                             f"pass a contiguous array, e.g. a copy")
    if halted is None:
        halted = array_module.zeros(machines, dtype=np.bool_)
    else:
        if not hasattr(halted, "dtype") or halted.dtype != np.bool_ or tuple(halted.shape) != (machines,):
            raise ValueError(f"halted must be a bool array of shape ({machines},)")
    return machines, halted


def _check_register_ranges(registers):
    regs = np.asarray(registers)
    if regs.size == 0:
        return
    if regs[:, 0].min() < 0 or regs[:, 0].max() > 0xFFFF:
        raise ValueError("PC (column 0 of registers) must be in 0..65535")
    if regs[:, 1:].min() < 0 or regs[:, 1:].max() > 0xFF:
        raise ValueError("S, A, X, Y and P (columns 1-5 of registers) must be in 0..255")


def _run_cpu(memory, registers, instructions, model_id, halted):
    if not isinstance(memory, np.ndarray) or not isinstance(registers, np.ndarray):
        raise TypeError("device='cpu' takes numpy arrays; for GPU arrays use device='cuda'")
    if halted is not None and not isinstance(halted, np.ndarray):
        raise TypeError("halted must be a numpy array on device='cpu'")
    machines, halted = _check_arrays(memory, registers, halted, np)
    _check_register_ranges(registers)
    if not memory.flags.writeable or not registers.flags.writeable:
        raise ValueError("memory and registers must be writeable (they are updated in place)")
    from .kernels.cpu import flat_bus

    cycles = np.zeros(machines, np.int64)
    if machines:
        flat_bus.CPU_RUNNERS[model_id](memory, registers, instructions, cycles, halted)
    return cycles


def _run_cuda(memory, registers, instructions, model_id, halted, device_index):
    cuda = _device.require_cuda(device_index)
    from .kernels.cpu import flat_bus

    on_host = isinstance(memory, np.ndarray)
    if on_host != isinstance(registers, np.ndarray):
        raise TypeError("memory and registers must both be numpy arrays or both GPU arrays")
    if on_host:
        machines, halted_host = _check_arrays(memory, registers, halted, np)
        _check_register_ranges(registers)
        d_memory = cuda.to_device(memory)
        d_registers = cuda.to_device(registers)
        d_halted = cuda.to_device(halted_host)
        d_cycles = cuda.to_device(np.zeros(machines, np.int64))
    else:
        for name, arr in (("memory", memory), ("registers", registers)):
            if not hasattr(arr, "__cuda_array_interface__"):
                raise TypeError(f"{name} must be a numpy array or a GPU array (cupy, torch, numba)")
        cupy = _device.require_cupy()
        machines, halted = _check_arrays(memory, registers, halted, cupy)
        _check_register_ranges(cupy.asnumpy(registers) if hasattr(cupy, "asnumpy") else registers)
        d_memory, d_registers, d_halted = memory, registers, halted
        d_cycles = cupy.zeros(machines, dtype=np.int64)
    if machines:
        blocks = (machines + _THREADS_PER_BLOCK - 1) // _THREADS_PER_BLOCK
        flat_bus.CUDA_RUNNERS[model_id][blocks, _THREADS_PER_BLOCK](
            d_memory, d_registers, instructions, d_cycles, d_halted)
    if on_host:
        d_memory.copy_to_host(memory)
        d_registers.copy_to_host(registers)
        if halted is not None:
            d_halted.copy_to_host(halted)
        return d_cycles.copy_to_host()
    return d_cycles
