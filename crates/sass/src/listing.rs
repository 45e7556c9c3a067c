//! Reading `cuobjdump -sass` and `nvdisasm` listings into a [`Listing`].
//!
//! Both tools print one instruction a line, `/*ADDR*/ [@[!]P] OPCODE[.MOD]... OPERANDS ;`,
//! so one line-oriented reader serves both; what differs is how a function starts
//! (`Function : NAME` against `.section .text.NAME`) and what surrounds the code (cuobjdump's
//! encoding comments, nvdisasm's labels, directives, line-info comments and data sections).
//! Lines outside a function (fatbin headers, data sections, symbol tables) are skipped
//! unread, so that header lines of other tool versions do not break reading; inside a
//! function every line must be one of the forms above, or the reader stops with a
//! [`ParseError`] at its line and column.

use nom::branch::alt;
use nom::bytes::complete::{tag, take_while, take_while1};
use nom::character::complete::{char, hex_digit1, space0, space1};
use nom::combinator::{opt, recognize};
use nom::sequence::{delimited, pair};
use nom::{IResult, Parser};

use crate::ast::{
    Format, Instruction, Kernel, Label, Listing, Operand, OperandKind, Predicate, SourceLine,
};
use crate::error::{offset_of, ParseError};

/// Reads a `cuobjdump -sass` or `nvdisasm` listing (either is recognised by its layout).
///
/// # Errors
/// A line inside a function that is neither an instruction, an encoding continuation, a
/// label, a directive nor a comment; a malformed instruction (address, predicate, opcode,
/// operands, the closing `;`); a malformed `//## File` line-info comment.
pub fn parse_listing(text: &str) -> Result<Listing, ParseError> {
    let mut r = Reader::default();
    for (i, raw) in text.lines().enumerate() {
        let line = u32::try_from(i + 1).unwrap_or(u32::MAX);
        r.line(line, raw)?;
    }
    r.close_kernel();
    Ok(Listing {
        format: r.format.unwrap_or(Format::Unknown),
        arch: r.arch,
        kernels: r.kernels,
    })
}

#[derive(Default)]
struct Reader {
    format: Option<Format>,
    arch: Option<String>,
    kernels: Vec<Kernel>,
    current: Option<Kernel>,
    /// Line info applies to every instruction until the next `//##` comment: nvdisasm prints
    /// one only when the position changes.
    source: Option<SourceLine>,
    /// Labels seen since the last instruction: they name the next instruction's address.
    pending_labels: Vec<String>,
}

impl Reader {
    fn close_kernel(&mut self) {
        if let Some(mut k) = self.current.take() {
            // A label after the last instruction (nvdisasm's `.L_x_23:` end marker) names
            // the end of the function.
            let end = k
                .instructions
                .last()
                .map_or(0, |i| i.address.saturating_add(16));
            for name in self.pending_labels.drain(..) {
                k.labels.push(Label { name, address: end });
            }
            self.kernels.push(k);
        }
        self.source = None;
        self.pending_labels.clear();
    }

    fn open_kernel(&mut self, name: &str, line: u32, format: Format) {
        self.close_kernel();
        self.format.get_or_insert(format);
        self.current = Some(Kernel {
            name: name.to_string(),
            line,
            instructions: Vec::new(),
            labels: Vec::new(),
        });
    }

    fn line(&mut self, line: u32, raw: &str) -> Result<(), ParseError> {
        let t = raw.trim();
        if t.is_empty() {
            return Ok(());
        }
        let start = raw.len() - raw.trim_start().len();
        if let Some(arch) = t.strip_prefix("code for ") {
            self.arch.get_or_insert_with(|| arch.trim().to_string());
            return Ok(());
        }
        if let Some(name) = t.strip_prefix("Function :") {
            let name = name.trim();
            if name.is_empty() {
                return Err(ParseError::at(
                    line,
                    raw,
                    raw.len(),
                    "expected a function name",
                ));
            }
            self.open_kernel(name, line, Format::Cuobjdump);
            return Ok(());
        }
        // `.section NAME`, not `.sectionflags` / `.sectioninfo` (attributes of the current
        // section, which nvdisasm prints inside a kernel that uses barriers).
        if let Some(rest) = t
            .strip_prefix(".section")
            .filter(|r| r.starts_with(char::is_whitespace))
        {
            let section = rest.trim_start().split(',').next().unwrap_or("").trim();
            match section.strip_prefix(".text.") {
                Some(name) if !name.is_empty() => {
                    self.open_kernel(name, line, Format::Nvdisasm);
                }
                // Data and debug sections hold `/*ADDR*/ .byte` lines: not code.
                _ => self.close_kernel(),
            }
            return Ok(());
        }
        if let Some(rest) = t.strip_prefix(".target") {
            self.arch
                .get_or_insert_with(|| rest.trim().trim_matches('"').to_string());
            return Ok(());
        }
        if self.current.is_none() {
            return Ok(());
        }
        if let Some(rest) = t.strip_prefix("//##") {
            let offset = offset_of(raw, rest);
            self.source = Some(source_line(line, raw, offset)?);
            return Ok(());
        }
        if t.starts_with("//") || t.bytes().all(|b| b == b'.') {
            // Comments, and cuobjdump's `..........` end-of-function rule.
            return Ok(());
        }
        if let Some(name) = t.strip_suffix(':') {
            if !name.is_empty() && !name.contains(char::is_whitespace) {
                self.pending_labels.push(name.to_string());
                return Ok(());
            }
        }
        if t.starts_with('.') {
            // Directives inside a text section (`.align`, `.type`, `.size`, `.other`).
            return Ok(());
        }
        if t.starts_with("/*") {
            let after = t.get(2..).unwrap_or("").trim_start();
            if after.starts_with("0x") {
                return self.encoding_continuation(line, raw, start);
            }
            return self.instruction(line, raw);
        }
        Err(ParseError::at(
            line,
            raw,
            start,
            "expected an instruction `/*ADDR*/ OPCODE ... ;`, a label, a directive or a comment",
        ))
    }

    /// cuobjdump prints the second 64-bit word of each instruction alone on the next line.
    fn encoding_continuation(
        &mut self,
        line: u32,
        raw: &str,
        start: usize,
    ) -> Result<(), ParseError> {
        let rest = &raw[start..];
        let (after, word) = encoding_comment(rest)
            .map_err(|_| ParseError::at(line, raw, start, "expected an encoding `/* 0x… */`"))?;
        if !after.trim().is_empty() {
            let off = offset_of(raw, after.trim_start());
            return Err(ParseError::at(
                line,
                raw,
                off,
                "unexpected text after the encoding",
            ));
        }
        let last = self
            .current
            .as_mut()
            .and_then(|k| k.instructions.last_mut())
            .ok_or_else(|| {
                ParseError::at(line, raw, start, "an encoding word before any instruction")
            })?;
        last.encoding.push(word);
        Ok(())
    }

    fn instruction(&mut self, line: u32, raw: &str) -> Result<(), ParseError> {
        let mut inst = parse_instruction_line(line, raw)?;
        // Data directives in a text section (`/*0000*/ .byte …`) are not code.
        if inst.opcode.is_empty() {
            return Ok(());
        }
        inst.source = self.source.clone();
        let Some(k) = self.current.as_mut() else {
            return Ok(());
        };
        if let Some(prev) = k.instructions.last() {
            if inst.address <= prev.address {
                return Err(ParseError::at(
                    line,
                    raw,
                    raw.find("/*").unwrap_or(0),
                    format!(
                        "address {:#x} does not follow the previous instruction's {:#x}",
                        inst.address, prev.address
                    ),
                ));
            }
        }
        for name in self.pending_labels.drain(..) {
            k.labels.push(Label {
                name,
                address: inst.address,
            });
        }
        k.instructions.push(inst);
        Ok(())
    }
}

fn offset_in(raw: &str, rest: &str) -> usize {
    offset_of(raw, rest)
}

/// `/* 0x000fe20000000800 */` → the word.
fn encoding_comment(i: &str) -> IResult<&str, u64> {
    let (i, digits) = delimited(
        (tag("/*"), space0, tag("0x")),
        hex_digit1,
        (space0, tag("*/")),
    )
    .parse(i)?;
    match u64::from_str_radix(digits, 16) {
        Ok(w) => Ok((i, w)),
        Err(_) => Err(nom::Err::Error(nom::error::Error::new(
            i,
            nom::error::ErrorKind::HexDigit,
        ))),
    }
}

fn address(i: &str) -> IResult<&str, &str> {
    delimited(pair(space0, tag("/*")), hex_digit1, tag("*/")).parse(i)
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

fn predicate(i: &str) -> IResult<&str, (bool, &str)> {
    let (i, _) = char('@').parse(i)?;
    let (i, neg) = opt(char('!')).parse(i)?;
    // Predicate files only: `P0`..`P6`, `PT` and their uniform forms, so that a missing
    // space (`@P0MOV`) is an error rather than a register named `P0MOV`.
    let (i, reg) = recognize(pair(
        alt((tag("UP"), tag("P"))),
        alt((tag("T"), take_while1(|c: char| c.is_ascii_digit()))),
    ))
    .parse(i)?;
    Ok((i, (neg.is_some(), reg)))
}

fn mnemonic(i: &str) -> IResult<&str, &str> {
    recognize(pair(
        take_while1(|c: char| c.is_ascii_uppercase()),
        take_while(|c: char| is_name_char(c) || c == '.'),
    ))
    .parse(i)
}

/// One instruction line (without line info, which the reader attaches). A line whose
/// "opcode" is a directive (`.byte`) comes back with an empty opcode.
fn parse_instruction_line(line: u32, raw: &str) -> Result<Instruction, ParseError> {
    let err = |rest: &str, msg: &str| ParseError::at(line, raw, offset_in(raw, rest), msg);
    let (rest, addr) =
        address(raw).map_err(|_| err(raw.trim_start(), "expected an address `/*0010*/`"))?;
    let address = u64::from_str_radix(addr, 16)
        .map_err(|_| ParseError::at(line, raw, offset_in(raw, addr), "address out of range"))?;
    let (rest, _) =
        space0::<_, nom::error::Error<&str>>(rest).map_err(|_| err(rest, "expected whitespace"))?;
    let mut inst = Instruction {
        address,
        line,
        predicate: None,
        opcode: String::new(),
        modifiers: Vec::new(),
        operands: Vec::new(),
        branch_targets: Vec::new(),
        encoding: Vec::new(),
        source: None,
    };
    if rest.starts_with('.') {
        return Ok(inst);
    }
    let mut rest = rest;
    if rest.starts_with('@') {
        let (r, (negated, reg)) =
            predicate(rest).map_err(|_| err(rest, "expected a predicate register after `@`"))?;
        let (r, _) = space1::<_, nom::error::Error<&str>>(r)
            .map_err(|_| err(r, "expected whitespace after the predicate"))?;
        inst.predicate = Some(Predicate {
            register: reg.to_string(),
            negated,
        });
        rest = r;
    }
    let (r, m) = mnemonic(rest).map_err(|_| err(rest, "expected an opcode"))?;
    let mut parts = m.split('.');
    inst.opcode = parts.next().unwrap_or_default().to_string();
    for p in parts {
        if p.is_empty() {
            return Err(err(r, "empty modifier in the opcode"));
        }
        inst.modifiers.push(p.to_string());
    }
    let Some(semi) = r.find(';') else {
        return Err(ParseError::at(
            line,
            raw,
            raw.trim_end().len(),
            "expected `;` at the end of the instruction",
        ));
    };
    let (mut ops, after) = (&r[..semi], &r[semi + 1..]);
    if let Some(open) = ops.find("(*\"") {
        let note = &ops[open + 3..];
        let Some(close) = note.find("\"*)") else {
            return Err(err(&ops[open..], "unclosed annotation `(*\"…\"*)`"));
        };
        if !note[close + 3..].trim().is_empty() {
            return Err(err(
                &note[close + 3..],
                "unexpected text after the annotation",
            ));
        }
        if let Some(list) = note[..close].strip_prefix("BRANCH_TARGETS") {
            inst.branch_targets = list
                .split(',')
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .map(str::to_string)
                .collect();
        }
        ops = &ops[..open];
    }
    if !ops.is_empty() && !ops.starts_with(char::is_whitespace) {
        return Err(err(
            ops,
            "expected whitespace between the opcode and its operands",
        ));
    }
    inst.operands = operands(line, raw, ops)?;
    let mut after = after.trim_start();
    while !after.is_empty() {
        match encoding_comment(after) {
            Ok((a, word)) => {
                inst.encoding.push(word);
                after = a.trim_start();
            }
            Err(_) => return Err(err(after, "unexpected text after `;`")),
        }
    }
    Ok(inst)
}

/// Splits the operand text on commas outside brackets and classifies each operand.
fn operands(line: u32, raw: &str, ops: &str) -> Result<Vec<Operand>, ParseError> {
    let mut out = Vec::new();
    if ops.trim().is_empty() {
        return Ok(out);
    }
    let mut stack: Vec<char> = Vec::new();
    let mut start = 0;
    let push = |from: usize, to: usize, out: &mut Vec<Operand>| {
        let piece = &ops[from..to];
        let text = piece.trim();
        if text.is_empty() {
            let at = offset_in(raw, &ops[from..]) + (piece.len() - piece.trim_start().len());
            return Err(ParseError::at(line, raw, at, "empty operand"));
        }
        out.push(Operand {
            text: text.to_string(),
            kind: classify(text),
        });
        Ok(())
    };
    for (i, c) in ops.char_indices() {
        match c {
            '[' | '(' | '{' => stack.push(c),
            ']' | ')' | '}' => {
                let open = match c {
                    ']' => '[',
                    ')' => '(',
                    _ => '{',
                };
                if stack.pop() != Some(open) {
                    let at = offset_in(raw, &ops[i..]);
                    return Err(ParseError::at(line, raw, at, format!("unbalanced `{c}`")));
                }
            }
            ',' if stack.is_empty() => {
                push(start, i, &mut out)?;
                start = i + 1;
            }
            _ => {}
        }
    }
    if let Some(open) = stack.last() {
        let at = offset_in(raw, &ops[ops.len()..]);
        return Err(ParseError::at(line, raw, at, format!("unclosed `{open}`")));
    }
    push(start, ops.len(), &mut out)?;
    Ok(out)
}

fn classify(text: &str) -> OperandKind {
    if let Some(inner) = text.strip_prefix("`(").and_then(|s| s.strip_suffix(')')) {
        return OperandKind::Label(inner.to_string());
    }
    if let Some(rest) = text.strip_prefix("c[").or_else(|| text.strip_prefix("cx[")) {
        if let Some((bank, tail)) = rest.split_once("][") {
            if let Some(offset) = tail.strip_suffix(']') {
                return OperandKind::ConstBank {
                    bank: bank.to_string(),
                    offset: offset.to_string(),
                };
            }
        }
    }
    if text.contains('[') {
        return OperandKind::Memory;
    }
    if let Some(v) = int(text) {
        return OperandKind::Int(v);
    }
    let bare = text
        .trim_start_matches(['-', '+', '!', '~', '|'])
        .trim_end_matches('|');
    if is_float(bare) {
        return OperandKind::Float;
    }
    if let Some(r) = register(bare) {
        return OperandKind::Register(r.to_string());
    }
    OperandKind::Other
}

fn int(text: &str) -> Option<i64> {
    let (neg, t) = match text.strip_prefix('-') {
        Some(t) => (true, t),
        None => (false, text),
    };
    let v = if let Some(h) = t.strip_prefix("0x") {
        // Bit patterns such as 0xffffffffffffffff read as their two's-complement value.
        u64::from_str_radix(h, 16).ok().map(|u| u as i64)?
    } else if !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) {
        t.parse::<i64>().ok()?
    } else {
        return None;
    };
    Some(if neg { v.wrapping_neg() } else { v })
}

fn is_float(t: &str) -> bool {
    matches!(t, "INF" | "QNAN" | "NAN" | "SNAN")
        || (t.starts_with(|c: char| c.is_ascii_digit())
            && t.contains(['.', 'e'])
            && t.parse::<f64>().is_ok())
}

/// The register name of `t` (`R2.reuse` → `R2`, `SR_TID.X` → `SR_TID.X`), if it is one.
fn register(t: &str) -> Option<&str> {
    if t.starts_with("SR_") || t == "SRZ" {
        return Some(t.strip_suffix(".reuse").unwrap_or(t));
    }
    let name = t.split('.').next().unwrap_or(t);
    let numbered = |prefix: &str| {
        name.strip_prefix(prefix)
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    };
    let known = matches!(name, "RZ" | "URZ" | "PT" | "UPT")
        || ["R", "UR", "P", "UP", "B"].iter().any(|p| numbered(p));
    known.then_some(name)
}

/// `File "loops.cu", line 66` optionally followed by ` inlined at "…", line N` (repeated).
fn source_line(line: u32, raw: &str, offset: usize) -> Result<SourceLine, ParseError> {
    let rest = &raw[offset..];
    let err = |r: &str, msg: &str| ParseError::at(line, raw, offset_in(raw, r), msg);
    let (r, first) = file_line(rest.trim_start(), "File")
        .map_err(|_| err(rest.trim_start(), "expected `File \"NAME\", line N`"))?;
    let mut chain = vec![first];
    let mut r = r.trim_start();
    while !r.is_empty() {
        let (r2, at) = file_line(r, "inlined at")
            .map_err(|_| err(r, "expected `inlined at \"NAME\", line N`"))?;
        chain.push(at);
        r = r2.trim_start();
    }
    // The last position is the outermost; fold so each line points at where it was inlined.
    let mut out: Option<SourceLine> = None;
    for (file, n) in chain.into_iter().rev() {
        let n = n
            .parse::<u32>()
            .map_err(|_| err(rest, "line number out of range"))?;
        out = Some(SourceLine {
            file: file.to_string(),
            line: n,
            inlined_at: out.map(Box::new),
        });
    }
    out.ok_or_else(|| err(rest, "expected a source position"))
}

fn file_line<'a>(i: &'a str, keyword: &'static str) -> IResult<&'a str, (&'a str, &'a str)> {
    let (i, _) = (tag(keyword), space1, char('"')).parse(i)?;
    let (i, file) = take_while(|c| c != '"').parse(i)?;
    let (i, _) = (char('"'), opt(char(',')), space1, tag("line"), space1).parse(i)?;
    let (i, n) = take_while1(|c: char| c.is_ascii_digit()).parse(i)?;
    let (i, _) = opt(char(',')).parse(i)?;
    Ok((i, (file, n)))
}
