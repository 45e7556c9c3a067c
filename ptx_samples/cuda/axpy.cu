// axpy of pipeline-performance-model-idg Fig. 1: two independent loads (x[i], y[i]) feed one
// multiply-add whose result is stored, so one warp needs
//   cycles = Λ_index + Λ_mem + λ_mem + Λ_fmadd + λ_mem
// (index computation, the two loads issued back to back, the fma, the store).
// `axpy` is the figure's kernel verbatim (no bounds check); `saxpy` is the usual guarded
// form, whose demangled name `saxpy(int, float, float const*, float*)` is also what
// profilers print, used to test name matching against `_Z5saxpyifPKfPf`.
// Launch: axpy grid (n/256), block 256, n a multiple of 256; saxpy grid ceil(n/256), block 256.
#include "portable.cuh"

__global__ void axpy(float a, const float *__restrict__ x, float *__restrict__ y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  y[i] = a * x[i] + y[i];
}

__global__ void saxpy(int n, float a, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    y[i] = a * x[i] + y[i];
  }
}
