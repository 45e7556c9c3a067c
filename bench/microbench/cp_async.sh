#!/usr/bin/env bash
# Build and run the cp.async throughput benchmark (cp_async.cu) on the current GPU.
#   bash bench/microbench/cp_async.sh [OUTDIR]
# Writes OUTDIR/${gpu}_cp_async_raw.csv (the λ/Λ suite's row format) and
# OUTDIR/${gpu}_cp_async_env.txt (driver, clocks, toolchain, the LDGSTS forms ptxas emitted).
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/common.sh"
run_standalone cp_async "-O3 -arch=sm_90 -std=c++17" "LDGSTS[.A-Z0-9_]*\\|LDG[.A-Z0-9_]*" "LDGSTS/LDG"
