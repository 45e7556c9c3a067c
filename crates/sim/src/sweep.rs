//! Occupancy sweeps: the same launch simulated at every resident-group count of a range, in
//! parallel (rayon), with the stable CSV contract and an SVG plot of the occupancy curve (WPC
//! against ω, the "occupancy roofline" of analysis section 1).
//!
//! Invariant: points come back in ascending occupancy order whatever the thread schedule; the
//! CSV header is exactly [`CSV_HEADER`].

use std::fmt::Write as _;
use std::ops::RangeInclusive;

use idg::KernelIdgs;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::config::{ExecConfig, Hardware, SimOptions};
use crate::cost::ClassCosts;
use crate::result::SimResult;
use crate::{simulate, SimError};

/// The CSV header, a contract for scripts.
pub const CSV_HEADER: &str = "occupancy_warps,blocks_per_sm,cycles,wpc,time_us";

/// What a sweep varies.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum SweepAxis {
    /// Resident warps ω; only whole groups are possible, so every multiple of the group size
    /// in the range is simulated.
    Warps(RangeInclusive<u32>),
    /// Resident groups (blocks) per SM.
    BlocksPerSm(RangeInclusive<u32>),
}

impl SweepAxis {
    /// The axis cut at `max_groups` resident groups of `warps_per_group` warps, with the
    /// new end in the axis's unit when it was cut.
    pub fn capped(self, max_groups: u32, warps_per_group: u32) -> (SweepAxis, Option<u32>) {
        match self {
            SweepAxis::Warps(r) => {
                let cap = max_groups * warps_per_group.max(1);
                if *r.end() > cap {
                    (SweepAxis::Warps(*r.start()..=cap), Some(cap))
                } else {
                    (SweepAxis::Warps(r), None)
                }
            }
            SweepAxis::BlocksPerSm(r) => {
                if *r.end() > max_groups {
                    (
                        SweepAxis::BlocksPerSm(*r.start()..=max_groups),
                        Some(max_groups),
                    )
                } else {
                    (SweepAxis::BlocksPerSm(r), None)
                }
            }
        }
    }

    /// Resident group counts to simulate, ascending.
    pub fn group_counts(&self, warps_per_group: u32) -> Result<Vec<u32>, SimError> {
        let wpg = warps_per_group.max(1);
        let counts: Vec<u32> = match self {
            SweepAxis::Warps(r) => {
                let lo = r.start().div_ceil(wpg).max(1);
                let hi = r.end() / wpg;
                (lo..=hi).collect()
            }
            SweepAxis::BlocksPerSm(r) => (*r.start().max(&1)..=*r.end()).collect(),
        };
        if counts.is_empty() {
            return Err(SimError::Config(format!(
                "the sweep range {self:?} holds no whole group of {wpg} warps"
            )));
        }
        Ok(counts)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SweepPoint {
    pub occupancy_warps: u64,
    pub blocks_per_sm: u32,
    pub cycles: f64,
    pub wpc: f64,
    pub time_us: f64,
    pub result: SimResult,
}

/// Simulates `base` at every resident-group count of `axis` with fixed costs. `progress` is
/// called once per finished point (from worker threads).
pub fn sweep(
    kernel: &KernelIdgs,
    costs: &[ClassCosts],
    hw: &Hardware,
    base: &ExecConfig,
    opts: &SimOptions,
    axis: &SweepAxis,
    progress: &(dyn Fn() + Sync),
) -> Result<Vec<SweepPoint>, SimError> {
    sweep_with(kernel, hw, base, opts, axis, progress, |_| {
        Ok(costs.to_vec())
    })
}

/// As [`sweep`], with costs recomputed per configuration (a context-dependent mapper g, e.g.
/// memory λ that depends on the resident warps).
pub fn sweep_with<F>(
    kernel: &KernelIdgs,
    hw: &Hardware,
    base: &ExecConfig,
    opts: &SimOptions,
    axis: &SweepAxis,
    progress: &(dyn Fn() + Sync),
    costs_for: F,
) -> Result<Vec<SweepPoint>, SimError>
where
    F: Fn(&ExecConfig) -> Result<Vec<ClassCosts>, SimError> + Sync,
{
    let counts = axis.group_counts(base.warps_per_group)?;
    counts
        .par_iter()
        .map(|&g| {
            let exec = ExecConfig {
                concurrent_groups: g,
                ..*base
            };
            let costs = costs_for(&exec)?;
            let result = simulate(kernel, &costs, hw, &exec, opts)?;
            progress();
            Ok(SweepPoint {
                occupancy_warps: u64::from(g) * u64::from(base.warps_per_group),
                blocks_per_sm: g,
                cycles: result.cycles,
                wpc: result.wpc,
                time_us: result.time_us,
                result,
            })
        })
        .collect()
}

/// The sweep as CSV with [`CSV_HEADER`].
pub fn sweep_csv(points: &[SweepPoint], digits: u32) -> String {
    let num = |x: f64| crate::number::significant(x, digits);
    let mut s = String::from(CSV_HEADER);
    s.push('\n');
    for p in points {
        let _ = writeln!(
            s,
            "{},{},{},{},{}",
            p.occupancy_warps,
            p.blocks_per_sm,
            num(p.cycles),
            num(p.wpc),
            num(p.time_us)
        );
    }
    s
}

/// The occupancy curve (WPC against resident warps) as a standalone SVG.
pub fn sweep_plot_svg(points: &[SweepPoint], title: &str) -> String {
    let (w, h) = (640.0, 400.0);
    let (l, r, t, b) = (70.0, 20.0, 40.0, 50.0);
    let max_x = points
        .iter()
        .map(|p| p.occupancy_warps as f64)
        .fold(1.0, f64::max);
    let max_y = points.iter().map(|p| p.wpc).fold(0.0, f64::max).max(1e-12) * 1.1;
    let x = |v: f64| l + v / max_x * (w - l - r);
    let y = |v: f64| h - b - v / max_y * (h - t - b);
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(s, r#"<rect width="{w}" height="{h}" fill="white"/>"#);
    let _ = writeln!(
        s,
        r#"<text x="{}" y="24" text-anchor="middle" font-size="14">{}</text>"#,
        w / 2.0,
        xml_escape(title)
    );
    // Axes with five ticks each.
    let _ = writeln!(
        s,
        r#"<path d="M{l} {t} V{} H{}" fill="none" stroke="black"/>"#,
        h - b,
        w - r
    );
    for i in 0..=5 {
        let vx = max_x * f64::from(i) / 5.0;
        let vy = max_y * f64::from(i) / 5.0;
        let _ = writeln!(
            s,
            r#"<text x="{:.1}" y="{}" text-anchor="middle">{:.0}</text>"#,
            x(vx),
            h - b + 16.0,
            vx
        );
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{:.1}" text-anchor="end">{:.4}</text>"#,
            l - 6.0,
            y(vy) + 4.0,
            vy
        );
        let _ = writeln!(
            s,
            r##"<path d="M{l} {:.1} H{}" stroke="#ddd"/>"##,
            y(vy),
            w - r
        );
    }
    let _ = writeln!(
        s,
        r#"<text x="{}" y="{}" text-anchor="middle">occupancy (warps)</text>"#,
        (l + w - r) / 2.0,
        h - 12.0
    );
    let _ = writeln!(
        s,
        r#"<text x="16" y="{}" text-anchor="middle" transform="rotate(-90 16 {})">WPC (warps/cycle)</text>"#,
        (t + h - b) / 2.0,
        (t + h - b) / 2.0
    );
    let path: Vec<String> = points
        .iter()
        .map(|p| format!("{:.1},{:.1}", x(p.occupancy_warps as f64), y(p.wpc)))
        .collect();
    let _ = writeln!(
        s,
        r##"<polyline points="{}" fill="none" stroke="#1f77b4" stroke-width="2"/>"##,
        path.join(" ")
    );
    for p in points {
        let _ = writeln!(
            s,
            r##"<circle cx="{:.1}" cy="{:.1}" r="3" fill="#1f77b4"><title>{} warps: WPC {:.5}, {:.1} cycles</title></circle>"##,
            x(p.occupancy_warps as f64),
            y(p.wpc),
            p.occupancy_warps,
            p.wpc,
            p.cycles
        );
    }
    s.push_str("</svg>\n");
    s
}

pub(crate) fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}
