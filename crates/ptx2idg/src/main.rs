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
}

#[derive(Subcommand)]
enum Command {
    /// Parse PTX files and summarize each kernel (name, parameters, registers, instructions).
    Check(commands::check::CheckArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Some(Command::Check(args)) => commands::check::run(&args),
        None => {
            diag::usage("no command given; see `ptx2idg --help`");
            ExitCode::from(2)
        }
    }
}
