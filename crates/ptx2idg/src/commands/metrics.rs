//! `ptx2idg metrics [--nvprof]`: the profiler command line that collects every metric the
//! tool reads (`profile::metrics::collect_command`), so a CSV is right the first time.

use crate::diag::outln;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct MetricsArgs {
    /// Print the nvprof command line (pre-Hopper GPUs) instead of Nsight Compute's.
    #[arg(long)]
    pub nvprof: bool,
}

pub fn run(args: &MetricsArgs) -> ExitCode {
    outln!("{}", profile::metrics::collect_command(args.nvprof));
    ExitCode::SUCCESS
}
