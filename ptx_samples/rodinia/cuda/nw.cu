// Needleman-Wunsch global alignment score matrix, the first tiled kernel of
// the Rodinia formulation (upper-left half of the block anti-diagonals):
// one block of 16 threads fills one 16x16 tile. The tile with its north
// border row and west border column lives in shared memory, the substitution
// scores of the tile as well; the tile is swept anti-diagonal by anti-diagonal
// (31 of them) with a barrier after each one.
//
// score/ref are (cols x cols) row-major int matrices, cols = 16*T + 1 (row 0
// and column 0 hold the gap-penalty borders). Block x selects the tile on
// block anti-diagonal `diag` (tile row bx, tile column diag-1-bx).
// Block y selects one of several independent problems (`instance_elems`
// apart): one anti-diagonal of one matrix holds at most T tiles, far too few
// blocks to fill 132 SMs many times over, so the driver aligns a batch.

#define NW_TILE 16

__device__ __forceinline__ int nw_max3(int a, int b, int c)
{
    return max(a, max(b, c));
}

__global__ void nw_kernel1(int* score, const int* __restrict__ ref, int cols,
                           int penalty, int diag, int instance_elems)
{
    __shared__ int s[NW_TILE + 1][NW_TILE + 1];
    __shared__ int r[NW_TILE][NW_TILE];

    int tx = threadIdx.x;
    int tile_row = blockIdx.x;
    int tile_col = diag - 1 - blockIdx.x;
    size_t base = (size_t)blockIdx.y * (size_t)instance_elems;
    int* sc = score + base;
    const int* rf = ref + base;
    // index of the border cell above-left of the tile
    int origin = cols * (NW_TILE * tile_row) + NW_TILE * tile_col;

    if (tx == 0)
        s[0][0] = sc[origin];
    for (int k = 0; k < NW_TILE; ++k)
        r[k][tx] = rf[origin + cols * (k + 1) + tx + 1];
    s[0][tx + 1] = sc[origin + tx + 1];
    s[tx + 1][0] = sc[origin + cols * (tx + 1)];
    __syncthreads();

    // anti-diagonals with 1..16 cells
    for (int d = 0; d < NW_TILE; ++d) {
        if (tx <= d) {
            int y = tx + 1;
            int x = d - tx + 1;
            s[y][x] = nw_max3(s[y - 1][x - 1] + r[y - 1][x - 1],
                              s[y][x - 1] - penalty, s[y - 1][x] - penalty);
        }
        __syncthreads();
    }
    // anti-diagonals with 15..1 cells
    for (int d = NW_TILE - 2; d >= 0; --d) {
        if (tx <= d) {
            int y = tx + NW_TILE - d;
            int x = NW_TILE - tx;
            s[y][x] = nw_max3(s[y - 1][x - 1] + r[y - 1][x - 1],
                              s[y][x - 1] - penalty, s[y - 1][x] - penalty);
        }
        __syncthreads();
    }

    for (int k = 0; k < NW_TILE; ++k)
        sc[origin + cols * (k + 1) + tx + 1] = s[k + 1][tx + 1];
}
