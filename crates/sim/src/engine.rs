//! The event-driven core of the Pipeline model (pipeline-model-analysis section 3.2;
//! pipeline-performance-model-idg Algorithm 1, extended with the issue limit of section 4.2).
//!
//! Semantics, all in exact integer ticks:
//! - an instruction is *ready* at the latest completion (issue + Λ) of its predecessors;
//! - a subsystem accepts an instruction when the λ of the previous one it accepted has passed;
//! - the issue limit IL is a valve in front of all subsystems (Fig. 10): issue slots are
//!   `1/IL` cycles apart, one instruction per slot;
//! - among issuable instructions the scheduler policy picks one, then the next, until nothing
//!   can issue at this instant; time then jumps to the next instant at which something can
//!   change (a readiness time, a subsystem or valve freeing, a barrier release, a group end).
//!   Idle time is never stepped through.
//!
//! Memory: each warp streams its class's compact IDG ([`idg::Stream`]) and keeps a ring of its
//! most recent instructions (window of not-yet-issued ones plus issued-but-incomplete ones).
//! An instruction leaves the ring only once complete, so a predecessor older than the ring is
//! complete by construction; a full ring holds the warp back until its oldest entry completes.
//!
//! Partitions: with `sub_partitions`, each partition has its own issue valve, scheduler and
//! 1/P of each pipeline (λ times P), except the core-wide pipelines (`Hardware::sm_wide`,
//! the load/store path), which every partition feeds at the core's λ; when several partitions
//! have work for a free one, the oldest ready warp's partition takes it.
//!
//! Barriers: a barrier is fetched only once every older instruction of the warp has issued, and
//! nothing younger is fetched until it completes (`bar.sync`, `bar.red`) or issues
//! (`bar.arrive`). A waiting barrier completes at the release instant (the issue of the last
//! expected arrival, or the moment every other warp of the group has arrived or exited) plus
//! its own Λ.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use idg::{ClassId, DepTable, GroupClasses, KernelIdgs, Stream};
use smallvec::SmallVec;

use crate::config::{ExecConfig, Hardware, IssueOrder, Scheduler, SimOptions};
use crate::cost::{prepare, ClassCosts, Prepared};
use crate::placement::Placement;
use crate::result::{Counters, IssueRecord};
use crate::SimError;

mod pending;
pub(crate) mod sampled;
mod steady;
use pending::Pending;
use steady::FastForward;

/// Cumulative busy time of a resource whose busy intervals never overlap.
#[derive(Debug, Clone, Copy, Default)]
struct BusyLog {
    before_last: u64,
    last_start: u64,
    last_len: u64,
}

impl Sub {
    /// Records an instruction of λ `lambda` that starts at `start`: a pipeline is busy until
    /// it ends, a queue holds it until then.
    fn take(&mut self, start: u64, lambda: u64, queued: bool) {
        self.busy.record(start, lambda);
        if queued {
            self.queue_free = start + lambda;
        } else {
            self.next_free = start + lambda;
        }
    }
}

impl BusyLog {
    fn record(&mut self, start: u64, len: u64) {
        self.before_last += self.last_len;
        self.last_start = start;
        self.last_len = len;
    }

    /// Busy time in [0, x); valid for x at or after the last recorded start.
    fn at(&self, x: u64) -> u64 {
        self.before_last + x.saturating_sub(self.last_start).min(self.last_len)
    }
}

#[derive(Debug, Clone, Default)]
struct Slot {
    node: u32,
    issued: bool,
    /// Latest completion of the predecessors known so far.
    ready: u64,
    complete: u64,
    /// References to predecessors not issued yet (one per resource read, so an instruction
    /// that wrote two of them counts twice, and is twice among its waiters).
    waiting_on: u16,
    waiters: SmallVec<[u64; 2]>,
    /// When it entered the ready set, with the subsystem's and valve's busy time then, for the
    /// stall breakdown.
    enter: u64,
    busy_snap: u64,
    valve_snap: u64,
}

const UNKNOWN: u64 = u64::MAX;

struct Warp<'a> {
    active: bool,
    finished: bool,
    generation: u32,
    part: usize,
    group_slot: usize,
    lane: u32,
    global_warp: u64,
    class: u32,
    age: u64,
    stream: Option<Stream<'a>>,
    prep: &'a [Prepared],
    exhausted: bool,
    ring: Vec<Slot>,
    base: u64,
    fetched: u64,
    unissued: u32,
    /// Seq of the barrier that stops fetching.
    fence: Option<u64>,
    wake_pending: bool,
    /// Ready instructions per subsystem.
    ready: Vec<SmallVec<[u64; 4]>>,
    last_issue: u64,
    max_complete: u64,
    /// Interval the warp spent at its last barrier, for the stall breakdown.
    barrier_span: Option<(u64, u64)>,
    /// Under `IssueOrder::Scheduled`: a fetched instruction that splits its basic block
    /// (`Prepared::splits_block`); nothing younger is fetched before it issues.
    block_end: Option<u64>,
}

struct Sub {
    /// When a pipeline takes its next instruction; 0 on a queue, which takes one at any time.
    next_free: u64,
    /// When a queue has served everything it holds (`Hardware::queued`); 0 on a pipeline.
    queue_free: u64,
    busy: BusyLog,
    /// Warps with a ready instruction here, indexed by age rank (bit 0 = oldest resident).
    ready_warps: Vec<u64>,
    ready_count: u32,
}

struct Partition {
    subs: Vec<Sub>,
    /// Bit `s` is set when subsystem `s` has a ready instruction (`ready_count > 0`).
    ready_subs: u64,
    /// Instructions whose predecessors have all issued, until their readiness time.
    pending: Pending,
    /// A lower bound of the partition's next issue instant (see [`Engine::part_next`]),
    /// valid unless `dirty`.
    next: u64,
    dirty: bool,
    valve_next: u64,
    valve: BusyLog,
    interval: u64,
    last_warp: Option<u32>,
}

#[derive(Debug, Clone, Default)]
struct BarrierState {
    id: u32,
    expected: u32,
    arrived: u64,
    /// (warp slot, barrier seq, index of its issue record when recording: its completion is
    /// patched in at release) of the warps waiting.
    waiting: Vec<(u32, u64, Option<usize>)>,
}

#[derive(Debug, Clone, Default)]
struct GroupSlot {
    active: bool,
    /// Local index of the group running here (start order on this core).
    local: u64,
    live: u32,
    finish: u64,
    all_mask: u64,
    exited: u64,
    barriers: Vec<BarrierState>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Timer {
    Wake {
        slot: u32,
        generation: u32,
    },
    /// Groups ending at one instant are retired oldest first (`order`: the group's local
    /// index), so that which slot a group ran in never breaks a tie.
    GroupDone {
        order: u64,
        group_slot: u32,
    },
    /// A free group slot receives its next group (after the dispatch costs); `order` is the
    /// dispatch's rank, and the local index the group will get.
    GroupStart {
        order: u64,
        group_slot: u32,
    },
}

pub(crate) struct Outcome {
    pub ticks: u64,
    pub fast_forwarded: u64,
    /// What the sampled simulation added, when it added anything.
    pub sampled: Option<sampled::Totals>,
    pub counters: Counters,
    pub sub_busy: Vec<u64>,
    pub records: Vec<IssueRecord>,
}

/// The per-class tables the engine borrows: costs with partition-scaled λ and barrier roles
/// resolved, and the dependence tables the warps' streams share.
pub(crate) struct Tables {
    pub prepared: Vec<Vec<Prepared>>,
    pub deps: Vec<DepTable>,
    pub n_parts: usize,
    /// `Hardware::sm_wide` when the core is split into partitions, else 0; less the pipes no
    /// node runs on.
    pub sm_wide: u64,
    /// `Hardware::queued`, less the queues no node runs on.
    pub queued: u64,
}

pub(crate) fn prepare_all(
    kernel: &KernelIdgs,
    costs: &[ClassCosts],
    hw: &Hardware,
    exec: &ExecConfig,
    opts: &SimOptions,
) -> Result<Tables, SimError> {
    exec.validate()?;
    opts.validate()?;
    if kernel.classes.is_empty() {
        return Err(SimError::Config("the kernel has no warp class".into()));
    }
    if hw.subsystems.len() > 64 {
        // A partition keeps the subsystems with ready work in one word.
        return Err(SimError::Config(format!(
            "at most 64 subsystems, got {}",
            hw.subsystems.len()
        )));
    }
    crate::cost::check_costs(kernel, costs, hw.subsystems.len())?;
    crate::cost::check_hardware(hw)?;
    if kernel.warps_per_group != exec.warps_per_group {
        return Err(SimError::Config(format!(
            "the IDGs have {} warps per group, the configuration {}",
            kernel.warps_per_group, exec.warps_per_group
        )));
    }
    let n_parts = if opts.sub_partitions {
        hw.partitions.max(1) as usize
    } else {
        1
    };
    // Each partition owns 1/P of every pipeline but the core-wide ones, so its λ is P times
    // the core's.
    let sm_wide = if n_parts > 1 { hw.sm_wide } else { 0 };
    let scale: Vec<u64> = (0..hw.subsystems.len())
        .map(|s| {
            if sm_wide & (1 << s) != 0 {
                1
            } else {
                n_parts as u64
            }
        })
        .collect();
    let prepared: Vec<Vec<Prepared>> = kernel
        .classes
        .iter()
        .zip(costs)
        .map(|(c, t)| {
            prepare(
                &c.idg,
                t,
                exec.warps_per_group,
                exec.occupancy_warps(),
                &scale,
                opts.posted_stores,
                opts.latch_blocks,
            )
        })
        .collect();
    let deps = kernel
        .classes
        .iter()
        .map(|c| DepTable::new(&c.idg))
        .collect();
    // Only the queues and core-wide pipes some node runs on change what the engine does
    // (a core-wide pipe is arbitrated between the partitions at every instant it is free).
    let used = prepared
        .iter()
        .flatten()
        .fold(0u64, |m, p| m | (1u64 << p.cost.subsystem));
    let queued = used & hw.queued;
    let sm_wide = used & sm_wide;
    Ok(Tables {
        prepared,
        deps,
        n_parts,
        sm_wide,
        queued,
    })
}

pub(crate) struct Engine<'a> {
    kernel: &'a KernelIdgs,
    prepared: &'a [Vec<Prepared>],
    deps: &'a [DepTable],
    exec: ExecConfig,
    opts: SimOptions,
    window: u32,
    /// `IssueOrder::Scheduled`.
    scheduled: bool,
    dispatch_latency: u64,
    dispatch_interval: u64,
    /// Start time of the latest group dispatched (started or scheduled to start).
    last_dispatch: Option<u64>,
    /// Groups dispatched to a slot whose start time has not come yet.
    pending_starts: u64,
    ring_mask: u64,
    n_subs: usize,
    /// Core-wide subsystems (`Tables::sm_wide`). Every partition keeps a copy of their state
    /// (next free, busy log), and an issue updates all copies, so that everything a partition
    /// reads about them stays local.
    sm_wide: u64,
    /// Queued subsystems (`Hardware::queued`): never busy for issue (`Sub::next_free` stays
    /// 0); `Sub::queue_free` is when the queue has served everything it holds.
    queued: u64,
    /// Per partition, the core-wide pipelines it may issue to in this round of the instant
    /// (see [`Engine::arbitrate`]).
    owns: Vec<u64>,
    /// A partition left a free core-wide pipeline to the one that owns it this round: the
    /// instant takes another round.
    deferred: bool,
    now: u64,
    parts: Vec<Partition>,
    warps: Vec<Warp<'a>>,
    /// Age rank of each warp slot and its inverse; ranks are recomputed when a group starts
    /// so that "oldest ready warp" is the lowest set bit of a ready set.
    rank_of: Vec<u32>,
    slot_of: Vec<u32>,
    groups: Vec<GroupSlot>,
    timers: BinaryHeap<Reverse<(u64, Timer)>>,
    next_group: u64,
    groups_per_core: u64,
    groups_done: u64,
    age_counter: u64,
    end: u64,
    counters: Counters,
    records: Vec<IssueRecord>,
    /// Steady-state detection (`SimOptions::fast_forward`); off while recording.
    ff: Option<FastForward>,
    /// Sampled simulation (`SimOptions::sampled`, see [`sampled`]); it uses the checkpoints
    /// of `ff`.
    sampling: Option<sampled::Sampling>,
    /// A checkpoint is wanted at the end of this instant (see [`steady`]).
    checkpoint_due: bool,
    /// A group started at this instant (the sampled simulation's wave windows).
    started_now: bool,
    /// Set when a repeating run would carry its time or a counter past `steady::BOUND`.
    too_long: bool,
    /// Local group index from which every group runs the same warp classes.
    uniform_from: u64,
    /// The classes each group runs.
    group_classes: GroupClasses,
    /// Where the long warp of each group runs, when the classes rotate
    /// (`KernelIdgs::rotate_classes`).
    placement: Option<Placement>,
    /// The oldest warp still fetching: its loop iterations pace the checkpoints.
    pacer: usize,
    /// Scratch for the entries `promote` takes from a pending queue.
    due: Vec<pending::Entry>,
}

impl<'a> Engine<'a> {
    pub(crate) fn new(
        kernel: &'a KernelIdgs,
        tables: &'a Tables,
        hw: &Hardware,
        exec: ExecConfig,
        opts: SimOptions,
    ) -> Self {
        let (prepared, n_parts) = (&tables.prepared[..], tables.n_parts);
        let groups_per_core = exec.groups_per_core();
        let group_classes = GroupClasses::new(kernel);
        let group_slots = u64::from(exec.concurrent_groups).min(groups_per_core) as usize;
        let wpg = exec.warps_per_group as usize;
        let n_slots = group_slots * wpg;
        let words = n_slots.div_ceil(64).max(1);
        let n_subs = hw.subsystems.len();
        let parts = (0..n_parts)
            .map(|_| Partition {
                subs: (0..n_subs)
                    .map(|_| Sub {
                        next_free: 0,
                        queue_free: 0,
                        busy: BusyLog::default(),
                        ready_warps: vec![0; words],
                        ready_count: 0,
                    })
                    .collect(),
                pending: Pending::default(),
                ready_subs: 0,
                next: UNKNOWN,
                dirty: false,
                valve_next: 0,
                valve: BusyLog::default(),
                interval: hw.issue_interval * n_parts as u64,
                last_warp: None,
            })
            .collect();
        let ring = opts.ring as usize;
        let warps = (0..n_slots)
            .map(|slot| Warp {
                active: false,
                finished: false,
                generation: 0,
                part: slot % n_parts,
                group_slot: slot / wpg,
                lane: (slot % wpg) as u32,
                global_warp: 0,
                class: 0,
                age: 0,
                stream: None,
                prep: &[],
                exhausted: true,
                ring: vec![Slot::default(); ring],
                base: 0,
                fetched: 0,
                unissued: 0,
                fence: None,
                wake_pending: false,
                ready: vec![SmallVec::new(); n_subs],
                last_issue: 0,
                max_complete: 0,
                block_end: None,
                barrier_span: None,
            })
            .collect();
        Self {
            kernel,
            prepared,
            deps: &tables.deps,
            exec,
            opts,
            window: opts.effective_window(),
            scheduled: opts.order == IssueOrder::Scheduled,
            dispatch_latency: hw.dispatch_latency,
            dispatch_interval: hw.dispatch_interval,
            last_dispatch: None,
            pending_starts: 0,
            ring_mask: u64::from(opts.ring) - 1,
            n_subs,
            sm_wide: tables.sm_wide,
            queued: tables.queued,
            owns: vec![0; n_parts],
            deferred: false,
            now: 0,
            parts,
            warps,
            rank_of: (0..n_slots as u32).collect(),
            slot_of: (0..n_slots as u32).collect(),
            groups: vec![GroupSlot::default(); group_slots],
            timers: BinaryHeap::new(),
            next_group: 0,
            groups_per_core,
            groups_done: 0,
            age_counter: 0,
            end: 0,
            counters: Counters::default(),
            records: Vec::new(),
            // With a queue that every partition feeds, a fast-forwarded run's stall breakdown
            // can leave the exact one's (its times agree; tests/fast_forward.rs found it under
            // an issue limit, cause not found): such cores run every instruction.
            ff: ((opts.fast_forward || opts.sampled)
                && !opts.record
                && tables.queued & tables.sm_wide == 0)
                .then(FastForward::default),
            sampling: (opts.sampled && !opts.record && tables.queued & tables.sm_wide == 0)
                .then(sampled::Sampling::default),
            checkpoint_due: false,
            started_now: false,
            too_long: false,
            pacer: 0,
            due: Vec::new(),
            uniform_from: uniform_from(&group_classes, exec.sm_count, groups_per_core),
            group_classes,
            placement: kernel
                .rotate_classes
                .then(|| Placement::new(groups_per_core, n_parts as u32, exec.sm_count)),
        }
    }

    pub(crate) fn run(mut self) -> Result<Outcome, SimError> {
        for g in 0..self.groups.len() {
            self.dispatch(g, 0);
        }
        loop {
            self.fire_timers();
            // What a partition does at an instant touches no other partition's ready sets
            // or queues (barriers and group ends act through timers), and a core-wide pipeline
            // it takes is busy for the ones visited after it, so each partition's next instant
            // is final once it has been visited.
            let mut next = UNKNOWN;
            self.arbitrate();
            for p in 0..self.parts.len() {
                let mut t = self.part_next(p);
                if t <= self.now {
                    self.issue_phase(p);
                    t = self.part_next(p);
                }
                debug_assert!(
                    t > self.now || self.deferred,
                    "an issuable instruction was left behind"
                );
                next = next.min(t);
            }
            next = next.min(self.next_timer());
            let skipped = self.ff.as_ref().map_or(0, |ff| ff.skipped_instructions)
                + self.sampling.as_ref().map_or(0, |s| s.totals.instructions);
            if self.counters.instructions - skipped > self.opts.max_simulated {
                return Err(SimError::Budget {
                    limit: self.opts.max_simulated,
                });
            }
            if self.records.len() as u64 > self.opts.max_recorded {
                return Err(SimError::TraceBudget {
                    limit: self.opts.max_recorded,
                });
            }
            // Checkpoints only between instants, so that nothing set after one shares its time.
            if self.checkpoint_due && next != UNKNOWN && next > self.now {
                self.checkpoint_due = false;
                if self.checkpoint() {
                    next = self.next_instant();
                }
                if self.too_long {
                    return Err(SimError::TooLong);
                }
            }
            if next == UNKNOWN {
                break;
            }
            // A zero-latency barrier or group end may schedule a timer at this very instant;
            // it fires on the next round without advancing time.
            if next > self.now {
                self.started_now = false;
            }
            self.now = next;
        }
        let fast_forwarded = self.ff.as_ref().map_or(0, |ff| ff.skipped_instructions);
        let sampled = self
            .sampling
            .as_ref()
            .map(|s| s.totals)
            .filter(|t| t.skips > 0);
        if self.groups_done < self.groups_per_core {
            return Err(SimError::Deadlock {
                cycle_ticks: self.now,
                groups_done: self.groups_done,
                groups: self.groups_per_core,
            });
        }
        let mut sub_busy = vec![0u64; self.n_subs];
        for p in &self.parts {
            for (s, sub) in p.subs.iter().enumerate() {
                // λ may reach past the end when it exceeds Λ; only time inside the run counts.
                sub_busy[s] += sub.busy.at(self.end);
            }
        }
        Ok(Outcome {
            ticks: self.end,
            fast_forwarded,
            sampled,
            counters: self.counters,
            sub_busy,
            records: self.records,
        })
    }

    fn start_group(&mut self, gslot: usize) {
        if self.next_group >= self.groups_per_core {
            self.groups[gslot].active = false;
            return;
        }
        let local = self.next_group;
        self.next_group += 1;
        // Core 0 receives every SM-count-th group, as a round-robin block distribution would.
        let global = local * u64::from(self.exec.sm_count);
        let mut classes: Vec<ClassId> =
            self.group_classes.lists()[self.group_classes.list_of(global)].clone();
        let wpg = self.exec.warps_per_group as usize;
        if let Some(pl) = &self.placement {
            // The rotation that puts the long warp (lane 0 of the walked group) on its target
            // partition; a group too small to reach it keeps the plain rotation.
            let parts = self.parts.len();
            let target = pl.target(local) as usize;
            let r = (0..wpg)
                .find(|&r| (gslot * wpg + r) % parts == target)
                .unwrap_or((local % wpg as u64) as usize);
            classes.rotate_right(r);
        }
        let group = &mut self.groups[gslot];
        group.active = true;
        group.local = local;
        group.live = wpg as u32;
        group.finish = self.now;
        group.all_mask = if wpg == 64 {
            u64::MAX
        } else {
            (1u64 << wpg) - 1
        };
        group.exited = 0;
        group.barriers.clear();
        self.checkpoint_due = true;
        self.started_now = true;
        self.counters.warps += wpg as u64;
        let kernel: &'a KernelIdgs = self.kernel;
        let prepared: &'a [Vec<Prepared>] = self.prepared;
        let deps: &'a [DepTable] = self.deps;
        for lane in 0..wpg {
            let slot = gslot * wpg + lane;
            let class = classes.get(lane).copied().unwrap_or(ClassId(0));
            let now = self.now;
            let age = self.age_counter;
            self.age_counter += 1;
            let w = &mut self.warps[slot];
            w.active = true;
            w.finished = false;
            w.generation = w.generation.wrapping_add(1);
            w.global_warp = global * wpg as u64 + lane as u64;
            w.age = age;
            w.class = class.0;
            w.stream = Some(Stream::with_table(
                &kernel.class(class).idg,
                &deps[class.index()],
            ));
            w.prep = &prepared[class.index()];
            w.exhausted = false;
            w.block_end = None;
            w.base = 0;
            w.fetched = 0;
            w.unissued = 0;
            w.fence = None;
            w.wake_pending = false;
            for r in &mut w.ready {
                r.clear();
            }
            w.last_issue = now;
            w.max_complete = now;
            w.barrier_span = None;
        }
        self.rerank();
        for lane in 0..wpg {
            let slot = gslot * wpg + lane;
            self.refill(slot);
            self.check_finished(slot);
        }
    }

    /// Recomputes age ranks (resident warps first, oldest first) and rebuilds the ready sets in
    /// rank space. Runs once per group start, not per issue.
    fn rerank(&mut self) {
        let mut order: Vec<u32> = (0..self.warps.len() as u32).collect();
        order.sort_by_key(|&s| {
            let w = &self.warps[s as usize];
            (!w.active, w.age, s)
        });
        for (rank, &slot) in order.iter().enumerate() {
            self.rank_of[slot as usize] = rank as u32;
        }
        self.slot_of = order;
        self.find_pacer();
        for p in &mut self.parts {
            for sub in &mut p.subs {
                sub.ready_warps.iter_mut().for_each(|w| *w = 0);
            }
        }
        for (slot, w) in self.warps.iter().enumerate() {
            let rank = self.rank_of[slot] as usize;
            for (si, list) in w.ready.iter().enumerate() {
                if !list.is_empty() {
                    self.parts[w.part].subs[si].ready_warps[rank / 64] |= 1u64 << (rank % 64);
                }
            }
        }
    }

    fn find_pacer(&mut self) {
        self.pacer = self
            .slot_of
            .iter()
            .map(|&s| s as usize)
            .find(|&s| self.warps[s].active && !self.warps[s].exhausted)
            .unwrap_or(usize::MAX);
    }

    /// Fetches instructions of a warp into its window while there is room.
    fn refill(&mut self, slot: usize) {
        let now = self.now;
        let window = self.window;
        let mask = self.ring_mask;
        let ring_len = mask + 1;
        loop {
            let w = &mut self.warps[slot];
            if w.fence.is_some() || w.unissued >= window || w.exhausted {
                return;
            }
            let Some(node) = w.stream.as_mut().and_then(Stream::peek) else {
                w.exhausted = true;
                w.stream = None;
                if self.pacer == slot {
                    self.find_pacer();
                }
                return;
            };
            let prep = w.prep[node.index()];
            if prep.loop_head && self.pacer == slot {
                self.checkpoint_due = true;
            }
            if prep.barrier.is_some() && w.unissued > 0 {
                return;
            }
            // An instruction that ends a basic block in the compiled code issues after
            // everything before it and before everything after it.
            if self.scheduled && prep.splits_block && w.unissued > 0 {
                return;
            }
            if let Some(b) = w.block_end {
                if b >= w.base && !w.ring[(b & mask) as usize].issued {
                    return;
                }
                w.block_end = None;
            }
            if w.fetched - w.base == ring_len {
                while w.base < w.fetched {
                    let s = &w.ring[(w.base & mask) as usize];
                    if s.issued && s.complete <= now {
                        w.base += 1;
                    } else {
                        break;
                    }
                }
                if w.fetched - w.base == ring_len {
                    let oldest = &w.ring[(w.base & mask) as usize];
                    if oldest.issued && oldest.complete != UNKNOWN && !w.wake_pending {
                        w.wake_pending = true;
                        let t = oldest.complete;
                        let generation = w.generation;
                        self.timers.push(Reverse((
                            t,
                            Timer::Wake {
                                slot: slot as u32,
                                generation,
                            },
                        )));
                    }
                    return;
                }
            }
            let seq = w.fetched;
            w.fetched += 1;
            w.unissued += 1;
            let mut ready = now;
            let mut waiting_on = 0u16;
            let (base, ring) = (w.base, &mut w.ring);
            let taken = w.stream.as_mut().and_then(|stream| {
                stream.take(|p| {
                    // Older than the ring: complete by construction.
                    if p < base {
                        return;
                    }
                    let ps = &mut ring[(p & mask) as usize];
                    if ps.issued {
                        ready = ready.max(ps.complete);
                    } else {
                        waiting_on += 1;
                        ps.waiters.push(seq);
                    }
                })
            });
            debug_assert_eq!(taken.map(|t| t.0), Some(seq));
            if self.scheduled && prep.splits_block {
                w.block_end = Some(seq);
            }
            let s = &mut w.ring[(seq & mask) as usize];
            s.node = node.0;
            s.issued = false;
            s.ready = ready;
            s.complete = UNKNOWN;
            s.waiting_on = waiting_on;
            s.waiters.clear();
            if prep.barrier.is_some() {
                w.fence = Some(seq);
            }
            if waiting_on == 0 {
                self.make_candidate(slot, seq, ready, prep.cost.subsystem as usize);
            }
        }
    }

    /// An instruction whose predecessors have all issued becomes ready at `ready`.
    fn make_candidate(&mut self, slot: usize, seq: u64, ready: u64, sub: usize) {
        let part = self.warps[slot].part;
        if ready <= self.now {
            self.enter_ready(part, sub, slot, seq, self.now);
        } else {
            let p = &mut self.parts[part];
            p.pending.push(pending::Entry {
                ready,
                slot: slot as u32,
                seq,
                sub: sub as u16,
            });
            p.dirty = true;
        }
    }

    fn enter_ready(&mut self, part: usize, sub: usize, slot: usize, seq: u64, at: u64) {
        let p = &mut self.parts[part];
        p.dirty = true;
        let busy_snap = p.subs[sub].busy.at(at);
        let valve_snap = p.valve.at(at);
        let s = &mut p.subs[sub];
        let rank = self.rank_of[slot] as usize;
        let word = &mut s.ready_warps[rank / 64];
        let bit = 1u64 << (rank % 64);
        if *word & bit == 0 {
            *word |= bit;
            s.ready_count += 1;
            p.ready_subs |= 1 << sub;
        }
        let w = &mut self.warps[slot];
        w.ready[sub].push(seq);
        let rs = &mut w.ring[(seq & self.ring_mask) as usize];
        rs.enter = at;
        rs.busy_snap = busy_snap;
        rs.valve_snap = valve_snap;
    }

    fn fire_timers(&mut self) {
        while let Some(&Reverse((t, timer))) = self.timers.peek() {
            if t > self.now {
                break;
            }
            self.timers.pop();
            match timer {
                Timer::Wake { slot, generation } => {
                    let slot = slot as usize;
                    let w = &mut self.warps[slot];
                    if !w.active || w.generation != generation {
                        continue;
                    }
                    w.wake_pending = false;
                    if let Some(f) = w.fence {
                        let fs = &w.ring[(f & self.ring_mask) as usize];
                        if fs.issued && fs.complete <= self.now {
                            w.fence = None;
                        }
                    }
                    self.refill(slot);
                    self.check_finished(slot);
                }
                Timer::GroupDone { group_slot, .. } => {
                    let g = group_slot as usize;
                    let wpg = self.exec.warps_per_group as usize;
                    for lane in 0..wpg {
                        self.warps[g * wpg + lane].active = false;
                    }
                    self.groups_done += 1;
                    self.end = self.end.max(self.now);
                    let earliest = self.now + self.dispatch_latency;
                    self.dispatch(g, earliest);
                }
                Timer::GroupStart { group_slot, .. } => {
                    self.pending_starts -= 1;
                    self.start_group(group_slot as usize);
                }
            }
        }
    }

    /// Gives slot `gslot` its next group at `earliest` or later: no sooner than the dispatch
    /// interval after the previous group start on this core.
    fn dispatch(&mut self, gslot: usize, earliest: u64) {
        if self.next_group + self.pending_starts >= self.groups_per_core {
            self.groups[gslot].active = false;
            return;
        }
        let at = match self.last_dispatch {
            Some(prev) => earliest.max(prev + self.dispatch_interval),
            None => earliest,
        };
        self.last_dispatch = Some(at);
        if at <= self.now {
            self.start_group(gslot);
        } else {
            self.pending_starts += 1;
            self.timers.push(Reverse((
                at,
                Timer::GroupStart {
                    order: self.next_group + self.pending_starts,
                    group_slot: gslot as u32,
                },
            )));
        }
    }

    /// Moves instructions whose readiness time has come into the ready sets.
    ///
    /// A partition is visited only at instants where it may issue, so an instruction may
    /// enter its ready set after its readiness time; its stall snapshots are still taken at
    /// that time and come out the same, since nothing issued on the partition in between.
    // Called for every partition at most instants, mostly with nothing due: the check is
    // inlined at the callers, the work is not (3 % of a run's machine instructions).
    #[inline]
    pub(super) fn promote(&mut self, part: usize) {
        if self.parts[part].pending.min() <= self.now {
            self.promote_due(part);
        }
    }

    #[inline(never)]
    fn promote_due(&mut self, part: usize) {
        let now = self.now;
        let mut due = std::mem::take(&mut self.due);
        self.parts[part].pending.pop_due(now, &mut due);
        for e in due.drain(..) {
            self.enter_ready(part, usize::from(e.sub), e.slot as usize, e.seq, e.ready);
        }
        self.due = due;
    }

    fn issue_phase(&mut self, part: usize) {
        self.promote(part);
        let now = self.now;
        loop {
            if self.parts[part].valve_next > now {
                return;
            }
            let Some((sub, slot)) = self.pick(part) else {
                let p = &self.parts[part];
                let mut left = p.ready_subs & self.sm_wide & !self.owns[part];
                while left != 0 {
                    let si = left.trailing_zeros() as usize;
                    left &= left - 1;
                    self.deferred |= p.subs[si].next_free <= now;
                }
                return;
            };
            self.issue(part, sub, slot);
        }
    }

    /// Gives each free core-wide pipeline to the partition whose oldest ready warp on it is
    /// the oldest (launch order); only that partition may issue to it in this round. The
    /// owner reads warp ages only, never a partition's index, so renaming partitions (as the
    /// steady-state key does) changes nothing. A partition whose instruction for such a pipe
    /// becomes ready during the round, or that did not own it, gets its turn in another round
    /// at the same instant.
    fn arbitrate(&mut self) {
        self.deferred = false;
        if self.sm_wide == 0 {
            return;
        }
        for o in &mut self.owns {
            *o = 0;
        }
        let now = self.now;
        // Every partition holds the same copy of a core-wide pipeline's state.
        let mut subs = self.sm_wide;
        while subs != 0 {
            let si = subs.trailing_zeros() as usize;
            subs &= subs - 1;
            if self.parts[0].subs[si].next_free > now {
                continue;
            }
            let mut best: Option<(usize, usize)> = None;
            for p in 0..self.parts.len() {
                if self.part_next(p) > now {
                    continue;
                }
                self.promote(p);
                if let Some(r) = first_set(&self.parts[p].subs[si].ready_warps) {
                    if best.is_none_or(|(b, _)| r < b) {
                        best = Some((r, p));
                    }
                }
            }
            if let Some((_, p)) = best {
                self.owns[p] |= 1 << si;
            }
        }
    }

    /// The scheduler σ: the warp whose ready instruction issues next, over all free subsystems.
    fn pick(&self, part: usize) -> Option<(usize, usize)> {
        let p = &self.parts[part];
        let n_slots = self.warps.len();
        // (λ if looked up, policy key, subsystem, warp slot)
        let mut best: Option<(Option<u64>, u64, usize, usize)> = None;
        let mut subs = p.ready_subs;
        while subs != 0 {
            let si = subs.trailing_zeros() as usize;
            subs &= subs - 1;
            let s = &p.subs[si];
            if s.next_free > self.now || self.sm_wide & !self.owns[part] & (1 << si) != 0 {
                continue;
            }
            let (key, rank) = match self.opts.scheduler {
                Scheduler::OldestFirst => {
                    let r = first_set(&s.ready_warps)?;
                    (r as u64, r)
                }
                Scheduler::GreedyThenOldest => {
                    let greedy = p.last_warp.map(|g| self.rank_of[g as usize] as usize);
                    match greedy {
                        Some(g) if bit(&s.ready_warps, g) => (0, g),
                        _ => {
                            let r = first_set(&s.ready_warps)?;
                            (r as u64 + 1, r)
                        }
                    }
                }
                Scheduler::LooseRoundRobin => {
                    let start = p
                        .last_warp
                        .map_or(0, |l| self.rank_of[l as usize] as usize + 1)
                        % n_slots;
                    let r = next_set_cyclic(&s.ready_warps, start, n_slots)?;
                    (((r + n_slots - start) % n_slots) as u64, r)
                }
            };
            let slot = self.slot_of[rank] as usize;
            // Across pipelines the one with the larger λ goes first: its slots are the scarcer,
            // and a valve slot given to the faster pipeline would leave it idle (Eq. 45 assumes
            // no such loss). λ is looked up only once two pipelines compete.
            match &mut best {
                None => best = Some((None, key, si, slot)),
                Some((best_lambda, best_key, best_si, best_slot)) => {
                    let bl = *best_lambda
                        .get_or_insert_with(|| self.candidate_lambda(*best_slot, *best_si));
                    let l = self.candidate_lambda(slot, si);
                    if (u64::MAX - l, key) < (u64::MAX - bl, *best_key) {
                        best = Some((Some(l), key, si, slot));
                    }
                }
            }
        }
        best.map(|(_, _, s, w)| (s, w))
    }

    /// λ of the instruction `slot` would issue on subsystem `sub`.
    fn candidate_lambda(&self, slot: usize, sub: usize) -> u64 {
        let w = &self.warps[slot];
        w.ready[sub].iter().min().map_or(0, |&seq| {
            let node = w.ring[(seq & self.ring_mask) as usize].node;
            w.prep[node as usize].cost.lambda
        })
    }

    fn issue(&mut self, part: usize, sub: usize, slot: usize) {
        let now = self.now;
        let mask = self.ring_mask;
        // The warp's oldest ready instruction on this subsystem.
        let w = &mut self.warps[slot];
        let list = &mut w.ready[sub];
        let Some(pos) = (0..list.len()).min_by_key(|&i| list[i]) else {
            return;
        };
        let seq = list.swap_remove(pos);
        let now_empty = list.is_empty();
        let node = w.ring[(seq & mask) as usize].node;
        let prep = w.prep[node as usize];
        let cost = prep.cost;
        let queued = self.queued & (1 << sub) != 0;
        // An instruction starts when it issues, or on a queue when the queue has served what
        // it held before.
        let start = if queued {
            now.max(self.parts[part].subs[sub].queue_free)
        } else {
            now
        };
        let waits_at_barrier = prep.barrier.is_some_and(|b| b.waits);
        let complete = if waits_at_barrier {
            UNKNOWN
        } else if prep.posted {
            // The memory pipeline keeps a warp's accesses in order, so neither a later load
            // of the same space nor the warp's exit waits for the store to reach memory.
            start + cost.lambda
        } else {
            start + cost.latency
        };

        // Stall breakdown: the warp's gap since its previous issue, by cause.
        let p = &self.parts[part];
        let s = &w.ring[(seq & mask) as usize];
        let gap = now - w.last_issue.min(now);
        let enter = s.enter.max(w.last_issue);
        let after_ready = now.saturating_sub(enter).min(gap);
        // A queue never holds an instruction back at issue.
        let busy = if queued {
            0
        } else {
            p.subs[sub]
                .busy
                .at(now)
                .saturating_sub(s.busy_snap)
                .min(after_ready)
        };
        let valve = p
            .valve
            .at(now)
            .saturating_sub(s.valve_snap)
            .min(after_ready - busy);
        let before_ready = gap - after_ready;
        let at_barrier = w.barrier_span.take().map_or(0, |(a, b)| {
            let lo = a.max(w.last_issue);
            let hi = b.min(w.last_issue + before_ready);
            hi.saturating_sub(lo)
        });
        // Warp-ticks summed over every warp may pass 2^64 in a run near the representable
        // time (fast-forward's bound); the breakdown saturates there rather than wrap.
        let c = &mut self.counters;
        c.stall_barrier = c.stall_barrier.saturating_add(at_barrier);
        c.stall_dependence = c.stall_dependence.saturating_add(before_ready - at_barrier);
        c.stall_subsystem = c.stall_subsystem.saturating_add(busy);
        c.stall_issue_limit = c.stall_issue_limit.saturating_add(valve);
        c.stall_not_selected = c
            .stall_not_selected
            .saturating_add(after_ready - busy - valve);
        c.instructions += 1;

        let s = &mut w.ring[(seq & mask) as usize];
        s.issued = true;
        s.complete = complete;
        let n_waiters = s.waiters.len();
        w.unissued -= 1;
        w.last_issue = now;
        if complete != UNKNOWN {
            w.max_complete = w.max_complete.max(complete);
        }
        if self.opts.record {
            self.records.push(IssueRecord {
                warp: w.global_warp,
                class: w.class,
                partition: part as u32,
                subsystem: sub as u32,
                node,
                seq,
                issue: now,
                lambda: cost.lambda,
                complete,
            });
        }

        if self.sm_wide & (1 << sub) != 0 {
            // An instruction enters its ready set when its partition is visited, possibly
            // after its readiness time, and takes its busy snapshot for that time; the copies
            // of this pipeline's log are about to record a later start, so every partition's
            // due instructions enter now, while the log still covers their times.
            for q in 0..self.parts.len() {
                if q != part {
                    self.promote(q);
                }
            }
            // Another partition's cached next instant may have counted on this pipeline.
            for q in self.parts.iter_mut() {
                q.dirty = true;
                q.subs[sub].take(start, cost.lambda, queued);
            }
        }
        let pm = &mut self.parts[part];
        pm.dirty = true;
        let sb = &mut pm.subs[sub];
        if self.sm_wide & (1 << sub) == 0 {
            sb.take(start, cost.lambda, queued);
        }
        if now_empty {
            let rank = self.rank_of[slot] as usize;
            sb.ready_warps[rank / 64] &= !(1u64 << (rank % 64));
            sb.ready_count -= 1;
            if sb.ready_count == 0 {
                pm.ready_subs &= !(1 << sub);
            }
        }
        pm.valve.record(now, pm.interval);
        pm.valve_next = now + pm.interval;
        pm.last_warp = Some(slot as u32);

        // Waking a waiter touches only the waiter's slot and the pending queue, so the list is
        // read in place and cleared after.
        for i in 0..n_waiters {
            let w = &mut self.warps[slot];
            let d = w.ring[(seq & mask) as usize].waiters[i];
            let ds = &mut w.ring[(d & mask) as usize];
            ds.ready = ds.ready.max(complete);
            ds.waiting_on -= 1;
            if ds.waiting_on == 0 {
                let r = ds.ready;
                let dsub = w.prep[ds.node as usize].cost.subsystem as usize;
                self.make_candidate(slot, d, r, dsub);
            }
        }
        if n_waiters > 0 {
            self.warps[slot].ring[(seq & mask) as usize].waiters.clear();
        }

        if let Some(b) = prep.barrier {
            if b.waits {
                let record = self.opts.record.then(|| self.records.len() - 1);
                self.arrive(slot, seq, record, b.id, b.expected_warps);
            } else {
                self.warps[slot].fence = None;
                self.arrive_only(slot, b.id, b.expected_warps);
            }
        }
        self.refill(slot);
        self.check_finished(slot);
    }

    fn barrier_state(&mut self, gslot: usize, id: u32, expected: u32) -> &mut BarrierState {
        let g = &mut self.groups[gslot];
        let pos = match g.barriers.iter().position(|b| b.id == id) {
            Some(p) => p,
            None => {
                g.barriers.push(BarrierState {
                    id,
                    expected,
                    ..BarrierState::default()
                });
                g.barriers.len() - 1
            }
        };
        &mut g.barriers[pos]
    }

    fn arrive(&mut self, slot: usize, seq: u64, record: Option<usize>, id: u32, expected: u32) {
        let (gslot, lane) = (self.warps[slot].group_slot, self.warps[slot].lane);
        let b = self.barrier_state(gslot, id, expected);
        b.arrived |= 1u64 << lane;
        b.waiting.push((slot as u32, seq, record));
        self.try_release(gslot, id);
    }

    fn arrive_only(&mut self, slot: usize, id: u32, expected: u32) {
        let (gslot, lane) = (self.warps[slot].group_slot, self.warps[slot].lane);
        let b = self.barrier_state(gslot, id, expected);
        b.arrived |= 1u64 << lane;
        self.try_release(gslot, id);
    }

    /// Releases barrier `id` of a group once enough warps arrived, or every warp that has not
    /// exited has.
    fn try_release(&mut self, gslot: usize, id: u32) {
        let now = self.now;
        let g = &mut self.groups[gslot];
        let (all, exited) = (g.all_mask, g.exited);
        let Some(pos) = g.barriers.iter().position(|b| b.id == id) else {
            return;
        };
        let b = &g.barriers[pos];
        let count = b.arrived.count_ones();
        if count < b.expected && (b.arrived | exited) != all {
            return;
        }
        let b = g.barriers.swap_remove(pos);
        let mask = self.ring_mask;
        for (slot, seq, record) in b.waiting {
            let w = &mut self.warps[slot as usize];
            let s = &mut w.ring[(seq & mask) as usize];
            let lat = w.prep[s.node as usize].cost.latency;
            let done = now + lat;
            s.complete = done;
            if let Some(r) = record.and_then(|i| self.records.get_mut(i)) {
                r.complete = done;
            }
            w.max_complete = w.max_complete.max(done);
            w.barrier_span = Some((w.last_issue.min(now), done));
            let generation = w.generation;
            self.timers
                .push(Reverse((done, Timer::Wake { slot, generation })));
        }
    }

    fn check_finished(&mut self, slot: usize) {
        let w = &self.warps[slot];
        if !w.exhausted || w.unissued > 0 || !w.active || w.finished || w.fence.is_some() {
            return;
        }
        let finish = w.max_complete;
        let (gslot, lane) = (w.group_slot, w.lane);
        self.warps[slot].finished = true;
        let g = &mut self.groups[gslot];
        g.live -= 1;
        g.exited |= 1u64 << lane;
        g.finish = g.finish.max(finish);
        let ids: SmallVec<[u32; 4]> = g.barriers.iter().map(|b| b.id).collect();
        for id in ids {
            self.try_release(gslot, id);
        }
        let g = &self.groups[gslot];
        if g.live == 0 {
            let t = g.finish.max(self.now);
            self.timers.push(Reverse((
                t,
                Timer::GroupDone {
                    order: g.local,
                    group_slot: gslot as u32,
                },
            )));
        }
    }

    /// When the earliest timer fires (not before now; `UNKNOWN` when none is set).
    fn next_timer(&self) -> u64 {
        self.timers
            .peek()
            .map_or(UNKNOWN, |Reverse((t, _))| (*t).max(self.now))
    }

    /// The next instant at which an instruction may issue or a timer fires.
    fn next_instant(&mut self) -> u64 {
        let now = self.now;
        let mut next = self.next_timer();
        for p in 0..self.parts.len() {
            let t = self.part_next(p);
            debug_assert!(t > now, "an issuable instruction was left behind");
            next = next.min(t.max(now));
        }
        next
    }

    /// No instant before this can partition `part` issue: a ready instruction's subsystem
    /// and the valve free, or the earliest pending one ready and the valve free. (A pending
    /// instruction's subsystem may still be busy then: the partition is visited, promotes it
    /// and finds nothing to issue; an idle visit changes nothing.) Right after the partition
    /// was visited it is past now. Cached until the partition changes.
    fn part_next(&mut self, part: usize) -> u64 {
        let p = &mut self.parts[part];
        if p.dirty {
            p.dirty = false;
            let mut ready = UNKNOWN;
            let mut subs = p.ready_subs;
            while subs != 0 {
                ready = ready.min(p.subs[subs.trailing_zeros() as usize].next_free);
                subs &= subs - 1;
            }
            let pending = p.pending.min();
            let t = ready.min(pending);
            p.next = if t == UNKNOWN {
                UNKNOWN
            } else {
                t.max(p.valve_next)
            };
        }
        p.next
    }
}

/// The local index on core 0 from which every group runs the same warp classes (before
/// rotation) as its last one. Core 0 runs every `sm_count`-th global group; where every
/// walked group runs one class list (one walked group, usually) the groups are uniform from
/// the first; otherwise (groups at the grid's edges walked apart, `idg::GroupMap`) the groups
/// of other classes interleave up to the last of them.
fn uniform_from(classes: &GroupClasses, sm_count: u32, groups: u64) -> u64 {
    if classes.lists().len() <= 1 || groups == 0 {
        return 0;
    }
    let sm = u64::from(sm_count.max(1));
    let last = classes.list_of((groups - 1) * sm);
    (0..groups - 1)
        .rev()
        .find(|&i| classes.list_of(i * sm) != last)
        .map_or(0, |i| i + 1)
}

fn first_set(set: &[u64]) -> Option<usize> {
    set.iter()
        .enumerate()
        .find(|(_, &w)| w != 0)
        .map(|(i, w)| i * 64 + w.trailing_zeros() as usize)
}

fn bit(set: &[u64], i: usize) -> bool {
    set.get(i / 64).is_some_and(|w| w & (1u64 << (i % 64)) != 0)
}

/// First set bit at or after `start`, wrapping around at `n`.
fn next_set_cyclic(set: &[u64], start: usize, n: usize) -> Option<usize> {
    let start = if start >= n { 0 } else { start };
    let find_from = |from: usize| -> Option<usize> {
        let mut wi = from / 64;
        let mut word = set.get(wi)? & (u64::MAX << (from % 64));
        loop {
            if word != 0 {
                let i = wi * 64 + word.trailing_zeros() as usize;
                return (i < n).then_some(i);
            }
            wi += 1;
            word = *set.get(wi)?;
        }
    };
    find_from(start).or_else(|| find_from(0))
}
