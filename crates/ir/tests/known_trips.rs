//! Static trip counts of the samples whose counts are known by construction
//! (`ptx_samples/README.md` lists launches and counts), checked on the PTX of every compiler
//! and target we have: nvcc for sm_75/80/90, nvcc `-G` debug builds, clang for sm_52/80.

use ir::{LoopId, TripRule, TripSource};

/// Sample directories whose PTX the counts are checked on.
const DIRS: &[&str] = &["sm_90", "sm_80", "sm_75", "debug", "llvm", "sm_52"];

struct Case {
    dir: &'static str,
    kernel: ir::Kernel,
    an: ir::Analysis,
    launch: ir::BoundLaunch,
    trips: ir::Trips,
}

fn case(
    dir: &'static str,
    file: &str,
    kernel: &str,
    params: &[(&str, i64)],
    grid: [u32; 3],
    block: [u32; 3],
) -> Case {
    let path = format!(
        "{}/../../ptx_samples/{dir}/{file}",
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
        params: params
            .iter()
            .map(|(n, v)| (n.to_string(), (*v).into()))
            .collect(),
    }
    .bind(&kernel)
    .expect("launch binds");
    let trips =
        ir::resolve_trips(&kernel, &an, &launch, &ir::TripInputs::default()).expect("resolves");
    Case {
        dir,
        kernel,
        an,
        launch,
        trips,
    }
}

/// The kernel from every directory of [`DIRS`] under the given launch.
fn cases_with(
    file: &str,
    kernel: &str,
    params: &[(&str, i64)],
    grid: [u32; 3],
    block: [u32; 3],
) -> Vec<Case> {
    DIRS.iter()
        .map(|d| case(d, file, kernel, params, grid, block))
        .collect()
}

/// The kernel from every directory, on 4 blocks of 128 threads.
fn cases(file: &str, kernel: &str, params: &[(&str, i64)]) -> Vec<Case> {
    cases_with(file, kernel, params, [4, 1, 1], [128, 1, 1])
}

/// Header executions exceeding body executions: -G builds keep loops top-tested, so their
/// header (the exit test) runs once more than the body; optimized builds rotate loops.
fn top(c: &Case) -> u64 {
    u64::from(c.dir == "debug")
}

fn range(c: &Case, l: u32) -> (u64, u64) {
    let t = c.trips.get(LoopId(l));
    assert_eq!(
        t.source,
        TripSource::Static,
        "{}: loop {l}: {:?}",
        c.dir,
        c.trips.warnings
    );
    let s = t.stats.as_ref().expect("static loops have stats");
    (s.min, s.max)
}

#[test]
fn grid_stride_per_thread() {
    for c in cases("loops.ptx", "grid_stride", &[("3", 10_000)]) {
        assert_eq!(range(&c, 0), (19 + top(&c), 20 + top(&c)), "{}", c.dir);
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
            assert_eq!(
                c.trips.trips_for(LoopId(0), &st),
                want + top(&c),
                "{}: global thread {g}",
                c.dir
            );
        }
    }
}

#[test]
fn parameter_bound() {
    for c in cases("loops.ptx", "param_trips", &[("2", 100)]) {
        assert_eq!(range(&c, 0), (100 + top(&c), 100 + top(&c)), "{}", c.dir);
    }
}

#[test]
fn nested_rows_cols() {
    for c in cases("loops.ptx", "nested", &[("2", 16), ("3", 8)]) {
        assert_eq!(
            c.an.loops.get(LoopId(1)).parent,
            Some(LoopId(0)),
            "{}",
            c.dir
        );
        assert_eq!(range(&c, 0), (16 + top(&c), 16 + top(&c)), "{}", c.dir);
        assert_eq!(range(&c, 1), (8 + top(&c), 8 + top(&c)), "{}", c.dir);
    }
}

#[test]
fn triangular_inner_depends_on_outer() {
    for c in cases("loops.ptx", "triangular", &[("1", 16)]) {
        assert_eq!(range(&c, 0), (16 + top(&c), 16 + top(&c)), "{}", c.dir);
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
            (1..=5).map(|r| r + top(&c)).collect::<Vec<u64>>(),
            "{}: inner trips r + 1 at outer iteration r",
            c.dir
        );
    }
}

#[test]
fn thread_dependent_lanes() {
    for c in cases("loops.ptx", "thread_dependent", &[]) {
        let s = c.trips.get(LoopId(0)).stats.clone().expect("static");
        assert_eq!(
            (s.min, s.max, s.warp_values),
            (1, 7 + top(&c), vec![7 + top(&c)]),
            "{}",
            c.dir
        );
        assert!(matches!(
            c.trips.get(LoopId(0)).rule,
            TripRule::Induction(_)
        ));
    }
}

#[test]
fn million_trip_loop_is_not_walked() {
    for c in cases_with(
        "long_loop.ptx",
        "long_loop_const",
        &[],
        [1, 1, 1],
        [32, 1, 1],
    ) {
        assert_eq!(
            range(&c, 0),
            (1_000_000 + top(&c), 1_000_000 + top(&c)),
            "{}",
            c.dir
        );
    }
    let p = [("3", 1_000_000)];
    for c in cases_with(
        "long_loop.ptx",
        "long_loop_param",
        &p,
        [1, 1, 1],
        [32, 1, 1],
    ) {
        assert_eq!(
            range(&c, 0),
            (1_000_000 + top(&c), 1_000_000 + top(&c)),
            "{}",
            c.dir
        );
    }
}

#[test]
fn barrier_loop_iterations() {
    for c in cases("barrier_loop.ptx", "iterative_barrier", &[("3", 1000)]) {
        assert_eq!(range(&c, 0), (1000 + top(&c), 1000 + top(&c)), "{}", c.dir);
    }
}

#[test]
fn matmul_outer_loop_runs_wa_over_tile() {
    let p = [("3", 512), ("4", 512)];
    for c in cases_with("matmul.ptx", "mmul_08", &p, [64, 64, 1], [8, 8, 1]) {
        // Optimized builds unroll the k loop; -G builds keep it (nested in the tile loop).
        let want = if c.dir == "debug" { 2 } else { 1 };
        assert_eq!(c.an.loops.len(), want, "{}", c.dir);
        assert_eq!(range(&c, 0), (64 + top(&c), 64 + top(&c)), "{}", c.dir);
    }
    for c in cases_with("matmul.ptx", "mmul_16", &p, [32, 32, 1], [16, 16, 1]) {
        assert_eq!(range(&c, 0), (32 + top(&c), 32 + top(&c)), "{}", c.dir);
    }
}

#[test]
fn inst_mix_reps() {
    let p = [("3", 10_000)];
    for c in cases_with("inst_mix.ptx", "inst_mix<4>", &p, [264, 1, 1], [1024, 1, 1]) {
        assert_eq!(
            range(&c, 0),
            (10_000 + top(&c), 10_000 + top(&c)),
            "{}",
            c.dir
        );
    }
}

#[test]
fn trip_counts_flow_through_inlined_calls() {
    // poly is called once directly and twice through apply_twice: three inlined loops, each
    // with `degree` trips carried through the .param call slots.
    for c in cases("calls.ptx", "call_kernel", &[("3", 4), ("4", 512)]) {
        assert_eq!(c.an.loops.len(), 3, "{}", c.dir);
        for l in 0..3 {
            assert_eq!(
                range(&c, l),
                (4 + top(&c), 4 + top(&c)),
                "{}: inlined loop {l}",
                c.dir
            );
        }
    }
}

#[test]
fn tensor_core_k_loop() {
    // wmma_gemm_16x16x16: K/16 trips (nvcc only: clang cannot compile the wmma source).
    for dir in ["sm_90", "sm_80", "sm_75"] {
        let c = case(
            dir,
            "tensor_core.ptx",
            "wmma_gemm",
            &[("3", 64), ("4", 64), ("5", 256)],
            [4, 4, 1],
            [32, 1, 1],
        );
        assert_eq!(range(&c, 0), (16 + top(&c), 16 + top(&c)), "{dir}");
    }
}
