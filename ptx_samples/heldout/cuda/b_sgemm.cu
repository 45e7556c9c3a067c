// Parboil "sgemm" (clean-room): C = alpha * A * B + beta * C, all row-major,
// register tiled: a 256-thread block computes a 64x64 tile of C, each thread
// a 4x4 sub-tile held in registers; A (stored transposed) and B tiles of
// depth 16 pass through shared memory. M, N multiples of 64, K of 16.

extern "C" __global__ void b_sgemm(const float* __restrict__ A, const float* __restrict__ B,
                                   float* __restrict__ C, int M, int N, int K, float alpha,
                                   float beta)
{
    __shared__ __align__(16) float As[16][68];
    __shared__ __align__(16) float Bs[16][64];
    int tx = threadIdx.x & 15, ty = threadIdx.x >> 4;
    int bm = blockIdx.y * 64, bn = blockIdx.x * 64;
    int ar = threadIdx.x >> 2, ac = (threadIdx.x & 3) * 4;
    int br = threadIdx.x >> 4, bc = (threadIdx.x & 15) * 4;
    float acc[4][4] = {};
    for (int k0 = 0; k0 < K; k0 += 16) {
        float4 a = *(const float4*)&A[(size_t)(bm + ar) * K + k0 + ac];
        As[ac + 0][ar] = a.x;
        As[ac + 1][ar] = a.y;
        As[ac + 2][ar] = a.z;
        As[ac + 3][ar] = a.w;
        *(float4*)&Bs[br][bc] = *(const float4*)&B[(size_t)(k0 + br) * N + bn + bc];
        __syncthreads();
#pragma unroll
        for (int k = 0; k < 16; ++k) {
            float4 av = *(const float4*)&As[k][ty * 4];
            float4 bv = *(const float4*)&Bs[k][tx * 4];
            float ra[4] = {av.x, av.y, av.z, av.w};
            float rb[4] = {bv.x, bv.y, bv.z, bv.w};
#pragma unroll
            for (int i = 0; i < 4; ++i)
#pragma unroll
                for (int j = 0; j < 4; ++j)
                    acc[i][j] += ra[i] * rb[j];
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        float4* cp = (float4*)&C[(size_t)(bm + ty * 4 + i) * N + bn + tx * 4];
        float4 c = *cp;
        c.x = alpha * acc[i][0] + beta * c.x;
        c.y = alpha * acc[i][1] + beta * c.y;
        c.z = alpha * acc[i][2] + beta * c.z;
        c.w = alpha * acc[i][3] + beta * c.w;
        *cp = c;
    }
}
