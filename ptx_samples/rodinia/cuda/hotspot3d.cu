// HotSpot 3D: the 7-point stencil of a stacked-die thermal simulation,
// re-implemented from the Rodinia description. Blocks of 64x4 threads cover
// the x-y plane; every thread marches up the z axis, keeping the cells below,
// at, and above the current layer in registers, and reads its four in-plane
// neighbours from global memory. Cells outside the chip reuse the centre
// value (insulated border). nz >= 2.

#define HS3_AMB 80.0f

__global__ void hotspot3d(const float* __restrict__ power,
                          const float* __restrict__ tin, float* __restrict__ tout,
                          float sdc, int nx, int ny, int nz, float ce, float cw,
                          float cn, float cs, float ct, float cb, float cc)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= nx || j >= ny)
        return;
    int plane = nx * ny;
    int c = i + j * nx;
    int w = (i == 0) ? 0 : -1;
    int e = (i == nx - 1) ? 0 : 1;
    int n = (j == 0) ? 0 : -nx;
    int s = (j == ny - 1) ? 0 : nx;

    float below = tin[c];
    float here = below;
    float above = tin[c + plane];
    tout[c] = cc * here + cw * tin[c + w] + ce * tin[c + e] + cs * tin[c + s] +
              cn * tin[c + n] + cb * below + ct * above + sdc * power[c] +
              ct * HS3_AMB;
    for (int k = 1; k < nz - 1; ++k) {
        c += plane;
        below = here;
        here = above;
        above = tin[c + plane];
        tout[c] = cc * here + cw * tin[c + w] + ce * tin[c + e] + cs * tin[c + s] +
                  cn * tin[c + n] + cb * below + ct * above + sdc * power[c] +
                  ct * HS3_AMB;
    }
    c += plane;
    below = here;
    here = above;
    tout[c] = cc * here + cw * tin[c + w] + ce * tin[c + e] + cs * tin[c + s] +
              cn * tin[c + n] + cb * below + ct * here + sdc * power[c] +
              ct * HS3_AMB;
}
