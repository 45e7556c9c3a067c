//! The registers per thread and static shared memory a modelled launch uses, and where they
//! came from: the one resolution behind the CLI's `--sass auto|none|FILE`, `--regs` and
//! `--shared` and the Python package's `sass=`, `regs=` and `shared=`.
//!
//! The registers per thread are the caller's when given, else what ptxas reports for the
//! kernel ([`Source::Auto`] runs it for the GPU's architecture; [`Source::File`] reads a saved
//! report), else [`DEFAULT_REGS`]. The shared memory per block is the caller's, else ptxas'
//! static shared bytes, else what the PTX declares. Nothing is printed: what the user may want
//! to know comes back as [`Diagnostic`]s for the caller to render; a report that cannot be made
//! is one of them and the launch goes on as with [`Source::None`]; only a [`Source::File`] that
//! cannot be read or parsed is an [`Error`].

use std::path::{Path, PathBuf};

use crate::{
    parse_listing, parse_ptxas_info, parse_resource_usage, Listing, ParseError, Resources,
};

/// Registers per thread when neither the caller nor a ptxas report gives them.
pub const DEFAULT_REGS: u32 = 32;

/// The environment variable that gives the source's default (`auto`, `none` or a file); the
/// CLI's and the Python package's tests pin it to `none`, so their results do not depend on
/// whether the machine has ptxas.
pub const SASS_ENV: &str = "PTX2IDG_SASS";

/// Where the kernel's resources come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// Run ptxas when it is found; otherwise (with a note) as `None`.
    Auto,
    /// No report: the caller's registers, the PTX's shared memory and the defaults.
    None,
    /// A saved `ptxas -v` or `cuobjdump -res-usage` report, or a SASS listing.
    File(PathBuf),
}

impl Source {
    /// `auto`, `none` or a file path.
    pub fn parse(s: &str) -> Result<Source, String> {
        Ok(match s {
            "auto" => Source::Auto,
            "none" => Source::None,
            "" => return Err("expected auto, none or a file".to_string()),
            f => Source::File(PathBuf::from(f)),
        })
    }

    /// `given`, else [`SASS_ENV`] when set and not empty, else `auto`.
    pub fn given_or_env(given: Option<&str>) -> Result<Source, String> {
        match given {
            Some(s) => Source::parse(s),
            None => match std::env::var(SASS_ENV) {
                Ok(v) if !v.is_empty() => Source::parse(&v),
                _ => Ok(Source::Auto),
            },
        }
    }
}

/// How the options are spelled where the user gives them, for the words of notes, warnings
/// and [`Resolved::regs_from`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Spelling {
    /// The registers option as a source (`--regs`).
    pub regs: &'static str,
    /// The registers option with a value (`--regs N`).
    pub regs_n: &'static str,
    /// The source option (`--sass`).
    pub sass: &'static str,
    /// The source option with a file (`--sass FILE`).
    pub sass_file: &'static str,
    /// The source option turned off (`--sass none`).
    pub sass_none: &'static str,
}

impl Spelling {
    /// The CLI's flags.
    pub const CLI: Spelling = Spelling {
        regs: "--regs",
        regs_n: "--regs N",
        sass: "--sass",
        sass_file: "--sass FILE",
        sass_none: "--sass none",
    };
    /// The Python package's keyword arguments.
    pub const PYTHON: Spelling = Spelling {
        regs: "regs=",
        regs_n: "regs=N",
        sass: "sass=",
        sass_file: "sass=PATH",
        sass_none: "sass='none'",
    };
}

/// The kernel's PTX, for [`Source::Auto`].
#[derive(Clone, Copy)]
pub enum Ptx<'a> {
    /// The text.
    Text(&'a str),
    /// Read only when ptxas is to run (a caller that parsed the file already and kept no
    /// text); `Err` says why it cannot be (a warning, and no report).
    Read(&'a dyn Fn() -> Result<String, String>),
    /// Input that has no PTX (IDG JSON).
    Absent,
}

/// What a launch's resources are resolved from.
#[derive(Clone, Copy)]
pub struct Request<'a> {
    pub source: &'a Source,
    pub ptx: Ptx<'a>,
    /// The input's name, for diagnostics about it.
    pub input: &'a str,
    /// The kernel's mangled name, as ptxas reports it.
    pub kernel: &'a str,
    /// The GPU's ptxas architecture (a GPU profile's `sass_arch`, e.g. `sm_90`).
    pub arch: Option<&'a str>,
    /// The GPU's name, for diagnostics.
    pub gpu: &'a str,
    /// The caller's registers per thread and shared bytes per block, which win over a report.
    pub regs: Option<u32>,
    pub shared: Option<u32>,
    /// The static shared bytes the PTX declares for the kernel.
    pub ptx_shared: u32,
    pub spelling: Spelling,
    /// Whether the kernel's SASS listing is wanted too (the alignment pass of `crates/align`):
    /// [`Source::Auto`] then disassembles what ptxas made, with line info, and runs ptxas even
    /// where the caller gives both registers and shared memory.
    pub listing: bool,
}

/// How much a [`Diagnostic`] matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    /// Something the run assumed that the user may want to know.
    Note,
    /// Something that went wrong without stopping the run.
    Warning,
}

/// A note or a warning of the resolution, about a file when `file` is set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    pub level: Level,
    pub file: Option<String>,
    pub message: String,
}

impl std::fmt::Display for Diagnostic {
    /// `[FILE: ]MESSAGE`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.file {
            Some(file) => write!(f, "{file}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

/// A [`Source::File`] that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// It cannot be read.
    Read { file: String, message: String },
    /// It does not parse; `text` is the file's content, for showing the line.
    Parse {
        file: String,
        text: String,
        error: ParseError,
    },
}

impl Error {
    /// The 1-based byte column of a parse error (its [`ParseError::col`] counts characters).
    pub fn byte_col(text: &str, e: &ParseError) -> u32 {
        let line = text
            .lines()
            .nth(e.line.saturating_sub(1) as usize)
            .unwrap_or("");
        let byte = line
            .char_indices()
            .nth(e.col.saturating_sub(1) as usize)
            .map_or(line.len(), |(b, _)| b);
        u32::try_from(byte + 1).unwrap_or(u32::MAX)
    }
}

impl std::fmt::Display for Error {
    /// `FILE: MESSAGE`, or `FILE:LINE:COL: MESSAGE` (COL in characters) for a parse error.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Read { file, message } => write!(f, "{file}: {message}"),
            Error::Parse { file, error, .. } => {
                write!(f, "{file}:{}:{}: {}", error.line, error.col, error.message)
            }
        }
    }
}

impl std::error::Error for Error {}

/// The resources a launch is modelled with, and where each came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    pub regs: u32,
    /// Why `regs` is what it is (`ptxas -arch=sm_90`, `--regs`, ...).
    pub regs_from: String,
    pub shared: u32,
    /// The report used, if any (its spills for [`Resolved::explain`]).
    pub report: Option<Resources>,
    /// The SASS listing: what [`Source::Auto`] disassembled (when [`Request::listing`] asked
    /// for it and a disassembler was found), or the one a [`Source::File`] holds.
    pub listing: Option<Listing>,
    /// The notes and warnings, in the order they arose.
    pub diagnostics: Vec<Diagnostic>,
}

impl Resolved {
    /// The registers and where they came from, and spills when ptxas reports some: lines
    /// for `--explain`.
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
    resources: Option<Resources>,
    from: String,
    listing: Option<Listing>,
}

/// Collects the diagnostics of one resolution.
struct Diags(Vec<Diagnostic>);

impl Diags {
    fn note(&mut self, message: String) {
        self.0.push(Diagnostic {
            level: Level::Note,
            file: None,
            message,
        });
    }

    fn warning(&mut self, file: &str, message: String) {
        self.0.push(Diagnostic {
            level: Level::Warning,
            file: Some(file.to_string()),
            message,
        });
    }
}

/// Resolves the launch's registers and shared memory (see the module's description).
pub fn resolve(req: &Request<'_>) -> Result<Resolved, Error> {
    let sp = req.spelling;
    let mut diags = Diags(Vec::new());
    // Both given and no listing wanted leave nothing for a report to say: ptxas is not run.
    let wanted = req.listing || req.regs.is_none() || req.shared.is_none();
    let report = match req.source {
        Source::None => Err(sp.sass_none.to_string()),
        _ if !wanted => Err(sp.regs.to_string()),
        Source::Auto => auto(req, &mut diags),
        Source::File(f) => from_file(f, req.kernel, &mut diags)?,
    };
    let (resources, from, listing) = match report {
        Ok(r) => (r.resources, r.from, r.listing),
        Err(why) => (None, why, None),
    };
    let (regs, regs_from) = match (req.regs, resources.as_ref().and_then(|r| r.registers)) {
        (Some(n), _) => (n, sp.regs.to_string()),
        (None, Some(n)) => (n, from),
        (None, None) => (
            DEFAULT_REGS,
            format!("default {DEFAULT_REGS}: {from}; {} or {}", sp.sass, sp.regs),
        ),
    };
    let reported_shared = resources
        .as_ref()
        .and_then(|r| r.shared_bytes)
        .map(|b| u32::try_from(b).unwrap_or(u32::MAX));
    let shared = req.shared.or(reported_shared).unwrap_or(req.ptx_shared);
    Ok(Resolved {
        regs,
        regs_from,
        shared,
        report: resources,
        listing,
        diagnostics: diags.0,
    })
}

/// [`Source::Auto`]: ptxas' report for the kernel, or why there is none (a note when ptxas is
/// missing, a warning when it fails; neither stops the run).
fn auto(req: &Request<'_>, diags: &mut Diags) -> Result<Report, String> {
    let sp = req.spelling;
    if matches!(req.ptx, Ptx::Absent) {
        return Err("IDG JSON has no PTX".to_string());
    }
    let Some(arch) = req.arch else {
        return Err(format!("{} has no sass_arch for ptxas", req.gpu));
    };
    let tools = crate::tools::Toolchain::discover();
    if tools.ptxas.is_none() {
        // With the registers given, what is lost is the alignment with the machine code.
        let (lost, give) = match req.regs {
            None => (
                format!("registers per thread default to {DEFAULT_REGS}"),
                format!("{} or {} give them", sp.regs_n, sp.sass_file),
            ),
            Some(_) => (
                "the IDGs are not aligned with the machine code".to_string(),
                format!("{} gives a dump", sp.sass_file),
            ),
        };
        diags.note(format!(
            "no ptxas found (PATH, pip's nvidia packages, Triton): {lost}; `pip install \
             nvidia-cuda-nvcc nvidia-cuda-cuobjdump` gets it, {give}, {} silences this",
            sp.sass_none
        ));
        return Err("no ptxas".to_string());
    }
    let file = req.input;
    let read;
    let ptx = match req.ptx {
        Ptx::Text(t) => t,
        Ptx::Read(f) => {
            read = f().map_err(|e| {
                diags.warning(file, e);
                "the PTX could not be read".to_string()
            })?;
            read.as_str()
        }
        Ptx::Absent => unreachable!("answered above"),
    };
    // Triton and CUTLASS write arch-specific PTX (`.target sm_90a`), which ptxas assembles
    // only for that variant of the GPU's architecture.
    let variant = target_variant(ptx, arch);
    let arch = variant.as_deref().unwrap_or(arch);
    let disassembler = if !req.listing {
        None
    } else if tools.nvdisasm.is_some() {
        Some(crate::tools::Disassembler::Nvdisasm)
    } else if tools.cuobjdump.is_some() {
        Some(crate::tools::Disassembler::Cuobjdump)
    } else {
        diags.note(
            "no nvdisasm or cuobjdump found: the machine code's loops are not aligned with \
             the PTX (`pip install nvidia-cuda-nvdisasm` gets nvdisasm)"
                .to_string(),
        );
        None
    };
    let compiled = match disassembler {
        Some(d) => crate::tools::compile(
            &tools,
            ptx,
            &crate::tools::CompileOptions {
                arch: arch.to_string(),
                disassembler: d,
                line_info: d == crate::tools::Disassembler::Nvdisasm,
                cache: crate::cache::default_dir(),
            },
        )
        .map(|c| (c.resources, Some(c.listing))),
        None => crate::tools::resources(&tools, ptx, arch).map(|r| (r, None)),
    };
    let (reports, listing) = compiled.map_err(|e| {
        // A ptxas too new for the GPU (CUDA 13 assembles sm_75 and later) is not the PTX's
        // fault: a note, as for a missing ptxas.
        if let crate::tools::ToolError::Failed { stderr, .. } = &e {
            if stderr.contains("gpu-name") {
                diags.note(format!(
                    "this ptxas does not assemble for {arch} ({}): registers per thread \
                     default to {DEFAULT_REGS}; {} or {} give them",
                    req.gpu, sp.regs_n, sp.sass_file
                ));
                return format!("ptxas has no {arch}");
            }
        }
        diags.warning(
            file,
            format!(
                "ptxas -arch={arch} gave no report, so registers per thread default to \
                 {DEFAULT_REGS} ({} sets them): {e}",
                sp.regs_n
            ),
        );
        format!("ptxas -arch={arch} failed")
    })?;
    let from = format!("ptxas -arch={arch}");
    pick(reports, req.kernel, file, &from, diags).map(|r| Report {
        resources: Some(r),
        from,
        listing,
    })
}

/// The PTX's `.target` when it is an arch-specific variant (`sm_90a`, `sm_100f`) of `arch`:
/// ptxas assembles such PTX only for that variant.
pub fn target_variant(ptx: &str, arch: &str) -> Option<String> {
    let target = ptx
        .lines()
        .map(str::trim_start)
        .find_map(|l| l.strip_prefix(".target"))?;
    let first = target
        .split([',', ' ', '\t', '/'])
        .find(|t| !t.is_empty())?;
    let suffix = first.strip_prefix(arch)?;
    matches!(suffix, "a" | "f").then(|| first.to_string())
}

/// The report of `kernel` among `reports`, or a warning naming those there are.
fn pick(
    reports: Vec<Resources>,
    kernel: &str,
    file: &str,
    from: &str,
    diags: &mut Diags,
) -> Result<Resources, String> {
    let names: Vec<String> = reports.iter().map(|r| r.name.clone()).collect();
    reports
        .into_iter()
        .find(|r| r.name == kernel)
        .ok_or_else(|| {
            diags.warning(
                file,
                format!(
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

/// How a report file is read, told by its content.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// `ptxas -v` output.
    PtxasInfo,
    /// `cuobjdump -res-usage` output.
    ResourceUsage,
    /// A SASS listing (`cuobjdump -sass`, `nvdisasm`).
    Listing,
}

impl FileKind {
    /// The kind of `text`: a line starting `ptxas ` makes a `ptxas -v` report, one starting
    /// `Resource usage` or holding a `REG:` word a `cuobjdump -res-usage` one; else a listing.
    pub fn of(text: &str) -> FileKind {
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
}

/// [`Source::File`]: the outer `Err` is a file that cannot be read or parsed; the inner one
/// why the file gives no registers.
fn from_file(
    path: &Path,
    kernel: &str,
    diags: &mut Diags,
) -> Result<Result<Report, String>, Error> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| Error::Read {
        file: file.clone(),
        message: e.to_string(),
    })?;
    let located = |error: ParseError| Error::Parse {
        file: file.clone(),
        text: text.clone(),
        error,
    };
    // A file may hold a `ptxas -v` report followed by the listing of the same compilation
    // (what the Python package's Triton path writes): both are read.
    let listing = match FileKind::of(&text) {
        FileKind::PtxasInfo | FileKind::ResourceUsage if has_listing(&text) => {
            Some(parse_listing(&text).map_err(located)?)
        }
        _ => None,
    };
    let reports = match FileKind::of(&text) {
        FileKind::PtxasInfo => parse_ptxas_info(&text).map_err(located)?,
        FileKind::ResourceUsage => parse_resource_usage(&text).map_err(located)?,
        FileKind::Listing => {
            let listing = parse_listing(&text).map_err(located)?;
            if listing.kernel(kernel).is_none() {
                diags.warning(&file, format!("the listing has no kernel {kernel}"));
            }
            return Ok(Ok(Report {
                resources: None,
                from: format!("{file} is a SASS listing, which does not say"),
                listing: Some(listing),
            }));
        }
    };
    if listing.as_ref().is_some_and(|l| l.kernel(kernel).is_none()) {
        diags.warning(&file, format!("the listing has no kernel {kernel}"));
    }
    Ok(pick(reports, kernel, &file, &file, diags).map(|r| Report {
        resources: Some(r),
        from: file.clone(),
        listing,
    }))
}

/// Whether `text` holds a SASS listing's function header (cuobjdump or nvdisasm).
fn has_listing(text: &str) -> bool {
    text.lines().any(|l| {
        let t = l.trim_start();
        t.starts_with("Function :") || (t.starts_with(".section") && t.contains(".text."))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request<'a>(source: &'a Source, ptx: Ptx<'a>) -> Request<'a> {
        Request {
            source,
            ptx,
            input: "k.ptx",
            kernel: "k",
            arch: Some("sm_90"),
            gpu: "H100",
            regs: None,
            shared: None,
            ptx_shared: 48,
            spelling: Spelling::CLI,
            listing: false,
        }
    }

    #[test]
    fn file_kinds_are_told_by_content() {
        assert_eq!(
            FileKind::of("ptxas info    : 0 bytes gmem\n"),
            FileKind::PtxasInfo
        );
        assert_eq!(
            FileKind::of("\nResource usage:\n Function k:\n  REG:8 STACK:0\n"),
            FileKind::ResourceUsage
        );
        assert_eq!(
            FileKind::of("\t\tFunction : k\n /*0000*/ EXIT ;\n"),
            FileKind::Listing
        );
    }

    #[test]
    fn sources_parse() {
        assert_eq!(Source::parse("auto"), Ok(Source::Auto));
        assert_eq!(Source::parse("none"), Ok(Source::None));
        assert_eq!(
            Source::parse("r.txt"),
            Ok(Source::File(PathBuf::from("r.txt")))
        );
        assert!(Source::parse("").is_err());
        assert_eq!(Source::given_or_env(Some("none")), Ok(Source::None));
    }

    #[test]
    fn none_gives_the_defaults_and_says_so_in_each_spelling() {
        let r = resolve(&request(&Source::None, Ptx::Absent)).unwrap();
        assert_eq!((r.regs, r.shared), (DEFAULT_REGS, 48));
        assert_eq!(r.regs_from, "default 32: --sass none; --sass or --regs");
        assert!(r.diagnostics.is_empty());
        let r = resolve(&Request {
            spelling: Spelling::PYTHON,
            regs: Some(40),
            ..request(&Source::None, Ptx::Absent)
        })
        .unwrap();
        assert_eq!((r.regs, r.regs_from.as_str()), (40, "regs="));
    }

    #[test]
    fn idg_json_and_a_gpu_without_arch_run_no_ptxas() {
        let r = resolve(&request(&Source::Auto, Ptx::Absent)).unwrap();
        assert_eq!(
            r.regs_from,
            "default 32: IDG JSON has no PTX; --sass or --regs"
        );
        let r = resolve(&Request {
            arch: None,
            ..request(&Source::Auto, Ptx::Text(""))
        })
        .unwrap();
        assert_eq!(
            r.regs_from,
            "default 32: H100 has no sass_arch for ptxas; --sass or --regs"
        );
        assert!(r.diagnostics.is_empty());
    }

    #[test]
    fn a_report_file_gives_registers_and_shared_and_a_bad_one_is_located() {
        let dir = std::env::temp_dir().join(format!("sass-resolve-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let good = dir.join("r.txt");
        std::fs::write(
            &good,
            "\nResource usage:\n Common:\n  GLOBAL:0\n Function k:\n  REG:40 STACK:0 SHARED:1024 \
             LOCAL:0 CONSTANT[0]:360 TEXTURE:0 SURFACE:0 SAMPLER:0\n",
        )
        .unwrap();
        let src = Source::File(good.clone());
        let r = resolve(&request(&src, Ptx::Absent)).unwrap();
        assert_eq!((r.regs, r.shared), (40, 1024));
        assert_eq!(r.regs_from, good.display().to_string());
        let other = resolve(&Request {
            kernel: "j",
            ..request(&src, Ptx::Absent)
        })
        .unwrap();
        assert_eq!(other.regs, DEFAULT_REGS);
        assert_eq!(other.diagnostics.len(), 1);
        assert_eq!(other.diagnostics[0].level, Level::Warning);
        assert!(other.diagnostics[0]
            .message
            .contains("reports no kernel j (it reports: k)"));
        let bad = dir.join("bad.txt");
        std::fs::write(
            &bad,
            "ptxas info    : Compiling entry function 'k' for 'sm_90'\n\
             ptxas info    : Used xx registers, used 0 barriers\n",
        )
        .unwrap();
        match resolve(&request(&Source::File(bad), Ptx::Absent)) {
            Err(Error::Parse { error, .. }) => assert_eq!((error.line, error.col), (2, 22)),
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            resolve(&request(&Source::File(dir.join("missing")), Ptx::Absent)),
            Err(Error::Read { .. })
        ));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn byte_columns_count_bytes() {
        let e = ParseError {
            line: 1,
            col: 3,
            message: String::new(),
        };
        assert_eq!(Error::byte_col("éab", &e), 4);
    }
}
