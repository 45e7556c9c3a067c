#!/usr/bin/env bash
# Build and run the global-atomics benchmark (atomics.cu): event times, then one Nsight
# Compute pass over every configuration with the atomic metrics this ncu knows.
#   bash bench/microbench/atomics.sh [OUTDIR]
# Writes OUTDIR/${gpu}_atomics_raw.csv (times), OUTDIR/${gpu}_atomics_ncu.csv (ncu --csv,
# one launch per configuration in the order of the times file) and OUTDIR/${gpu}_atomics_env.txt.
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/common.sh"
$NVCC -O3 -arch="$ARCH" -std=c++17 -o "$build/atomics" "$here/atomics.cu"
{
  env_header "$NVCC -O3 -arch=$ARCH -std=c++17 -o atomics atomics.cu"
  echo "ncu: $(ncu --version | tail -n 1)"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv
  echo "--- SASS of the atomic instructions"
  cuobjdump -sass "$build/atomics" | grep -E "Function|ATOMG|REDG|RED\.|ATOM\." || true
} > "$out/${gpu}_atomics_env.txt" 2>&1
"$build/atomics" > "$out/${gpu}_atomics_raw.csv"
# Candidate metrics; ncu refuses an unknown name, so keep those this version lists.
ncu --query-metrics > "$build/known.txt" 2>&1 || true
want=""
for m in \
  gpu__time_duration.sum sm__cycles_elapsed.avg sm__cycles_elapsed.avg.per_second \
  lts__cycles_elapsed.avg lts__cycles_elapsed.avg.per_second smsp__inst_executed.sum \
  smsp__sass_inst_executed_op_global_red.sum smsp__sass_inst_executed_op_global_atom.sum \
  l1tex__t_requests_pipe_lsu_mem_global_op_red.sum l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum \
  l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum \
  lts__t_requests_op_red.sum lts__t_requests_op_red.avg lts__t_requests_op_red.max \
  lts__t_sectors_op_red.sum lts__t_sectors_op_red.avg lts__t_sectors_op_red.max \
  lts__t_requests_op_atom.sum lts__t_requests_op_atom.avg lts__t_requests_op_atom.max \
  lts__t_sectors_op_atom.sum lts__t_sectors_op_atom.avg lts__t_sectors_op_atom.max \
  lts__d_atomic_input_cycles_active.sum lts__d_atomic_input_cycles_active.avg \
  lts__d_atomic_input_cycles_active.max \
  lts__t_sectors.sum lts__t_sectors.max dram__bytes_read.sum dram__bytes_write.sum; do
  base=${m%.*}
  [[ $base == *.* ]] && base=${base%.*}
  if grep -q -w "$base" "$build/known.txt"; then want="$want,$m"; else echo "not in this ncu: $m" >> "$out/${gpu}_atomics_env.txt"; fi
done
grep -i -E "atom|_red" "$build/known.txt" > "$out/${gpu}_ncu_atomic_metric_names.txt" || true
ncu --clock-control none --cache-control all --csv --metrics "${want#,}" \
  "$build/atomics" profile 2> "$build/ncu.log" | grep -v "^==" > "$out/${gpu}_atomics_ncu.csv" \
  || { tail -20 "$build/ncu.log"; exit 1; }
rm -rf "$build"
echo "wrote $out/${gpu}_atomics_raw.csv and ${gpu}_atomics_ncu.csv"
