#!/usr/bin/env bash
# Builds the measurement driver and the cubin of a validation suite (bench/<name>_suite,
# one CUDA file cuda/<name>.cu, its PTX <name>.ptx, its kernel list host/group_<name>.inc).
#
#   bench/scripts/validation_build.sh bench/uneven_suite             assemble the committed PTX
#   bench/scripts/validation_build.sh bench/uneven_suite --emit-ptx  first regenerate the PTX
#
# The driver is the held-out suite's (ptx_samples/heldout/host/bench.cpp, the same method
# and manifest), compiled with the suite's kernel list; the L2 flush and fills come from
# the held-out suite's cuda/support.cu. Outputs go to <suite>/build/.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$1"
NAME=$(basename "$PWD" _suite)
HELD=$ROOT/ptx_samples/heldout
ARCH=sm_90
mkdir -p build
if [[ "${2:-}" == "--emit-ptx" ]]; then
  nvcc -O3 -arch=$ARCH -lineinfo -ptx "cuda/$NAME.cu" -o "$NAME.ptx"
  # keep the committed PTX machine-independent: line info points at cuda/<name>.cu
  sed -i -E 's|^(\s*\.file\s+[0-9]+\s+)"[^"]*/cuda/([^"/]+)"|\1"cuda/\2"|' "$NAME.ptx"
fi
ptxas -arch=$ARCH -O3 --generate-line-info -v "$NAME.ptx" -o "build/$NAME.cubin" \
  2> "build/$NAME.ptxas.txt"
nvcc -O3 -arch=$ARCH -cubin "$HELD/cuda/support.cu" -o build/support.cubin
nvcc -O2 -std=c++17 -I host -DSUITE_GROUPS="\"group_$NAME.inc\"" \
  -DSUITE_TITLE="\"$NAME validation suite\"" "$HELD/host/bench.cpp" -o build/bench -lcuda
echo "built: build/bench and $(ls build/*.cubin | wc -l) cubins"
