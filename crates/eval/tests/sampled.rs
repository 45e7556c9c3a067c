//! The sampled simulation, the default, agrees with the exact engine on every measured point of
//! both bundled suites: at least 95 % of the points within 1 %, every point within 3 %, each
//! suite's average Pipeline MAPE within 0.3 points (docs/simulator.md, "Sampled simulation").
//!
//! Both suites twice is about two CPU-minutes in a release build and far more in a debug one,
//! so the test is ignored by default; `.ci/run` runs it with `--release -- --ignored`.

use std::path::PathBuf;

use eval::predict::{GpuBackend, Variant, VariantsPredictor};
use eval::Model;

fn suite(name: &str) -> eval::Suite {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../ptx_samples")
        .join(name);
    eval::load(&dir, &[]).unwrap()
}

#[test]
#[ignore = "both suites twice: run with --release -- --ignored (.ci/run does)"]
fn sampled_simulation_agrees_with_the_exact_engine() {
    let profile = gpu::GpuProfile::bundled("hopper-h100").unwrap();
    let sampled = Variant::validated(&profile);
    assert!(sampled.sampled, "the validated configuration samples");
    let exact = Variant {
        sampled: false,
        ..sampled
    };
    let predictor = VariantsPredictor {
        backend: GpuBackend {
            profile: profile.clone(),
        },
        variants: vec![(sampled, false), (exact, false)],
        exact: true,
    };
    let names = ["rodinia", "heldout"];
    let suites = names.map(suite);
    let refs: Vec<&eval::Suite> = suites.iter().collect();
    let evaluated = eval::evaluate_variants(&refs, &predictor).unwrap();
    let mut errors = Vec::new();
    for (name, ev) in names.iter().zip(&evaluated) {
        let (fast, slow) = (&ev[0], &ev[1]);
        let (mut mape_fast, mut mape_slow, mut n) = (0.0, 0.0, 0.0);
        for (kf, ks) in fast.kernels.iter().zip(&slow.kernels) {
            let pf = kf.result(Model::Pipeline).unwrap();
            let ps = ks.result(Model::Pipeline).unwrap();
            let ((wf, af), (ws, as_)) = match (&pf.outcome, &ps.outcome) {
                (Ok(f), Ok(s)) => (f, s),
                (f, s) => panic!("{}: sampled {:?}, exact {:?}", kf.id, f.is_ok(), s.is_ok()),
            };
            for (i, (a, b)) in wf.iter().zip(ws).enumerate() {
                let e = (a - b).abs() / b;
                eprintln!(
                    "{name} {} {}: {:.3} %",
                    kf.id,
                    kf.occupancy_warps[i],
                    e * 100.0
                );
                errors.push((e, format!("{} at {} warps", kf.id, kf.occupancy_warps[i])));
            }
            mape_fast += af.mape;
            mape_slow += as_.mape;
            n += 1.0;
        }
        let (a, b) = (mape_fast / n, mape_slow / n);
        assert!(
            (a - b).abs() <= 0.3,
            "{name}: average MAPE sampled {a:.2}, exact {b:.2}"
        );
    }
    let within = errors.iter().filter(|(e, _)| *e <= 0.01).count();
    assert!(
        within * 100 >= errors.len() * 95,
        "{within} of {} points within 1 %",
        errors.len()
    );
    let worst = errors.iter().max_by(|a, b| a.0.total_cmp(&b.0)).unwrap();
    assert!(worst.0 <= 0.03, "{}: {:.2} %", worst.1, worst.0 * 100.0);
}
