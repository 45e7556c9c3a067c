//! Finding NVIDIA's `ptxas`, `cuobjdump` and `nvdisasm` on a machine without a GPU or a CUDA
//! install, and compiling a PTX text to its SASS listing and resources with them.
//!
//! Search order, per tool: `PATH`; the pip packages `nvidia-cuda-nvcc`,
//! `nvidia-cuda-cuobjdump` and `nvidia-cuda-nvdisasm` (`<site-packages>/nvidia/cu13/bin`,
//! older layouts `nvidia/cuda_nvcc/bin` and the like), found from `python3`'s `sys.path`;
//! Triton's bundled copies (`<site-packages>/triton/backends/nvidia/bin`). Nothing here
//! needs a GPU: ptxas assembles for any architecture.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::ast::Listing;
use crate::error::ParseError;
use crate::resources::Resources;

/// One of the NVIDIA tools this crate runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tool {
    Ptxas,
    Cuobjdump,
    Nvdisasm,
}

impl Tool {
    pub const ALL: [Tool; 3] = [Tool::Ptxas, Tool::Cuobjdump, Tool::Nvdisasm];

    /// The executable's name.
    pub fn name(self) -> &'static str {
        match self {
            Tool::Ptxas => "ptxas",
            Tool::Cuobjdump => "cuobjdump",
            Tool::Nvdisasm => "nvdisasm",
        }
    }

    /// The pip package that ships it.
    pub fn pip_package(self) -> &'static str {
        match self {
            Tool::Ptxas => "nvidia-cuda-nvcc",
            Tool::Cuobjdump => "nvidia-cuda-cuobjdump",
            Tool::Nvdisasm => "nvidia-cuda-nvdisasm",
        }
    }

    /// Folders under a site-packages directory where the pip packages and Triton put it.
    fn site_dirs(self) -> &'static [&'static str] {
        match self {
            Tool::Ptxas => &[
                "nvidia/cu13/bin",
                "nvidia/cuda_nvcc/bin",
                "triton/backends/nvidia/bin",
            ],
            Tool::Cuobjdump => &[
                "nvidia/cu13/bin",
                "nvidia/cuda_cuobjdump/bin",
                "triton/backends/nvidia/bin",
            ],
            Tool::Nvdisasm => &[
                "nvidia/cu13/bin",
                "nvidia/cuda_nvdisasm/bin",
                "triton/backends/nvidia/bin",
            ],
        }
    }
}

impl std::fmt::Display for Tool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Why a tool could not be found or did not do its job.
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    #[error(
        "{tool} not found on PATH, in pip's nvidia packages or in Triton; install it with \
         `pip install nvidia-cuda-nvcc nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm` \
         ({tool} is in {package})"
    )]
    Missing { tool: Tool, package: &'static str },
    #[error("{tool} failed ({status}): {stderr}")]
    Failed {
        tool: Tool,
        status: String,
        stderr: String,
    },
    #[error("running {tool}: {source}")]
    Run {
        tool: Tool,
        #[source]
        source: std::io::Error,
    },
    #[error("temporary files in {dir}: {source}")]
    TempDir {
        dir: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("reading {tool}'s output at {error}")]
    Parse {
        tool: Tool,
        #[source]
        error: ParseError,
    },
}

/// The environment variable that makes [`Toolchain::discover`] find no tool.
pub const NO_TOOLS_ENV: &str = "PTX2IDG_NO_SASS_TOOLS";

/// Where each tool was found (`None`: nowhere).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Toolchain {
    pub ptxas: Option<PathBuf>,
    pub cuobjdump: Option<PathBuf>,
    pub nvdisasm: Option<PathBuf>,
}

impl Toolchain {
    /// Searches `PATH`, then python3's site-packages (asked once, only if a tool is still
    /// missing) for pip's nvidia packages and Triton. With the environment variable
    /// [`NO_TOOLS_ENV`] set to a non-empty value other than `0`, finds nothing: a machine
    /// that has the tools can then be run as one that has not (tests, reproducible runs).
    pub fn discover() -> Toolchain {
        if std::env::var_os(NO_TOOLS_ENV).is_some_and(|v| !v.is_empty() && v != "0") {
            return Toolchain::default();
        }
        let path_dirs: Vec<PathBuf> = std::env::var_os("PATH")
            .map(|p| std::env::split_paths(&p).collect())
            .unwrap_or_default();
        let mut found = Toolchain::default();
        let mut sys_path: Option<Vec<PathBuf>> = None;
        for tool in Tool::ALL {
            let mut hit = path_dirs
                .iter()
                .find_map(|d| executable(&d.join(tool.name())));
            if hit.is_none() {
                let site = sys_path.get_or_insert_with(python_sys_path);
                hit = site.iter().find_map(|s| {
                    tool.site_dirs()
                        .iter()
                        .find_map(|sub| executable(&s.join(sub).join(tool.name())))
                });
            }
            *found.slot(tool) = hit;
        }
        found
    }

    fn slot(&mut self, tool: Tool) -> &mut Option<PathBuf> {
        match tool {
            Tool::Ptxas => &mut self.ptxas,
            Tool::Cuobjdump => &mut self.cuobjdump,
            Tool::Nvdisasm => &mut self.nvdisasm,
        }
    }

    /// The path of `tool`, or an error naming the package that ships it.
    pub fn require(&self, tool: Tool) -> Result<&Path, ToolError> {
        let p = match tool {
            Tool::Ptxas => &self.ptxas,
            Tool::Cuobjdump => &self.cuobjdump,
            Tool::Nvdisasm => &self.nvdisasm,
        };
        p.as_deref().ok_or(ToolError::Missing {
            tool,
            package: tool.pip_package(),
        })
    }
}

fn executable(p: &Path) -> Option<PathBuf> {
    p.is_file().then(|| p.to_path_buf())
}

/// python3's `sys.path` directories (empty when python3 is missing or fails).
fn python_sys_path() -> Vec<PathBuf> {
    let out = Command::new("python3")
        .args(["-c", "import sys; print('\\n'.join(sys.path))"])
        .output();
    match out {
        Ok(o) if o.status.success() => String::from_utf8_lossy(&o.stdout)
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(PathBuf::from)
            .collect(),
        _ => Vec::new(),
    }
}

/// Which disassembler prints the listing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Disassembler {
    /// `cuobjdump -sass`: addresses as branch targets, encodings.
    Cuobjdump,
    /// `nvdisasm -c` (`-gi` with line info): labels as branch targets, source lines.
    Nvdisasm,
}

/// How to compile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompileOptions {
    /// `sm_90`
    pub arch: String,
    pub disassembler: Disassembler,
    /// `ptxas -lineinfo` and `nvdisasm -gi`: source lines from the PTX's `.loc` directives.
    pub line_info: bool,
    /// The folder of the tools' outputs kept across runs ([`crate::cache`]); None runs the
    /// tools every time. Default: the one the environment names.
    pub cache: Option<PathBuf>,
}

impl Default for CompileOptions {
    fn default() -> Self {
        CompileOptions {
            arch: "sm_90".to_string(),
            disassembler: Disassembler::Cuobjdump,
            line_info: false,
            cache: crate::cache::default_dir(),
        }
    }
}

/// A compiled PTX text: its listing and, per function, what `ptxas -v` reported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Compiled {
    pub listing: Listing,
    pub resources: Vec<Resources>,
    /// Whether the tools' outputs came from the cache instead of a run.
    pub cached: bool,
}

/// A fresh temporary folder, removed with everything in it when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> Result<TempDir, ToolError> {
        use std::sync::atomic::{AtomicU64, Ordering};
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let dir = std::env::temp_dir().join(format!(
            "sass-{}-{}-{nanos}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        // `create_dir` (not `_all`) fails if the name is taken: the folder is ours alone.
        std::fs::create_dir(&dir).map_err(|source| ToolError::TempDir {
            dir: dir.clone(),
            source,
        })?;
        Ok(TempDir(dir))
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        // Best effort: a leftover folder in the temp dir is harmless.
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn run(tool: Tool, path: &Path, args: &[&std::ffi::OsStr]) -> Result<(String, String), ToolError> {
    let out = Command::new(path)
        .args(args)
        .output()
        .map_err(|source| ToolError::Run { tool, source })?;
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    if !out.status.success() {
        return Err(ToolError::Failed {
            tool,
            status: out.status.to_string(),
            stderr: stderr.trim().to_string(),
        });
    }
    Ok((stdout, stderr))
}

/// Runs `ptxas -arch=ARCH -v [-lineinfo]` on `ptx` in `dir`: the cubin's path and the
/// report as printed.
fn assemble(
    ptxas: &Path,
    dir: &TempDir,
    ptx: &str,
    arch: &str,
    line_info: bool,
) -> Result<(PathBuf, String), ToolError> {
    let src = dir.0.join("kernel.ptx");
    let cubin = dir.0.join("kernel.cubin");
    std::fs::write(&src, ptx).map_err(|source| ToolError::TempDir {
        dir: dir.0.clone(),
        source,
    })?;
    let arch = format!("-arch={arch}");
    let mut args: Vec<&std::ffi::OsStr> = vec![arch.as_ref(), "-v".as_ref()];
    if line_info {
        args.push("-lineinfo".as_ref());
    }
    args.extend(["-o".as_ref(), cubin.as_os_str(), src.as_os_str()]);
    // ptxas -v reports on standard error.
    let (_, info) = run(Tool::Ptxas, ptxas, &args)?;
    Ok((cubin, info))
}

fn parse_report(info: &str) -> Result<Vec<Resources>, ToolError> {
    crate::resources::parse_ptxas_info(info).map_err(|error| ToolError::Parse {
        tool: Tool::Ptxas,
        error,
    })
}

/// Assembles `ptx` with `ptxas -arch=ARCH -v` and returns only its report, per function: for
/// a caller that wants registers and shared memory, not the listing (no disassembler
/// needed, one process instead of two).
///
/// # Errors
/// As [`compile`]'s, for ptxas alone.
pub fn resources(tools: &Toolchain, ptx: &str, arch: &str) -> Result<Vec<Resources>, ToolError> {
    let ptxas = tools.require(Tool::Ptxas)?;
    let dir = TempDir::new()?;
    let (_, info) = assemble(ptxas, &dir, ptx, arch, false)?;
    parse_report(&info)
}

/// Assembles `ptx` with `ptxas -arch=ARCH -v` and disassembles the cubin; temporary files
/// go to a fresh folder under [`std::env::temp_dir`], removed afterwards. With
/// [`CompileOptions::cache`], the tools' outputs for the same PTX, options and tools are
/// read from there when present and stored there otherwise ([`crate::cache`]).
///
/// # Errors
/// [`ToolError::Missing`] when a needed tool is not found (`ptxas` and the chosen
/// disassembler), [`ToolError::Failed`] when ptxas rejects the PTX (its message included),
/// [`ToolError::Parse`] when an output cannot be read.
pub fn compile(
    tools: &Toolchain,
    ptx: &str,
    options: &CompileOptions,
) -> Result<Compiled, ToolError> {
    let ptxas = tools.require(Tool::Ptxas)?;
    let (dis_tool, dis_args): (Tool, &[&str]) = match (options.disassembler, options.line_info) {
        (Disassembler::Cuobjdump, _) => (Tool::Cuobjdump, &["-sass"]),
        (Disassembler::Nvdisasm, false) => (Tool::Nvdisasm, &["-c"]),
        (Disassembler::Nvdisasm, true) => (Tool::Nvdisasm, &["-c", "-gi"]),
    };
    let dis = tools.require(dis_tool)?;
    let cache = options.cache.as_deref().map(|dir| {
        let line_info = if options.line_info { "lineinfo" } else { "" };
        let opts = [options.arch.as_str(), dis_tool.name(), line_info];
        (dir, crate::cache::key(ptx, &opts, &[ptxas, dis]))
    });
    if let Some((dir, key)) = &cache {
        // An entry that does not parse (written by a different tool under a colliding
        // identity, or edited by hand) is compiled again and replaced.
        if let Some(entry) = crate::cache::load(dir, key) {
            if let Ok(c) = parse_outputs(dis_tool, &entry.report, &entry.listing, true) {
                return Ok(c);
            }
        }
    }
    let dir = TempDir::new()?;
    let (cubin, report) = assemble(ptxas, &dir, ptx, &options.arch, options.line_info)?;
    let mut args: Vec<&std::ffi::OsStr> = dis_args.iter().map(|a| a.as_ref()).collect();
    args.push(cubin.as_os_str());
    let (text, _) = run(dis_tool, dis, &args)?;
    let compiled = parse_outputs(dis_tool, &report, &text, false)?;
    if let Some((dir, key)) = &cache {
        crate::cache::store(
            dir,
            key,
            &crate::cache::Entry {
                report,
                listing: text,
            },
        );
    }
    Ok(compiled)
}

fn parse_outputs(
    dis_tool: Tool,
    report: &str,
    listing: &str,
    cached: bool,
) -> Result<Compiled, ToolError> {
    let resources = parse_report(report)?;
    let listing = crate::listing::parse_listing(listing).map_err(|error| ToolError::Parse {
        tool: dis_tool,
        error,
    })?;
    Ok(Compiled {
        listing,
        resources,
        cached,
    })
}
