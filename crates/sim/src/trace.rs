//! Execution profiles of a recorded run (analysis paper section 3.2, Figs. 8 and 9).
//!
//! - [`chrome_trace`]: Chrome trace-event JSON (opens in Perfetto or chrome://tracing). One
//!   process "subsystems" with a thread per (partition, subsystem) whose slices are the
//!   occupancy [issue, issue + λ); one process per warp whose slices are the instructions in
//!   flight [issue, completion), packed into as few non-overlapping lanes as needed. Time unit:
//!   1 µs in the viewer is 1 core cycle.
//! - [`gantt_svg`]: a Gantt chart in the style of Figs. 8–9: per pipeline, each instruction as
//!   a bar from issue to completion, its first λ drawn solid, coloured by warp.

use std::fmt::Write as _;

use idg::KernelIdgs;
use serde_json::{json, Value};

use crate::config::Hardware;
use crate::result::IssueRecord;
use crate::sweep::xml_escape;
use crate::SimError;

/// Drawing more bars than this makes an unreadable chart.
pub const GANTT_LIMIT: usize = 4000;

fn op_name(kernel: &KernelIdgs, r: &IssueRecord) -> String {
    kernel
        .classes
        .get(r.class as usize)
        .and_then(|c| c.idg.nodes.get(r.node as usize))
        .map_or_else(|| format!("node {}", r.node), |n| n.op.to_string())
}

/// Greedy lane packing: each interval gets the first lane free at its start.
fn lanes(intervals: &[(u64, u64)]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..intervals.len()).collect();
    order.sort_by_key(|&i| intervals[i]);
    let mut ends: Vec<u64> = Vec::new();
    let mut lane = vec![0; intervals.len()];
    for i in order {
        let (s, e) = intervals[i];
        match ends.iter().position(|&end| end <= s) {
            Some(l) => {
                ends[l] = e;
                lane[i] = l;
            }
            None => {
                ends.push(e);
                lane[i] = ends.len() - 1;
            }
        }
    }
    lane
}

/// Chrome trace-event JSON of every issue and completion.
pub fn chrome_trace(kernel: &KernelIdgs, hw: &Hardware, records: &[IssueRecord]) -> String {
    let tpc = hw.ticks_per_cycle.max(1) as f64;
    let us = |t: u64| t as f64 / tpc;
    let n_subs = hw.subsystems.len() as u64;
    let mut ev: Vec<Value> = Vec::with_capacity(records.len() * 2 + 16);
    ev.push(json!({"ph": "M", "name": "process_name", "pid": 0, "args": {"name": "subsystems"}}));
    let mut seen_sub = std::collections::BTreeSet::new();
    let mut by_warp: std::collections::BTreeMap<u64, Vec<&IssueRecord>> = Default::default();
    for r in records {
        let tid = u64::from(r.partition) * n_subs + u64::from(r.subsystem);
        if seen_sub.insert(tid) {
            let name = hw
                .subsystems
                .get(r.subsystem as usize)
                .cloned()
                .unwrap_or_default();
            ev.push(
                json!({"ph": "M", "name": "thread_name", "pid": 0, "tid": tid,
                "args": {"name": format!("p{} {}", r.partition, name)}}),
            );
        }
        ev.push(
            json!({"ph": "X", "pid": 0, "tid": tid, "ts": us(r.issue), "dur": us(r.lambda),
            "name": op_name(kernel, r),
            "args": {"warp": r.warp, "seq": r.seq, "node": r.node}}),
        );
        by_warp.entry(r.warp).or_default().push(r);
    }
    for (warp, rs) in by_warp {
        let pid = warp + 1;
        ev.push(json!({"ph": "M", "name": "process_name", "pid": pid,
            "args": {"name": format!("warp {warp}")}}));
        ev.push(json!({"ph": "M", "name": "process_sort_index", "pid": pid,
            "args": {"sort_index": pid}}));
        let iv: Vec<(u64, u64)> = rs.iter().map(|r| (r.issue, r.complete)).collect();
        for (r, lane) in rs.iter().zip(lanes(&iv)) {
            ev.push(
                json!({"ph": "X", "pid": pid, "tid": lane, "ts": us(r.issue),
                "dur": us(r.complete.saturating_sub(r.issue)),
                "name": op_name(kernel, r),
                "args": {"seq": r.seq, "node": r.node, "subsystem": r.subsystem}}),
            );
        }
    }
    json!({"traceEvents": ev, "displayTimeUnit": "ns",
        "otherData": {"time_unit": "1 us = 1 core cycle"}})
    .to_string()
}

const PALETTE: [&str; 10] = [
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
    "#bcbd22", "#17becf",
];

/// A Gantt chart of a small run (at most [`GANTT_LIMIT`] issues).
pub fn gantt_svg(
    kernel: &KernelIdgs,
    hw: &Hardware,
    records: &[IssueRecord],
) -> Result<String, SimError> {
    if records.len() > GANTT_LIMIT {
        return Err(SimError::TooLargeToDraw {
            issues: records.len(),
            limit: GANTT_LIMIT,
        });
    }
    let tpc = hw.ticks_per_cycle.max(1) as f64;
    let end = records.iter().map(|r| r.complete).max().unwrap_or(0) as f64 / tpc;
    let px_per_cycle = (1200.0 / end.max(1.0)).clamp(2.0, 40.0);
    let (left, top, lane_h) = (110.0, 30.0, 16.0);
    // Rows: one band per (partition, subsystem), lanes inside by overlap.
    let mut bands: std::collections::BTreeMap<(u32, u32), Vec<&IssueRecord>> = Default::default();
    for r in records {
        bands.entry((r.partition, r.subsystem)).or_default().push(r);
    }
    let mut body = String::new();
    let mut y = top;
    for ((p, s), rs) in &bands {
        let iv: Vec<(u64, u64)> = rs.iter().map(|r| (r.issue, r.complete)).collect();
        let ls = lanes(&iv);
        let n_lanes = ls.iter().max().map_or(1, |m| m + 1);
        let band_h = n_lanes as f64 * lane_h;
        let name = hw.subsystems.get(*s as usize).cloned().unwrap_or_default();
        let _ = writeln!(
            body,
            r#"<text x="6" y="{:.1}">p{p} {}</text>"#,
            y + band_h / 2.0 + 4.0,
            xml_escape(&name)
        );
        let _ = writeln!(
            body,
            r##"<rect x="{left}" y="{y:.1}" width="{:.1}" height="{band_h:.1}" fill="#f4f4f4"/>"##,
            end * px_per_cycle
        );
        for (r, lane) in rs.iter().zip(ls) {
            let x0 = left + r.issue as f64 / tpc * px_per_cycle;
            let occ = r.lambda as f64 / tpc * px_per_cycle;
            let full = r.complete.saturating_sub(r.issue) as f64 / tpc * px_per_cycle;
            let ly = y + lane as f64 * lane_h + 1.0;
            let color = PALETTE[(r.warp % PALETTE.len() as u64) as usize];
            let label = format!("w{} {}", r.warp, op_name(kernel, r));
            let _ = writeln!(
                body,
                r#"<g><title>{} seq {}: issue {:.3}, λ {:.3}, done {:.3}</title><rect x="{x0:.1}" y="{ly:.1}" width="{full:.1}" height="{:.1}" fill="{color}" fill-opacity="0.3"/><rect x="{x0:.1}" y="{ly:.1}" width="{occ:.1}" height="{:.1}" fill="{color}"/>"#,
                xml_escape(&label),
                r.seq,
                r.issue as f64 / tpc,
                r.lambda as f64 / tpc,
                r.complete as f64 / tpc,
                lane_h - 2.0,
                lane_h - 2.0
            );
            if full > 40.0 {
                let _ = write!(
                    body,
                    r#"<text x="{:.1}" y="{:.1}" font-size="10">{}</text>"#,
                    x0 + 2.0,
                    ly + lane_h - 5.0,
                    xml_escape(&format!("w{}", r.warp))
                );
            }
            body.push_str("</g>\n");
        }
        y += band_h + 8.0;
    }
    // Cycle axis.
    let step = ((end / 20.0).ceil()).max(1.0);
    let mut c = 0.0;
    while c <= end {
        let x = left + c * px_per_cycle;
        let _ = writeln!(
            body,
            r##"<path d="M{x:.1} {} V{y:.1}" stroke="#ccc"/><text x="{x:.1}" y="{:.1}" text-anchor="middle" font-size="10">{c}</text>"##,
            top - 4.0,
            top - 8.0
        );
        c += step;
    }
    let width = left + end * px_per_cycle + 20.0;
    Ok(format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width:.0}\" height=\"{:.0}\" font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n{body}</svg>\n",
        y + 10.0
    ))
}
