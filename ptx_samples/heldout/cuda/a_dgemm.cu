// SHOC DGEMM re-implemented as a shared-memory tiled FP64 GEMM, C = alpha A B
// (row-major, n x n): 16x16 threads compute a 32x32 tile of C, each thread
// 2x2 elements 16 apart so that loads and stores stay coalesced.

constexpr int T = 32, H = 16;

extern "C" __global__ void shoc_dgemm(const double* __restrict__ A, const double* __restrict__ B,
                                      double* __restrict__ C, int n, float alpha)
{
    __shared__ double As[T][T];
    __shared__ double Bs[T][T + 1];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    double c00 = 0.0, c01 = 0.0, c10 = 0.0, c11 = 0.0;
    for (int k0 = 0; k0 < n; k0 += T) {
        for (int i = 0; i < 2; ++i)
            for (int j = 0; j < 2; ++j) {
                As[ty + H * i][tx + H * j] = A[(size_t)(row + H * i) * n + k0 + tx + H * j];
                Bs[ty + H * i][tx + H * j] = B[(size_t)(k0 + ty + H * i) * n + col + H * j];
            }
        __syncthreads();
#pragma unroll 8
        for (int k = 0; k < T; ++k) {
            const double a0 = As[ty][k], a1 = As[ty + H][k];
            const double b0 = Bs[k][tx], b1 = Bs[k][tx + H];
            c00 = fma(a0, b0, c00);
            c01 = fma(a0, b1, c01);
            c10 = fma(a1, b0, c10);
            c11 = fma(a1, b1, c11);
        }
        __syncthreads();
    }
    const double al = alpha;
    C[(size_t)row * n + col] = al * c00;
    C[(size_t)row * n + col + H] = al * c01;
    C[(size_t)(row + H) * n + col] = al * c10;
    C[(size_t)(row + H) * n + col + H] = al * c11;
}
