// Corpus suite, stencil families: one sweep of a structured-grid update per launch, each
// thread one output point, out of place unless noted. Written from the textbook / published
// descriptions (Jacobi relaxation, PolyBench's fdtd-2d, the Yee FDTD scheme, separable
// and direct image convolution); the grids are row-major with x fastest.
//
//   family stencil1d  jac1d_r<R>         radius-R average along a line
//   family stencil2d  jac2d_5pt, jac2d_9pt  Jacobi 5-point cross and 9-point box
//   family stencil3d  jac3d_7pt, jac3d_27pt  one thread per point;
//                     jac3d_7pt_zm       one thread per (x, y) column marching in z with
//                                        the three planes in registers
//   family conv2d     conv2d_r<R>        direct (2R+1)^2 convolution, weights folded into
//                                        the code; convrow_r<R>, convcol_r<R>: the two
//                                        passes of a separable convolution
//   family fdtd       fdtd2d_ey/ex/hz    the three updates of a 2-D FDTD step, in place;
//                     fdtd3d_h           the magnetic-field update of a 3-D Yee grid, in place
//   family sweep      sweep_colsum       one thread per column walks down the rows (coalesced);
//                     sweep_rowsum       one thread per row walks along it (each warp load
//                                        touches 32 rows)

#define GX (blockIdx.x * blockDim.x + threadIdx.x)
#define GY (blockIdx.y * blockDim.y + threadIdx.y)
#define GZ (blockIdx.z * blockDim.z + threadIdx.z)

// ------------------------------------------------------------------ 1-D

template <int R>
__device__ __forceinline__ void jac1d(const float* __restrict__ in, float* __restrict__ out, int n)
{
    const int i = GX;
    if (i < R || i >= n - R)
        return;
    float s = 0.0f;
#pragma unroll
    for (int d = -R; d <= R; ++d)
        s += in[i + d];
    out[i] = s * (1.0f / (2 * R + 1));
}

#define JAC1D(R)                                                                              \
    extern "C" __global__ void jac1d_r##R(const float* __restrict__ in, float* __restrict__ out,\
                                          int n)                                              \
    {                                                                                         \
        jac1d<R>(in, out, n);                                                                 \
    }
JAC1D(1)
JAC1D(4)
JAC1D(8)

// ------------------------------------------------------------------ 2-D

extern "C" __global__ void jac2d_5pt(const float* __restrict__ in, float* __restrict__ out,
                                     int nx, int ny)
{
    const int x = GX, y = GY;
    if (x < 1 || x >= nx - 1 || y < 1 || y >= ny - 1)
        return;
    const int i = y * nx + x;
    out[i] = 0.2f * (in[i] + in[i - 1] + in[i + 1] + in[i - nx] + in[i + nx]);
}

extern "C" __global__ void jac2d_9pt(const float* __restrict__ in, float* __restrict__ out,
                                     int nx, int ny)
{
    const int x = GX, y = GY;
    if (x < 1 || x >= nx - 1 || y < 1 || y >= ny - 1)
        return;
    const int i = y * nx + x;
    const float card = in[i - 1] + in[i + 1] + in[i - nx] + in[i + nx];
    const float diag = in[i - nx - 1] + in[i - nx + 1] + in[i + nx - 1] + in[i + nx + 1];
    out[i] = 0.5f * in[i] + 0.1f * card + 0.025f * diag;
}

// direct convolution; the weight 1 / (1 + dx^2 + dy^2) is a constant after unrolling
template <int R>
__device__ __forceinline__ void conv2d(const float* __restrict__ in, float* __restrict__ out,
                                       int nx, int ny)
{
    const int x = GX, y = GY;
    if (x < R || x >= nx - R || y < R || y >= ny - R)
        return;
    const float* c = in + y * nx + x;
    float s = 0.0f;
#pragma unroll
    for (int dy = -R; dy <= R; ++dy)
#pragma unroll
        for (int dx = -R; dx <= R; ++dx)
            s += (1.0f / (1 + dx * dx + dy * dy)) * c[dy * nx + dx];
    out[y * nx + x] = s;
}

template <int R>
__device__ __forceinline__ void convrow(const float* __restrict__ in, float* __restrict__ out,
                                        int nx, int ny)
{
    const int x = GX, y = GY;
    if (x < R || x >= nx - R || y >= ny)
        return;
    const float* c = in + y * nx + x;
    float s = 0.0f;
#pragma unroll
    for (int d = -R; d <= R; ++d)
        s += (1.0f / (1 + d * d)) * c[d];
    out[y * nx + x] = s;
}

template <int R>
__device__ __forceinline__ void convcol(const float* __restrict__ in, float* __restrict__ out,
                                        int nx, int ny)
{
    const int x = GX, y = GY;
    if (x >= nx || y < R || y >= ny - R)
        return;
    const float* c = in + y * nx + x;
    float s = 0.0f;
#pragma unroll
    for (int d = -R; d <= R; ++d)
        s += (1.0f / (1 + d * d)) * c[d * nx];
    out[y * nx + x] = s;
}

#define CONV2D(kind, R)                                                                       \
    extern "C" __global__ void kind##_r##R(const float* __restrict__ in,                      \
                                           float* __restrict__ out, int nx, int ny)           \
    {                                                                                         \
        kind<R>(in, out, nx, ny);                                                             \
    }
CONV2D(conv2d, 2)
CONV2D(conv2d, 3)
CONV2D(conv2d, 4)
CONV2D(convrow, 8)
CONV2D(convcol, 2)
CONV2D(convcol, 8)

// ------------------------------------------------------------------ 3-D

extern "C" __global__ void jac3d_7pt(const float* __restrict__ in, float* __restrict__ out,
                                     int nx, int ny, int nz)
{
    const int x = GX, y = GY, z = GZ;
    if (x < 1 || x >= nx - 1 || y < 1 || y >= ny - 1 || z < 1 || z >= nz - 1)
        return;
    const int plane = nx * ny;
    const int i = z * plane + y * nx + x;
    out[i] = 0.4f * in[i] + 0.1f * (in[i - 1] + in[i + 1] + in[i - nx] + in[i + nx] +
                                     in[i - plane] + in[i + plane]);
}

extern "C" __global__ void jac3d_27pt(const float* __restrict__ in, float* __restrict__ out,
                                      int nx, int ny, int nz)
{
    const int x = GX, y = GY, z = GZ;
    if (x < 1 || x >= nx - 1 || y < 1 || y >= ny - 1 || z < 1 || z >= nz - 1)
        return;
    const int plane = nx * ny;
    const float* c = in + z * plane + y * nx + x;
    float face = 0.0f, edge = 0.0f, corner = 0.0f;
#pragma unroll
    for (int dz = -1; dz <= 1; ++dz)
#pragma unroll
        for (int dy = -1; dy <= 1; ++dy)
#pragma unroll
            for (int dx = -1; dx <= 1; ++dx) {
                const int k = dx * dx + dy * dy + dz * dz;
                const float v = c[dz * plane + dy * nx + dx];
                if (k == 1)
                    face += v;
                else if (k == 2)
                    edge += v;
                else if (k == 3)
                    corner += v;
            }
    out[z * plane + y * nx + x] = 0.25f * c[0] + 0.05f * face + 0.025f * edge + 0.0125f * corner;
}

// z-marching 7-point: each thread owns one (x, y) column and walks z = 1 .. nz - 2
extern "C" __global__ void jac3d_7pt_zm(const float* __restrict__ in, float* __restrict__ out,
                                        int nx, int ny, int nz)
{
    const int x = GX, y = GY;
    if (x < 1 || x >= nx - 1 || y < 1 || y >= ny - 1)
        return;
    const int plane = nx * ny;
    int i = plane + y * nx + x;
    float below = in[i - plane], cur = in[i];
    for (int z = 1; z < nz - 1; ++z) {
        const float above = in[i + plane];
        out[i] = 0.4f * cur +
                 0.1f * (in[i - 1] + in[i + 1] + in[i - nx] + in[i + nx] + below + above);
        below = cur;
        cur = above;
        i += plane;
    }
}

// ------------------------------------------------------------------ FDTD

// PolyBench fdtd-2d, one time step split in its three loops; i is the row (y), j the
// column (x); arrays nx columns by ny rows, updated in place.
extern "C" __global__ void fdtd2d_ey(float* __restrict__ ey, const float* __restrict__ hz,
                                     int nx, int ny)
{
    const int j = GX, i = GY;
    if (j >= nx || i < 1 || i >= ny)
        return;
    const int k = i * nx + j;
    ey[k] = ey[k] - 0.5f * (hz[k] - hz[k - nx]);
}

extern "C" __global__ void fdtd2d_ex(float* __restrict__ ex, const float* __restrict__ hz,
                                     int nx, int ny)
{
    const int j = GX, i = GY;
    if (j < 1 || j >= nx || i >= ny)
        return;
    const int k = i * nx + j;
    ex[k] = ex[k] - 0.5f * (hz[k] - hz[k - 1]);
}

extern "C" __global__ void fdtd2d_hz(float* __restrict__ hz, const float* __restrict__ ex,
                                     const float* __restrict__ ey, int nx, int ny)
{
    const int j = GX, i = GY;
    if (j >= nx - 1 || i >= ny - 1)
        return;
    const int k = i * nx + j;
    hz[k] = hz[k] - 0.7f * (ex[k + 1] - ex[k] + ey[k + nx] - ey[k]);
}

// Yee grid, magnetic update from the curl of E (forward differences), in place
extern "C" __global__ void fdtd3d_h(float* __restrict__ hx, float* __restrict__ hy,
                                    float* __restrict__ hz, const float* __restrict__ ex,
                                    const float* __restrict__ ey, const float* __restrict__ ez,
                                    float c, int nx, int ny, int nz)
{
    const int x = GX, y = GY, z = GZ;
    if (x >= nx - 1 || y >= ny - 1 || z >= nz - 1)
        return;
    const int plane = nx * ny;
    const int i = z * plane + y * nx + x;
    hx[i] += c * ((ey[i + plane] - ey[i]) - (ez[i + nx] - ez[i]));
    hy[i] += c * ((ez[i + 1] - ez[i]) - (ex[i + plane] - ex[i]));
    hz[i] += c * ((ex[i + nx] - ex[i]) - (ey[i + 1] - ey[i]));
}

// ------------------------------------------------------------------ sweeps

extern "C" __global__ void sweep_colsum(const float* __restrict__ in, float* __restrict__ out,
                                        int nx, int ny)
{
    const int x = GX;
    if (x >= nx)
        return;
    float s = 0.0f;
    for (int y = 0; y < ny; ++y)
        s += in[y * nx + x];
    out[x] = s;
}

extern "C" __global__ void sweep_rowsum(const float* __restrict__ in, float* __restrict__ out,
                                        int nx, int ny)
{
    const int y = GX;
    if (y >= ny)
        return;
    const float* row = in + (long long)y * nx;
    float s = 0.0f;
    for (int x = 0; x < nx; ++x)
        s += row[x];
    out[y] = s;
}
