//! Mutations of real PTX for robustness tests: byte flips, truncation, insertion of
//! random bytes or PTX punctuation, deletion and duplication of ranges. Deterministic for a
//! given seed, so a failing case can be replayed.

#[path = "rng.rs"]
mod rng;
pub use rng::Rng;

const TOKENS: &[&[u8]] = &[
    b"{",
    b"}",
    b"[",
    b"]",
    b"(",
    b")",
    b";",
    b",",
    b":",
    b"@",
    b"!",
    b"|",
    b"-",
    b"+",
    b".",
    b"\"",
    b"/*",
    b"*/",
    b"//",
    b"\n",
    b"::",
    b"_",
    b"%r1",
    b"%tid.x",
    b"0f",
    b"0d",
    b"0x",
    b"99999999999999999999",
    b".reg .b32 %r<3>;",
    b".loc 1 2 3",
    b"$L__BB0_1:",
    b".b8 1",
    b"{ ret; }",
    b"ld.global.v4.f32",
    b"call (r), f, (p);",
    b".branchtargets",
    b".param",
    b"= {",
    b"generic(",
    b"\xff",
    b"\x00",
    b"\xe2\x82\xac",
];

/// Applies 1 to 4 random mutations to a random window of `src` and returns the text.
pub fn mutate(src: &[u8], rng: &mut Rng, max_window: usize) -> String {
    let start = rng.below(src.len());
    let len = 1 + rng.below(max_window.min(src.len() - start));
    // Half of the cases keep the file start (headers); the rest start mid-file.
    let mut v: Vec<u8> = if rng.below(2) == 0 {
        src[..len.min(src.len())].to_vec()
    } else {
        src[start..start + len].to_vec()
    };
    for _ in 0..1 + rng.below(4) {
        let n = v.len();
        let at = rng.below(n + 1);
        match rng.below(6) {
            0 if n > 0 => v[at.min(n - 1)] = rng.next() as u8,
            1 => v.truncate(at),
            2 => {
                let t = TOKENS[rng.below(TOKENS.len())];
                v.splice(at..at, t.iter().copied());
            }
            3 => {
                let end = (at + rng.below(64)).min(n);
                v.drain(at..end);
            }
            4 => {
                let end = (at + rng.below(256)).min(n);
                let dup: Vec<u8> = v[at..end].to_vec();
                v.splice(at..at, dup);
            }
            _ => {
                let bytes: Vec<u8> = (0..1 + rng.below(8)).map(|_| rng.next() as u8).collect();
                v.splice(at..at, bytes);
            }
        }
    }
    String::from_utf8_lossy(&v).into_owned()
}

/// Parses `text`; if it parses, printing and re-parsing must give the same AST.
/// Returns whether the text parsed.
pub fn check(text: &str) -> bool {
    match ptx::parse(text) {
        Err(_) => false,
        Ok(mut m) => {
            let printed = m.to_string();
            let mut again = ptx::parse(&printed).unwrap_or_else(|e| {
                panic!("printed module does not parse: {e}\ninput:\n{text}\nprinted:\n{printed}")
            });
            m.clear_spans();
            again.clear_spans();
            assert!(
                m == again,
                "round trip changed the AST\ninput:\n{text}\nprinted:\n{printed}"
            );
            true
        }
    }
}
