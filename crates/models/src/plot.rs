//! The chart of Fig. 14: WPC against the occupancy ω for the Pipeline simulation and every
//! analytical model, one polyline each, as a self-contained SVG.
//!
//! Invariant: the y axis starts at 0 and ends just above the largest finite value, so curves
//! that "go through the roof" stay visible; non-finite values break a curve.

use std::fmt::Write as _;

use crate::table::num;
use crate::{ModelKind, Table};

const W: f64 = 760.0;
const H: f64 = 460.0;
const LEFT: f64 = 70.0;
const RIGHT: f64 = 190.0;
const TOP: f64 = 40.0;
const BOTTOM: f64 = 50.0;

/// One colour per [`ModelKind::COLUMNS`] entry.
const COLORS: [&str; 9] = [
    "#7f7f7f", "#1f77b4", "#ff7f0e", "#d62728", "#2ca02c", "#9467bd", "#8c564b", "#e377c2",
    "#17becf",
];

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// One curve: name, colour, stroke width, (ω, WPC) points.
type Series = (String, &'static str, f64, Vec<(u32, f64)>);

pub fn chart(t: &Table) -> String {
    let mut series: Vec<Series> = Vec::new();
    series.push((
        "pipeline".into(),
        "#000000",
        2.5,
        t.rows
            .iter()
            .filter_map(|r| r.pipeline.map(|p| (r.occupancy_warps, p)))
            .collect(),
    ));
    for (i, k) in ModelKind::COLUMNS.iter().enumerate() {
        let points: Vec<(u32, f64)> = t
            .rows
            .iter()
            .map(|r| (r.occupancy_warps, r.wpc(*k)))
            .collect();
        // The unified model predicts nothing without the profile's weights: no line.
        if *k == ModelKind::Unified && points.iter().any(|p| p.1.is_nan()) {
            continue;
        }
        series.push((k.column().into(), COLORS[i], 1.5, points));
    }
    let x_max = f64::from(
        t.rows
            .iter()
            .map(|r| r.occupancy_warps)
            .max()
            .unwrap_or(1)
            .max(1),
    );
    let y_max = series
        .iter()
        .flat_map(|s| s.3.iter().map(|p| p.1))
        .filter(|v| v.is_finite())
        .fold(0.0f64, f64::max)
        .max(1e-12)
        * 1.05;
    let pw = W - LEFT - RIGHT;
    let ph = H - TOP - BOTTOM;
    let x = |w: f64| LEFT + w / x_max * pw;
    let y = |v: f64| TOP + ph - v / y_max * ph;

    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(s, r#"<rect width="{W}" height="{H}" fill="white"/>"#);
    let _ = writeln!(
        s,
        r#"<text x="{}" y="22" text-anchor="middle" font-size="14">{} on {}</text>"#,
        LEFT + pw / 2.0,
        escape(&profile::names::readable(&t.kernel)),
        escape(&t.gpu)
    );
    // Axes, ticks and grid.
    for i in 0..=5 {
        let v = y_max * f64::from(i) / 5.0;
        let yy = y(v);
        let _ = writeln!(
            s,
            r##"<line x1="{LEFT}" y1="{yy:.1}" x2="{:.1}" y2="{yy:.1}" stroke="#e0e0e0"/><text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"##,
            LEFT + pw,
            LEFT - 6.0,
            yy + 4.0,
            num(v)
        );
    }
    let step = (x_max / 8.0).ceil().max(1.0);
    let mut w = 0.0;
    while w <= x_max {
        let xx = x(w);
        let _ = writeln!(
            s,
            r#"<line x1="{xx:.1}" y1="{:.1}" x2="{xx:.1}" y2="{:.1}" stroke="black"/><text x="{xx:.1}" y="{:.1}" text-anchor="middle">{w}</text>"#,
            TOP + ph,
            TOP + ph + 5.0,
            TOP + ph + 18.0
        );
        w += step;
    }
    let _ = writeln!(
        s,
        r#"<path d="M{LEFT} {TOP} V{:.1} H{:.1}" fill="none" stroke="black"/>"#,
        TOP + ph,
        LEFT + pw
    );
    let _ = writeln!(
        s,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">occupancy (warps)</text>"#,
        LEFT + pw / 2.0,
        H - 10.0
    );
    let _ = writeln!(
        s,
        r#"<text transform="translate(18 {:.1}) rotate(-90)" text-anchor="middle">WPC (warps per cycle per core)</text>"#,
        TOP + ph / 2.0
    );
    // Curves and legend.
    for (i, (name, color, width, pts)) in series.iter().enumerate() {
        let mut d = String::new();
        let mut pen_down = false;
        for &(w, v) in pts {
            if !v.is_finite() {
                pen_down = false;
                continue;
            }
            let _ = write!(
                d,
                "{}{:.1} {:.1} ",
                if pen_down { "L" } else { "M" },
                x(f64::from(w)),
                y(v)
            );
            pen_down = true;
        }
        if !d.is_empty() {
            let _ = writeln!(
                s,
                r#"<path d="{}" fill="none" stroke="{color}" stroke-width="{width}"/>"#,
                d.trim_end()
            );
        }
        let ly = TOP + 10.0 + i as f64 * 20.0;
        let lx = W - RIGHT + 15.0;
        let _ = writeln!(
            s,
            r#"<line x1="{lx}" y1="{ly}" x2="{}" y2="{ly}" stroke="{color}" stroke-width="{width}"/><text x="{}" y="{}">{name}</text>"#,
            lx + 24.0,
            lx + 30.0,
            ly + 4.0
        );
    }
    s.push_str("</svg>\n");
    s
}
