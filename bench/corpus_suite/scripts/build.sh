#!/usr/bin/env bash
# Builds the corpus suite's measurement driver and cubins (bench/corpus_suite).
#
#   bench/corpus_suite/scripts/build.sh             assemble the committed PTX
#   bench/corpus_suite/scripts/build.sh --emit-ptx  first regenerate <name>.ptx from cuda/<name>.cu
#
# The driver is the held-out suite's (ptx_samples/heldout/host/bench.cpp, the same method and
# manifest), compiled with this suite's kernel list host/group_corpus.inc; the L2 flush and
# the fills come from the held-out suite's cuda/support.cu. The timed cubins are assembled
# from exactly the committed PTX. Outputs go to bench/corpus_suite/build/.
set -euo pipefail
SUITE="$(cd "$(dirname "$0")/.." && pwd)"
ROOT="$(cd "$SUITE/../.." && pwd)"
HELD=$ROOT/ptx_samples/heldout
ARCH=sm_90
cd "$SUITE"
mkdir -p build
if [[ "${1:-}" == "--emit-ptx" ]]; then
  for cu in cuda/*.cu; do
    name=$(basename "$cu" .cu)
    nvcc -O3 -arch=$ARCH -lineinfo -ptx "$cu" -o "$name.ptx"
    # keep the committed PTX machine-independent: line info points at cuda/<name>.cu
    sed -i -E 's|^(\s*\.file\s+[0-9]+\s+)"[^"]*/cuda/([^"/]+)"|\1"cuda/\2"|' "$name.ptx"
    # toolkit headers inlined into the PTX (shuffles, atomics): only the path below the
    # toolkit's include directory
    sed -i -E 's|^(\s*\.file\s+[0-9]+\s+)"[^"]*/include/([^"]+)"|\1"cuda-toolkit/include/\2"|' "$name.ptx"
  done
fi
for p in *.ptx; do
  name=$(basename "$p" .ptx)
  ptxas -arch=$ARCH -O3 --generate-line-info -v "$p" -o "build/$name.cubin" 2> "build/$name.ptxas.txt"
done
nvcc -O3 -arch=$ARCH -cubin "$HELD/cuda/support.cu" -o build/support.cubin
nvcc -O2 -std=c++17 -I host -DSUITE_GROUPS="\"group_corpus.inc\"" \
  -DSUITE_TITLE="\"Corpus suite\"" "$HELD/host/bench.cpp" -o build/bench -lcuda
echo "built: build/bench and $(ls build/*.cubin | wc -l) cubins"
