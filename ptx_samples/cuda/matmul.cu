// Tiled shared-memory matrix multiplication after Listing 1 of
// pipeline-performance-model-idg (section IV.C; CUDA SDK algorithm, written here from the
// description): each work group of TILE x TILE threads walks a row-strip of A and a
// column-strip of B in TILE-wide steps, staging one tile of each in shared memory between
// two barriers. The inner k loop is fully unrolled by nvcc (TILE independent pairs of shared
// loads feeding a chain of TILE multiply-adds); as in the paper, the outer loop is kept
// rolled with `#pragma unroll 1`, so its trip count is WA / TILE.
// Launch (mmul_08): block (8,8), grid (WB/8, HA/8), WA and WB multiples of 8.
//   Outer-loop trips = WA / 8 (e.g. 64 for WA = 512); inner loop: no loop left in PTX.
// mmul_16 is the same with 16x16 tiles (block (16,16), trips = WA / 16).
#include "portable.cuh"

template <int TILE>
__device__ __forceinline__ void mmul_tile(float *C, const float *A, const float *B, int WA, int WB) {
  __shared__ float SA[TILE][TILE];
  __shared__ float SB[TILE][TILE];

  int tx = threadIdx.x, ty = threadIdx.y;
  int bx = blockIdx.x, by = blockIdx.y;

  int aBegin = WA * TILE * by;
  int aEnd = aBegin + WA;
  int aStep = TILE;
  int bIdx = TILE * bx;
  int bStep = TILE * WB;

  float sum = 0.0f;
#pragma unroll 1
  for (int a = aBegin; a < aEnd; a += aStep, bIdx += bStep) {
    SA[ty][tx] = A[a + WA * ty + tx];
    SB[ty][tx] = B[bIdx + WB * ty + tx];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < TILE; ++k) {
      sum += SA[ty][k] * SB[k][tx];
    }
    __syncthreads();
  }
  int row = by * TILE + ty;
  int col = bx * TILE + tx;
  C[row * WB + col] = sum;
}

__global__ void mmul_08(float *C, const float *A, const float *B, int WA, int WB) {
  mmul_tile<8>(C, A, B, WA, WB);
}

__global__ void mmul_16(float *C, const float *A, const float *B, int WA, int WB) {
  mmul_tile<16>(C, A, B, WA, WB);
}
