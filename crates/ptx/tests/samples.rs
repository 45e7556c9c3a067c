//! Every PTX file of the repository parses, and printing then re-parsing gives the same AST.

use std::path::{Path, PathBuf};

fn ptx_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            ptx_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "ptx") {
            out.push(p);
        }
    }
}

fn all_inputs() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut v = Vec::new();
    ptx_files(&root.join("../../ptx_samples"), &mut v);
    ptx_files(&root.join("tests/fixtures"), &mut v);
    v.sort();
    v
}

#[test]
fn every_sample_parses_and_round_trips() {
    let files = all_inputs();
    assert!(!files.is_empty(), "no PTX inputs found");
    let mut failures = Vec::new();
    for path in &files {
        let src = std::fs::read_to_string(path).unwrap();
        let mut m = match ptx::parse(&src) {
            Ok(m) => m,
            Err(e) => {
                failures.push(format!(
                    "{}:{}:{}: {}",
                    path.display(),
                    e.span.line,
                    e.span.col,
                    e
                ));
                continue;
            }
        };
        // The multi-megabyte benchmark module takes seconds to print and re-parse in debug
        // builds; release runs (`cargo test --release`) and the bench cover it.
        if cfg!(debug_assertions) && src.len() > 2 << 20 {
            continue;
        }
        let printed = m.to_string();
        let mut again = match ptx::parse(&printed) {
            Ok(m) => m,
            Err(e) => {
                let line = printed.lines().nth(e.span.line as usize - 1).unwrap_or("");
                failures.push(format!(
                    "{} (printed) {}:{}: {e}\n  {line}",
                    path.display(),
                    e.span.line,
                    e.span.col
                ));
                continue;
            }
        };
        m.clear_spans();
        again.clear_spans();
        if m != again {
            failures.push(format!("{}: AST changed after print/parse", path.display()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
