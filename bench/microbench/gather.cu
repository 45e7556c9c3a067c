// What a gather's scattered sectors cost (issue 33, "gathers through index arrays"): y[i] =
// x[idx[i]] over 2^24 elements, one per thread, 256-thread blocks, with the resident blocks per
// SM set by dynamic shared-memory padding (1..8 blocks: 8..64 warps per SM). The table x is
// 4 MiB (L2-resident), 32 MiB (L2, near its capacity) or 1 GiB (DRAM); elements of 4 or 16
// bytes; indices sorted (i: one warp reads 4 or 16 contiguous sectors, the coalesced
// reference), uniform random over the table (32 sectors of 32 lines per warp request), or
// "hot" (each index uniform over 1/64 of the table, a Zipf-like hot set that L2 holds).
// Also: each thread gathers K = 4 independent elements (idx[i + j * 2^24 / 4]-style, more
// requests in flight per warp) at the same total count.
//
// Output (CSV on stdout):
// table_bytes,elem_bytes,dist,k,blocks_per_sm,warps_per_sm,gathers,median_us,gathers_per_us
// Each time: one launch between CUDA events after an L2 flush (a 256 MiB write), median of 7
// after one warm-up. The occupancy reached is checked with the occupancy API; the shared-memory
// carveout is the largest at every point (as the suites run), so the L1 keeps one size.
//
// Build: nvcc -O3 -arch=sm_90 -std=c++17 -o gather gather.cu
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>
#include <cuda_runtime.h>

#include "check.cuh"

template <typename T>
__device__ __forceinline__ float fold(T v);
template <>
__device__ __forceinline__ float fold<float>(float v) { return v; }
template <>
__device__ __forceinline__ float fold<float4>(float4 v) { return v.x + v.y + v.z + v.w; }

template <typename T, int K>
__global__ void k_gather(const T* __restrict__ x, const uint32_t* __restrict__ idx,
                         float* __restrict__ y, uint32_t n) {
  extern __shared__ char pad[];
  uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  uint32_t stride = n / K;
  if (t >= stride) return;
  float acc = 0.f;
#pragma unroll
  for (int j = 0; j < K; ++j) acc += fold(__ldg(&x[idx[t + j * stride]]));
  if (acc == -1.f) pad[0] = 1;  // keeps the padding allocated; never true for the data
  y[t] = acc;
}

static float median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

template <typename T, int K>
static void run(const T* x, const uint32_t* idx, float* y, uint32_t n, size_t table_bytes,
                const char* dist, char* flush, size_t flush_bytes) {
  int dev = 0, smem_per_sm = 0;
  CK(cudaDeviceGetAttribute(&smem_per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev));
  CK(cudaFuncSetAttribute(k_gather<T, K>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                          smem_per_sm - 1024));
  // The largest shared-memory carveout at every point, as the suites set it: the L1's data
  // capacity then does not grow at the point without padding.
  CK(cudaFuncSetAttribute(k_gather<T, K>, cudaFuncAttributePreferredSharedMemoryCarveout, 100));
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  const int block = 256;
  uint32_t threads = n / K;
  uint32_t grid = (threads + block - 1) / block;
  for (int bps = 1; bps <= 8; ++bps) {
    // The largest padding that still lets bps blocks reside (1 KiB reserved per block).
    size_t pad = (size_t)(smem_per_sm / bps) - 1024;
    if (bps == 8) pad = 0;
    int got = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&got, k_gather<T, K>, block, pad));
    if (got != bps) {
      // Shrink the padding until exactly bps blocks fit.
      while (got > bps && pad < (size_t)smem_per_sm) {
        pad += 256;
        CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&got, k_gather<T, K>, block, pad));
      }
      while (got < bps && pad >= 256) {
        pad -= 256;
        CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&got, k_gather<T, K>, block, pad));
      }
    }
    std::vector<float> ts;
    for (int r = 0; r < 8; ++r) {
      CK(cudaMemset(flush, r, flush_bytes));
      CK(cudaEventRecord(a));
      k_gather<T, K><<<grid, block, pad>>>(x, idx, y, n);
      CK(cudaEventRecord(b));
      CK(cudaEventSynchronize(b));
      CK(cudaGetLastError());
      float ms = 0;
      CK(cudaEventElapsedTime(&ms, a, b));
      if (r > 0) ts.push_back(ms * 1000.f);
    }
    float us = median(ts);
    printf("%zu,%zu,%s,%d,%d,%d,%u,%.3f,%.3f\n", table_bytes, sizeof(T), dist, K, got,
           got * block / 32, n, us, n / us);
    fflush(stdout);
  }
  CK(cudaEventDestroy(a));
  CK(cudaEventDestroy(b));
}

int main() {
  const uint32_t n = 1u << 24;
  const size_t flush_bytes = 256ull << 20;
  const size_t tables[] = {4ull << 20, 32ull << 20, 1ull << 30};
  char* flush;
  float* y;
  uint32_t* idx_d;
  void* x;
  CK(cudaMalloc(&flush, flush_bytes));
  CK(cudaMalloc(&y, n * sizeof(float)));
  CK(cudaMalloc(&idx_d, n * sizeof(uint32_t)));
  CK(cudaMalloc(&x, tables[2]));
  CK(cudaMemset(x, 0, tables[2]));
  std::vector<uint32_t> idx(n);
  std::mt19937_64 rng(12345);
  printf("table_bytes,elem_bytes,dist,k,blocks_per_sm,warps_per_sm,gathers,median_us,gathers_per_us\n");
  for (size_t tb : tables) {
    for (int e : {4, 16}) {
      uint64_t elems = tb / e;
      for (const char* dist : {"sorted", "uniform", "hot"}) {
        std::string d = dist;
        for (uint32_t i = 0; i < n; ++i) {
          if (d == "sorted")
            idx[i] = (uint32_t)(i % elems);
          else if (d == "uniform")
            idx[i] = (uint32_t)(rng() % elems);
          else
            idx[i] = (uint32_t)(rng() % std::max<uint64_t>(1, elems / 64));
        }
        CK(cudaMemcpy(idx_d, idx.data(), n * sizeof(uint32_t), cudaMemcpyHostToDevice));
        if (e == 4) {
          run<float, 1>((const float*)x, idx_d, y, n, tb, dist, flush, flush_bytes);
          run<float, 4>((const float*)x, idx_d, y, n, tb, dist, flush, flush_bytes);
        } else {
          run<float4, 1>((const float4*)x, idx_d, y, n, tb, dist, flush, flush_bytes);
          run<float4, 4>((const float4*)x, idx_d, y, n, tb, dist, flush, flush_bytes);
        }
      }
    }
  }
  return 0;
}
