// CUDA samples style tensor-core GEMM through the wmma API: D = alpha A B +
// beta C with A (M x K, row-major) and B (K x N, column-major) in half, C and
// D (M x N, row-major) in float, f32 accumulation. Four warps per block in a
// 2x2 arrangement, each warp a 32x32 tile of D (2x2 fragments of 16x16),
// fragments loaded straight from global memory as in the simple sample.

#include <mma.h>

using namespace nvcuda;

constexpr int F = 16, WT = 32;

extern "C" __global__ void samples_wmma_gemm(const half* __restrict__ A,
                                             const half* __restrict__ B,
                                             const float* __restrict__ C, float* __restrict__ D,
                                             int M, int N, int K, float alpha, float beta)
{
    const int warp = threadIdx.x >> 5;
    const int row0 = (blockIdx.y * 2 + (warp >> 1)) * WT;
    const int col0 = (blockIdx.x * 2 + (warp & 1)) * WT;
    wmma::fragment<wmma::accumulator, F, F, F, float> acc[2][2];
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j)
            wmma::fill_fragment(acc[i][j], 0.0f);
    for (int k = 0; k < K; k += F) {
        wmma::fragment<wmma::matrix_a, F, F, F, half, wmma::row_major> a[2];
        wmma::fragment<wmma::matrix_b, F, F, F, half, wmma::col_major> b[2];
        for (int i = 0; i < 2; ++i)
            wmma::load_matrix_sync(a[i], A + (size_t)(row0 + F * i) * K + k, K);
        for (int j = 0; j < 2; ++j)
            wmma::load_matrix_sync(b[j], B + (size_t)(col0 + F * j) * K + k, K);
        for (int i = 0; i < 2; ++i)
            for (int j = 0; j < 2; ++j)
                wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
    }
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j) {
            wmma::fragment<wmma::accumulator, F, F, F, float> c;
            const size_t off = (size_t)(row0 + F * i) * N + col0 + F * j;
            wmma::load_matrix_sync(c, C + off, N, wmma::mem_row_major);
            for (int e = 0; e < c.num_elements; ++e)
                c.x[e] = alpha * acc[i][j].x[e] + beta * c.x[e];
            wmma::store_matrix_sync(D + off, c, N, wmma::mem_row_major);
        }
}
