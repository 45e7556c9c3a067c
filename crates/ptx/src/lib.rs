//! PTX front end: AST ([`ast`]), parser, printer and parse errors.
//!
//! # Use
//! ```
//! let src = ".version 8.0\n.target sm_80\n.address_size 64\n\
//!            .visible .entry k(.param .u64 p)\n{\n\t.reg .b32 %r<2>;\n\
//!            \tmov.u32 %r1, %tid.x;\n\tret;\n}\n";
//! let module = ptx::parse(src).unwrap();
//! let k = module.kernels().next().unwrap();
//! assert_eq!(k.name, "k");
//! let mut n = 0;
//! ptx::for_each_instruction(k.body.as_deref().unwrap(), &mut |i| {
//!     if n == 0 {
//!         assert_eq!(i.op.to_string(), "mov.u32");
//!         assert_eq!(i.span.line, 7);
//!     }
//!     n += 1;
//! });
//! assert_eq!(n, 2);
//! // The printer: parsing the printed text gives the same AST (up to spans).
//! let mut again = ptx::parse(&module.to_string()).unwrap();
//! let mut orig = module.clone();
//! orig.clear_spans();
//! again.clear_spans();
//! assert_eq!(orig, again);
//! ```
//!
//! # API
//! - [`parse`]`(&str) -> Result<`[`Module`]`, `[`ParseError`]`>`: a whole module.
//!   [`parse_instruction`] parses a single instruction (tests, tools).
//! - [`ParseError`]: `span` (1-based line, byte column, offset, length), `message`
//!   (`"expected `,` or `;`, found `%r3`"`), `expected`. Rendering with the source line is
//!   the CLI's job (`ptx2idg`'s `diag.rs`).
//! - Printing: `Display` on [`Module`] and every node ([`print`] is a shorthand);
//!   [`Op`] prints as the dotted mnemonic (`ld.global.nc.v4.f32`).
//! - [`Module`]: `version` ([`Version`]), `target` ([`Target`], `is_debug()`),
//!   `address_size` ([`AddressSize`]), each with its span, `files` (the `.loc`
//!   file table, [`Module::file_name`]), `items` ([`ModuleItem`]: variables, functions,
//!   debug sections, pragmas, aliases); helpers [`Module::kernels`],
//!   [`Module::functions`], [`Module::function`], [`Module::globals`],
//!   [`Module::clear_spans`].
//! - [`Function`]: kind (entry/func), linkage, name, `ret_params`, `params` ([`Param`] with
//!   [`VarType`]: type, vector, array, align, `.ptr` attributes), `directives`
//!   ([`FunctionDirective`], each with its span), `body: Option<Vec<`[`Statement`]`>>`
//!   with nested scopes as `Statement::Block`; [`for_each_instruction`] walks a body.
//! - [`Instruction`]: `guard` ([`Guard`]), `op` ([`Op`] = [`Opcode`] + typed
//!   [`Modifiers`]: state spaces, types, comparison, boolean/reduction op, rounding, vector
//!   width, scope, semantics, [`Flags`], and verbatim `other`), `operands` ([`Operand`]).
//!   Helpers on `Op`: `is_branch`, `is_call`, `is_return`, `is_barrier`, `is_fence`,
//!   `is_memory`, `is_load`, `is_store`, `is_atomic`, `is_async_copy`, `space`,
//!   `data_type`, `bytes_per_lane`.
//!
//! # Guarantees
//! Never panics on any input; linear time and memory; scopes and initializer lists deeper
//! than [`MAX_NESTING`] are a clear error. Unknown but well-formed opcodes parse as
//! [`Opcode::Unknown`] and unknown modifiers land in [`Modifiers::other`], so newer PTX
//! ISA versions keep parsing.

pub mod ast;
mod error;
mod parse;
mod print;
pub mod source;
pub mod summary;

pub use ast::*;
pub use error::ParseError;
pub use parse::{parse, parse_instruction, MAX_NESTING, MAX_STATEMENTS};
pub use source::{read_source, MAX_SOURCE_BYTES};
pub use summary::{kernel_summary, KernelSummary, RegSummary};

/// Prints a module as PTX text (same as `module.to_string()`).
pub fn print(module: &Module) -> String {
    module.to_string()
}
