//! Static trip counts of the samples whose counts are known by construction
//! (`ptx_samples/cuda/*.cu` state their launches and counts in their header comments).

use ir::{LoopId, TripRule, TripSource};

struct Case {
    kernel: ir::Kernel,
    an: ir::Analysis,
    launch: ir::BoundLaunch,
    trips: ir::Trips,
}

fn case(file: &str, kernel: &str, params: &[(&str, i64)]) -> Case {
    case_with(file, kernel, params, [4, 1, 1], [128, 1, 1])
}

fn case_with(
    file: &str,
    kernel: &str,
    params: &[(&str, i64)],
    grid: [u32; 3],
    block: [u32; 3],
) -> Case {
    let path = format!(
        "{}/../../ptx_samples/sm_90/{file}",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).expect("sample exists");
    let module = ptx::parse(&text).expect("sample parses");
    let names: Vec<&str> = module.kernels().map(|f| f.name.as_str()).collect();
    let name = ir::names::select_kernel(&names, Some(kernel)).expect("kernel exists");
    let kernel = ir::lower_kernel(&module, name).expect("lowers");
    let an = ir::analyze(&kernel).expect("reducible");
    let launch = ir::Launch {
        grid,
        block,
        params: params.iter().map(|(n, v)| (n.to_string(), *v)).collect(),
    }
    .bind(&kernel)
    .expect("launch binds");
    let trips =
        ir::resolve_trips(&kernel, &an, &launch, &ir::TripInputs::default()).expect("resolves");
    Case {
        kernel,
        an,
        launch,
        trips,
    }
}

fn range(c: &Case, l: u32) -> (u64, u64) {
    let t = c.trips.get(LoopId(l));
    assert_eq!(
        t.source,
        TripSource::Static,
        "loop {l}: {:?}",
        c.trips.warnings
    );
    let s = t.stats.as_ref().expect("static loops have stats");
    (s.min, s.max)
}

#[test]
fn grid_stride_per_thread() {
    let c = case("loops.ptx", "grid_stride", &[("3", 10_000)]);
    assert_eq!(range(&c, 0), (19, 20));
    // g < 272 runs 20, g >= 272 runs 19 (warp 8 of the grid is split).
    for (g, want) in [(0u32, 20u64), (271, 20), (272, 19), (511, 19)] {
        let st = ir::entry_state(
            &c.kernel,
            &c.an,
            &c.launch,
            [g / 128, 0, 0],
            [g % 128, 0, 0],
            LoopId(0),
        )
        .expect("every thread with g < n enters");
        assert_eq!(c.trips.trips_for(LoopId(0), &st), want, "global thread {g}");
    }
}

#[test]
fn parameter_bound() {
    let c = case("loops.ptx", "param_trips", &[("2", 100)]);
    assert_eq!(range(&c, 0), (100, 100));
}

#[test]
fn nested_rows_cols() {
    let c = case("loops.ptx", "nested", &[("2", 16), ("3", 8)]);
    assert_eq!(c.an.loops.get(LoopId(1)).parent, Some(LoopId(0)));
    assert_eq!(range(&c, 0), (16, 16));
    assert_eq!(range(&c, 1), (8, 8));
}

#[test]
fn triangular_inner_depends_on_outer() {
    let c = case("loops.ptx", "triangular", &[("1", 16)]);
    assert_eq!(range(&c, 0), (16, 16));
    let entries = ir::entry_states(
        &c.kernel,
        &c.an,
        &c.launch,
        [0, 0, 0],
        [0, 0, 0],
        LoopId(1),
        5,
    );
    let got: Vec<u64> = entries
        .iter()
        .map(|s| c.trips.trips_for(LoopId(1), s))
        .collect();
    assert_eq!(
        got,
        vec![1, 2, 3, 4, 5],
        "inner trips r + 1 at outer iteration r"
    );
}

#[test]
fn thread_dependent_lanes() {
    let c = case("loops.ptx", "thread_dependent", &[]);
    let s = c.trips.get(LoopId(0)).stats.clone().expect("static");
    assert_eq!((s.min, s.max, s.warp_values), (1, 7, vec![7]));
    assert!(matches!(
        c.trips.get(LoopId(0)).rule,
        TripRule::Induction(_)
    ));
}

#[test]
fn million_trip_loop_is_not_walked() {
    let c = case("long_loop.ptx", "long_loop_const", &[]);
    assert_eq!(range(&c, 0), (1_000_000, 1_000_000));
    let p = case("long_loop.ptx", "long_loop_param", &[("3", 1_000_000)]);
    assert_eq!(range(&p, 0), (1_000_000, 1_000_000));
}

#[test]
fn barrier_loop_iterations() {
    let c = case("barrier_loop.ptx", "iterative_barrier", &[("3", 1000)]);
    assert_eq!(range(&c, 0), (1000, 1000));
}

#[test]
fn matmul_outer_loop_runs_wa_over_tile() {
    let c = case_with(
        "matmul.ptx",
        "mmul_08",
        &[("3", 512), ("4", 512)],
        [64, 64, 1],
        [8, 8, 1],
    );
    assert_eq!(
        c.an.loops.len(),
        1,
        "the k loop is unrolled, the tile loop kept"
    );
    assert_eq!(range(&c, 0), (64, 64));
    let c = case_with(
        "matmul.ptx",
        "mmul_16",
        &[("3", 512), ("4", 512)],
        [32, 32, 1],
        [16, 16, 1],
    );
    assert_eq!(range(&c, 0), (32, 32));
}

#[test]
fn inst_mix_reps() {
    let c = case_with(
        "inst_mix.ptx",
        "inst_mix<4>",
        &[("3", 10_000)],
        [264, 1, 1],
        [1024, 1, 1],
    );
    assert_eq!(range(&c, 0), (10_000, 10_000));
}

#[test]
fn trip_counts_flow_through_inlined_calls() {
    // poly is called once directly and twice through apply_twice: three inlined loops, each
    // with `degree` trips carried through the .param call slots.
    let c = case("calls.ptx", "call_kernel", &[("3", 4), ("4", 512)]);
    assert_eq!(c.an.loops.len(), 3);
    for l in 0..3 {
        assert_eq!(range(&c, l), (4, 4), "inlined loop {l}");
    }
}
