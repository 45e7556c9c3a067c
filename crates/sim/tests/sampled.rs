//! Sampled simulation (`SimOptions::sampled`) against the exact engine: on random kernels it
//! finishes every group and warp and stays within 5 % of the exact time and instructions (a
//! few random schedules settle into a steady rate that is not their long-run one; with seeds
//! other than the CI's, about one run of the property test in ten finds a barrier loop of a
//! few warps whose rate changes after the sampled stretch, 8-10 % off: a limit of sampling,
//! recorded in `sim/src/truncated.rs`, not a bound the runs' error estimate keeps); the
//! agreement the issue asks of real launches (95 % of points within 1 %, all within 3 %) is
//! tested on both bundled suites (`crates/eval/tests/sampled.rs`).

mod common;

use common::{body_strategy, eighths, options};
use proptest::prelude::*;
use sim::synth::{self, Piece, SynthNode, TABLE2};
use sim::{simulate, ExecConfig, Hardware, IssueOrder, Scheduler, SimOptions, SimResult};

fn run(
    k: &synth::SynthKernel,
    table: &[(f64, f64)],
    hw: &Hardware,
    exec: &ExecConfig,
    opts: SimOptions,
    sampled: bool,
) -> SimResult {
    let costs = synth::costs_for(k, table, hw);
    simulate(&k.kernel, &costs, hw, exec, &SimOptions { sampled, ..opts }).unwrap()
}

/// The sampled run's time is within `tolerance` of the exact one's, with the same warps and
/// instructions within the same tolerance; returns the sampled run.
fn agrees(
    k: &synth::SynthKernel,
    table: &[(f64, f64)],
    hw: &Hardware,
    exec: &ExecConfig,
    opts: SimOptions,
    tolerance: f64,
) -> SimResult {
    let exact = run(k, table, hw, exec, opts, false);
    let sampled = run(k, table, hw, exec, opts, true);
    assert!(exact.sampled.is_none());
    assert_eq!(sampled.warps, exact.warps);
    assert_eq!(sampled.groups, exact.groups);
    let rel = |a: f64, b: f64| (a - b).abs() / b.max(1.0);
    assert!(
        rel(sampled.cycles, exact.cycles) <= tolerance,
        "cycles: sampled {} exact {} ({:?})",
        sampled.cycles,
        exact.cycles,
        sampled.sampled
    );
    assert!(
        rel(sampled.instructions as f64, exact.instructions as f64) <= tolerance,
        "instructions: sampled {} exact {}",
        sampled.instructions,
        exact.instructions
    );
    sampled
}

/// Many waves of short groups on scheduler partitions whose schedules drift against each
/// other: the waves are extrapolated at their fitted rate, within the reported error bound.
#[test]
fn waves_are_extrapolated_within_their_bound() {
    let body: Vec<Piece> = (0..40u32)
        .map(|i| Piece::Node(SynthNode::op((i % 3) as u16, &[i % 5], &[(i + 1) % 5])))
        .collect();
    let k = synth::build(&body, 1, 3000);
    let mut hw = synth::hardware(3, Some(1.0), 4);
    hw.dispatch_latency = 3 * synth::TICKS_PER_CYCLE;
    hw.dispatch_interval = 5 * synth::TICKS_PER_CYCLE;
    let table = [(0.5, 4.0), (2.0, 31.0), (1.0, 7.0)];
    let mut extrapolated = 0;
    for concurrent in [5, 7, 13] {
        let r = agrees(
            &k,
            &table,
            &hw,
            &k.exec(concurrent),
            options(Scheduler::LooseRoundRobin, IssueOrder::Dataflow, true),
            0.01,
        );
        if let Some(s) = r.sampled {
            extrapolated += 1;
            assert!(s.cycles > 0.0 && s.cycles < r.cycles);
            assert!(s.error_bound_cycles <= 0.01 * s.cycles, "{s:?}");
        }
    }
    assert!(extrapolated > 0, "no run was extrapolated");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(120))]

    #[test]
    fn sampled_runs_stay_close_to_exact(
        body in body_strategy(400),
        table in prop::collection::vec((1u32..24, 0u32..80), 3),
        il in prop::option::of(prop::sample::select(vec![1.0, 2.0, 4.0])),
        warps in 1u32..5,
        groups in 1u32..200,
        concurrent in 1u32..6,
        sched in 0usize..3,
        order in 0usize..3,
        parts in any::<bool>(),
        dispatch in (0u64..4, 0u64..3),
    ) {
        let k = synth::build(&body, warps, groups);
        let mut hw = synth::hardware(3, il, 2);
        hw.dispatch_latency = dispatch.0 * synth::TICKS_PER_CYCLE;
        hw.dispatch_interval = dispatch.1 * synth::TICKS_PER_CYCLE;
        let table = eighths(table);
        let order = [IssueOrder::Dataflow, IssueOrder::InOrder, IssueOrder::Scheduled][order];
        agrees(
            &k,
            &table,
            &hw,
            &k.exec(concurrent),
            options(Scheduler::ALL[sched], order, parts),
            0.05,
        );
    }
}

#[test]
fn sampled_is_ignored_while_recording() {
    let k = synth::paper_example(4, 200);
    let hw = synth::hardware(2, Some(1.0), 2);
    let opts = SimOptions {
        record: true,
        ..options(Scheduler::GreedyThenOldest, IssueOrder::Dataflow, true)
    };
    let r = run(&k, &TABLE2, &hw, &k.exec(3), opts, true);
    assert!(r.sampled.is_none());
}

/// Long loops in every warp: the core is simulated three times with the loops cut and
/// extrapolated in its instructions, within 1 % of the exact time and with its exact
/// instruction count; a loop whose count differs between warps is never cut.
#[test]
fn long_loops_are_truncated_and_extrapolated() {
    let op = |s, r: &[u32], w: &[u32]| Piece::Node(SynthNode::op(s, r, w));
    let body = vec![
        op(0, &[], &[1]),
        Piece::Repeat(
            400,
            vec![op(1, &[1], &[2]), op(0, &[2, 3], &[3]), op(2, &[3], &[1])],
        ),
        op(1, &[1], &[4]),
    ];
    let k = synth::build(&body, 4, 200);
    let hw = synth::hardware(3, Some(1.0), 2);
    let table = [(0.5, 4.0), (2.0, 30.0), (1.0, 2.0)];
    let opts = options(Scheduler::GreedyThenOldest, IssueOrder::Dataflow, true);
    for concurrent in [1, 3, 6] {
        let r = agrees(&k, &table, &hw, &k.exec(concurrent), opts, 0.01);
        let s = r.sampled.expect("extrapolated");
        assert_eq!(s.truncated_loops, 1, "the one class's loop");
        assert_eq!(r.instructions, 4 * 200 * (2 + 3 * 400u64));
    }
    // The same loop with other counts in half the warps: the whole run.
    let mut uneven = k.clone();
    assert_eq!(uneven.kernel.classes.len(), 1);
    let mut short = uneven.kernel.classes[0].clone();
    let (odd, even): (Vec<u64>, Vec<u64>) = short.warps.iter().partition(|&&w| w % 2 == 1);
    short.warps = odd;
    uneven.kernel.classes[0].warps = even;
    for item in &mut short.idg.body {
        if let idg::Item::Repeat(r) = item {
            r.count = 300;
        }
    }
    uneven.kernel.classes.push(short);
    let mut costs = synth::costs_for(&k, &table, &hw);
    costs.push(costs[0].clone());
    let sampled = SimOptions {
        sampled: true,
        ..opts
    };
    let r = simulate(&uneven.kernel, &costs, &hw, &uneven.exec(3), &sampled).unwrap();
    assert_eq!(r.sampled.map_or(0, |s| s.truncated_loops), 0);
}

/// A barrier loop under oldest-first scheduling whose per-iteration time settles slowly:
/// 1165 cycles per iteration over the first 15, 1297 from about the 60th on, as the groups
/// of each wave drift apart. Cuts of 5, 10 and 15 iterations lay on one line that missed the
/// whole run by 8.6 % (the property test below found it); with the cuts doubling, the line
/// bends, and the run is exact or within its bound.
#[test]
fn a_loop_that_settles_late_is_not_extrapolated_from_its_start() {
    let body = vec![Piece::Repeat(
        187,
        vec![
            Piece::Node(SynthNode::op(1, &[], &[0])),
            Piece::Node(SynthNode::op(2, &[], &[0])),
            Piece::Node(SynthNode::barrier(2, idg::BarrierKind::Sync)),
        ],
    )];
    let k = synth::build(&body, 3, 119);
    let mut hw = synth::hardware(3, None, 2);
    hw.dispatch_latency = synth::TICKS_PER_CYCLE;
    hw.dispatch_interval = 0;
    let table = eighths(vec![(1, 0), (1, 0), (13, 24)]);
    let opts = options(Scheduler::OldestFirst, IssueOrder::InOrder, true);
    let r = agrees(&k, &table, &hw, &k.exec(4), opts, 0.005);
    if let Some(s) = r.sampled {
        assert!(s.error_bound_cycles <= 0.005 * r.cycles, "{s:?}");
    }
}
