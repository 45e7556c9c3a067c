"""Global loads the machine code serializes: ptxas gave two loads of a loop the same
destination registers, so the second issues only once the first one's data was read; the PTX
the model reads has them in flight together (no GPU and no Triton needed for these)."""

import ptx2idg
from ptx2idg.triton import sass_reused_load_registers, with_serialized_loads

# nvdisasm -c layout: a loop whose two 128-bit loads share R4..R7 (the second waits for the
# first's data to be read), then a loop whose two loads have registers of their own.
SASS = """
.L_x_0:
        /*0000*/              @!P2 LDG.E.128 R4, desc[UR12][R2.64+0x1000] ;
        /*0010*/                   FADD R12, R4, R12 ;
        /*0020*/              @!P0 LDG.E.128 R4, desc[UR12][R2.64] ;
        /*0030*/                   FADD R12, R7, R12 ;
        /*0040*/              @!P0 BRA `(.L_x_0) ;
.L_x_1:
        /*0050*/                   LDG.E.128 R16, desc[UR12][R2.64] ;
        /*0060*/                   LDG.E.64 R20, desc[UR12][R8.64] ;
        /*0070*/                   FADD R12, R16, R20 ;
        /*0080*/              @!P0 BRA `(.L_x_1) ;
        /*0090*/                   EXIT ;
.L_x_2:
        /*00a0*/                   BRA `(.L_x_2);
"""


def _ptx(loop_body):
    return f""".version 8.0
.target sm_90
.address_size 64

.visible .entry k(.param .u64 x)
{{
\t.reg .pred \t%p<3>;
\t.reg .b32 \t%r<40>;
\t.reg .b64 \t%rd<12>;
\tld.param.u64 \t%rd1, [x];
\tmov.u32 \t%r1, %tid.x;
\tmov.u32 \t%r2, %ctaid.x;
\tshl.b32 \t%r3, %r2, 16;
\tadd.s32 \t%r3, %r3, %r1;
\tmul.wide.u32 \t%rd2, %r3, 16;
\tadd.s64 \t%rd3, %rd1, %rd2;
\tmov.u32 \t%r30, 0;
\tmov.u32 \t%r31, 0;
\tsetp.lt.u32 \t%p1, %r1, 1024;
$L__BB0_1:
{loop_body}\tadd.s64 \t%rd3, %rd3, 1024;
\tadd.s32 \t%r31, %r31, 1;
\tsetp.lt.u32 \t%p2, %r31, 64;
\t@%p2 bra \t$L__BB0_1;
\tmov.u32 \t%r32, 0;
$L__BB0_2:
\tld.global.v2.b32 \t{{ %r20, %r21 }}, [ %rd3 + 0 ];
\tadd.s32 \t%r32, %r32, 1;
\tsetp.lt.u32 \t%p2, %r32, 8;
\t@%p2 bra \t$L__BB0_2;
\tret;
}}
"""


PTX = _ptx("""\t@%p1 ld.global.v4.b32 { %r4, %r5, %r6, %r7 }, [ %rd3 + 512 ];
\tld.global.v4.b32 { %r8, %r9, %r10, %r11 }, [ %rd3 + 0 ];
\tadd.s32 \t%r30, %r30, %r4;
\tadd.s32 \t%r30, %r30, %r11;
""")


def test_loads_with_the_previous_loads_registers_are_marked():
    assert sass_reused_load_registers(SASS) == [[False, True], [False, False]]


def test_the_serialized_load_depends_on_the_previous_loads_data():
    lines = with_serialized_loads(PTX, SASS).splitlines()
    second = next(i for i, line in enumerate(lines) if "%r8, %r9" in line)
    assert lines[second - 2] == "\tsetp.ne.b32 \t%ser_d1, %r4, 2147483647;"
    assert lines[second - 1] == "\tmov.pred \t%ser_p1, %ser_d1;"
    assert lines[second].startswith("\t@%ser_p1 ld.global.v4.b32")
    assert "\t.reg .pred \t%ser_d1, %ser_p1;" in lines
    # The first loop's first load and the second loop are as they were.
    assert "\t@%p1 ld.global.v4.b32 { %r4, %r5, %r6, %r7 }, [ %rd3 + 512 ];" in lines
    assert "\tld.global.v2.b32 \t{ %r20, %r21 }, [ %rd3 + 0 ];" in lines


def test_a_predicated_load_keeps_its_predicate():
    swapped = _ptx("""\tld.global.v4.b32 { %r4, %r5, %r6, %r7 }, [ %rd3 + 512 ];
\t@!%p1 ld.global.v4.b32 { %r8, %r9, %r10, %r11 }, [ %rd3 + 0 ];
\tadd.s32 \t%r30, %r30, %r11;
""")
    lines = with_serialized_loads(swapped, SASS).splitlines()
    second = next(i for i, line in enumerate(lines) if "%r8, %r9" in line)
    assert lines[second - 2] == "\tnot.pred \t%ser_p1, %p1;"
    assert lines[second - 1] == "\tand.pred \t%ser_p1, %ser_p1, %ser_d1;"
    assert lines[second].startswith("\t@%ser_p1 ld.global")


def test_serialized_loads_take_two_round_trips():
    launch = dict(kernel="k", grid=(132,), block=(256,))
    both = ptx2idg.simulate(PTX, **launch).cycles[0]
    one_by_one = ptx2idg.simulate(with_serialized_loads(PTX, SASS), **launch).cycles[0]
    # 64 iterations, each now waiting for a DRAM round trip more.
    assert one_by_one > both + 64 * 300


def test_unrolled_or_unmatched_loops_are_left_alone():
    # The machine code's loop has three loads where the PTX loop has two (ptxas unrolled it).
    unrolled = SASS.replace("/*0030*/                   FADD R12, R7, R12 ;",
                            "/*0030*/                   LDG.E.128 R4, desc[UR12][R2.64] ;")
    assert with_serialized_loads(PTX, unrolled) == PTX
    # One loop in the machine code, two in the PTX.
    one_loop = SASS.replace("/*0080*/              @!P0 BRA `(.L_x_1) ;",
                            "/*0080*/                   NOP ;")
    assert with_serialized_loads(PTX, one_loop) == PTX
