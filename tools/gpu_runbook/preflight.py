"""Stage 1's first seconds: what the machine is, whether every CUDA kernel loads from the carried
cache (a miss means minutes of compiling on the GPU machine: the stage stops instead), and the
memory one console takes, hence the largest batch the GPU holds."""

from __future__ import annotations

import json
import pathlib
import time

from .common import Log

KERNELS = ("drive", "flags", "step", "step128", "step64", "observe", "reset", "fill",
           "lanes")


def kernel_cache(log) -> dict:
    """Per CUDA kernel: found in the on-disk cache for the exact launch types or not, and the
    seconds the load took. Nothing is compiled here: a miss is reported, not repaired."""
    from numba import cuda

    from cule_py.batch import ConsoleBatch
    from tools import gpu_warm

    power_on = ConsoleBatch.power_on
    found = {}
    try:
        for which in KERNELS:
            kernel, args = gpu_warm.kernel_and_arguments(which)
            signature = gpu_warm._types(cuda, args)
            t0 = time.perf_counter()
            loaded = kernel._cache.load_overload(signature, kernel.targetctx)
            found[which] = {"kernel": kernel.__name__, "hit": loaded is not None,
                            "load_s": round(time.perf_counter() - t0, 2)}
            if loaded is not None:
                found[which]["registers"] = loaded.regs_per_thread
                found[which]["local_bytes"] = loaded.local_mem_per_thread
            log(f"  cache {which}: {found[which]}")
    finally:
        ConsoleBatch.power_on = power_on
    return found


def _array_bytes(*objects) -> int:
    """Bytes held by the arrays (numpy or cupy) that are attributes of `objects`, or tuples of
    them; an array shared by two attributes counts once."""
    seen, total = set(), 0

    def visit(value):
        nonlocal total
        if isinstance(value, (tuple, list)):
            for v in value:
                visit(v)
            return
        nbytes = getattr(value, "nbytes", None)
        if nbytes is None or not hasattr(value, "shape"):
            return
        key = (type(value).__name__, id(value))
        if key not in seen:
            seen.add(key)
            total += int(nbytes)

    for obj in objects:
        for value in vars(obj).values():
            visit(value)
    return total


def memory_per_console(device: str, game: str = "pong", sizes=(256, 1024)) -> dict:
    """Bytes per console of the agent-step env (state, RAM, frame buffers, observations, the
    agent's tables) and of a raw AtariEmulator, from two batch sizes (the difference removes
    what a batch holds once: ROM, palette, RNG table). On a GPU the largest batch is what
    90% of the free memory holds."""
    from cule_py import AtariEmulator
    from cule_py.vector import AtariVectorEnv

    def sizes_of(make):
        held = []
        for n in sizes:
            obj = make(n)
            held.append(_array_bytes(*obj))
            del obj
        per = (held[1] - held[0]) / (sizes[1] - sizes[0])
        return {"bytes_per_console": round(per), "fixed_bytes": round(held[0] - per * sizes[0])}

    def agent(n):
        env = AtariVectorEnv(game, n, device=device, repeat_action_probability=0.25)
        return env, env._batch

    def raw(n):
        emulator = AtariEmulator(game, n, device=device)
        return emulator, emulator._batch

    out = {"agent_step_env": sizes_of(agent), "emulator": sizes_of(raw)}
    if device != "cpu":
        import cupy as cp

        cp.get_default_memory_pool().free_all_blocks()
        free, total = cp.cuda.runtime.memGetInfo()
        out["gpu_free_bytes"], out["gpu_total_bytes"] = free, total
        per = out["agent_step_env"]["bytes_per_console"]
        out["largest_agent_batch"] = int(0.9 * free // per) if per else None
    return out


def run(results: pathlib.Path, *, device: str, log: Log) -> dict:
    from cule_py.testing import machine

    report = {"machine": machine(gpu=True), "device": device}
    log("machine:", json.dumps(report["machine"]))
    if device != "cpu":
        report["kernel_cache"] = kernel_cache(log)
        report["all_kernels_cached"] = all(v["hit"] for v in report["kernel_cache"].values())
    try:
        # Two sizes whose difference is per console; small on the CPU, where building a batch
        # runs its power-on (ALE's loadROM frames) console by console.
        sizes = (16, 64) if device == "cpu" else (256, 1024)
        report["memory"] = memory_per_console(device, sizes=sizes)
        log("memory:", json.dumps(report["memory"]))
    except Exception as err:  # noqa: BLE001 - the other tiers can still run
        report["memory"] = {"error": f"{type(err).__name__}: {err}"[:300]}
        log("memory: ERROR", report["memory"]["error"])
    (results / "preflight.json").write_text(json.dumps(report, indent=1, default=str))
    return report
