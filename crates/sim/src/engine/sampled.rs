//! Sampled simulation: extrapolation over a steady schedule that does not repeat word for word.
//!
//! The exact fast-forward (`steady`) skips only periods after which the whole core is in the
//! same state, times relative to now. Many schedules never return exactly (warps on several
//! partitions drift against each other, one-warp groups land on partitions unevenly) and yet
//! run at a steady rate. At every checkpoint the engine keeps a *mark* (time, counters, groups
//! started and finished, busy totals, each warp's loop iterations and instructions fetched).
//! Two consecutive windows of k marks each are a *steady* pair when
//!
//! - both did the same work: equal groups started and finished, and either
//!   - *loop windows* (no group started): every warp is the same warp in both windows and
//!     moved the same number of iterations ahead in each repeat it stayed inside, or
//!   - *wave windows* (groups started): every resident group started within the last window,
//!     so nothing resident needs to move ahead;
//! - every warp that fetched instructions in a window advanced a loop in it (a warp running
//!   straight-line code is not in a steady state: skipping would replay its code);
//! - their instructions and their times agree within [`TOLERANCE`].
//!
//! Then the windows that stay clear of every limit (a loop's last iteration, the last groups
//! of the core) are added like the last one: time, counters, busy totals, groups, and the
//! iterations of the warps that advanced; every stored time moves forward by their length
//! (`Engine::apply`), and the run goes on to simulate the approach to the limits and the drain
//! for real. The difference of the two windows' times, once per added window, is the error
//! bound the run reports. k is tried at 1, 2, 4, ... marks, so a schedule whose steady
//! period spans several checkpoints is found at the k that holds it.

use std::collections::VecDeque;

use super::steady::{Skip, BOUND};
use super::Engine;
use crate::result::Counters;

/// Largest relative difference between the two windows' times (and instructions) for the
/// schedule to count as steady.
pub(super) const TOLERANCE: f64 = 0.005;

/// Wave windows compared: a schedule still drifting towards its steady rate shows in three
/// windows where two may agree by chance.
const WINDOWS: u64 = 3;

/// Waves before the first wave window: the core filling up, and the slower settling of
/// queues and partitions.
const WARMUP_WAVES: u64 = 4;

/// Fewest group starts a wave window holds.
const MIN_WAVE_GROUPS: u64 = 32;

/// Marks kept: two windows of up to half as many each.
const MARKS: usize = 512;

/// One repeat a warp's stream is inside, at a mark.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Loop {
    slot: u32,
    depth: u32,
    generation: u32,
    instance: u64,
    iteration: u64,
    count: u64,
}

#[derive(Debug)]
pub(super) struct Mark {
    now: u64,
    counters: Counters,
    next_group: u64,
    groups_done: u64,
    busy: Vec<u64>,
    loops: Vec<Loop>,
    /// Per warp slot: (generation, instructions fetched, active).
    warps: Vec<(u32, u64, bool)>,
    /// Taken at a group start.
    at_start: bool,
    /// Taken at a checkpoint of the exact fast-forward (a group start or the oldest warp
    /// entering a loop iteration, spaced by the key's size), not only at a group start: loop
    /// windows compare these alone, whose spacing follows the pacing warp's iterations.
    at_checkpoint: bool,
}

/// What a warp did in a window, at one depth: the same run of the repeat, advanced by so many
/// iterations, or another run (a repeat entered anew).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Advance {
    Same(u64),
    New,
}

/// The sampled part of a run (`SimOptions::sampled`).
#[derive(Debug, Default)]
pub(super) struct Sampling {
    marks: VecDeque<Mark>,
    pub(super) instructions: u64,
    pub(super) ticks: u64,
    pub(super) skips: u64,
    pub(super) wave_skips: u64,
    pub(super) groups: u64,
    pub(super) error_ticks: u64,
}

impl Sampling {
    /// Marks before a skip measured another stretch of time: windows may not span it.
    pub(super) fn forget(&mut self) {
        self.marks.clear();
    }
}

/// Per (slot, depth) of `new`, how it moved since `old`; None if a repeat went backwards.
fn advances(old: &[Loop], new: &[Loop]) -> Option<Vec<(u32, u32, Advance)>> {
    new.iter()
        .map(|b| {
            let a = old
                .iter()
                .find(|a| a.slot == b.slot && a.depth == b.depth && a.generation == b.generation);
            let adv = match a {
                Some(a) if a.instance == b.instance => {
                    Advance::Same(b.iteration.checked_sub(a.iteration)?)
                }
                _ => Advance::New,
            };
            Some((b.slot, b.depth, adv))
        })
        .collect()
}

/// The time per group started, fitted by least squares to the group starts of [`WINDOWS`]
/// windows of `k` groups (`starts`, the marks at those starts, oldest first, the first at
/// `start`), and the largest relative difference between the windows' own fits; None when
/// that exceeds [`TOLERANCE`]. A fit over every start, unlike the times between two marks,
/// does not carry the jitter of the marks at the windows' ends into the rate.
fn rate_fit(starts: &[&Mark], start: u64, k: u64) -> Option<(f64, f64)> {
    let fit = |lo: u64, hi: u64| -> Option<f64> {
        let ms: Vec<&&Mark> = starts
            .iter()
            .filter(|m| (lo..=hi).contains(&m.next_group))
            .collect();
        let n = ms.len() as f64;
        if ms.len() < 2 {
            return None;
        }
        let mg = ms.iter().map(|m| m.next_group as f64).sum::<f64>() / n;
        let mt = ms.iter().map(|m| m.now as f64).sum::<f64>() / n;
        let (mut sgt, mut sgg) = (0.0, 0.0);
        for m in ms {
            let g = m.next_group as f64 - mg;
            sgt += g * (m.now as f64 - mt);
            sgg += g * g;
        }
        (sgg > 0.0).then(|| sgt / sgg)
    };
    let rate = fit(start, start + WINDOWS * k)?;
    let mut spread = 0.0f64;
    for w in 0..WINDOWS {
        let r = fit(start + w * k, start + (w + 1) * k)?;
        spread = spread.max((r - rate).abs() / rate);
    }
    (rate > 0.0 && spread <= TOLERANCE).then_some((rate, spread))
}

fn within(a: u64, b: u64) -> bool {
    a.abs_diff(b) as f64 <= TOLERANCE * a.max(b) as f64
}

impl Engine<'_> {
    fn mark(&self, at_checkpoint: bool) -> Mark {
        let at_start = self.started_now;
        let mut loops = Vec::new();
        for (slot, w) in self.warps.iter().enumerate() {
            let Some(stream) = w.stream.as_ref().filter(|_| w.active) else {
                continue;
            };
            for (depth, f) in stream.position().enumerate() {
                if f.count > 0 {
                    loops.push(Loop {
                        slot: slot as u32,
                        depth: depth as u32,
                        generation: w.generation,
                        instance: f.instance,
                        iteration: f.iteration,
                        count: f.count,
                    });
                }
            }
        }
        Mark {
            now: self.now,
            counters: self.counters,
            next_group: self.next_group,
            groups_done: self.groups_done,
            busy: self.busy_now(),
            loops,
            warps: self
                .warps
                .iter()
                .map(|w| (w.generation, w.fetched, w.active))
                .collect(),
            at_start,
            at_checkpoint,
        }
    }

    /// Keeps a mark of now and, when the last two windows are steady, skips ahead. Returns
    /// the skip and its error bound in ticks.
    pub(super) fn sampled_skip(&mut self, at_checkpoint: bool) -> Option<(Skip, u64)> {
        let now = self.mark(at_checkpoint);
        let found = {
            let marks = &self.sampling.as_ref()?.marks;
            let mut found = None;
            // Loop windows: k checkpoint marks each; three of them.
            let kept: Vec<&Mark> = marks.iter().filter(|m| m.at_checkpoint).collect();
            let mut k = 1;
            while now.at_checkpoint && found.is_none() && 3 * k <= kept.len() {
                let c1 = kept[kept.len() - k];
                let c0 = kept[kept.len() - 2 * k];
                let cm = kept[kept.len() - 3 * k];
                // The last two windows steady, and the two before them too.
                found = self
                    .loop_skip(c0, c1, &now)
                    .filter(|_| self.loop_skip(cm, c0, c1).is_some());
                k *= 2;
            }
            // Wave windows: K groups started each, K a whole number of waves, after the
            // first two waves (the core filling up).
            let gamma = self.groups.len() as u64;
            // At least two waves and MIN_WAVE_GROUPS groups a window: a rate fitted to fewer
            // starts follows the phases of a few groups.
            let mut waves = 2u64.max(MIN_WAVE_GROUPS.div_ceil(gamma.max(1)));
            while found.is_none() && now.next_group >= gamma * (WINDOWS * waves + WARMUP_WAVES) {
                let k = gamma * waves;
                // The marks taken at a group start, in the two windows.
                let starts: Vec<&Mark> = marks
                    .iter()
                    .filter(|m| m.at_start && m.next_group + WINDOWS * k >= now.next_group)
                    .collect();
                match starts.first() {
                    Some(c0) if c0.next_group + WINDOWS * k == now.next_group => {
                        found = self.wave_skip(&starts, k, &now);
                    }
                    _ => break,
                }
                waves *= 2;
            }
            found
        };
        let sampling = self.sampling.as_mut()?;
        sampling.marks.push_back(now);
        if sampling.marks.len() > MARKS {
            sampling.marks.pop_front();
        }
        found
    }

    /// The skip over the loop windows (`c0`, `c1`) and (`c1`, `now`) if they are steady: no
    /// group started or finished, the same warps, each moving every repeat it stayed inside
    /// by as many iterations in both windows, instructions and times within [`TOLERANCE`].
    fn loop_skip(&self, c0: &Mark, c1: &Mark, now: &Mark) -> Option<(Skip, u64)> {
        if now.next_group != c0.next_group || now.groups_done != c0.groups_done {
            return None;
        }
        let (d1, d0) = (now.now - c1.now, c1.now - c0.now);
        let recent = now.counters.since(c1.counters);
        let before = c1.counters.since(c0.counters);
        if d1 == 0
            || recent.instructions == 0
            || !within(d1, d0)
            || !within(recent.instructions, before.instructions)
            || now.warps.iter().zip(&c0.warps).any(|(a, b)| a.0 != b.0)
        {
            return None;
        }
        let a1 = advances(&c1.loops, &now.loops)?;
        let a0 = advances(&c0.loops, &c1.loops)?;
        if a0 != a1 {
            return None;
        }
        let mut iterations = Vec::new();
        let mut m = u64::MAX;
        for (l, &(_, _, adv)) in now.loops.iter().zip(&a1) {
            if let Advance::Same(d) = adv {
                if let Some(room) = l.count.saturating_sub(1 + l.iteration).checked_div(d) {
                    m = m.min(room);
                    iterations.push((l.slot, l.depth, d));
                }
            }
        }
        // A warp that fetched without moving a loop ran straight-line code: a skip would
        // replay it.
        for (slot, (&(_, f1, active), &(_, f0, _))) in now.warps.iter().zip(&c1.warps).enumerate() {
            let moved = iterations.iter().any(|&(s, _, _)| s as usize == slot);
            if active && f1 > f0 && !moved {
                return None;
            }
        }
        if iterations.is_empty() {
            return None;
        }
        let m = m.min(representable(c1, now));
        if m == 0 || m == u64::MAX {
            return None;
        }
        let mut counters = Counters::default();
        counters.add_times(recent, m);
        let skip = Skip {
            ticks: d1 * m,
            counters,
            groups_done: 0,
            groups: 0,
            busy: now
                .busy
                .iter()
                .zip(&c1.busy)
                .map(|(b, a)| (b - a) * m)
                .collect(),
            iterations: iterations
                .into_iter()
                .map(|(slot, depth, d)| (slot, depth, d * m))
                .collect(),
            frozen: Vec::new(),
        };
        Some((skip, d1.abs_diff(d0).saturating_mul(m)))
    }

    /// The skip over two wave windows of `k` groups each (`starts`: the marks at the group
    /// starts of both, the first at their beginning) if they are steady: every resident group
    /// started within the last window, the groups of both ran the same classes, and the
    /// times per group fitted to each window's starts agree within [`TOLERANCE`]. Whole
    /// windows are added while the core keeps groups to start beyond one more wave; each
    /// added group is one started and one finished, with the mean counters and busy time of
    /// a group of the two windows, at the rate fitted to both.
    fn wave_skip(&self, starts: &[&Mark], k: u64, now: &Mark) -> Option<(Skip, u64)> {
        let c0 = starts.first()?;
        if c0.next_group < self.uniform_from
            || self
                .groups
                .iter()
                .any(|g| g.active && g.local + k < now.next_group)
        {
            return None;
        }
        let (rate, spread) = rate_fit(starts, c0.next_group, k)?;
        let room = self
            .groups_per_core
            .checked_sub(self.next_group + self.groups.len() as u64 + 1)?;
        let mut windows = room / k;
        if self.kernel.rotate_classes {
            // The next group's rotation must stay where it is.
            let wpg = u64::from(self.exec.warps_per_group);
            while windows > 0 && !(windows * k).is_multiple_of(wpg) {
                windows -= 1;
            }
        }
        let groups = windows * k;
        let ticks = (rate * groups as f64).round();
        if groups == 0 || ticks >= (BOUND - self.now) as f64 {
            return None;
        }
        let ticks = ticks as u64;
        let measured = WINDOWS * k;
        let counters = now.counters.since(c0.counters).scaled(groups, measured);
        if counters.values().iter().any(|&c| c >= BOUND) {
            return None;
        }
        let skip = Skip {
            ticks,
            counters,
            groups_done: groups,
            groups,
            busy: now
                .busy
                .iter()
                .zip(&c0.busy)
                .map(|(b, a)| {
                    let x = u128::from(b - a) * u128::from(groups) / u128::from(measured);
                    u64::try_from(x).unwrap_or(u64::MAX)
                })
                .collect(),
            iterations: Vec::new(),
            frozen: Vec::new(),
        };
        Some((skip, (ticks as f64 * spread).ceil() as u64))
    }
}

/// Most windows like the one from `c1` to `now` that keep every total at or below [`BOUND`].
fn representable(c1: &Mark, now: &Mark) -> u64 {
    [(now.now, c1.now)]
        .into_iter()
        .chain(now.counters.values().into_iter().zip(c1.counters.values()))
        .chain(now.busy.iter().copied().zip(c1.busy.iter().copied()))
        .filter(|(b, a)| b > a)
        .map(|(b, a)| BOUND.saturating_sub(b) / (b - a))
        .min()
        .unwrap_or(u64::MAX)
}
