//! The PTX abstract syntax tree.
//!
//! Owns every type the parser produces and the printer consumes. Invariants:
//! - every directive, declaration, label and instruction carries the [`Span`] of its first
//!   token (1-based line/column, byte offset and byte length of the whole construct);
//! - a declaration listing several names (`.reg .b32 %r1, %r2;`) is split into one
//!   [`RegDecl`]/[`VarDecl`] per name, so consumers never iterate name lists;
//! - the parts of an instruction the performance model needs (opcode, state space, types,
//!   comparison, rounding, vector width, scope, semantics) are typed; anything else is kept
//!   verbatim in [`Modifiers::other`], so newer ISA versions still parse;
//! - equality ignores the textual order of modifiers of different kinds
//!   ([`Modifiers::order`]): `parse(print(m)) == m` holds with spans normalized.

use serde::{Deserialize, Serialize};
use std::fmt;

/// A source location: 1-based line and column of the first byte, byte offset and length.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Span {
    pub line: u32,
    pub col: u32,
    pub offset: u32,
    pub len: u32,
}

/// A whole PTX module (one `.ptx` file).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Module {
    /// `.version major.minor`.
    pub version: Option<Version>,
    pub target: Option<Target>,
    /// `.address_size 32|64`.
    pub address_size: Option<AddressSize>,
    /// `.file` directives, in source order (the `.loc` file table).
    pub files: Vec<FileDecl>,
    pub items: Vec<ModuleItem>,
}

/// `.version major.minor`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Version {
    pub major: u32,
    pub minor: u32,
    pub span: Span,
}

/// `.target sm_80, debug` — the architecture plus its flags in source order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Target {
    pub arch: String,
    /// `debug`, `texmode_unified`, `texmode_independent`, `map_f64_to_f32`, ...
    pub flags: Vec<String>,
    pub span: Span,
}

/// `.address_size 32|64`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct AddressSize {
    /// Pointer width in bits.
    pub bits: u32,
    pub span: Span,
}

impl Target {
    /// True for `-G` builds (`.target ..., debug`).
    pub fn is_debug(&self) -> bool {
        self.flags.iter().any(|f| f == "debug")
    }
}

/// `.file 1 "name" [, timestamp, size]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileDecl {
    pub index: u32,
    /// The name as written between the quotes (escapes kept verbatim).
    pub name: String,
    pub timestamp: Option<u64>,
    pub size: Option<u64>,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum ModuleItem {
    Var(VarDecl),
    Function(Function),
    Section(Section),
    Pragma(Pragma),
    /// `.alias alias, aliasee;`
    Alias {
        alias: String,
        aliasee: String,
        span: Span,
    },
}

/// Linkage / visibility directive of a module-scope symbol.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Linkage {
    Visible,
    Extern,
    Weak,
    Common,
}

/// State spaces, as declared (`.shared`) or as instruction modifiers (`.shared::cta`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum StateSpace {
    Reg,
    Sreg,
    Const,
    Global,
    Local,
    Param,
    /// `.param::entry`
    ParamEntry,
    /// `.param::func`
    ParamFunc,
    Shared,
    /// `.shared::cta`
    SharedCta,
    /// `.shared::cluster`
    SharedCluster,
    Tex,
}

impl StateSpace {
    pub fn as_str(self) -> &'static str {
        match self {
            StateSpace::Reg => "reg",
            StateSpace::Sreg => "sreg",
            StateSpace::Const => "const",
            StateSpace::Global => "global",
            StateSpace::Local => "local",
            StateSpace::Param => "param",
            StateSpace::ParamEntry => "param::entry",
            StateSpace::ParamFunc => "param::func",
            StateSpace::Shared => "shared",
            StateSpace::SharedCta => "shared::cta",
            StateSpace::SharedCluster => "shared::cluster",
            StateSpace::Tex => "tex",
        }
    }

    pub fn from_name(s: &str) -> Option<StateSpace> {
        Some(match s {
            "reg" => StateSpace::Reg,
            "sreg" => StateSpace::Sreg,
            "const" => StateSpace::Const,
            "global" => StateSpace::Global,
            "local" => StateSpace::Local,
            "param" => StateSpace::Param,
            "param::entry" => StateSpace::ParamEntry,
            "param::func" => StateSpace::ParamFunc,
            "shared" => StateSpace::Shared,
            "shared::cta" => StateSpace::SharedCta,
            "shared::cluster" => StateSpace::SharedCluster,
            "tex" => StateSpace::Tex,
            _ => return None,
        })
    }

    /// True for every flavour of shared memory.
    pub fn is_shared(self) -> bool {
        matches!(
            self,
            StateSpace::Shared | StateSpace::SharedCta | StateSpace::SharedCluster
        )
    }
}

macro_rules! string_enum {
    ($(#[$m:meta])* $name:ident { $($var:ident = $s:literal),* $(,)? }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        pub enum $name { $($var),* }
        impl $name {
            /// The PTX spelling, without the leading dot.
            pub fn as_str(self) -> &'static str {
                match self { $($name::$var => $s),* }
            }
            /// Parses the PTX spelling (without the leading dot).
            #[allow(clippy::should_implement_trait)]
            pub fn from_name(s: &str) -> Option<$name> {
                match s { $($s => Some($name::$var),)* _ => None }
            }
            /// Every variant, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$var),*];
        }
        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

string_enum!(
    /// Fundamental (and opaque) PTX types.
    ScalarType {
        S8 = "s8", S16 = "s16", S32 = "s32", S64 = "s64",
        U8 = "u8", U16 = "u16", U32 = "u32", U64 = "u64",
        B8 = "b8", B16 = "b16", B32 = "b32", B64 = "b64", B128 = "b128",
        F16 = "f16", F16x2 = "f16x2", Bf16 = "bf16", Bf16x2 = "bf16x2",
        F32 = "f32", F32x2 = "f32x2", F64 = "f64", Tf32 = "tf32",
        S16x2 = "s16x2", U16x2 = "u16x2",
        E4m3 = "e4m3", E5m2 = "e5m2", E4m3x2 = "e4m3x2", E5m2x2 = "e5m2x2",
        E4m3x4 = "e4m3x4", E5m2x4 = "e5m2x4",
        E2m1 = "e2m1", E2m1x2 = "e2m1x2", E2m3 = "e2m3", E3m2 = "e3m2",
        E2m3x2 = "e2m3x2", E3m2x2 = "e3m2x2", Ue8m0 = "ue8m0", Ue8m0x2 = "ue8m0x2",
        S4 = "s4", U4 = "u4", B1 = "b1",
        Pred = "pred",
        TexRef = "texref", SamplerRef = "samplerref", SurfRef = "surfref",
    }
);

impl ScalarType {
    /// Size in bits (`pred` counts as 1, opaque handles as 64).
    pub fn bits(self) -> u32 {
        use ScalarType::*;
        match self {
            B1 | Pred => 1,
            S4 | U4 | E2m1 => 4,
            S8 | U8 | B8 | E4m3 | E5m2 | E2m1x2 | E2m3 | E3m2 | Ue8m0 => 8,
            S16 | U16 | B16 | F16 | Bf16 | E4m3x2 | E5m2x2 | E2m3x2 | E3m2x2 | Ue8m0x2 => 16,
            S32 | U32 | B32 | F32 | Tf32 | F16x2 | Bf16x2 | S16x2 | U16x2 | E4m3x4 | E5m2x4 => 32,
            S64 | U64 | B64 | F64 | F32x2 | TexRef | SamplerRef | SurfRef => 64,
            B128 => 128,
        }
    }

    /// Size in bytes, rounded up (`pred` is 1 byte).
    pub fn bytes(self) -> u32 {
        self.bits().div_ceil(8)
    }

    pub fn is_float(self) -> bool {
        use ScalarType::*;
        matches!(
            self,
            F16 | F16x2
                | Bf16
                | Bf16x2
                | F32
                | F32x2
                | F64
                | Tf32
                | E4m3
                | E5m2
                | E4m3x2
                | E5m2x2
                | E4m3x4
                | E5m2x4
                | E2m1
                | E2m1x2
                | E2m3
                | E3m2
                | E2m3x2
                | E3m2x2
                | Ue8m0
                | Ue8m0x2
        )
    }

    pub fn is_signed_int(self) -> bool {
        use ScalarType::*;
        matches!(self, S4 | S8 | S16 | S32 | S64 | S16x2)
    }
}

string_enum!(
    /// Comparison operators of `setp`/`set`/`vset`.
    CmpOp {
        Eq = "eq", Ne = "ne", Lt = "lt", Le = "le", Gt = "gt", Ge = "ge",
        Lo = "lo", Ls = "ls", Hi = "hi", Hs = "hs",
        Equ = "equ", Neu = "neu", Ltu = "ltu", Leu = "leu", Gtu = "gtu", Geu = "geu",
        Num = "num", Nan = "nan",
    }
);

string_enum!(
    /// Boolean combiner of `setp`/`set` (`setp.lt.and.s32`).
    BoolOp { And = "and", Or = "or", Xor = "xor" }
);

string_enum!(
    /// Reduction operation of `atom`/`red`/`redux`/`bar.red`/`cp.reduce`/`multimem`.
    ReduceOp {
        Add = "add", Min = "min", Max = "max", Inc = "inc", Dec = "dec",
        And = "and", Or = "or", Xor = "xor", Cas = "cas", Exch = "exch", Popc = "popc",
    }
);

string_enum!(
    /// Rounding modifiers (floating and integer rounding of `cvt`).
    Rounding {
        Rn = "rn", Rz = "rz", Rm = "rm", Rp = "rp", Rna = "rna", Rs = "rs",
        Rni = "rni", Rzi = "rzi", Rmi = "rmi", Rpi = "rpi",
    }
);

string_enum!(
    /// Memory-model scope.
    Scope { Cta = "cta", Cluster = "cluster", Gpu = "gpu", Sys = "sys" }
);

string_enum!(
    /// Memory-ordering semantics.
    Semantics {
        Relaxed = "relaxed", Acquire = "acquire", Release = "release", AcqRel = "acq_rel",
        Sc = "sc", Volatile = "volatile", Weak = "weak", Mmio = "mmio",
    }
);

string_enum!(
    /// Single-word instruction flags the model cares about.
    Flag {
        Sync = "sync", Aligned = "aligned", Uni = "uni",
        Approx = "approx", Full = "full", Ftz = "ftz", Sat = "sat", Satfinite = "satfinite",
        Wide = "wide", Hi = "hi", Lo = "lo", Cc = "cc", Nc = "nc",
    }
);

/// A set of [`Flag`]s; iterates in [`Flag::ALL`] order.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Flags(pub u32);

impl Flags {
    pub fn contains(self, f: Flag) -> bool {
        self.0 & (1 << f as u32) != 0
    }
    pub fn insert(&mut self, f: Flag) {
        self.0 |= 1 << f as u32;
    }
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
    pub fn len(self) -> usize {
        self.0.count_ones() as usize
    }
    pub fn iter(self) -> impl Iterator<Item = Flag> {
        Flag::ALL.iter().copied().filter(move |f| self.contains(*f))
    }
}

/// Which field of [`Modifiers`] a source modifier went to; recorded so the printer can
/// restore the source order. Not part of equality.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[repr(u8)]
pub enum ModKind {
    Space = 1,
    Type = 2,
    Cmp = 3,
    BoolOp = 4,
    ReduceOp = 5,
    Rounding = 6,
    Vector = 7,
    Scope = 8,
    Sem = 9,
    Flag = 10,
    Other = 11,
}

impl ModKind {
    fn from_u8(v: u8) -> Option<ModKind> {
        Some(match v {
            1 => ModKind::Space,
            2 => ModKind::Type,
            3 => ModKind::Cmp,
            4 => ModKind::BoolOp,
            5 => ModKind::ReduceOp,
            6 => ModKind::Rounding,
            7 => ModKind::Vector,
            8 => ModKind::Scope,
            9 => ModKind::Sem,
            10 => ModKind::Flag,
            11 => ModKind::Other,
            _ => return None,
        })
    }
}

/// Source order of up to 16 modifiers, 4 bits each (kinds of later modifiers are not
/// recorded; the printer emits them in a canonical order).
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize)]
pub struct ModOrder(pub u64);

impl ModOrder {
    pub const CAPACITY: usize = 16;

    pub fn push(&mut self, kind: ModKind) {
        let n = self.len();
        if n < Self::CAPACITY {
            self.0 |= (kind as u64) << (4 * n);
        }
    }
    pub fn len(&self) -> usize {
        // Kinds are non-zero nibbles filled from the low end, so the highest set bit
        // tells how many are recorded.
        (64 - self.0.leading_zeros() as usize).div_ceil(4)
    }
    pub fn is_empty(&self) -> bool {
        self.0 == 0
    }
    pub fn iter(self) -> impl Iterator<Item = ModKind> {
        (0..Self::CAPACITY).map_while(move |i| ModKind::from_u8(((self.0 >> (4 * i)) & 0xF) as u8))
    }
}

/// Typed instruction modifiers (everything after the opcode's first dot).
///
/// Classification of a modifier depends only on the opcode, never on its position, so the
/// order between fields is presentation only ([`ModOrder`]) and ignored by `==` and `Hash`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Modifiers {
    /// First state space (destination of copies, e.g. `.shared` in `cp.async.ca.shared.global`).
    pub space: Option<StateSpace>,
    /// Second state space (source of copies: `.global` above).
    pub space2: Option<StateSpace>,
    /// Types in source order (`cvt.f32.s32` -> `[F32, S32]`).
    pub types: Vec<ScalarType>,
    pub cmp: Option<CmpOp>,
    pub bool_op: Option<BoolOp>,
    pub reduce: Option<ReduceOp>,
    pub rounding: Option<Rounding>,
    /// `.v2`/`.v4`/`.v8`.
    pub vector: Option<u8>,
    pub scope: Option<Scope>,
    pub sem: Option<Semantics>,
    pub flags: Flags,
    /// Every other modifier verbatim without the dot (`L2::128B`, `m16n8k16`, `row`, `2d`).
    pub other: Vec<String>,
    pub order: ModOrder,
}

/// Everything of [`Modifiers`] but its presentation order.
type ModKey<'a> = (
    [Option<StateSpace>; 2],
    &'a [ScalarType],
    (
        Option<CmpOp>,
        Option<BoolOp>,
        Option<ReduceOp>,
        Option<Rounding>,
    ),
    (Option<u8>, Option<Scope>, Option<Semantics>),
    Flags,
    &'a [String],
);

impl Modifiers {
    fn key(&self) -> ModKey<'_> {
        (
            [self.space, self.space2],
            &self.types,
            (self.cmp, self.bool_op, self.reduce, self.rounding),
            (self.vector, self.scope, self.sem),
            self.flags,
            &self.other,
        )
    }

    /// True if `other` holds this verbatim modifier (without the dot).
    pub fn has_other(&self, m: &str) -> bool {
        self.other.iter().any(|o| o == m)
    }
}

impl PartialEq for Modifiers {
    fn eq(&self, o: &Self) -> bool {
        self.key() == o.key()
    }
}
impl Eq for Modifiers {}
impl std::hash::Hash for Modifiers {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.key().hash(h)
    }
}

macro_rules! opcodes {
    ($($var:ident = $s:literal),* $(,)?) => {
        /// PTX opcodes: the first dot-separated word of an instruction.
        #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        pub enum Opcode {
            $($var,)*
            /// A well-formed opcode this crate does not know (newer ISA).
            Unknown(String),
        }
        impl Opcode {
            /// The PTX spelling.
            pub fn as_str(&self) -> &str {
                match self { $(Opcode::$var => $s,)* Opcode::Unknown(s) => s }
            }
            /// Maps a spelling to its opcode; unknown words give [`Opcode::Unknown`].
            pub fn from_name(s: &str) -> Opcode {
                match s { $($s => Opcode::$var,)* _ => Opcode::Unknown(s.to_string()) }
            }
            /// Every known opcode.
            pub const KNOWN: &'static [Opcode] = &[$(Opcode::$var),*];
        }
    };
}

opcodes!(
    // integer and float arithmetic
    Add = "add",
    Sub = "sub",
    Mul = "mul",
    Mad = "mad",
    Mul24 = "mul24",
    Mad24 = "mad24",
    Sad = "sad",
    Div = "div",
    Rem = "rem",
    Abs = "abs",
    Neg = "neg",
    Min = "min",
    Max = "max",
    Addc = "addc",
    Subc = "subc",
    Madc = "madc",
    Fma = "fma",
    Popc = "popc",
    Clz = "clz",
    Bfind = "bfind",
    Fns = "fns",
    Brev = "brev",
    Bfe = "bfe",
    Bfi = "bfi",
    Bmsk = "bmsk",
    Szext = "szext",
    Dp4a = "dp4a",
    Dp2a = "dp2a",
    Rcp = "rcp",
    Sqrt = "sqrt",
    Rsqrt = "rsqrt",
    Sin = "sin",
    Cos = "cos",
    Lg2 = "lg2",
    Ex2 = "ex2",
    Tanh = "tanh",
    Testp = "testp",
    Copysign = "copysign",
    // comparison and selection
    Setp = "setp",
    Set = "set",
    Selp = "selp",
    Slct = "slct",
    // logic and shift
    And = "and",
    Or = "or",
    Xor = "xor",
    Not = "not",
    Cnot = "cnot",
    Lop3 = "lop3",
    Shf = "shf",
    Shl = "shl",
    Shr = "shr",
    // data movement and conversion
    Mov = "mov",
    Ld = "ld",
    Ldu = "ldu",
    St = "st",
    Prefetch = "prefetch",
    Prefetchu = "prefetchu",
    Cvt = "cvt",
    Cvta = "cvta",
    Isspacep = "isspacep",
    Shfl = "shfl",
    Prmt = "prmt",
    Mapa = "mapa",
    Getctarank = "getctarank",
    Createpolicy = "createpolicy",
    Applypriority = "applypriority",
    Discard = "discard",
    Cp = "cp",
    Movmatrix = "movmatrix",
    Stacksave = "stacksave",
    Stackrestore = "stackrestore",
    Alloca = "alloca",
    Tensormap = "tensormap",
    Multimem = "multimem",
    // texture and surface
    Tex = "tex",
    Tld4 = "tld4",
    Txq = "txq",
    Istypep = "istypep",
    Suld = "suld",
    Sust = "sust",
    Sured = "sured",
    Suq = "suq",
    // control flow
    Bra = "bra",
    Brx = "brx",
    Call = "call",
    Ret = "ret",
    Exit = "exit",
    Trap = "trap",
    Brkpt = "brkpt",
    Pmevent = "pmevent",
    Nanosleep = "nanosleep",
    // synchronization and communication
    Bar = "bar",
    Barrier = "barrier",
    Membar = "membar",
    Fence = "fence",
    Atom = "atom",
    Red = "red",
    Vote = "vote",
    Match = "match",
    Redux = "redux",
    Activemask = "activemask",
    Elect = "elect",
    Mbarrier = "mbarrier",
    Griddepcontrol = "griddepcontrol",
    Setmaxnreg = "setmaxnreg",
    Clusterlaunchcontrol = "clusterlaunchcontrol",
    // tensor cores
    Wmma = "wmma",
    Mma = "mma",
    Ldmatrix = "ldmatrix",
    Stmatrix = "stmatrix",
    Wgmma = "wgmma",
    Tcgen05 = "tcgen05",
    // video
    Vadd = "vadd",
    Vsub = "vsub",
    Vabsdiff = "vabsdiff",
    Vmin = "vmin",
    Vmax = "vmax",
    Vshl = "vshl",
    Vshr = "vshr",
    Vmad = "vmad",
    Vset = "vset",
    Vadd2 = "vadd2",
    Vsub2 = "vsub2",
    Vavrg2 = "vavrg2",
    Vabsdiff2 = "vabsdiff2",
    Vmin2 = "vmin2",
    Vmax2 = "vmax2",
    Vset2 = "vset2",
    Vadd4 = "vadd4",
    Vsub4 = "vsub4",
    Vavrg4 = "vavrg4",
    Vabsdiff4 = "vabsdiff4",
    Vmin4 = "vmin4",
    Vmax4 = "vmax4",
    Vset4 = "vset4",
);

impl Opcode {
    /// Opcodes whose `.and`/`.or`/`.min`/... modifiers name a reduction ([`ReduceOp`]).
    pub fn takes_reduce_op(&self) -> bool {
        matches!(
            self,
            Opcode::Atom
                | Opcode::Red
                | Opcode::Redux
                | Opcode::Bar
                | Opcode::Barrier
                | Opcode::Cp
                | Opcode::Multimem
                | Opcode::Sured
        )
    }

    /// Opcodes whose `.lt`/`.lo`/... modifiers are comparisons and `.and`/... combiners.
    pub fn takes_cmp(&self) -> bool {
        matches!(
            self,
            Opcode::Setp | Opcode::Set | Opcode::Vset | Opcode::Vset2 | Opcode::Vset4
        )
    }

    pub fn is_video(&self) -> bool {
        use Opcode::*;
        matches!(
            self,
            Vadd | Vsub
                | Vabsdiff
                | Vmin
                | Vmax
                | Vshl
                | Vshr
                | Vmad
                | Vset
                | Vadd2
                | Vsub2
                | Vavrg2
                | Vabsdiff2
                | Vmin2
                | Vmax2
                | Vset2
                | Vadd4
                | Vsub4
                | Vavrg4
                | Vabsdiff4
                | Vmin4
                | Vmax4
                | Vset4
        )
    }
}

impl fmt::Display for Opcode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An opcode with its modifiers. `Display` prints the dotted mnemonic (`ld.global.nc.v4.f32`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Op {
    pub opcode: Opcode,
    pub mods: Modifiers,
}

impl Op {
    /// Plain `bra`/`brx` (not `call`/`ret`).
    pub fn is_branch(&self) -> bool {
        matches!(self.opcode, Opcode::Bra | Opcode::Brx)
    }

    /// Instructions that end a path or leave the function: `ret`, `exit`, `trap`.
    pub fn is_return(&self) -> bool {
        matches!(self.opcode, Opcode::Ret | Opcode::Exit | Opcode::Trap)
    }

    pub fn is_call(&self) -> bool {
        self.opcode == Opcode::Call
    }

    /// Block- or warp-level execution barriers: `bar`, `barrier` (incl. `bar.warp.sync`).
    pub fn is_barrier(&self) -> bool {
        matches!(self.opcode, Opcode::Bar | Opcode::Barrier)
    }

    /// Memory fences: `membar`, `fence`.
    pub fn is_fence(&self) -> bool {
        matches!(self.opcode, Opcode::Membar | Opcode::Fence)
    }

    /// Instructions that access memory (not just registers): loads, stores, atomics,
    /// reductions, async copies, texture/surface, matrix loads/stores, prefetches, mbarriers.
    pub fn is_memory(&self) -> bool {
        use Opcode::*;
        match self.opcode {
            Ld | Ldu | St | Atom | Red | Cp | Tex | Tld4 | Suld | Sust | Sured | Prefetch
            | Prefetchu | Ldmatrix | Stmatrix | Mbarrier | Multimem | Applypriority | Discard => {
                true
            }
            Wmma => self.mods.has_other("load") || self.mods.has_other("store"),
            _ => false,
        }
    }

    /// True for `cp.async*` and `cp.reduce.async*`.
    pub fn is_async_copy(&self) -> bool {
        self.opcode == Opcode::Cp && self.mods.has_other("async")
    }

    /// Loads (incl. `ldu`, `ld` forms of `ldmatrix`, texture fetches and `wmma.load`).
    pub fn is_load(&self) -> bool {
        use Opcode::*;
        match self.opcode {
            Ld | Ldu | Ldmatrix | Tex | Tld4 | Suld => true,
            Wmma => self.mods.has_other("load"),
            _ => false,
        }
    }

    pub fn is_store(&self) -> bool {
        use Opcode::*;
        match self.opcode {
            St | Stmatrix | Sust => true,
            Wmma => self.mods.has_other("store"),
            _ => false,
        }
    }

    pub fn is_atomic(&self) -> bool {
        matches!(self.opcode, Opcode::Atom | Opcode::Red)
    }

    /// The (first) state space modifier; `None` means generic addressing for memory ops.
    pub fn space(&self) -> Option<StateSpace> {
        self.mods.space
    }

    /// The main type: the first type modifier (destination type of `cvt`, D type of `mma`).
    pub fn data_type(&self) -> Option<ScalarType> {
        self.mods.types.first().copied()
    }

    /// Bytes moved per thread by a plain load/store/atomic (vector width times type size).
    pub fn bytes_per_lane(&self) -> Option<u32> {
        use Opcode::*;
        match self.opcode {
            Ld | Ldu | St | Atom | Red => {
                let t = self.data_type()?;
                Some(t.bytes() * u32::from(self.mods.vector.unwrap_or(1)))
            }
            _ => None,
        }
    }
}

/// `@%p` / `@!%p`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Guard {
    pub pred: String,
    pub negated: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Instruction {
    pub guard: Option<Guard>,
    pub op: Op,
    pub operands: Vec<Operand>,
    pub span: Span,
}

/// Immediate values. Floats are kept as IEEE bits so equality is exact.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Imm {
    /// Integers that fit `i64` (decimal, hex, octal, binary, optionally negated).
    Int(i64),
    /// Integers with a `U` suffix or too large for `i64`.
    UInt(u64),
    /// `0fXXXXXXXX`.
    F32(u32),
    /// `0dXXXXXXXXXXXXXXXX` and decimal floating literals (PTX treats those as f64).
    F64(u64),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Dim {
    X,
    Y,
    Z,
}

impl Dim {
    pub fn as_str(self) -> &'static str {
        match self {
            Dim::X => "x",
            Dim::Y => "y",
            Dim::Z => "z",
        }
    }
}

/// Special registers (`%tid.x`, `%laneid`, ...) and the `WARP_SZ` constant.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum SpecialReg {
    Tid(Dim),
    Ntid(Dim),
    Ctaid(Dim),
    Nctaid(Dim),
    Clusterid(Dim),
    Nclusterid(Dim),
    ClusterCtaid(Dim),
    ClusterNctaid(Dim),
    ClusterCtarank,
    ClusterNctarank,
    IsExplicitCluster,
    Laneid,
    Warpid,
    Nwarpid,
    Smid,
    Nsmid,
    Gridid,
    LanemaskEq,
    LanemaskLe,
    LanemaskLt,
    LanemaskGe,
    LanemaskGt,
    Clock,
    ClockHi,
    Clock64,
    Globaltimer,
    GlobaltimerLo,
    GlobaltimerHi,
    Envreg(u8),
    Pm(u8),
    Pm64(u8),
    DynamicSmemSize,
    TotalSmemSize,
    AggrSmemSize,
    WarpSz,
    /// Any other `%name` reserved by the ISA (`%tid` without component, newer registers).
    Other(String),
}

/// Base of a memory address.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum AddrBase {
    Reg(String),
    Sym(String),
    /// An absolute address `[1024]`.
    Imm(i64),
}

/// `[base+offset]`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Address {
    pub base: AddrBase,
    pub offset: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Operand {
    /// A register `%r1` (never a special register).
    Reg(String),
    /// A register component or byte/half selector: `%v.x`, `%r2.b0`, `%r3.h1`.
    RegField {
        reg: String,
        field: String,
    },
    Imm(Imm),
    Special(SpecialReg),
    Addr(Address),
    /// A bracketed list with more than one element: `[tex, {%f1, %f2}]`,
    /// `[%rd1, {%r1, %r2}]` (tensor maps), `[tex, sampler, {...}]`.
    AddrList(Vec<Operand>),
    /// `{%f1, %f2, _}`.
    Vector(Vec<Operand>),
    /// `(param0, param1)` argument / return lists of `call`.
    List(Vec<Operand>),
    /// A label, variable, function or parameter name.
    Sym(String),
    /// `sym+offset` used as a value (address of a variable plus a constant).
    SymOffset {
        name: String,
        offset: i64,
    },
    /// `_`.
    Sink,
    /// `!%p` (negated predicate source).
    NotPred(String),
    /// `%p|%q` (dual predicate destination of `setp`, `shfl`).
    Pair(Box<Operand>, Box<Operand>),
}

/// A `.reg` declaration of one name; `%r<35>` gives `range: Some(35)` (registers `%r0..%r34`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RegDecl {
    pub ty: ScalarType,
    pub vector: Option<u8>,
    pub align: Option<u32>,
    pub name: String,
    pub range: Option<u32>,
    pub span: Span,
}

/// `.ptr` attribute of a kernel parameter: `.ptr .global .align 16`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PtrAttr {
    pub space: Option<StateSpace>,
    pub align: Option<u32>,
}

/// A variable/parameter type: scalar type, vector width, array dimensions, alignment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VarType {
    pub scalar: ScalarType,
    pub vector: Option<u8>,
    /// Array dimensions, outermost first; `None` is an unsized `[]`.
    pub array: Vec<Option<u64>>,
    pub align: Option<u32>,
    pub ptr: Option<PtrAttr>,
}

impl VarType {
    /// Total size in bytes, if every dimension is known.
    pub fn size_bytes(&self) -> Option<u64> {
        let mut n = u64::from(self.scalar.bytes()) * u64::from(self.vector.unwrap_or(1));
        for d in &self.array {
            n = n.checked_mul((*d)?)?;
        }
        Some(n)
    }

    /// Whether every dimension is known and the size is past 2^64 − 1 bytes (an element count
    /// times the element size that overflows): such a declaration describes no memory.
    pub fn size_overflows(&self) -> bool {
        self.array.iter().all(Option::is_some) && self.size_bytes().is_none()
    }
}

/// Static shared memory no block can have.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SharedSizeError {
    /// A `.shared` array whose size, or the function's static shared total up to it, is past
    /// 2^64 − 1 bytes.
    #[error(
        "the .shared array `{array}` (line {line}) is larger than 2^64 - 1 bytes (its element \
         count times its element size, or the static shared memory up to it, overflows)"
    )]
    Overflow { array: String, line: u32 },
    /// More than `u32::MAX` bytes in all.
    #[error("{bytes} bytes of static shared memory per block, more than any SM holds")]
    TooLarge { bytes: u64 },
}

/// A function parameter or return parameter.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Param {
    /// The name; `_` in prototypes that leave it out.
    pub name: String,
    /// `.param` or `.reg`.
    pub space: StateSpace,
    pub ty: VarType,
    pub span: Span,
}

/// A constant expression in an initializer or debug section.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum ConstExpr {
    Imm(Imm),
    /// `sym` or `sym+off` / `sym-off`.
    Sym {
        name: String,
        offset: i64,
    },
    /// `generic(sym)+off`.
    Generic {
        name: String,
        offset: i64,
    },
    /// `a-b+off` label differences (DWARF lengths).
    Diff {
        a: String,
        b: String,
        offset: i64,
    },
    /// `0xFF00(generic(sym))`: the bytes of an address selected by a mask (byte-wise
    /// pointer initializers).
    Mask {
        mask: u64,
        expr: Box<ConstExpr>,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Initializer {
    Expr(ConstExpr),
    List(Vec<Initializer>),
}

/// A variable declaration in any state space (module scope or function body), one name.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VarDecl {
    pub linkage: Option<Linkage>,
    /// `.attribute(.managed)` contents, e.g. `managed`.
    pub attributes: Vec<String>,
    pub space: StateSpace,
    pub ty: VarType,
    pub name: String,
    pub init: Option<Initializer>,
    pub span: Span,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum FunctionKind {
    Entry,
    Func,
}

/// Performance-tuning and ABI directives between a function's signature and body, each
/// with the [`Span`] of the directive (from its `.` to its last number or `;`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum FunctionDirective {
    MaxNtid(Vec<u32>, Span),
    ReqNtid(Vec<u32>, Span),
    MinNctaPerSm(u32, Span),
    MaxNctaPerSm(u32, Span),
    MaxNreg(u32, Span),
    MaxClusterRank(u32, Span),
    ReqNctaPerCluster(Vec<u32>, Span),
    ExplicitCluster(Span),
    NoReturn(Span),
    /// `.pragma "...";` before the body.
    Pragma(Pragma),
    /// Any other `.name [n, n...]` directive (e.g. `.abi_preserve 4`).
    Other {
        name: String,
        args: Vec<u32>,
        span: Span,
    },
}

impl FunctionDirective {
    pub fn span(&self) -> Span {
        match self {
            FunctionDirective::MaxNtid(_, s)
            | FunctionDirective::ReqNtid(_, s)
            | FunctionDirective::ReqNctaPerCluster(_, s)
            | FunctionDirective::MinNctaPerSm(_, s)
            | FunctionDirective::MaxNctaPerSm(_, s)
            | FunctionDirective::MaxNreg(_, s)
            | FunctionDirective::MaxClusterRank(_, s)
            | FunctionDirective::ExplicitCluster(s)
            | FunctionDirective::NoReturn(s)
            | FunctionDirective::Other { span: s, .. } => *s,
            FunctionDirective::Pragma(p) => p.span,
        }
    }

    fn span_mut(&mut self) -> &mut Span {
        match self {
            FunctionDirective::MaxNtid(_, s)
            | FunctionDirective::ReqNtid(_, s)
            | FunctionDirective::ReqNctaPerCluster(_, s)
            | FunctionDirective::MinNctaPerSm(_, s)
            | FunctionDirective::MaxNctaPerSm(_, s)
            | FunctionDirective::MaxNreg(_, s)
            | FunctionDirective::MaxClusterRank(_, s)
            | FunctionDirective::ExplicitCluster(s)
            | FunctionDirective::NoReturn(s)
            | FunctionDirective::Other { span: s, .. } => s,
            FunctionDirective::Pragma(p) => &mut p.span,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Function {
    pub kind: FunctionKind,
    pub linkage: Option<Linkage>,
    pub name: String,
    pub ret_params: Vec<Param>,
    pub params: Vec<Param>,
    pub directives: Vec<FunctionDirective>,
    /// `None` for declarations (`.extern .func f(...);`).
    pub body: Option<Vec<Statement>>,
    pub span: Span,
}

impl Function {
    pub fn is_entry(&self) -> bool {
        self.kind == FunctionKind::Entry
    }
}

/// `.loc file line col [, function_name sym[+off], inlined_at file line col]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Loc {
    pub file: u32,
    pub line: u32,
    pub col: u32,
    /// `function_name label[+offset]`.
    pub function_name: Option<(String, i64)>,
    /// `inlined_at file line col`.
    pub inlined_at: Option<(u32, u32, u32)>,
    pub span: Span,
}

/// `.pragma "a", "b";` — strings verbatim without quotes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pragma {
    pub values: Vec<String>,
    pub span: Span,
}

/// `label: .callprototype (.param .b32 _) _ (.param .b64 _);`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CallPrototype {
    pub label: String,
    pub ret_params: Vec<Param>,
    pub params: Vec<Param>,
    pub directives: Vec<FunctionDirective>,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Statement {
    Label {
        name: String,
        span: Span,
    },
    Inst(Instruction),
    Reg(RegDecl),
    Var(VarDecl),
    Loc(Loc),
    Pragma(Pragma),
    /// A nested `{ ... }` scope.
    Block(Vec<Statement>, Span),
    /// `label: .branchtargets L1, L2;` (targets of `brx.idx`).
    BranchTargets {
        label: String,
        targets: Vec<String>,
        span: Span,
    },
    /// `label: .calltargets f1, f2;`
    CallTargets {
        label: String,
        targets: Vec<String>,
        span: Span,
    },
    CallPrototype(CallPrototype),
}

impl Statement {
    pub fn span(&self) -> Span {
        match self {
            Statement::Label { span, .. }
            | Statement::Block(_, span)
            | Statement::BranchTargets { span, .. }
            | Statement::CallTargets { span, .. } => *span,
            Statement::Inst(i) => i.span,
            Statement::Reg(r) => r.span,
            Statement::Var(v) => v.span,
            Statement::Loc(l) => l.span,
            Statement::Pragma(p) => p.span,
            Statement::CallPrototype(c) => c.span,
        }
    }
}

/// One value of a `.b8`/`.b16`/`.b32`/`.b64` line in a debug section.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum SectionEntry {
    Label {
        name: String,
        span: Span,
    },
    /// A line of values of which at least one is not a plain integer.
    Data {
        ty: ScalarType,
        values: Vec<ConstExpr>,
        span: Span,
    },
    /// Consecutive lines of plain integers of one type, merged (the bulk of DWARF data);
    /// printed 16 values per line.
    Ints {
        ty: ScalarType,
        values: Vec<i64>,
        span: Span,
    },
}

/// `.section .debug_info { ... }`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Section {
    /// The name including its leading dot (`.debug_info`).
    pub name: String,
    pub entries: Vec<SectionEntry>,
    pub span: Span,
}

impl Module {
    /// All function definitions and declarations, in source order.
    pub fn functions(&self) -> impl Iterator<Item = &Function> {
        self.items.iter().filter_map(|i| match i {
            ModuleItem::Function(f) => Some(f),
            _ => None,
        })
    }

    /// Kernels (`.entry`) with bodies.
    pub fn kernels(&self) -> impl Iterator<Item = &Function> {
        self.functions()
            .filter(|f| f.is_entry() && f.body.is_some())
    }

    /// The function named `name`, preferring a definition over a declaration.
    pub fn function(&self, name: &str) -> Option<&Function> {
        let mut decl = None;
        for f in self.functions().filter(|f| f.name == name) {
            if f.body.is_some() {
                return Some(f);
            }
            decl = Some(f);
        }
        decl
    }

    /// Module-scope variables.
    pub fn globals(&self) -> impl Iterator<Item = &VarDecl> {
        self.items.iter().filter_map(|i| match i {
            ModuleItem::Var(v) => Some(v),
            _ => None,
        })
    }

    /// Bytes of static shared memory the function `name` uses, for the occupancy rules: its
    /// own `.shared` variables and the module-scope ones it names (nvcc puts a kernel's
    /// `__shared__` arrays at either place), each placed at its alignment. Unsized arrays
    /// (`extern __shared__`, dynamic shared memory) count nothing; the launch adds those.
    /// `Ok(None)` if there is no such function; an error names the array whose size (or the
    /// total up to it) is past 2^64 − 1 bytes (it was counted as 0 bytes), or the total when
    /// it is past `u32::MAX` bytes, more than any SM holds (it was read as `u32::MAX`).
    pub fn static_shared_bytes(&self, name: &str) -> Result<Option<u32>, SharedSizeError> {
        fn place(total: &mut u64, v: &VarDecl) -> Result<(), SharedSizeError> {
            if v.space.is_shared() {
                let overflow = || SharedSizeError::Overflow {
                    array: v.name.clone(),
                    line: v.span.line,
                };
                if v.ty.size_overflows() {
                    return Err(overflow());
                }
                let size = v.ty.size_bytes().unwrap_or(0);
                let align = u64::from(v.ty.align.unwrap_or(v.ty.scalar.bytes()).max(1));
                *total = total
                    .div_ceil(align)
                    .checked_mul(align)
                    .and_then(|t| t.checked_add(size))
                    .ok_or_else(overflow)?;
            }
            Ok(())
        }
        fn locals(stmts: &[Statement], total: &mut u64) -> Result<(), SharedSizeError> {
            for s in stmts {
                match s {
                    Statement::Var(v) => place(total, v)?,
                    Statement::Block(b, _) => locals(b, total)?,
                    _ => {}
                }
            }
            Ok(())
        }
        fn names<'a>(op: &'a Operand, out: &mut Vec<&'a str>) {
            match op {
                Operand::Sym(n) | Operand::SymOffset { name: n, .. } => out.push(n),
                Operand::Addr(a) => {
                    if let AddrBase::Sym(n) = &a.base {
                        out.push(n);
                    }
                }
                Operand::AddrList(v) | Operand::Vector(v) | Operand::List(v) => {
                    v.iter().for_each(|o| names(o, out))
                }
                _ => {}
            }
        }
        let Some(f) = self.function(name) else {
            return Ok(None);
        };
        let body = f.body.as_deref().unwrap_or(&[]);
        let mut total = 0;
        locals(body, &mut total)?;
        let mut used = Vec::new();
        for_each_instruction(body, &mut |i| {
            i.operands.iter().for_each(|o| names(o, &mut used))
        });
        for v in self.globals() {
            if used.contains(&v.name.as_str()) {
                place(&mut total, v)?;
            }
        }
        u32::try_from(total)
            .map(Some)
            .map_err(|_| SharedSizeError::TooLarge { bytes: total })
    }

    /// The `.file` name for a `.loc` file index.
    pub fn file_name(&self, index: u32) -> Option<&str> {
        self.files
            .iter()
            .find(|f| f.index == index)
            .map(|f| f.name.as_str())
    }
}

/// Visits every instruction of a statement list, including nested blocks, in order.
pub fn for_each_instruction<'a>(stmts: &'a [Statement], f: &mut impl FnMut(&'a Instruction)) {
    for s in stmts {
        match s {
            Statement::Inst(i) => f(i),
            Statement::Block(b, _) => for_each_instruction(b, f),
            _ => {}
        }
    }
}

fn clear_param_spans(ps: &mut [Param]) {
    for p in ps {
        p.span = Span::default();
    }
}

fn clear_directive_spans(ds: &mut [FunctionDirective]) {
    for d in ds {
        *d.span_mut() = Span::default();
    }
}

fn clear_statement_spans(stmts: &mut [Statement]) {
    for s in stmts {
        match s {
            Statement::Label { span, .. }
            | Statement::BranchTargets { span, .. }
            | Statement::CallTargets { span, .. } => *span = Span::default(),
            Statement::Block(inner, span) => {
                *span = Span::default();
                clear_statement_spans(inner);
            }
            Statement::Inst(i) => i.span = Span::default(),
            Statement::Reg(r) => r.span = Span::default(),
            Statement::Var(v) => v.span = Span::default(),
            Statement::Loc(l) => l.span = Span::default(),
            Statement::Pragma(p) => p.span = Span::default(),
            Statement::CallPrototype(c) => {
                c.span = Span::default();
                clear_param_spans(&mut c.ret_params);
                clear_param_spans(&mut c.params);
                clear_directive_spans(&mut c.directives);
            }
        }
    }
}

impl Module {
    /// Sets every span to `Span::default()`, so modules parsed from differently laid out
    /// text compare equal (used by the print/parse round-trip tests).
    pub fn clear_spans(&mut self) {
        if let Some(v) = &mut self.version {
            v.span = Span::default();
        }
        if let Some(t) = &mut self.target {
            t.span = Span::default();
        }
        if let Some(a) = &mut self.address_size {
            a.span = Span::default();
        }
        for f in &mut self.files {
            f.span = Span::default();
        }
        for item in &mut self.items {
            match item {
                ModuleItem::Var(v) => v.span = Span::default(),
                ModuleItem::Pragma(p) => p.span = Span::default(),
                ModuleItem::Alias { span, .. } => *span = Span::default(),
                ModuleItem::Section(s) => {
                    s.span = Span::default();
                    for e in &mut s.entries {
                        match e {
                            SectionEntry::Label { span, .. }
                            | SectionEntry::Data { span, .. }
                            | SectionEntry::Ints { span, .. } => *span = Span::default(),
                        }
                    }
                }
                ModuleItem::Function(f) => {
                    f.span = Span::default();
                    clear_param_spans(&mut f.ret_params);
                    clear_param_spans(&mut f.params);
                    clear_directive_spans(&mut f.directives);
                    if let Some(b) = &mut f.body {
                        clear_statement_spans(b);
                    }
                }
            }
        }
    }
}
