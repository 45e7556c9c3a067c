//! Dominator and post-dominator trees over a [`Cfg`], computed with the Lengauer–Tarjan
//! algorithm (path compression, O(E log V)). The iterative Cooper–Harvey–Kennedy algorithm
//! walks dominator chains at every join and is quadratic in the nesting depth: 100,000
//! nested loops took minutes (issue 17). Every step here is a loop, never recursion, so deep
//! trees cannot overflow the stack.
//!
//! The post-dominator tree is computed on the reversed CFG rooted at a virtual exit that every
//! `ret`/`exit` block flows into; the immediate post-dominator of a divergent branch is where
//! its warp reconverges (pipeline-model-analysis §3.1.1: conditional code is serialized, so both
//! sides run before the join). `None` from [`PostDomTree::ipdom`] means "the virtual exit":
//! the paths only meet when the threads leave the kernel.

use crate::cfg::Cfg;
use crate::ids::BlockId;

const NONE: u32 = u32::MAX;

/// Immediate dominators of the nodes `0..n` reachable from `root` over `succs`; `preds` are
/// the same edges reversed. `Some(root)` for the root's children; `None` for the root and
/// for unreachable nodes, which `reachable` tells apart.
fn idoms<S, SI, P, PI>(n: usize, root: usize, succs: S, preds: P) -> (Vec<Option<usize>>, Vec<bool>)
where
    S: Fn(usize) -> SI,
    SI: IntoIterator<Item = usize>,
    P: Fn(usize) -> PI,
    PI: IntoIterator<Item = usize>,
{
    // Depth-first numbering; everything below works on DFS numbers.
    let mut num = vec![NONE; n];
    let mut vertex: Vec<usize> = Vec::new();
    let mut parent: Vec<u32> = Vec::new();
    let mut stack = vec![(root, succs(root).into_iter())];
    num[root] = 0;
    vertex.push(root);
    parent.push(NONE);
    while let Some((v, it)) = stack.last_mut() {
        let v = *v;
        match it.next() {
            Some(s) => {
                if num[s] == NONE {
                    num[s] = vertex.len() as u32;
                    parent.push(num[v]);
                    vertex.push(s);
                    stack.push((s, succs(s).into_iter()));
                }
            }
            None => {
                stack.pop();
            }
        }
    }
    let count = vertex.len();
    let mut semi: Vec<u32> = (0..count as u32).collect();
    let mut label: Vec<u32> = (0..count as u32).collect();
    let mut ancestor = vec![NONE; count];
    let mut idom = vec![NONE; count];
    // bucket[v]: the nodes whose semidominator is v, as singly linked lists.
    let mut bucket_head = vec![NONE; count];
    let mut bucket_next = vec![NONE; count];
    let mut path: Vec<u32> = Vec::new();
    // The node of least semidominator on the forest path above `v` (path-compressed).
    let mut eval = |v: u32, ancestor: &mut [u32], label: &mut [u32], semi: &[u32]| -> u32 {
        if ancestor[v as usize] == NONE {
            return v;
        }
        path.clear();
        let mut x = v;
        while ancestor[ancestor[x as usize] as usize] != NONE {
            path.push(x);
            x = ancestor[x as usize];
        }
        for &y in path.iter().rev() {
            let a = ancestor[y as usize] as usize;
            if semi[label[a] as usize] < semi[label[y as usize] as usize] {
                label[y as usize] = label[a];
            }
            ancestor[y as usize] = ancestor[a];
        }
        label[v as usize]
    };
    for w in (1..count as u32).rev() {
        for p in preds(vertex[w as usize]) {
            let pv = num[p];
            if pv == NONE {
                continue;
            }
            let u = eval(pv, &mut ancestor, &mut label, &semi);
            if semi[u as usize] < semi[w as usize] {
                semi[w as usize] = semi[u as usize];
            }
        }
        let s = semi[w as usize] as usize;
        bucket_next[w as usize] = bucket_head[s];
        bucket_head[s] = w;
        let pw = parent[w as usize];
        ancestor[w as usize] = pw;
        let mut v = std::mem::replace(&mut bucket_head[pw as usize], NONE);
        while v != NONE {
            let u = eval(v, &mut ancestor, &mut label, &semi);
            idom[v as usize] = if semi[u as usize] < semi[v as usize] {
                u
            } else {
                pw
            };
            v = bucket_next[v as usize];
        }
    }
    for w in 1..count {
        if idom[w] != semi[w] {
            idom[w] = idom[idom[w] as usize];
        }
    }
    let mut out = vec![None; n];
    let mut reachable = vec![false; n];
    for (w, &v) in vertex.iter().enumerate() {
        reachable[v] = true;
        if w > 0 {
            out[v] = Some(vertex[idom[w] as usize]);
        }
    }
    (out, reachable)
}

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
        let (parent, reachable) = if n > 0 {
            let (idom, reachable) = idoms(
                n,
                0,
                |b| cfg.succs(BlockId::from_index(b)).iter().map(|s| s.index()),
                |b| cfg.preds(BlockId::from_index(b)).iter().map(|p| p.index()),
            );
            let parent = idom
                .into_iter()
                .map(|p| p.map(BlockId::from_index))
                .collect();
            (parent, reachable)
        } else {
            (Vec::new(), Vec::new())
        };
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
        // The reversed CFG with the virtual exit as node `n`, whose successors are the exits.
        let vexit = n;
        let mut is_exit = vec![false; n];
        for e in cfg.exits() {
            is_exit[e.index()] = true;
        }
        let edges = |of: fn(&Cfg, BlockId) -> &[BlockId], b: usize| {
            let list: &[BlockId] = if b == vexit {
                &[]
            } else {
                of(cfg, BlockId::from_index(b))
            };
            list.iter().map(|x| x.index())
        };
        let (idom, mut reachable) = idoms(
            n + 1,
            vexit,
            // Reversed successors: the CFG's predecessors; the virtual exit leads to the exits.
            |b| {
                let from_exit = (b == vexit).then(|| cfg.exits().iter().map(|e| e.index()));
                edges(Cfg::preds, b).chain(from_exit.into_iter().flatten())
            },
            // Reversed predecessors: the CFG's successors, and the virtual exit for an exit.
            |b| edges(Cfg::succs, b).chain((b < n && is_exit[b]).then_some(vexit)),
        );
        reachable.truncate(n);
        let parent = idom
            .into_iter()
            .take(n)
            .map(|p| p.filter(|&p| p != vexit).map(BlockId::from_index))
            .collect();
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
