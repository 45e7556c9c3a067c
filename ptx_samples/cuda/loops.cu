// Loops whose trip counts follow from the launch (every loop is `#pragma unroll 1`, so
// one source iteration is one PTX iteration and the counts below hold at PTX level):
//  - grid_stride: for (i = tid; i < n; i += gridDim.x * blockDim.x). With grid 4, block 128
//    (512 threads) and n = 10000: threads with global id g run ceil((10000 - g) / 512)
//    iterations, i.e. 20 for g < 272 and 19 for g >= 272 (warps 0-7 run 20, warps 9-15 run 19,
//    warp 8 (g = 256..287) is split: lanes 0-15 run 20, lanes 16-31 run 19).
//  - param_trips: for (k = 0; k < m; ++k), m a kernel parameter: m trips for every thread.
//  - nested: outer for (r = 0; r < rows; ++r), inner for (c = 0; c < cols; ++c):
//    outer `rows` trips, inner `cols` trips per outer trip (rows * cols in total).
//  - triangular: inner loop bound depends on the outer index: for (r < rows) for (c <= r):
//    inner trips r + 1, total rows * (rows + 1) / 2.
//  - thread_dependent: for (k = 0; k < threadIdx.x % 8; ++k): lane l runs l % 8 trips, so a warp
//    runs 7 iterations with a shrinking active mask.
// Launch: block 128, grid 4 unless stated; params as above (e.g. m = 100, rows = 16, cols = 8).
#include "portable.cuh"

__global__ void grid_stride(const float *x, float *y, float a, int n) {
  int stride = gridDim.x * blockDim.x;
#pragma unroll 1
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    y[i] = a * x[i] + y[i];
  }
}

__global__ void param_trips(const float *x, float *y, int m) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = x[i];
#pragma unroll 1
  for (int k = 0; k < m; ++k) {
    acc = acc * 0.999f + 1.0f;
  }
  y[i] = acc;
}

__global__ void nested(const float *mat, float *out, int rows, int cols) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.0f;
#pragma unroll 1
  for (int r = 0; r < rows; ++r) {
#pragma unroll 1
    for (int c = 0; c < cols; ++c) {
      acc += mat[(r * cols + c) % 1024] * (float)i;
    }
  }
  out[i] = acc;
}

__global__ void triangular(float *out, int rows) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.0f;
#pragma unroll 1
  for (int r = 0; r < rows; ++r) {
#pragma unroll 1
    for (int c = 0; c <= r; ++c) {
      acc = acc * 0.5f + (float)(c ^ i);
    }
  }
  out[i] = acc;
}

__global__ void thread_dependent(const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = x[i];
  int trips = threadIdx.x % 8;
#pragma unroll 1
  for (int k = 0; k < trips; ++k) {
    acc = acc * acc + 0.25f;
  }
  y[i] = acc;
}
