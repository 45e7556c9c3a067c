// Tensor-core kernels (nvcc only, sm_75 and newer):
//  - wmma_gemm_16x16x16: one warp per 16x16 output tile, K stepped by 16 through the
//    wmma API (half inputs, float accumulators); K/16 iterations of the k loop.
//  - mma_m16n8k16: one warp computes a single m16n8k16 product with mma.sync written as
//    inline PTX, operands loaded from shared memory with ldmatrix (sm_80+; on sm_75 the
//    smaller m16n8k8 shape is used twice, which that target supports).
// Launch: wmma_gemm_16x16x16 block 32, grid (N/16, M/16), M, N, K multiples of 16;
//         mma_m16n8k16 block 32, grid 1.
#include <mma.h>
#include <cuda_fp16.h>

using namespace nvcuda;

__global__ void wmma_gemm_16x16x16(const half *A, const half *B, float *C, int M, int N, int K) {
  int tileM = blockIdx.y, tileN = blockIdx.x;
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> b;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
  wmma::fill_fragment(acc, 0.0f);
#pragma unroll 1
  for (int k = 0; k < K; k += 16) {
    wmma::load_matrix_sync(a, A + tileM * 16 * K + k, K);
    wmma::load_matrix_sync(b, B + tileN * 16 * K + k, K);
    wmma::mma_sync(acc, a, b, acc);
  }
  wmma::store_matrix_sync(C + tileM * 16 * N + tileN * 16, acc, N, wmma::mem_row_major);
}

__global__ void mma_m16n8k16(const half *A, const half *B, float *D) {
  __shared__ __align__(16) half sA[16 * 16];
  __shared__ __align__(16) half sB[8 * 16];
  int lane = threadIdx.x;
  for (int e = lane; e < 16 * 16; e += 32) sA[e] = A[e];
  for (int e = lane; e < 8 * 16; e += 32) sB[e] = B[e];
  __syncthreads();

  unsigned a[4], b[2];
  unsigned aAddr = (unsigned)__cvta_generic_to_shared(&sA[(lane % 16) * 16 + (lane / 16) * 8]);
  unsigned bAddr = (unsigned)__cvta_generic_to_shared(&sB[(lane % 8) * 16 + ((lane / 8) % 2) * 8]);
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(a[0]), "=r"(a[1]), "=r"(a[2]), "=r"(a[3])
               : "r"(aAddr));
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];"
               : "=r"(b[0]), "=r"(b[1])
               : "r"(bAddr));
  float d[4] = {0.0f, 0.0f, 0.0f, 0.0f};
#if __CUDA_ARCH__ >= 800
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
               "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#else
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 "
               "{%0, %1, %2, %3}, {%4, %5}, {%6}, {%0, %1, %2, %3};"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(b[0]));
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 "
               "{%0, %1, %2, %3}, {%4, %5}, {%6}, {%0, %1, %2, %3};"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[2]), "r"(a[3]), "r"(b[1]));
#endif
  for (int r = 0; r < 4; ++r) D[lane * 4 + r] = d[r];
}
