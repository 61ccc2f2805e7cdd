"""tools/gpu_line_profile.py: the per-line estimate of a GPU console-frame's instructions.

The parsers are checked on small made-up inputs; one slow case runs the whole tool (the CUDA
simulator's line counts and an offline sm_90a compile with line information) on one Pong
console and checks that the estimate lands where Nsight Compute put the agent step on an H100
(2.7 M thread instructions a console-frame, benchmarks/RESULTS.md, 2026-11-26), within the
tool's stated accuracy, and that every line it charges exists in the kernel sources.
"""

from __future__ import annotations

import pathlib

import pytest

from tools import gpu_line_profile as glp

REPO = pathlib.Path(__file__).resolve().parents[1]


LOOP_IR = """define i32 @f(i32 %n) {
entry:
  br label %B2
B2:
  %i = phi i32 [0, %entry], [%j, %"B4.body"]
  %c = icmp slt i32 %i, %n
  br i1 %c, label %"B4.body", label %B6, !dbg !7
"B4.body":
  %j = add i32 %i, 1
  br label %B2, !dbg !8
B6:
  ret i32 %i
}
!7 = !{}
!8 = !{}
"""


def test_only_back_edges_are_marked_not_to_unroll():
    out = glp.without_unrolling(LOOP_IR).splitlines()
    marked = [line for line in out if "!llvm.loop" in line]
    assert marked == ["  br label %B2, !dbg !8, !llvm.loop !10"]     # the latch alone
    assert '!9 = !{!"llvm.loop.unroll.disable"}' in out
    assert "!10 = distinct !{!10, !9}" in out
    # everything else as it was
    restored = [line.replace(", !llvm.loop !10", "") for line in out
                if not line.startswith(("!9 ", "!10 "))]
    assert restored == LOOP_IR.splitlines()


SASS = """
\t.section\t.text._ZN5entry,"ax",@progbits
\t//## File "/k/a.py", line 5 inlined at "/k/b.py", line 20
\t//## File "/k/b.py", line 20
        /*0000*/                   IADD3 R1, R2, R3, RZ ;
        /*0010*/                   IADD3 R1, R2, R3, RZ ;
\t//## File "/k/a.py", line 5 inlined at "/k/b.py", line 30
\t//## File "/k/b.py", line 30
        /*0020*/                   STL [R1], R2 ;  // SpillRefill
\t//## File "/k/b.py", line 30
        /*0030*/                   BRA 0x40 ;
$__internal_0_$__cuda_sm20_div_s64:
        /*0040*/                   IMAD R1, R2, R3, RZ ;
"""


def test_sass_is_charged_to_the_innermost_line_per_inlined_copy():
    lines = glp.sass_sites(SASS)["lines"]
    assert lines["/k/a.py:5"] == {"sass": 3, "copies": 2, "spill": 1}
    assert lines["/k/b.py:30"] == {"sass": 1, "copies": 1, "spill": 0}
    # the runtime's routines carry no lines and are charged to nobody
    assert sum(v["sass"] for v in lines.values()) == 4


def test_sites_keep_each_copy_with_its_function_and_call_sites():
    sites = {(f, w, tuple(c)): n for f, w, c, n in glp.sass_sites(SASS)["sites"]}
    assert sites == {("entry", "/k/a.py:5", ("/k/b.py:20",)): 2,
                     ("entry", "/k/a.py:5", ("/k/b.py:30",)): 1,
                     ("entry", "/k/b.py:30", ()): 1,
                     ("__cuda_sm20_div_s64", None, ()): 1}


def test_footprint_counts_a_copy_only_where_its_call_sites_ran():
    k = str(glp.KERNEL_DIR)
    sass = {"sites": [["device_write", f"{k}/tia/render.py:5", [f"{k}/tia/tia.py:20"], 10],
                      ["device_write", f"{k}/tia/render.py:5", [f"{k}/tia/tia.py:30"], 7],
                      ["device_write", f"{k}/tia/tia.py:20", [], 3],
                      ["run_console_frames", f"{k}/gpu/warp_schedule.py:9", [], 4],
                      ["run_console_frames", None, [], 2]]}
    counts = {"lines": {f"{k}/tia/render.py:5": 5, f"{k}/tia/tia.py:20": 5,
                        f"{k}/tia/tia.py:30": 0}}
    result = glp.footprint(counts, sass)
    # the copy inlined at tia.py:30 never ran; the scheduler's loop always runs; lines the
    # runtime's routines hold (None) are not known to run
    assert result["functions"] == {"device_write": {"hot": 13, "total": 20},
                                   "run_console_frames": {"hot": 4, "total": 6}}
    assert (result["hot"], result["total"]) == (17, 26)


def test_footprint_takes_a_def_line_as_run_where_its_body_ran():
    # the line info names a function's `def` line as the outermost call site of some of what it
    # inlined; the tracer never counts a `def` line
    k = str(glp.KERNEL_DIR)
    lines = (glp.KERNEL_DIR / "tia" / "render.py").read_text().splitlines()
    define = 1 + next(i for i, text in enumerate(lines) if text.startswith("def draw_until"))
    body = define + 1 + next(i for i, text in enumerate(lines[define:])
                             if text.strip().startswith("out_of_line()"))
    sass = {"sites": [["draw_until", f"{k}/tia/render.py:5", [f"{k}/tia/render.py:{define}"],
                       9]]}
    ran_body = {"lines": {f"{k}/tia/render.py:5": 1, f"{k}/tia/render.py:{body}": 1}}
    assert glp.footprint(ran_body, sass)["hot"] == 9
    only_the_line = {"lines": {f"{k}/tia/render.py:5": 1}}
    assert glp.footprint(only_the_line, sass)["hot"] == 0


def test_estimate_multiplies_runs_by_sass_per_copy():
    kernels = str(glp.KERNEL_DIR)
    counts = {"frames": 2,
              "lines": {f"{kernels}/tia/tia.py:10": 6, f"{kernels}/tia/tia.py:11": 2}}
    sass = {"lines": {f"{kernels}/tia/tia.py:10": {"sass": 8, "copies": 2, "spill": 0}}}
    result = glp.estimate(counts, sass)
    assert result["total"] == pytest.approx(3 * 4)               # 3 runs a frame x 4 SASS
    assert result["by_file"] == {"tia/tia.py": pytest.approx(12), "gpu/warp_schedule.py": 0}
    assert result["line_executions_without_sass"] == pytest.approx(1)


@pytest.mark.slow
@pytest.mark.cuda
def test_pong_agent_step_estimate_against_the_h100s_count(tmp_path):
    pytest.importorskip("cuda.bindings.nvjitlink", reason="needs the test extra's nvJitLink")
    from tools import gpu_model

    if gpu_model.find_nvdisasm() is None:
        pytest.skip("nvdisasm not installed (the test extra brings it)")
    counts = glp.line_counts("pong", consoles=2, warmup=30, steps=1)
    sass = glp.line_sass("step", tmp_path)
    result = glp.estimate(counts, sass)
    # ncu on the H200 (2026-11-30, 1ac43ab's step, Pong after 300 frames): 2.04 M thread
    # instructions a console-frame (133.7 G in a launch of 16,384 consoles x 4 frames). The
    # estimate runs loops without unrolling and counts other frames on other consoles: within a
    # factor of two of it
    assert 1.02e6 < result["total"] < 4.08e6, result["total"]
    assert {"agent/agent_step.py", "tia/render.py", "cpu/cpu6507.py", "tia/tia.py"} <= set(
        result["by_file"])
    for row in result["rows"][:20]:
        if row["line"] == "gpu/warp_schedule.py:loop":
            continue                                # the GPU's loop, charged per instruction
        path, line = row["line"].rsplit(":", 1)
        assert (glp.KERNEL_DIR / path).exists() and glp.source_text(row["line"]), row
    # the GPU's console loop (warp_schedule), which the simulator replaces by the free loop, is
    # charged once per 6507 instruction
    loop = next(r for r in result["rows"] if r["line"] == "gpu/warp_schedule.py:loop")
    assert loop["per_frame"] > 1000 and loop["sass_per_copy"] > 20
    # The hot code stays where one shared renderer put it: with these counts and this (rolled)
    # compile, 7,222 SASS instructions at a05e321, 9,047 with a renderer inlined in each TIA
    # access (ce20cd5). The instruction caches are the GPU's limit on decorrelated consoles.
    hot = glp.footprint(counts, sass)
    assert hot["hot"] < 8000, hot["functions"]
    assert hot["functions"]["draw_until"]["hot"] > 500


def _records(lanes, lines):
    return {"lines": {i: f"{glp.KERNEL_DIR}/{name}" for i, name in lines.items()},
            "lanes": lanes}


def test_warp_cost_issues_each_round_as_its_busiest_lane():
    kernels = str(glp.KERNEL_DIR)
    sass = {"lines": {f"{kernels}/tia/tia.py:10": {"sass": 2, "copies": 1, "spill": 0}}}
    lines = {0: "tia/tia.py:10"}
    # two lanes at the same key: one round, the warp runs the line 3 times (lane 0's count)
    together = glp.warp_cost(_records([[(5, ((0, 3),))], [(5, ((0, 1),))]], lines), sass)
    assert together["rounds"] == 1 and together["lanes_per_round"] == 2
    assert together["warp_identical"] == pytest.approx((3 + 1) * 2 / 2)
    assert together["warp_scanline"] == pytest.approx(3 * 2)
    assert together["divergence_by_line"] == {"tia/tia.py:10": pytest.approx((3 - 1) * 2 / 2)}
    # at different keys: two rounds, each lane's count alone
    apart = glp.warp_cost(_records([[(5, ((0, 3),))], [(6, ((0, 1),))]], lines), sass)
    assert apart["rounds"] == 2 and apart["warp_scanline"] == pytest.approx((3 + 1) * 2)
    assert apart["lanes_per_warp_instruction"] == pytest.approx(1.0)




def test_scheduled_step_lines_hold_the_minimum_but_not_the_plan():
    """A scheduled step is charged the loop's lines and its helpers', the warp minimum's
    REDUX included (the compile charges it to the CUDA overload's line), but not the plan
    read once a frame before the loop."""
    import inspect

    from cule_py.kernels.gpu import warp_schedule as W

    lines = glp._scheduled_step_lines()
    source = (glp.KERNEL_DIR / "gpu" / "warp_schedule.py").read_text().splitlines()
    redux = [i + 1 for i, text in enumerate(source) if "return _redux_min_s32(" in text]
    assert redux and set(redux) <= lines
    plan_first = inspect.getsourcelines(W.scheduling_plan)[1]
    plan_lines = range(plan_first, plan_first + len(inspect.getsourcelines(W.scheduling_plan)[0]))
    assert not lines & set(plan_lines)
    assert any("lowest = warp_minimum(key)" in source[i - 1] for i in lines)
