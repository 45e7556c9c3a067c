// Non-inlined device functions: `poly` is __noinline__ so PTX keeps a .func with .param
// plumbing and a call from the kernel; `apply_twice` calls it twice (a call chain of depth 2:
// kernel -> apply_twice -> poly). The loop inside poly has `degree` trips (a parameter
// passed through), so call-site inlining must carry the argument value.
// Launch: block 128, grid ceil(n/128); degree = 4 gives 4 trips per call of poly.
#include "portable.cuh"

__device__ __noinline__ float poly(float x, const float *coef, int degree) {
  float acc = 0.0f;
#pragma unroll 1
  for (int d = 0; d < degree; ++d) {
    acc = acc * x + coef[d];
  }
  return acc;
}

__device__ __noinline__ float apply_twice(float x, const float *coef, int degree) {
  return poly(poly(x, coef, degree), coef, degree);
}

__global__ void call_kernel(const float *in, float *out, const float *coef, int degree, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    out[i] = poly(in[i], coef, degree) + apply_twice(in[i], coef, degree);
  }
}
