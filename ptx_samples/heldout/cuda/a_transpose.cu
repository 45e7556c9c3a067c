// CUDA samples transpose, the coalesced variant without bank conflicts: a
// 32x32 tile is read row-wise into shared memory (one padding column) and
// written out column-wise; 32x8 threads, each moving 4 elements.

constexpr int TILE = 32, ROWS = 8;

extern "C" __global__ void samples_transpose(float* __restrict__ out,
                                             const float* __restrict__ in, int width,
                                             int height)
{
    __shared__ float tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        tile[threadIdx.y + j][threadIdx.x] = in[(size_t)(y + j) * width + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        out[(size_t)(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}
