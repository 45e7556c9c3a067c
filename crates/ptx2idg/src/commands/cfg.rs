//! `ptx2idg cfg FILE --kernel K [--format summary|json|dot] [launch] [trips]`: prints one
//! kernel's CFG with dominator-derived reconvergence points, its loop forest and every loop's
//! trip count with its source. Warnings (loops defaulted to one trip, ...) go to stderr.

use super::args::{LaunchArgs, TripsArgs};
use crate::diag;
use crate::diag::out;
use std::path::PathBuf;
use std::process::ExitCode;

/// Output formats.
#[derive(clap::ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Format {
    #[default]
    Summary,
    Json,
    Dot,
}

#[derive(clap::Args)]
pub struct CfgArgs {
    /// The PTX file.
    file: PathBuf,
    /// The kernel: mangled name, demangled name or an unambiguous substring.
    #[arg(long)]
    kernel: Option<String>,
    #[arg(long, value_enum, default_value_t)]
    format: Format,
    #[command(flatten)]
    launch: LaunchArgs,
    #[command(flatten)]
    trips: TripsArgs,
    /// Inlining budget: most instructions the kernel may have once its calls are inlined.
    #[arg(long, value_name = "N", default_value_t = ir::DEFAULT_INLINE_BUDGET)]
    max_inlined: usize,
}

pub fn run(args: &CfgArgs) -> ExitCode {
    let file = args.file.display().to_string();
    let src = match ptx::read_source(&args.file) {
        Ok(s) => s,
        Err(e) => return diag::fail(&file, e),
    };
    let module = match ptx::parse(&src) {
        Ok(m) => m,
        Err(e) => {
            diag::parse_error(&file, &src, &e);
            return ExitCode::from(1);
        }
    };
    // The text and the syntax tree are dropped as soon as they are used (the tree once the
    // kernel is flattened, before it is cut into blocks): on a huge kernel each is as large
    // as the lowered kernel.
    drop(src);
    let owned: Vec<String> = module.kernels().map(|f| f.name.clone()).collect();
    let names: Vec<&str> = owned.iter().map(String::as_str).collect();
    let name = match ir::names::select_kernel(&names, args.kernel.as_deref()) {
        Ok(n) => n.to_string(),
        Err(e) => return diag::fail(&file, e),
    };
    let kernel = match ir::lower_kernel_owned(module, &name, args.max_inlined) {
        Ok(k) => k,
        Err(e) => return diag::fail(&file, e),
    };
    let an = match ir::analyze(&kernel) {
        Ok(a) => a,
        Err(e) => return diag::fail(&file, e),
    };
    let launch = match args.launch.launch().bind(&kernel) {
        Ok(l) => l,
        Err(e) => return diag::fail(&file, e),
    };
    let data = match args.trips.load_checked(&name, &names) {
        Ok(d) => d,
        Err(e) => {
            diag::error(&e);
            return ExitCode::from(1);
        }
    };
    for n in &data.notes {
        diag::emit(diag::Level::Warning, None, n);
    }
    let trips = match ir::resolve_trips(&kernel, &an, &launch, &data.inputs()) {
        Ok(t) => t,
        Err(e) => return diag::fail(&file, e),
    };
    let out = match args.format {
        Format::Summary => ir::render::summary(&kernel, &an, Some(&trips)),
        Format::Json => ir::render::json(&kernel, &an, Some(&trips)),
        Format::Dot => ir::render::dot(&kernel, &an, Some(&trips)),
    };
    out!("{out}");
    if args.trips.explain {
        eprint!("{}", ir::render::explain(&kernel, &an, &trips));
    }
    if args.format != Format::Summary {
        for w in &trips.warnings {
            diag::warning(&file, &w.message);
        }
    }
    ExitCode::SUCCESS
}
