//! The IDGs' dynamic counts beside the profiler's: what a launch's warp classes execute per
//! warp (instructions, active-lane instructions, global and shared loads and stores,
//! branches, divergent branches), converted from PTX to SASS counts with the profile's
//! [`SassExpansion`] factors (a tensor-fragment instruction first counts as the SASS
//! instructions it becomes, [`crate::fragment`]), and the measured counts per warp of a
//! profiled launch.
//!
//! This is a diagnostic: a counter that disagrees says the IDG walked another path than the
//! hardware (a trip count, a branch direction, a compiler transformation). It changes no
//! prediction. Owns the SASS conversion and the comparison; the counts are `idg::counts`' (the
//! walk supplies the divergent branch counts: they describe the path, not the graph), the
//! CLI and the evaluation render.

use idg::KernelIdgs;
use profile::{Launch, Quantity};
use serde::Serialize;

use crate::{fragment, SassExpansion};

pub use idg::counts::{
    idg_counts, idg_counts_lowered, kernel_counts, kernel_counts_lowered, Counter, Counts,
};

/// The profiler quantity measuring it (all launches, divided by the warps launched).
pub fn quantity(c: Counter) -> Quantity {
    match c {
        Counter::Instructions => Quantity::WarpInstsExecuted,
        Counter::ThreadInstructions => Quantity::ThreadInstsExecuted,
        Counter::GlobalLoads => Quantity::GlobalLoadRequests,
        Counter::GlobalStores => Quantity::GlobalStoreRequests,
        Counter::SharedLoads => Quantity::SharedLoadInsts,
        Counter::SharedStores => Quantity::SharedStoreInsts,
        Counter::Branches => Quantity::Branches,
        Counter::DivergentBranches => Quantity::DivergentBranches,
    }
}

/// SASS per PTX instruction of this counter. Divergent branches keep their PTX count:
/// the static branch factor counts branches ptxas adds around subroutines and loop
/// copies, which do not split warps; a data-dependent branch stays one branch.
pub fn factor(c: Counter, e: &SassExpansion) -> f64 {
    match c {
        Counter::Instructions | Counter::ThreadInstructions => e.inst,
        Counter::GlobalLoads => e.global_ld,
        Counter::GlobalStores => e.global_st,
        Counter::SharedLoads => e.shared_ld,
        Counter::SharedStores => e.shared_st,
        Counter::Branches => e.branch,
        Counter::DivergentBranches => 1.0,
    }
}

/// One counter, predicted against measured, per warp.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CounterRow {
    pub counter: Counter,
    /// The IDG's PTX count per warp, a tensor-fragment instruction counted as the SASS
    /// instructions it becomes ([`crate::fragment`]).
    pub ptx: f64,
    /// SASS per PTX instruction applied ([`factor`]).
    pub factor: f64,
    /// `ptx * factor`: the predicted SASS count per warp; `None` when not predicted.
    pub predicted: Option<f64>,
    /// The profiler's count over its warps launched; `None` when the profile lacks it.
    pub measured: Option<f64>,
    /// The metric(s) the measurement came from.
    pub from: Option<String>,
}

/// Disagreement beyond which a counter is flagged: a path or trip count is likely wrong.
pub const DISAGREEMENT: f64 = 0.25;

impl CounterRow {
    /// `predicted - measured`: the same sign as [`CounterRow::relative`] (positive where the
    /// IDGs count more than the profile).
    pub fn difference(&self) -> Option<f64> {
        Some(self.predicted? - self.measured?)
    }

    /// `(predicted - measured) / measured`; `None` without both, or with a zero measurement
    /// and a zero prediction (they agree). A zero measurement with a non-zero prediction is
    /// infinite.
    pub fn relative(&self) -> Option<f64> {
        let (p, m) = (self.predicted?, self.measured?);
        if m == 0.0 {
            return (p != 0.0).then_some(f64::INFINITY);
        }
        Some((p - m) / m)
    }

    /// True when predicted and measured differ by more than [`DISAGREEMENT`] of the
    /// measurement. Counts below one per warp on both sides agree (a boundary warp's stray
    /// instruction is not a wrong path).
    pub fn disagrees(&self) -> bool {
        match (self.predicted, self.measured, self.relative()) {
            (Some(p), Some(m), Some(r)) => p.max(m) >= 1.0 && r.abs() > DISAGREEMENT,
            _ => false,
        }
    }
}

/// Every [`Counter`] of `idgs` (with the walk's divergent counts) beside `launch`'s
/// measurement, per warp. `None` when the launch has no warp count to divide by.
pub fn compare(
    idgs: &KernelIdgs,
    divergent: Option<&[u64]>,
    expansion: &SassExpansion,
    launch: &Launch,
) -> Option<Vec<CounterRow>> {
    let warps = launch.quantity(Quantity::WarpsLaunched)?.value;
    if warps <= 0.0 {
        return None;
    }
    // A tensor-fragment instruction is several SASS instructions and requests.
    let counts = kernel_counts_lowered(idgs, divergent, &|n| fragment::lowering(&n.op).count);
    Some(
        Counter::ALL
            .iter()
            .map(|&c| {
                let measured = launch.quantity(quantity(c));
                let factor = factor(c, expansion);
                let predicted = (c != Counter::DivergentBranches || divergent.is_some())
                    .then(|| counts.get(c) * factor);
                CounterRow {
                    counter: c,
                    ptx: counts.get(c),
                    factor,
                    predicted,
                    measured: measured.as_ref().map(|m| m.value / warps),
                    from: measured.map(|m| m.from),
                }
            })
            .collect(),
    )
}

/// The comparison as a text table (for `--explain`), one counter a line, then one warning
/// line per counter that disagrees.
pub fn explain(rows: &[CounterRow]) -> String {
    let num = |v: Option<f64>| v.map_or_else(|| "-".to_string(), |v| format!("{v:.2}"));
    let mut out = String::from(
        "counters per warp (IDG, PTX counts x SASS factor, vs the profile):\n  counter              predicted     measured   difference   relative\n",
    );
    for r in rows {
        let rel = match r.relative() {
            Some(x) if x.is_finite() => format!("{:+.1} %", 100.0 * x),
            Some(_) => "inf".to_string(),
            None => "-".to_string(),
        };
        out.push_str(&format!(
            "  {:<20} {:>9} {:>12} {:>12} {:>10}{}\n",
            r.counter.name(),
            num(r.predicted),
            num(r.measured),
            num(r.difference()),
            rel,
            if r.disagrees() { "  !" } else { "" }
        ));
    }
    for r in rows.iter().filter(|r| r.disagrees()) {
        out.push_str(&format!(
            "warning: {} per warp: the IDG gives {} ({} PTX x {:.3}), the profile {} ({}): more than {:.0} % apart\n",
            r.counter.name(),
            num(r.predicted),
            num(Some(r.ptx)),
            r.factor,
            num(r.measured),
            r.from.as_deref().unwrap_or("?"),
            100.0 * DISAGREEMENT
        ));
    }
    out
}
