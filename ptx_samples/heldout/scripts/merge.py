#!/usr/bin/env python3
"""Joins the separately measured groups of the held-out suite into one suite directory.

Each group (a, b, gen) is measured on its own (scripts/measure.sh <dir> all <kernel ids>), and
its outputs are kept under data/parts/<group>/: suite.toml, timings.csv, timings_repeat.csv,
checks.csv, checks_repeat.csv, env.txt, clocks_during_run.csv (the ncu CSVs go straight to
data/ncu/<id>.csv, one file per kernel). This script writes the suite's own suite.toml,
data/timings.csv, data/timings_repeat.csv, data/checks.csv, data/checks_repeat.csv,
data/env.txt and data/clocks_during_run.csv from the parts, in group order, so that
`ptx2idg eval ptx_samples/heldout` reads one suite (format: docs/rodinia-suite.md).
data/samples.csv (the sampled launches) is joined too when the parts have one; the committed
one was measured for the whole suite at once (bench/scripts/measure_samples.sh), and parts
without it leave it as it is.

    scripts/merge.py            (from anywhere; paths are relative to the suite)
"""
import os
import sys

GROUPS = ["a", "b", "gen"]
SUITE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PARTS = os.path.join(SUITE, "data", "parts")
CSVS = ["timings.csv", "timings_repeat.csv", "checks.csv", "checks_repeat.csv", "samples.csv"]
# top-level manifest keys that must agree between parts (measured on the same GPU)
SAME = ["device", "sm_count", "l2_bytes", "smem_per_sm_bytes", "cuda_driver_version"]


def split_manifest(text):
    """(header lines, kernel text) of a suite.toml written by bench.cpp."""
    i = text.find("\n[[kernel]]")
    if i < 0:
        return text, ""
    return text[: i + 1], text[i + 1 :]


def header_values(header):
    vals = {}
    for line in header.splitlines():
        if "=" in line and not line.lstrip().startswith("#"):
            k, v = line.split("=", 1)
            vals[k.strip()] = v.strip()
    return vals


def join_csvs(parts_dir, parts, names, out_dir, label):
    """Each CSV of `names` found under `parts_dir`/<part>/, its rows joined in part order
    under one header (which must agree) into `out_dir`/<name>; `label` names a part in
    messages. Also used by bench/corpus_suite/scripts/merge.py."""
    for name in names:
        rows, head = [], None
        for g in parts:
            p = os.path.join(parts_dir, g, name)
            if not os.path.exists(p):
                continue
            lines = open(p).read().splitlines()
            if head is None:
                head = lines[0]
            elif lines[0] != head:
                sys.exit(f"{label} {g}: {name} header differs")
            rows += lines[1:]
        if head is not None:
            with open(os.path.join(out_dir, name), "w") as f:
                f.write("\n".join([head] + rows) + "\n")


def main():
    parts = [g for g in GROUPS if os.path.exists(os.path.join(PARTS, g, "suite.toml"))]
    if not parts:
        sys.exit("no measured group under data/parts/")
    header = None
    ref = None
    kernels = []
    ids = set()
    for g in parts:
        h, k = split_manifest(open(os.path.join(PARTS, g, "suite.toml")).read())
        vals = header_values(h)
        if header is None:
            header, ref = h, vals
        for key in SAME:
            if vals.get(key) != ref.get(key):
                sys.exit(f"group {g}: {key} = {vals.get(key)} differs from {ref.get(key)}")
        for line in k.splitlines():
            if line.startswith("id = "):
                kid = line[5:].strip().strip('"')
                if kid in ids:
                    sys.exit(f"group {g}: kernel {kid} measured twice")
                ids.add(kid)
                if not os.path.exists(os.path.join(SUITE, "data", "ncu", kid + ".csv")):
                    sys.exit(f"group {g}: data/ncu/{kid}.csv is missing")
        kernels.append(k.rstrip("\n") + "\n")
    header = header.replace("written by host/bench.cpp (bench time)",
                            "joined by scripts/merge.py from data/parts/ (bench time)")
    # the sampled launches (measured for the whole suite, or joined below from the parts)
    has_samples = os.path.exists(os.path.join(SUITE, "data", "samples.csv")) or any(
        os.path.exists(os.path.join(PARTS, g, "samples.csv")) for g in parts)
    if has_samples and "\nsamples = " not in header:
        header = header.replace('env = "data/env.txt"\n',
                                'env = "data/env.txt"\nsamples = "data/samples.csv"\n')
    with open(os.path.join(SUITE, "suite.toml"), "w") as f:
        f.write(header.rstrip("\n") + "\n\n" + "\n".join(kernels))
    join_csvs(PARTS, parts, CSVS, os.path.join(SUITE, "data"), "group")
    for name in ["env.txt", "clocks_during_run.csv"]:
        out = []
        for g in parts:
            p = os.path.join(PARTS, g, name)
            if os.path.exists(p):
                # the first part's text comes first: eval reads the clock from it
                out.append(open(p).read() if not out else f"\n# group {g}\n" + open(p).read())
        if out:
            with open(os.path.join(SUITE, "data", name), "w") as f:
                f.write("".join(out))
    print(f"merged {len(ids)} kernels from groups {', '.join(parts)}")


if __name__ == "__main__":
    main()
