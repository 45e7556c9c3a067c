//! `ptx2idg`: the command-line front end. Owns argument parsing and dispatch only; each
//! subcommand lives in `commands/<name>.rs`, and every error shown to a user is rendered by
//! `diag.rs`. Exit codes: 0 success, 1 input errors (e.g. a file did not parse), 2 usage.

mod commands;
mod diag;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "ptx2idg",
    version,
    about = "PTX front end, Instruction Dependence Graphs and GPU performance simulation",
    args_conflicts_with_subcommands = true,
    arg_required_else_help = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// The main job (no subcommand): build the IDGs of one kernel launch.
    #[command(flatten)]
    main: commands::idg::MainArgs,
}

#[derive(Subcommand)]
enum Command {
    /// Parse PTX files and summarize each kernel (name, parameters, registers, instructions).
    Check(commands::check::CheckArgs),
    /// Print a kernel's CFG, loop forest and loop trip counts (summary, JSON or Graphviz DOT).
    Cfg(commands::cfg::CfgArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Some(Command::Check(args)) => commands::check::run(&args),
        Some(Command::Cfg(args)) => commands::cfg::run(&args),
        None => commands::idg::run(&cli.main),
    }
}
