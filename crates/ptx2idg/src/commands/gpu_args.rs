//! `--gpu NAME` / `--gpu-file PATH`: the GPU profile a command runs against, shared by every
//! command that needs one (`map`, `simulate`, `models`, ...). Profiles are resolved by the
//! `gpu` crate (docs/gpu-profile.md); this only picks the source and renders failures.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::diag;

/// The bundled profile used when neither option is given.
pub const DEFAULT_GPU: &str = "hopper-h100";

#[derive(clap::Args, Debug, Clone, Default)]
pub struct GpuArgs {
    /// GPU profile: a bundled name (`ptx2idg gpus` lists them; `h100` = `hopper-h100`,
    /// `h200` = `hopper-h200`), or the path of a TOML profile file. Default: hopper-h100.
    #[arg(long, value_name = "NAME", conflicts_with = "gpu_file")]
    pub gpu: Option<String>,
    /// A GPU profile file (TOML, see docs/gpu-profile.md).
    #[arg(long, value_name = "PATH")]
    pub gpu_file: Option<PathBuf>,
}

impl GpuArgs {
    /// The profile file this reads, if it reads one (`--gpu-file`, or `--gpu` naming a file).
    pub fn file(&self) -> Option<&Path> {
        self.gpu_file
            .as_deref()
            .or_else(|| self.gpu.as_deref().map(Path::new).filter(|p| p.is_file()))
    }

    /// The selected profile, or the error as the `gpu` crate reports it.
    pub fn profile(&self) -> Result<gpu::GpuProfile, gpu::GpuError> {
        match (&self.gpu_file, &self.gpu) {
            (Some(path), _) => gpu::GpuProfile::from_file(path),
            (None, Some(name)) => match gpu::GpuProfile::bundled(name) {
                // A name that is not bundled but names a file: accept it, so `--gpu my.toml`
                // works like `--gpu-file my.toml`.
                Err(gpu::GpuError::UnknownGpu { .. }) if Path::new(name).is_file() => {
                    gpu::GpuProfile::from_file(Path::new(name))
                }
                r => r,
            },
            (None, None) => gpu::GpuProfile::bundled(DEFAULT_GPU),
        }
    }

    /// `profile()`, rendering a failure through `diag`: an unknown name is a usage error
    /// (exit 2), a bad file an input error (exit 1).
    pub fn load(&self) -> Result<gpu::GpuProfile, ExitCode> {
        self.profile().map_err(|e| match e {
            gpu::GpuError::UnknownGpu { .. } => {
                diag::error(&e.to_string());
                ExitCode::from(2)
            }
            // The message already starts with the file it is about.
            e => {
                diag::error(&e.to_string());
                ExitCode::from(1)
            }
        })
    }
}
