//! The one place that renders errors for humans: `file:line:column: message`, then the
//! offending source line and a caret under the offending token. Columns are 1-based byte
//! columns (as in `ptx::Span`); the caret line repeats the line's tabs so it aligns in any
//! tab width.

use ptx::Span;
use std::fmt::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Renders a located error against the source it refers to.
pub fn render(file: &str, src: &str, span: Span, message: &str) -> String {
    let mut out = format!("{file}:{}:{}: {message}\n", span.line, span.col);
    let Some(line) = src.lines().nth(span.line.saturating_sub(1) as usize) else {
        return out;
    };
    let line = line.strip_suffix('\r').unwrap_or(line);
    // Control characters (binary input) would garble the terminal; show them as U+FFFD.
    let shown: String = line
        .chars()
        .map(|c| {
            if c.is_control() && c != '\t' {
                '\u{fffd}'
            } else {
                c
            }
        })
        .collect();
    let col = (span.col.saturating_sub(1) as usize).min(line.len());
    let mut start = col;
    while !line.is_char_boundary(start) {
        start -= 1;
    }
    let gutter = span.line.to_string();
    let pad = " ".repeat(gutter.len());
    let _ = writeln!(out, "{gutter} | {shown}");
    let lead: String = line[..start]
        .chars()
        .map(|c| if c == '\t' { '\t' } else { ' ' })
        .collect();
    let rest = line[start..].chars().count();
    let width = (span.len as usize).min(rest).max(1);
    let _ = writeln!(out, "{pad} | {lead}{}", "^".repeat(width));
    out
}

/// Longest message printed as it is: a longer one (an input that echoes a 2 MB line, a list of
/// 100 000 kernel names) keeps its head and tail around a count of what was left out.
const MAX_MESSAGE_CHARS: usize = 600;

/// `message`, cut in the middle past [`MAX_MESSAGE_CHARS`] characters.
pub fn elide(message: &str) -> std::borrow::Cow<'_, str> {
    let n = message.chars().count();
    if n <= MAX_MESSAGE_CHARS {
        return message.into();
    }
    let keep = MAX_MESSAGE_CHARS / 2;
    let head: String = message.chars().take(keep).collect();
    let tail: String = message.chars().skip(n - keep / 2).collect();
    format!("{head} [... {} characters left out ...] {tail}", n - keep - keep / 2).into()
}

/// What a line on standard error is: every line the tool writes there starts with
/// `ptx2idg: error:`, `ptx2idg: warning:` or `ptx2idg: note:`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    Error,
    Warning,
    Note,
}

impl Level {
    fn word(self) -> &'static str {
        match self {
            Level::Error => "error",
            Level::Warning => "warning",
            Level::Note => "note",
        }
    }
}

/// The one writer of diagnostics: `ptx2idg: LEVEL: [FILE: ]MESSAGE`, the message elided.
pub fn emit(level: Level, file: Option<&str>, message: &str) {
    let message = elide(message);
    match file {
        Some(f) => eprintln!("ptx2idg: {}: {f}: {message}", level.word()),
        None => eprintln!("ptx2idg: {}: {message}", level.word()),
    }
}

/// Prints a PTX parse error: `ptx2idg: error: FILE:LINE:COL: MESSAGE` and the source line.
pub fn parse_error(file: &str, src: &str, e: &ptx::ParseError) {
    let shown = render(file, src, e.span, &elide(&e.message));
    eprint!("ptx2idg: error: {shown}");
}

/// Prints an error about a file as a whole (e.g. it cannot be read).
pub fn file_error(file: &str, message: &str) {
    emit(Level::Error, Some(file), message);
}

/// Prints a warning about a file.
pub fn warning(file: &str, message: &str) {
    emit(Level::Warning, Some(file), message);
}

/// Prints an error about a file as a whole and gives the exit code of a failed command.
pub fn fail(file: &str, e: impl std::fmt::Display) -> ExitCode {
    file_error(file, &e.to_string());
    ExitCode::from(1)
}

/// Prints an error that is about no one file (a flag, a combination of flags).
pub fn error(message: &str) {
    emit(Level::Error, None, message);
}

/// Prints a note: something the run assumed that the user may want to know.
pub fn note(message: &str) {
    emit(Level::Note, None, message);
}

/// Writes command output to standard output (the [`out!`] and [`outln!`] macros). Output is
/// never a panic: see [`stdout_failed`].
pub fn print_out(args: std::fmt::Arguments<'_>) {
    use std::io::Write;
    let mut o = std::io::stdout().lock();
    if let Err(e) = o.write_fmt(args).and_then(|()| o.flush()) {
        stdout_failed(&e);
    }
}

/// Ends the program after standard output failed: quietly with success when its reader went
/// away (a closed pipe, `| head`), as Unix tools do; otherwise (a full disk) with the cause and
/// exit status 1.
pub fn stdout_failed(e: &std::io::Error) -> ! {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        std::process::exit(0);
    }
    error(&format!("cannot write the output: {e}"));
    std::process::exit(1)
}

/// Writes `contents` to `path` whole or not at all: to a temporary file beside it, renamed
/// over `path` once complete, so that a failed write (a full disk, an interrupt) leaves any
/// earlier file as it was and no truncated one.
pub fn write_file(path: &Path, contents: &[u8]) -> std::io::Result<()> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = path.with_file_name(format!(".{name}.ptx2idg-{}.tmp", std::process::id()));
    let written = std::fs::write(&tmp, contents).and_then(|()| std::fs::rename(&tmp, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

/// The file `path` names, as far as it can be resolved (an output need not exist yet: its
/// folder is resolved and its name kept).
fn resolved(path: &Path) -> PathBuf {
    if let Ok(p) = path.canonicalize() {
        return p;
    }
    match (path.parent(), path.file_name()) {
        (Some(dir), Some(name)) => {
            let dir = if dir.as_os_str().is_empty() {
                Path::new(".")
            } else {
                dir
            };
            dir.canonicalize()
                .map(|d| d.join(name))
                .unwrap_or_else(|_| path.to_path_buf())
        }
        _ => path.to_path_buf(),
    }
}

/// Refuses, before anything runs, an output (`flag`, path) that names one of `inputs` or lies
/// inside one of the input folders `dirs`: the command would replace what it reads.
pub fn refuse_overwrites(
    outputs: &[(&str, Option<&Path>)],
    inputs: &[&Path],
    dirs: &[&Path],
) -> Result<(), ExitCode> {
    let inputs: Vec<PathBuf> = inputs.iter().map(|p| resolved(p)).collect();
    let dirs: Vec<PathBuf> = dirs.iter().map(|p| resolved(p)).collect();
    for &(flag, out) in outputs {
        let Some(out) = out else { continue };
        let target = resolved(out);
        let input = inputs.iter().find(|i| **i == target);
        let inside = dirs
            .iter()
            .find(|d| target.starts_with(d) && target.is_file());
        if let Some(what) = input.or(inside) {
            error(&format!(
                "{flag} {} would overwrite the input {}; give another path",
                out.display(),
                what.display()
            ));
            return Err(ExitCode::from(2));
        }
    }
    Ok(())
}

/// `print!` to standard output through [`print_out`].
macro_rules! out {
    ($($t:tt)*) => {
        $crate::diag::print_out(format_args!($($t)*))
    };
}

/// `println!` to standard output through [`print_out`].
macro_rules! outln {
    () => {
        $crate::diag::print_out(format_args!("\n"))
    };
    ($($t:tt)*) => {
        $crate::diag::print_out(format_args!("{}\n", format_args!($($t)*)))
    };
}

pub(crate) use {out, outln};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caret_under_token_with_tabs() {
        let src = "a\n\tadd.s32 %r1, %r2 %r3;\n";
        let span = Span {
            line: 2,
            col: 19,
            offset: 20,
            len: 3,
        };
        assert_eq!(
            render("f.ptx", src, span, "expected `,`"),
            "f.ptx:2:19: expected `,`\n2 | \tadd.s32 %r1, %r2 %r3;\n  | \t                 ^^^\n"
        );
    }

    #[test]
    fn end_of_input_gets_one_caret() {
        let span = Span {
            line: 1,
            col: 4,
            offset: 3,
            len: 0,
        };
        assert_eq!(
            render("f", "ret", span, "m"),
            "f:1:4: m\n1 | ret\n  |    ^\n"
        );
    }
}
