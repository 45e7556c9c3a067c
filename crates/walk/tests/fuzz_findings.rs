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
            sym: None,
            base: None,
            offset: 0,
        }); 32];
        addrs[0] = Some(AbstractAddr {
            sym: None,
            base: None,
            offset: a,
        });
        addrs[1] = Some(AbstractAddr {
            sym: None,
            base: None,
            offset: b,
        });
        assert_eq!(walk::analyse_addresses(&addrs, u32::MAX, 16), None);
    }
    let near = [Some(AbstractAddr {
        sym: None,
        base: None,
        offset: 1 << 40,
    }); 32];
    assert!(walk::analyse_addresses(&near, u32::MAX, 4).is_some());
}

/// fuzz_front, seed 2002 (fuzz profile): a global store at `[%rd+9223372036854775807]`
/// overflowed the sector arithmetic of the reuse tracking (`pattern::sectors`), which lacked
/// the ±2^56 range `analyse` already kept to; such an access now has unknown sectors.
#[test]
fn a_global_access_at_an_extreme_offset_has_unknown_sectors() {
    for (ty, offset) in [
        ("u32", "9223372036854775807"),
        ("v4.u32", "9223372036854775800"),
        ("u32", "-9223372036854775807"),
    ] {
        let regs = if ty == "u32" {
            "%r1"
        } else {
            "{%r1, %r1, %r1, %r1}"
        };
        let text = format!(
            ".version 7.0\n.target sm_80\n.address_size 64\n\
             .visible .entry k(.param .u64 p)\n{{\n .reg .b32 %r<2>;\n .reg .b64 %rd<2>;\n \
             ld.param.u64 %rd1, [p];\n st.global.{ty} [%rd1+{offset}], {regs};\n \
             ld.global.{ty} {regs}, [%rd1+{offset}];\n ret;\n}}\n"
        );
        let module = ptx::parse(&text).unwrap();
        let launch = ir::Launch {
            grid: [1, 1, 1],
            block: [32, 1, 1],
            params: Vec::new(),
        };
        let fe = walk::front_end(
            &module,
            "k",
            &launch,
            &ir::TripInputs::default(),
            &walk::Options::default(),
        )
        .unwrap_or_else(|e| panic!("{ty} at {offset}: {e}"));
        fe.built.idgs.validate().unwrap();
    }
}
