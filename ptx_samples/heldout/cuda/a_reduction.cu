// SHOC Reduction: every block sums a grid-strided share of the input, first
// within each warp by shuffles, then across the warps of the block through
// shared memory; one partial sum per block.

constexpr int kWarps = 8;  // blocks of 256 threads

extern "C" __global__ void shoc_reduction(const float* __restrict__ in, float* __restrict__ out,
                                          int n)
{
    __shared__ float partial[kWarps];
    float acc = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        acc += in[i];
    for (int d = 16; d > 0; d >>= 1)
        acc += __shfl_down_sync(0xffffffffu, acc, d);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0)
        partial[warp] = acc;
    __syncthreads();
    if (warp == 0) {
        acc = lane < kWarps ? partial[lane] : 0.0f;
        for (int d = kWarps / 2; d > 0; d >>= 1)
            acc += __shfl_down_sync(0xffffffffu, acc, d);
        if (lane == 0)
            out[blockIdx.x] = acc;
    }
}
