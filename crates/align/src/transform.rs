//! Rewrites one IDG so that a loop runs as its machine code runs it:
//!
//! - **unrolled** by `U`: ptxas runs `U` iterations per pass with the global loads of all `U`
//!   (and what their addresses need) first, where the PTX, issued in order, keeps one
//!   iteration's loads in flight. The iterations are cut into blocks as ptxas cuts them: whole
//!   blocks of `U`, then the rest in blocks of `U/2`, `U/4`, … (one each at most). In a block,
//!   every copy's *load slice* (the loads, the instructions that compute their addresses and
//!   guards, and the moves that give a loaded register its value where the guard is false)
//!   comes first, copy by copy, then every copy's other instructions, in groups of as many
//!   copies as the machine code keeps loads in flight for (ptxas, short of registers,
//!   interleaves the loads of a pass with their uses). The registers a copy writes get the
//!   copy's own names (the last copy keeps the originals), so each copy reads its own values
//!   and the values the copy before it carried; the loop's branch ends each group, so the
//!   issue window does not look past it. A loop whose load slice reads loaded data, or that holds a barrier, an
//!   asynchronous copy or a branch before its latch, is left as it is.
//! - **serialized loads**: a global load that the machine code gives the previous load's
//!   destination register reads that load's data first (only where the machine code has as
//!   many loads in the loop as the PTX);
//! - **hoisted loads**: in a straight run of nodes (no branch, barrier, store, atomic or
//!   asynchronous copy between them) of a loop that is not unrolled, or outside every loop,
//!   the global loads issue in the groups the machine code issues them in (a load starts a
//!   group where the machine code waited for a load's data since the previous load), each
//!   group's load slice (the loads and every earlier node they depend on or that would see a
//!   register change under them) first, then the group's other nodes. The PTX interleaves
//!   each load with its use; ptxas issues a column convolution's 17 row loads before the
//!   first multiply-add, but waits for each quotient of a division whose slow path branches.
//!   Where the region's global loads are not as many as the machine code's, it is left as
//!   it is;
//! - **line order**: in the same iterations, the nodes between two global loads (or other run
//!   ends) follow the order in which the listing runs their source lines ([`line_ordered`]):
//!   ptxas interleaves the independent chains of an unrolled body that the PTX writes one
//!   copy after the other;
//! - **spills**: the machine code's local-memory accesses in a loop run at the top of each of
//!   its passes (outside loops, at the kernel's start), sized as coalesced requests of their
//!   width; nothing reads what a spill load writes, so they cost their pipeline's time and
//!   add no dependence on the kernel's values.
//!
//! The last iteration of a loop, which the IDG builder places after the loop's repeat (its
//! branch is not taken), counts as one of the loop's iterations and is the last copy of the
//! last block.

use std::collections::{BTreeSet, HashMap};

use idg::{
    AccessPattern, Category, Idg, Item, LoopId, MemAccess, MemSpace, Node, NodeId, Repeat,
    Resource, ResourceId, ResourceKind, SrcLoc,
};

use crate::machine::LocalAccess;
use crate::matching::is_global_load;

/// What to do to one loop.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoopPlan {
    pub loop_id: LoopId,
    /// Iterations per pass of the machine code (1: not unrolled).
    pub unroll: u32,
    /// Iterations of a pass whose loads the machine code keeps in flight together (1 to
    /// `unroll`): the copies of a pass are issued in groups of this many, each group's load
    /// slices first.
    pub depth: u32,
    /// Per global load of an iteration, in order: whether it waits for the previous load's
    /// data (empty: none does).
    pub serialize: Vec<bool>,
    /// Local-memory accesses per pass.
    pub spills: Vec<LocalAccess>,
    /// Per global load of the machine code's loop, in order: whether it starts a group of
    /// loads issued together ([`crate::machine::MachineLoop::load_groups`]), for an
    /// iteration that is not unrolled.
    pub load_groups: Vec<bool>,
    /// The share of the machine code's loop's FP32 and integer instructions with a register
    /// bank conflict, in thousandths (`idg::Node::register_conflicts`).
    pub register_conflicts: u16,
    /// The source lines of the machine code's loop in the listing's order
    /// ([`crate::machine::MachineLoop::line_order`]), as the PTX's positions.
    pub line_order: Vec<SrcLoc>,
}

/// What [`apply`] did to a loop, for the report.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Done {
    /// Ranges of the loop run unrolled.
    pub unrolled: u32,
    /// Why a range was not, when one was not.
    pub kept: Option<&'static str>,
    /// Loads made to wait for the previous one (per iteration).
    pub serialized: u32,
    /// Places the spill accesses went to.
    pub spill_places: u32,
    /// Straight runs of the loop's body whose loads were hoisted.
    pub hoisted: u32,
    /// Nodes of an iteration that moved to follow the listing's line order.
    pub reordered: u32,
}

struct Ctx<'a> {
    nodes: &'a mut Vec<Node>,
    resources: &'a mut Vec<Resource>,
    renamed: HashMap<(ResourceId, u32), ResourceId>,
    control: Vec<ResourceId>,
    local: Option<ResourceId>,
    spill_ld: Option<ResourceId>,
    spill_st: Option<ResourceId>,
}

impl Ctx<'_> {
    fn resource(&mut self, name: &str, kind: ResourceKind) -> ResourceId {
        if let Some(k) = self
            .resources
            .iter()
            .position(|r| r.name == name && r.kind == kind)
        {
            return ResourceId(k as u32);
        }
        self.resources.push(Resource {
            name: name.to_string(),
            kind,
        });
        ResourceId((self.resources.len() - 1) as u32)
    }

    /// The name copy `k` of a block gives register `r`.
    fn rename(&mut self, r: ResourceId, k: u32) -> ResourceId {
        if let Some(id) = self.renamed.get(&(r, k)) {
            return *id;
        }
        let old = self.resources[r.index()].clone();
        let id = self.resource(&format!("{}~u{k}", old.name), old.kind);
        self.renamed.insert((r, k), id);
        id
    }

    fn push(&mut self, n: Node) -> NodeId {
        self.nodes.push(n);
        NodeId((self.nodes.len() - 1) as u32)
    }

    /// A spill access node at `ptx_line` with `lanes` active.
    fn spill(&mut self, a: LocalAccess, ptx_line: u32, lanes: u32) -> NodeId {
        use ptx::ast::{Modifiers, Op, Opcode, ScalarType, StateSpace};
        let local = match self.local {
            Some(l) => l,
            None => {
                let id = self.resource("local", ResourceKind::Memory);
                self.local = Some(id);
                id
            }
        };
        let (ty, vector) = match a.bytes {
            1 => (ScalarType::B8, None),
            2 => (ScalarType::B16, None),
            8 => (ScalarType::B64, None),
            16 => (ScalarType::B64, Some(2)),
            _ => (ScalarType::B32, None),
        };
        let mods = Modifiers {
            space: Some(StateSpace::Local),
            types: vec![ty],
            vector,
            ..Modifiers::default()
        };
        let mut reads = self.control.clone();
        let mut writes = Vec::new();
        if a.store {
            let r = match self.spill_st {
                Some(r) => r,
                None => {
                    let r = self.resource("%spill~st", ResourceKind::Register);
                    self.spill_st = Some(r);
                    r
                }
            };
            reads.push(r);
            writes.push(local);
        } else {
            let r = match self.spill_ld {
                Some(r) => r,
                None => {
                    let r = self.resource("%spill~ld", ResourceKind::Register);
                    self.spill_ld = Some(r);
                    r
                }
            };
            reads.push(local);
            writes.push(r);
        }
        self.push(Node {
            op: Op {
                opcode: if a.store { Opcode::St } else { Opcode::Ld },
                mods,
            },
            category: Category::Memory,
            reads,
            writes,
            moves: Vec::new(),
            ptx_line,
            src: None,
            mem: Some(MemAccess {
                space: MemSpace::Local,
                store: a.store,
                atomic: false,
                bytes_per_lane: a.bytes,
                // Local words are interleaved by lane: a warp's access is coalesced.
                pattern: Some(AccessPattern {
                    lane_stride_bytes: Some(i64::from(a.bytes)),
                    sectors_per_request: a.bytes,
                    bank_conflict_degree: 0,
                }),
                reuse: None,
                seen_sectors: 0,
                sibling_sectors: 0,
                group_sectors: 0,
                assumed: false,
            }),
            barrier: None,
            active_lanes: lanes.max(1),
            register_conflicts: 0,
        })
    }

    fn spills(&mut self, spills: &[LocalAccess], ptx_line: u32, lanes: u32) -> Vec<Item> {
        spills
            .iter()
            .map(|a| Item::Node(self.spill(*a, ptx_line, lanes)))
            .collect()
    }
}

fn is_register(kind: ResourceKind) -> bool {
    matches!(kind, ResourceKind::Register | ResourceKind::Predicate)
}

/// The blocks ptxas runs `trips` iterations in when it unrolls by `u`: `whole` blocks of `u`,
/// then the `tail`'s sizes (`u/2`, `u/4`, ..., at most one each).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Blocks {
    pub whole: u64,
    pub tail: Vec<u32>,
}

impl Blocks {
    pub fn new(trips: u64, u: u32) -> Blocks {
        let u64_ = u64::from(u.max(1));
        let mut tail = Vec::new();
        let (mut rest, mut size) = (trips % u64_, u64::from((u / 2).max(1)));
        while rest > 0 {
            if size <= rest {
                tail.push(size as u32);
                rest -= size;
            } else {
                size = (size / 2).max(1);
            }
        }
        Blocks {
            whole: trips / u64_,
            tail,
        }
    }

    fn len(&self) -> u64 {
        self.whole + self.tail.len() as u64
    }

    /// The size of block `b`.
    fn size(&self, b: u64, u: u32) -> u32 {
        if b < self.whole {
            u
        } else {
            self.tail[(b - self.whole) as usize]
        }
    }
}

/// One loop body that can be unrolled: the slice's positions and what the copies rename.
struct Unrollable {
    slice: Vec<bool>,
    /// Registers the body writes, with the position of their first writer.
    first_writer: HashMap<ResourceId, usize>,
    /// Position of the latch branch (the body's last node, when a branch).
    latch: Option<usize>,
}

fn unrollable(
    nodes: &[Node],
    body: &[NodeId],
    resources: &[Resource],
) -> Result<Unrollable, &'static str> {
    let node = |i: usize| &nodes[body[i].index()];
    let reg = |r: &ResourceId| is_register(resources[r.index()].kind);
    let last = body.len().checked_sub(1).ok_or("the loop body is empty")?;
    for i in 0..body.len() {
        let n = node(i);
        if n.barrier.is_some() {
            return Err("the loop holds a barrier");
        }
        if !n.moves.is_empty()
            || n.writes
                .iter()
                .chain(&n.reads)
                .any(|r| resources[r.index()].kind == ResourceKind::Async)
        {
            return Err("the loop holds asynchronous copies");
        }
        if n.op.is_branch() && i != last {
            return Err("the loop has a branch before its latch");
        }
    }
    let loads: Vec<usize> = (0..body.len())
        .filter(|&i| is_global_load(node(i)))
        .collect();
    let Some(&last_load) = loads.last() else {
        return Err("the loop has no global load");
    };
    let loaded: BTreeSet<ResourceId> = loads
        .iter()
        .flat_map(|&i| node(i).writes.iter().copied().filter(reg))
        .collect();
    let mut slice = vec![false; body.len()];
    for &i in &loads {
        slice[i] = true;
    }
    loop {
        let need: BTreeSet<ResourceId> = (0..body.len())
            .filter(|&i| slice[i])
            .flat_map(|i| node(i).reads.iter().copied().filter(reg))
            .collect();
        let mut changed = false;
        for (i, in_slice) in slice.iter_mut().enumerate() {
            if *in_slice || node(i).op.is_branch() {
                continue;
            }
            let w = &node(i).writes;
            if w.iter().any(|r| need.contains(r))
                || (i < last_load && w.iter().any(|r| loaded.contains(r)))
            {
                *in_slice = true;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    for (i, &in_slice) in slice.iter().enumerate() {
        if in_slice && !is_global_load(node(i)) && node(i).reads.iter().any(|r| loaded.contains(r))
        {
            return Err("an address in the loop depends on loaded data");
        }
    }
    let mut first_writer = HashMap::new();
    for i in 0..body.len() {
        for r in node(i).writes.iter().filter(|r| reg(r)) {
            first_writer.entry(*r).or_insert(i);
        }
    }
    let latch = node(last).op.is_branch().then_some(last);
    Ok(Unrollable {
        slice,
        first_writer,
        latch,
    })
}

/// One block of `copies` (each the node ids of one iteration, in body order), in groups of
/// `depth` copies, each group's slices first.
fn block(ctx: &mut Ctx<'_>, u: &Unrollable, copies: &[&[NodeId]], depth: u32) -> Vec<Item> {
    let s = copies.len() as u32;
    let mut out = Vec::new();
    let depth = depth.max(1) as usize;
    for (g, group) in copies.chunks(depth).enumerate() {
        for part in [true, false] {
            for (k, copy) in group.iter().enumerate() {
                let k = (g * depth + k) as u32;
                for (i, id) in copy.iter().enumerate() {
                    // The latch branch ends each group: the issue window does not look past
                    // it, as the machine code keeps no more loads in flight than a group's.
                    let last_of_group = (k as usize + 1).is_multiple_of(depth) || k + 1 == s;
                    if u.slice[i] != part || (u.latch == Some(i) && !last_of_group) {
                        continue;
                    }
                    let mut n = ctx.nodes[id.index()].clone();
                    let name = |ctx: &mut Ctx<'_>, r: ResourceId, k: u32| {
                        if k + 1 == s {
                            r
                        } else {
                            ctx.rename(r, k)
                        }
                    };
                    for r in &mut n.writes {
                        if u.first_writer.contains_key(r) {
                            *r = name(ctx, *r, k);
                        }
                    }
                    for r in &mut n.reads {
                        match u.first_writer.get(r) {
                            Some(&w) if w < i => *r = name(ctx, *r, k),
                            Some(_) if k > 0 => *r = name(ctx, *r, k - 1),
                            _ => {}
                        }
                    }
                    out.push(Item::Node(ctx.push(n)));
                }
            }
        }
    }
    out
}

fn node_ids(items: &[Item]) -> Option<Vec<NodeId>> {
    items
        .iter()
        .map(|it| match it {
            Item::Node(id) => Some(*id),
            Item::Repeat(_) => None,
        })
        .collect()
}

/// Makes each global load marked in `marks` read the previous load's first register.
fn serialize(ctx: &mut Ctx<'_>, ids: &[NodeId], marks: &[bool]) -> u32 {
    let loads: Vec<NodeId> = ids
        .iter()
        .copied()
        .filter(|id| is_global_load(&ctx.nodes[id.index()]))
        .collect();
    if loads.len() != marks.len() {
        return 0;
    }
    let mut n = 0;
    for k in 1..loads.len() {
        if !marks[k] {
            continue;
        }
        let prev = &ctx.nodes[loads[k - 1].index()];
        let Some(r) = prev
            .writes
            .iter()
            .copied()
            .find(|r| is_register(ctx.resources[r.index()].kind))
        else {
            continue;
        };
        let cur = &mut ctx.nodes[loads[k].index()];
        if !cur.reads.contains(&r) {
            cur.reads.push(r);
        }
        n += 1;
    }
    n
}

/// Whether a node ends a straight run in which loads may move: control flow, a barrier, a
/// store or atomic (a later load may read what it writes) or an asynchronous copy.
fn ends_run(n: &Node, resources: &[Resource]) -> bool {
    n.op.is_branch()
        || n.barrier.is_some()
        || n.mem.is_some_and(|m| m.store || m.atomic)
        || !n.moves.is_empty()
        || n.writes
            .iter()
            .chain(&n.reads)
            .any(|r| resources[r.index()].kind == ResourceKind::Async)
}

/// One straight run `ids` with its global loads hoisted (the module's description), in
/// groups started by the loads `groups` marks (one flag per global load of the run); `None`
/// where nothing moves.
fn hoist(
    nodes: &[Node],
    resources: &[Resource],
    ids: &[NodeId],
    groups: &[bool],
) -> Option<Vec<NodeId>> {
    let node = |i: usize| &nodes[ids[i].index()];
    let reg = |r: &&ResourceId| is_register(resources[r.index()].kind);
    let loads: Vec<usize> = (0..ids.len())
        .filter(|&i| is_global_load(node(i)))
        .collect();
    if loads.len() < 2 || loads.len() != groups.len() {
        return None;
    }
    // The slice, from the back: a node joins when a later slice node reads what it writes,
    // writes what it reads or writes, so that no register changes under either as the
    // slice moves ahead of the rest. One pass reaches the fixed point: a node only answers
    // to nodes after it.
    let mut slice = vec![false; ids.len()];
    let (mut read, mut written) = (BTreeSet::new(), BTreeSet::new());
    for i in (0..ids.len()).rev() {
        let n = node(i);
        let joins = is_global_load(n)
            || n.writes
                .iter()
                .filter(reg)
                .any(|r| read.contains(r) || written.contains(r))
            || n.reads.iter().filter(reg).any(|r| written.contains(r));
        if joins {
            slice[i] = true;
            read.extend(n.reads.iter().filter(reg).copied());
            written.extend(n.writes.iter().filter(reg).copied());
        }
    }
    // A group's range of nodes runs from its first load to the next group's.
    let mut starts = vec![0usize];
    starts.extend(
        loads
            .iter()
            .zip(groups)
            .skip(1)
            .filter(|(_, &start)| start)
            .map(|(&i, _)| i),
    );
    starts.push(ids.len());
    let mut out = Vec::with_capacity(ids.len());
    for w in starts.windows(2) {
        for part in [true, false] {
            out.extend((w[0]..w[1]).filter(|&i| slice[i] == part).map(|i| ids[i]));
        }
    }
    (out != ids).then_some(out)
}

/// `items` (one iteration of a loop) with the nodes between two anchors (a global load, a
/// branch, barrier, store, atomic or asynchronous copy, a repeat) put in the order the
/// listing runs their source lines: for each line of `order` in turn, the earliest node of
/// that line in the current stretch whose register inputs and outputs no earlier node of
/// the stretch still holds (the registers it reads are written, and those it writes are read
/// or written, only by nodes already placed); a line no such node has is passed over. What is
/// left of a stretch when `order` runs out follows in its own order. ptxas interleaves the
/// independent work of an unrolled body (an n-body step: two or three bodies' chains at
/// once, the next bodies' shared loads among them) where the PTX runs one copy after the
/// other, and the issue window, a few instructions wide, sees only what the order puts near.
/// Returns the nodes moved.
fn line_ordered(ctx: &Ctx<'_>, items: Vec<Item>, order: &[SrcLoc]) -> (Vec<Item>, u32) {
    if order.is_empty() {
        return (items, 0);
    }
    let reg = |r: &&ResourceId| is_register(ctx.resources[r.index()].kind);
    let anchor = |n: &Node| is_global_load(n) || ends_run(n, ctx.resources);
    let mut out = Vec::with_capacity(items.len());
    let mut stretch: Vec<NodeId> = Vec::new();
    let mut next = 0usize;
    let mut moved = 0u32;
    let mut flush = |stretch: &mut Vec<NodeId>, out: &mut Vec<Item>, next: &mut usize| {
        let ids = std::mem::take(stretch);
        let n = ids.len();
        // Node j waits for the nodes before it that last wrote a register it reads or writes,
        // and for those that read a register it writes since it was last written; through
        // them, for every earlier node sharing a register one of the two writes. Linear in
        // the registers the stretch names, however long it is.
        let mut waits: Vec<Vec<usize>> = Vec::with_capacity(n);
        let mut last_write: HashMap<ResourceId, usize> = HashMap::new();
        let mut readers: HashMap<ResourceId, Vec<usize>> = HashMap::new();
        for (j, id) in ids.iter().enumerate() {
            let node = &ctx.nodes[id.index()];
            let mut w: Vec<usize> = Vec::new();
            for r in node.reads.iter().filter(reg) {
                w.extend(last_write.get(r));
            }
            for r in node.writes.iter().filter(reg) {
                w.extend(last_write.get(r));
                w.extend(readers.get(r).into_iter().flatten());
            }
            w.sort_unstable();
            w.dedup();
            waits.push(w);
            for r in node.reads.iter().filter(reg) {
                readers.entry(*r).or_default().push(j);
            }
            for r in node.writes.iter().filter(reg) {
                last_write.insert(*r, j);
                readers.remove(r);
            }
        }
        // The stretch's nodes of each line, in order.
        let mut of_line: HashMap<SrcLoc, Vec<usize>> = HashMap::new();
        for (j, id) in ids.iter().enumerate() {
            if let Some(line) = ctx.nodes[id.index()].src {
                of_line.entry(line).or_default().push(j);
            }
        }
        let mut placed = vec![false; n];
        let mut seq = Vec::with_capacity(n);
        while seq.len() < n && *next < order.len() {
            let line = order[*next];
            *next += 1;
            let Some(nodes) = of_line.get_mut(&line) else {
                continue;
            };
            if let Some(k) = nodes
                .iter()
                .position(|&j| waits[j].iter().all(|&i| placed[i]))
            {
                let j = nodes.remove(k);
                placed[j] = true;
                seq.push(j);
            }
        }
        seq.extend((0..n).filter(|&j| !placed[j]));
        moved += seq.iter().enumerate().filter(|(k, &j)| *k != j).count() as u32;
        out.extend(seq.into_iter().map(|j| Item::Node(ids[j])));
    };
    for item in items {
        match item {
            Item::Node(id) if !anchor(&ctx.nodes[id.index()]) => stretch.push(id),
            other => {
                flush(&mut stretch, &mut out, &mut next);
                out.push(other);
            }
        }
    }
    flush(&mut stretch, &mut out, &mut next);
    (out, moved)
}

/// `items` with the loads of each straight run of its nodes hoisted ([`hoist`]) in the groups
/// `groups` gives its global loads in order (those inside its repeats not counted); how many
/// runs changed. Repeats stay where they are and end runs. Where `items` holds another
/// number of global loads than `groups`, nothing changes: the machine code runs another
/// path.
fn hoist_items(ctx: &Ctx<'_>, items: Vec<Item>, groups: &[bool]) -> (Vec<Item>, u32) {
    let loads = items
        .iter()
        .filter(|it| matches!(it, Item::Node(id) if is_global_load(&ctx.nodes[id.index()])))
        .count();
    if loads != groups.len() {
        return (items, 0);
    }
    let mut out = Vec::with_capacity(items.len());
    let mut run: Vec<NodeId> = Vec::new();
    let mut changed = 0;
    let mut next = 0usize;
    let mut flush = |run: &mut Vec<NodeId>, out: &mut Vec<Item>| {
        let ids = std::mem::take(run);
        let n = ids
            .iter()
            .filter(|id| is_global_load(&ctx.nodes[id.index()]))
            .count();
        let flags = &groups[next..next + n];
        next += n;
        let ids = match hoist(ctx.nodes, ctx.resources, &ids, flags) {
            Some(moved) => {
                changed += 1;
                moved
            }
            None => ids,
        };
        out.extend(ids.into_iter().map(Item::Node));
    };
    for item in items {
        match item {
            Item::Node(id) if !ends_run(&ctx.nodes[id.index()], ctx.resources) => run.push(id),
            other => {
                flush(&mut run, &mut out);
                out.push(other);
            }
        }
    }
    flush(&mut run, &mut out);
    (out, changed)
}

/// The iterations of one loop as the IDG runs them: runs of `count` iterations of one body.
struct Run {
    ids: Vec<NodeId>,
    count: u64,
}

/// Whether two iteration bodies are one PTX path with the same dependences.
fn same_path(nodes: &[Node], a: &[NodeId], b: &[NodeId]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| {
            let (x, y) = (&nodes[x.index()], &nodes[y.index()]);
            x.ptx_line == y.ptx_line && x.reads == y.reads && x.writes == y.writes
        })
}

/// Unrolls the iterations `runs` by `u` (see the module's description).
fn unroll_runs(
    ctx: &mut Ctx<'_>,
    plan: &LoopPlan,
    un: &Unrollable,
    runs: &[Run],
    line: u32,
    lanes: u32,
) -> Vec<Item> {
    let trips: u64 = runs.iter().map(|r| r.count).sum();
    let blocks = Blocks::new(trips, plan.unroll);
    let mut out = Vec::new();
    let (mut run, mut used) = (0usize, 0u64);
    let mut b = 0u64;
    while b < blocks.len() {
        let s = u64::from(blocks.size(b, plan.unroll));
        let left = runs[run].count - used;
        if b < blocks.whole && left >= s {
            // Whole blocks inside one run: one repeat of a block of its body.
            let k = (left / s).min(blocks.whole - b);
            let copies = vec![runs[run].ids.as_slice(); s as usize];
            let mut body = ctx.spills(&plan.spills, line, lanes);
            body.extend(block(ctx, un, &copies, plan.depth));
            out.push(Item::Repeat(Repeat {
                loop_id: plan.loop_id,
                count: k,
                body,
            }));
            used += k * s;
            b += k;
        } else {
            let mut copies: Vec<&[NodeId]> = Vec::new();
            for _ in 0..s {
                while runs[run].count == used {
                    run += 1;
                    used = 0;
                }
                copies.push(runs[run].ids.as_slice());
                used += 1;
            }
            if b < blocks.whole {
                out.extend(ctx.spills(&plan.spills, line, lanes));
            }
            let items = block(ctx, un, &copies, plan.depth);
            out.extend(items);
            b += 1;
        }
        while run < runs.len() && runs[run].count == used {
            run += 1;
            used = 0;
        }
    }
    out
}

fn rewrite(
    ctx: &mut Ctx<'_>,
    items: Vec<Item>,
    plans: &HashMap<LoopId, &LoopPlan>,
    done: &mut HashMap<LoopId, Done>,
) -> Vec<Item> {
    let mut out = Vec::with_capacity(items.len());
    let mut it = items.into_iter().peekable();
    while let Some(item) = it.next() {
        let Item::Repeat(r) = item else {
            out.push(item);
            continue;
        };
        let plan = plans.get(&r.loop_id).copied();
        let ids = node_ids(&r.body);
        let (Some(plan), Some(ids)) = (plan, ids) else {
            // Not a planned innermost loop: only what lies inside changes.
            let body = rewrite(ctx, r.body, plans, done);
            out.push(Item::Repeat(Repeat { body, ..r }));
            continue;
        };
        // The loop's iterations: this repeat, the repeats of the same path after it (ranges
        // whose lanes or reuse differ), and the last iteration, which the builder places
        // after them (the same PTX lines).
        let mut runs = vec![Run {
            ids,
            count: r.count,
        }];
        loop {
            let next = match it.peek() {
                Some(Item::Repeat(n)) if n.loop_id == r.loop_id => node_ids(&n.body)
                    .filter(|b| b.len() == runs[0].ids.len())
                    .map(|b| (b, n.count)),
                _ => None,
            };
            let Some((b, count)) = next else { break };
            if !same_path(ctx.nodes, &runs[0].ids, &b) {
                break;
            }
            it.next();
            runs.push(Run { ids: b, count });
        }
        let len = runs[0].ids.len();
        let rest: Vec<Item> = it.clone().take(len).collect();
        if let Some(p) = node_ids(&rest).filter(|p| {
            p.len() == len
                && p.iter()
                    .zip(&runs[0].ids)
                    .all(|(a, b)| ctx.nodes[a.index()].ptx_line == ctx.nodes[b.index()].ptx_line)
        }) {
            for _ in 0..len {
                it.next();
            }
            runs.push(Run { ids: p, count: 1 });
        }
        let peeled = runs.len() > 1 && runs.last().is_some_and(|r| r.count == 1);
        let d = done.entry(r.loop_id).or_default();
        let first = &ctx.nodes[runs[0].ids[0].index()];
        let (line, lanes) = (first.ptx_line, first.active_lanes);
        let mut unrolled = None;
        if plan.unroll >= 2 {
            match unrollable(ctx.nodes, &runs[0].ids, ctx.resources) {
                Ok(u) => unrolled = Some(u),
                Err(why) => d.kept = Some(why),
            }
        }
        if let Some(u) = unrolled {
            d.unrolled += 1;
            out.extend(unroll_runs(ctx, plan, &u, &runs, line, lanes));
        } else {
            let n = runs.len();
            for (k, run) in runs.into_iter().enumerate() {
                let iteration: Vec<Item> = run.ids.iter().map(|id| Item::Node(*id)).collect();
                let iteration = if plan.unroll == 1 && !plan.serialize.is_empty() {
                    d.serialized = d.serialized.max(serialize(ctx, &run.ids, &plan.serialize));
                    iteration
                } else {
                    // ptxas short of registers gives loads one destination (serialized
                    // above); otherwise it issues an iteration's loads ahead of their uses.
                    let (hoisted, h) = hoist_items(ctx, iteration, &plan.load_groups);
                    d.hoisted = d.hoisted.max(h);
                    hoisted
                };
                let (iteration, moved) = line_ordered(ctx, iteration, &plan.line_order);
                d.reordered = d.reordered.max(moved);
                let mut body = ctx.spills(&plan.spills, line, lanes);
                body.extend(iteration);
                if peeled && k + 1 == n {
                    out.extend(body);
                } else {
                    out.push(Item::Repeat(Repeat {
                        loop_id: r.loop_id,
                        count: run.count,
                        body,
                    }));
                }
            }
        }
        if !plan.spills.is_empty() {
            d.spill_places += 1;
        }
    }
    out
}

/// Renumbers the nodes in tree order and drops those no item names any more (the originals of
/// unrolled copies).
fn compact(idg: &mut Idg) {
    fn visit(items: &mut [Item], nodes: &mut Vec<Node>, old: &[Node]) {
        for it in items {
            match it {
                Item::Node(id) => {
                    nodes.push(old[id.index()].clone());
                    *id = NodeId((nodes.len() - 1) as u32);
                }
                Item::Repeat(r) => visit(&mut r.body, nodes, old),
            }
        }
    }
    let old = std::mem::take(&mut idg.nodes);
    let mut body = std::mem::take(&mut idg.body);
    visit(&mut body, &mut idg.nodes, &old);
    idg.body = body;
}

/// What [`apply`] did to one IDG.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Applied {
    /// Per paired loop.
    pub loops: HashMap<LoopId, Done>,
    /// Straight runs outside every loop whose loads were hoisted.
    pub hoisted: u32,
}

/// Sets each node's `register_conflicts` to its region's share: its innermost loop's plan's,
/// `share` outside every loop; 0 in a loop no plan names (its machine code is not known).
fn mark_conflicts(
    nodes: &mut [Node],
    items: &[Item],
    plans: &HashMap<LoopId, &LoopPlan>,
    share: u16,
) {
    for it in items {
        match it {
            Item::Node(id) => nodes[id.index()].register_conflicts = share,
            Item::Repeat(r) => {
                let inner = plans.get(&r.loop_id).map_or(0, |p| p.register_conflicts);
                mark_conflicts(nodes, &r.body, plans, inner);
            }
        }
    }
}

/// What the machine code says of the code outside every loop.
#[derive(Debug, Clone, Copy, Default)]
pub struct Outside<'a> {
    /// Its global loads' groups ([`crate::machine::MachineCode::outside_load_groups`]).
    pub load_groups: &'a [bool],
    /// Its register bank conflicts in thousandths of its FP32 and integer instructions.
    pub register_conflicts: u16,
}

/// Applies `plans` to `idg`, and the `entry` spills at its start, hoists the loads of its
/// straight runs outside every loop in the groups `outside` gives them, and marks every
/// node's register bank conflicts.
pub fn apply(
    idg: &mut Idg,
    plans: &[LoopPlan],
    entry: &[LocalAccess],
    outside: Outside<'_>,
) -> Applied {
    let by_loop: HashMap<LoopId, &LoopPlan> = plans.iter().map(|p| (p.loop_id, p)).collect();
    let control = idg
        .resources
        .iter()
        .enumerate()
        .filter(|(_, r)| r.kind == ResourceKind::Control)
        .map(|(k, _)| ResourceId(k as u32))
        .collect();
    let body = std::mem::take(&mut idg.body);
    let (first_line, first_lanes) = node_ids(&body[..body.len().min(1)])
        .and_then(|ids| ids.first().map(|id| idg.nodes[id.index()].clone()))
        .map_or((0, 32), |n| (n.ptx_line, n.active_lanes));
    let mut ctx = Ctx {
        nodes: &mut idg.nodes,
        resources: &mut idg.resources,
        renamed: HashMap::new(),
        control,
        local: None,
        spill_ld: None,
        spill_st: None,
    };
    let mut done = HashMap::new();
    let mut new = ctx.spills(entry, first_line, first_lanes);
    new.extend(rewrite(&mut ctx, body, &by_loop, &mut done));
    let (new, hoisted) = hoist_items(&ctx, new, outside.load_groups);
    mark_conflicts(ctx.nodes, &new, &by_loop, outside.register_conflicts);
    idg.body = new;
    compact(idg);
    Applied {
        loops: done,
        hoisted,
    }
}

#[cfg(test)]
mod tests {
    use super::Blocks;

    #[test]
    fn ptxas_blocks() {
        assert_eq!(
            Blocks::new(10, 4),
            Blocks {
                whole: 2,
                tail: vec![2]
            }
        );
        assert_eq!(
            Blocks::new(3, 4),
            Blocks {
                whole: 0,
                tail: vec![2, 1]
            }
        );
        assert_eq!(
            Blocks::new(5, 3),
            Blocks {
                whole: 1,
                tail: vec![1, 1]
            }
        );
        // Counts far past memory stay counts.
        let b = Blocks::new(u64::MAX, 4);
        assert_eq!((b.whole, b.tail.clone()), (u64::MAX / 4, vec![2, 1]));
        assert_eq!(b.len(), u64::MAX / 4 + 2);
    }
}
