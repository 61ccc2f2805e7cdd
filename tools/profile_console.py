"""Where the CPU console's time goes, per compiled function and per machine instruction.

numba's JIT code is invisible to perf: no symbols, and a kernel loaded from the on-disk cache
keeps no object file. This tool records the cached object code as numba loads it, works out
where the JIT placed it, and attributes perf's samples to its functions and instructions.

    perf record -e cpu-clock -F 4000 -o /tmp/cule.perf \\
        python -m tools.profile_console run pong --frames 3000 --out /tmp/cule-prof
    python -m tools.profile_console report --perf /tmp/cule.perf --out /tmp/cule-prof
    python -m tools.profile_console report ... --function update_frame --threshold 50

`run` plays `--consoles` consoles of GAME on one numba thread with random actions (sticky 0.25),
`--no-pixels` sets the TIA's skip-draw flag (collisions only), `--agent` plays agent steps of
AtariVectorEnv instead (v5 settings: the console and the observation together). `report` prints each function's
share of all samples; with `--function` the disassembly (objdump, Intel syntax) of the hot
spots of the first function whose symbol contains that text.

Timings on a shared VM move by 1.5x between runs of the same build; instruction counts do not.

    python -m tools.profile_console count pong --frames 200 --consoles 4

runs `run` under valgrind's callgrind and prints the x86 instructions each kernel function
executed per console-frame: the same build and workload give the same counts to a fraction of a
percent, so two builds compare exactly (instructions, not time: use tools/ab_builds.py for
that). Valgrind does not execute AVX-512, so `count` compiles the kernels for Haswell (AVX2) into
their own cache (`--cache-dir`), once per build; `--function` lists that function's instructions
executed more than `--threshold` times per frame.
"""

from __future__ import annotations

import argparse
import bisect
import collections
import json
import os
import re
import subprocess
import sys
import tempfile
import time


def _record_objects():
    """Keep the object code of every library numba loads from its cache, by library name."""
    from numba.core import codegen

    objects = {}
    original = codegen.CPUCodeLibrary._unserialize.__func__

    def unserialize(cls, codegen_, state):
        library = original(cls, codegen_, state)
        if state[1] == "object":
            objects[state[0]] = state[2][0]
        return library

    codegen.CPUCodeLibrary._unserialize = classmethod(unserialize)
    return objects


def _text_symbols(path):
    """(offset, size, name) of the defined functions of an object file (numba puts code in
    .ltext, the large code model's text section)."""
    out = subprocess.run(["objdump", "-t", path], capture_output=True, text=True, check=True).stdout
    symbols = []
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 6 and parts[-3] in (".text", ".ltext") and int(parts[-2], 16) > 0:
            symbols.append((int(parts[0], 16), int(parts[-2], 16), parts[-1]))
    return sorted(symbols)


ACT_FRAMES = 50      # frames per act() call of `run`'s timed loop
AGENT_FRAMES = 4     # frames per agent step of `run --agent` (steady_state.AGENT_SETTINGS)


def _frames_played(requested, agent=False):
    """The timed frames `run` plays per console for --frames `requested` (whole act() calls or
    agent steps)."""
    unit = AGENT_FRAMES if agent else ACT_FRAMES
    return -(-requested // unit) * unit


def _placed_functions(out):
    """[(start, end, symbol, object path, offset in object)] of the kernels' code as `run`
    recorded it (sorted by address), and the start addresses for bisection."""
    with open(os.path.join(out, "objects.json")) as f:
        placed = json.load(f)
    functions = []
    for entry in placed:
        for offset, size, name in _text_symbols(entry["object"]):
            start = entry["base"] + offset
            functions.append((start, start + size, name, entry["object"], offset))
    functions.sort()
    return functions, [f[0] for f in functions]


def _function_of(functions, starts, address):
    i = bisect.bisect_right(starts, address) - 1
    return i if i >= 0 and address < functions[i][1] else None


def _disassembly(functions, text):
    """The first function whose symbol contains `text`, and its instructions as
    [(address at run time, offset in object, instruction text)]."""
    index = next((i for i, f in enumerate(functions) if text in f[2]), None)
    if index is None:
        sys.exit(f"no function matching {text!r}")
    start, end, _, path, offset = functions[index]
    listing = subprocess.run(["objdump", "-d", "--no-show-raw-insn", "-M", "intel",
                              f"--start-address={offset}", f"--stop-address={offset + end - start}",
                              path], capture_output=True, text=True, check=True).stdout
    rows = []
    for line in listing.splitlines():
        m = re.match(r"\s*([0-9a-f]+):\s+(.*)", line)
        if m:
            at = int(m.group(1), 16)
            rows.append((start + at - offset, at, m.group(2)[:100]))
    return functions[index], rows


def run(args):
    objects = _record_objects()
    import numba
    import numpy as np

    numba.set_num_threads(1)
    from cule_py.batch import ConsoleBatch
    from cule_py.kernels import layout as L
    from cule_py.roms import load_rom

    rng = np.random.default_rng(0)
    if args.agent:
        from cule_py import steady_state

        env = steady_state.make_cule_env(args.game, args.consoles, threads=1)
        env.reset(seed=0)
        actions = env.single_action_space.n
        env.step(rng.integers(0, actions, args.consoles))             # loads the kernels
        engine = numba.core.registry.cpu_target.target_context.codegen()._engine
    else:
        batch = ConsoleBatch(load_rom(args.game), args.consoles, env_seed=np.arange(args.consoles),
                             repeat_action_probability=0.25)
        if args.no_pixels:
            batch.state[:, L.TIA_SKIP_DRAW] = 1
        batch.act(np.zeros(args.consoles, np.int64), frames=10)      # loads the kernel
        engine = numba.core.registry.cpu_target.target_context.codegen()._engine
    os.makedirs(args.out, exist_ok=True)
    placed = []
    for k, (name, blob) in enumerate(objects.items()):
        path = os.path.join(args.out, f"object{k}.o")
        with open(path, "wb") as f:
            f.write(blob)
        for offset, _, symbol in _text_symbols(path):
            try:
                address = engine.get_function_address(symbol)
            except Exception:
                continue
            if address:
                placed.append({"object": path, "base": address - offset, "library": name})
                break
    with open(os.path.join(args.out, "objects.json"), "w") as f:
        json.dump(placed, f)
    start, frames = time.perf_counter(), 0
    while frames < args.frames:
        if args.agent:
            env.step(rng.integers(0, actions, args.consoles))
            frames += AGENT_FRAMES
        else:
            batch.act(rng.integers(0, 18, args.consoles), frames=ACT_FRAMES)
            frames += ACT_FRAMES
    elapsed = time.perf_counter() - start
    what = ("agent steps" if args.agent else "no pixels" if args.no_pixels else "pixels")
    print(f"{args.game}: {args.consoles * frames / elapsed:.0f} frames/s on one thread "
          f"({what}); objects in {args.out}")


def report(args):
    functions, starts = _placed_functions(args.out)
    script = subprocess.run(["perf", "script", "-i", args.perf, "-F", "ip"], capture_output=True,
                            text=True, check=True).stdout.split()
    total = len(script)
    per_function = collections.Counter()
    per_address = collections.Counter()
    for word in script:
        ip = int(word, 16)
        i = _function_of(functions, starts, ip)
        if i is not None:
            per_function[i] += 1
            per_address[ip] += 1
    print(f"{total} samples; {sum(per_function.values())} in the kernels' code")
    for i, count in per_function.most_common(15):
        print(f"{100 * count / total:6.2f}%  {_readable(functions[i][2])}")
    if not args.function:
        return
    rows = [(at, text, per_address.get(address, 0))
            for address, at, text in _disassembly(functions, args.function)[1]]
    shown = set()
    for i, (_, _, count) in enumerate(rows):
        if count >= args.threshold:
            shown.update(range(max(0, i - args.context), min(len(rows), i + 2)))
    previous = -2
    for i in sorted(shown):
        if i != previous + 1:
            print("   ...")
        at, text, count = rows[i]
        print(f"{count:7d} {at:7x}: {text}")
        previous = i


# Valgrind 3.19 runs AVX2 but not AVX-512; numba's cache key includes the CPU name and features,
# so both runs below (the native warm-up and the one under valgrind) must name the same ones.
HASWELL_FEATURES = ("+64bit,+avx,+avx2,+bmi,+bmi2,+cmov,+cx16,+f16c,+fma,+lzcnt,+mmx,+movbe,"
                    "+popcnt,+sse,+sse2,+sse3,+sse4.1,+sse4.2,+ssse3")


def _callgrind_self_costs(path):
    """{instruction address: Ir} from a callgrind file written with --dump-instr=yes."""
    costs = collections.Counter()
    position = 0
    inclusive_line = False
    with open(path) as f:
        for line in f:
            if line.startswith("calls="):
                inclusive_line = True        # the next cost line is the call's inclusive cost
                continue
            if not line or line[0] not in "0123456789+-*":
                continue
            parts = line.split()
            token = parts[0]
            if token.startswith("0x"):
                position = int(token, 16)
            elif token[0] in "+-":
                step = int(token[1:], 16) if token[1:].startswith("0x") else int(token[1:])
                position += step if token[0] == "+" else -step
            elif token != "*":
                position = int(token)
            if inclusive_line:
                inclusive_line = False
                continue
            if len(parts) > 2:              # positions are "instr line", then the Ir
                costs[position] += int(parts[2])
    return costs


def _readable(symbol):
    """`_ZN7cule_py7kernels10frame_loop3bus12device_writeB4v282B...` ->
    `cule_py.kernels.frame_loop.bus.device_write`."""
    body = re.sub(r"B[0-9]+v[0-9]+B.*", "", symbol)
    if not body.startswith("_ZN"):
        return body
    parts, rest = [], body[3:]
    while rest and rest[0].isdigit():
        digits = re.match(r"[0-9]+", rest).group()
        parts.append(rest[len(digits):len(digits) + int(digits)])
        rest = rest[len(digits) + int(digits):]
    return ".".join(parts) or body


def count(args):
    if args.out is None:    # a folder of its own: two counts side by side must not share one
        args.out = tempfile.mkdtemp(prefix="cule-count-")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))   # this checkout
    env = dict(os.environ, NUMBA_CPU_NAME="haswell", NUMBA_CPU_FEATURES=HASWELL_FEATURES,
               CULE_PY_CACHE_DIR=args.cache_dir, PYTHONHASHSEED="0",
               PYTHONPATH=os.pathsep.join([root] + [p for p in [os.environ.get("PYTHONPATH")] if p]))
    me = [sys.executable, "-m", "tools.profile_console", "run", args.game, "--consoles",
          str(args.consoles), "--out", args.out]
    if args.no_pixels:
        me.append("--no-pixels")
    if args.agent:
        me.append("--agent")
    subprocess.run(me + ["--frames", "0"], env=env, check=True, stdout=subprocess.DEVNULL)
    # Building the consoles (loadROM's frames) and `run`'s warm-up are in every trace; the same
    # run with no timed frames, subtracted, leaves exactly the timed frames (the workload is
    # seeded, so the two runs play the same frames up to where the shorter one stops).
    traces = {}
    for frames in (0, args.frames):
        trace = os.path.join(args.out, f"callgrind.{frames}.out")
        subprocess.run(["valgrind", "--tool=callgrind", "--dump-instr=yes",
                        f"--callgrind-out-file={trace}"] + me + ["--frames", str(frames)],
                       env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        traces[frames] = (_callgrind_self_costs(trace), _placed_functions(args.out))
    # JIT code lands at other addresses in each process: difference per function and per offset.
    per_function = collections.Counter()
    per_offset = collections.Counter()
    for frames, sign in ((args.frames, 1), (0, -1)):
        costs, (functions, starts) = traces[frames]
        for address, ir in costs.items():
            i = _function_of(functions, starts, address)
            if i is not None:
                per_function[functions[i][2]] += sign * ir
                per_offset[(functions[i][2], address - functions[i][0])] += sign * ir
    frames = args.consoles * _frames_played(args.frames, args.agent)
    print(f"{args.game}: x86 instructions per console-frame ({args.consoles} consoles x "
          f"{_frames_played(args.frames, args.agent)} frames"
          f"{' in agent steps' if args.agent else ''}, construction and warm-up subtracted, "
          "Haswell build)")
    for name, ir in per_function.most_common(args.top):
        print(f"{ir / frames:12,.0f}  {_readable(name)}")
    print(f"{sum(per_function.values()) / frames:12,.0f}  all kernel functions")
    if args.function:
        (start, _, symbol, _, _), rows = _disassembly(traces[args.frames][1][0], args.function)
        for address, at, text in rows:
            per_frame = per_offset.get((symbol, address - start), 0) / frames
            if per_frame >= args.threshold:
                print(f"{per_frame:9.1f} {at:x}: {text}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)

    def workload(p, frames, consoles, out):
        p.add_argument("game")
        p.add_argument("--frames", type=int, default=frames, help="frames per console")
        p.add_argument("--consoles", type=int, default=consoles)
        p.add_argument("--no-pixels", action="store_true")
        p.add_argument("--agent", action="store_true",
                       help="AtariVectorEnv's agent steps (steady_state.AGENT_SETTINGS)")
        p.add_argument("--out", default=out)

    workload(sub.add_parser("run", help="play a game; run this under perf record"),
             3000, 16, "/tmp/cule-prof")
    p = sub.add_parser("count", help="instructions per frame and function, under callgrind")
    workload(p, 200, 4, None)
    p.add_argument("--cache-dir", default="/tmp/cule-count-cache")
    p.add_argument("--top", type=int, default=6, help="functions listed")
    p.add_argument("--function", help="list the instructions of this function")
    p.add_argument("--threshold", type=float, default=100.0, help="executions per frame")
    p = sub.add_parser("report", help="attribute perf's samples")
    p.add_argument("--perf", default="perf.data")
    p.add_argument("--out", default="/tmp/cule-prof")
    p.add_argument("--function", help="show the hot instructions of this function")
    p.add_argument("--threshold", type=int, default=30, help="samples for a hot instruction")
    p.add_argument("--context", type=int, default=3, help="instructions shown before one")
    args = parser.parse_args()
    if args.command == "run":
        run(args)
    elif args.command == "count":
        count(args)
    else:
        report(args)


if __name__ == "__main__":
    main()
