// Warpgroup tensor-core MMA (wgmma.mma_async, sm_90a): how long one m64nNk16 f16 -> f32
// keeps an SM's tensor cores busy, and how long one warpgroup waits for its result; for the
// tensor.wgmma class of the H100 profile (docs/gpu-profile.md, crates/gpu/src/fragment.rs).
//
// Both operands come from shared memory through matrix descriptors (no swizzle; the tiles are
// zero: values do not change a tensor core's time). Each loop iteration is one wgmma group:
//   wgmma.fence; K x wgmma.mma_async on one accumulator; wgmma.commit_group; wgmma.wait_group 0
// the pattern of a K-loop (Triton's and CUTLASS's mainloops chain their wgmmas on one
// accumulator without waiting in between).
//  * chain: one warpgroup alone (one 128-thread block), K = 1, 2, 4, 8, 16: cycles per
//    iteration (runs of I and 2I iterations subtracted). The slope over K is the interval
//    between chained wgmmas of one warpgroup, the intercept what a group's wait adds.
//  * throughput: a resident grid of 256-thread blocks (two warpgroups each, as Triton's
//    8-warp matmul), K = 16: cycles per wgmma per SM, median over SMs (common.cuh).
//  * mix: the throughput grid with m64n128k16, K = 4 and B independent fma.rn.f32 per wgmma
//    and thread issued between the commit and the wait (B = 0 .. 256; K = 0: the FMAs
//    alone): whether the tensor cores and the FMA pipe overlap (separate subsystems, §4.2)
//    or add up (one subsystem), as the λ/Λ suite's instruction-mix kernels test for mma.sync.
// Output: the λ/Λ suite's CSV rows (class,kind,param,value,unit,warps,iterations,notes).
//
// Build: nvcc -O3 -arch=sm_90a -std=c++17 -o wgmma wgmma.cu   (wgmma needs sm_90a)
#include "common.cuh"

Ctx g;

template <int N>
__device__ __forceinline__ void wgmma(float* d, unsigned long long da, unsigned long long db);

template <>
__device__ __forceinline__ void wgmma<8>(float* d, unsigned long long da, unsigned long long db) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %6, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%0,%1,%2,%3}, %4, %5, p, 1, 1, 0, 0;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "l"(da), "l"(db), "r"(1));
}

template <>
__device__ __forceinline__ void wgmma<32>(float* d, unsigned long long da, unsigned long long db) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %18, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15}, %16, %17, p, 1, 1, 0, 0;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
      : "l"(da), "l"(db), "r"(1));
}

template <>
__device__ __forceinline__ void wgmma<64>(float* d, unsigned long long da, unsigned long long db) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31}, %32, %33, p, 1, 1, 0, 0;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "l"(da), "l"(db), "r"(1));
}

template <>
__device__ __forceinline__ void wgmma<128>(float* d, unsigned long long da, unsigned long long db) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63}, %64, %65, p, 1, 1, 0, 0;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
      : "l"(da), "l"(db), "r"(1));
}

template <>
__device__ __forceinline__ void wgmma<256>(float* d, unsigned long long da, unsigned long long db) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 {%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63,%64,%65,%66,%67,%68,%69,%70,%71,%72,%73,%74,%75,%76,%77,%78,%79,%80,%81,%82,%83,%84,%85,%86,%87,%88,%89,%90,%91,%92,%93,%94,%95,%96,%97,%98,%99,%100,%101,%102,%103,%104,%105,%106,%107,%108,%109,%110,%111,%112,%113,%114,%115,%116,%117,%118,%119,%120,%121,%122,%123,%124,%125,%126,%127}, %128, %129, p, 1, 1, 0, 0;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
      : "l"(da), "l"(db), "r"(1));
}

// A no-swizzle descriptor: start address, leading and stride byte offsets (16-byte units).
__device__ __forceinline__ unsigned long long desc(unsigned addr) {
  return (unsigned long long)((addr & 0x3FFFF) >> 4) | ((unsigned long long)(128 >> 4) << 16) |
         ((unsigned long long)(256 >> 4) << 32);
}

template <int N, int K, int B = 0>
__global__ void __launch_bounds__(256) k_wgmma(int iters, long long* cyc, SmTimes st,
                                                float* sink) {
  // A: 64x16 f16 (2 KiB), B: 16xN f16; 16 KiB covers every shape and offset used.
  __shared__ __align__(1024) unsigned char tiles[16384];
  for (int i = threadIdx.x; i < 16384 / 16; i += blockDim.x)
    reinterpret_cast<uint4*>(tiles)[i] = make_uint4(0, 0, 0, 0);
  // The tiles were written through the generic proxy and are read through the async one.
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  unsigned base = (unsigned)__cvta_generic_to_shared(tiles);
  unsigned long long da = desc(base), db = desc(base + 4096);
  float d[N / 2];
#pragma unroll
  for (int i = 0; i < N / 2; ++i) d[i] = 0.f;
  // Eight independent FMA chains (ILP 8: the FMA pipe's full rate).
  float f[8];
#pragma unroll
  for (int i = 0; i < 8; ++i) f[i] = threadIdx.x + i;
  __syncthreads();
  long long t0 = clock64();
  for (int it = 0; it < iters; ++it) {
    if (K > 0) asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
    for (int k = 0; k < K; ++k) wgmma<N>(d, da, db);
    if (K > 0) asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
#pragma unroll
    for (int b = 0; b < B * (K > 0 ? K : 4); b += 8) {
#pragma unroll
      for (int i = 0; i < 8; ++i)
        asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(f[i]) : "f"(1.0001f), "f"(0.5f));
    }
    if (K > 0) asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  }
  __syncthreads();
  long long t1 = clock64();
  if (threadIdx.x == 0) *cyc = t1 - t0;
  sm_record(st, t0, t1);
  float s = 0.f;
#pragma unroll
  for (int i = 0; i < N / 2; ++i) s += d[i];
#pragma unroll
  for (int i = 0; i < 8; ++i) s += f[i];
  if (iters < 0) sink[threadIdx.x] = s;
}

// One warpgroup alone: cycles per iteration of K chained wgmmas and their wait.
template <int N, int K>
void chain() {
  auto launch = [&](int it) {
    k_wgmma<N, K><<<1, 128>>>(it, g.d_cyc, g.st, (float*)g.d_sink);
    return fetch_cycles();
  };
  launch(2);
  long long c0 = launch(4);
  int it = scale_iters((double)c0, 4, 2e5, 4, 1 << 20);
  long long ca = launch(it), cb = launch(2 * it);
  char cls[64], param[32];
  snprintf(cls, sizeof cls, "wgmma.m64n%dk16.f32.f16", N);
  snprintf(param, sizeof param, "k=%d", K);
  row(cls, "chain", param, double(cb - ca) / it, "cycles/group", 4, it,
      "one warpgroup; a group = K chained wgmmas + commit + wait_group 0");
}

// A resident grid of two-warpgroup blocks, K = 16: cycles per wgmma per SM.
template <int N>
void throughput() {
  constexpr int K = 16;
  int nb = blocks_per_sm(k_wgmma<N, K>, 256);
  auto launch = [&](int it) {
    sm_reset();
    k_wgmma<N, K><<<nb * g.sms, 256>>>(it, g.d_cyc, g.st, (float*)g.d_sink);
    return sm_fetch();
  };
  launch(2);
  SmResult r0 = launch(4);
  int it = scale_iters(median(r0.cycles), 4, 2e6, 4, 1 << 20);
  SmResult ra = launch(it);
  SmResult rb = launch(2 * it);
  double per_block = 2.0 * K * it;  // wgmmas (warpgroup instructions) of one block
  char cls[64], param[48];
  snprintf(cls, sizeof cls, "wgmma.m64n%dk16.f32.f16", N);
  snprintf(param, sizeof param, "blocks_per_sm=%d", nb);
  row(cls, "throughput", param, lambda_from(ra, rb, per_block, 2 * per_block),
      "cycles/wgmma/SM", nb * 8, it * 2ll * K, "two warpgroups per block, K = 16 per group");
}

// m64n128k16, K = 4 per group with B FMAs per wgmma and thread (K = 0: 4·B FMAs alone):
// cycles per group per SM, one row per B.
template <int K, int B>
void mix() {
  constexpr int N = 128;
  int nb = blocks_per_sm(k_wgmma<N, 4, B>, 256);
  auto launch = [&](int it) {
    sm_reset();
    k_wgmma<N, K, B><<<nb * g.sms, 256>>>(it, g.d_cyc, g.st, (float*)g.d_sink);
    return sm_fetch();
  };
  launch(2);
  SmResult r0 = launch(4);
  int it = scale_iters(median(r0.cycles), 4, 2e6, 4, 1 << 20);
  SmResult ra = launch(it);
  SmResult rb = launch(2 * it);
  double per_block = 2.0 * it;  // groups of one block (two warpgroups)
  char param[64];
  snprintf(param, sizeof param, "k=%d;fma_per_wgmma=%d;blocks_per_sm=%d", K, B, nb);
  row(K > 0 ? "wgmma.m64n128k16.f32.f16+fma.rn.f32" : "fma.rn.f32.alone", "mix", param,
      lambda_from(ra, rb, per_block, 2 * per_block), "cycles/group/SM", nb * 8, it,
      "a group = 4 wgmma (K = 4) and 4*B FMAs per thread between commit and wait; K = 0: the FMAs alone");
}

template <int N>
void shape() {
  chain<N, 1>();
  chain<N, 2>();
  chain<N, 4>();
  chain<N, 8>();
  chain<N, 16>();
  throughput<N>();
}

int main() {
  ctx_init(1 << 20);
  shape<8>();
  shape<32>();
  shape<64>();
  shape<128>();
  shape<256>();
  mix<4, 0>();
  mix<4, 16>();
  mix<4, 32>();
  mix<4, 64>();
  mix<4, 128>();
  mix<4, 256>();
  mix<0, 16>();
  mix<0, 32>();
  mix<0, 64>();
  mix<0, 128>();
  mix<0, 256>();
  CK(cudaDeviceSynchronize());
  return 0;
}
