//! Unrolling the compact form on the fly.
//!
//! Dependence semantics (the definition every consumer shares): the unrolled sequence is the
//! `body` tree read in order with every repeat expanded; a dynamic instruction depends on the
//! last earlier dynamic writer of each resource it reads (read-after-write only, paper section
//! 3.1.1); after its writes, a node's `moves` copy last writers between resources, in order. A stream keeps one "last writer" slot per resource and a stack as deep as the loop
//! nest, so its memory is bounded by code size whatever the trip counts.

use smallvec::SmallVec;

use crate::graph::{Idg, Item};
use crate::node::{LoopId, NodeId, ResourceId};

/// One executed warp instruction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DynInst {
    /// Position in this warp's unrolled sequence, from 0.
    pub seq: u64,
    pub node: NodeId,
    /// Sequence numbers of the instructions this one depends on, deduplicated, ascending.
    pub preds: SmallVec<[u64; 4]>,
}

#[derive(Debug, Clone)]
struct Frame<'a> {
    items: &'a [Item],
    pos: usize,
    /// `None` for the top level.
    repeat: Option<(LoopId, u64)>,
    iteration: u64,
    /// Distinguishes this run of the repeat from earlier runs at the same place.
    instance: u64,
}

/// Where a stream stands in one level of the repeat tree (see [`Stream::position`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FramePosition {
    /// Identity of the item list being read (equal for the same list of the same IDG).
    pub body: usize,
    /// Items of that list already read.
    pub pos: usize,
    /// Iterations of the repeat (0 for the top level).
    pub count: u64,
    /// The iteration being read, from 0.
    pub iteration: u64,
    /// Unique per entry into a repeat within this stream: two positions with the same instance
    /// are the same run of the repeat, so their iterations are comparable.
    pub instance: u64,
}

/// Walks the tree in unrolled order, yielding template node ids with their iteration context.
#[derive(Debug, Clone)]
pub(crate) struct Unroller<'a> {
    stack: Vec<Frame<'a>>,
    entries: u64,
}

impl<'a> Unroller<'a> {
    pub(crate) fn new(idg: &'a Idg) -> Self {
        Self {
            stack: vec![Frame {
                items: &idg.body,
                pos: 0,
                repeat: None,
                iteration: 0,
                instance: 0,
            }],
            entries: 0,
        }
    }

    /// Current iteration of every enclosing repeat, outermost first.
    pub(crate) fn iterations(&self) -> impl Iterator<Item = (LoopId, u64)> + '_ {
        self.stack
            .iter()
            .filter_map(|f| f.repeat.map(|(l, _)| (l, f.iteration)))
    }

    #[inline]
    pub(crate) fn next_node(&mut self) -> Option<NodeId> {
        loop {
            let frame = self.stack.last_mut()?;
            if let Some(item) = frame.items.get(frame.pos) {
                frame.pos += 1;
                match item {
                    Item::Node(id) => return Some(*id),
                    Item::Repeat(r) if r.count > 0 => {
                        self.entries += 1;
                        self.stack.push(Frame {
                            items: &r.body,
                            pos: 0,
                            repeat: Some((r.loop_id, r.count)),
                            iteration: 0,
                            instance: self.entries,
                        });
                    }
                    Item::Repeat(_) => {}
                }
            } else {
                match frame.repeat {
                    Some((_, count)) if frame.iteration + 1 < count => {
                        frame.iteration += 1;
                        frame.pos = 0;
                    }
                    _ => {
                        self.stack.pop();
                    }
                }
            }
        }
    }
}

/// The resources every node of an IDG reads and writes, packed for streaming: one span per
/// node into one array, so fetching an instruction touches two small tables instead of the
/// node and its two vectors. Built once per IDG and shared by all its streams.
#[derive(Debug, Clone, Default)]
pub struct DepTable {
    /// Per node: start in `refs`, reads, writes; then its moves as pairs in `moves`.
    spans: Vec<(u32, u16, u16)>,
    /// Per node: start in `moved` and the number of `(from, to)` pairs.
    move_spans: Vec<(u32, u16)>,
    moved: Vec<(u32, u32)>,
    refs: Vec<u32>,
    resources: usize,
}

impl DepTable {
    pub fn new(idg: &Idg) -> Self {
        let mut t = DepTable {
            spans: Vec::with_capacity(idg.nodes.len()),
            move_spans: Vec::with_capacity(idg.nodes.len()),
            moved: Vec::new(),
            refs: Vec::new(),
            resources: idg.resources.len(),
        };
        for n in &idg.nodes {
            let start = t.refs.len() as u32;
            t.refs.extend(n.reads.iter().chain(&n.writes).map(|r| r.0));
            t.spans
                .push((start, n.reads.len() as u16, n.writes.len() as u16));
            t.move_spans
                .push((t.moved.len() as u32, n.moves.len() as u16));
            t.moved.extend(n.moves.iter().map(|(a, b)| (a.0, b.0)));
        }
        t
    }
}

/// No writer yet.
const NONE: u64 = u64::MAX;

/// Iterator over the dynamic instructions of one warp of a class.
#[derive(Debug, Clone)]
pub struct Stream<'a> {
    table: std::borrow::Cow<'a, DepTable>,
    unroller: Unroller<'a>,
    last_writer: Vec<u64>,
    seq: u64,
    /// The next node, already read from the tree by [`Stream::peek`], not yet taken.
    peeked: Option<NodeId>,
}

impl<'a> Stream<'a> {
    pub(crate) fn new(idg: &'a Idg) -> Self {
        Self::from_table(idg, std::borrow::Cow::Owned(DepTable::new(idg)))
    }

    /// A stream of `idg` reading the table built for it by [`DepTable::new`], so that many
    /// streams of one IDG share it.
    pub fn with_table(idg: &'a Idg, table: &'a DepTable) -> Self {
        Self::from_table(idg, std::borrow::Cow::Borrowed(table))
    }

    fn from_table(idg: &'a Idg, table: std::borrow::Cow<'a, DepTable>) -> Self {
        Self {
            unroller: Unroller::new(idg),
            last_writer: vec![NONE; table.resources],
            table,
            seq: 0,
            peeked: None,
        }
    }

    /// Iteration of every enclosing repeat of the instruction returned last, outermost first.
    pub fn iterations(&self) -> impl Iterator<Item = (LoopId, u64)> + '_ {
        self.unroller.iterations()
    }

    /// The last writer (seq) of a resource so far.
    pub fn last_writer(&self, r: ResourceId) -> Option<u64> {
        self.last_writer
            .get(r.index())
            .copied()
            .filter(|&w| w != NONE)
    }

    /// The last writer of every resource, in `ResourceId` order.
    pub fn last_writers(&self) -> impl Iterator<Item = Option<u64>> + '_ {
        self.last_writer.iter().map(|&w| (w != NONE).then_some(w))
    }

    /// Sequence number of the next instruction.
    pub fn next_seq(&self) -> u64 {
        self.seq
    }

    /// The node of the next instruction, without taking it (None at the end).
    #[inline]
    pub fn peek(&mut self) -> Option<NodeId> {
        if self.peeked.is_none() {
            self.peeked = self.unroller.next_node();
        }
        self.peeked
    }

    /// Takes the next instruction: calls `pred` with the last writer of each resource it reads
    /// that has one, in no particular order (an instruction that wrote two of those resources
    /// comes once per resource: deduplicating is left to consumers that need it, since the
    /// simulator does not), and returns its sequence number and node. What [`Iterator::next`]
    /// does without building a [`DynInst`].
    #[inline]
    pub fn take(&mut self, mut pred: impl FnMut(u64)) -> Option<(u64, NodeId)> {
        let id = self.peek()?;
        self.peeked = None;
        let (start, reads, writes) = self.table.spans[id.index()];
        let start = start as usize;
        let refs = &self.table.refs[start..start + usize::from(reads) + usize::from(writes)];
        let (reads, writes) = refs.split_at(usize::from(reads));
        for &r in reads {
            let p = self.last_writer[r as usize];
            if p != NONE {
                pred(p);
            }
        }
        let seq = self.seq;
        // Reads are resolved before writes so `add %r1, %r1, 1` depends on the previous writer.
        for &w in writes {
            self.last_writer[w as usize] = seq;
        }
        let (mstart, n) = self.table.move_spans[id.index()];
        for &(from, to) in &self.table.moved[mstart as usize..mstart as usize + usize::from(n)] {
            self.last_writer[to as usize] = self.last_writer[from as usize];
        }
        self.seq += 1;
        Some((seq, id))
    }

    /// The node read by [`Stream::peek`] and not taken yet.
    pub fn peeked(&self) -> Option<NodeId> {
        self.peeked
    }

    /// The stream's place in the repeat tree (past a peeked node), outermost level first. Two streams of one IDG
    /// at equal positions (ignoring `instance`) with equal last writers relative to their
    /// `next_seq` yield the same instructions with the same relative dependences.
    pub fn position(&self) -> impl Iterator<Item = FramePosition> + '_ {
        self.unroller.stack.iter().map(|f| FramePosition {
            body: f.items.as_ptr() as usize,
            pos: f.pos,
            count: f.repeat.map_or(0, |(_, c)| c),
            iteration: f.iteration,
            instance: f.instance,
        })
    }

    /// Moves the repeat at `depth` (an index into [`Self::position`]) `by` iterations ahead
    /// without yielding them: the stream then continues as if those iterations had run with
    /// no effect on the last writers. Sound only where the skipped iterations write exactly
    /// what the current one left behind (a simulator that found its schedule repeating).
    /// Returns false, changing nothing, unless the repeat keeps at least one iteration after
    /// the current one.
    pub fn skip_iterations(&mut self, depth: usize, by: u64) -> bool {
        let Some(frame) = self.unroller.stack.get_mut(depth) else {
            return false;
        };
        let Some((_, count)) = frame.repeat else {
            return false;
        };
        match frame.iteration.checked_add(by) {
            Some(it) if it < count => {
                frame.iteration = it;
                true
            }
            _ => false,
        }
    }
}

impl Iterator for Stream<'_> {
    type Item = DynInst;

    fn next(&mut self) -> Option<DynInst> {
        let mut preds: SmallVec<[u64; 4]> = SmallVec::new();
        let (seq, node) = self.take(|p| preds.push(p))?;
        preds.sort_unstable();
        preds.dedup();
        Some(DynInst { seq, node, preds })
    }
}
