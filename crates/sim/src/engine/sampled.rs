//! Sampled simulation: extrapolation over a steady schedule that does not repeat word for word.
//!
//! The exact fast-forward (`steady`) skips only periods after which the whole core is in the
//! same state, times relative to now. Many schedules never return exactly (warps on several
//! partitions drift against each other, one-warp groups land on partitions unevenly) and yet
//! run at a steady rate. At every checkpoint of the fast-forward and at every group start the
//! engine keeps a *mark* (time, counters, groups started and finished, busy totals, each warp's
//! loop iterations and instructions fetched). Windows between marks are *steady* when
//!
//! - *loop windows*: three consecutive windows of k checkpoint marks (k = 1, 2, 4, ...) in
//!   which no group starts or finishes, every warp is the same warp and moves each repeat it
//!   stays inside by the same number of iterations in every window, every warp that fetched
//!   instructions moved a loop (a warp in straight-line code is not steady: skipping would
//!   replay its code), and the last two windows' instructions and times (and the two before
//!   them) agree within [`TOLERANCE`];
//! - *wave windows*: [`WINDOWS`] windows of K group starts (whole waves, at least
//!   [`MIN_WAVE_GROUPS`], after [`WARMUP_WAVES`]) in which every resident group started within
//!   the last window, so nothing resident needs to move ahead, and the times per group fitted
//!   to each window's starts agree within [`TOLERANCE`].
//!
//! Then the windows that stay clear of every limit (a loop's last iteration, the last wave of
//! the core) are added: time, counters, busy totals, groups, and the iterations of the warps
//! that advanced; every stored time moves forward by their length (`Engine::apply`), and the
//! run goes on to simulate the approach to the limits and the drain for real. Each skip adds
//! its error bound ([`Totals::error_ticks`]).

use std::collections::VecDeque;

use super::steady::{representable, Progress, Skip, BOUND};
use super::Engine;
use crate::result::Counters;

/// Largest relative difference between consecutive windows' times and instructions (loop
/// windows) or fitted rates (wave windows) for the schedule to count as steady.
pub(super) const TOLERANCE: f64 = 0.005;

/// Wave windows compared: a schedule still drifting towards its steady rate shows in three
/// windows where two may agree by chance.
const WINDOWS: u64 = 3;

/// Waves before the first wave window: the core filling up, and the slower settling of
/// queues and partitions.
const WARMUP_WAVES: u64 = 4;

/// Fewest group starts a wave window holds.
const MIN_WAVE_GROUPS: u64 = 32;

/// Marks kept of each kind: enough for three loop windows of up to 128 checkpoint marks, and
/// for wave windows over the group starts of many waves.
const MARKS: usize = 512;

#[derive(Debug, Clone)]
pub(super) struct Mark {
    now: u64,
    counters: Counters,
    next_group: u64,
    groups_done: u64,
    busy: Vec<u64>,
    /// The repeats each active warp is inside, by slot, then depth.
    loops: Vec<Progress>,
    /// Per warp slot: (generation, instructions fetched, active).
    warps: Vec<(u32, u64, bool)>,
    /// Taken at a group start.
    at_start: bool,
    /// Taken at a checkpoint of the exact fast-forward (a group start or the oldest warp
    /// entering a loop iteration, spaced by the key's size), not only at a group start: loop
    /// windows compare these alone, whose spacing follows the pacing warp's iterations.
    at_checkpoint: bool,
}

/// A repeat that moves ahead in a skip: (warp slot, depth, iterations per window), as
/// `Skip::iterations` takes it.
type Moves = (u32, u32, u64);

/// What a warp did in a window, at one depth: the same run of the repeat, advanced by so many
/// iterations, or another run (a repeat entered anew).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Advance {
    Same(u64),
    New,
}

/// What the sampled skips of a run added.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Totals {
    pub skips: u64,
    /// Of those, the ones over whole waves of groups.
    pub wave_skips: u64,
    /// Groups the wave skips accounted for.
    pub groups: u64,
    /// Loops cut for the truncated runs (`crate::truncated`).
    pub truncated_loops: u64,
    pub instructions: u64,
    pub ticks: u64,
    /// The skips' error bounds, summed.
    pub error_ticks: u64,
}

/// The sampled part of a run (`SimOptions::sampled`).
#[derive(Debug, Default)]
pub(super) struct Sampling {
    /// The marks taken at checkpoints, for loop windows.
    marks: VecDeque<Mark>,
    /// The marks taken at group starts, for wave windows: kept apart, so that the checkpoints
    /// of long loops (one per iteration of the pacing warp) do not push the starts of the
    /// windows' first groups out.
    starts: VecDeque<Mark>,
    pub(super) totals: Totals,
}

impl Sampling {
    /// Marks before a skip measured another stretch of time: windows may not span it.
    pub(super) fn forget(&mut self) {
        self.marks.clear();
        self.starts.clear();
    }
}

/// Per (slot, depth) of `new`, how it moved since `old`; None if a repeat went backwards.
/// Both lists are ordered by slot, then depth, each pair at most once.
fn advances(old: &[Progress], new: &[Progress]) -> Option<Vec<(u32, u32, Advance)>> {
    let mut olds = old.iter().peekable();
    new.iter()
        .map(|b| {
            while olds
                .next_if(|a| (a.slot, a.depth) < (b.slot, b.depth))
                .is_some()
            {}
            let a = olds.next_if(|a| (a.slot, a.depth) == (b.slot, b.depth));
            let adv = match a {
                Some(a) if a.generation == b.generation && a.instance == b.instance => {
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
                loops.extend(Progress::at(slot as u32, depth, w.generation, &f));
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

    /// Marks now and applies the skip the sampling finds steady, if any; true if it skipped.
    pub(super) fn take_sampled_skip(&mut self, at_checkpoint: bool) -> bool {
        let Some((d, error)) = self.sampled_skip(at_checkpoint) else {
            return false;
        };
        if let Some(s) = self.sampling.as_mut() {
            let t = &mut s.totals;
            t.skips += 1;
            t.wave_skips += u64::from(d.groups > 0);
            t.groups += d.groups;
            t.instructions += d.counters.instructions;
            t.ticks += d.ticks;
            t.error_ticks += error;
            s.forget();
        }
        self.apply(d);
        true
    }

    /// Keeps a mark of now and, when the last two windows are steady, skips ahead. Returns
    /// the skip and its error bound in ticks.
    fn sampled_skip(&mut self, at_checkpoint: bool) -> Option<(Skip, u64)> {
        let now = self.mark(at_checkpoint);
        let found = {
            let sampling = self.sampling.as_ref()?;
            let marks = &sampling.marks;
            let mut found = None;
            // Loop windows: k checkpoint marks each; three of them.
            let kept: Vec<&Mark> = marks.iter().collect();
            let mut k = 1;
            while now.at_checkpoint && found.is_none() && 3 * k <= kept.len() {
                let c1 = kept[kept.len() - k];
                let c0 = kept[kept.len() - 2 * k];
                let cm = kept[kept.len() - 3 * k];
                // The last two windows steady, and the two before them too.
                found = self
                    .loop_steady(cm, c0, c1)
                    .and_then(|_| self.loop_skip(c0, c1, &now));
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
                let starts: Vec<&Mark> = sampling
                    .starts
                    .iter()
                    .filter(|m| m.next_group + WINDOWS * k >= now.next_group)
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
        // A mark goes to each list it was taken for; cloned only when it is both.
        let keep = |list: &mut VecDeque<Mark>, m: Mark| {
            list.push_back(m);
            if list.len() > MARKS {
                list.pop_front();
            }
        };
        match (now.at_start, now.at_checkpoint) {
            (true, true) => {
                keep(&mut sampling.starts, now.clone());
                keep(&mut sampling.marks, now);
            }
            (true, false) => keep(&mut sampling.starts, now),
            (false, true) => keep(&mut sampling.marks, now),
            (false, false) => {}
        }
        found
    }

    /// Whether the loop windows (`c0`, `c1`) and (`c1`, `now`) are steady: no group started
    /// or finished, the same warps, each moving every repeat it stayed inside by as many
    /// iterations in both windows, instructions and times within [`TOLERANCE`]. Returns the
    /// iterations each advancing repeat moves per window, `(slot, depth, iterations)`, and how
    /// many windows like the last one stay clear of every loop's end and of [`BOUND`].
    fn loop_steady(&self, c0: &Mark, c1: &Mark, now: &Mark) -> Option<(Vec<Moves>, u64)> {
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
        let mut moved = vec![false; now.warps.len()];
        let mut m = u64::MAX;
        for (l, &(_, _, adv)) in now.loops.iter().zip(&a1) {
            if let Advance::Same(d) = adv {
                if let Some(room) = l.count.saturating_sub(1 + l.iteration).checked_div(d) {
                    m = m.min(room);
                    iterations.push((l.slot, l.depth, d));
                    moved[l.slot as usize] = true;
                }
            }
        }
        // A warp that fetched without moving a loop ran straight-line code: a skip would
        // replay it.
        let straight = now
            .warps
            .iter()
            .zip(&c1.warps)
            .zip(&moved)
            .any(|((&(_, f1, active), &(_, f0, _)), &moved)| active && f1 > f0 && !moved);
        if straight || iterations.is_empty() {
            return None;
        }
        let m = m.min(representable(
            (now.now, now.counters, &now.busy),
            (c1.now, c1.counters, &c1.busy),
        ));
        (m != 0 && m != u64::MAX).then_some((iterations, m))
    }

    /// The skip over the steady loop windows (`c0`, `c1`) and (`c1`, `now`)
    /// ([`Engine::loop_steady`]): whole windows like the last one, its time, counters, busy
    /// time and iterations; the error bound is the two windows' time difference per window.
    fn loop_skip(&self, c0: &Mark, c1: &Mark, now: &Mark) -> Option<(Skip, u64)> {
        let (iterations, m) = self.loop_steady(c0, c1, now)?;
        let (d1, d0) = (now.now - c1.now, c1.now - c0.now);
        let mut counters = Counters::default();
        counters.add_times(now.counters.since(c1.counters), m);
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
        if let Some(pl) = &self.placement {
            // The next group's placement must stay where it is.
            while windows > 0 && !(windows * k).is_multiple_of(pl.period()) {
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
