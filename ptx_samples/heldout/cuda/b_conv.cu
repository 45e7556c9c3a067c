// 1D convolution (the row pass of the CUDA samples' separable convolution,
// clean-room) with a cp.async double-buffered pipeline in the manner of the
// CUDA samples' asynchronous global-to-shared copies: while a block computes
// tile t from one shared buffer, the 16-byte cp.async copies of tile t + 1
// fill the other. The input is padded by R elements on each side, so tiles
// need no boundary tests.
#define R 16
#define TILE 1024
#define SPAN (TILE + 2 * R)

__device__ __forceinline__ void load_tile(float* dst, const float* src)
{
    for (int c = threadIdx.x; c < SPAN / 4; c += blockDim.x) {
        unsigned s;
        // shared-window address of dst (what __cvta_generic_to_shared gives)
        asm("{ .reg .u64 t; cvta.to.shared.u64 t, %1; cvt.u32.u64 %0, t; }" : "=r"(s) : "l"(dst + 4 * c));
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(s), "l"(src + 4 * c));
    }
    asm volatile("cp.async.commit_group;");
}

extern "C" __global__ void b_conv1d(const float* __restrict__ in, float* __restrict__ out,
                                    const float* __restrict__ w, int tiles_per_block)
{
    __shared__ __align__(16) float buf[2][SPAN];
    __shared__ float ws[2 * R + 1];
    if (threadIdx.x < 2 * R + 1)
        ws[threadIdx.x] = w[threadIdx.x];
    size_t t0 = (size_t)blockIdx.x * tiles_per_block;
    load_tile(buf[0], in + t0 * TILE);
    for (int t = 0; t < tiles_per_block; ++t) {
        if (t + 1 < tiles_per_block)
            load_tile(buf[(t + 1) & 1], in + (t0 + t + 1) * TILE);
        else
            asm volatile("cp.async.commit_group;");
        asm volatile("cp.async.wait_group 1;" ::: "memory");
        __syncthreads();
        const float* b = buf[t & 1];
        for (int p = threadIdx.x; p < TILE; p += blockDim.x) {
            float s = 0.0f;
#pragma unroll
            for (int k = 0; k <= 2 * R; ++k)
                s += ws[k] * b[p + k];
            out[(t0 + t) * TILE + p] = s;
        }
        __syncthreads();
    }
}
