// How many of a kernel's written bytes reach DRAM before it ends (issue 33, the static
// bandwidth floor without counters). The L2 writes back dirty lines as it needs room, so the
// last written data of a launch can still sit in L2 when the kernel ends, and the DRAM bytes
// the counters measure for the launch are fewer than the bytes it writes. Streaming writes
// (y[i] = i) and copies (y[i] = x[i], as many bytes read as written) over 1 MiB to 512 MiB,
// 256-thread blocks, one float4 per thread; run under Nsight Compute with the suites' cache
// control (write_back.sh), which flushes the L2 before each launch and reads each launch's
// DRAM bytes.
//
// Build: nvcc -O3 -arch=sm_90 -std=c++17 -o write_back write_back.cu
#include <cstdint>
#include <cstdio>
#include <cuda_runtime.h>

#include "check.cuh"

__global__ void k_write(float4* __restrict__ y, uint64_t n) {
  uint64_t t = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (t < n) y[t] = make_float4((float)t, 1.0f, 2.0f, 3.0f);
}

__global__ void k_copy(const float4* __restrict__ x, float4* __restrict__ y, uint64_t n) {
  uint64_t t = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (t < n) y[t] = x[t];
}

int main() {
  const uint64_t mib[] = {1, 2, 4, 8, 12, 16, 20, 24, 32, 40, 48, 64, 96, 128, 256, 512};
  const uint64_t most = 512ull << 20;
  float4 *x, *y;
  CK(cudaMalloc(&x, most));
  CK(cudaMalloc(&y, most));
  CK(cudaMemset(x, 0, most));
  CK(cudaMemset(y, 0, most));
  CK(cudaDeviceSynchronize());
  printf("launch,kernel,written_bytes,read_bytes\n");
  int launch = 0;
  for (int copy = 0; copy < 2; ++copy) {
    for (uint64_t m : mib) {
      const uint64_t bytes = m << 20, n = bytes / sizeof(float4);
      const unsigned blocks = (unsigned)((n + 255) / 256);
      if (copy)
        k_copy<<<blocks, 256>>>(x, y, n);
      else
        k_write<<<blocks, 256>>>(y, n);
      CK(cudaGetLastError());
      CK(cudaDeviceSynchronize());
      printf("%d,%s,%llu,%llu\n", launch++, copy ? "copy" : "write",
             (unsigned long long)bytes, (unsigned long long)(copy ? bytes : 0));
    }
  }
  return 0;
}
