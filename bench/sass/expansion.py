#!/usr/bin/env python3
"""PTX -> SASS expansion factors per instruction class, from the suites' own PTX.

Compiles every kernel PTX file named by a suite manifest with `ptxas -arch=sm_90` (sm_90a for
PTX that targets it), dumps the
SASS with `cuobjdump -sass`, and counts static instructions per class on both sides for each
suite kernel (its `.entry` body in PTX, its `Function :` block in SASS):

    inst       every instruction (SASS: the fast path, see fast_path(); no NOPs, no final
               self-branch: they never run)
    global_ld  ld.global*            | LDG
    global_st  st.global*            | STG
    shared_ld  ld.shared*            | LDS, LDSM
    shared_st  st.shared*            | STS
    branch     bra                   | BRA, BRX, JMP (executed control transfers)

A class's factor is the median over the tuning suite's kernels (those with the class on both
sides) of SASS count / PTX count: the median, because ptxas unrolls some loops again (kmeans:
4 LDG per ld.global), and unrolled copies are static, not dynamic, instructions; the other suites are printed for comparison only
(held-out discipline: parameters come from the tuning suite). The result goes into the GPU
profile's [sass_expansion] table (docs/gpu-profile.md); static counts are the stand-in for
the dynamic ratio, which would need the GPU.

usage: python3 bench/sass/expansion.py TUNING_SUITE_DIR [OTHER_SUITE_DIR...]
       (ptxas and cuobjdump on PATH; writes the table to stdout, per-kernel counts to stderr)
"""
import statistics
import os
import re
import subprocess
import sys
import tempfile
import tomllib

CLASSES = ["inst", "global_ld", "global_st", "shared_ld", "shared_st", "branch"]


def ptx_class(op):
    """Classes of one PTX opcode (with its modifiers), besides `inst`."""
    parts = op.split(".")
    base = parts[0]
    if base == "ld" and "global" in parts:
        return "global_ld"
    if base == "st" and "global" in parts:
        return "global_st"
    if base == "ld" and "shared" in parts:
        return "shared_ld"
    if base == "st" and "shared" in parts:
        return "shared_st"
    if base == "bra":
        return "branch"
    return None


def sass_class(op):
    base = op.split(".")[0]
    return {
        "LDG": "global_ld",
        "STG": "global_st",
        "LDS": "shared_ld",
        "LDSM": "shared_ld",
        "STS": "shared_st",
        "BRA": "branch",
        "BRX": "branch",
        "JMP": "branch",
    }.get(base)


def entry_body(ptx, entry):
    """The lines of `.entry entry`'s body."""
    m = re.search(r"\.entry\s+" + re.escape(entry) + r"\s*\(", ptx)
    if not m:
        raise SystemExit(f"entry {entry} not found")
    i = ptx.index("{", ptx.index(")", m.end()))
    depth, j = 0, i
    while True:
        c = ptx[j]
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return ptx[i + 1 : j].splitlines()
        j += 1


def count_ptx(lines):
    n = dict.fromkeys(CLASSES, 0)
    for line in lines:
        line = line.split("//")[0].strip()
        if not line or line.startswith(".") or line in "{}" or line.endswith(":"):
            continue
        if line.startswith("@"):
            line = line.split(None, 1)[1]
        op = line.split()[0].rstrip(";")
        n["inst"] += 1
        c = ptx_class(op)
        if c:
            n[c] += 1
    return n


CALL_BLOCK = 8


def fast_path(insts):
    """The instructions a warp runs when no slow path is taken: `(address, text)` pairs of one
    function without the subroutines ptxas appends after the kernel body (division, square
    root slow paths: from the lowest `CALL.REL` target on) and without each call block, the
    instructions (at most CALL_BLOCK) a forward conditional branch skips when they contain a
    `CALL` (`@!P0 BRA
    L; ...; CALL.REL.NOINC sub; BRA J; L:`), so static counts stand for the common case."""
    def op(text):
        return (text.split(None, 1)[1] if text.startswith("@") else text).split()

    targets = [int(op(t)[1], 16) for _, t in insts if op(t)[0].startswith("CALL")]
    if targets:
        insts = [(a, t) for a, t in insts if a < min(targets)]
    skip = set()
    for i, (_, t) in enumerate(insts):
        words = op(t)
        if t.startswith("@") and words[0] == "BRA" and words[1].startswith("0x"):
            target = int(words[1], 16)
            block = [j for j in range(i + 1, len(insts)) if insts[j][0] < target]
            # Call blocks are a few instructions (arguments, the call, the jump back); a longer
            # skipped region is ordinary code that happens to contain one.
            if len(block) <= CALL_BLOCK and any(op(insts[j][1])[0].startswith("CALL") for j in block):
                skip.update(block)
    return [x for j, x in enumerate(insts) if j not in skip]


def sass_listing(path, cubin, arch="sm_90"):
    """Assembles `path` with ptxas into `cubin`; per function name, its `(address, text)`
    instructions from `cuobjdump -sass`."""
    subprocess.run(["ptxas", f"-arch={arch}", "-O3", path, "-o", cubin], check=True)
    dump = subprocess.run(
        ["cuobjdump", "-sass", cubin], check=True, capture_output=True, text=True
    ).stdout
    out = {}
    cur = None
    for line in dump.splitlines():
        m = re.match(r"\s*Function : (\S+)", line)
        if m:
            cur = out.setdefault(m.group(1), [])
            continue
        m = re.match(r"\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;", line)
        if m and cur is not None:
            cur.append((int(m.group(1), 16), m.group(2)))
    return out


def count_sass(listing):
    """Per function name: class counts of its fast path."""
    counts = {}
    for name, insts in listing.items():
        n = dict.fromkeys(CLASSES, 0)
        # The tail `BRA` to itself after the last EXIT never runs; nor do NOPs (padding).
        while insts and (insts[-1][1].startswith("NOP") or insts[-1][1].startswith("BRA")):
            insts.pop()
        for _, text in fast_path(insts):
            if text.startswith("@"):
                text = text.split(None, 1)[1]
            op = text.split()[0]
            if op == "NOP":
                continue
            n["inst"] += 1
            c = sass_class(op)
            if c:
                n[c] += 1
        counts[name] = n
    return counts


def suite_counts(suite_dir, tmp):
    with open(os.path.join(suite_dir, "suite.toml"), "rb") as f:
        manifest = tomllib.load(f)
    rows = []
    sass_by_file = {}
    for k in manifest["kernel"]:
        path = os.path.join(suite_dir, k["ptx"])
        if path not in sass_by_file:
            cubin = os.path.join(tmp, f"k{len(sass_by_file)}.cubin")
            with open(path) as f:
                target = re.search(r"^\s*\.target\s+(sm_\w+)", f.read(), re.M)
            # sm_90a PTX (Triton's) only compiles for sm_90a; the SASS is sm_90's either way.
            arch = target.group(1) if target and target.group(1) == "sm_90a" else "sm_90"
            sass_by_file[path] = count_sass(sass_listing(path, cubin, arch))
        with open(path) as f:
            ptx = f.read()
        p = count_ptx(entry_body(ptx, k["entry"]))
        s = sass_by_file[path][k["entry"]]
        rows.append((k["id"], p, s))
    return rows


def factors(rows):
    out = {}
    for c in CLASSES:
        ratios = sorted(s[c] / p[c] for _, p, s in rows if p[c] > 0 and s[c] > 0)
        out[c] = (statistics.median(ratios), len(ratios)) if ratios else (1.0, 0)
    return out


def main():
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    version = subprocess.run(["ptxas", "--version"], capture_output=True, text=True).stdout
    version = version.strip().splitlines()[-1]
    with tempfile.TemporaryDirectory() as tmp:
        per_suite = [(d, suite_counts(d, tmp)) for d in sys.argv[1:]]
    for d, rows in per_suite:
        print(f"## {os.path.basename(os.path.normpath(d))}", file=sys.stderr)
        print("kernel," + ",".join(f"ptx_{c},sass_{c}" for c in CLASSES), file=sys.stderr)
        for kid, p, s in rows:
            print(kid + "," + ",".join(f"{p[c]},{s[c]}" for c in CLASSES), file=sys.stderr)
    tuning = factors(per_suite[0][1])
    name = os.path.basename(os.path.normpath(sys.argv[1]))
    print(f"# SASS instructions per PTX instruction, by class: median over the {len(per_suite[0][1])}")
    print(f"# kernels of {name} of static counts (ptxas -arch=sm_90 -O3, {version};")
    print("# bench/sass/expansion.py). Kernels with the class on both sides, by suite:")
    for d, rows in per_suite:
        f = factors(rows)
        line = ", ".join(f"{c} {f[c][0]:.3f} ({f[c][1]})" for c in CLASSES)
        print(f"#   {os.path.basename(os.path.normpath(d))}: {line}")
    print("[sass_expansion]")
    for c in CLASSES:
        print(f"{c} = {tuning[c][0]:.3f}")


if __name__ == "__main__":
    main()
