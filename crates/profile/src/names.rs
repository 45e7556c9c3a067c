//! Matching kernel names printed by profilers against mangled PTX entry names.
//!
//! Profilers print demangled signatures, each in its own style: nvprof and cpp_demangle write
//! `saxpy(int, float, float const*, float*)`, Nsight Compute writes
//! `saxpy(int, float, const float *, float *)`, and either may prefix a return type
//! (`void inst_mix<1>(float*, …)`). Both sides are reduced to a canonical token string —
//! whitespace removed except between words, a leading cv-qualifier moved after the type it
//! qualifies, a leading `void` return type dropped — and compared. When no full signature
//! matches, the bare function name (last `::` component, without template arguments) is the
//! fallback; [`crate::Profile::kernel`] reports it as ambiguous when several kernels share it.

/// Demangles an Itanium-mangled name; `None` if `name` is not one.
pub fn demangle(name: &str) -> Option<String> {
    if !name.starts_with("_Z") {
        return None;
    }
    let sym = cpp_demangle::Symbol::new(name).ok()?;
    sym.demangle(&cpp_demangle::DemangleOptions::default()).ok()
}

/// A kernel's name as a person reads it in a chart's title: the demangled bare function name
/// (`_Z13gaussian_fan2PfS_PKfii` -> `gaussian_fan2`), or the name itself when it is not mangled.
pub fn readable(name: &str) -> String {
    demangle(name).map_or_else(|| name.to_string(), |d| base_name(&d))
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Tok {
    Word(String),
    Punct(char),
}

fn tokenize(s: &str) -> Vec<Tok> {
    let mut out = Vec::new();
    let mut chars = s.chars().peekable();
    while let Some(&c) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
        } else if c.is_alphanumeric() || c == '_' || c == '$' {
            let mut w = String::new();
            while let Some(&d) = chars.peek() {
                if d.is_alphanumeric() || d == '_' || d == '$' {
                    w.push(d);
                    chars.next();
                } else {
                    break;
                }
            }
            out.push(Tok::Word(w));
        } else {
            out.push(Tok::Punct(c));
            chars.next();
        }
    }
    out
}

fn is_cv(t: &Tok) -> bool {
    matches!(t, Tok::Word(w) if w == "const" || w == "volatile")
}

/// Moves every cv-qualifier that precedes a type name to just after it (`const float` ->
/// `float const`), so both printing conventions give the same tokens.
fn move_cv(toks: &mut Vec<Tok>) {
    let mut i = 0;
    while i < toks.len() {
        if is_cv(&toks[i]) {
            // The qualified type: words (`unsigned int`, `long long`), `::`-joined names and
            // balanced template arguments.
            let mut j = i + 1;
            let mut depth = 0usize;
            while j < toks.len() {
                match &toks[j] {
                    Tok::Word(w) if depth == 0 && (w == "const" || w == "volatile") => break,
                    Tok::Word(_) => {}
                    Tok::Punct(':') => {}
                    Tok::Punct('<') => depth += 1,
                    Tok::Punct('>') if depth > 0 => depth -= 1,
                    _ if depth > 0 => {}
                    _ => break,
                }
                j += 1;
            }
            if j > i + 1 {
                let cv = toks.remove(i);
                toks.insert(j - 1, cv);
                i = j;
                continue;
            }
        }
        i += 1;
    }
}

/// The canonical form of a demangled signature (see the module documentation).
pub fn canonical(sig: &str) -> String {
    let mut toks = tokenize(sig);
    if matches!(toks.first(), Some(Tok::Word(w)) if w == "void")
        && matches!(toks.get(1), Some(Tok::Word(_)))
    {
        toks.remove(0);
    }
    move_cv(&mut toks);
    let mut out = String::new();
    let mut prev_word = false;
    for t in &toks {
        match t {
            Tok::Word(w) => {
                if prev_word {
                    out.push(' ');
                }
                out.push_str(w);
                prev_word = true;
            }
            Tok::Punct(c) => {
                out.push(*c);
                prev_word = false;
            }
        }
    }
    out
}

/// The bare function name of a signature: the last `::` component before the parameter
/// list, without template arguments or return type.
pub fn base_name(sig: &str) -> String {
    let canon = canonical(sig);
    // The parameter list starts at the first '(' outside template arguments.
    let mut depth = 0i32;
    let mut end = canon.len();
    for (i, c) in canon.char_indices() {
        match c {
            '<' => depth += 1,
            '>' => depth -= 1,
            '(' if depth == 0 => {
                end = i;
                break;
            }
            _ => {}
        }
    }
    let head = &canon[..end];
    let head = head.split('<').next().unwrap_or(head);
    let last = head.rsplit("::").next().unwrap_or(head);
    last.rsplit(' ').next().unwrap_or(last).to_string()
}

/// How a profiled kernel name relates to a PTX entry name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum NameMatch {
    /// Identical mangled names, or identical canonical signatures.
    Full,
    /// Only the bare function names agree.
    BaseName,
}

/// Compares a profiler's kernel name (demangled, mangled or bare) with a PTX entry name.
pub fn match_name(profile_name: &str, ptx_mangled: &str) -> Option<NameMatch> {
    if profile_name.trim() == ptx_mangled {
        return Some(NameMatch::Full);
    }
    let ptx_sig = demangle(ptx_mangled).unwrap_or_else(|| ptx_mangled.to_string());
    let prof_sig = demangle(profile_name.trim()).unwrap_or_else(|| profile_name.to_string());
    if canonical(&prof_sig) == canonical(&ptx_sig) {
        return Some(NameMatch::Full);
    }
    (base_name(&prof_sig) == base_name(&ptx_sig)).then_some(NameMatch::BaseName)
}

/// Whether a profiler's kernel name denotes the PTX entry `ptx_mangled`, by full signature
/// or, failing that, by bare function name. Ambiguity among several profiled kernels is
/// detected by [`crate::Profile::kernel`], which sees them all.
pub fn matches(profile_name: &str, ptx_mangled: &str) -> bool {
    match_name(profile_name, ptx_mangled).is_some()
}
