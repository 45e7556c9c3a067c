//! Long robustness run: `cargo run --release -p ptx --example fuzz -- [COUNT] [SEED]`.
//! Draws COUNT inputs (default 1,000,000) by mutating windows of the bundled fixture and of
//! every `.ptx` under `ptx_samples/`, asserting no panic and a stable print/parse round trip.
//! A panic (or an unstable round trip) is caught, counted and its input written under
//! `target/fuzz-findings/` (`ptx-SEED-INDEX.txt`); the run fails at the end if any input did.

#[path = "../tests/support/fuzzing.rs"]
mod fuzzing;
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
    let fuzzing::Outcome {
        parsed,
        panics,
        elapsed,
    } = fuzzing::run("ptx", &sources, seed, count, mutate::mutate, mutate::check);
    println!(
        "{count} mutated inputs (seed {seed}) from {} sources: {panics} panics, {parsed} parsed and round-tripped ({:?})",
        sources.len(),
        elapsed
    );
    if panics > 0 {
        eprintln!("{panics} inputs panicked; see target/fuzz-findings/");
        std::process::exit(1);
    }
}
