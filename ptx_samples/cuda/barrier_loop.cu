// The iterative barrier kernel of pipeline-model-analysis section 6.2 (Fig. 15): a sequence
// of N dependent computational instructions, each followed by a barrier. The loop body is one
// dependent fma and one bar.sync; `#pragma unroll 1` keeps it so the loop runs `iters` trips.
// Its performance depends on the work-group size because every barrier waits for all warps
// of the group.
// Launch: block 32..1024 (the group size under study), grid = number of groups, iters = N
// (e.g. 1000).
#include "portable.cuh"

__global__ void iterative_barrier(float *out, float a, float b, int iters) {
  float acc = (float)threadIdx.x;
#pragma unroll 1
  for (int k = 0; k < iters; ++k) {
    acc = acc * a + b;
    __syncthreads();
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}
