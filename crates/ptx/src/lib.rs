//! PTX front end: AST ([`ast`]), parser and printer.
//!
//! ```text
//! let module: ptx::Module = ptx::parse(src)?;   // Err(ptx::ParseError) with a Span
//! let text: String = module.to_string();        // the printer; parse(text) == module
//! ```
//!
//! Every AST node that stands for a piece of source text carries a [`Span`]. Instruction
//! mnemonics are typed ([`Op`] = [`Opcode`] + [`Modifiers`]) and `Op` prints as its dotted
//! mnemonic (`ld.global.nc.v4.f32`).

pub mod ast;
mod print;

pub use ast::*;
mod error;
mod parse;

pub use error::ParseError;
pub use parse::{parse, parse_instruction, MAX_NESTING};

/// Prints a module as PTX text (same as `module.to_string()`).
pub fn print(module: &Module) -> String {
    module.to_string()
}
