// Lets the same sample sources compile with nvcc (CUDA headers available) and with
// clang's CUDA front end run without any CUDA installation (-nocudainc -nocudalib),
// which is how regen.sh produces the sm_52 and LLVM-back-end PTX.
// __syncthreads is a clang builtin already. Only the handful of device intrinsics the samples use are provided here, each
// lowered to the NVVM builtin clang itself offers.
#pragma once

#if defined(PTX_SAMPLES_NO_CUDA_HEADERS)
#include <__clang_cuda_builtin_vars.h>

#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __noinline__ __attribute__((noinline))
#define __forceinline__ __inline__ __attribute__((always_inline))


static __device__ __forceinline__ float __shfl_down_sync(unsigned mask, float v, unsigned delta) {
  return __nvvm_shfl_sync_down_f32(mask, v, delta, 0x1f);
}
static __device__ __forceinline__ int __shfl_down_sync(unsigned mask, int v, unsigned delta) {
  return __nvvm_shfl_sync_down_i32(mask, v, delta, 0x1f);
}
static __device__ __forceinline__ float __shfl_xor_sync(unsigned mask, float v, int lane_mask) {
  return __nvvm_shfl_sync_bfly_f32(mask, v, lane_mask, 0x1f);
}

static __device__ __forceinline__ int atomicAdd(int *p, int v) { return __nvvm_atom_add_gen_i(p, v); }
static __device__ __forceinline__ unsigned atomicAdd(unsigned *p, unsigned v) {
  return (unsigned)__nvvm_atom_add_gen_i((int *)p, (int)v);
}
static __device__ __forceinline__ float atomicAdd(float *p, float v) { return __nvvm_atom_add_gen_f(p, v); }
static __device__ __forceinline__ int atomicCAS(int *p, int cmp, int v) {
  return __nvvm_atom_cas_gen_i(p, cmp, v);
}

static __device__ __forceinline__ float __int_as_float(int x) { return __builtin_bit_cast(float, x); }
static __device__ __forceinline__ int __float_as_int(float x) { return __builtin_bit_cast(int, x); }
static __device__ __forceinline__ float __sinf(float x) { return __nvvm_sin_approx_f(x); }
static __device__ __forceinline__ float __cosf(float x) { return __nvvm_cos_approx_f(x); }
static __device__ __forceinline__ float __fmul_rn(float a, float b) { return __nvvm_mul_rn_f(a, b); }
static __device__ __forceinline__ float __fmaf_rn(float a, float b, float c) { return __nvvm_fma_rn_f(a, b, c); }
static __device__ __forceinline__ float fmaxf(float a, float b) { return __nvvm_fmax_f(a, b); }
static __device__ __forceinline__ long long clock64() { return __nvvm_read_ptx_sreg_clock64(); }
#endif
