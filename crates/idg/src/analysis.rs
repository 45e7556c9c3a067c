//! Whole-graph quantities computed from the compact form without materializing it: the
//! unrolled edge count, the critical path (in instructions) and the compact edge list with
//! loop-carried distances.
//!
//! A repeat's edge structure is periodic from its second iteration on: after one full
//! iteration, every resource the body writes has a body node as its last writer, the same
//! node at the start of each later iteration. Counting therefore processes at most two
//! iterations of a repeat whose body holds no nested repeat and extrapolates; the critical
//! path is extrapolated only once a dominance test proves the per-node depth increments can
//! never change again (see [`Pass::repeat`]), otherwise iterations are processed explicitly.
//! A body whose nodes move last writers (asynchronous-group commits) is processed iteration by
//! iteration: a moved writer is read some iterations later, so the depth increments can
//! repeat with a period longer than one iteration, which the dominance test does not cover.
//! The compact edges walk one more iteration per move (each carries a writer one further).

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};
use smallvec::SmallVec;

use crate::graph::{Idg, Item, Repeat};
use crate::node::{LoopId, NodeId, ResourceId};

/// Summary numbers of one warp class (the `stats` contract of the CLI).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stats {
    /// Dynamic warp instructions of one warp.
    pub instructions: u64,
    /// Dynamic dependence edges.
    pub edges: u64,
    /// Longest dependence chain, counted in instructions.
    pub critical_path: u64,
}

#[derive(Debug, Clone, Copy)]
struct Writer {
    node: NodeId,
    depth: u64,
    /// Tells instances apart: a moved resource may hold an earlier instance of the node
    /// another resource holds the latest of.
    instance: u64,
}

struct Pass<'a> {
    idg: &'a Idg,
    last: Vec<Option<Writer>>,
    edges: u64,
    max_depth: u64,
    /// Per node: depth of its latest instance and the writer that decided it, for the
    /// steady-state test of flat repeats.
    node_depth: Vec<u64>,
    node_winner: Vec<Option<NodeId>>,
    /// Dynamic instances processed so far (the next one's `Writer::instance`), and each
    /// node's latest.
    instances: u64,
    node_instance: Vec<u64>,
    /// Instances the pass may process; past it the walk stops and [`Pass::over`] is set (a
    /// flat loop whose depths never settle walks every iteration).
    budget: u64,
    over: bool,
}

impl<'a> Pass<'a> {
    fn new(idg: &'a Idg) -> Self {
        Self {
            idg,
            last: vec![None; idg.resources.len()],
            edges: 0,
            max_depth: 0,
            node_depth: vec![0; idg.nodes.len()],
            node_winner: vec![None; idg.nodes.len()],
            instances: 0,
            node_instance: vec![0; idg.nodes.len()],
            budget: u64::MAX,
            over: false,
        }
    }

    fn node(&mut self, id: NodeId) {
        let node = self.idg.node(id);
        let mut writers: SmallVec<[Writer; 4]> = SmallVec::new();
        for r in &node.reads {
            if let Some(w) = self.last[r.index()] {
                if !writers.iter().any(|x| x.instance == w.instance) {
                    writers.push(w);
                }
            }
        }
        self.edges += writers.len() as u64;
        let winner = writers.iter().copied().max_by_key(|w| w.depth);
        let depth = 1 + winner.map_or(0, |w| w.depth);
        let instance = self.instances;
        self.instances += 1;
        self.node_instance[id.index()] = instance;
        for r in &node.writes {
            self.last[r.index()] = Some(Writer {
                node: id,
                depth,
                instance,
            });
        }
        for (from, to) in &node.moves {
            self.last[to.index()] = self.last[from.index()];
        }
        self.node_depth[id.index()] = depth;
        self.node_winner[id.index()] = winner.map(|w| w.node);
        self.max_depth = self.max_depth.max(depth);
    }

    fn items(&mut self, items: &[Item]) {
        for item in items {
            if self.instances > self.budget {
                self.over = true;
                return;
            }
            match item {
                Item::Node(id) => self.node(*id),
                Item::Repeat(r) => self.repeat(r),
            }
        }
    }

    fn repeat(&mut self, r: &Repeat) {
        let flat: Option<Vec<NodeId>> = r
            .body
            .iter()
            .map(|i| match i {
                Item::Node(id) => Some(*id),
                Item::Repeat(_) => None,
            })
            .collect();
        let body = match flat {
            Some(body) if moves_in(self.idg, &r.body) == 0 => body,
            _ => {
                for _ in 0..r.count {
                    self.items(&r.body);
                    if self.over {
                        return;
                    }
                }
                return;
            }
        };
        let mut prev: Option<(Vec<u64>, Vec<Option<NodeId>>, u64)> = None;
        for k in 0..r.count {
            let edges_before = self.edges;
            self.items(&r.body);
            if self.over {
                return;
            }
            let depths: Vec<u64> = body.iter().map(|n| self.node_depth[n.index()]).collect();
            let winners: Vec<Option<NodeId>> =
                body.iter().map(|n| self.node_winner[n.index()]).collect();
            let iter_edges = self.edges - edges_before;
            if let Some((pd, pw, pe)) = &prev {
                let remaining = r.count - 1 - k;
                if remaining == 0 {
                    return;
                }
                if *pw == winners && *pe == iter_edges && self.steady(&body, pd, &depths) {
                    self.extrapolate(&body, pd, &depths, iter_edges, remaining);
                    return;
                }
            }
            prev = Some((depths, winners, iter_edges));
        }
    }

    /// Depth increment of a writer over one iteration: body nodes grow, nodes outside stay.
    fn delta(&self, body: &[NodeId], prev: &[u64], cur: &[u64], n: NodeId) -> u64 {
        body.iter()
            .position(|b| *b == n)
            .map_or(0, |i| cur[i] - prev[i])
    }

    /// True when every body node grows by exactly its deciding input's increment and that input
    /// grows at least as fast as each of its other inputs: by induction over later iterations
    /// (in program order within one), leads never shrink, the same inputs keep deciding, and
    /// every iteration adds the same increments.
    fn steady(&self, body: &[NodeId], prev: &[u64], cur: &[u64]) -> bool {
        // A node that got shallower (its input from before the loop was the deeper one) is
        // still in the transient.
        if cur.iter().zip(prev).any(|(c, p)| c < p) {
            return false;
        }
        // Replay the last iteration to see each node's inputs. Its writer table at the start
        // equals the table now: from the second iteration on, every resource the body writes
        // has the same body node as last writer at each iteration boundary.
        let mut last: Vec<Option<NodeId>> = self.last.iter().map(|w| w.map(|w| w.node)).collect();
        for n in body {
            let node = self.idg.node(*n);
            let winner = self.node_winner[n.index()];
            let dw = winner.map_or(0, |w| self.delta(body, prev, cur, w));
            // A node grows exactly as its deciding input once the transient has passed; a
            // mismatch means some input's increment is still changing.
            if self.delta(body, prev, cur, *n) != dw {
                return false;
            }
            for r in &node.reads {
                if let Some(w) = last[r.index()] {
                    if Some(w) != winner && self.delta(body, prev, cur, w) > dw {
                        return false;
                    }
                }
            }
            for w in &node.writes {
                last[w.index()] = Some(*n);
            }
            for (from, to) in &node.moves {
                last[to.index()] = last[from.index()];
            }
        }
        true
    }

    fn extrapolate(
        &mut self,
        body: &[NodeId],
        prev: &[u64],
        cur: &[u64],
        iter_edges: u64,
        remaining: u64,
    ) {
        for (i, n) in body.iter().enumerate() {
            let d = cur[i] + remaining * (cur[i] - prev[i]);
            self.node_depth[n.index()] = d;
            self.max_depth = self.max_depth.max(d);
        }
        // Only a node's latest instance moves on; a resource a move filled before the repeat
        // may hold an earlier one.
        for slot in self.last.iter_mut().flatten() {
            if let Some(i) = body.iter().position(|b| *b == slot.node) {
                if slot.instance == self.node_instance[slot.node.index()] {
                    slot.depth = self.node_depth[body[i].index()];
                }
            }
        }
        self.edges += iter_edges * remaining;
    }
}

/// Move pairs of the nodes under `items`, nested repeats included (each counted once).
fn moves_in(idg: &Idg, items: &[Item]) -> u64 {
    items
        .iter()
        .map(|i| match i {
            Item::Node(id) => idg.node(*id).moves.len() as u64,
            Item::Repeat(r) => moves_in(idg, &r.body),
        })
        .sum()
}

/// Most instructions the critical-path analysis ([`Idg::stats`]) walks: a loop whose body
/// holds another loop is walked iteration by iteration (only flat bodies are extrapolated), so
/// nested loops of many iterations would take hours.
pub const ANALYSIS_BUDGET: u64 = 1 << 26;

/// Instructions [`Idg::stats`] walks for `items` at most, counting a flat repeat's body a
/// few times (it is extrapolated once steady) and a repeat with nested repeats in full.
fn analysis_work(idg: &Idg, items: &[Item]) -> u64 {
    items
        .iter()
        .map(|item| match item {
            Item::Node(_) => 1,
            Item::Repeat(r) => {
                let flat = r.body.iter().all(|i| matches!(i, Item::Node(_)));
                let body = analysis_work(idg, &r.body);
                if flat && moves_in(idg, &r.body) == 0 {
                    body.saturating_mul(r.count.min(8))
                } else {
                    body.saturating_mul(r.count)
                }
            }
        })
        .fold(0u64, u64::saturating_add)
}

impl Idg {
    /// Whether [`Idg::stats`] stays within [`ANALYSIS_BUDGET`]; `class` names it in the error.
    /// Loops with loops inside are refused at once by their estimated walk; a flat loop counts
    /// a few iterations there, and is walked under the budget to find whether its dependences
    /// settle in time (their transient lasts as long as a value from before the loop is
    /// deeper than the chain the loop carries).
    pub fn check_analysis(&self, class: usize) -> Result<(), crate::IdgError> {
        self.check_analysis_within(class, ANALYSIS_BUDGET)
    }

    /// [`Idg::check_analysis`] under a budget of `limit` instructions.
    pub fn check_analysis_within(&self, class: usize, limit: u64) -> Result<(), crate::IdgError> {
        let too_large = |work| crate::IdgError::AnalysisTooLarge { class, work, limit };
        let work = analysis_work(self, &self.body);
        if work > limit {
            return Err(too_large(work));
        }
        self.stats_within(limit)
            .map(|_| ())
            .ok_or_else(|| too_large(limit))
    }

    /// Instruction, edge and critical-path counts of one warp, without materializing.
    pub fn stats(&self) -> Stats {
        self.stats_within(u64::MAX)
            .expect("an unbounded walk always ends")
    }

    /// [`Idg::stats`] if its walk processes at most `budget` instructions.
    fn stats_within(&self, budget: u64) -> Option<Stats> {
        let mut pass = Pass::new(self);
        pass.budget = budget;
        pass.items(&self.body);
        (!pass.over).then(|| Stats {
            instructions: self.instruction_count(),
            edges: pass.edges,
            critical_path: pass.max_depth,
        })
    }
}

/// A template-level dependence: every dynamic instance of `dst` that has one depends on the
/// latest earlier instance of `src` through `resource`. `distance` counts iterations of
/// `carrier` between the two instances (0: same iteration of every shared loop).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct CompactEdge {
    pub src: NodeId,
    pub dst: NodeId,
    pub resource: ResourceId,
    pub distance: u64,
    pub carrier: Option<LoopId>,
}

/// Iteration context of an instance: (repeat identity, iteration) outermost first. Repeats are
/// identified by their address in the tree so two repeats of one loop stay distinct.
pub(crate) type Context = SmallVec<[(usize, LoopId, u64); 4]>;

/// Classifies a dependence between two instances by the first enclosing repeat on which their
/// iteration contexts differ.
pub(crate) fn carried(src: &Context, dst: &Context) -> (u64, Option<LoopId>) {
    for (a, b) in src.iter().zip(dst.iter()) {
        if a.0 != b.0 {
            break;
        }
        if a.2 != b.2 {
            return (b.2.saturating_sub(a.2), Some(b.1));
        }
    }
    (0, None)
}

impl Idg {
    /// The compact edge list: every distinct template dependence with its loop-carried
    /// distance. Two iterations of each repeat exhibit every distinct dependence because the
    /// structure is periodic from the second iteration on, plus one per move in its body.
    pub fn compact_edges(&self) -> Vec<CompactEdge> {
        struct Walk<'a> {
            idg: &'a Idg,
            last: Vec<Option<(NodeId, Context)>>,
            ctx: Context,
            out: BTreeSet<CompactEdge>,
        }
        impl Walk<'_> {
            fn items(&mut self, items: &[Item]) {
                for item in items {
                    match item {
                        Item::Node(id) => {
                            let node = self.idg.node(*id);
                            for r in &node.reads {
                                if let Some((src, sctx)) = &self.last[r.index()] {
                                    let (distance, carrier) = carried(sctx, &self.ctx);
                                    self.out.insert(CompactEdge {
                                        src: *src,
                                        dst: *id,
                                        resource: *r,
                                        distance,
                                        carrier,
                                    });
                                }
                            }
                            for w in &node.writes {
                                self.last[w.index()] = Some((*id, self.ctx.clone()));
                            }
                            for (from, to) in &node.moves {
                                self.last[to.index()] = self.last[from.index()].clone();
                            }
                        }
                        Item::Repeat(r) => {
                            let key = r as *const Repeat as usize;
                            // Each move may carry a writer one iteration further.
                            let walked = r.count.min(2 + moves_in(self.idg, &r.body));
                            for k in 0..walked {
                                self.ctx.push((key, r.loop_id, k));
                                self.items(&r.body);
                                self.ctx.pop();
                            }
                            if r.count > walked {
                                // Later instances of the writers belong to the last iterations.
                                for slot in self.last.iter_mut().flatten() {
                                    if let Some(e) = slot.1.iter_mut().find(|e| e.0 == key) {
                                        e.2 += r.count - walked;
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        let mut walk = Walk {
            idg: self,
            last: vec![None; self.resources.len()],
            ctx: Context::new(),
            out: BTreeSet::new(),
        };
        walk.items(&self.body);
        walk.out.into_iter().collect()
    }
}
