// Embedding-bag (sum) forward, as in recommendation models (DLRM style):
// one warp per bag sums `bag` rows of 64 floats chosen by an index array
// from a 16 MB table. The table stays resident in the 50 MB L2, so after the
// first touch the kernel re-reads an L2-resident working set many times.

extern "C" __global__ void b_embbag(const float2* __restrict__ table, const int* __restrict__ idx,
                                    float2* __restrict__ out, int bag, int nbags)
{
    int b = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, lane = threadIdx.x & 31;
    if (b >= nbags)
        return;
    const int* ix = idx + (size_t)b * bag;
    float2 s = make_float2(0.0f, 0.0f);
    for (int p = 0; p < bag; ++p) {
        float2 v = table[(size_t)ix[p] * 32 + lane];
        s.x += v.x;
        s.y += v.y;
    }
    out[(size_t)b * 32 + lane] = s;
}
