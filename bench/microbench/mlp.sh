#!/usr/bin/env bash
# Build and run the memory-parallelism benchmark (mlp.cu: DRAM throughput against the
# requests in flight per SM).
#   bash bench/microbench/mlp.sh [OUTDIR]
# Writes OUTDIR/${gpu}_mlp_raw.csv (times), OUTDIR/${gpu}_mlp_env.txt and OUTDIR/mlp.ptx (the
# kernels' PTX, to simulate the same launches with ptx2idg beside the measurement).
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/common.sh"
run_standalone mlp "-O3 -arch=$ARCH -std=c++17" "LDG[.A-Z0-9]*" "global load"
$NVCC -O3 -arch="$ARCH" -std=c++17 --ptx -o "$out/mlp.ptx" "$here/mlp.cu"
