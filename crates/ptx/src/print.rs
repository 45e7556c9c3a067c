//! The PTX printer: `Display` for the AST.
//!
//! Invariant: for every module `m` produced by the parser, parsing `m.to_string()` yields
//! `m` again up to spans. Modifiers are printed in their recorded source order
//! ([`ModOrder`]); modifiers beyond the recorded order, or of hand-built ops, follow in a
//! canonical order.

use crate::ast::*;
use std::fmt::{self, Display, Formatter};

/// Pulls modifiers out of each field in order, so they can be interleaved by [`ModOrder`].
struct ModCursor<'a> {
    m: &'a Modifiers,
    space: usize,
    ty: usize,
    cmp: bool,
    bool_op: bool,
    reduce: bool,
    rounding: bool,
    vector: bool,
    scope: bool,
    sem: bool,
    flags: u32,
    other: usize,
}

impl<'a> ModCursor<'a> {
    fn new(m: &'a Modifiers) -> Self {
        ModCursor {
            m,
            space: 0,
            ty: 0,
            cmp: false,
            bool_op: false,
            reduce: false,
            rounding: false,
            vector: false,
            scope: false,
            sem: false,
            flags: 0,
            other: 0,
        }
    }

    /// Writes the next modifier of `kind`, if any is left.
    fn emit(&mut self, kind: ModKind, f: &mut Formatter<'_>) -> fmt::Result {
        let m = self.m;
        match kind {
            ModKind::Space => {
                let s = match self.space {
                    0 => m.space,
                    1 => m.space2,
                    _ => None,
                };
                self.space += 1;
                if let Some(s) = s {
                    write!(f, ".{}", s.as_str())?;
                } else if self.space == 1 {
                    // `space` empty but `space2` set: print it so nothing is lost.
                    if let Some(s) = m.space2 {
                        self.space = 2;
                        write!(f, ".{}", s.as_str())?;
                    }
                }
            }
            ModKind::Type => {
                if let Some(t) = m.types.get(self.ty) {
                    write!(f, ".{t}")?;
                }
                self.ty += 1;
            }
            ModKind::Cmp => emit_once(&mut self.cmp, m.cmp, f)?,
            ModKind::BoolOp => emit_once(&mut self.bool_op, m.bool_op, f)?,
            ModKind::ReduceOp => emit_once(&mut self.reduce, m.reduce, f)?,
            ModKind::Rounding => emit_once(&mut self.rounding, m.rounding, f)?,
            ModKind::Scope => emit_once(&mut self.scope, m.scope, f)?,
            ModKind::Sem => emit_once(&mut self.sem, m.sem, f)?,
            ModKind::Vector => {
                if !self.vector {
                    self.vector = true;
                    if let Some(v) = m.vector {
                        write!(f, ".v{v}")?;
                    }
                }
            }
            ModKind::Flag => {
                let left = m.flags.0 & !self.flags;
                if left != 0 {
                    let bit = left.trailing_zeros();
                    self.flags |= 1 << bit;
                    if let Some(fl) = Flag::ALL.get(bit as usize) {
                        write!(f, ".{fl}")?;
                    }
                }
            }
            ModKind::Other => {
                if let Some(o) = m.other.get(self.other) {
                    write!(f, ".{o}")?;
                }
                self.other += 1;
            }
        }
        Ok(())
    }

    /// Writes whatever the recorded order did not cover, in a canonical order.
    fn rest(&mut self, f: &mut Formatter<'_>) -> fmt::Result {
        // PTX's usual order: `ld.relaxed.gpu.global...`, `atom.acq_rel.gpu.shared.add...`.
        self.emit(ModKind::Sem, f)?;
        self.emit(ModKind::Scope, f)?;
        for _ in 0..2 {
            if self.space < 2 {
                self.emit(ModKind::Space, f)?;
            }
        }
        for k in [
            ModKind::Cmp,
            ModKind::BoolOp,
            ModKind::ReduceOp,
            ModKind::Rounding,
        ] {
            self.emit(k, f)?;
        }
        while self.m.flags.0 & !self.flags != 0 {
            self.emit(ModKind::Flag, f)?;
        }
        while self.other < self.m.other.len() {
            self.emit(ModKind::Other, f)?;
        }
        self.emit(ModKind::Vector, f)?;
        while self.ty < self.m.types.len() {
            self.emit(ModKind::Type, f)?;
        }
        Ok(())
    }
}

fn emit_once<T: Display>(done: &mut bool, v: Option<T>, f: &mut Formatter<'_>) -> fmt::Result {
    if !*done {
        *done = true;
        if let Some(v) = v {
            write!(f, ".{v}")?;
        }
    }
    Ok(())
}

impl Display for Modifiers {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let mut c = ModCursor::new(self);
        for k in self.order.iter() {
            c.emit(k, f)?;
        }
        c.rest(f)
    }
}

impl Display for Op {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.opcode, self.mods)
    }
}

impl Display for Imm {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Imm::Int(v) => write!(f, "{v}"),
            Imm::UInt(v) => write!(f, "{v}U"),
            Imm::F32(b) => write!(f, "0f{b:08X}"),
            Imm::F64(b) => write!(f, "0d{b:016X}"),
        }
    }
}

impl Display for SpecialReg {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        use SpecialReg::*;
        let dim = |f: &mut Formatter<'_>, n: &str, d: &Dim| write!(f, "%{n}.{}", d.as_str());
        let s = match self {
            Tid(d) => return dim(f, "tid", d),
            Ntid(d) => return dim(f, "ntid", d),
            Ctaid(d) => return dim(f, "ctaid", d),
            Nctaid(d) => return dim(f, "nctaid", d),
            Clusterid(d) => return dim(f, "clusterid", d),
            Nclusterid(d) => return dim(f, "nclusterid", d),
            ClusterCtaid(d) => return dim(f, "cluster_ctaid", d),
            ClusterNctaid(d) => return dim(f, "cluster_nctaid", d),
            Envreg(n) => return write!(f, "%envreg{n}"),
            Pm(n) => return write!(f, "%pm{n}"),
            Pm64(n) => return write!(f, "%pm{n}_64"),
            Other(s) => return f.write_str(s),
            ClusterCtarank => "%cluster_ctarank",
            ClusterNctarank => "%cluster_nctarank",
            IsExplicitCluster => "%is_explicit_cluster",
            Laneid => "%laneid",
            Warpid => "%warpid",
            Nwarpid => "%nwarpid",
            Smid => "%smid",
            Nsmid => "%nsmid",
            Gridid => "%gridid",
            LanemaskEq => "%lanemask_eq",
            LanemaskLe => "%lanemask_le",
            LanemaskLt => "%lanemask_lt",
            LanemaskGe => "%lanemask_ge",
            LanemaskGt => "%lanemask_gt",
            Clock => "%clock",
            ClockHi => "%clock_hi",
            Clock64 => "%clock64",
            Globaltimer => "%globaltimer",
            GlobaltimerLo => "%globaltimer_lo",
            GlobaltimerHi => "%globaltimer_hi",
            DynamicSmemSize => "%dynamic_smem_size",
            TotalSmemSize => "%total_smem_size",
            AggrSmemSize => "%aggr_smem_size",
            WarpSz => "WARP_SZ",
        };
        f.write_str(s)
    }
}

/// `+N` with the sign inside (`+-4`), as nvcc writes address offsets.
fn write_offset(f: &mut Formatter<'_>, off: i64) -> fmt::Result {
    if off != 0 {
        write!(f, "+{off}")?;
    }
    Ok(())
}

fn write_list<T: Display>(f: &mut Formatter<'_>, items: &[T]) -> fmt::Result {
    for (k, x) in items.iter().enumerate() {
        if k > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{x}")?;
    }
    Ok(())
}

impl Display for Address {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str("[")?;
        match &self.base {
            AddrBase::Reg(s) | AddrBase::Sym(s) => f.write_str(s)?,
            AddrBase::Imm(v) => write!(f, "{v}")?,
        }
        write_offset(f, self.offset)?;
        f.write_str("]")
    }
}

impl Display for Operand {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Operand::Reg(s) | Operand::Sym(s) => f.write_str(s),
            Operand::RegField { reg, field } => write!(f, "{reg}.{field}"),
            Operand::Imm(v) => write!(f, "{v}"),
            Operand::Special(s) => write!(f, "{s}"),
            Operand::Addr(a) => write!(f, "{a}"),
            Operand::AddrList(l) => {
                f.write_str("[")?;
                write_list(f, l)?;
                f.write_str("]")
            }
            Operand::Vector(l) => {
                f.write_str("{")?;
                write_list(f, l)?;
                f.write_str("}")
            }
            Operand::List(l) => {
                f.write_str("(")?;
                write_list(f, l)?;
                f.write_str(")")
            }
            Operand::SymOffset { name, offset } => write!(f, "{name}+{offset}"),
            Operand::Sink => f.write_str("_"),
            Operand::NotPred(p) => write!(f, "!{p}"),
            Operand::Pair(a, b) => write!(f, "{a}|{b}"),
        }
    }
}

impl Display for Instruction {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        if let Some(g) = &self.guard {
            write!(f, "@{}{} ", if g.negated { "!" } else { "" }, g.pred)?;
        }
        write!(f, "{}", self.op)?;
        if !self.operands.is_empty() {
            f.write_str(" ")?;
            write_list(f, &self.operands)?;
        }
        f.write_str(";")
    }
}

impl Display for Linkage {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Linkage::Visible => ".visible",
            Linkage::Extern => ".extern",
            Linkage::Weak => ".weak",
            Linkage::Common => ".common",
        })
    }
}

/// `.align N .vN .type [.ptr .space .align N]` (no leading state space, no name).
fn write_type(f: &mut Formatter<'_>, ty: &VarType) -> fmt::Result {
    if let Some(a) = ty.align {
        write!(f, " .align {a}")?;
    }
    if let Some(v) = ty.vector {
        write!(f, " .v{v}")?;
    }
    write!(f, " .{}", ty.scalar)?;
    if let Some(p) = &ty.ptr {
        f.write_str(" .ptr")?;
        if let Some(s) = p.space {
            write!(f, " .{}", s.as_str())?;
        }
        if let Some(a) = p.align {
            write!(f, " .align {a}")?;
        }
    }
    Ok(())
}

fn write_dims(f: &mut Formatter<'_>, dims: &[Option<u64>]) -> fmt::Result {
    for d in dims {
        match d {
            Some(n) => write!(f, "[{n}]")?,
            None => f.write_str("[]")?,
        }
    }
    Ok(())
}

impl Display for Param {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, ".{}", self.space.as_str())?;
        write_type(f, &self.ty)?;
        write!(f, " {}", self.name)?;
        write_dims(f, &self.ty.array)
    }
}

impl Display for ConstExpr {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            ConstExpr::Imm(v) => write!(f, "{v}"),
            ConstExpr::Sym { name, offset } => {
                f.write_str(name)?;
                write_offset(f, *offset)
            }
            ConstExpr::Generic { name, offset } => {
                write!(f, "generic({name})")?;
                write_offset(f, *offset)
            }
            ConstExpr::Diff { a, b, offset } => {
                write!(f, "{a}-{b}")?;
                write_offset(f, *offset)
            }
            ConstExpr::Mask { mask, expr } => write!(f, "{mask:#X}({expr})"),
        }
    }
}

impl Display for Initializer {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Initializer::Expr(e) => write!(f, "{e}"),
            Initializer::List(l) => {
                f.write_str("{")?;
                write_list(f, l)?;
                f.write_str("}")
            }
        }
    }
}

impl Display for VarDecl {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        if let Some(l) = self.linkage {
            write!(f, "{l} ")?;
        }
        for a in &self.attributes {
            write!(f, ".attribute({a}) ")?;
        }
        write!(f, ".{}", self.space.as_str())?;
        write_type(f, &self.ty)?;
        write!(f, " {}", self.name)?;
        write_dims(f, &self.ty.array)?;
        if let Some(init) = &self.init {
            write!(f, " = {init}")?;
        }
        f.write_str(";")
    }
}

impl Display for RegDecl {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(".reg")?;
        if let Some(a) = self.align {
            write!(f, " .align {a}")?;
        }
        if let Some(v) = self.vector {
            write!(f, " .v{v}")?;
        }
        write!(f, " .{} {}", self.ty, self.name)?;
        if let Some(n) = self.range {
            write!(f, "<{n}>")?;
        }
        f.write_str(";")
    }
}

impl Display for Loc {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, ".loc {} {} {}", self.file, self.line, self.col)?;
        if let Some((name, off)) = &self.function_name {
            write!(f, ", function_name {name}")?;
            write_offset(f, *off)?;
        }
        if let Some((fi, l, c)) = self.inlined_at {
            write!(f, ", inlined_at {fi} {l} {c}")?;
        }
        Ok(())
    }
}

fn write_strings(f: &mut Formatter<'_>, values: &[String]) -> fmt::Result {
    for (k, v) in values.iter().enumerate() {
        if k > 0 {
            f.write_str(", ")?;
        }
        write!(f, "\"{v}\"")?;
    }
    Ok(())
}

impl Display for Pragma {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(".pragma ")?;
        write_strings(f, &self.values)?;
        f.write_str(";")
    }
}

impl Display for FunctionDirective {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let list = |f: &mut Formatter<'_>, name: &str, v: &[u32]| {
            write!(f, ".{name}")?;
            for (k, n) in v.iter().enumerate() {
                write!(f, "{}{n}", if k == 0 { " " } else { ", " })?;
            }
            Ok(())
        };
        match self {
            FunctionDirective::MaxNtid(v, _) => list(f, "maxntid", v),
            FunctionDirective::ReqNtid(v, _) => list(f, "reqntid", v),
            FunctionDirective::ReqNctaPerCluster(v, _) => list(f, "reqnctapercluster", v),
            FunctionDirective::MinNctaPerSm(n, _) => write!(f, ".minnctapersm {n}"),
            FunctionDirective::MaxNctaPerSm(n, _) => write!(f, ".maxnctapersm {n}"),
            FunctionDirective::MaxNreg(n, _) => write!(f, ".maxnreg {n}"),
            FunctionDirective::MaxClusterRank(n, _) => write!(f, ".maxclusterrank {n}"),
            FunctionDirective::ExplicitCluster(_) => f.write_str(".explicitcluster"),
            FunctionDirective::NoReturn(_) => f.write_str(".noreturn"),
            FunctionDirective::Pragma(p) => write!(f, "{p}"),
            FunctionDirective::Other { name, args, .. } => list(f, name, args),
        }
    }
}

fn write_params(f: &mut Formatter<'_>, params: &[Param], multiline: bool) -> fmt::Result {
    f.write_str("(")?;
    for (k, p) in params.iter().enumerate() {
        if k > 0 {
            f.write_str(",")?;
        }
        if multiline {
            write!(f, "\n\t{p}")?;
        } else {
            write!(f, "{}{p}", if k > 0 { " " } else { "" })?;
        }
    }
    if multiline && !params.is_empty() {
        f.write_str("\n")?;
    }
    f.write_str(")")
}

fn indent(f: &mut Formatter<'_>, depth: usize) -> fmt::Result {
    for _ in 0..depth {
        f.write_str("\t")?;
    }
    Ok(())
}

fn write_statements(f: &mut Formatter<'_>, stmts: &[Statement], depth: usize) -> fmt::Result {
    for s in stmts {
        match s {
            // Labels stay in column 0 as nvcc prints them.
            Statement::Label { name, .. } => writeln!(f, "{name}:")?,
            Statement::Block(inner, _) => {
                indent(f, depth)?;
                f.write_str("{\n")?;
                write_statements(f, inner, depth + 1)?;
                indent(f, depth)?;
                f.write_str("}\n")?;
            }
            _ => {
                indent(f, depth)?;
                writeln!(f, "{s}")?;
            }
        }
    }
    Ok(())
}

impl Display for Statement {
    /// One statement; blocks print their contents indented by one tab.
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Statement::Label { name, .. } => write!(f, "{name}:"),
            Statement::Inst(i) => write!(f, "{i}"),
            Statement::Reg(r) => write!(f, "{r}"),
            Statement::Var(v) => write!(f, "{v}"),
            Statement::Loc(l) => write!(f, "{l}"),
            Statement::Pragma(p) => write!(f, "{p}"),
            Statement::Block(inner, _) => {
                f.write_str("{\n")?;
                write_statements(f, inner, 1)?;
                f.write_str("}")
            }
            Statement::BranchTargets { label, targets, .. } => {
                write!(f, "{label}: .branchtargets ")?;
                write_list(f, targets)?;
                f.write_str(";")
            }
            Statement::CallTargets { label, targets, .. } => {
                write!(f, "{label}: .calltargets ")?;
                write_list(f, targets)?;
                f.write_str(";")
            }
            Statement::CallPrototype(p) => {
                write!(f, "{}: .callprototype ", p.label)?;
                if !p.ret_params.is_empty() {
                    write_params(f, &p.ret_params, false)?;
                    f.write_str(" ")?;
                }
                f.write_str("_ ")?;
                write_params(f, &p.params, false)?;
                for d in &p.directives {
                    write!(f, " {d}")?;
                }
                f.write_str(";")
            }
        }
    }
}

impl Display for Function {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        if let Some(l) = self.linkage {
            write!(f, "{l} ")?;
        }
        f.write_str(match self.kind {
            FunctionKind::Entry => ".entry ",
            FunctionKind::Func => ".func ",
        })?;
        if !self.ret_params.is_empty() {
            write_params(f, &self.ret_params, false)?;
            f.write_str(" ")?;
        }
        f.write_str(&self.name)?;
        write_params(f, &self.params, true)?;
        for d in &self.directives {
            write!(f, "\n{d}")?;
        }
        match &self.body {
            None => f.write_str(";"),
            Some(body) => {
                f.write_str("\n{\n")?;
                write_statements(f, body, 1)?;
                f.write_str("}")
            }
        }
    }
}

impl Display for Section {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        writeln!(f, ".section {}", self.name)?;
        f.write_str("{\n")?;
        for e in &self.entries {
            match e {
                SectionEntry::Label { name, .. } => writeln!(f, "{name}:")?,
                SectionEntry::Data { ty, values, .. } => {
                    write!(f, ".{ty} ")?;
                    write_list(f, values)?;
                    f.write_str("\n")?;
                }
                SectionEntry::Ints { ty, values, .. } => {
                    for line in values.chunks(16) {
                        write!(f, ".{ty} ")?;
                        write_list(f, line)?;
                        f.write_str("\n")?;
                    }
                }
            }
        }
        f.write_str("}")
    }
}

impl Display for ModuleItem {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            ModuleItem::Var(v) => write!(f, "{v}"),
            ModuleItem::Function(x) => write!(f, "{x}"),
            ModuleItem::Section(s) => write!(f, "{s}"),
            ModuleItem::Pragma(p) => write!(f, "{p}"),
            ModuleItem::Alias { alias, aliasee, .. } => write!(f, ".alias {alias}, {aliasee};"),
        }
    }
}

impl Display for Module {
    /// The whole module as PTX text.
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        if let Some(v) = self.version {
            writeln!(f, ".version {}.{}", v.major, v.minor)?;
        }
        if let Some(t) = &self.target {
            write!(f, ".target {}", t.arch)?;
            for fl in &t.flags {
                write!(f, ", {fl}")?;
            }
            f.write_str("\n")?;
        }
        if let Some(a) = self.address_size {
            writeln!(f, ".address_size {}", a.bits)?;
        }
        for file in &self.files {
            write!(f, ".file {} \"{}\"", file.index, file.name)?;
            if let Some(t) = file.timestamp {
                write!(f, ", {t}")?;
                if let Some(s) = file.size {
                    write!(f, ", {s}")?;
                }
            }
            f.write_str("\n")?;
        }
        for item in &self.items {
            writeln!(f, "\n{item}")?;
        }
        Ok(())
    }
}
