//! The accuracy metrics of pipeline-model-analysis section 6.3.
//!
//! With `d_occ = WPC_model - WPC_real` over the n occupancy points of a kernel:
//! - MAPE = (100 / n) · Σ |d_occ| / WPC_real,occ (the paper's equation, with the 1/n its text
//!   describes);
//! - MAPE_shape = (100 / n) · Σ |d_occ - lf(occ)| / WPC_real,occ, where lf is the least-squares
//!   straight line through the points (occ, d_occ): a constant offset and a constant drift of
//!   the offset are removed before measuring the error.
//!
//! Invariants: inputs of different lengths, an empty curve or a non-positive measured value
//! are errors, never NaN. With one point lf is that point's difference; with two, the line
//! passes through both, so MAPE_shape is 0.

use crate::EvalError;

/// MAPE and MAPE_shape of one model on one kernel, in percent.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Accuracy {
    pub mape: f64,
    pub mape_shape: f64,
}

/// Least-squares line `a + b·x` through `(x, y)`, as `(a, b)`. When the x values are all equal
/// the best line is the constant mean (slope 0).
pub fn linear_fit(x: &[f64], y: &[f64]) -> (f64, f64) {
    let n = x.len() as f64;
    if x.is_empty() {
        return (0.0, 0.0);
    }
    let mx = x.iter().sum::<f64>() / n;
    let my = y.iter().sum::<f64>() / n;
    let sxx: f64 = x.iter().map(|xi| (xi - mx) * (xi - mx)).sum();
    if sxx == 0.0 {
        return (my, 0.0);
    }
    let sxy: f64 = x.iter().zip(y).map(|(xi, yi)| (xi - mx) * (yi - my)).sum();
    let b = sxy / sxx;
    (my - b * mx, b)
}

/// Both metrics for one curve: `occ` the occupancy of each point (warps), `real` and `model`
/// the WPC (or any throughput proportional to it, the same scale for both).
pub fn accuracy(occ: &[f64], real: &[f64], model: &[f64]) -> Result<Accuracy, EvalError> {
    if occ.len() != real.len() || real.len() != model.len() {
        return Err(EvalError::Metric(format!(
            "curves of different lengths: {} occupancies, {} measured, {} modelled",
            occ.len(),
            real.len(),
            model.len()
        )));
    }
    if real.is_empty() {
        return Err(EvalError::Metric("empty curve".into()));
    }
    if let Some(r) = real.iter().find(|r| !(r.is_finite() && **r > 0.0)) {
        return Err(EvalError::Metric(format!(
            "measured throughput {r} is not positive"
        )));
    }
    if let Some(m) = model.iter().find(|m| !m.is_finite()) {
        return Err(EvalError::Metric(format!(
            "model throughput {m} is not finite"
        )));
    }
    let n = real.len() as f64;
    let d: Vec<f64> = model.iter().zip(real).map(|(m, r)| m - r).collect();
    let mape = 100.0 / n * d.iter().zip(real).map(|(d, r)| d.abs() / r).sum::<f64>();
    let (a, b) = linear_fit(occ, &d);
    let mape_shape = 100.0 / n
        * d.iter()
            .zip(real)
            .zip(occ)
            .map(|((d, r), x)| (d - (a + b * x)).abs() / r)
            .sum::<f64>();
    Ok(Accuracy { mape, mape_shape })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn hand_computed_three_points() {
        // d = [1, 3, 2]; fit: slope 0.5, intercept 1 -> lf = [1.5, 2, 2.5];
        // residuals [-0.5, 1, -0.5]; each over 10, mean 2/30.
        let a = accuracy(&[1.0, 2.0, 3.0], &[10.0; 3], &[11.0, 13.0, 12.0]).unwrap();
        assert!(close(a.mape, 20.0), "{a:?}");
        assert!(close(a.mape_shape, 100.0 * 2.0 / 30.0), "{a:?}");
    }

    #[test]
    fn relative_to_each_measured_point() {
        // |8-4|/4 = 1, |5-10|/10 = 0.5 -> 75 %; two points: the line fits exactly.
        let a = accuracy(&[8.0, 16.0], &[4.0, 10.0], &[8.0, 5.0]).unwrap();
        assert!(close(a.mape, 75.0) && close(a.mape_shape, 0.0), "{a:?}");
    }

    #[test]
    fn offset_and_drift_vanish_from_shape() {
        let occ = [2.0, 4.0, 6.0, 8.0, 10.0];
        let real = [1.0, 1.8, 2.4, 2.6, 2.7];
        let model: Vec<f64> = occ
            .iter()
            .zip(&real)
            .map(|(x, r)| r + 0.3 + 0.05 * x)
            .collect();
        let a = accuracy(&occ, &real, &model).unwrap();
        assert!(a.mape > 10.0);
        assert!(a.mape_shape < 1e-9, "{a:?}");
    }

    #[test]
    fn one_point_has_zero_shape_error() {
        let a = accuracy(&[4.0], &[2.0], &[3.0]).unwrap();
        assert!(close(a.mape, 50.0) && close(a.mape_shape, 0.0));
    }

    #[test]
    fn rejects_bad_input() {
        assert!(accuracy(&[1.0], &[1.0, 2.0], &[1.0]).is_err());
        assert!(accuracy(&[], &[], &[]).is_err());
        assert!(accuracy(&[1.0], &[0.0], &[1.0]).is_err());
        assert!(accuracy(&[1.0], &[1.0], &[f64::NAN]).is_err());
    }

    proptest::proptest! {
        #[test]
        fn shape_never_exceeds_mape_by_much_and_is_non_negative(
            pts in proptest::collection::vec((0.1f64..10.0, 0.1f64..10.0), 1..12)
        ) {
            let occ: Vec<f64> = (1..=pts.len()).map(|i| i as f64).collect();
            let real: Vec<f64> = pts.iter().map(|p| p.0).collect();
            let model: Vec<f64> = pts.iter().map(|p| p.1).collect();
            let a = accuracy(&occ, &real, &model).unwrap();
            proptest::prop_assert!(a.mape >= 0.0 && a.mape_shape >= 0.0);
            // A perfect model scores zero on both.
            let p = accuracy(&occ, &real, &real).unwrap();
            proptest::prop_assert!(p.mape == 0.0 && p.mape_shape.abs() < 1e-9);
        }
    }
}
