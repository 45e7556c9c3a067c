// Source of the large parser-benchmark module (ptx_samples/large/big_debug.ptx): one
// templated stencil-and-reduce kernel instantiated for 6 element types x 12 window widths x
// 8 combine operations (576 kernels),
// built with -G so every instantiation carries full DWARF sections. Not a sample with
// meaningful launch parameters; it exists to give the parser a real multi-megabyte PTX file.
#include "portable.cuh"

template <typename T, int W>
struct Window {
  T v[W];
};

template <typename T, int W, int OP>
__device__ T combine(const Window<T, W> &w, T bias) {
  T acc = bias;
  for (int k = 0; k < W; ++k) {
    if (OP % 4 == 0) acc = acc * T(3) + w.v[k] - T(k);
    else if (OP % 4 == 1) acc = acc + w.v[k] * w.v[(k + 1) % W];
    else if (OP % 4 == 2) acc = acc > w.v[k] ? acc : w.v[k];
    else acc = acc * T(OP) + w.v[W - 1 - k];
  }
  return acc;
}

template <typename T, int W, int OP>
__global__ void stencil_reduce(const T *in, T *out, T bias, int n) {
  __shared__ T tile[256 + W];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x] = i < n ? in[i] : T(0);
  if (threadIdx.x < W) {
    int j = i + blockDim.x;
    tile[blockDim.x + threadIdx.x] = j < n ? in[j] : T(0);
  }
  __syncthreads();
  Window<T, W> w;
  for (int k = 0; k < W; ++k) {
    w.v[k] = tile[threadIdx.x + k];
  }
  T r = combine<T, W, OP>(w, bias);
  for (int s = 128; s > 0; s >>= 1) {
    __syncthreads();
    if (threadIdx.x < s) {
      tile[threadIdx.x] = tile[threadIdx.x] + tile[threadIdx.x + s];
    }
  }
  if (i < n) {
    out[i] = r + tile[0];
  }
}

#define INST_T(T, OP)                                                                          \
  template __global__ void stencil_reduce<T, 1, OP>(const T *, T *, T, int);                  \
  template __global__ void stencil_reduce<T, 2, OP>(const T *, T *, T, int);                  \
  template __global__ void stencil_reduce<T, 3, OP>(const T *, T *, T, int);                  \
  template __global__ void stencil_reduce<T, 4, OP>(const T *, T *, T, int);                  \
  template __global__ void stencil_reduce<T, 5, OP>(const T *, T *, T, int);                  \
  template __global__ void stencil_reduce<T, 6, OP>(const T *, T *, T, int);                  \
  template __global__ void stencil_reduce<T, 7, OP>(const T *, T *, T, int);                  \
  template __global__ void stencil_reduce<T, 8, OP>(const T *, T *, T, int);                  \
  template __global__ void stencil_reduce<T, 12, OP>(const T *, T *, T, int);                 \
  template __global__ void stencil_reduce<T, 16, OP>(const T *, T *, T, int);                 \
  template __global__ void stencil_reduce<T, 24, OP>(const T *, T *, T, int);                 \
  template __global__ void stencil_reduce<T, 32, OP>(const T *, T *, T, int);

INST_T(float, 0)
INST_T(float, 1)
INST_T(float, 2)
INST_T(float, 3)
INST_T(float, 4)
INST_T(float, 5)
INST_T(float, 6)
INST_T(float, 7)
INST_T(double, 0)
INST_T(double, 1)
INST_T(double, 2)
INST_T(double, 3)
INST_T(double, 4)
INST_T(double, 5)
INST_T(double, 6)
INST_T(double, 7)
INST_T(int, 0)
INST_T(int, 1)
INST_T(int, 2)
INST_T(int, 3)
INST_T(int, 4)
INST_T(int, 5)
INST_T(int, 6)
INST_T(int, 7)
INST_T(unsigned, 0)
INST_T(unsigned, 1)
INST_T(unsigned, 2)
INST_T(unsigned, 3)
INST_T(unsigned, 4)
INST_T(unsigned, 5)
INST_T(unsigned, 6)
INST_T(unsigned, 7)
INST_T(long long, 0)
INST_T(long long, 1)
INST_T(long long, 2)
INST_T(long long, 3)
INST_T(long long, 4)
INST_T(long long, 5)
INST_T(long long, 6)
INST_T(long long, 7)
INST_T(unsigned long long, 0)
INST_T(unsigned long long, 1)
INST_T(unsigned long long, 2)
INST_T(unsigned long long, 3)
INST_T(unsigned long long, 4)
INST_T(unsigned long long, 5)
INST_T(unsigned long long, 6)
INST_T(unsigned long long, 7)
