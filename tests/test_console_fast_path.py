"""The CPU backend's fast path through the 6507 (kernels/frame_loop/console_fast_path.py) against
the decoded core, one instruction at a time on the real 2600 bus.

Every opcode with a fast copy runs from many random machine states (registers, RAM, operands
aimed at RAM, ROM, the TIA, the RIOT, hotspots and cartridge RAM, stacks on both sides of $80),
once through the fast path (and `finish_pending` for a pending store or operand read, as the
loop makes them: the inline TIA write that draws nothing, else the console's bus) and once
through the decoded core, each on its own copy of the
console. Where the fast path does not give up, the
registers, clock, RAM, cartridge RAM, the whole state row and both frame buffers must be equal.
Each opcode must also complete on the fast path in some of its cases, so a fast path that gave up
everywhere would fail. The frame loop's shortcuts are checked too: the window it keeps across
device accesses that cannot switch banks, and the loop itself against the decoded core's. The
games themselves are checked against ale-py by the other tests, which all run the fast path on
the CPU backend.
"""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

import cule_py
from cule_py import roms
from cule_py.batch import ConsoleBatch
from cule_py.kernels.cartridges import cart
from cule_py.kernels.frame_loop import bus as con
from cule_py.kernels.frame_loop import console_fast_path as fast
from cule_py.kernels import layout as L
from cule_py.kernels.cpu import opcodes as oc
from cule_py.kernels.tia import tia

from cart_programs import BUILDERS

# Compiles its own (uncached) copies of the console's instruction paths: minutes.
pytestmark = pytest.mark.slow

CASES_PER_OPCODE = 60


@njit(cache=False)
def _fast(rom, scheme, ram, st, fb, regs):
    """One instruction on the fast path; the pending store made as the loop makes it."""
    pc, a, x, y, s, p, clk = regs[0], regs[1], regs[2], regs[3], regs[4], regs[5], regs[6]
    window = fast.rom_window(rom, scheme, st, 0, np.int32(pc))
    status, pc, a, x, y, s, p, clk, addr, value = fast.fast_step(
        rom, ram, 0, window, np.int32(pc), np.int32(a), np.int32(x), np.int32(y), np.int32(s),
        np.int32(p), np.int64(clk))
    if status != fast.GIVE_UP and status != fast.DONE:
        pc, a, x, y, s, p, clk = fast.finish_pending((rom, scheme, ram, st, fb, 0), status, pc, a,
                                                     x, y, s, p, clk, addr, value)
    out = np.array([pc, a, x, y, s, p, clk], np.int64)
    return status, out


@njit(cache=False)
def _decoded(rom, scheme, ram, st, fb, regs):
    pc, a, x, y, s, p, clk, jammed = con.cpu_step(
        (rom, scheme, ram, st, fb, 0), np.int32(regs[0]), np.int32(regs[1]), np.int32(regs[2]),
        np.int32(regs[3]), np.int32(regs[4]), np.int32(regs[5]), np.int64(regs[6]))
    return np.array([pc, a, x, y, s, p, clk], np.int64)


# Interesting targets of an operand: RAM, its mirrors and page one, ROM (plain and hotspots,
# cartridge RAM ports), TIA registers (including WSYNC and the colours), RIOT ports and timer.
_TARGETS = (0x0080, 0x00C0, 0x00FF, 0x0180, 0x01F0, 0x0100, 0x0000, 0x0002, 0x0006, 0x001B,
            0x0030, 0x003C, 0x0280, 0x0284, 0x0294, 0x1000, 0x1080, 0x1100, 0x1180, 0x1800,
            0x1FF4, 0x1FF8, 0x1FF9, 0x1FFB, 0x1FFE, 0xF000, 0xF7F0,
            0x13FE, 0x1400, 0x17FF, 0x1BFE, 0x1C00, 0x1FC0, 0x1FDF, 0x1FE0, 0x1FEA, 0x1FF2)


def _operand_bytes(rng, mode):
    """Operand bytes aimed, most of the time, at one of the interesting targets."""
    target = int(rng.choice(_TARGETS)) + int(rng.integers(0, 4))
    if rng.random() < 0.25:
        target = int(rng.integers(0, 0x10000))
    if mode in (oc.ZP, oc.ZPX, oc.ZPY, oc.IZX, oc.IZY):
        return [target & 0xFF]
    if mode in (oc.ABS, oc.ABX, oc.ABY, oc.IND):
        return [target & 0xFF, (target >> 8) & 0xFF]
    return [int(rng.integers(0, 256)) for _ in range(2)]


def _machines(tmp_path):
    """(game, batch) pairs: a 2K game, a 4K game, an F8SC one (window, hotspots, cart RAM), an
    E0 one (a window per 1K segment), the DPC one (the chip's registers below the window), the
    FE one (a window per half, chosen by the CPU's A13), and our own E7, 3F and UA cartridges
    (tests/cart_programs.py: no ALE game uses them), each a few hundred frames in so the TIA's
    state is a real one."""
    out = []
    for game in ("pong", "space_invaders", "ms_pacman", "montezuma_revenge", "pitfall2",
                 "robotank"):
        emu = cule_py.AtariEmulator(game, 1, seed=3)
        rng = np.random.default_rng(0)
        for _ in range(120):
            emu.act(rng.integers(0, 18, 1))
        out.append((game, emu._batch))
    for scheme in ("E7", "3F", "UA"):
        path = tmp_path / f"{scheme}.bin"
        path.write_bytes(BUILDERS[scheme]())
        rom = roms.load_rom(path, settings="riverraid")    # as tests/test_carts_vs_ale.py
        assert rom.scheme == scheme
        batch = ConsoleBatch(rom, 1, env_seed=3)
        batch.act(np.zeros(1, np.int64), frames=120)
        out.append((f"own {scheme} cartridge", batch))
    return out


@pytest.fixture(scope="module")
def machines(tmp_path_factory):
    return _machines(tmp_path_factory.mktemp("carts"))


def _case(rng, batch, opcode):
    rom = np.asarray(batch.rom_bytes).copy()
    memory = np.asarray(batch.memory).copy()
    st = np.asarray(batch.state).copy()
    fb = np.asarray(batch.frame_buffers).copy()
    memory[0, :] = rng.integers(0, 256, memory.shape[1], dtype=np.uint8)
    scheme = batch.scheme
    size = len(rom)
    if scheme == cart.SCHEME_E0:
        for field in (L.CART_BANK, L.CART_BANK1, L.CART_BANK2):
            st[0, field] = int(rng.integers(0, 8))
    elif scheme == cart.SCHEME_DPC:
        st[0, L.CART_BANK] = int(rng.integers(0, 2))
    elif scheme == cart.SCHEME_E7:
        st[0, L.CART_BANK] = int(rng.integers(0, 8))           # 7: the 1K RAM bank
        st[0, L.CART_BANK1] = int(rng.integers(0, 4))
    elif scheme == cart.SCHEME_3F:
        st[0, L.CART_BANK] = int(rng.integers(0, size // 2048))
    elif scheme >= cart.SCHEME_F8:
        st[0, L.CART_BANK] = int(rng.integers(0, size // 4096))
    # The instruction in the current bank's window (sometimes at its edge), its operand after it;
    # E0: the window of a random segment.
    # FE: the half of a random A13 (the other address lines above A12 at random too).
    # E7: no window where the RAM ports are; a region that has one.
    span = 0
    while span == 0:
        a13 = int(rng.integers(0, 2))
        segment_pc = 0x1000 | (int(rng.integers(0, 4)) << 10) | (a13 << 13)
        base, mask, start, span, fold = (int(v) for v in
                                         cart.fast_rom_window(rom, scheme, st, 0, segment_pc))
    low = start & 0x0FFF
    high = low + span
    offset = int(rng.integers(low, high - 3)) if rng.random() < 0.9 else high - 2
    pc = 0x1000 | offset | (int(rng.integers(0, 8)) << 13)
    if fold & 0x2000:
        pc = 0x1000 | offset | (a13 << 13) | (int(rng.integers(0, 4)) << 14)
    mode = int(oc.ADDRESS_MODE[opcode])
    image = [opcode] + _operand_bytes(rng, mode)
    for i, byte in enumerate(image):
        addr = (offset + i) & 0x0FFF
        rom[base + (addr & mask)] = byte
    # Indirect pointers in page zero aimed at the targets too.
    for zp in range(0x80, 0x100, 2):
        if rng.random() < 0.5:
            target = int(rng.choice(_TARGETS)) + int(rng.integers(0, 3))
            memory[0, zp & 0x7F] = target & 0xFF
            memory[0, (zp + 1) & 0x7F] = target >> 8
    s = int(rng.choice([0xFF, 0xFD, 0x81, 0x80, 0x7F, 0x00, int(rng.integers(0, 256))]))
    regs = np.array([pc & 0xFFFF, rng.integers(0, 256), rng.integers(0, 256),
                     rng.integers(0, 256), s, int(rng.integers(0, 256)) | 0x20,
                     int(st[0, L.CYCLES]) + int(rng.integers(0, 40))], np.int64)
    return rom, scheme, memory, st, fb, regs


def test_fast_path_equals_decoded_core(machines):
    rng = np.random.default_rng(2600)
    completed = {opcode: 0 for opcode in fast.FAST_OPCODES}
    per_machine = {}
    for game, batch in machines:
        before = sum(completed.values())
        for opcode in fast.FAST_OPCODES:
            for _ in range(CASES_PER_OPCODE // len(machines)):
                rom, scheme, memory, st, fb, regs = _case(rng, batch, opcode)
                fast_arrays = (memory.copy(), st.copy(), fb.copy())
                status, fast_regs = _fast(rom, scheme, *fast_arrays, regs)
                if status == fast.GIVE_UP:
                    # Giving up must leave the machine untouched.
                    assert (fast_arrays[0] == memory).all() and (fast_arrays[1] == st).all(), \
                        f"{game} opcode {opcode:#04x}: gave up after changing the machine"
                    continue
                completed[opcode] += 1
                decoded_regs = _decoded(rom, scheme, memory, st, fb, regs)
                where = f"{game} opcode {opcode:#04x} regs {regs.tolist()}"
                assert fast_regs.tolist() == decoded_regs.tolist(), where
                assert (fast_arrays[0] == memory).all(), f"{where}: RAM differs"
                assert (fast_arrays[1] == st).all(), (
                    f"{where}: state differs in "
                    f"{[L.FIELD_NAMES[i] for i in np.flatnonzero(fast_arrays[1][0] != st[0])]}")
                assert (fast_arrays[2] == fb).all(), f"{where}: frame buffers differ"
        per_machine[game] = sum(completed.values()) - before
    never = [f"{op:#04x}" for op, n in completed.items() if n == 0]
    assert not never, f"opcodes never completed on the fast path: {never}"
    # Every scheme has a window: most of its cases complete on the fast path.
    cases = len(fast.FAST_OPCODES) * (CASES_PER_OPCODE // len(machines))
    assert all(n > cases // 3 for n in per_machine.values()), (cases, per_machine)


@njit(cache=False)
def _windows(rom, scheme, st, pcs):
    out = np.empty((len(pcs), 5), np.int64)
    for i in range(len(pcs)):
        base, mask, start, span, fold = cart.fast_rom_window(rom, scheme, st, 0,
                                                             np.int32(pcs[i]))
        out[i, 0], out[i, 1], out[i, 2], out[i, 3], out[i, 4] = base, mask, start, span, fold
    return out


@njit(cache=False)
def _access(rom, scheme, ram, st, fb, addr, value, write, clk):
    bus = (rom, scheme, ram, st, fb, 0)
    if write:
        con.console_write(bus, np.int32(addr), np.int32(value), np.int64(clk))
    else:
        con.console_read(bus, np.int32(addr), np.int64(clk), np.int32(0))


def test_accesses_that_cannot_switch_banks_keep_the_window(machines):
    """The frame loop recomputes its ROM window only after a device access for which
    `cart.may_switch_banks` says yes: every other read or write (TIA, RIOT, E0 below its
    hotspots, ...) must leave the window of every PC (each 1K segment, both FE halves) as it
    was, in random bank states."""
    rng = np.random.default_rng(1977)
    pcs = np.array([0x1000 | (segment << 10) | (a13 << 13) | 0x20
                    for segment in range(4) for a13 in (0, 1)], np.int64)
    kept = {}
    for game, batch in machines:
        kept[game] = 0
        for _ in range(400):
            rom, scheme, memory, st, fb, regs = _case(rng, batch, 0xEA)
            addr = int(rng.choice(_TARGETS)) + int(rng.integers(0, 8))
            if rng.random() < 0.3:
                addr = int(rng.integers(0, 0x10000))
            if cart.may_switch_banks(scheme, addr):
                continue
            before = _windows(rom, scheme, st, pcs)
            _access(rom, scheme, memory, st, fb, addr, int(rng.integers(0, 256)),
                    bool(rng.integers(0, 2)), regs[6])
            after = _windows(rom, scheme, st, pcs)
            assert (after == before).all(), f"{game}: an access at {addr:#06x} moved the window"
            kept[game] += 1
    # The check ran for every machine but 3F's and UA's (hotspots in the TIA's space: every
    # access may switch there, so the loop recomputes the window after each).
    assert all((n == 0) == (batch.scheme >= cart.SCHEME_3F) and (n == 0 or n > 100)
               for (game, batch), n in zip(machines, kept.values())), kept


def test_fast_opcodes_are_the_official_set_without_brk_and_rti():
    names = {oc.OPERATION_NAMES[int(oc.OPERATION[op])] for op in fast.FAST_OPCODES}
    assert "BRK" not in names and "RTI" not in names and "JAM" not in names
    assert len(fast.FAST_OPCODES) == 151 - 2   # 151 official opcodes


@njit(cache=False)
def _tia_writes(st, fb, reg, values, clks, light):
    """Write values[i] to TIA register `reg` at clks[i], in turn: with `light`, through the
    inline write for writes that draw nothing where it takes them; else through tia.write."""
    taken = 0
    for i in range(values.shape[0]):
        if light:
            after = tia.write_drawing_nothing(st, 0, reg, values[i], clks[i])
            if after >= 0:
                taken += 1
                continue
        tia.write(st, fb, 0, reg, values[i], clks[i], True)
    return taken


def test_tia_writes_that_draw_nothing_equal_the_full_write(machines):
    """Each TIA register is written a run of values, many of them repeats (a write storing what
    the register holds is what the inline write takes), at rising clocks up to past the
    scanline limit; the inline path where it applies, tia.write elsewhere, must leave the same
    state and pixels as tia.write everywhere."""
    rng = np.random.default_rng(7)
    for game, batch in machines:
        for reg in range(0x40):
            st = np.asarray(batch.state)[:1].copy()
            fb = np.asarray(batch.frame_buffers)[:1].copy()
            values = rng.integers(0, 256, 200).astype(np.int32)
            repeat = rng.random(200) < 0.6
            for i in range(1, 200):
                if repeat[i]:
                    values[i] = values[i - 1]
            start = int(st[0, L.CYCLES])
            clks = (start + np.cumsum(rng.integers(0, 300, 200))).astype(np.int64)
            light_st, light_fb = st.copy(), fb.copy()
            taken = _tia_writes(light_st, light_fb, reg, values, clks, True)
            _tia_writes(st, fb, reg, values, clks, False)
            where = f"{game} register {reg:#04x}"
            assert (light_st == st).all(), (
                f"{where}: state differs in "
                f"{[L.FIELD_NAMES[i] for i in np.flatnonzero(light_st[0] != st[0])]}")
            assert (light_fb == fb).all(), f"{where}: pixels differ"
            if tia.is_picture_neutral(reg) or reg in (0x06, 0x09, 0x0D, 0x1B, 0x1D):
                assert taken > 0, f"{where}: the inline write never applied"


# ---- the frame loop: the CPU overload of run_instructions against the decoded core's loop ------

@njit(cache=False)
def _start_frame(scheme, st):
    """run_frame's prologue: a new frame where the last one ended; the clock it starts from."""
    clk = np.int32(st[0, L.CYCLES])
    if st[0, L.TIA_PARTIAL_FRAME] == 0:
        cart.cart_frame_start(scheme, st, 0, clk)
        tia.start_frame(st, 0, clk)
        clk = np.int32(0)
    st[0, L.TIA_PARTIAL_FRAME] = 1
    st[0, L.CPU_ATTENTION] = 0
    return clk


def _snapshots(batch, frames, rng):
    """(rom, scheme, ram, st, fb) copies of console 0 after each of `frames` random frames."""
    actions = np.array([int(a) for a in batch.game.minimal_actions]) if batch.game else \
        np.zeros(1, np.int64)
    out = []
    for _ in range(frames):
        batch.act(actions[rng.integers(len(actions), size=batch.num_envs)])
        out.append((np.asarray(batch.rom_bytes), batch.scheme, np.asarray(batch.memory)[:1].copy(),
                    np.asarray(batch.state)[:1].copy(), np.asarray(batch.frame_buffers)[:1].copy()))
    return out


def test_frame_loop_equals_the_decoded_loop(machines, tmp_path):
    """The loop the CPU backend runs (`_run_instructions_cpu`: fast path, pending accesses, idle
    polls skipped within ALE's instruction budget) and the decoded core's loop, each from the
    same start of a frame of real consoles and of the idle-loop cartridge: same registers, clock,
    RAM, state and pixels. Compiling the overload here also catches an overload that no longer
    types, which numba would otherwise answer silently with the decoded core."""
    from test_idle_poll import idle_poll_image

    fast_loop = njit(cache=False)(fast._run_instructions_cpu(*[None] * 13))
    decoded_loop = njit(cache=False)(con.run_instructions)
    path = tmp_path / "idle.bin"
    path.write_bytes(idle_poll_image())
    idle = ConsoleBatch(roms.load_rom(path, settings="riverraid"), 1, env_seed=5)
    rng = np.random.default_rng(26)
    cases = [(game, snap) for game, batch in machines[:4] + [("idle-loop cartridge", idle)]
             for snap in _snapshots(batch, 24, rng)]
    for game, (rom, scheme, ram, st, fb) in cases:
        results = []
        for loop in (fast_loop, decoded_loop):
            r, s_, f = ram.copy(), st.copy(), fb.copy()
            clk = _start_frame(scheme, s_)
            regs = loop(rom, scheme, r, s_, f, 0, np.int32(s_[0, L.CPU_PC]),
                        np.int32(s_[0, L.CPU_A]), np.int32(s_[0, L.CPU_X]),
                        np.int32(s_[0, L.CPU_Y]), np.int32(s_[0, L.CPU_S]),
                        np.int32(s_[0, L.CPU_P]), np.int64(clk))
            results.append((tuple(int(v) for v in regs), r, s_, f))
        (fast_regs, r1, s1, f1), (decoded_regs, r2, s2, f2) = results
        # CPU_ATTENTION's timer bit is the decoded core's hint for its idle-loop skip, not
        # machine state: the fast path sets it and never reads it, and run_frame clears it at
        # every frame's end, as here (test_idle_poll compares both cores with ale-py through
        # whole frames).
        s1[:, L.CPU_ATTENTION] &= L.ATTENTION_FRAME_ENDED
        s2[:, L.CPU_ATTENTION] &= L.ATTENTION_FRAME_ENDED
        assert fast_regs == decoded_regs, f"{game}: registers/clock {fast_regs} vs {decoded_regs}"
        assert (r1 == r2).all(), f"{game}: RAM differs"
        assert (s1 == s2).all(), (f"{game}: state differs in "
                                  f"{[L.FIELD_NAMES[i] for i in np.flatnonzero(s1[0] != s2[0])]}")
        assert (f1 == f2).all(), f"{game}: pixels differ"
