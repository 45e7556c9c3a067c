//! The Roofline model (Williams et al., 2009; pipeline-model-analysis section 2.1, Eq. 1),
//! with as many subsystems as the GPU profile has (Konstantinidis and Cotronis's extension).
//!
//! Eq. 1, IPC_roof = min(IPC_comp, BW·CI), is the two-subsystem case of: one warp keeps
//! subsystem s busy for Σ_{i on s} λ_i cycles, and every subsystem works in parallel with the
//! others, so a warp takes the largest of these busy times; the issue limit (Fig. 10's valve)
//! is one more such bound, N / IL. The roof does not depend on the occupancy: all latencies are
//! assumed hidden.

use serde::Serialize;

use crate::{HwParams, KernelCharacterization, Prediction, Regime};

/// What bounds the roof.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Bound {
    /// A subsystem (`gpu::SubsystemId` index).
    Subsystem(u16),
    /// The issue limit.
    Issue,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Roof {
    /// Cycles per warp on the bounding resource (1 / WPC_roof).
    pub cycles_per_warp: f64,
    pub bound: Bound,
    /// α^roof of Eq. 3: instructions per warp executed on the bounding resource.
    pub alpha_roof: u64,
}

impl Roof {
    pub fn wpc(&self) -> f64 {
        if self.cycles_per_warp > 0.0 {
            1.0 / self.cycles_per_warp
        } else {
            f64::INFINITY
        }
    }
}

/// The bounding subsystem or issue limit of one warp.
pub fn roof(ch: &KernelCharacterization, hw: &HwParams) -> Roof {
    let mut best = Roof {
        cycles_per_warp: ch.instructions as f64 * hw.issue_interval(),
        bound: Bound::Issue,
        alpha_roof: ch.instructions,
    };
    for s in &ch.subsystems {
        if s.lambda_sum > best.cycles_per_warp {
            best = Roof {
                cycles_per_warp: s.lambda_sum,
                bound: Bound::Subsystem(s.subsystem),
                alpha_roof: s.instructions,
            };
        }
    }
    best
}

/// Eq. 1's IPC_roof: computational instructions per cycle at the roof.
pub fn ipc(ch: &KernelCharacterization, hw: &HwParams) -> f64 {
    ch.alpha_comp as f64 * roof(ch, hw).wpc()
}

/// WPC_roof at every occupancy.
pub fn predict(ch: &KernelCharacterization, hw: &HwParams, occupancy_warps: u32) -> Prediction {
    let r = roof(ch, hw);
    Prediction::from_cpr(
        occupancy_warps,
        f64::from(occupancy_warps) * r.cycles_per_warp,
        Regime::Throughput,
    )
}
