// CK(call): a CUDA runtime call that must succeed; on failure prints the error, the file,
// the line and the call, and exits. Shared by the suite (common.cuh) and the standalone
// benchmarks.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CK(x)                                                                  \
  do {                                                                         \
    cudaError_t e_ = (x);                                                      \
    if (e_ != cudaSuccess) {                                                   \
      fprintf(stderr, "CUDA error %s at %s:%d: %s\n", cudaGetErrorString(e_),  \
              __FILE__, __LINE__, #x);                                         \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)
