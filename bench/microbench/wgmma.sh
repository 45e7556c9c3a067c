#!/usr/bin/env bash
# Build and run the warpgroup-MMA benchmark (wgmma.cu) on the current GPU (sm_90a).
#   bash bench/microbench/wgmma.sh [OUTDIR]
# Writes OUTDIR/h100_wgmma_raw.csv (the λ/Λ suite's row format) and OUTDIR/h100_wgmma_env.txt
# (driver, clocks, toolchain, the HGMMA instructions ptxas emitted).
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/common.sh"
$NVCC -O3 -gencode arch=compute_90a,code=sm_90a -std=c++17 -o "$build/wgmma" "$here/wgmma.cu"
{
  env_header "$NVCC -O3 -gencode arch=compute_90a,code=sm_90a -std=c++17 -o wgmma wgmma.cu"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv
  echo "--- HGMMA instructions (count, form)"
  cuobjdump -sass "$build/wgmma" | grep -o "HGMMA[.A-Z0-9x_]*" | sort | uniq -c || true
} > "$out/h100_wgmma_env.txt" 2>&1
"$build/wgmma" > "$out/h100_wgmma_raw.csv"
nvidia-smi --query-gpu=clocks.sm,clocks.mem --format=csv >> "$out/h100_wgmma_env.txt" 2>&1 || true
rm -rf "$build"
echo "wrote $out/h100_wgmma_raw.csv ($(wc -l < "$out/h100_wgmma_raw.csv") lines)"
