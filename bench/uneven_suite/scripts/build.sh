#!/usr/bin/env bash
# Builds the measurement driver and the cubin of the uneven-warps validation suite.
#
#   scripts/build.sh             assemble the committed uneven.ptx
#   scripts/build.sh --emit-ptx  first regenerate uneven.ptx from cuda/uneven.cu
#
# The driver is the held-out suite's (ptx_samples/heldout/host/bench.cpp, the same
# method and manifest), compiled with this suite's kernel list (host/group_uneven.inc);
# the L2 flush and fills come from the held-out suite's cuda/support.cu. Outputs go
# to build/.
set -euo pipefail
cd "$(dirname "$0")/.."
HELD=../../ptx_samples/heldout
ARCH=sm_90
mkdir -p build
if [[ "${1:-}" == "--emit-ptx" ]]; then
  nvcc -O3 -arch=$ARCH -lineinfo -ptx cuda/uneven.cu -o uneven.ptx
  # keep the committed PTX machine-independent: line info points at cuda/uneven.cu
  sed -i -E 's|^(\s*\.file\s+[0-9]+\s+)"[^"]*/cuda/([^"/]+)"|\1"cuda/\2"|' uneven.ptx
fi
ptxas -arch=$ARCH -O3 --generate-line-info -v uneven.ptx -o build/uneven.cubin \
  2> build/uneven.ptxas.txt
nvcc -O3 -arch=$ARCH -cubin $HELD/cuda/support.cu -o build/support.cubin
nvcc -O2 -std=c++17 -I host -DSUITE_GROUPS='"group_uneven.inc"' \
  -DSUITE_TITLE='"Uneven-warps validation suite"' $HELD/host/bench.cpp -o build/bench -lcuda
echo "built: build/bench and $(ls build/*.cubin | wc -l) cubins"
