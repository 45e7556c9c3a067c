//! Which scheduler partition the long warp of each group of uneven warps runs on
//! (`idg::KernelIdgs::rotate_classes`).
//!
//! A warp's partition is its slot modulo the partitions, and which warp of a group draws the
//! long trip counts depends on the data, so on the GPU the long warps land on the partitions
//! at random. A launch ends with its slowest SM, and an SM whose long warps crowd one
//! partition is slow: the bench/uneven_suite counters and timings show it. `fma_wave_a4`
//! (one wave of 4 groups per SM, each with one warp of 14 336 dependent FFMAs) takes 155 k
//! cycles where one such warp alone takes 63 k, what four long warps sharing one partition's
//! FP32 rate take (the chance that some SM of 132 puts all four on one partition is 87 %);
//! `fma_a4` at 8 groups per SM is 36 % slower than the balanced `fma_a1` with the same FFMAs.
//!
//! The simulated core is that slowest SM: of its `N` groups, its busiest partition receives
//! the expected maximum of `SMs × P` binomial draws `Bin(N, 1/P)` (the quantile
//! `1 − 1/(SMs·P)`), the other partitions share the rest evenly, and a smooth weighted round
//! robin spreads each partition's long warps evenly over the core's run. The sequence repeats
//! with a period of at most [`MAX_PERIOD`] groups, so steady schedules still repeat.

/// The longest period of the placement sequence: a core with more groups approximates its
/// busiest partition's share with this denominator.
pub(crate) const MAX_PERIOD: u64 = 64;

/// The target partition of each group's long warp, repeating with `targets.len()` groups.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Placement {
    targets: Vec<u32>,
}

impl Placement {
    /// The placement on the slowest of `sms` SMs of `parts` partitions, each running
    /// `groups` groups.
    pub(crate) fn new(groups: u64, parts: u32, sms: u32) -> Placement {
        let parts = parts.max(1);
        if parts == 1 || groups == 0 {
            return Placement { targets: vec![0] };
        }
        let p = 1.0 / f64::from(parts);
        let draws = f64::from(sms.max(1)) * f64::from(parts);
        let busiest = binomial_quantile(groups, p, 1.0 - 1.0 / draws);
        let period = groups.min(MAX_PERIOD);
        let even = period.div_ceil(u64::from(parts));
        let first = if groups <= MAX_PERIOD {
            busiest
        } else {
            (busiest as f64 * period as f64 / groups as f64).round() as u64
        }
        .clamp(even.min(period), period);
        // The other partitions share the rest as evenly as whole groups allow.
        let rest = period - first;
        let others = u64::from(parts - 1);
        let weights: Vec<u64> = std::iter::once(first)
            .chain((0..others).map(|i| rest / others + u64::from(i < rest % others)))
            .collect();
        Placement {
            targets: smooth_round_robin(&weights, period),
        }
    }

    /// Groups after which the sequence repeats.
    pub(crate) fn period(&self) -> u64 {
        self.targets.len() as u64
    }

    /// The partition the long warp of the core's `local`-th group runs on.
    pub(crate) fn target(&self, local: u64) -> u32 {
        self.targets[(local % self.period()) as usize]
    }
}

/// `len` picks of a smooth weighted round robin over `weights` (which sum to `len`): each
/// index comes up `weights[i]` times, spread as evenly as the others allow.
fn smooth_round_robin(weights: &[u64], len: u64) -> Vec<u32> {
    let total = weights.iter().sum::<u64>() as i64;
    let mut current = vec![0i64; weights.len()];
    (0..len)
        .map(|_| {
            for (c, &w) in current.iter_mut().zip(weights) {
                *c += w as i64;
            }
            // Ties go to the lowest index, the busiest partition first.
            let (pick, _) = current
                .iter()
                .enumerate()
                .max_by_key(|&(i, &c)| (c, std::cmp::Reverse(i)))
                .expect("at least one partition");
            current[pick] -= total;
            pick as u32
        })
        .collect()
}

/// The smallest `k` with `P(Bin(n, p) ≤ k) ≥ level`: summed exactly up to 1000 trials, past
/// that from the normal approximation with a continuity correction.
fn binomial_quantile(n: u64, p: f64, level: f64) -> u64 {
    if n <= 1000 {
        let q = 1.0 - p;
        let mut pmf = q.powf(n as f64);
        let mut cdf = pmf;
        for k in 0..n {
            if cdf >= level {
                return k;
            }
            pmf *= (n - k) as f64 / (k + 1) as f64 * p / q;
            cdf += pmf;
        }
        return n;
    }
    let mean = n as f64 * p;
    let sd = (mean * (1.0 - p)).sqrt();
    let k = mean + normal_quantile(level) * sd - 0.5;
    (k.ceil().max(0.0) as u64).min(n)
}

/// The standard normal quantile of `level` in (0.5, 1), by bisection on the upper tail.
fn normal_quantile(level: f64) -> f64 {
    let (mut lo, mut hi) = (0.0f64, 10.0f64);
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        if 1.0 - upper_tail(mid) < level {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// `P(Z > x)` for `x ≥ 0` (Abramowitz and Stegun 7.1.26, error below 1.5e-7 on erfc).
fn upper_tail(x: f64) -> f64 {
    let z = x / std::f64::consts::SQRT_2;
    let t = 1.0 / (1.0 + 0.327_591_1 * z);
    let poly = t
        * (0.254_829_592
            + t * (-0.284_496_736
                + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
    0.5 * poly * (-z * z).exp()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_wave_of_four_groups_crowds_one_partition() {
        // 132 SMs x 4 partitions: all four long warps on one partition (p = 1/256 each).
        let pl = Placement::new(4, 4, 132);
        assert_eq!(pl.targets, vec![0, 0, 0, 0]);
    }

    #[test]
    fn one_sm_keeps_the_round_robin_share_close() {
        // A single SM of 4 partitions: quantile 3/4 of Bin(32, 1/4) is 10.
        let pl = Placement::new(32, 4, 1);
        let first = pl.targets.iter().filter(|&&t| t == 0).count();
        assert_eq!(first, 10);
        assert_eq!(pl.period(), 32);
    }

    #[test]
    fn busiest_partition_of_many_sms() {
        // Bin(32, 1/4), quantile 1 - 1/528: 16 of 32 (P(X > 15) = 0.0020, P(X > 16) = 0.0006).
        assert_eq!(binomial_quantile(32, 0.25, 1.0 - 1.0 / 528.0), 16);
        let pl = Placement::new(32, 4, 132);
        let count = |p: u32| pl.targets.iter().filter(|&&t| t == p).count();
        assert_eq!(count(0), 16);
        assert_eq!((count(1), count(2), count(3)), (6, 5, 5));
        // Spread over the run: never more than two partition-0 groups in a row.
        assert!(pl.targets.windows(3).all(|w| w.iter().any(|&t| t != 0)));
    }

    #[test]
    fn long_cores_repeat_within_the_period() {
        let pl = Placement::new(10_000, 4, 132);
        assert_eq!(pl.period(), MAX_PERIOD);
        let share = pl.targets.iter().filter(|&&t| t == 0).count() as f64 / MAX_PERIOD as f64;
        // 0.25 + 2.9 sd of a 10 000-group binomial share: about 0.263.
        assert!((0.25..0.3).contains(&share), "{share}");
        assert_eq!(pl.target(3), pl.target(3 + MAX_PERIOD));
    }

    #[test]
    fn normal_quantile_matches_tables() {
        assert!((normal_quantile(0.975) - 1.959_964).abs() < 1e-4);
        assert!((normal_quantile(0.99) - 2.326_348).abs() < 1e-4);
    }

    #[test]
    fn exact_and_normal_binomial_quantiles_meet() {
        let exact = binomial_quantile(1000, 0.25, 0.998);
        let normal = {
            let (m, s) = (250.0f64, (1000.0f64 * 0.25 * 0.75).sqrt());
            (m + normal_quantile(0.998) * s - 0.5).ceil() as u64
        };
        assert!(exact.abs_diff(normal) <= 1, "{exact} {normal}");
    }
}
