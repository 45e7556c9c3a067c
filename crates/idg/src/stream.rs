//! Unrolling the compact form on the fly.
//!
//! Dependence semantics (the definition every consumer shares): the unrolled sequence is the
//! `body` tree read in order with every repeat expanded; a dynamic instruction depends on the
//! last earlier dynamic writer of each resource it reads (read-after-write only, paper section
//! 3.1.1). A stream keeps one "last writer" slot per resource and a stack as deep as the loop
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
}

/// Walks the tree in unrolled order, yielding template node ids with their iteration context.
#[derive(Debug, Clone)]
pub(crate) struct Unroller<'a> {
    stack: Vec<Frame<'a>>,
}

impl<'a> Unroller<'a> {
    pub(crate) fn new(idg: &'a Idg) -> Self {
        Self {
            stack: vec![Frame {
                items: &idg.body,
                pos: 0,
                repeat: None,
                iteration: 0,
            }],
        }
    }

    /// Current iteration of every enclosing repeat, outermost first.
    pub(crate) fn iterations(&self) -> impl Iterator<Item = (LoopId, u64)> + '_ {
        self.stack
            .iter()
            .filter_map(|f| f.repeat.map(|(l, _)| (l, f.iteration)))
    }

    pub(crate) fn next_node(&mut self) -> Option<NodeId> {
        loop {
            let frame = self.stack.last_mut()?;
            if let Some(item) = frame.items.get(frame.pos) {
                frame.pos += 1;
                match item {
                    Item::Node(id) => return Some(*id),
                    Item::Repeat(r) if r.count > 0 => self.stack.push(Frame {
                        items: &r.body,
                        pos: 0,
                        repeat: Some((r.loop_id, r.count)),
                        iteration: 0,
                    }),
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

/// Iterator over the dynamic instructions of one warp of a class.
#[derive(Debug, Clone)]
pub struct Stream<'a> {
    idg: &'a Idg,
    unroller: Unroller<'a>,
    last_writer: Vec<Option<u64>>,
    seq: u64,
}

impl<'a> Stream<'a> {
    pub(crate) fn new(idg: &'a Idg) -> Self {
        Self {
            idg,
            unroller: Unroller::new(idg),
            last_writer: vec![None; idg.resources.len()],
            seq: 0,
        }
    }

    /// Iteration of every enclosing repeat of the instruction returned last, outermost first.
    pub fn iterations(&self) -> impl Iterator<Item = (LoopId, u64)> + '_ {
        self.unroller.iterations()
    }

    /// The last writer (seq) of a resource so far.
    pub fn last_writer(&self, r: ResourceId) -> Option<u64> {
        self.last_writer.get(r.index()).copied().flatten()
    }
}

impl Iterator for Stream<'_> {
    type Item = DynInst;

    fn next(&mut self) -> Option<DynInst> {
        let id = self.unroller.next_node()?;
        let node = self.idg.node(id);
        let mut preds: SmallVec<[u64; 4]> = node
            .reads
            .iter()
            .filter_map(|r| self.last_writer[r.index()])
            .collect();
        preds.sort_unstable();
        preds.dedup();
        let seq = self.seq;
        // Reads are resolved before writes so `add %r1, %r1, 1` depends on the previous writer.
        for w in &node.writes {
            self.last_writer[w.index()] = Some(seq);
        }
        self.seq += 1;
        Some(DynInst {
            seq,
            node: id,
            preds,
        })
    }
}
