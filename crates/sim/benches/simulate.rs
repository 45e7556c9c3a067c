//! Simulated warp instructions per second (criterion reports elements/s): the Instruction Mix
//! kernel at 32 resident warps, dataflow and in-order, the Fig. 1 example kernel with many
//! small groups (group replacement on the hot path), and one-warp groups on four partitions
//! whose schedules drift against each other (no exact repeat). Every case runs three ways:
//! `engine/...` issues every instruction (`fast_forward: false`), `fast_forward/...` skips the
//! repeats of a steady state exactly (the exact engine), `sampled/...` also extrapolates
//! steady schedules that do not repeat (the default of `simulate` and `eval`); the count of
//! warp instructions is the same.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use sim::synth::{self, Piece, SynthNode, TABLE2};
use sim::{simulate, ExecConfig, IssueOrder, Scheduler, SimOptions};

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("simulate");
    let mix = synth::instruction_mix(4, 20_000, 1, 32);
    let hw = synth::hardware(2, Some(4.0), 4);
    let costs = synth::costs_for(&mix, &[(0.25, 6.0), (1.0, 15.0)], &hw);
    let exec = ExecConfig {
        warps_per_group: 32,
        concurrent_groups: 1,
        total_groups: 1,
        sm_count: 1,
    };
    let n = mix.kernel.classes[0].idg.instruction_count() * 32;
    g.throughput(Throughput::Elements(n));
    for (name, order, sched) in [
        (
            "mix32_dataflow_oldest",
            IssueOrder::Dataflow,
            Scheduler::OldestFirst,
        ),
        (
            "mix32_inorder_gto",
            IssueOrder::InOrder,
            Scheduler::GreedyThenOldest,
        ),
        (
            "mix32_inorder_lrr",
            IssueOrder::InOrder,
            Scheduler::LooseRoundRobin,
        ),
    ] {
        for (mode, base) in modes() {
            let opts = SimOptions {
                order,
                scheduler: sched,
                ..base
            };
            g.bench_function(format!("{mode}/{name}"), |b| {
                b.iter(|| simulate(&mix.kernel, &costs, &hw, &exec, &opts).unwrap())
            });
        }
    }

    let ex = synth::paper_example(4, 20_000);
    let hw2 = synth::hardware(2, None, 1);
    let costs2 = synth::costs_for(&ex, &TABLE2, &hw2);
    let exec2 = ExecConfig {
        warps_per_group: 4,
        concurrent_groups: 8,
        total_groups: 20_000,
        sm_count: 1,
    };
    g.throughput(Throughput::Elements(6 * 4 * 20_000));
    for (mode, opts) in modes() {
        g.bench_function(format!("{mode}/example_groups"), |b| {
            b.iter(|| simulate(&ex.kernel, &costs2, &hw2, &exec2, &opts).unwrap())
        });
    }

    // 3000 one-warp groups of 40 instructions, 13 resident, loose round-robin on four
    // partitions: the partitions drift and the exact fast-forward finds no repeat.
    let body: Vec<Piece> = (0..40u32)
        .map(|i| Piece::Node(SynthNode::op((i % 3) as u16, &[i % 5], &[(i + 1) % 5])))
        .collect();
    let drift = synth::build(&body, 1, 3000);
    let mut hw3 = synth::hardware(3, Some(1.0), 4);
    hw3.dispatch_latency = 3 * synth::TICKS_PER_CYCLE;
    hw3.dispatch_interval = 5 * synth::TICKS_PER_CYCLE;
    let costs3 = synth::costs_for(&drift, &[(0.5, 4.0), (2.0, 31.0), (1.0, 7.0)], &hw3);
    let exec3 = drift.exec(13);
    g.throughput(Throughput::Elements(40 * 3000));
    for (mode, base) in modes() {
        let opts = SimOptions {
            scheduler: Scheduler::LooseRoundRobin,
            sub_partitions: true,
            window: 8,
            ring: 32,
            ..base
        };
        g.bench_function(format!("{mode}/drifting_groups"), |b| {
            b.iter(|| simulate(&drift.kernel, &costs3, &hw3, &exec3, &opts).unwrap())
        });
    }
    g.finish();
}

/// The three engines: every instruction, exact fast-forward, sampled.
fn modes() -> [(&'static str, SimOptions); 3] {
    let with = |fast_forward, sampled| SimOptions {
        fast_forward,
        sampled,
        ..SimOptions::default()
    };
    [
        ("engine", with(false, false)),
        ("fast_forward", with(true, false)),
        ("sampled", with(true, true)),
    ]
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10);
    targets = bench
}
criterion_main!(benches);
