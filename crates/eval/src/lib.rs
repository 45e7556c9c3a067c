//! `eval`: the Rodinia occupancy-sweep evaluation of pipeline-model-analysis section 6.3
//! (Tables 10-12, Figs. 17-18) on a suite directory (docs/rodinia-suite.md).
//!
//! Pipeline: [`suite::load`] reads the manifest, timings, ncu counters and clock; a
//! [`Predictor`] gives every model's WPC at each measured occupancy point; [`evaluate`] turns
//! the measured times into WPC and scores each curve with MAPE and MAPE_shape
//! ([`metrics`]); [`sampling`] adds the sampling models' curves from the suite's sampled
//! launches (a separate step: their ML variant trains over several suites); [`counters`] lists each kernel's IDG counters beside the measured ones;
//! [`report`] renders the tables (Markdown, the stable CSV), [`svg`] the
//! normalized curves and [`docs`] the results page.
//!
//! Measured throughput, defined once here and used everywhere: one SM runs
//! `W = ⌈grid_blocks / sm_count⌉ · warps_per_block` warps (the simulated core of the Pipeline
//! model), in `median_us · clock_mhz` cycles, so `WPC_real = W / (median_us · clock_mhz)`.
//! Every model predicts WPC for the same `W`.
//!
//! Library code never prints; every failure is an [`EvalError`] naming its file or kernel.

pub mod counters;
pub mod docs;
pub mod machine;
pub mod metrics;
pub mod model;
pub mod predict;
pub mod report;
pub mod sampling;
pub mod suite;
pub mod svg;

use rayon::prelude::*;

pub use metrics::{accuracy, Accuracy};
pub use model::{CoreShape, Curve, KernelPrediction, Model, Note, Predictor, Topic};
pub use suite::{
    load, metric, CountersMode, KernelCase, KernelSamples, MeasuredPoint, PointSamples,
    SampledLaunch, Suite,
};

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum EvalError {
    #[error("{file}: {message}")]
    Io { file: String, message: String },
    #[error("{file}: {message}")]
    Manifest { file: String, message: String },
    #[error("{file}: {message}")]
    Data { file: String, message: String },
    #[error("unknown kernel `{id}` (the suite has: {})", known.join(", "))]
    UnknownKernel { id: String, known: Vec<String> },
    #[error("kernel `{kernel}`: {message}")]
    Kernel { kernel: String, message: String },
    #[error("metric: {0}")]
    Metric(String),
    #[error("{0}")]
    Usage(String),
}

/// One model's result on one kernel.
#[derive(Debug, Clone)]
pub struct ModelResult {
    pub model: Model,
    /// Predicted WPC per point and its accuracy, or why there is none.
    pub outcome: Result<(Vec<f64>, Accuracy), String>,
}

/// Everything measured and predicted for one kernel.
#[derive(Debug, Clone)]
pub struct KernelResult {
    pub id: String,
    pub paper_name: String,
    pub blocks_per_sm: Vec<u32>,
    pub occupancy_warps: Vec<u32>,
    pub real_wpc: Vec<f64>,
    /// In [`Model::ALL`] order, only the models the predictor produced.
    pub models: Vec<ModelResult>,
    pub notes: Vec<Note>,
}

impl KernelResult {
    pub fn result(&self, m: Model) -> Option<&ModelResult> {
        self.models.iter().find(|r| r.model == m)
    }

    pub fn accuracy(&self, m: Model) -> Option<Accuracy> {
        self.result(m)
            .and_then(|r| r.outcome.as_ref().ok())
            .map(|(_, a)| *a)
    }
}

/// The evaluation of a suite: per kernel, in manifest order.
#[derive(Debug, Clone)]
pub struct Evaluation {
    pub device: String,
    pub clock_mhz: f64,
    pub kernels: Vec<KernelResult>,
}

/// Mean MAPE and MAPE_shape of one model over the kernels it predicted.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Average {
    pub accuracy: Accuracy,
    /// Kernels that entered the mean.
    pub kernels: usize,
}

impl Evaluation {
    /// Models present in at least one kernel, in [`Model::ALL`] order.
    pub fn models(&self) -> Vec<Model> {
        Model::ALL
            .into_iter()
            .filter(|m| self.kernels.iter().any(|k| k.result(*m).is_some()))
            .collect()
    }

    pub fn average(&self, m: Model) -> Option<Average> {
        let accs: Vec<Accuracy> = self.kernels.iter().filter_map(|k| k.accuracy(m)).collect();
        if accs.is_empty() {
            return None;
        }
        let n = accs.len() as f64;
        Some(Average {
            accuracy: Accuracy {
                mape: accs.iter().map(|a| a.mape).sum::<f64>() / n,
                mape_shape: accs.iter().map(|a| a.mape_shape).sum::<f64>() / n,
            },
            kernels: accs.len(),
        })
    }
}

/// Measured WPC of each point of `case` (see the crate documentation).
pub fn real_wpc(case: &KernelCase, sm_count: u32, clock_mhz: f64) -> Vec<f64> {
    let warps = CoreShape::of(case, sm_count).warps_per_core() as f64;
    case.points
        .iter()
        .map(|p| warps / (p.median_us * clock_mhz))
        .collect()
}

/// Predicts and scores every kernel of `suite` (in parallel over kernels; the result does not
/// depend on the thread schedule).
pub fn evaluate(suite: &Suite, predictor: &dyn Predictor) -> Result<Evaluation, EvalError> {
    let kernels = suite
        .kernels
        .par_iter()
        .map(|case| {
            let pred =
                predictor.predict(case, &case.points, CoreShape::of(case, suite.sm_count))?;
            Ok(score_kernel(suite, case, pred))
        })
        .collect::<Result<Vec<_>, EvalError>>()?;
    Ok(evaluation(suite, kernels))
}

/// Every variant of `predictor` on every suite, as [`evaluate`] with an [`IdgPredictor`] per
/// variant would give it: `[suite][variant]`. The kernels of all suites run in parallel and
/// share their work across the variants ([`VariantsPredictor`]).
///
/// [`IdgPredictor`]: predict::IdgPredictor
/// [`VariantsPredictor`]: predict::VariantsPredictor
pub fn evaluate_variants<B: predict::Backend>(
    suites: &[&Suite],
    predictor: &predict::VariantsPredictor<B>,
) -> Result<Vec<Vec<Evaluation>>, EvalError> {
    evaluate_variants_with_progress(suites, predictor, &|| ())
}

/// As [`evaluate_variants`], calling `done` as each kernel finishes (from any thread), for a
/// progress bar.
pub fn evaluate_variants_with_progress<B: predict::Backend>(
    suites: &[&Suite],
    predictor: &predict::VariantsPredictor<B>,
    done: &(dyn Fn() + Sync),
) -> Result<Vec<Vec<Evaluation>>, EvalError> {
    let jobs: Vec<(usize, &KernelCase)> = suites
        .iter()
        .enumerate()
        .flat_map(|(si, s)| s.kernels.iter().map(move |k| (si, k)))
        .collect();
    let scored: Vec<(usize, Vec<KernelResult>)> = jobs
        .par_iter()
        .map(|&(si, case)| {
            let suite = suites[si];
            let preds =
                predictor.predict(case, &case.points, CoreShape::of(case, suite.sm_count))?;
            done();
            Ok((
                si,
                preds
                    .into_iter()
                    .map(|p| score_kernel(suite, case, p))
                    .collect(),
            ))
        })
        .collect::<Result<_, EvalError>>()?;
    let n = predictor.variants.len();
    let mut out: Vec<Vec<Vec<KernelResult>>> = suites.iter().map(|_| vec![Vec::new(); n]).collect();
    for (si, per_variant) in scored {
        for (vi, k) in per_variant.into_iter().enumerate() {
            out[si][vi].push(k);
        }
    }
    Ok(suites
        .iter()
        .zip(out)
        .map(|(s, per_variant)| {
            per_variant
                .into_iter()
                .map(|kernels| evaluation(s, kernels))
                .collect()
        })
        .collect())
}

fn evaluation(suite: &Suite, kernels: Vec<KernelResult>) -> Evaluation {
    Evaluation {
        device: suite.device.clone(),
        clock_mhz: suite.clock_mhz,
        kernels,
    }
}

/// A model's curve scored against the measured WPC `real` at occupancies `occ`.
fn score_curve(occ: &[f64], real: &[f64], model: Model, curve: Curve) -> ModelResult {
    let outcome = curve.and_then(|wpc| {
        metrics::accuracy(occ, real, &wpc)
            .map(|a| (wpc, a))
            .map_err(|e| e.to_string())
    });
    ModelResult { model, outcome }
}

/// Adds (or replaces) `model`'s scored curve in `k`, keeping [`Model::ALL`] order.
pub(crate) fn add_curve(k: &mut KernelResult, model: Model, curve: Curve) {
    let occ: Vec<f64> = k.occupancy_warps.iter().map(|&o| f64::from(o)).collect();
    let scored = score_curve(&occ, &k.real_wpc, model, curve);
    k.models.retain(|r| r.model != model);
    k.models.push(scored);
    k.models.sort_by_key(|r| r.model);
}

/// One kernel's measured WPC and the accuracy of each predicted curve.
fn score_kernel(suite: &Suite, case: &KernelCase, pred: KernelPrediction) -> KernelResult {
    let real = real_wpc(case, suite.sm_count, suite.clock_mhz);
    let occ: Vec<f64> = case
        .points
        .iter()
        .map(|p| f64::from(p.occupancy_warps))
        .collect();
    let mut models: Vec<ModelResult> = pred
        .curves
        .into_iter()
        .map(|(model, curve)| score_curve(&occ, &real, model, curve))
        .collect();
    models.sort_by_key(|r| r.model);
    models.dedup_by_key(|r| r.model);
    KernelResult {
        id: case.spec.id.clone(),
        paper_name: case.spec.paper_name.clone(),
        blocks_per_sm: case.points.iter().map(|p| p.blocks_per_sm).collect(),
        occupancy_warps: case.points.iter().map(|p| p.occupancy_warps).collect(),
        real_wpc: real,
        models,
        notes: pred.notes,
    }
}
