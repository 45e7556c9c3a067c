//! The one error type of the `ir` crate. Every variant names what the user has to look at:
//! the kernel, the callee, the loop, or the file and row of a trips table.

use thiserror::Error;

/// Errors from lowering, analysis and trip-count resolution.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum IrError {
    #[error("no kernel named `{name}`; kernels in this file: {}", known.join(", "))]
    NoSuchKernel { name: String, known: Vec<String> },
    #[error("kernel name `{name}` is ambiguous; it matches: {}", matches.join(", "))]
    AmbiguousKernel { name: String, matches: Vec<String> },
    #[error("the file defines several kernels; choose one with --kernel: {}", known.join(", "))]
    KernelRequired { known: Vec<String> },
    #[error("the file defines no kernels (.entry)")]
    NoKernels,
    #[error("kernel `{kernel}` calls `{callee}` (line {line}), which has no body (.extern); it cannot be inlined")]
    ExternCallee {
        kernel: String,
        callee: String,
        line: u32,
    },
    #[error("kernel `{kernel}` calls `{callee}` (line {line}), which is not defined in this file")]
    UndefinedCallee {
        kernel: String,
        callee: String,
        line: u32,
    },
    #[error("kernel `{kernel}`: recursive call chain {} cannot be inlined", chain.join(" -> "))]
    Recursion { kernel: String, chain: Vec<String> },
    #[error("kernel `{kernel}`: the call to `{callee}` (line {line}) nests calls more than {limit} deep; calls this deep are not inlined")]
    CallDepth {
        kernel: String,
        callee: String,
        line: u32,
        limit: usize,
    },
    #[error("kernel `{kernel}`: inlining the calls (through `{callee}`) expands the kernel past the inlining budget of {budget} instructions; raise it with --max-inlined N")]
    InlineBudget {
        kernel: String,
        callee: String,
        budget: usize,
    },
    #[error("kernel `{kernel}` has {statements} instructions and labels, more than the budget of {budget} a kernel may have after inlining; raise it with --max-inlined N")]
    KernelSize {
        kernel: String,
        statements: usize,
        budget: usize,
    },
    #[error("kernel `{kernel}`: call to `{callee}` (line {line}) passes {given} arguments / {given_ret} results, the function takes {expected} / {expected_ret}")]
    CallArity {
        kernel: String,
        callee: String,
        line: u32,
        given: usize,
        expected: usize,
        given_ret: usize,
        expected_ret: usize,
    },
    #[error("kernel `{kernel}`: branch to undefined label `{label}` (line {line})")]
    UndefinedLabel {
        kernel: String,
        label: String,
        line: u32,
    },
    #[error("kernel `{kernel}`: label `{label}` is defined twice (line {line})")]
    DuplicateLabel {
        kernel: String,
        label: String,
        line: u32,
    },
    #[error("kernel `{kernel}`: {what} (line {line})")]
    Unsupported {
        kernel: String,
        what: String,
        line: u32,
    },
    #[error("kernel `{kernel}` has irreducible control flow: the edge {from} (line {from_line}) -> {to} (line {to_line}) enters a cycle that {to} does not dominate; loops and trip counts cannot be analysed")]
    Irreducible {
        kernel: String,
        from: String,
        from_line: u32,
        to: String,
        to_line: u32,
    },
    #[error("kernel `{kernel}`: the loop at {header} (line {line}) {what}; loops this large are not analysed")]
    LoopNest {
        kernel: String,
        header: String,
        line: u32,
        what: String,
    },
    #[error("kernel `{kernel}`: {what} would run {trips} times per entry, more than any launch can execute (limit {limit}); check its bounds or the trips table")]
    TripsOutOfRange {
        kernel: String,
        what: String,
        trips: u64,
        limit: u64,
    },
    #[error("kernel `{kernel}` has no parameter `{param}`; parameters: {}", known.join(", "))]
    UnknownParam {
        kernel: String,
        param: String,
        known: Vec<String>,
    },
    #[error(
        "parameter `{param}` of kernel `{kernel}` is {bits} bits wide: {value} does not fit \
         (give {} to {}; negative values and bit patterns up to the larger are both accepted)",
        crate::param::bits_min(*.bits),
        crate::param::bits_max(*.bits)
    )]
    ParamRange {
        kernel: String,
        param: String,
        /// The parameter's name or index as the launch gave it.
        given: String,
        value: i64,
        bits: u8,
    },
    #[error("parameter `{param}` of kernel `{kernel}` is .{ty}: {why}")]
    ParamType {
        kernel: String,
        param: String,
        /// The parameter's name or index as the launch gave it.
        given: String,
        /// The PTX type.
        ty: String,
        /// What is wrong with the value, naming it.
        why: String,
    },
    #[error(
        "parameter `{param}` of kernel `{kernel}` is given two values (as `{first}` and as \
         `{second}`); give one"
    )]
    ParamTwice {
        kernel: String,
        param: String,
        first: String,
        second: String,
    },
    #[error(
        "kernel `{kernel}`: the .{space} array `{array}` (PTX line {line}) is larger than \
         2^64 - 1 bytes: its element count times its element size overflows"
    )]
    ArraySize {
        kernel: String,
        array: String,
        space: String,
        line: u32,
    },
    #[error("launch with an empty grid {grid:?} or block {block:?}")]
    EmptyLaunch { grid: [u32; 3], block: [u32; 3] },
    #[error("{file}: row {row}: kernel `{kernel}` has no loop `{loop_ref}`; loops: {}", known.join(", "))]
    NoSuchLoop {
        file: String,
        row: usize,
        kernel: String,
        loop_ref: String,
        known: Vec<String>,
    },
    #[error("{file}: row {row}: loop `{loop_ref}` of kernel `{kernel}` is ambiguous: source line {line} maps to several loop headers ({})", headers.join(", "))]
    AmbiguousLoop {
        file: String,
        row: usize,
        kernel: String,
        loop_ref: String,
        line: u32,
        headers: Vec<String>,
    },
    #[error("{file}: row {row}: {message}")]
    TripsTable {
        file: String,
        row: usize,
        message: String,
    },
}
