// Corpus suite, family "stream": STREAM-style vector kernels (copy, scale, add, triad,
// axpy) over float, float2, float4 and double elements, written from the published
// description of the STREAM benchmark (McCalpin) and of BLAS axpy.
//
// Two launch shapes:
//   one element per thread   (grid = n / 256 blocks, many waves), entries st_<op>_<type>;
//   grid-stride loop         (a fixed small grid, each thread walks n / (grid * 256)
//                             elements), entries st_<op>_gs_<type>.
// Every entry is one instantiation of the templates below, so the variants differ only
// in element width and launch shape.

#include <cstdint>

// element-wise arithmetic on the vector types (float2, float4) like on scalars
__device__ __forceinline__ float2 operator+(float2 a, float2 b) { return make_float2(a.x + b.x, a.y + b.y); }
__device__ __forceinline__ float4 operator+(float4 a, float4 b)
{
    return make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
}
__device__ __forceinline__ float2 operator*(float s, float2 a) { return make_float2(s * a.x, s * a.y); }
__device__ __forceinline__ float4 operator*(float s, float4 a)
{
    return make_float4(s * a.x, s * a.y, s * a.z, s * a.w);
}

template <class T>
__device__ __forceinline__ void copy_one(const T* __restrict__ a, T* __restrict__ b, int i)
{
    b[i] = a[i];
}

template <class T>
__device__ __forceinline__ void scale_one(const T* __restrict__ a, T* __restrict__ b, float s, int i)
{
    b[i] = s * a[i];
}

template <class T>
__device__ __forceinline__ void add_one(const T* __restrict__ a, const T* __restrict__ b,
                                        T* __restrict__ c, int i)
{
    c[i] = a[i] + b[i];
}

template <class T>
__device__ __forceinline__ void triad_one(const T* __restrict__ a, const T* __restrict__ b,
                                          T* __restrict__ c, float s, int i)
{
    c[i] = a[i] + s * b[i];
}

// y = s x + y, in place (re-launched on its own output)
template <class T>
__device__ __forceinline__ void axpy_one(const T* __restrict__ x, T* __restrict__ y, float s, int i)
{
    y[i] = s * x[i] + y[i];
}

#define TID (blockIdx.x * blockDim.x + threadIdx.x)

#define STREAM_ENTRIES(T, tag)                                                                 \
    extern "C" __global__ void st_copy_##tag(const T* __restrict__ a, T* __restrict__ b, int n) \
    {                                                                                          \
        const int i = TID;                                                                     \
        if (i < n)                                                                             \
            copy_one(a, b, i);                                                                 \
    }                                                                                          \
    extern "C" __global__ void st_scale_##tag(const T* __restrict__ a, T* __restrict__ b,      \
                                              float s, int n)                                  \
    {                                                                                          \
        const int i = TID;                                                                     \
        if (i < n)                                                                             \
            scale_one(a, b, s, i);                                                             \
    }                                                                                          \
    extern "C" __global__ void st_add_##tag(const T* __restrict__ a, const T* __restrict__ b,  \
                                            T* __restrict__ c, int n)                          \
    {                                                                                          \
        const int i = TID;                                                                     \
        if (i < n)                                                                             \
            add_one(a, b, c, i);                                                               \
    }                                                                                          \
    extern "C" __global__ void st_triad_##tag(const T* __restrict__ a, const T* __restrict__ b,\
                                              T* __restrict__ c, float s, int n)               \
    {                                                                                          \
        const int i = TID;                                                                     \
        if (i < n)                                                                             \
            triad_one(a, b, c, s, i);                                                          \
    }                                                                                          \
    extern "C" __global__ void st_axpy_##tag(const T* __restrict__ x, T* __restrict__ y,       \
                                             float s, int n)                                   \
    {                                                                                          \
        const int i = TID;                                                                     \
        if (i < n)                                                                             \
            axpy_one(x, y, s, i);                                                              \
    }

STREAM_ENTRIES(float, f32)
STREAM_ENTRIES(float2, f2)
STREAM_ENTRIES(float4, f4)
STREAM_ENTRIES(double, f64)

// grid-stride loops: a small fixed grid walks the whole array
#define STREAM_GS_ENTRIES(T, tag)                                                              \
    extern "C" __global__ void st_copy_gs_##tag(const T* __restrict__ a, T* __restrict__ b,    \
                                                int n)                                         \
    {                                                                                          \
        for (int i = TID; i < n; i += gridDim.x * blockDim.x)                                  \
            copy_one(a, b, i);                                                                 \
    }                                                                                          \
    extern "C" __global__ void st_triad_gs_##tag(const T* __restrict__ a,                      \
                                                 const T* __restrict__ b, T* __restrict__ c,   \
                                                 float s, int n)                               \
    {                                                                                          \
        for (int i = TID; i < n; i += gridDim.x * blockDim.x)                                  \
            triad_one(a, b, c, s, i);                                                          \
    }

STREAM_GS_ENTRIES(float, f32)
STREAM_GS_ENTRIES(float4, f4)
