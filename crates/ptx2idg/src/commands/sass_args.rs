//! `--sass auto|none|FILE`, `--regs N` and `--shared BYTES`: what a modelled launch uses of
//! the registers and shared memory that set its occupancy, shared by `simulate` and `models`.
//!
//! The registers per thread are `--regs` when given, else what ptxas reports for the kernel
//! (`--sass auto` runs it for the GPU profile's `sass_arch`; `--sass FILE` reads a saved
//! report), else 32. The shared memory per block is `--shared`, else ptxas' static shared
//! bytes, else what the PTX declares. The resolution is `sass::resolve`'s, which the Python
//! package calls too; this module parses the flags and prints its diagnostics.
//! docs/sass-input.md describes the option.

use std::path::Path;
use std::process::ExitCode;

use sass::resolve::{self, Level, Source};

use crate::diag;

pub use sass::resolve::{Resolved as KernelResources, SASS_ENV};

fn parse_source(s: &str) -> Result<Source, String> {
    Source::parse(s)
}

#[derive(clap::Args, Debug, Clone)]
pub struct SassArgs {
    /// Where the kernel's registers per thread (and static shared memory) come from: `auto`
    /// compiles the PTX with ptxas for the GPU profile's architecture when ptxas is found;
    /// `none` uses --regs or 32; a FILE holds `ptxas -v` or `cuobjdump -res-usage` output
    /// (or a SASS listing, which says nothing of registers).
    #[arg(long, value_name = "auto|none|FILE", default_value = "auto", env = SASS_ENV,
          value_parser = parse_source)]
    pub sass: Source,
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

impl SassArgs {
    /// Resolves the launch's registers and shared memory for `kernel` (its mangled name) of
    /// `input` (PTX or IDG JSON) on `profile`; `ptx_shared` is the PTX's static shared bytes.
    /// `sass::resolve` decides; this prints its notes and warnings. A report that cannot be
    /// made is a note or a warning and the run goes on as `--sass none`; a `--sass FILE` that
    /// cannot be read or parsed is an error.
    pub fn resolve(
        &self,
        input: &Path,
        kernel: &str,
        profile: &gpu::GpuProfile,
        ptx_shared: u32,
    ) -> Result<KernelResources, ExitCode> {
        let file = input.display().to_string();
        // The front end read and parsed this file already; reading it again (only when
        // ptxas runs) is cheaper than threading its text through every command.
        let read = || ptx::read_source(input).map_err(|e| e.to_string());
        let ptx = if input.extension().is_some_and(|e| e == "json") {
            resolve::Ptx::Absent
        } else {
            resolve::Ptx::Read(&read)
        };
        let r = resolve::resolve(&resolve::Request {
            source: &self.sass,
            ptx,
            input: &file,
            kernel,
            arch: profile.sass_arch.as_deref(),
            gpu: &profile.name,
            regs: self.regs,
            shared: self.shared,
            ptx_shared,
            spelling: resolve::Spelling::CLI,
            listing: true,
        })
        .map_err(|e| match e {
            resolve::Error::Read { file, message } => diag::fail(&file, message),
            resolve::Error::Parse { file, text, error } => {
                let span = ptx::Span {
                    line: error.line,
                    col: resolve::Error::byte_col(&text, &error),
                    offset: 0,
                    len: 1,
                };
                eprint!(
                    "ptx2idg: error: {}",
                    diag::render(&file, &text, span, &error.message)
                );
                ExitCode::from(1)
            }
        })?;
        for d in &r.diagnostics {
            let level = match d.level {
                Level::Note => diag::Level::Note,
                Level::Warning => diag::Level::Warning,
            };
            diag::emit(level, d.file.as_deref(), &d.message);
        }
        Ok(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_parse() {
        assert_eq!(parse_source("auto"), Ok(Source::Auto));
        assert_eq!(parse_source("none"), Ok(Source::None));
        assert!(parse_source("").is_err());
    }
}
