//! Inputs the fuzz targets (`docs/robustness.md`) found to panic, kept as regressions.

use ir::AbstractAddr;

/// fuzz_back sim, seed 43: lanes at extreme absolute addresses overflowed the stride and
/// sector arithmetic; such an access has no exact pattern.
#[test]
fn extreme_addresses_have_no_pattern() {
    for (a, b) in [
        (i64::MIN, i64::MAX),
        (i64::MAX - 4, 0),
        (1 << 60, -(1 << 60)),
    ] {
        let mut addrs = [Some(AbstractAddr {
            base: None,
            offset: 0,
        }); 32];
        addrs[0] = Some(AbstractAddr {
            base: None,
            offset: a,
        });
        addrs[1] = Some(AbstractAddr {
            base: None,
            offset: b,
        });
        assert_eq!(walk::analyse_addresses(&addrs, u32::MAX, 16), None);
    }
    let near = [Some(AbstractAddr {
        base: None,
        offset: 1 << 40,
    }); 32];
    assert!(walk::analyse_addresses(&near, u32::MAX, 4).is_some());
}
