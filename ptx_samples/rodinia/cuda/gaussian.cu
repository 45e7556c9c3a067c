// Gaussian elimination, the trailing-submatrix update ("Fan2") of one
// elimination step t, re-implemented from the algorithm description of the
// Rodinia Gaussian benchmark: every thread owns one element a[i][j] with
// i > t, j >= t, and subtracts m[i][t] * a[t][j]; the threads of column t
// also update the right-hand side b[i].
//
// Launch shape: 2D blocks of 8x8 threads over the whole n x n matrix (blocks
// outside the trailing submatrix exit at once). 64 threads = 2 warps per
// block gives the 2..64-warp occupancy range of Table 9 (the CUDA Rodinia
// default is a 4x4 block; the OpenCL version the paper measured used 2-warp
// work groups).
//
// Mapping: x = column (coalesced), y = row.

__global__ void gaussian_fan2(float* a, float* b, const float* __restrict__ m,
                              int n, int t)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;  // offset from column t
    int row = blockIdx.y * blockDim.y + threadIdx.y;  // offset from row t+1
    if (col >= n - t || row >= n - 1 - t)
        return;
    int i = row + 1 + t;
    int j = col + t;
    float mult = m[i * n + t];
    a[i * n + j] -= mult * a[t * n + j];
    if (col == 0)
        b[i] -= mult * b[t];
}
