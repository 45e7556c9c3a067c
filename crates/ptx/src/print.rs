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
        for _ in 0..2 {
            if self.space < 2 {
                self.emit(ModKind::Space, f)?;
            }
        }
        self.emit(ModKind::Sem, f)?;
        self.emit(ModKind::Scope, f)?;
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
