//! The typed form of a SASS listing: kernels, their instructions and operands, as read from
//! `cuobjdump -sass` or `nvdisasm` text. This module only holds data; [`crate::listing`]
//! builds it and [`crate::analysis`] reads it.

use serde::Serialize;

/// Which tool printed a listing (told apart by its layout, see [`crate::parse_listing`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Format {
    /// `cuobjdump -sass`: `Function : NAME` blocks, encodings in trailing comments.
    Cuobjdump,
    /// `nvdisasm` (with or without `-c`, `-g`, `-gi`): `.section .text.NAME`, labels.
    Nvdisasm,
    /// No function found: either tool on a cubin without code, or not a listing.
    Unknown,
}

/// A whole listing: the architecture it was printed for and its kernels in listing order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Listing {
    pub format: Format,
    /// `sm_90` from `code for sm_90` or `.target sm_90`, when present.
    pub arch: Option<String>,
    pub kernels: Vec<Kernel>,
}

impl Listing {
    /// The kernel with this (mangled) name.
    pub fn kernel(&self, name: &str) -> Option<&Kernel> {
        self.kernels.iter().find(|k| k.name == name)
    }
}

/// One function block: a kernel with the device functions ptxas placed after it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Kernel {
    /// The mangled name (`_Z6nestedPKfPfii`).
    pub name: String,
    /// 1-based listing line of `Function :` or `.section .text.NAME`.
    pub line: u32,
    pub instructions: Vec<Instruction>,
    /// Labels (nvdisasm only): `.L_x_3:` and subroutine symbols `$kernel$callee:`, with the
    /// address of the instruction that follows them.
    pub labels: Vec<Label>,
}

impl Kernel {
    /// The address a label names, if it is defined in this kernel.
    pub fn label_address(&self, name: &str) -> Option<u64> {
        self.labels
            .iter()
            .find(|l| l.name == name)
            .map(|l| l.address)
    }

    /// The index of the instruction at `address`.
    pub fn index_of(&self, address: u64) -> Option<usize> {
        self.instructions
            .binary_search_by_key(&address, |i| i.address)
            .ok()
    }
}

/// A label and the address it names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Label {
    pub name: String,
    pub address: u64,
}

/// One SASS instruction.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Instruction {
    /// Byte address within the function's section (`/*0110*/`).
    pub address: u64,
    /// 1-based listing line.
    pub line: u32,
    pub predicate: Option<Predicate>,
    /// The mnemonic before the first `.` (`LDG`); unknown mnemonics are kept as written.
    pub opcode: String,
    /// The dotted modifiers in order (`LDG.E.64.CONSTANT` → `["E", "64", "CONSTANT"]`).
    pub modifiers: Vec<String>,
    pub operands: Vec<Operand>,
    /// The labels of nvdisasm's `(*"BRANCH_TARGETS .L_x_1,.L_x_2"*)` annotation on an
    /// indirect branch (`BRX`), removed from the operands; empty otherwise.
    pub branch_targets: Vec<String>,
    /// The 64-bit encoding words from `/* 0x… */` comments (cuobjdump; empty otherwise).
    pub encoding: Vec<u64>,
    /// The source position of a `//## File "…", line N` comment above (nvdisasm `-g`/`-gi`).
    pub source: Option<SourceLine>,
}

impl Instruction {
    /// `OPCODE.MOD.MOD` as written.
    pub fn mnemonic(&self) -> String {
        let mut s = self.opcode.clone();
        for m in &self.modifiers {
            s.push('.');
            s.push_str(m);
        }
        s
    }

    /// Whether `m` is one of the modifiers.
    pub fn has_modifier(&self, m: &str) -> bool {
        self.modifiers.iter().any(|x| x == m)
    }
}

/// An instruction guard `@P0` / `@!P0` (also uniform `@UP0` and the always-true `@PT`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Predicate {
    pub register: String,
    pub negated: bool,
}

/// A source position from nvdisasm line info.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SourceLine {
    pub file: String,
    pub line: u32,
    /// With `-gi`: where an inlined function's line was inlined into, when printed.
    pub inlined_at: Option<Box<SourceLine>>,
}

/// One operand: its text as written and what it was recognised as.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Operand {
    pub text: String,
    pub kind: OperandKind,
}

/// What an operand is. Only the cheap, unambiguous forms are told apart; the rest is
/// [`OperandKind::Other`] with its text in [`Operand::text`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum OperandKind {
    /// A register of any file (`R2`, `RZ`, `UR4`, `P0`, `PT`, `B0`, `SR_TID.X`), its name
    /// without the sign, negation, absolute-value or `.reuse`-like suffixes of the text.
    Register(String),
    /// An integer immediate (`0x110`, `-4`); branch targets in cuobjdump listings are these.
    Int(i64),
    /// A floating-point immediate (`0.25`, `-INF`, `+QNAN`), as text.
    Float,
    /// A constant-bank reference `c[0x0][0x210]`: bank and offset as written.
    ConstBank {
        bank: String,
        offset: String,
    },
    /// A memory address `[R2.64+0x10]`, `desc[UR4][R2.64]`.
    Memory,
    /// A label or symbol reference `` `(.L_x_1) `` (nvdisasm).
    Label(String),
    Other,
}
