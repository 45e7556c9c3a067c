//! The simulator against the closed forms of the papers: Eq. 1 of the IDG paper (one pipeline,
//! W warps of N dependent instructions), Eqs. 43–45 of the analysis paper (Instruction Mix at
//! high occupancy) and the example kernel of Fig. 1 with the Table 2 parameters.

use proptest::prelude::*;
use sim::synth::{self, TABLE2, TICKS_PER_CYCLE};
use sim::{simulate, IssueOrder, Scheduler, SimOptions};

/// Eq. 1 in ticks; λ and Λ in ticks.
fn eq1(n: u64, w: u64, lambda: u64, latency: u64) -> u64 {
    if w * lambda < latency {
        n * latency + (w - 1) * lambda
    } else {
        latency + (n * w - 1) * lambda
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn eq1_one_pipeline(
        n in 1u64..40,
        w in 1u32..24,
        lambda_eighths in 1u64..24,
        latency_eighths in 1u64..200,
        sched in 0usize..3,
        in_order in any::<bool>(),
    ) {
        // λ and Λ in multiples of 1/8 cycle: fractional values like 0.375 and 1.125 included.
        let k = synth::chain(n, 1, w);
        let hw = synth::hardware(1, None, 1);
        let l = lambda_eighths as f64 / 8.0;
        let lat = (latency_eighths as f64 / 8.0).max(l);
        let costs = synth::costs_for(&k, &[(l, lat)], &hw);
        let opts = SimOptions {
            scheduler: Scheduler::ALL[sched],
            order: if in_order { IssueOrder::InOrder } else { IssueOrder::Dataflow },
            ..SimOptions::default()
        };
        let r = simulate(&k.kernel, &costs, &hw, &k.exec(w), &opts).unwrap();
        let t = TICKS_PER_CYCLE / 8;
        let latency = (lat * 8.0).round() as u64 * t;
        let model = eq1(n, u64::from(w), lambda_eighths * t, latency);
        if opts.scheduler == Scheduler::LooseRoundRobin {
            // Eq. 1 assumes the warps take turns.
            prop_assert_eq!(r.ticks, model);
        } else {
            // Other orders may bunch a warp's dependent instructions at the end; Eq. 1 stays a
            // lower bound and one round per instruction an upper bound.
            let upper = n * (latency + u64::from(w) * lambda_eighths * t);
            prop_assert!(r.ticks >= model && r.ticks <= upper, "{} vs {}", r.ticks, model);
        }
        prop_assert_eq!(r.instructions, n * u64::from(w));
    }
}

fn mix_ipc1(beta: u32, l1: f64, l2: f64, il: Option<f64>, same: bool) -> f64 {
    let warps = 32;
    let reps = 40;
    let k = synth::instruction_mix(beta, reps, if same { 0 } else { 1 }, warps);
    let hw = synth::hardware(2, il, 1);
    // Latencies long enough to matter, short enough for 32 warps to hide them.
    let mut costs = synth::costs_for(&k, &[(l1, 6.0), (l2, 6.0)], &hw);
    // Type-2 instructions keep their own λ even on the shared subsystem (Eq. 43).
    let last = costs[0].len() - 1;
    costs[0][last].lambda = (l2 * TICKS_PER_CYCLE as f64) as u64;
    // Round-robin keeps the warps abreast, so the tail where too few warps remain to hide Λ is
    // short; oldest-first would let warp 0 run ahead and leave a latency-bound tail.
    let opts = SimOptions {
        scheduler: Scheduler::LooseRoundRobin,
        ..SimOptions::default()
    };
    let r = simulate(&k.kernel, &costs, &hw, &k.exec(1), &opts).unwrap();
    let type1 = f64::from(beta) * reps as f64 * f64::from(warps);
    type1 / r.cycles
}

fn close(sim: f64, model: f64) -> bool {
    // Pipeline fill and drain of a finite run.
    (sim - model).abs() / model < 0.03
}

#[test]
fn eq43_one_subsystem() {
    for beta in [1u32, 3, 8] {
        for (l1, l2) in [(1.0, 4.0), (0.25, 1.0), (1.0, 8.0), (0.5, 2.0)] {
            let sim = mix_ipc1(beta, l1, l2, None, true);
            let model = f64::from(beta) / (f64::from(beta) * l1 + l2);
            assert!(
                close(sim, model),
                "β={beta} λ1={l1} λ2={l2}: {sim} vs {model}"
            );
        }
    }
}

#[test]
fn eq44_two_subsystems() {
    for beta in [1u32, 3, 8] {
        for (l1, l2) in [(1.0, 4.0), (0.25, 1.0), (1.0, 8.0)] {
            let sim = mix_ipc1(beta, l1, l2, None, false);
            // Eq. 44 bounds type-1 throughput by both pipelines; type-2 instructions are a
            // β-th of type 1, so subsystem 2 bounds type 1 at β/λ2.
            let model = (1.0 / l1).min(f64::from(beta) / l2);
            assert!(
                close(sim, model),
                "β={beta} λ1={l1} λ2={l2}: {sim} vs {model}"
            );
        }
    }
}

#[test]
fn eq45_issue_limit() {
    for beta in [1u32, 3, 8] {
        for (l1, l2, il) in [
            (1.0, 4.0, 1.0),
            (0.25, 1.0, 4.0),
            (0.5, 2.0, 2.0),
            (0.25, 1.0, 2.0),
        ] {
            let sim = mix_ipc1(beta, l1, l2, Some(il), false);
            let b = f64::from(beta);
            let model = (1.0 / l1).min(b / l2).min(b / (b + 1.0) * il);
            assert!(
                close(sim, model),
                "β={beta} λ1={l1} λ2={l2} IL={il}: {sim} vs {model}"
            );
        }
    }
}

fn example_wpc(warps: u32, total: u32) -> f64 {
    let k = synth::paper_example(1, total);
    let hw = synth::hardware(2, None, 1);
    let costs = synth::costs_for(&k, &TABLE2, &hw);
    let r = simulate(
        &k.kernel,
        &costs,
        &hw,
        &k.exec(warps),
        &SimOptions::default(),
    )
    .unwrap();
    r.wpc
}

#[test]
fn example_kernel_one_warp() {
    let k = synth::paper_example(1, 1);
    let hw = synth::hardware(2, None, 1);
    let costs = synth::costs_for(&k, &TABLE2, &hw);
    let r = simulate(&k.kernel, &costs, &hw, &k.exec(1), &SimOptions::default()).unwrap();
    // c0 at 0, c1 at 1, c2 at 5, m0 at 9, c3 at 15, m1 at 19, done at 25 = Λ_app of Eq. 2.
    assert_eq!(r.cycles, 25.0);
    assert_eq!(r.wpc, 1.0 / 25.0);
}

#[test]
fn example_kernel_approaches_roof() {
    let total = 400;
    let mut last = 0.0;
    for w in 1..=16 {
        let wpc = example_wpc(w, total);
        assert!(wpc <= 0.25 + 1e-12, "ω={w}: {wpc} above the roof");
        assert!(wpc >= last - 1e-9, "ω={w}: {wpc} below {last}");
        last = wpc;
    }
    assert!(example_wpc(1, total) < 0.05);
    // Fig. 9: with 10 warps the execution is almost at the peak.
    assert!(example_wpc(10, total) > 0.24, "{}", example_wpc(10, total));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// A core-wide pipeline is one pipeline however many partitions feed it: with oldest-first
    /// scheduling and no issue limit, W warps of N dependent instructions on it take exactly
    /// as long as on an undivided core (a split pipeline gives each partition P times λ: a
    /// warp alone on its partition runs up to P times slower).
    #[test]
    fn sm_wide_pipe_is_one_pipeline(
        n in 1u64..30,
        w in 1u32..24,
        partitions in 2u32..5,
        lambda_eighths in 1u64..24,
        latency_eighths in 1u64..200,
        in_order in any::<bool>(),
    ) {
        let k = synth::chain(n, 1, w);
        let mut hw = synth::hardware(1, None, partitions);
        hw.sm_wide = 1;
        let l = lambda_eighths as f64 / 8.0;
        let lat = (latency_eighths as f64 / 8.0).max(l);
        let costs = synth::costs_for(&k, &[(l, lat)], &hw);
        let opts = |sub_partitions| SimOptions {
            scheduler: Scheduler::OldestFirst,
            order: if in_order { IssueOrder::InOrder } else { IssueOrder::Dataflow },
            sub_partitions,
            ..SimOptions::default()
        };
        let split = simulate(&k.kernel, &costs, &hw, &k.exec(w), &opts(true)).unwrap();
        let whole = simulate(&k.kernel, &costs, &hw, &k.exec(w), &opts(false)).unwrap();
        prop_assert_eq!(split.ticks, whole.ticks);
        prop_assert_eq!(split.instructions, whole.instructions);
    }

    /// A queued subsystem (`Hardware::queued`, what `cp.async` runs on) serves its
    /// instructions one per λ in issue order, each completing Λ after its turn begins, but
    /// never holds a warp back at issue: one warp's N independent instructions on it end at
    /// (N − 1)·λ + Λ, as on a pipeline, while the instruction on another subsystem that
    /// follows them in program order issues before the queue has served them (on a pipeline
    /// under in-order issue, not before the last of them issued, (N − 1)·λ).
    #[test]
    fn a_queue_serves_in_order_without_holding_issue(
        n in 2u64..12,
        lambda_eighths in 8u64..64,
        latency_eighths in 8u64..400,
        in_order in any::<bool>(),
    ) {
        let mut body: Vec<synth::Piece> = (0..n)
            .map(|i| synth::Piece::Node(synth::SynthNode::op(0, &[], &[i as u32 + 1])))
            .collect();
        body.push(synth::Piece::Node(synth::SynthNode::op(1, &[], &[100])));
        let k = synth::build(&body, 1, 1);
        let l = lambda_eighths as f64 / 8.0;
        let lat = (latency_eighths as f64 / 8.0).max(l);
        let opts = SimOptions {
            order: if in_order { IssueOrder::InOrder } else { IssueOrder::Dataflow },
            record: true,
            ..SimOptions::default()
        };
        let run = |queued: u64| {
            let mut hw = synth::hardware(2, None, 1);
            hw.queued = queued;
            let costs = synth::costs_for(&k, &[(l, lat), (0.25, 0.25)], &hw);
            sim::simulate_with_records(&k.kernel, &costs, &hw, &k.exec(1), &opts).unwrap()
        };
        let t = TICKS_PER_CYCLE / 8;
        let (lambda, latency) = (lambda_eighths * t, (lat * 8.0).round() as u64 * t);
        let (queue, queue_records) = run(1);
        let (pipe, pipe_records) = run(0);
        prop_assert_eq!(queue.ticks, (n - 1) * lambda + latency);
        prop_assert_eq!(pipe.ticks, queue.ticks);
        let other = |records: &[sim::IssueRecord]| {
            records.iter().find(|r| r.subsystem == 1).map(|r| r.issue).unwrap()
        };
        prop_assert!(other(&queue_records) < lambda);
        if in_order {
            prop_assert!(other(&pipe_records) >= (n - 1) * lambda);
        }
    }
}
