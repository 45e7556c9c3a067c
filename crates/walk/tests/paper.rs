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
        params: params
            .iter()
            .map(|(n, v)| (n.to_string(), (*v).into()))
            .collect(),
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

/// The paper's nodes of the example kernel: the two global loads (M) and the computations
/// (C) that are not index or address arithmetic. Address arithmetic is what PTX makes
/// explicit and the figure leaves out: instructions that compute a 64-bit address register
/// (`cvta`, `mul.wide`, `add.s64`), and instructions that depend on no load and whose results
/// only feed address arithmetic (the thread index: `mov` of `%tid`..., `mad`). `ret` is not
/// a computation.
fn paper_nodes(idg: &Idg, g: &Materialized) -> (Vec<NodeIndex>, Vec<NodeIndex>) {
    let loads = find(idg, g, global_load);
    let after_load: Vec<bool> = g
        .node_indices()
        .map(|v| loads.iter().any(|l| has_path_connecting(g, *l, v, None)))
        .collect();
    let mut address = vec![false; g.node_count()];
    for v in g.node_indices().rev() {
        let n = idg.node(g[v].node);
        if n.category != Category::Compute {
            continue;
        }
        let writes_address = n
            .writes
            .iter()
            .any(|r| idg.resource(*r).name.starts_with("%rd"));
        let succs: Vec<NodeIndex> = g.neighbors_directed(v, Direction::Outgoing).collect();
        let feeds_only_addresses = !succs.is_empty() && succs.iter().all(|s| address[s.index()]);
        address[v.index()] = writes_address || (!after_load[v.index()] && feeds_only_addresses);
    }
    // `ret` / `exit` end the warp; they compute nothing.
    let computes = |n: &idg::Node| {
        n.category == Category::Compute
            && !matches!(n.op.opcode, ptx::ast::Opcode::Ret | ptx::ast::Opcode::Exit)
    };
    let computations = g
        .node_indices()
        .filter(|v| computes(idg.node(g[*v].node)) && !address[v.index()])
        .collect();
    (loads, computations)
}

/// pipeline-model-analysis Fig. 1 and Table 2 (α_comp = 4, α_mem = 2) on the IDG built from
/// the PTX: 4 computational and 2 memory instructions, and with the index / address arithmetic
/// contracted away, exactly the edges M1 → C1 → C2 → M2 → C3 and Ci → C3 (Ci depends on
/// nothing the kernel loads). The final store, the kernel's only side effect, is the one
/// other global memory instruction; the figure leaves it out (ptx_samples/cuda/example.cu).
#[test]
fn example_kernel_has_4_computations_2_memory_instructions_and_the_papers_edges() {
    // nvcc's builds; clang-14 contracts Ci and C3 into one fma (llvm/, sm_52/), leaving 3.
    for file in [
        "example.ptx",
        "../sm_80/example.ptx",
        "../sm_75/example.ptx",
    ] {
        let k = build(
            file,
            "_Z14example_kernelPKiPKfPfiif",
            [4, 1, 1],
            [256, 1, 1],
            &[("3", 3), ("4", 5)],
        );
        let idg = &k.classes[0].idg;
        let g = idg.materialize(10_000).unwrap();
        let (loads, comps) = paper_nodes(idg, &g);
        let names = |vs: &[NodeIndex]| -> Vec<String> {
            vs.iter().map(|v| mnemonic(idg, &g, *v)).collect()
        };
        assert_eq!(loads.len(), 2, "{file}: {:?}", names(&loads));
        assert_eq!(comps.len(), 4, "{file}: {:?}", names(&comps));
        let stores = find(idg, &g, |n| n.op.is_store());
        assert_eq!(stores.len(), 1, "{file}");
        assert_eq!(
            stores[0].index(),
            g.node_count() - 2,
            "{file}: the store ends the kernel"
        );
        // The contracted graph: paper node a → paper node b when a path a ⇝ b passes through
        // no other paper node.
        let paper: Vec<NodeIndex> = loads.iter().chain(&comps).copied().collect();
        let mut edges: Vec<(NodeIndex, NodeIndex)> = Vec::new();
        for &a in &paper {
            let mut stack: Vec<NodeIndex> = g.neighbors_directed(a, Direction::Outgoing).collect();
            let mut seen = vec![false; g.node_count()];
            while let Some(v) = stack.pop() {
                if std::mem::replace(&mut seen[v.index()], true) {
                    continue;
                }
                if paper.contains(&v) {
                    edges.push((a, v));
                } else {
                    stack.extend(g.neighbors_directed(v, Direction::Outgoing));
                }
            }
        }
        let (m1, m2) = (loads[0], loads[1]);
        let sinks: Vec<NodeIndex> = comps
            .iter()
            .copied()
            .filter(|c| !edges.iter().any(|e| e.0 == *c))
            .collect();
        assert_eq!(sinks.len(), 1, "{file}: one end of the chain");
        let c3 = sinks[0];
        let after = |a: NodeIndex| -> Vec<NodeIndex> {
            edges.iter().filter(|e| e.0 == a).map(|e| e.1).collect()
        };
        let before = |b: NodeIndex| -> Vec<NodeIndex> {
            let mut p: Vec<NodeIndex> = edges.iter().filter(|e| e.1 == b).map(|e| e.0).collect();
            p.sort();
            p
        };
        let c1 = after(m1)[0];
        let c2 = after(c1)[0];
        let ci = *comps.iter().find(|c| before(**c).is_empty()).unwrap();
        assert_eq!(after(m1), vec![c1], "{file}: M1 → C1");
        assert_eq!(after(c1), vec![c2], "{file}: C1 → C2");
        assert_eq!(after(c2), vec![m2], "{file}: C2 → M2");
        assert_eq!(after(m2), vec![c3], "{file}: M2 → C3");
        assert_eq!(after(ci), vec![c3], "{file}: Ci → C3");
        let mut into_c3 = vec![m2, ci];
        into_c3.sort();
        assert_eq!(before(c3), into_c3, "{file}");
        assert!(before(m1).is_empty() && before(ci).is_empty(), "{file}");
        assert_eq!(edges.len(), 5, "{file}: {edges:?}");
        let mut ops = names(&[c1, c2, ci, c3]);
        ops.sort();
        assert_eq!(
            ops,
            ["add.f32", "mul.lo.s32", "mul.rn.f32", "xor.b32"],
            "{file}"
        );
    }
}

/// pipeline-performance-model-idg Fig. 1: one warp of axpy, simulated on its IDG with uniform
/// hand-assigned timings, takes cycles = Λ_index + Λ_mem + λ_mem + Λ_fmadd + λ_mem: the index
/// computation, the first load's latency after the second load issued λ_mem after it, the
/// multiply-add, and the posted store (complete once the memory pipeline accepts it).
/// Every instruction that is not a global access or the fma is index computation with latency
/// Λ_i and no throughput limit; Λ_index is Λ_i times the longest such chain before a load.
#[test]
fn axpy_one_warp_takes_the_papers_cycles() {
    let k = build("axpy.ptx", "_Z4axpyfPKfPf", [1, 1, 1], [32, 1, 1], &[]);
    assert_eq!(k.classes.len(), 1);
    let idg = &k.classes[0].idg;
    let g = idg.materialize(1000).unwrap();
    let is_fma = |n: &idg::Node| n.op.opcode == ptx::ast::Opcode::Fma;
    let is_global = |n: &idg::Node| n.mem.is_some_and(|m| m.space == idg::MemSpace::Global);
    // The longest chain of index instructions ending at a load's address.
    let mut depth = vec![0u64; g.node_count()];
    for v in g.node_indices() {
        let n = idg.node(g[v].node);
        let deepest = preds(&g, v)
            .iter()
            .map(|p| depth[p.index()])
            .max()
            .unwrap_or(0);
        depth[v.index()] = deepest + u64::from(!is_global(n) && !is_fma(n));
    }
    let loads = find(idg, &g, global_load);
    let index_chain = loads.iter().map(|l| depth[l.index()]).max().unwrap();
    assert_eq!(index_chain, 4, "mov %tid → mad → mul.wide → add.s64");

    const TPC: u64 = 8;
    let (index_lat, lambda_mem, lat_mem, lambda_fma, lat_fma) = (3, 2, 20, 1, 5);
    let hw = sim::Hardware {
        subsystems: vec!["alu".into(), "mem".into()],
        issue_interval: 0,
        partitions: 1,
        ticks_per_cycle: TPC,
        clock_mhz: 1000.0,
        dispatch_latency: 0,
        dispatch_interval: 0,
        sm_wide: 0,
        queued: 0,
    };
    let costs: sim::ClassCosts = idg
        .nodes
        .iter()
        .map(|n| {
            let (subsystem, lambda, latency) = if is_global(n) {
                (1, lambda_mem, lat_mem)
            } else if is_fma(n) {
                (0, lambda_fma, lat_fma)
            } else {
                (0, 0, index_lat)
            };
            sim::NodeCost {
                subsystem,
                lambda: lambda * TPC,
                latency: latency * TPC,
                below_occupancy: None,
                dram_bytes: 0,
            }
        })
        .collect();
    let exec = sim::ExecConfig {
        warps_per_group: 1,
        concurrent_groups: 1,
        total_groups: 1,
        sm_count: 1,
    };
    let r = sim::simulate(&k, &[costs], &hw, &exec, &sim::SimOptions::default()).unwrap();
    let model = index_chain * index_lat + lat_mem + lambda_mem + lat_fma + lambda_mem;
    assert_eq!(r.ticks, model * TPC, "{} cycles, model {model}", r.cycles);
    assert_eq!(r.instructions, idg.instruction_count());
}
