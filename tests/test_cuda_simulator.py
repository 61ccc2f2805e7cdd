"""flat6502.run(device="cuda") under the CUDA simulator gives what device="cpu" gives.

The simulator has to be chosen before numba is imported, so the CUDA side runs in a child Python
(NUMBA_ENABLE_CUDASIM=1, CULE_PY_NO_CACHE=1) and the CPU side here; memory, registers, cycles
and halted flags must agree exactly. This exercises the CUDA entry points, the launch and the
host/device copies of flat6502 on a GPU-less machine; test_cuda_compile.py checks that the same
kernels compile for a real GPU. The simulator runs ~10 us per emulated instruction per machine,
so the cases are small: an assembled program on 4 machines and random code on 8 more. The
console kernel, the agent step kernel, the agent reset kernel (its table: the start lookup,
tails by origin, the GPU's atomic claims) and the direct tails' fill are checked the same way
at the end of the file.
"""

from __future__ import annotations

import os
import pathlib
import pickle
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import cule_py
import cule_py.flat6502 as flat
from cule_py._threads import run_on_threads
from cule_py.asm6502 import assemble
from cule_py.testing import SIMULATOR_WAITS
from cule_py.kernels.cpu import opcodes as oc

# The simulator interprets every instruction in Python, in child processes: minutes.
pytestmark = [pytest.mark.cuda, pytest.mark.slow]

PROGRAM = """
        .org $0400
start:  LDX #$02
        LDY #$00
        SED
loop:   LDA $10,X
        ADC #$19
        STA $0300,Y
        SBC $20
        STA ($30),Y
        PHA
        ASL $40
        ROR $0340,X
        PLA
        BIT $21
        INY
        DEX
        BNE loop
        CLD
        JSR sub
        LAX $12
        DCP $41
        ISC ($32,X)
        SLO $0350,Y
        ARR #$C3
        SBX #$11
        PHP
        PLP
        JMP (vector)
sub:    INC $50
        CMP #$80
        BCC skip
        ROL A
skip:   RTS
done:   CLC
        LDA #$01
back:   ADC #$37
        BVC back
        .byte $02
vector: .word done
"""
PROGRAM_MACHINES = 4
RANDOM_MACHINES = 8
STEPS = (30, 30)     # two calls, the second continuing from the first (halted flags carried)

CHILD = textwrap.dedent("""
    import sys
    import numpy as np
    import cule_py.flat6502 as flat
    from numba import cuda

    assert cuda.is_available() and cuda.to_device.__module__.startswith("numba.cuda.simulator")
    data = dict(np.load(sys.argv[1]))
    out = {}
    for model in ("nmos", "ale"):
        memory = data["memory"].copy()
        registers = data["registers"].copy()
        halted = data["halted"].copy()
        cycles = [flat.run(memory, registers, n, model=model, device="cuda", halted=halted)
                  for n in data["steps"]]
        out.update({f"{model}_memory": memory, f"{model}_registers": registers,
                    f"{model}_halted": halted, f"{model}_cycles": np.stack(cycles)})
    np.savez(sys.argv[2], **out)
""")


def _run_simulated(child: str, inputs, outputs, timeout: int = 900) -> str:
    """Run `child` (Python source) with NUMBA_ENABLE_CUDASIM=1 on the file `inputs`, writing
    `outputs`; returns its stdout."""
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1", CULE_PY_NO_CACHE="1")
    source_root = str(pathlib.Path(cule_py.__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (source_root, env.get("PYTHONPATH")) if p)
    proc = subprocess.run([sys.executable, "-c", SIMULATOR_WAITS + child, str(inputs),
                           str(outputs)], env=env,
                          capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, f"simulator run failed:\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout.strip()


def _save_args(path, args) -> None:
    """A kernel's arguments (numpy arrays, scalars, kernels/structs namedtuples) for a child."""
    with open(path, "wb") as f:
        pickle.dump(args, f)


def _load_args(path):
    with open(path, "rb") as f:
        return pickle.load(f)


def _arrays(value, path="args"):
    """(where, array) for every array in a kernel's arguments, by position and field name."""
    if isinstance(value, tuple):
        names = getattr(value, "_fields", None) or range(len(value))
        for name, item in zip(names, value):
            yield from _arrays(item, f"{path}.{name}" if isinstance(name, str) else
                               f"{path}[{name}]")
    elif isinstance(value, np.ndarray):
        yield path, value


def _assert_same_arrays(simulated, ours) -> None:
    """Every array of the simulated kernel's arguments equals the CPU kernel's."""
    pairs = list(zip(_arrays(simulated), _arrays(ours)))
    assert pairs and all(a == b for (a, _), (b, _) in pairs)
    for (where, sim), (_, cpu) in pairs:
        np.testing.assert_array_equal(sim, cpu, err_msg=where)


# In a child: the GPU's layout of a Console and a Screen (the state rows and the observation's
# work rows in tiles), and back.
TILING = textwrap.dedent("""
    import pickle
    from cule_py.kernels.gpu.state_tiles import from_tiles, to_tiles

    def load(path):
        with open(path, "rb") as f:
            return pickle.load(f)

    def save(path, args):
        with open(path, "wb") as f:
            pickle.dump(args, f)

    # The CPU env's x table (by layer) as the GPU kernels read it (by destination).
    def gpu_x_table(screen):
        from cule_py.area_resize import destination_major_table
        xd, xs, xa = destination_major_table(screen.xd, screen.xs, screen.xa)
        return screen._replace(xd=xd, xs=xs, xa=xa)

    def tiled(struct, fields, n, convert):
        return struct._replace(**{name: convert(getattr(struct, name)) if n is None else
                                  convert(getattr(struct, name), n) for name in fields})
""")


def _initial_state():
    rng = np.random.default_rng(20261122)
    machines = PROGRAM_MACHINES + RANDOM_MACHINES
    memory = np.zeros((machines, 65536), np.uint8)
    registers = np.zeros((machines, 6), np.int32)
    code = assemble(PROGRAM)
    addresses = np.fromiter(code.keys(), np.int64)
    values = np.fromiter(code.values(), np.int64).astype(np.uint8)
    for m in range(PROGRAM_MACHINES):
        memory[m, :0x100] = rng.integers(0, 256, 0x100)     # operands, pointers, flags to test
        memory[m, 0x30] &= 0x7F                               # ($30),Y stays in page 3
        memory[m, 0x31] = 0x03
        memory[m, 0x33] = 0x03
        memory[m, addresses] = values
        registers[m] = [0x400, 0xFF, rng.integers(256), 0, 0, 0x20 | rng.integers(2)]
    jams = np.isin(np.arange(256), oc.JAM_OPCODES)
    for m in range(PROGRAM_MACHINES, machines):               # random code, illegal opcodes too
        memory[m] = rng.integers(0, 256, 65536)
        if m > PROGRAM_MACHINES:                               # JAMs only on the first of them
            memory[m][jams[memory[m]]] = 0xEA
        registers[m] = [rng.integers(65536), *rng.integers(0, 256, 4), rng.integers(256) | 0x20]
    halted = np.zeros(machines, np.bool_)
    halted[-1] = True                                          # a machine halted on entry
    return memory, registers, halted


@pytest.fixture(scope="module")
def simulator_results(tmp_path_factory):
    memory, registers, halted = _initial_state()
    tmp = tmp_path_factory.mktemp("cudasim")
    np.savez(tmp / "in.npz", memory=memory, registers=registers, halted=halted,
             steps=np.array(STEPS))
    _run_simulated(CHILD, tmp / "in.npz", tmp / "out.npz", timeout=600)
    return (memory, registers, halted), dict(np.load(tmp / "out.npz"))


@pytest.mark.parametrize("model", ["nmos", "ale"])
def test_simulated_cuda_matches_cpu(model, simulator_results):
    (memory, registers, halted), sim = simulator_results
    memory, registers, halted = memory.copy(), registers.copy(), halted.copy()
    cycles = np.stack([flat.run(memory, registers, n, model=model, device="cpu", halted=halted)
                       for n in STEPS])
    # The cases do something: the program ran to its JAM, random code ran on.
    assert halted[:PROGRAM_MACHINES].all() and not halted[PROGRAM_MACHINES + 1:-1].any()
    assert (cycles.sum(axis=0)[PROGRAM_MACHINES + 1:-1] >= 60 * 2).all()
    np.testing.assert_array_equal(sim[f"{model}_registers"], registers)
    np.testing.assert_array_equal(sim[f"{model}_cycles"], cycles)
    np.testing.assert_array_equal(sim[f"{model}_halted"], halted)
    differ = np.nonzero((sim[f"{model}_memory"] != memory).any(axis=1))[0]
    assert differ.size == 0, f"memory differs on machines {differ.tolist()}"


# ---- the console kernel -----------------------------------------------------------------------
# A 4K game from ale-py's ROMs, two consoles that the CPU backend brought through loadROM and a few
# frames of different actions; then CONSOLE_FRAMES frames under the simulated CUDA kernel (state
# in tiles of 32 consoles, RAM field-major, as the GPU backend allocates them) against the same
# frames on the CPU.
CONSOLE_GAME = "space_invaders"
CONSOLE_FRAMES = 3

CONSOLE_CHILD = textwrap.dedent("""
    import sys, time
    import numpy as np
    from numba import cuda
    from cule_py.kernels.frame_loop import console as K
    from cule_py.kernels.gpu.state_tiles import from_tiles, to_tiles

    assert cuda.is_available() and cuda.to_device.__module__.startswith("numba.cuda.simulator")
    d = dict(np.load(sys.argv[1]))
    tiles = to_tiles(d["st"])                               # the GPU's state layout
    ram = np.ascontiguousarray(d["ram"].T).T                # field-major memory, [env, byte] view
    fb = d["fb"].copy()
    n = ram.shape[0]
    start = time.perf_counter()
    K.run_frames_cuda[1, 32](d["rom"], int(d["scheme"]), ram, tiles, fb, int(d["frames"]),
                             np.ones(n, np.bool_))
    print(f"simulated {int(d['frames'])} frames x {n} consoles in {time.perf_counter() - start:.1f} s")
    np.savez(sys.argv[2], st=from_tiles(tiles, n), ram=np.ascontiguousarray(ram), fb=fb)
""")


def test_simulated_console_kernel_matches_cpu(tmp_path):
    from cule_py.batch import ConsoleBatch
    from cule_py.kernels.ale import environment as env_kernel

    consoles = ConsoleBatch(CONSOLE_GAME, 2)
    actions = [int(a) for a in consoles.game.minimal_actions]
    for frame in range(6):
        consoles.act(np.array([actions[frame % len(actions)], actions[-1 - frame % len(actions)]]))
    rom, scheme = consoles.rom_bytes, consoles.scheme
    ram, st, fb = consoles.ram.copy(), consoles.state.copy(), consoles.frame_buffers.copy()
    np.savez(tmp_path / "in.npz", rom=rom, scheme=scheme, ram=ram, st=st, fb=fb,
             frames=CONSOLE_FRAMES)
    print(_run_simulated(CONSOLE_CHILD, tmp_path / "in.npz", tmp_path / "out.npz"))
    sim = dict(np.load(tmp_path / "out.npz"))
    # The CPU side: the same frames through the environment kernel (its OP_FRAMES runs the
    # frames with the inputs as they are, as run_frames_cuda does).
    consoles._drive(env_kernel.OP_FRAMES, consoles._all, consoles.difficulty,
                    frames=CONSOLE_FRAMES)
    ram, st, fb = consoles.ram, consoles.state, consoles.frame_buffers
    assert not np.array_equal(ram[0], ram[1])           # the two consoles differ: a real batch
    np.testing.assert_array_equal(sim["st"], st)
    np.testing.assert_array_equal(sim["ram"], ram)
    np.testing.assert_array_equal(sim["fb"], fb)


# ---- the agent step kernel ----------------------------------------------------------------------
# Two consoles of an AtariVectorEnv that the CPU backend reset and stepped; then AGENT_STEPS steps
# of agent_step_cuda and agent_observe_cuda under the simulator (frameskip 4 with lazy drawing:
# undrawn frames, the snapshot, grabs; the observation in the GPU's bands: max-pool, resize,
# stack) against the same steps of agent_step_cpu and agent_observe_cpu. Every array the kernels
# receive must come out identical.
AGENT_STEPS = 2

AGENT_CHILD = TILING + textwrap.dedent("""
    import sys, time
    from numba import cuda
    from cule_py.kernels.agent import agent_step as K

    assert cuda.is_available() and cuda.to_device.__module__.startswith("numba.cuda.simulator")
    args, steps, bands = load(sys.argv[1])
    console, agent, cfg, action_rows, actions, screen, outputs, saved, mask = args
    n = console.ram.shape[0]
    console = tiled(console, ["st"], None, to_tiles)
    screen = tiled(screen, ["raw", "scratch"], None, to_tiles)
    cpu_x_table = screen.xd, screen.xs, screen.xa
    screen = gpu_x_table(screen)
    args = (console, agent, cfg, action_rows, actions, screen, outputs, saved, mask)
    start = time.perf_counter()
    for _ in range(steps):
        K.agent_step_cuda[1, 32](*args)
        # lane = band * n + console
        K.agent_observe_cuda[bands, n](console.ram, console.fb, screen, cfg, agent, mask)
    print(f"simulated {steps} agent steps x {n} consoles in "
          f"{time.perf_counter() - start:.1f} s")
    console = tiled(console, ["st"], n, from_tiles)
    screen = tiled(screen, ["raw", "scratch"], n, from_tiles)
    screen = screen._replace(xd=cpu_x_table[0], xs=cpu_x_table[1], xa=cpu_x_table[2])
    save(sys.argv[2], (console, agent, cfg, action_rows, actions, screen, outputs, saved, mask))
""")


def test_simulated_agent_step_kernels_match_cpu(tmp_path):
    from cule_py.kernels.agent import agent_step as K
    from cule_py.vector import OBSERVATION_BANDS_GPU, AtariVectorEnv

    env = AtariVectorEnv("breakout", 2, repeat_action_probability=0.25, seed=4,
                         observation_bands=OBSERVATION_BANDS_GPU)
    env.reset(seed=4)
    for t in range(5):
        env.step(np.array([t % 4, 3 - t % 4]))
    env._actions[:] = [1, 2]
    args = env._step_args(env._all)
    observe_args = env._observe_args(env._all)
    _save_args(tmp_path / "in.pkl", (args, AGENT_STEPS, OBSERVATION_BANDS_GPU))
    print(_run_simulated(AGENT_CHILD, tmp_path / "in.pkl", tmp_path / "out.pkl"))
    sim = _load_args(tmp_path / "out.pkl")
    before = env._batch.frame_buffers.copy()
    obs_before = env._obs.copy()
    for _ in range(AGENT_STEPS):
        run_on_threads(1, K.agent_step_cpu, args)
        K.agent_observe_cpu(*observe_args)
    assert (env._batch.frame_buffers != before).any()     # the steps drew something
    assert (env._obs != obs_before).any()                 # and observed it
    assert env._saved.st.any()                            # the lazy path (snapshot) ran
    _assert_same_arrays(sim, args)


# ---- the agent reset kernel and its table -----------------------------------------------------
# agent_reset_cuda under the simulator against agent_reset_cpu on the same arguments: two
# consoles of a Breakout AtariVectorEnv whose reset table the CPU filled first (start entries
# holding reset_game's finish, tail entries), so the reset takes the GPU's own code: the start
# lookup, the tail found by its origin, and where the tail misses, the GPU's claim by atomic add
# (the CPU claims by its named writer only). With the tail emptied, every console misses it and
# claims: the entries the simulated GPU wrote must then serve a CPU env exactly.
RESET_CHILD = TILING + textwrap.dedent("""
    import sys, time
    import numpy as np
    from numba import cuda
    from cule_py.kernels.agent import agent_step as K

    assert cuda.is_available() and cuda.to_device.__module__.startswith("numba.cuda.simulator")
    op, console, tables, noop_mt, agent, cfg, screen, outputs, table, mask = load(sys.argv[1])
    n = console.ram.shape[0]
    console = tiled(console, ["st"], None, to_tiles)
    screen = tiled(screen, ["raw", "scratch"], None, to_tiles)
    cpu_x_table = screen.xd, screen.xs, screen.xa
    screen = gpu_x_table(screen)
    # args are agent_reset_cpu's: the GPU packs the mask's consoles into lanes first
    lanes, count = np.full(n, -1, np.int32), np.zeros(1, np.int32)
    K.resetting_lanes_cuda[1, 32](op, agent, mask, lanes, count)
    assert sorted(lanes[:count[0]]) == np.nonzero(mask)[0].tolist(), (lanes, mask)
    start = time.perf_counter()
    K.agent_reset_cuda[1, 32](op, console, tables, noop_mt, agent, cfg, screen, outputs, table,
                              lanes, count)
    print(f"simulated one reset of {n} consoles in {time.perf_counter() - start:.1f} s")
    console = tiled(console, ["st"], n, from_tiles)
    screen = tiled(screen, ["raw", "scratch"], n, from_tiles)
    screen = screen._replace(xd=cpu_x_table[0], xs=cpu_x_table[1], xa=cpu_x_table[2])
    save(sys.argv[2], (op, console, tables, noop_mt, agent, cfg, screen, outputs, table, mask))
""")


def _reset_env(noop_max: int = 2, **table):
    """`table`: empty_table's direct-region options (direct_origins=0: no direct tails, so that
    the tail region fills)."""
    from cule_py.kernels import layout as L
    from cule_py.kernels.ale import reset_snapshot as RS
    from cule_py.vector import AtariVectorEnv

    env = AtariVectorEnv("breakout", 2, repeat_action_probability=0.25, noop_max=noop_max,
                         seed=4)
    if table:
        b = env._batch
        env._reset_table = RS.empty_table(b.state.shape[1], b.memory.shape[1],
                                          b.logic.shape[1], np.int32, L.FRAME_BUFFER_SHAPE,
                                          **table)
    env.reset(seed=4)
    for _ in range(24):                 # each launch lets the CPU's writer add what it misses
        env.reset()
    return env


@pytest.mark.parametrize("tail", ["warm", "emptied"])
def test_simulated_agent_reset_kernel_matches_cpu(tmp_path, tail):
    """warm: the tails from the direct region; emptied: a table with no direct region and its
    tail region emptied, so that every console misses the tail and claims an entry."""
    from cule_py.kernels.agent import agent_step as K
    from cule_py.kernels import layout as L
    from cule_py.kernels.ale import reset_snapshot as RS
    from cule_py.testing import machine_difference

    env = _reset_env() if tail == "warm" else _reset_env(direct_origins=0)
    table = env._reset_table[-1]
    assert table[RS.TABLE_FILLED] >= 1
    if tail == "emptied":
        assert table[RS.TABLE_TAIL_FILLED] >= 1
        base = int(table[RS.TABLE_TAIL_BASE])
        table[RS.TABLE_TAIL_FILLED] = 0
        capacity = int(RS._tail_capacity(table))
        table[RS.TABLE_FIELDS:RS.TABLE_FIELDS + RS.TAIL_META * capacity] = 0
        for rows in env._reset_table[:4]:
            rows[2 * base:] = 0
    mask = np.ones(2, np.bool_)
    RS.open_launch(env._reset_table, mask,
                   env._batch.state[:, L.SYSTEM_RNG_POSITION], np)
    args = env._reset_args(K.OP_RESET, mask)
    _save_args(tmp_path / "in.pkl", args)
    print(_run_simulated(RESET_CHILD, tmp_path / "in.pkl", tmp_path / "out.pkl"))
    sim = _load_args(tmp_path / "out.pkl")
    before = env._agent.copy()
    run_on_threads(1, K.agent_reset_cpu, args)
    table_at = len(args) - 2                  # (the reset table: the simulator's own claims)
    _assert_same_arrays(sim[:table_at], args[:table_at])
    agent = env._agent                       # (equal to the simulated kernel's, checked above)
    assert (agent[:, K.A_TABLE_RESETS] > before[:, K.A_TABLE_RESETS]).all()
    if tail == "warm":
        assert (agent[:, K.A_TAIL_DIRECT] > before[:, K.A_TAIL_DIRECT]).all(), \
            "a console did not take its tail from the direct region"
        return
    # Both consoles missed the tail: the simulated GPU claimed entries by atomic add. A CPU env
    # whose tail holds only those entries (no room for its own writer) must reset exactly as one
    # without a table, and take its tails from them.
    t_st, t_ram, t_logic, t_fb, sim_table = sim[table_at]
    claimed = int(sim_table[RS.TABLE_TAIL_FILLED])
    assert claimed >= 1, "the simulated GPU claimed no tail entry"
    ours, plain = _reset_env(), _reset_env()
    b = ours._batch
    start = int(sim_table[RS.TABLE_TAIL_BASE])
    small = RS.empty_table(b.state.shape[1], b.memory.shape[1], b.logic.shape[1], np.int32,
                           L.FRAME_BUFFER_SHAPE, entries=start, tail_entries=claimed,
                           direct_origins=0)    # (or the CPU's direct tails would serve them)
    for mine, theirs in zip(small[:4], (t_st, t_ram, t_logic, t_fb)):
        mine[...] = theirs[:2 * (start + claimed)]
    fields = RS.TABLE_DIRECT_BASE                 # the counters before the direct region's
    small[4][:fields] = sim_table[:fields]
    small[4][RS.TABLE_FIELDS:RS.TABLE_FIELDS + RS.TAIL_META * claimed] = \
        sim_table[RS.TABLE_FIELDS:RS.TABLE_FIELDS + RS.TAIL_META * claimed]
    for e in range(start):                   # the start entries' flags, after the tail's metadata
        small[4][RS._start_flag(small[4], e)] = sim_table[RS._start_flag(sim_table, e)]
    ours._reset_table = small
    plain._reset_table = RS.empty_table(b.state.shape[1], b.memory.shape[1], b.logic.shape[1],
                                        np.int32, L.FRAME_BUFFER_SHAPE, entries=0,
                                        tail_entries=0)
    hits = int(ours._agent[:, K.A_TAIL_RESETS].sum())
    for _ in range(12):
        ours.reset()
        plain.reset()
        assert machine_difference(ours, plain) is None
    assert small[4][RS.TABLE_TAIL_FILLED] == claimed        # no room: nothing of the CPU's
    assert int(ours._agent[:, K.A_TAIL_RESETS].sum()) > hits, "the GPU's entries never hit"


def test_simulated_reset_kernel_first_miss_writes_the_start_entry(tmp_path):
    """The GPU's start region fills from the first lane that misses (claim_start_writer, with
    open_launch's first_miss_writes): two consoles reset from an empty table under the
    simulator give what the CPU gives, exactly one start entry is written, and that entry,
    as the only one a CPU env may read, serves its resets exactly."""
    from cule_py.kernels.agent import agent_step as K
    from cule_py.kernels import layout as L
    from cule_py.kernels.ale import reset_snapshot as RS
    from cule_py.testing import machine_difference
    from cule_py.vector import AtariVectorEnv

    def empty(env, entries=RS.SNAPSHOT_ENTRIES):
        b = env._batch
        return RS.empty_table(b.state.shape[1], b.memory.shape[1], b.logic.shape[1], np.int32,
                              L.FRAME_BUFFER_SHAPE, entries=entries, tail_entries=0,
                              direct_origins=min(1, entries))

    env = AtariVectorEnv("breakout", 2, repeat_action_probability=0.25, noop_max=2, seed=4)
    env.reset(seed=4)
    env._reset_table = empty(env)
    mask = np.ones(2, np.bool_)
    RS.open_launch(env._reset_table, mask,
                   env._batch.state[:, L.SYSTEM_RNG_POSITION], np, first_miss_writes=True)
    args = env._reset_args(K.OP_RESET, mask)
    _save_args(tmp_path / "in.pkl", args)
    print(_run_simulated(RESET_CHILD, tmp_path / "in.pkl", tmp_path / "out.pkl"))
    sim = _load_args(tmp_path / "out.pkl")
    RS.open_launch(env._reset_table, mask,
                   env._batch.state[:, L.SYSTEM_RNG_POSITION], np)      # the CPU's writer
    run_on_threads(1, K.agent_reset_cpu, args)
    table_at = len(args) - 2                  # (the reset table: the simulator's own writer)
    _assert_same_arrays(sim[:table_at], args[:table_at])
    t_st, t_ram, t_logic, t_fb, sim_table = sim[table_at]
    assert sim_table[RS.TABLE_FILLED] == 1, "not exactly one lane wrote a start entry"
    assert sim_table[RS.TABLE_WRITER] in (0, 1)
    # that entry alone, read by a CPU env whose table has no room for its own
    ours = AtariVectorEnv("breakout", 2, repeat_action_probability=0.25, noop_max=2, seed=4)
    plain = AtariVectorEnv("breakout", 2, repeat_action_probability=0.25, noop_max=2, seed=4)
    small = empty(ours, entries=1)
    for mine, theirs in zip(small[:4], (t_st, t_ram, t_logic, t_fb)):
        mine[:2] = theirs[:2]
    small[4][RS.TABLE_FILLED] = 1
    small[4][RS._start_flag(small[4], 0)] = sim_table[RS._start_flag(sim_table, 0)]
    ours._reset_table = small
    plain._reset_table = empty(plain, entries=0)
    ours.reset(seed=4)
    plain.reset(seed=4)
    for _ in range(12):
        ours.reset()
        plain.reset()
        assert machine_difference(ours, plain) is None
    assert small[4][RS.TABLE_FILLED] == 1
    assert int(ours._agent[:, K.A_TABLE_RESETS].sum()) > 0, "the GPU's start entry never hit"


LANES_CHILD = textwrap.dedent("""
    import sys
    import numpy as np
    from cule_py.kernels.agent import agent_step as K

    d = dict(np.load(sys.argv[1]))
    out = {}
    for op in (K.OP_RESET, K.OP_AUTORESET):
        lanes = np.full(d["mask"].shape[0], -1, np.int32)
        count = np.zeros(1, np.int32)
        K.resetting_lanes_cuda[4, 32](op, d["agent"], d["mask"], lanes, count)
        out[f"lanes{op}"], out[f"count{op}"] = lanes, count
    np.savez(sys.argv[2], **out)
""")


def test_simulated_reset_lanes_pack_the_resetting_consoles(tmp_path):
    """resetting_lanes_cuda (on 4 blocks, 100 consoles): the first count lanes name each console
    the reset launch resets once (OP_RESET: the mask's; OP_AUTORESET: those of the mask the step
    marked), and no lane after them is written."""
    from cule_py.kernels.agent import agent_step as K

    rng = np.random.default_rng(30)
    mask = rng.random(100) < 0.3
    agent = np.zeros((100, K.AGENT_FIELDS), np.int32)
    agent[:, K.A_RESET_NOW] = rng.random(100) < 0.5
    np.savez(tmp_path / "in.npz", mask=mask, agent=agent)
    _run_simulated(LANES_CHILD, tmp_path / "in.npz", tmp_path / "out.npz")
    sim = dict(np.load(tmp_path / "out.npz"))
    marked = mask & (agent[:, K.A_RESET_NOW] != 0)
    assert 0 < marked.sum() < mask.sum()
    for op, expected in ((K.OP_RESET, mask), (K.OP_AUTORESET, marked)):
        count = int(sim[f"count{op}"][0])
        lanes = sim[f"lanes{op}"]
        assert count == expected.sum()
        assert sorted(lanes[:count]) == np.nonzero(expected)[0].tolist()
        assert (lanes[count:] == -1).all()


FILL_CHILD = TILING + textwrap.dedent("""
    import sys, time
    from cule_py.kernels.agent import agent_step as K

    console, cfg, table = load(sys.argv[1])
    start = time.perf_counter()
    K.fill_tails_cuda[1, 32](console, cfg, table)
    print(f"simulated the direct tails' fill in {time.perf_counter() - start:.1f} s")
    save(sys.argv[2], (console, cfg, table))
""")


def test_simulated_direct_tail_fill_matches_cpu(tmp_path):
    """fill_tails_cuda under the simulator against the CPU's OP_FILL_TAILS: the direct tails of
    a Breakout table (one origin, FIRE runs 0 and 1: two lanes of 4 acts, the most a reset
    with noop_max 5 plays) played again from empty; every table array must come out the same,
    and as the CPU played them in the env's resets before."""
    from cule_py.kernels.agent import agent_step as K
    from cule_py.kernels.ale import reset_snapshot as RS

    env = _reset_env(noop_max=5, direct_origins=1, direct_fires=1,
                     direct_acts=K.most_tail_acts(True, 5))
    table = env._reset_table[-1]
    status = RS._direct_status(table, 0, 0)
    played = table[status:status + 2].copy()
    assert (played == 1 + 4).all(), played     # 4 acts each, no game over among them
    rows = [a.copy() for a in env._reset_table[:4]]
    table[status:status + 2] = 0
    direct = int(table[RS.TABLE_DIRECT_BASE])
    for a in env._reset_table[:4]:
        a[direct:] = 0
    args = env._fill_args()
    _save_args(tmp_path / "in.pkl", args)
    print(_run_simulated(FILL_CHILD, tmp_path / "in.pkl", tmp_path / "out.pkl"))
    sim = _load_args(tmp_path / "out.pkl")
    run_on_threads(1, K.agent_reset_cpu, env._reset_args(K.OP_FILL_TAILS, np.zeros(2, np.bool_)))
    _assert_same_arrays(sim, args)
    np.testing.assert_array_equal(table[status:status + 2], played)
    for again, before in zip(env._reset_table[:4], rows):
        np.testing.assert_array_equal(again, before)


WAITS_CHILD = textwrap.dedent("""
    import numpy as np
    from numba import cuda
    from numba.cuda.simulator import kernel as simulated
    assert getattr(simulated.BlockManager.run, "waits", False), "the waiting loop is not in use"

    @cuda.jit
    def rotate(out):
        # each thread reads its neighbour's value after a barrier: wrong without syncthreads
        shared = cuda.shared.array(4, np.int64)
        i = cuda.threadIdx.x
        shared[i] = 10 * i
        cuda.syncthreads()
        out[cuda.blockIdx.x, i] = shared[(i + 1) % 4] + cuda.blockIdx.x

    @cuda.jit
    def fails(out):
        if cuda.threadIdx.x == 2:
            raise ValueError("lane two")
        out[cuda.threadIdx.x] = 1

    out = np.zeros((2, 4), np.int64)
    rotate[2, 4](out)
    assert out.tolist() == [[10, 20, 30, 0], [11, 21, 31, 1]], out.tolist()
    try:
        fails[1, 4](np.zeros(4, np.int64))
    except ValueError as error:
        assert "lane two" in str(error), error
    else:
        raise AssertionError("the thread's exception was not raised")
    print("waits ok")
""")


def test_simulator_waits_keep_syncthreads_and_exceptions(tmp_path):
    """cule_py.testing.install_simulator_waits (every simulator child here runs it first):
    a block's threads still meet at syncthreads() and a thread's exception still reaches the
    launch."""
    assert _run_simulated(WAITS_CHILD, tmp_path / "unused", tmp_path / "unused") == "waits ok"
