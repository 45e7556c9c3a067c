//! Static memory-access analysis of one warp instruction from its per-lane addresses: lane
//! stride, 32-byte sectors per request (coalescing) and the shared-memory bank-conflict degree.
//! This is the "without a profile" input of mapper g (pipeline-model-analysis section 4.4).

use idg::AccessPattern;
use ir::AbstractAddr;

/// Bytes of one global-memory sector.
const SECTOR: i64 = 32;
/// Shared memory: 32 banks of 4 bytes.
const BANKS: i64 = 32;
const BANK_WIDTH: i64 = 4;
/// No address space is wider than 2^57 bytes; offsets beyond ±2^56 come from extreme
/// constants, and the arithmetic below (strides times lane distances, an access's last byte)
/// stays exact only within that range (fuzz findings: it overflowed).
const MAX_OFFSET: u64 = 1 << 56;

/// Analyses the addresses of the active lanes; `None` when some active lane's address is
/// unknown or lanes use different bases (nothing exact can be said).
pub fn analyse(
    addrs: &[Option<AbstractAddr>; 32],
    active: u32,
    bytes: u32,
) -> Option<AccessPattern> {
    let lanes: Vec<(usize, AbstractAddr)> = (0..32)
        .filter(|i| active >> i & 1 == 1)
        .map(|i| addrs[i].map(|a| (i, a)))
        .collect::<Option<_>>()?;
    let first = lanes.first()?.1;
    if lanes
        .iter()
        .any(|(_, a)| (a.base, a.sym) != (first.base, first.sym))
    {
        return None;
    }
    if lanes
        .iter()
        .any(|(_, a)| a.offset.unsigned_abs() > MAX_OFFSET)
    {
        return None;
    }
    let bytes = i64::from(bytes.max(1));
    let stride = match lanes.as_slice() {
        [(i0, a0), (i1, a1), ..] => {
            let s = (a1.offset - a0.offset) / (*i1 as i64 - *i0 as i64);
            lanes
                .iter()
                .all(|(i, a)| a.offset == a0.offset + s * (*i as i64 - *i0 as i64))
                .then_some(s)
        }
        _ => Some(0),
    };
    let mut sectors: Vec<i64> = lanes
        .iter()
        .flat_map(|(_, a)| {
            let lo = a.offset.div_euclid(SECTOR);
            let hi = (a.offset + bytes - 1).div_euclid(SECTOR);
            lo..=hi
        })
        .collect();
    sectors.sort_unstable();
    sectors.dedup();
    // Bank conflicts: lanes hitting the same bank at different 4-byte words serialize; the
    // same word is a broadcast. Wider accesses are split by the hardware into phases of
    // 128 bytes, each judged alone.
    let per_phase = (128 / bytes).max(1) as usize;
    let mut degree = 0u32;
    for phase in lanes.chunks(per_phase) {
        let mut words: Vec<(i64, i64)> = phase
            .iter()
            .flat_map(|(_, a)| {
                let w0 = a.offset.div_euclid(BANK_WIDTH);
                (0..(bytes + BANK_WIDTH - 1) / BANK_WIDTH).map(move |k| {
                    let w = w0 + k;
                    (w.rem_euclid(BANKS), w)
                })
            })
            .collect();
        words.sort_unstable();
        words.dedup();
        let mut worst = 0u32;
        let mut run = 0u32;
        let mut bank = -1;
        for (b, _) in &words {
            if *b == bank {
                run += 1;
            } else {
                bank = *b;
                run = 1;
            }
            worst = worst.max(run);
        }
        degree = degree.max(worst.saturating_sub(1));
    }
    Some(AccessPattern {
        lane_stride_bytes: stride,
        sectors_per_request: sectors.len() as u32,
        bank_conflict_degree: degree,
    })
}

/// A global-memory sector: the base (or loaded term) its address is relative to and its index
/// from there.
pub(crate) type Sector = (Option<ir::BaseId>, Option<ir::SymId>, i64);

/// The distinct 32-byte sectors the active lanes touch, sorted; `None` when some active
/// lane's address is unknown or beyond ±2^56 bytes.
pub(crate) fn sectors(
    addrs: &[Option<AbstractAddr>; 32],
    active: u32,
    bytes: u32,
) -> Option<Vec<Sector>> {
    let bytes = i64::from(bytes.max(1));
    let mut out = Vec::new();
    // Addresses relative to loaded terms are comparable only where the lanes share the term
    // (an index every lane read alike): lanes gathering through terms of their own have
    // unknown addresses, whose sectors no other access can be matched with.
    let mut root = None;
    for (i, a) in addrs.iter().enumerate() {
        if active >> i & 1 == 0 {
            continue;
        }
        let a = (*a).filter(|a| a.offset.unsigned_abs() <= MAX_OFFSET)?;
        match root {
            None => root = Some(a.sym),
            Some(s) if s != a.sym => return None,
            Some(_) => {}
        }
        let lo = a.offset.div_euclid(SECTOR);
        let hi = (a.offset + bytes - 1).div_euclid(SECTOR);
        out.extend((lo..=hi).map(|s| (a.base, a.sym, s)));
    }
    out.sort_unstable();
    out.dedup();
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn addrs(f: impl Fn(i64) -> i64) -> [Option<AbstractAddr>; 32] {
        let mut out = [None; 32];
        for (i, slot) in out.iter_mut().enumerate() {
            *slot = Some(AbstractAddr {
                base: None,
                sym: None,
                offset: f(i as i64),
            });
        }
        out
    }

    #[test]
    fn unit_stride_floats_touch_four_sectors_without_conflicts() {
        let p = analyse(&addrs(|i| 4 * i), u32::MAX, 4).unwrap();
        assert_eq!(p.lane_stride_bytes, Some(4));
        assert_eq!(p.sectors_per_request, 4);
        assert_eq!(p.bank_conflict_degree, 0);
    }

    #[test]
    fn column_access_of_a_32_wide_float_tile_is_a_32_way_conflict() {
        let p = analyse(&addrs(|i| 128 * i), u32::MAX, 4).unwrap();
        assert_eq!(p.sectors_per_request, 32);
        assert_eq!(p.bank_conflict_degree, 31);
    }

    #[test]
    fn stride_two_words_is_a_two_way_conflict_and_broadcast_is_free() {
        assert_eq!(
            analyse(&addrs(|i| 8 * i), u32::MAX, 4)
                .unwrap()
                .bank_conflict_degree,
            1
        );
        let b = analyse(&addrs(|_| 64), u32::MAX, 4).unwrap();
        assert_eq!(b.bank_conflict_degree, 0);
        assert_eq!(b.sectors_per_request, 1);
        assert_eq!(b.lane_stride_bytes, Some(0));
    }

    #[test]
    fn sectors_of_a_wide_access_and_of_an_unknown_lane() {
        let s = sectors(&addrs(|i| 16 * i), u32::MAX, 16).unwrap();
        assert_eq!(s, (0..16).map(|k| (None, None, k)).collect::<Vec<_>>());
        let mut a = addrs(|i| 4 * i);
        a[5] = None;
        assert!(sectors(&a, u32::MAX, 4).is_none());
        assert_eq!(sectors(&a, 0b1, 4).unwrap(), vec![(None, None, 0)]);
    }

    #[test]
    fn unknown_lane_means_no_pattern() {
        let mut a = addrs(|i| 4 * i);
        a[3] = None;
        assert!(analyse(&a, u32::MAX, 4).is_none());
        assert!(analyse(&a, 0b111, 4).is_some());
    }
}
