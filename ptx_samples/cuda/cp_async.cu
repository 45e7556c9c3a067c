// Asynchronous global->shared copies, three ways (nvcc only):
//  - pipeline_copy: __pipeline_memcpy_async / __pipeline_commit / __pipeline_wait_prior
//    (cp.async on sm_80+, ordinary loads and stores below that);
//  - asm_cp_async: cp.async.ca.shared.global + commit_group/wait_group written as inline PTX,
//    double-buffered over `tiles` tiles of 256 floats (loop trips = tiles - 1 after the
//    prologue; sm_80+, plain copies otherwise);
//  - barrier_copy: cuda::memcpy_async with a block-scoped cuda::barrier (mbarrier PTX).
// Launch: block 256, grid 1 for all three; tiles >= 1, arrays of tiles * 256 floats.
#include <cuda_pipeline.h>
#include <cuda/barrier>
#include <cooperative_groups.h>

__global__ void pipeline_copy(const float *in, float *out) {
  __shared__ __align__(16) float buf[256 * 4];
  int t = threadIdx.x;
  __pipeline_memcpy_async(&buf[t * 4], &in[blockIdx.x * 1024 + t * 4], 16);
  __pipeline_commit();
  __pipeline_wait_prior(0);
  __syncthreads();
  out[blockIdx.x * 256 + t] = buf[t] + buf[1023 - t];
}

__device__ __forceinline__ void copy4(float *dst_smem, const float *src) {
#if __CUDA_ARCH__ >= 800
  unsigned d = (unsigned)__cvta_generic_to_shared(dst_smem);
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(d), "l"(src) : "memory");
#else
  *dst_smem = *src;
#endif
}

__device__ __forceinline__ void commit_and_wait_all_but_one() {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;" ::: "memory");
  asm volatile("cp.async.wait_group 1;" ::: "memory");
#endif
}

__device__ __forceinline__ void wait_all() {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_all;" ::: "memory");
#endif
}

__global__ void asm_cp_async(const float *in, float *out, int tiles) {
  __shared__ float buf[2][256];
  int t = threadIdx.x;
  float acc = 0.0f;
  copy4(&buf[0][t], &in[t]);
#pragma unroll 1
  for (int k = 1; k < tiles; ++k) {
    copy4(&buf[k & 1][t], &in[k * 256 + t]);
    commit_and_wait_all_but_one();
    __syncthreads();
    acc += buf[(k - 1) & 1][255 - t];
    __syncthreads();
  }
  wait_all();
  __syncthreads();
  acc += buf[(tiles - 1) & 1][255 - t];
  out[t] = acc;
}

__global__ void barrier_copy(const float *in, float *out) {
  __shared__ float buf[256];
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  auto block = cooperative_groups::this_thread_block();
  if (block.thread_rank() == 0) {
    init(&bar, block.size());
  }
  block.sync();
  cuda::memcpy_async(block, buf, in + blockIdx.x * 256, sizeof(float) * 256, bar);
  bar.arrive_and_wait();
  out[blockIdx.x * 256 + threadIdx.x] = 2.0f * buf[255 - threadIdx.x];
}
