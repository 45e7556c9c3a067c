//! The sampling models' curves ([`Model::Sampling`], [`Model::SamplingMl`]) from a suite's
//! sampled launches (docs/rodinia-suite.md, `data/samples.csv`); the math is
//! `models::sampling`.
//!
//! At each measured point with `blocks_per_sm = b`, `Psat = b · SMs`:
//! - **Sampling**: the line through the 2·Psat and 3·Psat samples at the grid's groups;
//! - **Sampling-ML**: the 3·Psat sample's time scaled to the grid, divided by `e^ŷ`, the
//!   ridge regression's correction of the sample's instruction rate
//!   (`models::sampling::Features` of the samples and the point's Nsight Compute launch).
//!
//! Both are WPC at the suite's clock, `W / (t_us · clock_mhz)` as the measured WPC, so MAPE is
//! the relative error of the launch's time (in throughput). A point without both samples
//! (the grid has fewer than 3·Psat groups) or a kernel that reads the grid size makes the
//! kernel's curve an error: the sampling models predict a kernel only where every point was
//! sampled.
//!
//! **Training** ([`SamplingModels::train`]): one group of rows per kernel of the given suites
//! with samples, one row per point with both samples (kernels reading the grid size left
//! out); a kernel's ML curve comes from the regression on every *other* kernel's rows (leave
//! one kernel out), with λ chosen on those rows alone (`models::sampling::select_lambda`).
//! `eval` trains on every suite of the run, so the ML model's numbers depend on which suites
//! are evaluated together (the reported ones: all four bundled suites, docs/models.md).

use std::path::PathBuf;

use models::sampling::{
    fit_selected, linear_time, ml_target, ml_time, throughput_error, Counters, Features, Group,
    PointInputs, Ridge, Sample, FEATURES, LAMBDAS,
};
use rayon::prelude::*;

use crate::model::{CoreShape, Curve, Model};
use crate::suite::{KernelCase, MeasuredPoint, PointSamples, SampledLaunch, Suite};
use crate::Evaluation;

/// Fewer training kernels than this and the ML model gives no prediction.
pub const MIN_TRAINING_KERNELS: usize = 3;

/// A kernel: its PTX file (as the suite names it, joined to the suite's folder) and its id.
/// The same kernel measured on two GPUs (two manifests of one folder) is one kernel, so that
/// leaving it out of the training leaves out both measurements.
pub type KernelKey = (PathBuf, String);

fn kernel_key(suite: &Suite, case: &KernelCase) -> KernelKey {
    (suite.dir.join(&case.spec.ptx), case.spec.id.clone())
}

/// The ML model's training set: per kernel with samples, its rows (features, target).
#[derive(Debug, Clone, Default)]
pub struct SamplingModels {
    pub groups: Vec<(KernelKey, Group)>,
}

impl SamplingModels {
    /// The rows of every kernel of `suites` that has samples (see the module documentation).
    pub fn train(suites: &[&Suite]) -> SamplingModels {
        let mut groups = Vec::new();
        for suite in suites {
            for case in &suite.kernels {
                let Some(samples) = &case.samples else {
                    continue;
                };
                if samples.grid_dependent {
                    continue;
                }
                let rows: Vec<(Vec<f64>, f64)> = case
                    .points
                    .iter()
                    .zip(&samples.points)
                    .filter_map(|(p, s)| {
                        let inputs = point_inputs(suite, case, p, s).ok()?;
                        let x = Features::of(&inputs).ok()?;
                        let y = ml_target(inputs.three, inputs.total_groups, p.median_us).ok()?;
                        Some((x.values().to_vec(), y))
                    })
                    .collect();
                if !rows.is_empty() {
                    groups.push((kernel_key(suite, case), Group::new(FEATURES.len(), rows)));
                }
            }
        }
        SamplingModels { groups }
    }

    /// The ML model that predicts `case` (of `suite`): the regression on every other
    /// kernel's rows, λ chosen on them.
    pub fn model_for(&self, suite: &Suite, case: &KernelCase) -> Result<Ridge, String> {
        let key = kernel_key(suite, case);
        let training: Vec<&Group> = self
            .groups
            .iter()
            .filter(|(k, _)| *k != key)
            .map(|(_, g)| g)
            .collect();
        if training.len() < MIN_TRAINING_KERNELS {
            return Err(format!(
                "the regression needs the samples of at least {MIN_TRAINING_KERNELS} other \
                 kernels ({} in the suites evaluated)",
                training.len()
            ));
        }
        fit_selected(&training, &LAMBDAS, throughput_error).map_err(|e| e.to_string())
    }

    /// The two sampling curves of `case` (WPC per point), or `None` when its suite has no
    /// samples file.
    pub fn curves(&self, suite: &Suite, case: &KernelCase) -> Option<[(Model, Curve); 2]> {
        let samples = case.samples.as_ref()?;
        let why_not = if samples.grid_dependent {
            Some(
                "the kernel reads the grid size (%nctaid, a grid-stride loop): a smaller grid \
                 does different work per group, so it has no samples"
                    .to_string(),
            )
        } else {
            None
        };
        let warps = CoreShape::of(case, suite.sm_count).warps_per_core() as f64;
        let wpc = |t_us: f64| warps / (t_us * suite.clock_mhz);
        let inputs: Result<Vec<PointInputs>, String> = match &why_not {
            Some(e) => Err(e.clone()),
            None => case
                .points
                .iter()
                .zip(&samples.points)
                .map(|(p, s)| point_inputs(suite, case, p, s))
                .collect(),
        };
        let linear: Curve = inputs.clone().and_then(|pts| {
            pts.iter()
                .zip(&case.points)
                .map(|(i, p)| {
                    linear_time(i.two, i.three, i.total_groups)
                        .map(wpc)
                        .map_err(|e| format!("at {} blocks/SM: {e}", p.blocks_per_sm))
                })
                .collect()
        });
        let ml: Curve = inputs.and_then(|pts| {
            let model = self.model_for(suite, case)?;
            pts.iter()
                .zip(&case.points)
                .map(|(i, p)| {
                    let at = |e: String| format!("at {} blocks/SM: {e}", p.blocks_per_sm);
                    let x = Features::of(i).map_err(|e| at(e.to_string()))?;
                    ml_time(i.three, i.total_groups, model.predict(x.values()))
                        .map(wpc)
                        .map_err(|e| at(e.to_string()))
                })
                .collect()
        });
        Some([(Model::Sampling, linear), (Model::SamplingMl, ml)])
    }
}

fn sample(s: &SampledLaunch) -> Sample {
    Sample {
        groups: s.groups as f64,
        time_us: s.median_us,
    }
}

/// What the sampling models read of one point, or why it has no samples.
fn point_inputs(
    suite: &Suite,
    case: &KernelCase,
    point: &MeasuredPoint,
    samples: &PointSamples,
) -> Result<PointInputs, String> {
    let psat = u64::from(point.blocks_per_sm) * u64::from(suite.sm_count);
    let (Some(two), Some(three)) = (&samples.two_psat, &samples.three_psat) else {
        return Err(format!(
            "no 2 and 3 Psat samples at {} blocks/SM (3 Psat = {} groups, the grid has {})",
            point.blocks_per_sm,
            3 * psat,
            case.spec.grid_blocks
        ));
    };
    let counters = Counters::from_launch(&point.ncu)
        .map_err(|e| format!("at {} blocks/SM: {e}", point.blocks_per_sm))?;
    Ok(PointInputs {
        two: sample(two),
        three: sample(three),
        total_groups: case.spec.grid_blocks as f64,
        psat: psat as f64,
        occupancy_fraction: f64::from(point.blocks_per_sm)
            / f64::from(case.spec.max_blocks_per_sm.max(1)),
        warps_per_group: f64::from(case.spec.warps_per_block),
        counters,
    })
}

/// Adds the sampling models' results to every kernel of `ev` (the evaluation of `suite`),
/// the ML model trained on `models`; nothing when `suite` has no samples file.
pub fn attach(ev: &mut Evaluation, suite: &Suite, models: &SamplingModels) {
    if suite.samples_file.is_none() {
        return;
    }
    let curves: Vec<Option<[(Model, Curve); 2]>> = ev
        .kernels
        .par_iter()
        .map(|k| {
            suite
                .kernels
                .iter()
                .find(|c| c.spec.id == k.id)
                .and_then(|case| models.curves(suite, case))
        })
        .collect();
    for (k, c) in ev.kernels.iter_mut().zip(curves) {
        if let Some(pair) = c {
            for (model, curve) in pair {
                crate::add_curve(k, model, curve);
            }
        }
    }
}
