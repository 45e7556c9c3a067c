// Parboil "histo"-style histogram (clean-room, from the published description):
// every block builds a private histogram in shared memory with shared-memory
// atomics, then merges its non-empty bins into the global histogram with
// global atomics. The input is skewed (most samples fall into few bins), so
// shared atomics collide as in Parboil's image histograms.
#define HB 1024

extern "C" __global__ void b_histo(const unsigned* __restrict__ in, unsigned* __restrict__ bins,
                                   int n, int per_thread)
{
    __shared__ unsigned h[HB];
    for (int i = threadIdx.x; i < HB; i += blockDim.x)
        h[i] = 0;
    __syncthreads();
    long base = (long)blockIdx.x * blockDim.x * per_thread + threadIdx.x;
    for (int k = 0; k < per_thread; ++k) {
        long i = base + (long)k * blockDim.x;
        if (i < n)
            atomicAdd(&h[in[i] & (HB - 1)], 1u);
    }
    __syncthreads();
    for (int i = threadIdx.x; i < HB; i += blockDim.x) {
        unsigned v = h[i];
        if (v)
            atomicAdd(&bins[i], v);
    }
}
