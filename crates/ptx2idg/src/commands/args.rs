//! Reusable clap argument groups: the launch (`--grid`, `--block`, `--param`) and the
//! trip-count inputs (`--trips`, `--invocation`, `--explain`). Shared by `cfg`, the main IDG
//! job, `simulate` and `models`, so every command reads launches and trips the same way:
//! [`TripsArgs::load`] reads every `--trips` file through the `profile` crate (format detected
//! by content) and turns it into the `ir` crate's typed trip inputs.

use std::ops::RangeInclusive;
use std::path::PathBuf;

/// Parses an occupancy range: `A..=B`, `A..B` (exclusive end), `A-B` or `N`, all positive.
pub fn parse_range(s: &str) -> Result<RangeInclusive<u32>, String> {
    let num = |t: &str| {
        t.trim()
            .parse::<u32>()
            .ok()
            .filter(|v| *v > 0)
            .ok_or_else(|| format!("`{t}` in `{s}` is not a positive integer"))
    };
    let r = if let Some((a, b)) = s.split_once("..=") {
        num(a)?..=num(b)?
    } else if let Some((a, b)) = s.split_once("..") {
        num(a)?..=num(b)?.saturating_sub(1)
    } else if let Some((a, b)) = s.split_once('-') {
        num(a)?..=num(b)?
    } else {
        let n = num(s)?;
        n..=n
    };
    if r.is_empty() {
        return Err(format!("`{s}` is an empty range"));
    }
    Ok(r)
}

/// Parses `X[,Y[,Z]]` into three dimensions (missing ones are 1).
pub fn parse_dim3(s: &str) -> Result<[u32; 3], String> {
    let parts: Vec<&str> = s.split(',').map(str::trim).collect();
    if parts.is_empty() || parts.len() > 3 {
        return Err(format!("`{s}`: expected X[,Y[,Z]]"));
    }
    let mut out = [1u32; 3];
    for (i, p) in parts.iter().enumerate() {
        out[i] = p
            .parse::<u32>()
            .ok()
            .filter(|v| *v > 0)
            .ok_or_else(|| format!("`{p}` in `{s}` is not a positive integer"))?;
    }
    Ok(out)
}

/// Parses a grid `X[,Y[,Z]]` a GPU can launch (`ir::MAX_GRID`).
pub fn parse_grid(s: &str) -> Result<[u32; 3], String> {
    let d = parse_dim3(s)?;
    ir::Launch::check_dims(d, [1, 1, 1]).map_err(|e| format!("`{s}`: {e}"))?;
    Ok(d)
}

/// Parses a block `X[,Y[,Z]]` a GPU can launch (`ir::MAX_BLOCK`, at most 1024 threads).
pub fn parse_block(s: &str) -> Result<[u32; 3], String> {
    let d = parse_dim3(s)?;
    ir::Launch::check_dims([1, 1, 1], d).map_err(|e| format!("`{s}`: {e}"))?;
    Ok(d)
}

/// Parses `NAME=VALUE`: VALUE an integer (decimal or 0x hex, optionally negative) or a
/// decimal float (`ir::ParamValue::parse`); whether the parameter takes it is decided against
/// its PTX type when the launch is bound.
pub fn parse_param(s: &str) -> Result<(String, ir::ParamValue), String> {
    let (name, value) = s
        .split_once('=')
        .ok_or_else(|| format!("`{s}`: expected NAME=VALUE"))?;
    let name = name.trim();
    if name.is_empty() {
        return Err(format!(
            "`{s}`: expected NAME=VALUE, the parameter's name or index"
        ));
    }
    let parsed = ir::ParamValue::parse(value).map_err(|e| format!("{e} (for `{name}`)"))?;
    Ok((name.to_string(), parsed))
}

/// The kernel launch the analysis evaluates.
#[derive(clap::Args, Debug, Clone)]
pub struct LaunchArgs {
    /// Grid size in blocks: X[,Y[,Z]].
    #[arg(long, value_name = "X[,Y[,Z]]", value_parser = parse_grid, default_value = "1")]
    pub grid: [u32; 3],
    /// Block size in threads: X[,Y[,Z]], at most 1024 threads.
    #[arg(long, value_name = "X[,Y[,Z]]", value_parser = parse_block, default_value = "32")]
    pub block: [u32; 3],
    /// A scalar kernel parameter: NAME=VALUE, NAME as in the PTX or the parameter's index
    /// (from 0); repeatable. An integer parameter takes an integer (decimal or 0x hex) that
    /// fits its width; an .f32 / .f64 (or .f16, .bf16) parameter a float or an integer it
    /// holds exactly. Pointers need no value. Examples: --param n=4096, --param 3=0xff,
    /// --param alpha=1.5, --param 2=-2e-3.
    #[arg(long = "param", value_name = "NAME=VALUE", value_parser = parse_param)]
    pub params: Vec<(String, ir::ParamValue)>,
}

impl LaunchArgs {
    /// The launch as the `ir` crate takes it.
    pub fn launch(&self) -> ir::Launch {
        ir::Launch {
            grid: self.grid,
            block: self.block,
            params: self.params.clone(),
        }
    }
}

/// Where loop trip counts come from besides static analysis.
#[derive(clap::Args, Debug, Clone)]
pub struct TripsArgs {
    /// A trips table (`kernel,loop,trips`) or profiler CSV; repeatable, format detected by
    /// content.
    #[arg(long = "trips", value_name = "FILE")]
    pub trips: Vec<PathBuf>,
    /// Which launch of the kernel the profile numbers come from (default: the median).
    #[arg(long, value_name = "N")]
    pub invocation: Option<usize>,
    /// List every loop with its trip count, source and PTX line.
    #[arg(long)]
    pub explain: bool,
}

impl TripsArgs {
    /// The files read.
    pub fn files(&self) -> impl Iterator<Item = &std::path::Path> {
        self.trips.iter().map(PathBuf::as_path)
    }
}

/// What the `--trips` files say about one kernel (read by the `walk` crate).
pub use walk::TripData;

impl TripsArgs {
    /// The selected invocation of a kernel launched several times.
    pub fn invocation(&self) -> profile::Invocation {
        match self.invocation {
            Some(n) => profile::Invocation::Index(n),
            None => profile::Invocation::Median,
        }
    }

    /// Reads every `--trips` file for kernel `entry` (mangled). Errors are complete messages
    /// naming the file (and row / column where the profile crate knows them). Rows naming
    /// other kernels are skipped unchecked; see [`TripsArgs::load_checked`].
    pub fn load(&self, entry: &str) -> Result<TripData, String> {
        self.load_inner(entry, None)
    }

    /// [`TripsArgs::load`] for `entry` of a module whose kernels are `kernels` (mangled): a
    /// trips-table row naming none of them is a warning in [`TripData::notes`] naming the
    /// file, the row and the kernel, and listing the module's kernels (a table may cover
    /// several PTX files, so it is not an error; but it is never silently ignored).
    pub fn load_checked(&self, entry: &str, kernels: &[&str]) -> Result<TripData, String> {
        self.load_inner(entry, Some(kernels))
    }

    fn load_inner(&self, entry: &str, kernels: Option<&[&str]>) -> Result<TripData, String> {
        walk::inputs::load(&self.trips, entry, kernels, self.invocation())
            .map_err(|e| e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges() {
        assert_eq!(parse_range("1..=64").unwrap(), 1..=64);
        assert_eq!(parse_range("8..64").unwrap(), 8..=63);
        assert_eq!(parse_range("8-64").unwrap(), 8..=64);
        assert_eq!(parse_range("32").unwrap(), 32..=32);
        assert!(parse_range("0..=4").is_err());
        assert!(parse_range("9..=4").is_err());
        assert!(parse_range("x").is_err());
    }

    #[test]
    fn dims_and_params() {
        assert_eq!(parse_dim3("128").unwrap(), [128, 1, 1]);
        assert_eq!(parse_dim3("16,8").unwrap(), [16, 8, 1]);
        assert!(parse_dim3("0").is_err());
        assert!(parse_dim3("1,2,3,4").is_err());
        assert_eq!(parse_param("n=0x10").unwrap(), ("n".into(), 16.into()));
        assert_eq!(parse_param("2=-3").unwrap(), ("2".into(), (-3).into()));
        assert_eq!(
            parse_param("alpha=1.5").unwrap(),
            ("alpha".into(), 1.5.into())
        );
        assert!(parse_param("n").is_err());
        assert!(parse_param("=3").is_err());
        assert!(parse_param("n=inf").is_err());
    }
}
