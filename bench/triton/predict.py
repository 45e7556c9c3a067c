"""Predicts every configuration of kernels.py with ptx2idg.triton (no GPU) and writes
predicted.csv; with measured.csv beside it, prints Spearman's rho and the top-1 regret.
`--kernels llm_kernels` does the same for llm_kernels.py (predicted_llm_kernels.csv against
measured_llm_kernels.csv, and `--kernels thirdparty_kernels` for thirdparty_kernels.py);
`--gpu PROFILE` predicts for another bundled profile than hopper-h100; `--report` only prints
the table."""

import csv
import os
import sys
import time

import importlib

import ptx2idg.triton as pt

HERE = os.path.dirname(os.path.abspath(__file__))


def ranks(xs):
    order = sorted(range(len(xs)), key=lambda i: xs[i])
    r = [0.0] * len(xs)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and xs[order[j + 1]] == xs[order[i]]:
            j += 1
        for t in range(i, j + 1):
            r[order[t]] = (i + j) / 2 + 1
        i = j + 1
    return r


def spearman(a, b):
    ra, rb = ranks(a), ranks(b)
    ma, mb = sum(ra) / len(ra), sum(rb) / len(rb)
    cov = sum((x - ma) * (y - mb) for x, y in zip(ra, rb))
    va = sum((x - ma) ** 2 for x in ra) ** 0.5
    vb = sum((y - mb) ** 2 for y in rb) ** 0.5
    return cov / (va * vb)


def names(module):
    """(predicted, measured) file names of a kernel module."""
    if module == "kernels":
        return "predicted.csv", "measured.csv"
    return f"predicted_{module}.csv", f"measured_{module}.csv"


def predict(module, gpu):
    kernels = importlib.import_module(module)
    from kernels import key

    key = getattr(kernels, "key", key)
    rows = []
    for name, fn, configs, args, grid in kernels.cases(lambda shape, dt: "*" + dt):
        t = time.time()
        for r in pt.rank(fn, configs, *args, grid=grid, gpu=gpu):
            rows.append({"kernel": name, "config": key(r.config), "predicted_us": r.time_us,
                         "regs": r.regs, "spill_bytes": r.spill_bytes, "shared": r.shared, "error": r.error or ""})
        print(f"{name}: {len(configs)} configs predicted in {time.time() - t:.1f} s",
              file=sys.stderr)
    with open(os.path.join(HERE, names(module)[0]), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


def report(module):
    predicted, measured = names(module)

    def load(name):
        with open(os.path.join(HERE, name)) as f:
            return list(csv.DictReader(f))
    pred = {(r["kernel"], r["config"]): float(r["predicted_us"]) for r in load(predicted)}
    meas = {(r["kernel"], r["config"]): float(r["measured_us"]) for r in load(measured)
            if r["measured_us"]}
    spills = {(r["kernel"], r["config"]): r["spill_bytes"] not in ("", "0")
              for r in load(predicted)}
    print("| kernel | configurations | Spearman rho | top-1 regret | predicted best | measured best "
          "| rho, regret without spilling configs |")
    print("|---|---|---|---|---|---|---|")
    for k in sorted({k for k, _ in meas}):
        cs = [c for kk, c in meas if kk == k and (k, c) in pred and pred[(k, c)] != float("inf")]
        p = [pred[(k, c)] for c in cs]
        m = [meas[(k, c)] for c in cs]
        best_pred = min(cs, key=lambda c: pred[(k, c)])
        regret = meas[(k, best_pred)] / min(m) - 1
        ns = [c for c in cs if not spills[(k, c)]]
        ns_best = min(ns, key=lambda c: pred[(k, c)])
        ns_regret = meas[(k, ns_best)] / min(meas[(k, c)] for c in ns) - 1
        ns_rho = spearman([pred[(k, c)] for c in ns], [meas[(k, c)] for c in ns])
        print(f"| {k} | {len(cs)} | {spearman(p, m):.3f} | {100 * regret:.1f} % | "
              f"`{best_pred}` | `{min(cs, key=lambda c: meas[(k, c)])}` "
              f"| {ns_rho:.3f}, {100 * ns_regret:.1f} % ({len(ns)}) |")


if __name__ == "__main__":
    module = sys.argv[sys.argv.index("--kernels") + 1] if "--kernels" in sys.argv else "kernels"
    gpu = sys.argv[sys.argv.index("--gpu") + 1] if "--gpu" in sys.argv else "hopper-h100"
    if "--report" not in sys.argv:
        predict(module, gpu)
    if os.path.exists(os.path.join(HERE, names(module)[1])):
        report(module)
