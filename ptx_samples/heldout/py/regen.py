#!/usr/bin/env python3
"""Emits the PTX of the Triton and numba kernels of the held-out suite (group gen).

    python3 py/regen.py        (from anywhere; writes triton/*.ptx and numba/*.ptx)

No GPU is needed: Triton compiles for GPUTarget("cuda", 90, 32) and numba with
cuda.compile_ptx(..., cc=(9, 0)). The committed PTX was emitted with
    triton 3.6.0            (the GPU machine's version)
    numba 0.68.1, numba-cuda 0.30.4, NVVM of nvidia-cuda-nvcc-cu12 12.9.86
and is what scripts/build.sh assembles and ptx2idg reads; re-running this script with other
versions changes the PTX, so re-measure after regenerating.

Triton on sm_90 turns tl.dot into wgmma (the PTX then targets sm_90a). Triton 3.x kernels
take two trailing pointer parameters (global and profile scratch) that the driver passes as
null; numba expands each array argument into meminfo, parent, nitems, itemsize, data, shape
and strides parameters. The launch facts host/group_gen.inc needs (entry, threads per block,
dynamic shared memory, parameter list) are printed for each kernel.
"""
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SUITE = os.path.dirname(HERE)
sys.path.insert(0, HERE)


def clean(ptx):
    # keep machine paths out of the committed PTX: line info then names py/<file> or the
    # Triton library file relative to its package
    ptx = re.sub(r'(\.file\s+\d+\s+")[^"]*/(py/[^"/]+")', r"\1\2", ptx)
    return re.sub(r'(\.file\s+\d+\s+")[^"]*/site-packages/([^"]+")', r"\1\2", ptx)


def params(ptx):
    entry = re.search(r"\.entry\s+(\S+)\(", ptx).group(1)
    body = ptx[ptx.index(".entry") :]
    body = body[: body.index(")")]
    types = re.findall(r"\.param\s+(\.\w+)", body)
    return entry, types


def write(rel, ptx, block, smem):
    ptx = clean(ptx)
    with open(os.path.join(SUITE, rel), "w") as f:
        f.write(ptx)
    entry, types = params(ptx)
    print(f"{rel}: entry {entry}\n  block {block}, base dynamic smem {smem}, "
          f"{len(types)} params {' '.join(types)}")


def triton_all():
    import triton
    from triton.backends.compiler import GPUTarget

    import triton_kernels as tk

    target = GPUTarget("cuda", 90, 32)

    def comp(fn, sig, const, **opt):
        # what the Triton launcher specialises on: pointers and int arguments that are
        # multiples of 16 (all sizes and strides here are)
        div = {(fn.arg_names.index(a),): [["tt.divisibility", 16]]
               for a, t in sig.items() if t == "i32" or t.startswith("*")}
        src = triton.compiler.ASTSource(fn, sig, constexprs=const, attrs=div)
        k = triton.compile(src, target=target, options=opt)
        return k.asm["ptx"], k.metadata.num_warps * 32, k.metadata.shared

    f32 = "*fp32"
    sig = {"x_ptr": f32, "y_ptr": f32, "out_ptr": f32, "n": "i32", "BLOCK": "constexpr"}
    write("triton/add.ptx", *comp(tk.add_kernel, sig, {"BLOCK": 1024}, num_warps=4))

    sig = {"out_ptr": f32, "in_ptr": f32, "in_stride": "i32", "out_stride": "i32",
           "n_cols": "i32", "BLOCK": "constexpr"}
    write("triton/softmax.ptx", *comp(tk.softmax_kernel, sig, {"BLOCK": 1024}, num_warps=4))

    sig = {"x_ptr": f32, "y_ptr": f32, "w_ptr": f32, "b_ptr": f32, "mean_ptr": f32,
           "rstd_ptr": f32, "stride": "i32", "n_cols": "i32", "eps": "fp32",
           "BLOCK": "constexpr"}
    write("triton/layernorm.ptx",
          *comp(tk.layernorm_fwd, sig, {"BLOCK": 1024}, num_warps=8))

    sig = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": f32, "M": "i32", "N": "i32",
           "K": "i32", "stride_am": "i32", "stride_bk": "i32", "stride_cm": "i32",
           "BM": "constexpr", "BN": "constexpr", "BK": "constexpr", "GROUP_M": "constexpr"}
    write("triton/matmul.ptx",
          *comp(tk.matmul_kernel, sig, {"BM": 128, "BN": 128, "BK": 32, "GROUP_M": 8},
                num_warps=8, num_stages=3))


def numba_all():
    from numba import cuda

    import numba_kernels as nk

    # the order of compilation is fixed: numba numbers its specialisations in the
    # mangled entry names
    ptx, _ = cuda.compile_ptx(nk.mandelbrot, "void(int32[::1], int32, int32, int32)",
                              cc=(9, 0))
    write("numba/mandelbrot.ptx", ptx, 128, 0)
    ptx, _ = cuda.compile_ptx(nk.histogram, "void(int32[::1], int32[::1])", cc=(9, 0))
    write("numba/histogram.ptx", ptx, 128, 0)


if __name__ == "__main__":
    os.makedirs(os.path.join(SUITE, "triton"), exist_ok=True)
    os.makedirs(os.path.join(SUITE, "numba"), exist_ok=True)
    triton_all()
    numba_all()
