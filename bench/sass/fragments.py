#!/usr/bin/env python3
"""SASS instructions per PTX tensor-fragment instruction (wmma, mma, ldmatrix), measured.

Compiles each PTX file with `ptxas -arch=sm_90 -O3`, dumps the SASS with `cuobjdump -sass`,
and for every kernel counts, on the PTX side, the fragment forms below and, on the SASS side,
the instructions each form lowers to (matched exactly, with their width suffix, so an
ordinary `LDG.E.U16` is not a fragment's `LDG.E`). A form's ratio is the kernel's SASS count
divided by the PTX instructions of the forms sharing that SASS opcode (wmma.load.a and .b of
a 16x16 f16 tile both become `LDG.E`: they are assumed equal, which the load.a/load.b pair
of every sample is consistent with). The result is the table of crates/gpu/src/fragment.rs.

Only our own non-suite samples are measured (ptx_samples/sm_90/tensor_core.ptx,
bench/sass/fragments.ptx): no tuning-suite kernel uses tensor fragments, so this is an
ISA-lowering fact, not a parameter chosen on a suite.

usage: python3 bench/sass/fragments.py PTX_FILE... > bench/sass/h100_fragments.txt
       (ptxas and cuobjdump on PATH)
"""
import os
import re
import subprocess
import sys
import tempfile

from expansion import sass_listing

# (form, PTX regex on the full mnemonic, SASS opcode it lowers to)
FORMS = [
    ("wmma.load.a m16n16k16 global f16", r"^wmma\.load\.a\..*\bm16n16k16\.global\.f16$", "LDG.E"),
    ("wmma.load.b m16n16k16 global f16", r"^wmma\.load\.b\..*\bm16n16k16\.global\.f16$", "LDG.E"),
    ("wmma.load.c m16n16k16 global f32", r"^wmma\.load\.c\..*\bm16n16k16\.global\.f32$", "LDG.E.64"),
    ("wmma.store.d m16n16k16 global f32", r"^wmma\.store\.d\..*\bm16n16k16\.global\.f32$", "STG.E.64"),
    ("wmma.mma m16n16k16", r"^wmma\.mma\..*\bm16n16k16\b", "HMMA.16816.F32"),
    ("mma.sync m16n8k16", r"^mma\.sync\..*\bm16n8k16\b", "HMMA.16816.F32"),
    ("ldmatrix m8n8 x4", r"^ldmatrix\..*\.x4\.", "LDSM.16.M88.4"),
    ("ldmatrix m8n8 x2", r"^ldmatrix\..*\.x2\.", "LDSM.16.M88.2"),
]


def ptx_kernels(ptx):
    """`{entry: [mnemonic, ...]}` of every `.entry` body."""
    out = {}
    for m in re.finditer(r"\.entry\s+(\w+)\s*\(", ptx):
        i = ptx.index("{", ptx.index(")", m.end()))
        depth, j = 0, i
        while True:
            depth += {"{": 1, "}": -1}.get(ptx[j], 0)
            if depth == 0:
                break
            j += 1
        ops = []
        for line in ptx[i + 1 : j].splitlines():
            line = line.split("//")[0].strip()
            if not line or line.startswith(".") or line.endswith(":") or line in "{}":
                continue
            if line.startswith("@"):
                line = line.split(None, 1)[1]
            ops.append(line.split()[0].rstrip(";"))
        out[m.group(1)] = ops
    return out


def sass_opcodes(path, cubin):
    """`{function: [opcode, ...]}` of `path` assembled for sm_90 (guards dropped)."""
    out = {}
    for name, insts in sass_listing(path, cubin).items():
        ops = []
        for _, text in insts:
            if text.startswith("@"):
                text = text.split(None, 1)[1]
            ops.append(text.split()[0])
        out[name] = ops
    return out


def main():
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    version = subprocess.run(["ptxas", "--version"], capture_output=True, text=True).stdout
    version = version.strip().splitlines()[-1]
    print(f"# SASS instructions per PTX tensor-fragment instruction (ptxas -arch=sm_90 -O3, {version};")
    print("# cuobjdump -sass; bench/sass/fragments.py). Static counts per kernel.")
    print("file,kernel,form,ptx,sass_opcode,sass,ratio")
    with tempfile.TemporaryDirectory() as tmp:
        for path in sys.argv[1:]:
            sass = sass_opcodes(path, os.path.join(tmp, "k.cubin"))
            with open(path) as f:
                kernels = ptx_kernels(f.read())
            for entry, ops in kernels.items():
                counts = {
                    form: sum(1 for o in ops if re.search(rx, o)) for form, rx, _ in FORMS
                }
                for form, _, opcode in FORMS:
                    if counts[form] == 0:
                        continue
                    sharing = sum(counts[f] for f, _, o in FORMS if o == opcode)
                    n = sass[entry].count(opcode)
                    print(
                        f"{path},{entry},{form},{counts[form]},{opcode},{n},"
                        f"{n / sharing:.2f}"
                    )


if __name__ == "__main__":
    main()
