//! The suites' sampled launches (docs/rodinia-suite.md, `data/samples.csv`) and the sampling
//! models' curves (eval::sampling): loading with and without the file, the rows refused, the
//! linear model against a hand computation, and the ML model's leave-one-kernel-out training.

use std::path::PathBuf;

use eval::model::{CoreShape, KernelPrediction, Predictor};
use eval::sampling::SamplingModels;
use eval::{EvalError, KernelCase, MeasuredPoint, Model};

mod support;
use support::rodinia;

/// A copy of the Rodinia suite (files linked) whose manifest `edit` changes, with `extra`
/// files written beside it.
fn suite_with(name: &str, edit: impl Fn(&str) -> String, extra: &[(&str, &str)]) -> PathBuf {
    support::suite_with("sampling", name, edit, extra)
}

const SAMPLES_LINE: &str = "samples = \"data/samples.csv\"\n";

#[test]
fn suites_load_with_and_without_samples() {
    let with = eval::load(&rodinia(), &[]).unwrap();
    assert_eq!(with.samples_file.as_deref(), Some("data/samples.csv"));
    for k in &with.kernels {
        let s = k
            .samples
            .as_ref()
            .expect("every Rodinia kernel has samples");
        assert_eq!(s.points.len(), k.points.len(), "{}", k.spec.id);
        assert!(!s.grid_dependent, "{}", k.spec.id);
        for (p, ps) in k.points.iter().zip(&s.points) {
            let psat = u64::from(p.blocks_per_sm) * u64::from(with.sm_count);
            let full = ps.full.expect("a full row at every point");
            assert_eq!(full.groups, k.spec.grid_blocks);
            assert_eq!(ps.two_psat.unwrap().groups, 2 * psat, "{}", k.spec.id);
            assert_eq!(ps.three_psat.unwrap().groups, 3 * psat, "{}", k.spec.id);
            // the full grid timed with the samples agrees with the timings (same method)
            assert!(
                (full.median_us / p.median_us - 1.0).abs() < 0.05,
                "{}",
                k.spec.id
            );
        }
    }
    let fan2 = &with.kernels[0];
    let first = fan2.samples.as_ref().unwrap().points[0];
    assert_eq!(first.two_psat.unwrap().grid, Some([264, 1, 1]));
    assert_eq!(first.two_psat.unwrap().median_us, 4.512);

    // the same suite without the key: no samples, everything else as it was
    let dir = suite_with("without", |t| t.replacen(SAMPLES_LINE, "", 1), &[]);
    let without = eval::load(&dir, &[]).unwrap();
    assert_eq!(without.samples_file, None);
    assert_eq!(without.kernels.len(), with.kernels.len());
    for (a, b) in without.kernels.iter().zip(&with.kernels) {
        assert!(a.samples.is_none());
        assert_eq!(a.points.len(), b.points.len());
        for (p, q) in a.points.iter().zip(&b.points) {
            assert_eq!(p.median_us, q.median_us);
        }
    }
    // and the sampling models add no column to its evaluation
    let training = SamplingModels::train(&[&without]);
    assert!(training.groups.is_empty());
    let mut ev = eval::evaluate(&without, &Nothing).unwrap();
    eval::sampling::attach(&mut ev, &without, &training);
    assert!(ev.models().is_empty());
}

const HEADER: &str = "kernel,blocks_per_sm,sample,groups,grid_x,grid_y,grid_z,median_us\n";

fn refused(name: &str, rows: &str, cause: &str) {
    let text = format!("{HEADER}{rows}");
    let dir = suite_with(
        name,
        |t| t.replacen(SAMPLES_LINE, "samples = \"bad.csv\"\n", 1),
        &[("bad.csv", &text)],
    );
    let e = eval::load(&dir, &["srad1".to_string()])
        .map(|_| ())
        .unwrap_err()
        .to_string();
    assert!(e.contains("bad.csv") && e.contains(cause), "{name}: {e}");
}

#[test]
fn sample_rows_are_checked() {
    refused(
        "kernel",
        "nope,1,2psat,264,264,1,1,4.5\n",
        "no such kernel in the manifest",
    );
    refused(
        "point",
        "srad1,9,2psat,264,264,1,1,4.5\n",
        "blocks_per_sm = 9 is not a measured point",
    );
    refused(
        "kind",
        "srad1,1,4psat,528,132,4,1,4.5\n",
        "sample `4psat` (expected full, 2psat or 3psat)",
    );
    refused(
        "time",
        "srad1,1,2psat,264,132,2,1,0\n",
        "median_us 0 is not positive",
    );
    refused(
        "box",
        "srad1,1,2psat,264,264,2,1,4.5\n",
        "is not a box of 264 groups",
    );
    refused(
        "wide",
        "srad1,1,2psat,264,264,1,1,4.5\n",
        "grid [264, 1, 1] is not a box",
    );
    refused(
        "twice",
        "srad1,1,2psat,264,132,2,1,4.5\nsrad1,1,2psat,264,132,2,1,4.6\n",
        "a second `2psat` row",
    );
    refused(
        "full",
        "srad1,1,full,264,132,2,1,4.5\n",
        "a `full` row of 264 groups",
    );
    // rows of kernels that --kernel leaves out are checked too, and a file without the grid
    // columns is read
    let dir = suite_with(
        "no_grid",
        |t| t.replacen(SAMPLES_LINE, "samples = \"short.csv\"\n", 1),
        &[(
            "short.csv",
            "kernel,blocks_per_sm,sample,groups,median_us\nsrad1,1,2psat,264,4.5\nsrad1,1,3psat,396,5.5\n",
        )],
    );
    let s = eval::load(&dir, &["srad1".to_string()]).unwrap();
    let p = s.kernels[0].samples.as_ref().unwrap().points[0];
    assert_eq!(p.two_psat.unwrap().grid, None);
    assert_eq!(p.three_psat.unwrap().median_us, 5.5);
    assert!(p.full.is_none());
    // a point without samples makes both curves errors that say why
    let training = SamplingModels::train(&[&s]);
    let [(_, linear), (_, ml)] = training.curves(&s, &s.kernels[0]).unwrap();
    assert!(linear
        .unwrap_err()
        .contains("no 2 and 3 Psat samples at 2 blocks/SM"));
    assert!(ml.unwrap_err().contains("no 2 and 3 Psat samples"));
}

/// Predicts nothing: the evaluation holds the measured curves alone.
struct Nothing;

impl Predictor for Nothing {
    fn predict(
        &self,
        _: &KernelCase,
        _: &[MeasuredPoint],
        _: CoreShape,
    ) -> Result<KernelPrediction, EvalError> {
        Ok(KernelPrediction::default())
    }
}

#[test]
fn linear_curve_is_the_line_through_the_samples() {
    let s = eval::load(&rodinia(), &[]).unwrap();
    let training = SamplingModels::train(&[&s]);
    let k = s
        .kernels
        .iter()
        .find(|k| k.spec.id == "lud_perimeter")
        .unwrap();
    let [(m, linear), (n, ml)] = training.curves(&s, k).unwrap();
    assert_eq!((m, n), (Model::Sampling, Model::SamplingMl));
    let (linear, ml) = (linear.unwrap(), ml.unwrap());
    let warps = CoreShape::of(k, s.sm_count).warps_per_core() as f64;
    for (i, p) in k.samples.as_ref().unwrap().points.iter().enumerate() {
        let (a, b) = (p.two_psat.unwrap(), p.three_psat.unwrap());
        let (g1, g2) = (a.groups as f64, b.groups as f64);
        let n = k.spec.grid_blocks as f64;
        let t = a.median_us + (b.median_us - a.median_us) / (g2 - g1) * (n - g1);
        let want = warps / (t * s.clock_mhz);
        assert!((linear[i] / want - 1.0).abs() < 1e-12, "point {i}");
        assert!(ml[i].is_finite() && ml[i] > 0.0);
    }
    // attached to an evaluation: scored, after the other models, n/a where not predicted
    let mut ev = eval::evaluate(&s, &Nothing).unwrap();
    eval::sampling::attach(&mut ev, &s, &training);
    assert_eq!(ev.models(), vec![Model::Sampling, Model::SamplingMl]);
    let fan2 = &ev.kernels[0];
    let e = fan2
        .result(Model::Sampling)
        .unwrap()
        .outcome
        .as_ref()
        .unwrap_err();
    assert!(e.contains("not a time"), "{e}");
    assert!(fan2.accuracy(Model::SamplingMl).is_some());
    let lud = ev.kernels.iter().find(|k| k.id == "lud_perimeter").unwrap();
    assert!(lud.accuracy(Model::Sampling).unwrap().mape < 5.0);
}

#[test]
fn ml_model_leaves_the_kernel_under_test_out() {
    let s = eval::load(&rodinia(), &[]).unwrap();
    let training = SamplingModels::train(&[&s]);
    assert_eq!(training.groups.len(), s.kernels.len());
    let id = "srad2";
    let index = s.kernels.iter().position(|k| k.spec.id == id).unwrap();
    let ml_of = |suite: &eval::Suite, models: &SamplingModels| {
        let [_, (_, ml)] = models.curves(suite, &suite.kernels[index]).unwrap();
        ml.unwrap()
    };
    let before = ml_of(&s, &training);
    // the kernel's own measured times (its regression targets) change: its prediction does
    // not, another kernel's does
    let mut changed = s.clone();
    for p in &mut changed.kernels[index].points {
        p.median_us *= 3.0;
    }
    let retrained = SamplingModels::train(&[&changed]);
    let after = ml_of(&changed, &retrained);
    assert_eq!(
        before.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
        after.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
    );
    let other = |suite: &eval::Suite, models: &SamplingModels| {
        let [_, (_, ml)] = models.curves(suite, &suite.kernels[0]).unwrap();
        ml.unwrap()
    };
    assert_ne!(other(&s, &training), other(&changed, &retrained));
    // too few other kernels: no prediction, with the reason
    let few = eval::load(&rodinia(), &["srad1".to_string(), "srad2".to_string()]).unwrap();
    let small = SamplingModels::train(&[&few]);
    let [(_, linear), (_, ml)] = small.curves(&few, &few.kernels[0]).unwrap();
    assert!(linear.is_ok());
    assert!(ml
        .unwrap_err()
        .contains("at least 3 other kernels (1 in the suites evaluated)"));
}
