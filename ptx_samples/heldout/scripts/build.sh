#!/usr/bin/env bash
# Builds the measurement driver and the cubins it loads.
#
#   scripts/build.sh             assemble every committed PTX file of the suite
#   scripts/build.sh --emit-ptx  first regenerate the CUDA PTX (<name>.ptx from
#                                cuda/<name>.cu); Triton and numba PTX come from
#                                py/regen.py on a machine with those packages
#
# The suite kernels are always assembled from the committed PTX, so the timed
# machine code is exactly what ptx2idg reads. Outputs go to build/; the cubin
# of "triton/softmax.ptx" is build/triton_softmax.cubin.
set -euo pipefail
cd "$(dirname "$0")/.."
ARCH=sm_90
mkdir -p build
if [[ "${1:-}" == "--emit-ptx" ]]; then
  for cu in cuda/*.cu; do
    a=$(basename "$cu" .cu)
    [[ $a == support ]] && continue
    nvcc -O3 -arch=$ARCH -lineinfo -ptx "$cu" -o "$a.ptx"
    # nvcc records the absolute source path in .file; keep the committed PTX
    # machine-independent (line info then points at cuda/<name>.cu)
    sed -i -E 's|^(\s*\.file\s+[0-9]+\s+)"[^"]*/cuda/([^"/]+)"|\1"cuda/\2"|' "$a.ptx"
    # toolkit headers inlined into the PTX (wmma, shuffles): keep only the
    # path below the toolkit's include directory
    sed -i -E 's|^(\s*\.file\s+[0-9]+\s+)"[^"]*/include/([^"]+)"|\1"cuda-toolkit/include/\2"|' "$a.ptx"
  done
fi
find . -name '*.ptx' -not -path './build/*' | sort | while read -r p; do
  p=${p#./}
  name=$(echo "${p%.ptx}" | tr / _)
  # the PTX's own target: Triton emits sm_90a (wgmma), which sm_90 cannot assemble
  arch=$(sed -n -E 's/^\s*\.target\s+(sm_[0-9]+a?).*/\1/p' "$p" | head -1)
  # -O3 and line info: what nvcc -O3 -lineinfo hands ptxas
  ptxas -arch=${arch:-$ARCH} -O3 --generate-line-info -v "$p" -o "build/$name.cubin" \
    2> "build/$name.ptxas.txt"
done
nvcc -O3 -arch=$ARCH -cubin cuda/support.cu -o build/support.cubin
nvcc -O2 -std=c++17 host/bench.cpp -o build/bench -lcuda
echo "built: build/bench and $(ls build/*.cubin | wc -l) cubins"
