//! Natural loops and their nesting forest.
//!
//! A back edge is an edge `latch -> header` whose target dominates its source; the loop of a
//! header is the header plus every block that reaches one of its latches without passing
//! through the header (back edges sharing a header form one loop). A retreating DFS edge whose
//! target does not dominate its source means the CFG is irreducible: we report that edge
//! instead of analysing loops we would get wrong.
//!
//! Invariants: loops are numbered in reverse post-order of their headers, so an outer loop has
//! a smaller id than the loops nested in it; `blocks` of every loop are sorted; a loop's
//! `parent` is the smallest loop strictly containing it.
//!
//! Limits: loops nest at most [`MAX_LOOP_DEPTH`] deep, and all loop bodies together hold at
//! most [`MAX_LOOP_MEMBERSHIPS`] (block, loop) pairs. Every later pass walks the loop tree, so
//! bounding it here bounds them all; inputs past either limit are a [`LoopError`] naming the
//! loop, never a stack overflow or a quadratic blow-up.

use crate::cfg::Cfg;
use crate::dom::DomTree;
use crate::ids::{BlockId, LoopId};

/// One natural loop.
#[derive(Debug, Clone)]
pub struct Loop {
    /// The single entry block (target of the back edges).
    pub header: BlockId,
    /// Sources of the back edges.
    pub latches: Vec<BlockId>,
    /// All blocks of the loop, header included, sorted.
    pub blocks: Vec<BlockId>,
    /// Edges leaving the loop: (exiting block inside, exit block outside).
    pub exits: Vec<(BlockId, BlockId)>,
    /// The innermost enclosing loop.
    pub parent: Option<LoopId>,
    /// Loops directly nested in this one.
    pub children: Vec<LoopId>,
    /// Nesting depth: 1 for an outermost loop.
    pub depth: u32,
}

impl Loop {
    /// True when `b` belongs to this loop (nested loops included).
    pub fn contains(&self, b: BlockId) -> bool {
        self.blocks.binary_search(&b).is_ok()
    }
}

/// A retreating edge into a block that does not dominate its source.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IrreducibleEdge {
    /// Source of the retreating edge.
    pub from: BlockId,
    /// Target of the retreating edge (a second entry into a cycle).
    pub to: BlockId,
}

/// Deepest loop nesting analysed; generated PTX with deeper nests is refused.
pub const MAX_LOOP_DEPTH: u32 = 256;

/// Most (block, loop) memberships over all loops, i.e. the sum of the loop body sizes.
pub const MAX_LOOP_MEMBERSHIPS: usize = 1 << 24;

/// Why a CFG's loops cannot be analysed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoopError {
    /// The CFG is irreducible at this edge.
    Irreducible(IrreducibleEdge),
    /// The loop with this header nests deeper than [`MAX_LOOP_DEPTH`].
    TooDeep { header: BlockId },
    /// The loop bodies up to the one with this header exceed [`MAX_LOOP_MEMBERSHIPS`].
    TooLarge { header: BlockId },
}

/// All natural loops of a CFG, as a nesting forest.
#[derive(Debug, Clone)]
pub struct LoopForest {
    loops: Vec<Loop>,
    innermost: Vec<Option<LoopId>>,
    roots: Vec<LoopId>,
}

impl LoopForest {
    /// Finds the loops, or the first retreating edge that makes the CFG irreducible.
    pub fn new(cfg: &Cfg, dom: &DomTree) -> Result<Self, LoopError> {
        let n = cfg.len();
        let retreating = retreating_edges(cfg);
        let mut headers: Vec<(BlockId, Vec<BlockId>)> = Vec::new();
        let mut header_slot: Vec<Option<usize>> = vec![None; n];
        for (from, to) in retreating {
            if !dom.dominates(to, from) {
                return Err(LoopError::Irreducible(IrreducibleEdge { from, to }));
            }
            match header_slot[to.index()] {
                Some(k) => headers[k].1.push(from),
                None => {
                    header_slot[to.index()] = Some(headers.len());
                    headers.push((to, vec![from]));
                }
            }
        }
        let rpo = cfg.rpo();
        let mut rpo_index = vec![usize::MAX; n];
        for (i, b) in rpo.iter().enumerate() {
            rpo_index[b.index()] = i;
        }
        headers.sort_by_key(|(h, _)| rpo_index[h.index()]);

        // Loops are built outer before inner (header RPO: a loop's header dominates the headers
        // of the loops nested in it), so when loop k is built, the last loop built that holds
        // its header is its parent, and its depth is known before any deeper body is built: a
        // nest past the depth limit is refused after MAX_LOOP_DEPTH bodies, not after all.
        let mut mark = vec![usize::MAX; n];
        let mut memberships = 0usize;
        let mut innermost: Vec<Option<LoopId>> = vec![None; n];
        let mut loops: Vec<Loop> = Vec::with_capacity(headers.len());
        for (k, (header, mut latches)) in headers.into_iter().enumerate() {
            let parent = innermost[header.index()];
            let depth = parent.map_or(1, |p| loops[p.index()].depth + 1);
            if depth > MAX_LOOP_DEPTH {
                return Err(LoopError::TooDeep { header });
            }
            latches.sort();
            latches.dedup();
            let budget = MAX_LOOP_MEMBERSHIPS - memberships;
            let blocks = natural_loop(cfg, dom, header, &latches, &mut mark, k, budget)
                .ok_or(LoopError::TooLarge { header })?;
            memberships += blocks.len();
            for &b in &blocks {
                innermost[b.index()] = Some(LoopId::from_index(k));
            }
            loops.push(Loop {
                header,
                latches,
                blocks,
                exits: Vec::new(),
                parent,
                children: Vec::new(),
                depth,
            });
        }
        for l in &mut loops {
            let mut exits = Vec::new();
            for &b in &l.blocks {
                for &s in cfg.succs(b) {
                    if !l.contains(s) {
                        exits.push((b, s));
                    }
                }
            }
            l.exits = exits;
        }
        let mut roots = Vec::new();
        for i in 0..loops.len() {
            match loops[i].parent {
                Some(p) => {
                    let id = LoopId::from_index(i);
                    loops[p.index()].children.push(id);
                }
                None => roots.push(LoopId::from_index(i)),
            }
        }
        Ok(Self {
            loops,
            innermost,
            roots,
        })
    }

    /// Number of loops.
    pub fn len(&self) -> usize {
        self.loops.len()
    }

    /// True when the kernel has no loops.
    pub fn is_empty(&self) -> bool {
        self.loops.is_empty()
    }

    /// All loop ids, outer loops before the loops nested in them.
    pub fn ids(&self) -> impl Iterator<Item = LoopId> + '_ {
        (0..self.loops.len()).map(LoopId::from_index)
    }

    /// The loop with id `l`.
    pub fn get(&self, l: LoopId) -> &Loop {
        &self.loops[l.index()]
    }

    /// Outermost loops.
    pub fn roots(&self) -> &[LoopId] {
        &self.roots
    }

    /// The innermost loop containing `b`.
    pub fn innermost(&self, b: BlockId) -> Option<LoopId> {
        self.innermost[b.index()]
    }

    /// The loop whose header is `b`.
    pub fn loop_with_header(&self, b: BlockId) -> Option<LoopId> {
        self.innermost(b).filter(|l| self.get(*l).header == b)
    }

    /// Loops containing `b`, innermost first.
    pub fn enclosing(&self, b: BlockId) -> impl Iterator<Item = LoopId> + '_ {
        std::iter::successors(self.innermost(b), |l| self.get(*l).parent)
    }
}

/// Edges `u -> v` where `v` is on the DFS stack when the edge is explored.
fn retreating_edges(cfg: &Cfg) -> Vec<(BlockId, BlockId)> {
    let n = cfg.len();
    let mut out = Vec::new();
    if n == 0 {
        return out;
    }
    #[derive(Clone, Copy, PartialEq)]
    enum State {
        New,
        OnStack,
        Done,
    }
    let mut state = vec![State::New; n];
    let mut stack: Vec<(BlockId, usize)> = vec![(cfg.entry(), 0)];
    state[0] = State::OnStack;
    while let Some((b, i)) = stack.last_mut() {
        let b = *b;
        if let Some(&s) = cfg.succs(b).get(*i) {
            *i += 1;
            match state[s.index()] {
                State::New => {
                    state[s.index()] = State::OnStack;
                    stack.push((s, 0));
                }
                State::OnStack => out.push((b, s)),
                State::Done => {}
            }
        } else {
            state[b.index()] = State::Done;
            stack.pop();
        }
    }
    out
}

/// The natural loop body of `header` with the given latches, sorted; `None` past `budget`
/// blocks. `mark[b] == stamp` means `b` is already in this loop: one array serves every loop,
/// so the cost is the body's size, not the CFG's.
fn natural_loop(
    cfg: &Cfg,
    dom: &DomTree,
    header: BlockId,
    latches: &[BlockId],
    mark: &mut [usize],
    stamp: usize,
    budget: usize,
) -> Option<Vec<BlockId>> {
    mark[header.index()] = stamp;
    let mut body = vec![header];
    let mut work: Vec<BlockId> = Vec::new();
    for &l in latches {
        if mark[l.index()] != stamp {
            mark[l.index()] = stamp;
            body.push(l);
            work.push(l);
        }
    }
    while let Some(b) = work.pop() {
        for &p in cfg.preds(b) {
            if mark[p.index()] != stamp && dom.is_reachable(p) {
                mark[p.index()] = stamp;
                body.push(p);
                work.push(p);
            }
        }
        if body.len() > budget {
            return None;
        }
    }
    (body.len() <= budget).then(|| {
        body.sort_unstable();
        body
    })
}
