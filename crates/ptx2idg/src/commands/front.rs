//! The CLI side of the front end: reads the PTX file and the `--trips` inputs, selects the
//! kernel, runs `walk::front_end`, and renders every failure through `diag`. Commands that
//! start from PTX (`ptx2idg FILE`, `simulate`, `models`, `map`) share it.

use std::path::Path;
use std::process::ExitCode;

use super::args::{LaunchArgs, TripData, TripsArgs};
use super::idg::WalkArgs;
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
    let src = ptx::read_source(path).map_err(|e| fail(&file, e))?;
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

/// Runs the front end for `source` under the launch, trip and walk options; also returns the
/// parsed `--trips` inputs, whose profiler metrics mapper g reads.
pub fn run(
    source: &Source,
    launch: &LaunchArgs,
    trips: &TripsArgs,
    walk_args: &WalkArgs,
) -> Result<(walk::FrontEnd, TripData), ExitCode> {
    let kernels: Vec<&str> = source.module.kernels().map(|f| f.name.as_str()).collect();
    let data = trips.load_checked(&source.entry, &kernels).map_err(|e| {
        diag::usage(&e);
        ExitCode::from(1)
    })?;
    for n in &data.notes {
        diag::usage(n);
    }
    let (unknown, why) = unknown_branch_policy(walk_args, &data, &source.entry, trips);
    let opts = walk::Options {
        unknown_branch: unknown,
        ..walk_args.options()
    };
    let fe = walk::front_end(
        &source.module,
        &source.entry,
        &launch.launch(),
        &data.inputs(),
        &opts,
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
                "branches on data the launch does not decide (PTX lines {}): assumed {} ({why})",
                lines.join(", "),
                match unknown {
                    walk::UnknownBranch::Taken => "taken",
                    walk::UnknownBranch::NotTaken => "not taken",
                    walk::UnknownBranch::Both => "both sides (divergent)",
                }
            );
        }
    }
    Ok((fe, data))
}

/// The assumption for branches on unknown data: the user's `--unknown-branch`, else profile
/// evidence (`TripData::unknown_branch`), else not taken.
fn unknown_branch_policy(
    args: &WalkArgs,
    data: &TripData,
    entry: &str,
    trips: &TripsArgs,
) -> (walk::UnknownBranch, String) {
    if let Some(u) = args.unknown_branch {
        return (u.into(), "--unknown-branch".into());
    }
    data.unknown_branch(entry, trips.invocation())
        .unwrap_or((walk::UnknownBranch::NotTaken, "default".into()))
}

fn fail(file: &str, e: impl std::fmt::Display) -> ExitCode {
    diag::file_error(file, &e.to_string());
    ExitCode::from(1)
}
