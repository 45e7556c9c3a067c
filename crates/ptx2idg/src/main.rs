//! `ptx2idg`: the command-line front end. Owns argument parsing and dispatch only; each
//! subcommand lives in `commands/<name>.rs`, and every error shown to a user is rendered by
//! `diag.rs`. Exit codes: 0 success, 1 input errors (e.g. a file did not parse), 2 usage.

mod commands;
mod diag;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// Shown under `-h`: it leaves out the switches that turn one mechanism of the model off and
/// the budgets, which `--help` lists.
const MORE_HELP: &str = "-h lists the common options; --help lists every one, with the switches \
                         that turn one mechanism of the model off and the budgets that bound \
                         the work.";

#[derive(Parser)]
#[command(
    name = "ptx2idg",
    version,
    about = "PTX front end, Instruction Dependence Graphs and GPU performance simulation",
    args_conflicts_with_subcommands = true,
    arg_required_else_help = true,
    after_help = MORE_HELP
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
    /// List the bundled GPU profiles (one name per line), or print one with --show.
    Gpus(commands::gpus::GpusArgs),
    /// Map every instruction of a kernel to (class, subsystem, λ, Λ) for a GPU (mappers f, g).
    Map(commands::map::MapArgs),
    /// Print the ncu (or nvprof) command line that collects every metric the tool reads.
    Metrics(commands::metrics::MetricsArgs),
    /// Simulate a kernel launch on a GPU with the Pipeline model (one run or an occupancy sweep).
    #[command(after_help = MORE_HELP)]
    Simulate(commands::simulate::SimulateArgs),
    /// Predict a kernel's occupancy curve with the analytical models beside the Pipeline model.
    #[command(after_help = MORE_HELP)]
    Models(commands::models::ModelsArgs),
    /// Evaluate every model against a measured occupancy suite: MAPE tables, SVGs, ablations.
    #[command(after_help = MORE_HELP)]
    Eval(commands::eval::EvalArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Some(Command::Check(args)) => commands::check::run(&args),
        Some(Command::Cfg(args)) => commands::cfg::run(&args),
        Some(Command::Gpus(args)) => commands::gpus::run(&args),
        Some(Command::Map(args)) => commands::map::run(&args),
        Some(Command::Metrics(args)) => commands::metrics::run(&args),
        Some(Command::Simulate(args)) => commands::simulate::run(&args),
        Some(Command::Models(args)) => commands::models::run(&args),
        Some(Command::Eval(args)) => commands::eval::run(&args),
        None => commands::idg::run(&cli.main),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `simulate`, `models` and `eval` without model flags run exactly the configuration the
    /// evaluation validates, on every bundled GPU.
    #[test]
    fn cli_defaults_are_the_validated_configuration() {
        for name in gpu::bundled_names() {
            let profile = gpu::GpuProfile::bundled(name).unwrap();
            let want = sim::ModelConfig::validated(&profile);
            for argv in [
                ["ptx2idg", "simulate", "k.ptx"],
                ["ptx2idg", "models", "k.ptx"],
                ["ptx2idg", "eval", "suite"],
            ] {
                let model = match Cli::try_parse_from(argv).unwrap().command {
                    Some(Command::Simulate(a)) => a.model,
                    Some(Command::Models(a)) => a.model,
                    Some(Command::Eval(a)) => a.model,
                    _ => unreachable!("{argv:?}"),
                };
                assert_eq!(model.config(&profile), want, "{argv:?} on {name}");
            }
        }
    }

    /// Each flag changes the one mechanism it names.
    #[test]
    fn model_flags_switch_one_mechanism_each() {
        let profile = gpu::GpuProfile::bundled("hopper-h100").unwrap();
        let base = sim::ModelConfig::validated(&profile);
        // The aliases of 0.1 are gone: each flag says one thing.
        for old in [
            "--no-metrics",
            "--in-order",
            "--scheduled",
            "--sub-partitions",
            "--fit-branches",
        ] {
            assert!(
                Cli::try_parse_from(["ptx2idg", "simulate", "k.ptx", old]).is_err(),
                "{old}"
            );
        }
        let config = |flag: &str| match Cli::try_parse_from(["ptx2idg", "simulate", "k.ptx", flag])
            .unwrap()
            .command
        {
            Some(Command::Simulate(a)) => a.model.config(&profile),
            _ => unreachable!(),
        };
        assert_eq!(
            config("--no-mapper-g"),
            sim::ModelConfig {
                mapper_g: false,
                ..base
            }
        );
        assert_eq!(
            config("--no-sub-partitions"),
            sim::ModelConfig {
                sub_partitions: false,
                ..base
            }
        );
        assert_eq!(
            config("--no-sm-wide-pipes"),
            sim::ModelConfig {
                sm_wide_pipes: false,
                ..base
            }
        );
        assert_eq!(
            config("--no-barriers"),
            sim::ModelConfig {
                barriers: false,
                ..base
            }
        );
        assert_eq!(
            config("--wait-stores"),
            sim::ModelConfig {
                posted_stores: false,
                ..base
            }
        );
        assert_eq!(
            config("--no-latch-blocks"),
            sim::ModelConfig {
                latch_blocks: false,
                ..base
            }
        );
        assert_eq!(
            config("--no-fit-branches"),
            sim::ModelConfig {
                fit_branches: false,
                ..base
            }
        );
        assert_eq!(
            config("--no-uneven-warps"),
            sim::ModelConfig {
                uneven_warps: false,
                ..base
            }
        );
        assert_eq!(
            config("--no-loaded-latency"),
            sim::ModelConfig {
                loaded_latency: false,
                ..base
            }
        );
        assert_eq!(
            config("--no-dispatch"),
            sim::ModelConfig {
                dispatch: false,
                ..base
            }
        );
        assert_eq!(
            config("--scheduler=lrr"),
            sim::ModelConfig {
                scheduler: sim::Scheduler::LooseRoundRobin,
                ..base
            }
        );
        assert_eq!(
            config("--issue=dataflow"),
            sim::ModelConfig {
                order: sim::IssueOrder::Dataflow,
                ..base
            }
        );
        assert_eq!(
            config("--window=16"),
            sim::ModelConfig { window: 16, ..base }
        );
    }
}
