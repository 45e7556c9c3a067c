//! `ptx2idg check FILE... [--json]`: parses each file and summarizes every kernel — mangled
//! and demangled name, parameters, register declarations (including those of nested scopes)
//! and static instruction count. Exit code 0 only if every file parsed.

use crate::diag;
use ptx::{Function, Module};
use serde::Serialize;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct CheckArgs {
    /// PTX files to parse.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Print the summary as JSON (an array with one object per file).
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct FileReport {
    file: String,
    ok: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<ErrorReport>,
    version: Option<String>,
    target: Option<String>,
    address_size: Option<u32>,
    kernels: Vec<KernelReport>,
}

#[derive(Serialize)]
struct ErrorReport {
    line: u32,
    column: u32,
    message: String,
}

#[derive(Serialize)]
struct KernelReport {
    name: String,
    demangled: Option<String>,
    #[serde(flatten)]
    summary: ptx::KernelSummary,
}

fn kernel_report(f: &Function) -> KernelReport {
    KernelReport {
        name: f.name.clone(),
        demangled: ir::names::demangle(&f.name),
        summary: ptx::kernel_summary(f),
    }
}

fn module_report(file: String, m: &Module) -> FileReport {
    FileReport {
        file,
        ok: true,
        error: None,
        version: m.version.map(|v| format!("{}.{}", v.major, v.minor)),
        target: m.target.as_ref().map(|t| {
            std::iter::once(t.arch.as_str())
                .chain(t.flags.iter().map(String::as_str))
                .collect::<Vec<_>>()
                .join(", ")
        }),
        address_size: m.address_size.map(|a| a.bits),
        kernels: m.kernels().map(kernel_report).collect(),
    }
}

fn text(r: &FileReport) -> String {
    let mut s = String::new();
    let opt = |o: &Option<String>| o.clone().unwrap_or_else(|| "-".into());
    let _ = writeln!(
        s,
        "{}: PTX {}, target {}, address size {}, {} kernel{}",
        r.file,
        opt(&r.version),
        opt(&r.target),
        r.address_size.map_or("-".into(), |a| a.to_string()),
        r.kernels.len(),
        if r.kernels.len() == 1 { "" } else { "s" }
    );
    for k in &r.kernels {
        let _ = writeln!(s, "  kernel {}", k.name);
        let _ = writeln!(s, "    demangled:    {}", opt(&k.demangled));
        let _ = writeln!(s, "    parameters:   {}", k.summary.params.len());
        for p in &k.summary.params {
            let _ = writeln!(s, "      {p}");
        }
        let regs: Vec<String> = k
            .summary
            .registers
            .iter()
            .map(|r| {
                if r.range {
                    format!("{} {}<{}>", r.ty, r.name, r.count)
                } else {
                    format!("{} {}", r.ty, r.name)
                }
            })
            .collect();
        let _ = writeln!(s, "    registers:    {}", regs.join(", "));
        let _ = writeln!(s, "    instructions: {}", k.summary.instructions);
    }
    s
}

pub fn run(args: &CheckArgs) -> ExitCode {
    let mut reports = Vec::new();
    let mut all_ok = true;
    let mut out = std::io::stdout().lock();
    for path in &args.files {
        let name = path.display().to_string();
        let bytes = match ptx::source::read_bytes(path, ptx::MAX_SOURCE_BYTES) {
            Ok(b) => b,
            Err(e) => {
                diag::file_error(&name, &format!("cannot read: {e}"));
                all_ok = false;
                continue;
            }
        };
        // Invalid UTF-8 (binary input) becomes U+FFFD and then a located syntax error.
        let src = String::from_utf8_lossy(&bytes);
        let report = match ptx::parse(&src) {
            Ok(m) => module_report(name, &m),
            Err(e) => {
                diag::parse_error(&name, &src, &e);
                all_ok = false;
                FileReport {
                    file: name,
                    ok: false,
                    error: Some(ErrorReport {
                        line: e.span.line,
                        column: e.span.col,
                        message: e.message.clone(),
                    }),
                    version: None,
                    target: None,
                    address_size: None,
                    kernels: Vec::new(),
                }
            }
        };
        if !args.json && report.ok {
            if let Err(e) = out.write_all(text(&report).as_bytes()) {
                diag::stdout_failed(&e);
            }
        }
        reports.push(report);
    }
    if args.json {
        match serde_json::to_string_pretty(&reports) {
            Ok(j) => {
                if let Err(e) = writeln!(out, "{j}").and_then(|()| out.flush()) {
                    diag::stdout_failed(&e);
                }
            }
            Err(e) => {
                diag::error(&format!("cannot serialize the summary: {e}"));
                return ExitCode::FAILURE;
            }
        }
    }
    if all_ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
