//! `--sass auto|none|FILE`, `--regs N` and `--shared BYTES`: what a modelled launch uses of
//! the registers and shared memory that set its occupancy, shared by `simulate` and `models`.
//!
//! The registers per thread are `--regs` when given, else what ptxas reports for the kernel
//! (`--sass auto` runs it for the GPU profile's `sass_arch`; `--sass FILE` reads a saved
//! report), else 32. The shared memory per block is `--shared`, else ptxas' static shared
//! bytes, else what the PTX declares. docs/sass-input.md describes the option.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::diag;

/// Registers per thread when neither `--regs` nor a ptxas report gives them.
pub const DEFAULT_REGS: u32 = 32;

/// The environment variable that gives `--sass`'s default (the tests pin it to `none`, so
/// their results do not depend on whether the machine has ptxas).
pub const SASS_ENV: &str = "PTX2IDG_SASS";

/// Where the kernel's resources come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SassSource {
    /// Run ptxas when it is found; otherwise (with a note) as `None`.
    Auto,
    /// No report: `--regs`, the PTX's shared memory and the defaults.
    None,
    /// A saved `ptxas -v` or `cuobjdump -res-usage` report, or a SASS listing.
    File(PathBuf),
}

fn parse_source(s: &str) -> Result<SassSource, String> {
    Ok(match s {
        "auto" => SassSource::Auto,
        "none" => SassSource::None,
        "" => return Err("expected auto, none or a file".to_string()),
        f => SassSource::File(PathBuf::from(f)),
    })
}

#[derive(clap::Args, Debug, Clone)]
pub struct SassArgs {
    /// Where the kernel's registers per thread (and static shared memory) come from: `auto`
    /// compiles the PTX with ptxas for the GPU profile's architecture when ptxas is found;
    /// `none` uses --regs or 32; a FILE holds `ptxas -v` or `cuobjdump -res-usage` output
    /// (or a SASS listing, which says nothing of registers).
    #[arg(long, value_name = "auto|none|FILE", default_value = "auto", env = SASS_ENV,
          value_parser = parse_source)]
    pub sass: SassSource,
    /// Registers per thread, for the occupancy rules. Default: what ptxas reports for the
    /// kernel (--sass), else 32.
    #[arg(long, value_name = "N")]
    pub regs: Option<u32>,
    /// Shared memory per block in bytes (static + dynamic), for the occupancy rules. Default:
    /// the static shared memory ptxas reports (--sass), else what the PTX declares for the
    /// kernel (0 for IDG JSON input).
    #[arg(long, value_name = "BYTES")]
    pub shared: Option<u32>,
}

/// The resources a launch is modelled with, and where each came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KernelResources {
    pub regs: u32,
    /// Why `regs` is what it is, for `--explain` (`ptxas -arch=sm_90`, `--regs`, ...).
    pub regs_from: String,
    pub shared: u32,
    /// The report used, if any (spills for `--explain`).
    pub report: Option<sass::Resources>,
    /// The SASS listing of `--sass FILE`, if the file was one.
    pub listing: Option<sass::Listing>,
}

impl KernelResources {
    /// `--explain`'s lines: the registers and where they came from, and spills when ptxas
    /// reports some.
    pub fn explain(&self) -> String {
        let mut s = format!("registers per thread: {} ({})\n", self.regs, self.regs_from);
        if let Some(r) = &self.report {
            let (st, ld) = (
                r.spill_store_bytes.unwrap_or(0),
                r.spill_load_bytes.unwrap_or(0),
            );
            if st > 0 || ld > 0 {
                s.push_str(&format!(
                    "register spills: {st} bytes stored, {ld} bytes loaded per thread (ptxas)\n"
                ));
            }
        }
        s
    }
}

/// What a report said, and the words naming it.
struct Report {
    resources: Option<sass::Resources>,
    from: String,
    listing: Option<sass::Listing>,
}

impl SassArgs {
    /// Resolves the launch's registers and shared memory for `kernel` (its mangled name) of
    /// `input` (PTX or IDG JSON) on `profile`; `ptx_shared` is the PTX's static shared bytes.
    /// A report that cannot be made is a note or a warning and the run goes on as `--sass
    /// none`; a `--sass FILE` that cannot be read is an error.
    pub fn resolve(
        &self,
        input: &Path,
        kernel: &str,
        profile: &gpu::GpuProfile,
        ptx_shared: u32,
    ) -> Result<KernelResources, ExitCode> {
        // `--regs` and `--shared` together leave nothing for a report to say: ptxas is not run.
        let wanted = self.regs.is_none() || self.shared.is_none();
        let report = match &self.sass {
            SassSource::None => Err("--sass none".to_string()),
            _ if !wanted => Err("--regs".to_string()),
            SassSource::Auto => auto(input, kernel, profile),
            SassSource::File(f) => from_file(f, kernel)?,
        };
        let (resources, from, listing) = match report {
            Ok(r) => (r.resources, r.from, r.listing),
            Err(why) => (None, why, None),
        };
        let (regs, regs_from) = match (self.regs, resources.as_ref().and_then(|r| r.registers)) {
            (Some(n), _) => (n, "--regs".to_string()),
            (None, Some(n)) => (n, from),
            (None, None) => (
                DEFAULT_REGS,
                format!("default {DEFAULT_REGS}: {from}; --sass or --regs"),
            ),
        };
        let reported_shared = resources
            .as_ref()
            .and_then(|r| r.shared_bytes)
            .map(|b| u32::try_from(b).unwrap_or(u32::MAX));
        let shared = self.shared.or(reported_shared).unwrap_or(ptx_shared);
        Ok(KernelResources {
            regs,
            regs_from,
            shared,
            report: resources,
            listing,
        })
    }
}

/// `--sass auto`: ptxas' report for the kernel, or why there is none (a note when ptxas is
/// missing, a warning when it fails; neither stops the run).
fn auto(input: &Path, kernel: &str, profile: &gpu::GpuProfile) -> Result<Report, String> {
    if input.extension().is_some_and(|e| e == "json") {
        return Err("IDG JSON has no PTX".to_string());
    }
    let Some(arch) = profile.sass_arch.as_deref() else {
        return Err(format!("{} has no sass_arch for ptxas", profile.name));
    };
    let tools = sass::tools::Toolchain::discover();
    if tools.ptxas.is_none() {
        diag::note(&format!(
            "no ptxas found (PATH, pip's nvidia packages, Triton): registers per thread \
             default to {DEFAULT_REGS}; `pip install nvidia-cuda-nvcc nvidia-cuda-cuobjdump` \
             gets it, --regs N or --sass FILE give them, --sass none silences this"
        ));
        return Err("no ptxas".to_string());
    }
    let file = input.display().to_string();
    // The front end read and parsed this file already; reading it again is cheaper than
    // threading its text through every command.
    let ptx = ptx::read_source(input).map_err(|e| {
        diag::warning(&file, &e.to_string());
        "the PTX could not be read".to_string()
    })?;
    let reports = sass::tools::resources(&tools, &ptx, arch).map_err(|e| {
        // A ptxas too new for the GPU (CUDA 13 assembles sm_75 and later) is not the PTX's
        // fault: a note, as for a missing ptxas.
        if let sass::tools::ToolError::Failed { stderr, .. } = &e {
            if stderr.contains("gpu-name") {
                diag::note(&format!(
                    "this ptxas does not assemble for {arch} ({}): registers per thread \
                     default to {DEFAULT_REGS}; --regs N or --sass FILE give them",
                    profile.name
                ));
                return format!("ptxas has no {arch}");
            }
        }
        diag::warning(
            &file,
            &format!(
                "ptxas -arch={arch} gave no report, so registers per thread default to \
                 {DEFAULT_REGS} (--regs N sets them): {e}"
            ),
        );
        format!("ptxas -arch={arch} failed")
    })?;
    let from = format!("ptxas -arch={arch}");
    pick(reports, kernel, &file, &from).map(|r| Report {
        resources: Some(r),
        from,
        listing: None,
    })
}

/// The report of `kernel` among `reports`, or a warning naming those there are.
fn pick(
    reports: Vec<sass::Resources>,
    kernel: &str,
    file: &str,
    from: &str,
) -> Result<sass::Resources, String> {
    let names: Vec<String> = reports.iter().map(|r| r.name.clone()).collect();
    reports
        .into_iter()
        .find(|r| r.name == kernel)
        .ok_or_else(|| {
            diag::warning(
                file,
                &format!(
                    "{from} reports no kernel {kernel} (it reports: {}); registers per thread \
                 default to {DEFAULT_REGS}",
                    if names.is_empty() {
                        "none".to_string()
                    } else {
                        names.join(", ")
                    }
                ),
            );
            format!("{from} does not report the kernel")
        })
}

/// How a `--sass FILE` is read, told by its content.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FileKind {
    PtxasInfo,
    ResourceUsage,
    Listing,
}

fn file_kind(text: &str) -> FileKind {
    if text.lines().any(|l| l.trim_start().starts_with("ptxas ")) {
        FileKind::PtxasInfo
    } else if text.lines().any(|l| {
        let t = l.trim_start();
        t.starts_with("Resource usage") || t.split_whitespace().any(|w| w.starts_with("REG:"))
    }) {
        FileKind::ResourceUsage
    } else {
        FileKind::Listing
    }
}

/// `--sass FILE`: the outer `Err` is a failed command (the file cannot be read or parsed);
/// the inner one why the file gives no registers.
fn from_file(path: &Path, kernel: &str) -> Result<Result<Report, String>, ExitCode> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| diag::fail(&file, e))?;
    let located = |e: sass::ParseError| {
        let span = span_of(&text, &e);
        eprint!(
            "ptx2idg: error: {}",
            diag::render(&file, &text, span, &e.message)
        );
        ExitCode::from(1)
    };
    let kind = file_kind(&text);
    let reports = match kind {
        FileKind::PtxasInfo => sass::parse_ptxas_info(&text).map_err(located)?,
        FileKind::ResourceUsage => sass::parse_resource_usage(&text).map_err(located)?,
        FileKind::Listing => {
            let listing = sass::parse_listing(&text).map_err(located)?;
            if listing.kernel(kernel).is_none() {
                diag::warning(&file, &format!("the listing has no kernel {kernel}"));
            }
            return Ok(Ok(Report {
                resources: None,
                from: format!("{file} is a SASS listing, which does not say"),
                listing: Some(listing),
            }));
        }
    };
    Ok(pick(reports, kernel, &file, &file).map(|r| Report {
        resources: Some(r),
        from: file.clone(),
        listing: None,
    }))
}

/// A `sass::ParseError`'s position as a `ptx::Span` for `diag::render`: its column counts
/// characters, the span's bytes.
fn span_of(text: &str, e: &sass::ParseError) -> ptx::Span {
    let line = text
        .lines()
        .nth(e.line.saturating_sub(1) as usize)
        .unwrap_or("");
    let byte = line
        .char_indices()
        .nth(e.col.saturating_sub(1) as usize)
        .map_or(line.len(), |(b, _)| b);
    ptx::Span {
        line: e.line,
        col: u32::try_from(byte + 1).unwrap_or(u32::MAX),
        offset: 0,
        len: 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_kinds_are_told_by_content() {
        assert_eq!(
            file_kind("ptxas info    : 0 bytes gmem\n"),
            FileKind::PtxasInfo
        );
        assert_eq!(
            file_kind("\nResource usage:\n Function k:\n  REG:8 STACK:0\n"),
            FileKind::ResourceUsage
        );
        assert_eq!(
            file_kind("\t\tFunction : k\n /*0000*/ EXIT ;\n"),
            FileKind::Listing
        );
    }

    #[test]
    fn sources_parse() {
        assert_eq!(parse_source("auto"), Ok(SassSource::Auto));
        assert_eq!(parse_source("none"), Ok(SassSource::None));
        assert_eq!(
            parse_source("r.txt"),
            Ok(SassSource::File(PathBuf::from("r.txt")))
        );
        assert!(parse_source("").is_err());
    }
}
