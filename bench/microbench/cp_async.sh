#!/usr/bin/env bash
# Build and run the cp.async throughput benchmark (cp_async.cu) on the current GPU.
#   bash bench/microbench/cp_async.sh [OUTDIR]
# Writes OUTDIR/h100_cp_async_raw.csv (the λ/Λ suite's row format) and
# OUTDIR/h100_cp_async_env.txt (driver, clocks, toolchain, the LDGSTS forms ptxas emitted).
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/common.sh"
$NVCC -O3 -arch=sm_90 -std=c++17 -o "$build/cp_async" "$here/cp_async.cu"
{
  env_header "$NVCC -O3 -arch=sm_90 -std=c++17 -o cp_async cp_async.cu"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv
  echo "--- LDGSTS/LDG instructions (count, form)"
  cuobjdump -sass "$build/cp_async" | grep -o "LDGSTS[.A-Z0-9_]*\|LDG[.A-Z0-9_]*" | sort | uniq -c || true
} > "$out/h100_cp_async_env.txt" 2>&1
"$build/cp_async" > "$out/h100_cp_async_raw.csv"
nvidia-smi --query-gpu=clocks.sm,clocks.mem --format=csv >> "$out/h100_cp_async_env.txt" 2>&1 || true
rm -rf "$build"
echo "wrote $out/h100_cp_async_raw.csv ($(wc -l < "$out/h100_cp_async_raw.csv") lines)"
