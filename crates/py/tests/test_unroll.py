"""Loops ptxas unrolled: the machine code keeps several iterations' global loads in flight per
warp, the PTX (issued in order, one iteration at a time) one; ``with_unrolled_loops`` runs the
PTX loop as the machine code does (no GPU and no Triton needed for these)."""

import re

import ptx2idg
from ptx2idg.triton import _loop_trips, with_unrolled_loops

# nvdisasm -c layout: one loop with four 32-bit loads first (the PTX loop has one).
SASS = """
.L_x_0:
        /*0000*/              @!P1 LDG.E R4, desc[UR12][R2.64] ;
        /*0010*/              @!P2 LDG.E R5, desc[UR12][R2.64+0x80] ;
        /*0020*/              @!P3 LDG.E R6, desc[UR12][R2.64+0x100] ;
        /*0030*/              @!P4 LDG.E R7, desc[UR12][R2.64+0x180] ;
        /*0040*/                   FADD R12, R4, R12 ;
        /*0050*/                   FADD R12, R5, R12 ;
        /*0060*/                   FADD R12, R6, R12 ;
        /*0070*/                   FADD R12, R7, R12 ;
        /*0080*/              @!P0 BRA `(.L_x_0) ;
        /*0090*/                   EXIT ;
.L_x_1:
        /*00a0*/                   BRA `(.L_x_1);
"""

# One warp per row of `n` floats: a running sum, stepping 32 columns an iteration.
PTX = """.version 8.0
.target sm_90
.address_size 64

.visible .entry k(.param .u64 x, .param .u32 n)
{
\t.reg .pred \t%p<4>;
\t.reg .b32 \t%r<20>;
\t.reg .f32 \t%f<10>;
\t.reg .b64 \t%rd<12>;
\tld.param.u64 \t%rd1, [x];
\tld.param.u32 \t%r9, [n];
\tmov.u32 \t%r1, %tid.x;
\tmov.u32 \t%r2, %ctaid.x;
\tmul.lo.s32 \t%r3, %r2, %r9;
\tmov.b32 \t%r10, 0;
\tmov.f32 \t%f1, 0f00000000;
$L__BB0_1:
\tadd.s32 \t%r4, %r1, %r10;
\tadd.s32 \t%r5, %r3, %r4;
\tsetp.lt.s32 \t%p1, %r4, %r9;
\tmul.wide.s32 \t%rd2, %r5, 4;
\tadd.s64 \t%rd3, %rd1, %rd2;
\tmov.f32 \t%f2, 0f00000000;
\t@%p1 ld.global.f32 \t%f2, [%rd3];
\tadd.f32 \t%f1, %f1, %f2;
\tadd.s32 \t%r10, %r10, 32;
\tsetp.lt.s32 \t%p2, %r10, %r9;
\t@%p2 bra \t$L__BB0_1;
\tmul.wide.u32 \t%rd4, %r2, 4;
\tadd.s64 \t%rd5, %rd1, %rd4;
\tst.global.f32 \t[%rd5], %f1;
\tret;
}
"""

LAUNCH = dict(grid=(1056,), block=(32,))


def _loads_per_warp(ptx, n):
    """Executions of global loads in one warp's IDG."""
    graph = ptx2idg.idg(ptx, params={"n": n}, **LAUNCH).graph
    idg = graph["classes"][0]["idg"]
    lines = ptx.splitlines()

    def walk(body, times):
        total = 0
        for item in body:
            if "node" in item:
                line = lines[idg["nodes"][item["node"]]["ptx_line"] - 1]
                total += times if "ld.global" in line else 0
            else:
                total += walk(item["repeat"]["body"], times * item["repeat"]["count"])
        return total

    return walk(idg["body"], 1)


def _unrolled(n):
    return with_unrolled_loops(PTX, SASS, _loop_trips(PTX, LAUNCH["grid"], 32, {"n": n}))


def test_trip_counts_of_the_ptx_loops():
    header = PTX.splitlines().index("$L__BB0_1:")
    assert _loop_trips(PTX, LAUNCH["grid"], 32, {"n": 320}) == {header: 10}


def test_the_loop_runs_four_iterations_with_their_loads_first():
    lines = _unrolled(320).splitlines()
    top = lines.index("$L__unroll0:")
    assert lines[top - 1] == "\tsub.s32 \t%r10_lim0, %r9, 96;"
    loads = [i for i, line in enumerate(lines) if "ld.global" in line]
    sums = [i for i, line in enumerate(lines) if line.startswith("\tadd.f32")]
    # Four loads in the loop, then the remainder's two; each group's loads before its sums.
    assert len(loads) == 6 and len(sums) == 6
    assert max(loads[:4]) < min(sums[:4]) and max(loads[4:]) < min(sums[4:])
    # Each copy its own registers; the sum chains through the copies and the last copy
    # writes the original names.
    assert lines[loads[1]] == "\t@%p1_u0x1 ld.global.f32 \t%f2_u0x1, [%rd3_u0x1];"
    assert [lines[i] for i in sums[:4]] == [
        "\tadd.f32 \t%f1_u0x0, %f1, %f2_u0x0;",
        "\tadd.f32 \t%f1_u0x1, %f1_u0x0, %f2_u0x1;",
        "\tadd.f32 \t%f1_u0x2, %f1_u0x1, %f2_u0x2;",
        "\tadd.f32 \t%f1, %f1_u0x2, %f2;",
    ]
    assert "\tadd.s32 \t%r10_0k3, %r10, 96;" in lines
    latch = lines.index("\t@%p2 bra \t$L__unroll0;")
    assert lines[latch - 2:latch] == ["\tadd.s32 \t%r10, %r10, 128;",
                                      "\tsetp.lt.s32 \t%p2, %r10, %r10_lim0;"]
    # The remainder's last copy feeds the code after the loop; the induction ends where the
    # original loop left it.
    assert "\tadd.f32 \t%f1, %f1_r0s2x0, %f2;" in lines
    assert lines[sums[-1] + 1] == "\tadd.s32 \t%r10, %r10, 64;"


def test_fewer_iterations_than_the_unroll_run_as_the_remainder_blocks():
    # ptxas follows a loop unrolled by 4 with a 2x block and a 1x block, each run once if that
    # many iterations remain: 3 iterations are the 2x block (both loads first), then the 1x.
    lines = _unrolled(96).splitlines()
    assert "$L__unroll0:" not in lines and "$L__BB0_1:" not in lines
    loads = [i for i, line in enumerate(lines) if "ld.global" in line]
    sums = [i for i, line in enumerate(lines) if line.startswith("\tadd.f32")]
    assert len(loads) == 3 and max(loads[:2]) < min(sums[:2]) and sums[1] < loads[2]
    assert [lines[i] for i in sums] == [
        "\tadd.f32 \t%f1_r0s2x0, %f1, %f2_r0s2x0;",
        "\tadd.f32 \t%f1, %f1_r0s2x0, %f2;",
        "\tadd.f32 \t%f1, %f1, %f2;",
    ]
    # One iteration: nothing to overlap, the loop stays.
    assert _unrolled(32) == PTX


def test_an_unroll_by_three_ends_in_single_copies():
    # A machine-code loop with three loads per PTX load: 5 iterations are one pass of three
    # copies, then two blocks of one (no block of U/2 = 1.5 copies to halve further).
    three = re.sub(r".*LDG.E R7.*\n", "", SASS)
    trips = _loop_trips(PTX, LAUNCH["grid"], 32, {"n": 160})
    lines = with_unrolled_loops(PTX, three, trips).splitlines()
    assert "$L__unroll0:" in lines
    assert sum("ld.global" in line for line in lines) == 3 + 1 + 1
    assert _loads_per_warp("\n".join(lines) + "\n", 160) == 5


def test_every_iteration_still_runs_once():
    for n in (320, 256, 128, 96, 64):
        assert _loads_per_warp(_unrolled(n), n) == _loads_per_warp(PTX, n) == n // 32


def test_unrolled_loads_overlap():
    before = ptx2idg.simulate(PTX, params={"n": 4096}, **LAUNCH).cycles[0]
    after = ptx2idg.simulate(_unrolled(4096), params={"n": 4096}, **LAUNCH).cycles[0]
    # 128 iterations: the model waited a DRAM round trip per iteration, now per four.
    assert after < 0.6 * before


def test_loops_ptxas_left_alone_stay():
    # The machine code's loop loads what the PTX loop loads.
    one = re.sub(r".*LDG.E R[567].*\n", "", SASS)
    assert with_unrolled_loops(PTX, one, {PTX.splitlines().index("$L__BB0_1:"): 10}) == PTX
    # A loop that is not counted by `add i, i, S; setp.lt p, i, N`.
    down = PTX.replace("add.s32 \t%r10, %r10, 32;", "sub.s32 \t%r10, %r10, 32;")
    assert with_unrolled_loops(down, SASS, {PTX.splitlines().index("$L__BB0_1:"): 10}) == down
