//! The main job, `ptx2idg FILE [--kernel K] [--trips CSV]... [launch] [--format ...] [-o OUT]`:
//! builds the per-warp IDGs of one kernel launch and writes them as a summary, the compact
//! JSON form (`docs/idg-format.md`), the `stats` object, or DOT of one materialized class.

use crate::diag::out;
use std::path::PathBuf;
use std::process::ExitCode;

use super::args::{LaunchArgs, TripsArgs};
use super::front;
use crate::diag;

#[derive(clap::ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Format {
    #[default]
    Summary,
    Json,
    Dot,
    Stats,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnknownBranch {
    Taken,
    NotTaken,
    Heavier,
    Both,
}

impl From<UnknownBranch> for walk::UnknownBranch {
    fn from(u: UnknownBranch) -> Self {
        match u {
            UnknownBranch::Taken => walk::UnknownBranch::Taken,
            UnknownBranch::NotTaken => walk::UnknownBranch::NotTaken,
            UnknownBranch::Heavier => walk::UnknownBranch::Heavier,
            UnknownBranch::Both => walk::UnknownBranch::Both,
        }
    }
}

/// How warps are walked; shared by every command that builds IDGs from PTX.
#[derive(clap::Args, Debug, Clone)]
pub struct WalkArgs {
    /// Work groups to walk: `middle` (the central group of the grid, the middle of each dimension, which stands for the inside, and a group at each combination of the grid's edges that is at least 1/64 of its groups, docs/idg-format.md), `first`, `all`, or a count N (the first N groups).
    #[arg(long, value_name = "middle|first|all|N", default_value = "middle", value_parser = parse_groups)]
    pub groups: walk::Groups,
    /// Assumption for branches on data the launch does not decide (default: from profile
    /// evidence of divergent branches if a `--trips` profile has it, else heavier: the side
    /// with more code before the two sides meet again).
    #[arg(long, value_enum)]
    pub unknown_branch: Option<UnknownBranch>,
    /// Drop the control dependences (instructions after a branch depending on it).
    #[arg(long, hide_short_help = true)]
    pub no_control_deps: bool,
    /// Inlining budget: most instructions a kernel may have once its `.func` calls are
    /// inlined (a deep or doubling call tree is refused past it).
    #[arg(long, value_name = "N", default_value_t = ir::DEFAULT_INLINE_BUDGET, hide_short_help = true)]
    pub max_inlined: usize,
    /// IDG-size budget: most template nodes the launch's IDGs may hold, all warp classes
    /// together (many walked groups with distinct paths are refused past it).
    #[arg(long, value_name = "N", default_value_t = walk::DEFAULT_MAX_IDG_NODES, hide_short_help = true)]
    pub max_idg_nodes: u64,
}

impl WalkArgs {
    pub fn options(&self) -> walk::Options {
        walk::Options {
            unknown_branch: self.unknown_branch.map(Into::into).unwrap_or_default(),
            mix: None,
            control_deps: !self.no_control_deps,
            groups: self.groups,
            max_inlined: self.max_inlined,
            max_idg_nodes: self.max_idg_nodes,
            busy_share: None,
            nearby_groups: true,
        }
    }
}

fn parse_groups(s: &str) -> Result<walk::Groups, String> {
    match s {
        "middle" => Ok(walk::Groups::Middle),
        "first" => Ok(walk::Groups::First),
        "all" => Ok(walk::Groups::All),
        n => n
            .parse::<u64>()
            .ok()
            .filter(|n| *n > 0)
            .map(walk::Groups::Count)
            .ok_or_else(|| format!("`{s}`: expected first, all or a positive count")),
    }
}

/// Materializing more dynamic instructions than this for DOT needs `--force`.
const DOT_LIMIT: u64 = 2_000;

#[derive(clap::Args, Debug, Clone)]
pub struct MainArgs {
    /// The PTX file.
    pub file: Option<PathBuf>,
    /// The kernel: mangled name, demangled name or an unambiguous substring.
    #[arg(long)]
    pub kernel: Option<String>,
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
    /// Write the output here instead of standard output.
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    pub output: Option<PathBuf>,
    /// The warp class drawn by `--format dot`.
    #[arg(long, default_value_t = 0)]
    pub class: usize,
    /// Draw DOT graphs larger than 2000 instructions.
    #[arg(long)]
    pub force: bool,
    #[command(flatten)]
    pub launch: LaunchArgs,
    #[command(flatten)]
    pub trips: TripsArgs,
    #[command(flatten)]
    pub walk: WalkArgs,
}

pub fn run(args: &MainArgs) -> ExitCode {
    let Some(path) = &args.file else {
        diag::error("no PTX file given; see `ptx2idg --help`");
        return ExitCode::from(2);
    };
    let inputs: Vec<&std::path::Path> = std::iter::once(path.as_path())
        .chain(args.trips.files())
        .collect();
    if let Err(code) = diag::refuse_overwrites(&[("-o", args.output.as_deref())], &inputs, &[]) {
        return code;
    }
    let source = match front::load(path, args.kernel.as_deref()) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let fe = match front::run(
        &source,
        &args.launch,
        &args.trips,
        &args.walk,
        front::GpuFront::default(),
    ) {
        Ok((fe, _)) => fe,
        Err(code) => return code,
    };
    let idgs = &fe.built.idgs;
    if matches!(args.format, Format::Summary | Format::Stats) {
        if let Err(e) = idgs.check_analysis() {
            return diag::fail(&source.file, e);
        }
    }
    let text = match args.format {
        Format::Summary => idg::render::summary(idgs),
        Format::Json => idgs.to_json() + "\n",
        Format::Stats => idg::render::stats_json(idgs) + "\n",
        Format::Dot => {
            let Some(class) = idgs.classes.get(args.class) else {
                diag::error(&format!(
                    "--class {}: the kernel has {} warp classes",
                    args.class,
                    idgs.classes.len()
                ));
                return ExitCode::from(2);
            };
            let limit = if args.force { u64::MAX } else { DOT_LIMIT };
            match class.idg.materialize(limit) {
                Ok(g) => idg::dot::to_dot(
                    &class.idg,
                    &g,
                    &format!(
                        "{} class {} (warps {})",
                        idgs.kernel,
                        args.class,
                        idg::render::ranges(&class.warps)
                    ),
                ),
                Err(e) => {
                    diag::file_error(
                        &source.file,
                        &format!("{e}; use --format json for the compact form, or --force"),
                    );
                    return ExitCode::from(1);
                }
            }
        }
    };
    match &args.output {
        Some(out) => {
            if let Err(e) = diag::write_file(out, text.as_bytes()) {
                diag::file_error(&out.display().to_string(), &e.to_string());
                return ExitCode::from(1);
            }
        }
        None => out!("{text}"),
    }
    ExitCode::SUCCESS
}
