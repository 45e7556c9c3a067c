//! The CLI side of the front end: reads the PTX file and the `--trips` inputs, selects the
//! kernel, runs `walk::front_end`, and renders every failure through `diag`. Commands that
//! start from PTX (`ptx2idg FILE`, `simulate`, `models`, `map`) share it.

use std::path::Path;
use std::process::ExitCode;

use super::args::{LaunchArgs, TripsArgs};
use crate::diag;

/// A parsed module and the name of the selected kernel.
pub struct Source {
    pub file: String,
    pub module: ptx::ast::Module,
    pub entry: String,
}

/// Reads and parses `path` and selects the kernel named by `query` (mangled, demangled or an
/// unambiguous substring; optional when the module has one kernel).
pub fn load(path: &Path, query: Option<&str>) -> Result<Source, ExitCode> {
    let file = path.display().to_string();
    let src = std::fs::read_to_string(path).map_err(|e| fail(&file, e))?;
    let module = ptx::parse(&src).map_err(|e| {
        diag::parse_error(&file, &src, &e);
        ExitCode::from(1)
    })?;
    let names: Vec<&str> = module.kernels().map(|f| f.name.as_str()).collect();
    let entry = ir::names::select_kernel(&names, query)
        .map_err(|e| fail(&file, e))?
        .to_string();
    Ok(Source {
        file,
        module,
        entry,
    })
}

/// Explicit trips-table rows of `--trips` files that name `entry`.
pub fn explicit_rows(args: &TripsArgs, entry: &str) -> Result<Vec<ir::ExplicitTrip>, ExitCode> {
    let mut rows = Vec::new();
    for path in &args.trips {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| fail(&name, e))?;
        let first = text
            .lines()
            .map(str::trim)
            .find(|l| !l.is_empty() && !l.starts_with('#'))
            .unwrap_or("");
        if first.replace(' ', "") != "kernel,loop,trips" {
            return Err(fail(
                &name,
                "not a trips table (`kernel,loop,trips`); reading profiler CSVs here is not wired yet",
            ));
        }
        let parsed = ir::trips::parse_trips_table(&text, &name).map_err(|e| fail(&name, e))?;
        let names = [entry];
        rows.extend(
            parsed
                .into_iter()
                .filter(|(k, _)| ir::names::select_kernel(&names, Some(k)).is_ok())
                .map(|(_, row)| row),
        );
    }
    Ok(rows)
}

/// Runs the front end for `source` under the launch and trip options.
pub fn run(
    source: &Source,
    launch: &LaunchArgs,
    trips: &TripsArgs,
    opts: &walk::Options,
) -> Result<walk::FrontEnd, ExitCode> {
    let rows = explicit_rows(trips, &source.entry)?;
    let inputs = ir::TripInputs {
        explicit: &rows,
        profile: None,
    };
    let fe = walk::front_end(
        &source.module,
        &source.entry,
        &launch.launch(),
        &inputs,
        opts,
    )
    .map_err(|e| fail(&source.file, e))?;
    for w in &fe.trips.warnings {
        diag::file_error(&source.file, &format!("warning: {}", w.message));
    }
    if trips.explain {
        eprint!(
            "{}",
            ir::render::explain(&fe.kernel, &fe.analysis, &fe.trips)
        );
        if !fe.built.unknown_branches.is_empty() {
            let lines: Vec<String> = fe
                .built
                .unknown_branches
                .iter()
                .map(u32::to_string)
                .collect();
            eprintln!(
                "branches on data the launch does not decide (PTX lines {}): assumed {}",
                lines.join(", "),
                match opts.unknown_branch {
                    walk::UnknownBranch::Taken => "taken",
                    walk::UnknownBranch::NotTaken => "not taken",
                    walk::UnknownBranch::Both => "both sides (divergent)",
                }
            );
        }
    }
    Ok(fe)
}

fn fail(file: &str, e: impl std::fmt::Display) -> ExitCode {
    diag::file_error(file, &e.to_string());
    ExitCode::from(1)
}
