//! NVIDIA machine code (SASS) listings read into typed form, with the static analysis a
//! performance model wants from them, and the NVIDIA tools that print them found without a GPU.
//!
//! The crate sits on the ground floor beside `ptx`: it knows nothing of the PTX AST, the IR
//! or the simulator; callers pair its per-kernel counts with their own PTX counts.
//!
//! # Use
//! ```
//! let text = "\tcode for sm_90\n\t\tFunction : k\n\
//!     /*0000*/  IMAD.MOV.U32 R3, RZ, RZ, RZ ;\n\
//!     /*0010*/  LDG.E R7, desc[UR4][R2.64] ;\n\
//!     /*0020*/  VIADD R3, R3, 0x1 ;\n\
//!     /*0030*/  @!P0 BRA 0x10 ;\n\
//!     /*0040*/  EXIT ;\n\
//!     /*0050*/  BRA 0x50;\n";
//! let listing = sass::parse_listing(text).unwrap();
//! let a = sass::analysis::analyze(&listing.kernels[0]);
//! let lp = &a.loops[0];
//! assert_eq!((lp.header, lp.latch), (0x10, 0x30));
//! assert_eq!(lp.counts.get(sass::analysis::Class::GlobalLoad), 1);
//! assert_eq!(a.body.total, 5); // the trap `BRA 0x50` never runs
//! ```
//!
//! # API
//! - [`parse_listing`]`(&str) -> Result<`[`Listing`]`, `[`ParseError`]`>`: `cuobjdump -sass`
//!   or `nvdisasm` (`-c`, `-g`, `-gi`) text → kernels ([`Kernel`]) of instructions
//!   ([`Instruction`]: address, [`Predicate`], opcode, modifiers, [`Operand`]s, encoding,
//!   [`SourceLine`]).
//! - [`parse_resource_usage`] (`cuobjdump -res-usage`) and [`parse_ptxas_info`]
//!   (`ptxas -v`) → per-kernel [`Resources`] (registers, shared, stack, local, spills).
//! - [`analysis::analyze`]`(&Kernel) -> `[`analysis::KernelAnalysis`]: an
//!   [`analysis::Class`] per instruction, which instructions never run
//!   ([`analysis::Reach`]), basic blocks, loops from back edges, counts per class for the
//!   kernel and per loop.
//! - [`tools`]: [`tools::Toolchain::discover`] finds `ptxas`, `cuobjdump` and `nvdisasm` on
//!   `PATH`, in pip's `nvidia-cuda-*` packages or in Triton; [`tools::compile`] assembles a
//!   PTX text and returns its listing and resources; [`cache`] keeps the tools' outputs on
//!   disk so that the same PTX is not assembled twice.
//! - [`resolve::resolve`]: a launch's registers per thread and shared bytes from the
//!   caller's values, ptxas' report (run, or a saved file) or the defaults, with typed notes
//!   and warnings; the one resolution behind the CLI's `--sass` and the Python `sass=`.
//!
//! # Guarantees
//! The parsers never panic on any input; every [`ParseError`] has a 1-based line and column.
//! Unknown opcodes and modifiers are kept as text, so newer architectures keep parsing.

pub mod analysis;
mod ast;
pub mod cache;
mod error;
mod listing;
pub mod resolve;
mod resources;
pub mod tools;

pub use ast::{
    Format, Instruction, Kernel, Label, Listing, Operand, OperandKind, Predicate, SourceLine,
};
pub use error::ParseError;
pub use listing::parse_listing;
pub use resources::{parse_ptxas_info, parse_resource_usage, Resources};
