// CFD: explicit finite-volume solver of the 3D compressible Euler equations
// on an unstructured mesh of nelr elements (the Rodinia "euler3d"
// formulation), the three kernels of one Runge-Kutta stage. Every array is
// structure-of-arrays: variable v of element i at [i + v*nelr] with
// v = density, momentum x/y/z, energy density. 1D blocks of 192 threads, one
// thread per element.
//
// cfd_step_factor: local time step 0.5 / (sqrt(area) * (|u| + c)) with the
// speed of sound c = sqrt(gamma p / rho).
//
// cfd_time_step: v_new = v_old + step_factor / (RK + 1 - j) * flux.
//
// cfd_compute_flux: for each of the 4 faces, with the face normal n
// (normals[i + (face + d*4)*nelr], d = x, y, z): an interior neighbour
// (index >= 0) contributes a dissipative term
// -|n| * 0.2 * 0.5 * (|u_i| + |u_nb| + c_i + c_nb) * (q_i - q_nb) plus the
// central flux 0.5 * n . (F_i + F_nb); a wall face (-1) adds the pressure
// n * p_i to the momentum; a far-field face (-2) takes the central flux with
// the free-stream state held in constant memory.

#define CFD_GAMMA 1.4f
#define CFD_NNB 4
#define CFD_NVAR 5
#define CFD_RK 3
#define CFD_SMOOTHING 0.2f

// free stream: 5 conserved variables, then the x/y/z components of the flux
// of momentum x, momentum y, momentum z and energy (3 each)
__constant__ float cfd_ff[17];

struct Vec3 {
    float x, y, z;
};

__device__ __forceinline__ float cfd_pressure(float density, float energy,
                                              float speed_sqd)
{
    return (CFD_GAMMA - 1.0f) * (energy - 0.5f * density * speed_sqd);
}

__device__ __forceinline__ void cfd_flux_contributions(
    float density, Vec3 mom, float energy, float pressure, Vec3 vel, Vec3& fx,
    Vec3& fy, Vec3& fz, Vec3& fe)
{
    fx.x = vel.x * mom.x + pressure;
    fx.y = vel.x * mom.y;
    fx.z = vel.x * mom.z;
    fy.x = fx.y;
    fy.y = vel.y * mom.y + pressure;
    fy.z = vel.y * mom.z;
    fz.x = fx.z;
    fz.y = fy.z;
    fz.z = vel.z * mom.z + pressure;
    float de_p = energy + pressure;
    fe.x = vel.x * de_p;
    fe.y = vel.y * de_p;
    fe.z = vel.z * de_p;
}

__global__ void cfd_step_factor(int nelr, const float* __restrict__ vars,
                                const float* __restrict__ areas,
                                float* __restrict__ step_factors)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nelr)
        return;
    float density = vars[i];
    Vec3 mom = {vars[i + 1 * nelr], vars[i + 2 * nelr], vars[i + 3 * nelr]};
    float energy = vars[i + 4 * nelr];
    Vec3 vel = {mom.x / density, mom.y / density, mom.z / density};
    float speed_sqd = vel.x * vel.x + vel.y * vel.y + vel.z * vel.z;
    float pressure = cfd_pressure(density, energy, speed_sqd);
    float sound = sqrtf(CFD_GAMMA * pressure / density);
    step_factors[i] = 0.5f / (sqrtf(areas[i]) * (sqrtf(speed_sqd) + sound));
}

__global__ void cfd_time_step(int j, int nelr, const float* __restrict__ old_vars,
                              float* __restrict__ vars,
                              const float* __restrict__ step_factors,
                              const float* __restrict__ fluxes)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nelr)
        return;
    float factor = step_factors[i] / float(CFD_RK + 1 - j);
    for (int v = 0; v < CFD_NVAR; ++v)
        vars[i + v * nelr] = old_vars[i + v * nelr] + factor * fluxes[i + v * nelr];
}

__global__ void cfd_compute_flux(int nelr, const int* __restrict__ neighbors,
                                 const float* __restrict__ normals,
                                 const float* __restrict__ vars,
                                 float* __restrict__ fluxes)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nelr)
        return;

    float density_i = vars[i];
    Vec3 mom_i = {vars[i + 1 * nelr], vars[i + 2 * nelr], vars[i + 3 * nelr]};
    float energy_i = vars[i + 4 * nelr];
    Vec3 vel_i = {mom_i.x / density_i, mom_i.y / density_i, mom_i.z / density_i};
    float speed_sqd_i = vel_i.x * vel_i.x + vel_i.y * vel_i.y + vel_i.z * vel_i.z;
    float speed_i = sqrtf(speed_sqd_i);
    float pressure_i = cfd_pressure(density_i, energy_i, speed_sqd_i);
    float sound_i = sqrtf(CFD_GAMMA * pressure_i / density_i);
    Vec3 fx_i, fy_i, fz_i, fe_i;
    cfd_flux_contributions(density_i, mom_i, energy_i, pressure_i, vel_i, fx_i,
                           fy_i, fz_i, fe_i);

    float flux_density = 0.0f;
    Vec3 flux_mom = {0.0f, 0.0f, 0.0f};
    float flux_energy = 0.0f;

    for (int face = 0; face < CFD_NNB; ++face) {
        int nb = neighbors[i + face * nelr];
        Vec3 nrm = {normals[i + (face + 0 * CFD_NNB) * nelr],
                    normals[i + (face + 1 * CFD_NNB) * nelr],
                    normals[i + (face + 2 * CFD_NNB) * nelr]};
        float nrm_len = sqrtf(nrm.x * nrm.x + nrm.y * nrm.y + nrm.z * nrm.z);

        if (nb >= 0) {
            float density_nb = vars[nb];
            Vec3 mom_nb = {vars[nb + 1 * nelr], vars[nb + 2 * nelr],
                           vars[nb + 3 * nelr]};
            float energy_nb = vars[nb + 4 * nelr];
            Vec3 vel_nb = {mom_nb.x / density_nb, mom_nb.y / density_nb,
                           mom_nb.z / density_nb};
            float speed_sqd_nb =
                vel_nb.x * vel_nb.x + vel_nb.y * vel_nb.y + vel_nb.z * vel_nb.z;
            float pressure_nb = cfd_pressure(density_nb, energy_nb, speed_sqd_nb);
            float sound_nb = sqrtf(CFD_GAMMA * pressure_nb / density_nb);
            Vec3 fx_nb, fy_nb, fz_nb, fe_nb;
            cfd_flux_contributions(density_nb, mom_nb, energy_nb, pressure_nb,
                                   vel_nb, fx_nb, fy_nb, fz_nb, fe_nb);

            float factor = -nrm_len * CFD_SMOOTHING * 0.5f *
                           (speed_i + sqrtf(speed_sqd_nb) + sound_i + sound_nb);
            flux_density += factor * (density_i - density_nb);
            flux_energy += factor * (energy_i - energy_nb);
            flux_mom.x += factor * (mom_i.x - mom_nb.x);
            flux_mom.y += factor * (mom_i.y - mom_nb.y);
            flux_mom.z += factor * (mom_i.z - mom_nb.z);

            factor = 0.5f * nrm.x;
            flux_density += factor * (mom_nb.x + mom_i.x);
            flux_energy += factor * (fe_nb.x + fe_i.x);
            flux_mom.x += factor * (fx_nb.x + fx_i.x);
            flux_mom.y += factor * (fy_nb.x + fy_i.x);
            flux_mom.z += factor * (fz_nb.x + fz_i.x);

            factor = 0.5f * nrm.y;
            flux_density += factor * (mom_nb.y + mom_i.y);
            flux_energy += factor * (fe_nb.y + fe_i.y);
            flux_mom.x += factor * (fx_nb.y + fx_i.y);
            flux_mom.y += factor * (fy_nb.y + fy_i.y);
            flux_mom.z += factor * (fz_nb.y + fz_i.y);

            factor = 0.5f * nrm.z;
            flux_density += factor * (mom_nb.z + mom_i.z);
            flux_energy += factor * (fe_nb.z + fe_i.z);
            flux_mom.x += factor * (fx_nb.z + fx_i.z);
            flux_mom.y += factor * (fy_nb.z + fy_i.z);
            flux_mom.z += factor * (fz_nb.z + fz_i.z);
        } else if (nb == -1) {
            flux_mom.x += nrm.x * pressure_i;
            flux_mom.y += nrm.y * pressure_i;
            flux_mom.z += nrm.z * pressure_i;
        } else if (nb == -2) {
            float factor = 0.5f * nrm.x;
            flux_density += factor * (cfd_ff[1] + mom_i.x);
            flux_energy += factor * (cfd_ff[14] + fe_i.x);
            flux_mom.x += factor * (cfd_ff[5] + fx_i.x);
            flux_mom.y += factor * (cfd_ff[8] + fy_i.x);
            flux_mom.z += factor * (cfd_ff[11] + fz_i.x);

            factor = 0.5f * nrm.y;
            flux_density += factor * (cfd_ff[2] + mom_i.y);
            flux_energy += factor * (cfd_ff[15] + fe_i.y);
            flux_mom.x += factor * (cfd_ff[6] + fx_i.y);
            flux_mom.y += factor * (cfd_ff[9] + fy_i.y);
            flux_mom.z += factor * (cfd_ff[12] + fz_i.y);

            factor = 0.5f * nrm.z;
            flux_density += factor * (cfd_ff[3] + mom_i.z);
            flux_energy += factor * (cfd_ff[16] + fe_i.z);
            flux_mom.x += factor * (cfd_ff[7] + fx_i.z);
            flux_mom.y += factor * (cfd_ff[10] + fy_i.z);
            flux_mom.z += factor * (cfd_ff[13] + fz_i.z);
        }
    }

    fluxes[i + 0 * nelr] = flux_density;
    fluxes[i + 1 * nelr] = flux_mom.x;
    fluxes[i + 2 * nelr] = flux_mom.y;
    fluxes[i + 3 * nelr] = flux_mom.z;
    fluxes[i + 4 * nelr] = flux_energy;
}
