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

extern "C" __global__ void sup_fill_i32(int* p, uint64_t n, uint32_t seed, int lo,
                                        int hi)
{
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n;
         i += (uint64_t)gridDim.x * blockDim.x)
        p[i] = lo + (int)(sup_hash(i, seed) % (uint32_t)(hi - lo + 1));
}

// Needleman-Wunsch score matrices: gap-penalty borders in row 0 / column 0,
// arbitrary earlier scores elsewhere.
extern "C" __global__ void sup_nw_score(int* p, uint64_t n, int cols,
                                        int instance_elems, int penalty)
{
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n;
         i += (uint64_t)gridDim.x * blockDim.x) {
        int k = (int)(i % (uint64_t)instance_elems);
        int r = k / cols;
        int c = k % cols;
        if (r == 0)
            p[i] = -penalty * c;
        else if (c == 0)
            p[i] = -penalty * r;
        else
            p[i] = -(int)(sup_hash(i, 7) % 200u);
    }
}

// LU matrices with a unit diagonal and small off-diagonal entries: the
// kernels are re-run on their own output many times, and a unit diagonal
// keeps that iteration bounded (no overflow or denormals to perturb timing).
extern "C" __global__ void sup_lud(float* p, uint64_t n, int dim, int instance_elems)
{
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n;
         i += (uint64_t)gridDim.x * blockDim.x) {
        int k = (int)(i % (uint64_t)instance_elems);
        int r = k / dim;
        int c = k % dim;
        p[i] = (r == c) ? 1.0f : 0.02f * (sup_unit(i, 11) - 0.5f);
    }
}

// CFD conserved variables of a gently perturbed subsonic free stream.
extern "C" __global__ void sup_cfd_vars(float* v, int nelr, uint32_t seed)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < nelr;
         i += gridDim.x * blockDim.x) {
        float rho = 1.0f + 0.2f * (sup_unit(i, seed) - 0.5f);
        float ux = 0.5f + 0.1f * (sup_unit(i, seed + 1) - 0.5f);
        float uy = 0.1f * (sup_unit(i, seed + 2) - 0.5f);
        float uz = 0.1f * (sup_unit(i, seed + 3) - 0.5f);
        float pr = 0.7f + 0.1f * (sup_unit(i, seed + 4) - 0.5f);
        v[i] = rho;
        v[i + 1 * nelr] = rho * ux;
        v[i + 2 * nelr] = rho * uy;
        v[i + 3 * nelr] = rho * uz;
        v[i + 4 * nelr] = pr / 0.4f + 0.5f * rho * (ux * ux + uy * uy + uz * uz);
    }
}

// Face neighbours of a synthetic mesh numbered with locality (like a
// bandwidth-reduced unstructured mesh): faces 0/1 -> i -/+ 1, faces 2/3 ->
// i -/+ 64, each replaced with probability 1/4 by a random element within
// +-4096; about 1% wall faces (-1) and 1% far-field faces (-2); neighbours
// past the mesh ends are far-field faces.
extern "C" __global__ void sup_cfd_neighbors(int* nb, int nelr)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < nelr;
         i += gridDim.x * blockDim.x) {
        for (int f = 0; f < 4; ++f) {
            uint64_t key = (uint64_t)i * 4 + f;
            uint32_t h = sup_hash(key, 21);
            int j;
            uint32_t kind = h % 100u;
            if (kind == 0) {
                j = -1;
            } else if (kind == 1) {
                j = -2;
            } else {
                int step = (f < 2) ? 1 : 64;
                j = (f % 2 == 0) ? i - step : i + step;
                if ((h >> 8) % 4u == 0)
                    j = i + (int)((h >> 12) % 8193u) - 4096;
                if (j < 0 || j >= nelr)
                    j = -2;
            }
            nb[i + f * nelr] = j;
        }
    }
}

// Reads a buffer larger than L2 so that the next kernel starts from a cold
// L2 holding only clean lines. The store never happens for finite data.
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
