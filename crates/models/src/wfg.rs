//! The WFG model of Baghsorkhi et al. (2010) as analysed in pipeline-model-analysis section 2.4
//! (Eqs. 30-36), and WFG* of section 5.1 (Eq. 42, λ_mem^instr = 0).
//!
//! The work flow graph of the representative warp is its sequence of computation blocks,
//! memory nodes and barriers ([`crate::WfgBlock`], [`crate::WfgMem`]). Edge latencies:
//! - Eq. 30, transition arc of block i: α^i·max(λ_comp, Λ_comp / (ILP^i·ω)), generalized to
//!   per-instruction timings as max(Σ_i λ, Σ_i Λ / (ILP^i·ω)).
//! - Eqs. 31-32: CYC_comp = Σ_i arc_i + λ_mem^instr·α_mem; λ̄_comp^trans = Σ_i arc_i / α_comp
//!   (Eq. 31 multiplies a per-instruction transition latency by α^i, i.e. the arc of Eq. 30).
//! - Eq. 34, transition arc of a memory node: max(λ_mem^instr, λ_mem − λ̄_comp^trans·CI), with
//!   the node's own λ as λ_mem.
//! - Eq. 35: NBC_avg = CYC_comp / (α_mem + α_sync + 1).
//! - Eq. 36, dependency arc of a load: Λ_exposed = Λ_mem − (ω−1)·NBC_avg.
//! - Flattening: blocks add their arcs, a memory node adds the larger of its two arcs (a store
//!   has only the transition arc); CPW is the sum, CPR = CPW·ω (Eq. 39). WLP_effect = ω
//!   (work groups are not considered, as in the paper). A barrier adds its λ.
//!
//! WFG* (section 5.1): λ_mem^instr = 0 and Eq. 42 instead of Eq. 36,
//! Λ_exposed = Λ_mem/ω − max(0, (ω−1)/ω·NBC_avg − α_i·Λ_comp/(ω·ILP^i)), the last term being the
//! arc of the block right before the memory node (0 when there is none). Eq. 42 already
//! contains Eq. 41's division by ω.

use crate::{HwParams, KernelCharacterization, Prediction, Regime};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Variant {
    Original,
    Corrected,
}

/// The per-warp cycles of the flattened graph, and whether a dependency arc decided any
/// memory node (the latency-bound case).
fn cycles_per_warp(
    ch: &KernelCharacterization,
    hw: &HwParams,
    occupancy_warps: u32,
    variant: Variant,
) -> (f64, bool) {
    let omega = f64::from(occupancy_warps.max(1));
    let lambda_instr = match variant {
        Variant::Original => hw.lambda_mem_instr,
        Variant::Corrected => 0.0,
    };
    // Eq. 30
    let arcs: f64 = ch
        .wfg_blocks
        .iter()
        .map(|b| b.count as f64 * b.lambda_sum.max(b.latency_sum / (b.ilp() * omega)))
        .sum();
    // Eqs. 31-32
    let cyc_comp = arcs + lambda_instr * ch.alpha_mem as f64;
    let lambda_bar = if ch.alpha_comp > 0 {
        arcs / ch.alpha_comp as f64
    } else {
        0.0
    };
    let ci = if ch.alpha_mem > 0 { ch.ci() } else { 0.0 };
    // Eq. 35
    let nbc = cyc_comp / (ch.alpha_mem + ch.alpha_sync + 1) as f64;
    let mut exposed_won = false;
    let mems: f64 = ch
        .wfg_mems
        .iter()
        .map(|m| {
            // Eq. 34
            let trans = lambda_instr.max(m.lambda - lambda_bar * ci);
            let dep = if m.load {
                match variant {
                    // Eq. 36
                    Variant::Original => m.latency - (omega - 1.0) * nbc,
                    // Eq. 42
                    Variant::Corrected => {
                        let own = m
                            .preceding
                            .map_or(0.0, |(latency, ilp)| latency / (omega * ilp));
                        m.latency / omega - ((omega - 1.0) / omega * nbc - own).max(0.0)
                    }
                }
            } else {
                f64::NEG_INFINITY
            };
            if dep > trans {
                exposed_won = true;
            }
            m.count as f64 * trans.max(dep)
        })
        .sum();
    (arcs + mems + ch.lambda_sync_sum, exposed_won)
}

fn predict_variant(
    ch: &KernelCharacterization,
    hw: &HwParams,
    occupancy_warps: u32,
    variant: Variant,
) -> Prediction {
    let (cpw, latency) = cycles_per_warp(ch, hw, occupancy_warps, variant);
    let regime = if latency {
        Regime::Latency
    } else {
        Regime::Throughput
    };
    // Eq. 39
    Prediction::from_cpr(occupancy_warps, cpw * f64::from(occupancy_warps), regime)
}

/// Baghsorkhi et al.'s equations (Eqs. 30-36).
pub fn predict(ch: &KernelCharacterization, hw: &HwParams, occupancy_warps: u32) -> Prediction {
    predict_variant(ch, hw, occupancy_warps, Variant::Original)
}

/// WFG* (Eq. 42, λ_mem^instr = 0).
pub fn predict_corrected(
    ch: &KernelCharacterization,
    hw: &HwParams,
    occupancy_warps: u32,
) -> Prediction {
    predict_variant(ch, hw, occupancy_warps, Variant::Corrected)
}
