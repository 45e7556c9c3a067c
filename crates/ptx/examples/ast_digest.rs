//! Differential check (development aid): prints a hash of `format!("{:?}", ptx::parse(..))`
//! (AST with spans, or the error) for every sample, for mutated inputs and for hand-written
//! section/instruction lines, one per line, so two parser versions can be diffed.
//! `cargo run --release -p ptx --example ast_digest -- [COUNT] > before.txt`

#[allow(dead_code)]
#[path = "../tests/support/mutate.rs"]
mod mutate;

use std::hash::{Hash, Hasher};

fn digest(text: &str) -> u64 {
    let r = ptx::parse(text);
    let mut h = std::collections::hash_map::DefaultHasher::new();
    format!("{r:?}").hash(&mut h);
    h.finish()
}

fn main() {
    let count: u64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(200_000);
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    let mut dirs = vec![root.join("../../ptx_samples"), root.join("tests/fixtures")];
    while let Some(dir) = dirs.pop() {
        for e in std::fs::read_dir(&dir).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "ptx") {
                files.push(p);
            }
        }
    }
    files.sort();
    let mut sources = Vec::new();
    for p in &files {
        let s = std::fs::read_to_string(p).unwrap();
        println!("{} {:016x}", p.display(), digest(&s));
        sources.push(s);
    }
    // Hand-written section bodies around the fast paths.
    let lines = [
        ".b8 5",
        ".b8 5;",
        ".b8 5 ;",
        ".b8 5,",
        ".b8 5, 6",
        ".b8 5,6,7",
        ".b8 05",
        ".b8 0x5",
        ".b8 -1",
        ".b8 5/*x*/",
        ".b8 5 // c",
        ".b8 99999999999999999999",
        ".b8 5U",
        ".b8 5.0",
        ".b8 5e3",
        ".b8 0f3F800000",
        ".b8\t5",
        ".b8  5  ",
        ".b8 5\r",
        ".b8 a",
        ".b8 a+1",
        ".b8 a-b",
        ".b8 a-b+4",
        ".b8 generic(a)",
        ".b8 0xff(generic(a))",
        ".b8",
        ".b8 ",
        ".b8 5x",
        ".b8 5_",
        ".b8 5 6",
        ".b64 $L__tmp1",
        ".b64 $L__tmp1+8",
        ".b32 0",
        ".b16 7",
        ".b8 1\n.b8 2",
        ".b8 1\n.b32 2",
        ".b8 1\n.b8 a",
        "L: .b8 1",
        "L:\n.b8 3",
        ".u8 1",
        ".foo 1",
        ".b8 1 /* a\nb */ 2",
        ".b8 1 /* a */ , 2",
        ".b8 /*c*/ 1",
        ".b8 1\n\n.b8 2",
        ".b8 18446744073709551615",
        ".b8 9223372036854775807",
        ".b8 9223372036854775808",
        ".b8 -9223372036854775808",
        ".b8 0777",
        ".b8 08",
        ".b8 0b101",
        ".b8 1;;",
        ".b8 1 ; .b8 2",
    ];
    for a in lines {
        for b in ["", "\n", "\n.b8 9\n"] {
            let src = format!(".version 8.0\n.target sm_80\n.section .debug_x\n{{\n{b}{a}\n}}\n");
            println!("line {:016x}", digest(&src));
            let src = format!(".section .debug_x {{ {a}{b} }}");
            println!("line {:016x}", digest(&src));
        }
    }
    let mut rng = mutate::Rng(7);
    for _ in 0..count {
        let src = &sources[rng.below(sources.len())];
        let window = if rng.below(2) == 0 { 4096 } else { 256 };
        let text = mutate::mutate(src.as_bytes(), &mut rng, window);
        println!("{:016x}", digest(&text));
    }
    // Windows starting at a line boundary, wrapped in a section or a kernel body, mutated.
    let big: Vec<&String> = sources.iter().filter(|s| s.contains(".section")).collect();
    for k in 0..count {
        let src = big[rng.below(big.len())].as_bytes();
        let mut at = rng.below(src.len());
        while at > 0 && src[at - 1] != b'\n' {
            at -= 1;
        }
        let len = 1 + rng.below(1024.min(src.len() - at));
        let body = String::from_utf8_lossy(&src[at..at + len]).into_owned();
        let wrapped = if k % 2 == 0 {
            format!(".version 8.0\n.target sm_80\n.section .debug_x\n{{\n{body}\n}}\n")
        } else {
            format!(".version 8.0\n.target sm_80\n.entry k()\n{{\n{body}\n}}\n")
        };
        println!("w {:016x}", digest(&wrapped));
        let text = mutate::mutate(wrapped.as_bytes(), &mut rng, 64);
        println!("wm {:016x}", digest(&text));
    }
}
