// SHOC MD: Lennard-Jones forces over a fixed-length neighbour list stored
// column-major (neighbour j of atom i at j * n_atoms + i, so the index reads
// coalesce); the force is only computed inside the cutoff radius, so a
// data-dependent branch holds most of the arithmetic.

extern "C" __global__ void shoc_md(const float4* __restrict__ pos,
                                   const int* __restrict__ neigh, float4* __restrict__ force,
                                   int n_atoms, int max_neighbors, float cutsq, float lj1,
                                   float lj2)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n_atoms)
        return;
    const float4 p = pos[i];
    float fx = 0.0f, fy = 0.0f, fz = 0.0f;
    for (int j = 0; j < max_neighbors; ++j) {
        const float4 q = pos[neigh[j * n_atoms + i]];
        const float dx = p.x - q.x, dy = p.y - q.y, dz = p.z - q.z;
        const float r2 = dx * dx + dy * dy + dz * dz;
        if (r2 < cutsq) {
            const float r2inv = 1.0f / r2;
            const float r6inv = r2inv * r2inv * r2inv;
            const float f = r2inv * r6inv * (lj1 * r6inv - lj2);
            fx += dx * f;
            fy += dy * f;
            fz += dz * f;
        }
    }
    force[i] = make_float4(fx, fy, fz, 0.0f);
}
