// Validation kernels for branches on data the compiler and the launch cannot see
// (bench/branch_suite).
//
// Every thread reads a flag from memory and runs a long side (a loop whose trip
// count is a kernel parameter, so the launch fixes it) when the flag is set and a
// short side otherwise. The host chooses which threads set their flag: every
// thread, a share of whole warps, a share of whole blocks, or a share of single
// lanes (so that warps diverge). The PTX and the launch are the same for every
// variant of a kernel; only the flags differ, as they would with real data.

// Long side: four independent chains of eight FMAs per iteration, so a warp
// alone is latency bound and a few warps per scheduler fill the FP32 pipe.
extern "C" __global__ void branch_fma(const int* __restrict__ flags, float* __restrict__ out,
                                      float mul, float add, int n)
{
    const int tid = blockIdx.x * blockDim.x + threadIdx.x;
    float x = (float)(threadIdx.x & 31) * 0.001f;
    if (flags[tid]) {
        float a = x, b = x + 0.25f, c = x + 0.5f, d = x + 0.75f;
        for (int i = 0; i < n; ++i) {
#pragma unroll
            for (int k = 0; k < 8; ++k) {
                a = fmaf(a, mul, add);
                b = fmaf(b, mul, add);
                c = fmaf(c, mul, add);
                d = fmaf(d, mul, add);
            }
        }
        x = (a + b) + (c + d);
    } else {
        x = x * mul - add;
    }
    out[tid] = x;
}

// Long side: a streaming loop; at iteration i warp w reads row i * warps + w
// (one float per lane, 128 B per row), so the warps of a wave read adjacent rows
// and every byte comes from DRAM once.
extern "C" __global__ void branch_load(const int* __restrict__ flags, const float* __restrict__ in,
                                       float* __restrict__ out, int n)
{
    const int tid = blockIdx.x * blockDim.x + threadIdx.x;
    const long long warps = ((long long)gridDim.x * blockDim.x) >> 5;
    const long long w = tid >> 5;
    float s = 0.0f;
    if (flags[tid]) {
        const float* p = in + w * 32 + (threadIdx.x & 31);
        for (int i = 0; i < n; ++i)
            s += p[(long long)i * warps * 32];
    } else {
        s = -1.0f;
    }
    out[tid] = s;
}
