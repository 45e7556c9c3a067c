//! The MWP-CWP model of Hong and Kim (2009) as rephrased in pipeline-model-analysis section
//! 2.3 (Eqs. 15-28), and MWP-CWP* of section 5.1.
//!
//! The software is P = α_mem periods of Q = CI computations followed by a memory request.
//! - Eq. 15: MWP = Λ_mem / λ_mem; Eq. 16: CWP = Λ_mem / (CI·λ_comp) + 1.
//! - Cases: memory bound when MWP < min(ω, CWP) (Eq. 26), compute bound when
//!   CWP < min(ω, MWP) (Eq. 27), occupancy bound when ω ≤ min(MWP, CWP) (Eq. 28). The tie
//!   MWP = CWP < ω, which the three conditions leave out, is memory bound, as Hong and Kim's
//!   "CWP ≥ MWP" test decides it.
//! - Eq. 26 as printed in the analysis paper: CPR = α_mem·ω·λ_mem + CI·λ_comp·MWP.
//! - Eq. 27: CPR = α_comp·λ_comp·ω + Λ_mem.
//! - Eq. 28: CPR = Λ*_app + CI·λ_comp·(ω−1), Λ*_app = α_mem·Λ_mem + α_comp·λ_comp.
//!
//! MWP-CWP* (section 5.1) replaces Λ*_app by Eq. 2's Λ_app and, since the occupancy-bound
//! region is then no longer clear, takes the largest CPR of the three cases (MWP capped at ω in
//! Eq. 26, as Hong and Kim cap it at N).
//!
//! The model's issue limit (Table 7) enters through λ_comp: a computation cannot issue faster
//! than 1/IL. Without memory instructions CI and MWP are undefined; the kernel is then compute
//! bound, Eq. 27 without the memory drain. Barriers (Hong and Kim's synchronization cost) are not
//! modeled.

use serde::Serialize;

use crate::{HwParams, KernelCharacterization, Prediction, Regime};

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Parameters {
    pub mwp: f64,
    pub cwp: f64,
    /// λ_comp with the issue limit applied.
    pub lambda_comp: f64,
    pub ci: f64,
}

/// MWP (Eq. 15) and CWP (Eq. 16).
pub fn parameters(ch: &KernelCharacterization, hw: &HwParams) -> Parameters {
    let lambda_comp = hw.lambda_comp.max(hw.issue_interval());
    let ci = ch.ci();
    let mwp = if hw.lambda_mem > 0.0 {
        hw.latency_mem / hw.lambda_mem
    } else {
        f64::INFINITY
    };
    let per_period = ci * lambda_comp;
    let cwp = if per_period > 0.0 {
        hw.latency_mem / per_period + 1.0
    } else {
        f64::INFINITY
    };
    Parameters {
        mwp,
        cwp,
        lambda_comp,
        ci,
    }
}

fn memory_bound(
    ch: &KernelCharacterization,
    hw: &HwParams,
    p: &Parameters,
    omega: f64,
    mwp: f64,
) -> f64 {
    // Eq. 26
    ch.alpha_mem as f64 * omega * hw.lambda_mem + p.ci * p.lambda_comp * mwp
}

fn compute_bound(ch: &KernelCharacterization, hw: &HwParams, p: &Parameters, omega: f64) -> f64 {
    // Eq. 27
    ch.alpha_comp as f64 * p.lambda_comp * omega + hw.latency_mem
}

fn occupancy_bound(p: &Parameters, lambda_app: f64, omega: f64) -> f64 {
    // Eq. 28
    lambda_app + p.ci * p.lambda_comp * (omega - 1.0)
}

/// Λ*_app of Eq. 28: memory latencies plus computational CPIs only.
pub fn lambda_app_star(ch: &KernelCharacterization, hw: &HwParams) -> f64 {
    ch.alpha_mem as f64 * hw.latency_mem + ch.alpha_comp as f64 * parameters(ch, hw).lambda_comp
}

fn compute_only(ch: &KernelCharacterization, p: &Parameters, omega: f64) -> f64 {
    ch.alpha_comp as f64 * p.lambda_comp * omega
}

/// Hong and Kim's model (Eqs. 15-28).
pub fn predict(ch: &KernelCharacterization, hw: &HwParams, occupancy_warps: u32) -> Prediction {
    let p = parameters(ch, hw);
    let omega = f64::from(occupancy_warps);
    if ch.alpha_mem == 0 {
        return Prediction::from_cpr(
            occupancy_warps,
            compute_only(ch, &p, omega),
            Regime::ComputeBound,
        );
    }
    let (cpr, regime) = if omega <= p.mwp.min(p.cwp) {
        (
            occupancy_bound(&p, lambda_app_star(ch, hw), omega),
            Regime::OccupancyBound,
        )
    } else if p.mwp <= p.cwp {
        (memory_bound(ch, hw, &p, omega, p.mwp), Regime::MemoryBound)
    } else {
        (compute_bound(ch, hw, &p, omega), Regime::ComputeBound)
    };
    Prediction::from_cpr(occupancy_warps, cpr, regime)
}

/// MWP-CWP* (section 5.1): Λ_app of Eq. 2 in Eq. 28, and the largest CPR of the three cases.
pub fn predict_corrected(
    ch: &KernelCharacterization,
    hw: &HwParams,
    occupancy_warps: u32,
) -> Prediction {
    let p = parameters(ch, hw);
    let omega = f64::from(occupancy_warps);
    let lambda_app = ch.lambda_app();
    if ch.alpha_mem == 0 {
        // No periods: Eq. 28 has no CI term; the run is the single warp or the compute time.
        let c = compute_only(ch, &p, omega);
        let (cpr, regime) = if c >= lambda_app {
            (c, Regime::ComputeBound)
        } else {
            (lambda_app, Regime::OccupancyBound)
        };
        return Prediction::from_cpr(occupancy_warps, cpr, regime);
    }
    let mut best = (
        occupancy_bound(&p, lambda_app, omega),
        Regime::OccupancyBound,
    );
    let m = memory_bound(ch, hw, &p, omega, p.mwp.min(omega));
    if m > best.0 {
        best = (m, Regime::MemoryBound);
    }
    let c = compute_bound(ch, hw, &p, omega);
    if c > best.0 {
        best = (c, Regime::ComputeBound);
    }
    Prediction::from_cpr(occupancy_warps, best.0, best.1)
}
