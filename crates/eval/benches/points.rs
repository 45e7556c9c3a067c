//! Per-point cost of the simulation (issue 30's "median ≤ 5 ms, maximum ≤ 50 ms" per point):
//! for every kernel of both bundled suites, one benchmark `point/<suite>/<kernel>` times the
//! Pipeline simulation of its median measured point at the unloaded DRAM latency, with the
//! validated configuration's options (the sampled simulation); `exact/<suite>/<kernel>` the
//! same with the exact engine. IDGs and mappings are built before timing. The loaded-latency
//! fixed point runs up to two more such simulations where the launch moves DRAM
//! (docs/simulator.md, "Loaded DRAM latency").
//!
//! `cargo bench -p eval --bench points -- --quick` (one kernel: `-- point/rodinia/srad1`).

use std::path::Path;

use criterion::{criterion_group, criterion_main, Criterion};
use eval::predict::{build_graphs, Backend, GpuBackend, Variant};

fn bench(c: &mut Criterion) {
    let profile = gpu::GpuProfile::bundled("hopper-h100").expect("bundled H100 profile");
    let backend = GpuBackend {
        profile: profile.clone(),
    };
    let expansion = backend.sass_expansion();
    let mut g = c.benchmark_group("per_point");
    g.sample_size(10);
    for name in ["rodinia", "heldout"] {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../ptx_samples")
            .join(name);
        let suite = eval::load(&dir, &[]).expect("a bundled suite");
        for case in &suite.kernels {
            let variant = Variant::validated(&profile);
            let graphs = build_graphs(
                case,
                &variant,
                &expansion,
                Some(eval::predict::slots(&profile)),
            )
            .expect("the kernel's IDGs");
            let shape = eval::CoreShape::of(case, suite.sm_count);
            let p = &case.points[case.points.len() / 2];
            let timed = backend
                .timings(&graphs.idgs, p, &variant)
                .expect("the point's mapping");
            let exec = sim::ExecConfig {
                warps_per_group: shape.warps_per_group,
                concurrent_groups: p.blocks_per_sm,
                total_groups: shape.total_groups,
                sm_count: shape.sm_count,
            };
            let hw = variant.adjust_hardware(timed.hardware.clone());
            for (label, sampled) in [("point", true), ("exact", false)] {
                let opts = sim::SimOptions {
                    sampled,
                    ..variant.sim_options()
                };
                g.bench_function(format!("{label}/{name}/{}", case.spec.id), |b| {
                    b.iter(|| sim::simulate(&graphs.idgs, &timed.costs, &hw, &exec, &opts))
                });
            }
        }
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
