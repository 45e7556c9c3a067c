//! Long robustness run: `cargo run --release -p ptx --example fuzz -- [COUNT] [SEED]`.
//! Mutates every `.ptx` file given on stdin-free defaults (the bundled fixture and samples)
//! COUNT times in total (default 1,000,000), asserting no panic and a stable round trip.

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
    for dir in ["../../ptx_samples/rodinia", "../../ptx_samples"] {
        if let Ok(rd) = std::fs::read_dir(root.join(dir)) {
            for e in rd.flatten() {
                if e.path().extension().is_some_and(|x| x == "ptx") {
                    if let Ok(s) = std::fs::read_to_string(e.path()) {
                        sources.push(s);
                    }
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
