#!/usr/bin/env bash
# Build and run the warpgroup-MMA benchmark (wgmma.cu) on the current GPU (sm_90a).
#   bash bench/microbench/wgmma.sh [OUTDIR]
# Writes OUTDIR/${gpu}_wgmma_raw.csv (the λ/Λ suite's row format) and OUTDIR/${gpu}_wgmma_env.txt
# (driver, clocks, toolchain, the HGMMA instructions ptxas emitted).
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/common.sh"
run_standalone wgmma "-O3 -gencode arch=compute_90a,code=sm_90a -std=c++17" "HGMMA[.A-Z0-9x_]*" "HGMMA"
