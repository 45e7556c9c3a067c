//! Mutations of real listings and reports for robustness tests: byte flips, truncation,
//! insertion of random bytes or listing punctuation, deletion and duplication of ranges.
//! Deterministic for a given seed, so a failing case can be replayed.

#[path = "../../../ptx/tests/support/rng.rs"]
mod rng;
pub use rng::Rng;

const TOKENS: &[&[u8]] = &[
    b"/*",
    b"*/",
    b"/*0000*/",
    b"/*ffffffffffffffffff*/",
    b"/* 0x",
    b"@",
    b"@!",
    b"@P0 ",
    b";",
    b",",
    b"[",
    b"]",
    b"(",
    b")",
    b"{",
    b"}",
    b"`(",
    b".L_x_1",
    b":",
    b"\n",
    b"\t",
    b"Function : ",
    b".section .text.k,",
    b"code for ",
    b"//## File \"",
    b"\", line ",
    b" inlined at ",
    b"(*\"BRANCH_TARGETS ",
    b"\"*)",
    b"BRA ",
    b"BRX R8 ",
    b"CALL.REL.NOINC ",
    b"EXIT ;",
    b"NOP;",
    b"0x",
    b"-0x8000000000000000",
    b"99999999999999999999",
    b"REG:",
    b"Function k:",
    b"ptxas info    : Used ",
    b" bytes stack frame, ",
    b"'",
    b"\xff",
    b"\x00",
    b"\xe2\x82\xac",
];

/// Applies 1 to 4 random mutations to a random window of `src` and returns the text.
pub fn mutate(src: &[u8], rng: &mut Rng, max_window: usize) -> String {
    if src.is_empty() {
        return String::new();
    }
    let start = rng.below(src.len());
    let len = 1 + rng.below(max_window.min(src.len() - start));
    // Half of the cases keep the file start (headers); the rest start mid-file.
    let mut v: Vec<u8> = if rng.below(2) == 0 {
        src[..len.min(src.len())].to_vec()
    } else {
        src[start..start + len].to_vec()
    };
    for _ in 0..1 + rng.below(4) {
        let at = rng.below(v.len() + 1);
        match rng.below(5) {
            0 if !v.is_empty() => {
                let i = rng.below(v.len());
                v[i] = rng.next() as u8;
            }
            1 => v.truncate(at),
            2 => {
                let t = TOKENS[rng.below(TOKENS.len())];
                v.splice(at..at, t.iter().copied());
            }
            3 if at < v.len() => {
                let end = (at + 1 + rng.below(64)).min(v.len());
                v.drain(at..end);
            }
            _ if at < v.len() => {
                let end = (at + 1 + rng.below(64)).min(v.len());
                let piece = v[at..end].to_vec();
                v.splice(at..at, piece);
            }
            _ => {}
        }
    }
    String::from_utf8_lossy(&v).into_owned()
}

/// Runs every reader and the analysis on `text`; `true` if the listing parsed. Errors must
/// name a line within the text and a column of at least 1.
pub fn check(text: &str) -> bool {
    let lines = u32::try_from(text.lines().count())
        .unwrap_or(u32::MAX)
        .max(1);
    let ok = |e: &sass::ParseError| e.line >= 1 && e.line <= lines && e.col >= 1;
    let _ = sass::parse_resource_usage(text).map_err(|e| assert!(ok(&e), "{e}"));
    let _ = sass::parse_ptxas_info(text).map_err(|e| assert!(ok(&e), "{e}"));
    match sass::parse_listing(text) {
        Ok(l) => {
            for k in &l.kernels {
                let _ = sass::analysis::analyze(k);
            }
            true
        }
        Err(e) => {
            assert!(ok(&e), "{e}");
            false
        }
    }
}

/// Every fixture's text.
pub fn fixtures() -> Vec<String> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures");
    let mut out = Vec::new();
    if let Ok(rd) = std::fs::read_dir(dir) {
        let mut paths: Vec<_> = rd.flatten().map(|e| e.path()).collect();
        paths.sort();
        for p in paths {
            if p.extension().is_some_and(|x| x == "sass" || x == "txt") {
                if let Ok(s) = std::fs::read_to_string(&p) {
                    out.push(s);
                }
            }
        }
    }
    out
}
