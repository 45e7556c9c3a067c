//! Branches on unknown data as weights (issue 16, part 3c): instead of one assumption for every
//! warp (all lanes take the branch, none does, or both sides run), the warps of the walked
//! group are shared between two assumptions in the proportion whose IDG counters best match
//! the profiled launch's.
//!
//! The counters fitted are instructions (PTX counts times the caller's SASS factor), global
//! and shared loads and stores, per warp; the error is the sum of squared relative
//! residuals. Divergent branches are not fitted: ptxas predicates short branches, so a split
//! the IDG walks is often no branch in SASS. Thread instructions are not fitted either: every
//! assumption runs a side with all the lanes that reach the branch, so when a few lanes of a
//! warp take the long side (bench/branch_suite's `fma_lanes1`: 1.6 % of the lanes, 40 % of
//! the warps) no mix matches both the warp and the lane count, and fitting the lanes chose
//! 1 warp in 8 for the long side where the hardware ran it in 3 (178 % MAPE against 35 %
//! without them). Candidates: each pure
//! assumption, and for each pair of them the best proportion of `k` of the group's `W` warps
//! (`0 < k < W`), from the least-squares fraction of the linear mix of their per-warp counts,
//! rounded to the two nearest `k`. A candidate replaces the caller's assumption only when its
//! walked IDGs (not the linear estimate) fit strictly better. A launch that ran no branch
//! instruction had its branches predicated by ptxas: every warp then runs both sides.

use idg::counts::{kernel_counts, Counter};
use ir::{Analysis, BoundLaunch, Kernel, Trips};
use profile::{Launch, Quantity};

use crate::{build, Built, Mix, Options, UnknownBranch, WalkError};

/// The counters fitted, with the quantity measuring each, and whether the SASS factor of
/// instructions applies.
const FITTED: [(Counter, Quantity, bool); 5] = [
    (Counter::Instructions, Quantity::WarpInstsExecuted, true),
    (Counter::GlobalLoads, Quantity::GlobalLoadRequests, false),
    (Counter::GlobalStores, Quantity::GlobalStoreRequests, false),
    (Counter::SharedLoads, Quantity::SharedLoadInsts, false),
    (Counter::SharedStores, Quantity::SharedStoreInsts, false),
];

const POLICIES: [UnknownBranch; 3] = [
    UnknownBranch::NotTaken,
    UnknownBranch::Taken,
    UnknownBranch::Both,
];

/// What [`profile_consistent`] chose.
#[derive(Debug, Clone, PartialEq)]
pub struct Choice {
    /// The assumption of every warp, or of the first warps of a mix.
    pub policy: UnknownBranch,
    /// A mix of two assumptions, when chosen.
    pub mix: Option<Mix>,
    /// Sum of squared relative residuals of the choice, and of the caller's assumption.
    pub error: f64,
    pub base_error: f64,
    pub warps_per_group: u32,
    /// The profile counts no branch instruction: the branches were predicated and every warp
    /// runs both sides.
    pub predicated: bool,
}

impl Choice {
    /// One line for notes and `--explain`.
    pub fn describe(&self) -> String {
        let name = |u: UnknownBranch| match u {
            UnknownBranch::Taken => "taken",
            UnknownBranch::NotTaken => "not taken",
            UnknownBranch::Heavier => "the side with more code",
            UnknownBranch::Both => "both sides",
        };
        let what = match self.mix {
            Some(m) => format!(
                "{} of {} warps per group {}, the others {}",
                m.first_warps,
                self.warps_per_group,
                name(m.first),
                name(m.second)
            ),
            None => format!("every warp {}", name(self.policy)),
        };
        if self.predicated {
            return format!(
                "branches on unknown data: every warp both sides, as predicated code (the profile counts no branch instruction; counters fit with squared relative error {:.4}, the divergence-based assumption {:.4})",
                self.error, self.base_error
            );
        }
        format!(
            "branches on unknown data: {what} (the profile's counters fit with squared relative error {:.4}; the divergence-based assumption {:.4})",
            self.error, self.base_error
        )
    }
}

/// The warps `launch` ran, `None` where unmeasured or zero.
fn warps(launch: &Launch) -> Option<f64> {
    let warps = launch.quantity(Quantity::WarpsLaunched)?.value;
    (warps > 0.0).then_some(warps)
}

/// Per-warp measured values of the fitted counters, `None` where absent.
fn measured(launch: &Launch) -> Option<Vec<Option<f64>>> {
    let warps = warps(launch)?;
    Some(
        FITTED
            .iter()
            .map(|(_, q, _)| launch.quantity(*q).map(|m| m.value / warps))
            .collect(),
    )
}

/// Whether the launch ran no branch instruction at all (fewer than one in a hundred warps): a
/// kernel without loops whose branches ptxas if-converted.
fn predicated(launch: &Launch) -> bool {
    warps(launch)
        .zip(launch.quantity(Quantity::Branches))
        .is_some_and(|(w, b)| b.value / w < 0.01)
}

fn predicted(b: &Built, inst_factor: f64) -> Vec<f64> {
    let c = kernel_counts(&b.idgs, Some(&b.divergent_branches));
    FITTED
        .iter()
        .map(|(k, _, sass)| c.get(*k) * if *sass { inst_factor } else { 1.0 })
        .collect()
}

/// Weighted squared relative residuals; the instruction total (first) weighs
/// `ir::joint::INSTRUCTION_WEIGHT` times the others, as in the trip-count fit: the time
/// follows it, and a mix must not buy a better lane count with a wrong instruction total.
fn error(pred: &[f64], m: &[Option<f64>]) -> f64 {
    pred.iter()
        .zip(m)
        .enumerate()
        .filter_map(|(i, (p, m))| {
            let w = if i == 0 {
                ir::joint::INSTRUCTION_WEIGHT
            } else {
                1.0
            };
            m.map(|m| w * ((p - m) / m.max(1.0)).powi(2))
        })
        .sum()
}

/// Builds the IDGs like [`build`]; when the walk meets branches on unknown data and `measured`
/// has the counters, shares the group's warps between assumptions as the counters support
/// (module doc). `opts.unknown_branch` is the assumption to keep unless a candidate fits
/// better; `inst_factor` converts PTX instruction counts to the profile's SASS counts. A
/// caller's explicit `opts.mix` is built as given.
pub fn profile_consistent(
    kernel: &Kernel,
    an: &Analysis,
    launch: &BoundLaunch,
    trips: &Trips,
    opts: &Options,
    measured_launch: &Launch,
    inst_factor: f64,
) -> Result<(Built, Option<Choice>), WalkError> {
    let base = build(kernel, an, launch, trips, opts)?;
    if base.unknown_branches.is_empty() || opts.mix.is_some() {
        return Ok((base, None));
    }
    let Some(m) = measured(measured_launch) else {
        return Ok((base, None));
    };
    if m.iter().all(Option::is_none) {
        return Ok((base, None));
    }
    let with = |u: UnknownBranch, mix: Option<Mix>| Options {
        unknown_branch: u,
        mix,
        ..opts.clone()
    };
    if predicated(measured_launch) {
        // No branch instruction ran: ptxas turned every branch into predicated code, which
        // every warp issues whole, both sides, whatever its lanes decide.
        let base_error = error(&predicted(&base, inst_factor), &m);
        // The caller's assumption may already be both sides (the profile counts divergence).
        let b = if opts.unknown_branch == UnknownBranch::Both {
            base
        } else {
            build(kernel, an, launch, trips, &with(UnknownBranch::Both, None))?
        };
        let choice = Choice {
            policy: UnknownBranch::Both,
            mix: None,
            error: error(&predicted(&b, inst_factor), &m),
            base_error,
            warps_per_group: launch.warps_per_block(),
            predicated: true,
        };
        return Ok((b, Some(choice)));
    }
    let mut pure: Vec<(UnknownBranch, Vec<f64>, Option<Built>)> = Vec::new();
    for u in POLICIES {
        if u == opts.unknown_branch {
            pure.push((u, predicted(&base, inst_factor), None));
        } else {
            let b = build(kernel, an, launch, trips, &with(u, None))?;
            pure.push((u, predicted(&b, inst_factor), Some(b)));
        }
    }
    let base_error = error(&predicted(&base, inst_factor), &m);
    let w = launch.warps_per_block();
    let mut choice = Choice {
        policy: opts.unknown_branch,
        mix: None,
        error: base_error,
        base_error,
        warps_per_group: w,
        predicated: false,
    };
    let mut best_pure: Option<usize> = None;
    for (i, (u, p, _)) in pure.iter().enumerate() {
        let e = error(p, &m);
        if e < choice.error {
            choice.policy = *u;
            choice.error = e;
            best_pure = Some(i);
        }
    }
    // The best proportion of each pair, by the linear estimate; the walked mix decides.
    let mut estimate: Option<(f64, Mix)> = None;
    for i in 0..pure.len() {
        for j in i + 1..pure.len() {
            let (a, b) = (&pure[i].1, &pure[j].1);
            let (mut num, mut den) = (0.0, 0.0);
            for (n, ((x, y), m)) in a.iter().zip(b).zip(&m).enumerate() {
                let Some(m) = m else { continue };
                let w = if n == 0 {
                    ir::joint::INSTRUCTION_WEIGHT
                } else {
                    1.0
                };
                let s = w / m.max(1.0).powi(2);
                num += s * (m - y) * (x - y);
                den += s * (x - y) * (x - y);
            }
            if den <= 0.0 || w < 2 {
                continue;
            }
            let f = (num / den).clamp(0.0, 1.0) * f64::from(w);
            for k in [f.floor(), f.ceil()] {
                let k = k.clamp(1.0, f64::from(w - 1));
                let q = k / f64::from(w);
                let mixed: Vec<f64> = a
                    .iter()
                    .zip(b)
                    .map(|(x, y)| q * x + (1.0 - q) * y)
                    .collect();
                let e = error(&mixed, &m);
                if estimate.as_ref().is_none_or(|(best, _)| e < *best) {
                    estimate = Some((
                        e,
                        Mix {
                            first: pure[i].0,
                            second: pure[j].0,
                            first_warps: k as u32,
                        },
                    ));
                }
            }
        }
    }
    if let Some((_, mix)) = estimate.filter(|(e, _)| *e < choice.error) {
        let b = build(kernel, an, launch, trips, &with(mix.first, Some(mix)))?;
        let walked = error(&predicted(&b, inst_factor), &m);
        if walked < choice.error {
            choice.policy = mix.first;
            choice.mix = Some(mix);
            choice.error = walked;
            return Ok((b, Some(choice)));
        }
    }
    let built = match best_pure {
        Some(i) => pure.swap_remove(i).2.unwrap_or(base),
        None => base,
    };
    Ok((built, Some(choice)))
}
