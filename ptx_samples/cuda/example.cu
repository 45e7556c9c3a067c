// The example kernel of pipeline-model-analysis (section 2, Fig. 1, Table 2): four
// computational instructions (C) and two memory instructions (M) whose dependences form
// the chain M -> C -> C -> M -> C, plus one computation that depends on nothing.
//
// Mapping onto the source below (one thread per element, no bounds check so that no
// branch disturbs the graph):
//   M1  j0 = idx[i]            ld.global.u32   (address from the thread index)
//   C1  j1 = j0 * stride       mul.lo.s32
//   C2  j2 = j1 ^ mask         xor.b32         (xor, not add, so nvcc cannot fuse C1+C2 into mad)
//   M2  v  = data[j2]          ld.global.f32   (gather: its address depends on C2)
//   Ci  s  = scale * scale     mul.rn.f32, independent of every load (__fmul_rn keeps nvcc
//                              from contracting it with C3 into an fma)
//   C3  r  = v + s             add.f32, the end of the chain
// The final store out[i] = r is the kernel's only side effect; the paper's figure leaves it
// out, and so does the index and address arithmetic (mad/cvta/mul.wide/add) that PTX makes
// explicit. With Table 2's parameters the chain costs 6+4+4+6+4 = 24 cycles and the
// independent computation λ_comp = 1, so Volkov's Λ_app = 25.
// Launch: grid (n/256), block 256; idx[k] in [0, n), stride and mask chosen so j2 in range.
#include "portable.cuh"

__global__ void example_kernel(const int *__restrict__ idx, const float *__restrict__ data,
                               float *__restrict__ out, int stride, int mask, float scale) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int j0 = idx[i];
  int j1 = j0 * stride;
  int j2 = j1 ^ mask;
  float v = data[j2];
  float s = __fmul_rn(scale, scale);
  float r = v + s;
  out[i] = r;
}
