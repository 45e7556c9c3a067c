// Loaded DRAM latency: the completion latency a dependent global load sees as a function of
// the device-wide DRAM bandwidth other warps draw at the same time. The Pipeline model gives a
// DRAM load a fixed Λ (the unloaded chase, memory.cu); if queueing in the memory system makes
// Λ grow with the load long before the bandwidth saturates, a streaming kernel's occupancy curve
// has a soft knee instead of the model's sharp one.
//
// One launch per measurement, two roles:
//  * probes: the first block to start on each of `probes` SMs spread over the device (smid a
//    multiple of SMs / probes) runs one lane of a dependent pointer chase (`ld.global.cg.u64
//    p, [p]`) over a 2 GiB ring of 128-byte lines in a multiplicative-hash order (memory.cu's
//    dram_random layout: node i at line i * 2654435761 mod 2^24, 2^22 nodes). Every node is a
//    line nobody touched for gigabytes, so every hop misses L2. clock64 after each load; the
//    difference of consecutive readings is one hop's latency in SM cycles.
//  * streamers: every other block's warps read a 4 GiB array (`ld.global.cg` float4,
//    coalesced, each warp `D` float4 per lane in flight, then a dependent sum) and, for rw = 1,
//    write each float4 back to a second 4 GiB array (`st.global.cg`, reads:writes 1:1), for
//    rw = 2 every other one (2:1, a triad's mix); optionally `__nanosleep` between
//    iterations. The number of streaming blocks per SM, their warps and D set the intensity:
//    Little's law gives blocks x warps x D x 512 B of reads in flight per SM.
// Everything is timed against %globaltimer from the moment the first block starts: a warm-up
// (streams reach their steady state), a measurement window (probes chase, streamers count the
// iterations they begin in it) and a short tail (the load stays on while the last hops
// return). The achieved bandwidth is the window's bytes over its length; nothing waits on a
// flag, so blocks that are not resident cannot hang the launch. With `isolate`, the probe SMs
// run no streamers (memory-system queueing alone, without the probe SM's own load/store path).
//
// Output (CSV on stdout), one row per launch: the configuration, stream warps, the window,
// the SM clock over the window (the first probe's clock64 against %globaltimer), bytes read
// and written in the window, bandwidth, u = bandwidth / the profile's sustained rate at the
// mix's read fraction (2937 GB/s reads only, 2864 at 2:1, 2827 at 1:1, linear between as the
// model interpolates), the probe hops and their latency (mean, median, p10, p90, p99, max,
// cycles), and the streamers' mean iteration time (cycles: window x warps / warp iterations).
// `./loaded_latency profile` runs every configuration once and prints the configurations on
// stderr only (for ncu; loaded_latency.sh).
//
// Build: nvcc -O3 -arch=sm_90 -std=c++17 -o loaded_latency loaded_latency.cu
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <string>
#include <vector>
#include <cuda_runtime.h>

#include "cg.cuh"
#include "check.cuh"

#define MAX_SM 512

struct Ctrl {
  unsigned long long tstart;      // globaltimer of the first block to start
  unsigned long long warp_iters;  // streaming warp iterations begun inside the window
  unsigned stream_warps;
  unsigned probes;
};

struct Params {
  const float4* rd;
  float4* wr;
  long long n16;  // float4 per stream array
  char* ring;
  unsigned long long nlines, perm, nodes;
  unsigned long long first_stretch;  // this launch's stretch of the ring (rotates per launch)
  int hops_max;
  unsigned* lat;   // [probes][hops_max] consecutive clock64 differences
  unsigned* hops;  // [probes]
  unsigned* probe_sm;
  long long* clk;       // [probes][4]: clock64 and globaltimer at the first and last hop
  unsigned* sm_blocks;  // blocks that started on each SM
  Ctrl* ctrl;
  int probes, probe_stride;
  int isolate;  // 1: the probe SMs' other blocks idle; 2: every other block idles (no load)
  unsigned long long warm_ns, window_ns, tail_ns;
  unsigned sleep_ns;
  float* sink;
};

__device__ __forceinline__ unsigned long long gtimer() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
__device__ __forceinline__ unsigned smid_reg() {
  unsigned r;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(r));
  return r;
}

// Node i of the ring lives at line (i * perm) mod nlines and points at node i + 1.
__global__ void k_ring_init(char* base, unsigned long long nlines, unsigned long long perm,
                            unsigned long long nodes) {
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
       i < nodes; i += (unsigned long long)gridDim.x * blockDim.x) {
    unsigned long long li = (i * perm) % nlines, ln = (((i + 1) % nodes) * perm) % nlines;
    *(char**)(base + li * 128) = base + ln * 128;
  }
}

template <int D, int RW>
__global__ void __launch_bounds__(256) k_loaded(Params p) {
  __shared__ int role;  // 0 stream, 1 probe, 2 idle
  __shared__ unsigned long long start;
  __shared__ unsigned slot;
  if (threadIdx.x == 0) {
    unsigned s = smid_reg();
    unsigned ticket = atomicAdd(&p.sm_blocks[s], 1u);
    unsigned long long now = gtimer();
    unsigned long long old = atomicCAS(&p.ctrl->tstart, 0ull, now);
    start = old ? old : now;
    bool probe_sm = s % p.probe_stride == 0 && (int)(s / p.probe_stride) < p.probes;
    role = probe_sm && ticket == 0 ? 1 : (p.isolate == 2 || (probe_sm && p.isolate) ? 2 : 0);
    slot = s / p.probe_stride;
  }
  __syncthreads();
  const unsigned long long t0 = start + p.warm_ns, t1 = t0 + p.window_ns, t_stop = t1 + p.tail_ns;
  if (role == 2) return;
  if (role == 1) {
    if (threadIdx.x != 0) return;
    const unsigned k = slot;
    p.probe_sm[k] = smid_reg();
    atomicAdd(&p.ctrl->probes, 1u);
    unsigned long long node = ((p.first_stretch + k) * (unsigned long long)p.hops_max) % p.nodes;
    char* q = p.ring + ((node * p.perm) % p.nlines) * 128;
    unsigned* lat = p.lat + (size_t)k * p.hops_max;
    while (gtimer() < t0) __nanosleep(256);
    unsigned long long g0 = gtimer();
    long long c0 = clock64(), prev = c0;
    int n = 0;
    unsigned long long now = g0;
    while (n < p.hops_max && now < t1) {
      asm volatile("ld.global.cg.u64 %0, [%0];" : "+l"(q)::"memory");
      long long c = clock64();
      lat[n++] = (unsigned)(c - prev);
      prev = c;
      now = gtimer();
    }
    p.hops[k] = n;
    p.clk[4 * k] = c0;
    p.clk[4 * k + 1] = prev;
    p.clk[4 * k + 2] = (long long)g0;
    p.clk[4 * k + 3] = (long long)now;
    if (q == nullptr) p.sink[0] = 1.f;
    return;
  }
  // n16 is a power of two below 2^31: 32-bit indices wrap with a mask (fewer registers).
  const unsigned T = gridDim.x * blockDim.x, mask = (unsigned)p.n16 - 1;
  unsigned i = (blockIdx.x * blockDim.x + threadIdx.x) & mask;
  unsigned iters = 0;
  float acc = 0.f;
  for (;;) {
    const unsigned long long now = gtimer();
    float4 v[D];
#pragma unroll
    for (int k = 0; k < D; ++k) ld_cg(p.rd + ((i + k * T) & mask), v[k]);
#pragma unroll
    for (int k = 0; k < D; ++k) {
      acc += v[k].x + v[k].y + v[k].z + v[k].w;
      // RW 1: every load's float4 is written back (1:1); RW 2: every other one (2:1)
      if (RW == 1 || (RW == 2 && k % 2 == 0))
        st_cg(p.wr + ((i + k * T) & mask), make_float4(v[k].x + 1.f, v[k].y, v[k].z, v[k].w));
    }
    if (now >= t0 && now < t1) ++iters;
    if (now >= t_stop) break;
    i = (i + D * T) & mask;
    if (p.sleep_ns) __nanosleep(p.sleep_ns);
  }
  // Warps that began no iteration in the window (not resident in time) do not count.
  if ((threadIdx.x & 31) == 0 && iters) {
    atomicAdd(&p.ctrl->warp_iters, (unsigned long long)iters);
    atomicAdd(&p.ctrl->stream_warps, 1u);
  }
  if (acc == 12345.678f) p.sink[threadIdx.x] = acc;
}

struct Config {
  const char* sweep;
  int rw, isolate, nb, warps, d;
  unsigned sleep_ns;
};

using Kernel = void (*)(Params);
static Kernel kernel_for(const Config& c) {
  if (c.rw == 2) return c.d == 2 ? k_loaded<2, 2> : c.d == 4 ? k_loaded<4, 2> : k_loaded<8, 2>;
  if (c.rw == 1)
    return c.d == 1 ? k_loaded<1, 1>
           : c.d == 2 ? k_loaded<2, 1>
           : c.d == 4 ? k_loaded<4, 1>
                      : k_loaded<8, 1>;
  return c.d == 1 ? k_loaded<1, 0>
         : c.d == 2 ? k_loaded<2, 0>
         : c.d == 4 ? k_loaded<4, 0>
                    : k_loaded<8, 0>;
}

// The profile's sustained DRAM rate at read fraction f (docs/simulator.md): linear between
// writes only (3171 GB/s), 1:1 (2827) and reads only (2937), hopper-h100.toml [bandwidth].
static double profile_bw(double f) {
  return f >= 0.5 ? 2827.0 + (f - 0.5) / 0.5 * (2937.0 - 2827.0)
                  : 3171.0 + f / 0.5 * (2827.0 - 3171.0);
}

static double pct(const std::vector<unsigned>& v, double q) {
  if (v.empty()) return 0.0;
  size_t k = (size_t)(q * (v.size() - 1) + 0.5);
  return v[std::min(k, v.size() - 1)];
}

int main(int argc, char** argv) {
  const bool profile = argc > 1 && std::string(argv[1]) == "profile";
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const int probes = 16, hops_max = 8192;
  const long long n16 = 1ll << 28;  // 4 GiB per stream array
  const unsigned long long nlines = 1ull << 24, perm = 2654435761ull, nodes = 1ull << 22;
  Params p{};
  float4 *rd, *wr;
  CK(cudaMalloc(&rd, n16 * sizeof(float4)));
  CK(cudaMalloc(&wr, n16 * sizeof(float4)));
  CK(cudaMemset(rd, 0, n16 * sizeof(float4)));
  CK(cudaMemset(wr, 0, n16 * sizeof(float4)));
  CK(cudaMalloc(&p.ring, nlines * 128));
  k_ring_init<<<1024, 256>>>(p.ring, nlines, perm, nodes);
  CK(cudaDeviceSynchronize());
  CK(cudaMalloc(&p.lat, sizeof(unsigned) * probes * hops_max));
  CK(cudaMalloc(&p.hops, sizeof(unsigned) * probes));
  CK(cudaMalloc(&p.probe_sm, sizeof(unsigned) * probes));
  CK(cudaMalloc(&p.clk, sizeof(long long) * 4 * probes));
  CK(cudaMalloc(&p.sm_blocks, sizeof(unsigned) * MAX_SM));
  CK(cudaMalloc(&p.ctrl, sizeof(Ctrl)));
  CK(cudaMalloc(&p.sink, 4096));
  p.rd = rd;
  p.wr = wr;
  p.n16 = n16;
  p.nlines = nlines;
  p.perm = perm;
  p.nodes = nodes;
  p.hops_max = hops_max;
  p.probes = probes;
  p.probe_stride = sms / probes;
  p.warm_ns = 40000;
  p.window_ns = 2000000;
  p.tail_ns = 20000;

  // (nb blocks per SM) x (warps per block) x (D float4 per lane in flight): the ladder steps
  // the bytes in flight per SM by 512 B; nb = 0 is the unloaded chase.
  const int ladder[][3] = {{0, 1, 1}, {1, 1, 1}, {1, 2, 1}, {1, 3, 1}, {1, 4, 1}, {1, 6, 1},
                           {1, 8, 1}, {1, 5, 2}, {1, 6, 2}, {1, 7, 2}, {1, 8, 2}, {1, 5, 4},
                           {1, 6, 4}, {1, 7, 4}, {1, 8, 4}, {2, 5, 4}, {2, 6, 4}, {2, 8, 4},
                           {3, 8, 4}, {4, 8, 4}, {5, 8, 4}, {7, 8, 4}, {7, 8, 8}};
  std::vector<Config> cfgs;
  for (auto& l : ladder) cfgs.push_back({"ladder", 0, 0, l[0], l[1], l[2], 0});
  for (int nb = 1; nb <= 7; ++nb) cfgs.push_back({"occupancy", 0, 0, nb, 8, 1, 0});
  for (auto& l : ladder) cfgs.push_back({"rw", 1, 0, l[0], l[1], l[2], 0});
  for (int nb = 1; nb <= 7; ++nb) cfgs.push_back({"rw_occupancy", 1, 0, nb, 8, 1, 0});
  // 2:1 (a triad's mix): D >= 2, a store after every other load
  const int ladder2[][3] = {{1, 1, 2}, {1, 2, 2}, {1, 3, 2}, {1, 4, 2}, {1, 6, 2},
                            {1, 8, 2}, {1, 5, 4}, {1, 6, 4}, {1, 7, 4}, {1, 8, 4},
                            {2, 5, 4}, {2, 6, 4}, {2, 8, 4}, {4, 8, 4}, {7, 8, 4}};
  for (auto& l : ladder2) cfgs.push_back({"rw21", 2, 0, l[0], l[1], l[2], 0});
  for (int nb = 1; nb <= 7; ++nb) cfgs.push_back({"rw21_occupancy", 2, 0, nb, 8, 2, 0});
  const int iso[][3] = {{0, 1, 1}, {1, 1, 1}, {1, 4, 1}, {1, 8, 1}, {1, 6, 2}, {1, 8, 2},
                        {1, 6, 4}, {1, 8, 4}, {2, 8, 4}, {7, 8, 4}};
  for (auto& l : iso) cfgs.push_back({"isolate", 0, 1, l[0], l[1], l[2], 0});
  for (unsigned ns : {2000u, 4000u, 6000u, 8000u, 10000u, 12000u, 16000u, 24000u, 32000u})
    cfgs.push_back({"sleep", 0, 0, 7, 8, 4, ns});

  // A probe SM holds its probe block besides the streamers: at most (resident blocks - 1)
  // streaming blocks per SM, so that every block is resident from the start.
  for (Config& c : cfgs) {
    int occ = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, kernel_for(c), 32 * c.warps, 0));
    c.nb = std::min(c.nb, occ - 1);
  }
  const int reps = profile ? 1 : 5;
  if (!profile)
    printf("sweep,rw,isolate,blocks_per_sm,warps_per_block,d,sleep_ns,rep,grid,stream_warps,"
           "sm_blocks_min,sm_blocks_max,probes,window_us,sm_mhz,read_bytes,write_bytes,bw_gbs,"
           "peak_gbs,u,hops,lat_mean,lat_median,lat_p10,lat_p90,lat_p99,lat_max,"
           "stream_iter_cycles\n");
  std::vector<unsigned> h_lat((size_t)probes * hops_max), h_hops(probes);
  std::vector<unsigned> h_blocks(MAX_SM);
  std::vector<long long> h_clk(4 * probes);
  unsigned long long launch = 0;
  auto run = [&](const Config& c) {
    CK(cudaMemset(p.ctrl, 0, sizeof(Ctrl)));
    CK(cudaMemset(p.sm_blocks, 0, sizeof(unsigned) * MAX_SM));
    CK(cudaMemset(p.hops, 0, sizeof(unsigned) * probes));
    // nb = 0: one block per SM, all idle but the probes (the unloaded chase)
    p.isolate = c.nb == 0 ? 2 : c.isolate;
    p.sleep_ns = c.sleep_ns;
    p.first_stretch = (launch++ * probes) % (nodes / hops_max);
    const int threads = 32 * c.warps, grid = c.nb == 0 ? sms : c.nb * sms + probes;
    const Kernel k = kernel_for(c);
    k<<<grid, threads>>>(p);
    CK(cudaDeviceSynchronize());
    CK(cudaGetLastError());
    return grid;
  };
  // One unmeasured launch first (module load, first touch of the arrays); ncu skips it.
  run(cfgs.back());
  for (const Config& c : cfgs) {
    for (int rep = 0; rep < reps; ++rep) {
      const int grid = run(c);
      if (profile) {
        fprintf(stderr, "%s,%d,%d,%d,%d,%d,%u\n", c.sweep, c.rw, c.isolate, c.nb, c.warps, c.d,
                c.sleep_ns);
        continue;
      }
      Ctrl h{};
      CK(cudaMemcpy(&h, p.ctrl, sizeof(h), cudaMemcpyDeviceToHost));
      CK(cudaMemcpy(h_hops.data(), p.hops, sizeof(unsigned) * probes, cudaMemcpyDeviceToHost));
      CK(cudaMemcpy(h_lat.data(), p.lat, sizeof(unsigned) * probes * hops_max,
                    cudaMemcpyDeviceToHost));
      CK(cudaMemcpy(h_blocks.data(), p.sm_blocks, sizeof(unsigned) * MAX_SM,
                    cudaMemcpyDeviceToHost));
      CK(cudaMemcpy(h_clk.data(), p.clk, sizeof(long long) * 4 * probes,
                    cudaMemcpyDeviceToHost));
      // lat[0] is the first load's issue, lat[1] the first (TLB-cold) hop: both dropped.
      std::vector<unsigned> all;
      double mhz = 0;
      for (int k = 0; k < probes; ++k) {
        for (unsigned n = 2; n < h_hops[k]; ++n) all.push_back(h_lat[(size_t)k * hops_max + n]);
        if (mhz == 0 && h_hops[k] > 2)
          mhz = double(h_clk[4 * k + 1] - h_clk[4 * k]) /
                double(h_clk[4 * k + 3] - h_clk[4 * k + 2]) * 1000.0;
      }
      std::sort(all.begin(), all.end());
      double mean = 0;
      for (unsigned v : all) mean += v;
      mean = all.empty() ? 0 : mean / all.size();
      unsigned bmin = ~0u, bmax = 0;
      for (int s = 0; s < sms; ++s) {
        bmin = std::min(bmin, h_blocks[s]);
        bmax = std::max(bmax, h_blocks[s]);
      }
      const double win_s = p.window_ns * 1e-9;
      const double rbytes = double(h.warp_iters) * c.d * 512.0;
      const double wbytes = c.rw == 1 ? rbytes : c.rw == 2 ? rbytes / 2 : 0.0;
      const double gbs = (rbytes + wbytes) / win_s * 1e-9;
      const double peak = profile_bw(c.rw == 1 ? 0.5 : c.rw == 2 ? 2.0 / 3.0 : 1.0);
      const double iter_cyc =
          h.warp_iters ? double(p.window_ns) * mhz * 1e-3 * h.stream_warps / double(h.warp_iters)
                       : 0.0;
      printf("%s,%d,%d,%d,%d,%d,%u,%d,%d,%u,%u,%u,%u,%.1f,%.1f,%.0f,%.0f,%.1f,%.0f,%.4f,%zu,"
             "%.1f,%.0f,%.0f,%.0f,%.0f,%.0f,%.1f\n",
             c.sweep, c.rw, c.isolate, c.nb, c.warps, c.d, c.sleep_ns, rep, grid,
             h.stream_warps, bmin, bmax, h.probes, p.window_ns * 1e-3, mhz, rbytes, wbytes, gbs,
             peak, gbs / peak, all.size(), mean, pct(all, 0.5), pct(all, 0.1), pct(all, 0.9),
             pct(all, 0.99), all.empty() ? 0.0 : (double)all.back(), iter_cyc);
      fflush(stdout);
    }
  }
  return 0;
}
