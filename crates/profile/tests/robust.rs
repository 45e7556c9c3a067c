//! Hostile input never panics: random text, and real fixtures with bytes mutated, deleted or
//! truncated, all give a `Profile` or an error.

use proptest::prelude::*;

const FIXTURES: [&str; 5] = [
    include_str!("fixtures/nvprof_metrics_handwritten.csv"),
    include_str!("fixtures/nvprof_trace_handwritten.csv"),
    include_str!("fixtures/ncu_raw_handwritten.csv"),
    include_str!("fixtures/ncu_long_hotspot.csv"),
    include_str!("fixtures/trips.csv"),
];

/// Replaces, deletes or truncates at byte offsets, keeping the text valid UTF-8.
fn mutate(text: &str, edits: &[(usize, u8, u8)]) -> String {
    let mut b = text.as_bytes().to_vec();
    for &(pos, kind, byte) in edits {
        if b.is_empty() {
            break;
        }
        let p = pos % b.len();
        match kind % 3 {
            0 => {
                let pool = b",\"\n0.-%(x ";
                b[p] = pool[usize::from(byte) % pool.len()];
            }
            1 => {
                b.remove(p);
            }
            _ => b.truncate(p),
        }
    }
    String::from_utf8_lossy(&b).into_owned()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn random_text_never_panics(s in "[ -~\n\"]{0,400}") {
        let _ = profile::parse(&s, "random.csv");
    }

    #[test]
    fn mutated_fixtures_never_panic(
        which in 0usize..FIXTURES.len(),
        edits in proptest::collection::vec((any::<usize>(), any::<u8>(), any::<u8>()), 1..6),
    ) {
        let text = mutate(FIXTURES[which], &edits);
        if let Ok(p) = profile::parse(&text, "mutated.csv") {
            for k in &p.kernels {
                for inv in [profile::Invocation::Median, profile::Invocation::Index(0)] {
                    if let Some(l) = k.launch(inv) {
                        for q in profile::Quantity::ALL {
                            if let Some(m) = l.quantity(q) {
                                prop_assert!(m.value.is_finite());
                            }
                        }
                    }
                }
            }
        }
    }

    /// Any integer printed with thousands separators reads back exactly.
    #[test]
    fn thousands_separators_round_trip(n in 0u64..1_000_000_000_000) {
        let digits = n.to_string();
        let mut grouped = String::new();
        for (i, c) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i) % 3 == 0 {
                grouped.push(',');
            }
            grouped.push(c);
        }
        prop_assert_eq!(profile::units::parse_number(&grouped), Some(n as f64));
    }
}
