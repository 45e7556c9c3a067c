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

fn build(c: &mut Criterion) {
    case(
        c,
        "build/lud_perimeter",
        "ptx_samples/rodinia/lud.ptx",
        "_Z13lud_perimeterPfiii",
        ir::Launch {
            grid: [63, 1024, 1],
            block: [32, 1, 1],
            params: vec![
                ("1".into(), 1024.into()),
                ("2".into(), 0.into()),
                ("3".into(), 1_048_576.into()),
            ],
        },
    );
    case(
        c,
        "build/hotspot",
        "ptx_samples/rodinia/hotspot.ptx",
        "_Z10hotspot_2diPKfS0_Pfiiiifffff",
        ir::Launch {
            grid: [342, 342, 1],
            block: [16, 16, 1],
            params: [(0, 2), (4, 4096), (5, 4096), (6, 2), (7, 2)]
                .iter()
                .map(|(i, v)| (i.to_string(), ir::ParamValue::Int(*v)))
                .collect(),
        },
    );
    case(
        c,
        "build/triton_matmul",
        "ptx_samples/heldout/triton/matmul.ptx",
        "matmul_kernel",
        ir::Launch {
            grid: [1024, 1, 1],
            block: [256, 1, 1],
            params: [
                (3, 4096),
                (4, 4096),
                (5, 4096),
                (6, 4096),
                (7, 4096),
                (8, 4096),
                (9, 0),
                (10, 0),
            ]
            .iter()
            .map(|(i, v)| (i.to_string(), ir::ParamValue::Int(*v)))
            .collect(),
        },
    );
    case(
        c,
        "build/long_loop_1e6",
        "ptx_samples/sm_90/long_loop.ptx",
        "_Z15long_loop_paramPfffi",
        ir::Launch {
            grid: [1, 1, 1],
            block: [32, 1, 1],
            params: vec![("3".into(), 1_000_000.into())],
        },
    );
}

criterion_group!(benches, build);
criterion_main!(benches);
