// Measurement kernels of the unified hardware-fitted model (Stevens and Klöckner, section
// 4.1), written for this project from the paper's description, and their timing (section
// 4.2): each configuration runs 30 times, timed one launch at a time with CUDA events; the
// first 4 runs are dropped and the minimum of the other 26 is the time (the median is kept
// too). One CSV row per configuration on stdout (header in bench/unified/README.md).
//
// Every kernel is extern "C" so that its PTX entry carries the kernel's name; the CSV's
// `params` give the non-pointer parameters by PTX index (`5=1048576;6=2`), as
// `ptx2idg --param` takes them.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <algorithm>
#include <string>
#include "../microbench/check.cuh"

// ------------------------------------------------------------------ kernels

// Tiled C (n x l) = A (n x m) * B (m x l), row-major; T x T tiles in shared memory, T =
// blockDim.x = blockDim.y; n, m, l multiples of T.
extern "C" __global__ void mm_tiled(const float* A, const float* B, float* C, int n, int m,
                                    int l) {
  extern __shared__ float sm[];
  const int T = blockDim.x;
  float* As = sm;
  float* Bs = sm + T * T;
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
  float acc = 0.0f;
  for (int k0 = 0; k0 < m; k0 += T) {
    As[ty * T + tx] = A[row * m + k0 + tx];
    Bs[ty * T + tx] = B[(k0 + ty) * l + col];
    __syncthreads();
    for (int k = 0; k < T; ++k) acc += As[ty * T + k] * Bs[k * T + tx];
    __syncthreads();
  }
  C[row * l + col] = acc;
}

// Naive square C = A * B (n x n, row-major): one thread per element of C.
extern "C" __global__ void mm_naive(const float* A, const float* B, float* C, int n) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.0f;
  for (int k = 0; k < n; ++k) acc += A[row * n + k] * B[k * n + col];
  C[row * n + col] = acc;
}

// z[s i] = a x[s i] + b y[s i], i < n: stride-s vector scale and add.
extern "C" __global__ void vec_scale_add(const float* x, const float* y, float* z, float a,
                                         float b, int n, int s) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    long j = (long)s * i;
    z[j] = a * x[j] + b * y[j];
  }
}

// out = in^T (n x n, row-major) through a T x T shared tile (T = blockDim.x = blockDim.y):
// stride-1 reads and writes.
extern "C" __global__ void transpose_tiled(const float* in, float* out, int n) {
  extern __shared__ float tile[];
  const int T = blockDim.x;
  int tx = threadIdx.x, ty = threadIdx.y;
  int x = blockIdx.x * T + tx, y = blockIdx.y * T + ty;
  tile[ty * (T + 1) + tx] = in[y * n + x];
  __syncthreads();
  int xo = blockIdx.y * T + tx, yo = blockIdx.x * T + ty;
  out[yo * n + xo] = tile[tx * (T + 1) + ty];
}

// out = in^T without prefetch: stride-1 writes, stride-n reads.
extern "C" __global__ void transpose_read_strided(const float* in, float* out, int n) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  out[y * n + x] = in[x * n + y];
}

// out = in^T without prefetch: stride-1 reads, stride-n writes.
extern "C" __global__ void transpose_write_strided(const float* in, float* out, int n) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  out[x * n + y] = in[y * n + x];
}

// Stride-1 global access: a copy (1 load, 1 store), a sum of 4 arrays (4 loads, 1 store),
// the index stored (0 loads, 1 store).
extern "C" __global__ void copy1(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}

extern "C" __global__ void sum4(const float* a, const float* b, const float* c, const float* d,
                                float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i] + b[i] + c[i] + d[i];
}

extern "C" __global__ void store_index(float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = (float)i;
}

// Stride-s filled access on an s x ncols array (column-major: element (r, c) at s c + r):
// each of k steps, a group of T threads prefetches T columns into shared memory with s
// stride-s loads (lane t loads element s t + r of the chunk, r = 0..s-1: together every
// cell), then thread t adds the s cells of its column. Columns wrap modulo ncols (a multiple
// of T). out[i] = the sum over the k steps.
__device__ __forceinline__ void filled(const float* in, float* out, int ncols, int k, int s) {
  extern __shared__ float sh[];
  const int T = blockDim.x;
  int t = threadIdx.x;
  float acc = 0.0f;
  for (int j = 0; j < k; ++j) {
    int c0 = (blockIdx.x * T + j * T) % ncols;
    const float* chunk = in + (long)s * c0;
    for (int r = 0; r < s; ++r) sh[r * T + t] = chunk[s * t + r];
    __syncthreads();
    for (int r = 0; r < s; ++r) acc += sh[r * T + t];
    __syncthreads();
  }
  out[blockIdx.x * T + t] = acc;
}

extern "C" __global__ void filled2(const float* in, float* out, int ncols, int k) {
  filled(in, out, ncols, k, 2);
}

extern "C" __global__ void filled3(const float* in, float* out, int ncols, int k) {
  filled(in, out, ncols, k, 3);
}

// Arithmetic kernels: out[y n + x] = the sum over j < k of an expression of 8 operations of
// one kind on values from the indices; no global loads.
#define ARITH(NAME, T, BODY)                                                            \
  extern "C" __global__ void NAME(T* out, int n, int k) {                               \
    int x = blockIdx.x * blockDim.x + threadIdx.x;                                      \
    int y = blockIdx.y * blockDim.y + threadIdx.y;                                      \
    T a = (T)x * (T)0.001 + (T)1, b = (T)y * (T)0.002 + (T)1, acc = 0;                  \
    for (int j = 0; j < k; ++j) {                                                       \
      T v = (T)j * (T)0.0001 + (T)1;                                                    \
      BODY;                                                                             \
    }                                                                                   \
    out[y * n + x] = acc;                                                               \
  }

ARITH(arith_add_f32, float,
      acc += a + v - b + v - a + b - v + a - (v + b))
ARITH(arith_mul_f32, float,
      acc += a * v * b * v * a * b * v * (a * v))
ARITH(arith_div_f32, float,
      acc += a / v / b / (v + a) / (b + v) / a / v / (a + b))
ARITH(arith_exp_f32, float,
      acc += expf(a * v) + expf(b * v) + expf(a - v) + expf(b - v) + expf(v) + expf(-v) +
             expf(a) + expf(b * a))
ARITH(arith_rsqrt_f32, float,
      acc += rsqrtf(a + v) + rsqrtf(b + v) + rsqrtf(a * v) + rsqrtf(b * v) + rsqrtf(v) +
             rsqrtf(a + b) + rsqrtf(a * b) + rsqrtf(v * v))
ARITH(arith_sin_f32, float,
      acc += __sinf(a + v) + __sinf(b + v) + __sinf(a * v) + __sinf(b * v) + __sinf(v) +
             __sinf(a + b) + __sinf(a * b) + __sinf(v * v))
ARITH(arith_add_f64, double,
      acc += a + v - b + v - a + b - v + a - (v + b))
ARITH(arith_mul_f64, double,
      acc += a * v * b * v * a * b * v * (a * v))
ARITH(arith_div_f64, double,
      acc += a / v / b / (v + a) / (b + v) / a / v / (a + b))
ARITH(arith_exp_f64, double,
      acc += exp(a * v) + exp(b * v) + exp(a - v) + exp(b - v) + exp(v) + exp(-v) + exp(a) +
             exp(b * a))
ARITH(arith_rsqrt_f64, double,
      acc += rsqrt(a + v) + rsqrt(b + v) + rsqrt(a * v) + rsqrt(b * v) + rsqrt(v) +
             rsqrt(a + b) + rsqrt(a * b) + rsqrt(v * v))

// No operation, no memory access: launch overhead by work groups.
extern "C" __global__ void empty(int n) {}

// ------------------------------------------------------------------ timing

static const int RUNS = 30, DROP = 4;

struct Row {
  std::string kernel, variant, params;
  dim3 grid, block;
  size_t shared;
};

// Times `launch` RUNS times; prints the row with the minimum and median of runs DROP+1..RUNS.
template <class F>
static void timed(const Row& r, F launch) {
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  std::vector<float> ms;
  for (int i = 0; i < RUNS; ++i) {
    CK(cudaEventRecord(e0));
    launch();
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    CK(cudaGetLastError());
    float t;
    CK(cudaEventElapsedTime(&t, e0, e1));
    if (i >= DROP) ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  printf("%s,%s,%u,%u,%u,%u,%zu,%s,%.3f,%.3f,%zu\n", r.kernel.c_str(), r.variant.c_str(),
         r.grid.x, r.grid.y, r.block.x, r.block.y, r.shared, r.params.c_str(), ms[0] * 1e3,
         ms[ms.size() / 2] * 1e3, ms.size());
  fflush(stdout);
  CK(cudaEventDestroy(e0));
  CK(cudaEventDestroy(e1));
}

static std::string P(std::initializer_list<std::pair<int, long>> kv) {
  std::string s;
  for (auto& p : kv) {
    if (!s.empty()) s += ';';
    s += std::to_string(p.first) + "=" + std::to_string(p.second);
  }
  return s;
}

int main() {
  // One pool of device memory, zeroed, big enough for every kernel (3 x 3 x 2^22 floats for
  // the stride-3 vectors, 5 x 2^24 floats for sum4).
  const size_t POOL = size_t(6) << 26;  // floats: 6 x 2^26 = 1.5 GiB
  float* pool;
  CK(cudaMalloc(&pool, POOL * sizeof(float)));
  CK(cudaMemset(pool, 0, POOL * sizeof(float)));
  auto buf = [&](int i) { return pool + (size_t(i) << 26); };  // 6 buffers of 2^26 floats
  printf("kernel,variant,grid_x,grid_y,block_x,block_y,shared_bytes,params,time_us,median_us,runs\n");

  // Tiled matrix multiply: 4 shapes x 3 sizes x tiles 16, 32.
  for (int T : {16, 32})
    for (int p : {8, 9, 10}) {
      int N = 1 << p;
      struct { const char* v; int n, m, l; } shapes[] = {
          {"n=m=l", N, N, N}, {"l=n/2", N, N, N / 2}, {"m=n/2", N, N / 2, N},
          {"n=m/2", N / 2, N, N}};
      for (auto& s : shapes) {
        Row r{"mm_tiled", s.v, P({{3, s.n}, {4, s.m}, {5, s.l}}), dim3(s.l / T, s.n / T),
              dim3(T, T), size_t(2 * T * T * 4)};
        timed(r, [&] {
          mm_tiled<<<r.grid, r.block, r.shared>>>(buf(0), buf(1), buf(2), s.n, s.m, s.l);
        });
      }
    }
  // Naive matrix multiply.
  for (auto bs : {dim3(16, 16), dim3(32, 8)})
    for (int n : {256, 512, 1024}) {
      Row r{"mm_naive", "", P({{3, n}}), dim3(n / bs.x, n / bs.y), bs, 0};
      timed(r, [&] { mm_naive<<<r.grid, r.block>>>(buf(0), buf(1), buf(2), n); });
    }
  // Vector scale and add, strides 1, 2, 3.
  for (int B : {256, 512})
    for (int s : {1, 2, 3})
      for (int p : {18, 20, 22}) {
        int n = 1 << p;
        Row r{"vec_scale_add", "stride" + std::to_string(s),
              P({{3, 2}, {4, 3}, {5, n}, {6, s}}), dim3(n / B), dim3(B), 0};
        timed(r, [&] {
          vec_scale_add<<<r.grid, r.block>>>(buf(0), buf(1), buf(2), 2.0f, 3.0f, n, s);
        });
      }
  // Transposes.
  for (int T : {16, 32})
    for (int n : {1024, 2048, 4096}) {
      Row r{"transpose_tiled", "", P({{2, n}}), dim3(n / T, n / T), dim3(T, T),
            size_t(T * (T + 1) * 4)};
      timed(r, [&] { transpose_tiled<<<r.grid, r.block, r.shared>>>(buf(0), buf(1), n); });
      Row a{"transpose_read_strided", "", P({{2, n}}), dim3(n / T, n / T), dim3(T, T), 0};
      timed(a, [&] { transpose_read_strided<<<a.grid, a.block>>>(buf(0), buf(1), n); });
      Row b{"transpose_write_strided", "", P({{2, n}}), dim3(n / T, n / T), dim3(T, T), 0};
      timed(b, [&] { transpose_write_strided<<<b.grid, b.block>>>(buf(0), buf(1), n); });
    }
  // Stride-1 copies and sums.
  for (int B : {256, 512})
    for (int p : {18, 20, 22, 24}) {
      int n = 1 << p;
      Row c{"copy1", "", P({{2, n}}), dim3(n / B), dim3(B), 0};
      timed(c, [&] { copy1<<<c.grid, c.block>>>(buf(0), buf(1), n); });
      Row s{"sum4", "", P({{5, n}}), dim3(n / B), dim3(B), 0};
      timed(s, [&] { sum4<<<s.grid, s.block>>>(buf(0), buf(1), buf(2), buf(3), buf(4), n); });
      Row x{"store_index", "", P({{1, n}}), dim3(n / B), dim3(B), 0};
      timed(x, [&] { store_index<<<x.grid, x.block>>>(buf(0), n); });
    }
  // Stride-2 and stride-3 filled access: k = 256 steps over 2^20 columns.
  for (int B : {256, 512})
    for (int p : {14, 17, 20}) {
      int n = 1 << p, ncols = 1 << 20, k = 256;
      Row a{"filled2", "", P({{2, ncols}, {3, k}}), dim3(n / B), dim3(B), size_t(2 * B * 4)};
      timed(a, [&] { filled2<<<a.grid, a.block, a.shared>>>(buf(0), buf(1), ncols, k); });
      Row b{"filled3", "", P({{2, ncols}, {3, k}}), dim3(n / B), dim3(B), size_t(3 * B * 4)};
      timed(b, [&] { filled3<<<b.grid, b.block, b.shared>>>(buf(0), buf(1), ncols, k); });
    }
  // Arithmetic: k in {256, 512, 728}, n x n outputs, n = 2^7..2^9.
  struct { const char* name; void (*f32)(float*, int, int); void (*f64)(double*, int, int); }
  ariths[] = {{"add", arith_add_f32, arith_add_f64}, {"mul", arith_mul_f32, arith_mul_f64},
              {"div", arith_div_f32, arith_div_f64}, {"exp", arith_exp_f32, arith_exp_f64},
              {"rsqrt", arith_rsqrt_f32, arith_rsqrt_f64}, {"sin", arith_sin_f32, nullptr}};
  for (auto bs : {dim3(16, 16), dim3(32, 16)})
    for (auto& a : ariths)
      for (int k : {256, 512, 728})
        for (int n : {128, 256, 512}) {
          dim3 g(n / bs.x, n / bs.y);
          Row r{std::string("arith_") + a.name + "_f32", "", P({{1, n}, {2, k}}), g, bs, 0};
          timed(r, [&] { a.f32<<<g, bs>>>(buf(0), n, k); });
          if (a.f64) {
            Row d{std::string("arith_") + a.name + "_f64", "", P({{1, n}, {2, k}}), g, bs, 0};
            timed(d, [&] { a.f64<<<g, bs>>>((double*)buf(0), n, k); });
          }
        }
  // Empty kernel over an n x n domain, n = 2^8..2^13.
  for (auto bs : {dim3(16, 16), dim3(32, 16)})
    for (int p = 8; p <= 13; ++p) {
      int n = 1 << p;
      Row r{"empty", "", P({{0, n}}), dim3(n / bs.x, n / bs.y), bs, 0};
      timed(r, [&] { empty<<<r.grid, r.block>>>(n); });
    }
  CK(cudaFree(pool));
  return 0;
}
