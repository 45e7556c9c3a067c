// cp.async throughput by lane pattern and source level, beside plain loads of the same bytes.
//
// The λ/Λ suite (memory.cu, k_cpasync) measured cp.async with each lane's 16 B in a sector of
// its own (lanes 64 B apart, the four copies of a thread filling the gaps): 32 sectors per
// warp instruction, each sector fetched twice over the four copies. A compiler's cp.async
// (Triton's and CUTLASS's tile loads) moves 512 contiguous bytes per warp instruction: 16
// sectors, each once. This benchmark times both patterns, from an L2-resident region and from
// DRAM, and `ld.global.cg.v4` of the same coalesced bytes as the reference the profile's L2
// level comes from (128 B / L2 read bandwidth).
//
// Throughput: a resident grid (blocks of 256 threads, as many per SM as fit) of threads that
// issue ILP copies (16 B per lane each, `.cg` or `.ca`) per step and wait for them, 16 steps per
// iteration; every block records its first and last clock64 in per-SM min/max slots,
// and two runs of I and 2I iterations are subtracted, so λ is SM cycles per warp instruction
// per SM, independent of the clock the GPU runs at.
//
// Output (CSV on stdout, the λ/Λ suite's row format): class,kind,param,value,unit,warps,
// iterations,notes; `kind` is `throughput` (λ, cycles/warp-instr/SM) or `bandwidth` (bytes
// requested per cycle per SM).
//
// Build: nvcc -O3 -arch=sm_90 -std=c++17 -o cp_async cp_async.cu
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>
#include <cuda_runtime.h>

#include "check.cuh"

constexpr int THREADS = 256;
constexpr int STEPS = 16;
constexpr int MAX_SM = 512;

__device__ __forceinline__ unsigned saddr(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ unsigned smid() {
  unsigned r;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(r));
  return r;
}

// OP: 0 cp.async.cg, 1 cp.async.ca, 2 ld.global.cg.v4 (accumulated, so nothing is dead).
// STRIDED: lanes 64 B apart (memory.cu's pattern) instead of 16 B.
template <int OP, bool STRIDED, int ILP>
__global__ void __launch_bounds__(THREADS) k_copy(const char* src, unsigned long long mask,
                                                  int iters, unsigned long long* sm_start,
                                                  unsigned long long* sm_end, unsigned* sink) {
  __shared__ __align__(16) char sdst[ILP * THREADS * 16];
  const int lane = threadIdx.x & 31;
  const unsigned long long warp =
      (blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x) >> 5;
  const unsigned long long warps = (gridDim.x * (unsigned long long)blockDim.x) >> 5;
  unsigned d[ILP];
#pragma unroll
  for (int k = 0; k < ILP; ++k) d[k] = saddr(&sdst[(k * THREADS + threadIdx.x) * 16]);
  // A warp instruction covers 512 B (coalesced) or 2 KiB (strided: its four copies together
  // cover those 2 KiB); consecutive steps of the grid move on by the grid's footprint, so every
  // byte of a DRAM-sized region is read once per pass.
  const unsigned long long span = STRIDED ? 2048 : 512 * ILP;
  unsigned long long off = warp * span;
  const unsigned long long advance = warps * span;
  unsigned acc = 0;
  __syncthreads();
  long long t0 = clock64();
  for (int i = 0; i < iters; ++i) {
    // One wait per step: a copy still in flight to a shared address that a later copy
    // overwrites is dropped by the hardware (ncu: a third of the DRAM bytes when the 16 steps
    // of an iteration shared their destinations), so no destination is reused before a wait.
#pragma unroll 1
    for (int j = 0; j < STEPS; ++j) {
#pragma unroll
      for (int k = 0; k < ILP; ++k) {
        const unsigned long long a =
            STRIDED ? off + lane * 64 + (k % 4) * 16 : off + k * 512 + lane * 16;
        const char* p = src + (a & mask);
        if (OP == 0) {
          asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(d[k]), "l"(p) : "memory");
        } else if (OP == 1) {
          asm volatile("cp.async.ca.shared.global [%0], [%1], 16;" ::"r"(d[k]), "l"(p) : "memory");
        } else {
          uint4 v;
          asm volatile("ld.global.cg.v4.u32 {%0, %1, %2, %3}, [%4];"
                       : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                       : "l"(p));
          acc += v.x ^ v.y ^ v.z ^ v.w;
        }
      }
      off += advance;
      if (OP != 2) asm volatile("cp.async.wait_all;" ::: "memory");
    }
  }
  __syncthreads();
  long long t1 = clock64();
  if (threadIdx.x == 0) {
    const unsigned s = smid();
    atomicMin(&sm_start[s], (unsigned long long)t0);
    atomicMax(&sm_end[s], (unsigned long long)t1);
  }
  if (iters < 0 || acc == 0x12345u) sink[threadIdx.x] = acc + sdst[threadIdx.x];
}

struct Dev {
  int sms;
  cudaEvent_t a, b;
  unsigned long long *start, *end;
  unsigned* sink;
};

// Median over SMs of the cycles between the first block's start and the last block's end.
template <typename K>
static double sm_cycles(const Dev& dv, K kernel, int blocks, const char* src,
                        unsigned long long mask, int iters, float* ms) {
  std::vector<unsigned long long> s(dv.sms, ~0ull), e(dv.sms, 0);
  CK(cudaMemcpy(dv.start, s.data(), dv.sms * sizeof(s[0]), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dv.end, e.data(), dv.sms * sizeof(e[0]), cudaMemcpyHostToDevice));
  CK(cudaEventRecord(dv.a));
  kernel<<<blocks, THREADS>>>(src, mask, iters, dv.start, dv.end, dv.sink);
  CK(cudaGetLastError());
  CK(cudaEventRecord(dv.b));
  CK(cudaDeviceSynchronize());
  CK(cudaEventElapsedTime(ms, dv.a, dv.b));
  CK(cudaMemcpy(s.data(), dv.start, dv.sms * sizeof(s[0]), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(e.data(), dv.end, dv.sms * sizeof(e[0]), cudaMemcpyDeviceToHost));
  std::vector<double> c;
  for (int i = 0; i < dv.sms; ++i)
    if (e[i] > s[i]) c.push_back(double(e[i] - s[i]));
  std::sort(c.begin(), c.end());
  return c.empty() ? 0.0 : c[c.size() / 2];
}

template <int OP, bool STRIDED, int ILP>
static void run(const Dev& dv, const char* src, unsigned long long region, const char* cls,
                const char* level, const char* notes) {
  auto kernel = k_copy<OP, STRIDED, ILP>;
  int per_sm = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, THREADS, 0));
  const int blocks = per_sm * dv.sms;
  // Enough iterations for about 10^5 cycles per SM at 20 cycles per warp instruction.
  const int warps_per_sm = per_sm * THREADS / 32;
  const int iters = std::max(4, 100000 / (20 * warps_per_sm * STEPS * ILP / 4));
  float m1, m2;
  sm_cycles(dv, kernel, blocks, src, region - 1, iters, &m1);  // warm-up (and L2 fill)
  std::vector<double> lam, gbs;
  for (int r = 0; r < 5; ++r) {
    const double c1 = sm_cycles(dv, kernel, blocks, src, region - 1, iters, &m1);
    const double c2 = sm_cycles(dv, kernel, blocks, src, region - 1, 2 * iters, &m2);
    const double instr = double(warps_per_sm) * iters * STEPS * ILP;
    lam.push_back((c2 - c1) / instr);
    // The same difference in event time: device-wide requested bytes per second.
    gbs.push_back(instr * dv.sms * 512.0 / ((m2 - m1) * 1e-3) / 1e9);
  }
  std::sort(lam.begin(), lam.end());
  std::sort(gbs.begin(), gbs.end());
  const double l = lam[lam.size() / 2];
  const std::string param = std::string(level) + (STRIDED ? "_16B_stride64" : "_16B_coalesced") +
                            ";ilp=" + std::to_string(ILP);
  printf("%s,throughput,%s,%.4f,cycles/warp-instr/SM,%d,%d,%s\n", cls, param.c_str(), l,
         warps_per_sm, iters, notes);
  printf("%s,bandwidth,%s,%.4f,bytes/cycle/SM,%d,%d,requested bytes (512 per warp instruction)\n",
         cls, param.c_str(), 512.0 / l, warps_per_sm, iters);
  printf("%s,bandwidth_events,%s,%.1f,GB/s,%d,%d,requested bytes over the event time of the I..2I difference\n",
         cls, param.c_str(), gbs[gbs.size() / 2], warps_per_sm, iters);
  fflush(stdout);
}

int main() {
  Dev dv{};
  CK(cudaDeviceGetAttribute(&dv.sms, cudaDevAttrMultiProcessorCount, 0));
  CK(cudaMalloc(&dv.start, MAX_SM * sizeof(unsigned long long)));
  CK(cudaMalloc(&dv.end, MAX_SM * sizeof(unsigned long long)));
  CK(cudaMalloc(&dv.sink, THREADS * sizeof(unsigned)));
  CK(cudaEventCreate(&dv.a));
  CK(cudaEventCreate(&dv.b));
  const unsigned long long l2_region = 4ull << 20;  // L2-resident (50 MiB L2)
  const unsigned long long dram_region = 2ull << 30;
  char* buf;
  CK(cudaMalloc(&buf, dram_region));
  CK(cudaMemset(buf, 1, dram_region));
  printf("class,kind,param,value,unit,warps,iterations,notes\n");
  // memory.cu's pattern first: the check that this harness reproduces the suite's row.
  run<0, true, 4>(dv, buf, l2_region, "cp.async.cg", "l2", "lanes 64 B apart (memory.cu k_cpasync)");
  run<0, false, 4>(dv, buf, l2_region, "cp.async.cg", "l2", "512 contiguous bytes per warp instruction");
  run<0, false, 8>(dv, buf, l2_region, "cp.async.cg", "l2", "512 contiguous bytes per warp instruction");
  run<1, false, 4>(dv, buf, l2_region, "cp.async.ca", "l2", "512 contiguous bytes per warp instruction");
  run<2, false, 4>(dv, buf, l2_region, "ld.global.cg.v4", "l2", "512 contiguous bytes per warp instruction");
  run<0, false, 4>(dv, buf, dram_region, "cp.async.cg", "dram", "512 contiguous bytes per warp instruction, 2 GiB region");
  run<0, false, 8>(dv, buf, dram_region, "cp.async.cg", "dram", "512 contiguous bytes per warp instruction, 2 GiB region");
  run<2, false, 4>(dv, buf, dram_region, "ld.global.cg.v4", "dram", "512 contiguous bytes per warp instruction, 2 GiB region");
  CK(cudaFree(buf));
  return 0;
}
