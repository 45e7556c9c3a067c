//! One SVG chart per kernel in the manner of Figs. 17-18 of pipeline-model-analysis:
//! throughput against occupancy (resident warps per SM), the measured curve and every model's
//! curve, all normalized so that the measured throughput at the lowest occupancy is 100.
//!
//! Invariants: plain hand-written SVG 1.1 (no scripts, no external resources); identical input
//! gives identical bytes (fixed number formatting); curves that do not fit the axis range are
//! clipped to the plot area rather than stretching it beyond 4× the measured range.

use std::fmt::Write as _;

use crate::{KernelResult, Model};

const W: f64 = 640.0;
const H: f64 = 400.0;
const LEFT: f64 = 60.0;
const RIGHT: f64 = 150.0;
const TOP: f64 = 30.0;
const BOTTOM: f64 = 45.0;

fn colour(m: Model) -> &'static str {
    match m {
        Model::Pipeline => "#d62728",
        Model::Roofline => "#7f7f7f",
        Model::Volkov => "#1f77b4",
        Model::MwpCwp => "#ff7f0e",
        Model::MwpCwpCorr => "#ffbb78",
        Model::Wfg => "#2ca02c",
        Model::WfgCorr => "#98df8a",
        Model::GpumechRr => "#9467bd",
        Model::GpumechGto => "#c5b0d5",
        Model::Unified => "#17becf",
        Model::Sampling => "#8c564b",
        Model::SamplingMl => "#e377c2",
    }
}

/// Renders the chart of one kernel.
pub fn kernel_chart(k: &KernelResult, device: &str) -> String {
    let base = k.real_wpc.first().copied().unwrap_or(1.0);
    let norm = |v: &[f64]| -> Vec<f64> { v.iter().map(|x| 100.0 * x / base).collect() };
    let real = norm(&k.real_wpc);
    let curves: Vec<(Model, Vec<f64>)> = k
        .models
        .iter()
        .filter_map(|r| r.outcome.as_ref().ok().map(|(w, _)| (r.model, norm(w))))
        .collect();
    let real_max = real.iter().copied().fold(0.0f64, f64::max);
    let all_max = curves
        .iter()
        .flat_map(|(_, c)| c.iter().copied())
        .chain(real.iter().copied())
        .filter(|v| v.is_finite())
        .fold(0.0f64, f64::max);
    let y_max = nice_ceiling(all_max.min(4.0 * real_max).max(1.0));
    let xs: Vec<f64> = k.occupancy_warps.iter().map(|&w| f64::from(w)).collect();
    // Occupancy comes in warps: a multiple of 8 keeps the four x ticks on whole numbers.
    let x_max = (xs.iter().copied().fold(1.0, f64::max) / 8.0).ceil() * 8.0;
    let pw = W - LEFT - RIGHT;
    let ph = H - TOP - BOTTOM;
    let px = |x: f64| LEFT + pw * x / x_max;
    let py = |y: f64| TOP + ph * (1.0 - (y / y_max).clamp(0.0, 1.05));

    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" font-family="sans-serif" font-size="11">"#
    );
    let _ = writeln!(s, r#"<rect width="{W}" height="{H}" fill="white"/>"#);
    let _ = writeln!(
        s,
        r#"<text x="{}" y="18" text-anchor="middle" font-size="13">{} ({}) on {}</text>"#,
        LEFT + pw / 2.0,
        escape(&k.id),
        escape(&k.paper_name),
        escape(device)
    );
    // Axes with ticks.
    for i in 0..=4 {
        let yv = y_max * f64::from(i) / 4.0;
        let y = py(yv);
        let _ = writeln!(
            s,
            r##"<line x1="{LEFT}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="#e0e0e0"/><text x="{:.1}" y="{:.1}" text-anchor="end">{yv:.0}</text>"##,
            LEFT + pw,
            LEFT - 6.0,
            y + 4.0
        );
        let xv = x_max * f64::from(i) / 4.0;
        let x = px(xv);
        let _ = writeln!(
            s,
            r#"<text x="{x:.1}" y="{:.1}" text-anchor="middle">{xv}</text>"#,
            TOP + ph + 16.0
        );
    }
    let _ = writeln!(
        s,
        r#"<path d="M{LEFT},{TOP} V{:.1} H{:.1}" fill="none" stroke="black"/>"#,
        TOP + ph,
        LEFT + pw
    );
    let _ = writeln!(
        s,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">occupancy (resident warps per SM)</text>"#,
        LEFT + pw / 2.0,
        H - 8.0
    );
    let _ = writeln!(
        s,
        r#"<text transform="translate(16,{:.1}) rotate(-90)" text-anchor="middle">throughput (measured at lowest occupancy = 100)</text>"#,
        TOP + ph / 2.0
    );
    let poly = |s: &mut String, ys: &[f64], stroke: &str, width: f64| {
        let pts: Vec<String> = xs
            .iter()
            .zip(ys)
            .map(|(x, y)| format!("{:.1},{:.1}", px(*x), py(*y)))
            .collect();
        let _ = writeln!(
            s,
            r#"<polyline points="{}" fill="none" stroke="{stroke}" stroke-width="{width}"/>"#,
            pts.join(" ")
        );
    };
    for (m, c) in &curves {
        poly(&mut s, c, colour(*m), 1.5);
    }
    poly(&mut s, &real, "black", 2.5);
    for (x, y) in xs.iter().zip(&real) {
        let _ = writeln!(
            s,
            r#"<circle cx="{:.1}" cy="{:.1}" r="3" fill="black"/>"#,
            px(*x),
            py(*y)
        );
    }
    // Legend.
    let lx = W - RIGHT + 12.0;
    let mut ly = TOP + 6.0;
    let mut entry = |s: &mut String, label: &str, stroke: &str| {
        let _ = writeln!(
            s,
            r#"<line x1="{lx}" y1="{ly}" x2="{}" y2="{ly}" stroke="{stroke}" stroke-width="2.5"/><text x="{}" y="{}">{}</text>"#,
            lx + 18.0,
            lx + 24.0,
            ly + 4.0,
            escape(label)
        );
        ly += 16.0;
    };
    entry(&mut s, "measured", "black");
    for (m, _) in &curves {
        entry(&mut s, m.name(), colour(*m));
    }
    s.push_str("</svg>\n");
    s
}

/// 1, 2 or 5 times a power of ten, at least `v`.
fn nice_ceiling(v: f64) -> f64 {
    let p = 10f64.powf(v.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|f| f * p)
        .find(|c| *c >= v)
        .unwrap_or(10.0 * p)
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Accuracy, ModelResult};

    #[test]
    fn nice_ceilings() {
        assert_eq!(nice_ceiling(73.0), 100.0);
        assert_eq!(nice_ceiling(101.0), 200.0);
        assert_eq!(nice_ceiling(450.0), 500.0);
        assert_eq!(nice_ceiling(1.0), 1.0);
    }

    #[test]
    fn chart_normalizes_to_first_measured_point() {
        let k = KernelResult {
            id: "k<1>".into(),
            paper_name: "K".into(),
            blocks_per_sm: vec![1, 2],
            occupancy_warps: vec![8, 16],
            real_wpc: vec![0.5, 1.0],
            models: vec![ModelResult {
                model: Model::Pipeline,
                outcome: Ok((
                    vec![0.5, 0.75],
                    Accuracy {
                        mape: 12.5,
                        mape_shape: 0.0,
                    },
                )),
            }],
            notes: vec![],
        };
        let svg = kernel_chart(&k, "GPU");
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>\n"));
        assert!(svg.contains("k&lt;1&gt;"), "ids are escaped");
        // Measured 100 and 200 on a 0..200 axis: the second point sits on the top line.
        assert!(svg.contains(&format!("cy=\"{TOP:.1}\"")), "{svg}");
        assert!(svg.contains("pipeline"));
    }
}
