//! Parse timing: `cargo run --release -p ptx --example parse_time -- FILE [RUNS]`.
//! Prints the median, min and max wall time of `ptx::parse` over the file and its MB/s.

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .unwrap_or_else(|| "ptx_samples/large/big_debug.ptx".to_string());
    let runs: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(15);
    let src = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut times = Vec::new();
    for _ in 0..runs.max(1) {
        let t = std::time::Instant::now();
        let m = ptx::parse(std::hint::black_box(&src));
        let dt = t.elapsed().as_secs_f64();
        if let Err(e) = &m {
            panic!("{path}: {e}");
        }
        drop(m);
        times.push(dt);
    }
    times.sort_by(f64::total_cmp);
    let med = times[times.len() / 2];
    let mb = src.len() as f64 / 1e6;
    println!(
        "{path}: {mb:.2} MB, {} runs: median {:.2} ms ({:.1} MB/s), min {:.2} ms ({:.1} MB/s), max {:.2} ms",
        times.len(),
        med * 1e3,
        mb / med,
        times[0] * 1e3,
        mb / times[0],
        times[times.len() - 1] * 1e3
    );
}
