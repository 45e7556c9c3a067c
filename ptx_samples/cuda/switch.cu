// Switch statements: a dense switch over the thread's lane group (eight contiguous cases,
// each with a different side effect, so nvcc emits a jump table: brx.idx with
// .branchtargets) and a sparse switch over a parameter (a chain of compare-and-branch).
// Divergence: in dense_switch each group of 4 lanes takes a different case, so one warp
// executes all eight cases serialised.
// Launch: block 128, grid 1; sparse_switch with op in {1, 7, 42, 1000} or anything else.
#include "portable.cuh"

__global__ void dense_switch(const float *in, float *out, float *aux, int *count) {
  int t = threadIdx.x;
  float x = in[t];
  switch ((t >> 2) & 7) {
  case 0: out[t] = x + 1.0f; break;
  case 1: aux[t] = x * 3.0f; break;
  case 2: atomicAdd(count, 1); break;
  case 3: out[t + 128] = x * x; break;
  case 4: aux[t + 256] = __sinf(x); break;
  case 5: atomicAdd(&aux[0], x); break;
  case 6: out[t] = aux[t] * x; break;
  default: count[t + 1] = t; break;
  }
}

__global__ void sparse_switch(const float *in, float *out, int op) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  float x = in[t];
  float r;
  switch (op) {
  case 1: r = x + 1.0f; break;
  case 7: r = x * 7.0f; break;
  case 42: r = x * x + 42.0f; break;
  case 1000: r = x * 1e-3f; break;
  default: r = x; break;
  }
  out[t] = r;
}
