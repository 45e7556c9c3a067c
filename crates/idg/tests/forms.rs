//! The compact form and its derived views must agree: the streamed dependences, the
//! materialized graph, the closed-form counts, the extrapolated stats and the compact edges
//! all describe the same unrolled sequence.

use std::collections::BTreeSet;

use idg::{Category, Idg, IdgBuilder, LoopId, LoopInfo, Node, ResourceId, ResourceKind};
use proptest::prelude::*;

fn node(
    reads: Vec<ResourceId>,
    writes: Vec<ResourceId>,
    moves: Vec<(ResourceId, ResourceId)>,
) -> Node {
    Node {
        op: test_op(),
        category: Category::Compute,
        reads,
        writes,
        moves,
        ptx_line: 1,
        src: None,
        mem: None,
        barrier: None,
        active_lanes: 32,
        register_conflicts: 0,
    }
}

fn test_op() -> ptx::ast::Op {
    ptx::ast::Op {
        opcode: ptx::ast::Opcode::Add,
        mods: Default::default(),
    }
}

/// A random program: nodes reading/writing a few registers (and moving last writers between
/// them, as asynchronous-group commits do), in nested repeats.
#[derive(Debug, Clone)]
enum Gen {
    Node(Vec<u8>, Vec<u8>, Vec<(u8, u8)>),
    Repeat(u64, Vec<Gen>),
}

fn gen_strategy() -> impl Strategy<Value = Vec<Gen>> {
    gen_with_counts(5)
}

fn gen_with_counts(max_count: u64) -> impl Strategy<Value = Vec<Gen>> {
    let leaf = (
        prop::collection::vec(0u8..5, 0..3),
        prop::collection::vec(0u8..5, 0..2),
        prop::collection::vec((0u8..5, 0u8..5), 0..2),
    )
        .prop_map(|(r, w, m)| Gen::Node(r, w, m));
    let tree = leaf.prop_recursive(3, 24, 5, move |inner| {
        prop_oneof![
            3 => inner.clone(),
            1 => (0u64..max_count, prop::collection::vec(inner, 1..5)).prop_map(|(c, b)| Gen::Repeat(c, b)),
        ]
    });
    prop::collection::vec(tree, 1..6)
}

fn build(program: &[Gen]) -> Idg {
    fn emit(b: &mut IdgBuilder, regs: &[ResourceId], items: &[Gen]) {
        for g in items {
            match g {
                Gen::Node(r, w, m) => {
                    b.push(node(
                        r.iter().map(|i| regs[*i as usize]).collect(),
                        w.iter().map(|i| regs[*i as usize]).collect(),
                        m.iter()
                            .map(|(a, c)| (regs[*a as usize], regs[*c as usize]))
                            .collect(),
                    ));
                }
                Gen::Repeat(count, body) => {
                    let l = b.add_loop(LoopInfo {
                        label: "L".into(),
                        ptx_line: 0,
                        src: None,
                        trip_source: "test".into(),
                    });
                    // A zero count must not keep nodes; the builder rejects it, so emit the
                    // body only when it runs.
                    if *count == 0 {
                        continue;
                    }
                    b.begin_repeat(l, *count);
                    emit(b, regs, body);
                    b.end_repeat().unwrap();
                }
            }
        }
    }
    let mut b = IdgBuilder::new();
    let regs: Vec<ResourceId> = (0..5)
        .map(|i| b.resource(ResourceKind::Register, &format!("%r{i}")))
        .collect();
    emit(&mut b, &regs, program);
    b.finish().unwrap()
}

fn stream_critical_path(idg: &Idg) -> (u64, u64) {
    let mut depth: Vec<u64> = Vec::new();
    let mut edges = 0;
    for d in idg.stream() {
        edges += d.preds.len() as u64;
        let x = 1 + d
            .preds
            .iter()
            .map(|p| depth[*p as usize])
            .max()
            .unwrap_or(0);
        depth.push(x);
    }
    (edges, depth.into_iter().max().unwrap_or(0))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn stream_and_materialized_agree(program in gen_strategy()) {
        let idg = build(&program);
        let graph = idg.materialize(100_000).unwrap();
        let streamed: Vec<_> = idg.stream().collect();
        prop_assert_eq!(streamed.len() as u64, idg.instruction_count());
        prop_assert_eq!(graph.node_count() as u64, idg.instruction_count());
        for d in &streamed {
            let v = petgraph::graph::NodeIndex::new(d.seq as usize);
            prop_assert_eq!(graph[v].node, d.node);
            let mut preds: Vec<u64> = graph
                .neighbors_directed(v, petgraph::Direction::Incoming)
                .map(|p| graph[p].seq)
                .collect();
            preds.sort_unstable();
            prop_assert_eq!(preds, d.preds.to_vec());
        }
    }

    #[test]
    fn stats_match_unrolled_counts(program in gen_strategy()) {
        let idg = build(&program);
        let stats = idg.stats();
        let (edges, cp) = stream_critical_path(&idg);
        prop_assert_eq!(stats.edges, edges);
        prop_assert_eq!(stats.critical_path, cp);
    }

    /// Long repeats exercise the steady-state extrapolation of `stats`.
    #[test]
    fn extrapolated_stats_match_long_unrolling(program in gen_with_counts(80)) {
        let idg = build(&program);
        prop_assume!(idg.instruction_count() < 200_000);
        let stats = idg.stats();
        let (edges, cp) = stream_critical_path(&idg);
        prop_assert_eq!(stats.edges, edges);
        prop_assert_eq!(stats.critical_path, cp);
    }

    #[test]
    fn compact_edges_describe_the_materialized_edges(program in gen_strategy()) {
        let idg = build(&program);
        let graph = idg.materialize(100_000).unwrap();
        let from_graph: BTreeSet<_> = graph
            .edge_indices()
            .map(|e| {
                let (a, b) = graph.edge_endpoints(e).unwrap();
                (graph[a].node, graph[b].node, graph[e].distance, graph[e].carrier)
            })
            .collect();
        let compact: BTreeSet<_> = idg
            .compact_edges()
            .into_iter()
            .map(|e| (e.src, e.dst, e.distance, e.carrier))
            .collect();
        prop_assert_eq!(from_graph, compact);
    }
}

/// A recurrence and an independent chain racing inside one loop: the extrapolated critical
/// path must wait until the faster-growing chain has overtaken before it trusts the steady
/// state.
#[test]
fn extrapolation_waits_for_overtaking_chains() {
    let mut b = IdgBuilder::new();
    let r: Vec<ResourceId> = (0..4)
        .map(|i| b.resource(ResourceKind::Register, &format!("%r{i}")))
        .collect();
    // A long prologue chain on r0 gives it a head start of 300.
    for _ in 0..300 {
        b.push(node(vec![r[0]], vec![r[0]], Vec::new()));
    }
    let l = b.add_loop(LoopInfo {
        label: "L".into(),
        ptx_line: 0,
        src: None,
        trip_source: "test".into(),
    });
    b.begin_repeat(l, 1000);
    // r1 grows by 3 per iteration, r0 is not written: r2 follows r0 first, then r1.
    b.push(node(vec![r[1]], vec![r[1]], Vec::new()));
    b.push(node(vec![r[1]], vec![r[1]], Vec::new()));
    b.push(node(vec![r[1]], vec![r[1]], Vec::new()));
    b.push(node(vec![r[0], r[1]], vec![r[2]], Vec::new()));
    b.end_repeat().unwrap();
    let idg = b.finish().unwrap();
    let (edges, cp) = stream_critical_path(&idg);
    let stats = idg.stats();
    assert_eq!(stats.edges, edges);
    assert_eq!(stats.critical_path, cp);
    assert_eq!(stats.instructions, 300 + 4 * 1000);
}

#[test]
fn a_million_trips_cost_no_memory() {
    let mut b = IdgBuilder::new();
    let acc = b.resource(ResourceKind::Register, "%f1");
    let i = b.resource(ResourceKind::Register, "%r1");
    let l = b.add_loop(LoopInfo {
        label: "$L__BB0_1".into(),
        ptx_line: 10,
        src: None,
        trip_source: "static".into(),
    });
    b.begin_repeat(l, 1_000_000);
    b.push(node(vec![acc, i], vec![acc], Vec::new()));
    b.push(node(vec![i], vec![i], Vec::new()));
    b.end_repeat().unwrap();
    let idg = b.finish().unwrap();
    assert_eq!(idg.nodes.len(), 2);
    let stats = idg.stats();
    assert_eq!(stats.instructions, 2_000_000);
    // iteration 0: fma reads nothing written yet; add reads nothing. Later: fma reads its own
    // previous instance and the add's previous instance; add reads its previous instance.
    assert_eq!(stats.edges, 3 * 999_999);
    // The fma chain: one instruction deeper per iteration.
    assert_eq!(stats.critical_path, 1_000_000);
    let edges = idg.compact_edges();
    assert!(edges
        .iter()
        .all(|e| e.distance == 1 && e.carrier == Some(LoopId(0))));
    assert_eq!(edges.len(), 3);
}

#[test]
fn json_round_trip_and_validation() {
    let idg = build(&[
        Gen::Node(vec![], vec![0], vec![]),
        Gen::Repeat(3, vec![Gen::Node(vec![0], vec![0], vec![])]),
    ]);
    let k = idg::KernelIdgs {
        schema_version: idg::SCHEMA_VERSION,
        kernel: "_Z1kv".into(),
        grid: [2, 1, 1],
        block: [64, 1, 1],
        warps_per_group: 2,
        groups_built: vec![0],
        classes: vec![idg::WarpClass {
            warps: vec![0, 1],
            idg,
        }],
        rotate_classes: false,
    };
    let back = idg::KernelIdgs::from_json(&k.to_json()).unwrap();
    assert_eq!(back, k);
    assert_eq!(
        k.classes_for_group(1),
        vec![idg::ClassId(0), idg::ClassId(0)]
    );
    let mut bad = k.clone();
    bad.classes[0].idg.body.clear();
    assert_eq!(
        idg::KernelIdgs::from_json(&bad.to_json()),
        Err(idg::IdgError::NodeMissing(0))
    );
}

/// A loop whose nodes get shallower after the first iteration (the input from before the loop
/// was deeper than the loop-carried one): not a steady state yet (found by the property test).
#[test]
fn shrinking_depths_are_not_extrapolated() {
    let n = |r: &[u8], w: &[u8]| Gen::Node(r.to_vec(), w.to_vec(), Vec::new());
    let program = vec![
        Gen::Repeat(1, vec![Gen::Repeat(1, vec![n(&[], &[4])]), n(&[4], &[2])]),
        Gen::Repeat(4, vec![n(&[3], &[]), n(&[2], &[3]), n(&[], &[2])]),
    ];
    let idg = build(&program);
    let stats = idg.stats();
    let (edges, cp) = stream_critical_path(&idg);
    assert_eq!((stats.edges, stats.critical_path), (edges, cp));
}

/// A flat loop whose dependences settle only after as many iterations as a value from before
/// it is deep: a chain of 2^40 iterations, then a loop whose carried chain grows by one per
/// iteration while each iteration also reads that value. The estimate counts the second loop
/// a few iterations; the walk finds it does not settle within the budget and is refused
/// instead of walking 2^40 iterations (hours).
#[test]
fn a_flat_loop_that_does_not_settle_is_refused_past_the_budget() {
    let deep = Gen::Repeat(1 << 40, vec![Gen::Node(vec![0], vec![0], vec![])]);
    let catching_up = Gen::Repeat(
        1 << 40,
        vec![
            Gen::Node(vec![1], vec![1], vec![]),
            Gen::Node(vec![1, 0], vec![2], vec![]),
        ],
    );
    let idg = build(&[deep.clone(), catching_up]);
    let err = idg.check_analysis_within(0, 10_000).unwrap_err();
    assert!(
        matches!(err, idg::IdgError::AnalysisTooLarge { work: 10_000, .. }),
        "{err}"
    );
    // The same loop without the deep value settles at once and passes.
    let settling = Gen::Repeat(1 << 40, vec![Gen::Node(vec![1], vec![1], vec![])]);
    assert!(build(&[deep, settling])
        .check_analysis_within(0, 10_000)
        .is_ok());
}
