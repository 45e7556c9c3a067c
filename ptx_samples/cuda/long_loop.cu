// A loop with a 10^6 trip count, for the compact (loop-template) IDG form:
//  - long_loop_param: the count is the parameter n; launched with n = 1000000 each thread runs
//    1,000,000 iterations of one dependent fma (the loop is `#pragma unroll 1`).
//  - long_loop_const: the count is the compile-time constant LONG_TRIPS = 1000000 (also
//    `#pragma unroll 1`), 1,000,000 iterations independent of the launch.
// Launch: block 32, grid 1 (a single warp suffices), n = 1000000.
#include "portable.cuh"

#define LONG_TRIPS 1000000

__global__ void long_loop_param(float *out, float a, float b, int n) {
  float acc = (float)threadIdx.x;
#pragma unroll 1
  for (int k = 0; k < n; ++k) {
    acc = acc * a + b;
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

__global__ void long_loop_const(float *out, float a, float b) {
  float acc = (float)threadIdx.x;
#pragma unroll 1
  for (int k = 0; k < LONG_TRIPS; ++k) {
    acc = acc * a + b;
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}
