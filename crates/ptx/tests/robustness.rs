//! Mutated real PTX never makes the parser panic, and whatever parses round-trips through
//! the printer. The long run (>= 1e6 inputs) is `cargo run --release -p ptx --example fuzz`.

#[path = "support/mutate.rs"]
mod mutate;

use proptest::prelude::*;

const SOURCES: &[&str] = &[
    include_str!("fixtures/kitchen_sink.ptx"),
    include_str!("../../../ptx_samples/rodinia/lud.ptx"),
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn mutated_ptx_never_panics(seed in any::<u64>(), which in 0..SOURCES.len()) {
        let mut rng = mutate::Rng(seed | 1);
        let text = mutate::mutate(SOURCES[which].as_bytes(), &mut rng, 2048);
        mutate::check(&text);
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        mutate::check(&String::from_utf8_lossy(&bytes));
    }
}

#[test]
fn binary_garbage_is_an_error() {
    let mut rng = mutate::Rng(0x9E37_79B9_7F4A_7C15);
    let bytes: Vec<u8> = (0..1 << 16).map(|_| rng.next() as u8).collect();
    assert!(ptx::parse(&String::from_utf8_lossy(&bytes)).is_err());
}

/// A 100 MB module (the kitchen-sink kernel repeated under new names) parses in linear
/// time and memory. Run with `cargo test --release -p ptx -- --ignored`.
#[test]
#[ignore]
fn hundred_megabyte_module() {
    let src = include_str!("fixtures/kitchen_sink.ptx");
    let body_start = src.find(".visible .entry sink_kernel").unwrap();
    let body_end = src.find(".section .debug_abbrev").unwrap();
    let kernel = &src[body_start..body_end];
    let mut big = String::with_capacity(101 << 20);
    big.push_str(&src[..body_start]);
    let mut n = 0;
    while big.len() < 100 << 20 {
        big.push_str(&kernel.replace("sink_kernel", &format!("sink_kernel_{n}")));
        n += 1;
    }
    let t = std::time::Instant::now();
    let m = ptx::parse(&big).unwrap();
    let dt = t.elapsed();
    assert_eq!(m.kernels().count(), n);
    eprintln!(
        "{} MB, {n} kernels in {dt:?} ({:.0} MB/s)",
        big.len() >> 20,
        big.len() as f64 / 1e6 / dt.as_secs_f64()
    );
}
