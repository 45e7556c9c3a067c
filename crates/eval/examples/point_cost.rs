//! What each measured point of a suite costs to simulate, and what the sampled run did there:
//! `cargo run --release -p eval --example point_cost -- SUITE_DIR [KERNEL...]`
//! (`POINT_COST_EXACT=1`: the exact engine). One line per
//! point: kernel, blocks per SM, groups per core, waves, milliseconds of the first (unloaded)
//! run, instructions, simulated one by one, the sampled run's extrapolated share.

use eval::predict::{build_graphs, Backend, GpuBackend, Variant};
use std::path::Path;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let dir = Path::new(&args[0]);
    let suite = eval::load(dir, &args[1..]).expect("suite");
    let profile = gpu::GpuProfile::bundled("hopper-h100").expect("profile");
    let backend = GpuBackend {
        profile: profile.clone(),
    };
    let mut variant = Variant::validated(&profile);
    // POINT_COST_EXACT=1: the exact engine, to see what the sampling saves.
    variant.sampled = std::env::var("POINT_COST_EXACT").map_or(true, |v| v != "1");
    let expansion = backend.sass_expansion();
    for case in &suite.kernels {
        let g = build_graphs(case, &variant, &expansion, backend.slots()).expect("graphs");
        let shape = eval::model::CoreShape::of(case, suite.sm_count);
        let mut total = 0.0;
        for p in &case.points {
            let t = backend.timings(&g.idgs, p, &variant).expect("timings");
            let exec = sim::ExecConfig {
                warps_per_group: shape.warps_per_group,
                concurrent_groups: p.blocks_per_sm,
                total_groups: shape.total_groups,
                sm_count: shape.sm_count,
            };
            let opts = variant.sim_options();
            let hw = variant.adjust_hardware(t.hardware.clone());
            let s = Instant::now();
            let r = sim::simulate(&g.idgs, &t.costs, &hw, &exec, &opts).expect("sim");
            let ms = s.elapsed().as_secs_f64() * 1e3;
            total += ms;
            let gpc = exec.groups_per_core();
            let (si, sc) = r
                .sampled
                .as_ref()
                .map(|s| (s.instructions, s.cycles))
                .unwrap_or((0, 0.0));
            println!(
                "{} bps {} groups {} waves {:.1} ms {:.1} instr {} ff {} sampled_instr {} sampled_cyc% {:.1}",
                case.spec.id,
                p.blocks_per_sm,
                gpc,
                gpc as f64 / f64::from(p.blocks_per_sm),
                ms,
                r.instructions,
                r.fast_forwarded,
                si,
                100.0 * sc / r.cycles
            );
        }
        println!("TOTAL {} {:.0} ms", case.spec.id, total);
    }
}
