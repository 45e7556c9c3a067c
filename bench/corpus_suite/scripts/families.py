#!/usr/bin/env python3
"""Splits `ptx2idg eval bench/corpus_suite` results by kernel family and by size class.

    ptx2idg eval bench/corpus_suite --gpu h100 --format csv > all.csv
    ptx2idg eval bench/corpus_suite --gpu h100 --counters one --format csv > one.csv
    ptx2idg eval bench/corpus_suite --gpu h100 --format points > points.csv
    bench/corpus_suite/scripts/families.py all.csv one.csv points.csv

Prints Markdown: (1) every model's mean MAPE / MAPE_shape per family (`family` key of
suite.toml), (2) Pipeline per family with --counters all and one and its bias, (3) Pipeline
per class (small grid: at most 4 blocks per SM of grid; short: under 50 us at the top point;
otherwise by family group), (4) the worst kernels by Pipeline MAPE with what the counters of
the top point say (achieved DRAM bandwidth, L2 hit rate, L1 sectors per global load request,
L1 load sectors per L2 read sector: above 1 where loads hit in L1).

Bias: the mean over a kernel's points of predicted / measured WPC - 1 (positive: the model
predicts the kernel faster than it runs).
"""
import csv
import os
import sys
from collections import OrderedDict, defaultdict

SUITE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GROUPS = OrderedDict([
    ("streams and stencils", ["stream", "stencil1d", "stencil2d", "conv2d", "stencil3d", "fdtd", "sweep"]),
    ("gathers", ["gather", "spmv", "embbag", "mesh"]),
    ("compute / mixed", ["reduce", "transpose", "histogram", "gemm", "softmax", "nbody"]),
])


def manifest():
    ks = OrderedDict()
    cur = None
    sect = None
    for line in open(os.path.join(SUITE, "suite.toml")):
        line = line.strip()
        if line.startswith("[["):
            sect = line
            if line == "[[kernel]]":
                cur = {}
            continue
        if sect != "[[kernel]]" or "=" not in line:
            continue
        k, v = (x.strip() for x in line.split("=", 1))
        cur[k] = v.strip('"')
        if k == "id":
            ks[cur["id"]] = cur
    return ks


def timings():
    t = defaultdict(dict)
    for r in csv.DictReader(open(os.path.join(SUITE, "data", "timings.csv"))):
        t[r["kernel"]][int(r["blocks_per_sm"])] = float(r["median_us"])
    return t


def read_eval(path):
    res = defaultdict(dict)
    models = []
    for r in csv.DictReader(open(path)):
        if r["model"] not in models:
            models.append(r["model"])
        if r["mape"] == "":
            continue
        res[r["kernel"]][r["model"]] = (float(r["mape"]), float(r["mape_shape"]))
    return res, models


def read_points(path):
    pts = defaultdict(list)
    for r in csv.DictReader(open(path)):
        pts[r["kernel"]].append(r)
    return pts


def ncu_top(kid, ks):
    """metrics of the top point's launch"""
    top = str(int(ks[kid]["max_blocks_per_sm"]) - 1)
    m = {}
    for r in csv.DictReader(open(os.path.join(SUITE, "data", "ncu", kid + ".csv"))):
        if r["ID"] == top:
            try:
                m[r["Metric Name"]] = float(r["Metric Value"].replace(",", ""))
            except ValueError:
                pass
    return m


def mean(xs):
    xs = list(xs)
    return sum(xs) / len(xs) if xs else float("nan")


def cell(pairs):
    pairs = [p for p in pairs if p is not None]
    if not pairs:
        return "n/a"
    return f"{mean(p[0] for p in pairs):.1f} / {mean(p[1] for p in pairs):.1f}"


def main():
    all_csv, one_csv, points_csv = sys.argv[1:4]
    ks = manifest()
    t = timings()
    ev, models = read_eval(all_csv)
    ev1, _ = read_eval(one_csv)
    pts = read_points(points_csv)
    fam = OrderedDict()
    for kid, k in ks.items():
        fam.setdefault(k.get("family", k["app"]), []).append(kid)

    def bias(kid, which=None):
        rows = pts[kid]
        if which == "low":
            rows = rows[:1]
        elif which == "high":
            rows = rows[-1:]
        return mean(float(r["pipeline"]) / float(r["measured_wpc"]) - 1 for r in rows)

    print("### Every model per family (mean MAPE / MAPE_shape %, `--counters all`)\n")
    print("| family | kernels | " + " | ".join(models) + " |")
    print("|---|---:|" + "---:|" * len(models))
    for f, ids in fam.items():
        print(f"| {f} | {len(ids)} | " + " | ".join(cell(ev[i].get(m) for i in ids) for m in models) + " |")
    print(f"| **all** | {len(ks)} | " + " | ".join(f"**{cell(ev[i].get(m) for i in ks)}**" for m in models) + " |")
    print()
    print("### Pipeline per family (MAPE / MAPE_shape %; bias = mean predicted/measured WPC - 1)\n")
    print("| family | kernels | counters all | counters one | bias | bias at 1 block/SM | bias at the top point |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for f, ids in fam.items():
        print(f"| {f} | {len(ids)} | {cell(ev[i].get('pipeline') for i in ids)} | "
              f"{cell(ev1[i].get('pipeline') for i in ids)} | {100 * mean(bias(i) for i in ids):+.0f} % | "
              f"{100 * mean(bias(i, 'low') for i in ids):+.0f} % | {100 * mean(bias(i, 'high') for i in ids):+.0f} % |")
    print()
    classes = OrderedDict()
    for g, fs in GROUPS.items():
        classes[g] = [i for i in ks if ks[i].get("family") in fs]
    classes["small grid (at most 4 blocks per SM)"] = [
        i for i in ks if int(ks[i]["grid_blocks"]) <= 4 * 132]
    classes["short (under 50 us at the top point)"] = [
        i for i in ks if t[i][max(t[i])] < 50.0]
    classes["long (50 us or more at the top point)"] = [
        i for i in ks if t[i][max(t[i])] >= 50.0]
    print("### Pipeline per class (a kernel can be in several)\n")
    print("| class | kernels | counters all | counters one | bias |")
    print("|---|---:|---:|---:|---:|")
    for c, ids in classes.items():
        print(f"| {c} | {len(ids)} | {cell(ev[i].get('pipeline') for i in ids)} | "
              f"{cell(ev1[i].get('pipeline') for i in ids)} | {100 * mean(bias(i) for i in ids):+.0f} % |")
    print()
    worst = sorted(ks, key=lambda i: -ev[i]["pipeline"][0])[:int(sys.argv[4]) if len(sys.argv) > 4 else 20]
    print("### Worst kernels (Pipeline, `--counters all`) and the top point's counters\n")
    print("| kernel | family | MAPE / shape | bias at 1 block/SM | at top | top µs | DRAM GB/s | L2 hit % | sectors / ld request | L1 / L2 sectors |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for i in worst:
        m = ncu_top(i, ks)
        us = t[i][max(t[i])]
        dram = (m.get("dram__bytes_read.sum", 0) + m.get("dram__bytes_write.sum", 0)) / (
            m.get("gpu__time_duration.sum", float("nan")) * 1e-9) / 1e9
        req = m.get("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", 0)
        spr = m.get("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", 0) / req if req else float("nan")
        l2r = m.get("lts__t_sectors_op_read.sum", 0)
        reuse = m.get("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", 0) / l2r if l2r else float("nan")
        a, s = ev[i]["pipeline"]
        print(f"| `{i}` | {ks[i]['family']} | {a:.1f} / {s:.1f} | {100 * bias(i, 'low'):+.0f} % | "
              f"{100 * bias(i, 'high'):+.0f} % | {us:.1f} | {dram:.0f} | "
              f"{m.get('lts__t_sector_hit_rate.pct', float('nan')):.0f} | {spr:.1f} | {reuse:.1f} |")


if __name__ == "__main__":
    main()
