// Parboil "lbm" StreamCollide (clean-room): one D3Q19 BGK lattice-Boltzmann
// step, structure-of-arrays f[q][z][y][x], push streaming with periodic
// wrap; obstacle cells bounce back (stream the reversed distributions).
// DRAM bound, 19 floats read and 19 written per cell.

extern "C" __global__ void b_lbm(const float* __restrict__ src, float* __restrict__ dst,
                                 const int* __restrict__ flags, int nx, int ny, int nz, float omega)
{
    const int cx[19] = {0, 1, -1, 0, 0, 0, 0, 1, -1, 1, -1, 1, -1, 1, -1, 0, 0, 0, 0};
    const int cy[19] = {0, 0, 0, 1, -1, 0, 0, 1, 1, -1, -1, 0, 0, 0, 0, 1, -1, 1, -1};
    const int cz[19] = {0, 0, 0, 0, 0, 1, -1, 0, 0, 0, 0, 1, 1, -1, -1, 1, 1, -1, -1};
    const int opp[19] = {0, 2, 1, 4, 3, 6, 5, 10, 9, 8, 7, 14, 13, 12, 11, 18, 17, 16, 15};
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y, z = blockIdx.z;
    size_t ncell = (size_t)nx * ny * nz;
    size_t c = ((size_t)z * ny + y) * nx + x;
    float f[19];
#pragma unroll
    for (int q = 0; q < 19; ++q)
        f[q] = src[q * ncell + c];
    float o[19];
    if (flags[c]) {
#pragma unroll
        for (int q = 0; q < 19; ++q)
            o[q] = f[opp[q]];
    } else {
        float rho = 0.0f, ux = 0.0f, uy = 0.0f, uz = 0.0f;
#pragma unroll
        for (int q = 0; q < 19; ++q) {
            rho += f[q];
            ux += cx[q] * f[q];
            uy += cy[q] * f[q];
            uz += cz[q] * f[q];
        }
        float ir = 1.0f / rho;
        ux *= ir;
        uy *= ir;
        uz *= ir;
        float u2 = 1.5f * (ux * ux + uy * uy + uz * uz);
#pragma unroll
        for (int q = 0; q < 19; ++q) {
            float w = q == 0 ? 1.0f / 3.0f : (q < 7 ? 1.0f / 18.0f : 1.0f / 36.0f);
            float cu = 3.0f * (cx[q] * ux + cy[q] * uy + cz[q] * uz);
            float feq = w * rho * (1.0f + cu + 0.5f * cu * cu - u2);
            o[q] = f[q] - omega * (f[q] - feq);
        }
    }
#pragma unroll
    for (int q = 0; q < 19; ++q) {
        int xx = x + cx[q], yy = y + cy[q], zz = z + cz[q];
        xx = xx < 0 ? nx - 1 : (xx == nx ? 0 : xx);
        yy = yy < 0 ? ny - 1 : (yy == ny ? 0 : yy);
        zz = zz < 0 ? nz - 1 : (zz == nz ? 0 : zz);
        dst[q * ncell + ((size_t)zz * ny + yy) * nx + xx] = o[q];
    }
}
