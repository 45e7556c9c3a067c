//! Lowering of a parsed PTX kernel (`ptx::ast::Function` with `kind == Entry`) to a
//! [`Kernel`]: registers interned to [`RegId`]s, symbols resolved to kernel parameters,
//! address bases or call slots, `.loc` positions attached, `.func` calls inlined, basic blocks
//! split at labels and after control transfers, terminators made explicit.
//!
//! Inlining: the body of a called `.func` is copied in place of the `call`, its registers and
//! labels renamed `name@callee#n` (n counts inlined instances), its formal parameters bound to
//! the caller's `.param` call slots. Call slots are modelled as registers
//! ([`RegKind::CallSlot`]): `st.param` writes one, `ld.param` reads it, so argument and result
//! passing are ordinary def-use chains and the `st.param`/`ld.param` instructions stay as
//! nodes (they are real instructions before ptxas optimizes the call away). The `call` itself
//! stays as a node; a callee `ret` becomes a jump to the instruction after the call.
//! Recursion and calls to body-less (`.extern`) functions are errors naming the callee, except
//! the CUDA system calls (`vprintf`, `__assertfail`, `malloc`, `free`), kept as opaque `call`
//! nodes that write their result slots and read their argument slots.
//!
//! Limits: calls nest at most [`MAX_CALL_DEPTH`] deep, and the inlined kernel holds at most
//! the inlining budget of statements ([`DEFAULT_INLINE_BUDGET`] unless the caller raises it),
//! so a deep chain or a doubling call tree is a clear error instead of a stack overflow or
//! gigabytes of copies. The expanded size is computed from the call graph before lowering, so
//! a call tree past the budget is refused without lowering the budget's worth of copies.

use crate::cfg::Cfg;
use crate::error::IrError;
use crate::ids::{BaseId, BlockId, InstId, RegId};
use crate::kernel::{
    AddrBase, BaseInfo, BaseKind, Block, Guard, Inst, Kernel, Operand, Param, RegInfo, RegKind,
    Special, SrcLoc, Term,
};
use crate::sem::{BoolOp, Cmp, IntTy, MulMode, Sem};
use ptx::ast;
use smallvec::SmallVec;
use std::collections::HashMap;

/// Deepest chain of inlined `.func` calls; nvcc and clang output stays far below it.
pub const MAX_CALL_DEPTH: usize = 64;

/// Default inlining budget: instructions and labels of a kernel after inlining. The largest
/// bundled kernel has about 154,000 statements.
pub const DEFAULT_INLINE_BUDGET: usize = 500_000;

/// Lowers every kernel of a module, in source order.
pub fn lower_all(module: &ast::Module) -> Result<Vec<Kernel>, IrError> {
    module
        .kernels()
        .map(|f| lower_function(module, f, DEFAULT_INLINE_BUDGET))
        .collect()
}

/// Lowers the kernel named exactly `name` (mangled).
pub fn lower_kernel(module: &ast::Module, name: &str) -> Result<Kernel, IrError> {
    lower_kernel_with_budget(module, name, DEFAULT_INLINE_BUDGET)
}

/// [`lower_kernel`] with an inlining budget of `max_inlined` statements.
pub fn lower_kernel_with_budget(
    module: &ast::Module,
    name: &str,
    max_inlined: usize,
) -> Result<Kernel, IrError> {
    lower_function(module, find_kernel(module, name)?, max_inlined)
}

/// The kernel named exactly `name` (mangled), or an error listing the module's kernels.
fn find_kernel<'m>(module: &'m ast::Module, name: &str) -> Result<&'m ast::Function, IrError> {
    module
        .kernels()
        .find(|f| f.name == name)
        .ok_or_else(|| IrError::NoSuchKernel {
            name: name.to_string(),
            known: module.kernels().map(|f| f.name.clone()).collect(),
        })
}

/// [`lower_kernel_with_budget`] taking the module, which is dropped once the kernel is
/// flattened and before it is cut into blocks: on a huge kernel the syntax tree is as large as
/// the blocks, and the two need not be held together.
pub fn lower_kernel_owned(
    module: ast::Module,
    name: &str,
    max_inlined: usize,
) -> Result<Kernel, IrError> {
    let flat = flatten_function(&module, find_kernel(&module, name)?, max_inlined, true)?;
    drop(module);
    flat.finish()
}

/// What a control-transfer instruction does, before labels are resolved.
#[derive(Debug, Clone)]
enum Ctl {
    None,
    Bra(String),
    Brx(RegId, String),
    Exit,
    /// A callee's `ret`: jump to the label after the call.
    Jump(String),
}

enum Flat {
    Label(String),
    /// An instruction of `Lowerer::insts`, which keeps them in order: on a huge kernel a
    /// boxed copy here and the final list would hold every instruction twice.
    Inst(InstId, Ctl),
    /// A `.branchtargets` table (rare: boxed so that the common items stay small).
    Targets(Box<(String, Vec<String>)>),
}

/// Per-function-instance naming scope.
struct Scope<'a> {
    func: &'a ast::Function,
    /// `@callee#n` appended to registers, labels and local variables; empty for the kernel.
    suffix: String,
    /// Formal parameter (and return parameter) name -> caller call slot.
    formals: HashMap<String, RegId>,
    /// `.param` variables declared in this body (call slots).
    slots: Vec<String>,
    /// Other variables declared in this body (`.shared`, `.local`, ...).
    locals: HashMap<String, BaseId>,
    /// Names of the inlined callees, outermost first.
    chain: Vec<String>,
}

struct Lowerer<'m> {
    module: &'m ast::Module,
    kernel: &'m ast::Function,
    regs: Vec<RegInfo>,
    reg_ix: HashMap<String, RegId>,
    bases: Vec<BaseInfo>,
    globals: HashMap<String, BaseId>,
    params: Vec<Param>,
    instances: HashMap<String, u32>,
    out: Vec<Flat>,
    insts: Vec<Inst>,
    loc: Option<SrcLoc>,
    max_inlined: usize,
}

fn lower_function(
    module: &ast::Module,
    f: &ast::Function,
    max_inlined: usize,
) -> Result<Kernel, IrError> {
    flatten_function(module, f, max_inlined, true)?.finish()
}

/// A kernel flattened (calls inlined, names resolved) but not yet cut into blocks. It owns
/// everything [`Flattened::finish`] needs, so the syntax tree may be dropped in between.
struct Flattened {
    name: String,
    ptx_line: u32,
    files: Vec<(u32, String)>,
    params: Vec<Param>,
    regs: Vec<RegInfo>,
    bases: Vec<BaseInfo>,
    out: Vec<Flat>,
    insts: Vec<Inst>,
}

/// Inlines and resolves kernel `f` of `module`. `precount`: refuse a call graph whose
/// expansion passes the budget before lowering it (off only in the test that checks the count
/// against lowering).
fn flatten_function(
    module: &ast::Module,
    f: &ast::Function,
    max_inlined: usize,
    precount: bool,
) -> Result<Flattened, IrError> {
    let mut l = Lowerer {
        module,
        kernel: f,
        regs: Vec::new(),
        reg_ix: HashMap::new(),
        bases: Vec::new(),
        globals: HashMap::new(),
        params: Vec::new(),
        instances: HashMap::new(),
        out: Vec::new(),
        insts: Vec::new(),
        loc: None,
        max_inlined,
    };
    for (i, p) in f.params.iter().enumerate() {
        let base = l.new_base(p.name.clone(), BaseKind::Param(i as u32));
        l.params.push(Param {
            name: p.name.clone(),
            bytes: p.ty.size_bytes().unwrap_or(8).min(u64::from(u32::MAX)) as u32,
            ty: p.ty.scalar,
            base,
        });
    }
    for g in module.globals() {
        l.check_size(g)?;
        let b = l.new_base(
            g.name.clone(),
            BaseKind::Var {
                space: g.space.as_str().to_string(),
            },
        );
        l.globals.insert(g.name.clone(), b);
    }
    let body = f.body.as_deref().unwrap_or(&[]);
    let mut scope = Scope {
        func: f,
        suffix: String::new(),
        formals: HashMap::new(),
        slots: Vec::new(),
        locals: HashMap::new(),
        chain: Vec::new(),
    };
    // The kernel's own statements count against the same budget as inlined ones: lowering
    // holds several copies of a body at once, so a kernel of millions of statements is
    // refused here, before any of them is lowered.
    let own = count_statements(body);
    if own > max_inlined {
        return Err(IrError::KernelSize {
            kernel: f.name.clone(),
            statements: own,
            budget: max_inlined,
        });
    }
    // A call tree that doubles at each level reaches the budget only after lowering it in
    // full; its expanded size is known from the call graph alone, so it is refused first.
    if let Some(callee) = budget_overflow(module, f, body, max_inlined).filter(|_| precount) {
        return Err(IrError::InlineBudget {
            kernel: f.name.clone(),
            budget: max_inlined,
            callee,
        });
    }
    l.declare(&mut scope, body)?;
    l.flatten(&scope, body)?;
    Ok(Flattened {
        name: f.name.clone(),
        ptx_line: f.span.line,
        files: module
            .files
            .iter()
            .map(|f| (f.index, f.name.clone()))
            .collect(),
        params: l.params,
        regs: l.regs,
        bases: l.bases,
        out: l.out,
        insts: l.insts,
    })
}

/// What flattening a body produces, from the call graph alone: `size` statements (labels,
/// instructions, inlined copies and their return labels) and, when the body has statements,
/// the count at the start of its last one relative to the body's start (`Lowerer::flatten`
/// checks the budget at the start of every inlined statement, so that is where the count
/// peaks among the checks).
#[derive(Clone, Copy)]
struct Expansion {
    size: u64,
    last_check: Option<u64>,
}

/// The top-level callee of `kernel` during whose inlining [`Lowerer::flatten`] would first
/// find more than `budget` statements, computed without lowering (each function's expansion
/// once); `None` when the budget holds or the call graph has something lowering reports
/// itself (an unknown or indirect callee, recursion, calls nested past [`MAX_CALL_DEPTH`]).
fn budget_overflow(
    module: &ast::Module,
    kernel: &ast::Function,
    body: &[ast::Statement],
    budget: usize,
) -> Option<String> {
    let mut memo: HashMap<String, Option<Expansion>> = HashMap::new();
    memo.insert(kernel.name.clone(), None);
    let mut count = 0u64;
    top_level_overflow(module, body, budget as u64, &mut memo, &mut count)
}

/// The kernel's own statements (not checked against the budget, see `Lowerer::flatten`),
/// `count` advanced past each; the first call whose body's checks pass `budget` is named.
fn top_level_overflow(
    module: &ast::Module,
    stmts: &[ast::Statement],
    budget: u64,
    memo: &mut HashMap<String, Option<Expansion>>,
    count: &mut u64,
) -> Option<String> {
    for s in stmts {
        match s {
            ast::Statement::Block(b, _) => {
                if let Some(c) = top_level_overflow(module, b, budget, memo, count) {
                    return Some(c);
                }
            }
            ast::Statement::Inst(i) if i.op.is_call() => {
                let (callee, e) = callee_expansion(module, i, memo, 1)?;
                *count = count.saturating_add(1);
                if let Some(e) = e {
                    if e.last_check
                        .is_some_and(|x| count.saturating_add(x) > budget)
                    {
                        return Some(callee);
                    }
                    *count = count.saturating_add(e.size).saturating_add(1);
                }
            }
            s => *count = count.saturating_add(produced(s)),
        }
    }
    None
}

/// Statements a non-call, non-scope statement adds when flattened.
fn produced(s: &ast::Statement) -> u64 {
    match s {
        ast::Statement::Label { .. }
        | ast::Statement::Inst(_)
        | ast::Statement::BranchTargets { .. } => 1,
        _ => 0,
    }
}

/// The callee of a direct call and its expansion (`None` for a system call, which stays one
/// instruction); `None` overall when lowering would refuse the call itself.
fn callee_expansion(
    module: &ast::Module,
    i: &ast::Instruction,
    memo: &mut HashMap<String, Option<Expansion>>,
    depth: usize,
) -> Option<(String, Option<Expansion>)> {
    // The callee is the first symbol operand; a register before it is an indirect call.
    let callee = i.operands.iter().find_map(|o| match o {
        ast::Operand::Sym(s) => Some(Some(s)),
        ast::Operand::Reg(_) => Some(None),
        _ => None,
    })??;
    let f = module.function(callee)?;
    let Some(body) = f.body.as_deref() else {
        return SYSTEM_CALLS
            .contains(&callee.as_str())
            .then(|| (callee.clone(), None));
    };
    if depth > MAX_CALL_DEPTH {
        return None;
    }
    let e = match memo.get(callee) {
        // Being expanded: recursion, which lowering reports by name.
        Some(None) => return None,
        Some(Some(e)) => *e,
        None => {
            memo.insert(callee.clone(), None);
            let e = expansion(module, body, memo, depth)?;
            memo.insert(callee.clone(), Some(e));
            e
        }
    };
    Some((callee.clone(), Some(e)))
}

/// The [`Expansion`] of an inlined body at call depth `depth`.
fn expansion(
    module: &ast::Module,
    stmts: &[ast::Statement],
    memo: &mut HashMap<String, Option<Expansion>>,
    depth: usize,
) -> Option<Expansion> {
    let mut at = 0u64;
    let mut last_check = None;
    for s in stmts {
        last_check = Some(at);
        match s {
            ast::Statement::Block(b, _) => {
                let e = expansion(module, b, memo, depth)?;
                if let Some(x) = e.last_check {
                    last_check = Some(at.saturating_add(x));
                }
                at = at.saturating_add(e.size);
            }
            ast::Statement::Inst(i) if i.op.is_call() => {
                at = at.saturating_add(1);
                if let (_, Some(e)) = callee_expansion(module, i, memo, depth + 1)? {
                    if let Some(x) = e.last_check {
                        last_check = Some(at.saturating_add(x));
                    }
                    at = at.saturating_add(e.size).saturating_add(1);
                }
            }
            s => at = at.saturating_add(produced(s)),
        }
    }
    Some(Expansion {
        size: at,
        last_check,
    })
}

/// Instructions and labels of a body, nested scopes included.
fn count_statements(stmts: &[ast::Statement]) -> usize {
    stmts
        .iter()
        .map(|s| match s {
            ast::Statement::Block(b, _) => count_statements(b),
            ast::Statement::Inst(_) | ast::Statement::Label { .. } => 1,
            _ => 0,
        })
        .sum()
}

fn collect_decls<'s>(stmts: &'s [ast::Statement], out: &mut Vec<&'s ast::VarDecl>) {
    for s in stmts {
        match s {
            ast::Statement::Var(v) => out.push(v),
            ast::Statement::Block(b, _) => collect_decls(b, out),
            _ => {}
        }
    }
}

fn is_param_space(s: ast::StateSpace) -> bool {
    matches!(
        s,
        ast::StateSpace::Param | ast::StateSpace::ParamEntry | ast::StateSpace::ParamFunc
    )
}

impl<'m> Lowerer<'m> {
    fn new_base(&mut self, name: String, kind: BaseKind) -> BaseId {
        self.bases.push(BaseInfo { name, kind });
        BaseId::from_index(self.bases.len() - 1)
    }

    fn intern(&mut self, name: String, kind: RegKind) -> RegId {
        if let Some(r) = self.reg_ix.get(&name) {
            return *r;
        }
        let id = RegId::from_index(self.regs.len());
        self.reg_ix.insert(name.clone(), id);
        self.regs.push(RegInfo { name, kind });
        id
    }

    fn reg(&mut self, scope: &Scope, name: &str) -> RegId {
        self.intern(format!("{name}{}", scope.suffix), RegKind::Reg)
    }

    fn label(scope: &Scope, name: &str) -> String {
        format!("{name}{}", scope.suffix)
    }

    /// Registers the variables declared anywhere in a body.
    fn declare(&mut self, scope: &mut Scope, body: &[ast::Statement]) -> Result<(), IrError> {
        let mut decls = Vec::new();
        collect_decls(body, &mut decls);
        for v in decls {
            self.check_size(v)?;
            if is_param_space(v.space) {
                scope.slots.push(v.name.clone());
            } else {
                let b = self.new_base(
                    format!("{}{}", v.name, scope.suffix),
                    BaseKind::Var {
                        space: v.space.as_str().to_string(),
                    },
                );
                scope.locals.insert(v.name.clone(), b);
            }
        }
        Ok(())
    }

    /// A declaration whose size overflows 64 bits describes no memory: it was counted as 0
    /// bytes (static shared memory) or not at all.
    fn check_size(&self, v: &ast::VarDecl) -> Result<(), IrError> {
        if v.ty.size_overflows() {
            return Err(IrError::ArraySize {
                kernel: self.kernel.name.clone(),
                array: v.name.clone(),
                space: v.space.as_str().to_string(),
                line: v.span.line,
            });
        }
        Ok(())
    }

    fn err_unsupported(&self, what: String, line: u32) -> IrError {
        IrError::Unsupported {
            kernel: self.kernel.name.clone(),
            what,
            line,
        }
    }

    fn push_inst(&mut self, inst: Inst, ctl: Ctl) {
        self.out
            .push(Flat::Inst(InstId::from_index(self.insts.len()), ctl));
        self.insts.push(inst);
    }

    fn flatten(&mut self, scope: &Scope, stmts: &[ast::Statement]) -> Result<(), IrError> {
        for s in stmts {
            // The kernel's own body was counted before flattening; only copies are checked here.
            if !scope.chain.is_empty() && self.out.len() > self.max_inlined {
                return Err(IrError::InlineBudget {
                    kernel: self.kernel.name.clone(),
                    budget: self.max_inlined,
                    callee: scope.chain[0].clone(),
                });
            }
            match s {
                ast::Statement::Label { name, .. } => {
                    self.out.push(Flat::Label(Self::label(scope, name)));
                }
                ast::Statement::Loc(loc) => {
                    self.loc = Some(SrcLoc {
                        file: loc.file,
                        line: loc.line,
                    });
                }
                ast::Statement::Block(b, _) => self.flatten(scope, b)?,
                ast::Statement::BranchTargets { label, targets, .. } => {
                    let t = targets.iter().map(|t| Self::label(scope, t)).collect();
                    self.out
                        .push(Flat::Targets(Box::new((Self::label(scope, label), t))));
                }
                ast::Statement::Inst(i) if i.op.is_call() => self.call(scope, i)?,
                ast::Statement::Inst(i) => {
                    let (inst, ctl) = self.inst(scope, i)?;
                    self.push_inst(inst, ctl);
                }
                ast::Statement::Reg(_)
                | ast::Statement::Var(_)
                | ast::Statement::Pragma(_)
                | ast::Statement::CallTargets { .. }
                | ast::Statement::CallPrototype(_) => {}
            }
        }
        Ok(())
    }

    /// Inlines `call[.uni] (rets), callee, (args);`.
    fn call(&mut self, scope: &Scope, i: &ast::Instruction) -> Result<(), IrError> {
        let line = i.span.line;
        let mut rets: &[ast::Operand] = &[];
        let mut args: &[ast::Operand] = &[];
        let mut callee = None;
        let mut indirect = false;
        for o in &i.operands {
            match o {
                ast::Operand::List(v) if callee.is_none() && !indirect => rets = v,
                ast::Operand::List(v) => args = v,
                ast::Operand::Sym(s) if callee.is_none() && !indirect => callee = Some(s.clone()),
                ast::Operand::Reg(_) if callee.is_none() => indirect = true,
                _ => {}
            }
        }
        let Some(callee) = callee.filter(|_| !indirect) else {
            return Err(self.err_unsupported(
                "indirect call through a register (its callee is unknown, so it cannot be inlined)"
                    .into(),
                line,
            ));
        };
        let Some(f) = self.module.function(&callee) else {
            return Err(IrError::UndefinedCallee {
                kernel: self.kernel.name.clone(),
                callee,
                line,
            });
        };
        let Some(body) = f.body.as_deref() else {
            if SYSTEM_CALLS.contains(&callee.as_str()) {
                return self.opaque_call(scope, i, callee, rets, args);
            }
            return Err(IrError::ExternCallee {
                kernel: self.kernel.name.clone(),
                callee,
                line,
            });
        };
        if callee == self.kernel.name || scope.chain.contains(&callee) {
            let mut chain = vec![self.kernel.name.clone()];
            chain.extend(scope.chain.iter().cloned());
            chain.push(callee);
            return Err(IrError::Recursion {
                kernel: self.kernel.name.clone(),
                chain,
            });
        }
        if scope.chain.len() >= MAX_CALL_DEPTH {
            return Err(IrError::CallDepth {
                kernel: self.kernel.name.clone(),
                callee,
                line,
                limit: MAX_CALL_DEPTH,
            });
        }
        if rets.len() != f.ret_params.len() || args.len() != f.params.len() {
            return Err(IrError::CallArity {
                kernel: self.kernel.name.clone(),
                callee,
                line,
                given: args.len(),
                expected: f.params.len(),
                given_ret: rets.len(),
                expected_ret: f.ret_params.len(),
            });
        }
        if let Some(p) = f
            .params
            .iter()
            .chain(&f.ret_params)
            .find(|p| !is_param_space(p.space))
        {
            return Err(self.err_unsupported(
                format!(
                    "call to `{callee}`: parameter `{}` is passed in .reg space",
                    p.name
                ),
                line,
            ));
        }
        let n = self.instances.entry(callee.clone()).or_insert(0);
        *n += 1;
        let suffix = format!("@{callee}#{n}");
        let mut formals = HashMap::new();
        for (formal, actual) in f
            .params
            .iter()
            .zip(args)
            .chain(f.ret_params.iter().zip(rets))
        {
            let slot = match actual {
                ast::Operand::Sym(s) => self.slot(scope, s),
                _ => {
                    return Err(self.err_unsupported(
                        format!(
                            "call to `{callee}`: argument for `{}` is not a .param variable",
                            formal.name
                        ),
                        line,
                    ))
                }
            };
            formals.insert(formal.name.clone(), slot);
        }
        // The call itself stays as a node: it is an instruction the warp issues.
        let mut call_inst = self.base_inst(scope, i);
        call_inst
            .operands
            .push(Operand::Sym(callee.as_str().into()));
        self.push_inst(call_inst, Ctl::None);

        let mut chain = scope.chain.clone();
        chain.push(callee.clone());
        let mut inner = Scope {
            func: f,
            suffix,
            formals,
            slots: Vec::new(),
            locals: HashMap::new(),
            chain,
        };
        self.declare(&mut inner, body)?;
        let saved_loc = self.loc;
        self.flatten(&inner, body)?;
        self.loc = saved_loc;
        self.out.push(Flat::Label(format!("$ret{}", inner.suffix)));
        Ok(())
    }

    /// A call to a CUDA system function stays one node: it writes its result slots and
    /// reads its argument slots.
    fn opaque_call(
        &mut self,
        scope: &Scope,
        i: &ast::Instruction,
        callee: String,
        rets: &[ast::Operand],
        args: &[ast::Operand],
    ) -> Result<(), IrError> {
        let mut inst = self.base_inst(scope, i);
        inst.guard = i.guard.as_ref().map(|g| Guard {
            pred: self.reg(scope, &g.pred),
            negated: g.negated,
        });
        let slot_operand = |l: &mut Self, o: &ast::Operand| match o {
            ast::Operand::Sym(s) => Operand::Addr {
                base: AddrBase::Slot(l.slot(scope, s)),
                offset: 0,
            },
            o => l.operand(scope, o),
        };
        for o in rets {
            let op = slot_operand(self, o);
            inst.operands.push(op);
        }
        inst.ndefs = rets.len() as u8;
        inst.operands.push(Operand::Sym(callee.into()));
        for o in args {
            let op = slot_operand(self, o);
            inst.operands.push(op);
        }
        self.push_inst(inst, Ctl::None);
        Ok(())
    }

    /// The register standing for `.param` variable `name` visible in `scope`.
    fn slot(&mut self, scope: &Scope, name: &str) -> RegId {
        if let Some(r) = scope.formals.get(name) {
            return *r;
        }
        self.intern(format!("{name}{}", scope.suffix), RegKind::CallSlot)
    }

    fn base_inst(&self, scope: &Scope, i: &ast::Instruction) -> Inst {
        Inst {
            op: i.op.clone(),
            sem: Sem::Other,
            ty: None,
            guard: None,
            operands: SmallVec::new(),
            ndefs: 0,
            ptx_line: i.span.line,
            span: i.span,
            loc: self.loc,
            block: BlockId(0),
            inlined_from: scope.chain.clone(),
        }
    }

    fn inst(&mut self, scope: &Scope, i: &ast::Instruction) -> Result<(Inst, Ctl), IrError> {
        let line = i.span.line;
        let mut inst = self.base_inst(scope, i);
        inst.guard = i.guard.as_ref().map(|g| Guard {
            pred: self.reg(scope, &g.pred),
            negated: g.negated,
        });
        let (sem, ty) = decode(&i.op);
        inst.sem = sem;
        inst.ty = ty;
        let mut ops: SmallVec<[Operand; 4]> = SmallVec::new();
        let mut ndefs = 0u8;
        for (k, o) in i.operands.iter().enumerate() {
            if k == 0 {
                if let ast::Operand::Pair(a, b) = o {
                    ops.push(self.operand(scope, a));
                    ops.push(self.operand(scope, b));
                    ndefs = 2;
                    continue;
                }
            }
            ops.push(self.operand(scope, o));
        }
        if ndefs == 0 && !ops.is_empty() && has_destination(&i.op) {
            ndefs = 1;
        }
        inst.operands = ops;
        inst.ndefs = ndefs;
        let op = &i.op;
        let ctl = match op.opcode {
            ast::Opcode::Bra => match i.operands.last() {
                Some(ast::Operand::Sym(t)) => Ctl::Bra(Self::label(scope, t)),
                _ => return Err(self.err_unsupported("branch without a label target".into(), line)),
            },
            ast::Opcode::Brx => {
                if inst.guard.is_some() {
                    return Err(self.err_unsupported("guarded brx.idx".into(), line));
                }
                match (i.operands.first(), i.operands.get(1)) {
                    (Some(ast::Operand::Reg(r)), Some(ast::Operand::Sym(t))) => {
                        Ctl::Brx(self.reg(scope, r), Self::label(scope, t))
                    }
                    _ => {
                        return Err(self.err_unsupported(
                            "brx.idx needs an index register and a .branchtargets label".into(),
                            line,
                        ))
                    }
                }
            }
            ast::Opcode::Ret if !scope.chain.is_empty() => {
                Ctl::Jump(format!("$ret{}", scope.suffix))
            }
            ast::Opcode::Ret | ast::Opcode::Exit | ast::Opcode::Trap => Ctl::Exit,
            _ => Ctl::None,
        };
        let _ = scope.func;
        Ok((inst, ctl))
    }

    fn operand(&mut self, scope: &Scope, o: &ast::Operand) -> Operand {
        match o {
            ast::Operand::Reg(r) | ast::Operand::RegField { reg: r, .. } => {
                Operand::Reg(self.reg(scope, r))
            }
            ast::Operand::NotPred(r) => Operand::NotPred(self.reg(scope, r)),
            ast::Operand::Imm(ast::Imm::Int(v)) => Operand::Imm(*v as u64),
            ast::Operand::Imm(ast::Imm::UInt(v)) => Operand::Imm(*v),
            ast::Operand::Imm(ast::Imm::F32(b)) => Operand::Float(f64::from(f32::from_bits(*b))),
            ast::Operand::Imm(ast::Imm::F64(b)) => Operand::Float(f64::from_bits(*b)),
            ast::Operand::Special(s) => Operand::Special(special(s)),
            ast::Operand::Addr(a) => {
                let base = match &a.base {
                    ast::AddrBase::Reg(r) => AddrBase::Reg(self.reg(scope, r)),
                    ast::AddrBase::Imm(v) => {
                        return Operand::Addr {
                            base: AddrBase::Absolute,
                            offset: v.wrapping_add(a.offset),
                        }
                    }
                    ast::AddrBase::Sym(s) => self.sym_base(scope, s),
                };
                Operand::Addr {
                    base,
                    offset: a.offset,
                }
            }
            ast::Operand::AddrList(v) | ast::Operand::Vector(v) | ast::Operand::List(v) => {
                Operand::Vector(v.iter().map(|o| self.operand(scope, o)).collect())
            }
            ast::Operand::Pair(a, b) => Operand::Vector(
                [self.operand(scope, a), self.operand(scope, b)]
                    .into_iter()
                    .collect(),
            ),
            ast::Operand::Sym(s) => self.sym_value(scope, s, 0),
            ast::Operand::SymOffset { name, offset } => self.sym_value(scope, name, *offset),
            ast::Operand::Sink => Operand::Sink,
        }
    }

    fn var_base(&self, scope: &Scope, s: &str) -> Option<BaseId> {
        scope.locals.get(s).or_else(|| self.globals.get(s)).copied()
    }

    fn sym_value(&mut self, scope: &Scope, s: &str, offset: i64) -> Operand {
        match self.var_base(scope, s) {
            Some(base) => Operand::Base { base, offset },
            None => Operand::Sym(s.into()),
        }
    }

    fn sym_base(&mut self, scope: &Scope, s: &str) -> AddrBase {
        if scope.formals.contains_key(s) || scope.slots.iter().any(|x| x == s) {
            return AddrBase::Slot(self.slot(scope, s));
        }
        if scope.chain.is_empty() {
            if let Some(i) = self.kernel.params.iter().position(|p| p.name == s) {
                return AddrBase::KernelParam(i as u32);
            }
        }
        match self.var_base(scope, s) {
            Some(b) => AddrBase::Var(b),
            None => {
                // An undeclared symbol: give it a base of its own so addresses stay distinct.
                let b = self.new_base(
                    format!("{s}{}", scope.suffix),
                    BaseKind::Var {
                        space: "unknown".into(),
                    },
                );
                self.globals.insert(s.to_string(), b);
                AddrBase::Var(b)
            }
        }
    }
}

impl Flattened {
    /// Splits the flat list into blocks and resolves labels.
    fn finish(self) -> Result<Kernel, IrError> {
        let kname = self.name;
        // Pass 1: block boundaries and label -> block.
        let mut labels: HashMap<String, BlockId> = HashMap::new();
        let mut tables: HashMap<String, Vec<String>> = HashMap::new();
        let mut block_of_item: Vec<Option<BlockId>> = Vec::with_capacity(self.out.len());
        let mut nblocks = 0usize;
        let mut open = false; // current block has instructions or a label and may take more
        let mut open_has_inst = false;
        for item in &self.out {
            match item {
                Flat::Label(name) => {
                    if !open || open_has_inst {
                        nblocks += 1;
                        open = true;
                        open_has_inst = false;
                    }
                    let b = BlockId::from_index(nblocks - 1);
                    if labels.insert(name.clone(), b).is_some() {
                        return Err(IrError::DuplicateLabel {
                            kernel: kname,
                            label: name.clone(),
                            line: 0,
                        });
                    }
                    block_of_item.push(Some(b));
                }
                Flat::Inst(_, ctl) => {
                    if !open {
                        nblocks += 1;
                        open = true;
                    }
                    open_has_inst = true;
                    block_of_item.push(Some(BlockId::from_index(nblocks - 1)));
                    if !matches!(ctl, Ctl::None) {
                        open = false;
                        open_has_inst = false;
                    }
                }
                Flat::Targets(table) => {
                    tables.insert(table.0.clone(), table.1.clone());
                    block_of_item.push(None);
                }
            }
        }
        if nblocks == 0 {
            nblocks = 1;
        }
        // Pass 2: fill blocks.
        let mut blocks: Vec<Block> = (0..nblocks)
            .map(|_| Block {
                label: None,
                insts: Vec::new(),
                term: Term::Exit,
            })
            .collect();
        let mut ctls: Vec<Option<Ctl>> = vec![None; nblocks];
        let mut insts = self.insts;
        for (item, b) in self.out.into_iter().zip(block_of_item) {
            let Some(b) = b else { continue };
            match item {
                Flat::Label(name) => {
                    if blocks[b.index()].label.is_none() {
                        blocks[b.index()].label = Some(name);
                    }
                }
                Flat::Inst(id, ctl) => {
                    insts[id.index()].block = b;
                    blocks[b.index()].insts.push(id);
                    if !matches!(ctl, Ctl::None) {
                        ctls[b.index()] = Some(ctl);
                    }
                }
                Flat::Targets(..) => {}
            }
        }
        // Pass 3: terminators. Falling off the end of the body leaves the kernel; guarded
        // exits branch to one shared empty exit block appended at the end.
        let mut exit_block: Option<BlockId> = None;
        let mut need_exit = |blocks_len: usize| -> BlockId {
            *exit_block.get_or_insert(BlockId::from_index(blocks_len))
        };
        let n = blocks.len();
        for bi in 0..n {
            let next = (bi + 1 < n).then(|| BlockId::from_index(bi + 1));
            let last = blocks[bi].insts.last().map(|i| &insts[i.index()]);
            let guard = last.and_then(|i| i.guard);
            let line = last.map_or(0, |i| i.ptx_line);
            let resolve = |l: &str| -> Result<BlockId, IrError> {
                labels
                    .get(l)
                    .copied()
                    .ok_or_else(|| IrError::UndefinedLabel {
                        kernel: kname.clone(),
                        label: l.to_string(),
                        line,
                    })
            };
            let fall = |blocks_len: usize, need: &mut dyn FnMut(usize) -> BlockId| match next {
                Some(b) => b,
                None => need(blocks_len),
            };
            let term = match ctls[bi].take() {
                None | Some(Ctl::None) => match next {
                    Some(b) => Term::Goto(b),
                    None => Term::Exit,
                },
                Some(Ctl::Bra(t)) | Some(Ctl::Jump(t)) => {
                    let t = resolve(&t)?;
                    match guard {
                        Some(g) => Term::Cond {
                            guard: g,
                            taken: t,
                            fall: fall(n, &mut need_exit),
                        },
                        None => Term::Goto(t),
                    }
                }
                Some(Ctl::Brx(r, table)) => {
                    let targets = tables.get(&table).ok_or_else(|| IrError::UndefinedLabel {
                        kernel: kname.clone(),
                        label: table.clone(),
                        line,
                    })?;
                    let targets = targets
                        .iter()
                        .map(|t| resolve(t))
                        .collect::<Result<_, _>>()?;
                    Term::Switch { index: r, targets }
                }
                Some(Ctl::Exit) => match guard {
                    Some(g) => Term::Cond {
                        guard: g,
                        taken: need_exit(n),
                        fall: fall(n, &mut need_exit),
                    },
                    None => Term::Exit,
                },
            };
            blocks[bi].term = term;
        }
        if exit_block.is_some() {
            blocks.push(Block {
                label: None,
                insts: Vec::new(),
                term: Term::Exit,
            });
        }
        let succs = blocks.iter().map(|b| b.term.succs()).collect();
        let exits = blocks
            .iter()
            .enumerate()
            .filter(|(_, b)| b.term == Term::Exit)
            .map(|(i, _)| BlockId::from_index(i))
            .collect();
        let cfg = Cfg::new(succs, exits);
        Ok(Kernel {
            name: kname,
            params: self.params,
            insts,
            blocks,
            regs: self.regs,
            bases: self.bases,
            files: self.files,
            ptx_line: self.ptx_line,
            cfg,
        })
    }
}

/// Functions the CUDA driver provides without a PTX body (`printf`, `assert`, device
/// `malloc`/`free`): calls to them are kept as opaque nodes instead of being inlined.
const SYSTEM_CALLS: &[&str] = &["vprintf", "__assertfail", "malloc", "free"];

/// Instructions whose first operand is not written (control, barriers, fences, prefetches).
fn has_destination(op: &ast::Op) -> bool {
    use ast::Opcode::*;
    !matches!(
        op.opcode,
        Bra | Brx
            | Call
            | Ret
            | Exit
            | Trap
            | Brkpt
            | Bar
            | Barrier
            | Membar
            | Fence
            | Prefetch
            | Prefetchu
            | Pmevent
            | Nanosleep
            | Griddepcontrol
            | Setmaxnreg
            | Applypriority
            | Discard
    )
}

fn dim(d: &ast::Dim) -> u8 {
    match d {
        ast::Dim::X => 0,
        ast::Dim::Y => 1,
        ast::Dim::Z => 2,
    }
}

fn special(s: &ast::SpecialReg) -> Special {
    use ast::SpecialReg as S;
    match s {
        S::Tid(d) => Special::Tid(dim(d)),
        S::Ntid(d) => Special::Ntid(dim(d)),
        S::Ctaid(d) => Special::Ctaid(dim(d)),
        S::Nctaid(d) => Special::Nctaid(dim(d)),
        S::Laneid => Special::LaneId,
        S::Warpid => Special::WarpId,
        S::WarpSz => Special::WarpSize,
        _ => Special::Other,
    }
}

fn int_ty(t: ast::ScalarType) -> Option<IntTy> {
    if t == ast::ScalarType::Pred {
        return Some(IntTy::PRED);
    }
    let bits = t.bits();
    if t.is_float() || !matches!(bits, 8 | 16 | 32 | 64) || t.as_str().ends_with("x2") {
        return None;
    }
    Some(IntTy {
        bits: bits as u8,
        signed: t.is_signed_int(),
    })
}

/// Decodes the interpreter's view of an operation.
pub(crate) fn decode(op: &ast::Op) -> (Sem, Option<IntTy>) {
    use ast::Opcode as O;
    let m = &op.mods;
    let ty = m.types.first().copied().and_then(int_ty);
    let flags = m.flags;
    let mode = if flags.contains(ast::Flag::Hi) {
        MulMode::Hi
    } else if flags.contains(ast::Flag::Wide) {
        MulMode::Wide
    } else {
        MulMode::Lo
    };
    let carry = flags.contains(ast::Flag::Cc) || flags.contains(ast::Flag::Sat);
    let sem = match op.opcode {
        O::Mov => Sem::Mov,
        O::Add if !carry => Sem::Add,
        O::Sub if !carry => Sem::Sub,
        O::Mul => Sem::Mul(mode),
        O::Mad if !carry => Sem::Mad(mode),
        O::Shl => Sem::Shl,
        O::Shr => Sem::Shr,
        O::And => Sem::And,
        O::Or => Sem::Or,
        O::Xor => Sem::Xor,
        O::Not => Sem::Not,
        O::Neg => Sem::Neg,
        O::Abs => Sem::Abs,
        O::Min => Sem::Min,
        O::Max => Sem::Max,
        O::Div => Sem::Div,
        O::Rem => Sem::Rem,
        O::Cvta => Sem::Cvta,
        O::Selp => Sem::Selp,
        O::Bfe => Sem::Bfe,
        O::Cvt => match m.types.get(1).copied().and_then(int_ty) {
            Some(from) if m.rounding.is_none() || from.bits > 1 => Sem::Cvt(from),
            _ => Sem::Other,
        },
        O::Setp => {
            let (cmp, unsigned) = match m.cmp {
                Some(ast::CmpOp::Eq) => (Cmp::Eq, false),
                Some(ast::CmpOp::Ne) => (Cmp::Ne, false),
                Some(ast::CmpOp::Lt) => (Cmp::Lt, false),
                Some(ast::CmpOp::Le) => (Cmp::Le, false),
                Some(ast::CmpOp::Gt) => (Cmp::Gt, false),
                Some(ast::CmpOp::Ge) => (Cmp::Ge, false),
                Some(ast::CmpOp::Lo) => (Cmp::Lt, true),
                Some(ast::CmpOp::Ls) => (Cmp::Le, true),
                Some(ast::CmpOp::Hi) => (Cmp::Gt, true),
                Some(ast::CmpOp::Hs) => (Cmp::Ge, true),
                _ => return (Sem::Other, None),
            };
            let combine = m.bool_op.map(|b| match b {
                ast::BoolOp::And => BoolOp::And,
                ast::BoolOp::Or => BoolOp::Or,
                ast::BoolOp::Xor => BoolOp::Xor,
            });
            let ty = ty.map(|t| {
                if unsigned {
                    IntTy { signed: false, ..t }
                } else {
                    t
                }
            });
            return (Sem::Setp(cmp, combine), ty);
        }
        O::Ld if m.space.is_some_and(is_param_space) => Sem::LdParam,
        O::St if m.space.is_some_and(is_param_space) => Sem::StParam,
        _ => Sem::Other,
    };
    if sem == Sem::Other {
        return (Sem::Other, None);
    }
    // Vector moves/param loads (`ld.param.v2`) are not modelled lane-wise.
    if m.vector.is_some() {
        return (Sem::Other, None);
    }
    (sem, ty)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A module where `f{i}` calls `f{i+1}` `fanout` times between `pad` instructions, some in
    /// nested scopes, with a system call and labels; the kernel calls `f0` after `lead`
    /// instructions and has `tail` more after it.
    fn tree(depth: usize, fanout: usize, pad: usize, lead: usize, tail: usize) -> String {
        let mut s = String::from(
            ".version 7.0\n.target sm_80\n.address_size 64\n\
             .extern .func (.param .b32 r) vprintf (.param .b64 a, .param .b64 b);\n",
        );
        for i in (0..depth).rev() {
            s += &format!(".func f{i}()\n{{\n .reg .b32 %r<2>;\n");
            for k in 0..pad {
                s += &format!("A{k}:\n add.s32 %r1, %r1, 1;\n");
            }
            if i + 1 < depth {
                for k in 0..fanout {
                    if k % 2 == 1 {
                        s += &format!(" {{\n call f{}, ();\n }}\n", i + 1);
                    } else {
                        s += &format!(" call f{}, ();\n", i + 1);
                    }
                }
            }
            if i % 3 == 0 {
                s += " {\n .param .b32 r;\n .param .b64 a;\n .param .b64 b;\n \
                      call (r), vprintf, (a, b);\n }\n";
            }
            s += " ret;\n}\n";
        }
        s += ".visible .entry k()\n{\n .reg .b32 %r<2>;\n";
        for _ in 0..lead {
            s += " add.s32 %r1, %r1, 1;\n";
        }
        s += " {\n call f0, ();\n }\n";
        for _ in 0..tail {
            s += " add.s32 %r1, %r1, 1;\n";
        }
        s + " ret;\n}\n"
    }

    #[test]
    fn lowering_an_owned_module_gives_the_same_kernel() {
        let text = tree(4, 2, 2, 1, 3);
        let m = ptx::parse(&text).unwrap();
        let borrowed = lower_kernel_with_budget(&m, "k", 10_000).unwrap();
        let owned = lower_kernel_owned(m, "k", 10_000).unwrap();
        assert_eq!(format!("{owned:?}"), format!("{borrowed:?}"));
        let m = ptx::parse(&text).unwrap();
        assert!(matches!(
            lower_kernel_owned(m, "nope", 10_000),
            Err(IrError::NoSuchKernel { .. })
        ));
    }

    /// The budget refused from the call graph is exactly the one lowering would hit: the
    /// same outcome and the same callee for every budget around the kernel's expanded size.
    #[test]
    fn the_precount_refuses_exactly_what_lowering_refuses() {
        for (depth, fanout, pad, lead, tail) in [
            (1, 1, 3, 0, 0),
            (4, 2, 2, 1, 5),
            (6, 3, 0, 4, 40),
            (5, 2, 5, 0, 200),
        ] {
            let m = ptx::parse(&tree(depth, fanout, pad, lead, tail)).unwrap();
            let k = m.kernels().next().unwrap();
            let full = flatten_function(&m, k, usize::MAX, false)
                .and_then(Flattened::finish)
                .unwrap()
                .insts
                .len();
            let body = k.body.as_deref().unwrap();
            let mut refused = 0;
            for budget in 0..full + 8 {
                let with = flatten_function(&m, k, budget, true)
                    .and_then(Flattened::finish)
                    .map(|k| k.insts.len());
                let without = flatten_function(&m, k, budget, false)
                    .and_then(Flattened::finish)
                    .map(|k| k.insts.len());
                let case = format!("tree {depth}x{fanout}, pad {pad}, budget {budget}");
                assert_eq!(format!("{with:?}"), format!("{without:?}"), "{case}");
                let counted = budget_overflow(&m, k, body, budget);
                match without {
                    Err(IrError::InlineBudget { callee, .. }) => {
                        assert_eq!(counted, Some(callee), "{case}");
                        refused += 1;
                    }
                    Err(IrError::KernelSize { .. }) => {}
                    other => assert!(counted.is_none(), "{case}: {other:?}"),
                }
            }
            assert!(refused > 0, "tree {depth}x{fanout}: some budget is refused");
        }
    }
}
