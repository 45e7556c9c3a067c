// Branches: divergent_branch splits every warp on the thread index (even lanes take the
// `then` side, odd lanes the `else` side: both sides run, serialised, and the warp
// reconverges before the store); half_block splits on threadIdx.x < 64, which is uniform per
// warp (warps 0-1 take one side, warps 2-3 the other when blockDim.x = 128); block_uniform
// branches on blockIdx.x, the same for every warp of a block.
// Launch: block 128, grid 4.
#include "portable.cuh"

__global__ void divergent_branch(const float *in, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float x = in[i];
  float r;
  if (threadIdx.x & 1) {
    r = x * x + 1.0f;
  } else {
    r = __sinf(x) * 2.0f;
  }
  out[i] = r;
}

__global__ void half_block(const float *in, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float x = in[i];
  if (threadIdx.x < 64) {
    x = x * 3.0f + 1.0f;
  } else {
    x = x * x;
  }
  out[i] = x;
}

__global__ void block_uniform(const float *in, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float x = in[i];
  if (blockIdx.x == 0) {
    x = -x;
  }
  out[i] = x;
}
