//! Text renderings of an [`Evaluation`]: the Markdown table in the layout of Tables 10-12
//! (kernel × model, cells `MAPE / MAPE_shape`, then the average row) and the stable CSV.
//!
//! Invariants: the CSV header is exactly [`CSV_HEADER`]; rows come in kernel (manifest) order,
//! models in [`Model::ALL`] order, then the `average` rows; numbers have two decimals, so the
//! output is byte-identical for identical inputs. A model without a prediction for a kernel
//! keeps its row with empty numbers and is left out of that model's average.

use std::fmt::Write as _;

use crate::{Evaluation, Model};

pub const CSV_HEADER: &str = "kernel,model,mape,mape_shape";

/// The average row's kernel name in the CSV.
pub const AVERAGE: &str = "average";

pub fn csv(ev: &Evaluation) -> String {
    let models = ev.models();
    let mut out = String::new();
    out.push_str(CSV_HEADER);
    out.push('\n');
    for k in &ev.kernels {
        for &m in &models {
            match k.accuracy(m) {
                Some(a) => {
                    let _ = writeln!(out, "{},{m},{:.2},{:.2}", k.id, a.mape, a.mape_shape);
                }
                None => {
                    let _ = writeln!(out, "{},{m},,", k.id);
                }
            }
        }
    }
    for &m in &models {
        match ev.average(m) {
            Some(a) => {
                let _ = writeln!(
                    out,
                    "{AVERAGE},{m},{:.2},{:.2}",
                    a.accuracy.mape, a.accuracy.mape_shape
                );
            }
            None => {
                let _ = writeln!(out, "{AVERAGE},{m},,");
            }
        }
    }
    out
}


/// The header of [`points_csv`]: the model columns follow `measured_wpc`, one per model.
pub const POINTS_HEADER: &str = "kernel,occupancy_warps,blocks_per_sm,measured_wpc";

/// Every measured point beside every model's predicted WPC (empty where a model has no
/// prediction): the numbers behind the MAPE cells, for plotting and diagnosis.
pub fn points_csv(ev: &Evaluation, digits: u32) -> String {
    let significant = |x: f64| sim::number::significant(x, digits);
    let models = ev.models();
    let mut out = String::from(POINTS_HEADER);
    for m in &models {
        let _ = write!(out, ",{m}");
    }
    out.push('\n');
    for k in &ev.kernels {
        for (i, real) in k.real_wpc.iter().enumerate() {
            let _ = write!(
                out,
                "{},{},{},{}",
                k.id,
                k.occupancy_warps[i],
                k.blocks_per_sm[i],
                significant(*real)
            );
            for &m in &models {
                match k.result(m).and_then(|r| r.outcome.as_ref().ok()) {
                    Some((wpc, _)) => {
                        let _ = write!(out, ",{}", significant(wpc[i]));
                    }
                    None => out.push(','),
                }
            }
            out.push('\n');
        }
    }
    out
}

/// The Markdown table; kernels are named by their suite id with the paper's name beside it.
pub fn markdown(ev: &Evaluation) -> String {
    let models = ev.models();
    let mut out = String::new();
    out.push_str("| kernel |");
    for m in &models {
        let _ = write!(out, " {} |", m.heading());
    }
    out.push_str("\n|---|");
    for _ in &models {
        out.push_str("---:|");
    }
    out.push('\n');
    for k in &ev.kernels {
        let name = if k.paper_name == k.id {
            format!("`{}`", k.id)
        } else {
            format!("`{}` ({})", k.id, k.paper_name)
        };
        let _ = write!(out, "| {name} |");
        for &m in &models {
            match k.accuracy(m) {
                Some(a) => {
                    let _ = write!(out, " {:.1} / {:.1} |", a.mape, a.mape_shape);
                }
                None => out.push_str(" n/a |"),
            }
        }
        out.push('\n');
    }
    out.push_str("| **average** |");
    let total = ev.kernels.len();
    for &m in &models {
        match ev.average(m) {
            Some(a) if a.kernels == total => {
                let _ = write!(
                    out,
                    " **{:.1} / {:.1}** |",
                    a.accuracy.mape, a.accuracy.mape_shape
                );
            }
            Some(a) => {
                let _ = write!(
                    out,
                    " **{:.1} / {:.1}** ({} of {total}) |",
                    a.accuracy.mape, a.accuracy.mape_shape, a.kernels
                );
            }
            None => out.push_str(" n/a |"),
        }
    }
    out.push('\n');
    out
}

/// Why models failed on kernels, one line each (empty when all predicted).
pub fn failures(ev: &Evaluation) -> Vec<String> {
    let mut out = Vec::new();
    for k in &ev.kernels {
        for r in &k.models {
            if let Err(e) = &r.outcome {
                out.push(format!("{}: {}: {e}", k.id, r.model));
            }
        }
    }
    out
}

/// One line of an ablation study: a named variant and its evaluation.
pub struct AblationRow<'a> {
    pub variant: &'a str,
    pub description: &'a str,
    pub evaluation: &'a Evaluation,
}

/// Average Pipeline MAPE / MAPE_shape per variant, with the change against the first row, and
/// the per-kernel Pipeline MAPE of every variant.
pub fn ablation_markdown(rows: &[AblationRow<'_>]) -> String {
    let mut out = String::new();
    let base = rows
        .first()
        .and_then(|r| r.evaluation.average(Model::Pipeline));
    out.push_str(
        "| variant | what changes | Pipeline MAPE | MAPE_shape | Δ MAPE | kernels better / worse |\n",
    );
    out.push_str("|---|---|---:|---:|---:|---:|\n");
    for r in rows {
        match r.evaluation.average(Model::Pipeline) {
            Some(a) => {
                let delta = base
                    .map(|b| format!("{:+.1}", a.accuracy.mape - b.accuracy.mape))
                    .unwrap_or_default();
                let (better, worse) = rows
                    .first()
                    .map(|b| better_worse(b.evaluation, r.evaluation))
                    .unwrap_or((0, 0));
                let _ = writeln!(
                    out,
                    "| `{}` | {} | {:.1} | {:.1} | {delta} | {better} / {worse} |",
                    r.variant, r.description, a.accuracy.mape, a.accuracy.mape_shape
                );
            }
            None => {
                let _ = writeln!(
                    out,
                    "| `{}` | {} | n/a | n/a | | |",
                    r.variant, r.description
                );
            }
        }
    }
    if let Some(first) = rows.first() {
        out.push_str("\nPipeline MAPE per kernel and variant:\n\n| kernel |");
        for r in rows {
            let _ = write!(out, " `{}` |", r.variant);
        }
        out.push_str("\n|---|");
        for _ in rows {
            out.push_str("---:|");
        }
        out.push('\n');
        for (i, k) in first.evaluation.kernels.iter().enumerate() {
            let _ = write!(out, "| `{}` |", k.id);
            for r in rows {
                match r
                    .evaluation
                    .kernels
                    .get(i)
                    .and_then(|k| k.accuracy(Model::Pipeline))
                {
                    Some(a) => {
                        let _ = write!(out, " {:.1} |", a.mape);
                    }
                    None => out.push_str(" n/a |"),
                }
            }
            out.push('\n');
        }
    }
    out
}

/// Kernels whose Pipeline MAPE is more than one point lower / higher in `v` than in `base`.
fn better_worse(base: &Evaluation, v: &Evaluation) -> (usize, usize) {
    let mut out = (0, 0);
    for k in &base.kernels {
        let a = k.accuracy(Model::Pipeline);
        let b = v
            .kernels
            .iter()
            .find(|x| x.id == k.id)
            .and_then(|x| x.accuracy(Model::Pipeline));
        if let (Some(a), Some(b)) = (a, b) {
            if b.mape < a.mape - 1.0 {
                out.0 += 1;
            } else if b.mape > a.mape + 1.0 {
                out.1 += 1;
            }
        }
    }
    out
}

/// The ablation as CSV: `variant,kernel,mape,mape_shape` for the Pipeline model, with
/// `average` rows per variant.
pub fn ablation_csv(rows: &[AblationRow<'_>]) -> String {
    let mut out = String::from("variant,kernel,mape,mape_shape\n");
    for r in rows {
        for k in &r.evaluation.kernels {
            match k.accuracy(Model::Pipeline) {
                Some(a) => {
                    let _ = writeln!(
                        out,
                        "{},{},{:.2},{:.2}",
                        r.variant, k.id, a.mape, a.mape_shape
                    );
                }
                None => {
                    let _ = writeln!(out, "{},{},,", r.variant, k.id);
                }
            }
        }
        match r.evaluation.average(Model::Pipeline) {
            Some(a) => {
                let _ = writeln!(
                    out,
                    "{},{AVERAGE},{:.2},{:.2}",
                    r.variant, a.accuracy.mape, a.accuracy.mape_shape
                );
            }
            None => {
                let _ = writeln!(out, "{},{AVERAGE},,", r.variant);
            }
        }
    }
    out
}
