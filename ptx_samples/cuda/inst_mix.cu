// The Instruction Mix kernel of pipeline-model-analysis sections 4.2 and 6.1 (Fig. 11):
// a repeated sequence of BETA ALU instructions (dependent fma) followed by one SFU
// instruction (sin.approx via __sinf), run `reps` times (the loop is `#pragma unroll 1`,
// the BETA-long inner sequence is fully unrolled). One instantiation per BETA in
// {1, 2, 4, 8, 16}: inst_mix<B> executes reps * (B + 1) modelled instructions per thread,
// plus the loop control.
// Launch: block 1024 (maximal occupancy), grid = 2 * SM count, reps = 10000.
#include "portable.cuh"

template <int BETA>
__global__ void inst_mix(float *out, float a, float b, int reps) {
  float x = (float)threadIdx.x * 1e-3f;
#pragma unroll 1
  for (int r = 0; r < reps; ++r) {
#pragma unroll
    for (int k = 0; k < BETA; ++k) {
      x = x * a + b;
    }
    x = __sinf(x);
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}

template __global__ void inst_mix<1>(float *, float, float, int);
template __global__ void inst_mix<2>(float *, float, float, int);
template __global__ void inst_mix<4>(float *, float, float, int);
template __global__ void inst_mix<8>(float *, float, float, int);
template __global__ void inst_mix<16>(float *, float, float, int);
