// Warps of a block that do unequal work: what a block that holds its SM slot until its
// longest warp ends costs across occupancy. Validation data for a model of uneven warps
// (the held-out suite's sparse and graph kernels keep 33-39 % of their warp slots busy at
// one block per SM; docs/results.md).
//
// Every configuration runs the same total work: 132 x 64 blocks of 256 threads (8 warps);
// each thread runs `trips[warp]` iterations of 4 coalesced float4 loads (ld.global.cg) from a
// 1 GiB array, summed. The first warp of every block runs a·L iterations, the other seven
// b·L with b = (8 - a) / 7, so the mean stays L = 64 (a = 1: balanced; a = 8: one warp does
// all the work). The counts are read from memory: a compiler cannot know them, as in a CSR row
// loop. Blocks per SM 1..8 by dynamic shared-memory padding, checked with the occupancy API.
//
// Output (CSV on stdout): long_factor,blocks_per_sm,warps_per_sm,median_us,min_us,runs
// Each time: one launch between CUDA events, median of 9, after an L2 flush.
// `./uneven profile` runs the 1- and 8-block points of every a once, for ncu (uneven.sh).
//
// Build: nvcc -O3 -arch=sm_90 -std=c++17 -o uneven uneven.cu
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#include <cuda_runtime.h>

#include "check.cuh"

__global__ void k_uneven(const float4* __restrict__ data, size_t n4, const int* __restrict__ trips,
                         float* out) {
  extern __shared__ float pad[];
  const int t = trips[threadIdx.x >> 5];
  size_t i = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) * 4 % n4;
  const size_t step = (size_t)gridDim.x * blockDim.x * 4;
  float acc = 0.f;
  for (int k = 0; k < t; ++k) {
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      float4 v = __ldcg(&data[(i + (size_t)j * blockDim.x) % n4]);
      acc += v.x + v.y + v.z + v.w;
    }
    i = (i + step) % n4;
  }
  if (acc == 12345.f) {
    pad[0] = acc;
    out[threadIdx.x] = pad[0];
  }
}

__global__ void k_flush(float4* p, size_t n) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  for (; i < n; i += (size_t)gridDim.x * blockDim.x) p[i].x += 1.0f;
}

int main(int argc, char** argv) {
  const bool profile = argc > 1 && std::string(argv[1]) == "profile";
  int sms = 0, smem_block = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CK(cudaDeviceGetAttribute(&smem_block, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
  CK(cudaFuncSetAttribute(k_uneven, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_block));
  const size_t n4 = (size_t)1 << 26;  // 1 GiB of float4
  const size_t flush4 = (size_t)1 << 24;  // 256 MiB, five times the L2
  float4 *data, *flush;
  int* trips;
  float* out;
  CK(cudaMalloc(&data, n4 * sizeof(float4)));
  CK(cudaMalloc(&flush, flush4 * sizeof(float4)));
  CK(cudaMalloc(&trips, 8 * sizeof(int)));
  CK(cudaMalloc(&out, 1024 * sizeof(float)));
  CK(cudaMemset(data, 0, n4 * sizeof(float4)));
  CK(cudaMemset(flush, 0, flush4 * sizeof(float4)));
  const int threads = 256, blocks = sms * 64, L = 64;
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  if (!profile) printf("long_factor,blocks_per_sm,warps_per_sm,median_us,min_us,runs\n");
  for (int f : {1, 2, 4, 8}) {
    int h[8];
    h[0] = f * L;
    for (int w = 1; w < 8; ++w) h[w] = (8 - f) * L / 7;
    CK(cudaMemcpy(trips, h, sizeof h, cudaMemcpyHostToDevice));
    for (int bps = 1; bps <= 8; ++bps) {
      if (profile && bps != 1 && bps != 8) continue;
      // The smallest padding that leaves room for exactly `bps` blocks.
      size_t smem = 0;
      int got = 0;
      for (size_t s = 0; s <= (size_t)smem_block; s += 1024) {
        CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&got, k_uneven, threads, s));
        if (got <= bps) {
          smem = s;
          break;
        }
      }
      if (got != bps) continue;
      std::vector<float> t;
      for (int r = 0; r < (profile ? 1 : 10); ++r) {
        k_flush<<<sms * 8, 256>>>(flush, flush4);
        CK(cudaEventRecord(a));
        k_uneven<<<blocks, threads, smem>>>(data, n4, trips, out);
        CK(cudaEventRecord(b));
        CK(cudaEventSynchronize(b));
        CK(cudaGetLastError());
        float ms = 0.f;
        CK(cudaEventElapsedTime(&ms, a, b));
        if (r > 0) t.push_back(1000.f * ms);
      }
      if (profile) continue;
      std::sort(t.begin(), t.end());
      printf("%d,%d,%d,%.2f,%.2f,%zu\n", f, bps, bps * 8, t[t.size() / 2], t[0], t.size());
      fflush(stdout);
    }
  }
  return 0;
}
