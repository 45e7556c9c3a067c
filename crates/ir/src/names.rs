//! Kernel names: demangling and selecting a kernel by mangled name, demangled signature,
//! demangled base name or an unambiguous substring of either.

use crate::error::IrError;

/// The demangled form of an Itanium-mangled name (`_Z5saxpyifPKfPf` ->
/// `saxpy(int, float, float const*, float*)`); `None` for names that are not mangled. One
/// implementation for every floor: the profile crate's, which matches profilers' names.
pub use profile::names::demangle;

/// `mangled (demangled)` or just the name.
pub fn display_name(name: &str) -> String {
    match demangle(name) {
        Some(d) => format!("{name} ({d})"),
        None => name.to_string(),
    }
}

/// The demangled name without its parameter list (`saxpy`).
fn base_name(demangled: &str) -> &str {
    demangled.split('(').next().unwrap_or(demangled).trim()
}

/// True when `query` is the mangled name, the demangled signature or the demangled base name
/// of kernel `name` (no substring matching: used for rows of trips tables).
pub fn names_kernel(name: &str, query: &str) -> bool {
    name == query || demangle(name).is_some_and(|d| d == query || base_name(&d) == query)
}

/// Picks one of `names` for the user's `query` (`None`: there must be exactly one name).
/// Exact matches of the mangled name, the demangled signature or its base name win over
/// substring matches; several substring matches are an error listing them.
pub fn select_kernel<'a>(names: &[&'a str], query: Option<&str>) -> Result<&'a str, IrError> {
    let listing = || names.iter().map(|n| display_name(n)).collect::<Vec<_>>();
    let Some(q) = query else {
        return match names {
            [] => Err(IrError::NoKernels),
            [one] => Ok(one),
            _ => Err(IrError::KernelRequired { known: listing() }),
        };
    };
    let exact: Vec<&'a str> = names
        .iter()
        .copied()
        .filter(|n| names_kernel(n, q))
        .collect();
    let subs: Vec<&'a str> = if exact.is_empty() {
        names
            .iter()
            .copied()
            .filter(|n| n.contains(q) || demangle(n).is_some_and(|d| d.contains(q)))
            .collect()
    } else {
        exact
    };
    match subs[..] {
        [one] => Ok(one),
        [] => Err(IrError::NoSuchKernel {
            name: q.to_string(),
            known: listing(),
        }),
        _ => Err(IrError::AmbiguousKernel {
            name: q.to_string(),
            matches: subs.iter().map(|n| display_name(n)).collect(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selects_by_any_form() {
        let names = ["_Z5saxpyifPKfPf", "_Z6reducePfi", "plain_kernel"];
        assert_eq!(select_kernel(&names, Some("saxpy")).unwrap(), names[0]);
        assert_eq!(
            select_kernel(&names, Some("_Z6reducePfi")).unwrap(),
            names[1]
        );
        assert_eq!(
            select_kernel(&names, Some("reduce(float*, int)")).unwrap(),
            names[1]
        );
        assert_eq!(select_kernel(&names, Some("plain")).unwrap(), names[2]);
        let e = select_kernel(&names, None).unwrap_err().to_string();
        assert!(e.contains("saxpy(int, float, float const*, float*)"), "{e}");
        assert!(matches!(
            select_kernel(&names, Some("_Z")),
            Err(IrError::AmbiguousKernel { .. })
        ));
        assert!(matches!(
            select_kernel(&names, Some("nope")),
            Err(IrError::NoSuchKernel { .. })
        ));
    }
}
