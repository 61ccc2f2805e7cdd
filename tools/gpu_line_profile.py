"""Where a GPU console-frame's instructions go, per source line, without a GPU (issue 27).

Nsight Compute counts a kernel's thread instructions on a GPU (2026-11-26, H100: 1.99 M a Pong
console-frame in drive_cuda, 2.7 M in the agent step), but not which source lines issue them;
numba-cuda gives the SASS no line information by default. This tool estimates that split on a
machine without a GPU, from two things that are each exact:

* **how often each line runs** (`counts`): the kernel's own Python source executed by numba's
  CUDA simulator (the code the GPU compiles, minus the CUDA-only overloads: the warp
  scheduler's loop runs as the free loop, each lane on its own), on consoles that the CPU
  backend brought to a mid-game state, with a line tracer counting (file, line) per thread;
* **how many SASS instructions each line compiles to** (`sass`): the kernel compiled offline for
  sm_90a exactly as tools/gpu_model.py compiles it, but with line information for every device
  function (numba-cuda's `lineinfo`, which adds no code: the same SASS count as without it),
  disassembled with nvdisasm -gi, each instruction charged to its innermost source line.

Estimated thread instructions per console-frame = sum over lines of (executions per
console-frame) x (SASS per inlined copy of the line). Where a line is inlined at several sites
its copies are averaged, and loop bodies that the compiler unrolled count their unrolled copies
per execution: the estimate is a map of where the instructions go, to be checked against ncu's
total on the next GPU run (stage 3 profiles the same kernels), not a measurement.

    python -m tools.gpu_line_profile --game pong --consoles 8 --warmup 100 --steps 2 \\
        --out benchmarks/results/DIR

writes `counts-GAME-*.json`, `sass-step-*.json`, `sass-observe-*.json` (cached per kernel source
fingerprint; the warm-up's kernel arguments in `inputs-*.pkl`, reusable across versions of the
kernels) and `profile-GAME.md`: the step kernel's lines and those of the observation's own
launch (agent_observe_cuda), each against its kernel's SASS.

    python -m tools.gpu_line_profile --game seaquest --footprint --out DIR

adds the kernel's hot code (`footprint`): per device function, the SASS of the inlined copies
that ran in the counted frames (each copy's line and all its call sites ran), from a second
compile with loops unrolled as the kernels that run have them. Decorrelated warps of one SM
walk that code together; what does not fit the instruction caches stalls on fetch
(docs/performance-log.md, "The code's size"). A change to the code's size is checked here.

    python -m tools.gpu_line_profile --warp --game pong --warmup 300 --out DIR

models one raw frame of a warp of 32 decorrelated consoles instead (drive_cuda's SASS): each
lane's lines recorded 6507 instruction by instruction with the instruction's scanline key, then
the warp's instructions as identical consoles would issue them and under the scanline schedule
(warp_cost), and the lines where the lanes part.
"""

from __future__ import annotations

import argparse
import collections
import functools
import json
import os
import pathlib
import pickle
import re
import subprocess
import sys
import tempfile
import textwrap
import threading
import time

from cule_py.testing import SIMULATOR_WAITS

REPO = pathlib.Path(__file__).resolve().parents[1]
KERNEL_DIR = REPO / "cule_py" / "kernels"


# ---------------------------------------------------------------------------------------------
# How often each line runs: the CUDA simulator with a line tracer
# ---------------------------------------------------------------------------------------------
def trace_new_threads(make_tracer) -> None:
    """Trace every thread started from now on (numba's simulator runs each CUDA thread as a
    Python thread) with a tracer of its own, made in that thread by `make_tracer()`."""
    def install(frame, event, arg):
        tracer = make_tracer()
        sys.settrace(tracer)
        return tracer(frame, event, arg)
    threading.settrace(install)


class LineCounter:
    """Counts line executions in files under cule_py/kernels, one Counter per thread (the
    simulator runs each CUDA thread as a Python thread; a shared Counter's += is not atomic)."""

    def __init__(self, root: pathlib.Path = KERNEL_DIR):
        self.root = str(root)
        self.per_thread: list[collections.Counter] = []
        self._lock = threading.Lock()
        self._wanted: dict = {}

    def _tracer(self):
        counts = collections.Counter()
        with self._lock:
            self.per_thread.append(counts)
        wanted = self._wanted
        root = self.root

        def local(frame, event, arg):
            if event == "line":
                counts[(frame.f_code.co_filename, frame.f_lineno)] += 1
            return local

        def global_(frame, event, arg):
            code = frame.f_code
            keep = wanted.get(code.co_filename)
            if keep is None:
                keep = wanted[code.co_filename] = code.co_filename.startswith(root)
            return local if keep else None
        return global_

    def start(self):
        trace_new_threads(self._tracer)

    def stop(self):
        threading.settrace(None)

    def total(self) -> collections.Counter:
        out = collections.Counter()
        for c in self.per_thread:
            out.update(c)
        return out


COUNT_CHILD = textwrap.dedent("""
    import json, pickle, sys, time
    from numba import cuda
    from tools.gpu_line_profile import LineCounter
    from cule_py.kernels.agent import agent_step as K
    from cule_py.kernels.gpu.state_tiles import to_tiles

    assert cuda.to_device.__module__.startswith("numba.cuda.simulator")
    with open(sys.argv[1], "rb") as f:
        d = pickle.load(f)
    steps, bands = int(sys.argv[3]), d["bands"]
    console, agent, cfg, action_rows, actions, screen, outputs, saved, mask = d["args"]
    n = console.ram.shape[0]
    # as on the GPU: the state rows and the observation's work rows in tiles
    console = console._replace(st=to_tiles(console.st))
    screen = screen._replace(raw=to_tiles(screen.raw), scratch=to_tiles(screen.scratch))
    args = (console, agent, cfg, action_rows, actions, screen, outputs, saved, mask)
    observe_args = (console.ram, console.fb, screen, cfg, agent, mask)
    # the step kernel's lines and the observation kernel's, counted apart
    step_counter, observe_counter = LineCounter(), LineCounter()
    start = time.perf_counter()
    for _ in range(steps):
        for counter, launch in ((step_counter, lambda: K.agent_step_cuda[1, n](*args)),
                                (observe_counter,
                                 lambda: K.agent_observe_cuda[bands, n](*observe_args))):
            counter.start()
            try:
                launch()
            finally:
                counter.stop()
    seconds = time.perf_counter() - start
    json.dump({"seconds": seconds, "threads": len(step_counter.per_thread),
               "bands": bands,
               "lines": {f"{f}:{l}": c for (f, l), c in step_counter.total().items()},
               "observe_lines": {f"{f}:{l}": c
                                 for (f, l), c in observe_counter.total().items()}},
              open(sys.argv[2], "w"))
    print(f"traced {steps} agent steps x {n} consoles in {seconds:.1f} s")
""")


def child_env(**variables) -> dict:
    """os.environ for a child Python that imports this checkout's cule_py and tools, plus
    `variables`."""
    env = dict(os.environ, **variables)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH")) if p)
    return env


def run_simulated(child: str, inputs: pathlib.Path, outputs: pathlib.Path, *args) -> None:
    """Run `child` (Python source) under numba's CUDA simulator in a process of its own (the
    simulator must be chosen before numba is imported): argv inputs, outputs, args."""
    env = child_env(NUMBA_ENABLE_CUDASIM="1", CULE_PY_NO_CACHE="1")
    proc = subprocess.run([sys.executable, "-c", SIMULATOR_WAITS + child, str(inputs),
                           str(outputs), *map(str, args)], env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"simulator run failed:\n{proc.stdout}\n{proc.stderr[-3000:]}")


def step_inputs(game: str, consoles: int, warmup: int, seed: int, path: pathlib.Path) -> None:
    """agent_step_cuda's arguments for `consoles` consoles of `game` (v5 settings) after
    `warmup` random steps on the CPU backend, saved to `path` (a pickle). They depend on the state
    layout, not on the kernel code, so one file serves the line counts of several versions
    of the kernels (each version would otherwise compile the CPU backend for the warm-up)."""
    import numpy as np
    from cule_py.vector import OBSERVATION_BANDS_GPU, AtariVectorEnv

    # the GPU's structure: the observation in bands, by a launch of its own
    env = AtariVectorEnv(game, consoles, repeat_action_probability=0.25, seed=seed,
                         observation_bands=OBSERVATION_BANDS_GPU)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    n_actions = env.single_action_space.n
    for _ in range(warmup):
        env.step(rng.integers(0, n_actions, consoles))
    env._actions[:] = rng.integers(0, n_actions, consoles)
    args = env._step_args(env._all)
    # frames a step, from the step's own configuration (the counts are per console-frame)
    from cule_py.kernels.agent import agent_step as K

    skip_lo, skip_hi = int(env._cfg[K.C_SKIP_LO]), int(env._cfg[K.C_SKIP_HI])
    if skip_hi - skip_lo > 1:
        raise ValueError("a random frameskip leaves frames a step unknown: use a fixed one")
    with open(path, "wb") as f:
        pickle.dump({"args": args, "frameskip": skip_lo, "bands": OBSERVATION_BANDS_GPU}, f)


def line_counts(game: str, consoles: int, warmup: int, steps: int, seed: int = 0,
                inputs: pathlib.Path | None = None) -> dict:
    """Executions of each kernel source line in `steps` agent steps from `inputs` (made by
    step_inputs if absent)."""
    with tempfile.TemporaryDirectory() as tmp:
        if inputs is None:
            inputs = pathlib.Path(tmp) / "in.pkl"
        if not inputs.exists():
            step_inputs(game, consoles, warmup, seed, inputs)
        outputs = pathlib.Path(tmp) / "out.json"
        with open(inputs, "rb") as f:
            frameskip = int(pickle.load(f)["frameskip"])
        run_simulated(COUNT_CHILD, inputs, outputs, steps)
        result = json.loads(outputs.read_text())
    result.update(game=game, consoles=consoles, warmup=warmup, steps=steps, seed=seed,
                  frames=consoles * steps * frameskip)
    return result


# ---------------------------------------------------------------------------------------------
# A warp of 32 under the scanline schedule: each lane's lines, 6507 instruction by instruction
# ---------------------------------------------------------------------------------------------
class StepRecorder:
    """Per thread, the lines each 6507 instruction ran, with the instruction's scanline key
    (warp_schedule.schedule_key under `scanline`, taken when cpu6507's `step` is entered):
    a list of (key, path), a path being a tuple of (line id, runs), interned. Lines before the
    first instruction or after the last get key None."""

    def __init__(self, root: pathlib.Path = KERNEL_DIR):
        self.root = str(root)
        self.lanes: dict = {}
        self.line_ids: dict = {}
        self.paths: dict = {}
        self._lock = threading.Lock()

    def _tracer(self, lane):
        import numpy as np
        from cule_py.kernels import layout as L
        from cule_py.kernels.gpu.warp_schedule import schedule_key

        records = []
        current = collections.Counter()
        state = {"key": None}
        ids, paths, root = self.line_ids, self.paths, self.root

        def close():
            if current:
                path = tuple(sorted(current.items()))
                path = paths.setdefault(path, path)
                records.append((state["key"], path))
                current.clear()

        def local(frame, event, arg):
            if event == "line":
                key = (frame.f_code.co_filename, frame.f_lineno)
                line = ids.get(key)
                if line is None:
                    line = ids.setdefault(key, len(ids))
                current[line] += 1
            return local

        def global_(frame, event, arg):
            code = frame.f_code
            if not code.co_filename.startswith(root):
                return None
            if code.co_name == "step" and code.co_filename.endswith("cpu6507.py"):
                close()
                f = frame.f_locals
                st, env = f["bus"][3], f["bus"][5]
                state["key"] = int(schedule_key(f["pc"], f["clk"],
                                                np.int64(st[env, L.TIA_FRAME_START])))
            return local
        return global_, records, close

    def start(self):
        closers = self._closers = []

        def make_tracer():
            tracer, records, close = self._tracer(threading.get_ident())
            with self._lock:
                self.lanes[threading.get_ident()] = records
                closers.append(close)
            return tracer
        trace_new_threads(make_tracer)

    def stop(self):
        threading.settrace(None)
        for close in self._closers:
            close()


WARP_CHILD = textwrap.dedent("""
    import json, pickle, sys, time
    import numpy as np
    from numba import cuda
    from tools.gpu_line_profile import StepRecorder
    from cule_py.kernels.frame_loop import console as K

    assert cuda.to_device.__module__.startswith("numba.cuda.simulator")
    d = dict(np.load(sys.argv[1]))
    from cule_py.kernels.gpu.state_tiles import to_tiles
    tiles = to_tiles(d["st"])                               # the state rows as on the GPU
    ram = np.ascontiguousarray(d["ram"].T).T                # field-major memory, as on the GPU
    fb = d["fb"].copy()
    n = ram.shape[0]
    recorder = StepRecorder()
    start = time.perf_counter()
    recorder.start()
    try:
        K.run_frames_cuda[1, n](d["rom"], int(d["scheme"]), ram, tiles, fb, 1,
                                np.ones(n, np.bool_))
    finally:
        recorder.stop()
    lines = {v: f"{f}:{l}" for (f, l), v in recorder.line_ids.items()}
    lanes = [r for r in recorder.lanes.values() if r]
    pickle.dump({"lines": lines, "lanes": lanes, "seconds": time.perf_counter() - start},
                open(sys.argv[2], "wb"))
    print(f"recorded {len(lanes)} lanes in {time.perf_counter() - start:.1f} s")
""")


def warp_records(game: str, warmup: int, seed: int, out_dir: pathlib.Path) -> dict:
    """Each lane's (key, path) records for one raw frame of a warp of 32 consoles of `game`,
    brought apart by `warmup` frames of random actions (sticky 0.25) on the CPU backend."""
    import pickle

    import numpy as np
    from cule_py.batch import ConsoleBatch

    inputs = out_dir / f"warp-inputs-{game}-{warmup}-{seed}.npz"
    if not inputs.exists():
        consoles = ConsoleBatch(game, 32, env_seed=seed, repeat_action_probability=0.25)
        rng = np.random.default_rng(seed)
        actions = np.asarray(consoles.game.minimal_actions)
        for _ in range(warmup):
            consoles.act(actions[rng.integers(0, len(actions), 32)])
        np.savez(inputs, rom=consoles.rom_bytes, scheme=consoles.scheme, ram=consoles.ram,
                 st=consoles.state, fb=consoles.frame_buffers)
    from cule_py._jit_cache import FINGERPRINT

    cached = out_dir / f"warp-records-{game}-{warmup}-{seed}-{FINGERPRINT[:12]}.pickle"
    if cached.exists():
        with open(cached, "rb") as f:
            return pickle.load(f)
    with tempfile.TemporaryDirectory() as tmp:
        outputs = pathlib.Path(tmp) / "out.pickle"
        run_simulated(WARP_CHILD, inputs, outputs)
        outputs.replace(cached)
    with open(cached, "rb") as f:
        return pickle.load(f)


def warp_cost(records: dict, sass: dict) -> dict:
    """The warp's instructions for its frame, two ways: as 32 identical consoles would issue them
    (each lane's own path, the mean over lanes: no divergence) and under the scanline schedule
    (each round, the lanes at the smallest key run one instruction; the warp issues every line
    any of them runs, as often as the lane that runs it most: SIMT without reconvergence
    inside a line). Also, per line, what divergence adds (the warp's count minus the mean
    lane's), to say where the lanes part."""
    import heapq

    static = {_relative(k): v for k, v in sass["lines"].items()}
    names = {int(i): _relative(name) for i, name in records["lines"].items()}
    per_copy = {i: (static[n]["sass"] / max(static[n]["copies"], 1))
                if n in static else 0.0 for i, n in names.items()}
    lanes = records["lanes"]
    per_step = scheduled_step_sass(sass)           # each instruction's loop, lane and warp
    thread = sum(sum(per_copy[l] * c for _, path in lane for l, c in path)
                 + per_step * sum(1 for key, _ in lane if key is not None) for lane in lanes)
    # scanline rounds: merge the lanes' records by key; lanes advance one record per round
    position = [0] * len(lanes)
    heap = [(lane[0][0] if lane[0][0] is not None else -1, i) for i, lane in enumerate(lanes)]
    heapq.heapify(heap)
    warp = 0.0
    rounds = 0
    active_total = 0
    extra = collections.Counter()
    while heap:
        key = heap[0][0]
        group = []
        while heap and heap[0][0] == key:
            group.append(heapq.heappop(heap)[1])
        most = collections.Counter()
        runs = collections.Counter()
        for i in group:
            for line, count in lanes[i][position[i]][1]:
                runs[line] += count
                if count > most[line]:
                    most[line] = count
        cost = sum(per_copy[l] * c for l, c in most.items())
        for line, count in most.items():
            extra[line] += per_copy[line] * (count * len(group) - runs[line]) / len(lanes)
        warp += cost + (per_step if key is not None and key >= 0 else 0)
        rounds += 1
        active_total += len(group)
        for i in group:
            position[i] += 1
            if position[i] < len(lanes[i]):
                k = lanes[i][position[i]][0]
                heapq.heappush(heap, (k if k is not None else (1 << 40), i))
    identical = thread / len(lanes)
    return {"lanes": len(lanes), "thread_per_console_frame": identical,
            "warp_identical": identical, "warp_scanline": warp, "rounds": rounds,
            "lanes_per_round": active_total / max(rounds, 1),
            "lanes_per_warp_instruction": thread / max(warp, 1),
            "divergence_by_line": {names[l]: v for l, v in extra.most_common(25)}}


# ---------------------------------------------------------------------------------------------
# How many SASS instructions each line compiles to
# ---------------------------------------------------------------------------------------------
_LOCATION = re.compile(r'//## File "([^"]+)", line (\d+)(?: inlined at "([^"]+)", line (\d+))?')
_SASS = re.compile(r"^\s*/\*[0-9a-f]{4,}\*/\s+(.*?)\s*;")


def sass_sites(sass: str) -> dict:
    """`lines`: per (file, line), the SASS instructions charged to it and its distinct inlined
    copies, over the whole disassembly. nvdisasm -gi puts a group of `//## File` lines before an
    instruction whose location changes: the innermost line first, then each call site it was
    inlined at, outwards; a copy is the line with its chain of call sites. `sites`: [function,
    line, [call sites, innermost first], SASS instructions] for every copy in every function
    (gpu_model.function_started's name without its module), the basis of `footprint` (a copy
    runs only if its line and each of its call sites run)."""
    from tools.gpu_model import function_started

    per: dict = collections.defaultdict(lambda: {"sass": 0, "copies": set(), "spill": 0})
    sites: collections.Counter = collections.Counter()
    where, chain, in_group = None, (), False
    function = "?"
    group: list = []
    for raw in sass.splitlines():
        line = raw.strip()
        started = function_started(line)
        if started is not None:
            # a function's code starts; the runtime's (64-bit division...) has no lines
            where, chain, in_group = None, (), False
            function = started.rsplit(".", 1)[-1]
            continue
        if line.startswith("//## File"):
            m = _LOCATION.search(line)
            if m is None:
                continue
            if not in_group:
                group = []
                in_group = True
            group.append((m.group(1), int(m.group(2))))
            where, chain = group[0], tuple(group[1:])
            continue
        in_group = False
        m = _SASS.match(raw)
        if not m:
            continue
        if where is None:
            sites[(function, None, ())] += 1
            continue
        entry = per[where]
        entry["sass"] += 1
        entry["copies"].add(chain)
        if "SpillRefill" in raw:
            entry["spill"] += 1
        sites[(function, where, chain)] += 1
    lines = {f"{f}:{l}": {"sass": v["sass"], "copies": len(v["copies"]), "spill": v["spill"]}
             for (f, l), v in per.items()}

    def key(location):
        return None if location is None else f"{location[0]}:{location[1]}"
    return {"lines": lines,
            "sites": [[function, key(where), [key(c) for c in chain], n]
                      for (function, where, chain), n in sites.items()]}


_LABEL = re.compile(r'^("?)([-\w.$]+)\1:')
_BRANCH_TARGET = re.compile(r'label %("?)([-\w.$]+)\1')
_METADATA_ID = re.compile(r"!(\d+)\b")


def without_unrolling(llvm_ir: str) -> str:
    """`llvm_ir` with every loop marked llvm.loop.unroll.disable: every branch to a block at or
    before its own (numba lays a function's blocks out in source order, so a loop's back edge
    jumps backwards; a mark on any other branch is ignored). Unrolled, a loop body's line holds
    its SASS several times over while the simulator counts one run per iteration."""
    lines = llvm_ir.splitlines()
    next_id = max((int(m) for m in _METADATA_ID.findall(llvm_ir)), default=0) + 1
    disable = next_id
    next_id += 1
    extra = [f'!{disable} = !{{!"llvm.loop.unroll.disable"}}']
    out = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.startswith("define "):
            out.append(line)
            i += 1
            continue
        end = i
        while lines[end] != "}":
            end += 1
        body = lines[i:end + 1]
        order = {}
        for k, text in enumerate(body):
            m = _LABEL.match(text)
            if m:
                order[m.group(2)] = k
        block = 0
        for k, text in enumerate(body):
            if _LABEL.match(text):
                block = k
            stripped = text.lstrip()
            if stripped.startswith("br "):
                targets = [order.get(t[1], 1 << 30) for t in _BRANCH_TARGET.findall(stripped)]
                if any(t <= block for t in targets):
                    text = f"{text}, !llvm.loop !{next_id}"
                    extra.append(f"!{next_id} = distinct !{{!{next_id}, !{disable}}}")
                    next_id += 1
            out.append(text)
        i = end + 1
    return "\n".join(out + extra) + "\n"


def enable_line_information(unroll: bool = False) -> None:
    """Make numba-cuda give every device function line information (SASS unchanged: the same
    registers, spills and instruction count as without it, checked on drive_cuda). numba-cuda
    compiles each register_jitable callee with that callee's options, which never ask for it;
    and its debug metadata carries names NVVM rejects ("Symbol name with unsupported
    characters": qualified names with <locals>, tuple members named "<field 0>"), so the
    subprograms get plain names and no variables or argument types: lines are all we need.
    Unless `unroll`, loops are also kept rolled (without_unrolling), so that a loop body's
    SASS is one iteration's."""
    import numba.cuda.compiler as compiler
    import numba.cuda.cudadrv.nvvm as nvvm
    import numba.cuda.debuginfo as debuginfo
    import numba.cuda.dispatcher as cdisp

    original = compiler.compile_cuda

    def with_lines(*args, **kwargs):
        if not kwargs.get("debug"):
            kwargs["lineinfo"] = True
        return original(*args, **kwargs)
    compiler.compile_cuda = cdisp.compile_cuda = with_lines

    if not unroll:
        replace = nvvm.llvm_replace
        nvvm.llvm_replace = lambda llvm_ir: without_unrolling(replace(llvm_ir))

    mark_subprogram = debuginfo.DIBuilder.mark_subprogram

    def plain_named(self, function, qualname, argnames, argtypes, line):
        return mark_subprogram(self, function, re.sub(r"[^A-Za-z0-9_.]", "_", qualname),
                               argnames, argtypes, line)

    def untyped(self, line, function, argmap):
        return self.module.add_debug_info("DISubroutineType",
                                          {"types": self.module.add_metadata([])})
    debuginfo.DIBuilder.mark_subprogram = plain_named
    for cls in (debuginfo.DIBuilder, debuginfo.CUDADIBuilder):
        cls.mark_variable = lambda self, *a, **k: None
        cls.update_variable = lambda self, *a, **k: None
        cls._di_subroutine_type = untyped


SASS_CHILD = textwrap.dedent("""
    import json, pathlib, subprocess, sys, tempfile
    import numba.cuda.dispatcher as cdisp
    from tools import gpu_model as g
    from tools.gpu_line_profile import enable_line_information, sass_sites

    enable_line_information(unroll=sys.argv[3] == "unrolled")
    which = sys.argv[1]
    with g.offline_cuda():
        kernel, signature = g.kernel_signature(which)
        options = dict(kernel.targetoptions, lineinfo=True)
        library = cdisp._Kernel(kernel.py_func, signature, **options)._codelibrary
        log, cubin = g.link(library, ("-lineinfo",))
    with tempfile.TemporaryDirectory() as tmp:
        cubin_path = pathlib.Path(tmp) / "kernel.cubin"
        cubin_path.write_bytes(cubin)
        sass = subprocess.run([g.find_nvdisasm(), "-c", "-gi", str(cubin_path)],
                              capture_output=True, text=True, check=True).stdout
    row = g.analyse(g.KERNELS.get(which, which), cubin, log)
    json.dump({"kernel": which, "sass_total": row["sass"], "registers": row["registers"],
               "spill_store_bytes": row.get("spill_store_bytes"), **sass_sites(sass)},
              open(sys.argv[2], "w"))
""")


def line_sass(which: str, out_dir: pathlib.Path, unrolled: bool = False) -> dict:
    """SASS per source line of kernel `which` (gpu_model.KERNELS key), cached in `out_dir` per
    kernel source fingerprint (a compile takes minutes). `unrolled`: loops unrolled as in the
    kernels that run (the footprint), rather than one iteration's SASS (the estimate)."""
    from cule_py._jit_cache import FINGERPRINT

    form = "unrolled" if unrolled else "rolled"
    path = out_dir / f"sass-{which}-{form}-{FINGERPRINT[:12]}.json"
    if not path.exists():
        subprocess.run([sys.executable, "-c", SASS_CHILD, which, str(path), form],
                       env=child_env(), check=True)
    return json.loads(path.read_text())


@functools.lru_cache(maxsize=None)
def _function_bodies(path: str) -> dict:
    """{def line: range of its body's lines} of the functions in kernel source `path`."""
    import ast

    try:
        tree = ast.parse((KERNEL_DIR / path).read_text())
    except (OSError, SyntaxError):
        return {}
    return {node.lineno: range(node.body[0].lineno, node.end_lineno + 1)
            for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)}


def footprint(counts: dict, sass: dict) -> dict:
    """The kernel's hot code: per function, the SASS instructions of the inlined copies whose
    line and every call site ran at least once in the counted frames, against all of its SASS.
    A decorrelated warp's frames walk this code; the instruction caches hold a part of it
    (docs/performance-log.md, "The code's size"). The warp scheduler's loop (the simulator runs
    the free loop instead) counts as run. The line info names a function's `def` line as the
    outermost call site of some of what it inlined, and the tracer counts no run of a `def`
    line: it runs if a line of the function's body ran. Approximate where one source line
    compiles to a branch that did not run: the whole line is charged."""
    ran = {_relative(k) for k, c in counts["lines"].items() if c > 0}

    @functools.lru_cache(maxsize=None)
    def runs(key):
        name = _relative(key)
        if name in ran or name.startswith("gpu/warp_schedule.py:"):
            return True
        path, line = name.rsplit(":", 1)
        body = _function_bodies(path).get(int(line))
        return body is not None and any(f"{path}:{k}" in ran for k in body)
    hot: collections.Counter = collections.Counter()
    total: collections.Counter = collections.Counter()
    for function, where, chain, n in sass["sites"]:
        total[function] += n
        if where is not None and runs(where) and all(runs(c) for c in chain):
            hot[function] += n
    return {"hot": sum(hot.values()), "total": sum(total.values()),
            "functions": {f: {"hot": hot[f], "total": total[f]}
                          for f, _ in total.most_common()}}


def footprint_markdown(result: dict, counts: dict, sass: dict) -> str:
    out = [f"Hot code of {sass['kernel']} (loops unrolled as they run) in {counts['game']}'s "
           f"{counts['frames']} counted console-frames: **{result['hot']:,} of "
           f"{result['total']:,} SASS instructions** ({result['hot'] * 16 / 1024:,.0f} KiB of "
           f"{result['total'] * 16 / 1024:,.0f}).", "",
           "| function | hot SASS | all SASS |", "|---|---|---|"]
    for f, v in result["functions"].items():
        out.append(f"| {f} | {v['hot']:,} | {v['total']:,} |")
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------------------------
# The estimate
# ---------------------------------------------------------------------------------------------
def _relative(key: str) -> str:
    """`file:line` relative to cule_py/kernels, wherever the counted or compiled tree was."""
    path, line = key.rsplit(":", 1)
    marker = "/cule_py/kernels/"
    if marker in path:
        path = path.split(marker, 1)[1]
    return f"{path}:{line}"


def _scheduled_step_lines() -> set:
    """Line numbers of warp_schedule.py that run once a scheduled step: the console loop's
    (`while True:` in run) and those of the helpers it calls (schedule_key, planned_key,
    warp_minimum with its CUDA overload, whose REDUX the compile charges to the overload's
    line, and the butterfly), found from the source, so that what runs once a frame (the plan
    read before the loop) is not charged a step."""
    import ast

    tree = ast.parse((KERNEL_DIR / "gpu" / "warp_schedule.py").read_text())
    lines: set = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name in (
                "schedule_key", "planned_key", "warp_minimum", "_warp_minimum_cuda",
                "butterfly_minimum"):
            lines.update(range(node.body[0].lineno, node.end_lineno + 1))
        if isinstance(node, ast.While):
            lines.update(range(node.lineno, node.end_lineno + 1))
    return lines


def scheduled_step_sass(sass: dict) -> float:
    """SASS of the GPU's console loop a 6507 instruction (warp_schedule's loop: the key, the
    warp minimum, the loop's tests, its spill refills). The simulator runs bus.run_instructions'
    free loop instead, whose lines have no SASS in the GPU's kernels; the instruction count is
    the same, so each counted instruction is charged this. Lines run once a frame (before the
    loop) or only on the free schedule are left out. The loop's exit path (its spill refills
    after the last step) is charged a step too: the static count cannot tell it apart."""
    in_loop = _scheduled_step_lines()
    total = 0.0
    for key, info in sass["lines"].items():
        name = _relative(key)
        if not name.startswith("gpu/warp_schedule.py:"):
            continue
        if int(name.rsplit(":", 1)[1]) not in in_loop:
            continue
        text = source_text(name)
        if text.startswith(("if not running", "go = True", "break")):
            continue
        total += info["sass"] / max(info["copies"], 1)
    return total


def _instructions(counts: dict) -> float:
    """6507 instructions counted: runs of the free loop's cpu_step line."""
    return sum(c for k, c in counts["lines"].items()
               if _relative(k).startswith("frame_loop/bus.py:")
               and source_text(_relative(k)).startswith("pc, a, x, y, s, p, clk, jammed = cpu_step"))


def estimate(counts: dict, sass: dict) -> dict:
    """Per line: executions per console-frame, SASS per copy, estimated thread instructions per
    console-frame; and the totals by file."""
    frames = counts["frames"]
    static = {_relative(k): v for k, v in sass["lines"].items()}
    rows = []
    unmatched = 0.0
    for key, executions in counts["lines"].items():
        name = _relative(key)
        per_frame = executions / frames
        info = static.get(name)
        if info is None:
            unmatched += per_frame
            rows.append({"line": name, "per_frame": per_frame, "sass_per_copy": None,
                         "instructions": 0.0})
            continue
        per_copy = info["sass"] / max(info["copies"], 1)
        rows.append({"line": name, "per_frame": per_frame, "sass_per_copy": per_copy,
                     "instructions": per_frame * per_copy, "spill": info["spill"]})
    per_step = scheduled_step_sass(sass)
    steps = _instructions(counts) / frames
    rows.append({"line": "gpu/warp_schedule.py:loop", "per_frame": steps,
                 "sass_per_copy": per_step, "instructions": steps * per_step, "spill": 0})
    rows.sort(key=lambda r: -r["instructions"])
    by_file = collections.Counter()
    for r in rows:
        by_file[r["line"].rsplit(":", 1)[0]] += r["instructions"]
    total = sum(by_file.values())
    return {"total": total, "by_file": dict(by_file.most_common()), "rows": rows,
            "line_executions_without_sass": unmatched}


def source_text(name: str) -> str:
    path, line = name.rsplit(":", 1)
    try:
        return (KERNEL_DIR / path).read_text().splitlines()[int(line) - 1].strip()[:70]
    except (OSError, IndexError, ValueError):
        return ""


def markdown(result: dict, counts: dict, sass: dict, top: int = 40) -> str:
    out = [f"Game {counts['game']}, {counts['consoles']} consoles, {counts['steps']} agent steps "
           f"after {counts['warmup']} (v5), {counts['frames']} console-frames; kernel "
           f"{sass['kernel']} ({sass['sass_total']} SASS).",
           "",
           f"Estimated thread instructions per console-frame: **{result['total']:,.0f}**",
           "",
           "| file | instructions per console-frame | share |", "|---|---|---|"]
    for f, v in result["by_file"].items():
        out.append(f"| {f} | {v:,.0f} | {v / result['total']:.1%} |")
    out += ["", "| line | runs per console-frame | SASS per copy | instructions | share | source |",
            "|---|---|---|---|---|---|"]
    for r in result["rows"][:top]:
        per_copy = "-" if r["sass_per_copy"] is None else f"{r['sass_per_copy']:.1f}"
        out.append(f"| {r['line']} | {r['per_frame']:,.1f} | {per_copy} | "
                   f"{r['instructions']:,.0f} | {r['instructions'] / result['total']:.1%} | "
                   f"`{source_text(r['line'])}` |")
    return "\n".join(out) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="pong")
    parser.add_argument("--consoles", type=int, default=8)
    parser.add_argument("--warmup", type=int, default=100)
    parser.add_argument("--steps", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--kernel", default="step", help="gpu_model.KERNELS key for the SASS")
    parser.add_argument("--top", type=int, default=40)
    parser.add_argument("--out", type=pathlib.Path, required=True)
    parser.add_argument("--footprint", action="store_true",
                        help="also the kernel's hot code per function (a second compile, with "
                             "loops unrolled as they run)")
    parser.add_argument("--warp", action="store_true",
                        help="one raw frame of a warp of 32 (drive_cuda's SASS): identical "
                             "consoles against the scanline schedule; --warmup in frames")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    if args.warp:
        start = time.perf_counter()
        records = warp_records(args.game, args.warmup, args.seed, args.out)
        print(f"recorded in {time.perf_counter() - start:.0f} s", file=sys.stderr)
        sass = line_sass("drive", args.out)
        result = warp_cost(records, sass)
        result.update(game=args.game, warmup_frames=args.warmup, seed=args.seed)
        (args.out / f"warp-{args.game}.json").write_text(json.dumps(result, indent=1))
        print(json.dumps(result, indent=1))
        return 0
    from cule_py._jit_cache import FINGERPRINT

    # line numbers are only valid for the sources they were counted on
    counts_path = args.out / f"counts-{args.game}-{FINGERPRINT[:12]}.json"
    if counts_path.exists():
        counts = json.loads(counts_path.read_text())
    else:
        start = time.perf_counter()
        inputs = args.out / f"inputs-{args.game}-{args.consoles}x{args.warmup}-{args.seed}.pkl"
        counts = line_counts(args.game, args.consoles, args.warmup, args.steps, args.seed,
                             inputs)
        counts_path.write_text(json.dumps(counts))
        print(f"counted in {time.perf_counter() - start:.0f} s", file=sys.stderr)
    sass = line_sass(args.kernel, args.out)
    result = estimate(counts, sass)
    text = markdown(result, counts, sass, args.top)
    if counts.get("observe_lines"):
        # the observation's own launch (agent_observe_cuda, one thread a console and band)
        observe_sass = line_sass("observe", args.out)
        observe_counts = dict(counts, lines=counts["observe_lines"])
        observed = estimate(observe_counts, observe_sass)
        text = (f"Step kernel {result['total']:,.0f} + observation kernel "
                f"{observed['total']:,.0f} = **{result['total'] + observed['total']:,.0f}** "
                f"estimated thread instructions per console-frame ({counts['bands']} bands).\n\n"
                f"## {sass['kernel']}\n\n{text}\n## observe\n\n"
                + markdown(observed, observe_counts, observe_sass, args.top // 2))
    if args.footprint:
        unrolled = line_sass(args.kernel, args.out, unrolled=True)
        text += "\n## footprint\n\n" + footprint_markdown(footprint(counts, unrolled), counts,
                                                            unrolled)
    (args.out / f"profile-{args.game}.md").write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
