// Atomics: a shared-memory histogram (atomicAdd on shared, then on global), and a
// float atomic maximum built from an atomicCAS retry loop (the loop's trip count is
// data-dependent: one iteration when uncontended).
// Launch: histogram block 256, grid ceil(n/256), 64 bins; atomic_max_float block 256.
#include "portable.cuh"

#define BINS 64

__global__ void histogram(const unsigned *keys, unsigned *hist, int n) {
  __shared__ unsigned local[BINS];
  if (threadIdx.x < BINS) local[threadIdx.x] = 0;
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    atomicAdd(&local[keys[i] % BINS], 1u);
  }
  __syncthreads();
  if (threadIdx.x < BINS) {
    atomicAdd(&hist[threadIdx.x], local[threadIdx.x]);
  }
}

__device__ __forceinline__ float atomic_max_f(float *addr, float v) {
  int *p = (int *)addr;
  int old = *p;
  int assumed;
  do {
    assumed = old;
    if (__int_as_float(assumed) >= v) break;
    old = atomicCAS(p, assumed, __float_as_int(v));
  } while (old != assumed);
  return __int_as_float(old);
}

__global__ void atomic_max_float(const float *in, float *result, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    atomic_max_f(result, in[i]);
  }
}
