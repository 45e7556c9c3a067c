// HotSpot 2D: explicit transient thermal simulation of a chip on a regular
// grid, re-implemented from the Rodinia description. One 16x16 block loads
// a tile of temperature and power into shared memory and advances it
// `iterations` time steps in place ("pyramid"): each step the valid region
// shrinks by one cell per side, so a block writes back the inner
// (16 - 2*iterations)^2 cells and neighbouring blocks overlap by the halo.
// Cells outside the chip reuse the centre temperature (insulated border).
//
// Update rule per step (Rx, Ry, Rz thermal resistances, Cap capacitance):
//   T' = T + step/Cap * (P + (T_N + T_S - 2T)/Ry + (T_E + T_W - 2T)/Rx
//                        + (T_amb - T)/Rz)

#define HS_B 16
#define HS_AMB 80.0f

__global__ void hotspot_2d(int iterations, const float* __restrict__ power,
                           const float* __restrict__ temp_src,
                           float* __restrict__ temp_dst, int cols, int rows,
                           int halo_cols, int halo_rows, float cap, float rx,
                           float ry, float rz, float step)
{
    __shared__ float t_in[HS_B][HS_B];
    __shared__ float p_in[HS_B][HS_B];
    __shared__ float t_out[HS_B][HS_B];

    int tx = threadIdx.x;
    int ty = threadIdx.y;
    float sdc = step / cap;
    float rx1 = 1.0f / rx;
    float ry1 = 1.0f / ry;
    float rz1 = 1.0f / rz;

    int inner_rows = HS_B - 2 * halo_rows;
    int inner_cols = HS_B - 2 * halo_cols;
    int y0 = inner_rows * blockIdx.y - halo_rows;
    int x0 = inner_cols * blockIdx.x - halo_cols;
    int gy = y0 + ty;
    int gx = x0 + tx;
    int g = gy * cols + gx;

    if (gy >= 0 && gy < rows && gx >= 0 && gx < cols) {
        t_in[ty][tx] = temp_src[g];
        p_in[ty][tx] = power[g];
    }
    __syncthreads();

    // part of the tile that lies on the chip
    int vy0 = y0 < 0 ? -y0 : 0;
    int vy1 = y0 + HS_B > rows ? rows - 1 - y0 : HS_B - 1;
    int vx0 = x0 < 0 ? -x0 : 0;
    int vx1 = x0 + HS_B > cols ? cols - 1 - x0 : HS_B - 1;
    int yn = max(ty - 1, vy0);
    int ys = min(ty + 1, vy1);
    int xw = max(tx - 1, vx0);
    int xe = min(tx + 1, vx1);
    bool on_chip = ty >= vy0 && ty <= vy1 && tx >= vx0 && tx <= vx1;

    bool computed = false;
    for (int i = 0; i < iterations; ++i) {
        computed = false;
        if (tx >= i + 1 && tx <= HS_B - i - 2 && ty >= i + 1 &&
            ty <= HS_B - i - 2 && on_chip) {
            computed = true;
            float t = t_in[ty][tx];
            t_out[ty][tx] = t + sdc * (p_in[ty][tx] +
                                       (t_in[ys][tx] + t_in[yn][tx] - 2.0f * t) * ry1 +
                                       (t_in[ty][xe] + t_in[ty][xw] - 2.0f * t) * rx1 +
                                       (HS_AMB - t) * rz1);
        }
        __syncthreads();
        if (i == iterations - 1)
            break;
        if (computed)
            t_in[ty][tx] = t_out[ty][tx];
        __syncthreads();
    }
    if (computed)
        temp_dst[g] = t_out[ty][tx];
}
