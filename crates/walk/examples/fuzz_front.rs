//! Robustness run past the parser:
//! `cargo run --release -p walk --example fuzz_front -- [COUNT] [SEED]`.
//! Mutates the `.ptx` files under `ptx_samples/` (byte-level mutations of a window, or an
//! integer literal swapped for a numeric extreme) and drives every input that parses through
//! lowering, analysis, launch binding, trip counts and the warp walk. A panic is caught,
//! counted and its input written under `target/fuzz-findings/` (`front-SEED-INDEX.txt`); the
//! run fails at the end if any input panicked. `fuzz_front replay FILE [DRAWS]` drives a saved
//! input under many launches, printing the first panic.

#[allow(dead_code)]
#[path = "../../ptx/tests/support/mutate.rs"]
mod mutate;

use std::panic::{catch_unwind, AssertUnwindSafe};

use mutate::Rng;

const EXTREMES: [&str; 8] = [
    "0",
    "-1",
    "2147483647",
    "-2147483648",
    "4294967295",
    "9223372036854775807",
    "-9223372036854775808",
    "1099511627776",
];

/// Replaces one decimal literal of `src` by a numeric extreme.
fn extreme(src: &str, rng: &mut Rng) -> String {
    let digits: Vec<usize> = src
        .char_indices()
        .filter(|&(i, c)| {
            c.is_ascii_digit() && (i == 0 || !src.as_bytes()[i - 1].is_ascii_alphanumeric())
        })
        .map(|(i, _)| i)
        .collect();
    if digits.is_empty() {
        return src.to_string();
    }
    let at = digits[rng.below(digits.len())];
    let end = at
        + src[at..]
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(src.len() - at);
    format!(
        "{}{}{}",
        &src[..at],
        EXTREMES[rng.below(EXTREMES.len())],
        &src[end..]
    )
}

fn drive(text: &str, rng: &mut Rng) -> bool {
    let Ok(module) = ptx::parse(text) else {
        return false;
    };
    let names: Vec<String> = module.kernels().map(|f| f.name.clone()).collect();
    let Some(name) = names.get(rng.below(names.len().max(1))) else {
        return false;
    };
    let launch = ir::Launch {
        grid: [1 + rng.below(4) as u32, 1, 1],
        block: [32 * (1 + rng.below(4) as u32), 1, 1],
        params: Vec::new(),
    };
    let inputs = ir::TripInputs {
        explicit: &[],
        profile: None,
    };
    let opts = walk::Options {
        max_inlined: 50_000,
        ..walk::Options::default()
    };
    let _ = walk::front_end(&module, name, &launch, &inputs, &opts);
    true
}

fn main() {
    let mut args = std::env::args().skip(1);
    if std::env::args().nth(1).as_deref() == Some("replay") {
        // `replay FILE [DRAWS]`: drives a saved input under the launches and kernel choices
        // it may have met, the first panic printed with its message.
        let file = args.nth(1).expect("usage: fuzz_front replay FILE [DRAWS]");
        let text = std::fs::read_to_string(&file).expect("the saved input");
        let draws: u64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(1000);
        for seed in 1..=draws {
            drive(&text, &mut Rng(seed));
        }
        println!("{file}: {draws} replays without a panic");
        return;
    }
    let count: u64 = args
        .next()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_000_000);
    let seed: u64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(1);
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../ptx_samples");
    let mut sources = Vec::new();
    let mut dirs = vec![root];
    while let Some(dir) = dirs.pop() {
        let Ok(rd) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "ptx")
                && e.metadata().is_ok_and(|m| m.len() < 200_000)
            {
                if let Ok(s) = std::fs::read_to_string(&p) {
                    sources.push(s);
                }
            }
        }
    }
    sources.sort();
    let findings =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/fuzz-findings");
    // Panics are counted and saved; their messages would drown the report.
    std::panic::set_hook(Box::new(|_| {}));
    let mut rng = Rng(seed | 1);
    let mut reached = 0u64;
    let mut panics = 0u64;
    let t = std::time::Instant::now();
    for i in 0..count {
        let src = &sources[rng.below(sources.len())];
        let text = if rng.below(2) == 0 {
            extreme(src, &mut rng)
        } else {
            mutate::mutate(src.as_bytes(), &mut rng, 64)
        };
        match catch_unwind(AssertUnwindSafe(|| drive(&text, &mut rng))) {
            Ok(true) => reached += 1,
            Ok(false) => {}
            Err(_) => {
                panics += 1;
                let _ = std::fs::create_dir_all(&findings);
                let _ = std::fs::write(findings.join(format!("front-{seed}-{i}.txt")), &text);
            }
        }
        if i % 50_000 == 49_999 {
            eprintln!(
                "{} inputs (seed {seed}), {panics} panics, {:?}",
                i + 1,
                t.elapsed()
            );
        }
    }
    println!(
        "{count} mutated inputs (seed {seed}) from {} sources: {panics} panics, {reached} reached lowering and the walk ({:?})",
        sources.len(),
        t.elapsed()
    );
    if panics > 0 {
        eprintln!("{panics} inputs panicked; see target/fuzz-findings/");
        std::process::exit(1);
    }
}
