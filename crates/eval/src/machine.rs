//! The machine code of a suite's kernels, for the alignment pass (`crates/align`): `eval
//! --sass auto` assembles every PTX file of the suite once with ptxas for the GPU profile's
//! architecture and disassembles it with line info (nvdisasm), as `simulate --sass auto` does
//! for one kernel; each kernel case keeps its function's listing ([`KernelCase::machine`]),
//! and the IDG builder ([`crate::predict::build_graphs`]) aligns its IDGs with it.
//!
//! The registers per thread stay the suite's (the launch measured them); only the listing is
//! used. A missing tool or a file ptxas rejects is a note, and those kernels keep their PTX
//! form.

use std::collections::BTreeMap;

use crate::suite::{KernelCase, Suite};

/// Where the machine code comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MachineSource {
    /// Assemble and disassemble each PTX file when ptxas and nvdisasm (or cuobjdump) are found.
    Auto,
    /// None: the PTX-only IDGs.
    None,
}

impl MachineSource {
    /// `given`, else the CLI's `PTX2IDG_SASS` when it says `auto` or `none`, else `auto`; a
    /// file there names one kernel's listing, which a suite cannot use: `none`, and a note.
    pub fn given_or_env(given: Option<MachineSource>) -> (MachineSource, Option<String>) {
        if let Some(g) = given {
            return (g, None);
        }
        match std::env::var(sass::resolve::SASS_ENV) {
            Ok(v) if v.is_empty() => (MachineSource::Auto, None),
            Ok(v) => match MachineSource::parse(&v) {
                Ok(m) => (m, None),
                Err(_) => (
                    MachineSource::None,
                    Some(format!(
                        "{}={v} names one kernel's listing; the suites' kernels keep their PTX \
                         form (--sass auto assembles each)",
                        sass::resolve::SASS_ENV
                    )),
                ),
            },
            Err(_) => (MachineSource::Auto, None),
        }
    }

    /// `auto` or `none`.
    pub fn parse(s: &str) -> Result<MachineSource, String> {
        match s {
            "auto" => Ok(MachineSource::Auto),
            "none" => Ok(MachineSource::None),
            o => Err(format!(
                "{o:?}: eval takes --sass auto or none (a saved listing names one kernel)"
            )),
        }
    }
}

/// The listing of one PTX file, or why there is none.
fn compile(tools: &sass::tools::Toolchain, ptx: &str, arch: &str) -> Result<sass::Listing, String> {
    let arch = sass::resolve::target_variant(ptx, arch).unwrap_or_else(|| arch.to_string());
    let disassembler = if tools.nvdisasm.is_some() {
        sass::tools::Disassembler::Nvdisasm
    } else {
        sass::tools::Disassembler::Cuobjdump
    };
    sass::tools::compile(
        tools,
        ptx,
        &sass::tools::CompileOptions {
            arch,
            disassembler,
            line_info: disassembler == sass::tools::Disassembler::Nvdisasm,
            cache: sass::cache::default_dir(),
        },
    )
    .map(|c| c.listing)
    .map_err(|e| e.to_string())
}

/// Attaches each kernel's machine code (`source`) for the GPU architecture `arch` (the
/// profile's `sass_arch`); returns notes on what could not be made.
pub fn attach(suite: &mut Suite, source: MachineSource, arch: Option<&str>) -> Vec<String> {
    if source == MachineSource::None {
        return Vec::new();
    }
    let Some(arch) = arch else {
        return vec!["--sass auto: the GPU profile names no sass_arch; no machine code".into()];
    };
    let tools = sass::tools::Toolchain::discover();
    if tools.ptxas.is_none() || (tools.nvdisasm.is_none() && tools.cuobjdump.is_none()) {
        return vec![
            "--sass auto: no ptxas and nvdisasm found (`pip install nvidia-cuda-nvcc \
             nvidia-cuda-nvdisasm`); every kernel keeps its PTX form"
                .into(),
        ];
    }
    // One compilation per PTX file, the files in parallel.
    let mut files: BTreeMap<&str, &str> = BTreeMap::new();
    for k in &suite.kernels {
        files.entry(k.ptx_file.as_str()).or_insert(k.ptx.as_str());
    }
    let listings: BTreeMap<String, Result<sass::Listing, String>> = {
        use rayon::prelude::*;
        files
            .into_par_iter()
            .map(|(f, ptx)| (f.to_string(), compile(&tools, ptx, arch)))
            .collect()
    };
    let mut notes = Vec::new();
    for (f, l) in &listings {
        if let Err(e) = l {
            notes.push(format!(
                "{f}: no machine code ({e}); its kernels keep their PTX form"
            ));
        }
    }
    for k in &mut suite.kernels {
        attach_one(k, &listings, &mut notes);
    }
    notes
}

fn attach_one(
    k: &mut KernelCase,
    listings: &BTreeMap<String, Result<sass::Listing, String>>,
    notes: &mut Vec<String>,
) {
    if let Some(Ok(l)) = listings.get(&k.ptx_file) {
        k.machine = l.kernel(&k.spec.entry).cloned();
        if k.machine.is_none() {
            notes.push(format!(
                "{}: the listing of {} has no kernel {}",
                k.spec.id, k.ptx_file, k.spec.entry
            ));
        }
    }
}
