#!/usr/bin/env bash
# Build and run the device-wide bandwidth and launch-cost benchmarks (bandwidth.cu).
#   bash bench/microbench/bandwidth.sh [OUTDIR]
# Writes OUTDIR/${gpu}_bandwidth_raw.csv and OUTDIR/${gpu}_bandwidth_env.txt.
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/common.sh"
env_file="$out/${gpu}_bandwidth_env.txt"
{
  env_header "$NVCC -O3 -arch=$ARCH -std=c++17 -o mbw bandwidth.cu"
  echo "run: ./mbw > ${gpu}_bandwidth_raw.csv"
  echo "--- nvidia-smi before"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,clocks.max.mem,power.draw,temperature.gpu,pstate --format=csv
} > "$env_file" 2>&1
$NVCC -O3 -arch="$ARCH" -std=c++17 -o "$build/mbw" "$here/bandwidth.cu"
"$build/mbw" > "$out/${gpu}_bandwidth_raw.csv"
{
  echo "--- nvidia-smi after"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,clocks.max.mem,power.draw,temperature.gpu,clocks_throttle_reasons.active --format=csv
} >> "$env_file" 2>&1
rm -rf "$build"
echo "wrote $out/${gpu}_bandwidth_raw.csv ($(wc -l < "$out/${gpu}_bandwidth_raw.csv") lines)"
