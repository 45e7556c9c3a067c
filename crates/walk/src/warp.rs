//! The SIMT walk of one warp over the kernel CFG, emitting its compact IDG.
//!
//! The warp executes with a 32-lane active mask (issue 4, "Paths per warp"):
//! - a branch whose condition is the same for all active lanes takes one side;
//! - a divergent branch runs both sides one after the other, each until the branch's
//!   immediate post-dominator, where the warp reconverges;
//! - on loop entry, each lane's trip count (header executions, from `ir::Trips`) is read from
//!   its state; lanes are grouped by count, and each group of iterations with the same active
//!   lanes is walked either one iteration at a time (while the warp's budget of stepped
//!   iterations lasts: every iteration follows its own values, so inner trip counts and
//!   branches that move with the iteration are exact, and identical consecutive iterations
//!   fold into one `Repeat`) or once as a template `Repeat` (past the budget: paths are those
//!   of the group's first iteration); then the final header execution leaves the loop;
//! - a condition on data the interpreter cannot know follows `UnknownBranch`.
//!
//! Exit edges of a loop being iterated are not taken: trip counts decide when lanes leave.
//!
//! Global loads also get their [`Reuse`]: the warp remembers every global sector it touched
//! (loads and stores) and when ([`crate::recency`]); a load of sectors all touched before
//! re-reads them (`Reuse::Warp`, with the data touched in between: the distinct sectors the
//! warp itself touched, or, when more, its whole traffic times its share of instructions in
//! between, what the warps beside it stream in that time; set when the walk ends), a load whose
//! sectors an earlier warp of the group loads at the same point of its path ([`LoadTrace`])
//! finds them in L1 (`Reuse::Siblings`), and one whose sectors the same warp of a
//! neighbouring group loads there reads data the whole grid shares (`Reuse::Groups`).

use foldhash::{HashMap, HashMapExt, HashSet};

use idg::{
    Barrier, BarrierKind, Category, Idg, IdgBuilder, LoopInfo, MemAccess, MemSpace, Node, NodeId,
    ResourceId, ResourceKind, Reuse, SrcLoc,
};
use ir::{
    AddrBase, Analysis, BlockId, Inst, InstId, Kernel, LoopId, Operand, Term, Trips, WarpState,
};
use ptx::ast::{Flag, Opcode, StateSpace};

use crate::pattern::{self, Sector};
use crate::recency::{Counts, Recency};
use crate::slice::{Reads, Slice};
use crate::{Options, UnknownBranch, WalkError};

/// The global loads a warp issued, in order: PTX line and sectors (empty when some lane's
/// address is unknown). Another group's warp compares its loads with these.
pub(crate) type LoadTrace = Vec<(u32, Vec<Sector>)>;

/// The loads of other warps a walk compares its own with.
#[derive(Clone, Copy, Default)]
pub(crate) struct Peers<'a> {
    /// The same warp of groups near this one in launch order, walked first; empty: nothing
    /// to compare.
    pub neighbours: &'a [LoadTrace],
    /// The earlier warps of this warp's group.
    pub siblings: &'a [LoadTrace],
    /// Every sector the earlier warps of the group load anywhere on their paths (`None`:
    /// not looked for, a walk that only traces).
    pub sibling_sectors: Option<&'a HashSet<Sector>>,
    /// The sectors the groups launched just before this one load (`None`: not looked for,
    /// the case with counters, which give the DRAM share).
    pub earlier: Option<&'a HashSet<Sector>>,
}

/// Bytes of one global-memory sector.
const SECTOR_BYTES: u64 = 32;

/// Guards against a walk that does not converge (a CFG shape the walker mis-reads): far more
/// block visits than a structured path over this kernel could need.
const VISIT_FACTOR: usize = 64;

/// Loop iterations a warp walk may step one at a time (over all its loops). Stepping follows
/// each iteration's own values, so an inner loop whose bound moves with the outer index
/// (a triangular solve) and branches on the iteration get their real counts and paths;
/// identical consecutive iterations fold back into one repeat. Loops beyond this budget are
/// walked once as a template, keeping build time and memory independent of trip counts.
const STEPPED_ITERATIONS: u64 = 4096;

pub(crate) struct WarpWalk<'a, 'l> {
    kernel: &'a Kernel,
    an: &'a Analysis,
    trips: &'a Trips,
    opts: &'a Options,
    /// The assumption for this warp's branches on unknown data.
    policy: UnknownBranch,
    warp: WarpState<'l>,
    b: IdgBuilder,
    /// The IDG loop id of each ir loop, created on first entry.
    loop_ids: HashMap<LoopId, idg::LoopId>,
    /// Loops whose iteration is being walked, innermost last.
    iterating: Vec<LoopId>,
    /// Set while walking the final header execution of a loop: its exit edges are taken.
    leaving: Option<LoopId>,
    control: ResourceId,
    barrier: ResourceId,
    visits: usize,
    visit_limit: usize,
    /// What is left of `STEPPED_ITERATIONS`.
    stepped_left: u64,
    /// Template nodes this walk may build (what the IDG-size budget leaves).
    node_budget: u64,
    /// Unknown conditions met on this warp's path (for `--explain`).
    pub(crate) unknown_branches: Vec<u32>,
    /// Under `UnknownBranch::Heavier`: whether the taken side of a branch block has more code,
    /// by block and the header of the loop being iterated there (the side's extent depends on
    /// both, and a stepped loop meets the same branch once per iteration).
    heavier_taken: HashMap<(BlockId, Option<BlockId>), bool>,
    /// Where the paths of the branches on unknown data met so far reconverge (`None`: never,
    /// the branch leaves the kernel): until the walk reaches them, which lanes run is an
    /// assumption (`MemAccess::assumed`).
    assumed_until: Vec<Option<BlockId>>,
    /// Dynamic executions of this warp's branches whose lanes split (both sides run), the
    /// IDG's counterpart of the profiler's divergent branches.
    divergent: u64,
    /// How many times the code being walked runs: the product of the counts of the template
    /// repeats (walked once for all their iterations) around it.
    runs: u64,
    /// Every global sector the warp touched, by last touch (template loops summarised).
    recency: Recency<Sector>,
    /// The warp's re-reads (`Reuse::Warp` nodes) and the instructions since their data's last
    /// touch, for the time share [`Self::run`] gives them once the warp's length is known.
    rereads: Vec<(NodeId, u64)>,
    /// This warp's global loads, for a walk of another group.
    pub(crate) loads: LoadTrace,
    /// The same warp of groups near this one in launch order, walked first.
    neighbours: &'a [LoadTrace],
    /// The earlier warps of this warp's group.
    siblings: &'a [LoadTrace],
    /// Where the walk looks for data nearby warps share: the sectors the earlier warps of the
    /// group load anywhere on their paths (`Peers::sibling_sectors`), and those of the
    /// earlier groups (`Peers::earlier`).
    nearby: Option<(&'a HashSet<Sector>, Option<&'a HashSet<Sector>>)>,
    /// The instructions whose results the walk reads ([`Slice::both`] of the kernel and the
    /// trips); the others are counted, not interpreted. A trace slice makes a trace-only walk.
    slice: &'a Slice,
}

/// What one warp's walk produced: its IDG, the PTX lines of the unknown conditions it met and
/// its dynamic count of divergent branches.
pub(crate) struct WarpOutcome {
    pub idg: idg::Idg,
    pub unknown_branches: Vec<u32>,
    pub divergent_branches: u64,
    /// The warp's global loads, for a walk of another group.
    pub loads: LoadTrace,
}

/// Where a sub-walk ended.
enum End {
    At(BlockId),
    Exited,
}

impl<'a, 'l> WarpWalk<'a, 'l> {
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        kernel: &'a Kernel,
        an: &'a Analysis,
        trips: &'a Trips,
        opts: &'a Options,
        policy: UnknownBranch,
        warp: WarpState<'l>,
        peers: Peers<'a>,
        node_budget: u64,
        slice: &'a Slice,
    ) -> Self {
        let mut b = IdgBuilder::new();
        let control = b.resource(ResourceKind::Control, "control");
        let barrier = b.resource(ResourceKind::Control, "barrier");
        Self {
            kernel,
            an,
            trips,
            opts,
            policy,
            warp,
            b,
            loop_ids: HashMap::new(),
            iterating: Vec::new(),
            leaving: None,
            control,
            barrier,
            visits: 0,
            visit_limit: VISIT_FACTOR * (kernel.blocks.len() + 8),
            stepped_left: STEPPED_ITERATIONS,
            node_budget,
            unknown_branches: Vec::new(),
            heavier_taken: HashMap::new(),
            assumed_until: Vec::new(),
            divergent: 0,
            runs: 1,
            recency: Recency::new(),
            rereads: Vec::new(),
            loads: Vec::new(),
            neighbours: peers.neighbours,
            siblings: peers.siblings,
            nearby: peers.sibling_sectors.map(|own| (own, peers.earlier)),
            slice,
        }
    }

    /// Whether the walk records the warp's global loads only (`WarpOutcome::loads`; its IDG is
    /// empty): what another group's walk compares its own loads with. Its slice says so.
    fn trace_only(&self) -> bool {
        self.slice.reads() == Reads::Trace
    }

    pub(crate) fn run(mut self) -> Result<WarpOutcome, WalkError> {
        let mask = self.warp.full_mask();
        self.walk(self.kernel.cfg.entry(), mask, &[])?;
        let idg = if self.trace_only() {
            idg::Idg::default()
        } else {
            let mut idg = self.b.finish().map_err(WalkError::Idg)?;
            time_shares(&mut idg, &self.rereads, &self.recency);
            idg
        };
        Ok(WarpOutcome {
            idg,
            unknown_branches: self.unknown_branches,
            divergent_branches: self.divergent,
            loads: self.loads,
        })
    }

    /// Walks from `start` with `mask` until a block in `stops` is reached or the lanes exit.
    fn walk(&mut self, start: BlockId, mask: u32, stops: &[BlockId]) -> Result<End, WalkError> {
        let mut b = start;
        let mut mask = mask;
        let mut first = true;
        loop {
            if !first && stops.contains(&b) {
                return Ok(End::At(b));
            }
            self.assumed_until.retain(|r| *r != Some(b));
            self.visits += 1;
            if self.visits > self.visit_limit {
                return Err(WalkError::NoProgress {
                    kernel: self.kernel.name.clone(),
                    block: self.kernel.block_name(b),
                });
            }
            if let Some(l) = self.an.loops.loop_with_header(b) {
                if !self.iterating.contains(&l) {
                    match self.run_loop(l, mask)? {
                        End::At(next) => {
                            b = next;
                            first = false;
                            continue;
                        }
                        End::Exited => return Ok(End::Exited),
                    }
                }
            }
            first = false;
            for &i in &self.kernel.block(b).insts {
                self.emit(i, mask);
            }
            // Checked per block: a block adds at most its own instructions past the budget.
            if self.b.node_count() as u64 > self.node_budget {
                return Err(WalkError::IdgBudget {
                    kernel: self.kernel.name.clone(),
                    limit: self.opts.max_idg_nodes,
                });
            }
            let term = self.kernel.block(b).term.clone();
            match term {
                Term::Exit => return Ok(End::Exited),
                Term::Goto(t) => b = t,
                Term::Cond { guard, taken, fall } => {
                    let m = self.warp.eval_guard(Some(guard), mask);
                    let (mut t, mut n) = (m.taken, m.not_taken);
                    if m.unknown != 0 {
                        self.unknown_branches.push(self.kernel.block_line(b));
                        self.assume_until_reconvergence(b);
                        match self.policy {
                            UnknownBranch::Taken => t |= m.unknown,
                            UnknownBranch::NotTaken => n |= m.unknown,
                            UnknownBranch::Heavier => {
                                if self.taken_is_heavier(b, taken, fall) {
                                    t |= m.unknown;
                                } else {
                                    n |= m.unknown;
                                }
                            }
                            UnknownBranch::Both => {
                                t |= m.unknown;
                                n |= m.unknown;
                            }
                        }
                    }
                    (t, n) = self.steer_exits(b, taken, fall, t, n, mask);
                    (b, mask) = match self.split(b, &[(taken, t), (fall, n)], stops)? {
                        Some(next) => next,
                        None => return Ok(End::Exited),
                    };
                }
                Term::Switch { index, targets } => {
                    let mut groups: Vec<(BlockId, u32)> = Vec::new();
                    let mut unknown_index = false;
                    for (lane, st) in self.warp.lanes.iter().enumerate() {
                        if mask >> lane & 1 == 0 {
                            continue;
                        }
                        let target = match st.get(index) {
                            ir::Value::Int(v) => targets.get(v as usize).copied(),
                            _ => None,
                        };
                        // An unknown index takes the first target: a documented assumption.
                        let target = match target {
                            Some(t) => t,
                            None => {
                                self.unknown_branches.push(self.kernel.block_line(b));
                                unknown_index = true;
                                match targets.first() {
                                    Some(t) => *t,
                                    None => return Ok(End::Exited),
                                }
                            }
                        };
                        match groups.iter_mut().find(|g| g.0 == target) {
                            Some(g) => g.1 |= 1 << lane,
                            None => groups.push((target, 1 << lane)),
                        }
                    }
                    if unknown_index {
                        self.assume_until_reconvergence(b);
                    }
                    (b, mask) = match self.split(b, &groups, stops)? {
                        Some(next) => next,
                        None => return Ok(End::Exited),
                    };
                }
            }
        }
    }

    /// Inside an iterated loop, lanes do not take its exit edges (trip counts decide when
    /// they leave), except in the final header execution, where they take them.
    fn steer_exits(
        &self,
        from: BlockId,
        taken: BlockId,
        fall: BlockId,
        t: u32,
        n: u32,
        mask: u32,
    ) -> (u32, u32) {
        let Some(&l) = self.iterating.last() else {
            return (t, n);
        };
        let lp = self.an.loops.get(l);
        let (t_in, f_in) = (lp.contains(taken), lp.contains(fall));
        if t_in == f_in {
            return (t, n);
        }
        let exits_here =
            self.leaving == Some(l) && self.an.induction(l).is_none_or(|iv| iv.exiting == from);
        match (t_in, exits_here) {
            (true, false) => (mask, 0),
            (false, false) => (0, mask),
            (true, true) => (0, mask),
            (false, true) => (mask, 0),
        }
    }

    /// Runs the lane groups of a branch. One non-empty group continues directly; several run
    /// one after the other, each until the branch's immediate post-dominator (or the end of the
    /// current loop iteration, or an enclosing stop), and the warp reconverges there with the
    /// lanes that arrived. Returns where to continue and with which lanes.
    /// Marks the code from a branch on unknown data at `b` to its reconvergence as run by
    /// lanes the walk assumed.
    /// Whether the side of branch block `from` that starts at `taken` holds more PTX
    /// instructions than the one at `fall`, each up to where the sides meet again (`from`'s
    /// immediate post-dominator, or the kernel's end) or the loop being iterated starts over;
    /// each block counted once.
    fn taken_is_heavier(&mut self, from: BlockId, taken: BlockId, fall: BlockId) -> bool {
        let header = self.iterating.last().map(|&l| self.an.loops.get(l).header);
        if let Some(&h) = self.heavier_taken.get(&(from, header)) {
            return h;
        }
        let stops: Vec<BlockId> = self.an.pdom.ipdom(from).into_iter().chain(header).collect();
        let weight = |side: BlockId| {
            let mut seen: HashSet<BlockId> = HashSet::default();
            let mut todo = vec![side];
            let mut n = 0;
            while let Some(b) = todo.pop() {
                if stops.contains(&b) || !seen.insert(b) {
                    continue;
                }
                let block = self.kernel.block(b);
                n += block.insts.len() + 1;
                match &block.term {
                    Term::Exit => {}
                    Term::Goto(t) => todo.push(*t),
                    Term::Cond { taken, fall, .. } => todo.extend([*taken, *fall]),
                    Term::Switch { targets, .. } => todo.extend(targets.iter().copied()),
                }
            }
            n
        };
        let h = weight(taken) > weight(fall);
        self.heavier_taken.insert((from, header), h);
        h
    }

    fn assume_until_reconvergence(&mut self, b: BlockId) {
        let at = self.an.pdom.ipdom(b);
        if !self.assumed_until.contains(&at) {
            self.assumed_until.push(at);
        }
    }

    fn split(
        &mut self,
        from: BlockId,
        groups: &[(BlockId, u32)],
        stops: &[BlockId],
    ) -> Result<Option<(BlockId, u32)>, WalkError> {
        let live: Vec<(BlockId, u32)> = groups.iter().copied().filter(|g| g.1 != 0).collect();
        if let [(t, m)] = live.as_slice() {
            return Ok(Some((*t, *m)));
        }
        if live.len() > 1 {
            self.divergent = self.divergent.saturating_add(self.runs);
        }
        let ipdom = self.an.pdom.ipdom(from);
        let mut reconv: Vec<BlockId> = stops.to_vec();
        reconv.extend(ipdom);
        if let Some(&l) = self.iterating.last() {
            reconv.push(self.an.loops.get(l).header);
        }
        let mut arrived: Vec<(BlockId, u32)> = Vec::new();
        for (target, m) in live {
            let end = if reconv.contains(&target) {
                End::At(target)
            } else {
                self.walk(target, m, &reconv)?
            };
            if let End::At(at) = end {
                match arrived.iter_mut().find(|a| a.0 == at) {
                    Some(a) => a.1 |= m,
                    None => arrived.push((at, m)),
                }
            }
        }
        // All sides meet at the post-dominator; sides that ended at another stop left the
        // region (a loop iteration's end or an enclosing reconvergence point).
        Ok(arrived
            .iter()
            .find(|a| Some(a.0) == ipdom)
            .or(arrived.first())
            .copied())
    }

    /// Enters loop `l` with `mask`: emits the repeats and the final header execution, and
    /// returns the exit block where the warp continues.
    fn run_loop(&mut self, l: LoopId, mask: u32) -> Result<End, WalkError> {
        let lp = self.an.loops.get(l);
        let header = lp.header;
        let id = self.loop_id(l);
        let mut counts: Vec<(u64, u32)> = Vec::new();
        for (lane, st) in self.warp.lanes.iter().enumerate() {
            if mask >> lane & 1 == 1 {
                let t = self.trips.trips_for(l, st).max(1);
                match counts.iter_mut().find(|c| c.0 == t) {
                    Some(c) => c.1 |= 1 << lane,
                    None => counts.push((t, 1 << lane)),
                }
            }
        }
        counts.sort_unstable();
        let iterations = counts.last().map_or(0, |c| c.0 - 1);
        let stepped = iterations <= self.stepped_left;
        if stepped {
            self.stepped_left -= iterations;
            let per_iteration = VISIT_FACTOR * (lp.blocks.len() + 1);
            self.visit_limit = self
                .visit_limit
                .saturating_add(per_iteration.saturating_mul(iterations as usize));
        }
        // Lanes with count t run full iterations 0..t-1 and leave in header execution t.
        // Iterations [v_{j-1}-1, v_j-1) have the lanes whose count is at least v_j.
        self.iterating.push(l);
        let mut prev = 1u64;
        for j in 0..counts.len() {
            let (v, _) = counts[j];
            let lanes: u32 = counts[j..].iter().fold(0, |m, c| m | c.1);
            let n = v - prev;
            prev = v;
            if n == 0 {
                continue;
            }
            let (walks, per_walk) = if stepped { (n, 1) } else { (1, n) };
            for _ in 0..walks {
                self.b.begin_repeat(id, per_walk);
                let outer = self.runs;
                self.runs = outer.saturating_mul(per_walk);
                self.recency.begin();
                let end = self.walk(header, lanes, &[header]);
                self.runs = outer;
                let end = end?;
                // A template stands for `per_walk` iterations; the others touch as much data
                // as the one walked (their addresses are not followed).
                self.recency.repeat(per_walk - 1);
                if stepped {
                    self.b.end_repeat_folding()
                } else {
                    self.b.end_repeat()
                }
                .map_err(WalkError::Idg)?;
                // A folded iteration dropped its nodes (the kept one's re-reads stand for it).
                let nodes = self.b.node_count();
                self.rereads.retain(|(id, _)| id.index() < nodes);
                if let End::Exited = end {
                    self.iterating.pop();
                    return Ok(End::Exited);
                }
            }
        }
        let last = counts.last().map_or(mask, |c| c.1);
        let mut outside: Vec<BlockId> = lp.exits.iter().map(|e| e.1).collect();
        let first_exit = outside.first().copied();
        // Back at the header without having met the counted exit: leave by the first exit.
        outside.push(header);
        self.leaving = Some(l);
        let end = self.walk(header, last, &outside);
        self.leaving = None;
        self.iterating.pop();
        // A template walk leaves first-iteration values in the lanes' registers: what the loop
        // defines is not known after it. A stepped walk computed them.
        if !stepped {
            for r in &self.an.loop_defs[l.index()] {
                for lane in &mut self.warp.lanes {
                    lane.set(*r, ir::Value::Unknown);
                }
            }
        }
        match end? {
            End::At(b) if b == header => Ok(first_exit.map_or(End::Exited, End::At)),
            end => Ok(end),
        }
    }

    fn loop_id(&mut self, l: LoopId) -> idg::LoopId {
        if let Some(id) = self.loop_ids.get(&l) {
            return *id;
        }
        let header = self.an.loops.get(l).header;
        let source = self.trips.get(l).source.clone();
        let id = self.b.add_loop(LoopInfo {
            label: self.kernel.block_name(header),
            ptx_line: self.kernel.block_line(header),
            src: self.kernel.block_loc(header).map(|s| SrcLoc {
                file: s.file,
                line: s.line,
            }),
            trip_source: trip_source_name(&source),
        });
        self.loop_ids.insert(l, id);
        id
    }

    /// Emits the node of one instruction executed by the warp and steps the active lanes.
    fn emit(&mut self, i: InstId, mask: u32) {
        let inst = self.kernel.inst(i);
        if self.trace_only() {
            if inst.op.is_memory() {
                let g = self.warp.eval_guard(inst.guard, mask);
                self.trace_load(inst, g.taken | g.unknown);
            }
            self.step(i, mask);
            return;
        }
        let g = self.warp.eval_guard(inst.guard, mask);
        let executing = g.taken | g.unknown;
        self.recency.tick();
        let mut reads: Vec<ResourceId> = Vec::new();
        let mut writes: Vec<ResourceId> = Vec::new();
        for r in inst.uses() {
            reads.push(self.reg(r));
        }
        for r in inst.defs() {
            writes.push(self.reg(r));
        }
        if self.opts.control_deps {
            reads.push(self.control);
        }
        reads.push(self.barrier);
        let op = &inst.op;
        let mut category = Category::Compute;
        let mut mem = None;
        let mut barrier = None;
        let mut reread_since = None;
        if op.is_branch() {
            category = Category::Control;
            writes.push(self.control);
        } else if let Some(kind) = barrier_kind(op) {
            category = Category::Barrier;
            barrier = Some(Barrier {
                id: barrier_id(inst),
                kind,
                expected_threads: barrier_count(inst),
            });
            // Memory written before a barrier is what later warps read after it.
            for space in ["shared", "global"] {
                reads.push(self.b.resource(ResourceKind::Memory, space));
            }
            writes.push(self.barrier);
        } else if op.is_memory() {
            category = Category::Memory;
            let (space, bytes, addr) = access(self.kernel, inst);
            let store = op.is_store();
            let atomic = op.is_atomic();
            let addrs = addr.map(|a| self.warp.eval_addr(a, executing));
            let pattern = addrs
                .as_ref()
                .and_then(|a| pattern::analyse(a, executing, bytes));
            let (reuse, seen_sectors);
            let (mut sibling_sectors, mut group_sectors) = (0, 0);
            (reuse, reread_since, seen_sectors) = if space == MemSpace::Global && !atomic {
                let sectors = addrs
                    .as_ref()
                    .and_then(|a| pattern::sectors(a, executing, bytes))
                    .unwrap_or_default();
                // A load whose lanes all read one word is an L1 hit for every warp but the
                // first whatever came before (mapper g's uniform rule): no reuse to record.
                let uniform = matches!(op.opcode, Opcode::Ld | Opcode::Ldu)
                    && executing.count_ones() > 1
                    && pattern.is_some_and(|p| p.lane_stride_bytes == Some(0));
                let seen = if store {
                    0
                } else {
                    u32::try_from(self.recency.seen(&sectors)).unwrap_or(u32::MAX)
                };
                if !store && !uniform {
                    (sibling_sectors, group_sectors) = self.nearby_sectors(&sectors);
                }
                let (reuse, since) = self.touch_global(inst.ptx_line, sectors, store);
                (
                    reuse.filter(|_| !uniform),
                    since.filter(|_| !uniform),
                    if uniform { 0 } else { seen },
                )
            } else {
                (None, None, 0)
            };
            let res = self.b.resource(ResourceKind::Memory, space_name(space));
            if store || atomic {
                writes.push(res);
            }
            // A non-coherent load (`ld.global.nc`, `ldu`) reads data the kernel never writes,
            // so no store of the warp can feed it: no memory edge.
            let read_only = op.opcode == Opcode::Ldu || op.mods.flags.contains(Flag::Nc);
            if !store && !read_only {
                reads.push(res);
            }
            mem = Some(MemAccess {
                space,
                store,
                atomic,
                bytes_per_lane: bytes,
                pattern,
                reuse,
                seen_sectors,
                sibling_sectors,
                group_sectors,
                assumed: atomic && !self.assumed_until.is_empty(),
            });
        }
        let mut moves = Vec::new();
        if let Some((family, action)) = async_action(inst) {
            let issued = self.b.resource(ResourceKind::Async, family);
            let slot = |b: &mut idg::IdgBuilder, k: u32| {
                b.resource(ResourceKind::Async, &format!("{family}.group{k}"))
            };
            match action {
                AsyncAction::Issue => writes.push(issued),
                AsyncAction::Commit => {
                    for k in (1..ASYNC_GROUP_SLOTS).rev() {
                        moves.push((slot(&mut self.b, k - 1), slot(&mut self.b, k)));
                    }
                    moves.push((issued, slot(&mut self.b, 0)));
                }
                AsyncAction::Wait(pending) => {
                    reads.push(match pending {
                        Some(n) => slot(&mut self.b, n.min(ASYNC_GROUP_SLOTS - 1)),
                        None => issued,
                    });
                    // The warp waits here: nothing after it issues before it.
                    writes.push(self.barrier);
                    if family == CP_ASYNC {
                        // What the copies wrote is now visible to the warp's shared loads and
                        // (through the barrier that follows) to the other warps.
                        writes.push(self.b.resource(ResourceKind::Memory, "shared"));
                    }
                }
            }
        }
        reads.sort_unstable();
        reads.dedup();
        writes.sort_unstable();
        writes.dedup();
        let id = self.b.push(Node {
            op: op.clone(),
            category,
            reads,
            writes,
            moves,
            ptx_line: inst.ptx_line,
            src: inst.loc.map(|s| SrcLoc {
                file: s.file,
                line: s.line,
            }),
            mem,
            barrier,
            active_lanes: executing.count_ones(),
            register_conflicts: 0,
        });
        if let Some(since) = reread_since {
            self.rereads.push((id, since));
        }
        self.step(i, mask);
    }

    /// Steps the active lanes over instruction `i`, or only counts it where the walk reads
    /// nothing it computes.
    fn step(&mut self, i: InstId, mask: u32) {
        if self.slice.needs(i.index()) {
            self.warp.step(self.kernel.inst(i), mask);
        } else {
            self.warp.skip();
        }
    }

    /// A trace-only walk's part of [`Self::emit`] for a memory instruction: the sectors of a
    /// global load, in the order and with the addresses a full walk's `loads` gets them.
    fn trace_load(&mut self, inst: &Inst, executing: u32) {
        let op = &inst.op;
        if op.is_store() || op.is_atomic() {
            return;
        }
        let (space, bytes, addr) = access(self.kernel, inst);
        if space != MemSpace::Global {
            return;
        }
        let sectors = addr
            .map(|a| self.warp.eval_addr(a, executing))
            .and_then(|a| pattern::sectors(&a, executing, bytes))
            .unwrap_or_default();
        self.loads.push((inst.ptx_line, sectors));
    }

    /// Of a load's sectors the warp did not touch before, how many the earlier warps of its
    /// group load, and of the rest how many the earlier groups load (`MemAccess::
    /// sibling_sectors`, `group_sectors`); zero where the walk does not look.
    fn nearby_sectors(&self, sectors: &[Sector]) -> (u32, u32) {
        let Some((siblings, groups)) = self.nearby else {
            return (0, 0);
        };
        let (mut s, mut g) = (0u32, 0u32);
        for x in sectors.iter().filter(|x| !self.recency.contains(x)) {
            if siblings.contains(x) {
                s = s.saturating_add(1);
            } else if groups.is_some_and(|e| e.contains(x)) {
                g = g.saturating_add(1);
            }
        }
        (s, g)
    }

    /// Records a global access's sectors (empty: unknown) and says how a load reuses them.
    /// With a re-read (`Reuse::Warp`), the instructions since its data's last touch.
    fn touch_global(
        &mut self,
        line: u32,
        sectors: Vec<Sector>,
        store: bool,
    ) -> (Option<Reuse>, Option<u64>) {
        let mut reuse = None;
        let mut since = None;
        // Sectors every group loads are one copy in L2 for the whole grid.
        let mut shared = false;
        if !store && !sectors.is_empty() {
            let here = self.loads.len();
            let same = |t: &LoadTrace| {
                t.get(here)
                    .is_some_and(|(l, s)| *l == line && *s == sectors)
            };
            let distance = self.recency.distance(&sectors);
            shared = distance.is_none() && self.neighbours.iter().any(same);
            since = distance.map(|d| d.instructions);
            reuse = match distance {
                Some(d) => Some(warp_reuse(d.touched)),
                None if self.siblings.iter().any(same) => Some(Reuse::Siblings),
                None if shared => Some(Reuse::Groups),
                None => None,
            };
        }
        self.recency.touch(&sectors, store, shared);
        if !store {
            self.loads.push((line, sectors));
        }
        (reuse, since)
    }

    fn reg(&mut self, r: ir::RegId) -> ResourceId {
        let name = self.kernel.reg_name(r);
        let kind = if name.starts_with("%p") {
            ResourceKind::Predicate
        } else {
            ResourceKind::Register
        };
        self.b.resource(kind, name)
    }
}

fn trip_source_name(s: &ir::TripSource) -> String {
    match s {
        ir::TripSource::Explicit { file, row } => format!("explicit ({file}, row {row})"),
        ir::TripSource::Static => "static".into(),
        ir::TripSource::Profile {
            file,
            residual,
            ambiguous,
        } => format!(
            "profile ({file}, residual {residual:.1}{})",
            if *ambiguous { ", ambiguous" } else { "" }
        ),
        ir::TripSource::Default => "default".into(),
    }
}

/// CTA barriers synchronize the warps of a group; `bar.warp.sync` does not.
fn barrier_kind(op: &ptx::ast::Op) -> Option<BarrierKind> {
    if !op.is_barrier() || op.mods.has_other("warp") {
        return None;
    }
    Some(if op.mods.has_other("arrive") {
        BarrierKind::Arrive
    } else if op.mods.has_other("red") {
        BarrierKind::Red
    } else {
        BarrierKind::Sync
    })
}

/// The operands after `bar.red`'s destination register, or all of them: barrier id, then
/// the optional thread count (then `bar.red`'s predicate).
fn barrier_operands(inst: &Inst) -> &[Operand] {
    let ops = inst.operands.as_slice();
    if inst.op.mods.reduce.is_some() {
        ops.get(1..).unwrap_or(&[])
    } else {
        ops
    }
}

fn barrier_id(inst: &Inst) -> u32 {
    match barrier_operands(inst).first() {
        Some(Operand::Imm(v)) => *v as u32,
        _ => 0,
    }
}

fn barrier_count(inst: &Inst) -> Option<u32> {
    let ops = barrier_operands(inst);
    // `bar.red` ends with its predicate: a count is there only with three operands.
    let with_count = if inst.op.mods.reduce.is_some() { 3 } else { 2 };
    match ops {
        [_, Operand::Imm(n), ..] if ops.len() >= with_count => Some(*n as u32),
        _ => None,
    }
}

/// Group slots kept per asynchronous family: a wait for all but the newest N groups with
/// N at least this reads the oldest slot (a stricter wait; PTX code waits with N of 0 to 6).
const ASYNC_GROUP_SLOTS: u32 = 8;

const CP_ASYNC: &str = "cp.async";

/// What an instruction does to an asynchronous family's groups.
enum AsyncAction {
    /// Starts asynchronous work (a `cp.async` copy, a `wgmma.mma_async`).
    Issue,
    /// Closes the current group (`*.commit_group`).
    Commit,
    /// Waits until at most N groups are pending (`*.wait_group N`), or for every issued
    /// instruction (`cp.async.wait_all`, `None`).
    Wait(Option<u32>),
}

/// The family (`cp.async` or `wgmma`) and action of an asynchronous-group instruction. Bulk
/// copies (`cp.async.bulk*`, completed through mbarriers or their own bulk groups) are not
/// modelled: their completion is not a dependence.
fn async_action(inst: &Inst) -> Option<(&'static str, AsyncAction)> {
    let m = &inst.op.mods;
    let family = match inst.op.opcode {
        Opcode::Cp if is_thread_copy(&inst.op) => CP_ASYNC,
        Opcode::Wgmma => "wgmma",
        _ => return None,
    };
    let pending = || match inst.operands.first() {
        Some(Operand::Imm(n)) => Some((*n).min(u64::from(u32::MAX)) as u32),
        _ => Some(0),
    };
    let action = if m.has_other("commit_group") {
        AsyncAction::Commit
    } else if m.has_other("wait_group") {
        AsyncAction::Wait(pending())
    } else if m.has_other("wait_all") {
        AsyncAction::Wait(None)
    } else if family == CP_ASYNC || m.has_other("mma_async") {
        AsyncAction::Issue
    } else {
        // wgmma.fence orders register accesses; it starts nothing.
        return None;
    };
    Some((family, action))
}

/// A per-thread asynchronous copy or its group bookkeeping (`cp.async.*`, not the bulk copies,
/// which move a whole tile for one thread, nor `cp.reduce.async`).
fn is_thread_copy(op: &ptx::ast::Op) -> bool {
    let m = &op.mods;
    op.opcode == Opcode::Cp && m.has_other("async") && !m.has_other("bulk") && m.reduce.is_none()
}

/// What a memory instruction accesses: its space, the bytes each lane moves and the address
/// the walk analyses. A per-thread `cp.async` names its shared destination first, but what it
/// costs and what the profiler counts (an L1TEX global load request) is the read of its
/// global source: its access is that read.
fn access<'i>(kernel: &Kernel, inst: &'i Inst) -> (MemSpace, u32, Option<&'i Operand>) {
    match async_copy_source(inst) {
        Some((src, bytes)) => (MemSpace::Global, bytes, Some(src)),
        None => (
            mem_space(kernel, inst),
            inst.op.bytes_per_lane().unwrap_or(4),
            address(inst),
        ),
    }
}

/// The global source of a per-thread `cp.async` copy (`cp.async.ca/cg.shared.global [dst],
/// [src], cp-size{, src-size}{, policy}`) and the bytes each thread copies (cp-size: 4, 8 or
/// 16). Bulk copies are left to the destination rule.
fn async_copy_source(inst: &Inst) -> Option<(&Operand, u32)> {
    if !is_thread_copy(&inst.op) {
        return None;
    }
    match inst.operands.as_slice() {
        [Operand::Addr { .. }, src @ Operand::Addr { .. }, Operand::Imm(n), ..] => Some((
            src,
            u32::try_from(*n).ok().filter(|b| (1..=16).contains(b))?,
        )),
        _ => None,
    }
}

/// The address operand of a memory instruction.
fn address(inst: &Inst) -> Option<&Operand> {
    inst.operands
        .iter()
        .find(|o| matches!(o, Operand::Addr { .. }))
}

fn mem_space(kernel: &Kernel, inst: &Inst) -> MemSpace {
    let op = &inst.op;
    if op.opcode == Opcode::Tex || op.opcode == Opcode::Tld4 {
        return MemSpace::Texture;
    }
    if matches!(op.opcode, Opcode::Suld | Opcode::Sust | Opcode::Sured) {
        return MemSpace::Surface;
    }
    match op.space() {
        Some(StateSpace::Global) => MemSpace::Global,
        Some(StateSpace::Shared | StateSpace::SharedCta | StateSpace::SharedCluster) => {
            MemSpace::Shared
        }
        Some(StateSpace::Local) => MemSpace::Local,
        Some(StateSpace::Const) => MemSpace::Const,
        Some(StateSpace::Param | StateSpace::ParamEntry | StateSpace::ParamFunc) => MemSpace::Param,
        Some(StateSpace::Tex) => MemSpace::Texture,
        Some(StateSpace::Reg | StateSpace::Sreg) => MemSpace::Generic,
        None => {
            // Generic addressing of a known variable resolves to its space.
            match address(inst) {
                Some(Operand::Addr {
                    base: AddrBase::Var(v),
                    ..
                }) => match &kernel.bases[v.index()].kind {
                    ir::BaseKind::Var { space } => match space.as_str() {
                        "shared" => MemSpace::Shared,
                        "global" => MemSpace::Global,
                        "local" => MemSpace::Local,
                        "const" => MemSpace::Const,
                        _ => MemSpace::Generic,
                    },
                    ir::BaseKind::Param(_) => MemSpace::Generic,
                },
                _ => MemSpace::Generic,
            }
        }
    }
}

fn space_name(s: MemSpace) -> &'static str {
    match s {
        MemSpace::Global | MemSpace::Generic => "global",
        MemSpace::Shared => "shared",
        MemSpace::Local => "local",
        MemSpace::Const => "const",
        MemSpace::Param => "param",
        MemSpace::Texture => "texture",
        MemSpace::Surface => "surface",
    }
}

/// A re-read's `Reuse::Warp`: the distinct sectors `c` in bytes.
fn warp_reuse(c: Counts) -> Reuse {
    Reuse::Warp {
        distance_bytes: c.all.saturating_mul(SECTOR_BYTES),
        written_bytes: c.written.saturating_mul(SECTOR_BYTES),
        shared_bytes: c.shared.saturating_mul(SECTOR_BYTES),
    }
}

/// Gives each re-read the data the warps beside this one stream between its two reads. They
/// stream in proportion to the time in between, not to what this warp touched: a warp that
/// computes or waits at barriers between two passes over a row touches nothing meanwhile,
/// while the other resident warps go on. The warp's instructions stand for its time: a
/// re-read `since` instructions after its data's last touch stands for that share of the
/// warp's whole traffic (`Recency::share`) where that exceeds the sectors the warp touched
/// itself in between.
fn time_shares(idg: &mut Idg, rereads: &[(NodeId, u64)], recency: &Recency<Sector>) {
    for &(id, since) in rereads {
        let Some(m) = idg.nodes[id.index()].mem.as_mut() else {
            continue;
        };
        let Some(Reuse::Warp { distance_bytes, .. }) = m.reuse else {
            continue;
        };
        let share = recency.share(since);
        if share.all.saturating_mul(SECTOR_BYTES) > distance_bytes {
            m.reuse = Some(warp_reuse(share));
        }
    }
}
