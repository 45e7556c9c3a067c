// Shared infrastructure of the λ/Λ microbenchmark suite.
//
// Timing is always in SM cycles read with clock64(), never in wall-clock time,
// so the numbers do not depend on the clock the GPU chose to run at.
//  * Latency (Λ): one warp runs a chain of dependent instructions; thread 0
//    reads clock64 around the loop. Two runs with I and 2I iterations are
//    subtracted so that launch, prologue and loop-exit costs cancel.
//  * Throughput (λ): a resident grid (every block on an SM at once) of
//    independent chains; each block records its first/last clock64 into
//    per-SM min/max slots, so an SM's elapsed cycles are exact even though
//    the per-SM counters are not synchronised with each other. Again two
//    runs (I, 2I) are subtracted.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <vector>
#include <algorithm>
#include <string>
#include <cuda_runtime.h>
#include <cuda_fp16.h>

#include "check.cuh"

#define MAX_SM 512

struct SmTimes {
  unsigned long long* start;
  unsigned long long* end;
  unsigned* blocks;
};

__device__ __forceinline__ unsigned smid_reg() {
  unsigned r;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(r));
  return r;
}

__device__ __forceinline__ void sm_record(SmTimes t, long long t0, long long t1) {
  if (threadIdx.x == 0) {
    unsigned s = smid_reg();
    atomicMin(&t.start[s], (unsigned long long)t0);
    atomicMax(&t.end[s], (unsigned long long)t1);
    atomicAdd(&t.blocks[s], 1u);
  }
}

// Host side state shared by all benchmarks.
struct Ctx {
  int sms = 0;
  SmTimes st{};
  long long* d_cyc = nullptr;
  void* d_sink = nullptr;
  unsigned long long h_start[MAX_SM], h_end[MAX_SM];
  unsigned h_blocks[MAX_SM];
};
extern Ctx g;

// Device 0, its SM count, the per-SM timing slots and the sinks; prints the CSV header.
inline void ctx_init(size_t sink_bytes) {
  CK(cudaSetDevice(0));
  CK(cudaDeviceGetAttribute(&g.sms, cudaDevAttrMultiProcessorCount, 0));
  CK(cudaMalloc(&g.st.start, sizeof(unsigned long long) * MAX_SM));
  CK(cudaMalloc(&g.st.end, sizeof(unsigned long long) * MAX_SM));
  CK(cudaMalloc(&g.st.blocks, sizeof(unsigned) * MAX_SM));
  CK(cudaMalloc(&g.d_cyc, 64));
  CK(cudaMalloc(&g.d_sink, sink_bytes));
  printf("class,kind,param,value,unit,warps,iterations,notes\n");
}

inline void sm_reset() {
  CK(cudaMemset(g.st.start, 0xff, sizeof(unsigned long long) * MAX_SM));
  CK(cudaMemset(g.st.end, 0, sizeof(unsigned long long) * MAX_SM));
  CK(cudaMemset(g.st.blocks, 0, sizeof(unsigned) * MAX_SM));
}

// Per-SM elapsed cycles and block counts of the last launch.
struct SmResult {
  std::vector<double> cycles;
  std::vector<unsigned> blocks;
};

inline SmResult sm_fetch() {
  CK(cudaDeviceSynchronize());
  CK(cudaGetLastError());
  CK(cudaMemcpy(g.h_start, g.st.start, sizeof(g.h_start), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(g.h_end, g.st.end, sizeof(g.h_end), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(g.h_blocks, g.st.blocks, sizeof(g.h_blocks), cudaMemcpyDeviceToHost));
  SmResult r;
  r.cycles.assign(g.sms, 0.0);
  r.blocks.assign(g.sms, 0);
  for (int s = 0; s < g.sms; ++s) {
    r.blocks[s] = g.h_blocks[s];
    if (g.h_blocks[s]) r.cycles[s] = double(g.h_end[s] - g.h_start[s]);
  }
  return r;
}

inline double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// λ from two launches: per SM, (Δcycles)/(Δ warp instructions), median over SMs.
// units_per_block_* = warp-instruction count one block executes in each run.
inline double lambda_from(const SmResult& a, const SmResult& b, double units_per_block_a,
                          double units_per_block_b) {
  std::vector<double> v;
  for (int s = 0; s < g.sms; ++s) {
    if (!a.blocks[s] || a.blocks[s] != b.blocks[s]) continue;
    double du = b.blocks[s] * units_per_block_b - a.blocks[s] * units_per_block_a;
    if (du > 0) v.push_back((b.cycles[s] - a.cycles[s]) / du);
  }
  return median(v);
}

inline long long fetch_cycles() {
  long long c = 0;
  CK(cudaDeviceSynchronize());
  CK(cudaGetLastError());
  CK(cudaMemcpy(&c, g.d_cyc, sizeof(c), cudaMemcpyDeviceToHost));
  return c;
}

inline void row(const char* cls, const char* kind, const std::string& param, double value,
                const char* unit, int warps, long long iters, const std::string& notes) {
  printf("%s,%s,%s,%.4f,%s,%d,%lld,%s\n", cls, kind, param.c_str(), value, unit, warps, iters,
         notes.c_str());
  fflush(stdout);
}

// How many 256-thread blocks of `kernel` fit on one SM with `smem` dynamic bytes.
template <class K>
inline int blocks_per_sm(K kernel, int threads, size_t smem = 0) {
  int n = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, kernel, threads, smem));
  return n;
}

// Choose an iteration count so that a run lasts about `target` cycles, given the
// cycles `c0` measured with `i0` iterations.
inline int scale_iters(double c0, int i0, double target, int lo = 1, int hi = 1 << 24) {
  double per = c0 / std::max(1, i0);
  long long n = per > 0 ? (long long)(target / per) : hi;
  if (n < lo) n = lo;
  if (n > hi) n = hi;
  return (int)n;
}

void run_arith();
void run_memory();
void run_special();
void run_launch();
