"""Ranking Triton configurations: compiled for sm_90 without a GPU, predicted, ordered."""

import math

import pytest

triton = pytest.importorskip("triton")
tl = pytest.importorskip("triton.language")

import ptx2idg  # noqa: E402
import ptx2idg.triton as pt  # noqa: E402


@triton.jit
def add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    y = tl.load(y_ptr + offs, mask=m)
    tl.store(out_ptr + offs, x + y, mask=m)


CONFIGS = [triton.Config({"BLOCK": b}, num_warps=w) for b in (256, 1024) for w in (1, 4)]
ARGS = ("*fp32", "*fp32", "*fp32")


def grid(meta):
    return (triton.cdiv(meta["n"], meta["BLOCK"]),)


def test_rank_orders_every_config_with_its_grid():
    n = 1 << 20
    ranked = pt.rank(add, CONFIGS, *ARGS, n, grid=grid)
    assert sorted(r.config.kwargs["BLOCK"] * 10 + r.config.num_warps for r in ranked) == \
        sorted(c.kwargs["BLOCK"] * 10 + c.num_warps for c in CONFIGS)
    times = [r.time_us for r in ranked]
    assert times == sorted(times)
    for r in ranked:
        assert r.error is None and math.isfinite(r.time_us) and r.time_us > 0
        assert r.grid == (n // r.config.kwargs["BLOCK"], 1, 1)[: len(r.grid)]
        assert r.regs > 0


def test_scalar_arguments_reach_the_prediction():
    cfg = CONFIGS[1]
    small = pt.predict(add, cfg, *ARGS, 1 << 20, grid=grid)
    large = pt.predict(add, cfg, *ARGS, 1 << 23, grid=grid)
    assert 4 < large.time_us / small.time_us < 16


def test_prune_keeps_the_predicted_best():
    tuned = triton.autotune(configs=CONFIGS, key=["n"],
                            prune_configs_by={"early_config_prune": pt.prune(2)})(add)
    tuned.nargs = dict(zip(["x_ptr", "y_ptr", "out_ptr", "n"], [*ARGS, 1 << 20]))
    kept = tuned.prune_configs({"grid": grid, "warmup": False})
    best = [r.config for r in pt.rank(add, CONFIGS, *ARGS, 1 << 20, grid=grid)[:2]]
    assert kept == best
    # The autotuned function ranks like the kernel it wraps.
    assert [r.config for r in pt.rank(tuned, CONFIGS, *ARGS, 1 << 20, grid=grid)[:2]] == best


def test_unbindable_argument_is_an_error():
    with pytest.raises(TypeError):
        pt.predict(add, CONFIGS[0], *ARGS, grid=grid)


@triton.jit
def row_sum(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    base = x_ptr + tl.program_id(0) * n
    acc = tl.zeros((BLOCK,), tl.float32)
    for j in range(0, n, BLOCK):
        acc += tl.load(base + j + tl.arange(0, BLOCK))
    tl.store(out_ptr + tl.program_id(0), tl.sum(acc, 0))


def test_spilling_config_is_timed_with_its_spills():
    # A one-warp program holding 8192 floats: far beyond 255 registers, so ptxas spills in
    # the loop (8 iterations per row).
    cfg = triton.Config({"BLOCK": 8192}, num_warps=1)
    args = ("*fp32", "*fp32", 65536)
    rows = lambda meta: (1024,)  # noqa: E731
    r = pt.predict(row_sum, cfg, *args, grid=rows)
    assert r.regs == 255 and r.spill_bytes > 0
    compiled, _, scalars = pt.compile_config(row_sum, cfg, *args)
    plain = ptx2idg.simulate(compiled.asm["ptx"], grid=(1024,), block=32, params=scalars,
                             gpu="hopper-h100", regs=r.regs, shared=r.shared)
    # Without the spill accesses the two would be equal.
    assert r.time_us > 1.05 * float(plain.time_us[0])


def test_a_loop_ptxas_unrolled_is_predicted_unrolled():
    # 256 iterations of one 8-byte load per thread; ptxas keeps several in flight.
    cfg = triton.Config({"BLOCK": 256}, num_warps=4)
    args = ("*fp32", "*fp32", 65536)
    rows = lambda meta: (1024,)  # noqa: E731
    compiled, _, scalars = pt.compile_config(row_sum, cfg, *args)
    ptx = compiled.asm["ptx"]
    regs, _, sass = pt._ptxas(ptx, 90)
    unrolled = pt.with_unrolled_loops(ptx, sass, pt._loop_trips(ptx, (1024,), 128, scalars))
    assert "$L__unroll0:" in unrolled
    assert unrolled.count("ld.global") > ptx.count("ld.global")
    r = pt.predict(row_sum, cfg, *args, grid=rows)
    expect = ptx2idg.simulate(unrolled, grid=(1024,), block=128, params=scalars,
                              gpu="hopper-h100", regs=regs, shared=r.shared)
    assert r.time_us == float(expect.time_us[0])
