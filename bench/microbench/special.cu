// Tensor-core mma/wmma, bar.sync, loop/branch overhead, the instruction-mix
// kernel (pipeline-model paper, Sec. 4.2, Eqs. 43-45), the SM clock, device
// limits, and main().
#include "common.cuh"
#include <mma.h>

Ctx g;

// ---------------------------------------------------------------- mma.sync
// m16n8k16, f16 inputs; the accumulator (4 f32 or 2 f16x2 registers) is the chain.
template <int ILP, int F16ACC>
__global__ void __launch_bounds__(256, 4) k_mma(unsigned a0, unsigned b0, int iters, int z,
                                                 long long* cyc, SmTimes st, float* sink) {
  unsigned a[4], b[2];
#pragma unroll
  for (int i = 0; i < 4; ++i) a[i] = a0 + i + threadIdx.x * z;
  b[0] = b0;
  b[1] = b0 + threadIdx.x * z;
  float d[ILP][4];
  unsigned h[ILP][2];
#pragma unroll
  for (int k = 0; k < ILP; ++k) {
#pragma unroll
    for (int i = 0; i < 4; ++i) d[k][i] = 0.f;
    h[k][0] = h[k][1] = 0;
  }
  __syncthreads();
  long long t0 = clock64();
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int j = 0; j < 8; ++j) {
#pragma unroll
      for (int k = 0; k < ILP; ++k) {
        if (F16ACC)
          asm volatile(
              "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%0,%1};"
              : "+r"(h[k][0]), "+r"(h[k][1])
              : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
        else
          asm volatile(
              "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
              : "+f"(d[k][0]), "+f"(d[k][1]), "+f"(d[k][2]), "+f"(d[k][3])
              : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
      }
    }
  }
  __syncthreads();
  long long t1 = clock64();
  if (threadIdx.x == 0) *cyc = t1 - t0;
  sm_record(st, t0, t1);
  float s = 0.f;
#pragma unroll
  for (int k = 0; k < ILP; ++k) s += d[k][0] + d[k][1] + d[k][2] + d[k][3] + h[k][0] + h[k][1];
  if (iters < 0) sink[threadIdx.x] = s;
}

// wmma m16n16k16 f16 -> f32 through the C++ API (PTX wmma.mma.sync).
template <int ILP>
__global__ void __launch_bounds__(256, 4) k_wmma(const half* src, int iters, long long* cyc,
                                                  SmTimes st, float* sink) {
  using namespace nvcuda;
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[ILP];
  wmma::load_matrix_sync(fa, src, 16);
  wmma::load_matrix_sync(fb, src + 256, 16);
#pragma unroll
  // Distinct starting values: identical chains would be merged into one.
  for (int k = 0; k < ILP; ++k) wmma::fill_fragment(acc[k], 1.f + k);
  __syncthreads();
  long long t0 = clock64();
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int j = 0; j < 8; ++j) {
#pragma unroll
      for (int k = 0; k < ILP; ++k) wmma::mma_sync(acc[k], fa, fb, acc[k]);
    }
  }
  __syncthreads();
  long long t1 = clock64();
  if (threadIdx.x == 0) *cyc = t1 - t0;
  sm_record(st, t0, t1);
  float s = 0.f;
#pragma unroll
  for (int k = 0; k < ILP; ++k)
    // Every element must be used, or ptxas drops the HMMA producing the unused half.
    for (int i = 0; i < acc[k].num_elements; ++i) s += acc[k].x[i];
  if (iters < 0) sink[threadIdx.x] = s;
}

// ---------------------------------------------------------------- bar.sync
__global__ void k_bar(int iters, long long* cyc, SmTimes st, unsigned* sink) {
  __syncthreads();
  long long t0 = clock64();
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int j = 0; j < 16; ++j) asm volatile("bar.sync 0;" ::: "memory");
  }
  long long t1 = clock64();
  if (threadIdx.x == 0) *cyc = t1 - t0;
  sm_record(st, t0, t1);
  if (iters < 0) sink[threadIdx.x] = (unsigned)t1;
}

// ---------------------------------------------------------------- loop overhead
// One iteration = sub + setp + predicated bra, written in PTX so that ptxas
// keeps the loop as written (one copy of the label per kernel; the nounroll
// pragma stops ptxas from unrolling it by 4).
__global__ void k_loop(int n, long long* cyc, SmTimes st, unsigned* sink) {
  unsigned left = n;
  __syncthreads();
  long long t0 = clock64();
  asm volatile(
      "{\n\t.reg .pred p;\n"
      "MB_LOOP:\n\t"
      ".pragma \"nounroll\";\n\t"
      "sub.u32 %0, %0, 1;\n\t"
      "setp.ne.u32 p, %0, 0;\n\t"
      "@p bra MB_LOOP;\n\t}"
      : "+r"(left)::"memory");
  __syncthreads();
  long long t1 = clock64();
  if (threadIdx.x == 0) *cyc = t1 - t0;
  sm_record(st, t0, t1);
  if (n < 0) sink[threadIdx.x] = left;
}

// ---------------------------------------------------------------- instruction mix
// BETA dependent fma.rn.f32 followed by one ex2.approx.ftz.f32 (MUFU.EX2), two
// independent chains per thread, at full occupancy (Sec. 4.2, Fig. 11).
template <int BETA>
__global__ void __launch_bounds__(256, 8) k_mix(float a, float b, int iters, int z, SmTimes st,
                                                 float* sink) {
  float x0 = a + threadIdx.x * z, x1 = b + threadIdx.x * z;
  __syncthreads();
  long long t0 = clock64();
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int j = 0; j < 8; ++j) {
#pragma unroll
      for (int k = 0; k < BETA; ++k) {
        asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(x0) : "f"(a), "f"(b));
        asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(x1) : "f"(a), "f"(b));
      }
      asm volatile("ex2.approx.ftz.f32 %0, %0;" : "+f"(x0));
      asm volatile("ex2.approx.ftz.f32 %0, %0;" : "+f"(x1));
    }
  }
  __syncthreads();
  long long t1 = clock64();
  sm_record(st, t0, t1);
  if (iters < 0) sink[threadIdx.x] = x0 + x1;
}

template <int BETA>
static void mix_case() {
  int nb = blocks_per_sm(k_mix<BETA>, 256);
  auto run = [&](int it) {
    sm_reset();
    k_mix<BETA><<<nb * g.sms, 256>>>(0.5f, 0.25f, it, 0, g.st, (float*)g.d_sink);
    return sm_fetch();
  };
  run(1);
  SmResult r0 = run(2);
  int it = scale_iters(median(r0.cycles), 2, 3e6, 2, 1 << 20);
  SmResult ra = run(it), rb = run(2 * it);
  // λ per warp "group" (BETA ALU + 1 SFU) per SM, two chains per group step.
  double per_block = 8.0 * it * 8 * 2;
  double lam_group = lambda_from(ra, rb, per_block, 2 * per_block);
  double ipc_alu = BETA / lam_group, ipc_total = (BETA + 1) / lam_group;
  row("mix:ex2.approx.ftz.f32", "mix", "beta=" + std::to_string(BETA), ipc_alu, "alu-warp-instr/cycle/SM", nb * 8,
      (long long)it * 8 * 2 * (BETA + 1),
      "ipc_total=" + std::to_string(ipc_total) + " cycles_per_group=" + std::to_string(lam_group));
}

template <int B>
struct MixSweep {
  static void run() {
    MixSweep<B - 1>::run();
    mix_case<B>();
  }
};
template <>
struct MixSweep<0> {
  static void run() { mix_case<0>(); }
};

// Same mix with other partners X, each on its own chains (the FFMA chains do
// not wait for X), to decide for every X whether it shares a pipeline with
// fma.rn.f32. KIND: 1 fma.rn.f64, 2 mma.sync m16n8k16 f32, 3 ld.shared,
// 4 mad.lo.s32.
template <int BETA, int KIND>
__global__ void __launch_bounds__(256, 8) k_mix2(float a, float b, int iters, int z, SmTimes st,
                                                  float* sink) {
  __shared__ unsigned sm[256];
  sm[threadIdx.x] = (unsigned)__cvta_generic_to_shared(&sm[threadIdx.x]);
  __syncthreads();
  float x0 = a + threadIdx.x * z, x1 = b + threadIdx.x * z;
  double y0 = a + threadIdx.x * z, y1 = b + threadIdx.x * z;
  float d0[4] = {0.f, 0.f, 0.f, 0.f}, d1[4] = {1.f, 1.f, 1.f, 1.f};
  unsigned ra = 0x3c003c00u + threadIdx.x * z;
  unsigned s0 = (unsigned)__cvta_generic_to_shared(&sm[threadIdx.x]) + threadIdx.x * z;
  unsigned s1 = (unsigned)__cvta_generic_to_shared(&sm[threadIdx.x ^ 1]) + threadIdx.x * z;
  unsigned u0 = 3 + threadIdx.x * z, u1 = 5 + threadIdx.x * z;
  __syncthreads();
  long long t0 = clock64();
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int j = 0; j < 8; ++j) {
#pragma unroll
      for (int k = 0; k < BETA; ++k) {
        asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(x0) : "f"(a), "f"(b));
        asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(x1) : "f"(a), "f"(b));
      }
      if (KIND == 1) {
        asm volatile("fma.rn.f64 %0, %0, %0, %0;" : "+d"(y0));
        asm volatile("fma.rn.f64 %0, %0, %0, %0;" : "+d"(y1));
      } else if (KIND == 2) {
        asm volatile(
            "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%4,%4,%4}, {%4,%4}, {%0,%1,%2,%3};"
            : "+f"(d0[0]), "+f"(d0[1]), "+f"(d0[2]), "+f"(d0[3]) : "r"(ra));
        asm volatile(
            "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%4,%4,%4}, {%4,%4}, {%0,%1,%2,%3};"
            : "+f"(d1[0]), "+f"(d1[1]), "+f"(d1[2]), "+f"(d1[3]) : "r"(ra));
      } else if (KIND == 3) {
        asm volatile("ld.shared.u32 %0, [%0];" : "+r"(s0)::"memory");
        asm volatile("ld.shared.u32 %0, [%0];" : "+r"(s1)::"memory");
      } else {
        asm volatile("mad.lo.s32 %0, %0, %0, %1;" : "+r"(u0) : "r"(ra));
        asm volatile("mad.lo.s32 %0, %0, %0, %1;" : "+r"(u1) : "r"(ra));
      }
    }
  }
  __syncthreads();
  long long t1 = clock64();
  sm_record(st, t0, t1);
  float s = x0 + x1 + float(y0 + y1) + d0[0] + d0[1] + d0[2] + d0[3] + d1[0] + d1[1] + d1[2] +
            d1[3] + float(s0 + s1 + u0 + u1);
  if (iters < 0) sink[threadIdx.x] = s;
}

template <int BETA, int KIND>
static void mix2_case(const char* cls) {
  int nb = blocks_per_sm(k_mix2<BETA, KIND>, 256);
  auto run = [&](int it) {
    sm_reset();
    k_mix2<BETA, KIND><<<nb * g.sms, 256>>>(0.5f, 0.25f, it, 0, g.st, (float*)g.d_sink);
    return sm_fetch();
  };
  run(1);
  SmResult r0 = run(2);
  int it = scale_iters(median(r0.cycles), 2, 3e6, 2, 1 << 20);
  SmResult ra = run(it), rb = run(2 * it);
  double per_block = 8.0 * it * 8 * 2;
  double lam_group = lambda_from(ra, rb, per_block, 2 * per_block);
  row(cls, "mix", "beta=" + std::to_string(BETA), BETA / lam_group, "alu-warp-instr/cycle/SM",
      nb * 8, (long long)it * 8 * 2 * (BETA + 1),
      "ipc_total=" + std::to_string((BETA + 1) / lam_group) +
          " cycles_per_group=" + std::to_string(lam_group));
}

template <int KIND>
static void mix2_sweep(const char* cls) {
  mix2_case<0, KIND>(cls);
  mix2_case<1, KIND>(cls);
  mix2_case<2, KIND>(cls);
  mix2_case<4, KIND>(cls);
  mix2_case<8, KIND>(cls);
  mix2_case<16, KIND>(cls);
}

// ---------------------------------------------------------------- clock
__global__ void k_clock(long long spin, long long* out) {
  unsigned long long g0, g1;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g0));
  long long c0 = clock64(), c1 = c0;
  while (c1 - c0 < spin) c1 = clock64();
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g1));
  out[0] = c1 - c0;
  out[1] = (long long)(g1 - g0);
}

static void measure_clock(const char* when) {
  long long h[2];
  k_clock<<<1, 32>>>(1000000, g.d_cyc);
  CK(cudaDeviceSynchronize());
  k_clock<<<1, 32>>>(40000000, g.d_cyc);  // ~20 ms at 2 GHz
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(h, g.d_cyc, sizeof h, cudaMemcpyDeviceToHost));
  row("clock", "property", when, 1e3 * double(h[0]) / double(h[1]), "MHz", 1, h[0],
      "clock64 cycles over globaltimer ns");
}

void run_special() {
  // ---- mma.sync
  {
    int nb = blocks_per_sm(k_mma<4, 0>, 256);
    for (int f16 = 0; f16 < 2; ++f16) {
      const char* cls = f16 ? "mma.sync.m16n8k16.f16.f16" : "mma.sync.m16n8k16.f32.f16";
      auto launch = [&](int it, bool lat) -> long long {
        if (lat) {
          if (f16) k_mma<1, 1><<<1, 32>>>(0x3c003c00u, 0x3c003c00u, it, 0, g.d_cyc, g.st, (float*)g.d_sink);
          else k_mma<1, 0><<<1, 32>>>(0x3c003c00u, 0x3c003c00u, it, 0, g.d_cyc, g.st, (float*)g.d_sink);
          return fetch_cycles();
        }
        sm_reset();
        if (f16) k_mma<4, 1><<<nb * g.sms, 256>>>(0x3c003c00u, 0x3c003c00u, it, 0, g.d_cyc, g.st, (float*)g.d_sink);
        else k_mma<4, 0><<<nb * g.sms, 256>>>(0x3c003c00u, 0x3c003c00u, it, 0, g.d_cyc, g.st, (float*)g.d_sink);
        return 0;
      };
      launch(1, true);
      long long c0 = launch(2, true);
      int it = scale_iters((double)c0, 2, 2e5, 2, 1 << 20);
      long long ca = launch(it, true), cb = launch(2 * it, true);
      row(cls, "latency", "", double(cb - ca) / (it * 8.0), "cycles", 1, it * 8ll, "accumulator chain");
      launch(2, false);
      SmResult r0 = sm_fetch();
      int it2 = scale_iters(median(r0.cycles), 2, 2e6, 2, 1 << 20);
      launch(it2, false);
      SmResult ra = sm_fetch();
      launch(2 * it2, false);
      SmResult rb = sm_fetch();
      double pb = 8.0 * it2 * 8 * 4;
      row(cls, "throughput", "ilp=4", lambda_from(ra, rb, pb, 2 * pb), "cycles/warp-instr/SM",
          nb * 8, it2 * 32ll, "4 independent accumulators");
    }
  }
  // ---- wmma
  {
    half* src;
    CK(cudaMalloc(&src, 1024 * sizeof(half)));
    // Ones, not zeros: tensor cores can run faster on all-zero operands.
    std::vector<unsigned short> ones(1024, 0x3c00);
    CK(cudaMemcpy(src, ones.data(), 1024 * sizeof(half), cudaMemcpyHostToDevice));
    int nb = blocks_per_sm(k_wmma<2>, 256);
    auto launch = [&](int it, bool lat) -> long long {
      if (lat) {
        k_wmma<1><<<1, 32>>>(src, it, g.d_cyc, g.st, (float*)g.d_sink);
        return fetch_cycles();
      }
      sm_reset();
      k_wmma<2><<<nb * g.sms, 256>>>(src, it, g.d_cyc, g.st, (float*)g.d_sink);
      return 0;
    };
    const char* cls = "wmma.mma.sync.m16n16k16.f32.f16";
    launch(1, true);
    long long c0 = launch(2, true);
    int it = scale_iters((double)c0, 2, 2e5, 2, 1 << 20);
    long long ca = launch(it, true), cb = launch(2 * it, true);
    row(cls, "latency", "", double(cb - ca) / (it * 8.0), "cycles", 1, it * 8ll, "accumulator chain");
    launch(2, false);
    SmResult r0 = sm_fetch();
    int it2 = scale_iters(median(r0.cycles), 2, 2e6, 2, 1 << 20);
    launch(it2, false);
    SmResult ra = sm_fetch();
    launch(2 * it2, false);
    SmResult rb = sm_fetch();
    double pb = 8.0 * it2 * 8 * 2;
    row(cls, "throughput", "ilp=2", lambda_from(ra, rb, pb, 2 * pb), "cycles/warp-instr/SM",
        nb * 8, it2 * 16ll, "2 independent accumulators");
    CK(cudaFree(src));
  }
  // ---- bar.sync: one block of W warps on one SM (latency), and a full SM
  for (int w = 1; w <= 32; w *= 2) {
    auto lat = [&](int it) {
      k_bar<<<1, 32 * w>>>(it, g.d_cyc, g.st, (unsigned*)g.d_sink);
      return fetch_cycles();
    };
    lat(2);
    long long c0 = lat(4);
    int it = scale_iters((double)c0, 4, 2e5, 4, 1 << 20);
    long long ca = lat(it), cb = lat(2 * it);
    row("bar.sync", "latency", "warps_per_block=" + std::to_string(w), double(cb - ca) / (it * 16.0),
        "cycles", w, it * 16ll, "cycles per barrier, one block alone on its SM");
  }
  for (int w = 1; w <= 32; w *= 2) {
    int nb = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, k_bar, 32 * w, 0));
    auto run = [&](int it) {
      sm_reset();
      k_bar<<<nb * g.sms, 32 * w>>>(it, g.d_cyc, g.st, (unsigned*)g.d_sink);
      return sm_fetch();
    };
    run(2);
    SmResult r0 = run(4);
    int it = scale_iters(median(r0.cycles), 4, 2e6, 4, 1 << 20);
    SmResult ra = run(it), rb = run(2 * it);
    double pb = double(w) * it * 16;
    row("bar.sync", "throughput", "warps_per_block=" + std::to_string(w),
        lambda_from(ra, rb, pb, 2 * pb), "cycles/warp-instr/SM", nb * w, it * 16ll,
        "full SM of blocks, " + std::to_string(nb) + " blocks");
  }
  // ---- loop overhead
  {
    auto lat = [&](int n) {
      k_loop<<<1, 32>>>(n, g.d_cyc, g.st, (unsigned*)g.d_sink);
      return fetch_cycles();
    };
    lat(100);
    long long ca = lat(20000), cb = lat(40000);
    row("loop.iteration", "latency", "sub+setp+bra", double(cb - ca) / 20000.0, "cycles", 1, 20000,
        "one iteration of a counted loop, one warp");
    int nb = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, k_loop, 256, 0));
    auto run = [&](int n) {
      sm_reset();
      k_loop<<<nb * g.sms, 256>>>(n, g.d_cyc, g.st, (unsigned*)g.d_sink);
      return sm_fetch();
    };
    run(100);
    SmResult ra = run(20000), rb = run(40000);
    row("loop.iteration", "throughput", "sub+setp+bra",
        lambda_from(ra, rb, 8.0 * 20000, 8.0 * 40000), "cycles/warp-iteration/SM", nb * 8, 20000,
        "3 warp instructions per iteration");
  }
  // ---- instruction mix
  MixSweep<16>::run();
  mix2_sweep<1>("mix:fma.rn.f64");
  mix2_sweep<2>("mix:mma.sync.m16n8k16.f32.f16");
  mix2_sweep<3>("mix:ld.shared.u32");
  mix2_sweep<4>("mix:mad.lo.s32");
}

// ---------------------------------------------------------------- main
static void props() {
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  auto pr = [](const char* k, double v, const char* unit) {
    row("device", "property", k, v, unit, 0, 0, "");
  };
  printf("# device: %s cc %d.%d\n", p.name, p.major, p.minor);
  pr("sm_count", p.multiProcessorCount, "count");
  pr("warp_size", p.warpSize, "threads");
  pr("max_threads_per_sm", p.maxThreadsPerMultiProcessor, "threads");
  pr("max_blocks_per_sm", p.maxBlocksPerMultiProcessor, "blocks");
  pr("registers_per_sm", p.regsPerMultiprocessor, "registers");
  pr("registers_per_block", p.regsPerBlock, "registers");
  pr("shared_memory_per_sm", (double)p.sharedMemPerMultiprocessor, "bytes");
  pr("shared_memory_per_block", (double)p.sharedMemPerBlock, "bytes");
  pr("shared_memory_per_block_optin", (double)p.sharedMemPerBlockOptin, "bytes");
  pr("reserved_shared_memory_per_block", (double)p.reservedSharedMemPerBlock, "bytes");
  pr("max_threads_per_block", p.maxThreadsPerBlock, "threads");
  pr("l2_cache_size", p.l2CacheSize, "bytes");
  pr("global_memory", (double)p.totalGlobalMem, "bytes");
  pr("memory_bus_width", p.memoryBusWidth, "bits");
  int clk = 0, mclk = 0;
  if (cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, 0) == cudaSuccess)
    pr("max_clock_khz", clk, "kHz");
  if (cudaDeviceGetAttribute(&mclk, cudaDevAttrMemoryClockRate, 0) == cudaSuccess)
    pr("memory_clock_khz", mclk, "kHz");
  cudaGetLastError();
}

int main(int argc, char** argv) {
  std::string only = argc > 1 ? argv[1] : "all";
  ctx_init(16 << 20);
  props();
  measure_clock("start");
  if (only == "all" || only == "arith") run_arith();
  measure_clock("after_arith");
  if (only == "all" || only == "memory") run_memory();
  if (only == "all" || only == "special") run_special();
  if (only == "all" || only == "launch") run_launch();
  measure_clock("end");
  CK(cudaDeviceSynchronize());
  return 0;
}
