#!/usr/bin/env bash
# Build and run the gather benchmark (gather.cu: what a gather's scattered sectors cost).
#   bash bench/microbench/gather.sh [OUTDIR]
# Writes OUTDIR/${gpu}_gather_raw.csv (times), OUTDIR/${gpu}_gather_env.txt and OUTDIR/gather.ptx
# (the kernels' PTX, to simulate the same launches with ptx2idg beside the measurement).
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/common.sh"
run_standalone gather "-O3 -arch=$ARCH -std=c++17" "LDG[.A-Z0-9]*" "global load"
$NVCC -O3 -arch="$ARCH" -std=c++17 --ptx -o "$out/gather.ptx" "$here/gather.cu"
