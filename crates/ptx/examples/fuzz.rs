//! Long robustness run: `cargo run --release -p ptx --example fuzz -- [COUNT] [SEED]`.
//! Draws COUNT inputs (default 1,000,000) by mutating windows of the bundled fixture and of
//! every `.ptx` under `ptx_samples/`, asserting no panic and a stable print/parse round trip.

#[path = "../tests/support/mutate.rs"]
mod mutate;

fn main() {
    let mut args = std::env::args().skip(1);
    let count: u64 = args
        .next()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_000_000);
    let seed: u64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(1);
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut sources = vec![include_str!("../tests/fixtures/kitchen_sink.ptx").to_string()];
    let mut dirs = vec![root.join("../../ptx_samples")];
    while let Some(dir) = dirs.pop() {
        let Ok(rd) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "ptx") {
                if let Ok(s) = std::fs::read_to_string(&p) {
                    sources.push(s);
                }
            }
        }
    }
    let mut rng = mutate::Rng(seed | 1);
    let mut parsed = 0u64;
    let t = std::time::Instant::now();
    for k in 0..count {
        let src = &sources[rng.below(sources.len())];
        let text = mutate::mutate(src.as_bytes(), &mut rng, 4096);
        if mutate::check(&text) {
            parsed += 1;
        }
        if k % 100_000 == 99_999 {
            eprintln!("{} inputs, {parsed} parsed, {:?}", k + 1, t.elapsed());
        }
    }
    println!(
        "{count} mutated inputs from {} sources: no panic, {parsed} parsed and round-tripped ({:?})",
        sources.len(),
        t.elapsed()
    );
}
