// Lonestar-style graph kernels (clean-room, topology/data driven, one thread
// per vertex) over a CSR graph with power-law degrees.
//
// b_bfs: one BFS level: every vertex of the frontier worklist scans its out-
// edges and lowers the distance of unvisited neighbours to level + 1 with an
// atomic min. Distances are read from `dist` (the state before the level) and
// written to `dist_out`, so every launch does the same work.
extern "C" __global__ void b_bfs(const int* __restrict__ row, const int* __restrict__ col,
                                 const int* __restrict__ frontier, int nf,
                                 const int* __restrict__ dist, int* __restrict__ dist_out,
                                 int level)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nf)
        return;
    int u = frontier[i];
    int end = row[u + 1];
    for (int e = row[u]; e < end; ++e) {
        int v = col[e];
        if (dist[v] > level + 1)
            atomicMin(&dist_out[v], level + 1);
    }
}

// b_pagerank: one pull-style PageRank iteration: every vertex gathers
// rank / out-degree of its in-neighbours through the transposed CSR.
extern "C" __global__ void b_pagerank(const int* __restrict__ rowT, const int* __restrict__ colT,
                                      const float* __restrict__ pr, const int* __restrict__ outdeg,
                                      float* __restrict__ pr_out, int n, float damping)
{
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n)
        return;
    float sum = 0.0f;
    int end = rowT[v + 1];
    for (int e = rowT[v]; e < end; ++e) {
        int u = colT[e];
        sum += pr[u] / (float)outdeg[u];
    }
    pr_out[v] = (1.0f - damping) / (float)n + damping * sum;
}
