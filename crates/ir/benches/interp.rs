//! Throughput of the abstract interpreter (one warp stepping every instruction of a kernel,
//! as the IDG walker does per path) and of trip-count resolution with per-thread sampling.

use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;

fn load(file: &str, kernel: &str) -> ir::Kernel {
    let path = format!("{}/../../ptx_samples/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(path).expect("sample exists");
    let module = ptx::parse(&text).expect("parses");
    ir::lower_kernel(&module, kernel).expect("lowers")
}

fn bench(c: &mut Criterion) {
    let k = load("rodinia/lud.ptx", "_Z13lud_perimeterPfiii");
    let launch = ir::Launch {
        grid: [64, 1, 1],
        block: [32, 1, 1],
        params: vec![("1".into(), 2048.into()), ("2".into(), 0.into())],
    }
    .bind(&k)
    .expect("binds");
    c.bench_function("warp_step_lud_perimeter_all_insts", |b| {
        b.iter(|| {
            let mut w = ir::WarpState::new(&k, &launch, [1, 0, 0], 0);
            let m = w.full_mask();
            for inst in &k.insts {
                w.step(inst, m);
            }
            black_box(w.lanes[31].get(ir::RegId(0)))
        })
    });

    let g = load("sm_90/loops.ptx", "_Z11grid_stridePKfPffi");
    let an = ir::analyze(&g).expect("reducible");
    let gl = ir::Launch {
        grid: [4, 1, 1],
        block: [1024, 1, 1],
        params: vec![("3".into(), 1_000_000.into())],
    }
    .bind(&g)
    .expect("binds");
    c.bench_function("resolve_trips_grid_stride_2x1024_threads", |b| {
        b.iter(|| {
            black_box(
                ir::resolve_trips(&g, &an, &gl, &ir::TripInputs::default()).expect("resolves"),
            )
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
