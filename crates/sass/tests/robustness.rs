//! No input makes a reader or the analysis panic: mutated fixtures (fixed seed) and arbitrary
//! text (proptest), every error with a line inside the text. The long run is
//! `cargo run --release -p sass --example fuzz`.

mod support;

use proptest::prelude::*;
use support::mutate::{check, fixtures, mutate, Rng};

#[test]
fn mutated_fixtures_never_panic() {
    let sources = fixtures();
    assert!(sources.len() >= 10);
    let mut rng = Rng(20261127);
    let mut parsed = 0;
    for _ in 0..3000 {
        let src = &sources[rng.below(sources.len())];
        if check(&mutate(src.as_bytes(), &mut rng, 2048)) {
            parsed += 1;
        }
    }
    // Most mutations leave some listing readable; all failing would mean a broken reader.
    assert!(parsed > 300, "{parsed}");
}

proptest! {
    #[test]
    fn arbitrary_text_never_panics(s in "\\PC{0,400}") {
        check(&s);
    }

    #[test]
    fn instruction_shaped_lines_never_panic(
        body in "[ \\t]{0,4}/\\*[0-9a-f]{1,5}\\*/[ ]{0,12}(@!?U?P[0-7T] )?[A-Z][A-Z0-9.]{0,12}[ ,;\\[\\]()`|!\\-+.A-Za-z0-9_*\"]{0,60}"
    ) {
        check(&format!("\tcode for sm_90\n\t\tFunction : k\n{body}\n"));
    }
}
