// Corpus suite, compute and mixed families, written from the textbook descriptions of the
// algorithms (tree and warp-shuffle reductions, tiled matrix transpose, privatised
// histograms, shared-memory tiled and register-tiled matrix products, row softmax,
// all-pairs gravitational N-body).
//
//   family reduce     reduce_smem   grid-stride partial sums, shared-memory tree per block
//                     reduce_shfl   grid-stride float4 partial sums, warp shuffles
//   family transpose  transpose_naive        coalesced reads, 32-row-strided writes
//                     transpose_tiled        32x32 shared tile padded to 33 columns
//                     transpose_tiled_nopad  the same tile unpadded (32-way bank conflicts
//                                            on the column reads)
//   family histogram  hist_smem     256 bins privatised per block in shared memory,
//                                   merged with global atomics
//                     hist_global   global atomics straight into nbins bins
//   family gemm       gemm_tile16   16x16 shared tiles, one output per thread
//                     gemm_reg64    64x64 block tile, 4x4 outputs per thread in registers
//                     gemm_batch32  one 32x32x32 product per block
//   family softmax    softmax_rows  one warp per row: max, sum of exponentials, write
//   family nbody      nbody_accel   all-pairs accelerations, 256-body shared tiles

#define TID (blockIdx.x * blockDim.x + threadIdx.x)

// ------------------------------------------------------------------ reductions

extern "C" __global__ void reduce_smem(const float* __restrict__ in, float* __restrict__ out, int n)
{
    __shared__ float s[256];
    float acc = 0.0f;
    for (int i = TID; i < n; i += gridDim.x * blockDim.x)
        acc += in[i];
    s[threadIdx.x] = acc;
    __syncthreads();
    for (int w = 128; w > 0; w >>= 1) {
        if (threadIdx.x < w)
            s[threadIdx.x] += s[threadIdx.x + w];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        out[blockIdx.x] = s[0];
}

extern "C" __global__ void reduce_shfl(const float4* __restrict__ in, float* __restrict__ out, int n4)
{
    __shared__ float s[8];
    float acc = 0.0f;
    for (int i = TID; i < n4; i += gridDim.x * blockDim.x) {
        const float4 v = in[i];
        acc += (v.x + v.y) + (v.z + v.w);
    }
#pragma unroll
    for (int o = 16; o > 0; o >>= 1)
        acc += __shfl_down_sync(0xffffffffu, acc, o);
    if ((threadIdx.x & 31) == 0)
        s[threadIdx.x >> 5] = acc;
    __syncthreads();
    if (threadIdx.x < 32) {
        acc = threadIdx.x < 8 ? s[threadIdx.x] : 0.0f;
#pragma unroll
        for (int o = 4; o > 0; o >>= 1)
            acc += __shfl_down_sync(0xffffffffu, acc, o);
        if (threadIdx.x == 0)
            out[blockIdx.x] = acc;
    }
}

// ------------------------------------------------------------------ transposes
// in: ny rows of nx; out: nx rows of ny. Blocks of 32x8 threads, each a 32x32 tile.

extern "C" __global__ void transpose_naive(const float* __restrict__ in, float* __restrict__ out,
                                           int nx, int ny)
{
    const int x = blockIdx.x * 32 + threadIdx.x;
    const int y0 = blockIdx.y * 32 + threadIdx.y;
#pragma unroll
    for (int k = 0; k < 32; k += 8)
        out[x * ny + y0 + k] = in[(y0 + k) * nx + x];
}

template <int PAD>
__device__ __forceinline__ void transpose_tile(const float* __restrict__ in, float* __restrict__ out,
                                               int nx, int ny)
{
    __shared__ float t[32][32 + PAD];
    const int x = blockIdx.x * 32 + threadIdx.x;
    const int y0 = blockIdx.y * 32 + threadIdx.y;
#pragma unroll
    for (int k = 0; k < 32; k += 8)
        t[threadIdx.y + k][threadIdx.x] = in[(y0 + k) * nx + x];
    __syncthreads();
    const int ox = blockIdx.y * 32 + threadIdx.x;
    const int oy0 = blockIdx.x * 32 + threadIdx.y;
#pragma unroll
    for (int k = 0; k < 32; k += 8)
        out[(oy0 + k) * ny + ox] = t[threadIdx.x][threadIdx.y + k];
}

extern "C" __global__ void transpose_tiled(const float* __restrict__ in, float* __restrict__ out,
                                           int nx, int ny)
{
    transpose_tile<1>(in, out, nx, ny);
}

extern "C" __global__ void transpose_tiled_nopad(const float* __restrict__ in,
                                                 float* __restrict__ out, int nx, int ny)
{
    transpose_tile<0>(in, out, nx, ny);
}

// ------------------------------------------------------------------ histograms
// bins accumulate over launches (never reset by the kernel)

extern "C" __global__ void hist_smem(const unsigned* __restrict__ keys, unsigned* __restrict__ bins,
                                     int n)
{
    __shared__ unsigned h[256];
    h[threadIdx.x] = 0;
    __syncthreads();
    for (int i = TID; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&h[keys[i] & 255u], 1u);
    __syncthreads();
    if (h[threadIdx.x] != 0)
        atomicAdd(&bins[threadIdx.x], h[threadIdx.x]);
}

extern "C" __global__ void hist_global(const unsigned* __restrict__ keys, unsigned* __restrict__ bins,
                                       int n, int nbins)
{
    const int i = TID;
    if (i < n)
        atomicAdd(&bins[keys[i] % (unsigned)nbins], 1u);
}

// ------------------------------------------------------------------ matrix products
// C = A B, all n x n row-major, n a multiple of the tile

extern "C" __global__ void gemm_tile16(const float* __restrict__ a, const float* __restrict__ b,
                                       float* __restrict__ c, int n)
{
    __shared__ float as[16][16], bs[16][16];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * 16 + ty, col = blockIdx.x * 16 + tx;
    float s = 0.0f;
    for (int k0 = 0; k0 < n; k0 += 16) {
        as[ty][tx] = a[row * n + k0 + tx];
        bs[ty][tx] = b[(k0 + ty) * n + col];
        __syncthreads();
#pragma unroll
        for (int k = 0; k < 16; ++k)
            s += as[ty][k] * bs[k][tx];
        __syncthreads();
    }
    c[row * n + col] = s;
}

// 256 threads (16x16), block tile 64x64, k-slab 16; thread (tx, ty) owns rows ty + 16 i
// and columns tx + 16 j, i, j < 4
extern "C" __global__ void gemm_reg64(const float* __restrict__ a, const float* __restrict__ b,
                                      float* __restrict__ c, int n)
{
    __shared__ float as[16][64 + 1];  // as[k][row]
    __shared__ float bs[16][64];      // bs[k][col]
    const int tx = threadIdx.x, ty = threadIdx.y, t = ty * 16 + tx;
    const int r0 = blockIdx.y * 64, c0 = blockIdx.x * 64;
    float acc[4][4] = {};
    for (int k0 = 0; k0 < n; k0 += 16) {
#pragma unroll
        for (int q = 0; q < 4; ++q) {
            const int e = t + 256 * q;  // 0 .. 1023
            const int ar = e >> 4, ak = e & 15;
            as[ak][ar] = a[(r0 + ar) * n + k0 + ak];
            const int bk = e >> 6, bc = e & 63;
            bs[bk][bc] = b[(k0 + bk) * n + c0 + bc];
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < 16; ++k) {
            float av[4], bv[4];
#pragma unroll
            for (int i = 0; i < 4; ++i) {
                av[i] = as[k][ty + 16 * i];
                bv[i] = bs[k][tx + 16 * i];
            }
#pragma unroll
            for (int i = 0; i < 4; ++i)
#pragma unroll
                for (int j = 0; j < 4; ++j)
                    acc[i][j] += av[i] * bv[j];
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j)
            c[(r0 + ty + 16 * i) * n + c0 + tx + 16 * j] = acc[i][j];
}

// one 32x32x32 product per block of 256 threads; thread t computes row t / 8, columns
// (t % 8) + 8 j
extern "C" __global__ void gemm_batch32(const float* __restrict__ a, const float* __restrict__ b,
                                        float* __restrict__ c)
{
    __shared__ float as[32][33], bs[32][33];
    const int t = threadIdx.x;
    const long long base = (long long)blockIdx.x * 1024;
#pragma unroll
    for (int q = 0; q < 4; ++q) {
        const int e = t + 256 * q;
        as[e >> 5][e & 31] = a[base + e];
        bs[e >> 5][e & 31] = b[base + e];
    }
    __syncthreads();
    const int r = t >> 3, c0 = t & 7;
    float acc[4] = {};
#pragma unroll
    for (int k = 0; k < 32; ++k) {
        const float av = as[r][k];
#pragma unroll
        for (int j = 0; j < 4; ++j)
            acc[j] += av * bs[k][c0 + 8 * j];
    }
#pragma unroll
    for (int j = 0; j < 4; ++j)
        c[base + r * 32 + c0 + 8 * j] = acc[j];
}

// ------------------------------------------------------------------ softmax

extern "C" __global__ void softmax_rows(const float* __restrict__ in, float* __restrict__ out,
                                        int rows, int len)
{
    const int row = TID >> 5, lane = threadIdx.x & 31;
    if (row >= rows)
        return;
    const float* x = in + (long long)row * len;
    float m = -3.0e38f;
    for (int j = lane; j < len; j += 32)
        m = fmaxf(m, x[j]);
#pragma unroll
    for (int o = 16; o > 0; o >>= 1)
        m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
    float s = 0.0f;
    for (int j = lane; j < len; j += 32)
        s += __expf(x[j] - m);
#pragma unroll
    for (int o = 16; o > 0; o >>= 1)
        s += __shfl_xor_sync(0xffffffffu, s, o);
    const float inv = 1.0f / s;
    float* y = out + (long long)row * len;
    for (int j = lane; j < len; j += 32)
        y[j] = __expf(x[j] - m) * inv;
}

// ------------------------------------------------------------------ N-body
// body i (one per thread) against bodies 0 .. m - 1 (m a multiple of 256); pos.w = mass

extern "C" __global__ void nbody_accel(const float4* __restrict__ pos, float4* __restrict__ acc,
                                       int n, int m, float eps2)
{
    __shared__ float4 tile[256];
    const int i = TID;
    const float4 p = pos[i < n ? i : 0];
    float ax = 0.0f, ay = 0.0f, az = 0.0f;
    for (int j0 = 0; j0 < m; j0 += 256) {
        tile[threadIdx.x] = pos[j0 + threadIdx.x];
        __syncthreads();
#pragma unroll 8
        for (int j = 0; j < 256; ++j) {
            const float4 q = tile[j];
            const float dx = q.x - p.x, dy = q.y - p.y, dz = q.z - p.z;
            const float r2 = dx * dx + dy * dy + dz * dz + eps2;
            const float inv = rsqrtf(r2);
            const float f = q.w * inv * inv * inv;
            ax += f * dx;
            ay += f * dy;
            az += f * dz;
        }
        __syncthreads();
    }
    if (i < n)
        acc[i] = make_float4(ax, ay, az, 0.0f);
}
