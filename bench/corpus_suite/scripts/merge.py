#!/usr/bin/env python3
"""Joins the separately measured batches of the corpus suite into one suite directory.

scripts/measure.sh measures the kernels in batches, each in its own driver process, into
OUT/parts/<nn>/ (suite.toml, data/timings.csv, timings_repeat.csv, checks.csv,
checks_repeat.csv); they are kept here as data/parts/<nn>/ (the same files, flat), the ncu
CSVs as data/ncu/<id>.csv, env.txt and clocks_during_run.csv as data/. This script writes the
suite's suite.toml and data/timings.csv, timings_repeat.csv, checks.csv, checks_repeat.csv
and samples.csv (where the parts have it)
from the parts, in part order (= `bench list` order), so that `ptx2idg eval bench/corpus_suite`
reads one suite (format: docs/rodinia-suite.md). A kernel without data/ncu/<id>.csv is left
out of the manifest (its timings stay in the CSVs) and named on standard output.

    bench/corpus_suite/scripts/merge.py [--gpu GPU]

With --gpu (h200), the measurement of another GPU kept in the same layout under GPU/
(GPU/data/parts/, GPU/data/ncu/, ...) is joined into the manifest suite-GPU.toml, which
names the same PTX and its data under GPU/ (docs/rodinia-suite.md, "Other GPUs").
"""
import argparse
import os
import sys

SUITE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The held-out suite's merge owns the joins both suites share.
sys.path.insert(0, os.path.join(SUITE, "..", "..", "ptx_samples", "heldout", "scripts"))
from merge import header_values, join_csvs  # noqa: E402

CSVS = ["timings.csv", "timings_repeat.csv", "checks.csv", "checks_repeat.csv", "samples.csv"]
SAME = ["device", "sm_count", "l2_bytes", "smem_per_sm_bytes", "cuda_driver_version"]


def split_manifest(text):
    i = text.find("\n[[kernel]]")
    if i < 0:
        return text, []
    body = text[i + 1 :]
    chunks = ["[[kernel]]" + c for c in body.split("[[kernel]]")[1:]]
    return text[: i + 1], chunks


def relocate(chunk, prefix):
    """The data paths of a manifest's header or kernel (`timings`, `ncu`, `env`, `samples`)
    under `prefix`."""
    out = []
    for line in chunk.splitlines(keepends=True):
        for key in ("timings = \"", "ncu = \"", "env = \"", "samples = \""):
            if line.startswith(key):
                line = key + prefix + line[len(key):]
        out.append(line)
    return "".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--gpu", help="join GPU/data/ into suite-GPU.toml (default: data/ into suite.toml)")
    gpu = ap.parse_args().gpu
    prefix = f"{gpu}/" if gpu else ""
    into = os.path.join(SUITE, gpu) if gpu else SUITE
    manifest = f"suite-{gpu}.toml" if gpu else "suite.toml"
    PARTS = os.path.join(into, "data", "parts")
    parts = sorted(p for p in os.listdir(PARTS) if os.path.exists(os.path.join(PARTS, p, "suite.toml")))
    if not parts:
        sys.exit("no measured part under data/parts/")
    header, ref, kernels, ids, left = None, None, [], set(), []
    for p in parts:
        h, chunks = split_manifest(open(os.path.join(PARTS, p, "suite.toml")).read())
        vals = header_values(h)
        if header is None:
            header, ref = h, vals
        for key in SAME:
            if vals.get(key) != ref.get(key):
                sys.exit(f"part {p}: {key} = {vals.get(key)} differs from {ref.get(key)}")
        for c in chunks:
            kid = next(l[5:].strip().strip('"') for l in c.splitlines() if l.startswith("id = "))
            if kid in ids:
                sys.exit(f"part {p}: kernel {kid} measured twice")
            ids.add(kid)
            if not os.path.exists(os.path.join(into, "data", "ncu", kid + ".csv")):
                left.append(kid)
                continue
            kernels.append(relocate(c, prefix).rstrip("\n") + "\n")
    header = header.replace("written by host/bench.cpp (bench time)",
                            "joined by scripts/merge.py from data/parts/ (bench time)")
    if gpu:
        header = relocate(header, prefix)
        header = header.replace("Paths are relative to this file.",
                                f"Paths are relative to this file.\n# The kernels of suite.toml as "
                                f"measured on an {gpu.upper()} (its data under {prefix}).")
    with open(os.path.join(SUITE, manifest), "w") as f:
        f.write(header.rstrip("\n") + "\n\n" + "\n".join(kernels))
    join_csvs(PARTS, parts, CSVS, os.path.join(into, "data"), "part")
    print(f"merged {len(kernels)} kernels from {len(parts)} parts")
    if left:
        print(f"left out for want of ncu counters ({len(left)}): {' '.join(left)}")


if __name__ == "__main__":
    main()
