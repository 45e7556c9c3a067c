//! The long fuzz run shared by `ptx`'s and `sass`'s `fuzz` examples: COUNT inputs mutated from
//! the sources with a fixed seed, each checked under `catch_unwind`; a panicking input is
//! counted and written to `target/fuzz-findings/TAG-SEED-INDEX.txt`.

use crate::mutate::Rng;

/// What a run found.
pub struct Outcome {
    /// Inputs the check accepted (parsed).
    pub parsed: u64,
    pub panics: u64,
    pub elapsed: std::time::Duration,
}

/// Runs `count` inputs drawn from `sources` by `mutate` through `check`, reporting progress
/// every 100 000 inputs on standard error.
pub fn run(
    tag: &str,
    sources: &[String],
    seed: u64,
    count: u64,
    mutate: fn(&[u8], &mut Rng, usize) -> String,
    check: fn(&str) -> bool,
) -> Outcome {
    let findings =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/fuzz-findings");
    // Panics are counted and saved; their messages would drown the report.
    std::panic::set_hook(Box::new(|_| {}));
    let mut rng = Rng(seed | 1);
    let mut parsed = 0u64;
    let mut panics = 0u64;
    let t = std::time::Instant::now();
    for k in 0..count {
        let src = &sources[rng.below(sources.len())];
        let text = mutate(src.as_bytes(), &mut rng, 4096);
        match std::panic::catch_unwind(|| check(&text)) {
            Ok(true) => parsed += 1,
            Ok(false) => {}
            Err(_) => {
                panics += 1;
                let _ = std::fs::create_dir_all(&findings);
                let _ = std::fs::write(findings.join(format!("{tag}-{seed}-{k}.txt")), &text);
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
    Outcome {
        parsed,
        panics,
        elapsed: t.elapsed(),
    }
}
