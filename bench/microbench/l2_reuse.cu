// How much re-read data the H100's L2 keeps: a persistent grid reads a footprint of S bytes
// over and over (16 B per lane, ld.global.cg: L2 only, L1 bypassed), every element once per
// pass, so each re-read comes after the whole footprint was touched (reuse distance S).
// While S fits, passes run at L2 bandwidth; beyond it, at DRAM bandwidth. CUDA events
// around the timed passes (one untimed pass first warms L2).
// The second sweep also writes as many bytes as it re-reads, to a stream that never repeats
// (the pattern of a two-pass row kernel writing its output): each re-read then comes after S
// bytes read and S bytes written, and the cliff shows how much written data counts.
// Rows: class,kind,param,value,unit,warps,iterations,notes (as in h100_raw.csv).
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#include "check.cuh"

__global__ void reread(const float4* a, size_t n, int passes, float* out) {
  size_t tid = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  size_t threads = (size_t)gridDim.x * blockDim.x;
  float acc = 0.f;
  for (int p = 0; p < passes; ++p) {
    for (size_t i = tid; i < n; i += threads) {
      float4 v = __ldcg(a + i);
      acc += v.x + v.y + v.z + v.w;
    }
  }
  if (acc == 12345.f) out[0] = acc;  // never true: keeps the loads
}

__global__ void reread_write(const float4* a, size_t n, int passes, float4* w, float* out) {
  size_t tid = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  size_t threads = (size_t)gridDim.x * blockDim.x;
  float acc = 0.f;
  for (int p = 0; p < passes; ++p) {
    for (size_t i = tid; i < n; i += threads) {
      float4 v = __ldcg(a + i);
      acc += v.x + v.y + v.z + v.w;
      __stcg(w + (size_t)p * n + i, v);
    }
  }
  if (acc == 12345.f) out[0] = acc;  // never true: keeps the loads
}

int main() {
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  const size_t max_bytes = 192ull << 20;
  float4* a;
  float* out;
  CK(cudaMalloc(&a, max_bytes));
  CK(cudaMalloc(&out, sizeof(float)));
  CK(cudaMemset(a, 0, max_bytes));
  int blocks = prop.multiProcessorCount * 8, threads = 256;
  printf("device,property,l2_cache_size,%d,bytes,0,0,%s\n", prop.l2CacheSize, prop.name);
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  for (size_t mib = 4; mib <= 192; mib += (mib < 64 ? 2 : 16)) {
    size_t bytes = mib << 20, n = bytes / sizeof(float4);
    int passes = (int)((4ull << 30) / bytes);
    if (passes < 4) passes = 4;
    reread<<<blocks, threads>>>(a, n, 1, out);
    CK(cudaEventRecord(e0));
    reread<<<blocks, threads>>>(a, n, passes, out);
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    float ms;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    double gbs = (double)bytes * passes / (ms * 1e-3) / 1e9;
    printf("l2,reread,%zu_MiB,%.1f,GB/s,%d,%d,footprint re-read with ld.global.cg\n", mib, gbs,
           blocks * threads / 32, passes);
  }
  // Re-read S while writing S per pass to fresh addresses (written bytes: passes x S).
  float4* wbuf;
  const size_t wbytes = 6ull << 30;
  CK(cudaMalloc(&wbuf, wbytes));
  for (size_t mib = 4; mib <= 64; mib += 2) {
    size_t bytes = mib << 20, n = bytes / sizeof(float4);
    int passes = (int)(wbytes / bytes) - 1;
    if (passes > 256) passes = 256;
    reread_write<<<blocks, threads>>>(a, n, 1, wbuf, out);
    CK(cudaEventRecord(e0));
    reread_write<<<blocks, threads>>>(a, n, passes, wbuf, out);
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    float ms;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    double gbs = (double)bytes * passes / (ms * 1e-3) / 1e9;
    printf("l2,reread_write,%zu_MiB,%.1f,GB/s read,%d,%d,footprint re-read while writing as much\n",
           mib, gbs, blocks * threads / 32, passes);
  }
  return 0;
}
