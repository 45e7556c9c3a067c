// Support kernels of the measurement driver (not part of the suite): input
// generation from a counter-based hash, so every run sees the same data
// without host-side generation or transfers, and the L2 flush that precedes
// every timed launch (the timings then see the same cold L2 as Nsight
// Compute's default cache control).

#include <cstdint>

__device__ __forceinline__ uint32_t sup_hash(uint64_t x, uint32_t seed)
{
    x ^= (uint64_t)seed * 0x9E3779B97F4A7C15ull;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return (uint32_t)x;
}

__device__ __forceinline__ float sup_unit(uint64_t i, uint32_t seed)
{
    return (sup_hash(i, seed) >> 8) * (1.0f / 16777216.0f);
}

extern "C" __global__ void sup_fill_f32(float* p, uint64_t n, uint32_t seed,
                                        float lo, float hi)
{
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n;
         i += (uint64_t)gridDim.x * blockDim.x)
        p[i] = lo + (hi - lo) * sup_unit(i, seed);
}

extern "C" __global__ void sup_fill_f64(double* p, uint64_t n, uint32_t seed,
                                        double lo, double hi)
{
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n;
         i += (uint64_t)gridDim.x * blockDim.x)
        p[i] = lo + (hi - lo) * (double)sup_unit(i, seed);
}

extern "C" __global__ void sup_fill_i32(int* p, uint64_t n, uint32_t seed, int lo,
                                        int hi)
{
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n;
         i += (uint64_t)gridDim.x * blockDim.x)
        p[i] = lo + (int)(sup_hash(i, seed) % (uint32_t)(hi - lo + 1));
}

// Needleman-Wunsch score matrices: gap-penalty borders in row 0 / column 0,
// arbitrary earlier scores elsewhere.
extern "C" __global__ void sup_flush(const float4* p, uint64_t n, float* sink)
{
    float acc = 0.0f;
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n;
         i += (uint64_t)gridDim.x * blockDim.x) {
        float4 v = p[i];
        acc += v.x + v.y + v.z + v.w;
    }
    if (acc == 12345.678f)
        sink[0] = acc;
}
