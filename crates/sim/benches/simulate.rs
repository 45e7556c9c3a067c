//! Simulated warp instructions per second (criterion reports elements/s): the Instruction Mix
//! kernel at 32 resident warps, dataflow and in-order, and the Fig. 1 example kernel with many
//! small groups (group replacement on the hot path). Every case runs twice: `engine/...`
//! issues every instruction (`fast_forward: false`), `fast_forward/...` skips the repeats of
//! a steady state exactly (the default); the count of warp instructions is the same.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use sim::synth::{self, TABLE2};
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
        for ff in [false, true] {
            let opts = SimOptions {
                order,
                scheduler: sched,
                fast_forward: ff,
                ..SimOptions::default()
            };
            g.bench_function(format!("{}/{name}", label(ff)), |b| {
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
    for ff in [false, true] {
        let opts = SimOptions {
            fast_forward: ff,
            ..SimOptions::default()
        };
        g.bench_function(format!("{}/example_groups", label(ff)), |b| {
            b.iter(|| simulate(&ex.kernel, &costs2, &hw2, &exec2, &opts).unwrap())
        });
    }
    g.finish();
}

fn label(fast_forward: bool) -> &'static str {
    if fast_forward {
        "fast_forward"
    } else {
        "engine"
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10);
    targets = bench
}
criterion_main!(benches);
