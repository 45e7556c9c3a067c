"""Seven more Triton kernels of common LLM operations for the ranking study, written for this
project from the operations' published definitions: RMS norm, a SwiGLU gated activation, a
tanh soft-cap, rotary embeddings, a cross-entropy over a large vocabulary, a flash-attention
forward pass and a GEMM with a bias and ReLU epilogue; 24 autotuning configurations each.
Imported by measure.py and predict.py with `--kernels llm_kernels` (kernels.py holds the first
three: matmul, softmax, layer norm)."""

import itertools

import triton
import triton.language as tl


@triton.jit
def rms_norm(x, y, w, N, stride, eps, BN: tl.constexpr):
    row = tl.program_id(0)
    base = x + row * stride
    acc = tl.zeros((BN,), tl.float32)
    for j in range(0, N, BN):
        cols = j + tl.arange(0, BN)
        v = tl.load(base + cols, mask=cols < N, other=0.0).to(tl.float32)
        acc += v * v
    rstd = 1 / tl.sqrt(tl.sum(acc, 0) / N + eps)
    for j in range(0, N, BN):
        cols = j + tl.arange(0, BN)
        mask = cols < N
        v = tl.load(base + cols, mask=mask, other=0.0).to(tl.float32)
        g = tl.load(w + cols, mask=mask).to(tl.float32)
        tl.store(y + row * stride + cols, (v * rstd * g).to(tl.float16), mask=mask)


@triton.jit
def swiglu(a, b, out, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    g = tl.load(a + offs, mask=mask).to(tl.float32)
    u = tl.load(b + offs, mask=mask).to(tl.float32)
    tl.store(out + offs, (g * tl.sigmoid(g) * u).to(tl.float16), mask=mask)


@triton.jit
def soft_cap(x, y, n, cap, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    v = tl.load(x + offs, mask=mask)
    # cap * tanh(v / cap), with tanh(z) = 2 sigmoid(2z) - 1.
    tl.store(y + offs, cap * (2 * tl.sigmoid(2 * v / cap) - 1), mask=mask)


@triton.jit
def rope(x, cos, sin, y, T, H, HALF: tl.constexpr, BT: tl.constexpr):
    # x, y: [T, H, 2 * HALF]; cos, sin: [T, HALF]. One program: BT tokens of one head.
    t = tl.program_id(0) * BT + tl.arange(0, BT)
    h = tl.program_id(1)
    d = tl.arange(0, HALF)
    mask = t[:, None] < T
    row = (t[:, None] * H + h) * (2 * HALF)
    x1 = tl.load(x + row + d[None, :], mask=mask).to(tl.float32)
    x2 = tl.load(x + row + HALF + d[None, :], mask=mask).to(tl.float32)
    c = tl.load(cos + t[:, None] * HALF + d[None, :], mask=mask).to(tl.float32)
    s = tl.load(sin + t[:, None] * HALF + d[None, :], mask=mask).to(tl.float32)
    tl.store(y + row + d[None, :], (x1 * c - x2 * s).to(tl.float16), mask=mask)
    tl.store(y + row + HALF + d[None, :], (x2 * c + x1 * s).to(tl.float16), mask=mask)


@triton.jit
def cross_entropy(logits, targets, loss, V, stride, BN: tl.constexpr):
    row = tl.program_id(0)
    base = logits + row * stride
    # Online log-sum-exp over the vocabulary, then minus the target's logit.
    m = tl.full((BN,), -float("inf"), tl.float32)
    s = tl.zeros((BN,), tl.float32)
    for j in range(0, V, BN):
        cols = j + tl.arange(0, BN)
        v = tl.load(base + cols, mask=cols < V, other=-float("inf"))
        nm = tl.maximum(m, v)
        s = s * tl.exp(m - nm) + tl.exp(v - nm)
        m = nm
    mx = tl.max(m, 0)
    lse = mx + tl.log(tl.sum(s * tl.exp(m - mx), 0))
    target = tl.load(targets + row)
    tl.store(loss + row, lse - tl.load(base + target))


@triton.jit
def attention(q, k, v, o, S, scale, D: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
    # q, k, v, o: [Z * H, S, D]; one program: BM queries of one head, keys in blocks of BN.
    start = tl.program_id(0) * BM
    head = tl.program_id(1).to(tl.int64) * S * D
    rm = start + tl.arange(0, BM)
    rd = tl.arange(0, D)
    qt = tl.load(q + head + rm[:, None] * D + rd[None, :], mask=rm[:, None] < S, other=0.0)
    m = tl.full((BM,), -float("inf"), tl.float32)
    l = tl.zeros((BM,), tl.float32)
    acc = tl.zeros((BM, D), tl.float32)
    for n in range(0, S, BN):
        rn = n + tl.arange(0, BN)
        kt = tl.load(k + head + rn[None, :] * D + rd[:, None], mask=rn[None, :] < S, other=0.0)
        qk = tl.dot(qt, kt) * scale
        nm = tl.maximum(m, tl.max(qk, 1))
        p = tl.exp(qk - nm[:, None])
        alpha = tl.exp(m - nm)
        l = l * alpha + tl.sum(p, 1)
        vt = tl.load(v + head + rn[:, None] * D + rd[None, :], mask=rn[:, None] < S, other=0.0)
        acc = acc * alpha[:, None] + tl.dot(p.to(tl.float16), vt)
        m = nm
    tl.store(o + head + rm[:, None] * D + rd[None, :], (acc / l[:, None]).to(tl.float16),
             mask=rm[:, None] < S)


@triton.jit
def gemm_bias_relu(a, b, bias, c, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
                   BK: tl.constexpr, GROUP: tl.constexpr):
    # c[M, N] = relu(a[M, K] @ b[K, N] + bias[N]), row-major, fp16 in and out.
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BM)
    tiles_n = tl.cdiv(N, BN)
    per_group = GROUP * tiles_n
    first_m = (pid // per_group) * GROUP
    rows = tl.minimum(tiles_m - first_m, GROUP)
    pm = first_m + (pid % per_group) % rows
    pn = (pid % per_group) // rows
    rm = (pm * BM + tl.arange(0, BM)) % M
    rn = (pn * BN + tl.arange(0, BN)) % N
    rk = tl.arange(0, BK)
    pa = a + rm[:, None] * K + rk[None, :]
    pb = b + rk[:, None] * N + rn[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for kk in range(0, tl.cdiv(K, BK)):
        acc = tl.dot(tl.load(pa), tl.load(pb), acc)
        pa += BK
        pb += BK * N
    acc += tl.load(bias + rn)[None, :].to(tl.float32)
    om = pm * BM + tl.arange(0, BM)
    on = pn * BN + tl.arange(0, BN)
    tl.store(c + om[:, None] * N + on[None, :], tl.maximum(acc, 0.0).to(tl.float16))


RMS = dict(rows=8192, cols=4096)
ELEMENTS = 8192 * 11008  # one MLP activation of a 7B-parameter model at 8192 tokens
ROPE = dict(T=16384, H=32, HALF=64)
CE = dict(rows=4096, V=32768)
ATTN = dict(ZH=64, S=2048, D=64)
GEMM = dict(M=8192, N=2048, K=4096)


def row_configs():
    return [triton.Config({"BN": bn}, num_warps=w, num_stages=2)
            for bn in (256, 512, 1024, 2048, 4096, 8192) for w in (1, 4, 8, 16)]


def block_configs():
    return [triton.Config({"BLOCK": b}, num_warps=w, num_stages=2)
            for b in (256, 512, 1024, 2048, 4096, 8192) for w in (1, 2, 4, 8)]


def rope_configs():
    return [triton.Config({"BT": bt}, num_warps=w, num_stages=2)
            for bt in (1, 2, 4, 8, 16, 32) for w in (1, 2, 4, 8)]


def ce_configs():
    return [triton.Config({"BN": bn}, num_warps=w, num_stages=2)
            for bn in (512, 1024, 2048, 4096, 8192, 16384) for w in (1, 4, 8, 16)]


def attention_configs():
    return [triton.Config({"BM": bm, "BN": bn}, num_warps=w, num_stages=s)
            for bm, bn in ((64, 32), (64, 64), (64, 128), (128, 32), (128, 64), (128, 128))
            for w, s in ((4, 2), (4, 3), (8, 2), (8, 3))]


def gemm_configs():
    tiles = [(128, 128, 64), (128, 256, 64), (256, 128, 64), (64, 128, 64), (128, 64, 64),
             (64, 64, 64), (128, 128, 32), (64, 256, 32)]
    return [triton.Config({"BM": bm, "BN": bn, "BK": bk, "GROUP": 8}, num_warps=w, num_stages=s)
            for (bm, bn, bk), (w, s) in itertools.product(tiles, [(4, 3), (8, 3), (8, 4)])]


def cases(tensors):
    """(name, kernel, configs, args, grid) per kernel; `tensors(shape, dtype)` makes an
    argument: a CUDA tensor on the H100, a pointer type string for prediction."""
    r, c = RMS["rows"], RMS["cols"]
    t, h, half = ROPE["T"], ROPE["H"], ROPE["HALF"]
    zh, s, d = ATTN["ZH"], ATTN["S"], ATTN["D"]
    m, n, k = GEMM["M"], GEMM["N"], GEMM["K"]
    return [
        ("rms_norm", rms_norm, row_configs(),
         (tensors((r, c), "fp16"), tensors((r, c), "fp16"), tensors((c,), "fp16"), c, c, 1e-6),
         lambda meta: (r,)),
        ("swiglu", swiglu, block_configs(),
         (tensors((ELEMENTS,), "fp16"), tensors((ELEMENTS,), "fp16"),
          tensors((ELEMENTS,), "fp16"), ELEMENTS),
         lambda meta: (triton.cdiv(ELEMENTS, meta["BLOCK"]),)),
        ("soft_cap", soft_cap, block_configs(),
         (tensors((ELEMENTS,), "fp32"), tensors((ELEMENTS,), "fp32"), ELEMENTS, 30.0),
         lambda meta: (triton.cdiv(ELEMENTS, meta["BLOCK"]),)),
        ("rope", rope, rope_configs(),
         (tensors((t, h, 2 * half), "fp16"), tensors((t, half), "fp16"),
          tensors((t, half), "fp16"), tensors((t, h, 2 * half), "fp16"), t, h, half),
         lambda meta: (triton.cdiv(t, meta["BT"]), h)),
        ("cross_entropy", cross_entropy, ce_configs(),
         (tensors((CE["rows"], CE["V"]), "fp32"), tensors((CE["rows"],), "i64"),
          tensors((CE["rows"],), "fp32"), CE["V"], CE["V"]),
         lambda meta: (CE["rows"],)),
        ("attention", attention, attention_configs(),
         (tensors((zh, s, d), "fp16"), tensors((zh, s, d), "fp16"), tensors((zh, s, d), "fp16"),
          tensors((zh, s, d), "fp16"), s, 0.125, d),
         lambda meta: (triton.cdiv(s, meta["BM"]), zh)),
        ("gemm_bias_relu", gemm_bias_relu, gemm_configs(),
         (tensors((m, k), "fp16"), tensors((k, n), "fp16"), tensors((n,), "fp16"),
          tensors((m, n), "fp16"), m, n, k),
         lambda meta: (triton.cdiv(m, meta["BM"]) * triton.cdiv(n, meta["BN"]),)),
    ]
