//! The materialized graph: one petgraph vertex per dynamic instruction, for small cases, DOT
//! output and tests. It is produced from the same unroller as [`crate::Stream`], so both forms
//! share one definition of dependence.

use petgraph::graph::{DiGraph, NodeIndex};
use serde::Serialize;

use crate::analysis::{carried, Context};
use crate::graph::{Idg, Item, Repeat};
use crate::node::{LoopId, NodeId, ResourceId};
use crate::IdgError;

/// A vertex of the materialized graph.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DynNode {
    pub seq: u64,
    pub node: NodeId,
    /// Iteration of each enclosing loop, outermost first.
    pub iterations: Vec<(LoopId, u64)>,
}

/// An edge of the materialized graph, labelled with what carries it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct DynEdge {
    pub resource: ResourceId,
    pub distance: u64,
    pub carrier: Option<LoopId>,
}

pub type Materialized = DiGraph<DynNode, DynEdge>;

impl Idg {
    /// Unrolls the whole graph; refuses above `max_nodes` dynamic instructions.
    pub fn materialize(&self, max_nodes: u64) -> Result<Materialized, IdgError> {
        let total = self.instruction_count();
        if total > max_nodes {
            return Err(IdgError::TooLarge {
                nodes: total,
                limit: max_nodes,
            });
        }
        struct Walk<'a> {
            idg: &'a Idg,
            graph: Materialized,
            last: Vec<Option<(NodeIndex, Context)>>,
            ctx: Context,
        }
        impl Walk<'_> {
            fn items(&mut self, items: &[Item]) {
                for item in items {
                    match item {
                        Item::Node(id) => self.node(*id),
                        Item::Repeat(r) => self.repeat(r),
                    }
                }
            }
            fn repeat(&mut self, r: &Repeat) {
                let key = r as *const Repeat as usize;
                for k in 0..r.count {
                    self.ctx.push((key, r.loop_id, k));
                    self.items(&r.body);
                    self.ctx.pop();
                }
            }
            fn node(&mut self, id: NodeId) {
                let seq = self.graph.node_count() as u64;
                let v = self.graph.add_node(DynNode {
                    seq,
                    node: id,
                    iterations: self.ctx.iter().map(|c| (c.1, c.2)).collect(),
                });
                let node = self.idg.node(id);
                for r in &node.reads {
                    if let Some((src, sctx)) = &self.last[r.index()] {
                        // One edge per predecessor instance, as in `Stream`: the first
                        // resource (in read order) labels it.
                        if self.graph.find_edge(*src, v).is_none() {
                            let (distance, carrier) = carried(sctx, &self.ctx);
                            self.graph.add_edge(
                                *src,
                                v,
                                DynEdge {
                                    resource: *r,
                                    distance,
                                    carrier,
                                },
                            );
                        }
                    }
                }
                for w in &node.writes {
                    self.last[w.index()] = Some((v, self.ctx.clone()));
                }
                for (from, to) in &node.moves {
                    self.last[to.index()] = self.last[from.index()].clone();
                }
            }
        }
        let mut walk = Walk {
            idg: self,
            graph: Materialized::with_capacity(total as usize, total as usize),
            last: vec![None; self.resources.len()],
            ctx: Context::new(),
        };
        walk.items(&self.body);
        Ok(walk.graph)
    }
}
