//! The integer/predicate meaning of an instruction, decoded once from its typed `ptx::ast::Op`
//! during lowering so that the abstract interpreter is a flat `match` per step.
//!
//! Invariant: `Sem::Other` covers everything the interpreter does not model; such an
//! instruction makes every register it defines unknown.

use serde::Serialize;

/// An integer type: width in bits and signedness (`.pred` is 1 bit, unsigned).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct IntTy {
    /// 1 (pred), 8, 16, 32 or 64.
    pub bits: u8,
    /// `.sN` types; `.bN` and `.uN` are unsigned.
    pub signed: bool,
}

impl IntTy {
    /// 32-bit unsigned, the type of special registers.
    pub const U32: IntTy = IntTy {
        bits: 32,
        signed: false,
    };
    /// 64-bit unsigned.
    pub const U64: IntTy = IntTy {
        bits: 64,
        signed: false,
    };
    /// The predicate type.
    pub const PRED: IntTy = IntTy {
        bits: 1,
        signed: false,
    };

    /// Mask of the low `bits` bits.
    pub fn mask(self) -> u64 {
        if self.bits >= 64 {
            u64::MAX
        } else {
            (1u64 << self.bits) - 1
        }
    }

    /// Truncates a raw value to this width (zero-extended storage form).
    pub fn wrap(self, v: u64) -> u64 {
        v & self.mask()
    }

    /// The stored raw bits read as a mathematical integer of this type.
    pub fn to_i128(self, v: u64) -> i128 {
        let v = self.wrap(v);
        if self.signed && self.bits < 64 && self.bits > 0 && (v >> (self.bits - 1)) & 1 == 1 {
            v as i128 - (1i128 << self.bits)
        } else if self.signed && self.bits == 64 {
            v as i64 as i128
        } else {
            v as i128
        }
    }

    /// Smallest representable value.
    pub fn min_value(self) -> i128 {
        if self.signed {
            -(1i128 << (self.bits - 1))
        } else {
            0
        }
    }

    /// Largest representable value.
    pub fn max_value(self) -> i128 {
        if self.signed {
            (1i128 << (self.bits - 1)) - 1
        } else {
            (1i128 << self.bits) - 1
        }
    }

    /// The same width as a signed type.
    pub fn as_signed(self) -> IntTy {
        IntTy {
            bits: self.bits,
            signed: true,
        }
    }

    /// Twice the width (`mul.wide`, `mad.wide`), capped at 64.
    pub fn wide(self) -> IntTy {
        IntTy {
            bits: (self.bits * 2).min(64),
            signed: self.signed,
        }
    }
}

/// Integer comparison of `setp`/`set`/`slct`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum Cmp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl Cmp {
    /// The comparison with its operands swapped (`a < b` is `b > a`).
    pub fn swapped(self) -> Cmp {
        match self {
            Cmp::Eq => Cmp::Eq,
            Cmp::Ne => Cmp::Ne,
            Cmp::Lt => Cmp::Gt,
            Cmp::Le => Cmp::Ge,
            Cmp::Gt => Cmp::Lt,
            Cmp::Ge => Cmp::Le,
        }
    }

    /// The logical negation (`!(a < b)` is `a >= b`).
    pub fn negated(self) -> Cmp {
        match self {
            Cmp::Eq => Cmp::Ne,
            Cmp::Ne => Cmp::Eq,
            Cmp::Lt => Cmp::Ge,
            Cmp::Le => Cmp::Gt,
            Cmp::Gt => Cmp::Le,
            Cmp::Ge => Cmp::Lt,
        }
    }

    /// Evaluates the comparison on mathematical integers.
    pub fn eval(self, a: i128, b: i128) -> bool {
        match self {
            Cmp::Eq => a == b,
            Cmp::Ne => a != b,
            Cmp::Lt => a < b,
            Cmp::Le => a <= b,
            Cmp::Gt => a > b,
            Cmp::Ge => a >= b,
        }
    }
}

/// Boolean combination of `setp.CMP.BOOL` and of `and/or/xor.pred`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum BoolOp {
    And,
    Or,
    Xor,
}

/// Which half of a product `mul`/`mad` keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum MulMode {
    Lo,
    Hi,
    Wide,
}

/// The modelled meaning of an instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum Sem {
    Mov,
    Add,
    Sub,
    Mul(MulMode),
    Mad(MulMode),
    Shl,
    Shr,
    And,
    Or,
    Xor,
    Not,
    Neg,
    Abs,
    Min,
    Max,
    Div,
    Rem,
    /// `cvt.DST.SRC`: the instruction's type is DST, this is SRC.
    Cvt(IntTy),
    /// `cvta[.to].SPACE`: an address-space conversion; keeps symbolic addresses.
    Cvta,
    /// `setp.CMP[.BOOL]`: the instruction's type is the compared type.
    Setp(Cmp, Option<BoolOp>),
    /// `selp`.
    Selp,
    /// `bfe`: the bit field of `len` bits at `pos` (sources 1 and 2), sign-extended for
    /// signed types. Triton derives lane coordinates from `%tid.x` with it.
    Bfe,
    /// `ld.param` (kernel parameter or call slot).
    LdParam,
    /// `st.param` (call slot).
    StParam,
    /// Anything not modelled: defined registers become unknown.
    Other,
}
