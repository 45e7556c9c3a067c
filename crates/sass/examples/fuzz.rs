//! Long robustness run: `cargo run --release -p sass --example fuzz -- [COUNT] [SEED]`.
//! Draws COUNT inputs (default 1,000,000) by mutating windows of every fixture under
//! `tests/fixtures/`, asserting that no reader (listing, `-res-usage`, `ptxas -v`) nor the
//! analysis panics and that every error names a line inside the text. A panic is caught,
//! counted and its input written under `target/fuzz-findings/` (`sass-SEED-INDEX.txt`); the
//! run fails at the end if any input did.

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
    let sources = mutate::fixtures();
    if sources.is_empty() {
        eprintln!(
            "no fixtures under {}",
            root.join("tests/fixtures").display()
        );
        std::process::exit(2);
    }
    let findings = root.join("../../target/fuzz-findings");
    // Panics are counted and saved; their messages would drown the report.
    std::panic::set_hook(Box::new(|_| {}));
    let mut rng = mutate::Rng(seed | 1);
    let mut parsed = 0u64;
    let mut panics = 0u64;
    let t = std::time::Instant::now();
    for k in 0..count {
        let src = &sources[rng.below(sources.len())];
        let text = mutate::mutate(src.as_bytes(), &mut rng, 4096);
        match std::panic::catch_unwind(|| mutate::check(&text)) {
            Ok(true) => parsed += 1,
            Ok(false) => {}
            Err(_) => {
                panics += 1;
                let _ = std::fs::create_dir_all(&findings);
                let _ = std::fs::write(findings.join(format!("sass-{seed}-{k}.txt")), &text);
            }
        }
        if k % 100_000 == 99_999 {
            eprintln!(
                "{} inputs (seed {seed}), {parsed} parsed, {panics} panics, {:?}",
                k + 1,
                t.elapsed()
            );
        }
    }
    println!(
        "{count} mutated inputs (seed {seed}) from {} fixtures: {panics} panics, {parsed} listings parsed ({:?})",
        sources.len(),
        t.elapsed()
    );
    if panics > 0 {
        eprintln!("{panics} inputs panicked; see target/fuzz-findings/");
        std::process::exit(1);
    }
}
