//! GPUMech (Huang et al., 2014) as implemented in pipeline-model-analysis section 2.5: interval
//! analysis of the representative warp ([`crate::Interval`]), computational latencies ignored,
//! the MSHR/DRAM contention part not implemented (the memory λ/Λ are taken as given).
//!
//! The original equations are not reproduced in the analysis paper; what follows is the
//! reading that agrees with every number it gives (the Fig. 8 example: 3 instructions, 6 stall
//! cycles, issue probability 1/3, 2 non-overlapped instructions for 4 warps by Eq. 11, 6 with
//! the correction). Instructions are counted in issue cycles so GPUs whose instructions cost
//! other than one cycle to issue fit the same equations; c̄_i is interval i's cycles per
//! instruction.
//! - Eq. 9, issue probability: p = Σ interval issue cycles / (Σ issue + Σ stall cycles).
//! - Eqs. 10-11 (round robin, as published): overlapped = p·(ω−1)·c̄_i;
//!   non-overlapped = p·(ω−1)·issue_i − overlapped. [`predict_rr_original`].
//! - Section 2.5.1 (round robin, corrected; the `gpumech_rr` column): p = 1 and the overlap is
//!   limited by the stall: overlapped = min(stall_i, (ω−1)·c̄_i);
//!   non-overlapped = (ω−1)·issue_i − overlapped. [`predict_rr`].
//!   Either way a run takes Σ_i (issue_i + stall_i + non-overlapped_i).
//! - Greedy-then-oldest (Eqs. 12-16 with the typo fixes Volkov confirmed with the author: Eq. 7
//!   computes IPC, not CPI, and Eqs. 15 and 16 swap min and max): the probability that another
//!   warp issues during stall i is min(1, p·stall_i / c̄) (Eq. 15), each such warp issues an
//!   average interval (Eqs. 12, 14), and at most the stall is covered (Eq. 16):
//!   overlapped_i = min(stall_i, (ω−1)·prob_i·avg_issue). A run takes
//!   ω·Σ issue_i + Σ (stall_i − overlapped_i). [`predict_gto`].
//!
//! WPC = ω / run cycles (Eq. 7 read as IPC, converted to warps).

use crate::{HwParams, Interval, KernelCharacterization, Prediction, Regime};

/// Eq. 9.
pub fn issue_probability(ch: &KernelCharacterization) -> f64 {
    let (issue, stall) = totals(&ch.intervals);
    if issue + stall > 0.0 {
        issue / (issue + stall)
    } else {
        1.0
    }
}

fn totals(intervals: &[Interval]) -> (f64, f64) {
    intervals.iter().fold((0.0, 0.0), |(i, s), iv| {
        (
            i + iv.count as f64 * iv.issue_cycles,
            s + iv.count as f64 * iv.stall_cycles,
        )
    })
}

fn per_instruction(iv: &Interval) -> f64 {
    if iv.instructions > 0 {
        iv.issue_cycles / iv.instructions as f64
    } else {
        0.0
    }
}

fn regime(omega: f64, ch: &KernelCharacterization, cpr: f64) -> Regime {
    let (issue, _) = totals(&ch.intervals);
    if cpr <= omega * issue + 1e-9 {
        Regime::Throughput
    } else {
        Regime::Latency
    }
}

fn round_robin(ch: &KernelCharacterization, occupancy_warps: u32, corrected: bool) -> Prediction {
    let omega = f64::from(occupancy_warps);
    let others = omega - 1.0;
    let p = issue_probability(ch);
    let cpr: f64 = ch
        .intervals
        .iter()
        .map(|iv| {
            let c = per_instruction(iv);
            let nonoverlapped = if corrected {
                // #overl_insts_i = min(stall_cycles_i, #warps − 1)
                let overlapped = iv.stall_cycles.min(others * c);
                others * iv.issue_cycles - overlapped
            } else {
                // Eq. 10, Eq. 11
                let overlapped = p * others * c;
                p * others * iv.issue_cycles - overlapped
            };
            iv.count as f64 * (iv.issue_cycles + iv.stall_cycles + nonoverlapped)
        })
        .sum();
    Prediction::from_cpr(occupancy_warps, cpr, regime(omega, ch, cpr))
}

/// Round robin with the corrections of section 2.5.1 (the `gpumech_rr` column).
pub fn predict_rr(ch: &KernelCharacterization, _hw: &HwParams, occupancy_warps: u32) -> Prediction {
    round_robin(ch, occupancy_warps, true)
}

/// Round robin with the published issue-probability equations (Fig. 2's curve that goes
/// through the roof).
pub fn predict_rr_original(
    ch: &KernelCharacterization,
    _hw: &HwParams,
    occupancy_warps: u32,
) -> Prediction {
    round_robin(ch, occupancy_warps, false)
}

/// Greedy-then-oldest with the typo fixes.
pub fn predict_gto(
    ch: &KernelCharacterization,
    _hw: &HwParams,
    occupancy_warps: u32,
) -> Prediction {
    let omega = f64::from(occupancy_warps);
    let others = omega - 1.0;
    let p = issue_probability(ch);
    let (issue, _) = totals(&ch.intervals);
    let count: u64 = ch.intervals.iter().map(|iv| iv.count).sum();
    let instructions: u64 = ch
        .intervals
        .iter()
        .map(|iv| iv.count * iv.instructions)
        .sum();
    let avg_issue = if count > 0 { issue / count as f64 } else { 0.0 };
    let c_bar = if instructions > 0 {
        issue / instructions as f64
    } else {
        0.0
    };
    let uncovered: f64 = ch
        .intervals
        .iter()
        .map(|iv| {
            // Eq. 15 (min, not max)
            let prob = if c_bar > 0.0 {
                (p * iv.stall_cycles / c_bar).min(1.0)
            } else {
                1.0
            };
            // Eqs. 12, 14, 16 (min, not max)
            let overlapped = iv.stall_cycles.min(others * prob * avg_issue);
            iv.count as f64 * (iv.stall_cycles - overlapped)
        })
        .sum();
    let cpr = omega * issue + uncovered;
    Prediction::from_cpr(occupancy_warps, cpr, regime(omega, ch, cpr))
}
