"""The three Triton kernels of the ranking study, their problem sizes and their autotuning
configurations. Imported by measure.py (on the H100) and predict.py (anywhere, no GPU)."""

import itertools

import triton
import triton.language as tl


@triton.jit
def matmul(a, b, c, M, N, K, sam, sak, sbk, sbn, scm, scn,
           BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP: tl.constexpr):
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BM)
    tiles_n = tl.cdiv(N, BN)
    # Groups of GROUP row-tiles walk the columns together, so their A tiles stay in L2.
    per_group = GROUP * tiles_n
    first_m = (pid // per_group) * GROUP
    rows = tl.minimum(tiles_m - first_m, GROUP)
    pm = first_m + (pid % per_group) % rows
    pn = (pid % per_group) // rows
    rm = (pm * BM + tl.arange(0, BM)) % M
    rn = (pn * BN + tl.arange(0, BN)) % N
    rk = tl.arange(0, BK)
    pa = a + rm[:, None] * sam + rk[None, :] * sak
    pb = b + rk[:, None] * sbk + rn[None, :] * sbn
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        x = tl.load(pa, mask=rk[None, :] < K - k * BK, other=0.0)
        y = tl.load(pb, mask=rk[:, None] < K - k * BK, other=0.0)
        acc = tl.dot(x, y, acc)
        pa += BK * sak
        pb += BK * sbk
    om = pm * BM + tl.arange(0, BM)
    on = pn * BN + tl.arange(0, BN)
    tl.store(c + om[:, None] * scm + on[None, :] * scn, acc.to(tl.float16),
             mask=(om[:, None] < M) & (on[None, :] < N))


@triton.jit
def softmax(x, y, N, stride, BN: tl.constexpr):
    row = tl.program_id(0)
    base = x + row * stride
    # Online softmax: one pass for the running max and sum, one to write.
    m = tl.full((BN,), -float("inf"), tl.float32)
    s = tl.zeros((BN,), tl.float32)
    for j in range(0, N, BN):
        cols = j + tl.arange(0, BN)
        v = tl.load(base + cols, mask=cols < N, other=-float("inf"))
        nm = tl.maximum(m, v)
        s = s * tl.exp(m - nm) + tl.exp(v - nm)
        m = nm
    mx = tl.max(m, 0)
    total = tl.sum(s * tl.exp(m - mx), 0)
    for j in range(0, N, BN):
        cols = j + tl.arange(0, BN)
        v = tl.load(base + cols, mask=cols < N, other=-float("inf"))
        tl.store(y + row * stride + cols, tl.exp(v - mx) / total, mask=cols < N)


@triton.jit
def layer_norm(x, y, w, b, N, stride, eps, BN: tl.constexpr):
    row = tl.program_id(0)
    base = x + row * stride
    acc = tl.zeros((BN,), tl.float32)
    acc2 = tl.zeros((BN,), tl.float32)
    for j in range(0, N, BN):
        cols = j + tl.arange(0, BN)
        v = tl.load(base + cols, mask=cols < N, other=0.0).to(tl.float32)
        acc += v
        acc2 += v * v
    mean = tl.sum(acc, 0) / N
    var = tl.sum(acc2, 0) / N - mean * mean
    rstd = 1 / tl.sqrt(var + eps)
    for j in range(0, N, BN):
        cols = j + tl.arange(0, BN)
        mask = cols < N
        v = tl.load(base + cols, mask=mask, other=0.0).to(tl.float32)
        g = tl.load(w + cols, mask=mask).to(tl.float32)
        h = tl.load(b + cols, mask=mask).to(tl.float32)
        tl.store(y + row * stride + cols, ((v - mean) * rstd * g + h).to(tl.float16), mask=mask)


MM = dict(M=4096, N=4096, K=4096)
SM_ROWS, SM_COLS = 8192, 8192
LN_ROWS, LN_COLS = 8192, 8192


def matmul_configs():
    tiles = [(128, 128, 64), (128, 256, 64), (256, 128, 64), (64, 128, 64), (128, 64, 64),
             (64, 64, 64), (128, 128, 32), (64, 256, 32)]
    out = []
    for (bm, bn, bk), (w, s) in itertools.product(tiles, [(4, 3), (8, 3), (8, 4)]):
        out.append(triton.Config({"BM": bm, "BN": bn, "BK": bk, "GROUP": 8},
                                 num_warps=w, num_stages=s))
    return out


def row_configs():
    return [triton.Config({"BN": bn}, num_warps=w, num_stages=s)
            for bn in (256, 512, 1024, 2048, 4096, 8192) for w, s in ((1, 2), (4, 2), (8, 3), (16, 2))]


def key(c):
    """A configuration as one CSV cell."""
    return ";".join(f"{k}={v}" for k, v in sorted(c.kwargs.items())) + \
        f";warps={c.num_warps};stages={c.num_stages}"


def matmul_grid(meta):
    return (triton.cdiv(meta["M"], meta["BM"]) * triton.cdiv(meta["N"], meta["BN"]),)


def row_grid_sm(meta):
    return (SM_ROWS,)


def row_grid_ln(meta):
    return (LN_ROWS,)


def cases(tensors):
    """(name, kernel, configs, args, grid) per kernel; `tensors(shape, dtype)` makes an
    argument: a CUDA tensor on the H100, a pointer type string for prediction."""
    M, N, K = MM["M"], MM["N"], MM["K"]
    a = tensors((M, K), "fp16")
    b = tensors((K, N), "fp16")
    c = tensors((M, N), "fp16")
    x = tensors((SM_ROWS, SM_COLS), "fp32")
    y = tensors((SM_ROWS, SM_COLS), "fp32")
    lx = tensors((LN_ROWS, LN_COLS), "fp16")
    ly = tensors((LN_ROWS, LN_COLS), "fp16")
    lw = tensors((LN_COLS,), "fp16")
    lb = tensors((LN_COLS,), "fp16")
    return [
        ("matmul", matmul, matmul_configs(),
         (a, b, c, M, N, K, K, 1, N, 1, N, 1), matmul_grid),
        ("softmax", softmax, row_configs(), (x, y, SM_COLS, SM_COLS), row_grid_sm),
        ("layer_norm", layer_norm, row_configs(),
         (lx, ly, lw, lb, LN_COLS, LN_COLS, 1e-5), row_grid_ln),
    ]
