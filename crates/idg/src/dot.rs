//! Graphviz output of a materialized warp-class graph, for looking at small IDGs. Vertices of
//! the same loop iteration are clustered; loop-carried edges are dashed.

use std::collections::BTreeMap;
use std::fmt::Write;

use crate::graph::Idg;
use crate::materialize::Materialized;
use crate::node::Category;

/// Renders `graph` (materialized from `idg`) as DOT.
pub fn to_dot(idg: &Idg, graph: &Materialized, title: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "digraph idg {{");
    let _ = writeln!(out, "  label={};", quote(title));
    let _ = writeln!(
        out,
        "  node [shape=box, fontname=\"monospace\", fontsize=10];"
    );
    let mut clusters: BTreeMap<Vec<(u32, u64)>, Vec<petgraph::graph::NodeIndex>> = BTreeMap::new();
    for v in graph.node_indices() {
        let key = graph[v].iterations.iter().map(|(l, i)| (l.0, *i)).collect();
        clusters.entry(key).or_default().push(v);
    }
    for (n, (key, vertices)) in clusters.iter().enumerate() {
        let indent = if key.is_empty() {
            "  "
        } else {
            let label: Vec<String> = key
                .iter()
                .map(|(l, i)| format!("{} iter {i}", idg.loops[*l as usize].label))
                .collect();
            let _ = writeln!(out, "  subgraph cluster_{n} {{");
            let _ = writeln!(out, "    label={}; style=dashed;", quote(&label.join(", ")));
            "    "
        };
        for v in vertices {
            let d = &graph[*v];
            let node = idg.node(d.node);
            let color = match node.category {
                Category::Memory => "lightblue",
                Category::Barrier => "orange",
                Category::Control => "lightgrey",
                Category::Compute => "white",
            };
            let _ = writeln!(
                out,
                "{indent}n{} [label={}, style=filled, fillcolor={color}];",
                d.seq,
                quote(&format!("{}: {}\\nptx:{}", d.seq, node.op, node.ptx_line))
            );
        }
        if !key.is_empty() {
            let _ = writeln!(out, "  }}");
        }
    }
    for e in graph.edge_indices() {
        let Some((a, b)) = graph.edge_endpoints(e) else {
            continue;
        };
        let w = graph[e];
        let style = if w.distance > 0 { ", style=dashed" } else { "" };
        let _ = writeln!(
            out,
            "  n{} -> n{} [label={}{style}];",
            graph[a].seq,
            graph[b].seq,
            quote(&idg.resource(w.resource).name)
        );
    }
    let _ = writeln!(out, "}}");
    out
}

fn quote(s: &str) -> String {
    format!(
        "\"{}\"",
        s.replace('\\', "\\\\")
            .replace('"', "\\\"")
            .replace("\\\\n", "\\n")
    )
}
