// Parboil "mri-q" ComputeQ (clean-room): for every voxel, Q = sum over the
// k-space samples of phiMag[k] * (cos, sin)(2*pi * k . x). Compute bound on
// the SFU (sin/cos approximations); the samples are staged through shared
// memory in chunks of 256 (Parboil: constant memory).
#define KCHUNK 256

extern "C" __global__ void b_mriq(int numK, const float4* __restrict__ kv, const float* __restrict__ x,
                                  const float* __restrict__ y, const float* __restrict__ z,
                                  float* __restrict__ qr, float* __restrict__ qi)
{
    __shared__ float4 ks[KCHUNK];
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    float sx = x[t], sy = y[t], sz = z[t];
    float ar = 0.0f, ai = 0.0f;
    for (int k0 = 0; k0 < numK; k0 += KCHUNK) {
        __syncthreads();
        ks[threadIdx.x] = kv[k0 + threadIdx.x];
        __syncthreads();
#pragma unroll 4
        for (int j = 0; j < KCHUNK; ++j) {
            float4 k = ks[j];
            float a = 6.2831853f * (k.x * sx + k.y * sy + k.z * sz);
            float s, c;
            __sincosf(a, &s, &c);
            ar += k.w * c;
            ai += k.w * s;
        }
    }
    qr[t] = ar;
    qi[t] = ai;
}
