#!/usr/bin/env bash
# Build and run the re-read benchmark (l2_reread.cu): event times of every configuration, then
# one Nsight Compute pass over each (the launches in the configurations' order).
#   bash bench/microbench/l2_reread.sh [OUTDIR]
# Writes OUTDIR/${gpu}_l2_reread_raw.csv (times), OUTDIR/${gpu}_l2_reread_ncu.csv (ncu --csv) and
# OUTDIR/${gpu}_l2_reread_env.txt.
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/common.sh"
$NVCC -O3 -arch=sm_90 -std=c++17 -o "$build/l2_reread" "$here/l2_reread.cu"
{
  env_header "$NVCC -O3 -arch=sm_90 -std=c++17 -o l2_reread l2_reread.cu"
  echo "ncu: $(ncu --version | tail -n 1)"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv
} > "$out/${gpu}_l2_reread_env.txt" 2>&1
"$build/l2_reread" > "$out/${gpu}_l2_reread_raw.csv"
ncu --clock-control none --kernel-name regex:k_row --csv \
  --metrics gpu__time_duration.sum,sm__cycles_elapsed.avg,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum,lts__t_sector_hit_rate.pct,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum \
  "$build/l2_reread" profile 2> "$build/ncu.log" | grep -v "^==" > "$out/${gpu}_l2_reread_ncu.csv" \
  || { tail -20 "$build/ncu.log"; exit 1; }
rm -rf "$build"
echo "wrote $out/${gpu}_l2_reread_raw.csv ($(wc -l < "$out/${gpu}_l2_reread_raw.csv") lines)"
