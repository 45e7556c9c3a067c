#!/usr/bin/env python3
"""Cuts the Nsight Compute CSV of one batch of kernels into one file per kernel.

scripts/measure.sh profiles a batch of kernels with one ncu process (`bench profile` runs the
given ids one after the other, one launch per occupancy point, ascending). This script takes
that CSV (`ncu --import ... --csv --page details --print-units base`), and the batch's
suite.toml (kernels in the same order, their entries and points), and writes
OUTDIR/<kernel id>.csv in the held-out suite's format (docs/rodinia-suite.md): the same lines,
with the launch ID renumbered from 0 per kernel, so ID equals the point's `ncu_launch`.
Every launch is checked against its point: the kernel name must be the entry and
launch__shared_mem_per_block_dynamic the point's dyn_smem_bytes.

    split_ncu.py BATCH.csv BATCH/suite.toml OUTDIR
"""
import csv
import os
import sys


def kernels_of(manifest):
    """[(id, entry, [dyn_smem_bytes per point])] in manifest order."""
    out = []
    section = None
    for line in open(manifest):
        line = line.strip()
        if line.startswith("[["):
            section = line
            if line == "[[kernel]]":
                out.append({"id": None, "entry": None, "dyn": []})
            continue
        if "=" not in line or not out:
            continue
        key, val = (x.strip() for x in line.split("=", 1))
        if section == "[[kernel]]" and key in ("id", "entry"):
            out[-1][key] = val.strip('"')
        elif section == "[[kernel.point]]" and key == "dyn_smem_bytes":
            out[-1]["dyn"].append(int(val))
    return out


def main():
    src, manifest, outdir = sys.argv[1:4]
    os.makedirs(outdir, exist_ok=True)
    lines = [l for l in open(src).read().splitlines() if l.startswith('"')]
    if not lines or not lines[0].startswith('"ID"'):
        sys.exit(f"{src}: no ncu CSV header")
    header, rows = lines[0], lines[1:]
    names = next(csv.reader([header]))
    i_id, i_kernel = names.index("ID"), names.index("Kernel Name")
    i_metric, i_value = names.index("Metric Name"), names.index("Metric Value")
    launches = []  # [(id, kernel name, dyn smem, [lines])]
    for line in rows:
        f = next(csv.reader([line]))
        if not launches or launches[-1][0] != f[i_id]:
            launches.append([f[i_id], f[i_kernel], None, []])
        if f[i_metric] == "launch__shared_mem_per_block_dynamic":
            launches[-1][2] = int(float(f[i_value].replace(",", "")))
        launches[-1][3].append(line)
    kernels = kernels_of(manifest)
    pos = 0
    bad = 0
    for k in kernels:
        n = len(k["dyn"])
        mine = launches[pos : pos + n]
        if len(mine) < n:
            print(f"{k['id']}: {len(mine)} of {n} launches in {src}; no file written")
            bad += 1
            pos += n
            continue
        for j, (lid, kname, dyn, _) in enumerate(mine):
            if kname != k["entry"] or dyn != k["dyn"][j]:
                sys.exit(f"{k['id']} point {j}: launch {lid} is {kname} with {dyn} B dynamic "
                         f"shared memory, expected {k['entry']} with {k['dyn'][j]}")
        with open(os.path.join(outdir, k["id"] + ".csv"), "w") as out:
            out.write(header + "\n")
            for j, (lid, _, _, ls) in enumerate(mine):
                old = f'"{lid}"'
                for l in ls:
                    out.write(f'"{j}"' + l[len(old):] + "\n")
        print(f"{k['id']}: {n} launches")
        pos += n
    if pos != len(launches):
        print(f"{src}: {len(launches)} launches for {pos} points")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
