// Arithmetic instruction classes: one PTX instruction (or a fixed pair whose
// partner is measured on its own) per class, written as inline PTX so that the
// front end cannot fold the chain. ptxas still sees the PTX, so every chain is
// built so that it cannot be merged or reassociated (runtime operands, float
// rounding, or an alternating partner op); run.sh dumps the SASS so that the
// 1:1 mapping can be checked.
#include "common.cuh"

__device__ __forceinline__ float vary(float p, int k) { return p + 0.001f * k; }
__device__ __forceinline__ double vary(double p, int k) { return p + 0.001 * k; }
__device__ __forceinline__ unsigned vary(unsigned p, int k) { return p + k; }
__device__ __forceinline__ unsigned long long vary(unsigned long long p, int k) { return p + k; }
__device__ __forceinline__ unsigned short vary(unsigned short p, int k) {
  return (unsigned short)(p ^ k);
}

// One class = one struct: the chain step plus how the kernel is shaped.
// %0 is the chained value x, %1 and %2 are runtime operands a and b.
#define OPX(NAME, TT, UU, IL, MB, CX, ASMSTR)                                  \
  struct NAME {                                                                \
    typedef TT T;                                                              \
    static constexpr int U = UU, ILP = IL, MINB = MB;                          \
    __device__ static __forceinline__ void step(T& x, T a, T b) {              \
      asm volatile(ASMSTR : "+" CX(x) : CX(a), CX(b));                         \
    }                                                                          \
  };

// ---- floating point, fixed latency ----
OPX(AddF32, float, 32, 4, 8, "f", "add.f32 %0, %0, %1;")
OPX(MulF32, float, 32, 4, 8, "f", "mul.f32 %0, %0, %1;")
OPX(FmaF32, float, 32, 4, 8, "f", "fma.rn.f32 %0, %0, %1, %2;")
OPX(AddF64, double, 32, 4, 8, "d", "add.f64 %0, %0, %1;")
OPX(MulF64, double, 32, 4, 8, "d", "mul.f64 %0, %0, %1;")
OPX(FmaF64, double, 32, 4, 8, "d", "fma.rn.f64 %0, %0, %1, %2;")
// Scalar f16 at ILP 1: with independent chains ptxas packs two of them into
// one HADD2/HFMA2, which would halve the apparent cost per PTX instruction.
OPX(AddF16, unsigned short, 32, 1, 8, "h", "add.f16 %0, %0, %1;")
OPX(MulF16, unsigned short, 32, 1, 8, "h", "mul.f16 %0, %0, %1;")
OPX(FmaF16, unsigned short, 32, 1, 8, "h", "fma.rn.f16 %0, %0, %1, %2;")
OPX(AddF16x2, unsigned, 32, 4, 8, "r", "add.f16x2 %0, %0, %1;")
OPX(MulF16x2, unsigned, 32, 4, 8, "r", "mul.f16x2 %0, %0, %1;")
OPX(FmaF16x2, unsigned, 32, 4, 8, "r", "fma.rn.f16x2 %0, %0, %1, %2;")
OPX(SetpSelpF32, float, 32, 4, 8, "f",
    "{.reg .pred p; setp.lt.f32 p, %0, %1; selp.f32 %0, %2, %1, p;}")

// ---- division, square roots, special functions ----
OPX(DivRnF32, float, 8, 4, 4, "f", "div.rn.f32 %0, %1, %0;")
OPX(DivFullF32, float, 16, 4, 8, "f", "div.full.f32 %0, %1, %0;")
OPX(DivApproxF32, float, 16, 4, 8, "f", "div.approx.f32 %0, %1, %0;")
OPX(DivApproxFtzF32, float, 16, 4, 8, "f", "div.approx.ftz.f32 %0, %1, %0;")
OPX(RcpRnF32, float, 8, 4, 4, "f", "rcp.rn.f32 %0, %0;")
OPX(RcpApproxF32, float, 16, 4, 8, "f", "rcp.approx.f32 %0, %0;")
// rcp(rcp(x)) is folded by ptxas for the ftz form, hence the add partner.
OPX(RcpApproxFtzAddF32, float, 16, 4, 8, "f", "rcp.approx.ftz.f32 %0, %0; add.f32 %0, %0, %1;")
OPX(SqrtRnF32, float, 8, 4, 4, "f", "sqrt.rn.f32 %0, %0;")
OPX(SqrtApproxF32, float, 16, 4, 8, "f", "sqrt.approx.f32 %0, %0;")
OPX(SqrtApproxFtzF32, float, 16, 4, 8, "f", "sqrt.approx.ftz.f32 %0, %0;")
OPX(RsqrtApproxF32, float, 16, 4, 8, "f", "rsqrt.approx.f32 %0, %0;")
OPX(RsqrtApproxFtzF32, float, 16, 4, 8, "f", "rsqrt.approx.ftz.f32 %0, %0;")
// ex2/lg2 are paired with add.f32 so that the value stays finite and ptxas
// cannot prove the input range (which would drop the non-ftz scaling code).
OPX(Ex2AddF32, float, 16, 4, 8, "f", "ex2.approx.f32 %0, %0; add.f32 %0, %0, %1;")
OPX(Ex2FtzAddF32, float, 16, 4, 8, "f", "ex2.approx.ftz.f32 %0, %0; add.f32 %0, %0, %1;")
OPX(Lg2AddF32, float, 16, 4, 8, "f", "lg2.approx.f32 %0, %0; add.f32 %0, %0, %2;")
OPX(Lg2FtzAddF32, float, 16, 4, 8, "f", "lg2.approx.ftz.f32 %0, %0; add.f32 %0, %0, %2;")
OPX(SinApproxF32, float, 16, 4, 8, "f", "sin.approx.f32 %0, %0;")
OPX(SinApproxFtzF32, float, 16, 4, 8, "f", "sin.approx.ftz.f32 %0, %0;")
OPX(CosApproxF32, float, 16, 4, 8, "f", "cos.approx.f32 %0, %0;")
OPX(CosApproxFtzF32, float, 16, 4, 8, "f", "cos.approx.ftz.f32 %0, %0;")
OPX(TanhApproxF32, float, 16, 4, 8, "f", "tanh.approx.f32 %0, %0;")
OPX(DivRnF64, double, 4, 4, 4, "d", "div.rn.f64 %0, %1, %0;")
OPX(RcpRnF64, double, 4, 4, 4, "d", "rcp.rn.f64 %0, %0;")
OPX(SqrtRnF64, double, 4, 4, 4, "d", "sqrt.rn.f64 %0, %0;")
OPX(RsqrtApproxF64, double, 16, 4, 8, "d", "rsqrt.approx.f64 %0, %0;")

// ---- integer ----
// Two consecutive adds (or two logic ops) are merged by ptxas into one
// IADD3/LEA/LOP3, so simple integer ops are chained with an alternating
// partner from another family; the generator splits the pair.
OPX(AddXor, unsigned, 32, 4, 8, "r", "add.s32 %0, %0, %1; xor.b32 %0, %0, %2;")
OPX(AndAdd, unsigned, 32, 4, 8, "r", "and.b32 %0, %0, %1; add.s32 %0, %0, %2;")
OPX(ShlXor, unsigned, 32, 4, 8, "r", "shl.b32 %0, %0, %1; xor.b32 %0, %0, %2;")
OPX(ShrXor, unsigned, 32, 4, 8, "r", "shr.u32 %0, %0, %1; xor.b32 %0, %0, %2;")
OPX(MovAddXor, unsigned, 32, 4, 8, "r",
    "{.reg .b32 t; mov.b32 t, %0; add.s32 %0, t, %1; xor.b32 %0, %0, %2;}")
OPX(MulLo, unsigned, 32, 4, 8, "r", "mul.lo.s32 %0, %0, %1;")
OPX(MadLo, unsigned, 32, 4, 8, "r", "mad.lo.s32 %0, %0, %1, %2;")
OPX(MulWideHi, unsigned, 32, 4, 8, "r",
    "{.reg .s64 t; .reg .b32 lo; mul.wide.s32 t, %0, %1; mov.b64 {lo, %0}, t;}")
OPX(DivS32, unsigned, 8, 4, 8, "r", "div.s32 %0, %1, %0;")
OPX(DivU32, unsigned, 8, 4, 8, "r", "div.u32 %0, %1, %0;")
OPX(RemS32, unsigned, 8, 4, 8, "r", "rem.s32 %0, %1, %0;")
OPX(RemU32, unsigned, 8, 4, 8, "r", "rem.u32 %0, %1, %0;")
OPX(DivS64, unsigned long long, 4, 2, 4, "l", "div.s64 %0, %1, %0;")
OPX(AddXor64, unsigned long long, 32, 4, 8, "l", "add.s64 %0, %0, %1; xor.b64 %0, %0, %2;")
OPX(SetpSelp, unsigned, 32, 4, 8, "r",
    "{.reg .pred p; setp.lt.u32 p, %0, %1; selp.b32 %0, %2, %1, p;}")
OPX(VoteAny, unsigned, 16, 4, 8, "r",
    "{.reg .pred p, q; setp.lt.u32 p, %0, %1; vote.sync.any.pred q, p, -1; selp.b32 %0, %2, %1, q;}")
OPX(VoteBallot, unsigned, 16, 4, 8, "r",
    "{.reg .pred p; setp.ne.u32 p, %0, %1; vote.sync.ballot.b32 %0, p, -1;}")
OPX(ShflBfly, unsigned, 16, 4, 8, "r", "shfl.sync.bfly.b32 %0, %0, 1, 31, -1;")
// A uniform source lane would make every later shuffle a no-op that ptxas
// removes; lane^1 is computed off the chain and hoisted.
OPX(ShflIdx, unsigned, 16, 4, 8, "r",
    "{.reg .b32 l; mov.u32 l, %%laneid; xor.b32 l, l, 1; shfl.sync.idx.b32 %0, %0, l, 31, -1;}")

// ---- conversions (always a round trip, split evenly by the generator) ----
OPX(CvtF32S32, unsigned, 32, 4, 8, "r",
    "{.reg .f32 t; cvt.rn.f32.s32 t, %0; cvt.rzi.s32.f32 %0, t;}")
OPX(CvtF64F32, float, 32, 4, 8, "f",
    "{.reg .f64 t; cvt.f64.f32 t, %0; cvt.rn.f32.f64 %0, t;}")
OPX(CvtF16F32, float, 32, 4, 8, "f",
    "{.reg .b16 t; cvt.rn.f16.f32 t, %0; cvt.f32.f16 %0, t;}")
OPX(CvtF64S32, unsigned, 32, 4, 8, "r",
    "{.reg .f64 t; cvt.rn.f64.s32 t, %0; cvt.rzi.s32.f64 %0, t;}")

template <class Op>
__global__ void k_lat(typename Op::T p0, typename Op::T a, typename Op::T b, int iters, int z,
                      long long* cyc, typename Op::T* sink) {
  // z is 0 at run time; it only stops ptxas from proving x warp-uniform,
  // which would move the chain to the uniform datapath.
  typename Op::T x = vary(p0, threadIdx.x * z);
  long long t0 = clock64();
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int j = 0; j < Op::U; ++j) Op::step(x, a, b);
  }
  long long t1 = clock64();
  if (threadIdx.x == 0) *cyc = t1 - t0;
  if (iters < 0) sink[threadIdx.x] = x;
}

template <class Op>
__global__ void __launch_bounds__(256, Op::MINB)
    k_tput(typename Op::T p0, typename Op::T a, typename Op::T b, int iters, int z,
           SmTimes st, typename Op::T* sink) {
  typename Op::T x[Op::ILP];
#pragma unroll
  for (int k = 0; k < Op::ILP; ++k) x[k] = vary(p0, k + threadIdx.x * z);
  __syncthreads();
  long long t0 = clock64();
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int j = 0; j < Op::U; ++j) {
#pragma unroll
      for (int k = 0; k < Op::ILP; ++k) Op::step(x[k], a, b);
    }
  }
  __syncthreads();
  long long t1 = clock64();
  sm_record(st, t0, t1);
  if (iters < 0) {
#pragma unroll
    for (int k = 0; k < Op::ILP; ++k) sink[k * blockDim.x + threadIdx.x] = x[k];
  }
}

template <class Op>
void bench_op(const char* name, const char* notes, typename Op::T p0, typename Op::T a,
              typename Op::T b) {
  typedef typename Op::T T;
  T* sink = (T*)g.d_sink;
  // Latency: one warp.
  auto lat = [&](int it) {
    k_lat<Op><<<1, 32>>>(p0, a, b, it, 0, g.d_cyc, sink);
    return fetch_cycles();
  };
  lat(2);
  long long c0 = lat(4);
  int it = scale_iters((double)c0, 4, 4e5, 4, 1 << 20);
  long long ca = lat(it), cb = lat(2 * it);
  double L = double(cb - ca) / (double(it) * Op::U);
  row(name, "latency", "", L, "cycles", 1, (long long)it * Op::U, notes);

  // Throughput: resident grid at the occupancy the kernel allows.
  int nb = blocks_per_sm(k_tput<Op>, 256);
  int grid = nb * g.sms;
  auto tput = [&](int n) {
    sm_reset();
    k_tput<Op><<<grid, 256>>>(p0, a, b, n, 0, g.st, sink);
    return sm_fetch();
  };
  tput(1);
  SmResult r0 = tput(2);
  int it2 = scale_iters(median(r0.cycles), 2, 3e6, 2, 1 << 20);
  SmResult ra = tput(it2), rb = tput(2 * it2);
  double per_block_a = 8.0 * it2 * Op::U * Op::ILP;
  double lam = lambda_from(ra, rb, per_block_a, 2 * per_block_a);
  row(name, "throughput", "ilp=" + std::to_string(Op::ILP), lam, "cycles/warp-instr/SM", nb * 8,
      (long long)it2 * Op::U * Op::ILP, notes);
}

static unsigned short hbits(float f) {
  __half h = __float2half(f);
  unsigned short u;
  memcpy(&u, &h, 2);
  return u;
}
static unsigned h2bits(float f) { return (unsigned)hbits(f) * 0x10001u; }

void run_arith() {
  bench_op<AddF32>("add.f32", "", 1.0f, 1e-7f, 0.0f);
  bench_op<MulF32>("mul.f32", "", 1.0f, 0.9999999f, 0.0f);
  bench_op<FmaF32>("fma.rn.f32", "", 1.0f, 0.9999999f, 1e-7f);
  bench_op<AddF64>("add.f64", "", 1.0, 1e-9, 0.0);
  bench_op<MulF64>("mul.f64", "", 1.0, 0.999999999, 0.0);
  bench_op<FmaF64>("fma.rn.f64", "", 1.0, 0.999999999, 1e-9);
  bench_op<AddF16>("add.f16", "", hbits(1.0f), hbits(0.001f), 0);
  bench_op<MulF16>("mul.f16", "", hbits(1.0f), hbits(0.9995f), 0);
  bench_op<FmaF16>("fma.rn.f16", "", hbits(1.0f), hbits(0.9995f), hbits(0.001f));
  bench_op<AddF16x2>("add.f16x2", "", h2bits(1.0f), h2bits(0.001f), 0);
  bench_op<MulF16x2>("mul.f16x2", "", h2bits(1.0f), h2bits(0.9995f), 0);
  bench_op<FmaF16x2>("fma.rn.f16x2", "", h2bits(1.0f), h2bits(0.9995f), h2bits(0.001f));
  bench_op<SetpSelpF32>("setp.f32+selp.f32", "pair", 1.0f, 10.0f, 5.0f);

  bench_op<DivRnF32>("div.rn.f32", "x=a/x", 1.3f, 1.5f, 0.0f);
  bench_op<DivFullF32>("div.full.f32", "x=a/x", 1.3f, 1.5f, 0.0f);
  bench_op<DivApproxF32>("div.approx.f32", "x=a/x", 1.3f, 1.5f, 0.0f);
  bench_op<DivApproxFtzF32>("div.approx.ftz.f32", "x=a/x", 1.3f, 1.5f, 0.0f);
  bench_op<RcpRnF32>("rcp.rn.f32", "", 1.3f, 0.0f, 0.0f);
  bench_op<RcpApproxF32>("rcp.approx.f32", "", 1.3f, 0.0f, 0.0f);
  bench_op<RcpApproxFtzAddF32>("rcp.approx.ftz.f32+add.f32", "pair", 1.3f, 0.5f, 0.0f);
  bench_op<SqrtRnF32>("sqrt.rn.f32", "", 2.0f, 0.0f, 0.0f);
  bench_op<SqrtApproxF32>("sqrt.approx.f32", "", 2.0f, 0.0f, 0.0f);
  bench_op<SqrtApproxFtzF32>("sqrt.approx.ftz.f32", "", 2.0f, 0.0f, 0.0f);
  bench_op<RsqrtApproxF32>("rsqrt.approx.f32", "", 2.0f, 0.0f, 0.0f);
  bench_op<RsqrtApproxFtzF32>("rsqrt.approx.ftz.f32", "", 2.0f, 0.0f, 0.0f);
  bench_op<Ex2AddF32>("ex2.approx.f32+add.f32", "pair", 0.5f, -3.0f, 0.0f);
  bench_op<Ex2FtzAddF32>("ex2.approx.ftz.f32+add.f32", "pair", 0.5f, -3.0f, 0.0f);
  bench_op<Lg2AddF32>("lg2.approx.f32+add.f32", "pair", 5.0f, 0.0f, 3.0f);
  bench_op<Lg2FtzAddF32>("lg2.approx.ftz.f32+add.f32", "pair", 5.0f, 0.0f, 3.0f);
  bench_op<SinApproxF32>("sin.approx.f32", "", 1.0f, 0.0f, 0.0f);
  bench_op<SinApproxFtzF32>("sin.approx.ftz.f32", "", 1.0f, 0.0f, 0.0f);
  bench_op<CosApproxF32>("cos.approx.f32", "", 1.0f, 0.0f, 0.0f);
  bench_op<CosApproxFtzF32>("cos.approx.ftz.f32", "", 1.0f, 0.0f, 0.0f);
  bench_op<TanhApproxF32>("tanh.approx.f32", "", 1.0f, 0.0f, 0.0f);
  bench_op<DivRnF64>("div.rn.f64", "x=a/x", 1.3, 1.5, 0.0);
  bench_op<RcpRnF64>("rcp.rn.f64", "", 1.3, 0.0, 0.0);
  bench_op<SqrtRnF64>("sqrt.rn.f64", "", 2.0, 0.0, 0.0);
  bench_op<RsqrtApproxF64>("rsqrt.approx.f64", "", 2.0, 0.0, 0.0);

  bench_op<AddXor>("add.s32+xor.b32", "pair", 1u, 3u, 0x55u);
  bench_op<AndAdd>("and.b32+add.s32", "pair", 1u, 0xffffu, 7u);
  bench_op<ShlXor>("shl.b32+xor.b32", "pair", 1u, 1u, 0x55u);
  bench_op<ShrXor>("shr.u32+xor.b32", "pair", 1u, 1u, 0x80000055u);
  bench_op<MovAddXor>("mov.b32+add.s32+xor.b32", "triple", 1u, 3u, 0x55u);
  bench_op<MulLo>("mul.lo.s32", "", 1u, 3u, 0u);
  bench_op<MadLo>("mad.lo.s32", "", 1u, 3u, 7u);
  bench_op<MulWideHi>("mul.wide.s32", "high half chained", 12345u, 0x40000001u, 0u);
  bench_op<DivS32>("div.s32", "x=a/x", 7u, 7u, 0u);
  bench_op<DivU32>("div.u32", "x=a/x", 7u, 7u, 0u);
  bench_op<RemS32>("rem.s32", "x=a%x", 5u, 1000003u, 0u);
  bench_op<RemU32>("rem.u32", "x=a%x", 5u, 1000003u, 0u);
  bench_op<DivS64>("div.s64", "x=a/x", 7ull, 7ull, 0ull);
  bench_op<AddXor64>("add.s64+xor.b64", "pair", 1ull, 3ull, 0x55ull);
  bench_op<SetpSelp>("setp.s32+selp.b32", "pair", 1u, 10u, 5u);
  bench_op<VoteAny>("vote.any+setp+selp", "triple", 1u, 10u, 5u);
  bench_op<VoteBallot>("vote.ballot+setp", "pair", 1u, 0u, 0u);
  bench_op<ShflBfly>("shfl.sync.bfly.b32", "", 1u, 0u, 0u);
  bench_op<ShflIdx>("shfl.sync.idx.b32", "", 1u, 3u, 0u);

  bench_op<CvtF32S32>("cvt.f32.s32+cvt.s32.f32", "pair", 1000u, 0u, 0u);
  bench_op<CvtF64F32>("cvt.f64.f32+cvt.f32.f64", "pair", 1.5f, 0.0f, 0.0f);
  bench_op<CvtF16F32>("cvt.f16.f32+cvt.f32.f16", "pair", 1.5f, 0.0f, 0.0f);
  bench_op<CvtF64S32>("cvt.f64.s32+cvt.s32.f64", "pair", 1000u, 0u, 0u);
}
