// How DRAM throughput grows with the memory requests in flight (issue 33, "Little's law with
// a latency that rises with load"): every warp streams its own contiguous region of a 1 GiB
// array, each thread issuing K independent coalesced 4-byte loads (`ld.global.cg`, one
// 128-byte request per warp each) before it sums them, K = 1..32, with W = 1..64 warps per SM
// (one block of W warps per SM below 8, else W/8 blocks of 8 warps, held resident by
// dynamic shared-memory padding). One wave: the grid is the SMs times the blocks per SM, and
// each warp's iterations cover the array once. W x K requests per SM are in flight at most.
//
// Output (CSV on stdout):
// k,warps_per_sm,blocks_per_sm,block_threads,iters,bytes,median_us,gb_per_s
// Each time: one launch between CUDA events after an L2 flush (a 256 MiB write), median of 5
// after one warm-up.
//
// Build: nvcc -O3 -arch=sm_90 -std=c++17 -o mlp mlp.cu
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#include "check.cuh"

template <int K>
__global__ void k_stream(const float* __restrict__ x, float* __restrict__ y, int iters) {
  extern __shared__ char pad[];
  const int lane = threadIdx.x & 31;
  const long long warp = (blockIdx.x * (long long)blockDim.x + threadIdx.x) >> 5;
  const float* p = x + warp * (long long)iters * K * 32 + lane;
  float acc = 0.f;
#pragma unroll 1
  for (int it = 0; it < iters; ++it) {
    float v[K];
#pragma unroll
    for (int j = 0; j < K; ++j) v[j] = __ldcg(p + j * 32);
#pragma unroll
    for (int j = 0; j < K; ++j) acc += v[j];
    p += K * 32;
  }
  if (acc == -1.f) pad[0] = 1;  // keeps the padding allocated; never true for the data
  y[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

static float median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

template <int K>
static void run(const float* x, float* y, size_t bytes, char* flush, size_t flush_bytes) {
  int dev = 0, smem_per_sm = 0, sms = 0;
  CK(cudaDeviceGetAttribute(&smem_per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev));
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  CK(cudaFuncSetAttribute(k_stream<K>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                          smem_per_sm - 1024));
  CK(cudaFuncSetAttribute(k_stream<K>, cudaFuncAttributePreferredSharedMemoryCarveout, 100));
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  for (int w : {1, 2, 4, 8, 16, 32, 64}) {
    const int block = 32 * std::min(w, 8);
    const int bps = std::max(1, w / 8);
    // The largest padding that lets bps blocks reside (1 KiB reserved per block).
    size_t pad = (size_t)(smem_per_sm / bps) - 1024;
    int got = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&got, k_stream<K>, block, pad));
    while (got < bps && pad >= 256) {
      pad -= 256;
      CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&got, k_stream<K>, block, pad));
    }
    const long long warps = (long long)sms * w;
    const int iters = (int)(bytes / (warps * K * 128));
    const size_t used = (size_t)warps * iters * K * 128;
    std::vector<float> ts;
    for (int r = 0; r < 6; ++r) {
      CK(cudaMemset(flush, r, flush_bytes));
      CK(cudaEventRecord(a));
      k_stream<K><<<sms * bps, block, pad>>>(x, y, iters);
      CK(cudaEventRecord(b));
      CK(cudaEventSynchronize(b));
      CK(cudaGetLastError());
      float ms = 0;
      CK(cudaEventElapsedTime(&ms, a, b));
      if (r > 0) ts.push_back(ms * 1000.f);
    }
    float us = median(ts);
    printf("%d,%d,%d,%d,%d,%zu,%.3f,%.1f\n", K, w, got, block, iters, used, us, used / us / 1e3);
    fflush(stdout);
  }
  CK(cudaEventDestroy(a));
  CK(cudaEventDestroy(b));
}

int main() {
  const size_t bytes = 1ull << 30, flush_bytes = 256ull << 20;
  char* flush;
  float *x, *y;
  CK(cudaMalloc(&flush, flush_bytes));
  CK(cudaMalloc(&x, bytes));
  CK(cudaMemset(x, 0, bytes));
  CK(cudaMalloc(&y, 1 << 24));
  printf("k,warps_per_sm,blocks_per_sm,block_threads,iters,bytes,median_us,gb_per_s\n");
  run<1>(x, y, bytes, flush, flush_bytes);
  run<2>(x, y, bytes, flush, flush_bytes);
  run<4>(x, y, bytes, flush, flush_bytes);
  run<8>(x, y, bytes, flush, flush_bytes);
  run<16>(x, y, bytes, flush, flush_bytes);
  run<32>(x, y, bytes, flush, flush_bytes);
  CK(cudaFree(flush));
  CK(cudaFree(x));
  CK(cudaFree(y));
  return 0;
}
