#!/usr/bin/env python3
"""Compiles the Triton kernels below to PTX (LLVM NVPTX back end) without a GPU.

Writes, next to this file: vector_add.ptx (sm_90a, masked loads/stores) and matmul.ptx
(sm_90a: tl.dot on fp16 tiles, which Triton lowers to wgmma.mma_async). Run with a Python
that has the `triton` package (pip install triton); see ../README.md. Build-machine paths in
the debug line tables are replaced by paths relative to the repository root.
"""
import os
import re

import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource


@triton.jit
def vector_add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


@triton.jit
def matmul(a_ptr, b_ptr, c_ptr, M, N, K,
           BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :])
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(tl.float16))


def same_length_relative(abs_dir, rel="ptx_samples/triton"):
    pad = len(abs_dir) - len(rel)
    if pad < 0:
        raise SystemExit(f"{abs_dir!r} is shorter than {rel!r}; cannot scrub")
    return "./" * (pad // 2) + ("/" if pad % 2 else "") + rel


def scrub_dwarf_dir(ptx, abs_dir):
    """Replaces the DWARF compilation directory, one `.b8 N` line per byte in LLVM's output,
    by a relative path of the same length, so no DWARF offset changes."""
    lines = ptx.split("\n")
    vals = []  # (line index, byte) of every single-byte `.b8` line
    for i, line in enumerate(lines):
        m = re.match(r"^\.b8 (\d+)(\s.*)?$", line)
        if m:
            vals.append((i, int(m.group(1))))
    old = abs_dir.encode()
    new = same_length_relative(abs_dir).encode()
    seq = bytes(v for _, v in vals)
    start = seq.find(old)
    while start >= 0:
        for k, byte in enumerate(new):
            i = vals[start + k][0]
            lines[i] = re.sub(r"^\.b8 \d+", f".b8 {byte}", lines[i])
        start = seq.find(old, start + len(old))
    return "\n".join(lines)


def build(fn, signature, constexprs, name, num_warps):
    src = ASTSource(fn=fn, signature=signature, constexprs=constexprs)
    compiled = triton.compile(src, target=GPUTarget("cuda", 90, 32),
                              options={"num_warps": num_warps})
    ptx = compiled.asm["ptx"]
    here = os.path.dirname(os.path.abspath(__file__))
    # `.file N "dir" "name"` or `.file N "/abs/path"`: keep only repository-relative names.
    ptx = scrub_dwarf_dir(ptx, here)
    ptx = ptx.replace(here, "ptx_samples/triton")
    ptx = re.sub(r'"[^"\n]*/site-packages/', '"site-packages/', ptx)
    with open(os.path.join(here, name), "w", encoding="utf-8") as f:
        f.write(ptx)


def main():
    ptr = "*fp32"
    build(vector_add, {"x_ptr": ptr, "y_ptr": ptr, "out_ptr": ptr, "n": "i32",
                       "BLOCK": "constexpr"}, {"BLOCK": 1024}, "vector_add.ptx", 4)
    h = "*fp16"
    build(matmul, {"a_ptr": h, "b_ptr": h, "c_ptr": h, "M": "i32", "N": "i32", "K": "i32",
                   "BM": "constexpr", "BN": "constexpr", "BK": "constexpr"},
          {"BM": 64, "BN": 64, "BK": 32}, "matmul.ptx", 4)


if __name__ == "__main__":
    main()
