// Corpus suite, irregular-access families: loads through index arrays whose distribution
// the host chooses (host/group_corpus.inc). Written from the published descriptions of
// the operations (gather, CSR / ELL sparse matrix-vector products as in Bell & Garland's
// SpMV study, embedding-bag sums as in recommendation models, cell-centred finite-volume
// fluxes over an unstructured mesh).
//
//   family gather  gather_f32, gather_f4  y[i] = x[idx[i]] with 4 B or 16 B elements
//   family spmv    spmv_csr_scalar        one thread per row
//                  spmv_csr_vector        one warp per row, shuffle reduction
//                  spmv_ell               column-major ELLPACK, one thread per row
//   family embbag  embbag_f4, embbag_f1   one warp per bag sums its rows (128 or 32 floats)
//   family mesh    mesh_flux4             4 faces per cell, one scalar, boundary faces < 0
//                  mesh_flux6_f4          6 faces per cell, 4 conserved variables (float4),
//                                         a Rusanov-style flux per face

#define TID (blockIdx.x * blockDim.x + threadIdx.x)

// ------------------------------------------------------------------ gather

extern "C" __global__ void gather_f32(const int* __restrict__ idx, const float* __restrict__ x,
                                      float* __restrict__ y, int n)
{
    const int i = TID;
    if (i < n)
        y[i] = x[idx[i]];
}

extern "C" __global__ void gather_f4(const int* __restrict__ idx, const float4* __restrict__ x,
                                     float4* __restrict__ y, int n)
{
    const int i = TID;
    if (i < n)
        y[i] = x[idx[i]];
}

// ------------------------------------------------------------------ SpMV

extern "C" __global__ void spmv_csr_scalar(const int* __restrict__ rowptr,
                                           const int* __restrict__ cols,
                                           const float* __restrict__ vals,
                                           const float* __restrict__ x, float* __restrict__ y,
                                           int nrows)
{
    const int row = TID;
    if (row >= nrows)
        return;
    float s = 0.0f;
    for (int j = rowptr[row]; j < rowptr[row + 1]; ++j)
        s += vals[j] * x[cols[j]];
    y[row] = s;
}

extern "C" __global__ void spmv_csr_vector(const int* __restrict__ rowptr,
                                           const int* __restrict__ cols,
                                           const float* __restrict__ vals,
                                           const float* __restrict__ x, float* __restrict__ y,
                                           int nrows)
{
    const int row = TID >> 5, lane = threadIdx.x & 31;
    if (row >= nrows)
        return;
    float s = 0.0f;
    for (int j = rowptr[row] + lane; j < rowptr[row + 1]; j += 32)
        s += vals[j] * x[cols[j]];
#pragma unroll
    for (int o = 16; o > 0; o >>= 1)
        s += __shfl_down_sync(0xffffffffu, s, o);
    if (lane == 0)
        y[row] = s;
}

// padding entries carry column = row and value 0
extern "C" __global__ void spmv_ell(const int* __restrict__ cols, const float* __restrict__ vals,
                                    const float* __restrict__ x, float* __restrict__ y,
                                    int nrows, int width)
{
    const int row = TID;
    if (row >= nrows)
        return;
    float s = 0.0f;
    for (int k = 0; k < width; ++k)
        s += vals[k * nrows + row] * x[cols[k * nrows + row]];
    y[row] = s;
}

// ------------------------------------------------------------------ embedding bag

// one warp per bag; lane d sums element d of every row of the bag (dim <= 32 vectors)
extern "C" __global__ void embbag_f4(const int* __restrict__ idx, const int* __restrict__ offsets,
                                     const float4* __restrict__ table, float4* __restrict__ out,
                                     int nbags, int dim)
{
    const int bag = TID >> 5, d = threadIdx.x & 31;
    if (bag >= nbags || d >= dim)
        return;
    float4 s = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    for (int j = offsets[bag]; j < offsets[bag + 1]; ++j) {
        const float4 v = table[(long long)idx[j] * dim + d];
        s.x += v.x;
        s.y += v.y;
        s.z += v.z;
        s.w += v.w;
    }
    out[bag * dim + d] = s;
}

extern "C" __global__ void embbag_f1(const int* __restrict__ idx, const int* __restrict__ offsets,
                                     const float* __restrict__ table, float* __restrict__ out,
                                     int nbags, int dim)
{
    const int bag = TID >> 5, d = threadIdx.x & 31;
    if (bag >= nbags || d >= dim)
        return;
    float s = 0.0f;
    for (int j = offsets[bag]; j < offsets[bag + 1]; ++j)
        s += table[(long long)idx[j] * dim + d];
    out[bag * dim + d] = s;
}

// ------------------------------------------------------------------ mesh fluxes

// nbr is face-major (nbr[f * n + cell]); a negative neighbour is a wall: zero gradient
extern "C" __global__ void mesh_flux4(const int* __restrict__ nbr, const float* __restrict__ u,
                                      float* __restrict__ out, int n)
{
    const int i = TID;
    if (i >= n)
        return;
    const float ui = u[i];
    float s = 0.0f;
#pragma unroll
    for (int f = 0; f < 4; ++f) {
        const int j = nbr[f * n + i];
        if (j >= 0)
            s += u[j] - ui;
    }
    out[i] = ui + 0.2f * s;
}

__device__ __forceinline__ float mesh_pressure(float4 q)
{
    return 0.4f * (q.w - 0.5f * (q.y * q.y + q.z * q.z) / q.x);
}

// state (rho, mx, my, E) per cell; per face the Rusanov flux with a fixed face normal
// per face slot and the max wave speed estimate |u| + c
extern "C" __global__ void mesh_flux6_f4(const int* __restrict__ nbr,
                                         const float4* __restrict__ q,
                                         float4* __restrict__ out, int n)
{
    const int i = TID;
    if (i >= n)
        return;
    const float4 qi = q[i];
    const float pi = mesh_pressure(qi);
    float4 acc = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
#pragma unroll
    for (int f = 0; f < 6; ++f) {
        const int j = nbr[f * n + i];
        const float4 qj = j >= 0 ? q[j] : make_float4(qi.x, -qi.y, -qi.z, qi.w);
        const float nx = (f == 0) ? 1.0f : (f == 1) ? -1.0f : (f == 2) ? 0.5f : (f == 3) ? -0.5f : 0.0f;
        const float ny = (f == 2 || f == 4) ? 0.866f : (f == 3 || f == 5) ? -0.866f : 0.0f;
        const float pj = mesh_pressure(qj);
        const float vi = (qi.y * nx + qi.z * ny) / qi.x, vj = (qj.y * nx + qj.z * ny) / qj.x;
        const float a = fmaxf(fabsf(vi) + sqrtf(1.4f * pi / qi.x), fabsf(vj) + sqrtf(1.4f * pj / qj.x));
        acc.x += 0.5f * (qi.x * vi + qj.x * vj) - 0.5f * a * (qj.x - qi.x);
        acc.y += 0.5f * (qi.y * vi + pi * nx + qj.y * vj + pj * nx) - 0.5f * a * (qj.y - qi.y);
        acc.z += 0.5f * (qi.z * vi + pi * ny + qj.z * vj + pj * ny) - 0.5f * a * (qj.z - qi.z);
        acc.w += 0.5f * ((qi.w + pi) * vi + (qj.w + pj) * vj) - 0.5f * a * (qj.w - qi.w);
    }
    out[i] = acc;
}
