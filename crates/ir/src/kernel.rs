//! The lowered form of one kernel: an instruction arena, basic blocks with explicit
//! terminators, interned registers and symbolic address bases, and the CFG.
//!
//! Invariants: `blocks[b].insts` are consecutive in `insts` and in program order; every
//! instruction records its block; control transfers appear only as the last instruction of a
//! block and are mirrored by the block's [`Term`] (the walker follows `Term`, the instruction
//! stays so the IDG has its branch node). `call`s are gone after lowering: callee bodies are
//! inlined with renamed registers and labels (see `lower`).

use crate::cfg::Cfg;
use crate::ids::{BaseId, BlockId, InstId, RegId};
use crate::sem::{IntTy, Sem};
use serde::Serialize;
use smallvec::SmallVec;

/// A predicate guard `@%p` / `@!%p`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct Guard {
    /// The predicate register.
    pub pred: RegId,
    /// `@!%p`.
    pub negated: bool,
}

/// A CUDA source position from the preceding `.loc` directive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct SrcLoc {
    /// Index into [`Kernel::files`].
    pub file: u32,
    /// 1-based source line.
    pub line: u32,
}

/// A special register the interpreter knows (`%tid.x`, ...). `dim` is 0, 1, 2 for x, y, z.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum Special {
    Tid(u8),
    Ntid(u8),
    Ctaid(u8),
    Nctaid(u8),
    /// `%laneid`: linear thread index modulo 32.
    LaneId,
    /// `%warpid`: linear thread index divided by 32 (the hardware value may differ; we model
    /// the warp's position in its block, which is what index math uses).
    WarpId,
    /// `WARP_SZ`.
    WarpSize,
    /// Any other special register (clocks, SM ids, ...): unknown.
    Other,
}

/// The base of an address operand `[base+offset]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum AddrBase {
    /// A register holding an address.
    Reg(RegId),
    /// The storage of kernel parameter `i` (`ld.param [k_param_i]`).
    KernelParam(u32),
    /// A `.param` call slot, modelled as a register (see [`RegKind::CallSlot`]).
    Slot(RegId),
    /// A module or kernel variable (`.shared`, `.global`, `.const`, `.local`).
    Var(BaseId),
    /// An absolute address.
    Absolute,
}

/// An instruction operand with names resolved.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum Operand {
    Reg(RegId),
    /// Integer immediate (raw bits).
    Imm(u64),
    /// Floating-point immediate (as f64).
    Float(f64),
    Special(Special),
    Addr {
        base: AddrBase,
        offset: i64,
    },
    /// The address of a variable (plus a constant) used as a value (`mov.u64 %rd1, smem;`).
    Base {
        base: BaseId,
        offset: i64,
    },
    /// `!%p` as a source.
    NotPred(RegId),
    /// `{a, b, ...}`. Boxed slices rather than `Vec`/`String` keep an operand at 24 bytes:
    /// every instruction holds four inline, and a kernel may hold millions of instructions.
    Vector(Box<[Operand]>),
    /// A label or other symbol the IR does not resolve further.
    Sym(Box<str>),
    /// `_`.
    Sink,
}

/// One lowered instruction.
#[derive(Debug, Clone, Serialize)]
pub struct Inst {
    /// The typed PTX operation.
    #[serde(serialize_with = "ser_display")]
    pub op: ptx::ast::Op,
    /// Decoded integer meaning for the interpreter.
    pub sem: Sem,
    /// The integer type the operation works on (`None` for float / untyped operations).
    pub ty: Option<IntTy>,
    pub guard: Option<Guard>,
    /// Operands in PTX order; the first `ndefs` are destinations.
    pub operands: SmallVec<[Operand; 4]>,
    pub ndefs: u8,
    /// 1-based line in the PTX file (`span.line`).
    pub ptx_line: u32,
    /// The instruction's extent in the PTX text.
    pub span: ptx::ast::Span,
    /// CUDA source position from the preceding `.loc`.
    pub loc: Option<SrcLoc>,
    pub block: BlockId,
    /// Names of the inlined callees this instruction comes from, outermost first (empty for
    /// the kernel's own code).
    pub inlined_from: Vec<String>,
}

fn ser_display<S: serde::Serializer>(op: &ptx::ast::Op, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(op)
}

fn push_regs(o: &Operand, out: &mut SmallVec<[RegId; 4]>) {
    match o {
        Operand::Reg(r) | Operand::NotPred(r) => out.push(*r),
        Operand::Vector(v) => v.iter().for_each(|o| push_regs(o, out)),
        Operand::Addr {
            base: AddrBase::Reg(r) | AddrBase::Slot(r),
            ..
        } => out.push(*r),
        _ => {}
    }
}

impl Inst {
    /// The destination operands.
    pub fn dsts(&self) -> &[Operand] {
        &self.operands[..self.ndefs as usize]
    }

    /// The source operands.
    pub fn srcs(&self) -> &[Operand] {
        &self.operands[self.ndefs as usize..]
    }

    /// Registers written (vector destinations expanded; a `st.param` writes its call slot).
    pub fn defs(&self) -> SmallVec<[RegId; 4]> {
        let mut out = SmallVec::new();
        for o in self.dsts() {
            match o {
                Operand::Addr {
                    base: AddrBase::Slot(r),
                    ..
                } => out.push(*r),
                Operand::Addr { .. } => {}
                o => push_regs(o, &mut out),
            }
        }
        out
    }

    /// Registers read: the guard, sources (vector elements, address base registers, call
    /// slots) and the address registers of memory destinations.
    pub fn uses(&self) -> SmallVec<[RegId; 4]> {
        let mut out = SmallVec::new();
        if let Some(g) = self.guard {
            out.push(g.pred);
        }
        for o in self.dsts() {
            if let Operand::Addr {
                base: AddrBase::Reg(r),
                ..
            } = o
            {
                out.push(*r);
            }
        }
        for o in self.srcs() {
            push_regs(o, &mut out);
        }
        out
    }
}

/// How control leaves a block.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum Term {
    /// Unconditional: fall-through or `bra`/`bra.uni` without guard.
    Goto(BlockId),
    /// `@%p bra target`: `taken` when the guard holds, otherwise `fall`.
    Cond {
        guard: Guard,
        taken: BlockId,
        fall: BlockId,
    },
    /// `brx.idx index, targets`: `targets[index]`.
    Switch { index: RegId, targets: Vec<BlockId> },
    /// `ret` / `exit` of the kernel (also `trap`).
    Exit,
}

impl Term {
    /// Successor blocks in the order the CFG lists them.
    pub fn succs(&self) -> SmallVec<[BlockId; 2]> {
        let mut out: SmallVec<[BlockId; 2]> = SmallVec::new();
        match self {
            Term::Goto(b) => out.push(*b),
            Term::Cond { taken, fall, .. } => {
                out.push(*taken);
                if fall != taken {
                    out.push(*fall);
                }
            }
            Term::Switch { targets, .. } => {
                for t in targets {
                    if !out.contains(t) {
                        out.push(*t);
                    }
                }
            }
            Term::Exit => {}
        }
        out
    }
}

/// A basic block.
#[derive(Debug, Clone, Serialize)]
pub struct Block {
    /// The PTX label that starts the block (renamed `callee$n$label` inside inlined code).
    pub label: Option<String>,
    /// Instructions in program order.
    pub insts: Vec<InstId>,
    pub term: Term,
}

/// What a register entry stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum RegKind {
    /// A PTX register (`.reg`).
    Reg,
    /// A `.param` variable of a call sequence, or an inlined callee's formal parameter bound to
    /// it: we model call-slot memory as a register so `st.param -> ld.param` is a def-use edge.
    CallSlot,
}

/// A register's name and kind.
#[derive(Debug, Clone, Serialize)]
pub struct RegInfo {
    pub name: String,
    pub kind: RegKind,
}

/// A kernel parameter.
#[derive(Debug, Clone, Serialize)]
pub struct Param {
    pub name: String,
    /// Size in bytes of the parameter's type.
    pub bytes: u32,
    /// The PTX scalar type (of each element, for an array): how a launch value is bound.
    pub ty: ptx::ast::ScalarType,
    /// The symbolic base standing for this parameter's value when it is used as a pointer.
    pub base: BaseId,
}

/// What a symbolic address base is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum BaseKind {
    /// The pointer value of kernel parameter `i`.
    Param(u32),
    /// A variable in the named state space (`shared`, `global`, `const`, `local`).
    Var { space: String },
}

/// A symbolic address base.
#[derive(Debug, Clone, Serialize)]
pub struct BaseInfo {
    pub name: String,
    pub kind: BaseKind,
}

/// One lowered kernel.
#[derive(Debug, Clone)]
pub struct Kernel {
    /// The (mangled) PTX name.
    pub name: String,
    pub params: Vec<Param>,
    pub insts: Vec<Inst>,
    pub blocks: Vec<Block>,
    pub regs: Vec<RegInfo>,
    pub bases: Vec<BaseInfo>,
    /// Source files of `.file` directives; `SrcLoc::file` indexes this.
    pub files: Vec<(u32, String)>,
    /// 1-based PTX line of the `.entry` directive.
    pub ptx_line: u32,
    pub cfg: Cfg,
}

impl Kernel {
    /// The instruction `i`.
    pub fn inst(&self, i: InstId) -> &Inst {
        &self.insts[i.index()]
    }

    /// The block `b`.
    pub fn block(&self, b: BlockId) -> &Block {
        &self.blocks[b.index()]
    }

    /// The name of register `r`.
    pub fn reg_name(&self, r: RegId) -> &str {
        &self.regs[r.index()].name
    }

    /// Looks up a register by name.
    pub fn reg_by_name(&self, name: &str) -> Option<RegId> {
        self.regs
            .iter()
            .position(|r| r.name == name)
            .map(RegId::from_index)
    }

    /// Looks up a parameter by PTX name or decimal index.
    pub fn param_index(&self, name_or_index: &str) -> Option<usize> {
        self.params
            .iter()
            .position(|p| p.name == name_or_index)
            .or_else(|| {
                name_or_index
                    .parse::<usize>()
                    .ok()
                    .filter(|i| *i < self.params.len())
            })
    }

    /// A printable name for block `b`: its label, or `bN`.
    pub fn block_name(&self, b: BlockId) -> String {
        match &self.block(b).label {
            Some(l) => l.clone(),
            None => b.to_string(),
        }
    }

    /// The PTX line where block `b` starts (its first instruction, or the kernel line).
    pub fn block_line(&self, b: BlockId) -> u32 {
        self.block(b)
            .insts
            .first()
            .map(|i| self.inst(*i).ptx_line)
            .unwrap_or(self.ptx_line)
    }

    /// The CUDA source position of block `b` (first instruction with a `.loc`).
    pub fn block_loc(&self, b: BlockId) -> Option<SrcLoc> {
        // Line 0 marks compiler-generated code without a source line.
        self.block(b)
            .insts
            .iter()
            .find_map(|i| self.inst(*i).loc.filter(|l| l.line != 0))
    }

    /// The file name of a source position.
    pub fn file_name(&self, loc: SrcLoc) -> Option<&str> {
        self.files
            .iter()
            .find(|(i, _)| *i == loc.file)
            .map(|(_, n)| n.as_str())
    }

    /// Finds a block by label.
    pub fn block_by_label(&self, label: &str) -> Option<BlockId> {
        self.blocks
            .iter()
            .position(|b| b.label.as_deref() == Some(label))
            .map(BlockId::from_index)
    }
}
