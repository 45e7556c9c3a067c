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

The model is the Rust one: this module compiles (Triton, then Triton's bundled ptxas and
nvdisasm for the machine code that runs) and passes the PTX and the machine code to
``ptx2idg.simulate`` through ``sass=``, where the alignment pass runs each loop as the
machine code does (unrolled loops, spills, serialized loads; docs/sass-input.md). The CLI
given the same PTX and the same file predicts the same time.
"""

import os
import subprocess
import tempfile
from collections import namedtuple

from . import Ptx2idgError, resources, simulate

#: One ranked configuration; ``time_us`` is ``inf`` and ``error`` says why when the
#: configuration could not be compiled or predicted. ``spill_bytes`` is spill stores plus loads
#: per thread, as ptxas reports them; the prediction times the machine code's spill
#: instructions, which the PTX does not have (the alignment pass places them).
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


def machine_code(ptx, arch, folder):
    """Assembles ``ptx`` with Triton's bundled ptxas (the one whose machine code runs), with
    line info as Triton compiles, and writes ``ptxas -v``'s report followed by nvdisasm's
    listing into a file in ``folder``; returns its path, a ``sass=`` file of
    ``ptx2idg.simulate`` and of the CLI's ``--sass``."""
    from triton import knobs
    from triton.backends.nvidia.compiler import get_ptxas

    suffix = "a" if arch >= 90 else ""
    src = os.path.join(folder, "kernel.ptx")
    cubin = os.path.join(folder, "kernel.cubin")
    with open(src, "w") as f:
        f.write(ptx)
    out = subprocess.run(
        [get_ptxas(arch).path, f"-arch=sm_{arch}{suffix}", "-v", "-lineinfo", src, "-o", cubin],
        capture_output=True, text=True, check=True,
    )
    listing = subprocess.run([knobs.nvidia.nvdisasm.path, "-c", "-gi", cubin],
                             capture_output=True, text=True, check=True).stdout
    path = os.path.join(folder, "kernel.sass.txt")
    with open(path, "w") as f:
        f.write(out.stderr + out.stdout + listing)
    return path


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
    compiled = compile_config(fn, config, *args, arch=arch, **meta)
    return _predict_compiled(config, compiled, grid=grid, gpu=gpu, arch=arch)


def _predict_compiled(config, compiled, *, grid, gpu, arch):
    """``predict`` after ``triton.compile``: ptxas, nvdisasm and the model, none of which
    holds the interpreter (subprocesses, and the Rust side releases the GIL)."""
    compiled, values, scalars = compiled
    ptx = compiled.asm["ptx"]
    g = _grid(grid, values)
    block = 32 * config.num_warps
    # Triton's launcher asks for this much dynamic shared memory; ptxas sees none of it.
    shared = int(compiled.metadata.shared)
    with tempfile.TemporaryDirectory() as d:
        sass = machine_code(ptx, arch, d)
        res = resources(ptx, gpu=gpu, shared=shared, sass=sass)
        row = simulate(ptx, grid=g, block=block, params=scalars, gpu=gpu, shared=shared,
                       sass=sass)
    spill_bytes = (res["spill_store_bytes"] or 0) + (res["spill_load_bytes"] or 0)
    return Ranked(config, float(row.time_us[0]), float(row.cycles[0]), res["regs"], spill_bytes,
                  shared, g, None)


def _failed(config, e):
    return Ranked(config, float("inf"), None, None, None, None, None, f"{type(e).__name__}: {e}")


def rank(fn, configs, *args, grid, gpu="hopper-h100", arch=90, workers=None, **meta):
    """Every configuration with its predicted time, best first; those that cannot be compiled
    or launched (e.g. too much shared memory) come last with ``time_us = inf`` and the
    reason in ``error``. Triton compiles the configurations one after the other; ptxas,
    nvdisasm and the model then run for ``workers`` of them at once (default: the CPUs this
    process may use). Each configuration's prediction is the one ``predict`` gives."""
    from concurrent.futures import ThreadPoolExecutor

    configs = list(configs)
    out, pending = [None] * len(configs), []
    for i, c in enumerate(configs):
        try:
            pending.append((i, c, compile_config(fn, c, *args, arch=arch, **meta)))
        except Exception as e:  # noqa: BLE001 - a failing configuration is ranked last, not fatal
            out[i] = _failed(c, e)

    def finish(item):
        i, c, compiled = item
        try:
            out[i] = _predict_compiled(c, compiled, grid=grid, gpu=gpu, arch=arch)
        except Exception as e:  # noqa: BLE001 - as above
            out[i] = _failed(c, e)

    if workers is None:
        workers = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    with ThreadPoolExecutor(max_workers=max(1, min(workers or 1, len(pending) or 1))) as pool:
        list(pool.map(finish, pending))
    # Ties keep the configurations' order, as when they ran one after the other.
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
