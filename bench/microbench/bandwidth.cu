// Device-wide sustained bandwidth and launch cost, timed the way the suites time a
// kernel: CUDA events around one launch, after an L2 flush (ptx_samples/rodinia
// host/bench.cpp). A standalone binary (`mbw`), separate from the per-SM clock64
// suite, because these quantities are wall-clock by nature: the whole device shares
// DRAM and L2, and launch overhead happens outside any SM's clock window.
//
//  * stream R:W: a persistent grid reads R and writes W disjoint 256 MiB streams
//    (16 B per lane, inline PTX so that nothing is elided); bytes = (R+W)·256 MiB;
//    the read/write mixes 1:0, 3:1, 2:1, 1:1, 1:2, 0:1 give the sustained DRAM rate
//    as a function of the read fraction;
//  * L2 R:W: the same with 8 MiB streams re-read/re-written 32 times with .cg
//    (L2-resident, L1 bypassed);
//  * launch: an empty <<<1,32>>> kernel, a one-block kernel spinning a known number of
//    cycles (event time minus its own cycles = launch overhead plus one block's start
//    and drain), and empty grids of 1..64 full waves (the per-wave start/drain cost);
//  * the SM clock (clock64 against %globaltimer) converts seconds into cycles.
// Rows: class,kind,param,value,unit,warps,iterations,notes (as in h100_raw.csv).
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>
#include <algorithm>
#include <string>
#include <cuda_runtime.h>

#include "cg.cuh"
#include "check.cuh"

static void row(const char* cls, const char* kind, const std::string& param, double value,
                const char* unit, int warps, long long iters, const std::string& notes) {
  printf("%s,%s,%s,%.4f,%s,%d,%lld,%s\n", cls, kind, param.c_str(), value, unit, warps, iters,
         notes.c_str());
  fflush(stdout);
}

static double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}


// R read streams and W write streams of n16 float4 each, laid out back to back in buf;
// each pass touches every element once; `reps` passes.
template <int R, int W>
__global__ void __launch_bounds__(256) k_stream(float4* buf, long long n16, int reps, float* sink) {
  long long T = (long long)gridDim.x * blockDim.x;
  long long gt = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.f;
  for (int r = 0; r < reps; ++r) {
#pragma unroll 2
    for (long long i = gt; i < n16; i += T) {
      float4 s = make_float4(r, 1.f, 2.f, 3.f);
#pragma unroll
      for (int k = 0; k < R; ++k) {
        float4 v;
        ld_cg(buf + k * n16 + i, v);
        s.x += v.x;
        s.y += v.y;
        s.z += v.z;
        s.w += v.w;
      }
#pragma unroll
      for (int k = 0; k < W; ++k) st_cg(buf + (R + k) * n16 + i, s);
      acc += s.x;
    }
  }
  if (acc == 12345.678f) sink[gt & 1023] = acc;
}

__global__ void k_flush(float4* p, long long n16) {
  long long T = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n16; i += T)
    p[i] = make_float4(i, 0.f, 0.f, 0.f);
}

__global__ void k_empty() {}

__global__ void k_spin(long long cycles, long long* out) {
  long long t0 = clock64();
  long long t1 = t0;
  while (t1 - t0 < cycles) t1 = clock64();
  if (threadIdx.x == 0) *out = t1 - t0;
}

__global__ void k_clock(long long spin, long long* out) {
  long long c0 = clock64();
  unsigned long long g0, g1;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g0));
  long long c1 = c0;
  while (c1 - c0 < spin) c1 = clock64();
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g1));
  out[0] = c1 - c0;
  out[1] = (long long)(g1 - g0);
}

struct Bench {
  int sms = 0;
  float4* flush = nullptr;
  long long flush16 = 0;
  cudaEvent_t e0, e1;
  double mhz = 0;

  void do_flush() { k_flush<<<sms * 8, 256>>>(flush, flush16); }

  // Median event time in ms of `runs` launches of f, each after an L2 flush.
  template <class F>
  double time_ms(F f, int runs, bool flush_first = true) {
    std::vector<double> ms;
    for (int r = 0; r < runs + 2; ++r) {
      if (flush_first) do_flush();
      CK(cudaEventRecord(e0));
      f();
      CK(cudaEventRecord(e1));
      CK(cudaEventSynchronize(e1));
      CK(cudaGetLastError());
      float t = 0;
      CK(cudaEventElapsedTime(&t, e0, e1));
      if (r >= 2) ms.push_back(t);
    }
    return median(ms);
  }

  double sm_mhz(long long* d) {
    k_clock<<<1, 32>>>(200000000ll, d);  // ~0.1 s
    long long h[2];
    CK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
    return double(h[0]) / double(h[1]) * 1000.0;
  }
};

template <int R, int W>
static void stream_case(Bench& b, float4* buf, long long n16, int reps, const char* level,
                        float* sink) {
  int nb = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, k_stream<R, W>, 256, 0));
  int grid = nb * b.sms;
  double ms = b.time_ms([&] { k_stream<R, W><<<grid, 256>>>(buf, n16, reps, sink); }, 5,
                        reps == 1);
  double bytes = double(R + W) * n16 * 16.0 * reps;
  double gbs = bytes / (ms * 1e6);
  double bpc = bytes / (ms * 1e-3 * b.mhz * 1e6);
  std::string param = std::string(level) + "_r" + std::to_string(R) + "w" + std::to_string(W);
  std::string notes = std::to_string(R) + " read + " + std::to_string(W) + " write streams of " +
                      std::to_string((long long)(n16 * 16 >> 20)) + " MiB x " +
                      std::to_string(reps) + "; median of 5 event-timed launches";
  row("bandwidth", "device", param, gbs, "GB/s", nb * 8, reps, notes);
  row("bandwidth", "device", param, bpc, "bytes/cycle", nb * 8, reps,
      notes + "; at the measured SM clock");
  row("bandwidth", "device", param, double(R) / (R + W), "read_fraction", nb * 8, reps, "");
}

int main() {
  Bench b;
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  b.sms = p.multiProcessorCount;
  CK(cudaEventCreate(&b.e0));
  CK(cudaEventCreate(&b.e1));
  long long* d_out = nullptr;
  float* sink = nullptr;
  CK(cudaMalloc(&d_out, 64));
  CK(cudaMalloc(&sink, 4096));
  b.flush16 = (long long)p.l2CacheSize * 2 / 16;
  CK(cudaMalloc(&b.flush, b.flush16 * 16));
  const long long stream16 = (256ll << 20) / 16;
  float4* buf = nullptr;
  CK(cudaMalloc(&buf, 4 * stream16 * 16));
  CK(cudaMemset(buf, 0, 4 * stream16 * 16));
  printf("class,kind,param,value,unit,warps,iterations,notes\n");
  b.mhz = b.sm_mhz(d_out);
  row("clock", "sm", "start", b.mhz, "MHz", 1, 1, "clock64 / globaltimer over ~0.1 s");

  stream_case<1, 0>(b, buf, stream16, 1, "dram", sink);
  stream_case<3, 1>(b, buf, stream16, 1, "dram", sink);
  stream_case<2, 1>(b, buf, stream16, 1, "dram", sink);
  stream_case<1, 1>(b, buf, stream16, 1, "dram", sink);
  stream_case<1, 2>(b, buf, stream16, 1, "dram", sink);
  stream_case<0, 1>(b, buf, stream16, 1, "dram", sink);
  const long long l2_16 = (8ll << 20) / 16;
  stream_case<1, 0>(b, buf, l2_16, 32, "l2", sink);
  stream_case<1, 1>(b, buf, l2_16, 32, "l2", sink);
  stream_case<0, 1>(b, buf, l2_16, 32, "l2", sink);

  // Launch cost as the suites see it: flush, event, launch, event.
  double empty = b.time_ms([&] { k_empty<<<1, 32>>>(); }, 51);
  row("launch", "event", "empty_1x32", empty * 1e3, "us", 1, 51,
      "empty kernel <<<1,32>>> after an L2 flush; median");
  double empty_nf = b.time_ms([&] { k_empty<<<1, 32>>>(); }, 51, false);
  row("launch", "event", "empty_1x32_noflush", empty_nf * 1e3, "us", 1, 51,
      "empty kernel <<<1,32>>>, previous work finished; median");
  for (long long cyc : {0ll, 2000ll, 20000ll, 200000ll}) {
    double ms = b.time_ms([&] { k_spin<<<1, 32>>>(cyc, d_out); }, 21);
    long long spun = 0;
    CK(cudaMemcpy(&spun, d_out, sizeof(spun), cudaMemcpyDeviceToHost));
    double over = ms * 1e3 - spun / b.mhz;
    row("launch", "one_block", "spin=" + std::to_string(cyc), ms * 1e3, "us", 1, 21,
        "one block of one warp spinning; its own clock64 span " + std::to_string(spun) +
            " cycles");
    row("launch", "one_block_overhead", "spin=" + std::to_string(cyc), over, "us", 1, 21,
        "event time minus the block's own cycles at the measured clock");
  }
  int nb = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, k_empty, 256, 0));
  for (int waves : {1, 2, 4, 8, 16, 64}) {
    int grid = b.sms * nb * waves;
    double ms = b.time_ms([&] { k_empty<<<grid, 256>>>(); }, 21);
    row("launch", "empty_grid", "waves=" + std::to_string(waves), ms * 1e3, "us", nb * 8, 21,
        "empty kernel, " + std::to_string(grid) + " blocks of 256 (" + std::to_string(nb) +
            " per SM per wave); median");
  }
  for (int extra : {1, 33, 66, 99}) {
    int grid = b.sms * nb + extra;
    double ms = b.time_ms([&] { k_spin<<<grid, 256>>>(20000, d_out); }, 21);
    row("launch", "spin_grid", "blocks=" + std::to_string(grid), ms * 1e3, "us", nb * 8, 21,
        "every block spins 20000 cycles; one full wave plus " + std::to_string(extra) +
            " blocks");
  }
  {
    int grid = b.sms * nb;
    double ms = b.time_ms([&] { k_spin<<<grid, 256>>>(20000, d_out); }, 21);
    row("launch", "spin_grid", "blocks=" + std::to_string(grid), ms * 1e3, "us", nb * 8, 21,
        "every block spins 20000 cycles; exactly one full wave");
  }
  b.mhz = b.sm_mhz(d_out);
  row("clock", "sm", "end", b.mhz, "MHz", 1, 1, "clock64 / globaltimer over ~0.1 s");
  return 0;
}
