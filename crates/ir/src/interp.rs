//! Abstract interpreter over integer and predicate registers, one thread at a time.
//!
//! A register holds a [`Value`]: a known integer (raw bits at the instruction's width), an
//! affine address `base + offset` over a symbolic base (pointer parameters and variables are
//! distinct bases, so address arithmetic stays exact), a term plus an offset (what an integer
//! load from global, shared or constant memory returned, and sums, differences and scalings of
//! it: lanes that loaded one address share the term, so an index every lane of a warp reads
//! alike keeps the addresses built from it exact relative to each other; [`WarpState::step`]
//! creates the terms), or unknown (floats, clocks, what a load from an unknown address
//! returned). Address arithmetic is tracked at 32 and 64 bits (shared-memory addresses are
//! 32-bit), with the offset kept as a signed 64-bit byte count. Everything a launch decides —
//! `%tid`, `%ntid`, `%ctaid`, `%nctaid`, `%laneid`, `%warpid` (from `%tid`), `WARP_SZ`, and
//! the values of non-pointer parameters — is known.
//!
//! The walker (crates/walk) drives this incrementally along a warp's path: [`ThreadState::step`]
//! per instruction, [`ThreadState::eval_guard`] for branch conditions and
//! [`ThreadState::eval_addr`] for per-lane addresses (coalescing and bank conflicts, mapper g);
//! [`WarpState`] wraps 32 lanes with an active mask. Loops are never iterated here: trip counts
//! come from `crate::trips`.
//!
//! Invariant: a guarded instruction whose guard is unknown leaves each destination at its old
//! value if that equals the new one, else unknown (the join of both outcomes).

use crate::error::IrError;
use crate::ids::{BaseId, RegId};
use crate::kernel::{AddrBase, Guard, Inst, Kernel, Operand, Special};
use crate::param::{param_bits, ParamKind, ParamMisfit, ParamValue};
use crate::sem::{BoolOp, IntTy, MulMode, Sem};
use serde::Serialize;

/// An abstract register value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum Value {
    /// Not known under this launch.
    Unknown,
    /// A known integer, stored as raw bits zero-extended from the width it was written with.
    Int(u64),
    /// `base + offset` bytes.
    Addr { base: BaseId, offset: i64 },
    /// `term + offset`: a value the launch does not decide (what a load returned, and what was
    /// computed from it), equal wherever the same [`SymId`] appears. The lanes of a warp that
    /// load one address get one term, so an index every lane reads alike, and the addresses
    /// built from it, keep their lane-to-lane differences exact.
    Sym { sym: SymId, offset: i64 },
}

impl Value {
    /// A term's id and offset; `None` for the other values.
    fn term(self) -> Option<(SymId, i64)> {
        match self {
            Value::Sym { sym, offset } => Some((sym, offset)),
            _ => None,
        }
    }

    /// The value `k` further on: an address or a term with its offset moved (anything else
    /// as it is).
    fn shifted(self, k: i64) -> Value {
        match self {
            Value::Addr { base, offset } => Value::Addr {
                base,
                offset: offset.wrapping_add(k),
            },
            Value::Sym { sym, offset } => Value::Sym {
                sym,
                offset: offset.wrapping_add(k),
            },
            v => v,
        }
    }
}

/// An unknown term: a hash of the load that produced it (its dynamic instance in the warp and
/// its address) or of the operation and terms it was computed from. Equal ids denote equal
/// values; nothing else is known about them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct SymId(pub u64);

impl SymId {
    fn of(parts: &[u64]) -> SymId {
        use std::hash::{Hash, Hasher};
        // `DefaultHasher::new` has fixed keys: the same inputs give the same id in every run.
        let mut h = std::collections::hash_map::DefaultHasher::new();
        parts.hash(&mut h);
        SymId(h.finish())
    }
}

/// An address computed for one lane.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct AbstractAddr {
    /// `None`: an absolute (numeric) address, or one relative to `sym`.
    pub base: Option<BaseId>,
    /// The unknown term the address is relative to (an address computed from loaded data
    /// that the lanes share); `None` for the others.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sym: Option<SymId>,
    /// Byte offset from the base.
    pub offset: i64,
}

/// A kernel launch: grid and block sizes plus values of scalar parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct Launch {
    pub grid: [u32; 3],
    pub block: [u32; 3],
    /// `(name or decimal index, value)` as given by the user (`--param NAME=VALUE`); bound
    /// by the parameter's PTX type ([`crate::param`]).
    pub params: Vec<(String, ParamValue)>,
}

impl Default for Launch {
    fn default() -> Self {
        Self {
            grid: [1, 1, 1],
            block: [1, 1, 1],
            params: Vec::new(),
        }
    }
}

/// The largest grid and block every NVIDIA GPU since compute capability 3.0 launches: grid
/// X up to 2^31 − 1 blocks, Y and Z up to 65 535; block X and Y up to 1024 threads, Z up to
/// 64, and 1024 threads in all.
pub const MAX_GRID: [u32; 3] = [(1 << 31) - 1, 65_535, 65_535];
pub const MAX_BLOCK: [u32; 3] = [1024, 1024, 64];
pub const MAX_BLOCK_THREADS: u64 = 1024;

impl Launch {
    /// Whether a GPU can launch this grid and block ([`MAX_GRID`], [`MAX_BLOCK`],
    /// [`MAX_BLOCK_THREADS`]; no dimension 0): the cause in words where it cannot.
    pub fn check_dims(grid: [u32; 3], block: [u32; 3]) -> Result<(), String> {
        for (what, d, max) in [("grid", grid, MAX_GRID), ("block", block, MAX_BLOCK)] {
            for (i, (v, m)) in d.iter().zip(max).enumerate() {
                let axis = ["X", "Y", "Z"][i];
                if *v == 0 || *v > m {
                    return Err(format!("a {what}'s {axis} dimension is 1 to {m}, not {v}"));
                }
            }
        }
        let threads: u64 = block.iter().map(|&x| u64::from(x)).product();
        if threads > MAX_BLOCK_THREADS {
            return Err(format!(
                "a block of {threads} threads: at most {MAX_BLOCK_THREADS}"
            ));
        }
        Ok(())
    }

    /// Resolves parameter names against `kernel`. Parameters given no value read as their
    /// symbolic base (a pointer) — index math on them stays affine, comparisons are unknown.
    /// A value is bound as the bits of the parameter's type, an integer as a signed number
    /// or an unsigned bit pattern of its width, a float as its IEEE bits
    /// ([`crate::param::param_bits`]); one the type cannot hold as given is an error naming
    /// the parameter, its type and the value.
    pub fn bind(&self, kernel: &Kernel) -> Result<BoundLaunch, IrError> {
        let mut params: Vec<Value> = kernel
            .params
            .iter()
            .map(|p| Value::Addr {
                base: p.base,
                offset: 0,
            })
            .collect();
        // Which launch entry gave each parameter its value: a second one is an error (one
        // would silently win).
        let mut given: Vec<Option<&str>> = vec![None; kernel.params.len()];
        for (name, v) in &self.params {
            let i = kernel
                .param_index(name)
                .ok_or_else(|| IrError::UnknownParam {
                    kernel: kernel.name.clone(),
                    param: name.clone(),
                    known: kernel.params.iter().map(|p| p.name.clone()).collect(),
                })?;
            let p = &kernel.params[i];
            if let Some(first) = given[i].replace(name) {
                return Err(IrError::ParamTwice {
                    kernel: kernel.name.clone(),
                    param: p.name.clone(),
                    first: first.to_string(),
                    second: name.clone(),
                });
            }
            let kind = ParamKind::of(p.ty, p.bytes);
            let bits = param_bits(kind, p.ty, *v).map_err(|m| match m {
                ParamMisfit::Range { bits } => IrError::ParamRange {
                    kernel: kernel.name.clone(),
                    param: p.name.clone(),
                    given: name.clone(),
                    value: match v {
                        ParamValue::Int(v) => *v,
                        // Floats never fail the width check.
                        ParamValue::Float(_) => 0,
                    },
                    bits,
                },
                ParamMisfit::Value(why) => IrError::ParamType {
                    kernel: kernel.name.clone(),
                    param: p.name.clone(),
                    given: name.clone(),
                    ty: p.ty.to_string(),
                    why,
                },
            })?;
            params[i] = Value::Int(bits);
        }
        if self.grid.contains(&0) || self.block.contains(&0) {
            return Err(IrError::EmptyLaunch {
                grid: self.grid,
                block: self.block,
            });
        }
        Ok(BoundLaunch {
            grid: self.grid,
            block: self.block,
            params,
        })
    }
}

/// A launch resolved against one kernel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoundLaunch {
    pub grid: [u32; 3],
    pub block: [u32; 3],
    /// Value of each kernel parameter.
    pub params: Vec<Value>,
}

impl BoundLaunch {
    /// Threads per block.
    pub fn threads_per_block(&self) -> u32 {
        self.block.iter().product()
    }

    /// Warps per block (the last one may be partial).
    pub fn warps_per_block(&self) -> u32 {
        self.threads_per_block().div_ceil(32)
    }

    /// Number of blocks.
    pub fn blocks(&self) -> u64 {
        self.grid.iter().map(|&g| u64::from(g)).product()
    }

    /// The linear id of the grid's central block: the middle of each dimension, so that no
    /// coordinate sits on an edge of a 2-D or 3-D grid (the middle linear id of a 12x24x24
    /// grid is (0, 0, 12), on two edges). For a 1-D grid it is `blocks / 2`.
    pub fn middle_block(&self) -> u64 {
        let [gx, gy, gz] = self.grid.map(u64::from);
        gx / 2 + gx * (gy / 2 + gy * (gz / 2))
    }

    /// `(x, y, z)` of linear block id `i` (x fastest).
    pub fn ctaid_of(&self, i: u64) -> [u32; 3] {
        let gx = u64::from(self.grid[0]);
        let gy = u64::from(self.grid[1]);
        [
            (i % gx) as u32,
            ((i / gx) % gy) as u32,
            (i / (gx * gy)) as u32,
        ]
    }

    /// `(x, y, z)` of linear thread id `t` within a block (x fastest).
    pub fn tid_of(&self, t: u32) -> [u32; 3] {
        let [bx, by, _] = self.block;
        [t % bx, (t / bx) % by, t / (bx * by)]
    }
}

/// The abstract register file of one thread.
#[derive(Debug, Clone)]
pub struct ThreadState<'l> {
    regs: Vec<Value>,
    launch: &'l BoundLaunch,
    ctaid: [u32; 3],
    tid: [u32; 3],
    linear_tid: u32,
}

impl<'l> ThreadState<'l> {
    /// A fresh thread: every register unknown.
    pub fn new(kernel: &Kernel, launch: &'l BoundLaunch, ctaid: [u32; 3], tid: [u32; 3]) -> Self {
        let [bx, by, _] = launch.block;
        Self {
            regs: vec![Value::Unknown; kernel.regs.len()],
            launch,
            ctaid,
            tid,
            linear_tid: tid[0] + bx * (tid[1] + by * tid[2]),
        }
    }

    /// The thread's index in its block (x fastest).
    pub fn linear_tid(&self) -> u32 {
        self.linear_tid
    }

    /// The value of register `r`.
    pub fn get(&self, r: RegId) -> Value {
        self.regs[r.index()]
    }

    /// Overwrites register `r` (the trip-count machinery uses it to skip loops).
    pub fn set(&mut self, r: RegId, v: Value) {
        self.regs[r.index()] = v;
    }

    fn special(&self, s: Special) -> Value {
        let l = self.launch;
        let v = match s {
            Special::Tid(d) => self.tid[usize::from(d)],
            Special::Ntid(d) => l.block[usize::from(d)],
            Special::Ctaid(d) => self.ctaid[usize::from(d)],
            Special::Nctaid(d) => l.grid[usize::from(d)],
            Special::LaneId => self.linear_tid % 32,
            Special::WarpId => self.linear_tid / 32,
            Special::WarpSize => 32,
            Special::Other => return Value::Unknown,
        };
        Value::Int(u64::from(v))
    }

    /// The value of a source operand.
    pub fn eval(&self, o: &Operand) -> Value {
        match o {
            Operand::Reg(r) => self.regs[r.index()],
            Operand::Imm(v) => Value::Int(*v),
            Operand::Special(s) => self.special(*s),
            Operand::Base { base, offset } => Value::Addr {
                base: *base,
                offset: *offset,
            },
            Operand::NotPred(r) => match self.regs[r.index()] {
                Value::Int(v) => Value::Int(u64::from(v & 1 == 0)),
                _ => Value::Unknown,
            },
            _ => Value::Unknown,
        }
    }

    /// Whether a guard holds: `None` when its predicate is unknown. No guard always holds.
    pub fn eval_guard(&self, g: Option<Guard>) -> Option<bool> {
        match g {
            None => Some(true),
            Some(g) => match self.regs[g.pred.index()] {
                Value::Int(v) => Some((v & 1 == 1) != g.negated),
                _ => None,
            },
        }
    }

    /// The address an `[base+offset]` operand denotes for this thread.
    pub fn eval_addr(&self, o: &Operand) -> Option<AbstractAddr> {
        let Operand::Addr { base, offset } = o else {
            return None;
        };
        match base {
            AddrBase::Reg(r) => match self.regs[r.index()] {
                Value::Int(v) => Some(AbstractAddr {
                    base: None,
                    sym: None,
                    offset: (v as i64).wrapping_add(*offset),
                }),
                Value::Addr { base, offset: o2 } => Some(AbstractAddr {
                    base: Some(base),
                    sym: None,
                    offset: o2.wrapping_add(*offset),
                }),
                Value::Sym { sym, offset: o2 } => Some(AbstractAddr {
                    base: None,
                    sym: Some(sym),
                    offset: o2.wrapping_add(*offset),
                }),
                Value::Unknown => None,
            },
            AddrBase::Var(b) => Some(AbstractAddr {
                base: Some(*b),
                sym: None,
                offset: *offset,
            }),
            AddrBase::Absolute => Some(AbstractAddr {
                base: None,
                sym: None,
                offset: *offset,
            }),
            AddrBase::KernelParam(_) | AddrBase::Slot(_) => None,
        }
    }

    /// Executes one instruction (its guard included).
    pub fn step(&mut self, inst: &Inst) {
        let ndefs = inst.ndefs as usize;
        if ndefs == 0 {
            return;
        }
        let guard = self.eval_guard(inst.guard);
        if guard == Some(false) {
            return;
        }
        let (d0, d1) = self.compute(inst);
        let write = |regs: &mut Vec<Value>, dst: &Operand, v: Value| {
            let r = match dst {
                Operand::Reg(r) => *r,
                Operand::Addr {
                    base: AddrBase::Slot(r),
                    ..
                } => *r,
                Operand::Vector(elems) => {
                    // Vector destinations (loads, unpacking movs) are never modelled.
                    for e in elems {
                        if let Operand::Reg(r) = e {
                            regs[r.index()] = Value::Unknown;
                        }
                    }
                    return;
                }
                _ => return,
            };
            let old = regs[r.index()];
            regs[r.index()] = if guard.is_none() && old != v {
                Value::Unknown
            } else {
                v
            };
        };
        let dsts = inst.dsts();
        write(&mut self.regs, &dsts[0], d0);
        if let Some(d) = dsts.get(1) {
            write(&mut self.regs, d, d1);
        }
        for d in dsts.iter().skip(2) {
            write(&mut self.regs, d, Value::Unknown);
        }
    }

    /// The values of the first and second destination.
    fn compute(&self, inst: &Inst) -> (Value, Value) {
        let srcs = inst.srcs();
        let src = |i: usize| srcs.get(i).map_or(Value::Unknown, |o| self.eval(o));
        let Some(ty) = inst.ty else {
            // Untyped or float: only parameter loads and moves of addresses stay known.
            return match inst.sem {
                Sem::LdParam => (self.ld_param(srcs.first()), Value::Unknown),
                _ => (Value::Unknown, Value::Unknown),
            };
        };
        let v = match inst.sem {
            Sem::Mov | Sem::Cvta => match src(0) {
                Value::Int(v) => Value::Int(ty.wrap(v)),
                v => v,
            },
            Sem::LdParam => match self.ld_param(srcs.first()) {
                Value::Int(v) => Value::Int(ty.wrap(v)),
                v => v,
            },
            Sem::StParam => match src(0) {
                Value::Int(v) => Value::Int(ty.wrap(v)),
                v => v,
            },
            Sem::Add => add(ty, src(0), src(1)),
            Sem::Sub => sub(ty, src(0), src(1)),
            Sem::Mul(mode) => mul(ty, mode, src(0), src(1)),
            Sem::Mad(mode) => {
                let wide = if mode == MulMode::Wide { ty.wide() } else { ty };
                add(wide, mul(ty, mode, src(0), src(1)), src(2))
            }
            Sem::Cvt(from) => match src(0) {
                Value::Int(v) => Value::Int(ty.wrap(from.to_i128(v) as u64)),
                // Shared/local addresses live in 32-bit registers and are widened for generic
                // addressing; anything narrower than 32 bits cannot hold an address.
                a @ Value::Addr { .. } if ty.bits >= 32 && from.bits >= 32 => a,
                // An index widened for addressing keeps its term (the value does not wrap).
                a @ Value::Sym { .. } if ty.bits >= 32 && from.bits >= 32 => a,
                _ => Value::Unknown,
            },
            Sem::Setp(cmp, combine) => {
                let c = match (src(0), src(1)) {
                    (Value::Int(a), Value::Int(b)) => Some(cmp.eval(ty.to_i128(a), ty.to_i128(b))),
                    (
                        Value::Addr {
                            base: b1,
                            offset: o1,
                        },
                        Value::Addr {
                            base: b2,
                            offset: o2,
                        },
                    ) if b1 == b2 => Some(cmp.eval(i128::from(o1), i128::from(o2))),
                    (x, y) => match (x.term(), y.term()) {
                        (Some((s1, o1)), Some((s2, o2))) if s1 == s2 => {
                            Some(cmp.eval(i128::from(o1), i128::from(o2)))
                        }
                        _ => None,
                    },
                };
                let p = match combine {
                    None => c,
                    Some(op) => bool_op(op, c, as_bool(src(2))),
                };
                let q = match combine {
                    None => c.map(|c| !c),
                    Some(op) => bool_op(op, c.map(|c| !c), as_bool(src(2))),
                };
                return (from_bool(p), from_bool(q));
            }
            Sem::Bfe => match (src(0), src(1), src(2)) {
                (Value::Int(a), Value::Int(pos), Value::Int(len)) => {
                    Value::Int(bit_field(ty, a, pos, len))
                }
                _ => Value::Unknown,
            },
            Sem::Selp => match as_bool(src(2)) {
                Some(true) => src(0),
                Some(false) => src(1),
                None if src(0) == src(1) => src(0),
                None => Value::Unknown,
            },
            Sem::And | Sem::Or | Sem::Xor if ty.bits == 1 => {
                let op = match inst.sem {
                    Sem::And => BoolOp::And,
                    Sem::Or => BoolOp::Or,
                    _ => BoolOp::Xor,
                };
                from_bool(bool_op(op, as_bool(src(0)), as_bool(src(1))))
            }
            Sem::Not if ty.bits == 1 => from_bool(as_bool(src(0)).map(|b| !b)),
            _ => int_op(inst.sem, ty, src(0), src(1)),
        };
        (v, Value::Unknown)
    }

    fn ld_param(&self, o: Option<&Operand>) -> Value {
        match o {
            Some(Operand::Addr {
                base: AddrBase::KernelParam(i),
                offset: 0,
            }) => self
                .launch
                .params
                .get(*i as usize)
                .copied()
                .unwrap_or(Value::Unknown),
            Some(Operand::Addr {
                base: AddrBase::Slot(r),
                offset: 0,
            }) => self.regs[r.index()],
            _ => Value::Unknown,
        }
    }
}

/// PTX `bfe`: bits `pos .. pos + len` of `a` (each taken from the low 8 bits of its operand),
/// the rest filled with zeros, or for a signed type with the field's top bit (the type's
/// top bit when the field runs past it; zero for an empty field).
fn bit_field(ty: IntTy, a: u64, pos: u64, len: u64) -> u64 {
    let bits = u64::from(ty.bits);
    let (a, pos, len) = (ty.wrap(a), pos & 0xff, len & 0xff);
    let mask = |n: u64| if n >= 64 { u64::MAX } else { (1u64 << n) - 1 };
    // The bits of the field that exist; every position above them takes the fill.
    let width = if pos >= bits { 0 } else { len.min(bits - pos) };
    let field = if width == 0 {
        0
    } else {
        (a >> pos) & mask(width)
    };
    let fill = ty.signed && len > 0 && (a >> (pos + len - 1).min(bits - 1)) & 1 == 1;
    ty.wrap(if fill { field | !mask(width) } else { field })
}

/// True when no instruction of `kernel` reads an index that differs between threads
/// (`%tid`, `%ctaid`, `%laneid`, `%warpid`): a [`ThreadState`] reads its thread only through
/// those, so every thread of every block then computes the same values on the same path.
pub(crate) fn thread_invariant(kernel: &Kernel) -> bool {
    fn varies(o: &Operand) -> bool {
        match o {
            Operand::Special(s) => matches!(
                s,
                Special::Tid(_) | Special::Ctaid(_) | Special::LaneId | Special::WarpId
            ),
            Operand::Vector(v) => v.iter().any(varies),
            _ => false,
        }
    }
    !kernel.insts.iter().any(|i| i.operands.iter().any(varies))
}

fn as_bool(v: Value) -> Option<bool> {
    match v {
        Value::Int(v) => Some(v & 1 == 1),
        _ => None,
    }
}

fn from_bool(b: Option<bool>) -> Value {
    b.map_or(Value::Unknown, |b| Value::Int(u64::from(b)))
}

fn bool_op(op: BoolOp, a: Option<bool>, b: Option<bool>) -> Option<bool> {
    match (op, a, b) {
        (BoolOp::And, Some(false), _) | (BoolOp::And, _, Some(false)) => Some(false),
        (BoolOp::Or, Some(true), _) | (BoolOp::Or, _, Some(true)) => Some(true),
        (BoolOp::And, Some(a), Some(b)) => Some(a && b),
        (BoolOp::Or, Some(a), Some(b)) => Some(a || b),
        (BoolOp::Xor, Some(a), Some(b)) => Some(a != b),
        _ => None,
    }
}

/// Operations a term is combined with, for [`SymId::of`].
const SYM_ADD: u64 = 1;
const SYM_SUB: u64 = 2;
const SYM_MUL: u64 = 3;
const SYM_BASE: u64 = 4;
const SYM_LOAD: u64 = 5;

fn add(ty: IntTy, a: Value, b: Value) -> Value {
    if let (Some((s1, o1)), Some((s2, o2)), true) = (a.term(), b.term(), ty.bits >= 32) {
        return Value::Sym {
            sym: SymId::of(&[SYM_ADD, s1.min(s2).0, s1.max(s2).0]),
            offset: o1.wrapping_add(o2),
        };
    }
    match (a, b) {
        (Value::Int(a), Value::Int(b)) => Value::Int(ty.wrap(a.wrapping_add(b))),
        (v @ (Value::Addr { .. } | Value::Sym { .. }), Value::Int(k))
        | (Value::Int(k), v @ (Value::Addr { .. } | Value::Sym { .. }))
            if ty.bits >= 32 =>
        {
            v.shifted(ty.as_signed().to_i128(k) as i64)
        }
        // An address into a buffer at an index computed from loaded data.
        (Value::Addr { base, offset: o1 }, Value::Sym { sym, offset: o2 })
        | (Value::Sym { sym, offset: o2 }, Value::Addr { base, offset: o1 })
            if ty.bits >= 32 =>
        {
            Value::Sym {
                sym: SymId::of(&[SYM_BASE, base.index() as u64, sym.0]),
                offset: o1.wrapping_add(o2),
            }
        }
        _ => Value::Unknown,
    }
}

/// `a * k` for a term: the term scaled (a new term) and the offset scaled, exact while the
/// value does not wrap; `tag` tells apart the products of different widths.
fn scale_sym(sym: SymId, offset: i64, k: i64, tag: u64) -> Value {
    Value::Sym {
        sym: SymId::of(&[SYM_MUL, sym.0, k as u64, tag]),
        offset: offset.wrapping_mul(k),
    }
}

fn sub(ty: IntTy, a: Value, b: Value) -> Value {
    if let (Some((s1, o1)), Some((s2, o2)), true) = (a.term(), b.term(), ty.bits >= 32) {
        return if s1 == s2 {
            Value::Int(ty.wrap(o1.wrapping_sub(o2) as u64))
        } else {
            Value::Sym {
                sym: SymId::of(&[SYM_SUB, s1.0, s2.0]),
                offset: o1.wrapping_sub(o2),
            }
        };
    }
    match (a, b) {
        (Value::Int(a), Value::Int(b)) => Value::Int(ty.wrap(a.wrapping_sub(b))),
        (v @ (Value::Addr { .. } | Value::Sym { .. }), Value::Int(k)) if ty.bits >= 32 => {
            v.shifted((ty.as_signed().to_i128(k) as i64).wrapping_neg())
        }
        (
            Value::Addr {
                base: b1,
                offset: o1,
            },
            Value::Addr {
                base: b2,
                offset: o2,
            },
        ) if b1 == b2 => Value::Int(ty.wrap(o1.wrapping_sub(o2) as u64)),
        _ => Value::Unknown,
    }
}

fn mul(ty: IntTy, mode: MulMode, a: Value, b: Value) -> Value {
    match (a, b, mode) {
        (Value::Sym { sym, offset }, Value::Int(k), MulMode::Lo | MulMode::Wide)
        | (Value::Int(k), Value::Sym { sym, offset }, MulMode::Lo | MulMode::Wide)
            if ty.bits >= 32 =>
        {
            let wide = u64::from(mode == MulMode::Wide);
            return scale_sym(sym, offset, ty.to_i128(k) as i64, wide);
        }
        _ => {}
    }
    let (Value::Int(a), Value::Int(b)) = (a, b) else {
        return Value::Unknown;
    };
    let p = ty.to_i128(a).wrapping_mul(ty.to_i128(b));
    match mode {
        MulMode::Lo => Value::Int(ty.wrap(p as u64)),
        MulMode::Wide => Value::Int(ty.wide().wrap(p as u64)),
        MulMode::Hi => Value::Int(ty.wrap((p >> ty.bits) as u64)),
    }
}

fn int_op(sem: Sem, ty: IntTy, a: Value, b: Value) -> Value {
    // A term shifted left is a term scaled by a power of two, as `mul.lo` scales it.
    if let (Sem::Shl, Value::Sym { sym, offset }, Value::Int(k)) = (sem, a, b) {
        return match ty.wrap(k) {
            k if ty.bits >= 32 && k < u64::from(ty.bits).min(62) => {
                scale_sym(sym, offset, 1i64 << k, 0)
            }
            _ => Value::Unknown,
        };
    }
    let ai = match a {
        Value::Int(a) => a,
        _ => return Value::Unknown,
    };
    let x = ty.to_i128(ai);
    if matches!(sem, Sem::Not | Sem::Neg | Sem::Abs) {
        let r = match sem {
            Sem::Not => !ai,
            Sem::Neg => x.wrapping_neg() as u64,
            _ => x.unsigned_abs() as u64,
        };
        return Value::Int(ty.wrap(r));
    }
    let Value::Int(bi) = b else {
        return Value::Unknown;
    };
    let y = ty.to_i128(bi);
    let r: u64 = match sem {
        Sem::Shl => {
            let s = ty.wrap(bi).min(64);
            if s >= u64::from(ty.bits) {
                0
            } else {
                ai << s
            }
        }
        Sem::Shr => {
            let s = (y.clamp(0, 127)) as u32;
            if s >= u32::from(ty.bits) {
                if ty.signed && x < 0 {
                    u64::MAX
                } else {
                    0
                }
            } else {
                (x >> s) as u64
            }
        }
        Sem::And => ai & bi,
        Sem::Or => ai | bi,
        Sem::Xor => ai ^ bi,
        Sem::Min => x.min(y) as u64,
        Sem::Max => x.max(y) as u64,
        Sem::Div if y != 0 => (x / y) as u64,
        Sem::Rem if y != 0 => (x % y) as u64,
        _ => return Value::Unknown,
    };
    Value::Int(ty.wrap(r))
}

/// The address operand of a load whose value lanes reading one address share: an integer
/// `ld`/`ldu` in the global, shared or constant space (local memory is per thread, parameters
/// are the launch's, generic addresses may be local), not an atomic.
fn loaded_terms(inst: &Inst) -> Option<&Operand> {
    use ptx::ast::{Opcode, StateSpace};
    let op = &inst.op;
    let integer = op.mods.types.first().is_some_and(|t| !t.is_float());
    if !matches!(op.opcode, Opcode::Ld | Opcode::Ldu) || op.is_atomic() || !integer {
        return None;
    }
    if !matches!(
        op.mods.space,
        Some(StateSpace::Global | StateSpace::Shared | StateSpace::Const)
    ) {
        return None;
    }
    inst.srcs()
        .iter()
        .find(|o| matches!(o, Operand::Addr { .. }))
}

/// 32 lanes of one warp executed in lock step under an active mask.
#[derive(Debug, Clone)]
pub struct WarpState<'l> {
    /// Lane `i` is thread `32 * warp + i` of the block; a partial last warp has fewer lanes.
    pub lanes: Vec<ThreadState<'l>>,
    /// Instructions stepped: tells one dynamic load from another in its terms.
    steps: u64,
}

/// Per-lane outcome of a predicate over the active lanes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct LaneMasks {
    pub taken: u32,
    pub not_taken: u32,
    pub unknown: u32,
}

impl<'l> WarpState<'l> {
    /// Warp `warp` (in `%tid` linear order) of block `ctaid`.
    pub fn new(kernel: &Kernel, launch: &'l BoundLaunch, ctaid: [u32; 3], warp: u32) -> Self {
        let threads = launch.threads_per_block();
        let first = warp * 32;
        let lanes = (first..threads.min(first + 32))
            .map(|t| ThreadState::new(kernel, launch, ctaid, launch.tid_of(t)))
            .collect();
        Self { lanes, steps: 0 }
    }

    /// Mask of the lanes that exist (a partial last warp has fewer than 32).
    pub fn full_mask(&self) -> u32 {
        if self.lanes.len() >= 32 {
            u32::MAX
        } else {
            (1u32 << self.lanes.len()) - 1
        }
    }

    /// Executes `inst` on the active lanes. A load from global, shared or constant memory
    /// gives each lane whose guard holds and whose address is known a term of that address
    /// and of this dynamic instance ([`Value::Sym`]): lanes reading one address get equal
    /// values.
    pub fn step(&mut self, inst: &Inst, active: u32) {
        self.steps = self.steps.wrapping_add(1);
        let loaded = loaded_terms(inst).map(|addr| {
            let mut out = [None; 32];
            for (i, lane) in self.lanes.iter().enumerate() {
                if active >> i & 1 == 1 && lane.eval_guard(inst.guard) == Some(true) {
                    out[i] = lane.eval_addr(addr);
                }
            }
            out
        });
        for (i, lane) in self.lanes.iter_mut().enumerate() {
            if active >> i & 1 == 1 {
                lane.step(inst);
            }
        }
        let Some(addrs) = loaded else { return };
        let dsts: Vec<RegId> = match inst.dsts().first() {
            Some(Operand::Reg(r)) => vec![*r],
            Some(Operand::Vector(v)) => v
                .iter()
                .filter_map(|e| match e {
                    Operand::Reg(r) => Some(*r),
                    _ => None,
                })
                .collect(),
            _ => return,
        };
        for (lane, a) in self.lanes.iter_mut().zip(addrs) {
            let Some(a) = a else { continue };
            for (k, r) in dsts.iter().enumerate() {
                let sym = SymId::of(&[
                    SYM_LOAD,
                    self.steps,
                    u64::from(inst.ptx_line),
                    a.base.map_or(u64::MAX, |b| b.index() as u64),
                    a.sym.map_or(0, |s| s.0),
                    a.offset as u64,
                    k as u64,
                ]);
                lane.set(*r, Value::Sym { sym, offset: 0 });
            }
        }
    }

    /// Counts one instruction as executed without running it, for a walk that reads no
    /// register it writes (crates/walk, a trace's slice): later loads get the terms a walk
    /// that runs it gives them.
    pub fn skip(&mut self) {
        self.steps = self.steps.wrapping_add(1);
    }

    /// Splits the active lanes by a guard's value.
    pub fn eval_guard(&self, g: Option<Guard>, active: u32) -> LaneMasks {
        let mut m = LaneMasks::default();
        for (i, lane) in self.lanes.iter().enumerate() {
            let bit = 1u32 << i;
            if active & bit == 0 {
                continue;
            }
            match lane.eval_guard(g) {
                Some(true) => m.taken |= bit,
                Some(false) => m.not_taken |= bit,
                None => m.unknown |= bit,
            }
        }
        m
    }

    /// Per-lane addresses of an address operand (`None` for inactive lanes or unknown ones).
    pub fn eval_addr(&self, o: &Operand, active: u32) -> [Option<AbstractAddr>; 32] {
        let mut out = [None; 32];
        for (i, lane) in self.lanes.iter().enumerate() {
            if active >> i & 1 == 1 {
                out[i] = lane.eval_addr(o);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::bit_field;
    use crate::sem::IntTy;

    const U32: IntTy = IntTy::U32;
    const S32: IntTy = IntTy {
        bits: 32,
        signed: true,
    };

    #[test]
    fn the_middle_block_is_central_in_every_dimension() {
        let at = |grid: [u32; 3]| {
            super::BoundLaunch {
                grid,
                block: [32, 1, 1],
                params: Vec::new(),
            }
            .middle_block()
        };
        // 1-D: blocks / 2.
        assert_eq!(at([7, 1, 1]), 3);
        assert_eq!(at([4096, 1, 1]), 2048);
        // 12 x 24 x 24: (6, 12, 12), not the middle linear id 3456 = (0, 0, 12).
        assert_eq!(at([12, 24, 24]), 6 + 12 * (12 + 24 * 12));
        // 2-D 342 x 342: (171, 171).
        assert_eq!(at([342, 342, 1]), 171 + 342 * 171);
        assert_eq!(at([1, 1, 1]), 0);
    }

    #[test]
    fn bfe_extracts_and_extends_as_the_ptx_isa_says() {
        // Triton's lane coordinates: bfe.u32 %r, %tid.x, 2, 6 and bfe.u32 %r, %tid.x, 4, 4.
        assert_eq!(bit_field(U32, 0b1011_0110, 2, 6), 0b10_1101);
        assert_eq!(bit_field(U32, 255, 4, 4), 15);
        // Signed: the field's top bit fills the rest (bfe.s32 %r, %tid.x, 5, 1).
        assert_eq!(bit_field(S32, 0b10_0000, 5, 1), u64::from(u32::MAX));
        assert_eq!(bit_field(S32, 0b01_0000, 5, 1), 0);
        // A field running past the top takes the bits there are; signed fills with bit 31.
        assert_eq!(bit_field(U32, 0xF000_0000, 28, 8), 0xF);
        assert_eq!(bit_field(S32, 0x8000_0000, 28, 8), 0xFFFF_FFF8);
        // Empty field: zero, signed or not; positions and lengths use their low 8 bits.
        assert_eq!(bit_field(S32, u64::from(u32::MAX), 3, 0), 0);
        assert_eq!(bit_field(U32, 0b1100, 256 + 2, 256 + 2), 0b11);
    }

    /// The ISA's definition bit by bit: d[i] = a[pos + i] for i < len and pos + i <= msb, else
    /// the fill (the field's top bit, or the type's, for signed types; 0 otherwise).
    fn reference(ty: IntTy, a: u64, pos: u64, len: u64) -> u64 {
        let (bits, a, pos, len) = (u64::from(ty.bits), ty.wrap(a), pos & 0xff, len & 0xff);
        let fill = if ty.signed && len > 0 {
            a >> (pos + len - 1).min(bits - 1) & 1
        } else {
            0
        };
        (0..bits).fold(0, |d, i| {
            let bit = if i < len && pos + i < bits {
                a >> (pos + i) & 1
            } else {
                fill
            };
            d | bit << i
        })
    }

    #[test]
    fn bfe_matches_the_bitwise_definition() {
        let types = [
            U32,
            S32,
            IntTy {
                bits: 64,
                signed: false,
            },
            IntTy {
                bits: 64,
                signed: true,
            },
        ];
        let values = [
            0,
            1,
            0x8000_0000,
            0xDEAD_BEEF,
            u64::MAX,
            0x8000_0000_0000_0001,
        ];
        for ty in types {
            for a in values {
                for pos in (0..70).chain([255, 256, 300]) {
                    for len in (0..70).chain([255, 256, 300]) {
                        assert_eq!(
                            bit_field(ty, a, pos, len),
                            reference(ty, a, pos, len),
                            "{ty:?} a={a:#x} pos={pos} len={len}"
                        );
                    }
                }
            }
        }
    }
}
