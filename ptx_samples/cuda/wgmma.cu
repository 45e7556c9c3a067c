// Hopper warpgroup MMA (sm_90a only): one warpgroup of 128 threads issues a single
// wgmma.mma_async m64n8k16 (f16 inputs from shared memory through matrix descriptors,
// f32 accumulators), fenced, committed and waited for. The descriptors use the plain
// non-swizzled layout; the sample exists to give the parser and the mapper real wgmma PTX.
// Launch: block 128, grid 1.
#include <cuda_fp16.h>

__device__ __forceinline__ unsigned long long smem_desc(const void *p, unsigned lead_bytes,
                                                        unsigned stride_bytes) {
  unsigned long long addr = (unsigned long long)__cvta_generic_to_shared(p);
  unsigned long long d = 0;
  d |= (addr & 0x3FFFF) >> 4;
  d |= ((unsigned long long)((lead_bytes & 0x3FFFF) >> 4)) << 16;
  d |= ((unsigned long long)((stride_bytes & 0x3FFFF) >> 4)) << 32;
  return d;
}

__global__ void wgmma_m64n8k16(const half *A, const half *B, float *D) {
  __shared__ __align__(128) half sA[64 * 16];
  __shared__ __align__(128) half sB[8 * 16];
  int t = threadIdx.x;
  for (int e = t; e < 64 * 16; e += 128) sA[e] = A[e];
  for (int e = t; e < 8 * 16; e += 128) sB[e] = B[e];
  __syncthreads();
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");

  unsigned long long da = smem_desc(sA, 128, 256);
  unsigned long long db = smem_desc(sB, 128, 256);
  float d0 = 0.0f, d1 = 0.0f, d2 = 0.0f, d3 = 0.0f;
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
  asm volatile("{\n"
               ".reg .pred p;\n"
               "setp.ne.b32 p, %6, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 "
               "{%0, %1, %2, %3}, %4, %5, p, 1, 1, 0, 0;\n"
               "}\n"
               : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
               : "l"(da), "l"(db), "r"(0));
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
#endif
  D[t * 4 + 0] = d0;
  D[t * 4 + 1] = d1;
  D[t * 4 + 2] = d2;
  D[t * 4 + 3] = d3;
}
