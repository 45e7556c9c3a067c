"""Ranking Triton configurations: compiled for sm_90 without a GPU, predicted, ordered."""

import io
import math
import subprocess

import pandas as pd
import pytest

triton = pytest.importorskip("triton")
tl = pytest.importorskip("triton.language")

import ptx2idg  # noqa: E402
import ptx2idg.triton as pt  # noqa: E402
from test_cli_parity import CLI  # noqa: E402


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


def test_rank_in_parallel_is_predict_one_by_one():
    """ptxas, nvdisasm and the model run for several configurations at once; each prediction
    is still ``predict``'s, and a configuration that fails stays in the ranking."""
    n = 1 << 20
    bad = triton.Config({"BLOCK": 1000}, num_warps=4)  # tl.arange needs a power of two
    configs = CONFIGS + [bad]
    one = pt.rank(add, configs, *ARGS, n, grid=grid, workers=1)
    many = pt.rank(add, configs, *ARGS, n, grid=grid, workers=4)
    assert [(str(r.config), r.time_us, r.regs) for r in one] == \
        [(str(r.config), r.time_us, r.regs) for r in many]
    assert many[-1].error and math.isinf(many[-1].time_us)
    by_one = {str(c): pt.predict(add, c, *ARGS, n, grid=grid).time_us for c in CONFIGS}
    for r in many[: len(CONFIGS)]:
        assert r.time_us == by_one[str(r.config)]


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
                             gpu="hopper-h100", regs=r.regs, shared=r.shared, sass="none")
    # Without the machine code's spill accesses the two would be equal.
    assert r.time_us > 1.05 * float(plain.time_us[0])


def test_the_cli_given_the_same_ptx_and_machine_code_predicts_the_same(tmp_path):
    # 256 iterations of one 8-byte load per thread; ptxas keeps several in flight.
    cfg = triton.Config({"BLOCK": 256}, num_warps=4)
    args = ("*fp32", "*fp32", 65536)
    rows = lambda meta: (1024,)  # noqa: E731
    r = pt.predict(row_sum, cfg, *args, grid=rows)
    compiled, _, scalars = pt.compile_config(row_sum, cfg, *args)
    ptx = tmp_path / "row_sum.ptx"
    ptx.write_text(compiled.asm["ptx"])
    sass = pt.machine_code(compiled.asm["ptx"], 90, str(tmp_path))
    params = [a for k, v in scalars.items() for a in ("--param", f"{k}={v}")]
    out = subprocess.run(
        [CLI, "simulate", str(ptx), "--grid", "1024", "--block", "128", "--shared",
         str(r.shared), "--sass", sass, "--precision", "17", "--format", "csv", *params],
        capture_output=True, text=True, check=True)
    cli = pd.read_csv(io.StringIO(out.stdout))
    assert r.time_us == float(cli.time_us[0])
    # The machine code runs the loop unrolled by 4: one group per SM, latency-bound, is
    # faster than the PTX's one load at a time.
    one = pt.predict(row_sum, cfg, *args, grid=lambda meta: (132,))
    plain = ptx2idg.simulate(compiled.asm["ptx"], grid=(132,), block=128, params=scalars,
                             gpu="hopper-h100", regs=r.regs, shared=r.shared, sass="none")
    assert one.time_us < 0.5 * float(plain.time_us[0])
