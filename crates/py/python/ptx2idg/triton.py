"""Ranking Triton autotuning configurations before anything runs.

``rank(fn, configs, *args, grid=..., **meta)`` compiles each ``triton.Config`` of a
``@triton.jit`` function with ``triton.compile`` for the target GPU (Triton's bundled ptxas;
no GPU and no driver needed), reads the registers ptxas allocated, and predicts each
configuration's time with the Pipeline model at the launch grid the kernel would use.
``prune(top_k)`` is the same ranking as an ``early_config_prune`` hook for
``@triton.autotune``, so only the predicted best ``top_k`` configurations are measured.

Arguments stand for what the kernel is launched with: tensors (only ``dtype`` and, when
present, ``data_ptr()`` are read), Triton pointer type strings such as ``"*fp16"``, ints,
floats and bools. They are specialized the way Triton's launcher does (ints equal to 1 become
constants; pointers and ints divisible by 16 are marked so), so the compiled PTX is the one a
real launch would run.
"""

import os
import re
import subprocess
import tempfile
from collections import namedtuple

from . import Ptx2idgError, simulate

#: One ranked configuration; ``time_us`` is ``inf`` and ``error`` says why when the
#: configuration could not be compiled or predicted. ``spill_bytes`` is spill stores plus loads
#: per thread, as ptxas reports them; the prediction times the machine code's spill
#: instructions, which the PTX does not have (``with_local_traffic``).
Ranked = namedtuple("Ranked", ["config", "time_us", "cycles", "regs", "spill_bytes", "shared",
                               "grid", "error"])

_DTYPES = {
    "float32": "fp32", "float16": "fp16", "bfloat16": "bf16", "float64": "fp64",
    "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64", "uint8": "u8",
    "bool": "i1", "float8_e4m3fn": "fp8e4nv", "float8_e5m2": "fp8e5",
}


def _jit(fn):
    """The JITFunction under autotune / heuristics wrappers."""
    while not hasattr(fn, "arg_names") or not hasattr(fn, "params") or hasattr(fn, "configs"):
        if not hasattr(fn, "fn"):
            raise TypeError(f"{fn!r} is not a @triton.jit function")
        fn = fn.fn
    return fn


def _pointer_type(v):
    if isinstance(v, str):
        if not v.startswith("*"):
            raise TypeError(f"{v!r}: a pointer type string starts with '*', e.g. '*fp32'")
        return v
    name = str(v.dtype).rsplit(".", 1)[-1]
    if name not in _DTYPES:
        raise TypeError(f"tensor dtype {v.dtype} has no Triton pointer type here")
    return "*" + _DTYPES[name]


def _bind(fn, args, meta, config):
    """signature, constexprs, attrs and the PTX's scalar parameters {index: value}."""
    values = dict(zip(fn.arg_names, args))
    values.update(meta)
    values.update(config.kwargs)
    signature, constexprs, attrs, scalars = {}, {}, {}, {}
    ptx_index = 0
    for i, (name, p) in enumerate(zip(fn.arg_names, fn.params)):
        if name not in values:
            if not p.has_default:
                raise TypeError(f"argument `{name}` of {fn.__name__} is not given")
            values[name] = p.default
        v = values[name]
        if p.is_constexpr or v is None or (type(v) is int and v == 1):
            signature[name] = "constexpr"
            constexprs[name] = v
            continue
        if isinstance(v, str) or hasattr(v, "dtype"):
            signature[name] = _pointer_type(v)
            aligned = not hasattr(v, "data_ptr") or v.data_ptr() % 16 == 0
            if aligned:
                attrs[(i,)] = [["tt.divisibility", 16]]
        elif isinstance(v, bool):
            signature[name] = "i1"
            scalars[str(ptx_index)] = int(v)
        elif isinstance(v, int):
            signature[name] = "i32" if -2**31 <= v < 2**31 else "i64"
            scalars[str(ptx_index)] = v
            if v % 16 == 0:
                attrs[(i,)] = [["tt.divisibility", 16]]
        elif isinstance(v, float):
            signature[name] = "fp32"
        else:
            raise TypeError(f"argument `{name}`: cannot type {type(v).__name__} for Triton")
        ptx_index += 1
    return values, signature, constexprs, attrs, scalars


def _ptxas(ptx, arch):
    """Registers per thread that Triton's bundled ptxas allocates for the kernel, the bytes it
    spills (stores plus loads), and the SASS of that same compilation."""
    from triton import knobs
    from triton.backends.nvidia.compiler import get_ptxas

    suffix = "a" if arch >= 90 else ""
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "k.ptx")
        cubin = os.path.join(d, "k.cubin")
        with open(src, "w") as f:
            f.write(ptx)
        out = subprocess.run(
            [get_ptxas(arch).path, f"-arch=sm_{arch}{suffix}", "-v", src, "-o", cubin],
            capture_output=True, text=True, check=True,
        )
        log = out.stderr + out.stdout
        m = re.search(r"Used (\d+) registers", log)
        if not m:
            raise Ptx2idgError("ptxas -v did not report the kernel's registers")
        spills = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", log)
        spill_bytes = int(spills.group(1)) + int(spills.group(2)) if spills else 0
        sass = subprocess.run([knobs.nvidia.nvdisasm.path, "-c", cubin],
                              capture_output=True, text=True, check=True).stdout
    return int(m.group(1)), spill_bytes, sass


#: A local-memory instruction of the machine code: a store or a load of ``bytes`` per thread.
LocalAccess = namedtuple("LocalAccess", ["store", "bytes"])

_SASS_INST = re.compile(r"^\s*/\*([0-9a-f]+)\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)\s*(.*?)\s*;")
_SASS_LABEL = re.compile(r"^\s*(\.L\w+):")
#: Bytes per thread of a SASS load or store by its width suffix (none: 4).
_SASS_WIDTH = {"128": 16, "64": 8, "U16": 2, "S16": 2, "U8": 1, "S8": 1}


def sass_local_accesses(sass):
    """The local-memory loads and stores (``LDL``, ``STL``) of a disassembled kernel
    (``nvdisasm -c`` or ``cuobjdump -sass``), by where they run: ``(outside, loops)``, with
    ``loops`` one list per loop of the machine code in program order (a loop is the code from a
    label to a branch back to it; an access belongs to the innermost loop around it)."""
    insts, loops = _sass_loops(sass)
    outside, inside = [], [[] for _ in loops]
    for i, (op, _) in enumerate(insts):
        parts = op.split(".")
        if parts[0] not in ("LDL", "STL"):
            continue
        width = next((_SASS_WIDTH[p] for p in parts[1:] if p in _SASS_WIDTH), 4)
        access = LocalAccess(parts[0] == "STL", width)
        around = [k for k, (a, b) in enumerate(loops) if a <= i <= b]
        if around:
            inside[max(around, key=lambda k: loops[k][0])].append(access)
        else:
            outside.append(access)
    return outside, inside


_PTX_LABEL = re.compile(r"^\s*(\$?[A-Za-z_$][\w$]*):")
_PTX_BRANCH = re.compile(r"\bbra(?:\.uni)?\s+(\$?[A-Za-z_$][\w$]*)\s*;")


def _ptx_loops(lines):
    """The loops of PTX ``lines``: ``{header: latch}``, line indices of a label some later
    branch jumps back to and of the last such branch."""
    labels, loops = {}, {}
    for i, line in enumerate(lines):
        lab = _PTX_LABEL.match(line)
        if lab:
            labels[lab.group(1)] = i
        br = _PTX_BRANCH.search(line)
        if br and br.group(1) in labels:
            loops[labels[br.group(1)]] = i
    return loops


def _ptx_loop_headers(lines):
    """Line indices of the loop headers of PTX ``lines``, in program order."""
    return sorted(_ptx_loops(lines))


#: PTX type and (load, store) registers of a spill access by its bytes per thread.
_SPILL_FORMS = {
    1: ("b8", "%spill_h", "%spill_sh"),
    2: ("b16", "%spill_h", "%spill_sh"),
    4: ("b32", "%spill_r", "%spill_sr"),
    8: ("b64", "%spill_d", "%spill_sd"),
    16: ("v2.b64", "{%spill_d, %spill_e}", "{%spill_sd, %spill_se}"),
}


def _local_instruction(a):
    """PTX for one spill access. Its registers are never written by the kernel and no
    instruction reads what a spill load writes, so the access costs its pipeline's throughput
    but adds no dependence on the kernel's values; the address register is unknown to the
    analysis, so each access is sized as a coalesced request of its width (the hardware
    interleaves the threads' local words)."""
    ty, load, store = _SPILL_FORMS[a.bytes]
    if a.store:
        return f"\tst.local.{ty} \t[%spill_addr], {store};"
    return f"\tld.local.{ty} \t{load}, [%spill_addr];"


def with_local_traffic(ptx, sass):
    """``ptx`` with the local-memory accesses of its machine code added: register spills exist
    only after ptxas, so the PTX the model reads does not have them. Each loop's accesses go
    to the top of the matching PTX loop (the loops of the machine code and of the PTX, in
    program order), the rest to the kernel's entry. Raises ``Ptx2idgError`` when a loop with
    accesses cannot be matched (the two have a different number of loops)."""
    outside, loops = sass_local_accesses(sass)
    lines = ptx.splitlines()
    headers = _ptx_loop_headers(lines)
    if len(headers) != len(loops) and any(loops):
        raise Ptx2idgError(
            f"spills: the machine code has {len(loops)} loops and the PTX {len(headers)}; "
            "cannot place the local-memory accesses of its loops")
    inserts = {h: [_local_instruction(a) for a in acc] for h, acc in zip(headers, loops) if acc}
    body = next((i for i, line in enumerate(lines) if line.strip() == "{"), None)
    if body is None:
        raise Ptx2idgError("spills: no kernel body in the PTX")
    decls = [i for i, line in enumerate(lines)
             if i > body and re.match(r"\s*\.(reg|local|shared)\b", line)]
    entry = decls[-1] if decls else body
    inserts.setdefault(entry, [])[:0] = [
        "\t.reg .b16 \t%spill_h, %spill_sh;",
        "\t.reg .b32 \t%spill_r, %spill_sr;",
        "\t.reg .b64 \t%spill_d, %spill_e, %spill_sd, %spill_se, %spill_addr;",
    ] + [_local_instruction(a) for a in outside]
    out = []
    for i, line in enumerate(lines):
        out.append(line)
        out.extend(inserts.get(i, []))
    return "\n".join(out) + "\n"


_SASS_LDG = re.compile(r"^LDG(?:\.[A-Z0-9_]+)*$")
_LDG_WIDTH = {"128": 4, "64": 2}


def _sass_loops(sass):
    """The machine code's instructions ``(op, args)`` and its loops ``(first, last)`` (index
    ranges, program order; a loop is the code from a label to the last branch back to it)."""
    insts, labels = [], {}
    for line in sass.splitlines():
        lab = _SASS_LABEL.match(line)
        if lab:
            labels[lab.group(1)] = len(insts)
            continue
        m = _SASS_INST.match(line)
        if m:
            insts.append((m.group(2), m.group(3)))
    ends = {}
    for i, (op, args) in enumerate(insts):
        target = re.search(r"(\.L\w+)", args) if op.startswith("BRA") else None
        start = labels.get(target.group(1)) if target else None
        # A branch to itself is the trap ptxas puts after EXIT, not a loop of the kernel.
        # Several branches back to one label close one loop.
        if start is not None and start < i:
            ends[start] = max(i, ends.get(start, i))
    return insts, sorted(ends.items())


def sass_reused_load_registers(sass):
    """Per loop of the machine code (program order, as ``sass_local_accesses`` finds them),
    the global loads (``LDG``) in order, each ``True`` when it writes a register the loop's
    previous load wrote: ptxas gave both the same destination (register pressure), so this
    load can issue only once the previous load's data arrived and was read, one load in
    flight at a time where the PTX has them all in flight."""
    insts, loops = _sass_loops(sass)
    out = []
    for a, b in loops:
        prev, marks = None, []
        for op, args in insts[a:b + 1]:
            if not _SASS_LDG.match(op):
                continue
            dst = re.match(r"\s*R(\d+)", args)
            if dst is None:
                prev = None
                marks.append(False)
                continue
            width = next((_LDG_WIDTH[p] for p in op.split(".")[1:] if p in _LDG_WIDTH), 1)
            regs = set(range(int(dst.group(1)), int(dst.group(1)) + width))
            marks.append(prev is not None and bool(regs & prev))
            prev = regs
        out.append(marks)
    return out


_PTX_LDG = re.compile(r"^(\s*)(?:@(!?%\w+)\s+)?(ld\.global\S*)\s+\{?\s*(%\w+)")


def with_serialized_loads(ptx, sass):
    """``ptx`` with each global load that the machine code serializes behind the previous
    load of its loop (``sass_reused_load_registers``) made to depend on that load's data, so
    the model keeps the one-load-at-a-time order the hardware runs. Loops are matched in
    program order; a loop whose machine code has another number of global loads than its PTX
    (unrolled by ptxas) or a kernel whose loop counts differ is left as it is. The dependence
    is a predicate that reads the previous load's first register (never false for the
    model: loaded data is unknown to the address analysis, so the load keeps its lanes)."""
    marks = sass_reused_load_registers(sass)
    lines = ptx.splitlines()
    extents = _ptx_loops(lines)
    headers = sorted(extents)
    if len(headers) != len(marks) or not any(any(m) for m in marks):
        return ptx
    edits, n = {}, 0
    for head, m in zip(headers, marks):
        loads = [i for i in range(head, extents[head]) if _PTX_LDG.match(lines[i])]
        if len(loads) != len(m):
            continue
        for k in range(1, len(loads)):
            if not m[k]:
                continue
            prev = _PTX_LDG.match(lines[loads[k - 1]]).group(4)
            cur = _PTX_LDG.match(lines[loads[k]])
            n += 1
            guard = f"%ser_p{n}"
            pre = [f"\tsetp.ne.b32 \t%ser_d{n}, {prev}, 2147483647;"]
            if cur.group(2):
                p = cur.group(2)
                if p.startswith("!"):
                    pre.append(f"\tnot.pred \t{guard}, {p[1:]};")
                    p = guard
                pre.append(f"\tand.pred \t{guard}, {p}, %ser_d{n};")
                line = lines[loads[k]].replace("@" + cur.group(2), "@" + guard, 1)
            else:
                pre.append(f"\tmov.pred \t{guard}, %ser_d{n};")
                line = cur.group(1) + "@" + guard + " " + lines[loads[k]][len(cur.group(1)):]
            edits[loads[k]] = pre + [line]
    if not n:
        return ptx
    body = next(i for i, line in enumerate(lines) if line.strip() == "{")
    decl = "\t.reg .pred \t" + ", ".join(f"%ser_d{k}, %ser_p{k}" for k in range(1, n + 1)) + ";"
    out = []
    for i, line in enumerate(lines):
        out.extend(edits.get(i, [line]))
        if i == body:
            out.append(decl)
    return "\n".join(out) + "\n"


_PTX_REG = re.compile(r"%[A-Za-z_$][\w$]*")
_PTX_REG_DECL = re.compile(r"^\s*\.reg\s+\.(\w+)\s+(%[A-Za-z_$][\w$]*)<\d+>\s*;")
_PTX_LATCH_SETP = re.compile(r"^\s*setp\.lt\.([su]32)\s+(%\w+),\s*(%\w+),\s*(%\w+|-?\d+)\s*;")
_PTX_STEP = re.compile(r"^\s*add\.[su]32\s+(%\w+),\s*(%\w+),\s*(\d+)\s*;")
_PTX_LOAD_BYTES = re.compile(r"ld\.global\S*?(?:\.v(\d))?\.[bsuf](8|16|32|64)\b")


def _is_instruction(line):
    code = line.split("//")[0].strip()
    return code.endswith(";") and not code.startswith(".")


def _ptx_operands(line):
    """``(dests, sources)``: the registers one PTX instruction line writes and reads (its guard
    predicate and address registers are read; stores, reductions and copies write none)."""
    code = line.split("//")[0].strip().rstrip(";")
    guard = []
    if code.startswith("@"):
        g, code = code.split(None, 1)
        guard = _PTX_REG.findall(g)
    parts = code.split(None, 1)
    if len(parts) < 2:
        return [], guard
    op, rest = parts
    rest = rest.strip()
    if op.startswith(("st.", "red.", "bar", "bra", "cp.", "membar", "fence")) or \
            rest.startswith("["):
        return [], guard + _PTX_REG.findall(rest)
    if rest.startswith("{"):
        dst, src = rest.split("}", 1)
        return _PTX_REG.findall(dst), guard + _PTX_REG.findall(src)
    dst, _, src = rest.partition(",")
    return _PTX_REG.findall(dst), guard + _PTX_REG.findall(src)


def _ptx_load_bytes(line):
    m = _PTX_LOAD_BYTES.search(line)
    return int(m.group(1) or 1) * int(m.group(2)) // 8


def _sass_ldg_bytes(op):
    return next((_SASS_WIDTH[p] for p in op.split(".")[1:] if p in _SASS_WIDTH), 4)


def _loop_trips(ptx, grid, block, params):
    """Per PTX loop header (line index, as ``_ptx_loop_headers``), how many times one warp runs
    the loop's body in the launch's IDGs, where every warp class agrees."""
    from . import idg

    lines = ptx.splitlines()
    first = {h: next((i for i in range(h + 1, len(lines)) if _is_instruction(lines[i])), None)
             for h in _ptx_loop_headers(lines)}
    graph = idg(ptx, grid=grid, block=block, params=params).graph
    counts = {}
    for c in graph["classes"]:
        nodes, seen = c["idg"]["nodes"], {}

        def walk(body, times):
            for item in body:
                if "node" in item:
                    line = nodes[item["node"]]["ptx_line"]
                    seen[line] = seen.get(line, 0) + times
                else:
                    walk(item["repeat"]["body"], times * item["repeat"]["count"])

        walk(c["idg"]["body"], 1)
        for h, f in first.items():
            # ptx_line counts from 1.
            counts.setdefault(h, set()).add(seen.get(f + 1, 0) if f is not None else 0)
    return {h: v.pop() for h, v in counts.items() if len(v) == 1}


def _split_dest(line):
    """``(head, dest, rest)`` of an instruction line that writes registers: ``head`` the
    indentation, guard and opcode, ``dest`` its first operand (``{...}`` for a vector)."""
    m = re.match(r"^(\s*(?:@!?%\w+\s+)?\S+\s+)(\{[^}]*\}|[^,;]+)(.*)$", line, re.S)
    return m.groups() if m else (line, "", "")


def _unrolled(lines, head, latch, unroll, trips, tag, types):
    """The lines that run the counted loop ``lines[head..=latch]`` (its label, a body without
    labels or branches that steps ``i`` once by ``add i, i, S``, and a latch ``setp.lt p, i, N;
    @p bra``) as ptxas runs it unrolled by ``unroll``: ``trips // unroll`` iterations of
    ``unroll`` copies of the body, then the ``trips % unroll`` left as straight-line copies;
    each group of copies with the global loads (and the address arithmetic and default values
    they need) of all its copies first. Registers the body writes are renamed per copy, the
    last copy writing the original names, so values carried from one iteration to the next
    chain through the copies. ``(lines, {register: type})``, or ``None`` when the loop is not
    of that form, a load's address needs a value the body loads or carries, or code after
    the step reads the induction register."""
    latch_m = re.match(r"^\s*@(%\w+)\s+bra(?:\.uni)?\s+(\$?[\w$]+)\s*;", lines[latch])
    if latch_m is None:
        return None
    body = [i for i in range(head + 1, latch) if _is_instruction(lines[i])]
    if any(_PTX_LABEL.match(lines[i]) for i in range(head + 1, latch)) or \
            any(_PTX_BRANCH.search(lines[i]) for i in body):
        return None
    setps = [i for i in body if (m := _PTX_LATCH_SETP.match(lines[i]))
             and m.group(2) == latch_m.group(1)]
    if len(setps) != 1:
        return None
    ty, pred, ind, bound = _PTX_LATCH_SETP.match(lines[setps[0]]).groups()
    steps = [i for i in body if ind in _ptx_operands(lines[i])[0]]
    if len(steps) != 1 or not (m := _PTX_STEP.match(lines[steps[0]])) or \
            m.group(1) != ind or m.group(2) != ind or int(m.group(3)) <= 0:
        return None
    step = int(m.group(3))
    if any(pred in _ptx_operands(lines[i])[1] for i in body if i != setps[0]) or \
            any(ind in _ptx_operands(lines[i])[1] for i in body if i > steps[0] and i != setps[0]):
        return None
    body = [i for i in body if i not in (steps[0], setps[0])]
    ops = {i: _ptx_operands(lines[i]) for i in body}
    written = {r for i in body for r in ops[i][0]}

    def type_of(r):
        return types.get(r) or types.get(r.rstrip("0123456789"))

    if any(type_of(r) is None for r in written | {ind}):
        return None
    loads = [i for i in body if _PTX_LDG.match(lines[i])]
    loaded = {r for i in loads for r in ops[i][0]}
    earlier = {i: {r for j in body if j < i for r in ops[j][0]} for i in body}
    # The loads' slice: what their addresses and guards need, and the moves that give a
    # loaded register its value where the load's guard is false.
    need, sliced = set(), set(loads)
    for i in reversed(body):
        if i in loads:
            need.update(ops[i][1])
        elif set(ops[i][0]) & need or (set(ops[i][0]) & loaded and i < max(loads)):
            sliced.add(i)
            need.update(ops[i][1])
    for i in sliced:
        if (set(ops[i][1]) & loaded and i not in loads) or \
                any(r in written and r not in earlier[i] for r in ops[i][1]):
            return None
    loc, last = {}, None
    for i in range(head + 1, latch):
        if lines[i].lstrip().startswith(".loc"):
            last = i
        loc[i] = last
    decls = {}

    def rename(r, name):
        if name is None:
            return r
        decls[f"{r}_{name}"] = type_of(r)
        return f"{r}_{name}"

    def copy(i, k, name, prev):
        """Line ``i`` in copy ``k`` named ``name``: what it writes gets the copy's names; what
        it reads, the copy's own (written earlier in the body) or the previous copy's
        (carried from the iteration before), the induction register plus ``k`` steps."""
        iv = f"{ind}_{tag}k{k}" if k else ind

        def read(m):
            r = m.group(0)
            if r == ind:
                return iv
            if r in written:
                return rename(r, name if r in earlier[i] else prev)
            return r

        head_, dest, rest = _split_dest(lines[i]) if ops[i][0] else (lines[i], "", "")
        dest = _PTX_REG.sub(lambda m: rename(m.group(0), name), dest)
        return _PTX_REG.sub(read, head_) + dest + _PTX_REG.sub(read, rest)

    def group(names):
        """Copies named ``names`` (``None``: the original names), loads first."""
        out = []
        for k in range(1, len(names)):
            decls[f"{ind}_{tag}k{k}"] = type_of(ind)
            out.append(f"\tadd.{ty} \t{ind}_{tag}k{k}, {ind}, {k * step};")
        shown = None
        for part in ([i for i in body if i in sliced], [i for i in body if i not in sliced]):
            for k, name in enumerate(names):
                prev = names[k - 1] if k else names[-1]
                for i in part:
                    # Each copy keeps its source line (`.loc`) for --explain and the IDG.
                    if loc[i] is not None and loc[i] != shown:
                        out.append(lines[loc[i]])
                        shown = loc[i]
                    out.append(copy(i, k, name, prev))
        return out

    out = []
    if trips >= unroll:
        top, lim = f"$L__unroll{tag}", f"{ind}_lim{tag}"
        decls[lim] = type_of(ind)
        out += [f"\tsub.{ty} \t{lim}, {bound}, {(unroll - 1) * step};", f"{top}:"]
        out += group([f"u{tag}x{k}" for k in range(unroll - 1)] + [None])
        out += [f"\tadd.{ty} \t{ind}, {ind}, {unroll * step};",
                f"\tsetp.lt.{ty} \t{pred}, {ind}, {lim};",
                f"\t@{pred} bra \t{top};"]
    # ptxas follows the unrolled loop with blocks of half as many copies, each run once if
    # that many iterations remain (by 4: a 2x block, then a 1x block).
    rest, size = trips % unroll, max(1, unroll // 2)
    while rest:
        if size <= rest:
            out += group([f"r{tag}s{size}x{k}" for k in range(size - 1)] + [None])
            out.append(f"\tadd.{ty} \t{ind}, {ind}, {size * step};")
            rest -= size
        else:
            size = max(1, size // 2)
    return out, decls


def with_unrolled_loops(ptx, sass, trips):
    """``ptx`` with each loop that ptxas unrolled run as its machine code runs it (``_unrolled``):
    a loop of the machine code that loads ``U`` times the bytes of its PTX loop (``U >= 2``)
    keeps ``U`` iterations' loads in flight per warp, where the PTX, issued in order, has one
    iteration's. ``trips`` gives each PTX loop's trip count (``_loop_trips``); a loop is
    unrolled only when it runs at least ``U`` times. Loops are matched in program order; when
    the counts differ, or a loop is not of ``_unrolled``'s form, it stays as it is."""
    insts, sloops = _sass_loops(sass)
    lines = ptx.splitlines()
    latches = _ptx_loops(lines)
    headers = sorted(latches)
    if len(headers) != len(sloops):
        return ptx
    types = {}
    for line in lines:
        d = _PTX_REG_DECL.match(line)
        if d:
            types[d.group(2)] = d.group(1)
        elif (d := re.match(r"^\s*\.reg\s+\.(\w+)\s+([^;<]+);", line)):
            types.update((r, d.group(1)) for r in _PTX_REG.findall(d.group(2)))
    targets = {}
    for line in lines:
        br = _PTX_BRANCH.search(line)
        if br:
            targets[br.group(1)] = targets.get(br.group(1), 0) + 1
    replace, decls = {}, {}
    for tag, (head, (a, b)) in enumerate(zip(headers, sloops)):
        latch = latches[head]
        ptx_bytes = sum(_ptx_load_bytes(lines[i]) for i in range(head, latch)
                        if _PTX_LDG.match(lines[i]))
        sass_bytes = sum(_sass_ldg_bytes(op) for op, _ in insts[a:b + 1] if _SASS_LDG.match(op))
        label = _PTX_LABEL.match(lines[head]).group(1)
        if not ptx_bytes or sass_bytes % ptx_bytes or sass_bytes < 2 * ptx_bytes or \
                targets.get(label) != 1:
            continue
        unroll = sass_bytes // ptx_bytes
        if trips.get(head, 0) < 2:
            continue
        new = _unrolled(lines, head, latch, unroll, trips[head], tag, types)
        if new is not None:
            replace[head] = (latch, new[0])
            decls.update(new[1])
    if not replace:
        return ptx
    body = next(i for i, line in enumerate(lines) if line.strip() == "{")
    by_type = {}
    for name, t in sorted(decls.items()):
        by_type.setdefault(t, []).append(name)
    out, i = [], 0
    while i < len(lines):
        if i in replace:
            out.extend(replace[i][1])
            i = replace[i][0] + 1
            continue
        out.append(lines[i])
        if i == body:
            out.extend(f"\t.reg .{t} \t{', '.join(names)};" for t, names in by_type.items())
        i += 1
    return "\n".join(out) + "\n"


def _grid(grid, values):
    g = grid(values) if callable(grid) else grid
    if isinstance(g, int):
        g = (g,)
    return tuple(int(x) for x in g)


def compile_config(fn, config, *args, arch=90, **meta):
    """``(compiled, values, scalars)``: ``config`` of ``fn`` compiled for ``sm_<arch>``."""
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    fn = _jit(fn)
    values, signature, constexprs, attrs, scalars = _bind(fn, args, meta, config)
    src = ASTSource(fn, signature, constexprs, attrs)
    options = {"num_warps": config.num_warps, "num_stages": config.num_stages}
    compiled = triton.compile(src, target=GPUTarget("cuda", arch, 32), options=options)
    return compiled, values, scalars


def predict(fn, config, *args, grid, gpu="hopper-h100", arch=90, **meta):
    """The predicted time of one configuration as a ``Ranked``."""
    compiled, values, scalars = compile_config(fn, config, *args, arch=arch, **meta)
    ptx = compiled.asm["ptx"]
    regs, spill_bytes, sass = _ptxas(ptx, arch)
    g = _grid(grid, values)
    block = 32 * config.num_warps
    ptx = with_serialized_loads(ptx, sass)
    ptx = with_unrolled_loops(ptx, sass, _loop_trips(ptx, g, block, scalars))
    if spill_bytes:
        ptx = with_local_traffic(ptx, sass)
    shared = int(compiled.metadata.shared)
    row = simulate(ptx, grid=g, block=block, params=scalars, gpu=gpu, regs=regs, shared=shared)
    return Ranked(config, float(row.time_us[0]), float(row.cycles[0]), regs, spill_bytes, shared,
                  g, None)


def rank(fn, configs, *args, grid, gpu="hopper-h100", arch=90, **meta):
    """Every configuration with its predicted time, best first; those that cannot be compiled
    or launched (e.g. too much shared memory) come last with ``time_us = inf`` and the
    reason in ``error``."""
    out = []
    for c in configs:
        try:
            out.append(predict(fn, c, *args, grid=grid, gpu=gpu, arch=arch, **meta))
        except Exception as e:  # noqa: BLE001 - a failing configuration is ranked last, not fatal
            out.append(Ranked(c, float("inf"), None, None, None, None, None,
                              f"{type(e).__name__}: {e}"))
    return sorted(out, key=lambda r: r.time_us)


def prune(top_k, gpu="hopper-h100", arch=90):
    """An ``early_config_prune`` hook keeping the ``top_k`` configurations predicted fastest:

    ``@triton.autotune(configs, key=[...], prune_configs_by={"early_config_prune": prune(4)})``
    """

    def early_config_prune(configs, named_args, **kwargs):
        import sys

        # Triton passes neither the kernel nor the grid positionally: the grid comes in kwargs
        # (the launcher's `grid=`), the kernel is the calling Autotuner's.
        tuner = sys._getframe(1).f_locals.get("self")
        if tuner is None or not hasattr(tuner, "fn"):
            raise Ptx2idgError("prune(): call it through @triton.autotune(prune_configs_by=...)")
        grid = kwargs.pop("grid", None)
        if grid is None:
            raise Ptx2idgError("prune(): the launch gave no grid")
        kwargs.pop("warmup", None)
        ranked = rank(tuner.fn, configs, grid=grid, gpu=gpu, arch=arch, **named_args, **kwargs)
        return [r.config for r in ranked[:top_k]]

    return early_config_prune
