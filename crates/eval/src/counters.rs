//! The counter comparison (`gpu::counters`) for every kernel of a suite: the IDGs' per-warp
//! instructions, loads, stores and divergent branches, converted to SASS counts, beside the
//! ncu launch the trip counts were solved against (the highest-occupancy point). Lists which
//! kernels' graphs walk another path than the hardware, and by how much; predicts nothing.

use gpu::counters::{compare, CounterRow};
use gpu::SassExpansion;
use rayon::prelude::*;

use crate::predict::{build_graphs, Variant};
use crate::suite::Suite;

/// The comparison of one kernel, or why there is none.
pub struct KernelCounters {
    pub id: String,
    pub rows: Result<Vec<CounterRow>, String>,
}

/// Every kernel of `suite`, in suite order.
pub fn suite_counters(
    suite: &Suite,
    config: &Variant,
    expansion: &SassExpansion,
    slots: Option<walk::uneven::Slots>,
) -> Vec<KernelCounters> {
    suite
        .kernels
        .par_iter()
        .map(|case| {
            let rows = build_graphs(case, config, expansion, slots)
                .map_err(|e| e.to_string())
                .and_then(|g| {
                    compare(
                        &g.idgs,
                        Some(&g.divergent),
                        expansion,
                        &case.max_point().ncu,
                    )
                    .ok_or_else(|| "the ncu launch has no warp count".to_string())
                });
            KernelCounters {
                id: case.spec.id.clone(),
                rows,
            }
        })
        .collect()
}

/// The header of [`csv`].
pub const CSV_HEADER: &str =
    "suite,kernel,counter,ptx,factor,predicted,measured,difference,relative_pct,disagrees";

/// One row per kernel and counter (per warp); empty fields where a side is missing, and a
/// `counter` of `error` with the message in `measured`'s place when the kernel has none.
pub fn csv(suite: &str, kernels: &[KernelCounters]) -> String {
    let num = |v: Option<f64>| v.map_or_else(String::new, |v| format!("{v:.3}"));
    let mut out = String::new();
    for k in kernels {
        match &k.rows {
            Ok(rows) => {
                for r in rows {
                    let rel = r.relative().map(|x| {
                        if x.is_finite() {
                            format!("{:.1}", 100.0 * x)
                        } else {
                            "inf".into()
                        }
                    });
                    out.push_str(&format!(
                        "{suite},{},{},{:.3},{:.3},{},{},{},{},{}\n",
                        k.id,
                        r.counter.name(),
                        r.ptx,
                        r.factor,
                        num(r.predicted),
                        num(r.measured),
                        num(r.difference()),
                        rel.unwrap_or_default(),
                        r.disagrees()
                    ));
                }
            }
            Err(e) => out.push_str(&format!(
                "{suite},{},error,,,,\"{}\",,,\n",
                k.id,
                e.replace('"', "'")
            )),
        }
    }
    out
}
