"""Register spills: the machine code's local-memory accesses, read from its disassembly and
added to the PTX the model reads (no GPU and no Triton needed for these)."""

import pytest

import ptx2idg
from ptx2idg.triton import LocalAccess, sass_local_accesses, with_local_traffic

# nvdisasm -c layout: an access before the loop, a loop with a 64-bit store and a 128-bit
# load-and-unlock, and the self-branch ptxas puts after EXIT (not a loop of the kernel).
SASS = """
        /*0000*/                   MOV R1, c[0x0][0x28] ;
        /*0010*/                   STL [R1], RZ ;
.L_x_0:
        /*0020*/                   STL.64 [R1+0x8], R2 ;
        /*0030*/                   LDL.LU.128 R4, [R1+0x10] ;
        /*0040*/                   FADD R8, R8, 1 ;
        /*0050*/               @P0 BRA `(.L_x_0) ;
        /*0060*/                   LDL.U8 R9, [R1+0x20] ;
        /*0070*/                   EXIT ;
.L_x_1:
        /*0080*/                   BRA `(.L_x_1);
"""

PTX = """.version 8.0
.target sm_90
.address_size 64

.visible .entry k(.param .u64 p)
{
\t.reg .pred \t%p<2>;
\t.reg .b32 \t%r<3>;
\t.reg .f32 \t%f<3>;
\tmov.u32 \t%r1, 0;
\tmov.f32 \t%f1, 0f00000000;
$L__BB0_1:
\tadd.f32 \t%f1, %f1, 0f3F800000;
\tadd.s32 \t%r1, %r1, 1;
\tsetp.lt.u32 \t%p1, %r1, 256;
\t@%p1 bra \t$L__BB0_1;
\tret;
}
"""


def test_local_accesses_by_loop():
    outside, loops = sass_local_accesses(SASS)
    assert outside == [LocalAccess(True, 4), LocalAccess(False, 1)]
    assert loops == [[LocalAccess(True, 8), LocalAccess(False, 16)]]


def test_loop_accesses_go_to_the_top_of_the_ptx_loop():
    lines = with_local_traffic(PTX, SASS).splitlines()
    head = lines.index("$L__BB0_1:")
    assert lines[head + 1] == "\tst.local.b64 \t[%spill_addr], %spill_sd;"
    assert lines[head + 2] == "\tld.local.v2.b64 \t{%spill_d, %spill_e}, [%spill_addr];"
    # The others run once, at the kernel's entry (after the declarations).
    entry = [line for line in lines[:head] if "local." in line]
    assert entry == ["\tst.local.b32 \t[%spill_addr], %spill_sr;",
                     "\tld.local.b8 \t%spill_h, [%spill_addr];"]


def test_spill_traffic_in_the_loop_costs_time():
    launch = dict(kernel="k", grid=(132 * 8,), block=(256,))
    plain = ptx2idg.simulate(PTX, **launch).time_us[0]
    spilled = ptx2idg.simulate(with_local_traffic(PTX, SASS), **launch).time_us[0]
    # 256 iterations of a 64-bit store and a 128-bit load per thread, against 4 ALU ops.
    assert spilled > 2 * plain


def test_unmatched_loops_fail_loudly():
    two_loops = SASS.replace("/*0060*/                   LDL.U8 R9, [R1+0x20] ;",
                             "/*0060*/               @P1 BRA `(.L_x_0) ;")
    straight = PTX.replace("\t@%p1 bra \t$L__BB0_1;\n", "")
    with pytest.raises(ptx2idg.Ptx2idgError, match="loops"):
        with_local_traffic(straight, two_loops)
