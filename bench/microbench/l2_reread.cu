// Re-reads of data the same block streamed in a moment ago, beside DRAM traffic: do they cost
// L2 bandwidth on top of the DRAM stream (one memory pipe, as `l2_dram_mix.cu` found for a
// grid re-reading one shared 16 MiB array), or do they overlap with it? A row-wise kernel such
// as a layer norm reads its row, reduces, reads the row again (and per-column weights every
// block shares) and writes the result; the held-out suite's Triton layer norm moves 823 MB
// through the L2 and 256 MB through DRAM in 101.5 us, where the one-pipe sum at the profile's
// bandwidths gives about 177 us.
//
// One block of 256 threads per 16 KiB row (4096 floats, 4 float4 per thread and pass), 8192
// rows (128 MiB in, 128 MiB out), a full device of blocks (8 per SM). Per row: one streaming
// pass (DRAM), `rereads` more passes over the same row after a block barrier (the reduction of
// a row kernel), `wvec` passes over a 16 KiB vector every block reads, and a store of the row
// when `write`. Loads are `ld.global.cg` (L2 only) or `ld.global.ca` (L1 too). `small` rows:
// only 512 distinct rows (8 MiB, L2-resident after the first wave), so the streaming pass hits
// L2 too. Each configuration: one launch between CUDA events after an L2 flush, median of 9.
//
// `other`: the re-read passes read the row of the block one wave (1056 blocks) earlier, which
// another SM streamed, instead of their own.
//
// Output (CSV on stdout): config,rereads,write,wvec,flavor,small,other,in_bytes,median_us,min_us,runs
// `./l2_reread profile` runs every configuration once (for ncu; l2_reread.sh).
//
// Build: nvcc -O3 -arch=sm_90 -std=c++17 -o l2_reread l2_reread.cu
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>
#include <cuda_runtime.h>

#include "check.cuh"

template <bool CG>
__device__ __forceinline__ float4 load(const float4* p) {
  return CG ? __ldcg(p) : __ldca(p);
}

template <bool CG>
__global__ void k_row(const float4* __restrict__ x, const float4* __restrict__ w,
                      float4* __restrict__ y, int rows_mod, int rereads, int wvec, int write,
                      int other) {
  __shared__ float red[8];
  const int row = blockIdx.x % rows_mod;
  const float4* base = x + (size_t)row * 1024;
  // The re-read passes read `other` rows back: 0, this block's own row; one wave (1056
  // blocks), a row another SM streamed a moment ago.
  const float4* again = x + (size_t)((row + rows_mod - other % rows_mod) % rows_mod) * 1024;
  float acc = 0.f;
  float4 v[4];
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    v[j] = load<CG>(base + threadIdx.x + j * 256);
    acc += v[j].x + v[j].y + v[j].z + v[j].w;
  }
  for (int r = 0; r < rereads; ++r) {
    // The row's reduction: every warp's loads of the previous pass are done.
    if ((threadIdx.x & 31) == 0) red[threadIdx.x >> 5] = acc;
    __syncthreads();
    acc = red[(threadIdx.x >> 5) ^ 1];
    __syncthreads();
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      v[j] = load<CG>(again + threadIdx.x + j * 256);
      acc += v[j].x * acc + v[j].y + v[j].z + v[j].w;
    }
  }
  for (int r = 0; r < wvec; ++r) {
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      float4 g = load<CG>(w + threadIdx.x + j * 256);
      v[j].x = v[j].x * g.x + acc;
      v[j].y = v[j].y * g.y;
      v[j].z = v[j].z * g.z;
      v[j].w = v[j].w * g.w;
    }
  }
  if (write) {
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      float4 o = v[j];
      o.x += acc;
      y[(size_t)blockIdx.x * 1024 + threadIdx.x + j * 256] = o;
    }
  } else if (acc == 12345.f) {
    y[threadIdx.x] = v[0];
  }
}

__global__ void k_flush(float4* p, size_t n) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  for (; i < n; i += (size_t)gridDim.x * blockDim.x) p[i].x += 1.0f;
}

struct Config {
  const char* name;
  int rereads, write, wvec;
  bool cg, small;
  int other;
};

int main(int argc, char** argv) {
  const bool profile = argc > 1 && std::string(argv[1]) == "profile";
  const int rows = 8192;
  const size_t row4 = 1024;                  // 16 KiB of float4
  const size_t flush4 = (size_t)1 << 24;     // 256 MiB, five times the L2
  float4 *x, *y, *w, *flush;
  CK(cudaMalloc(&x, rows * row4 * sizeof(float4)));
  CK(cudaMalloc(&y, rows * row4 * sizeof(float4)));
  CK(cudaMalloc(&w, row4 * sizeof(float4)));
  CK(cudaMalloc(&flush, flush4 * sizeof(float4)));
  CK(cudaMemset(x, 0, rows * row4 * sizeof(float4)));
  CK(cudaMemset(y, 0, rows * row4 * sizeof(float4)));
  CK(cudaMemset(w, 0, row4 * sizeof(float4)));
  CK(cudaMemset(flush, 0, flush4 * sizeof(float4)));
  const Config configs[] = {
      {"stream", 0, 0, 0, true, false},        {"copy", 0, 1, 0, true, false},
      {"reread1_cg", 1, 0, 0, true, false},    {"reread2_cg", 2, 0, 0, true, false},
      {"reread1_write_cg", 1, 1, 0, true, false}, {"reread2_write_cg", 2, 1, 0, true, false},
      {"reread1_ca", 1, 0, 0, false, false},   {"reread1_write_ca", 1, 1, 0, false, false},
      {"reread2_write_ca", 2, 1, 0, false, false},
      {"layernorm_cg", 2, 1, 2, true, false},  {"layernorm_ca", 2, 1, 2, false, false},
      {"wvec2_cg", 0, 0, 2, true, false},      {"wvec2_write_cg", 0, 1, 2, true, false},
      {"l2_stream_cg", 0, 0, 0, true, true},   {"l2_reread1_cg", 1, 0, 0, true, true},
      {"l2_reread2_write_cg", 2, 1, 0, true, true},
      {"reread1_other_cg", 1, 0, 0, true, false, 1056},
      {"reread1_write_other_cg", 1, 1, 0, true, false, 1056},
      {"reread2_write_other_cg", 2, 1, 0, true, false, 1056},
  };
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  if (!profile) printf("config,rereads,write,wvec,flavor,small,other,in_bytes,median_us,min_us,runs\n");
  for (const Config& c : configs) {
    const int runs = profile ? 1 : 9;
    const int rows_mod = c.small ? 512 : rows;
    std::vector<float> t;
    for (int r = 0; r < runs; ++r) {
      k_flush<<<1024, 256>>>(flush, flush4);
      CK(cudaGetLastError());
      CK(cudaEventRecord(a));
      if (c.cg)
        k_row<true><<<rows, 256>>>(x, w, y, rows_mod, c.rereads, c.wvec, c.write,
                                            c.other);
      else
        k_row<false><<<rows, 256>>>(x, w, y, rows_mod, c.rereads, c.wvec, c.write,
                                            c.other);
      CK(cudaEventRecord(b));
      CK(cudaEventSynchronize(b));
      CK(cudaGetLastError());
      float ms = 0.f;
      CK(cudaEventElapsedTime(&ms, a, b));
      t.push_back(1000.f * ms);
    }
    if (profile) continue;
    std::sort(t.begin(), t.end());
    const double in = (double)rows * row4 * 16;
    printf("%s,%d,%d,%d,%s,%d,%d,%.0f,%.2f,%.2f,%d\n", c.name, c.rereads, c.write, c.wvec,
           c.cg ? "cg" : "ca", c.small ? 1 : 0, c.other, in, t[t.size() / 2], t[0], runs);
    fflush(stdout);
  }
  return 0;
}
