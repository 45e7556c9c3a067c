// The DRAM fetch granularity of a scattered read (issue 33, gathers): how many DRAM bytes one
// 4-byte gather that misses L2 costs. gather.cu's per-sector DRAM cost is measured on uniform
// random gathers from a 1 GiB table, so it holds whatever the L2 fetches per miss; mapper g
// needs that size to turn a kernel's DRAM bytes into the share of its scattered sectors that
// missed. y[i] = x[idx[i]] over 2^22 gathers, 256-thread blocks, full occupancy, after an L2
// flush; indices sorted (coalesced reference), uniform over 1 GiB (almost every gather
// misses) and uniform over 4 MiB (L2-resident). Run under Nsight Compute (fetch.sh), which
// reads DRAM bytes and sectors per launch; also prints cudaLimitMaxL2FetchGranularity.
//
// Build: nvcc -O3 -arch=sm_90 -std=c++17 -o fetch fetch.cu
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>
#include <cuda_runtime.h>

#include "check.cuh"

__global__ void k_fetch(const float* __restrict__ x, const uint32_t* __restrict__ idx,
                        float* __restrict__ y, uint32_t n) {
  uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < n) y[t] = __ldg(&x[idx[t]]);
}

int main() {
  const uint32_t n = 1u << 22;
  const size_t table = 1ull << 30, flush_bytes = 256ull << 20;
  size_t gran = 0;
  CK(cudaDeviceGetLimit(&gran, cudaLimitMaxL2FetchGranularity));
  printf("cudaLimitMaxL2FetchGranularity,%zu\n", gran);
  float *x, *y;
  uint32_t* idx_d;
  char* flush;
  CK(cudaMalloc(&x, table));
  CK(cudaMemset(x, 0, table));
  CK(cudaMalloc(&y, n * sizeof(float)));
  CK(cudaMalloc(&idx_d, n * sizeof(uint32_t)));
  CK(cudaMalloc(&flush, flush_bytes));
  std::vector<uint32_t> idx(n);
  std::mt19937_64 rng(12345);
  struct Case { const char* dist; uint64_t elems; };
  const Case cases[] = {{"sorted", table / 4}, {"uniform_1GiB", table / 4}, {"uniform_4MiB", (4u << 20) / 4}};
  printf("launch,dist,gathers\n");
  int launch = 0;
  for (const Case& c : cases) {
    for (uint32_t i = 0; i < n; ++i)
      idx[i] = c.dist[0] == 's' ? i : (uint32_t)(rng() % c.elems);
    CK(cudaMemcpy(idx_d, idx.data(), n * sizeof(uint32_t), cudaMemcpyHostToDevice));
    CK(cudaMemset(flush, launch, flush_bytes));
    k_fetch<<<n / 256, 256>>>(x, idx_d, y, n);
    CK(cudaDeviceSynchronize());
    printf("%d,%s,%u\n", launch++, c.dist, n);
  }
  return 0;
}
