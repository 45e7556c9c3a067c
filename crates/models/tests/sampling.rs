//! The sampling models' math (models::sampling): the linear extrapolation on synthetic
//! launches whose time is known, and the ridge regression on synthetic rows whose weights are
//! known.

use models::sampling::{
    fit_selected, linear_time, ml_target, ml_time, proportional_time, select_lambda,
    throughput_error, Counters, Features, Group, GroupStats, PointInputs, Ridge, Sample,
    SamplingError, FEATURES, LAMBDAS,
};

fn sample(groups: f64, time_us: f64) -> Sample {
    Sample { groups, time_us }
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * (1.0 + a.abs().max(b.abs()))
}

#[test]
fn linear_model_is_exact_on_an_affine_launch() {
    // t(g) = 3 µs of launch overhead + 0.25 µs per group
    let t = |g: f64| 3.0 + 0.25 * g;
    let psat = 264.0;
    for n in [528.0, 1000.0, 4096.0, 262_144.0] {
        let got = linear_time(
            sample(2.0 * psat, t(2.0 * psat)),
            sample(3.0 * psat, t(3.0 * psat)),
            n,
        )
        .unwrap();
        assert!(close(got, t(n), 1e-12), "N = {n}: {got} against {}", t(n));
    }
}

#[test]
fn linear_model_on_a_staircase_is_exact_at_whole_waves_and_low_on_a_partial_one() {
    // every wave of Psat groups takes w µs, whatever its fill (the last one too), after c µs
    let (c, w, psat) = (4.0, 10.0, 132.0);
    let staircase = |g: f64| c + w * (g / psat).ceil();
    let (two, three) = (
        sample(2.0 * psat, staircase(2.0 * psat)),
        sample(3.0 * psat, staircase(3.0 * psat)),
    );
    for waves in [3.0, 4.0, 16.0, 62.0] {
        let n = waves * psat;
        let got = linear_time(two, three, n).unwrap();
        assert!(close(got, staircase(n), 1e-12), "{waves} waves: {got}");
    }
    // a last wave filled to a fraction f costs a whole wave; the line charges f of one
    for (whole, fill) in [(3.0, 0.88), (15.0, 0.52), (61.0, 0.06)] {
        let n = (whole + fill) * psat;
        let got = linear_time(two, three, n).unwrap();
        let low_by = staircase(n) - got;
        assert!(
            close(low_by, w * (1.0 - fill), 1e-9),
            "{whole} + {fill} waves: {low_by}"
        );
    }
}

#[test]
fn linear_model_refuses_what_is_not_a_time() {
    // samples shorter at more groups: the line goes below zero far out
    let e = linear_time(sample(528.0, 12.7), sample(792.0, 11.7), 262_144.0).unwrap_err();
    assert!(matches!(e, SamplingError::NotATime { .. }), "{e}");
    assert!(e.to_string().contains("not a time"), "{e}");
    let e = linear_time(sample(528.0, 5.0), sample(528.0, 6.0), 1e4).unwrap_err();
    assert_eq!(e, SamplingError::SameGroups(528.0));
    assert!(matches!(
        linear_time(sample(0.0, 5.0), sample(528.0, 6.0), 1e4),
        Err(SamplingError::BadSample { .. })
    ));
}

#[test]
fn ml_time_inverts_the_target() {
    let s = sample(396.0, 7.5);
    let n = 65_536.0;
    assert!(close(
        proportional_time(s, n).unwrap(),
        7.5 * n / 396.0,
        1e-15
    ));
    for full in [100.0, 1240.0, 9000.0] {
        let y = ml_target(s, n, full).unwrap();
        assert!(close(ml_time(s, n, y).unwrap(), full, 1e-12));
        assert_eq!(throughput_error(y, y), 0.0);
    }
    // predicting a correction 10 % too high in the rate: throughput 10 % high
    assert!(close(throughput_error(1.1f64.ln(), 0.0), 0.1, 1e-12));
}

/// A deterministic stream of numbers in [-1, 1).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((self.0 >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    }
}

/// Rows `x` (3 features of different scales and offsets) and `y = b + w·x + noise·ε`.
fn synthetic(n: usize, noise: f64, seed: u64) -> Vec<(Vec<f64>, f64)> {
    let (b, w) = (0.7, [2.0, -0.5, 0.03]);
    let mut r = Lcg(seed);
    (0..n)
        .map(|_| {
            let x = vec![1.0 + r.next(), 10.0 * r.next(), 300.0 + 100.0 * r.next()];
            let y = b + w.iter().zip(&x).map(|(w, x)| w * x).sum::<f64>() + noise * r.next();
            (x, y)
        })
        .collect()
}

#[test]
fn ridge_recovers_known_weights() {
    let rows = synthetic(200, 0.0, 1);
    let stats = GroupStats::of_rows(3, rows.iter().map(|(x, y)| (x.as_slice(), *y)));
    // λ = 0: least squares, exact on noise-free rows
    let (b, w) = Ridge::fit(&stats, 0.0).unwrap().raw_weights();
    assert!(close(b, 0.7, 1e-9), "intercept {b}");
    for (got, want) in w.iter().zip([2.0, -0.5, 0.03]) {
        assert!(close(*got, want, 1e-9), "{w:?}");
    }
    // a small penalty shrinks them a little, toward 0
    let (_, w) = Ridge::fit(&stats, 1e-3).unwrap().raw_weights();
    for (got, want) in w.iter().zip([2.0f64, -0.5, 0.03]) {
        assert!(got.abs() < want.abs() && close(*got, want, 5e-3), "{w:?}");
    }
    // noise of ±0.05 on y: the weights within a few percent
    let noisy = synthetic(400, 0.05, 2);
    let stats = GroupStats::of_rows(3, noisy.iter().map(|(x, y)| (x.as_slice(), *y)));
    let (_, w) = Ridge::fit(&stats, 0.0).unwrap().raw_weights();
    for (got, want) in w.iter().zip([2.0f64, -0.5, 0.03]) {
        assert!((got - want).abs() < 0.03 * want.abs() + 1e-3, "{w:?}");
    }
}

#[test]
fn ridge_gives_a_constant_feature_no_weight_and_refuses_dependent_ones_without_penalty() {
    let rows: Vec<(Vec<f64>, f64)> = synthetic(50, 0.0, 3)
        .into_iter()
        .map(|(mut x, y)| {
            x.push(5.0);
            (x, y)
        })
        .collect();
    let stats = GroupStats::of_rows(4, rows.iter().map(|(x, y)| (x.as_slice(), *y)));
    let fit = Ridge::fit(&stats, 0.0).unwrap();
    assert_eq!(fit.weights[3], 0.0);
    assert!(close(fit.predict(&rows[7].0), rows[7].1, 1e-9));
    // a copy of a feature: singular without a penalty, fine with one
    let dup: Vec<(Vec<f64>, f64)> = synthetic(50, 0.0, 4)
        .into_iter()
        .map(|(mut x, y)| {
            x.push(2.0 * x[0]);
            (x, y)
        })
        .collect();
    let stats = GroupStats::of_rows(4, dup.iter().map(|(x, y)| (x.as_slice(), *y)));
    assert!(matches!(
        Ridge::fit(&stats, 0.0),
        Err(SamplingError::Fit(_))
    ));
    assert!(Ridge::fit(&stats, 0.1).is_ok());
}

#[test]
fn group_statistics_merge_as_their_rows() {
    let rows = synthetic(30, 0.01, 5);
    let all = GroupStats::of_rows(3, rows.iter().map(|(x, y)| (x.as_slice(), *y)));
    let mut merged = GroupStats::of_rows(3, rows[..11].iter().map(|(x, y)| (x.as_slice(), *y)));
    merged.merge(&GroupStats::of_rows(
        3,
        rows[11..].iter().map(|(x, y)| (x.as_slice(), *y)),
    ));
    assert_eq!(merged.n, all.n);
    for (a, b) in merged.sum_xx.iter().zip(&all.sum_xx) {
        assert!(close(*a, *b, 1e-12));
    }
}

#[test]
fn lambda_is_chosen_by_leaving_groups_out() {
    // noise-free groups: the least penalty predicts a left-out group best
    let groups: Vec<Group> = (0..6)
        .map(|s| Group::new(3, synthetic(10, 0.0, 10 + s)))
        .collect();
    let refs: Vec<&Group> = groups.iter().collect();
    assert_eq!(
        select_lambda(&refs, &LAMBDAS, |p, y| (p - y).abs()).unwrap(),
        LAMBDAS[0]
    );
    // targets unrelated to the features: the largest penalty (the mean) predicts best
    let mut r = Lcg(99);
    let noise: Vec<Group> = (0..6)
        .map(|s| {
            let rows = synthetic(10, 0.0, 20 + s)
                .into_iter()
                .map(|(x, _)| (x, r.next()))
                .collect();
            Group::new(3, rows)
        })
        .collect();
    let refs: Vec<&Group> = noise.iter().collect();
    assert_eq!(
        select_lambda(&refs, &LAMBDAS, |p, y| (p - y).abs()).unwrap(),
        *LAMBDAS.last().unwrap()
    );
    // a left-out group predicted from the others
    let model = fit_selected(
        &groups.iter().skip(1).collect::<Vec<_>>(),
        &LAMBDAS,
        |p, y| (p - y).abs(),
    )
    .unwrap();
    for (x, y) in &groups[0].rows {
        assert!(close(model.predict(x), *y, 1e-3));
    }
    assert!(select_lambda(&refs[..1], &LAMBDAS, |p, y| (p - y).abs()).is_err());
}

#[test]
fn features_of_a_point() {
    let counters = Counters {
        instructions: 1e6,
        thread_instructions: 0.5 * 32.0 * 1e6,
        dram_bytes: 4e6,
        l2_sectors: 2e6,
        l2_hit_rate: 0.25,
        bank_conflicts: 0.0,
        divergent_branches: 1e4,
    };
    let p = PointInputs {
        two: sample(264.0, 6.0),
        three: sample(396.0, 8.0),
        total_groups: 13_200.0,
        psat: 132.0,
        occupancy_fraction: 0.5,
        warps_per_group: 4.0,
        counters,
    };
    let f = Features::of(&p).unwrap();
    let want = [
        8f64.ln(),
        (2.0 / 132.0) / (8.0 / 396.0),
        100f64.ln(),
        0.5,
        5f64.ln(),
        3f64.ln(),
        0.25,
        0.5,
        0.0,
        2f64.ln(),
        (1e6f64 / (13_200.0 * 4.0)).ln(),
    ];
    assert_eq!(f.values().len(), FEATURES.len());
    for ((got, want), name) in f.values().iter().zip(want).zip(FEATURES) {
        assert!(close(*got, want, 1e-12), "{name}: {got} against {want}");
    }
    let none = PointInputs {
        counters: Counters {
            instructions: 0.0,
            ..counters
        },
        ..p
    };
    assert_eq!(Features::of(&none), Err(SamplingError::NoInstructions));
}
