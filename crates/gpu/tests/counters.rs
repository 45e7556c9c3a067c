//! `gpu::counters` on a small kernel: the IDGs' per-warp counts (repeats multiplied out,
//! classes weighted by their warps, the walk's divergent branches), the SASS factors, and the
//! comparison with a hand-written profile (residual, relative error, the 25 % flag).

mod common;

use common::launch;

use gpu::counters::{compare, explain, kernel_counts, Counter};
use gpu::SassExpansion;

/// Two warps: ten iterations of a global load and a shared store, then a store that only the
/// lanes 16.. of the block run (warp 0 splits on it, warp 1 does not).
const PTX: &str = ".version 8.0\n.target sm_90\n.address_size 64\n\
.visible .entry k(.param .u64 p)\n{\n\
\t.reg .pred %p<4>;\n\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<8>;\n\t.reg .f32 %f<4>;\n\
\t.shared .align 4 .b8 buf[4096];\n\
\tld.param.u64 %rd1, [p];\n\tcvta.to.global.u64 %rd2, %rd1;\n\
\tmov.u32 %r1, %tid.x;\n\tmul.wide.u32 %rd3, %r1, 4;\n\tadd.s64 %rd4, %rd2, %rd3;\n\
\tmov.u32 %r2, 0;\n\
$L_loop:\n\
\tld.global.f32 %f1, [%rd4];\n\tst.shared.f32 [buf], %f1;\n\
\tadd.s32 %r2, %r2, 1;\n\tsetp.lt.u32 %p1, %r2, 10;\n\t@%p1 bra $L_loop;\n\
\tsetp.lt.u32 %p2, %r1, 16;\n\t@%p2 bra $L_skip;\n\
\tst.global.f32 [%rd4], %f1;\n\
$L_skip:\n\tret;\n}\n";

fn built() -> walk::Built {
    common::front_end(PTX, "k", [1, 1, 1], [64, 1, 1])
}

#[test]
fn the_walk_counts_divergent_branches_per_class() {
    let b = built();
    assert_eq!(b.idgs.classes.len(), 2);
    assert_eq!(b.divergent_branches, vec![1, 0]);
}

#[test]
fn counts_multiply_repeats_and_weight_classes_by_warps() {
    let b = built();
    let c = kernel_counts(&b.idgs, Some(&b.divergent_branches));
    assert_eq!(c.get(Counter::GlobalLoads), 10.0);
    assert_eq!(c.get(Counter::SharedStores), 10.0);
    assert_eq!(c.get(Counter::SharedLoads), 0.0);
    // Warp 0's store runs with 16 lanes, warp 1's with 32: both issue it once.
    assert_eq!(c.get(Counter::GlobalStores), 1.0);
    assert_eq!(c.get(Counter::DivergentBranches), 0.5);
    let per_warp: Vec<u64> = b
        .idgs
        .classes
        .iter()
        .map(|k| k.idg.instruction_count())
        .collect();
    assert_eq!(
        c.get(Counter::Instructions),
        (per_warp[0] + per_warp[1]) as f64 / 2.0
    );
    // Active lanes of every unrolled instruction, as the walk recorded them.
    let lanes: Vec<u64> = b
        .idgs
        .classes
        .iter()
        .map(|k| {
            let g = k.idg.materialize(10_000).unwrap();
            g.node_indices()
                .map(|v| u64::from(k.idg.node(g[v].node).active_lanes))
                .sum()
        })
        .collect();
    assert_eq!(
        c.get(Counter::ThreadInstructions),
        (lanes[0] + lanes[1]) as f64 / 2.0
    );
    // Guarded instructions count the lanes whose guard holds: the skip branch and the store.
    assert!(c.get(Counter::ThreadInstructions) < 32.0 * c.get(Counter::Instructions));
    // Without the walk's side table (IDGs read from JSON) nothing is divergent.
    assert_eq!(
        kernel_counts(&b.idgs, None).get(Counter::DivergentBranches),
        0.0
    );
}

#[test]
fn comparison_applies_factors_and_flags_counters_over_25_percent() {
    let b = built();
    let insts = kernel_counts(&b.idgs, None).get(Counter::Instructions);
    let l = launch(&[
        ("sm__warps_launched.sum", 2.0),
        // SASS has 1.5x the PTX instructions: agrees once the factor is applied.
        ("smsp__inst_executed.sum", 2.0 * 1.5 * insts),
        ("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", 20.0),
        ("l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", 2.0),
        // 15 shared stores per warp measured, 10 predicted: 33 % apart.
        ("smsp__sass_inst_executed_op_shared_st.sum", 30.0),
        ("smsp__sass_inst_executed_op_shared_ld.sum", 0.0),
        ("smsp__sass_branch_targets_threads_divergent.sum", 1.0),
    ]);
    let e = SassExpansion {
        inst: 1.5,
        ..SassExpansion::default()
    };
    let rows = compare(&b.idgs, Some(&b.divergent_branches), &e, &l).unwrap();
    let row = |c: Counter| rows.iter().find(|r| r.counter == c).unwrap();
    let i = row(Counter::Instructions);
    assert_eq!(i.factor, 1.5);
    assert_eq!(i.predicted, Some(1.5 * insts));
    assert!(i.difference().unwrap().abs() < 1e-9 && !i.disagrees());
    let s = row(Counter::SharedStores);
    assert_eq!((s.predicted, s.measured), (Some(10.0), Some(15.0)));
    assert_eq!(s.difference(), Some(-5.0));
    assert!((s.relative().unwrap() + 1.0 / 3.0).abs() < 1e-12);
    assert!(s.disagrees());
    assert!(!row(Counter::GlobalLoads).disagrees());
    // Measured 0, predicted 0: agree; a counter the profile lacks is not judged.
    assert_eq!(row(Counter::SharedLoads).relative(), None);
    assert_eq!(row(Counter::Branches).measured, None);
    assert!(!row(Counter::Branches).disagrees());
    let text = explain(&rows);
    assert_eq!(text.matches("warning:").count(), 1, "{text}");
    assert!(text.contains("warning: shared_stores per warp"), "{text}");
    // No warp count: nothing to compare per warp.
    assert!(compare(
        &b.idgs,
        None,
        &e,
        &launch(&[("smsp__inst_executed.sum", 1.0)])
    )
    .is_none());
}

#[test]
fn the_h100_profile_carries_the_measured_factors_and_others_default_to_one() {
    let h100 = gpu::GpuProfile::bundled("hopper-h100").unwrap();
    assert!(h100.sass_expansion.inst > 1.0, "{:?}", h100.sass_expansion);
    let pascal = gpu::GpuProfile::bundled("pascal-gtx1060").unwrap();
    assert_eq!(pascal.sass_expansion, SassExpansion::default());
}

/// One warp: one wmma tile, C loaded, A and B loaded, D stored (bench/sass/fragments.ptx).
const WMMA: &str = ".version 8.0\n.target sm_90\n.address_size 64\n\
.visible .entry w(.param .u64 p)\n{\n\
\t.reg .b32 %r<20>;\n\t.reg .b64 %rd<4>;\n\t.reg .f32 %f<20>;\n\
\tld.param.u64 %rd1, [p];\n\tcvta.to.global.u64 %rd2, %rd1;\n\
\twmma.load.c.sync.aligned.row.m16n16k16.global.f32 {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}, [%rd2], 16;\n\
\twmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, [%rd2], 16;\n\
\twmma.load.b.sync.aligned.col.m16n16k16.global.f16 {%r9, %r10, %r11, %r12, %r13, %r14, %r15, %r16}, [%rd2], 16;\n\
\twmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 {%f9, %f10, %f11, %f12, %f13, %f14, %f15, %f16}, \
{%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, {%r9, %r10, %r11, %r12, %r13, %r14, %r15, %r16}, \
{%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8};\n\
\twmma.store.d.sync.aligned.row.m16n16k16.global.f32 [%rd2], {%f9, %f10, %f11, %f12, %f13, %f14, %f15, %f16}, 16;\n\
\tret;\n}\n";

#[test]
fn a_wmma_fragment_counts_the_requests_ptxas_makes_of_it() {
    let b = common::front_end(WMMA, "w", [1, 1, 1], [32, 1, 1]);
    // ptxas: 12 LDG (4 per wmma.load), 4 STG.E.64, 2 HMMA: the 8 PTX instructions count 21.
    let l = launch(&[
        ("sm__warps_launched.sum", 1.0),
        ("smsp__inst_executed.sum", 21.0),
        ("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", 12.0),
        ("l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", 4.0),
    ]);
    let rows = compare(&b.idgs, None, &SassExpansion::default(), &l).unwrap();
    let row = |c: Counter| rows.iter().find(|r| r.counter == c).unwrap();
    assert_eq!(row(Counter::GlobalLoads).predicted, Some(12.0));
    assert_eq!(row(Counter::GlobalStores).predicted, Some(4.0));
    assert_eq!(row(Counter::Instructions).predicted, Some(21.0));
    assert!(rows.iter().all(|r| !r.disagrees()), "{}", explain(&rows));
    // The PTX counts themselves are one per instruction.
    assert_eq!(kernel_counts(&b.idgs, None).get(Counter::GlobalLoads), 3.0);
}
