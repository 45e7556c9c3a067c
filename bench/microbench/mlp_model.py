"""The launches of mlp.cu (data/h100_mlp_raw.csv) through the Pipeline model, beside the
measured DRAM throughput, and Little's law on the measurement: the latency a streaming load
sees, n x 128 B x SMs / throughput with n = W x K requests in flight per SM, over the
low-load latency, against the loaded-latency curve of the GPU profile (the probe fit of
loaded_latency.cu) and the read term refitted to these points with the same capacity.

    python3 bench/microbench/mlp_model.py [PTX2IDG] [extra simulate options...]

PTX2IDG is the CLI (default: target/release/ptx2idg from the repository root); the model
reads data/mlp.ptx (the timed kernels' PTX) with --sass as the environment gives it."""

import csv
import math
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SMS, REQUEST = 132, 128
# The H100 profile's [loaded_latency] (reads only): reads u^reads_exp / (1 - u / capacity).
PROBE = dict(a=0.08165, k=1.5, c=1.14)


def rows():
    with open(os.path.join(HERE, "data", "h100_mlp_raw.csv")) as f:
        return list(csv.DictReader(f))


def little(data):
    """(k, w, n, u, latency / low-load latency) per launch, u against the highest rate."""
    peak = max(float(r["gb_per_s"]) for r in data)
    pts = []
    for r in data:
        k, w, x = int(r["k"]), int(r["warps_per_sm"]), float(r["gb_per_s"])
        n = k * w
        pts.append((k, w, n, x / peak, n * REQUEST * SMS / (x * 1e9)))
    low = [p[4] for p in pts if p[3] < 0.15 and p[0] <= 2]
    l0 = sum(low) / len(low)
    return [(k, w, n, u, lat / l0) for k, w, n, u, lat in pts], l0


def refit(pts):
    """The read term's coefficient and exponent through the one-load-per-warp-and-more points
    below saturation (K <= 2, 0.2 < u < 0.97), the capacity kept: least squares in
    log(excess)."""
    c = PROBE["c"]
    xs, ys = [], []
    for k, _, _, u, f in pts:
        if k <= 2 and 0.2 < u < 0.97 and f > 1.0:
            xs.append(math.log(u))
            ys.append(math.log((f - 1) * (1 - u / c)))
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    kk = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    return math.exp(my - kk * mx), kk


def model(cli, extra):
    ptx = os.path.join(HERE, "data", "mlp.ptx")
    names = {}
    with open(ptx) as f:
        for line in f:
            if ".entry" in line:
                names[int(re.search(r"ILi(\d+)E", line).group(1))] = re.search(r"(_Z\w+)", line).group(1)
    out = {}
    for r in rows():
        k, bps, block, iters = (int(r[c]) for c in ("k", "blocks_per_sm", "block_threads", "iters"))
        args = [cli, "simulate", ptx, "--kernel", names[k], "--grid", str(SMS * bps), "--block",
                str(block), "--param", f"2={iters}", "--blocks-per-sm", str(bps), *extra]
        p = subprocess.run(args, capture_output=True, text=True, check=True)
        us = next(float(line.split("(")[1].split()[0]) for line in p.stdout.splitlines()
                  if line.startswith("cycles"))
        out[(k, int(r["warps_per_sm"]))] = int(r["bytes"]) / us / 1e3
    return out


def main():
    cli = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "target", "release", "ptx2idg")
    data = rows()
    pts, l0 = little(data)
    a, k = refit(pts)
    c = PROBE["c"]
    print(f"low-load latency (Little) {l0 * 1e9:.1f} ns; read term refitted: {a:.3f} u^{k:.2f}"
          f" (probe fit {PROBE['a']} u^{PROBE['k']}), capacity {c}")
    sim = model(cli, sys.argv[2:])
    print("| K | W | n | measured GB/s | model GB/s | model / measured | u | Λ/Λ0 (Little) "
          "| probe fit | refit |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for (kk, w, n, u, f), r in zip(pts, data):
        probe = 1 + PROBE["a"] * u ** PROBE["k"] / (1 - min(u, 0.99) / c)
        fit = 1 + a * u ** k / (1 - min(u, 0.99) / c)
        m = sim[(kk, w)]
        x = float(r["gb_per_s"])
        print(f"| {kk} | {w} | {n} | {x:.0f} | {m:.0f} | {m / x:.2f} | {u:.3f} | {f:.3f} "
              f"| {probe:.3f} | {fit:.3f} |")


if __name__ == "__main__":
    main()
