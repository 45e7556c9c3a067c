// SHOC Stencil2D: one 9-point weighted-average step (centre, cardinal and
// diagonal weights) over a grid with a one-cell halo; each block stages its
// tile plus halo in shared memory.

constexpr int TX = 32, TY = 8;

extern "C" __global__ void shoc_stencil2d(const float* __restrict__ in, float* __restrict__ out,
                                          int pitch, float w_center, float w_cardinal,
                                          float w_diagonal)
{
    __shared__ float t[TY + 2][TX + 2];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int gx = blockIdx.x * TX + tx + 1, gy = blockIdx.y * TY + ty + 1;
    const float* c = in + (size_t)gy * pitch + gx;
    t[ty + 1][tx + 1] = c[0];
    if (ty == 0)
        t[0][tx + 1] = c[-pitch];
    if (ty == TY - 1)
        t[TY + 1][tx + 1] = c[pitch];
    if (tx == 0) {
        t[ty + 1][0] = c[-1];
        if (ty == 0)
            t[0][0] = c[-pitch - 1];
        if (ty == TY - 1)
            t[TY + 1][0] = c[pitch - 1];
    }
    if (tx == TX - 1) {
        t[ty + 1][TX + 1] = c[1];
        if (ty == 0)
            t[0][TX + 1] = c[-pitch + 1];
        if (ty == TY - 1)
            t[TY + 1][TX + 1] = c[pitch + 1];
    }
    __syncthreads();
    const int x = tx + 1, y = ty + 1;
    const float card = t[y - 1][x] + t[y + 1][x] + t[y][x - 1] + t[y][x + 1];
    const float diag = t[y - 1][x - 1] + t[y - 1][x + 1] + t[y + 1][x - 1] + t[y + 1][x + 1];
    out[(size_t)gy * pitch + gx] = w_center * t[y][x] + w_cardinal * card + w_diagonal * diag;
}
