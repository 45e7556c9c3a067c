#!/usr/bin/env python3
"""Λ(u) from loaded_latency.cu's raw CSV: the table and the fits of the README's "Loaded DRAM
latency" section (Python 3 standard library only).

    python3 bench/microbench/loaded_latency_fit.py [data/h100_loaded_latency_raw.csv]
        [--peaks READ,MIXED,WRITE]

The benchmark writes each launch's utilization u against the H100's sustained DRAM rates
(2937 GB/s reads only, 2827 at 1:1, 3171 writes only, linear between; loaded_latency.cu);
--peaks (another GPU's [bandwidth] dram_read, dram_mixed, dram_write) rescales u to that GPU's
own rates, as gen_profile.py does for the H200.

Per configuration the five launches are averaged. Λ0 is the mean latency of the unloaded
launches (no streamers). A mix's curve is its smooth sweeps (ladder and occupancy, plus the
isolated probes for reads); the nanosleep sweep is bursty and reported apart. Fits use the
points below saturation (u < 0.99 and bandwidth under 95 % of the highest the mix reached):
past it the latency is bytes in flight over the peak (Little's law), which the model's
bandwidth cap already gives.
"""
import csv
import math
import os
import sys

MIXES = [  # name, rw column, write share of the bytes, sweeps
    ("reads", "0", 0.0, ("ladder", "occupancy", "isolate")),
    ("2:1", "2", 1.0 / 3.0, ("rw21", "rw21_occupancy")),
    ("1:1", "1", 0.5, ("rw", "rw_occupancy")),
]


#: The rates loaded_latency.cu measures u against (profile_bw there: the H100's).
BENCH_PEAKS = (2937.0, 2827.0, 3171.0)

#: Read fraction of the bytes by the benchmark's rw column.
READ_FRACTION = {rw: 1.0 - wshare for _, rw, wshare, _ in MIXES}


def sustained(peaks, f):
    """The sustained DRAM rate at read fraction f: linear between writes only, 1:1 and reads
    only (docs/simulator.md), `peaks` = (read, mixed, write) GB/s."""
    read, mixed, write = peaks
    return mixed + (f - 0.5) / 0.5 * (read - mixed) if f >= 0.5 else write + f / 0.5 * (mixed - write)


def load(path, peaks=None):
    """Configurations averaged over their launches; `peaks` rescales u (module docstring)."""
    groups = {}
    for r in csv.DictReader(open(path)):
        key = tuple(r[c] for c in ("sweep", "rw", "isolate", "blocks_per_sm", "warps_per_block",
                                   "d", "sleep_ns"))
        groups.setdefault(key, []).append(r)
    out = []
    for key, rs in groups.items():
        avg = lambda c: sum(float(r[c]) for r in rs) / len(rs)
        f = READ_FRACTION[key[1]]
        scale = sustained(BENCH_PEAKS, f) / sustained(peaks, f) if peaks else 1.0
        out.append(dict(sweep=key[0], rw=key[1], nb=int(key[3]), w=int(key[4]), d=int(key[5]),
                        sleep=int(key[6]), bw=avg("bw_gbs"), u=avg("u") * scale, mean=avg("lat_mean"),
                        median=avg("lat_median"), p90=avg("lat_p90"), p99=avg("lat_p99"),
                        it=avg("stream_iter_cycles"),
                        spread=max(float(r["lat_mean"]) for r in rs) -
                        min(float(r["lat_mean"]) for r in rs)))
    return out


def interp(pts, u):
    """Linear interpolation of (u, Λ) points sorted by u."""
    for (u0, l0), (u1, l1) in zip(pts, pts[1:]):
        if u0 <= u <= u1:
            return l0 + (l1 - l0) * (u - u0) / (u1 - u0)
    return float("nan")


def lsq_scale(g, y):
    """a minimising sum((a*g - y)^2 / y^2): relative least squares."""
    num = sum(gi * yi / (yy * yy) for gi, yi, yy in zip(g, y, y))
    den = sum(gi * gi / (yy * yy) for gi, yy in zip(g, y))
    return num / den if den else 0.0


def fit(pts, l0):
    """Fits of Λ/Λ0 - 1 over the unsaturated points: returns {form: (params, rms %, max %)}."""
    us = [u for u, _ in pts]
    lat = [l for _, l in pts]

    def quality(pred):
        errs = [(p - m) / m * 100 for p, m in zip(pred, lat)]
        return math.sqrt(sum(e * e for e in errs) / len(errs)), max(abs(e) for e in errs)

    def best(shape, grid):
        top = None
        for params in grid:
            g = [l0 * shape(u, *params) for u in us]
            if any(math.isinf(x) or math.isnan(x) for x in g):
                continue
            a = lsq_scale(g, [m - l0 for m in lat])
            pred = [l0 + a * gi for gi in g]
            rms, mx = quality(pred)
            if top is None or rms < top[1]:
                top = ((a,) + params, rms, mx)
        return top

    ks = [0.25 + 0.05 * i for i in range(116)]
    res = {}
    res["Λ0 (1 + a u^k / (1 - u))"] = best(
        lambda u, k: u ** k / (1 - u) if u < 1 else float("inf"), [(k,) for k in ks])
    res["Λ0 (1 + a u^k)"] = best(lambda u, k: u ** k, [(k,) for k in ks])
    res["Λ0 (1 + a max(0, u - u0))"] = best(lambda u, u0: max(0.0, u - u0),
                                            [(0.01 * i,) for i in range(0, 90)])
    res["Λ0 (1 + a u^k / (1 - u / c))"] = best(
        lambda u, k, c: u ** k / (1 - u / c) if u < c else float("inf"),
        [(k, 1.0 + 0.01 * j) for k in ks[::2] for j in range(1, 51)])
    return res


def fit_unified(pts, l0):
    """One form for every mix, w the write share of the bytes:
    Λ/Λ0 = 1 + (a u^k + b w u^j) / (1 - u/c); a and b by weighted least squares on the relative
    error, k, j, c on a grid. pts: (u, w, Λ). Returns (a, b, k, j, c, rms %, max %)."""
    top = None
    for k in [1 + 0.1 * i for i in range(31)]:
        for j in [0.1 * i for i in range(1, 16)]:
            for c in [1.0 + 0.02 * i for i in range(1, 26)]:
                g1 = [u ** k / (1 - u / c) for u, _, _ in pts]
                g2 = [w * u ** j / (1 - u / c) for u, w, _ in pts]
                y = [lat / l0 - 1 for _, _, lat in pts]
                wt = [(l0 / lat) ** 2 for _, _, lat in pts]
                s11 = sum(q * a * a for q, a in zip(wt, g1))
                s22 = sum(q * b * b for q, b in zip(wt, g2))
                s12 = sum(q * a * b for q, a, b in zip(wt, g1, g2))
                t1 = sum(q * a * yi for q, a, yi in zip(wt, g1, y))
                t2 = sum(q * b * yi for q, b, yi in zip(wt, g2, y))
                det = s11 * s22 - s12 * s12
                if abs(det) < 1e-18:
                    continue
                a = (t1 * s22 - t2 * s12) / det
                b = (s11 * t2 - s12 * t1) / det
                errs = [((1 + a * p + b * q) * l0 - lat) / lat * 100
                        for p, q, (_, _, lat) in zip(g1, g2, pts)]
                rms = math.sqrt(sum(e * e for e in errs) / len(errs))
                if top is None or rms < top[5]:
                    top = (a, b, k, j, c, rms, max(abs(e) for e in errs))
    return top


def unloaded_latency(rows):
    unloaded = [r for r in rows if r["nb"] == 0]
    return sum(r["mean"] for r in unloaded) / len(unloaded), unloaded


def mix_curve(rows, rw, sweeps, l0):
    """(points sorted by u, fitted curve [(0, Λ0), (u, Λ)...] below saturation) of one mix."""
    pts = sorted((r for r in rows if r["rw"] == rw and r["sweep"] in sweeps and r["nb"] > 0),
                 key=lambda r: r["u"])
    bwmax = max(r["bw"] for r in pts)
    curve = [(0.0, l0)] + [(r["u"], r["mean"]) for r in pts
                           if r["bw"] < 0.95 * bwmax and r["u"] < 0.99]
    curve.sort()
    return pts, curve


def unified(path, peaks=None):
    """The one-form fit over every mix (what gen_profile.py writes as [loaded_latency])."""
    rows = load(path, peaks)
    l0, _ = unloaded_latency(rows)
    every = []
    for _, rw, wshare, sweeps in MIXES:
        _, curve = mix_curve(rows, rw, sweeps, l0)
        every += [(u, wshare, lat) for u, lat in curve[1:]]
    a, b, k, j, c, rms, mx = fit_unified(every, l0)
    return dict(a=a, b=b, k=k, j=j, c=c, rms=rms, max=mx, points=len(every), l0=l0)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    args = sys.argv[1:]
    peaks = None
    if "--peaks" in args:
        i = args.index("--peaks")
        peaks = tuple(float(x) for x in args[i + 1].split(","))
        del args[i:i + 2]
    path = args[0] if args else os.path.join(here, "data", "h100_loaded_latency_raw.csv")
    rows = load(path, peaks)
    l0, unloaded = unloaded_latency(rows)
    med0 = sum(r["median"] for r in unloaded) / len(unloaded)
    print(f"unloaded: mean {l0:.1f} cycles, median {med0:.0f} ({len(unloaded)} configurations)")
    every, curves = [], []
    for name, rw, wshare, sweeps in MIXES:
        pts, curve = mix_curve(rows, rw, sweeps, l0)
        print(f"\n## {name}")
        print("| sweep | blocks/SM x warps x D | GB/s | u | Λ mean | Λ/Λ0 | median | p90 | p99 "
              "| stream iteration |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        for r in pts:
            print(f"| {r['sweep']} | {r['nb']}x{r['w']}x{r['d']} | {r['bw']:.0f} | {r['u']:.3f} "
                  f"| {r['mean']:.0f} | {r['mean'] / l0:.3f} | {r['median']:.0f} | {r['p90']:.0f} "
                  f"| {r['p99']:.0f} | {r['it']:.0f} |")
        bwmax = max(r["bw"] for r in pts)
        every += [(u, wshare, lat) for u, lat in curve[1:]]
        print(f"highest bandwidth {bwmax:.0f} GB/s (u = {max(r['u'] for r in pts):.3f}); "
              f"fitted points: {len(curve) - 1} below u = 0.99 and {0.95 * bwmax:.0f} GB/s")
        curves.append((name, curve))
        for form, (params, rms, mx) in fit(curve[1:], l0).items():
            ps = ", ".join(f"{p:.3g}" for p in params)
            print(f"  {form}: params (a, ...) = ({ps}); RMS {rms:.2f} %, max {mx:.2f} %")
    print("\n## Λ(u), interpolated between the measured points (cycles, and Λ/Λ0 - 1)")
    print("| u | " + " | ".join(name for name, _ in curves) + " |")
    print("|---|" + "---|" * len(curves))
    for u in (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95):
        cells = []
        for _, curve in curves:
            lat = interp(curve, u)
            cells.append("–" if math.isnan(lat) else f"{lat:.0f} ({lat / l0 - 1:+.0%})")
        print(f"| {u} | " + " | ".join(cells) + " |")
    a, b, k, j, c, rms, mx = fit_unified(every, l0)
    print(f"\nall mixes, Λ0 (1 + (a u^k + b w u^j) / (1 - u/c)), w the write share: a {a:.3g}, "
          f"b {b:.3g}, k {k:.2g}, j {j:.2g}, c {c:.3g}; RMS {rms:.2f} %, max {mx:.2f} % "
          f"({len(every)} points)")
    sl = sorted((r for r in rows if r["sweep"] == "sleep"), key=lambda r: r["u"])
    print("\n## reads, nanosleep-throttled (7x8x4)")
    print("| sleep ns | GB/s | u | Λ mean | median | p90 | p99 |")
    print("|---|---|---|---|---|---|---|")
    for r in sl:
        print(f"| {r['sleep']} | {r['bw']:.0f} | {r['u']:.3f} | {r['mean']:.0f} | {r['median']:.0f} "
              f"| {r['p90']:.0f} | {r['p99']:.0f} |")
    print("\nlargest spread of a configuration's five means:",
          f"{max(r['spread'] for r in rows):.0f} cycles;",
          "below saturation:",
          f"{max(r['spread'] for r in rows if r['u'] < 0.95 and r['sweep'] != 'sleep'):.1f}")


if __name__ == "__main__":
    main()
