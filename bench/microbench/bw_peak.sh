#!/usr/bin/env bash
# Build and run the peak-bandwidth benchmark (bw_peak.cu).
#   bash bench/microbench/bw_peak.sh [OUTDIR]
# Writes OUTDIR/${gpu}_bw_peak_raw.csv (bandwidth.cu's row format) and OUTDIR/${gpu}_bw_peak_env.txt.
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/common.sh"
$NVCC -O3 -arch="$ARCH" -std=c++17 -o "$build/bw_peak" "$here/bw_peak.cu"
{
  env_header "$NVCC -O3 -arch=$ARCH -std=c++17 -o bw_peak bw_peak.cu"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv
} > "$out/${gpu}_bw_peak_env.txt" 2>&1
"$build/bw_peak" > "$out/${gpu}_bw_peak_raw.csv"
rm -rf "$build"
echo "wrote $out/${gpu}_bw_peak_raw.csv ($(wc -l < "$out/${gpu}_bw_peak_raw.csv") lines)"
