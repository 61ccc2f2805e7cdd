"""tools/gpu_model.py, the offline GPU model (issue 24): its parsers and occupancy arithmetic on
fixed inputs (fast), and the register/spill regression check of the console kernels drive_cuda
and lives_and_flags_cuda, compiled for sm_90a as the GPU backend compiles them (the agent
kernels are checked in tests/test_agent_step_cuda_compile.py, from the same per-process
compile). The caps live in one place: tools/gpu_model.py, CAPS.
"""

from __future__ import annotations

import os
import pathlib

import pytest

from tools import gpu_model as G

REPO = pathlib.Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.cuda

SIMULATOR = os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0")

# nvdisasm's layout: the entry's section, then every other function at a `$entry$function:`
# label inside it (names shortened here; the real ones are numba's mangled names).
SASS = """
	.section	.text._ZN7cule_py7kernels11environment10drive_cudaB2v1Bxx,"ax",@progbits
_ZN7cule_py7kernels11environment10drive_cudaB2v1Bxx:
        /*0000*/                   LDC R1, c[0x0][0x28] ;
        /*0010*/                   STL.64 [R1+0x288], R8    (*"SpillRefill"*);
        /*0020*/              @P0 CALL.REL.NOINC `($_ZN7cule_py7kernels11environment10drive_cudaB2v1Bxx$_ZN7cule_py7kernels7console11device_readB3v47Bxx) ;
.L_x_1:
        /*0030*/                   EXIT ;
$_ZN7cule_py7kernels11environment10drive_cudaB2v1Bxx$_ZN7cule_py7kernels7console11device_readB3v47Bxx:
        /*0040*/                   IADD3 R2, R2, 0x1, RZ ;
        /*0050*/                   LDL R3, [R1+0x10]    (*"SpillRefill"*);
        /*0060*/                   RET.REL.NODEC R2 `(_ZN7cule_py7kernels11environment10drive_cudaB2v1Bxx) ;
$__internal_0_$__cuda_sm20_rem_s64:
        /*0070*/                   IABS R4, R5 ;
"""

LINK_LOG = """info    : 56 bytes gmem, 14976 bytes cmem[3]
info    : Function properties for '_ZN7cule_py7kernels7console11device_readB3v47Bxx':
info    : used 254 registers, 416 stack, 0 bytes smem, 0 bytes cmem[0], 0 bytes lmem
ptxas         .     416 bytes stack frame, 8 bytes spill stores, 12 bytes spill loads
info    : Function properties for '_ZN7cule_py7kernels11environment10drive_cudaB2v1Bxx':
info    : used 255 registers, 864 stack, 0 bytes smem, 1544 bytes cmem[0], 0 bytes lmem
ptxas         .     864 bytes stack frame, 100 bytes spill stores, 100 bytes spill loads
"""


def test_names_and_sass_by_function():
    assert G.short_name("_ZN7cule_py7kernels7console11device_readB3v47Bxx") == \
        "cule_py.kernels.console.device_read"
    assert G.short_name("__cuda_sm20_rem_s64") == "__cuda_sm20_rem_s64"
    functions = G.sass_by_function(SASS)
    assert functions["cule_py.kernels.environment.drive_cuda"]["sass"] == 4
    assert functions["cule_py.kernels.environment.drive_cuda"]["spill"] == 1
    assert functions["cule_py.kernels.environment.drive_cuda"]["calls"] == 1
    assert functions["cule_py.kernels.console.device_read"]["sass"] == 3
    assert functions["cule_py.kernels.console.device_read"]["spill"] == 1
    assert functions["__cuda_sm20_rem_s64"]["sass"] == 1


def test_fused_float32_products_are_told_from_range_checks():
    """An FFMA multiplying two values counts (a product rounded once instead of twice); one with
    the zero register as a factor is the float64 division's range check and does not."""
    lines = ["/*84130*/  FFMA R42, RZ, 11.137915611267089844, R35 ;",
             "/*84140*/  FFMA R1, R2, R3, R4 ;",
             "/*84150*/  @P0 FFMA.FTZ R1, -R2, c[0x0][0x10], R4 ;",
             "/*84160*/  FFMA R1, R2, -RZ, R4 ;",
             "/*84170*/  FMUL R1, R2, R3 ;"]
    assert len(G._FFMA_PRODUCT.findall("\n".join(lines))) == 2


def test_link_log_and_caps():
    per = G.parse_link_log(LINK_LOG)
    assert per["cule_py.kernels.console.device_read"]["spill_store_bytes"] == 8
    assert per["cule_py.kernels.environment.drive_cuda"]["registers"] == 255
    ok = {"kernel": "drive_cuda", "registers": 255, "spill_store_bytes": 0}
    cap = G.CAPS["drive_cuda"]
    assert G.check_caps(dict(ok, spill_store_bytes=cap["spill_store_bytes"])) == []
    assert G.check_caps(dict(ok, spill_store_bytes=cap["spill_store_bytes"] + 1))
    assert G.check_caps({"kernel": "lives_and_flags_cuda", "registers": 10 ** 3})
    assert G.check_caps({"kernel": "unknown_cuda", "registers": 1})


def test_occupancy_on_an_h100():
    # 255 registers: 8,160 per warp (in 256s), 4 warps a block of 128 -> 2 blocks, 8 warps/SM.
    assert G.warps_per_sm(255, 128) == 8
    assert G.warps_per_sm(64, 128) == 32          # 8 warps per scheduler
    assert G.warps_per_sm(32, 128) == 64          # the 64-warp limit
    assert G.warps_per_sm(20, 1024) == 64
    # ncu measured one active warp per scheduler at 4,096 consoles (32 blocks on 132 SMs).
    assert G.occupancy(255, 128, 4096)["resident_warps_per_scheduler"] == 1
    assert G.occupancy(255, 128, 16384)["resident_warps_per_scheduler"] == 1
    at_64k = G.occupancy(255, 128, 65536)
    assert at_64k["resident_warps_per_scheduler"] == 2 and at_64k["waves"] == 2
    assert G.occupancy(64, 128, 65536)["resident_warps_per_scheduler"] == 4
    assert G.largest_batch(10 ** 6) == 72_000


def _synthetic_counts():
    """Counts of two warp-frames of a made-up trace (weights in WEIGHT_KEYS order)."""
    import numpy as np

    warp = np.array([[100, 300, 40, 900], [120, 330, 50, 1000]], float)
    thread = np.array([[3200, 3200, 600, 4000], [3000, 3000, 700, 5000]], float)
    lanes = np.repeat(thread / 32, 32, axis=0)
    return {"consoles": 32, "frames": 2, "console_frames": 64, "sums": {},
            "totals": {"instructions": 6200, "steps": 220, "min_pc_steps": 300, "lanes": 64,
                       "warps": 2, "distinct_opcodes": 10, "render_clocks": 9000,
                       "render_max_sum": 1900},
            "warp_counts": warp, "thread_counts": thread, "lane_counts": lanes}


def test_fit_weights_reproduces_both_measured_counts():
    counts = _synthetic_counts()
    scale, clock = G.fit_weights(counts, 1234.0, 5.35)
    model = G.lockstep_model(counts, G.calibrated_weights(scale, clock))
    assert model["warp_instructions_per_console_frame"] == pytest.approx(1234.0)
    assert model["active_threads_per_warp_instruction"] == pytest.approx(5.35)


def test_launch_time_of_equal_warps():
    import numpy as np

    clock = 2e9
    # One warp per scheduler (4,096 and 16,384 consoles at 255 registers): one warp's time.
    for consoles in (4096, 16384):
        t = G.launch_seconds(np.full(consoles // 32, 1e7), consoles, 255, 128, 0.2, 0.5, clock)
        assert t == pytest.approx(1e7 / 0.2 / clock)
    # 65,536: 512 blocks in 264 slots, two warps sharing a scheduler at ipc 0.2 x 2 ** 0.5, twice.
    t = G.launch_seconds(np.full(2048, 1e7), 65536, 255, 128, 0.2, 0.5, clock)
    assert t == pytest.approx(2 * 2e7 / (0.2 * 2 ** 0.5) / clock)
    # The slowest warp sets the time of a one-wave launch.
    costs = np.full(512, 1e7)
    costs[77] = 3e7
    assert G.launch_seconds(costs, 16384, 255, 128, 0.2, 0.5, clock) == pytest.approx(
        3e7 / 0.2 / clock)


def test_the_frozen_calibration_fits_the_committed_counts():
    """FROZEN is what `calibrate` gives on the committed counts of 2ee2133's trace (so that
    neither moves alone): its weights reproduce ncu's two instruction counts and its IPC
    exponent the 65,536-console figure. (The full `calibrate`, which also predicts the other
    recorded figures, takes about a minute: benchmarks/README.md.)"""
    counts = G.load_counts(G.CALIBRATION_FILE)
    rec, frozen = G.CALIBRATION, G.FROZEN
    scale, clock = G.fit_weights(counts, rec["warp_instructions"] / rec["ncu_consoles"],
                                 rec["active_threads_per_warp_instruction"])
    assert (scale, clock) == pytest.approx((frozen["path_scale"], frozen["clock"]), rel=1e-9)
    assert G.calibrated_weights(scale, clock) == pytest.approx(frozen["weights"], rel=1e-9)
    fps = G.predict_fps(counts, frozen["weights"], 65536, ipc_one_warp=frozen["ipc_one_warp"],
                        ipc_exponent=frozen["ipc_exponent"], clock_hz=frozen["clock_hz"])
    assert fps == pytest.approx(rec["fps"]["decorrelated"][65536], rel=1e-3)


def test_the_refit_on_the_h100_record_of_e9853a1():
    """`calibrate --recorded e9853a1`: the committed trace of e9853a1's Pong (300 frames of
    warm-up, as ncu's launch) against what ncu measured. The two instruction counts fit; what it
    takes to fit them is a negative path weight: the trace's min-PC lock-step cannot make the
    lanes as idle as the hardware's 1.79 of 32 with physical weights (benchmarks/RESULTS.md)."""
    counts = G.load_counts(G.CALIBRATION_FILES["e9853a1"])
    rec = G.RECORDED["e9853a1"]
    assert counts["console_frames"] >= 512
    scale, clock = G.fit_weights(counts, rec["warp_instructions"] / rec["ncu_consoles"],
                                 rec["active_threads_per_warp_instruction"])
    model = G.lockstep_model(counts, G.calibrated_weights(scale, clock))
    assert model["warp_instructions_per_console_frame"] == pytest.approx(
        rec["warp_instructions"] / rec["ncu_consoles"], rel=1e-6)
    assert model["active_threads_per_warp_instruction"] == pytest.approx(1.79, rel=1e-6)
    assert scale < 0 < clock
    frozen = G.lockstep_model(counts, G.FROZEN["weights"])
    assert frozen["active_threads_per_warp_instruction"] > 1.79


def _trace_records(pcs, cycles=3, device=-1, render=0):
    """A lane's trace records (gpu_trace's columns) running the PCs `pcs` in order."""
    import numpy as np

    from tools import gpu_trace as T
    rec = np.zeros((len(pcs), T.COLUMNS), np.int32)
    rec[:, T.R_PC] = pcs
    rec[:, T.R_OP] = [pc & 0xFF for pc in pcs]      # one opcode per PC, as in a real ROM
    rec[:, T.R_CYCLES] = cycles
    rec[:, T.R_DEVICE] = device
    rec[:, T.R_RENDER] = render
    return rec


def test_scheduled_warp_counts_steps_and_paths():
    """The min-PC model: lanes at one PC share a step; the laggard runs first; every
    instruction runs exactly once; the scanline key splits lanes that are a line apart."""
    loop = [0x1000, 0x1002, 0x1004] * 4
    same = [_trace_records(loop) for _ in range(32)]
    counts, steps = G.scheduled_warp(same, "min_pc")
    assert steps == len(loop) and counts[0] == steps and counts[1] == steps   # 1 opcode a step
    free = G.lockstep_warp(same)
    assert free["steps"] == steps
    # Half the lanes one iteration behind: min-PC lets the laggards catch up at the loop head,
    # so the warp takes few more steps than one lane's length, where the free schedule would
    # issue two opcode bodies at every step.
    behind = [_trace_records(loop)] * 16 + [_trace_records(loop[1:] + [0x1006])] * 16
    counts, steps = G.scheduled_warp(behind, "min_pc")
    assert len(loop) <= steps <= len(loop) + 3
    assert counts[1] <= steps + 3
    assert G.lockstep_warp(behind)["warp"][1] == 2 * len(loop)
    # The same PCs, one lane on line 0 throughout, the other a scanline (76 cycles) further at
    # each instruction: min-PC runs them together, the scanline key only their first step.
    early = _trace_records(loop, cycles=3)
    late = _trace_records(loop, cycles=76)
    _, merged = G.scheduled_warp([early, late], "min_pc")
    _, split = G.scheduled_warp([early, late], "scanline")
    assert merged == len(loop) and split == 2 * len(loop) - 1


def _runbook_throughput():
    from tools.gpu_runbook import throughput

    return throughput


def test_every_batch_takes_the_scanline_schedule(monkeypatch):
    """The schedule is decided (an H200, 2026-11-27): no variable chooses another, and the
    runbook records the one that ran."""
    from cule_py import settings
    from cule_py.batch import ConsoleBatch, gpu_schedule
    from cule_py.kernels import layout as L
    from cule_py.kernels.gpu.warp_schedule import SCANLINE
    monkeypatch.setenv("CULE_PY_GPU_SCHEDULE", "free")     # a variable of the past: ignored
    assert gpu_schedule() == SCANLINE
    assert "CULE_PY_GPU_SCHEDULE" not in {s.name for s in settings.SETTINGS}
    batch = ConsoleBatch("pong", 2)
    assert set(batch.state[:, L.GPU_SCHEDULE].tolist()) == {SCANLINE}
    assert _runbook_throughput().DEFAULT_SCHEDULE == "scanline"


def test_drawing_at_wsync_comes_from_the_environment(monkeypatch):
    import numpy as np

    from cule_py.batch import ConsoleBatch, gpu_draw_at_wsync
    from cule_py.kernels import layout as L
    monkeypatch.delenv("CULE_PY_GPU_DRAW_AT_WSYNC", raising=False)
    # the default, and the runbook's idea of it (its throughput stage measures the default first)
    assert gpu_draw_at_wsync() == 1
    assert _runbook_throughput().DEFAULT_DRAW_AT_WSYNC == gpu_draw_at_wsync()
    assert (np.asarray(ConsoleBatch("pong", 2).state)[:, L.GPU_DRAW_AT_WSYNC] == 1).all()
    monkeypatch.setenv("CULE_PY_GPU_DRAW_AT_WSYNC", "0")
    assert gpu_draw_at_wsync() == 0
    assert (np.asarray(ConsoleBatch("pong", 2).state)[:, L.GPU_DRAW_AT_WSYNC] == 0).all()
    monkeypatch.setenv("CULE_PY_GPU_DRAW_AT_WSYNC", "yes")
    with pytest.raises(ValueError, match="use one of 1, 0"):
        gpu_draw_at_wsync()


def test_the_step_kernels_register_budget_comes_from_the_environment(monkeypatch):
    from cule_py.batch import STEP_REGISTERS, gpu_step_registers
    from cule_py.kernels.agent import agent_step as K
    monkeypatch.delenv("CULE_PY_GPU_STEP_REGISTERS", raising=False)
    assert gpu_step_registers() == 255
    throughput = _runbook_throughput()
    assert throughput.DEFAULT_REGISTERS == gpu_step_registers()
    # the runbook measures both budgets where they differ, and the capped kernel's cap is the
    # budget it is chosen for
    budgets = {i["registers"] for i in throughput.plan("full", "cuda")
               if i["kind"] == "agent" and i["consoles"] == 65_536 and i["game"] == "breakout"}
    assert budgets == {255, 128}
    plan = throughput.plan("full", "cuda")
    lean = [(i["game"], i["consoles"]) for i in plan
            if i["kind"] == "agent" and i["registers"] == 64]
    assert lean == [("seaquest", 131_072), ("breakout", 131_072)]
    # the best batch right after the five headline games, inside the first call
    agents = [i for i in plan if i["kind"] == "agent"]
    assert [(i["game"], i["consoles"]) for i in agents[:6]] == \
        [(g, 16_384) for g in throughput.BENCHMARK_GAMES] + [("seaquest", 131_072)]
    assert K.agent_step_cuda_capped.targetoptions["max_registers"] == K.STEP_REGISTER_CAP
    assert K.agent_step_cuda_lean.targetoptions["max_registers"] == K.LEAN_STEP_REGISTER_CAP
    assert sorted(K.STEP_KERNELS) == sorted(STEP_REGISTERS)
    for budget, kernel in K.STEP_KERNELS.items():
        monkeypatch.setenv("CULE_PY_GPU_STEP_REGISTERS", str(budget))
        assert gpu_step_registers() == budget
        assert kernel.targetoptions.get("max_registers", 255) == budget
    monkeypatch.setenv("CULE_PY_GPU_STEP_REGISTERS", "96")
    with pytest.raises(ValueError, match="255, 128, 64"):
        gpu_step_registers()


def test_the_reset_blocks_come_from_the_environment(monkeypatch):
    from cule_py.batch import RESET_BLOCKS, gpu_reset_blocks
    monkeypatch.delenv("CULE_PY_GPU_RESET_BLOCKS", raising=False)
    assert gpu_reset_blocks() == "own"
    throughput = _runbook_throughput()
    assert throughput.RESET_BLOCKS == RESET_BLOCKS
    # the runbook measures the default everywhere but in one A/B pair at 16,384 consoles, after
    # the headline's five games and the best batch
    plan = throughput.plan("full", "cuda")
    shared = [(i["game"], i["consoles"]) for i in plan if i["reset_blocks"] != "own"]
    assert shared == [("pong", 16_384), ("seaquest", 16_384)]
    agents = [i for i in plan if i["kind"] == "agent"]
    assert all(i["reset_blocks"] == "own" for i in agents[:6])
    monkeypatch.setenv("CULE_PY_GPU_RESET_BLOCKS", "shared")
    assert gpu_reset_blocks() == "shared"
    monkeypatch.setenv("CULE_PY_GPU_RESET_BLOCKS", "apart")
    with pytest.raises(ValueError, match="own, shared"):
        gpu_reset_blocks()


def test_reset_blocks_that_need_a_whole_sm():
    from cule_py._device import allocated_registers, own_sm_threads

    # registers go to a warp 8 a thread at a time: 255 -> 256
    assert allocated_registers(128, 255) == 32_768
    assert allocated_registers(256, 255) == 65_536
    assert allocated_registers(100, 37) == 4 * 32 * 40
    h100 = (132, 65_536)
    # the agent step at 16,384 consoles: 128 blocks of 128 threads at 255 registers; the reset
    # kernel at 255 registers may have 256 threads a block, which no SM holding a step block
    # has room for
    assert own_sm_threads(16_384, 128, 255, 255, 256, *h100) == 256
    assert own_sm_threads(131 * 128, 128, 255, 255, 256, *h100) == 256
    # no SM left empty by the step: a reset block that needs a whole one would wait for it
    assert own_sm_threads(132 * 128, 128, 255, 255, 256, *h100) is None
    assert own_sm_threads(131_072, 128, 64, 255, 256, *h100) is None
    assert own_sm_threads(16_384, 128, 255, 255, 256, 108, 65_536) is None     # an A100
    assert own_sm_threads(8_192, 128, 255, 255, 256, 108, 65_536) == 256
    # a reset kernel of fewer registers: the block that fills an SM is larger
    assert own_sm_threads(16_384, 128, 255, 64, 1024, *h100) == 1024
    assert own_sm_threads(16_384, 128, 255, 120, 544, *h100) == 544
    # ... or cannot be sized so: 256 threads at 96 registers fit beside a step block
    assert own_sm_threads(16_384, 128, 255, 96, 256, *h100) is None


def test_schedule_keys_order_scanline_before_pc():
    import numpy as np

    from cule_py.kernels.gpu.warp_schedule import schedule_key
    start = np.int64(0)
    # the PC's 13 bits only (the bank is not in the key)
    assert schedule_key(0xF123, 10, start) == schedule_key(0x1123, 10, start) == 0x1123
    # a lane a line behind comes first whatever its PC
    assert schedule_key(0x1FFF, 75, start) < schedule_key(0x1000, 76, start)
    assert schedule_key(0x1000, 76, start) >> 13 == 1
    assert schedule_key(0x1000, -5, start) == 0x1000      # clamped at line 0


def test_a_running_lanes_key_is_below_finished():
    """The GPU loop stops when the warp's minimum key is FINISHED, so no running lane may hold
    it: not at the highest PC on the last line a key can hold, nor with a clock that wrapped."""
    import numpy as np

    from cule_py.kernels.gpu.warp_schedule import FINISHED, LAST_LINE, PC_BITS, schedule_key
    start = np.int64(0)
    far = np.int32(0x7FFFFFFF // 3)                 # 3 x clk near int32's end: line clamped
    assert schedule_key(0xFFFF, far, start) == (LAST_LINE << PC_BITS) | 0x1FFF
    for pc in (0, 0x1FFF, 0xFFFF):
        for clk in (0, 75, 10_000, far, np.int32(-far)):
            assert 0 <= schedule_key(pc, clk, start) < FINISHED


def test_scheduling_plan_gives_the_schedule_keys():
    """The GPU loop reads the schedule and the frame's line phase once, packed in one word
    (scheduling_plan); planned_key from it must order lanes as schedule_key from the state."""
    import numpy as np

    from cule_py.kernels import layout as L
    from cule_py.kernels.gpu.warp_schedule import (FREE, SCANLINE, planned_key, schedule_key,
                                               scheduling_plan)
    st = np.zeros((3, L.STATE_FIELDS), np.int32)
    st[1, L.GPU_SCHEDULE] = FREE
    assert scheduling_plan(st, 1) == FREE
    rng = np.random.default_rng(5)
    for frame_start in range(-227, 1):      # tia.start_frame's phases, and reset's 0
        st[2, L.GPU_SCHEDULE] = SCANLINE
        st[2, L.TIA_FRAME_START] = frame_start
        plan = scheduling_plan(st, 2)
        assert plan != FREE
        for pc, clk in zip(rng.integers(0, 1 << 16, 4), rng.integers(-10, 30_000, 4)):
            assert planned_key(plan, pc, clk) == schedule_key(pc, clk, np.int64(frame_start))


@pytest.mark.slow
@pytest.mark.skipif(SIMULATOR, reason="the CUDA simulator cannot compile for sm_90")
@pytest.mark.parametrize("which", ["drive", "flags"])
def test_console_kernels_within_their_caps(which, capsys):
    """The register/spill regression check; also that the outlined functions exist once each."""
    try:
        row = G.compiled_row(which)
    except ImportError as err:      # no NVVM / nvJitLink here
        pytest.skip(f"cannot compile for sm_90a here: {err}")
    with capsys.disabled():
        print(f"\n  {row['kernel']}: {row['registers']} registers, frame {row['frame_bytes']} B, "
              f"{row['spill_store_bytes']}/{row['spill_load_bytes']} B spill stores/loads, "
              f"SASS {row['sass']:,}; compiled in {row['compile_s']:.0f} s, linked in "
              f"{row['link_s']:.0f} s")
    assert G.check_caps(row) == []
    if which == "drive" and G.find_nvdisasm():
        names = {G._short(f) for f in row["functions"]}
        assert set(G.OUTLINED) <= names, sorted(names)
    if G.find_nvdisasm():
        assert row["fused_float32_products"] == 0, row["fused_multiply_adds"]
        if which == "drive":
            # the console's loop is warp_schedule's CUDA version, its minimum one REDUX on
            # sm_90a (the butterfly's shuffles only where a GPU lacks it)
            assert row["warp_minimums"] >= 1 and row["warp_shuffles"] == 0, (
                row["warp_minimums"], row["warp_shuffles"])


@pytest.mark.slow
def test_trace_of_the_decoded_core_on_a_tiny_case():
    """gpu_trace's core (the package's decoded core with a recording bus) gives the package's
    results, and the model's figures are sane, on 4 Pong consoles for 2 frames after 30 random
    ones (a compile of the console on the CPU: about a minute)."""
    import numpy as np

    from tools import gpu_trace as T
    from cule_py import AtariEmulator

    traced = T.trace("pong", 4, 2, 30, seed=3)
    twin = AtariEmulator("pong", 4, seed=3)
    rng = np.random.default_rng(3)
    for _ in range(30):
        twin.act(rng.choice(np.arange(18), 4))
    actions = rng.choice(np.arange(18), (4, 2))
    assert np.array_equal(actions, traced["actions"])
    for f in range(2):
        twin.act(actions[:, f])
    a, b = traced["batch"], twin._batch
    assert np.array_equal(a.memory, b.memory)
    assert np.array_equal(a.frame_buffers, b.frame_buffers)
    from cule_py.kernels import layout as L
    for field in (L.CPU_PC, L.CPU_A, L.CPU_X, L.CPU_Y, L.CPU_S, L.CPU_P, L.CYCLES, L.TIA_CURSOR):
        assert np.array_equal(a.state[:, field], b.state[:, field]), field

    model = G.lockstep_model(traced)
    per = model["per_console_frame"]
    assert 3000 < per["instructions"] < 12000, per         # Pong: ~6,600 6507 instructions
    assert per["tia_writes"] > 500 and per["cpu_cycles"] > 19000, per
    assert 1 <= model["lanes_advanced_per_step"] <= 4 and 0 < model["frame_balance"] <= 1
    assert 1 <= model["lanes_advanced_per_step_min_pc"] <= 4
    assert 1 <= model["active_threads_per_warp_instruction"] <= 4
    ends = traced["ends"]
    assert per["instructions"] == pytest.approx(ends[:, -1].sum() / ends.size, abs=0.1)
