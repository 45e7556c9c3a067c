#!/usr/bin/env bash
# Build and run the λ/Λ microbenchmark suite on the current GPU.
#   bash bench/microbench/run.sh [OUTDIR]
# Writes OUTDIR/${gpu}_raw.csv (benchmark rows), OUTDIR/${gpu}_env.txt (driver,
# clocks, toolchain, commands), OUTDIR/sass.txt.gz (disassembly, to check the
# PTX->SASS mapping; not committed) and OUTDIR/${gpu}_sass_summary.txt (its
# per-kernel opcode histogram). OUTDIR defaults to bench/microbench/data.
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/common.sh"
build_cmd="$NVCC -O3 -arch=$ARCH -std=c++17 -o $build/mb $here/arith.cu $here/memory.cu $here/special.cu $here/launch.cu"
env_file="$out/${gpu}_env.txt"
{
  env_header "$NVCC -O3 -arch=$ARCH -std=c++17 -o mb arith.cu memory.cu special.cu launch.cu"
  echo "run: ./mb all > ${gpu}_raw.csv"
  echo "--- nvidia-smi before"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,clocks.max.mem,power.draw,temperature.gpu,pstate --format=csv
} > "$env_file" 2>&1
$build_cmd
"$build/mb" all > "$out/${gpu}_raw.csv" &
pid=$!
# Sample the clocks while the suite runs: the SM clock under load is what
# converts cycles into seconds.
{
  echo "--- nvidia-smi during (every 2 s)"
  while kill -0 "$pid" 2>/dev/null; do
    nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_throttle_reasons.active --format=csv,noheader 2>&1 || true
    sleep 2
  done
} >> "$env_file"
wait "$pid"
{
  echo "--- nvidia-smi after"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,clocks.max.mem --format=csv
} >> "$env_file" 2>&1
cuobjdump -sass "$build/mb" | gzip -9 > "$out/sass.txt.gz" || true
python3 "$here/sass_summary.py" "$out/sass.txt.gz" > "$out/${gpu}_sass_summary.txt" || true
rm -rf "$build"
echo "wrote $out/${gpu}_raw.csv ($(wc -l < "$out/${gpu}_raw.csv") lines)"
