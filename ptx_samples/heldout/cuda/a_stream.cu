// SHOC Triad and the STREAM Scale kernel: DRAM-bandwidth-bound streaming, one
// element per thread. Scale writes as many bytes as it reads and runs for
// hundreds of waves.

extern "C" __global__ void shoc_triad(const float* __restrict__ a, const float* __restrict__ b,
                                      float* __restrict__ c, float s, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + s * b[i];
}

// FP64 like the STREAM benchmark itself; the index is 64-bit because the
// arrays are larger than 2^31 bytes.
extern "C" __global__ void stream_scale(const double* __restrict__ a, double* __restrict__ b,
                                        float s, long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        b[i] = (double)s * a[i];
}
