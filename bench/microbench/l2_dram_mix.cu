// Do L2 hits and DRAM reads share one memory pipe, or overlap? A full grid streams reads of a
// 4 GiB array (DRAM: each element read once) and re-reads a 16 MiB array (L2-resident), both
// with ld.global.cg (no L1), D and L float4 loads per thread and loop iteration. If the two
// were one pipe, a mix would take the sum of the times each part takes alone; if they are
// separate resources, about the longer of the two. For the `mem` subsystem of docs/simulator.md.
//
// Output (CSV on stdout): dram_per_iter,l2_per_iter,iters,dram_bytes,l2_bytes,median_us,min_us
// Each time: one launch between CUDA events, median of 7 (after one warm-up launch).
//
// Build: nvcc -O3 -arch=sm_90 -std=c++17 -o l2dm l2_dram_mix.cu
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#include "check.cuh"

__global__ void k_mix(const float4* __restrict__ big, size_t nbig, const float4* __restrict__ small,
                      size_t nsmall, int d, int l, int iters, float* out) {
  size_t tid = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  size_t n = (size_t)gridDim.x * blockDim.x;
  size_t pb = tid, ps = tid % nsmall;
  float acc = 0.f;
  for (int it = 0; it < iters; ++it) {
    for (int k = 0; k < d; ++k) {
      float4 v = __ldcg(&big[pb]);
      acc += v.x + v.y + v.z + v.w;
      pb += n;
      if (pb >= nbig) pb -= nbig;
    }
    for (int k = 0; k < l; ++k) {
      float4 v = __ldcg(&small[ps]);
      acc += v.x + v.y + v.z + v.w;
      ps += n;
      if (ps >= nsmall) ps -= nsmall;
    }
  }
  if (acc == 12345.f) out[tid] = acc;
}

int main() {
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const size_t nbig = (size_t)1 << 28;   // 4 GiB of float4
  const size_t nsmall = (size_t)1 << 20; // 16 MiB of float4
  float4 *big, *small;
  float* out;
  CK(cudaMalloc(&big, nbig * sizeof(float4)));
  CK(cudaMalloc(&small, nsmall * sizeof(float4)));
  CK(cudaMalloc(&out, (size_t)sms * 2048 * sizeof(float)));
  CK(cudaMemset(big, 0, nbig * sizeof(float4)));
  CK(cudaMemset(small, 0, nsmall * sizeof(float4)));
  const int threads = 256, blocks = sms * 8;  // full occupancy: 2048 threads per SM
  const size_t n = (size_t)threads * blocks;
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  printf("dram_per_iter,l2_per_iter,iters,dram_bytes,l2_bytes,median_us,min_us\n");
  const int mixes[][2] = {{1, 0}, {0, 1}, {1, 1}, {1, 2}, {1, 4}, {2, 1}, {0, 2}, {0, 4}, {2, 0}};
  for (auto& m : mixes) {
    int d = m[0], l = m[1];
    // About 2 GiB of DRAM reads when d > 0 (each big element at most once); the same
    // iteration count for the L2-only runs of the same l, so their bytes match the mixes'.
    int iters = (int)(((size_t)1 << 27) / n);
    std::vector<float> t;
    for (int r = 0; r < 8; ++r) {
      CK(cudaEventRecord(a));
      k_mix<<<blocks, threads>>>(big, nbig, small, nsmall, d, l, iters, out);
      CK(cudaEventRecord(b));
      CK(cudaEventSynchronize(b));
      CK(cudaGetLastError());
      float ms = 0.f;
      CK(cudaEventElapsedTime(&ms, a, b));
      if (r > 0) t.push_back(1000.f * ms);
    }
    std::sort(t.begin(), t.end());
    double bytes_d = 16.0 * n * iters * d, bytes_l = 16.0 * n * iters * l;
    printf("%d,%d,%d,%.0f,%.0f,%.2f,%.2f\n", d, l, iters, bytes_d, bytes_l, t[t.size() / 2], t[0]);
    fflush(stdout);
  }
  return 0;
}
