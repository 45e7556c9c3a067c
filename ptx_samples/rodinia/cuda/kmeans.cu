// k-means, the two GPU kernels of the Rodinia formulation:
//
// kmeans_assign: membership step. One thread per point scans all clusters
// and keeps the nearest one (squared Euclidean distance). Features are stored
// feature-major ([nfeatures][npoints]) so that a warp reads consecutive
// points; the cluster centres ([nclusters][nfeatures]) are read by all
// threads at the same address. 1D blocks of 256 threads.
//
// kmeans_swap: the feature-swap transpose that produces that feature-major
// layout from the point-major input ([npoints][nfeatures]). One thread per
// point; 1D blocks of 64 threads (2 warps, the 2..64-warp range of Table 9).

#include <cfloat>

__global__ void kmeans_assign(const float* __restrict__ features,
                              const float* __restrict__ clusters,
                              int* __restrict__ membership, int npoints,
                              int nclusters, int nfeatures)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= npoints)
        return;
    int best = 0;
    float best_dist = FLT_MAX;
    for (int c = 0; c < nclusters; ++c) {
        float dist = 0.0f;
        for (int f = 0; f < nfeatures; ++f) {
            float diff = features[f * npoints + p] - clusters[c * nfeatures + f];
            dist += diff * diff;
        }
        if (dist < best_dist) {
            best_dist = dist;
            best = c;
        }
    }
    membership[p] = best;
}

__global__ void kmeans_swap(const float* __restrict__ in, float* __restrict__ out,
                            int npoints, int nfeatures)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= npoints)
        return;
    for (int f = 0; f < nfeatures; ++f)
        out[f * npoints + p] = in[p * nfeatures + f];
}
