#!/usr/bin/env bash
# Build and run the device-wide bandwidth and launch-cost benchmarks (bandwidth.cu).
#   bash bench/microbench/bandwidth.sh [OUTDIR]
# Writes OUTDIR/h100_bandwidth_raw.csv and OUTDIR/h100_bandwidth_env.txt.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-$here/data}"
mkdir -p "$out"
build="$(mktemp -d)"
NVCC="${NVCC:-nvcc}"
ARCH="${ARCH:-sm_90}"
env_file="$out/h100_bandwidth_env.txt"
{
  echo "date_utc: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "build: $NVCC -O3 -arch=$ARCH -std=c++17 -o mbw bandwidth.cu"
  echo "run: ./mbw > h100_bandwidth_raw.csv"
  echo "nvcc: $($NVCC --version | tail -n 2 | tr '\n' ' ')"
  echo "--- nvidia-smi before"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,clocks.max.mem,power.draw,temperature.gpu,pstate --format=csv
} > "$env_file" 2>&1
$NVCC -O3 -arch="$ARCH" -std=c++17 -o "$build/mbw" "$here/bandwidth.cu"
"$build/mbw" > "$out/h100_bandwidth_raw.csv"
{
  echo "--- nvidia-smi after"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,clocks.max.mem,power.draw,temperature.gpu,clocks_throttle_reasons.active --format=csv
} >> "$env_file" 2>&1
rm -rf "$build"
echo "wrote $out/h100_bandwidth_raw.csv ($(wc -l < "$out/h100_bandwidth_raw.csv") lines)"
