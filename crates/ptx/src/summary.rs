//! What `ptx2idg check` reports per kernel and the Python package's `kernels()` returns:
//! parameters, register declarations (nested scopes included) and the static instruction
//! count, read from the AST alone.

use serde::Serialize;

use crate::{for_each_instruction, Function, Statement};

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct KernelSummary {
    /// Each parameter as the printer writes it.
    pub params: Vec<String>,
    pub registers: Vec<RegSummary>,
    pub instructions: usize,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RegSummary {
    #[serde(rename = "type")]
    pub ty: String,
    pub name: String,
    /// `%r<35>` declares 35 registers; a plain name declares one.
    pub count: u32,
    /// True for `%r<N>` range declarations.
    pub range: bool,
}

fn collect_regs(stmts: &[Statement], out: &mut Vec<RegSummary>) {
    for s in stmts {
        match s {
            Statement::Reg(r) => out.push(RegSummary {
                ty: match r.vector {
                    Some(v) => format!(".v{v} .{}", r.ty),
                    None => format!(".{}", r.ty),
                },
                name: r.name.clone(),
                count: r.range.unwrap_or(1),
                range: r.range.is_some(),
            }),
            Statement::Block(inner, _) => collect_regs(inner, out),
            _ => {}
        }
    }
}

/// The summary of one function.
pub fn kernel_summary(f: &Function) -> KernelSummary {
    let body = f.body.as_deref().unwrap_or(&[]);
    let mut registers = Vec::new();
    collect_regs(body, &mut registers);
    let mut instructions = 0;
    for_each_instruction(body, &mut |_| instructions += 1);
    KernelSummary {
        params: f.params.iter().map(|p| p.to_string()).collect(),
        registers,
        instructions,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_scopes_count_registers_and_instructions() {
        let m = crate::parse(
            ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u32 n)\n{\n\
             .reg .b32 %r<3>;\n{\n.reg .pred %p;\nmov.u32 %r1, 1;\n}\nret;\n}\n",
        )
        .unwrap();
        let s = kernel_summary(m.kernels().next().unwrap());
        assert_eq!(s.params, vec![".param .u32 n".to_string()]);
        assert_eq!(s.instructions, 2);
        let regs: Vec<(&str, u32, bool)> = s
            .registers
            .iter()
            .map(|r| (r.name.as_str(), r.count, r.range))
            .collect();
        assert_eq!(regs, vec![("%r", 3, true), ("%p", 1, false)]);
    }
}
