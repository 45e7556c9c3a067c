// Back-propagation, the two GPU kernels of the Rodinia formulation of one
// training step of a 2-layer perceptron (input layer of `in` units, hidden
// layer of `hid` = 16 units; weight matrices are (in+1) x (hid+1), row 0 and
// column 0 belong to the bias unit). 16x16 blocks; block y covers 16 input
// units.
//
// bpnn_layerforward: block by stages its 16 input activations and its 16x16
// weight tile in shared memory, multiplies them, and sums the tile over the
// input dimension with a log2(16)-step tree reduction (one barrier per step).
// The products are written back to the weight array (as in the Rodinia
// kernel) and the 16 partial sums, one per hidden unit, to
// partial[by * hid + h]; the host adds the partials.
//
// bpnn_adjust_weights: momentum update of the weights between the input and
// hidden layer, w += eta * delta[h] * x[i] + momentum * dw_old, dw_old = that
// step; block 0's first row also updates the bias weights.

#define BP_H 16
#define BP_LOG2_H 4
#define BP_ETA 0.3f
#define BP_MOMENTUM 0.3f

__global__ void bpnn_layerforward(const float* __restrict__ input, float* weights,
                                  float* __restrict__ partial, int in, int hid)
{
    __shared__ float node[BP_H];
    __shared__ float w[BP_H][BP_H];

    int by = blockIdx.y;
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int stride = hid + 1;
    int idx = stride * BP_H * by + stride * ty + tx + 1 + stride;
    int idx_in = BP_H * by + ty + 1;

    if (tx == 0)
        node[ty] = input[idx_in];
    __syncthreads();
    w[ty][tx] = weights[idx];
    __syncthreads();
    w[ty][tx] *= node[ty];
    __syncthreads();
    for (int i = 1; i <= BP_LOG2_H; ++i) {
        int step = 1 << i;
        if (ty % step == 0)
            w[ty][tx] += w[ty + step / 2][tx];
        __syncthreads();
    }
    weights[idx] = w[ty][tx];
    __syncthreads();
    if (tx == 0)
        partial[by * hid + ty] = w[0][ty];
}

__global__ void bpnn_adjust_weights(const float* __restrict__ delta, int hid,
                                    const float* __restrict__ ly, int in,
                                    float* w, float* oldw)
{
    int by = blockIdx.y;
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int stride = hid + 1;
    int idx = stride * BP_H * by + stride * ty + tx + 1 + stride;
    int idx_y = BP_H * by + ty + 1;
    int idx_x = tx + 1;

    float dwv = BP_ETA * delta[idx_x] * ly[idx_y] + BP_MOMENTUM * oldw[idx];
    w[idx] += dwv;
    oldw[idx] = dwv;
    __syncthreads();
    if (ty == 0 && by == 0) {
        float db = BP_ETA * delta[idx_x] + BP_MOMENTUM * oldw[idx_x];
        w[idx_x] += db;
        oldw[idx_x] = db;
    }
}
