//! The PTX parser: nom parsers over `&str`, one pass, no backtracking over statements.
//!
//! Invariants:
//! - every parser takes the remaining input (always a suffix of the whole source) and
//!   returns the rest; byte offsets are `source.len() - rest.len()`;
//! - statements are chosen by their first byte (`.` directive, `@` guard, `{` scope,
//!   identifier = label or opcode), so each byte is examined a bounded number of times and
//!   parsing is linear in the input;
//! - recursion is bounded: scopes and initializer lists by [`MAX_NESTING`], operands by a
//!   fixed grammar depth (vectors inside brackets, nothing deeper), so hostile input cannot
//!   overflow the stack;
//! - memory is bounded: a module holds at most [`MAX_STATEMENTS`] statements;
//! - all errors are `nom::Err::Failure` carrying the position of the offending token; no
//!   function here panics on any input.

use crate::ast::*;
use crate::error::ParseError;
use nom::bytes::complete::take_while1;
use nom::character::complete::char;
use nom::error::ErrorKind;
use nom::IResult;
use std::borrow::Cow;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::OnceLock;

/// Deepest accepted nesting of `{ }` scopes and initializer lists.
pub const MAX_NESTING: u32 = 64;

/// Most statements (instructions, labels, declarations) in the function bodies of one
/// module. The largest kernel nvcc gave us has about 154,000; 2^21 statements take about
/// 500 MB as a syntax tree, and the lowering's budget (`ir::DEFAULT_INLINE_BUDGET`) refuses
/// far fewer in one kernel.
pub const MAX_STATEMENTS: usize = 1 << 21;

/// Internal error: where it happened and what was wrong.
#[derive(Debug)]
pub(crate) struct PErr<'a> {
    at: &'a str,
    msg: Cow<'static, str>,
    expected: Option<&'static str>,
    /// Span start (defaults to `at`), for errors about an earlier construct.
    anchor: Option<&'a str>,
    /// A nom combinator's error: the message is built only if it reaches the user, since
    /// recoverable errors are created (and dropped) on hot paths.
    kind: Option<ErrorKind>,
}

impl<'a> nom::error::ParseError<&'a str> for PErr<'a> {
    fn from_error_kind(at: &'a str, kind: ErrorKind) -> Self {
        PErr {
            at,
            msg: Cow::Borrowed(""),
            expected: None,
            anchor: None,
            kind: Some(kind),
        }
    }
    fn append(_: &'a str, _: ErrorKind, other: Self) -> Self {
        other
    }
}

type R<'a, T> = IResult<&'a str, T, PErr<'a>>;
type Step<'a> = Result<&'a str, nom::Err<PErr<'a>>>;

fn ferr<'a>(at: &'a str, msg: impl Into<Cow<'static, str>>) -> nom::Err<PErr<'a>> {
    nom::Err::Failure(PErr {
        at,
        msg: msg.into(),
        expected: None,
        anchor: None,
        kind: None,
    })
}

fn eerr<'a>(at: &'a str, what: &'static str) -> nom::Err<PErr<'a>> {
    nom::Err::Failure(PErr {
        at,
        msg: Cow::Borrowed(""),
        expected: Some(what),
        anchor: None,
        kind: None,
    })
}

fn fail<'a, T>(at: &'a str, msg: impl Into<Cow<'static, str>>) -> R<'a, T> {
    Err(ferr(at, msg))
}

fn expected<'a, T>(at: &'a str, what: &'static str) -> R<'a, T> {
    Err(eerr(at, what))
}

/// Turns a recoverable nom error into a failure with an "expected" message.
fn need<'a, T>(r: R<'a, T>, at: &'a str, what: &'static str) -> R<'a, T> {
    match r {
        Err(nom::Err::Error(_)) => expected(at, what),
        other => other,
    }
}

fn is_ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_' || c == b'$' || c == b'%'
}

fn is_ident_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'$'
}

fn is_word_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

fn first(i: &str) -> Option<u8> {
    i.as_bytes().first().copied()
}

/// Skips whitespace and comments.
#[inline(always)]
fn ws(i: &str) -> Step<'_> {
    // Most calls find a token right away; only that check is inlined.
    if !matches!(
        first(i),
        Some(b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c | b'/')
    ) {
        return Ok(i);
    }
    ws_skip(i)
}

/// Space, `\t`, `\n`, vertical tab, form feed, `\r`.
fn is_space(c: u8) -> bool {
    c == b' ' || c.wrapping_sub(b'\t') <= b'\r' - b'\t'
}

#[inline(never)]
fn ws_skip(mut i: &str) -> Step<'_> {
    loop {
        let b = i.as_bytes();
        let k = b.iter().position(|&c| !is_space(c)).unwrap_or(b.len());
        i = &i[k..];
        if i.starts_with("//") {
            i = match i.find('\n') {
                Some(p) => &i[p..],
                None => "",
            };
        } else if i.starts_with("/*") {
            match i[2..].find("*/") {
                Some(p) => i = &i[p + 4..],
                None => return Err(ferr(i, "unterminated block comment")),
            }
        } else {
            return Ok(i);
        }
    }
}

/// Skips spaces, tabs and comments but stops at a newline (debug-section lines).
fn ws_line(mut i: &str) -> Step<'_> {
    loop {
        let k = i
            .as_bytes()
            .iter()
            .position(|c| !matches!(c, b' ' | b'\t' | b'\r'))
            .unwrap_or(i.len());
        i = &i[k..];
        if i.starts_with("//") {
            i = match i.find('\n') {
                Some(p) => &i[p..],
                None => "",
            };
        } else if i.starts_with("/*") {
            match i[2..].find("*/") {
                Some(p) if !i[2..2 + p].contains('\n') => i = &i[p + 4..],
                // A comment spanning lines ends the line like a newline would.
                Some(_) => return Ok(i),
                None => return Err(ferr(i, "unterminated block comment")),
            }
        } else {
            return Ok(i);
        }
    }
}

/// An identifier: `[A-Za-z_$%][A-Za-z0-9_$]*`.
fn ident(i: &str) -> R<'_, &str> {
    match first(i) {
        Some(c) if is_ident_start(c) => {
            let n = 1 + i.as_bytes()[1..]
                .iter()
                .position(|&c| !is_ident_char(c))
                .unwrap_or(i.len() - 1);
            Ok((&i[n..], &i[..n]))
        }
        _ => Err(nom::Err::Error(PErr {
            at: i,
            msg: Cow::Borrowed(""),
            expected: Some("an identifier"),
            anchor: None,
            kind: None,
        })),
    }
}

/// A section/directive-style name: `.debug_info` or an identifier.
fn sym_name(i: &str) -> R<'_, &str> {
    if first(i) == Some(b'.') {
        let (r, _) = take_while1(|c: char| c.is_ascii() && is_ident_char(c as u8))(&i[1..])?;
        let n = i.len() - r.len();
        Ok((r, &i[..n]))
    } else {
        ident(i)
    }
}

/// A dotted word without its dot: `shared::cta`, `L2::128B`, `m16n8k16`, `2d`.
fn word(i: &str) -> R<'_, &str> {
    let b = i.as_bytes();
    let mut n = b.iter().position(|&c| !is_word_char(c)).unwrap_or(b.len());
    if n == 0 {
        return Err(nom::Err::Error(PErr {
            at: i,
            msg: Cow::Borrowed(""),
            expected: Some("a modifier"),
            anchor: None,
            kind: None,
        }));
    }
    while b.len() > n + 2 && b[n] == b':' && b[n + 1] == b':' && is_word_char(b[n + 2]) {
        n += 2;
        n += b[n..]
            .iter()
            .position(|&c| !is_word_char(c))
            .unwrap_or(b.len() - n);
    }
    Ok((&i[n..], &i[..n]))
}

/// `.word` -> `word`.
fn dot_word(i: &str) -> R<'_, &str> {
    let (r, _) = char('.')(i)?;
    word(r)
}

fn hex_val(s: &str) -> Option<u64> {
    if s.is_empty() || s.len() > 16 {
        return None;
    }
    u64::from_str_radix(s, 16).ok()
}

/// An integer or floating literal in any PTX form, optionally negated, optional `U` suffix.
fn number(i: &str) -> R<'_, Imm> {
    let start = i;
    let (i, neg) = match first(i) {
        Some(b'-') => (&i[1..], true),
        _ => (i, false),
    };
    let b = i.as_bytes();
    if !b.first().is_some_and(u8::is_ascii_digit) {
        return Err(nom::Err::Error(PErr {
            at: start,
            msg: Cow::Borrowed(""),
            expected: Some("a number"),
            anchor: None,
            kind: None,
        }));
    }
    let prefix = if b.len() >= 2 && b[0] == b'0' {
        b[1].to_ascii_lowercase()
    } else {
        0
    };
    let digits_of =
        |s: &str, ok: fn(&u8) -> bool| s.as_bytes().iter().take_while(|c| ok(c)).count();
    let (rest, imm) = match prefix {
        b'f' | b'd' => {
            let n = digits_of(&i[2..], u8::is_ascii_hexdigit);
            let want = if prefix == b'f' { 8 } else { 16 };
            if n != want {
                return fail(
                    start,
                    format!(
                        "a `0{}` float literal needs {want} hex digits",
                        prefix as char
                    ),
                );
            }
            let v = hex_val(&i[2..2 + n]).unwrap_or(0);
            let imm = if prefix == b'f' {
                let bits = v as u32;
                Imm::F32(if neg { bits ^ 0x8000_0000 } else { bits })
            } else {
                Imm::F64(if neg { v ^ (1 << 63) } else { v })
            };
            (&i[2 + n..], imm)
        }
        b'x' | b'b' => {
            let body = &i[2..];
            let (n, radix) = if prefix == b'x' {
                (digits_of(body, u8::is_ascii_hexdigit), 16)
            } else {
                (digits_of(body, |c| *c == b'0' || *c == b'1'), 2)
            };
            let Ok(v) = u64::from_str_radix(&body[..n], radix) else {
                return fail(start, "malformed or too large integer literal");
            };
            int_suffix(start, &body[n..], v, neg)?
        }
        _ => {
            let n = digits_of(i, u8::is_ascii_digit);
            let after = &i[n..];
            let is_float = matches!(first(after), Some(b'.'))
                && after.as_bytes().get(1).is_some_and(u8::is_ascii_digit)
                || matches!(first(after), Some(b'e' | b'E'));
            if is_float {
                let mut m = n;
                let bb = i.as_bytes();
                if bb.get(m) == Some(&b'.') {
                    m += 1;
                    m += digits_of(&i[m..], u8::is_ascii_digit);
                }
                if matches!(bb.get(m), Some(b'e' | b'E')) {
                    m += 1;
                    if matches!(bb.get(m), Some(b'+' | b'-')) {
                        m += 1;
                    }
                    let e = digits_of(&i[m..], u8::is_ascii_digit);
                    if e == 0 {
                        return fail(start, "malformed floating-point literal");
                    }
                    m += e;
                }
                let Ok(v) = i[..m].parse::<f64>() else {
                    return fail(start, "malformed floating-point literal");
                };
                let v = if neg { -v } else { v };
                (&i[m..], Imm::F64(v.to_bits()))
            } else {
                let digits = &i[..n];
                let v = if n > 1 && digits.starts_with('0') {
                    u64::from_str_radix(&digits[1..], 8).ok()
                } else {
                    // Hot path (`.loc`, section bytes, offsets): no `FromStr` overhead.
                    digits.bytes().try_fold(0u64, |acc, d| {
                        acc.checked_mul(10)?.checked_add(u64::from(d - b'0'))
                    })
                };
                let Some(v) = v else {
                    return fail(start, "malformed or too large integer literal");
                };
                int_suffix(start, after, v, neg)?
            }
        }
    };
    if first(rest).is_some_and(is_ident_char) {
        return fail(start, "malformed number");
    }
    Ok((rest, imm))
}

fn int_suffix<'a>(start: &'a str, rest: &'a str, v: u64, neg: bool) -> R<'a, Imm> {
    if first(rest) == Some(b'U') {
        let v = if neg { v.wrapping_neg() } else { v };
        return Ok((&rest[1..], Imm::UInt(v)));
    }
    if neg {
        if v > 1 << 63 {
            return fail(start, "integer literal too small for 64 bits");
        }
        Ok((rest, Imm::Int((v as i64).wrapping_neg())))
    } else if v > i64::MAX as u64 {
        Ok((rest, Imm::UInt(v)))
    } else {
        Ok((rest, Imm::Int(v as i64)))
    }
}

/// A non-negative integer that fits `u32`.
fn uint32(i: &str) -> R<'_, u32> {
    match number(i) {
        Ok((r, Imm::Int(v))) if (0..=i64::from(u32::MAX)).contains(&v) => Ok((r, v as u32)),
        Ok(_) => fail(i, "expected an unsigned 32-bit integer"),
        Err(nom::Err::Error(_)) => expected(i, "an unsigned integer"),
        Err(e) => Err(e),
    }
}

fn uint64(i: &str) -> R<'_, u64> {
    match number(i) {
        Ok((r, Imm::Int(v))) if v >= 0 => Ok((r, v as u64)),
        Ok((r, Imm::UInt(v))) => Ok((r, v)),
        Ok(_) => fail(i, "expected an unsigned integer"),
        Err(nom::Err::Error(_)) => expected(i, "an unsigned integer"),
        Err(e) => Err(e),
    }
}

fn int64(i: &str) -> R<'_, i64> {
    match number(i) {
        Ok((r, Imm::Int(v))) => Ok((r, v)),
        Ok(_) => fail(i, "expected a 64-bit signed integer"),
        Err(nom::Err::Error(_)) => expected(i, "an integer"),
        Err(e) => Err(e),
    }
}

/// `"..."` with backslash escapes kept verbatim; returns the content.
fn string_lit(i: &str) -> R<'_, &str> {
    if first(i) != Some(b'"') {
        return expected(i, "a string literal");
    }
    let b = i.as_bytes();
    let mut k = 1;
    while k < b.len() {
        match b[k] {
            b'\\' => k += 2,
            b'"' => return Ok((&i[k + 1..], &i[1..k])),
            b'\n' => break,
            _ => k += 1,
        }
    }
    fail(i, "unterminated string literal")
}

fn expect_char<'a>(i: &'a str, c: u8, what: &'static str) -> Step<'a> {
    if first(i) == Some(c) {
        Ok(&i[1..])
    } else {
        Err(eerr(i, what))
    }
}

/// A comma-separated list of unsigned integers (at least one).
fn uint_list(i: &str) -> R<'_, Vec<u32>> {
    let (mut i, v) = uint32(i)?;
    let mut out = vec![v];
    loop {
        let j = ws(i)?;
        if first(j) != Some(b',') {
            return Ok((i, out));
        }
        let (r, v) = uint32(ws(&j[1..])?)?;
        out.push(v);
        i = r;
    }
}

/// What a modifier spelling can mean; the opcode decides between alternatives.
#[derive(Clone, Copy, Default)]
struct ModClass {
    space: Option<StateSpace>,
    ty: Option<ScalarType>,
    cmp: Option<CmpOp>,
    bool_op: Option<BoolOp>,
    reduce: Option<ReduceOp>,
    rounding: Option<Rounding>,
    scope: Option<Scope>,
    sem: Option<Semantics>,
    flag: Option<Flag>,
    vector: Option<u8>,
}

/// FxHash-style hasher for the keyword tables: keys are short, trusted and fixed, so
/// SipHash's DoS resistance buys nothing and costs a noticeable share of parse time.
#[derive(Default, Clone, Copy)]
struct WordHasher(u64);

impl Hasher for WordHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut w = [0u8; 8];
            w[..chunk.len()].copy_from_slice(chunk);
            self.0 = (self.0.rotate_left(5) ^ u64::from_le_bytes(w))
                .wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
        }
    }
    fn write_u8(&mut self, b: u8) {
        self.0 = (self.0.rotate_left(5) ^ u64::from(b)).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

type WordMap<'k, V> = HashMap<&'k str, V, BuildHasherDefault<WordHasher>>;

fn mod_table() -> &'static WordMap<'static, ModClass> {
    static T: OnceLock<WordMap<'static, ModClass>> = OnceLock::new();
    T.get_or_init(|| {
        let mut t: WordMap<'static, ModClass> = WordMap::default();
        for s in [
            StateSpace::Reg,
            StateSpace::Sreg,
            StateSpace::Const,
            StateSpace::Global,
            StateSpace::Local,
            StateSpace::Param,
            StateSpace::ParamEntry,
            StateSpace::ParamFunc,
            StateSpace::Shared,
            StateSpace::SharedCta,
            StateSpace::SharedCluster,
            StateSpace::Tex,
        ] {
            t.entry(s.as_str()).or_default().space = Some(s);
        }
        for &x in ScalarType::ALL {
            t.entry(x.as_str()).or_default().ty = Some(x);
        }
        for &x in CmpOp::ALL {
            t.entry(x.as_str()).or_default().cmp = Some(x);
        }
        for &x in BoolOp::ALL {
            t.entry(x.as_str()).or_default().bool_op = Some(x);
        }
        for &x in ReduceOp::ALL {
            t.entry(x.as_str()).or_default().reduce = Some(x);
        }
        for &x in Rounding::ALL {
            t.entry(x.as_str()).or_default().rounding = Some(x);
        }
        for &x in Scope::ALL {
            t.entry(x.as_str()).or_default().scope = Some(x);
        }
        for &x in Semantics::ALL {
            t.entry(x.as_str()).or_default().sem = Some(x);
        }
        for &x in Flag::ALL {
            t.entry(x.as_str()).or_default().flag = Some(x);
        }
        for (s, v) in [("v2", 2), ("v4", 4), ("v8", 8)] {
            t.entry(s).or_default().vector = Some(v);
        }
        t
    })
}

fn opcode_table() -> &'static WordMap<'static, Opcode> {
    static T: OnceLock<WordMap<'static, Opcode>> = OnceLock::new();
    T.get_or_init(|| {
        Opcode::KNOWN
            .iter()
            .map(|o| (o.as_str(), o.clone()))
            .collect()
    })
}

fn lookup_opcode(s: &str) -> Opcode {
    match opcode_table().get(s) {
        Some(o) => o.clone(),
        None => Opcode::Unknown(s.to_string()),
    }
}

/// Files one modifier into its typed field (see [`Modifiers`] for the rules).
fn classify(op: &Opcode, m: &mut Modifiers, w: &str) {
    let c = mod_table().get(w).copied().unwrap_or_default();
    let kind = if let Some(s) = c.space.filter(|_| m.space2.is_none()) {
        if m.space.is_none() {
            m.space = Some(s);
        } else {
            m.space2 = Some(s);
        }
        ModKind::Space
    } else if let Some(t) = c.ty {
        m.types.push(t);
        ModKind::Type
    } else if let Some(x) = c.cmp.filter(|_| op.takes_cmp() && m.cmp.is_none()) {
        m.cmp = Some(x);
        ModKind::Cmp
    } else if let Some(x) = c.bool_op.filter(|_| op.takes_cmp() && m.bool_op.is_none()) {
        m.bool_op = Some(x);
        ModKind::BoolOp
    } else if let Some(x) = c
        .reduce
        .filter(|_| op.takes_reduce_op() && m.reduce.is_none())
    {
        m.reduce = Some(x);
        ModKind::ReduceOp
    } else if let Some(x) = c.rounding.filter(|_| m.rounding.is_none()) {
        m.rounding = Some(x);
        ModKind::Rounding
    } else if let Some(x) = c.scope.filter(|_| m.scope.is_none()) {
        m.scope = Some(x);
        ModKind::Scope
    } else if let Some(x) = c.sem.filter(|_| m.sem.is_none()) {
        m.sem = Some(x);
        ModKind::Sem
    } else if let Some(x) = c.flag.filter(|f| !m.flags.contains(*f)) {
        m.flags.insert(x);
        ModKind::Flag
    } else if let Some(v) = c.vector.filter(|_| m.vector.is_none()) {
        m.vector = Some(v);
        ModKind::Vector
    } else {
        m.other.push(w.to_string());
        ModKind::Other
    };
    m.order.push(kind);
}

/// Parses an opcode word and its dotted modifiers.
fn op(i: &str) -> R<'_, Op> {
    let b = i.as_bytes();
    let n = b.iter().position(|&c| !is_word_char(c)).unwrap_or(b.len());
    if n == 0 || !b[0].is_ascii_alphabetic() {
        return expected(i, "an instruction");
    }
    let opcode = lookup_opcode(&i[..n]);
    let mut mods = Modifiers::default();
    let mut i = &i[n..];
    while first(i) == Some(b'.') {
        let (r, w) = need(word(&i[1..]), &i[1..], "a modifier after `.`")?;
        classify(&opcode, &mut mods, w);
        i = r;
    }
    Ok((i, Op { opcode, mods }))
}

fn special_reg(name: &str, field: Option<&str>) -> Option<SpecialReg> {
    use SpecialReg::*;
    // Fast path for the common case: compiler-generated registers (`%r12`, `%fd3`) end in
    // a digit, and the only special registers that do start with `%envreg`, `%pm` or are
    // `%clock64`.
    if field.is_none()
        && name.as_bytes().last().is_some_and(u8::is_ascii_digit)
        && !name.starts_with("%envreg")
        && !name.starts_with("%pm")
        && name != "%clock64"
    {
        return None;
    }
    let dim = match field {
        Some("x") => Some(Dim::X),
        Some("y") => Some(Dim::Y),
        Some("z") => Some(Dim::Z),
        _ => None,
    };
    if let Some(d) = dim {
        let r = match name {
            "%tid" => Tid(d),
            "%ntid" => Ntid(d),
            "%ctaid" => Ctaid(d),
            "%nctaid" => Nctaid(d),
            "%clusterid" => Clusterid(d),
            "%nclusterid" => Nclusterid(d),
            "%cluster_ctaid" => ClusterCtaid(d),
            "%cluster_nctaid" => ClusterNctaid(d),
            _ => return None,
        };
        return Some(r);
    }
    let with_field = |base: &str| match field {
        Some(f) => format!("{base}.{f}"),
        None => base.to_string(),
    };
    let plain = |r: SpecialReg| if field.is_none() { Some(r) } else { None };
    match name {
        "%tid" | "%ntid" | "%ctaid" | "%nctaid" | "%clusterid" | "%nclusterid"
        | "%cluster_ctaid" | "%cluster_nctaid" => Some(Other(with_field(name))),
        "%laneid" => plain(Laneid),
        "%warpid" => plain(Warpid),
        "%nwarpid" => plain(Nwarpid),
        "%smid" => plain(Smid),
        "%nsmid" => plain(Nsmid),
        "%gridid" => plain(Gridid),
        "%lanemask_eq" => plain(LanemaskEq),
        "%lanemask_le" => plain(LanemaskLe),
        "%lanemask_lt" => plain(LanemaskLt),
        "%lanemask_ge" => plain(LanemaskGe),
        "%lanemask_gt" => plain(LanemaskGt),
        "%clock" => plain(Clock),
        "%clock_hi" => plain(ClockHi),
        "%clock64" => plain(Clock64),
        "%globaltimer" => plain(Globaltimer),
        "%globaltimer_lo" => plain(GlobaltimerLo),
        "%globaltimer_hi" => plain(GlobaltimerHi),
        "%cluster_ctarank" => plain(ClusterCtarank),
        "%cluster_nctarank" => plain(ClusterNctarank),
        "%is_explicit_cluster" => plain(IsExplicitCluster),
        "%dynamic_smem_size" => plain(DynamicSmemSize),
        "%total_smem_size" => plain(TotalSmemSize),
        "%aggr_smem_size" => plain(AggrSmemSize),
        "%current_graph_exec"
        | "%reserved_smem_offset_begin"
        | "%reserved_smem_offset_end"
        | "%reserved_smem_offset_cap"
        | "%reserved_smem_offset_0"
        | "%reserved_smem_offset_1" => Some(Other(with_field(name))),
        _ => {
            let num = |p: &str| -> Option<u8> {
                let d = name.strip_prefix(p)?;
                if d.is_empty() || d.len() > 2 || !d.bytes().all(|c| c.is_ascii_digit()) {
                    return None;
                }
                d.parse().ok()
            };
            if field.is_some() {
                return None;
            }
            if let Some(n) = num("%envreg").filter(|n| *n < 32) {
                Some(Envreg(n))
            } else if let Some(n) = name
                .strip_suffix("_64")
                .and_then(|s| s.strip_prefix("%pm"))
                .filter(|d| d.len() == 1 && d.as_bytes()[0].is_ascii_digit())
            {
                n.parse().ok().map(Pm64)
            } else {
                num("%pm").filter(|n| *n < 8).map(Pm)
            }
        }
    }
}

/// Which nested operand forms are still allowed (bounds recursion).
#[derive(Clone, Copy, PartialEq)]
enum Level {
    Top,
    InBracket,
    InVector,
}

/// `%name`, `%name.field`, special registers, `%p|%q`.
fn reg_operand(i: &str) -> R<'_, Operand> {
    let (mut i, name) = ident(i)?;
    let mut field = None;
    if first(i) == Some(b'.') && i.as_bytes().get(1).is_some_and(|c| is_word_char(*c)) {
        let (r, f) = word(&i[1..])?;
        field = Some(f);
        i = r;
    }
    if let Some(s) = special_reg(name, field) {
        return Ok((i, Operand::Special(s)));
    }
    Ok((
        i,
        match field {
            Some(f) => Operand::RegField {
                reg: name.to_string(),
                field: f.to_string(),
            },
            None => Operand::Reg(name.to_string()),
        },
    ))
}

/// A register or `_` (the halves of a `%p|%q` pair).
fn pair_half(i: &str) -> R<'_, Operand> {
    if first(i) == Some(b'_') && !i.as_bytes().get(1).is_some_and(|c| is_ident_char(*c)) {
        return Ok((&i[1..], Operand::Sink));
    }
    if first(i) == Some(b'%') {
        return reg_operand(i);
    }
    expected(i, "a register")
}

/// `+N`, `-N`, `+-N` after a symbol or register.
fn offset(i: &str) -> R<'_, i64> {
    let j = ws(i)?;
    match first(j) {
        Some(b'+') => {
            let k = ws(&j[1..])?;
            int64(k)
        }
        Some(b'-') if j.as_bytes().get(1).is_some_and(u8::is_ascii_digit) => int64(j),
        _ => Ok((i, 0)),
    }
}

fn operand(i: &str, level: Level) -> R<'_, Operand> {
    let Some(c) = first(i) else {
        return expected(i, "an operand");
    };
    match c {
        b'{' if level != Level::InVector => {
            let (r, items) = seq(&i[1..], b'}', Level::InVector, "`,` or `}`")?;
            if items.is_empty() {
                return fail(i, "empty vector operand");
            }
            Ok((r, Operand::Vector(items)))
        }
        b'[' if level == Level::Top => address(i),
        b'(' if level == Level::Top => {
            let (r, items) = seq(&i[1..], b')', Level::InVector, "`,` or `)`")?;
            Ok((r, Operand::List(items)))
        }
        b'!' => {
            let j = ws(&i[1..])?;
            let (r, name) = need(ident(j), j, "a predicate register after `!`")?;
            Ok((r, Operand::NotPred(name.to_string())))
        }
        b'-' | b'0'..=b'9' => {
            let (r, v) = need(number(i), i, "an operand")?;
            Ok((r, Operand::Imm(v)))
        }
        b'%' => {
            let (r, a) = reg_operand(i)?;
            let j = ws(r)?;
            if first(j) == Some(b'|') {
                let k = ws(&j[1..])?;
                let (r, b) = pair_half(k)?;
                return Ok((r, Operand::Pair(Box::new(a), Box::new(b))));
            }
            Ok((r, a))
        }
        _ if is_ident_start(c) => {
            let (r, name) = ident(i)?;
            if name == "_" {
                let j = ws(r)?;
                if first(j) == Some(b'|') {
                    let (r, b) = pair_half(ws(&j[1..])?)?;
                    return Ok((r, Operand::Pair(Box::new(Operand::Sink), Box::new(b))));
                }
                return Ok((r, Operand::Sink));
            }
            if name == "WARP_SZ" {
                return Ok((r, Operand::Special(SpecialReg::WarpSz)));
            }
            let (r2, off) = offset(r)?;
            if r2.len() != r.len() {
                return Ok((
                    r2,
                    Operand::SymOffset {
                        name: name.to_string(),
                        offset: off,
                    },
                ));
            }
            Ok((r, Operand::Sym(name.to_string())))
        }
        _ => expected(i, "an operand"),
    }
}

/// Comma-separated operands up to `close` (consumed); `i` is just past the opener.
fn seq<'a>(i: &'a str, close: u8, level: Level, what: &'static str) -> R<'a, Vec<Operand>> {
    let mut out = Vec::new();
    let mut i = ws(i)?;
    if first(i) == Some(close) {
        return Ok((&i[1..], out));
    }
    loop {
        let (r, o) = operand(i, level)?;
        out.push(o);
        let j = ws(r)?;
        match first(j) {
            Some(b',') => i = ws(&j[1..])?,
            Some(c) if c == close => return Ok((&j[1..], out)),
            _ => return expected(j, what),
        }
    }
}

/// `[base+off]` or a multi-element bracket list (texture/tensor-map coordinates).
fn address(i: &str) -> R<'_, Operand> {
    let open = i;
    let j = ws(&i[1..])?;
    let (r, base) = match first(j) {
        Some(b'-' | b'0'..=b'9') => {
            let (r, v) = int64(j)?;
            (r, AddrBase::Imm(v))
        }
        Some(c) if is_ident_start(c) => {
            let (r, name) = ident(j)?;
            if name.starts_with('%') {
                (r, AddrBase::Reg(name.to_string()))
            } else {
                (r, AddrBase::Sym(name.to_string()))
            }
        }
        _ => return expected(j, "an address"),
    };
    let (r, off) = offset(r)?;
    let k = ws(r)?;
    match first(k) {
        Some(b']') => Ok((&k[1..], Operand::Addr(Address { base, offset: off }))),
        Some(b',') if off == 0 => {
            let head = match base {
                AddrBase::Reg(s) => Operand::Reg(s),
                AddrBase::Sym(s) => Operand::Sym(s),
                AddrBase::Imm(v) => Operand::Imm(Imm::Int(v)),
            };
            let (r, mut rest) = seq(&k[1..], b']', Level::InBracket, "`,` or `]`")?;
            if rest.is_empty() {
                return fail(open, "empty element in address list");
            }
            rest.insert(0, head);
            Ok((r, Operand::AddrList(rest)))
        }
        _ => expected(k, "`]`"),
    }
}

/// A constant expression: number, `sym[+off]`, `generic(sym)[+off]`, `a-b[+off]`,
/// `mask(expr)` with a numeric mask.
fn const_expr(i: &str) -> R<'_, ConstExpr> {
    match first(i) {
        Some(b'-' | b'0'..=b'9') => {
            let (r, v) = need(number(i), i, "a constant")?;
            let j = ws(r)?;
            if first(j) == Some(b'(') {
                let mask = match v {
                    Imm::Int(m) if m >= 0 => m as u64,
                    Imm::UInt(m) => m,
                    _ => return fail(i, "a byte mask must be a non-negative integer"),
                };
                let k = ws(&j[1..])?;
                if !first(k).is_some_and(|c| is_ident_start(c) || c == b'.') {
                    return expected(k, "a symbol or `generic(...)` inside a mask");
                }
                let (r, e) = const_expr(k)?;
                let r = expect_char(ws(r)?, b')', "`)`")?;
                return Ok((
                    r,
                    ConstExpr::Mask {
                        mask,
                        expr: Box::new(e),
                    },
                ));
            }
            return Ok((r, ConstExpr::Imm(v)));
        }
        None => return expected(i, "a constant"),
        _ => {}
    }
    if let Some(r) = i.strip_prefix("generic") {
        let j = ws(r)?;
        if first(j) == Some(b'(') {
            let k = ws(&j[1..])?;
            let (r, name) = need(sym_name(k), k, "a symbol")?;
            // `generic(sym+4)` and `generic(sym)+4` denote the same address.
            let (r, inner) = offset(r)?;
            let r = expect_char(ws(r)?, b')', "`)`")?;
            let (r, off) = offset(r)?;
            return Ok((
                r,
                ConstExpr::Generic {
                    name: name.to_string(),
                    offset: inner.saturating_add(off),
                },
            ));
        }
    }
    let (r, name) = need(sym_name(i), i, "a constant")?;
    let j = ws(r)?;
    if first(j) == Some(b'-')
        && j.as_bytes()
            .get(1)
            .is_some_and(|c| is_ident_start(*c) || *c == b'.')
    {
        let k = &j[1..];
        let (r, b) = sym_name(k)?;
        let (r, off) = offset(r)?;
        return Ok((
            r,
            ConstExpr::Diff {
                a: name.to_string(),
                b: b.to_string(),
                offset: off,
            },
        ));
    }
    let (r, off) = offset(r)?;
    Ok((
        r,
        ConstExpr::Sym {
            name: name.to_string(),
            offset: off,
        },
    ))
}

/// The values of a debug-section line taken by [`simple_data_line`].
enum DataVal<'a> {
    /// Plain integers, left in the caller's buffer.
    Ints,
    Sym(&'a str),
}

/// A plain decimal at `b[k..]`: at most 18 digits (so it fits `i64`), no leading `0` unless
/// it is `0` itself (octal, `0x`, ... go the general way). Returns the value and its end.
fn simple_decimal(b: &[u8], mut k: usize) -> Option<(i64, usize)> {
    let v0 = k;
    let mut v = 0i64;
    while let Some(&d) = b.get(k).filter(|d| d.is_ascii_digit()) {
        if k - v0 == 18 {
            return None;
        }
        v = v * 10 + i64::from(d - b'0');
        k += 1;
    }
    if k == v0 || b[v0] == b'0' && k - v0 > 1 {
        return None;
    }
    Some((v, k))
}

/// Fast path for the bulk of a `-G` build's debug sections: a `.b8`/`.b16`/`.b32`/`.b64`
/// line holding decimal integers separated by `,` (spaces or tabs after each comma) or one
/// plain label, ended by a newline, where the next token does not continue the value (`,`,
/// `(`, `+`, `-`). Returns the type, the value(s) (integers go to `ints`), the end of the
/// line's text and the next token. `None` leaves the line to the general path, which gives
/// the same result for anything accepted here and reports the errors.
fn simple_data_line<'i>(
    i: &'i str,
    ints: &mut Vec<i64>,
) -> Option<(ScalarType, DataVal<'i>, &'i str, &'i str)> {
    let b = i.as_bytes();
    let (ty, mut k) = match b.get(1..4)? {
        [b'b', b'8', _] => (ScalarType::B8, 3),
        [b'b', b'1', b'6'] => (ScalarType::B16, 4),
        [b'b', b'3', b'2'] => (ScalarType::B32, 4),
        [b'b', b'6', b'4'] => (ScalarType::B64, 4),
        _ => return None,
    };
    if !matches!(b.get(k), Some(b' ' | b'\t')) {
        return None;
    }
    while matches!(b.get(k), Some(b' ' | b'\t')) {
        k += 1;
    }
    let v0 = k;
    let val = match *b.get(k)? {
        b'0'..=b'9' => {
            ints.clear();
            loop {
                let (v, e) = simple_decimal(b, k)?;
                ints.push(v);
                k = e;
                if b.get(k) != Some(&b',') {
                    break;
                }
                k += 1;
                while matches!(b.get(k), Some(b' ' | b'\t')) {
                    k += 1;
                }
            }
            DataVal::Ints
        }
        c if is_ident_start(c) => {
            k += 1;
            while b.get(k).is_some_and(|&c| is_ident_char(c)) {
                k += 1;
            }
            let name = &i[v0..k];
            if name.starts_with("generic") {
                return None;
            }
            DataVal::Sym(name)
        }
        _ => return None,
    };
    if b.get(k) != Some(&b'\n') {
        return None;
    }
    let end = &i[k..];
    let next = ws(end).ok()?;
    if matches!(first(next), Some(b',' | b'(' | b'+' | b'-')) {
        return None;
    }
    Some((ty, val, end, next))
}

/// The directives in front of a declared name (`.visible .global .align 4 .v2 .f32`).
#[derive(Default)]
struct Head {
    linkage: Option<Linkage>,
    attributes: Vec<String>,
    space: Option<StateSpace>,
    align: Option<u32>,
    vector: Option<u8>,
    scalar: Option<ScalarType>,
    ptr: Option<PtrAttr>,
}

fn decl_head(mut i: &str) -> R<'_, Head> {
    let mut h = Head::default();
    loop {
        i = ws(i)?;
        if first(i) != Some(b'.') {
            return Ok((i, h));
        }
        let at = i;
        let (r, w) = need(dot_word(i), i, "a directive")?;
        i = r;
        let in_ptr = h.ptr.is_some();
        match w {
            "visible" | "extern" | "weak" | "common" if h.linkage.is_none() => {
                h.linkage = Some(match w {
                    "visible" => Linkage::Visible,
                    "extern" => Linkage::Extern,
                    "weak" => Linkage::Weak,
                    _ => Linkage::Common,
                });
            }
            "attribute" => {
                let j = expect_char(ws(i)?, b'(', "`(`")?;
                let mut depth = 1usize;
                let end = j.bytes().position(|c| {
                    match c {
                        b'(' => depth += 1,
                        b')' => depth -= 1,
                        _ => {}
                    }
                    depth == 0 || c == b';' || c == b'\n'
                });
                match end {
                    Some(p) if j.as_bytes()[p] == b')' => {
                        h.attributes.push(j[..p].trim().to_string());
                        i = &j[p + 1..];
                    }
                    _ => return fail(at, "unterminated `.attribute(`"),
                }
            }
            "align" => {
                let (r, n) = uint32(ws(i)?)?;
                i = r;
                match &mut h.ptr {
                    Some(p) => p.align = Some(n),
                    None => h.align = Some(n),
                }
            }
            "ptr" if !in_ptr => {
                h.ptr = Some(PtrAttr {
                    space: None,
                    align: None,
                })
            }
            "v2" | "v4" | "v8" if h.vector.is_none() && !in_ptr => {
                h.vector = Some(w[1..].parse().unwrap_or(0));
            }
            _ => {
                if let Some(s) = StateSpace::from_name(w) {
                    match &mut h.ptr {
                        Some(p) if p.space.is_none() => p.space = Some(s),
                        None if h.space.is_none() => h.space = Some(s),
                        _ => return fail(at, format!("unexpected state space `.{w}`")),
                    }
                } else if let Some(t) = ScalarType::from_name(w).filter(|_| h.scalar.is_none()) {
                    h.scalar = Some(t);
                } else {
                    return fail(at, format!("unexpected `.{w}` in declaration"));
                }
            }
        }
    }
}

/// `[N]` / `[]` dimensions after a declared name.
fn array_dims(mut i: &str) -> R<'_, Vec<Option<u64>>> {
    let mut dims = Vec::new();
    loop {
        let j = ws(i)?;
        if first(j) != Some(b'[') {
            return Ok((i, dims));
        }
        let k = ws(&j[1..])?;
        if first(k) == Some(b']') {
            dims.push(None);
            i = &k[1..];
        } else {
            let (r, n) = uint64(k)?;
            i = expect_char(ws(r)?, b']', "`]`")?;
            dims.push(Some(n));
        }
    }
}

fn head_type<'a>(h: &Head, at: &'a str) -> Result<VarType, nom::Err<PErr<'a>>> {
    let Some(scalar) = h.scalar else {
        return Err(eerr(at, "a type such as `.b32`"));
    };
    Ok(VarType {
        scalar,
        vector: h.vector,
        array: Vec::new(),
        align: h.align,
        ptr: h.ptr.clone(),
    })
}

/// The number of `\n` bytes, eight at a time.
fn count_newlines(b: &[u8]) -> usize {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    let mut chunks = b.chunks_exact(8);
    let mut n = 0usize;
    for c in &mut chunks {
        let mut w = [0u8; 8];
        w.copy_from_slice(c);
        let x = u64::from_le_bytes(w) ^ 0x0a0a_0a0a_0a0a_0a0a;
        // Bit 7 of each byte of `t` is set iff that byte of `x` is non-zero (no carries
        // cross bytes: 0x7f + 0x7f < 0x100).
        let t = ((x & LOW7) + LOW7) | x;
        let zeros = (!t >> 7) & 0x0101_0101_0101_0101;
        // Sum of the eight 0/1 bytes lands in the top byte.
        n += (zeros.wrapping_mul(0x0101_0101_0101_0101) >> 56) as usize;
    }
    n + chunks.remainder().iter().filter(|&&c| c == b'\n').count()
}

/// Tracks line numbers for span construction; offsets arrive mostly in increasing order.
#[derive(Clone, Copy)]
struct LineCursor {
    line: u32,
    line_start: usize,
    pos: usize,
}

pub(crate) struct Parser<'a> {
    src: &'a str,
    cur: Cell<LineCursor>,
    /// Scratch stack of statements of the open scopes (see `statements`).
    stack: Cell<Vec<Statement>>,
    /// Scratch list of an instruction's operands, so each instruction's `Vec` is
    /// allocated once at its exact size.
    ops: Cell<Vec<Operand>>,
    /// Parsed mnemonics by spelling (`ld.global.nc.v4.f32`): a module repeats a few
    /// hundred distinct ones, and cloning is cheaper than classifying every modifier again.
    op_cache: RefCell<WordMap<'a, Op>>,
    /// Statements parsed so far, against [`MAX_STATEMENTS`].
    statements: Cell<usize>,
}

impl<'a> Parser<'a> {
    pub(crate) fn new(src: &'a str) -> Self {
        Parser {
            src,
            stack: Cell::new(Vec::new()),
            ops: Cell::new(Vec::new()),
            op_cache: RefCell::new(WordMap::default()),
            statements: Cell::new(0),
            cur: Cell::new(LineCursor {
                line: 1,
                line_start: 0,
                pos: 0,
            }),
        }
    }

    fn pos(&self, rest: &str) -> usize {
        self.src.len().saturating_sub(rest.len())
    }

    fn line_col(&self, off: usize) -> (u32, u32) {
        let mut c = self.cur.get();
        let off = off.min(self.src.len());
        if off < c.pos {
            // Rare (error anchors): step back instead of rescanning from the start.
            let back = &self.src.as_bytes()[off..c.pos];
            c.line -= back.iter().filter(|&&b| b == b'\n').count() as u32;
            c.line_start = self.src.as_bytes()[..off]
                .iter()
                .rposition(|&b| b == b'\n')
                .map_or(0, |p| p + 1);
            c.pos = off;
        }
        let bytes = &self.src.as_bytes()[c.pos..off];
        // Statements are mostly one per line: the last newline is usually near the end.
        if let Some(p) = bytes.iter().rposition(|&b| b == b'\n') {
            c.line += 1 + count_newlines(&bytes[..p]) as u32;
            c.line_start = c.pos + p + 1;
        }
        c.pos = off;
        self.cur.set(c);
        // Byte columns: PTX is ASCII, and counting characters would be quadratic on
        // pathological single-line inputs.
        (c.line, (off - c.line_start + 1) as u32)
    }

    /// The span of a construct starting at `start`, with its length still 0. Constructs
    /// containing other spanned nodes take their mark first, so line lookups stay
    /// monotonic (and linear overall).
    fn mark(&self, start: &str) -> Span {
        let s = self.pos(start);
        let (line, col) = self.line_col(s);
        Span {
            line,
            col,
            offset: s as u32,
            len: 0,
        }
    }

    fn finish(&self, mut sp: Span, end: &str) -> Span {
        sp.len = (self.pos(end).saturating_sub(sp.offset as usize)) as u32;
        sp
    }

    fn span(&self, start: &str, end: &str) -> Span {
        let s = self.pos(start);
        let e = self.pos(end).max(s);
        let (line, col) = self.line_col(s);
        Span {
            line,
            col,
            offset: s as u32,
            len: (e - s) as u32,
        }
    }

    /// Converts an internal error into the public one.
    pub(crate) fn error(&self, e: nom::Err<PErr<'a>>) -> ParseError {
        let e = match e {
            nom::Err::Error(e) | nom::Err::Failure(e) => e,
            nom::Err::Incomplete(_) => PErr {
                at: "",
                msg: Cow::Borrowed("unexpected end of input"),
                expected: None,
                anchor: None,
                kind: None,
            },
        };
        let at = e.anchor.unwrap_or(e.at);
        let msg = match e.kind {
            Some(kind) => Cow::Owned(format!("syntax error ({})", kind.description())),
            None => e.msg,
        };
        let tok_len = match at.chars().next() {
            None => 0,
            Some(c) if c.is_ascii() && is_ident_char(c as u8) || c == '%' || c == '.' => {
                1 + at.as_bytes()[1..]
                    .iter()
                    .position(|&b| !is_ident_char(b))
                    .unwrap_or(at.len() - 1)
            }
            Some(c) => c.len_utf8(),
        };
        let span = self.span(at, &at[tok_len..]);
        let found = if at.is_empty() {
            "end of input".to_string()
        } else {
            format!("`{}`", &at[..tok_len].escape_debug())
        };
        let message = match (e.expected, msg.is_empty()) {
            (Some(x), true) => format!("expected {x}, found {found}"),
            (Some(x), false) => format!("{msg}: expected {x}, found {found}"),
            (None, _) => msg.into_owned(),
        };
        ParseError {
            span,
            message,
            expected: e.expected.into_iter().map(str::to_string).collect(),
        }
    }

    pub(crate) fn module(&self, i: &'a str) -> R<'a, Module> {
        let mut m = Module::default();
        let mut i = i;
        loop {
            i = ws(i)?;
            if i.is_empty() {
                return Ok((i, m));
            }
            let start = i;
            if first(i) != Some(b'.') {
                return expected(i, "a directive such as `.version`, `.entry` or `.global`");
            }
            let (r, w) = need(dot_word(i), i, "a directive")?;
            i = match w {
                "version" => {
                    let j = ws(r)?;
                    let (r, major) = take_while1(|c: char| c.is_ascii_digit())(j)
                        .or_else(|_: nom::Err<PErr>| expected(j, "a version number"))?;
                    let r = expect_char(r, b'.', "`.`")?;
                    let (r, minor) = take_while1(|c: char| c.is_ascii_digit())(r)
                        .or_else(|_: nom::Err<PErr>| expected(r, "a minor version number"))?;
                    let (Ok(major), Ok(minor)) = (major.parse(), minor.parse()) else {
                        return fail(j, "version number too large");
                    };
                    m.version = Some(Version {
                        major,
                        minor,
                        span: self.span(start, r),
                    });
                    r
                }
                "target" => {
                    let j = ws(r)?;
                    let (r, arch) = need(ident(j), j, "a target architecture")?;
                    let mut flags = Vec::new();
                    let mut r = r;
                    loop {
                        let j = ws_line(r)?;
                        if first(j) != Some(b',') {
                            break;
                        }
                        let k = ws(&j[1..])?;
                        let (rr, f) = need(ident(k), k, "a target flag")?;
                        flags.push(f.to_string());
                        r = rr;
                    }
                    m.target = Some(Target {
                        arch: arch.to_string(),
                        flags,
                        span: self.span(start, r),
                    });
                    r
                }
                "address_size" => {
                    let (r, bits) = uint32(ws(r)?)?;
                    m.address_size = Some(AddressSize {
                        bits,
                        span: self.span(start, r),
                    });
                    r
                }
                "file" => {
                    let (r, f) = self.file(start, r)?;
                    m.files.push(f);
                    r
                }
                "section" => {
                    let (r, s) = self.section(start, r)?;
                    m.items.push(ModuleItem::Section(s));
                    r
                }
                "pragma" => {
                    let (r, p) = self.pragma(start, r)?;
                    m.items.push(ModuleItem::Pragma(p));
                    r
                }
                "alias" => {
                    let j = ws(r)?;
                    let (r, a) = need(ident(j), j, "an alias name")?;
                    let r = ws(expect_char(ws(r)?, b',', "`,`")?)?;
                    let (r, b) = need(ident(r), r, "the aliased function")?;
                    let r = expect_char(ws(r)?, b';', "`;`")?;
                    m.items.push(ModuleItem::Alias {
                        alias: a.to_string(),
                        aliasee: b.to_string(),
                        span: self.span(start, r),
                    });
                    r
                }
                _ => self.module_decl(start, &mut m.items)?,
            };
        }
    }

    /// A function or module-scope variable, both of which may start with linkage words.
    fn module_decl(&self, start: &'a str, items: &mut Vec<ModuleItem>) -> Step<'a> {
        let mut j = start;
        let mut linkage = None;
        loop {
            j = ws(j)?;
            let (r, w) = need(dot_word(j), j, "a directive")?;
            let l = match w {
                "visible" => Linkage::Visible,
                "extern" => Linkage::Extern,
                "weak" => Linkage::Weak,
                "common" => Linkage::Common,
                "entry" | "func" => {
                    let kind = if w == "entry" {
                        FunctionKind::Entry
                    } else {
                        FunctionKind::Func
                    };
                    let (r, f) = self.function(start, r, kind, linkage)?;
                    items.push(ModuleItem::Function(f));
                    return Ok(r);
                }
                _ => break,
            };
            if linkage.is_some() {
                return Err(ferr(j, "more than one linkage directive"));
            }
            linkage = Some(l);
            j = r;
        }
        let (r, decls) = self.var_decl(start)?;
        items.extend(decls.into_iter().map(ModuleItem::Var));
        Ok(r)
    }

    fn file(&self, start: &'a str, i: &'a str) -> R<'a, FileDecl> {
        let (r, index) = uint32(ws(i)?)?;
        let j = ws(r)?;
        let (r, name) = string_lit(j)?;
        let mut f = FileDecl {
            index,
            name: name.to_string(),
            timestamp: None,
            size: None,
            span: Span::default(),
        };
        let mut r = r;
        let j = ws_line(r)?;
        if first(j) == Some(b',') {
            let (rr, t) = uint64(ws(&j[1..])?)?;
            f.timestamp = Some(t);
            r = rr;
            let j = ws_line(r)?;
            if first(j) == Some(b',') {
                let (rr, s) = uint64(ws(&j[1..])?)?;
                f.size = Some(s);
                r = rr;
            }
        }
        f.span = self.span(start, r);
        Ok((r, f))
    }

    fn pragma(&self, start: &'a str, i: &'a str) -> R<'a, Pragma> {
        let mut values = Vec::new();
        let mut i = ws(i)?;
        loop {
            let (r, s) = string_lit(i)?;
            values.push(s.to_string());
            let j = ws(r)?;
            match first(j) {
                Some(b',') => i = ws(&j[1..])?,
                Some(b';') => {
                    let r = &j[1..];
                    return Ok((
                        r,
                        Pragma {
                            values,
                            span: self.span(start, r),
                        },
                    ));
                }
                _ => return expected(j, "`,` or `;`"),
            }
        }
    }

    fn section(&self, start: &'a str, i: &'a str) -> R<'a, Section> {
        let sp = self.mark(start);
        let j = ws(i)?;
        let (r, name) = need(sym_name(j), j, "a section name")?;
        let open = ws(r)?;
        let mut i = expect_char(open, b'{', "`{`")?;
        let mut entries = Vec::new();
        let mut scratch: Vec<ConstExpr> = Vec::new();
        let mut fast_ints: Vec<i64> = Vec::new();
        loop {
            i = ws(i)?;
            let s = i;
            match first(i) {
                Some(b'}') => {
                    let r = &i[1..];
                    return Ok((
                        r,
                        Section {
                            name: name.to_string(),
                            entries,
                            span: self.finish(sp, r),
                        },
                    ));
                }
                None => {
                    return Err(nom::Err::Failure(PErr {
                        at: i,
                        msg: Cow::Borrowed("unclosed `{` of `.section`"),
                        expected: None,
                        anchor: Some(open),
                        kind: None,
                    }))
                }
                Some(b'.') => {
                    if let Some((ty, v, end, next)) = simple_data_line(i, &mut fast_ints) {
                        match (v, entries.last_mut()) {
                            (
                                DataVal::Ints,
                                Some(SectionEntry::Ints {
                                    ty: t,
                                    values,
                                    span,
                                }),
                            ) if *t == ty => {
                                values.extend_from_slice(&fast_ints);
                                *span = self.finish(*span, end);
                            }
                            (DataVal::Ints, _) => {
                                let span = self.finish(self.mark(s), end);
                                entries.push(SectionEntry::Ints {
                                    ty,
                                    values: fast_ints.clone(),
                                    span,
                                });
                            }
                            (DataVal::Sym(name), _) => entries.push(SectionEntry::Data {
                                ty,
                                values: vec![ConstExpr::Sym {
                                    name: name.to_string(),
                                    offset: 0,
                                }],
                                span: self.span(s, end),
                            }),
                        }
                        i = next;
                        continue;
                    }
                    let (r, w) = need(dot_word(i), i, "a data directive")?;
                    let Some(ty) = ScalarType::from_name(w) else {
                        return fail(i, format!("unexpected `.{w}` in section"));
                    };
                    scratch.clear();
                    let mut r = ws_line(r)?;
                    loop {
                        let (rr, v) = const_expr(r)?;
                        scratch.push(v);
                        let j = ws(rr)?;
                        if first(j) == Some(b',') {
                            r = ws(&j[1..])?;
                        } else {
                            r = rr;
                            break;
                        }
                    }
                    let j = ws_line(r)?;
                    if first(j) == Some(b';') {
                        r = &j[1..];
                    }
                    let all_int = scratch
                        .iter()
                        .all(|v| matches!(v, ConstExpr::Imm(Imm::Int(_))));
                    let ints = scratch.iter().filter_map(|v| match v {
                        ConstExpr::Imm(Imm::Int(n)) => Some(*n),
                        _ => None,
                    });
                    match entries.last_mut() {
                        // Runs of plain-number lines (most of a `-G` build) become one
                        // entry: a value costs 8 bytes instead of a node per line.
                        Some(SectionEntry::Ints {
                            ty: t,
                            values,
                            span,
                        }) if all_int && *t == ty => {
                            values.extend(ints);
                            *span = self.finish(*span, r);
                        }
                        _ if all_int => {
                            let span = self.finish(self.mark(s), r);
                            entries.push(SectionEntry::Ints {
                                ty,
                                values: ints.collect(),
                                span,
                            });
                        }
                        _ => {
                            // Exactly sized: a `-G` build has tens of thousands of these.
                            let mut values = Vec::with_capacity(scratch.len());
                            values.append(&mut scratch);
                            entries.push(SectionEntry::Data {
                                ty,
                                values,
                                span: self.span(s, r),
                            })
                        }
                    }
                    i = r;
                }
                _ => {
                    let (r, l) = need(ident(i), i, "a label, data directive or `}`")?;
                    let r = expect_char(ws(r)?, b':', "`:`")?;
                    entries.push(SectionEntry::Label {
                        name: l.to_string(),
                        span: self.span(s, r),
                    });
                    i = r;
                }
            }
        }
    }

    /// Parameter lists `( .param .b32 a, .reg .u64 b )`.
    fn params(&self, i: &'a str) -> R<'a, Vec<Param>> {
        let mut i = ws(expect_char(i, b'(', "`(`")?)?;
        let mut out = Vec::new();
        if first(i) == Some(b')') {
            return Ok((&i[1..], out));
        }
        loop {
            let start = i;
            let (r, h) = decl_head(i)?;
            let Some(space) = h.space else {
                return expected(start, "`.param` or `.reg`");
            };
            let mut ty = head_type(&h, r)?;
            let r = ws(r)?;
            let (r, name) = need(ident(r), r, "a parameter name")?;
            let (r, dims) = array_dims(r)?;
            ty.array = dims;
            out.push(Param {
                name: name.to_string(),
                space,
                ty,
                span: self.span(start, r),
            });
            let j = ws(r)?;
            match first(j) {
                Some(b',') => i = ws(&j[1..])?,
                Some(b')') => return Ok((&j[1..], out)),
                _ => return expected(j, "`,` or `)`"),
            }
        }
    }

    fn function(
        &self,
        start: &'a str,
        i: &'a str,
        kind: FunctionKind,
        linkage: Option<Linkage>,
    ) -> R<'a, Function> {
        // Mark the start now: the body's spans move the line cursor past it.
        let sp = self.mark(start);
        let mut i = ws(i)?;
        let mut ret_params = Vec::new();
        if first(i) == Some(b'(') {
            if kind == FunctionKind::Entry {
                return fail(i, "a kernel (`.entry`) has no return parameters");
            }
            let (r, ps) = self.params(i)?;
            ret_params = ps;
            i = ws(r)?;
        }
        let (r, name) = need(ident(i), i, "a function name")?;
        let mut i = ws(r)?;
        let mut params = Vec::new();
        if first(i) == Some(b'(') {
            let (r, ps) = self.params(i)?;
            params = ps;
            i = r;
        }
        let (r, directives) = self.function_directives(i)?;
        let i = ws(r)?;
        let (r, body) = match first(i) {
            Some(b';') => (&i[1..], None),
            Some(b'{') => {
                let (r, stmts) = self.statements(&i[1..], i, 1)?;
                (r, Some(stmts))
            }
            _ => return expected(i, "`{` or `;`"),
        };
        Ok((
            r,
            Function {
                kind,
                linkage,
                name: name.to_string(),
                ret_params,
                params,
                directives,
                body,
                span: self.finish(sp, r),
            },
        ))
    }

    fn function_directives(&self, mut i: &'a str) -> R<'a, Vec<FunctionDirective>> {
        let mut out = Vec::new();
        loop {
            let j = ws(i)?;
            if first(j) != Some(b'.') {
                return Ok((i, out));
            }
            let (r, w) = need(dot_word(j), j, "a directive")?;
            let k = ws(r)?;
            let has_nums = first(k).is_some_and(|c| c.is_ascii_digit());
            let (r, nums) = if has_nums {
                uint_list(k)?
            } else {
                (r, Vec::new())
            };
            // The directive from its `.` to its last number.
            let sp = self.span(j, r);
            let one = |d: fn(u32, Span) -> FunctionDirective| -> R<'a, FunctionDirective> {
                match nums.as_slice() {
                    [n] => Ok((r, d(*n, sp))),
                    _ => fail(j, format!("`.{w}` takes one number")),
                }
            };
            let some = |d: fn(Vec<u32>, Span) -> FunctionDirective| -> R<'a, FunctionDirective> {
                if (1..=3).contains(&nums.len()) {
                    Ok((r, d(nums.clone(), sp)))
                } else {
                    fail(j, format!("`.{w}` takes one to three numbers"))
                }
            };
            let (r, d) = match w {
                "maxntid" => some(FunctionDirective::MaxNtid)?,
                "reqntid" => some(FunctionDirective::ReqNtid)?,
                "reqnctapercluster" => some(FunctionDirective::ReqNctaPerCluster)?,
                "minnctapersm" => one(FunctionDirective::MinNctaPerSm)?,
                "maxnctapersm" => one(FunctionDirective::MaxNctaPerSm)?,
                "maxnreg" => one(FunctionDirective::MaxNreg)?,
                "maxclusterrank" => one(FunctionDirective::MaxClusterRank)?,
                "explicitcluster" if nums.is_empty() => (r, FunctionDirective::ExplicitCluster(sp)),
                "noreturn" if nums.is_empty() => (r, FunctionDirective::NoReturn(sp)),
                "pragma" => {
                    let (r, p) = self.pragma(j, r)?;
                    (r, FunctionDirective::Pragma(p))
                }
                "entry" | "func" | "visible" | "extern" | "weak" | "reg" | "param" | "local"
                | "shared" | "global" | "const" => {
                    return expected(j, "`{` or `;` after the function signature")
                }
                _ => (
                    r,
                    FunctionDirective::Other {
                        name: w.to_string(),
                        args: nums,
                        span: sp,
                    },
                ),
            };
            out.push(d);
            i = r;
        }
    }

    /// `.reg`/`.local`/... declarations: one `VarDecl`/`RegDecl` per declared name.
    fn var_decl(&self, start: &'a str) -> R<'a, Vec<VarDecl>> {
        let (mut i, h) = decl_head(start)?;
        let Some(space) = h.space else {
            return expected(start, "a state space such as `.global`");
        };
        let ty = head_type(&h, i)?;
        let mut names = Vec::new();
        loop {
            let j = ws(i)?;
            let (r, name) = need(ident(j), j, "a variable name")?;
            let (r, dims) = array_dims(r)?;
            let mut r = ws(r)?;
            let mut init = None;
            if first(r) == Some(b'=') {
                let (rr, v) = self.initializer(ws(&r[1..])?, 0)?;
                init = Some(v);
                r = ws(rr)?;
            }
            names.push((name, dims, init));
            match first(r) {
                Some(b',') => i = &r[1..],
                Some(b';') => {
                    i = &r[1..];
                    break;
                }
                _ => return expected(r, "`,` or `;`"),
            }
        }
        let span = self.span(start, i);
        let decls = names
            .into_iter()
            .map(|(name, dims, init)| {
                let mut ty = ty.clone();
                ty.array = dims;
                VarDecl {
                    linkage: h.linkage,
                    attributes: h.attributes.clone(),
                    space,
                    ty,
                    name: name.to_string(),
                    init,
                    span,
                }
            })
            .collect();
        Ok((i, decls))
    }

    fn reg_decl(&self, start: &'a str) -> R<'a, Vec<RegDecl>> {
        let (mut i, h) = decl_head(start)?;
        let ty = head_type(&h, i)?;
        if h.linkage.is_some() || h.ptr.is_some() || !h.attributes.is_empty() {
            return fail(start, "unexpected directive in `.reg` declaration");
        }
        let mut names = Vec::new();
        loop {
            let j = ws(i)?;
            let (r, name) = need(ident(j), j, "a register name")?;
            let mut r = ws(r)?;
            let mut range = None;
            if first(r) == Some(b'<') {
                let (rr, n) = uint32(ws(&r[1..])?)?;
                r = ws(expect_char(ws(rr)?, b'>', "`>`")?)?;
                range = Some(n);
            }
            names.push((name, range));
            match first(r) {
                Some(b',') => i = &r[1..],
                Some(b';') => {
                    i = &r[1..];
                    break;
                }
                _ => return expected(r, "`,` or `;`"),
            }
        }
        let span = self.span(start, i);
        let regs = names
            .into_iter()
            .map(|(name, range)| RegDecl {
                ty: ty.scalar,
                vector: ty.vector,
                align: ty.align,
                name: name.to_string(),
                range,
                span,
            })
            .collect();
        Ok((i, regs))
    }

    fn initializer(&self, i: &'a str, depth: u32) -> R<'a, Initializer> {
        if first(i) != Some(b'{') {
            let (r, e) = const_expr(i)?;
            return Ok((r, Initializer::Expr(e)));
        }
        if depth >= MAX_NESTING {
            return fail(
                i,
                format!("initializer lists nested deeper than {MAX_NESTING}"),
            );
        }
        let mut out = Vec::new();
        let mut j = ws(&i[1..])?;
        if first(j) == Some(b'}') {
            return Ok((&j[1..], Initializer::List(out)));
        }
        loop {
            let (r, v) = self.initializer(j, depth + 1)?;
            out.push(v);
            let k = ws(r)?;
            match first(k) {
                Some(b',') => j = ws(&k[1..])?,
                Some(b'}') => return Ok((&k[1..], Initializer::List(out))),
                _ => return expected(k, "`,` or `}`"),
            }
        }
    }

    fn loc(&self, start: &'a str, i: &'a str) -> R<'a, Loc> {
        let (r, file) = uint32(ws(i)?)?;
        let (r, line) = uint32(ws(r)?)?;
        let (mut r, col) = uint32(ws(r)?)?;
        let mut loc = Loc {
            file,
            line,
            col,
            function_name: None,
            inlined_at: None,
            span: Span::default(),
        };
        loop {
            let j = ws_line(r)?;
            if first(j) != Some(b',') {
                break;
            }
            let k = ws(&j[1..])?;
            let (rr, w) = need(ident(k), k, "`function_name` or `inlined_at`")?;
            match w {
                "function_name" => {
                    let m = ws(rr)?;
                    let (rr, name) = need(sym_name(m), m, "a label")?;
                    let (rr, off) = offset(rr)?;
                    loc.function_name = Some((name.to_string(), off));
                    r = rr;
                }
                "inlined_at" => {
                    let (rr, f) = uint32(ws(rr)?)?;
                    let (rr, l) = uint32(ws(rr)?)?;
                    let (rr, c) = uint32(ws(rr)?)?;
                    loc.inlined_at = Some((f, l, c));
                    r = rr;
                }
                _ => return expected(k, "`function_name` or `inlined_at`"),
            }
        }
        loc.span = self.span(start, r);
        Ok((r, loc))
    }

    /// Statements up to a closing `}` (consumed). `open` points at the `{`.
    ///
    /// Statements of all open scopes accumulate on one shared stack (`self.stack`); a scope
    /// moves its own tail into an exactly sized `Vec` when it closes. This avoids growing
    /// (and re-copying) every body's `Vec` statement by statement.
    fn statements(&self, i: &'a str, open: &'a str, depth: u32) -> R<'a, Vec<Statement>> {
        let mut stack = self.stack.take();
        let r = self.statements_on(i, open, depth, &mut stack);
        self.stack.replace(stack);
        r
    }

    fn statements_on(
        &self,
        i: &'a str,
        open: &'a str,
        depth: u32,
        out: &mut Vec<Statement>,
    ) -> R<'a, Vec<Statement>> {
        let base = out.len();
        let mut i = i;
        loop {
            i = ws(i)?;
            let start = i;
            let count = self.statements.get() + 1;
            self.statements.set(count);
            if count > MAX_STATEMENTS {
                return fail(
                    i,
                    format!(
                        "the module has more than {MAX_STATEMENTS} statements in its function \
                         bodies, the parser's limit"
                    ),
                );
            }
            let Some(c) = first(i) else {
                return Err(nom::Err::Failure(PErr {
                    at: i,
                    msg: Cow::Borrowed("unexpected end of input: unclosed `{`"),
                    expected: None,
                    anchor: Some(open),
                    kind: None,
                }));
            };
            match c {
                // The outermost scope takes the scratch stack whole (shrinking in place)
                // instead of copying it: a copy would hold two bodies at once, doubling the
                // peak memory of a huge function.
                b'}' if base == 0 => {
                    let mut body = std::mem::take(out);
                    body.shrink_to_fit();
                    return Ok((&i[1..], body));
                }
                b'}' => return Ok((&i[1..], out.split_off(base))),
                b'{' => {
                    if depth >= MAX_NESTING {
                        return fail(i, format!("scopes nested deeper than {MAX_NESTING}"));
                    }
                    let sp = self.mark(start);
                    let (r, inner) = self.statements_on(&i[1..], i, depth + 1, out)?;
                    out.push(Statement::Block(inner, self.finish(sp, r)));
                    i = r;
                }
                b'.' => i = self.body_directive(start, out)?,
                b'@' => {
                    let (r, inst) = self.instruction(start)?;
                    out.push(Statement::Inst(inst));
                    i = r;
                }
                _ if is_ident_start(c) => {
                    let (r, name) = ident(i)?;
                    let j = ws(r)?;
                    if first(j) == Some(b':') {
                        i = self.label(start, name, &j[1..], out)?;
                    } else {
                        let (r, inst) = self.instruction(start)?;
                        out.push(Statement::Inst(inst));
                        i = r;
                    }
                }
                _ => return expected(i, "a statement"),
            }
        }
    }

    /// A label, or a labeled `.branchtargets`/`.calltargets`/`.callprototype`.
    fn label(
        &self,
        start: &'a str,
        name: &'a str,
        after: &'a str,
        out: &mut Vec<Statement>,
    ) -> Step<'a> {
        let j = ws(after)?;
        if first(j) == Some(b'.') {
            let (r, w) = need(dot_word(j), j, "a directive")?;
            match w {
                "branchtargets" | "calltargets" => {
                    let mut targets = Vec::new();
                    let mut k = ws(r)?;
                    loop {
                        let (rr, t) = need(ident(k), k, "a label")?;
                        targets.push(t.to_string());
                        let m = ws(rr)?;
                        match first(m) {
                            Some(b',') => k = ws(&m[1..])?,
                            Some(b';') => {
                                let r = &m[1..];
                                let span = self.span(start, r);
                                let label = name.to_string();
                                out.push(if w == "branchtargets" {
                                    Statement::BranchTargets {
                                        label,
                                        targets,
                                        span,
                                    }
                                } else {
                                    Statement::CallTargets {
                                        label,
                                        targets,
                                        span,
                                    }
                                });
                                return Ok(r);
                            }
                            _ => return Err(eerr(m, "`,` or `;`")),
                        }
                    }
                }
                "callprototype" => {
                    let sp = self.mark(start);
                    let mut k = ws(r)?;
                    let mut ret_params = Vec::new();
                    if first(k) == Some(b'(') {
                        let (rr, ps) = self.params(k)?;
                        ret_params = ps;
                        k = ws(rr)?;
                    }
                    let (rr, us) = need(ident(k), k, "`_`")?;
                    if us != "_" {
                        return Err(eerr(k, "`_`"));
                    }
                    let k = ws(rr)?;
                    let (rr, params) = if first(k) == Some(b'(') {
                        self.params(k)?
                    } else {
                        (rr, Vec::new())
                    };
                    let (rr, directives) = self.function_directives(rr)?;
                    let rr = expect_char(ws(rr)?, b';', "`;`")?;
                    out.push(Statement::CallPrototype(CallPrototype {
                        label: name.to_string(),
                        ret_params,
                        params,
                        directives,
                        span: self.finish(sp, rr),
                    }));
                    return Ok(rr);
                }
                _ => {}
            }
        }
        out.push(Statement::Label {
            name: name.to_string(),
            span: self.span(start, after),
        });
        Ok(after)
    }

    fn body_directive(&self, start: &'a str, out: &mut Vec<Statement>) -> Step<'a> {
        let (r, w) = need(dot_word(start), start, "a directive")?;
        match w {
            "reg" => {
                let (r, regs) = self.reg_decl(start)?;
                out.extend(regs.into_iter().map(Statement::Reg));
                Ok(r)
            }
            "loc" => {
                let (r, l) = self.loc(start, r)?;
                out.push(Statement::Loc(l));
                Ok(r)
            }
            "pragma" => {
                let (r, p) = self.pragma(start, r)?;
                out.push(Statement::Pragma(p));
                Ok(r)
            }
            "local" | "shared" | "param" | "const" | "global" | "align" | "extern" | "visible"
            | "weak" | "tex" => {
                let (r, vars) = self.var_decl(start)?;
                out.extend(vars.into_iter().map(Statement::Var));
                Ok(r)
            }
            _ => Err(ferr(
                start,
                format!("unknown directive `.{w}` in function body"),
            )),
        }
    }

    /// [`op`] through the mnemonic cache. A cached spelling is only looked up as a whole
    /// run of `[A-Za-z0-9_.:]`, which `op` consumes the same way whatever follows it.
    fn op(&self, i: &'a str) -> R<'a, Op> {
        let b = i.as_bytes();
        let n = b
            .iter()
            .position(|&c| !(is_word_char(c) || c == b'.' || c == b':'))
            .unwrap_or(b.len());
        let key = &i[..n];
        if let Some(op) = self.op_cache.borrow().get(key) {
            return Ok((&i[n..], op.clone()));
        }
        let (r, op) = op(i)?;
        if r.len() == i.len() - n {
            self.op_cache.borrow_mut().insert(key, op.clone());
        }
        Ok((r, op))
    }

    fn instruction(&self, start: &'a str) -> R<'a, Instruction> {
        let mut i = start;
        let mut guard = None;
        if first(i) == Some(b'@') {
            let mut j = ws(&i[1..])?;
            let negated = first(j) == Some(b'!');
            if negated {
                j = ws(&j[1..])?;
            }
            let (r, pred) = need(ident(j), j, "a predicate register after `@`")?;
            guard = Some(Guard {
                pred: pred.to_string(),
                negated,
            });
            i = ws(r)?;
        }
        let (r, op) = self.op(i)?;
        // Taken, not borrowed: an error leaves it empty, which costs only its capacity.
        let mut operands = self.ops.take();
        operands.clear();
        let mut j = ws(r)?;
        if first(j) != Some(b';') {
            if r.len() == j.len() && !j.is_empty() {
                return expected(j, "whitespace or `;` after the opcode");
            }
            loop {
                let (rr, o) = operand(j, Level::Top)?;
                operands.push(o);
                let k = ws(rr)?;
                match first(k) {
                    Some(b',') => j = ws(&k[1..])?,
                    Some(b';') => {
                        j = k;
                        break;
                    }
                    _ => return expected(k, "`,` or `;`"),
                }
            }
        }
        let r = &j[1..];
        let mut exact = Vec::with_capacity(operands.len());
        exact.append(&mut operands);
        self.ops.set(operands);
        Ok((
            r,
            Instruction {
                guard,
                op,
                operands: exact,
                span: self.span(start, r),
            },
        ))
    }
}

/// Parses a whole PTX module.
pub fn parse(src: &str) -> Result<Module, ParseError> {
    if u32::try_from(src.len()).is_err() {
        return Err(ParseError {
            span: Span::default(),
            message: "input larger than 4 GiB".to_string(),
            expected: Vec::new(),
        });
    }
    let p = Parser::new(src);
    match p.module(src) {
        Ok((_, m)) => Ok(m),
        Err(e) => Err(p.error(e)),
    }
}

/// Parses one instruction (e.g. `"@%p1 ld.global.f32 %f1, [%rd1+4];"`), for tests and tools.
pub fn parse_instruction(src: &str) -> Result<Instruction, ParseError> {
    let p = Parser::new(src);
    let run = || -> R<'_, Instruction> {
        let i = ws(src)?;
        let (r, inst) = p.instruction(i)?;
        let r = ws(r)?;
        if !r.is_empty() {
            return expected(r, "end of input");
        }
        Ok((r, inst))
    };
    match run() {
        Ok((_, inst)) => Ok(inst),
        Err(e) => Err(p.error(e)),
    }
}
