//! The sampling models of sampling-linear-ml-model (section 5): the kernel itself is run on a
//! few work groups and the full launch's time is extrapolated from those runs. Unlike every
//! other model of this crate they need the GPU: two truncated launches of the kernel per
//! occupancy point, and for the ML variant the counters of a profiled launch and a training
//! set of other kernels.
//!
//! # Saturation point and samples
//! `Psat` is the number of work groups resident at once on the whole device at the
//! occupancy point, `blocks_per_sm × SMs`. The kernel is timed on `2·Psat` and `3·Psat`
//! groups (whole waves, past the first one, whose cold caches and staircase the paper avoids
//! by sampling from the second saturation point on).
//!
//! # Linear model (section 5.1), [`linear_time`]
//! The two samples `(g₁, t₁)` and `(g₂, t₂)` give a line in the number of groups:
//! `t(N) = t₁ + (t₂ − t₁)/(g₂ − g₁) · (N − g₁)`. It is exact for a launch whose time is
//! affine in its groups, and at whole waves of a staircase (a launch whose time grows by
//! one wave's time every `Psat` groups) when both samples are whole waves; a partial last
//! wave is charged its fraction of a wave, so the model is low by up to one wave's time
//! less that fraction (the last wave takes a whole wave's time however full it is). A line
//! that reaches zero or below at `N` (samples shorter at more groups: noise on launches of a
//! few microseconds) is an error, never a time.
//!
//! # ML model (section 5.2), [`Features`] and [`Ridge`]
//! The paper estimates the saturated rate of issued instructions per second (IPS) with an
//! ε-SVR on the sample runs' counters, compiler statistics and the linear model's IPS, and
//! predicts `t = I·N / (g₂·IPS)` with `I` the instructions of the `g₂ = 3·Psat` sample. Here:
//!
//! - the base rate is the 3·Psat sample's own, `IPS₃ = I₃ / t₃`, so `I·N/(g₂·IPS₃) =
//!   t₃·N/g₂` (the proportional extrapolation of the sample);
//! - the regression predicts the correction `y = ln(IPS_sat / IPS₃)` (the measured full
//!   launch's rate over the sample's), and the model's time is `t₃·N/g₂ · e^(−ŷ)`. With this
//!   target `e^(ŷ − y) − 1` is exactly the relative error of the predicted throughput, the
//!   quantity MAPE averages;
//! - the features ([`FEATURES`]) are the samples' own timing (length, marginal over average
//!   time per group, which is the linear model's extrapolation relative to the proportional
//!   one, the number of waves extrapolated, the occupancy) and the counters per instruction
//!   of the point's profiled launch (DRAM bytes, L2 sectors and hit rate, SIMT efficiency,
//!   shared bank conflicts, divergent branches, instructions per warp): ratios that an
//!   evenly divided launch shares with its samples;
//! - the regression is ridge regression in closed form ([`Ridge`]): features standardized on
//!   the training rows, an unpenalized intercept, penalty `λ·n·‖w‖²` (`n` training rows), the
//!   normal equations solved by Cholesky. `λ` is chosen from [`LAMBDAS`] by leave-one-group-
//!   out cross-validation on the training rows alone ([`select_lambda`]), so the kernel under
//!   test takes no part in choosing it.
//!
//! **Why not ε-SVR**: the paper trains on 683 runs of 70 kernels; the bundled suites have
//! about 50 kernels with samples, ten or so points each, and points of one kernel are far
//! from independent. A kernelized ε-SVR would need C, ε and the kernel width tuned by nested
//! cross-validation on that little data, and an iterative QP solver (another dependency, with
//! results that depend on its tolerances). Ridge regression on log-scaled ratios is linear in
//! the features like the paper's linear form of ε-SVR (its ‖w‖² flatness term is the ridge
//! penalty; the ε-insensitive loss is replaced by squares), has one parameter, a
//! deterministic closed form and bit-identical results between runs (the evaluation's CSV is
//! snapshot-tested).
//!
//! Training is the caller's (crate `eval` trains leave-one-kernel-out over the suites of a
//! run); this module holds the math: the features of one point, sufficient statistics of
//! groups of rows ([`GroupStats`]), the fit, λ selection and the prediction.

/// One timed launch of the kernel on `groups` work groups.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sample {
    pub groups: f64,
    pub time_us: f64,
}

/// Why a sampling model gives no time.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SamplingError {
    #[error("the two samples have the same number of groups ({0})")]
    SameGroups(f64),
    #[error("a sample has {groups} groups and {time_us} µs: both must be positive")]
    BadSample { groups: f64, time_us: f64 },
    #[error("the line through the samples ({g1} groups in {t1} µs, {g2} in {t2} µs) gives {time_us:.3} µs at {total} groups: not a time")]
    NotATime {
        g1: f64,
        t1: f64,
        g2: f64,
        t2: f64,
        total: f64,
        time_us: f64,
    },
    #[error("the profiled launch has no `{0}`")]
    MissingMetric(&'static str),
    #[error("the profiled launch executes no instruction")]
    NoInstructions,
    #[error("ridge regression: {0}")]
    Fit(String),
}

fn check(s: Sample) -> Result<Sample, SamplingError> {
    if s.groups > 0.0 && s.time_us > 0.0 && s.groups.is_finite() && s.time_us.is_finite() {
        Ok(s)
    } else {
        Err(SamplingError::BadSample {
            groups: s.groups,
            time_us: s.time_us,
        })
    }
}

/// The linear model's time of the launch on `total_groups` groups: the line through the two
/// samples (section 5.1). Err when the samples coincide in groups or the line is not
/// positive at `total_groups`.
pub fn linear_time(first: Sample, second: Sample, total_groups: f64) -> Result<f64, SamplingError> {
    let (a, b) = (check(first)?, check(second)?);
    if a.groups == b.groups {
        return Err(SamplingError::SameGroups(a.groups));
    }
    let slope = (b.time_us - a.time_us) / (b.groups - a.groups);
    let t = a.time_us + slope * (total_groups - a.groups);
    if t > 0.0 && t.is_finite() {
        Ok(t)
    } else {
        Err(SamplingError::NotATime {
            g1: a.groups,
            t1: a.time_us,
            g2: b.groups,
            t2: b.time_us,
            total: total_groups,
            time_us: t,
        })
    }
}

/// The proportional extrapolation of one sample, `t·N/g`: the launch at the sample's own
/// rate (the ML model's base, `I·N/(g·IPS)` with the sample's IPS).
pub fn proportional_time(sample: Sample, total_groups: f64) -> Result<f64, SamplingError> {
    let s = check(sample)?;
    Ok(s.time_us * total_groups / s.groups)
}

/// The ML model's time: the proportional extrapolation of the 3·Psat sample divided by the
/// predicted rate correction `e^ŷ` (ŷ = ln of the saturated IPS over the sample's).
pub fn ml_time(sample: Sample, total_groups: f64, correction: f64) -> Result<f64, SamplingError> {
    Ok(proportional_time(sample, total_groups)? * (-correction).exp())
}

/// The regression target of a measured point: `ln(IPS_sat / IPS₃) = ln(t₃·N/g₂ / t_full)`.
pub fn ml_target(sample: Sample, total_groups: f64, full_us: f64) -> Result<f64, SamplingError> {
    let p = proportional_time(sample, total_groups)?;
    if full_us > 0.0 && full_us.is_finite() {
        Ok((p / full_us).ln())
    } else {
        Err(SamplingError::BadSample {
            groups: total_groups,
            time_us: full_us,
        })
    }
}

/// The relative error of the throughput a correction `predicted` gives when the true one is
/// `target` (both ln-ratios): `|e^(predicted − target) − 1|`, the error MAPE averages. The
/// loss [`select_lambda`] minimizes in `eval`.
pub fn throughput_error(predicted: f64, target: f64) -> f64 {
    ((predicted - target).exp() - 1.0).abs()
}

/// Names of the ML model's features, in [`Features::values`] order.
pub const FEATURES: [&str; 11] = [
    "ln_sample_us",
    "marginal_over_average",
    "ln_waves",
    "occupancy_fraction",
    "ln_dram_bytes_per_inst",
    "ln_l2_sectors_per_inst",
    "l2_hit_rate",
    "simt_efficiency",
    "ln_bank_conflicts_per_inst",
    "ln_divergent_per_100_inst",
    "ln_inst_per_warp",
];

/// The counters the ML model reads from a profiled launch, per launch (`profile::Launch`
/// metric names in [`Counters::from_launch`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Counters {
    /// `smsp__inst_executed.sum`: warp instructions.
    pub instructions: f64,
    /// `smsp__thread_inst_executed.sum`: thread instructions.
    pub thread_instructions: f64,
    /// `dram__bytes_read.sum + dram__bytes_write.sum`.
    pub dram_bytes: f64,
    /// `lts__t_sectors_op_read.sum + lts__t_sectors_op_write.sum`.
    pub l2_sectors: f64,
    /// `lts__t_sector_hit_rate.pct` / 100.
    pub l2_hit_rate: f64,
    /// `l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{ld,st}.sum`.
    pub bank_conflicts: f64,
    /// `smsp__sass_branch_targets_threads_divergent.sum`.
    pub divergent_branches: f64,
}

impl Counters {
    /// The counters of one Nsight Compute launch; a missing metric is an error naming it.
    pub fn from_launch(launch: &profile::Launch) -> Result<Counters, SamplingError> {
        let get = |name: &'static str| {
            launch
                .get(name)
                .map(|m| m.value)
                .ok_or(SamplingError::MissingMetric(name))
        };
        Ok(Counters {
            instructions: get("smsp__inst_executed.sum")?,
            thread_instructions: get("smsp__thread_inst_executed.sum")?,
            dram_bytes: get("dram__bytes_read.sum")? + get("dram__bytes_write.sum")?,
            l2_sectors: get("lts__t_sectors_op_read.sum")? + get("lts__t_sectors_op_write.sum")?,
            l2_hit_rate: get("lts__t_sector_hit_rate.pct")? / 100.0,
            bank_conflicts: get("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum")?
                + get("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum")?,
            divergent_branches: get("smsp__sass_branch_targets_threads_divergent.sum")?,
        })
    }
}

/// What the ML model knows of one occupancy point: its two samples, the launch and the
/// counters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PointInputs {
    /// The 2·Psat and 3·Psat samples.
    pub two: Sample,
    pub three: Sample,
    /// Groups of the full launch.
    pub total_groups: f64,
    /// Groups resident at once on the device (`blocks_per_sm × SMs`).
    pub psat: f64,
    /// Resident groups per SM at this point over the kernel's maximum.
    pub occupancy_fraction: f64,
    pub warps_per_group: f64,
    pub counters: Counters,
}

/// The ML model's feature vector of one point ([`FEATURES`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Features(pub [f64; FEATURES.len()]);

impl Features {
    pub fn of(p: &PointInputs) -> Result<Features, SamplingError> {
        let (two, three) = (check(p.two)?, check(p.three)?);
        if two.groups == three.groups {
            return Err(SamplingError::SameGroups(two.groups));
        }
        let c = &p.counters;
        if c.instructions.is_nan() || c.instructions <= 0.0 {
            return Err(SamplingError::NoInstructions);
        }
        let per_inst = |x: f64| (x.max(0.0) / c.instructions).ln_1p();
        // marginal time per group over the 3·Psat sample's average: 1 for a launch whose
        // time is proportional to its groups, 0 for a constant time; the linear model's
        // extrapolation over the proportional one tends to it as N grows
        let marginal = ((three.time_us - two.time_us) / (three.groups - two.groups))
            / (three.time_us / three.groups);
        Ok(Features([
            three.time_us.ln(),
            marginal,
            (p.total_groups / p.psat).ln(),
            p.occupancy_fraction,
            per_inst(c.dram_bytes),
            per_inst(c.l2_sectors),
            c.l2_hit_rate,
            c.thread_instructions / (32.0 * c.instructions),
            per_inst(c.bank_conflicts),
            per_inst(100.0 * c.divergent_branches),
            (c.instructions / (p.total_groups * p.warps_per_group)).ln(),
        ]))
    }

    pub fn values(&self) -> &[f64] {
        &self.0
    }
}

/// The λ grid of [`select_lambda`] (penalty `λ·n·‖w‖²` on standardized features).
pub const LAMBDAS: [f64; 5] = [1e-3, 1e-2, 1e-1, 1.0, 10.0];

/// Sufficient statistics of a set of rows `(x, y)`: enough to fit ridge regression on any
/// union of such sets without revisiting the rows (leave-one-group-out fits sum all groups
/// but one).
#[derive(Debug, Clone, PartialEq)]
pub struct GroupStats {
    pub n: f64,
    pub sum_x: Vec<f64>,
    /// Σ x xᵀ, row-major `d × d`.
    pub sum_xx: Vec<f64>,
    pub sum_y: f64,
    pub sum_xy: Vec<f64>,
}

impl GroupStats {
    pub fn new(d: usize) -> GroupStats {
        GroupStats {
            n: 0.0,
            sum_x: vec![0.0; d],
            sum_xx: vec![0.0; d * d],
            sum_y: 0.0,
            sum_xy: vec![0.0; d],
        }
    }

    pub fn dim(&self) -> usize {
        self.sum_x.len()
    }

    pub fn add(&mut self, x: &[f64], y: f64) {
        let d = self.dim();
        assert_eq!(
            x.len(),
            d,
            "row of {} features for statistics of {d}",
            x.len()
        );
        self.n += 1.0;
        self.sum_y += y;
        for i in 0..d {
            self.sum_x[i] += x[i];
            self.sum_xy[i] += x[i] * y;
            for j in 0..d {
                self.sum_xx[i * d + j] += x[i] * x[j];
            }
        }
    }

    pub fn of_rows<'a>(d: usize, rows: impl IntoIterator<Item = (&'a [f64], f64)>) -> GroupStats {
        let mut s = GroupStats::new(d);
        for (x, y) in rows {
            s.add(x, y);
        }
        s
    }

    pub fn merge(&mut self, other: &GroupStats) {
        assert_eq!(self.dim(), other.dim());
        self.n += other.n;
        self.sum_y += other.sum_y;
        for (a, b) in self.sum_x.iter_mut().zip(&other.sum_x) {
            *a += b;
        }
        for (a, b) in self.sum_xx.iter_mut().zip(&other.sum_xx) {
            *a += b;
        }
        for (a, b) in self.sum_xy.iter_mut().zip(&other.sum_xy) {
            *a += b;
        }
    }
}

/// A fitted ridge regression `ŷ = b + Σ w_j (x_j − μ_j)/σ_j`.
#[derive(Debug, Clone, PartialEq)]
pub struct Ridge {
    pub lambda: f64,
    /// Feature means and standard deviations over the training rows (a feature constant over
    /// them has σ = 1 and weight 0).
    pub mean: Vec<f64>,
    pub scale: Vec<f64>,
    /// The mean target (the intercept on standardized features, unpenalized).
    pub intercept: f64,
    /// Weights of the standardized features.
    pub weights: Vec<f64>,
}

impl Ridge {
    /// Ridge regression on the rows summarized by `stats`, penalty `lambda · n · ‖w‖²`
    /// (λ ≥ 0; 0 is ordinary least squares, which needs the features linearly independent
    /// over the rows).
    pub fn fit(stats: &GroupStats, lambda: f64) -> Result<Ridge, SamplingError> {
        let d = stats.dim();
        let n = stats.n;
        if n < 1.0 {
            return Err(SamplingError::Fit("no training rows".into()));
        }
        if !(lambda >= 0.0 && lambda.is_finite()) {
            return Err(SamplingError::Fit(format!("λ = {lambda}")));
        }
        let mean: Vec<f64> = stats.sum_x.iter().map(|s| s / n).collect();
        let my = stats.sum_y / n;
        // centred second moments: Σ (x_i − μ_i)(x_j − μ_j) = Σ x_i x_j − n μ_i μ_j
        let cov = |i: usize, j: usize| stats.sum_xx[i * d + j] - n * mean[i] * mean[j];
        let constant: Vec<bool> = (0..d)
            .map(|i| cov(i, i) <= 1e-12 * (stats.sum_xx[i * d + i].abs() + 1e-300))
            .collect();
        let scale: Vec<f64> = (0..d)
            .map(|i| {
                if constant[i] {
                    1.0
                } else {
                    (cov(i, i) / n).sqrt()
                }
            })
            .collect();
        // the normal equations on standardized features, constant features left out
        let live: Vec<usize> = (0..d).filter(|&i| !constant[i]).collect();
        let m = live.len();
        let mut a = vec![0.0; m * m];
        let mut b = vec![0.0; m];
        for (r, &i) in live.iter().enumerate() {
            for (c, &j) in live.iter().enumerate() {
                a[r * m + c] = cov(i, j) / (scale[i] * scale[j]);
            }
            a[r * m + r] += lambda * n;
            b[r] = (stats.sum_xy[i] - n * mean[i] * my) / scale[i];
        }
        let solved = cholesky_solve(&mut a, &mut b, m)?;
        let mut weights = vec![0.0; d];
        for (r, &i) in live.iter().enumerate() {
            weights[i] = solved[r];
        }
        Ok(Ridge {
            lambda,
            mean,
            scale,
            intercept: my,
            weights,
        })
    }

    pub fn predict(&self, x: &[f64]) -> f64 {
        self.intercept
            + x.iter()
                .zip(&self.mean)
                .zip(&self.scale)
                .zip(&self.weights)
                .map(|(((x, m), s), w)| w * (x - m) / s)
                .sum::<f64>()
    }

    /// The model in the features' own units: `(intercept, weights)` with
    /// `ŷ = intercept + Σ weights_j x_j`.
    pub fn raw_weights(&self) -> (f64, Vec<f64>) {
        let w: Vec<f64> = self
            .weights
            .iter()
            .zip(&self.scale)
            .map(|(w, s)| w / s)
            .collect();
        let b = self.intercept - w.iter().zip(&self.mean).map(|(w, m)| w * m).sum::<f64>();
        (b, w)
    }
}

/// Solves `A x = b` for a symmetric positive definite `m × m` `A` (row-major) by Cholesky.
fn cholesky_solve(a: &mut [f64], b: &mut [f64], m: usize) -> Result<Vec<f64>, SamplingError> {
    // A = L Lᵀ, L stored in the lower triangle of `a`
    for j in 0..m {
        let mut d = a[j * m + j];
        for k in 0..j {
            d -= a[j * m + k] * a[j * m + k];
        }
        // also refuses a NaN pivot
        if d.is_nan() || d <= 1e-12 * a[j * m + j].abs().max(1e-300) {
            return Err(SamplingError::Fit(
                "the features are linearly dependent over the training rows (λ = 0)".into(),
            ));
        }
        let l = d.sqrt();
        a[j * m + j] = l;
        for i in j + 1..m {
            let mut s = a[i * m + j];
            for k in 0..j {
                s -= a[i * m + k] * a[j * m + k];
            }
            a[i * m + j] = s / l;
        }
    }
    // L z = b, then Lᵀ x = z
    let mut z = vec![0.0; m];
    for i in 0..m {
        let mut s = b[i];
        for k in 0..i {
            s -= a[i * m + k] * z[k];
        }
        z[i] = s / a[i * m + i];
    }
    let mut x = vec![0.0; m];
    for i in (0..m).rev() {
        let mut s = z[i];
        for k in i + 1..m {
            s -= a[k * m + i] * x[k];
        }
        x[i] = s / a[i * m + i];
    }
    Ok(x)
}

/// One group of training rows (one kernel's points): its statistics and rows.
#[derive(Debug, Clone, PartialEq)]
pub struct Group {
    pub stats: GroupStats,
    pub rows: Vec<(Vec<f64>, f64)>,
}

impl Group {
    pub fn new(d: usize, rows: Vec<(Vec<f64>, f64)>) -> Group {
        let stats = GroupStats::of_rows(d, rows.iter().map(|(x, y)| (x.as_slice(), *y)));
        Group { stats, rows }
    }
}

/// The statistics of every group but `skip`.
fn all_but(groups: &[&Group], skip: Option<usize>) -> GroupStats {
    let d = groups.first().map_or(0, |g| g.stats.dim());
    let mut s = GroupStats::new(d);
    for (i, g) in groups.iter().enumerate() {
        if Some(i) != skip {
            s.merge(&g.stats);
        }
    }
    s
}

/// The λ of `grid` with the smallest leave-one-group-out loss over `groups`: each group is
/// predicted by the fit on the others, its loss the mean of `loss(ŷ, y)` over its rows, and
/// the groups' losses are averaged (every group weighs the same, however many rows it has).
/// The first of equal losses wins. Needs at least two groups.
pub fn select_lambda(
    groups: &[&Group],
    grid: &[f64],
    loss: impl Fn(f64, f64) -> f64,
) -> Result<f64, SamplingError> {
    if groups.len() < 2 {
        return Err(SamplingError::Fit(format!(
            "choosing λ needs at least two groups ({} given)",
            groups.len()
        )));
    }
    let mut best: Option<(f64, f64)> = None;
    for &lambda in grid {
        let mut total = 0.0;
        for (i, g) in groups.iter().enumerate() {
            let model = Ridge::fit(&all_but(groups, Some(i)), lambda)?;
            let n = g.rows.len().max(1) as f64;
            total += g
                .rows
                .iter()
                .map(|(x, y)| loss(model.predict(x), *y))
                .sum::<f64>()
                / n;
        }
        let mean = total / groups.len() as f64;
        let better = match best {
            None => true,
            Some((_, b)) => mean < b,
        };
        if better {
            best = Some((lambda, mean));
        }
    }
    best.map(|(l, _)| l)
        .ok_or_else(|| SamplingError::Fit("empty λ grid".into()))
}

/// The model for a group left out: ridge regression on `training` (every other group) with
/// λ chosen on them by [`select_lambda`].
pub fn fit_selected(
    training: &[&Group],
    grid: &[f64],
    loss: impl Fn(f64, f64) -> f64,
) -> Result<Ridge, SamplingError> {
    let lambda = select_lambda(training, grid, loss)?;
    Ridge::fit(&all_but(training, None), lambda)
}
