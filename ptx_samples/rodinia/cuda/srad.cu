// SRAD (speckle-reducing anisotropic diffusion), the two kernels of one
// diffusion step of the Rodinia formulation, 16x16 blocks with shared tiles:
//
// srad1: loads the image tile with a one-cell halo (clamped at the image
// border), writes the four directional derivatives and the diffusion
// coefficient c = 1 / (1 + (q^2 - q0^2) / (q0^2 (1 + q0^2))), clamped to
// [0, 1], where q^2 is the instantaneous coefficient of variation built from
// the normalised gradient magnitude and Laplacian.
//
// srad2: loads the coefficient tile plus its south and east halo, forms the
// divergence D = cN dN + cS dS + cW dW + cE dE (cN = cW = c of the cell,
// cS / cE = c of the south / east neighbour) and updates the image in place:
// J += lambda/4 * D.

#define SR_B 16

__global__ void srad1(float* __restrict__ dn, float* __restrict__ ds,
                      float* __restrict__ dw, float* __restrict__ de,
                      const float* __restrict__ j, float* __restrict__ c,
                      int cols, int rows, float q0sqr)
{
    __shared__ float t[SR_B + 2][SR_B + 2];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int col = blockIdx.x * SR_B + tx;
    int row = blockIdx.y * SR_B + ty;
    int g = row * cols + col;

    t[ty + 1][tx + 1] = j[g];
    if (ty == 0)
        t[0][tx + 1] = j[max(row - 1, 0) * cols + col];
    if (ty == SR_B - 1)
        t[SR_B + 1][tx + 1] = j[min(row + 1, rows - 1) * cols + col];
    if (tx == 0)
        t[ty + 1][0] = j[row * cols + max(col - 1, 0)];
    if (tx == SR_B - 1)
        t[ty + 1][SR_B + 1] = j[row * cols + min(col + 1, cols - 1)];
    __syncthreads();

    float jc = t[ty + 1][tx + 1];
    float n = t[ty][tx + 1] - jc;
    float s = t[ty + 2][tx + 1] - jc;
    float w = t[ty + 1][tx] - jc;
    float e = t[ty + 1][tx + 2] - jc;

    float g2 = (n * n + s * s + w * w + e * e) / (jc * jc);
    float l = (n + s + w + e) / jc;
    float num = 0.5f * g2 - (1.0f / 16.0f) * (l * l);
    float den = 1.0f + 0.25f * l;
    float qsqr = num / (den * den);
    den = (qsqr - q0sqr) / (q0sqr * (1.0f + q0sqr));
    float coef = 1.0f / (1.0f + den);
    coef = fminf(fmaxf(coef, 0.0f), 1.0f);

    dn[g] = n;
    ds[g] = s;
    dw[g] = w;
    de[g] = e;
    c[g] = coef;
}

__global__ void srad2(const float* __restrict__ dn, const float* __restrict__ ds,
                      const float* __restrict__ dw, const float* __restrict__ de,
                      float* __restrict__ j, const float* __restrict__ c,
                      int cols, int rows, float lambda)
{
    __shared__ float sc[SR_B + 1][SR_B + 1];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int col = blockIdx.x * SR_B + tx;
    int row = blockIdx.y * SR_B + ty;
    int g = row * cols + col;

    sc[ty][tx] = c[g];
    if (ty == SR_B - 1)
        sc[SR_B][tx] = c[min(row + 1, rows - 1) * cols + col];
    if (tx == SR_B - 1)
        sc[ty][SR_B] = c[row * cols + min(col + 1, cols - 1)];
    __syncthreads();

    float cn = sc[ty][tx];
    float cs = sc[ty + 1][tx];
    float cw = cn;
    float ce = sc[ty][tx + 1];
    float d = cn * dn[g] + cs * ds[g] + cw * dw[g] + ce * de[g];
    j[g] += 0.25f * lambda * d;
}
