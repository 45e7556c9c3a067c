#!/usr/bin/env bash
# Builds and times the unified model's measurement kernels (unified.cu) and emits their PTX.
#   bash bench/unified/measure.sh [GPU]        (GPU: the data folder's name, default h100)
# Writes bench/unified/data/GPU/times.csv (header in README.md), data/GPU/env.txt (build,
# nvcc, driver, clocks before and after) and data/GPU/unified.ptx, the PTX of the measured
# build, also copied to bench/unified/ptx/unified.ptx. NVCC and ARCH (default sm_90) from
# the environment. About a minute on an H100 (build included).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
gpu="${1:-h100}"
out="$here/data/$gpu"
mkdir -p "$out" "$here/ptx"
NVCC="${NVCC:-nvcc}"
ARCH="${ARCH:-sm_90}"
build="$(mktemp -d)"
trap 'rm -rf "$build"' EXIT
flags="-O3 -arch=$ARCH -std=c++17"
# shellcheck disable=SC2086 # flags is a list of options
$NVCC $flags -ptx -o "$out/unified.ptx" "$here/unified.cu"
cp "$out/unified.ptx" "$here/ptx/unified.ptx"
# shellcheck disable=SC2086
$NVCC $flags -o "$build/unified" "$here/unified.cu"
{
  echo "date_utc: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "build: $NVCC $flags -o unified unified.cu; PTX: $NVCC $flags -ptx -o unified.ptx unified.cu"
  echo "nvcc: $($NVCC --version | tail -n 2 | tr '\n' ' ')"
  echo "run: ./unified > times.csv"
  echo "--- nvidia-smi before"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,clocks.max.mem,power.draw,temperature.gpu,pstate --format=csv
} > "$out/env.txt" 2>&1
"$build/unified" > "$out/times.csv"
{
  echo "--- nvidia-smi after"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,clocks.max.mem,power.draw,temperature.gpu,clocks_throttle_reasons.active --format=csv
} >> "$out/env.txt" 2>&1
echo "wrote $out/times.csv ($(($(wc -l < "$out/times.csv") - 1)) rows), $out/env.txt, $out/unified.ptx"
