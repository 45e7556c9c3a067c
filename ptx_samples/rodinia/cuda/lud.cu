// Blocked right-looking LU decomposition (no pivoting), the two data-parallel
// kernels of one outer step of the Rodinia formulation, 16x16 tiles:
//
// lud_perimeter: with the diagonal tile D = L*U already factorised (L unit
// lower, U upper, stored together), block bx solves the tile to the right of
// D in its block row (R <- L^-1 R, forward substitution per column) and the
// tile below D in its block column (C <- C U^-1, per row). 32 threads: the
// first 16 own one column of R each, the last 16 one row of C. All three
// tiles sit in shared memory; loads and stores are coalesced over 16
// threads, hence the barriers around the triangular solves.
// Grid x = (dim - offset)/16 - 1 perimeter tile pairs; grid y = independent
// matrices (`instance_elems` apart): a single perimeter has too few tiles to
// fill 132 SMs many times over, so the driver aligns a batch.
//
// lud_internal: every trailing tile (16x16 threads) subtracts the product of
// its perimeter column tile and perimeter row tile (both staged in shared
// memory): A[i][j] -= sum_k C[i][k] * R[k][j].

#define LUD_B 16

__global__ void lud_perimeter(float* m, int dim, int offset, int instance_elems)
{
    __shared__ float dia[LUD_B][LUD_B];
    __shared__ float prow[LUD_B][LUD_B];
    __shared__ float pcol[LUD_B][LUD_B];

    int tx = threadIdx.x;
    int idx = tx % LUD_B;
    int half = tx / LUD_B;
    float* a = m + (size_t)blockIdx.y * (size_t)instance_elems;
    int tile = offset + LUD_B * (blockIdx.x + 1);

    // diagonal tile: each half loads 8 rows, one column per thread
    for (int i = 0; i < LUD_B / 2; ++i) {
        int r = half * (LUD_B / 2) + i;
        dia[r][idx] = a[(offset + r) * dim + offset + idx];
    }
    if (half == 0) {
        for (int i = 0; i < LUD_B; ++i)
            prow[i][idx] = a[(offset + i) * dim + tile + idx];
    } else {
        for (int i = 0; i < LUD_B; ++i)
            pcol[i][idx] = a[(tile + i) * dim + offset + idx];
    }
    __syncthreads();

    if (half == 0) {
        // column idx of R: forward substitution with the unit lower factor
        for (int i = 1; i < LUD_B; ++i)
            for (int j = 0; j < i; ++j)
                prow[i][idx] -= dia[i][j] * prow[j][idx];
    } else {
        // row idx of C: solve x U = c
        for (int i = 0; i < LUD_B; ++i) {
            for (int j = 0; j < i; ++j)
                pcol[idx][i] -= pcol[idx][j] * dia[j][i];
            pcol[idx][i] /= dia[i][i];
        }
    }
    __syncthreads();

    if (half == 0) {
        for (int i = 0; i < LUD_B; ++i)
            a[(offset + i) * dim + tile + idx] = prow[i][idx];
    } else {
        for (int i = 0; i < LUD_B; ++i)
            a[(tile + i) * dim + offset + idx] = pcol[i][idx];
    }
}

__global__ void lud_internal(float* m, int dim, int offset)
{
    __shared__ float prow[LUD_B][LUD_B];
    __shared__ float pcol[LUD_B][LUD_B];

    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int row = offset + LUD_B * (blockIdx.y + 1);
    int col = offset + LUD_B * (blockIdx.x + 1);

    prow[ty][tx] = m[(offset + ty) * dim + col + tx];
    pcol[ty][tx] = m[(row + ty) * dim + offset + tx];
    __syncthreads();

    float sum = 0.0f;
    for (int k = 0; k < LUD_B; ++k)
        sum += pcol[ty][k] * prow[k][tx];
    m[(row + ty) * dim + col + tx] -= sum;
}
