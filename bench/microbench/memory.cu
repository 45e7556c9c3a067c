// Memory benchmarks: pointer chasing for Λ (global at L1/L2/DRAM, shared with a
// bank-conflict sweep, local, constant), copy/read/write kernels for bandwidth
// and λ, atomics, and cp.async.
#include "common.cuh"

// ---------------------------------------------------------------- global chase
// Node i lives at line (i*P) mod nlines; it points to node (i+1) mod M. With P
// odd and nlines a power of two (or P coprime to nlines) the nodes are distinct,
// and consecutive nodes are far apart, so neither locality nor a prefetcher helps.
__global__ void k_chain_init(char* base, unsigned long long nlines, unsigned long long stride,
                             unsigned long long P, unsigned long long M) {
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < M;
       i += (unsigned long long)gridDim.x * blockDim.x) {
    unsigned long long li = (i * P) % nlines, ln = (((i + 1) % M) * P) % nlines;
    *(char**)(base + li * stride) = base + ln * stride;
  }
}

// Lane l starts `lane_nodes`*l nodes further along the ring: 0 gives one line
// per warp request, M/32 gives 32 distinct lines per request (uncoalesced).
template <int CG>
__global__ void k_chase(char* base, unsigned long long nlines, unsigned long long stride,
                        unsigned long long P, unsigned long long startnode,
                        unsigned long long lane_nodes, unsigned long long M, int warm, int steps,
                        long long* cyc, char** sink) {
  unsigned long long node = (startnode + threadIdx.x * lane_nodes) % M;
  char* p = base + ((node * P) % nlines) * stride;
  for (int i = 0; i < warm; ++i) {
    if (CG) asm volatile("ld.global.cg.u64 %0, [%0];" : "+l"(p)::"memory");
    else asm volatile("ld.global.u64 %0, [%0];" : "+l"(p)::"memory");
  }
  long long t0 = clock64();
  for (int i = 0; i < steps; i += 16) {
#pragma unroll
    for (int j = 0; j < 16; ++j) {
      if (CG) asm volatile("ld.global.cg.u64 %0, [%0];" : "+l"(p)::"memory");
      else asm volatile("ld.global.u64 %0, [%0];" : "+l"(p)::"memory");
    }
  }
  long long t1 = clock64();
  if (threadIdx.x == 0) *cyc = t1 - t0;
  if (steps < 0) sink[threadIdx.x] = p;
}

// Writing a buffer larger than L2 evicts the freshly initialised chain, so that
// "cold" chases really start from DRAM.
__global__ void k_flush(float4* scratch, long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x)
    scratch[i] = make_float4(i, 0.f, 0.f, 0.f);
}

static float4* g_scratch = nullptr;
static const long long kScratch16 = (256ll << 20) / 16;

static void chase_case(char* buf, const char* param, unsigned long long nlines,
                       unsigned long long stride, unsigned long long P, unsigned long long M,
                       bool cg, bool cold, int S, unsigned long long lane_nodes = 0) {
  k_chain_init<<<1024, 256>>>(buf, nlines, stride, P, M);
  CK(cudaDeviceSynchronize());
  k_flush<<<1024, 256>>>(g_scratch, kScratch16);
  CK(cudaDeviceSynchronize());
  auto launch = [&](unsigned long long startnode, int warm, int steps) {
    if (cold) {
      k_flush<<<1024, 256>>>(g_scratch, kScratch16);
      CK(cudaDeviceSynchronize());
    }
    if (cg)
      k_chase<1><<<1, 32>>>(buf, nlines, stride, P, startnode, lane_nodes, M, warm, steps, g.d_cyc,
                            (char**)g.d_sink);
    else
      k_chase<0><<<1, 32>>>(buf, nlines, stride, P, startnode, lane_nodes, M, warm, steps, g.d_cyc,
                            (char**)g.d_sink);
    return fetch_cycles();
  };
  long long ca, cb;
  if (cold) {
    // Two stretches of a long ring, L2 flushed before each: every access misses.
    ca = launch(0, 0, S);
    cb = launch(M / 2, 0, 2 * S);
  } else {
    int warm = (int)std::min<unsigned long long>(M + 64, 1u << 20);
    launch(0, warm, 16);
    ca = launch(0, warm, S);
    cb = launch(0, warm, 2 * S);
  }
  double L = double(cb - ca) / S;
  char notes[200];
  snprintf(notes, sizeof notes, "nodes=%llu span=%lluB stride=%lluB %s %s lines/request=%d", M,
           nlines * stride, stride, cg ? "ld.cg" : "ld (default caching)", cold ? "cold" : "warm",
           lane_nodes ? 32 : 1);
  row("ld.global", "latency", param, L, "cycles", 1, S, notes);
}

// ---------------------------------------------------------------- bandwidth
template <int MODE>
__global__ void __launch_bounds__(256) k_bw(const float4* src, float4* dst, long long per_thread,
                                             int reps, long long region16, SmTimes st,
                                             float* sink) {
  long long T = (long long)gridDim.x * blockDim.x;
  long long gt = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.f;
  __syncthreads();
  long long t0 = clock64();
  if (MODE == 0) {  // DRAM read, 16 B per thread per load
#pragma unroll 4
    for (long long i = 0; i < per_thread; ++i) {
      float4 v = src[gt + i * T];
      acc += v.x + v.y + v.z + v.w;
    }
  } else if (MODE == 1) {  // DRAM read, 4 B per thread per load
    const float* s = (const float*)src;
#pragma unroll 8
    for (long long i = 0; i < per_thread; ++i) acc += s[gt + i * T];
  } else if (MODE == 2) {  // DRAM copy, 16 B
#pragma unroll 4
    for (long long i = 0; i < per_thread; ++i) dst[gt + i * T] = src[gt + i * T];
  } else if (MODE == 3) {  // DRAM write, 16 B
    float4 v = make_float4(gt, 1.f, 2.f, 3.f);
#pragma unroll 4
    for (long long i = 0; i < per_thread; ++i) dst[gt + i * T] = v;
  } else if (MODE == 4) {  // L2 read (.cg), region re-read `reps` times
    for (int r = 0; r < reps; ++r) {
#pragma unroll 4
      for (long long i = 0; i < per_thread; ++i) {
        float4 v = __ldcg(&src[(gt + i * T) % region16]);
        acc += v.x + v.y + v.z + v.w;
      }
    }
  } else {  // L1 read: each block re-reads its own small chunk
    const float4* b = src + (long long)blockIdx.x * region16;
    for (int r = 0; r < reps; ++r) {
#pragma unroll 4
      for (long long i = 0; i < per_thread; ++i) {
        float4 v = __ldca(&b[threadIdx.x + i * blockDim.x]);
        acc += v.x + v.y + v.z + v.w;
      }
    }
  }
  __syncthreads();
  long long t1 = clock64();
  sm_record(st, t0, t1);
  if (acc == 12345.678f) sink[gt & 1023] = acc;
}

template <int MODE>
static void bw_case(const char* cls, const char* param, float4* src, float4* dst,
                    long long per_thread, int reps, long long region16, double bytes_per_thread_op,
                    double warp_bytes_per_instr, const char* notes) {
  int nb = blocks_per_sm(k_bw<MODE>, 256);
  int grid = nb * g.sms;
  SmResult r;
  for (int t = 0; t < 2; ++t) {
    sm_reset();
    k_bw<MODE><<<grid, 256>>>(src, dst, per_thread, reps, region16, g.st, (float*)g.d_sink);
    r = sm_fetch();
  }
  std::vector<double> bpc;
  for (int s = 0; s < g.sms; ++s)
    if (r.blocks[s])
      bpc.push_back(r.blocks[s] * 256.0 * per_thread * reps * bytes_per_thread_op / r.cycles[s]);
  double b = median(bpc);
  row(cls, "bandwidth", param, b, "bytes/cycle/SM", nb * 8, per_thread * reps, notes);
  row(cls, "throughput", param, warp_bytes_per_instr / b, "cycles/warp-instr/SM", nb * 8,
      per_thread * reps, std::string("derived: ") + std::to_string((int)warp_bytes_per_instr) +
                             "B per warp instruction / bandwidth");
}

// ---------------------------------------------------------------- shared
__device__ __forceinline__ unsigned saddr(const void* p) {
  return (unsigned)__cvta_generic_to_shared(p);
}

// Lane l of a warp touches bank l % (32/w) in row l / (32/w): a w-way conflict.
// Every word holds its own address, so `x = smem[x]` is a dependent chain that
// keeps hitting the same words.
template <int ILP>
__global__ void __launch_bounds__(256) k_smem(int w, int iters, int z, long long* cyc, SmTimes st,
                                              unsigned* sink) {
  __shared__ unsigned sm[128 * 32];
  for (int i = threadIdx.x; i < 128 * 32; i += blockDim.x) sm[i] = saddr(&sm[i]);
  __syncthreads();
  int lane = threadIdx.x & 31, per = 32 / w;
  int bank = lane % per, rw = lane / per;
  unsigned x[ILP];
#pragma unroll
  for (int k = 0; k < ILP; ++k) x[k] = saddr(&sm[(rw + k * w) * 32 + bank]) + threadIdx.x * z;
  __syncthreads();
  long long t0 = clock64();
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int j = 0; j < 16; ++j) {
#pragma unroll
      for (int k = 0; k < ILP; ++k) {
        asm volatile("ld.shared.u32 %0, [%0];" : "+r"(x[k])::"memory");
      }
    }
  }
  __syncthreads();
  long long t1 = clock64();
  if (threadIdx.x == 0) *cyc = t1 - t0;
  sm_record(st, t0, t1);
  unsigned all = 0;
#pragma unroll
  for (int k = 0; k < ILP; ++k) all += x[k];
  if (iters < 0) sink[threadIdx.x] = all;
}

// ---------------------------------------------------------------- local
// A per-thread array whose address escapes into asm must live in local memory;
// each element holds its own local-window address.
template <int ILP>
__global__ void __launch_bounds__(256) k_local(int iters, int z, long long* cyc, SmTimes st,
                                               unsigned long long* sink) {
  unsigned long long buf[16];
  for (int i = 0; i < 16; ++i) {
    unsigned long long la;
    asm volatile("cvta.to.local.u64 %0, %1;" : "=l"(la) : "l"((unsigned long long)&buf[i]));
    buf[i] = la;
  }
  asm volatile("" ::: "memory");
  unsigned long long x[ILP];
#pragma unroll
  for (int k = 0; k < ILP; ++k) {
    asm volatile("cvta.to.local.u64 %0, %1;"
                 : "=l"(x[k])
                 : "l"((unsigned long long)&buf[k * 4 + (threadIdx.x * z & 3)]));
  }
  __syncthreads();
  long long t0 = clock64();
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int j = 0; j < 16; ++j) {
#pragma unroll
      for (int k = 0; k < ILP; ++k) {
        asm volatile("ld.local.u64 %0, [%0];" : "+l"(x[k])::"memory");
      }
    }
  }
  __syncthreads();
  long long t1 = clock64();
  if (threadIdx.x == 0) *cyc = t1 - t0;
  sm_record(st, t0, t1);
  unsigned long long all = buf[threadIdx.x & 15];
#pragma unroll
  for (int k = 0; k < ILP; ++k) all += x[k];
  if (iters < 0) sink[threadIdx.x] = all;
}

// ---------------------------------------------------------------- constant
#define CNODES 8000
__constant__ unsigned long long cbuf[CNODES];

__global__ void k_cbase(unsigned long long* out) {
  unsigned long long r;
  asm volatile("mov.u64 %0, cbuf;" : "=l"(r));
  *out = r;
}

template <int ILP>
__global__ void __launch_bounds__(256) k_const(unsigned long long start, unsigned long long step,
                                               int iters, int z, long long* cyc, SmTimes st,
                                               unsigned long long* sink) {
  unsigned long long x[ILP];
#pragma unroll
  for (int k = 0; k < ILP; ++k) x[k] = start + k * step + threadIdx.x * z;
  __syncthreads();
  long long t0 = clock64();
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int j = 0; j < 16; ++j) {
#pragma unroll
      for (int k = 0; k < ILP; ++k) asm volatile("ld.const.u64 %0, [%0];" : "+l"(x[k])::"memory");
    }
  }
  __syncthreads();
  long long t1 = clock64();
  if (threadIdx.x == 0) *cyc = t1 - t0;
  sm_record(st, t0, t1);
  unsigned long long all = 0;
#pragma unroll
  for (int k = 0; k < ILP; ++k) all += x[k];
  if (iters < 0) sink[threadIdx.x] = all;
}

// ---------------------------------------------------------------- atomics
// MODE 0 global distinct addresses, 1 global one address, 2 shared distinct,
// 3 shared one address, 4 global f32 distinct, 5 red.global distinct (no return).
template <int MODE, int ILP>
__global__ void __launch_bounds__(256) k_atom(unsigned* gbuf, int iters, int z, long long* cyc,
                                              SmTimes st, unsigned* sink) {
  __shared__ unsigned sbuf[ILP * 256];
  for (int i = threadIdx.x; i < ILP * 256; i += blockDim.x) sbuf[i] = 0;
  __syncthreads();
  long long gt = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  long long T = (long long)gridDim.x * blockDim.x;
  unsigned x[ILP];
  unsigned* gp[ILP];
  unsigned sp[ILP];
#pragma unroll
  for (int k = 0; k < ILP; ++k) {
    x[k] = 1 + threadIdx.x * z;
    gp[k] = (MODE == 1) ? gbuf + k * 32 + threadIdx.x * z : gbuf + gt + k * T;
    sp[k] = (MODE == 3) ? saddr(&sbuf[k * 32]) + threadIdx.x * z
                        : saddr(&sbuf[k * 256 + threadIdx.x]);
  }
  __syncthreads();
  long long t0 = clock64();
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int j = 0; j < 8; ++j) {
#pragma unroll
      for (int k = 0; k < ILP; ++k) {
        if (MODE == 0 || MODE == 1)
          asm volatile("atom.global.add.u32 %0, [%1], %0;" : "+r"(x[k]) : "l"(gp[k]) : "memory");
        else if (MODE == 2 || MODE == 3)
          asm volatile("atom.shared.add.u32 %0, [%1], %0;" : "+r"(x[k]) : "r"(sp[k]) : "memory");
        else if (MODE == 4)
          asm volatile("{.reg .f32 t; mov.b32 t, %0; atom.global.add.f32 t, [%1], t; mov.b32 %0, t;}"
                       : "+r"(x[k]) : "l"(gp[k]) : "memory");
        else
          asm volatile("red.global.add.u32 [%1], %0;" : "+r"(x[k]) : "l"(gp[k]) : "memory");
      }
    }
  }
  __syncthreads();
  long long t1 = clock64();
  if (threadIdx.x == 0) *cyc = t1 - t0;
  sm_record(st, t0, t1);
  unsigned all = 0;
#pragma unroll
  for (int k = 0; k < ILP; ++k) all += x[k];
  if (iters < 0) sink[threadIdx.x] = all;
}

// ---------------------------------------------------------------- cp.async
// 16 B per lane from an L2-resident region into shared memory. The latency
// variant waits after every copy; the throughput variant waits once per 16*ILP.
template <int ILP>
__global__ void __launch_bounds__(256) k_cpasync(const char* src, long long region, int iters,
                                                 long long* cyc, SmTimes st, unsigned* sink) {
  __shared__ __align__(16) char sdst[ILP * 256 * 16];
  long long gt = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  unsigned d[ILP];
  const char* s[ILP];
#pragma unroll
  for (int k = 0; k < ILP; ++k) {
    d[k] = saddr(&sdst[(k * 256 + threadIdx.x) * 16]);
    s[k] = src + ((gt * ILP + k) * 16) % region;
  }
  __syncthreads();
  long long t0 = clock64();
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int j = 0; j < 16; ++j) {
#pragma unroll
      for (int k = 0; k < ILP; ++k)
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(d[k]), "l"(s[k]) : "memory");
      if (ILP == 1) asm volatile("cp.async.wait_all;" ::: "memory");
    }
    if (ILP > 1) asm volatile("cp.async.wait_all;" ::: "memory");
  }
  __syncthreads();
  long long t1 = clock64();
  if (threadIdx.x == 0) *cyc = t1 - t0;
  sm_record(st, t0, t1);
  if (iters < 0) sink[threadIdx.x] = sdst[threadIdx.x];
}

// ---------------------------------------------------------------- stores
// Throughput of 4-byte coalesced stores: each warp instruction writes 128 B
// to its own words (16 distinct words per thread and iteration). SPACE 0
// shared, 1 local, 2 global (a 2 MiB region per SM-resident grid, L2-resident).
template <int SPACE>
__global__ void __launch_bounds__(256) k_store(unsigned* gbuf, int iters, int z, SmTimes st,
                                               unsigned* sink) {
  __shared__ unsigned sm[16 * 256];
  unsigned lb[16];
  unsigned sbase = saddr(&sm[threadIdx.x]);
  unsigned long long lbase;
  asm volatile("cvta.to.local.u64 %0, %1;" : "=l"(lbase) : "l"((unsigned long long)&lb[0]));
  unsigned* gp = gbuf + (long long)blockIdx.x * 16 * 256 + threadIdx.x;
  unsigned v = threadIdx.x * z;
  __syncthreads();
  long long t0 = clock64();
  for (int i = 0; i < iters; ++i) {
    v += i;
#pragma unroll
    for (int j = 0; j < 16; ++j) {
      if (SPACE == 0)
        asm volatile("st.shared.u32 [%0], %1;" ::"r"(sbase + j * 1024), "r"(v) : "memory");
      else if (SPACE == 1)
        asm volatile("st.local.u32 [%0], %1;" ::"l"(lbase + j * 4), "r"(v) : "memory");
      else
        asm volatile("st.global.u32 [%0], %1;" ::"l"(gp + j * 256), "r"(v) : "memory");
    }
  }
  __syncthreads();
  long long t1 = clock64();
  sm_record(st, t0, t1);
  if (iters < 0) sink[threadIdx.x] = sm[threadIdx.x] + lb[threadIdx.x & 15];
}

template <int SPACE>
static void store_case(unsigned* gbuf, const char* cls, const char* notes) {
  int nb = blocks_per_sm(k_store<SPACE>, 256);
  auto run = [&](int it) {
    sm_reset();
    k_store<SPACE><<<nb * g.sms, 256>>>(gbuf, it, 0, g.st, (unsigned*)g.d_sink);
    return sm_fetch();
  };
  run(2);
  SmResult r0 = run(4);
  int it = scale_iters(median(r0.cycles), 4, 2e6, 4, 1 << 20);
  SmResult ra = run(it), rb = run(2 * it);
  double pb = 8.0 * it * 16;
  row(cls, "throughput", "b32", lambda_from(ra, rb, pb, 2 * pb), "cycles/warp-instr/SM", nb * 8,
      it * 16ll, notes);
}

// ---------------------------------------------------------------- drivers
// Latency from a one-warp launch (I and 2I iterations), throughput from a
// resident full grid (I and 2I). `launch(iters, lat)` returns the cycles of
// thread 0 for lat=true and fills the per-SM slots for lat=false.
template <class F>
static void lat_tput(const char* cls, const char* param, int per_iter, int ilp, int warps_tput,
                     double lat_target, double tput_target, F launch, const std::string& notes,
                     bool do_lat = true, bool do_tput = true) {
  if (do_lat) {
    launch(1, true);
    long long c0 = launch(2, true);
    int it = scale_iters((double)c0, 2, lat_target, 2, 1 << 20);
    long long ca = launch(it, true), cb = launch(2 * it, true);
    row(cls, "latency", param, double(cb - ca) / (double(it) * per_iter), "cycles", 1,
        (long long)it * per_iter, notes);
  }
  if (do_tput) {
    launch(1, false);
    SmResult r0 = sm_fetch();
    launch(2, false);
    r0 = sm_fetch();
    int it = scale_iters(median(r0.cycles), 2, tput_target, 2, 1 << 20);
    launch(it, false);
    SmResult ra = sm_fetch();
    launch(2 * it, false);
    SmResult rb = sm_fetch();
    double per_block = 8.0 * it * per_iter * ilp;
    row(cls, "throughput", param, lambda_from(ra, rb, per_block, 2 * per_block),
        "cycles/warp-instr/SM", warps_tput, (long long)it * per_iter * ilp, notes);
  }
}

void run_memory() {
  // ---- global latency by pointer chasing
  const size_t big = 2ull << 30;
  char* buf;
  CK(cudaMalloc(&buf, big));
  CK(cudaMalloc(&g_scratch, kScratch16 * 16));
  chase_case(buf, "l1", 128, 128, 37, 128, false, false, 4096);
  chase_case(buf, "l2", 65536, 128, 40503, 65536, true, false, 4096);
  chase_case(buf, "dram_random", 1ull << 24, 128, 2654435761ull, 1ull << 18, true, true, 8192);
  chase_case(buf, "dram_seq", 1ull << 18, 4224, 1, 1ull << 18, true, true, 8192);
  // L1-footprint chain but bypassing L1: an L2 hit with a small footprint.
  chase_case(buf, "l2_small", 128, 128, 37, 128, true, false, 4096);
  // Uncoalesced: the 32 lanes of the warp walk 32 different lines.
  chase_case(buf, "l1_32lines", 1024, 128, 37, 1024, false, false, 2048, 1024 / 32);
  chase_case(buf, "l2_32lines", 65536, 128, 40503, 65536, true, false, 2048, 65536 / 32);
  chase_case(buf, "dram_32lines", 1ull << 18, 4224, 1, 1ull << 18, true, true, 2048,
             (1ull << 18) / 32);

  // ---- bandwidth and λ of coalesced loads/stores
  {
    float4* src = (float4*)buf;
    float4* dst = (float4*)(buf + (1ull << 30));
    CK(cudaMemset(buf, 0, big));
    int nb = blocks_per_sm(k_bw<0>, 256);
    long long T = (long long)nb * g.sms * 256;
    long long n16 = (1ll << 30) / 16;
    long long pt16 = n16 / T;
    bw_case<0>("ld.global", "dram_read_v4", src, dst, pt16, 1, 0, 16, 512, "1 GiB read, float4");
    bw_case<1>("ld.global", "dram_read_b32", src, dst, pt16 * 4, 1, 0, 4, 128, "1 GiB read, b32");
    bw_case<2>("st.global", "dram_copy_v4", src, dst, pt16, 1, 0, 32, 512,
               "1 GiB copied; bytes count read+write; lambda per (ld+st) pair");
    bw_case<3>("st.global", "dram_write_v4", src, dst, pt16, 1, 0, 16, 512, "1 GiB written, float4");
    long long region16 = (16ll << 20) / 16;  // 16 MiB, L2 resident
    bw_case<4>("ld.global", "l2_read_v4", src, dst, std::max(1ll, region16 / T), 16, region16, 16,
               512, "16 MiB region read 16x with ld.cg");
    long long chunk16 = (16 << 10) / 16;  // 16 KiB per block
    bw_case<5>("ld.global", "l1_read_v4", src, dst, chunk16 / 256, 64, chunk16, 16, 512,
               "16 KiB per block read 64x with ld.ca");
  }

  // ---- shared memory, bank-conflict sweep
  for (int w = 1; w <= 32; w *= 2) {
    std::string param = "ways=" + std::to_string(w);
    int nb = blocks_per_sm(k_smem<4>, 256);
    lat_tput("ld.shared", param.c_str(), 16, 4, nb * 8, 2e5, 2e6,
             [&](int it, bool lat) -> long long {
               if (lat) {
                 k_smem<1><<<1, 32>>>(w, it, 0, g.d_cyc, g.st, (unsigned*)g.d_sink);
                 return fetch_cycles();
               }
               sm_reset();
               k_smem<4><<<nb * g.sms, 256>>>(w, it, 0, g.d_cyc, g.st, (unsigned*)g.d_sink);
               return 0;
             },
             "self-pointing words; w lanes per bank");
  }
  // ---- local memory
  {
    int nb = blocks_per_sm(k_local<4>, 256);
    lat_tput("ld.local", "l1", 16, 4, nb * 8, 2e5, 2e6,
             [&](int it, bool lat) -> long long {
               if (lat) {
                 k_local<1><<<1, 32>>>(it, 0, g.d_cyc, g.st, (unsigned long long*)g.d_sink);
                 return fetch_cycles();
               }
               sm_reset();
               k_local<4><<<nb * g.sms, 256>>>(it, 0, g.d_cyc, g.st, (unsigned long long*)g.d_sink);
               return 0;
             },
             "per-thread stack array, 8 B words, L1-resident");
  }

  // ---- constant memory (uniform address across the warp)
  {
    unsigned long long* d_base;
    CK(cudaMalloc(&d_base, 8));
    k_cbase<<<1, 1>>>(d_base);
    unsigned long long base = 0;
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(&base, d_base, 8, cudaMemcpyDeviceToHost));
    struct CCase { const char* name; int nodes; int stride_words; unsigned P; bool self; };
    CCase cases[] = {{"cached", 4, 8, 1, true},
                     {"ring_2k", 32, 8, 7, false},
                     {"ring_64k", 1000, 8, 37, false}};
    for (auto& c : cases) {
      std::vector<unsigned long long> h(CNODES, 0);
      for (int i = 0; i < c.nodes; ++i) {
        unsigned cur = (unsigned)((1ull * i * c.P) % c.nodes);
        unsigned nxt = c.self ? cur : (unsigned)((1ull * ((i + 1) % c.nodes) * c.P) % c.nodes);
        h[cur * c.stride_words] = base + 8ull * nxt * c.stride_words;
      }
      CK(cudaMemcpyToSymbol(cbuf, h.data(), sizeof(unsigned long long) * CNODES));
      int nb = blocks_per_sm(k_const<4>, 256);
      unsigned long long stepb = 8ull * c.stride_words;  // ILP chains start at nodes 0..3
      char notes[120];
      snprintf(notes, sizeof notes, "footprint=%dB uniform address", c.nodes * c.stride_words * 8);
      lat_tput("ld.const", c.name, 16, 4, nb * 8, 2e5, 2e6,
               [&](int it, bool lat) -> long long {
                 if (lat) {
                   k_const<1><<<1, 32>>>(base, stepb, it, 0, g.d_cyc, g.st, (unsigned long long*)g.d_sink);
                   return fetch_cycles();
                 }
                 sm_reset();
                 k_const<4><<<nb * g.sms, 256>>>(base, stepb, it, 0, g.d_cyc, g.st,
                                                 (unsigned long long*)g.d_sink);
                 return 0;
               },
               notes);
    }
    CK(cudaFree(d_base));
  }

  // ---- atomics
  {
    unsigned* gb = (unsigned*)buf;
    CK(cudaMemset(buf, 0, 64 << 20));
#define ATOM_CASE(MODE, CLS, PARAM, NOTES, LT, TT)                                              \
  {                                                                                             \
    int nb = blocks_per_sm(k_atom<MODE, 4>, 256);                                               \
    lat_tput(CLS, PARAM, 8, 4, nb * 8, LT, TT,                                                  \
             [&](int it, bool lat) -> long long {                                               \
               if (lat) {                                                                       \
                 k_atom<MODE, 1><<<1, 32>>>(gb, it, 0, g.d_cyc, g.st, (unsigned*)g.d_sink);     \
                 return fetch_cycles();                                                         \
               }                                                                                \
               sm_reset();                                                                      \
               k_atom<MODE, 4><<<nb * g.sms, 256>>>(gb, it, 0, g.d_cyc, g.st, (unsigned*)g.d_sink); \
               return 0;                                                                        \
             },                                                                                 \
             NOTES, MODE != 5, true);                                                           \
  }
    ATOM_CASE(0, "atom.global.add.u32", "distinct", "each lane its own word; coalesced", 2e5, 2e6)
    ATOM_CASE(1, "atom.global.add.u32", "same_address", "all threads of the grid on one word per chain", 2e5, 2e6)
    ATOM_CASE(2, "atom.shared.add.u32", "distinct", "each lane its own word", 2e5, 2e6)
    ATOM_CASE(3, "atom.shared.add.u32", "same_address", "all lanes one word", 2e5, 2e6)
    ATOM_CASE(4, "atom.global.add.f32", "distinct", "each lane its own word", 2e5, 2e6)
    ATOM_CASE(5, "red.global.add.u32", "distinct", "no return value: throughput only", 2e5, 2e6)
#undef ATOM_CASE
  }

  // ---- stores
  store_case<0>((unsigned*)buf, "st.shared", "4 B per lane, conflict-free, 128 B per warp instruction");
  store_case<1>((unsigned*)buf, "st.local", "4 B per lane, L1-resident stack");
  store_case<2>((unsigned*)buf, "st.global", "4 B per lane, coalesced, 16 KiB per block (L2-resident)");

  // ---- cp.async
  {
    long long region = 4ll << 20;
    int nb = blocks_per_sm(k_cpasync<4>, 256);
    lat_tput("cp.async.cg", "l2_16B", 16, 4, nb * 8, 2e5, 2e6,
             [&](int it, bool lat) -> long long {
               if (lat) {
                 k_cpasync<1><<<1, 32>>>(buf, region, it, g.d_cyc, g.st, (unsigned*)g.d_sink);
                 return fetch_cycles();
               }
               sm_reset();
               k_cpasync<4><<<nb * g.sms, 256>>>(buf, region, it, g.d_cyc, g.st, (unsigned*)g.d_sink);
               return 0;
             },
             "16 B per lane from a 4 MiB L2-resident region; latency = cp.async+wait_all");
  }
  CK(cudaFree(buf));
  CK(cudaFree(g_scratch));
}
