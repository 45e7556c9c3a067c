// SHOC SpMV, CSR format, y = A x: the scalar kernel gives each row to one
// thread (rows of very different lengths diverge inside a warp), the vector
// kernel gives each row to one warp and reduces the lane sums by shuffles.
// x is gathered through the column index array.

extern "C" __global__ void shoc_spmv_csr_scalar(const float* __restrict__ val,
                                                const int* __restrict__ cols,
                                                const int* __restrict__ row_delim,
                                                const float* __restrict__ x,
                                                float* __restrict__ y, int dim)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < dim) {
        float t = 0.0f;
        const int end = row_delim[row + 1];
        for (int j = row_delim[row]; j < end; ++j)
            t += val[j] * x[cols[j]];
        y[row] = t;
    }
}

extern "C" __global__ void shoc_spmv_csr_vector(const float* __restrict__ val,
                                                const int* __restrict__ cols,
                                                const int* __restrict__ row_delim,
                                                const float* __restrict__ x,
                                                float* __restrict__ y, int dim)
{
    const int lane = threadIdx.x & 31;
    const int row = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    if (row < dim) {
        float t = 0.0f;
        const int end = row_delim[row + 1];
        for (int j = row_delim[row] + lane; j < end; j += 32)
            t += val[j] * x[cols[j]];
        for (int d = 16; d > 0; d >>= 1)
            t += __shfl_down_sync(0xffffffffu, t, d);
        if (lane == 0)
            y[row] = t;
    }
}
