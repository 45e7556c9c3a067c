//! The IDGs of the papers' example kernels, built from the PTX nvcc emits for our CUDA
//! versions of them, have the shapes the papers describe.

use std::path::PathBuf;

use idg::{Category, Idg, Materialized};
use petgraph::algo::has_path_connecting;
use petgraph::graph::NodeIndex;
use petgraph::Direction;

fn sample(name: &str) -> PathBuf {
    let dir = std::env::var("PTX2IDG_SAMPLE_DIR")
        .unwrap_or_else(|_| concat!(env!("CARGO_MANIFEST_DIR"), "/../../ptx_samples/sm_90").into());
    PathBuf::from(dir).join(name)
}

fn build(
    file: &str,
    entry: &str,
    grid: [u32; 3],
    block: [u32; 3],
    params: &[(&str, i64)],
) -> idg::KernelIdgs {
    let text = std::fs::read_to_string(sample(file)).unwrap();
    let module = ptx::parse(&text).unwrap();
    let launch = ir::Launch {
        grid,
        block,
        params: params.iter().map(|(n, v)| (n.to_string(), *v)).collect(),
    };
    walk::front_end(
        &module,
        entry,
        &launch,
        &ir::TripInputs::default(),
        &walk::Options::default(),
    )
    .unwrap()
    .built
    .idgs
}

/// Vertices whose instruction satisfies `f`, in program order.
fn find(idg: &Idg, g: &Materialized, f: impl Fn(&idg::Node) -> bool) -> Vec<NodeIndex> {
    g.node_indices()
        .filter(|v| f(idg.node(g[*v].node)))
        .collect()
}

fn mnemonic(idg: &Idg, g: &Materialized, v: NodeIndex) -> String {
    idg.node(g[v].node).op.to_string()
}

fn preds(g: &Materialized, v: NodeIndex) -> Vec<NodeIndex> {
    g.neighbors_directed(v, Direction::Incoming).collect()
}

fn global_load(n: &idg::Node) -> bool {
    n.category == Category::Memory
        && n.op.is_load()
        && n.mem.is_some_and(|m| m.space == idg::MemSpace::Global)
}

/// pipeline-model-analysis Fig. 1: the chain memory → computation → computation → memory →
/// computation, and one computation independent of both loads.
#[test]
fn example_kernel_has_the_papers_chain() {
    let k = build(
        "example.ptx",
        "_Z14example_kernelPKiPKfPfiif",
        [4, 1, 1],
        [256, 1, 1],
        &[("3", 3), ("4", 5)],
    );
    assert_eq!(k.classes.len(), 1, "every warp runs the same path");
    let idg = &k.classes[0].idg;
    let g = idg.materialize(10_000).unwrap();
    let loads = find(idg, &g, global_load);
    assert_eq!(loads.len(), 2);
    let (m1, m2) = (loads[0], loads[1]);
    let mul = find(idg, &g, |n| n.op.to_string() == "mul.lo.s32")[0];
    let xor = find(idg, &g, |n| n.op.to_string() == "xor.b32")[0];
    let add = find(idg, &g, |n| n.op.to_string() == "add.f32")[0];
    let indep = find(idg, &g, |n| n.op.to_string() == "mul.rn.f32")[0];
    assert!(preds(&g, xor).contains(&mul));
    assert!(preds(&g, mul).contains(&m1));
    assert!(has_path_connecting(&g, xor, m2, None));
    assert!(preds(&g, add).contains(&m2));
    assert!(preds(&g, add).contains(&indep));
    for l in [m1, m2] {
        assert!(
            !has_path_connecting(&g, l, indep, None),
            "{} feeds the independent multiply",
            mnemonic(idg, &g, l)
        );
    }
}

/// pipeline-performance-model-idg Fig. 1: two independent loads feed a multiply-add that feeds
/// the store.
#[test]
fn axpy_has_two_independent_loads_feeding_one_fma() {
    let k = build("axpy.ptx", "_Z4axpyfPKfPf", [8, 1, 1], [256, 1, 1], &[]);
    let idg = &k.classes[0].idg;
    let g = idg.materialize(10_000).unwrap();
    let loads = find(idg, &g, global_load);
    assert_eq!(loads.len(), 2);
    assert!(!has_path_connecting(&g, loads[0], loads[1], None));
    let fma = find(idg, &g, |n| n.op.opcode == ptx::ast::Opcode::Fma)[0];
    let mut p = preds(&g, fma);
    p.sort();
    assert!(loads.iter().all(|l| p.contains(l)));
    let st = find(idg, &g, |n| n.op.is_store())[0];
    assert!(preds(&g, st).contains(&fma));
    // Unit-stride floats: four 32-byte sectors per warp request, the coalesced case.
    for l in &loads {
        let pat = idg.node(g[*l].node).mem.unwrap().pattern.unwrap();
        assert_eq!(pat.lane_stride_bytes, Some(4));
        assert_eq!(pat.sectors_per_request, 4);
    }
}

/// pipeline-performance-model-idg Listing 1 (8x8 tiles): the outer loop runs WA/8 times; in
/// each iteration the unrolled inner loop is 16 independent shared loads feeding a chain of
/// 8 multiply-adds, between two barriers.
#[test]
fn matmul_inner_loop_is_independent_loads_feeding_an_fma_chain() {
    let k = build(
        "matmul.ptx",
        "_Z7mmul_08PfPKfS1_ii",
        [8, 8, 1],
        [8, 8, 1],
        &[("3", 64), ("4", 64)],
    );
    assert_eq!(k.classes.len(), 1);
    let idg = &k.classes[0].idg;
    assert_eq!(idg.loops.len(), 1);
    assert_eq!(idg.loops[0].trip_source, "static");
    // 64 / 8 = 8 header executions: 7 repeated iterations and the final one.
    let counts: Vec<u64> = idg
        .body
        .iter()
        .filter_map(|i| match i {
            idg::Item::Repeat(r) => Some(r.count),
            idg::Item::Node(_) => None,
        })
        .collect();
    assert_eq!(counts, vec![7]);
    let g = idg.materialize(100_000).unwrap();
    let first_iter = |v: &NodeIndex| g[*v].iterations.first().is_some_and(|(_, i)| *i == 0);
    let shared: Vec<NodeIndex> = find(idg, &g, |n| {
        n.op.is_load() && n.mem.is_some_and(|m| m.space == idg::MemSpace::Shared)
    })
    .into_iter()
    .filter(first_iter)
    .collect();
    assert_eq!(shared.len(), 16);
    for a in &shared {
        for b in &shared {
            assert!(a == b || !has_path_connecting(&g, *a, *b, None));
        }
    }
    let fmas: Vec<NodeIndex> = find(idg, &g, |n| n.op.opcode == ptx::ast::Opcode::Fma)
        .into_iter()
        .filter(first_iter)
        .collect();
    assert_eq!(fmas.len(), 8);
    for w in fmas.windows(2) {
        assert!(
            preds(&g, w[1]).contains(&w[0]),
            "the multiply-adds form one chain"
        );
    }
    let barriers = find(idg, &g, |n| n.barrier.is_some())
        .into_iter()
        .filter(first_iter)
        .count();
    assert_eq!(barriers, 2);
}

/// A 10^6-trip loop costs its body once in memory; counts come from the compact form.
#[test]
fn million_trip_loop_stays_compact() {
    let k = build(
        "long_loop.ptx",
        "_Z15long_loop_paramPfffi",
        [1, 1, 1],
        [32, 1, 1],
        &[("3", 1_000_000)],
    );
    let idg = &k.classes[0].idg;
    assert!(idg.nodes.len() < 64, "{} template nodes", idg.nodes.len());
    assert_eq!(idg.loops[0].trip_source, "static");
    let stats = idg.stats();
    assert!(stats.instructions > 1_000_000, "{stats:?}");
    assert!(
        stats.critical_path > 1_000_000,
        "the fma recurrence is one chain: {stats:?}"
    );
}
