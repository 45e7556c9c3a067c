//! `Cycles`: exact fixed-point time in clock cycles.
//!
//! Invariant: a `Cycles` is an integer number of ticks, `TICKS_PER_CYCLE` ticks per cycle.
//! 8000 = 2^6 · 5^3, so every value with at most three decimals (Table 5's 28.5, 5.25,
//! 0.375, 0.875, 1.125) and every multiple of 1/64 (issue intervals 1/IL for IL = 1, 2, 4, 8,
//! 16, 32, 64) is represented exactly; simulated time therefore never accumulates rounding
//! error, whatever the number of instructions. Floats appear only at the edges (parsing
//! profile files, printing, serde).

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::ops::{Add, AddAssign, Mul, Sub};

/// Ticks per clock cycle; see the module doc for why 8000.
pub const TICKS_PER_CYCLE: u64 = 8000;

/// A non-negative duration in clock cycles, stored as integer ticks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Cycles(u64);

impl Cycles {
    pub const ZERO: Cycles = Cycles(0);
    pub const ONE: Cycles = Cycles(TICKS_PER_CYCLE);

    /// `n` whole cycles.
    pub const fn from_cycles(n: u64) -> Cycles {
        Cycles(n * TICKS_PER_CYCLE)
    }

    pub const fn from_ticks(ticks: u64) -> Cycles {
        Cycles(ticks)
    }

    pub const fn ticks(self) -> u64 {
        self.0
    }

    /// Rounds `c` cycles to the nearest tick; `None` for negative, NaN or infinite input and
    /// for values beyond `u64` ticks.
    pub fn from_f64(c: f64) -> Option<Cycles> {
        if !c.is_finite() || c < 0.0 {
            return None;
        }
        let t = (c * TICKS_PER_CYCLE as f64).round();
        // 2^64 as f64; `as` would saturate silently above it.
        if t >= 18_446_744_073_709_551_616.0 {
            return None;
        }
        Some(Cycles(t as u64))
    }

    /// True when `c` is exactly a whole number of ticks, i.e. `from_f64` loses nothing
    /// beyond float noise (tolerance 1e-6 tick).
    pub fn is_exact_f64(c: f64) -> bool {
        if !c.is_finite() || c < 0.0 {
            return false;
        }
        let t = c * TICKS_PER_CYCLE as f64;
        (t - t.round()).abs() < 1e-6
    }

    /// `num / den` cycles, rounded to the nearest tick (half up); `None` when `den` is 0 or
    /// the result overflows.
    pub fn from_ratio(num: u64, den: u64) -> Option<Cycles> {
        Cycles::from_cycles(1).mul_ratio(num, den)
    }

    /// `self · num / den`, rounded to the nearest tick (half up), computed in 128-bit integers.
    pub fn mul_ratio(self, num: u64, den: u64) -> Option<Cycles> {
        if den == 0 {
            return None;
        }
        let p = u128::from(self.0) * u128::from(num);
        let q = (p + u128::from(den) / 2) / u128::from(den);
        u64::try_from(q).ok().map(Cycles)
    }

    pub fn to_f64(self) -> f64 {
        self.0 as f64 / TICKS_PER_CYCLE as f64
    }

    pub fn checked_add(self, o: Cycles) -> Option<Cycles> {
        self.0.checked_add(o.0).map(Cycles)
    }

    pub fn saturating_sub(self, o: Cycles) -> Cycles {
        Cycles(self.0.saturating_sub(o.0))
    }

    /// Whole cycles, rounded up (a partial cycle still occupies the clock).
    pub fn ceil_cycles(self) -> u64 {
        self.0.div_ceil(TICKS_PER_CYCLE)
    }
}

impl Add for Cycles {
    type Output = Cycles;
    fn add(self, o: Cycles) -> Cycles {
        Cycles(self.0 + o.0)
    }
}

impl AddAssign for Cycles {
    fn add_assign(&mut self, o: Cycles) {
        self.0 += o.0;
    }
}

impl Sub for Cycles {
    type Output = Cycles;
    /// Panics on underflow like integer subtraction: time differences are taken later minus earlier.
    fn sub(self, o: Cycles) -> Cycles {
        Cycles(self.0 - o.0)
    }
}

impl Mul<u64> for Cycles {
    type Output = Cycles;
    fn mul(self, k: u64) -> Cycles {
        Cycles(self.0 * k)
    }
}

impl std::iter::Sum for Cycles {
    fn sum<I: Iterator<Item = Cycles>>(iter: I) -> Cycles {
        iter.fold(Cycles::ZERO, |a, b| a + b)
    }
}

impl fmt::Display for Cycles {
    /// Shortest exact decimal: whole cycles print without a point, fractions with up to
    /// the digits needed (8000 ticks need at most 6 decimals: 1/8000 = 0.000125).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let whole = self.0 / TICKS_PER_CYCLE;
        let frac = self.0 % TICKS_PER_CYCLE;
        if frac == 0 {
            return write!(f, "{whole}");
        }
        // frac / 8000 = frac * 125 / 10^6
        let micro = frac * 125;
        let s = format!("{micro:06}");
        write!(f, "{whole}.{}", s.trim_end_matches('0'))
    }
}

impl Serialize for Cycles {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(self.to_f64())
    }
}

impl<'de> Deserialize<'de> for Cycles {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Cycles, D::Error> {
        let v = f64::deserialize(d)?;
        Cycles::from_f64(v).ok_or_else(|| {
            serde::de::Error::custom(format!(
                "{v} is not a valid number of cycles (must be finite and >= 0)"
            ))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn table5_values_are_exact() {
        for v in [0.25, 0.375, 0.875, 1.125, 5.25, 28.5, 12.5, 7.5, 0.75, 2.25] {
            assert!(Cycles::is_exact_f64(v), "{v}");
            assert_eq!(Cycles::from_f64(v).unwrap().to_f64(), v);
        }
        assert!(!Cycles::is_exact_f64(1.0 / 3.0));
    }

    #[test]
    fn ratio_and_display() {
        assert_eq!(Cycles::from_ratio(1, 4).unwrap().to_string(), "0.25");
        assert_eq!(Cycles::from_ratio(1, 64).unwrap().to_string(), "0.015625");
        assert_eq!(Cycles::from_cycles(475).to_string(), "475");
        assert_eq!(Cycles::from_f64(0.000125).unwrap().ticks(), 1);
        assert_eq!(Cycles::from_ratio(1, 0), None);
        assert_eq!(Cycles::from_f64(-1.0), None);
        assert_eq!(Cycles::from_f64(f64::NAN), None);
    }

    #[test]
    fn serde_is_a_float() {
        let c = Cycles::from_f64(28.5).unwrap();
        assert_eq!(serde_json::to_string(&c).unwrap(), "28.5");
        let back: Cycles = serde_json::from_str("28.5").unwrap();
        assert_eq!(back, c);
        assert!(serde_json::from_str::<Cycles>("-2").is_err());
    }

    proptest! {
        #[test]
        fn display_round_trips(t in 0u64..1_000_000_000_000) {
            let c = Cycles::from_ticks(t);
            let parsed: f64 = c.to_string().parse().unwrap();
            prop_assert_eq!(Cycles::from_f64(parsed).unwrap(), c);
        }

        #[test]
        fn sums_are_exact(n in 1u64..100_000) {
            // n additions of 0.375 equal 0.375·n exactly (floats would drift).
            let l = Cycles::from_f64(0.375).unwrap();
            let s: Cycles = (0..n).map(|_| l).sum();
            prop_assert_eq!(s, l * n);
        }
    }
}
