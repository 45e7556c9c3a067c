// Parboil "cutcp" (clean-room): cutoff Coulomb potential on a lattice. Atoms
// are sorted into 4 A bins of 8 slots (empty slots: charge 0, far away); each
// block of 128 threads covers an 8x4x4 patch of lattice points inside one bin
// column and walks the 5x5x5 neighbourhood of bins, one x-row of 5 bins at a
// time through shared memory. Only pairs inside the cutoff (about a quarter)
// take the branch that evaluates the smoothed potential.
#define SLOTS 8

extern "C" __global__ void b_cutcp(const float4* __restrict__ bins, float* __restrict__ lattice,
                                   int nb, float h, float cutoff2)
{
    __shared__ float4 row[5 * SLOTS];
    int ix = threadIdx.x & 7, iy = (threadIdx.x >> 3) & 3, iz = threadIdx.x >> 5;
    int gx = blockIdx.x * 8 + ix, gy = blockIdx.y * 4 + iy, gz = blockIdx.z * 4 + iz;
    float px = gx * h, py = gy * h, pz = gz * h;
    int bx = blockIdx.x, by = blockIdx.y >> 1, bz = blockIdx.z >> 1;
    int x0 = max(bx - 2, 0), x1 = min(bx + 2, nb - 1);
    int nslots = (x1 - x0 + 1) * SLOTS;
    float inv_c2 = 1.0f / cutoff2;
    float e = 0.0f;
    for (int z = max(bz - 2, 0); z <= min(bz + 2, nb - 1); ++z)
        for (int y = max(by - 2, 0); y <= min(by + 2, nb - 1); ++y) {
            __syncthreads();
            if (threadIdx.x < nslots)
                row[threadIdx.x] = bins[((size_t)(z * nb + y) * nb + x0) * SLOTS + threadIdx.x];
            __syncthreads();
            for (int j = 0; j < nslots; ++j) {
                float4 a = row[j];
                float dx = a.x - px, dy = a.y - py, dz = a.z - pz;
                float r2 = dx * dx + dy * dy + dz * dz;
                if (r2 < cutoff2) {
                    float s = 1.0f - r2 * inv_c2;
                    e += a.w * rsqrtf(r2) * s * s;
                }
            }
        }
    int n = nb * 8;
    lattice[((size_t)gz * n + gy) * n + gx] = e;
}
