// Do warp shuffles and shared-memory loads slow a DRAM stream, or each other? A full grid
// streams `ld.global.cg` float4 reads of a 4 GiB array (each element at most once) and, in the
// same loop, runs S warp shuffles (`shfl.sync.bfly`, four independent values) or S
// conflict-free float4 shared-memory loads per DRAM load (kinds shfl, lds), or S of each and no
// DRAM load (kind both). If two kinds of instruction used one pipe, a mix would take about the
// sum of the times each part takes alone; if they are separate resources, about the longer of
// the two. The model has one memory subsystem for global, shared and shuffle instructions
// (docs/gpu-profile.md); this benchmark tells which of them belong on it together.
//
// Output (CSV on stdout): kind,dram_per_iter,ops_per_iter,iters,dram_bytes,ops,median_us,min_us
// (ops: warp instructions of the kind, both kinds counted for `both`). Each time: one launch
// between CUDA events, median of 7 after one warm-up.
//
// Build: nvcc -O3 -arch=sm_90 -std=c++17 -o miodm mio_dram_mix.cu
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#include "check.cuh"

// KIND: 0 shuffles, 1 shared loads, 2 both
template <int KIND>
__global__ void k_mix(const float4* __restrict__ big, size_t nbig, int d, int s, int iters,
                      float* out) {
  __shared__ float4 tile[256];
  size_t tid = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  size_t n = (size_t)gridDim.x * blockDim.x;
  tile[threadIdx.x] = make_float4(threadIdx.x, 1.f, 2.f, 3.f);
  __syncthreads();
  size_t pb = tid;
  float a = threadIdx.x, b = a + 1.f, c = a + 2.f, e = a + 3.f;
  unsigned j = threadIdx.x;
  for (int it = 0; it < iters; ++it) {
    for (int k = 0; k < d; ++k) {
      float4 v = __ldcg(&big[pb]);
      a += v.x; b += v.y; c += v.z; e += v.w;
      pb += n;
      if (pb >= nbig) pb -= nbig;
    }
    for (int k = 0; k < s; ++k) {
      if (KIND != 1) {
        a = __shfl_xor_sync(0xffffffffu, a, 1 + (k & 15));
        b = __shfl_xor_sync(0xffffffffu, b, 1 + (k & 15));
        c = __shfl_xor_sync(0xffffffffu, c, 1 + (k & 15));
        e = __shfl_xor_sync(0xffffffffu, e, 1 + (k & 15));
      }
      if (KIND != 0) {
        // lane-consecutive float4s: conflict free; the index moves with the loop so the
        // loads cannot be hoisted
        for (int q = 0; q < 4; ++q) {
          float4 v = tile[(j + k + q) & 255];
          a += v.x; b += v.y; c += v.z; e += v.w;
        }
      }
      k += 3;  // four of each kind per step: S counts instructions of a kind
    }
    j += 32;
  }
  float acc = a + b + c + e;
  if (acc == 12345.f) out[tid] = acc;
}

int main() {
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const size_t nbig = (size_t)1 << 28;  // 4 GiB of float4
  float4* big;
  float* out;
  CK(cudaMalloc(&big, nbig * sizeof(float4)));
  CK(cudaMalloc(&out, (size_t)sms * 2048 * sizeof(float)));
  CK(cudaMemset(big, 0, nbig * sizeof(float4)));
  const int threads = 256, blocks = sms * 8;  // full occupancy: 2048 threads per SM
  const size_t n = (size_t)threads * blocks;
  cudaEvent_t ea, eb;
  CK(cudaEventCreate(&ea));
  CK(cudaEventCreate(&eb));
  printf("kind,dram_per_iter,ops_per_iter,iters,dram_bytes,ops,median_us,min_us\n");
  const int mixes[][2] = {{1, 0}, {0, 4}, {1, 4}, {0, 8}, {1, 8}, {0, 16}, {1, 16}, {0, 32}, {1, 32}};
  for (int kind = 0; kind < 3; ++kind) {
    for (auto& m : mixes) {
      int d = m[0], s = m[1];
      if (kind >= 1 && d == 1 && s == 0) continue;  // the DRAM-only run is the same kernel
      if (kind == 2 && d == 1) continue;           // both: shuffles against shared loads only
      // about 2 GiB of DRAM reads when d > 0; the same iteration count without them
      int iters = (int)(((size_t)1 << 27) / n);
      std::vector<float> t;
      for (int r = 0; r < 8; ++r) {
        CK(cudaEventRecord(ea));
        if (kind == 0)
          k_mix<0><<<blocks, threads>>>(big, nbig, d, s, iters, out);
        else if (kind == 1)
          k_mix<1><<<blocks, threads>>>(big, nbig, d, s, iters, out);
        else
          k_mix<2><<<blocks, threads>>>(big, nbig, d, s, iters, out);
        CK(cudaEventRecord(eb));
        CK(cudaEventSynchronize(eb));
        CK(cudaGetLastError());
        float ms = 0.f;
        CK(cudaEventElapsedTime(&ms, ea, eb));
        if (r > 0) t.push_back(1000.f * ms);
      }
      std::sort(t.begin(), t.end());
      double bytes = 16.0 * n * iters * d, ops = (double)n / 32 * iters * s * (kind == 2 ? 2 : 1);
      const char* name = kind == 0 ? "shfl" : kind == 1 ? "lds" : "both";
      printf("%s,%d,%d,%d,%.0f,%.0f,%.2f,%.2f\n", name, d, s, iters, bytes,
             ops, t[t.size() / 2], t[0]);
      fflush(stdout);
    }
  }
  return 0;
}
