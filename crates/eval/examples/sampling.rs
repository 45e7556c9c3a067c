//! The sampling models alone, without the simulation (seconds instead of minutes):
//! `cargo run --release -p eval --example sampling -- SUITE_DIR...`. The ML model trains
//! leave-one-kernel-out over every suite given, as `ptx2idg eval` with the same suites does;
//! per suite, the Markdown table of the two sampling models (the `Sampling` and
//! `Sampling-ML` columns `ptx2idg eval` prints) and, on stderr, the kernels they do not
//! predict and why, then per kernel the regression that predicts it (λ and the weights of
//! the standardized features).

use std::path::Path;

use eval::model::{CoreShape, KernelPrediction, Predictor};
use eval::{EvalError, KernelCase, MeasuredPoint};

/// Predicts nothing: the evaluation then holds the measured curves alone.
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

fn main() {
    let dirs: Vec<String> = std::env::args().skip(1).collect();
    if dirs.is_empty() {
        eprintln!("usage: sampling SUITE_DIR...");
        std::process::exit(2);
    }
    let suites: Vec<eval::Suite> = dirs
        .iter()
        .map(|d| eval::load(Path::new(d), &[]).unwrap_or_else(|e| panic!("{d}: {e}")))
        .collect();
    let refs: Vec<&eval::Suite> = suites.iter().collect();
    let training = eval::sampling::SamplingModels::train(&refs);
    for (dir, suite) in dirs.iter().zip(&suites) {
        let mut ev = eval::evaluate(suite, &Nothing).expect("evaluation");
        eval::sampling::attach(&mut ev, suite, &training);
        println!("## {dir}\n");
        print!("{}", eval::report::markdown(&ev));
        println!();
        for line in eval::report::failures(&ev) {
            eprintln!("{dir}: no prediction: {line}");
        }
    }
    // The regression each kernel is predicted with: λ, and the standardized weights.
    eprintln!("kernel,lambda,{}", models::sampling::FEATURES.join(","));
    for suite in &suites {
        for case in &suite.kernels {
            if let Ok(m) = training.model_for(suite, case) {
                let w: Vec<String> = m.weights.iter().map(|w| format!("{w:.3}")).collect();
                eprintln!("{},{},{}", case.spec.id, m.lambda, w.join(","));
            }
        }
    }
}
