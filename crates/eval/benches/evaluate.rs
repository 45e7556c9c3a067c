//! The two whole-repository timings of the simulator issue, each iteration one whole job on
//! every core rayon finds:
//! - `rodinia_eval`: what `ptx2idg eval ptx_samples/rodinia` computes (IDGs of the suite's
//!   kernels, every measured occupancy point simulated group by group with the base variant,
//!   and the analytical models);
//! - `samples_sweep`: every kernel of every other PTX file under `ptx_samples/`, each file parsed
//!   once, launched as one full wave of the H100 (132 SMs x 16 blocks of 128 threads, no
//!   parameters, no profile), mapper f, and simulated at every occupancy from 1 to 64 warps its
//!   registers and shared memory allow (`sim::sweep`, as `ptx2idg simulate --occupancy 1..=64`).
//!
//! - `both_eval`: what `ptx2idg eval ptx_samples/rodinia ptx_samples/heldout` computes (both
//!   suites' kernels in one parallel pass, base variant with the analytical models).
//!
//! With `EVAL_BENCH_ABLATION=1` the ablation of both suites (`eval --ablation`: the base and
//! every variant of `eval::predict::ablations`, sharing their work) is run and timed once
//! before the rest: one run takes minutes, too long to repeat ten times.
//!
//! Before timing, each job's size is printed once (kernels, points, warp instructions, the part
//! fast-forwarded, the part simulated), and the sample sweep's also without `large/` (the
//! generated parser-benchmark module; that subset is printed, not timed).

use std::path::{Path, PathBuf};

use criterion::{criterion_group, criterion_main, Criterion};
use eval::predict::{ablations, GpuBackend, IdgPredictor, Variant, VariantsPredictor};
use rayon::prelude::*;

fn samples_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../ptx_samples")
}

fn ptx_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for p in paths {
        if p.is_dir() {
            if p.file_name().is_some_and(|n| n != "rodinia") {
                ptx_files(&p, out);
            }
        } else if p.extension().is_some_and(|e| e == "ptx") {
            out.push(p);
        }
    }
}

/// (kernels swept, kernels refused by the front end, the occupancy rules or the simulator,
/// points, warp instructions, fast-forwarded).
#[derive(Default, Clone, Copy)]
struct Size {
    kernels: u64,
    refused: u64,
    points: u64,
    instructions: u64,
    fast_forwarded: u64,
}

impl Size {
    const REFUSED: Size = Size {
        kernels: 0,
        refused: 1,
        points: 0,
        instructions: 0,
        fast_forwarded: 0,
    };

    fn add(self, o: Size) -> Size {
        Size {
            kernels: self.kernels + o.kernels,
            refused: self.refused + o.refused,
            points: self.points + o.points,
            instructions: self.instructions + o.instructions,
            fast_forwarded: self.fast_forwarded + o.fast_forwarded,
        }
    }
}

fn sweep_kernel(module: &ptx::ast::Module, entry: &str, profile: &gpu::GpuProfile) -> Size {
    let launch = ir::Launch {
        grid: [132 * 16, 1, 1],
        block: [128, 1, 1],
        params: Vec::new(),
    };
    let inputs = ir::TripInputs {
        explicit: &[],
        profile: None,
    };
    let Ok(fe) = walk::front_end(module, entry, &launch, &inputs, &walk::Options::default()) else {
        return Size::REFUSED;
    };
    let idgs = fe.built.idgs;
    let (timings, _) = gpu::map_kernel(&idgs, profile, None);
    let costs = sim::costs_from_timing(&timings);
    let launch = sim::Launch {
        regs_per_thread: 32,
        shared_bytes_per_block: module
            .static_shared_bytes(entry)
            .ok()
            .flatten()
            .expect("a bundled kernel's static shared memory"),
        blocks_per_sm: Some(1),
    };
    let occ = launch.occupancy(&idgs, profile);
    let (axis, _) = sim::SweepAxis::Warps(1..=64).capped(occ.blocks_per_sm, idgs.warps_per_group);
    let config = sim::ModelConfig::validated(profile);
    let opts = config.sim_options();
    let hw = config.hardware(profile);
    let Ok(base) = sim::exec_for_occupancy(&idgs, profile, &launch) else {
        return Size::REFUSED;
    };
    match sim::sweep(&idgs, &costs, &hw, &base, &opts, &axis, &|| {}) {
        Ok(points) => Size {
            kernels: 1,
            points: points.len() as u64,
            instructions: points.iter().map(|p| p.result.instructions).sum(),
            fast_forwarded: points.iter().map(|p| p.result.fast_forwarded).sum(),
            ..Size::default()
        },
        Err(_) => Size::REFUSED,
    }
}

fn samples_sweep(files: &[PathBuf], profile: &gpu::GpuProfile) -> Size {
    files
        .par_iter()
        .map(|f| {
            let Ok(src) = std::fs::read_to_string(f) else {
                return Size::default();
            };
            let Ok(module) = ptx::parse(&src) else {
                return Size::default();
            };
            let entries: Vec<&str> = module.kernels().map(|k| k.name.as_str()).collect();
            entries
                .par_iter()
                .map(|e| sweep_kernel(&module, e, profile))
                .reduce(Size::default, Size::add)
        })
        .reduce(Size::default, Size::add)
}

fn report(job: &str, s: Size, secs: f64) {
    eprintln!(
        "{job}: {} kernels ({} refused), {} points, {:.1} M warp instructions, \
         {:.0} % fast-forwarded, {:.1} M simulated; one run {secs:.2} s",
        s.kernels,
        s.refused,
        s.points,
        s.instructions as f64 / 1e6,
        100.0 * s.fast_forwarded as f64 / s.instructions.max(1) as f64,
        (s.instructions - s.fast_forwarded) as f64 / 1e6
    );
}

fn bench(c: &mut Criterion) {
    let profile = gpu::GpuProfile::bundled("hopper-h100").expect("bundled H100 profile");
    let mut g = c.benchmark_group("whole");
    g.sample_size(10);

    let suite = eval::load(&samples_root().join("rodinia"), &[]).expect("the Rodinia suite");
    let predictor = IdgPredictor {
        backend: GpuBackend {
            profile: profile.clone(),
        },
        variant: Variant::validated(&profile),
        analytical: true,
        exact: true,
    };
    let t = std::time::Instant::now();
    let ev = eval::evaluate(&suite, &predictor).expect("evaluation");
    eprintln!(
        "rodinia_eval: {} kernels; one run {:.2} s",
        ev.kernels.len(),
        t.elapsed().as_secs_f64()
    );
    g.bench_function("rodinia_eval", |b| {
        b.iter(|| eval::evaluate(&suite, &predictor).expect("evaluation"))
    });

    let heldout = eval::load(&samples_root().join("heldout"), &[]).expect("the held-out suite");
    let both = [&suite, &heldout];
    let base = Variant::validated(&profile);
    let variants_predictor = |variants: Vec<(Variant, bool)>| VariantsPredictor {
        backend: GpuBackend {
            profile: profile.clone(),
        },
        variants,
        exact: true,
    };
    if std::env::var_os("EVAL_BENCH_ABLATION").is_some() {
        let mut variants = vec![(base, true)];
        variants.extend(
            ablations(&base)
                .into_iter()
                .filter(|(_, _, v)| *v != base)
                .map(|(_, _, v)| (v, false)),
        );
        let n = variants.len();
        let p = variants_predictor(variants);
        let t = std::time::Instant::now();
        eval::evaluate_variants(&both, &p).expect("ablation");
        eprintln!(
            "both_ablation: {} + {} kernels, {n} variants; one run {:.2} s",
            suite.kernels.len(),
            heldout.kernels.len(),
            t.elapsed().as_secs_f64()
        );
    }
    let p = variants_predictor(vec![(base, true)]);
    let t = std::time::Instant::now();
    eval::evaluate_variants(&both, &p).expect("evaluation");
    eprintln!(
        "both_eval: {} + {} kernels; one run {:.2} s",
        suite.kernels.len(),
        heldout.kernels.len(),
        t.elapsed().as_secs_f64()
    );
    g.bench_function("both_eval", |b| {
        b.iter(|| eval::evaluate_variants(&both, &p).expect("evaluation"))
    });

    let mut files = Vec::new();
    ptx_files(&samples_root(), &mut files);
    let t = std::time::Instant::now();
    let size = samples_sweep(&files, &profile);
    report("samples_sweep", size, t.elapsed().as_secs_f64());
    // Without the generated parser-benchmark module (its launch shape means nothing), to tell
    // its share of the work from the hand-written samples'.
    let written: Vec<PathBuf> = files
        .iter()
        .filter(|f| {
            f.parent()
                .and_then(|d| d.file_name())
                .is_none_or(|d| d != "large")
        })
        .cloned()
        .collect();
    let t = std::time::Instant::now();
    let size = samples_sweep(&written, &profile);
    report("  without large/", size, t.elapsed().as_secs_f64());
    g.bench_function("samples_sweep", |b| {
        b.iter(|| samples_sweep(&files, &profile))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
