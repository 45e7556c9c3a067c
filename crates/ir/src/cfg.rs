//! The control-flow graph of one lowered kernel: successor/predecessor lists over
//! [`BlockId`]s plus the blocks that leave the kernel (`ret`/`exit`).
//!
//! Invariants: block 0 is the entry; edges are deduplicated and kept in terminator order
//! (taken target first, then fall-through), so every traversal is deterministic. Algorithms
//! that petgraph provides (dominators) run on [`Cfg::graph`], whose node index `i` is
//! `BlockId(i)`.

use crate::ids::BlockId;
use petgraph::graph::{DiGraph, NodeIndex};
use smallvec::SmallVec;

/// Successor and predecessor lists of the kernel's basic blocks.
#[derive(Debug, Clone)]
pub struct Cfg {
    succs: Vec<SmallVec<[BlockId; 2]>>,
    preds: Vec<SmallVec<[BlockId; 2]>>,
    exits: Vec<BlockId>,
}

impl Cfg {
    /// Builds a CFG over `n` blocks from per-block successor lists; `exits` are the blocks whose
    /// terminator leaves the kernel.
    pub fn new(succs: Vec<SmallVec<[BlockId; 2]>>, exits: Vec<BlockId>) -> Self {
        let mut preds: Vec<SmallVec<[BlockId; 2]>> = vec![SmallVec::new(); succs.len()];
        for (i, ss) in succs.iter().enumerate() {
            for s in ss {
                let p = BlockId::from_index(i);
                // Blocks are visited in order, so a duplicate edge can only repeat the last
                // predecessor pushed; `contains` was quadratic on a block with a million
                // predecessors.
                if preds[s.index()].last() != Some(&p) {
                    preds[s.index()].push(p);
                }
            }
        }
        Self {
            succs,
            preds,
            exits,
        }
    }

    /// The entry block.
    pub fn entry(&self) -> BlockId {
        BlockId(0)
    }

    /// Number of blocks.
    pub fn len(&self) -> usize {
        self.succs.len()
    }

    /// True when the kernel has no blocks (an empty body).
    pub fn is_empty(&self) -> bool {
        self.succs.is_empty()
    }

    /// All block ids in order.
    pub fn blocks(&self) -> impl Iterator<Item = BlockId> + '_ {
        (0..self.succs.len()).map(BlockId::from_index)
    }

    /// Successors of `b` (taken target first, then fall-through).
    pub fn succs(&self, b: BlockId) -> &[BlockId] {
        &self.succs[b.index()]
    }

    /// Predecessors of `b`.
    pub fn preds(&self, b: BlockId) -> &[BlockId] {
        &self.preds[b.index()]
    }

    /// Blocks whose terminator leaves the kernel.
    pub fn exits(&self) -> &[BlockId] {
        &self.exits
    }

    /// Number of edges.
    pub fn edge_count(&self) -> usize {
        self.succs.iter().map(|s| s.len()).sum()
    }

    /// Reverse post-order from the entry; unreachable blocks are not listed.
    pub fn rpo(&self) -> Vec<BlockId> {
        let n = self.len();
        let mut post = Vec::with_capacity(n);
        if n == 0 {
            return post;
        }
        let mut seen = vec![false; n];
        let mut stack: Vec<(BlockId, usize)> = vec![(self.entry(), 0)];
        seen[0] = true;
        while let Some((b, i)) = stack.last_mut() {
            let b = *b;
            if let Some(&s) = self.succs(b).get(*i) {
                *i += 1;
                if !seen[s.index()] {
                    seen[s.index()] = true;
                    stack.push((s, 0));
                }
            } else {
                post.push(b);
                stack.pop();
            }
        }
        post.reverse();
        post
    }

    /// The graph as a petgraph `DiGraph` (node index i = block i), for petgraph's algorithms.
    pub fn graph(&self) -> DiGraph<BlockId, ()> {
        let mut g = DiGraph::with_capacity(self.len(), self.edge_count());
        for b in self.blocks() {
            g.add_node(b);
        }
        for b in self.blocks() {
            for s in self.succs(b) {
                g.add_edge(NodeIndex::new(b.index()), NodeIndex::new(s.index()), ());
            }
        }
        g
    }
}
