//! Dominator and post-dominator trees over a [`Cfg`], computed with petgraph's
//! Cooper–Harvey–Kennedy algorithm (`petgraph::algo::dominators::simple_fast`).
//!
//! The post-dominator tree is computed on the reversed CFG rooted at a virtual exit that every
//! `ret`/`exit` block flows into; the immediate post-dominator of a divergent branch is where
//! its warp reconverges (pipeline-model-analysis §3.1.1: conditional code is serialized, so both
//! sides run before the join). `None` from [`PostDomTree::ipdom`] means "the virtual exit":
//! the paths only meet when the threads leave the kernel.

use crate::cfg::Cfg;
use crate::ids::BlockId;
use petgraph::algo::dominators::simple_fast;
use petgraph::graph::{DiGraph, NodeIndex};

/// A tree given by immediate parents, with DFS intervals for O(1) ancestor queries.
#[derive(Debug, Clone)]
struct Tree {
    parent: Vec<Option<BlockId>>,
    reachable: Vec<bool>,
    pre: Vec<u32>,
    post: Vec<u32>,
}

impl Tree {
    /// `roots` are the nodes without a parent among the reachable ones.
    fn new(parent: Vec<Option<BlockId>>, reachable: Vec<bool>) -> Self {
        let n = parent.len();
        let mut children: Vec<Vec<BlockId>> = vec![Vec::new(); n];
        let mut roots = Vec::new();
        for (i, p) in parent.iter().enumerate() {
            if !reachable[i] {
                continue;
            }
            match p {
                Some(p) => children[p.index()].push(BlockId::from_index(i)),
                None => roots.push(BlockId::from_index(i)),
            }
        }
        let mut pre = vec![0; n];
        let mut post = vec![0; n];
        let mut clock = 0u32;
        for r in roots {
            let mut stack = vec![(r, 0usize)];
            pre[r.index()] = clock;
            clock += 1;
            while let Some((b, i)) = stack.last_mut() {
                let b = *b;
                if let Some(&c) = children[b.index()].get(*i) {
                    *i += 1;
                    pre[c.index()] = clock;
                    clock += 1;
                    stack.push((c, 0));
                } else {
                    post[b.index()] = clock;
                    clock += 1;
                    stack.pop();
                }
            }
        }
        Self {
            parent,
            reachable,
            pre,
            post,
        }
    }

    fn is_ancestor(&self, a: BlockId, b: BlockId) -> bool {
        self.reachable[a.index()]
            && self.reachable[b.index()]
            && self.pre[a.index()] <= self.pre[b.index()]
            && self.post[b.index()] <= self.post[a.index()]
    }
}

/// The dominator tree of a kernel's CFG.
#[derive(Debug, Clone)]
pub struct DomTree {
    tree: Tree,
}

impl DomTree {
    /// Computes dominators from the entry block.
    pub fn new(cfg: &Cfg) -> Self {
        let n = cfg.len();
        let g = cfg.graph();
        let mut parent = vec![None; n];
        let mut reachable = vec![false; n];
        if n > 0 {
            let d = simple_fast(&g, NodeIndex::new(0));
            for b in cfg.blocks() {
                let ix = NodeIndex::new(b.index());
                if d.dominators(ix).is_some() {
                    reachable[b.index()] = true;
                    parent[b.index()] = d
                        .immediate_dominator(ix)
                        .map(|p| BlockId::from_index(p.index()));
                }
            }
        }
        Self {
            tree: Tree::new(parent, reachable),
        }
    }

    /// The immediate dominator; `None` for the entry and for unreachable blocks.
    pub fn idom(&self, b: BlockId) -> Option<BlockId> {
        self.tree.parent[b.index()]
    }

    /// True when `b` is reachable from the entry.
    pub fn is_reachable(&self, b: BlockId) -> bool {
        self.tree.reachable[b.index()]
    }

    /// True when `a` dominates `b` (reflexive). False if either is unreachable.
    pub fn dominates(&self, a: BlockId, b: BlockId) -> bool {
        self.tree.is_ancestor(a, b)
    }
}

/// The post-dominator tree of a kernel's CFG, rooted at a virtual exit.
#[derive(Debug, Clone)]
pub struct PostDomTree {
    tree: Tree,
}

impl PostDomTree {
    /// Computes post-dominators; blocks that cannot reach a `ret`/`exit` have none.
    pub fn new(cfg: &Cfg) -> Self {
        let n = cfg.len();
        let mut g: DiGraph<(), ()> = DiGraph::with_capacity(n + 1, cfg.edge_count() + 1);
        for _ in 0..=n {
            g.add_node(());
        }
        for b in cfg.blocks() {
            for s in cfg.succs(b) {
                g.add_edge(NodeIndex::new(s.index()), NodeIndex::new(b.index()), ());
            }
        }
        let vexit = NodeIndex::new(n);
        for e in cfg.exits() {
            g.add_edge(vexit, NodeIndex::new(e.index()), ());
        }
        let d = simple_fast(&g, vexit);
        let mut parent = vec![None; n];
        let mut reachable = vec![false; n];
        for b in cfg.blocks() {
            let ix = NodeIndex::new(b.index());
            if d.dominators(ix).is_some() {
                reachable[b.index()] = true;
                parent[b.index()] = d
                    .immediate_dominator(ix)
                    .filter(|p| *p != vexit)
                    .map(|p| BlockId::from_index(p.index()));
            }
        }
        Self {
            tree: Tree::new(parent, reachable),
        }
    }

    /// The immediate post-dominator (reconvergence block); `None` means the virtual exit, or
    /// that `b` cannot reach an exit (see [`PostDomTree::reaches_exit`]).
    pub fn ipdom(&self, b: BlockId) -> Option<BlockId> {
        self.tree.parent[b.index()]
    }

    /// True when some path from `b` leaves the kernel.
    pub fn reaches_exit(&self, b: BlockId) -> bool {
        self.tree.reachable[b.index()]
    }

    /// True when `a` post-dominates `b` (reflexive).
    pub fn post_dominates(&self, a: BlockId, b: BlockId) -> bool {
        self.tree.is_ancestor(a, b)
    }
}
