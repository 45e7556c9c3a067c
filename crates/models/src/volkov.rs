//! Volkov's occupancy roofline (Volkov 2016; pipeline-model-analysis section 2.2, Eqs. 2-3).
//!
//! Eq. 2: Λ_app, the time of one warp alone, is the Λ-weighted dependent chain plus the λ of
//! the instructions that can overlap with it ([`KernelCharacterization::lambda_app`]). Eq. 3:
//! WPC = min(WPC_roof, ω / Λ_app): the other ω−1 warps are hidden completely behind the first
//! until the roof is reached. WPC_roof includes the issue limit ([`crate::roofline::roof`]),
//! as Volkov does (section 4.2). The contention function of Volkov's section 6.4 is not
//! modeled, as in the paper.

use crate::{roofline, HwParams, KernelCharacterization, Prediction, Regime};

pub fn predict(ch: &KernelCharacterization, hw: &HwParams, occupancy_warps: u32) -> Prediction {
    let roof = roofline::roof(ch, hw);
    let omega = f64::from(occupancy_warps);
    // CPR = max(ω / WPC_roof, Λ_app) is Eq. 3 written as the time of one run.
    let throughput = omega * roof.cycles_per_warp;
    let latency = ch.lambda_app();
    if throughput >= latency {
        Prediction::from_cpr(occupancy_warps, throughput, Regime::Throughput)
    } else {
        Prediction::from_cpr(occupancy_warps, latency, Regime::Latency)
    }
}
