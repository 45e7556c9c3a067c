//! Long robustness run: `cargo run --release -p sass --example fuzz -- [COUNT] [SEED]`.
//! Draws COUNT inputs (default 1,000,000) by mutating windows of every fixture under
//! `tests/fixtures/`, asserting that no reader (listing, `-res-usage`, `ptxas -v`) nor the
//! analysis panics and that every error names a line inside the text. A panic is caught,
//! counted and its input written under `target/fuzz-findings/` (`sass-SEED-INDEX.txt`); the
//! run fails at the end if any input did.

#[path = "../../ptx/tests/support/fuzzing.rs"]
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
    let sources = mutate::fixtures();
    if sources.is_empty() {
        eprintln!(
            "no fixtures under {}",
            root.join("tests/fixtures").display()
        );
        std::process::exit(2);
    }
    let fuzzing::Outcome {
        parsed,
        panics,
        elapsed,
    } = fuzzing::run("sass", &sources, seed, count, mutate::mutate, mutate::check);
    println!(
        "{count} mutated inputs (seed {seed}) from {} fixtures: {panics} panics, {parsed} listings parsed ({:?})",
        sources.len(),
        elapsed
    );
    if panics > 0 {
        eprintln!("{panics} inputs panicked; see target/fuzz-findings/");
        std::process::exit(1);
    }
}
