//! The models compared in the evaluation (the columns of Tables 10-12 of
//! pipeline-model-analysis, plus Roofline, the unified hardware-fitted model of Stevens and
//! Klöckner and the two sampling models of sampling-linear-ml-model, appended last) and the
//! [`Predictor`] interface that produces the curves of all but the sampling models
//! ([`crate::sampling`] gives those, from the suite's sampled launches).
//!
//! Invariant: [`Model::ALL`] is the column order of every table and the row order of the CSV;
//! the names are the stable CSV spellings.

use std::fmt;
use std::str::FromStr;

use crate::suite::{KernelCase, MeasuredPoint};
use crate::EvalError;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Model {
    Pipeline,
    Roofline,
    Volkov,
    MwpCwp,
    MwpCwpCorr,
    Wfg,
    WfgCorr,
    GpumechRr,
    GpumechGto,
    /// The unified hardware-fitted model (`models::unified`): one launch time, so the same
    /// WPC at every occupancy (flat by construction; its MAPE_shape is the measured curve's
    /// own variation).
    Unified,
    /// The sampling-based linear model (`models::sampling::linear_time`): the kernel timed on
    /// 2 and 3 Psat work groups, the line through them extrapolated to the grid. Needs GPU
    /// runs of the kernel; only suites with a samples file have it.
    Sampling,
    /// The ML variant: the 3 Psat sample's instruction rate corrected by a ridge regression
    /// on the samples' timing and the point's counters, trained leave-one-kernel-out
    /// ([`crate::sampling`]).
    SamplingMl,
}

impl Model {
    pub const ALL: [Model; 12] = [
        Model::Pipeline,
        Model::Roofline,
        Model::Volkov,
        Model::MwpCwp,
        Model::MwpCwpCorr,
        Model::Wfg,
        Model::WfgCorr,
        Model::GpumechRr,
        Model::GpumechGto,
        Model::Unified,
        Model::Sampling,
        Model::SamplingMl,
    ];

    /// Whether the model runs the kernel itself on the GPU (the sampling models) rather than
    /// predicting from its PTX (and, for most, the counters of one profiled launch).
    pub fn runs_the_kernel(self) -> bool {
        matches!(self, Model::Sampling | Model::SamplingMl)
    }

    pub fn name(self) -> &'static str {
        match self {
            Model::Pipeline => "pipeline",
            Model::Roofline => "roofline",
            Model::Volkov => "volkov",
            Model::MwpCwp => "mwp_cwp",
            Model::MwpCwpCorr => "mwp_cwp_corr",
            Model::Wfg => "wfg",
            Model::WfgCorr => "wfg_corr",
            Model::GpumechRr => "gpumech_rr",
            Model::GpumechGto => "gpumech_gto",
            Model::Unified => "unified",
            Model::Sampling => "sampling",
            Model::SamplingMl => "sampling_ml",
        }
    }

    /// Column heading in the Markdown tables (the paper's spelling).
    pub fn heading(self) -> &'static str {
        match self {
            Model::Pipeline => "Pipeline",
            Model::Roofline => "Roofline",
            Model::Volkov => "Volkov",
            Model::MwpCwp => "MWP-CWP",
            Model::MwpCwpCorr => "MWP-CWP_corr",
            Model::Wfg => "WFG",
            Model::WfgCorr => "WFG_corr",
            Model::GpumechRr => "gpumech_rr",
            Model::GpumechGto => "gpumech_gto",
            Model::Unified => "Unified",
            Model::Sampling => "Sampling",
            Model::SamplingMl => "Sampling-ML",
        }
    }
}

impl fmt::Display for Model {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Model {
    type Err = EvalError;
    fn from_str(s: &str) -> Result<Self, EvalError> {
        Model::ALL
            .into_iter()
            .find(|m| m.name() == s)
            .ok_or_else(|| EvalError::Usage(format!("unknown model `{s}`")))
    }
}

/// The launch geometry on one SM, shared by every model: the simulated core runs
/// ⌈grid blocks / SMs⌉ groups, `blocks_per_sm` of them at a time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CoreShape {
    pub sm_count: u32,
    pub warps_per_group: u32,
    pub total_groups: u64,
}

impl CoreShape {
    pub fn of(case: &KernelCase, sm_count: u32) -> CoreShape {
        CoreShape {
            sm_count,
            warps_per_group: case.spec.warps_per_block,
            total_groups: case.spec.grid_blocks,
        }
    }

    pub fn groups_per_core(&self) -> u64 {
        self.total_groups.div_ceil(u64::from(self.sm_count.max(1)))
    }

    /// Warps one core executes over the whole launch: the numerator of every WPC.
    pub fn warps_per_core(&self) -> u64 {
        self.groups_per_core() * u64::from(self.warps_per_group)
    }
}

/// One model's predicted curve for a kernel: WPC per measured point (same order), or why the
/// model could not predict this kernel.
pub type Curve = Result<Vec<f64>, String>;

/// Produces every model's curve for a kernel. Implementations must be deterministic (the CSV
/// is snapshot-tested) and may run kernels in parallel.
pub trait Predictor: Sync {
    /// Predicted WPC of each model at each of `points`, plus notes worth reporting (trip
    /// counts assumed, warnings of the mappers). A whole-kernel failure (the PTX does not
    /// lower, ...) is an `Err`; a single model failing is an `Err` curve.
    fn predict(
        &self,
        case: &KernelCase,
        points: &[MeasuredPoint],
        shape: CoreShape,
    ) -> Result<KernelPrediction, EvalError>;
}

#[derive(Debug, Clone, Default)]
pub struct KernelPrediction {
    pub curves: Vec<(Model, Curve)>,
    pub notes: Vec<Note>,
}

/// What a [`Note`] is about: `eval` prints one line per topic and every note with `--verbose`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Topic {
    /// A loop's trip count: how it was found, fitted or bounded.
    TripCounts,
    /// Branches on data the launch does not decide, and what the IDGs assume of them.
    Branches,
    /// Loops split between the warps of a group by the counters' busy share.
    UnevenWarps,
    /// Mappers f and g: unclassified instructions, metrics the profile lacks.
    Mapping,
    /// The alignment of the machine code with the IDGs: loops it could not pair or express.
    MachineCode,
}

impl Topic {
    /// The topic in words, as a heading of its notes.
    pub fn describe(self) -> &'static str {
        match self {
            Topic::TripCounts => "loop trip counts",
            Topic::Branches => "data-dependent branches",
            Topic::UnevenWarps => "uneven warps",
            Topic::Mapping => "instruction mapping",
            Topic::MachineCode => "machine code",
        }
    }
}

/// Something a prediction assumed that is worth reporting.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    pub topic: Topic,
    pub text: String,
}

impl Note {
    pub fn new(topic: Topic, text: impl Into<String>) -> Note {
        Note {
            topic,
            text: text.into(),
        }
    }
}

impl std::fmt::Display for Note {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}
