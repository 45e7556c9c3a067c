//! `ptx2idg eval SUITE_DIR... [--gpu NAME] [--format markdown|csv|points|counters] [--svg-dir DIR] [--kernel ID]...
//! [--ablation] [--write-docs FILE] [--counters all|one|none]`: the Rodinia evaluation of crate `eval` (Tables 10-12 of
//! pipeline-model-analysis) on a suite directory (docs/rodinia-suite.md).
//!
//! stdout: the MAPE / MAPE_shape table (or, with `--ablation`, the average Pipeline MAPE per
//! variant). stderr: models that could not predict a kernel and what the IDG construction
//! assumed. `--write-docs` also runs the ablation and writes the results page.

use crate::diag::{out, outln};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use ::eval::predict::{ablations, GpuBackend, Variant, VariantsPredictor};
use ::eval::report::{self, AblationRow};
use ::eval::Evaluation;

use super::gpu_args::GpuArgs;
use super::model_args::ModelArgs;
use crate::diag;

#[derive(clap::ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Format {
    #[default]
    Markdown,
    Csv,
    /// Measured and predicted WPC at every point (`report::POINTS_HEADER`, then one column
    /// per model).
    Points,
    /// The IDGs' counters per warp (instructions, loads, stores, divergent branches; PTX
    /// converted to SASS) beside ncu's, every kernel of every suite
    /// (`eval::counters::CSV_HEADER`); simulates nothing.
    Counters,
}

/// Whose Nsight Compute counters each measured point reads (`eval::CountersMode`).
#[derive(clap::ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Counters {
    /// Every point its own launch's counters, as measured.
    #[default]
    All,
    /// Every point the counters of the launch at the highest measured occupancy (one
    /// profile of the real launch); the timings stay each point's own.
    One,
    /// No counters: PTX, launch and static analysis only; loops that depend on data get
    /// their trip counts from the instruction count of the launch at the highest measured
    /// occupancy alone.
    None,
}

impl Counters {
    fn mode(self) -> ::eval::CountersMode {
        match self {
            Counters::All => ::eval::CountersMode::All,
            Counters::One => ::eval::CountersMode::One,
            Counters::None => ::eval::CountersMode::None,
        }
    }
}

#[derive(clap::Args)]
pub struct EvalArgs {
    /// Suite directories holding suite.toml, or manifest files (suite-h200.toml: the same
    /// kernels measured on another GPU). The first is the tuning suite (the one the model's
    /// mechanisms were chosen on, ptx_samples/rodinia); the others are reported as held out.
    #[arg(required = true, num_args = 1..)]
    suites: Vec<PathBuf>,
    #[command(flatten)]
    gpu: GpuArgs,
    #[arg(long, value_enum, default_value_t)]
    format: Format,
    /// Counters each measured point reads: `all`, each its own launch's; `one`, every point
    /// the launch at the highest measured occupancy (a kernel profiled once); `none`, no
    /// counter but that launch's instruction count, which only the trip counts of loops
    /// that depend on data read.
    #[arg(long, value_enum, default_value_t)]
    counters: Counters,
    /// The machine code the IDGs are aligned with (docs/sass-input.md, "Alignment"): `auto`
    /// (the default, or the environment's PTX2IDG_SASS) assembles each suite PTX file with
    /// ptxas for the GPU's architecture and disassembles it; `none` keeps the PTX-only IDGs.
    /// The registers stay the suite's.
    #[arg(long, value_name = "auto|none", value_parser = ::eval::machine::MachineSource::parse)]
    sass: Option<::eval::machine::MachineSource>,
    /// Write one SVG per kernel (measured and model curves, normalized as in Figs. 17-18).
    #[arg(long, value_name = "DIR")]
    svg_dir: Option<PathBuf>,
    /// Evaluate only these kernel ids (repeatable).
    #[arg(long = "kernel", value_name = "ID")]
    kernels: Vec<String>,
    /// Print the ablation study (average Pipeline MAPE per switched mechanism) instead of
    /// the table.
    #[arg(long)]
    ablation: bool,
    /// Write the results page (table, ablation, commentary) to FILE.
    #[arg(long, value_name = "FILE")]
    write_docs: Option<PathBuf>,
    /// Base configuration: the validated one (`sim::ModelConfig::validated`) with these changes.
    #[command(flatten)]
    pub(crate) model: ModelArgs,
    /// Simulate 8 + 8 waves of groups and extrapolate the rest (faster, within 3 % of the
    /// exact simulation every group gets by default).
    #[arg(long)]
    extrapolate: bool,
    /// Print every note on what the IDG construction assumed, one line each (default: one
    /// line per topic, naming the kernels).
    #[arg(long, short)]
    verbose: bool,
    /// Significant digits of the numbers in CSV output (1-17; 17 reads back every value
    /// exactly).
    #[arg(long, value_name = "DIGITS", default_value_t = sim::number::DEFAULT_DIGITS,
          value_parser = clap::value_parser!(u32).range(1..=17))]
    precision: u32,
}

fn fail(e: impl std::fmt::Display) -> ExitCode {
    diag::error(&e.to_string());
    ExitCode::from(1)
}

/// One suite's results: the base evaluation and the ablation (`(name, description,
/// evaluation)`, the base first) when asked for.
struct SuiteRun {
    name: String,
    suite: ::eval::Suite,
    main: Evaluation,
    ablation: Vec<(String, String, Evaluation)>,
}

/// Loads every suite; `--kernel` ids select from whichever suite holds them.
fn load_suites(
    args: &EvalArgs,
    arch: Option<&str>,
) -> Result<Vec<(String, ::eval::Suite)>, ExitCode> {
    let mut out = Vec::new();
    for dir in &args.suites {
        let name = dir.display().to_string();
        let only: Vec<String> = if args.suites.len() == 1 {
            args.kernels.clone()
        } else {
            Vec::new()
        };
        let mut suite = match ::eval::load(dir, &only) {
            Ok(s) => s.with_counters(args.counters.mode()),
            Err(e @ ::eval::EvalError::UnknownKernel { .. }) => {
                diag::error(&e.to_string());
                return Err(ExitCode::from(2));
            }
            Err(e) => {
                diag::file_error(&name, &e.to_string());
                return Err(ExitCode::from(1));
            }
        };
        if args.suites.len() > 1 && !args.kernels.is_empty() {
            suite.kernels.retain(|k| args.kernels.contains(&k.spec.id));
        }
        let (source, note) = ::eval::machine::MachineSource::given_or_env(args.sass);
        for n in note
            .into_iter()
            .chain(::eval::machine::attach(&mut suite, source, arch))
        {
            diag::note(&n);
        }
        out.push((name, suite));
    }
    if args.suites.len() > 1 {
        for id in &args.kernels {
            if !out
                .iter()
                .any(|(_, s)| s.kernels.iter().any(|k| &k.spec.id == id))
            {
                diag::error(&format!("no suite has a kernel `{id}`"));
                return Err(ExitCode::from(2));
            }
        }
        if !matches!(args.format, Format::Markdown | Format::Counters) {
            diag::error(
                "CSV output (--format csv|points) takes one suite; markdown and counters show several",
            );
            return Err(ExitCode::from(2));
        }
    }
    Ok(out)
}

pub fn run(args: &EvalArgs) -> ExitCode {
    let dirs: Vec<&std::path::Path> = args.suites.iter().map(PathBuf::as_path).collect();
    let inputs: Vec<&std::path::Path> = args.gpu.file().into_iter().collect();
    if let Err(code) = diag::refuse_overwrites(
        &[("--write-docs", args.write_docs.as_deref())],
        &inputs,
        &dirs,
    ) {
        return code;
    }
    let profile = match args.gpu.load() {
        Ok(p) => p,
        Err(code) => return code,
    };
    let suites = match load_suites(args, profile.sass_arch.as_deref()) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let base = args.model.config(&profile);
    if args.counters == Counters::None && args.format == Format::Counters {
        diag::error(
            "--format counters compares the IDGs with the measured counters; \
             --counters none has none (use all or one)",
        );
        return ExitCode::from(2);
    }
    if let Some(note) = args.counters.mode().note() {
        diag::note(note);
    }
    if args.format == Format::Counters {
        outln!("{}", ::eval::counters::CSV_HEADER);
        for (name, suite) in &suites {
            let kernels = ::eval::counters::suite_counters(
                suite,
                &base,
                &profile.sass_expansion,
                Some(::eval::predict::slots(&profile)),
            );
            out!("{}", ::eval::counters::csv(name, &kernels));
        }
        return ExitCode::SUCCESS;
    }
    let gpu_name = profile.name.clone();
    let need_ablation = args.ablation || args.write_docs.is_some();
    // The base with the analytical models, then every other variant of the ablation: all
    // evaluated in one pass that shares their common work.
    let studied = if need_ablation {
        ablations(&base)
    } else {
        Vec::new()
    };
    let mut variants: Vec<(Variant, bool)> = vec![(base, true)];
    variants.extend(
        studied
            .iter()
            .filter(|(_, _, v)| *v != base)
            .map(|(_, _, v)| (*v, false)),
    );
    let predictor = VariantsPredictor {
        backend: GpuBackend {
            profile: profile.clone(),
        },
        variants,
        exact: !args.extrapolate,
    };
    let suite_refs: Vec<&::eval::Suite> = suites.iter().map(|(_, s)| s).collect();
    // A bar on a terminal only: piped output and CI logs stay clean.
    let kernels: usize = suite_refs.iter().map(|s| s.kernels.len()).sum();
    let bar = std::io::stderr().is_terminal().then(|| {
        let b = indicatif::ProgressBar::new(kernels as u64);
        b.set_message("kernels evaluated");
        b
    });
    let tick = || {
        if let Some(b) = &bar {
            b.inc(1);
        }
    };
    let evaluated = ::eval::evaluate_variants_with_progress(&suite_refs, &predictor, &tick);
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    let evaluated = match evaluated {
        Ok(e) => e,
        Err(e) => return fail(e),
    };
    // The sampling-ML model trains on every kernel of the run's suites, also those that
    // `--kernel` leaves out of the table.
    let training = if args.kernels.is_empty() {
        ::eval::sampling::SamplingModels::train(&suite_refs)
    } else {
        let mut all = Vec::new();
        for dir in &args.suites {
            match ::eval::load(dir, &[]) {
                Ok(s) => all.push(s.with_counters(args.counters.mode())),
                Err(e) => {
                    diag::file_error(&dir.display().to_string(), &e.to_string());
                    return ExitCode::from(1);
                }
            }
        }
        ::eval::sampling::SamplingModels::train(&all.iter().collect::<Vec<_>>())
    };
    let mut runs = Vec::new();
    for ((name, suite), per_variant) in suites.into_iter().zip(evaluated) {
        let mut per_variant = per_variant.into_iter();
        let mut main = per_variant.next().expect("the base is evaluated first");
        if args.counters.mode().runs_the_kernel() {
            ::eval::sampling::attach(&mut main, &suite, &training);
        }
        for line in report::failures(&main) {
            diag::emit(
                diag::Level::Warning,
                None,
                &format!("no prediction: {line}"),
            );
        }
        print_notes(&main, args.verbose);
        let ablation: Vec<(String, String, Evaluation)> = studied
            .iter()
            .map(|(vname, what, v)| {
                let ev = if *v == base {
                    main.clone()
                } else {
                    per_variant.next().expect("one evaluation per variant")
                };
                (vname.clone(), what.clone(), ev)
            })
            .collect();
        runs.push(SuiteRun {
            name,
            suite,
            main,
            ablation,
        });
    }
    let rows: Vec<Vec<AblationRow<'_>>> = runs
        .iter()
        .map(|r| {
            r.ablation
                .iter()
                .map(|(n, d, e)| AblationRow {
                    variant: n,
                    description: d,
                    evaluation: e,
                })
                .collect()
        })
        .collect();
    let titled = runs.len() > 1;
    for (r, rows) in runs.iter().zip(&rows) {
        if titled {
            outln!("## {}\n", r.name);
        }
        if args.ablation {
            match args.format {
                Format::Markdown => out!("{}", report::ablation_markdown(rows)),
                Format::Csv | Format::Points | Format::Counters => {
                    out!("{}", report::ablation_csv(rows))
                }
            }
        } else {
            match args.format {
                Format::Markdown => out!("{}", report::markdown(&r.main)),
                Format::Csv => out!("{}", report::csv(&r.main)),
                Format::Points => out!("{}", report::points_csv(&r.main, args.precision)),
                Format::Counters => unreachable!("handled before the evaluation"),
            }
        }
        if titled {
            outln!();
        }
        if let Some(dir) = &args.svg_dir {
            if let Err(e) = write_svgs(dir, &r.main) {
                return fail(e);
            }
        }
    }
    if let Some(file) = &args.write_docs {
        let svg = args
            .svg_dir
            .as_ref()
            .map(|d| format!(" --svg-dir {}", d.display()))
            .unwrap_or_default();
        let names: Vec<&str> = runs.iter().map(|r| r.name.as_str()).collect();
        let counters = match args.counters {
            Counters::All => String::new(),
            c => format!(" --counters {}", c.mode().name()),
        };
        let command = format!(
            "ptx2idg eval {} --gpu {gpu_name}{svg}{counters} --write-docs {}",
            names.join(" "),
            file.display()
        );
        // Link the charts when they are written below the page's directory.
        let svg_rel = args.svg_dir.as_ref().and_then(|d| {
            let base = file.parent().unwrap_or(std::path::Path::new(""));
            d.strip_prefix(base).ok().map(|r| r.display().to_string())
        });
        let sections: Vec<::eval::docs::SuiteSection<'_>> = runs
            .iter()
            .zip(&rows)
            .enumerate()
            .map(|(i, (r, rows))| ::eval::docs::SuiteSection {
                name: &r.name,
                role: if i == 0 {
                    ::eval::docs::Role::Tuning
                } else {
                    ::eval::docs::Role::HeldOut
                },
                suite: &r.suite,
                evaluation: &r.main,
                ablation: rows,
            })
            .collect();
        let page = ::eval::docs::results_page(&::eval::docs::PageInput {
            command: &command,
            gpu_profile: &gpu_name,
            base_variant: &base.describe(),
            sections: &sections,
            svg_dir: svg_rel.as_deref(),
        });
        if let Err(e) = diag::write_file(file, page.as_bytes()) {
            diag::file_error(&file.display().to_string(), &e.to_string());
            return ExitCode::from(1);
        }
    }
    ExitCode::SUCCESS
}

fn write_svgs(dir: &std::path::Path, ev: &Evaluation) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for k in &ev.kernels {
        let path = dir.join(format!("{}.svg", k.id));
        diag::write_file(&path, ::eval::svg::kernel_chart(k, &ev.device).as_bytes())
            .map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(())
}

/// The notes of an evaluation: with `verbose` one line each, else one line per topic with its
/// count and the kernels it concerns.
fn print_notes(ev: &Evaluation, verbose: bool) {
    if verbose {
        for k in &ev.kernels {
            for n in &k.notes {
                diag::note(&format!("{}: {}: {n}", k.id, n.topic.describe()));
            }
        }
        return;
    }
    let mut topics: std::collections::BTreeMap<::eval::Topic, (usize, Vec<&str>)> =
        Default::default();
    for k in &ev.kernels {
        for n in &k.notes {
            let (count, kernels) = topics.entry(n.topic).or_default();
            *count += 1;
            if kernels.last() != Some(&k.id.as_str()) {
                kernels.push(&k.id);
            }
        }
    }
    for (topic, (count, kernels)) in topics {
        diag::note(&format!(
            "{}: {count} note{} on {} kernel{} ({}); --verbose prints each",
            topic.describe(),
            if count == 1 { "" } else { "s" },
            kernels.len(),
            if kernels.len() == 1 { "" } else { "s" },
            kernels.join(", ")
        ));
    }
}
