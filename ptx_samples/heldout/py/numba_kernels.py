"""numba kernels of the held-out suite (group gen), written for this suite.

Plain numba.cuda formulations: one thread per pixel (mandelbrot, in float64 as Python
floats are) and one thread per input element (histogram, global atomic increments).
py/regen.py compiles them for sm_90 without a GPU and writes numba/<name>.ptx.
"""
from numba import cuda


# the viewport [-2.2, 0.8] x [-1.0, 1.0]; constants are frozen into the kernel
X0 = -2.2
X_SPAN = 3.0
Y0 = -1.0
Y_SPAN = 2.0


def mandelbrot(out, width, height, max_iter):
    # escape-time iteration: the trip count is data dependent and diverges within warps
    # along the set's boundary
    i = cuda.grid(1)
    if i < width * height:
        cx = X0 + (i % width) * (X_SPAN / width)
        cy = Y0 + (i // width) * (Y_SPAN / height)
        x = 0.0
        y = 0.0
        n = 0
        while n < max_iter and x * x + y * y <= 4.0:
            xt = x * x - y * y + cx
            y = 2.0 * x * y + cy
            x = xt
            n += 1
        out[i] = n


def histogram(keys, hist):
    # one global atomic per element; skewed keys make hot bins contend
    i = cuda.grid(1)
    if i < keys.shape[0]:
        cuda.atomic.add(hist, keys[i], 1)
