// Global atomics under address scatter and contention: what a histogram or a graph
// relaxation costs on the device, for mapper g's atomic rule (docs/simulator.md).
//
// Every configuration runs the same kernel shape: 16M elements, one thread each, 256-thread
// blocks, full occupancy; thread i reads key[i] (coalesced) and applies one global atomic to
// table[key[i]]. Only the keys change:
//   seq       key = i: each warp's atomics hit 32 consecutive words (4 sectors, 1 request)
//   uni_B     keys uniform over B words (B = 1 .. 2^20): B = 1 is one address for the grid,
//             large B scatters each warp over ~32 sectors
//   hot_F     a fraction 1/F of the keys on word 0, the rest uniform over 4096 words
// and the operation: `red` (atomicAdd, result unused: ptxas emits REDG), `min` (atomicMin,
// unused: REDG.MIN) and `atom` (atomicAdd whose result is used: ATOMG).
//
// Output (CSV on stdout): config,op,bins,hot_fraction,elements,median_us,min_us,max_us,runs.
// Each time is one launch between CUDA events after an L2 flush, median of 9 (the suites'
// method). `./atomics profile` runs every configuration once, for ncu (atomics.sh).
//
// Build: nvcc -O3 -arch=sm_90 -std=c++17 -o atomics atomics.cu
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#include <cuda_runtime.h>

#include "check.cuh"

__global__ void k_red(const int* __restrict__ key, unsigned* table, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&table[key[i]], 1u);
}

__global__ void k_min(const int* __restrict__ key, int* table, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicMin(&table[key[i]], i & 1023);
}

// The returned value feeds a store that never happens (no key reaches 2^31), so ptxas must
// keep ATOMG with its return path.
__global__ void k_atom(const int* __restrict__ key, unsigned* table, unsigned* sink, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    unsigned old = atomicAdd(&table[key[i]], 1u);
    if (old == 0x80000000u) sink[0] = i;
  }
}

__global__ void k_flush(float4* p, long long n16) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  for (; i < n16; i += (long long)gridDim.x * blockDim.x) p[i].x += 1.0f;
}

struct Rng {
  uint64_t s;
  uint32_t next() {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return (uint32_t)(s >> 11);
  }
};

struct Config {
  std::string name;
  int bins;         // keys spread over this many words (0: key = i)
  int hot;          // 1/hot of the keys on word 0 (0: none)
};

static std::vector<int> make_keys(const Config& c, int n) {
  std::vector<int> k(n);
  Rng r{0x9E3779B97F4A7C15ull ^ (uint64_t)c.bins * 1315423911ull ^ (uint64_t)c.hot};
  for (int i = 0; i < n; ++i) {
    if (c.bins == 0) {
      k[i] = i;
    } else if (c.hot > 0 && r.next() % (uint32_t)c.hot == 0) {
      k[i] = 0;
    } else {
      k[i] = (int)(r.next() % (uint32_t)c.bins);
    }
  }
  return k;
}

int main(int argc, char** argv) {
  bool profile = argc > 1 && std::string(argv[1]) == "profile";
  const int n = 1 << 24;
  const int threads = 256;
  const int runs = 9;
  std::vector<Config> configs = {
      {"seq", 0, 0},
      {"uni_1", 1, 0},
      {"uni_32", 32, 0},
      {"uni_256", 256, 0},
      {"uni_4096", 4096, 0},
      {"uni_65536", 65536, 0},
      {"uni_1048576", 1 << 20, 0},
      {"hot_1024", 4096, 1024},
      {"hot_256", 4096, 256},
      {"hot_64", 4096, 64},
      {"hot_16", 4096, 16},
      {"hot_4", 4096, 4},
  };
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  long long flush16 = (long long)p.l2CacheSize * 2 / 16;
  float4* flush;
  CK(cudaMalloc(&flush, flush16 * 16));
  CK(cudaMemset(flush, 0, flush16 * 16));
  int* d_key;
  unsigned* d_table;
  unsigned* d_sink;
  CK(cudaMalloc(&d_key, (size_t)n * 4));
  CK(cudaMalloc(&d_table, (size_t)n * 4));
  CK(cudaMalloc(&d_sink, 4));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  int blocks = n / threads;
  if (!profile) printf("config,op,bins,hot_fraction,elements,median_us,min_us,max_us,runs\n");
  for (const Config& c : configs) {
    std::vector<int> keys = make_keys(c, n);
    CK(cudaMemcpy(d_key, keys.data(), (size_t)n * 4, cudaMemcpyHostToDevice));
    for (const char* op : {"red", "min", "atom"}) {
      // atomicMin and the returning add add nothing new on the uniform sweep's middle
      // points: run them where the histogram kernels of the suites sit
      bool all_ops = c.name == "seq" || c.name == "uni_1" || c.name == "uni_4096" ||
                     c.name == "uni_1048576" || c.name == "hot_64";
      if (std::string(op) != "red" && !all_ops) continue;
      auto launch = [&] {
        if (std::string(op) == "red")
          k_red<<<blocks, threads>>>(d_key, d_table, n);
        else if (std::string(op) == "min")
          k_min<<<blocks, threads>>>(d_key, (int*)d_table, n);
        else
          k_atom<<<blocks, threads>>>(d_key, d_table, d_sink, n);
      };
      CK(cudaMemset(d_table, 0, (size_t)n * 4));
      if (profile) {
        launch();
        CK(cudaDeviceSynchronize());
        continue;
      }
      std::vector<float> t;
      for (int r = 0; r < runs; ++r) {
        k_flush<<<p.multiProcessorCount * 8, 256>>>(flush, flush16);
        CK(cudaEventRecord(e0));
        launch();
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        float ms;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        t.push_back(ms * 1000.0f);
      }
      CK(cudaGetLastError());
      std::sort(t.begin(), t.end());
      printf("%s,%s,%d,%.6f,%d,%.3f,%.3f,%.3f,%d\n", c.name.c_str(), op, c.bins,
             c.hot ? 1.0 / c.hot : 0.0, n, t[runs / 2], t.front(), t.back(), runs);
    }
  }
  return 0;
}
