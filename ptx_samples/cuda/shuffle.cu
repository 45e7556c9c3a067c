// Warp shuffles: a sum reduction with __shfl_down_sync (five shuffle steps, offsets
// 16, 8, 4, 2, 1, fully unrolled), then one atomicAdd per warp; and a butterfly
// (xor) all-reduce that leaves the warp maximum in every lane.
// Launch: block 256, grid ceil(n/256).
#include "portable.cuh"

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) {
    v += __shfl_down_sync(0xffffffffu, v, off);
  }
  return v;
}

__global__ void reduce_shfl(const float *in, float *total, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? in[i] : 0.0f;
  v = warp_sum(v);
  if ((threadIdx.x & 31) == 0) {
    atomicAdd(total, v);
  }
}

__global__ void warp_max_xor(const float *in, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = in[i];
#pragma unroll
  for (int m = 16; m > 0; m >>= 1) {
    v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, m));
  }
  out[i] = v;
}
