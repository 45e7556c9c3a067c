//! Warps of a work group that end unevenly: trip counts per warp from the counters' busy share.
//!
//! Loops whose trip counts come from the data (a CSR row loop, a neighbour list) run a
//! different count in every warp, but the profile only gives their mean ([`ir::resolve_trips`]
//! fits one count per loop). A group holds its slot until its longest warp ends, so a group of
//! warps at the mean is shorter than the real one. Nsight Compute measures the spread: at one
//! group per SM, `sm__warps_active.avg.pct_of_peak_sustained_active` over
//! `sm__maximum_warps_per_active_cycle_pct` is the share ρ of the group's warp slots that hold
//! a running warp, the mean warp lifetime over the group's lifetime (the longest warp's).
//!
//! This module owns the split: of the W warps of a group, one runs the profile-fitted loops
//! `n_long = n / ρ` times and the other W − 1 share the rest, `n_short = (W·n − n_long) /
//! (W − 1)`, so the mean stays the fitted `n` (the counters' instruction totals are kept) and
//! the group's mean over max is ρ. Only the outermost fitted loops are scaled (a fitted loop
//! inside another one keeps its count, so the work scales by 1/ρ, not 1/ρ²), and the
//! remainder loop of an unrolled pair keeps its mean remainder. What it does not own: which
//! warp of a group is the long one at run time (the simulator places it,
//! `idg::KernelIdgs::rotate_classes`), and groups that differ from each other.

use ir::{Analysis, Kernel, LoopId, LoopTrip, TripRule, TripSource, Trips};

/// The two trip-count sets of a group's warps.
#[derive(Debug, Clone, PartialEq)]
pub struct Split {
    /// The long warp's (warp 0 of each walked group).
    pub long: Trips,
    /// The other warps'.
    pub short: Trips,
    /// The loops whose counts differ, with (mean, long, short) counts.
    pub scaled: Vec<(LoopId, u64, u64, u64)>,
}

/// The SMs of the GPU a launch ran on and the warp slots of each: how many slots a grid can
/// fill at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Slots {
    pub sms: u32,
    pub max_warps_per_sm: u32,
}

/// The share of a launch's resident warp slots that held a running warp, on average over the
/// SMs' active cycles: `sm__warps_active.avg.pct_of_peak_sustained_active /
/// sm__maximum_warps_per_active_cycle_pct`. `None` when either is missing or the second is 0.
/// At one group per SM no group waits for a slot, so a share below one is warps that ended
/// before the rest of their group. A grid with fewer warps per SM than the occupancy allows
/// (`slots` and the launch's warps, `sm__warps_launched.sum` or its grid and block, tell)
/// fills only those: they are the slots, not the limit (a 148-group BFS level kept 5.1 % of
/// 64 slots busy at 8 groups per SM and 36 % of its 9 warps per SM, as at one group per SM).
pub fn busy_share(launch: &profile::Launch, slots: Option<Slots>) -> Option<f64> {
    let active = launch
        .get("sm__warps_active.avg.pct_of_peak_sustained_active")?
        .value;
    let mut resident = launch.get("sm__maximum_warps_per_active_cycle_pct")?.value;
    if let Some(s) = slots.filter(|s| s.sms > 0 && s.max_warps_per_sm > 0) {
        if let Some(warps) = launched_warps(launch) {
            let filled = warps / f64::from(s.sms) / f64::from(s.max_warps_per_sm) * 100.0;
            if filled > 0.0 {
                resident = resident.min(filled);
            }
        }
    }
    (resident > 0.0 && active.is_finite()).then(|| (active / resident).min(1.0))
}

/// The warps a launch ran: the profiler's count, else its grid's groups times the warps of
/// its group.
fn launched_warps(launch: &profile::Launch) -> Option<f64> {
    if let Some(m) = launch.get("sm__warps_launched.sum") {
        return Some(m.value);
    }
    let (grid, block) = (launch.grid?, launch.block?);
    let threads: u64 = block.iter().product();
    Some((grid.iter().product::<u64>() * threads.div_ceil(32)) as f64)
}

/// Splits the profile-fitted loops of `trips` between one long warp and `warps - 1` short
/// ones for the busy share `rho`. `None` when there is nothing to split: a single warp per
/// group, `rho` not below one, or no profile-fitted loop.
pub fn split(kernel: &Kernel, an: &Analysis, trips: &Trips, warps: u32, rho: f64) -> Option<Split> {
    if warps < 2 || !(rho > 0.0 && rho < 1.0) {
        return None;
    }
    let fitted = |l: LoopId| matches!(trips.get(l).source, TripSource::Profile { .. });
    let all_fitted: Vec<LoopId> = an.loops.ids().filter(|&l| fitted(l)).collect();
    let remainders: Vec<LoopId> = ir::joint::unroll_pairs(kernel, an, &all_fitted)
        .iter()
        .map(|p| p.remainder)
        .collect();
    let w = f64::from(warps);
    // 1/ρ beyond W would leave the short warps a negative count: the long warp then does it all.
    let factor = (1.0 / rho).min(w);
    let mut long = trips.clone();
    let mut short = trips.clone();
    let mut scaled = Vec::new();
    for &l in &all_fitted {
        let nested_in_fitted =
            std::iter::successors(an.loops.get(l).parent, |&p| an.loops.get(p).parent).any(fitted);
        if nested_in_fitted || remainders.contains(&l) {
            continue;
        }
        let TripRule::Fixed(n) = trips.get(l).rule else {
            continue;
        };
        let n_long = (n as f64 * factor).round() as u64;
        let n_short = ((w * n as f64 - n_long as f64) / (w - 1.0))
            .round()
            .max(0.0) as u64;
        if n_long == n && n_short == n {
            continue;
        }
        let with = |t: u64| LoopTrip {
            rule: TripRule::Fixed(t),
            ..trips.get(l).clone()
        };
        long.loops[l.index()] = with(n_long);
        short.loops[l.index()] = with(n_short);
        scaled.push((l, n, n_long, n_short));
    }
    (!scaled.is_empty()).then_some(Split {
        long,
        short,
        scaled,
    })
}
