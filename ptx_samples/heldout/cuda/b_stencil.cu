// Parboil "stencil" (clean-room): one 7-point Jacobi step on a 3D grid, each
// thread marching along z with the lower, centre and upper values in
// registers. Blocks are deliberately 16 threads (half a warp) in x, one row of
// y per block. Boundary cells are not written.

extern "C" __global__ void b_stencil16(float c0, float c1, const float* __restrict__ a0,
                                       float* __restrict__ anext, int nx, int ny, int nz)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y;
    if (i < 1 || i >= nx - 1 || j < 1 || j >= ny - 1)
        return;
    size_t plane = (size_t)nx * ny;
    size_t c = (size_t)j * nx + i;
    float below = a0[c], cur = a0[c + plane];
    for (int k = 1; k < nz - 1; ++k) {
        size_t p = c + (size_t)k * plane;
        float above = a0[p + plane];
        anext[p] = c1 * (below + above + a0[p - 1] + a0[p + 1] + a0[p - nx] + a0[p + nx]) -
                   c0 * cur;
        below = cur;
        cur = above;
    }
}
