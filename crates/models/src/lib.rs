//! `models`: the analytical GPU performance models of pipeline-model-analysis section 2, made
//! side by side from the same inputs as the Pipeline simulation (one IDG, the mapped λ/Λ, the
//! execution configuration), plus the corrected variants of section 5.1.
//!
//! - [`characterize`]: the software characterization, computed once per kernel from the
//!   streamed IDG (α_comp, α_mem, CI, ILP, Λ_app, GPUMech intervals, WFG blocks).
//! - [`HwParams`]: the hardware block of Table 2 (λ_comp, Λ_comp, λ_mem, Λ_mem, λ_mem^instr,
//!   issue limit), averaged over the kernel's mapped instructions.
//! - One module per model, each with `predict(char, hw, occupancy_warps) -> Prediction`:
//!   [`roofline`] (Eq. 1), [`volkov`] (Eqs. 2-3), [`mwp_cwp`] (Eqs. 15-28, section 5.1),
//!   [`wfg`] (Eqs. 30-36, 41-42), [`gpumech`] (section 2.5, 2.5.1).
//! - [`unified`]: the unified hardware-fitted model of Stevens and Klöckner, a launch time
//!   `Σ α·p` of property counts with weights fitted per GPU (not a WPC model: its time is
//!   converted to WPC by the caller, the same at every occupancy).
//! - [`sampling`]: the sampling models of sampling-linear-ml-model (section 5), which need
//!   the GPU: the kernel timed on 2 and 3 saturation points of work groups, the line through
//!   them extrapolated to the full launch, and a ridge-regression correction of the sampled
//!   instruction rate from the counters (trained by the caller over other kernels).
//! - [`table`]: the occupancy table (with the simulator's `pipeline` column), CSV, `--explain`
//!   text and the SVG chart of Fig. 14.
//!
//! Every model predicts the steady-state warp throughput of one core (WPC = ω / CPR, CPR the
//! cycles of one run of ω warps). Library code never prints.

pub mod characterize;
pub mod gpumech;
pub mod hw;
pub mod mwp_cwp;
pub mod plot;
pub mod roofline;
pub mod sampling;
pub mod table;
pub mod unified;
pub mod volkov;
pub mod wfg;

pub use characterize::{Interval, KernelCharacterization, SubsystemLoad, WfgBlock, WfgMem};
pub use hw::HwParams;
pub use table::{
    analytical_table, models_table, unified_prediction, Row, Table, UnifiedPrediction, CSV_HEADER,
};

use serde::Serialize;

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ModelError {
    #[error("the kernel has no warp class")]
    NoClasses,
    #[error("no timing table for warp class {class} ({classes} tables given)")]
    MissingTiming { class: u32, classes: usize },
    #[error("the timing table has {timings} entries for an IDG of {nodes} nodes")]
    TimingLength { nodes: usize, timings: usize },
    #[error("the representative warp executes no instruction")]
    EmptyKernel,
    #[error("the occupancy range {lo}..={hi} holds no whole group of {warps_per_group} warps")]
    NoOccupancy {
        lo: u32,
        hi: u32,
        warps_per_group: u32,
    },
    #[error("pipeline simulation: {0}")]
    Sim(String),
    #[error("the representative warp executes {count} instructions, past the analytical models' budget of {budget} (they walk every executed instruction); check the loop trip counts with `ptx2idg cfg --explain`")]
    InstructionBudget { count: u64, budget: u64 },
}

/// What limits a prediction at one occupancy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Regime {
    /// A subsystem's or the issue limit's throughput (the roof).
    Throughput,
    /// Latencies not hidden by the ω warps (left of the ridge).
    Latency,
    /// MWP-CWP's three cases (section 2.3.1).
    MemoryBound,
    ComputeBound,
    OccupancyBound,
}

/// One model's prediction at one occupancy.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Prediction {
    /// Warps per cycle per core.
    pub wpc: f64,
    /// Cycles per run of ω warps (CPR).
    pub cycles_per_run: f64,
    pub regime: Regime,
}

impl Prediction {
    /// From the cycles of one run of ω warps.
    pub(crate) fn from_cpr(occupancy_warps: u32, cpr: f64, regime: Regime) -> Self {
        let wpc = if cpr > 0.0 {
            f64::from(occupancy_warps) / cpr
        } else {
            f64::INFINITY
        };
        Prediction {
            wpc,
            cycles_per_run: cpr,
            regime,
        }
    }
}

/// The analytical models, in the column order of [`CSV_HEADER`] ([`ModelKind::COLUMNS`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ModelKind {
    Roofline,
    Volkov,
    MwpCwp,
    MwpCwpCorr,
    Wfg,
    WfgCorr,
    GpuMechRr,
    GpuMechGto,
    /// The unified hardware-fitted model ([`unified`]): not a characterization model (its
    /// launch time comes from property counts and the profile's weights, [`unified::wpc`]),
    /// so it is in [`ModelKind::COLUMNS`] but not in [`ModelKind::ALL`]; flat in occupancy.
    Unified,
}

impl ModelKind {
    /// The models that predict from the characterization and the hardware block at each
    /// occupancy ([`ModelKind::predict`]).
    pub const ALL: [ModelKind; 8] = [
        ModelKind::Roofline,
        ModelKind::Volkov,
        ModelKind::MwpCwp,
        ModelKind::MwpCwpCorr,
        ModelKind::Wfg,
        ModelKind::WfgCorr,
        ModelKind::GpuMechRr,
        ModelKind::GpuMechGto,
    ];

    /// Every analytical column of [`CSV_HEADER`], in its order: [`ModelKind::ALL`], then the
    /// unified model (appended last: the header is a contract).
    pub const COLUMNS: [ModelKind; 9] = {
        let mut columns = [ModelKind::Unified; 9];
        let mut i = 0;
        while i < ModelKind::ALL.len() {
            columns[i] = ModelKind::ALL[i];
            i += 1;
        }
        columns
    };

    /// The CSV column name.
    pub fn column(self) -> &'static str {
        match self {
            ModelKind::Roofline => "roofline",
            ModelKind::Volkov => "volkov",
            ModelKind::MwpCwp => "mwp_cwp",
            ModelKind::MwpCwpCorr => "mwp_cwp_corr",
            ModelKind::Wfg => "wfg",
            ModelKind::WfgCorr => "wfg_corr",
            ModelKind::GpuMechRr => "gpumech_rr",
            ModelKind::GpuMechGto => "gpumech_gto",
            ModelKind::Unified => "unified",
        }
    }

    /// The prediction at `occupancy_warps` of a model of [`ModelKind::ALL`]; `None` for
    /// [`ModelKind::Unified`], which does not predict from the characterization
    /// ([`unified::wpc`]).
    pub fn predict(
        self,
        ch: &KernelCharacterization,
        hw: &HwParams,
        occupancy_warps: u32,
    ) -> Option<Prediction> {
        let f = match self {
            ModelKind::Roofline => roofline::predict,
            ModelKind::Volkov => volkov::predict,
            ModelKind::MwpCwp => mwp_cwp::predict,
            ModelKind::MwpCwpCorr => mwp_cwp::predict_corrected,
            ModelKind::Wfg => wfg::predict,
            ModelKind::WfgCorr => wfg::predict_corrected,
            ModelKind::GpuMechRr => gpumech::predict_rr,
            ModelKind::GpuMechGto => gpumech::predict_gto,
            ModelKind::Unified => return None,
        };
        Some(f(ch, hw, occupancy_warps))
    }
}
