//! Exact fast-forward over a repeating schedule.
//!
//! The engine is deterministic, and what it does next depends only on its state with every
//! time taken relative to `now`, apart from two kinds of counters that only matter when they
//! reach a limit: the groups started so far (against the groups of the core) and the iteration
//! of each repeat a warp's stream is in (against the repeat's count). At checkpoints (a group
//! start, or the oldest warp entering an iteration of a loop; always between two instants)
//! the engine encodes that relative state as a key. When a key equals an earlier one, the run
//! between the two is a *period*: from here the engine would replay it again and again, each
//! time adding the same time, counters, groups started and iterations per repeat, until a
//! counter gets near its limit. The periods that cannot reach a limit are skipped: every
//! stored time moves forward by their length, the counters grow by their sum, and the run goes
//! on to simulate the approach to the limits for real.
//!
//! The stall breakdown needs more care than the schedule. The times it reads (a warp's last
//! issue, when a waiting instruction became ready, busy time seen then) decide no issue, so
//! they are not part of the key; each must instead either repeat relative to now (the warp
//! took part in the period) or stay where it was (a warp that did not issue at all in the
//! period, such as one starved by a greedy scheduler, keeps waiting through the skipped ones
//! and is charged the whole wait when it issues).
//!
//! The key leaves out which group slot each group runs in and which index each partition has
//! (see `Engine::encode`): the same schedule with its groups in other slots is the same state.
//!
//! Keys are compared word for word, not only by hash.

use std::cmp::Reverse;
use std::collections::{HashMap, VecDeque};

use idg::FramePosition;
use smallvec::SmallVec;

use super::{Engine, Timer, UNKNOWN};
use crate::result::Counters;

/// Largest time, counter or busy total a run may reach: far below `u64::MAX`, so that what
/// an instant adds after a skip cannot overflow either.
pub(super) const BOUND: u64 = 1 << 62;

/// Checkpoints kept for comparison, and the words their keys may hold in all.
const KEPT: usize = 256;
const KEPT_WORDS: usize = 1 << 21;

/// One repeat a warp's stream is inside, at a checkpoint (or a sampling mark).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Progress {
    pub(super) slot: u32,
    pub(super) depth: u32,
    pub(super) generation: u32,
    pub(super) instance: u64,
    pub(super) iteration: u64,
    pub(super) count: u64,
}

impl Progress {
    /// The repeat at `depth` of warp `slot`'s stream position `f`; None at the top level
    /// (no repeat).
    pub(super) fn at(slot: u32, depth: usize, generation: u32, f: &FramePosition) -> Option<Self> {
        (f.count > 0).then_some(Progress {
            slot,
            depth: depth as u32,
            generation,
            instance: f.instance,
            iteration: f.iteration,
            count: f.count,
        })
    }
}

/// Most periods that keep the time, every counter and every busy total at or below [`BOUND`],
/// a period being what was added between `then` and `now` (each: time, counters, busy totals).
pub(super) fn representable(now: (u64, Counters, &[u64]), then: (u64, Counters, &[u64])) -> u64 {
    [(now.0, then.0)]
        .into_iter()
        .chain(now.1.values().into_iter().zip(then.1.values()))
        .chain(now.2.iter().copied().zip(then.2.iter().copied()))
        .filter(|(b, a)| b > a)
        .map(|(b, a)| BOUND.saturating_sub(b) / (b - a))
        .min()
        .unwrap_or(u64::MAX)
}

/// A value only the stall breakdown reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Field {
    LastIssue { slot: u32 },
    SpanStart { slot: u32 },
    SpanEnd { slot: u32 },
    Enter { slot: u32, seq: u64 },
    BusySnap { slot: u32, seq: u64 },
    ValveSnap { slot: u32, seq: u64 },
}

#[derive(Debug, Clone, Copy)]
struct Affine {
    field: Field,
    value: u64,
    /// The value relative to now (a time) or to the running total it snapshots (busy time).
    relative: u64,
}

#[derive(Debug)]
struct Checkpoint {
    hash: u64,
    key: Vec<u64>,
    progress: Vec<Progress>,
    affine: Vec<Affine>,
    next_group: u64,
    now: u64,
    counters: Counters,
    groups_done: u64,
    /// Cumulative busy time of every subsystem of every partition at `now`, then of every
    /// partition's valve.
    busy: Vec<u64>,
}

#[derive(Debug, Default)]
pub(super) struct FastForward {
    kept: VecDeque<Checkpoint>,
    kept_words: usize,
    /// Hash of a key to the serial number of the latest checkpoint with it.
    by_hash: HashMap<u64, u64>,
    /// Serial number of `kept[0]`.
    first_serial: u64,
    /// No checkpoint before this many instructions issued: encoding costs about as much as
    /// issuing an instruction per few key words, so checkpoints are spaced by key size.
    next_at: u64,
    pub(super) skipped_instructions: u64,
    /// Capacity to give the next key (a little more than the last one's length).
    key_hint: usize,
}

impl FastForward {
    fn keep(&mut self, c: Checkpoint) {
        let serial = self.first_serial + self.kept.len() as u64;
        self.kept_words += c.key.len();
        self.by_hash.insert(c.hash, serial);
        self.kept.push_back(c);
        while self.kept.len() > KEPT || (self.kept_words > KEPT_WORDS && self.kept.len() > 1) {
            if let Some(old) = self.kept.pop_front() {
                self.kept_words -= old.key.len();
                if self.by_hash.get(&old.hash) == Some(&self.first_serial) {
                    self.by_hash.remove(&old.hash);
                }
                self.first_serial += 1;
            }
        }
    }

    fn lookup(&self, hash: u64, key: &[u64]) -> Option<&Checkpoint> {
        let serial = *self.by_hash.get(&hash)?;
        let c = self
            .kept
            .get(serial.checked_sub(self.first_serial)? as usize)?;
        (c.key == key).then_some(c)
    }
}

/// A time compared only against later instants, relative to `now`: anything not after now is
/// alike (0), and an unknown time stays distinct.
fn future(t: u64, now: u64) -> u64 {
    if t == UNKNOWN {
        u64::MAX
    } else {
        t.saturating_sub(now)
    }
}

fn hash_words(words: &[u64]) -> u64 {
    // A multiply-rotate mix: only a filter, every match is confirmed word for word. Four
    // independent lanes, so that the multiplies of consecutive words overlap instead of
    // each waiting for the previous one (keys run to thousands of words).
    let mix = |h: u64, w: u64| (h.rotate_left(5) ^ w).wrapping_mul(0x5851_f42d_4c95_7f2d);
    let mut lanes = [
        0x9e37_79b9_7f4a_7c15u64,
        0x6a09_e667_f3bc_c908,
        0xbb67_ae85_84ca_a73b,
        0x3c6e_f372_fe94_f82b,
    ];
    let chunks = words.chunks_exact(4);
    let tail = chunks.remainder();
    for c in chunks {
        for (h, &w) in lanes.iter_mut().zip(c) {
            *h = mix(*h, w);
        }
    }
    tail.iter()
        .chain(&lanes)
        .fold(words.len() as u64, |h, &w| mix(h, w))
}

/// A renaming of group slots, warp slots and partitions under which equivalent states encode
/// alike (see [`Engine::encode`]).
struct Canon {
    /// Group slots in key order, and each slot's position in it.
    groups: Vec<usize>,
    group: Vec<u32>,
    /// Groups that run or will run a group (a prefix of `groups`).
    live_groups: usize,
    /// Warp slots in key order (by group, then lane), and each slot's position in it.
    warps: Vec<usize>,
    warp: Vec<u32>,
    /// Partitions in key order, and each partition's position in it.
    parts: Vec<usize>,
    part_label: Vec<u32>,
}

/// What skipping `m` periods adds.
pub(super) struct Skip {
    pub(super) ticks: u64,
    pub(super) counters: Counters,
    pub(super) groups_done: u64,
    pub(super) groups: u64,
    /// Per subsystem of every partition, then per partition's valve.
    pub(super) busy: Vec<u64>,
    /// (warp slot, depth, iterations) to move each advancing repeat ahead by.
    pub(super) iterations: Vec<(u32, u32, u64)>,
    /// Fields that stayed put through the period, with their values.
    pub(super) frozen: Vec<(Field, u64)>,
}

impl Engine<'_> {
    /// Takes a checkpoint if one is due; when the state repeats an earlier checkpoint, skips
    /// every whole period that stays clear of the limits. True if it skipped.
    pub(super) fn checkpoint(&mut self) -> bool {
        if self
            .ff
            .as_ref()
            .is_none_or(|ff| self.counters.instructions < ff.next_at)
        {
            // Between checkpoints, sampling still marks every group start (its wave windows
            // fit their rate to them); a mark costs far less than a key.
            return self.started_now && self.sampling.is_some() && self.take_sampled_skip(false);
        }
        // Ready sets as if every partition had been visited now (see `promote`).
        for p in 0..self.parts.len() {
            self.promote(p);
        }
        // Keys of one run have about the same length: one allocation instead of a doubling
        // series.
        let mut key = Vec::with_capacity(self.ff.as_ref().map_or(0, |ff| ff.key_hint));
        let mut progress = Vec::new();
        let mut affine = Vec::new();
        self.encode(&mut key, &mut progress, &mut affine);
        let hash = hash_words(&key);
        let words = key.len() as u64;
        if let Some(ff) = self.ff.as_mut() {
            ff.key_hint = key.len() + key.len() / 8;
        }
        let busy = self.busy_now();
        let old = self.ff.as_ref().and_then(|ff| ff.lookup(hash, &key));
        let mut too_long = false;
        let skip = old.and_then(|old| {
            let m = self.repeats(old, &progress)?;
            let m = m.min(self.representable(old, &busy));
            if m == 0 {
                // Even one more period would carry a total past `BOUND`: the whole run
                // cannot be represented (and simulating it one by one would never end).
                too_long = true;
                return None;
            }
            self.skip(old, &progress, &affine, &busy, m)
        });
        self.too_long |= too_long;
        // Sampling: no exact repeat, but the schedule may be steady all the same.
        let next_at = self.counters.instructions + (words / 8).max(64);
        if let Some(ff) = self.ff.as_mut() {
            ff.next_at = next_at;
        }
        if skip.is_none() && !too_long && self.sampling.is_some() && self.take_sampled_skip(true) {
            return true;
        }
        let Some(ff) = self.ff.as_mut() else {
            return false;
        };
        match skip {
            Some(d) => {
                // Earlier checkpoints stay: the run since each of them, skips included, is
                // what the simulation would have done, so a match with one is still a period.
                ff.skipped_instructions += d.counters.instructions;
                if let Some(s) = self.sampling.as_mut() {
                    s.forget();
                }
                self.apply(d);
                true
            }
            None => {
                ff.keep(Checkpoint {
                    hash,
                    key,
                    progress,
                    affine,
                    next_group: self.next_group,
                    now: self.now,
                    counters: self.counters,
                    groups_done: self.groups_done,
                    busy,
                });
                false
            }
        }
    }

    /// Most periods like the one since `old` that keep the time, every counter and every
    /// busy total at or below [`BOUND`].
    fn representable(&self, old: &Checkpoint, busy: &[u64]) -> u64 {
        representable(
            (self.now, self.counters, busy),
            (old.now, old.counters, &old.busy),
        )
    }

    pub(super) fn busy_now(&self) -> Vec<u64> {
        let now = self.now;
        let subs = self
            .parts
            .iter()
            .flat_map(|p| p.subs.iter().map(move |s| s.busy.at(now)));
        subs.chain(self.parts.iter().map(|p| p.valve.at(now)))
            .collect()
    }

    /// How many more periods like the one since `old` can be skipped without any warp
    /// reaching the end of a repeat it is in or the core running out of groups to start
    /// (None: not a period, or none can be skipped).
    fn repeats(&self, old: &Checkpoint, progress: &[Progress]) -> Option<u64> {
        if old.progress.len() != progress.len() {
            return None;
        }
        let mut m = u64::MAX;
        let mut advanced = false;
        for (a, b) in old.progress.iter().zip(progress) {
            if a.iteration == b.iteration {
                continue;
            }
            // Only the same run of a repeat may differ, and only forward.
            if a.slot != b.slot
                || a.depth != b.depth
                || a.generation != b.generation
                || a.instance != b.instance
                || b.iteration < a.iteration
            {
                return None;
            }
            let d = b.iteration - a.iteration;
            // Every iteration check of a skipped period must pass: iteration + 1 < count.
            m = m.min(b.count.saturating_sub(1 + b.iteration) / d);
            advanced = true;
        }
        // Every dispatch of a skipped period must find a group to start, with up to one
        // pending start per group slot; and all those groups run the same classes.
        let room = self
            .groups_per_core
            .checked_sub(self.next_group + self.groups.len() as u64 + 1);
        if let Some(per_group) = room.and_then(|r| r.checked_div(self.next_group - old.next_group))
        {
            if old.next_group < self.uniform_from {
                return None;
            }
            m = m.min(per_group);
            advanced = true;
        } else if self.next_group > old.next_group {
            return None;
        }
        (advanced && m > 0 && m != u64::MAX).then_some(m)
    }

    /// The effect of `m` more periods like the one since `old`; None if a stall-only value
    /// neither repeats nor stays put.
    fn skip(
        &self,
        old: &Checkpoint,
        progress: &[Progress],
        affine: &[Affine],
        busy: &[u64],
        m: u64,
    ) -> Option<Skip> {
        if old.affine.len() != affine.len() {
            return None;
        }
        let mut frozen = Vec::new();
        for (a, b) in old.affine.iter().zip(affine) {
            if a.relative != b.relative {
                // Stayed put: the same value of the same warp (a renamed one is another).
                if a.value != b.value || a.field != b.field {
                    return None;
                }
                frozen.push((b.field, b.value));
            }
        }
        let mut counters = Counters::default();
        counters.add_times(self.counters.since(old.counters), m);
        let busy = busy
            .iter()
            .zip(&old.busy)
            .map(|(b, a)| (b - a) * m)
            .collect();
        let iterations = old
            .progress
            .iter()
            .zip(progress)
            .filter(|(a, b)| a.iteration != b.iteration)
            .map(|(a, b)| (b.slot, b.depth, (b.iteration - a.iteration) * m))
            .collect();
        Some(Skip {
            ticks: (self.now - old.now) * m,
            counters,
            groups_done: (self.groups_done - old.groups_done) * m,
            groups: (self.next_group - old.next_group) * m,
            busy,
            iterations,
            frozen,
        })
    }

    /// Moves the run `d.ticks` ahead: every stored time, busy total and counter as after the
    /// skipped periods, frozen stall values as they were.
    pub(super) fn apply(&mut self, d: Skip) {
        let dt = d.ticks;
        let sh = |t: &mut u64| {
            if *t != UNKNOWN {
                *t += dt;
            }
        };
        self.now += dt;
        self.counters.add_times(d.counters, 1);
        self.groups_done += d.groups_done;
        self.next_group += d.groups;
        if let Some(t) = self.last_dispatch.as_mut() {
            sh(t);
        }
        self.timers = std::mem::take(&mut self.timers)
            .into_iter()
            .map(|Reverse((t, timer))| Reverse((t + dt, timer)))
            .collect();
        let n_subs = self.n_subs;
        let n_parts = self.parts.len();
        let sub_busy = |p: usize, s: usize| d.busy[p * n_subs + s];
        let valve_busy = |p: usize| d.busy[n_parts * n_subs + p];
        for (pi, p) in self.parts.iter_mut().enumerate() {
            sh(&mut p.valve_next);
            p.valve.last_start += dt;
            p.valve.before_last += valve_busy(pi);
            for (si, s) in p.subs.iter_mut().enumerate() {
                sh(&mut s.next_free);
                sh(&mut s.queue_free);
                s.busy.last_start += dt;
                s.busy.before_last += sub_busy(pi, si);
            }
            p.pending.shift(dt);
            p.dirty = true;
        }
        for g in &mut self.groups {
            sh(&mut g.finish);
        }
        let mask = self.ring_mask;
        for w in &mut self.warps {
            if !w.active {
                continue;
            }
            sh(&mut w.last_issue);
            sh(&mut w.max_complete);
            if let Some((a, b)) = w.barrier_span.as_mut() {
                sh(a);
                sh(b);
            }
            for (sub, list) in w.ready.iter().enumerate() {
                for &seq in list.iter() {
                    let s = &mut w.ring[(seq & mask) as usize];
                    sh(&mut s.enter);
                    s.busy_snap += sub_busy(w.part, sub);
                    s.valve_snap += valve_busy(w.part);
                }
            }
            for seq in w.base..w.fetched {
                let s = &mut w.ring[(seq & mask) as usize];
                if s.issued {
                    sh(&mut s.complete);
                } else {
                    sh(&mut s.ready);
                }
            }
        }
        for (field, value) in d.frozen {
            match field {
                Field::LastIssue { slot } => self.warps[slot as usize].last_issue = value,
                Field::SpanStart { slot } | Field::SpanEnd { slot } => {
                    if let Some(s) = self.warps[slot as usize].barrier_span.as_mut() {
                        if matches!(field, Field::SpanStart { .. }) {
                            s.0 = value;
                        } else {
                            s.1 = value;
                        }
                    }
                }
                Field::Enter { slot, seq }
                | Field::BusySnap { slot, seq }
                | Field::ValveSnap { slot, seq } => {
                    let s = &mut self.warps[slot as usize].ring[(seq & mask) as usize];
                    match field {
                        Field::Enter { .. } => s.enter = value,
                        Field::BusySnap { .. } => s.busy_snap = value,
                        _ => s.valve_snap = value,
                    }
                }
            }
        }
        for (slot, depth, by) in d.iterations {
            let skipped = self.warps[slot as usize]
                .stream
                .as_mut()
                .is_some_and(|s| s.skip_iterations(depth as usize, by));
            debug_assert!(skipped, "a repeat was skipped past its end");
        }
    }

    /// Writes the state that decides the schedule, with times relative to `now`, sequence
    /// numbers relative to each warp's oldest kept instruction, and without the counters that
    /// only matter at their limits (those go to `progress`) or the values only the stall
    /// breakdown reads (those go to `affine`). Values that can no longer be read (times
    /// already past where only their passing matters, ring slots outside the live range) are
    /// left out so that equivalent states encode equally.
    ///
    /// Which group slot a group runs in, and which partition index a partition has, are left
    /// out too (see [`Canon`]): the engine breaks no tie by them, so two states that differ
    /// only by such a renaming run alike, and the outputs (sums over warps and partitions)
    /// are the same.
    fn encode(&self, key: &mut Vec<u64>, progress: &mut Vec<Progress>, affine: &mut Vec<Affine>) {
        let now = self.now;
        let rel = |t: u64| t.wrapping_sub(now);
        let future = |t: u64| future(t, now);
        let bases: Vec<u64> = (0..self.warps.len()).map(|s| self.live_base(s)).collect();
        let canon = self.canon();

        // The next group may start no sooner than this; dispatches happen at or after now.
        key.push(
            self.last_dispatch
                .map_or(0, |t| future(t + self.dispatch_interval)),
        );
        key.push(self.pending_starts);
        // Placed classes: the next group's place in the placement's period is part of what
        // comes next.
        if let Some(pl) = &self.placement {
            key.push(self.next_group % pl.period());
        }
        // Which partition (renamed) each warp of a group that has or will have warps runs on.
        key.push(canon.live_groups as u64);
        let wpg = self.exec.warps_per_group as usize;
        for &g in &canon.groups[..canon.live_groups] {
            key.extend(
                (0..wpg).map(|lane| u64::from(canon.part_label[self.warps[g * wpg + lane].part])),
            );
        }
        for &pi in &canon.parts {
            let p = &self.parts[pi];
            // Busy logs are read at or after now only (later promotions have readiness times
            // past now), relative to their value now: only the end of the last interval counts.
            key.extend([
                future(p.valve_next),
                future(p.valve.last_start + p.valve.last_len),
                p.last_warp
                    .map_or(u64::MAX, |w| u64::from(canon.warp[w as usize])),
            ]);
            for s in &p.subs {
                key.extend([
                    future(s.next_free),
                    future(s.queue_free),
                    future(s.busy.last_start + s.busy.last_len),
                    u64::from(s.ready_count),
                ]);
                key.extend(&s.ready_warps);
            }
            let mut pending: Vec<(u64, u32, u64, u16)> = p
                .pending
                .iter()
                .map(|e| {
                    let w = e.slot as usize;
                    (rel(e.ready), canon.warp[w], e.seq - bases[w], e.sub)
                })
                .collect();
            pending.sort_unstable();
            key.push(pending.len() as u64);
            for (t, warp, seq, sub) in pending {
                key.extend([t, u64::from(warp), seq, u64::from(sub)]);
            }
        }
        // Ready sets are in age-rank space; the rank of every warp ties it to its bit.
        key.extend(canon.warps.iter().map(|&w| u64::from(self.rank_of[w])));
        for &gi in &canon.groups {
            let g = &self.groups[gi];
            key.extend([
                u64::from(g.active),
                u64::from(g.live),
                future(g.finish),
                g.all_mask,
                g.exited,
                g.barriers.len() as u64,
            ]);
            for b in &g.barriers {
                key.extend([
                    u64::from(b.id),
                    u64::from(b.expected),
                    b.arrived,
                    b.waiting.len() as u64,
                ]);
                for &(slot, seq, _) in &b.waiting {
                    key.extend([
                        u64::from(canon.warp[slot as usize]),
                        seq - bases[slot as usize],
                    ]);
                }
            }
        }
        // In firing order: time, kind, then the order among groups. Warps woken at one instant
        // act on their own state only, so their order is immaterial and they are listed by
        // their renamed index.
        let mut timers: Vec<(u64, u64, u64, u64)> = self
            .timers
            .iter()
            .map(|r| {
                let (t, timer) = r.0;
                let (kind, order, what) = match timer {
                    Timer::Wake { slot, generation } => {
                        let live = self.warps[slot as usize].generation == generation;
                        let w = u64::from(canon.warp[slot as usize]);
                        (u64::from(live), w, w)
                    }
                    Timer::GroupDone { order, group_slot } => {
                        (2, order, u64::from(canon.group[group_slot as usize]))
                    }
                    Timer::GroupStart { order, group_slot } => {
                        (3, order, u64::from(canon.group[group_slot as usize]))
                    }
                };
                (rel(t), kind, order, what)
            })
            .collect();
        timers.sort_unstable();
        key.push(timers.len() as u64);
        for (t, kind, _, what) in timers {
            key.extend([t, kind, what]);
        }
        for &slot in &canon.warps {
            self.encode_warp(slot, bases[slot], key, progress, affine);
        }
    }

    /// The renaming of group slots and partitions the key is written in.
    fn canon(&self) -> Canon {
        let n_groups = self.groups.len();
        let wpg = self.exec.warps_per_group as usize;
        // Running groups oldest first, then slots waiting for a group in dispatch order, then
        // the slots that will get none (their warps stay inactive; their order is immaterial).
        let mut starts: Vec<(u64, usize)> = self
            .timers
            .iter()
            .filter_map(|r| match r.0 .1 {
                Timer::GroupStart { order, group_slot } => Some((order, group_slot as usize)),
                _ => None,
            })
            .collect();
        starts.sort_unstable();
        let mut groups: Vec<usize> = (0..n_groups).filter(|&g| self.groups[g].active).collect();
        groups.sort_unstable_by_key(|&g| self.groups[g].local);
        groups.extend(starts.iter().map(|&(_, g)| g));
        let live_groups = groups.len();
        let mut dead = vec![true; n_groups];
        for &g in &groups {
            dead[g] = false;
        }
        groups.extend((0..n_groups).filter(|&g| dead[g]));
        let mut group = vec![0u32; n_groups];
        for (c, &g) in groups.iter().enumerate() {
            group[g] = c as u32;
        }
        let warps: Vec<usize> = groups
            .iter()
            .flat_map(|&g| (0..wpg).map(move |lane| g * wpg + lane))
            .collect();
        let mut warp = vec![0u32; self.warps.len()];
        for (c, &w) in warps.iter().enumerate() {
            warp[w] = c as u32;
        }
        // Partitions named in the order the live warps first use them, unused ones after.
        let n_parts = self.parts.len();
        let mut parts: Vec<usize> = Vec::with_capacity(n_parts);
        let mut part_label = vec![u32::MAX; n_parts];
        let live_warps = warps[..live_groups * wpg].iter();
        for p in live_warps.map(|&w| self.warps[w].part).chain(0..n_parts) {
            if part_label[p] == u32::MAX {
                part_label[p] = parts.len() as u32;
                parts.push(p);
            }
        }
        Canon {
            groups,
            live_groups,
            group,
            warps,
            warp,
            parts,
            part_label,
        }
    }

    /// The oldest instruction of warp `slot` that is not complete by now. The ring keeps
    /// complete ones until it is full (`refill`), but they act as if gone: a dependant finds
    /// them complete, and a full ring drops them first.
    fn live_base(&self, slot: usize) -> u64 {
        let w = &self.warps[slot];
        (w.base..w.fetched)
            .find(|&seq| {
                let s = &w.ring[(seq & self.ring_mask) as usize];
                !(s.issued && s.complete <= self.now)
            })
            .unwrap_or(w.fetched)
    }

    /// One warp's part of the key; `base` is its [`Engine::live_base`].
    fn encode_warp(
        &self,
        slot: usize,
        base: u64,
        key: &mut Vec<u64>,
        progress: &mut Vec<Progress>,
        affine: &mut Vec<Affine>,
    ) {
        let now = self.now;
        let future = |t: u64| future(t, now);
        let time = |field, t: u64| Affine {
            field,
            value: t,
            relative: t.wrapping_sub(now),
        };
        let w = &self.warps[slot];
        if !w.active {
            key.push(0);
            return;
        }
        key.extend([1, u64::from(w.finished)]);
        let id = slot as u32;
        // A sequence number that may be older than the ring: those are complete and ignored.
        let seq_rel = |s: u64| if s < base { u64::MAX } else { s - base };
        key.extend([
            u64::from(w.class),
            u64::from(w.exhausted),
            w.fetched - base,
            u64::from(w.unissued),
            // A fence on a complete barrier still holds fetching until its wake-up.
            w.fence
                .map_or(u64::MAX, |f| if f < base { u64::MAX - 1 } else { f - base }),
            u64::from(w.wake_pending),
            future(w.max_complete),
        ]);
        affine.push(time(Field::LastIssue { slot: id }, w.last_issue));
        let block_end = w
            .block_end
            .filter(|&b| b >= base && !w.ring[(b & self.ring_mask) as usize].issued);
        key.push(block_end.map_or(u64::MAX, |b| b - base));
        match w.barrier_span {
            Some((a, b)) => {
                key.push(1);
                affine.push(time(Field::SpanStart { slot: id }, a));
                affine.push(time(Field::SpanEnd { slot: id }, b));
            }
            None => key.push(0),
        }
        match &w.stream {
            Some(stream) => {
                key.push(seq_rel(stream.next_seq()));
                key.push(stream.peeked().map_or(u64::MAX, |n| u64::from(n.0)));
                for (depth, f) in stream.position().enumerate() {
                    key.extend([f.body as u64, f.pos as u64, f.count]);
                    progress.extend(Progress::at(id, depth, w.generation, &f));
                }
                key.push(u64::MAX);
                key.extend(stream.last_writers().map(|l| l.map_or(u64::MAX, seq_rel)));
            }
            None => key.push(u64::MAX - 1),
        }
        let p = &self.parts[w.part];
        let valve_now = p.valve.at(now);
        for (sub, list) in w.ready.iter().enumerate() {
            let busy_now = p.subs[sub].busy.at(now);
            let mut seqs: SmallVec<[u64; 8]> = list.iter().copied().collect();
            seqs.sort_unstable();
            key.push(seqs.len() as u64);
            for seq in seqs {
                let s = &w.ring[(seq & self.ring_mask) as usize];
                key.push(seq - base);
                affine.push(time(Field::Enter { slot: id, seq }, s.enter));
                affine.push(Affine {
                    field: Field::BusySnap { slot: id, seq },
                    value: s.busy_snap,
                    relative: busy_now.wrapping_sub(s.busy_snap),
                });
                affine.push(Affine {
                    field: Field::ValveSnap { slot: id, seq },
                    value: s.valve_snap,
                    relative: valve_now.wrapping_sub(s.valve_snap),
                });
            }
        }
        for seq in base..w.fetched {
            let s = &w.ring[(seq & self.ring_mask) as usize];
            key.push(u64::from(s.node));
            if s.issued {
                key.push(future(s.complete));
            } else {
                key.extend([
                    u64::MAX - 1,
                    future(s.ready),
                    u64::from(s.waiting_on),
                    s.waiters.len() as u64,
                ]);
                key.extend(s.waiters.iter().map(|&d| d - base));
            }
        }
    }
}
