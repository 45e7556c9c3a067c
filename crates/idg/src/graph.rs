//! The compact IDG of one warp class: template nodes arranged in a tree of repeats.
//!
//! Invariant (checked by [`Idg::validate`], upheld by [`IdgBuilder`]): every `NodeId` occurs
//! exactly once in the `body` tree, every id in a node or repeat is in range. A `Repeat` runs its
//! body `count` times; the unrolled instruction sequence is the tree read in order with each
//! repeat expanded, and dependences are defined on that sequence (see [`crate::stream`]).

use serde::{Deserialize, Serialize};

use crate::node::{LoopId, LoopInfo, MemAccess, Node, NodeId, Resource, ResourceId, ResourceKind};
use crate::IdgError;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Item {
    Node(NodeId),
    Repeat(Repeat),
}

/// A loop's iterations that share one body path. Iterations whose paths differ (a divergent
/// branch inside the loop that changes with the iteration) become consecutive repeats of the
/// same `loop_id`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Repeat {
    pub loop_id: LoopId,
    pub count: u64,
    pub body: Vec<Item>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Idg {
    pub nodes: Vec<Node>,
    pub resources: Vec<Resource>,
    pub loops: Vec<LoopInfo>,
    pub body: Vec<Item>,
}

impl Idg {
    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id.index()]
    }

    pub fn resource(&self, id: ResourceId) -> &Resource {
        &self.resources[id.index()]
    }

    /// Whether `other` runs the same path with the same lanes and accesses: equal apart from
    /// what a walk learns from other warps' loads (a load's `reuse`, and the sectors its
    /// group's earlier warps or nearby groups load). Two groups whose warps compare so run
    /// alike wherever their data is found.
    pub fn same_path(&self, other: &Idg) -> bool {
        fn own(m: Option<MemAccess>) -> Option<MemAccess> {
            m.map(|m| MemAccess {
                reuse: None,
                sibling_sectors: 0,
                group_sectors: 0,
                ..m
            })
        }
        // Every field named, so that a field added to `Node` is compared or left out here on
        // purpose.
        let same = |a: &Node, b: &Node| {
            let Node {
                op,
                category,
                reads,
                writes,
                moves,
                ptx_line,
                src,
                mem,
                barrier,
                active_lanes,
                register_conflicts,
            } = a;
            *op == b.op
                && *category == b.category
                && *reads == b.reads
                && *writes == b.writes
                && *moves == b.moves
                && *ptx_line == b.ptx_line
                && *src == b.src
                && own(*mem) == own(b.mem)
                && *barrier == b.barrier
                && *active_lanes == b.active_lanes
                && *register_conflicts == b.register_conflicts
        };
        self.nodes.len() == other.nodes.len()
            && self.body == other.body
            && self.loops == other.loops
            && self.resources == other.resources
            && self.nodes.iter().zip(&other.nodes).all(|(a, b)| same(a, b))
    }

    /// Dynamic (unrolled) instruction count, computed in closed form over the tree.
    pub fn instruction_count(&self) -> u64 {
        fn count(items: &[Item]) -> u64 {
            items
                .iter()
                .map(|item| match item {
                    Item::Node(_) => 1,
                    Item::Repeat(r) => r.count.saturating_mul(count(&r.body)),
                })
                .fold(0u64, u64::saturating_add)
        }
        count(&self.body)
    }

    /// Checks the structural invariants; run on anything read from outside (JSON).
    pub fn validate(&self) -> Result<(), IdgError> {
        let mut seen = vec![false; self.nodes.len()];
        let mut stack: Vec<&[Item]> = vec![&self.body];
        while let Some(items) = stack.pop() {
            for item in items {
                match item {
                    Item::Node(id) => {
                        let slot = seen
                            .get_mut(id.index())
                            .ok_or(IdgError::NodeOutOfRange(id.0))?;
                        if std::mem::replace(slot, true) {
                            return Err(IdgError::NodeTwice(id.0));
                        }
                    }
                    Item::Repeat(r) => {
                        if r.loop_id.index() >= self.loops.len() {
                            return Err(IdgError::LoopOutOfRange(r.loop_id.0));
                        }
                        stack.push(&r.body);
                    }
                }
            }
        }
        if let Some(missing) = seen.iter().position(|s| !s) {
            return Err(IdgError::NodeMissing(missing as u32));
        }
        for node in &self.nodes {
            let moved = node.moves.iter().flat_map(|(a, b)| [a, b]);
            for r in node.reads.iter().chain(&node.writes).chain(moved) {
                if r.index() >= self.resources.len() {
                    return Err(IdgError::ResourceOutOfRange(r.0));
                }
            }
        }
        Ok(())
    }

    /// Node ids in tree order (each once), without unrolling.
    pub fn template_order(&self) -> Vec<NodeId> {
        fn walk(items: &[Item], out: &mut Vec<NodeId>) {
            for item in items {
                match item {
                    Item::Node(id) => out.push(*id),
                    Item::Repeat(r) => walk(&r.body, out),
                }
            }
        }
        let mut out = Vec::with_capacity(self.nodes.len());
        walk(&self.body, &mut out);
        out
    }
}

/// Builds an [`Idg`] in program order; the only way the builder crates create one, so the
/// tree invariant holds by construction.
#[derive(Debug, Default)]
pub struct IdgBuilder {
    idg: Idg,
    /// Open repeats: (loop, count, items of the enclosing level saved while the body is built,
    /// node count when the repeat began).
    open: Vec<(LoopId, u64, Vec<Item>, usize)>,
    resource_index: std::collections::HashMap<(ResourceKind, String), ResourceId>,
}

impl IdgBuilder {
    pub fn new() -> Self {
        Self::default()
    }

    /// Interns a resource by kind and name.
    pub fn resource(&mut self, kind: ResourceKind, name: &str) -> ResourceId {
        if let Some(id) = self.resource_index.get(&(kind, name.to_owned())) {
            return *id;
        }
        let id = ResourceId(self.idg.resources.len() as u32);
        self.idg.resources.push(Resource {
            name: name.to_owned(),
            kind,
        });
        self.resource_index.insert((kind, name.to_owned()), id);
        id
    }

    pub fn add_loop(&mut self, info: LoopInfo) -> LoopId {
        let id = LoopId(self.idg.loops.len() as u32);
        self.idg.loops.push(info);
        id
    }

    /// Template nodes pushed so far (folded repeats dropped theirs).
    pub fn node_count(&self) -> usize {
        self.idg.nodes.len()
    }

    /// Appends a node at the current position of the tree.
    pub fn push(&mut self, node: Node) -> NodeId {
        let id = NodeId(self.idg.nodes.len() as u32);
        self.idg.nodes.push(node);
        self.idg.body.push(Item::Node(id));
        id
    }

    /// Opens a repeat: nodes pushed until the matching [`Self::end_repeat`] form its body.
    pub fn begin_repeat(&mut self, loop_id: LoopId, count: u64) {
        let outer = std::mem::take(&mut self.idg.body);
        self.open
            .push((loop_id, count, outer, self.idg.nodes.len()));
    }

    /// Closes the innermost open repeat like [`IdgBuilder::end_repeat`], then folds it into the
    /// item before it when that is a repeat of the same loop with the same body, instruction
    /// for instruction (adding the counts and dropping the new template nodes). A walker that
    /// steps a loop one iteration at a time so pays memory only where iterations differ.
    pub fn end_repeat_folding(&mut self) -> Result<(), IdgError> {
        let mark = self.open.last().ok_or(IdgError::UnbalancedRepeat)?.3;
        self.end_repeat()?;
        let n = self.idg.body.len();
        // Nothing pushed since the mark: the repeat left no item to fold.
        if n < 2 || self.idg.nodes.len() == mark {
            return Ok(());
        }
        let (Item::Repeat(prev), Item::Repeat(new)) =
            (&self.idg.body[n - 2], &self.idg.body[n - 1])
        else {
            return Ok(());
        };
        if prev.loop_id != new.loop_id || !same_items(&self.idg.nodes, &prev.body, &new.body) {
            return Ok(());
        }
        let count = new.count;
        self.idg.body.pop();
        if let Some(Item::Repeat(prev)) = self.idg.body.last_mut() {
            prev.count = prev.count.saturating_add(count);
        }
        // The folded body's nodes are exactly those pushed since its `begin_repeat`.
        self.idg.nodes.truncate(mark);
        Ok(())
    }

    /// Closes the innermost open repeat. A repeat with an empty body or a zero count leaves no
    /// item (its nodes, if any, are kept only when it runs).
    pub fn end_repeat(&mut self) -> Result<(), IdgError> {
        let (loop_id, count, outer, _) = self.open.pop().ok_or(IdgError::UnbalancedRepeat)?;
        let body = std::mem::replace(&mut self.idg.body, outer);
        if count == 0 && !body.is_empty() {
            return Err(IdgError::EmptyRepeatWithNodes(loop_id.0));
        }
        if !body.is_empty() {
            self.idg.body.push(Item::Repeat(Repeat {
                loop_id,
                count,
                body,
            }));
        }
        Ok(())
    }

    pub fn finish(self) -> Result<Idg, IdgError> {
        if !self.open.is_empty() {
            return Err(IdgError::UnbalancedRepeat);
        }
        self.idg.validate()?;
        Ok(self.idg)
    }
}

/// Two item lists that unroll to the same instructions (node contents compared, not ids).
fn same_items(nodes: &[Node], a: &[Item], b: &[Item]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| match (x, y) {
            (Item::Node(p), Item::Node(q)) => nodes[p.index()] == nodes[q.index()],
            (Item::Repeat(p), Item::Repeat(q)) => {
                p.loop_id == q.loop_id && p.count == q.count && same_items(nodes, &p.body, &q.body)
            }
            _ => false,
        })
}
