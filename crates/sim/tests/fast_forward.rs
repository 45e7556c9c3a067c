//! Fast-forward over a repeating schedule is exact: every result equals that of the run that
//! simulates each instruction, and the fixtures below are chosen so that it does skip.

mod common;

use common::{body_strategy, eighths, options};
use idg::BarrierKind;
use proptest::prelude::*;
use sim::synth::{self, Piece, SynthNode, TABLE2};
use sim::{simulate, ExecConfig, Hardware, IssueOrder, Scheduler, SimOptions, SimResult};

/// Both runs; asserts equal results and returns them with the fast-forwarded count.
fn both(
    k: &synth::SynthKernel,
    table: &[(f64, f64)],
    hw: &Hardware,
    exec: &ExecConfig,
    opts: SimOptions,
) -> (SimResult, u64) {
    let costs = synth::costs_for(k, table, hw);
    let slow = simulate(
        &k.kernel,
        &costs,
        hw,
        exec,
        &SimOptions {
            fast_forward: false,
            ..opts
        },
    )
    .unwrap();
    let fast = simulate(
        &k.kernel,
        &costs,
        hw,
        exec,
        &SimOptions {
            fast_forward: true,
            ..opts
        },
    )
    .unwrap();
    assert_eq!(slow.fast_forwarded, 0);
    let skipped = fast.fast_forwarded;
    assert_eq!(
        SimResult {
            fast_forwarded: 0,
            ..fast
        },
        slow
    );
    (slow, skipped)
}

/// Both runs (see [`both`]); asserts that more than `1/div` of the instructions were skipped.
fn skips_over(
    k: &synth::SynthKernel,
    table: &[(f64, f64)],
    hw: &Hardware,
    exec: &ExecConfig,
    opts: SimOptions,
    div: u64,
    case: &str,
) {
    let (r, skipped) = both(k, table, hw, exec, opts);
    assert!(
        skipped > r.instructions / div,
        "{case}: only {skipped} of {} skipped",
        r.instructions
    );
}

#[test]
fn many_groups_skip_whole_waves() {
    let k = synth::paper_example(4, 5000);
    let mut hw = synth::hardware(2, Some(1.0), 2);
    hw.dispatch_latency = 3 * synth::TICKS_PER_CYCLE;
    hw.dispatch_interval = 2 * synth::TICKS_PER_CYCLE;
    for sched in Scheduler::ALL {
        for order in [IssueOrder::Dataflow, IssueOrder::InOrder] {
            for parts in [false, true] {
                for concurrent in [1, 3, 8] {
                    skips_over(
                        &k,
                        &TABLE2,
                        &hw,
                        &k.exec(concurrent),
                        options(sched, order, parts),
                        2,
                        &format!("{sched} {order:?} parts={parts} γ={concurrent}"),
                    );
                }
            }
        }
    }
}

/// Groups replace each other in whichever slot frees first, so a state recurs with the same
/// group in the same slot only after every slot has had its turn, which few groups leave no
/// room to skip; up to a renaming of the slots (which the key ignores) it recurs sooner.
#[test]
fn renamed_slots_still_repeat() {
    // A straight-line warp long enough that every group start may be a checkpoint.
    let body: Vec<Piece> = (0..60u32)
        .map(|i| Piece::Node(SynthNode::op((i % 2) as u16, &[i % 5], &[(i + 1) % 5])))
        .collect();
    let k = synth::build(&body, 2, 40);
    let mut hw = synth::hardware(2, Some(1.0), 4);
    hw.dispatch_latency = 3 * synth::TICKS_PER_CYCLE;
    hw.dispatch_interval = 7 * synth::TICKS_PER_CYCLE;
    for sched in [Scheduler::GreedyThenOldest, Scheduler::OldestFirst] {
        for order in [IssueOrder::Dataflow, IssueOrder::InOrder] {
            for concurrent in [5, 7] {
                skips_over(
                    &k,
                    &TABLE2,
                    &hw,
                    &k.exec(concurrent),
                    options(sched, order, false),
                    3,
                    &format!("{sched} {order:?} γ={concurrent}"),
                );
            }
        }
    }
}

/// Partitions that share a core-wide pipeline take it oldest ready warp first, which a
/// renaming of the partitions does not change, so their schedule still repeats.
#[test]
fn sm_wide_pipes_still_repeat() {
    let k = synth::instruction_mix(3, 5000, 1, 16);
    let mut hw = synth::hardware(2, Some(2.0), 4);
    hw.sm_wide = 0b10;
    // (Loose round-robin skips less here: its per-partition rotation and the core-wide
    // pipe's oldest-first arbitration line up again only after a longer period.)
    for sched in [Scheduler::GreedyThenOldest, Scheduler::OldestFirst] {
        for order in [IssueOrder::Dataflow, IssueOrder::InOrder] {
            skips_over(
                &k,
                &TABLE2,
                &hw,
                &k.exec(1),
                options(sched, order, true),
                2,
                &format!("{sched} {order:?}"),
            );
        }
    }
}

#[test]
fn long_loops_skip_iterations() {
    let k = synth::instruction_mix(3, 5000, 1, 16);
    let hw = synth::hardware(2, Some(2.0), 4);
    for sched in Scheduler::ALL {
        for order in [
            IssueOrder::Dataflow,
            IssueOrder::InOrder,
            IssueOrder::Scheduled,
        ] {
            skips_over(
                &k,
                &[(0.25, 6.0), (1.0, 15.0)],
                &hw,
                &k.exec(1),
                options(sched, order, true),
                2,
                &format!("{sched} {order:?}"),
            );
        }
    }
}

#[test]
fn barriers_and_nested_loops_stay_exact() {
    let op = |s, r: &[u32], w: &[u32]| Piece::Node(SynthNode::op(s, r, w));
    let body = vec![
        op(0, &[], &[1]),
        Piece::Repeat(
            300,
            vec![
                op(1, &[1], &[2]),
                Piece::Repeat(3, vec![op(0, &[2, 3], &[3])]),
                Piece::Node(SynthNode::barrier(2, BarrierKind::Sync)),
                op(0, &[3], &[1]),
            ],
        ),
        op(1, &[1], &[4]),
    ];
    let k = synth::build(&body, 4, 40);
    let hw = synth::hardware(3, Some(2.0), 2);
    let table = [(0.5, 4.0), (2.0, 30.0), (1.0, 2.0)];
    for sched in Scheduler::ALL {
        for parts in [false, true] {
            let (r, skipped) = both(
                &k,
                &table,
                &hw,
                &k.exec(3),
                options(sched, IssueOrder::Dataflow, parts),
            );
            assert!(
                skipped > 0,
                "{sched} parts={parts}: nothing skipped of {}",
                r.instructions
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(160))]

    #[test]
    fn fast_forward_changes_no_result(
        body in body_strategy(200),
        table in prop::collection::vec((1u32..24, 0u32..80), 3),
        il in prop::option::of(prop::sample::select(vec![1.0, 2.0, 4.0])),
        warps in 1u32..5,
        groups in 1u32..60,
        concurrent in 1u32..5,
        sched in 0usize..3,
        order in 0usize..3,
        parts in any::<bool>(),
        dispatch in (0u64..4, 0u64..3),
        sm_wide in 0u64..8,
        queued in 0u64..8,
    ) {
        let k = synth::build(&body, warps, groups);
        let mut hw = synth::hardware(3, il, 2);
        hw.sm_wide = sm_wide;
        hw.queued = queued;
        hw.dispatch_latency = dispatch.0 * synth::TICKS_PER_CYCLE;
        hw.dispatch_interval = dispatch.1 * synth::TICKS_PER_CYCLE;
        let table = eighths(table);
        let order = [IssueOrder::Dataflow, IssueOrder::InOrder, IssueOrder::Scheduled][order];
        both(&k, &table, &hw, &k.exec(concurrent), options(Scheduler::ALL[sched], order, parts));
    }
}
