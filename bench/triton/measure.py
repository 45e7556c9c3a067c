"""Measures every configuration of kernels.py on the GPU (triton.testing.do_bench, median of
repeated launches with the L2 flushed before each) and writes measured.csv row by row, so an
interrupted run keeps what it measured. Run on the H100: python3 measure.py OUT_DIR [MODULE]
(MODULE: kernels, the default, llm_kernels or thirdparty_kernels, written to
measured_MODULE.csv; a module's own `key` names its configurations). A third argument,
comma-separated kernel names, measures those kernels alone."""

import csv
import os
import sys

import torch
import triton

import importlib

from kernels import key

DTYPES = {"fp16": torch.float16, "fp32": torch.float32}


def tensor(shape, dt):
    if dt in ("i32", "i64"):
        # Indices (cross-entropy targets): below every problem's smallest extent.
        kind = torch.int32 if dt == "i32" else torch.int64
        return torch.randint(0, 512, shape, device="cuda", dtype=kind)
    return torch.randn(shape, device="cuda", dtype=DTYPES[dt])


def out_name(module):
    return "measured.csv" if module == "kernels" else f"measured_{module}.csv"


def main(out_dir, module="kernels", only=None):
    kernels = importlib.import_module(module)
    wanted = set(only.split(",")) if only else None
    name_of = getattr(kernels, "key", key)
    torch.manual_seed(0)
    path = os.path.join(out_dir, out_name(module))
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["kernel", "config", "measured_us", "regs", "shared", "error"])
        for name, fn, configs, args, grid in kernels.cases(tensor):
            if wanted is not None and name not in wanted:
                continue
            for c in configs:
                meta = dict(c.kwargs, num_warps=c.num_warps, num_stages=c.num_stages)
                try:
                    k = fn[grid](*args, **meta)
                    ms = triton.testing.do_bench(lambda: fn[grid](*args, **meta), warmup=5,
                                                 rep=25, return_mode="median")
                    w.writerow([name, name_of(c), f"{1000 * ms:.3f}", k.n_regs, k.metadata.shared, ""])
                except Exception as e:  # noqa: BLE001 - recorded, the sweep goes on
                    w.writerow([name, name_of(c), "", "", "", f"{type(e).__name__}: {e}"[:200]])
                f.flush()
                print(name, name_of(c), flush=True)
    print(torch.cuda.get_device_name(), triton.__version__, torch.__version__)


if __name__ == "__main__":
    main(*sys.argv[1:4])
