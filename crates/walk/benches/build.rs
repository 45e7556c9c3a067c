//! Build time of the IDGs (parse excluded: lowering, analyses, trip counts, warp walk) for the
//! largest Rodinia kernel, a Triton tile kernel (without counters: most of its time is the
//! walks of nearby groups that look for shared data) and a kernel with a 10^6-trip loop.

use criterion::{criterion_group, criterion_main, Criterion};

fn root(p: &str) -> String {
    format!("{}/../../{p}", env!("CARGO_MANIFEST_DIR"))
}

fn case(c: &mut Criterion, name: &str, file: &str, entry: &str, launch: ir::Launch) {
    let text = std::fs::read_to_string(root(file)).expect("sample present");
    let module = ptx::parse(&text).expect("sample parses");
    let opts = walk::Options::default();
    c.bench_function(name, |b| {
        b.iter(|| {
            walk::front_end(&module, entry, &launch, &ir::TripInputs::default(), &opts)
                .expect("builds")
                .built
                .idgs
                .classes
                .len()
        })
    });
}

/// Benchmark name, PTX file, entry, grid, block and integer parameters (index, value).
type Case = (
    &'static str,
    &'static str,
    &'static str,
    [u32; 3],
    [u32; 3],
    &'static [(u32, i64)],
);

const CASES: [Case; 4] = [
    (
        "build/lud_perimeter",
        "ptx_samples/rodinia/lud.ptx",
        "_Z13lud_perimeterPfiii",
        [63, 1024, 1],
        [32, 1, 1],
        &[(1, 1024), (2, 0), (3, 1_048_576)],
    ),
    (
        "build/hotspot",
        "ptx_samples/rodinia/hotspot.ptx",
        "_Z10hotspot_2diPKfS0_Pfiiiifffff",
        [342, 342, 1],
        [16, 16, 1],
        &[(0, 2), (4, 4096), (5, 4096), (6, 2), (7, 2)],
    ),
    (
        "build/triton_matmul",
        "ptx_samples/heldout/triton/matmul.ptx",
        "matmul_kernel",
        [1024, 1, 1],
        [256, 1, 1],
        &[
            (3, 4096),
            (4, 4096),
            (5, 4096),
            (6, 4096),
            (7, 4096),
            (8, 4096),
            (9, 0),
            (10, 0),
        ],
    ),
    (
        "build/long_loop_1e6",
        "ptx_samples/sm_90/long_loop.ptx",
        "_Z15long_loop_paramPfffi",
        [1, 1, 1],
        [32, 1, 1],
        &[(3, 1_000_000)],
    ),
];

fn build(c: &mut Criterion) {
    for (name, file, entry, grid, block, params) in CASES {
        let launch = ir::Launch {
            grid,
            block,
            params: params
                .iter()
                .map(|(i, v)| (i.to_string(), ir::ParamValue::Int(*v)))
                .collect(),
        };
        case(c, name, file, entry, launch);
    }
}

criterion_group!(benches, build);
criterion_main!(benches);
