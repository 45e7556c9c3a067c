// Validation kernels for warps of a block that end unevenly (bench/uneven_suite).
//
// Every warp reads its own trip count from memory (`trips[global warp]`), so
// the compiler cannot know it and the loop is data dependent; the count is the
// same for the 32 lanes of a warp, so there is no divergence inside a warp.
// The host chooses the counts: balanced, one warp of each block a times the
// block's mean (the rest the remainder), or whole blocks uneven. The mean over
// all warps is the same in every variant, so a model that runs every warp at
// the mean trip count predicts the same time for all of them.

// A dependent FMA chain: eight FMAs per iteration, each waiting on the last,
// so one warp alone issues one FMA per FMA latency (latency bound at low
// occupancy, FP32-pipe bound once a few warps share a scheduler).
extern "C" __global__ void uneven_fma(const int* __restrict__ trips, float* __restrict__ out,
                                      float mul, float add)
{
    const int tid = blockIdx.x * blockDim.x + threadIdx.x;
    const int n = trips[tid >> 5];
    float x = (float)(threadIdx.x & 31) * 0.001f;
    for (int i = 0; i < n; ++i) {
#pragma unroll
        for (int k = 0; k < 8; ++k)
            x = fmaf(x, mul, add);
    }
    out[tid] = x;
}

// A coalesced streaming loop: warp w reads trips[w] consecutive 128-byte rows
// starting at row starts[w] (one float per lane per row), so every load is
// one fully used 128-byte request and every byte comes from DRAM once.
extern "C" __global__ void uneven_load(const int* __restrict__ trips,
                                       const long long* __restrict__ starts,
                                       const float* __restrict__ in, float* __restrict__ out)
{
    const int tid = blockIdx.x * blockDim.x + threadIdx.x;
    const int w = tid >> 5;
    const int n = trips[w];
    const float* p = in + starts[w] * 32 + (threadIdx.x & 31);
    float s = 0.0f;
    for (int i = 0; i < n; ++i)
        s += p[(long long)i * 32];
    out[tid] = s;
}
