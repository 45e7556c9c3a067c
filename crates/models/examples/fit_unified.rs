//! Fits the unified hardware-fitted model's weights to bench/unified's measurements and prints
//! the GPU profile's `[unified_model]` section.
//!
//!     cargo run --release -p models --example fit_unified -- CSV [PTX]
//!
//! CSV: `bench/unified/data/GPU/times.csv` (columns in bench/unified/README.md); PTX: the
//! measured build's PTX, by default `unified.ptx` next to the CSV. Each row's kernel is
//! lowered and walked with the row's launch (the middle group walked: the measurement
//! kernels' groups are alike), its properties counted (`models::unified`), and the weights
//! fitted to `time_us` by relative least squares. Prints the section on stdout, the fit's
//! geometric-mean relative error and each kernel's on stderr.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use models::unified::{count_properties, fit, profile_section, PropertyCounts};

type Error = Box<dyn std::error::Error>;

struct Row {
    kernel: String,
    variant: String,
    grid: [u32; 3],
    block: [u32; 3],
    params: Vec<(String, ir::ParamValue)>,
    time_us: f64,
}

fn parse_csv(text: &str) -> Result<Vec<Row>, Error> {
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    let header: Vec<&str> = lines.next().ok_or("empty CSV")?.split(',').collect();
    let col = |name: &str| {
        header
            .iter()
            .position(|h| h.trim() == name)
            .ok_or_else(|| format!("the CSV has no column `{name}`"))
    };
    let (k, v, gx, gy, bx, by, p, t) = (
        col("kernel")?,
        col("variant")?,
        col("grid_x")?,
        col("grid_y")?,
        col("block_x")?,
        col("block_y")?,
        col("params")?,
        col("time_us")?,
    );
    lines
        .enumerate()
        .map(|(i, line)| {
            let f: Vec<&str> = line.split(',').map(str::trim).collect();
            if f.len() != header.len() {
                return Err(
                    format!("line {}: {} fields, not {}", i + 2, f.len(), header.len()).into(),
                );
            }
            let num = |j: usize| -> Result<u32, Error> {
                f[j].parse()
                    .map_err(|e| format!("line {}: `{}`: {e}", i + 2, f[j]).into())
            };
            let params = f[p]
                .split(';')
                .filter(|s| !s.is_empty())
                .map(|kv| {
                    let (name, value) = kv.split_once('=').ok_or_else(|| {
                        format!("line {}: parameter `{kv}` is not INDEX=VALUE", i + 2)
                    })?;
                    let value = match value.parse::<i64>() {
                        Ok(n) => ir::ParamValue::Int(n),
                        Err(_) => ir::ParamValue::Float(
                            value
                                .parse::<f64>()
                                .map_err(|e| format!("line {}: parameter `{kv}`: {e}", i + 2))?,
                        ),
                    };
                    Ok((name.to_string(), value))
                })
                .collect::<Result<_, Error>>()?;
            Ok(Row {
                kernel: f[k].to_string(),
                variant: f[v].to_string(),
                grid: [num(gx)?, num(gy)?, 1],
                block: [num(bx)?, num(by)?, 1],
                params,
                time_us: f[t]
                    .parse()
                    .map_err(|e| format!("line {}: time_us `{}`: {e}", i + 2, f[t]))?,
            })
        })
        .collect()
}

fn counts(module: &ptx::ast::Module, row: &Row) -> Result<PropertyCounts, Error> {
    let kernel = ir::lower_kernel(module, &row.kernel)?;
    let an = ir::analyze(&kernel)?;
    let launch = ir::Launch {
        grid: row.grid,
        block: row.block,
        params: row.params.clone(),
    }
    .bind(&kernel)?;
    let trips = ir::resolve_trips(
        &kernel,
        &an,
        &launch,
        &ir::TripInputs {
            explicit: &[],
            profile: None,
        },
    )?;
    let built = walk::build(&kernel, &an, &launch, &trips, &walk::Options::default())?;
    Ok(count_properties(&built.idgs))
}

fn main() -> Result<(), Error> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(csv_path) = args.first().map(PathBuf::from) else {
        return Err("usage: fit_unified CSV [PTX]".into());
    };
    let ptx_path = args.get(1).map(PathBuf::from).unwrap_or_else(|| {
        csv_path
            .parent()
            .unwrap_or(Path::new("."))
            .join("unified.ptx")
    });
    let read = |p: &Path| std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()));
    let rows = parse_csv(&read(&csv_path)?)?;
    let module =
        ptx::parse(&read(&ptx_path)?).map_err(|e| format!("{}: {e}", ptx_path.display()))?;
    let mut data = Vec::with_capacity(rows.len());
    for r in &rows {
        let c = counts(&module, r).map_err(|e| {
            format!(
                "{} {} grid {:?} block {:?}: {e}",
                r.kernel, r.variant, r.grid, r.block
            )
        })?;
        data.push((c, r.time_us * 1e-6));
    }
    let f = fit(&data)?;
    let source = format!(
        "{} ({} launches, bench/unified, fit_unified; geometric-mean relative error {:.3})",
        csv_path.display(),
        rows.len(),
        f.geomean_rel_error()
    );
    print!("{}", profile_section(&f, &source));
    eprintln!(
        "fit: {} rows, {} weights, geometric-mean relative error {:.4}",
        rows.len(),
        f.weights.len(),
        f.geomean_rel_error()
    );
    if !f.dropped.is_empty() {
        let names: Vec<String> = f.dropped.iter().map(|p| p.to_string()).collect();
        eprintln!(
            "no weight (spanned by the others in these measurements): {}",
            names.join(", ")
        );
    }
    let mut by_kernel: BTreeMap<&str, Vec<(f64, f64)>> = BTreeMap::new();
    for (r, tp) in rows.iter().zip(&f.rows) {
        by_kernel.entry(&r.kernel).or_default().push(*tp);
    }
    for (k, v) in by_kernel {
        eprintln!(
            "  {k:<26} {:>3} rows  geometric-mean relative error {:.4}",
            v.len(),
            models::unified::geomean_rel_error(&v)
        );
    }
    Ok(())
}
